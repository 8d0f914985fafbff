-- -*- lua -*-
-- NVIDIA HPC SDK style nvhpc-hpcx module (vendor Tcl, converted by the site): pushenv of CC/CXX/FC, set_alias, unset_alias, set_shell_function
conflict("nvhpc", "nvhpc-nompi", "nvhpc-byo-compiler", "nvhpc-hpcx")

local nvhome = "@HPCSDK@"
local cuda = pathJoin(nvhome, "cuda/13.0")
local hpcx = pathJoin(nvhome, "comm_libs/13.0/hpcx/hpcx-2.24")

setenv("NVHPC", nvhome)
setenv("NVHPC_ROOT", nvhome)
setenv("CUDA_HOME", cuda)
pushenv("CC", pathJoin(nvhome, "compilers/bin/nvc"))
pushenv("CXX", pathJoin(nvhome, "compilers/bin/nvc++"))
pushenv("FC", pathJoin(nvhome, "compilers/bin/nvfortran"))
setenv("HPCX_HOME", hpcx)

prepend_path("PATH", pathJoin(cuda, "bin"))
prepend_path("PATH", pathJoin(nvhome, "compilers/bin"))
prepend_path("MANPATH", pathJoin(nvhome, "compilers/man"))
for _, d in ipairs({ "comm_libs/13.0/nccl/include", "math_libs/13.0/include", "cuda/13.0/nvvm/include",
                     "cuda/13.0/extras/CUPTI/include", "cuda/13.0/include" }) do
    prepend_path("CPATH", pathJoin(nvhome, d))
end
for _, d in ipairs({ "comm_libs/13.0/nccl/lib", "math_libs/13.0/lib64", "cuda/13.0/nvvm/lib64",
                     "cuda/13.0/extras/CUPTI/lib64", "cuda/13.0/lib64", "compilers/lib" }) do
    prepend_path("LD_LIBRARY_PATH", pathJoin(nvhome, d))
    prepend_path("LIBRARY_PATH", pathJoin(nvhome, d))
end

-- HPC-X's own hpcx-init.sh defines these; the site keeps them without running it
set_alias("nvcc-host", "nvcc -ccbin " .. pathJoin(nvhome, "compilers/bin/nvc++"))
unset_alias("mpicc")
set_shell_function("hpcx_load",
    "export OPAL_PREFIX=" .. pathJoin(hpcx, "ompi") .. "; export PATH=" .. pathJoin(hpcx, "ompi/bin") .. ":$PATH",
    "setenv OPAL_PREFIX " .. pathJoin(hpcx, "ompi"))
