-- Spack's system-manpath sentinel
prepend_path("MANPATH", "/sp1/man", ":")
append_path("MANPATH", "", ":")
prepend_path("CMAKE_PREFIX_PATH", "/sp1/.", ":")
