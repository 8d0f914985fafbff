prereq_any("nonexist", "lib")
setenv("PREA", "1")
