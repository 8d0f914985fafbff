-- setenv with respect=true
setenv("EXIST", "modval", true)
setenv("NEWR", "modval", true)
