prepend_path("PATH", "/opt/shared/bin")
prepend_path("MANPATH", "/opt/shared/man")
