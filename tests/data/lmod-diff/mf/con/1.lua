conflict("other")
conflict("lib/2")
setenv("CON", "1")
