-- EasyBuild-style CUDA module whose guarded load names a GCCcore not in this tree (CTK-MOD-008; the file is checked on)
help([==[

Description
===========
CUDA (formerly Compute Unified Device Architecture) is a parallel
 computing platform and programming model created by NVIDIA.


More information
================
 - Homepage: https://developer.nvidia.com/cuda-toolkit
]==])

whatis([==[Description: CUDA (formerly Compute Unified Device Architecture) is a parallel
 computing platform and programming model created by NVIDIA.]==])
whatis([==[Homepage: https://developer.nvidia.com/cuda-toolkit]==])

local root = "@CUDA@"

conflict("CUDA")

add_property("arch","gpu")

if not ( isloaded("GCCcore/14.2.0") ) then
    load("GCCcore/14.2.0")
end

prepend_path("CPATH", pathJoin(root, "extras/CUPTI/include"))
prepend_path("CPATH", pathJoin(root, "include"))
prepend_path("CPATH", pathJoin(root, "nvvm/include"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "extras/CUPTI/lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "nvvm/lib64"))
prepend_path("LIBRARY_PATH", pathJoin(root, "extras/CUPTI/lib64"))
prepend_path("LIBRARY_PATH", pathJoin(root, "lib64"))
prepend_path("LIBRARY_PATH", pathJoin(root, "lib64/stubs"))
prepend_path("LIBRARY_PATH", pathJoin(root, "nvvm/lib64"))
prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("PATH", pathJoin(root, "nvvm/bin"))
setenv("EBROOTCUDA", root)
setenv("EBVERSIONCUDA", "13.0.0")
setenv("EBDEVELCUDA", pathJoin(root, "easybuild/CUDA-13.0.0-easybuild-devel"))

setenv("CUDA_HOME", root)
setenv("CUDA_ROOT", root)
setenv("CUDA_PATH", root)
-- Built with EasyBuild version 4.9.4
