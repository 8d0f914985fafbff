load("lib/1")
setenv("APPV", "1")
