-- existing values with trailing '/', duplicates, empty entries
prepend_path("PATH", "/new")
prepend_path("MANPATH", "/m")
prepend_path("LDP", "/l")
prepend_path("E2", "/e")
append_path("E3", "/e")
prepend_path("DUPV", "/n")
