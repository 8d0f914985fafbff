-- empty values and empty entries
prepend_path("EMPTYV", "")
prepend_path("TEX", "/t1::")
append_path("TEX2", "/t2:")
prepend_path("PATH", "/p1::/p2:")
append_path("MIDV", "/m1::/m2")
