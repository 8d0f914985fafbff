load_any("nonexist", "lib", "other")
setenv("LA", "1")
