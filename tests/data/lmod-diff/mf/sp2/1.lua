prepend_path("MANPATH", "/sp2/man", ":")
append_path("MANPATH", "", ":")
