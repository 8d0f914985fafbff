family("compiler")
setenv("FI", "intel")
