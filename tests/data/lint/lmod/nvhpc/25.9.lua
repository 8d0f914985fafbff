-- -*- lua -*-
-- NVIDIA HPC SDK 25.9 (as shipped: modulefiles/nvhpc/25.9, converted to Lua by the site)
conflict("nvhpc", "nvhpc-nompi", "nvhpc-byo-compiler")

local nvhome = "@HPCSDK@"
local target = "Linux_x86_64"
local version = "25.9"

setenv("NVHPC", nvhome)
setenv("NVHPC_ROOT", nvhome)
setenv("CC", pathJoin(nvhome, "compilers/bin/nvc"))
setenv("CXX", pathJoin(nvhome, "compilers/bin/nvc++"))
setenv("FC", pathJoin(nvhome, "compilers/bin/nvfortran"))

prepend_path("PATH", pathJoin(nvhome, "cuda/13.0/bin"))
prepend_path("PATH", pathJoin(nvhome, "compilers/bin"))
prepend_path("MANPATH", pathJoin(nvhome, "compilers/man"))

prepend_path("LD_LIBRARY_PATH", pathJoin(nvhome, "cuda/13.0/lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(nvhome, "cuda/13.0/extras/CUPTI/lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(nvhome, "compilers/lib"))
prepend_path("LD_LIBRARY_PATH", pathJoin(nvhome, "math_libs/13.0/lib64"))
prepend_path("LD_LIBRARY_PATH", pathJoin(nvhome, "comm_libs/13.0/nccl/lib"))

prepend_path("CPATH", pathJoin(nvhome, "math_libs/13.0/include"))
prepend_path("CPATH", pathJoin(nvhome, "comm_libs/13.0/nccl/include"))
