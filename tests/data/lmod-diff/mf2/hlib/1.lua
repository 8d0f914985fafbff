setenv("HLIB", "1")
prepend_path("PATH", "/opt/hlib/bin")
