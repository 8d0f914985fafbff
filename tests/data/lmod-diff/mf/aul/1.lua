always_unload("other")
setenv("AUL", "1")
