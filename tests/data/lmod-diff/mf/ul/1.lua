unload("lib")
setenv("UL", "1")
