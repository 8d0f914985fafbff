-- duplicates inside one value and across calls
prepend_path("DUPV", "/d1:/d1:/d2:/d1")
append_path("DUPV", "/d2")
prepend_path("PATH", "/usr/bin")
