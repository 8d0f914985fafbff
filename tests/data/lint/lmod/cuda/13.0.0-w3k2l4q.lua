-- -*- lua -*-
-- Spack-style cuda module (site template): depends_on (present), family, whatis/help, MANPATH sentinel, hierarchy MODULEPATH unlock
--
-- cuda@13.0.0%gcc@13.2.0~allow-unsupported-compilers~dev build_system=generic arch=linux-ubuntu24.04-sapphirerapids/w3k2l4q
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

-- Services provided by the package
family("cuda")

-- Loading this module unlocks the path below unconditionally
prepend_path("MODULEPATH", "/apps/spack/modules/linux-ubuntu24.04-x86_64/cuda/13.0.0-w3k2l4q/gcc/13.2.0")

depends_on("libxml2/2.13.5-4tt3m6o")

prepend_path("PATH", "@CUDA@/bin", ":")
prepend_path("CPATH", "@CUDA@/include", ":")
prepend_path("CPATH", "@CUDA@/extras/CUPTI/include", ":")
prepend_path("CPATH", "@CUDA@/nvvm/include", ":")
prepend_path("LD_LIBRARY_PATH", "@CUDA@/lib64", ":")
prepend_path("LD_LIBRARY_PATH", "@CUDA@/extras/CUPTI/lib64", ":")
prepend_path("LD_LIBRARY_PATH", "@CUDA@/nvvm/lib64", ":")
prepend_path("LIBRARY_PATH", "@CUDA@/lib64", ":")
prepend_path("LIBRARY_PATH", "@CUDA@/extras/CUPTI/lib64", ":")
prepend_path("LIBRARY_PATH", "@CUDA@/nvvm/lib64", ":")
prepend_path("CMAKE_PREFIX_PATH", "@CUDA@/.", ":")
setenv("CUDA_HOME", "@CUDA@")
setenv("NVHPC_CUDA_HOME", "@CUDA@")
setenv("LMOD_CUDA_NAME", "cuda")
setenv("LMOD_CUDA_VERSION", "13.0.0-w3k2l4q")
append_path("MANPATH", "", ":")
