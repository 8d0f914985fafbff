load("lib")
setenv("APP", "1")
