-- entries are normalised
prepend_path("R1", "/r//x/./y/")
prepend_path("R2", "~/bin")
prepend_path("R3", "/tex//")
prepend_path("R4", "  /spc  ")
prepend_path("R5", "./bin")
append_path("R6", "/a/b/")
prepend_path("R7", "/sp1/.")
prepend_path("R8", "/opt/x/../y")
