prepend_path("PATH", "/later")
append_path("PATH", "/later2")
