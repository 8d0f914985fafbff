-- EasyBuild style
help([==[

Description
===========
CUDA (formerly Compute Unified Device Architecture) ...
]==])
whatis([==[Description: CUDA toolkit]==])
whatis([==[Homepage: https://developer.nvidia.com/cuda-toolkit]==])
local root = "/apps/software/CUDA/12.1.1"
conflict("ebcuda")
if not ( isloaded("lib/2") ) then
    load("lib/2")
end
prepend_path("CPATH", pathJoin(root, "include"))
prepend_path("CPATH", pathJoin(root, "extras/CUPTI/include"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib"))
prepend_path("LIBRARY_PATH", pathJoin(root, "stubs/lib64"))
prepend_path("PATH", root)
prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("XDG_DATA_DIRS", pathJoin(root, "share"))
setenv("EBROOTCUDA", root)
setenv("EBVERSIONCUDA", "12.1.1")
setenv("EBDEVELCUDA", pathJoin(root, "easybuild/CUDA-12.1.1-easybuild-devel"))
setenv("CUDA_HOME", root)
setenv("CUDA_ROOT", root)
setenv("CUDA_PATH", root)
add_property("arch", "gpu")
