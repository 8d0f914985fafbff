-- EasyBuild-style UCX-CUDA plugin module: depends_on (EasyBuild 5 default) of GCCcore/14.2.0 and UCX (absent from this tree) and CUDA/13.0.0 (present)
help([==[

Description
===========
Unified Communication X: the CUDA plugin.
]==])

whatis([==[Description: Unified Communication X - CUDA plugin]==])

local root = "/apps/easybuild/software/UCX-CUDA/1.18.0-GCCcore-14.2.0-CUDA-13.0.0"

conflict("UCX-CUDA")

add_property("arch","gpu")

depends_on("GCCcore/14.2.0")
depends_on("UCX/1.18.0-GCCcore-14.2.0")
depends_on("CUDA/13.0.0")

prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib"))
prepend_path("LIBRARY_PATH", pathJoin(root, "lib"))
setenv("EBROOTUCXMINCUDA", root)
setenv("EBVERSIONUCXMINCUDA", "1.18.0")
-- Built with EasyBuild version 5.0.0
