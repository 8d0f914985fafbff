depends_on("lib")
setenv("DEP2", "1")
