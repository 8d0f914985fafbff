family("compiler")
setenv("FG", "gcc")
