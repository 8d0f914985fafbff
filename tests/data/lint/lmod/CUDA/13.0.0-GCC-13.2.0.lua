-- EasyBuild-style bundle CUDA/13.0.0-GCC-13.2.0: sets no path itself; clean only if lint follows its loads of GCCcore and CUDAcore
help([==[

Description
===========
CUDA bundled with the GCC toolchain it was certified for.
]==])

whatis([==[Description: CUDA bundled with the GCC toolchain it was certified for.]==])

local root = "/apps/easybuild/software/CUDA/13.0.0-GCC-13.2.0"

conflict("CUDA")

add_property("arch","gpu")

if not ( isloaded("GCCcore/13.2.0") ) then
    load("GCCcore/13.2.0")
end

if not ( isloaded("CUDAcore/13.0.0") ) then
    load("CUDAcore/13.0.0")
end

setenv("EBROOTCUDA", root)
setenv("EBVERSIONCUDA", "13.0.0")
-- Built with EasyBuild version 4.3.2
