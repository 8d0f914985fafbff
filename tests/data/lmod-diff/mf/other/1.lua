setenv("OTHER", "1")
