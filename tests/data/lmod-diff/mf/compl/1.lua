-- complete/uncomplete: shell output, not environment
complete("bash", "foo", "-W 'a b c'")
uncomplete("bash", "bar")
setenv("COMPL", "1")
