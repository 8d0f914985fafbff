setenv("LIBV", "1")
prepend_path("PATH", "/opt/lib/1/bin")
