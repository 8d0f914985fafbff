-- complete, and uncomplete with two arguments (Lmod wants three strings)
complete("bash", "foo", "-W 'a b c'")
uncomplete("bash", "bar")
setenv("COMPL", "1")
