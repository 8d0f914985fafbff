-- complete/uncomplete with all three arguments: shell output, not environment
complete("bash", "foo", "-W 'a b c'")
uncomplete("bash", "bar", "-W x")
setenv("COMPL2", "1")
