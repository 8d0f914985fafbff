-- prepend/append of new entries to PATH, MANPATH, LD_LIBRARY_PATH
prepend_path("PATH", "/opt/pp/bin")
prepend_path("MANPATH", "/opt/pp/man")
append_path("LD_LIBRARY_PATH", "/opt/pp/lib")
append_path("PATH", "/opt/pp/sbin")
