-- -*- lua -*-
-- Module file created by spack (https://github.com/spack/spack) on 2025-10-02 14:11:09.412312
--
-- cuda@13.0.0%gcc@13.3.0~allow-unsupported-compilers~dev build_system=generic arch=linux-ubuntu24.04-sapphirerapids/w3k2l4q
--

whatis([[Name : cuda]])
whatis([[Version : 13.0.0]])
whatis([[Target : sapphirerapids]])
whatis([[Short description : CUDA is a parallel computing platform and programming model invented by NVIDIA.]])

help([[Name   : cuda]])
help([[Version: 13.0.0]])
help([[Target : sapphirerapids]])
help()
help([[CUDA is a parallel computing platform and programming model invented by
NVIDIA. It enables dramatic increases in computing performance by harnessing
the power of the graphics processing unit (GPU).]])

conflict("cuda")

prepend_path("PATH", "@CUDA@/bin", ":")
prepend_path("CMAKE_PREFIX_PATH", "@CUDA@/.", ":")
setenv("CUDA_HOME", "@CUDA@")
setenv("NVHPC_CUDA_HOME", "@CUDA@")
