always_load("lib")
setenv("ALW", "1")
