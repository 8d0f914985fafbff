-- EasyBuild-style CUDAcore module (the 2020-era split): the toolkit itself, which the CUDA/13.0.0-GCC-13.2.0 bundle loads
help([==[

Description
===========
CUDA (formerly Compute Unified Device Architecture) is a parallel
 computing platform and programming model created by NVIDIA.
]==])

whatis([==[Description: CUDA core toolkit, without a compiler dependency]==])

local root = "@CUDA@"

conflict("CUDAcore")

prepend_path("CPATH", pathJoin(root, "extras/CUPTI/include"))
prepend_path("CPATH", pathJoin(root, "include"))
prepend_path("CPATH", pathJoin(root, "nvvm/include"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "extras/CUPTI/lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(root, "nvvm/lib64"))
prepend_path("LIBRARY_PATH", pathJoin(root, "extras/CUPTI/lib64"))
prepend_path("LIBRARY_PATH", pathJoin(root, "lib64"))
prepend_path("LIBRARY_PATH", pathJoin(root, "nvvm/lib64"))
prepend_path("PATH", pathJoin(root, "bin"))
setenv("EBROOTCUDACORE", root)
setenv("EBVERSIONCUDACORE", "13.0.0")
setenv("CUDA_HOME", root)
setenv("CUDA_PATH", root)
-- Built with EasyBuild version 4.3.2
