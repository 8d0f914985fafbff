depends_on("lib")
setenv("DEP", "1")
