setenv("LIBV", "2")
prepend_path("PATH", "/opt/lib/2/bin")
