-- -*- lua -*-
-- GNU Compiler Collection 13.2.0
family("compiler")
local root = "/opt/gcc/13.2.0"
prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("MANPATH", pathJoin(root, "share/man"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib64"))
setenv("CC", pathJoin(root, "bin/gcc"))
setenv("CXX", pathJoin(root, "bin/g++"))
