-- shares pp's entries: reference counts go to 2
prepend_path("PATH", "/opt/pp/bin")
append_path("MANPATH", "/opt/pp/man")
prepend_path("LD_LIBRARY_PATH", "/opt/pp/lib")
