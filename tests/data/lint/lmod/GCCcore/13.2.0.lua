-- EasyBuild-style GCCcore module: the dependency CUDA/13.0.0 loads (followed by lint; no toolkit of its own)
help([==[

Description
===========
The GNU Compiler Collection includes front ends for C, C++, Objective-C, Fortran, Java, and Ada.

More information
================
 - Homepage: https://gcc.gnu.org/
]==])

whatis([==[Description: The GNU Compiler Collection includes front ends for C, C++, Objective-C, Fortran, Java, and Ada.]==])
whatis([==[Homepage: https://gcc.gnu.org/]==])

local root = "/apps/easybuild/software/GCCcore/13.2.0"

conflict("GCCcore")

prepend_path("CMAKE_LIBRARY_PATH", pathJoin(root, "lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib"))
prepend_path("MANPATH", pathJoin(root, "share/man"))
prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("XDG_DATA_DIRS", pathJoin(root, "share"))
setenv("EBROOTGCCCORE", root)
setenv("EBVERSIONGCCCORE", "13.2.0")
setenv("EBDEVELGCCCORE", pathJoin(root, "easybuild/GCCcore-13.2.0-easybuild-devel"))

-- Built with EasyBuild version 4.9.4
