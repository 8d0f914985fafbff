-- removes what alias/1 set
unset_alias("ll")
unset_shell_function("hello")
