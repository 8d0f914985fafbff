try_load("nonexist")
try_load("lib")
setenv("TL", "1")
