setenv("XV", "/a")
