-- -*- lua -*-
-- HPE Cray PE style cudatoolkit product module: CRAY_CUDATOOLKIT_* options and PE_PKGCONFIG_LIBS for the compiler wrappers, no CPATH by design
help([[
The cudatoolkit module provides the NVIDIA CUDA Toolkit 13.0 of the
NVIDIA HPC SDK 25.9 to the Cray compiler wrappers (cc, CC, ftn), which
add its -I and -L options themselves.
]])
whatis("cudatoolkit - NVIDIA CUDA Toolkit 13.0 (HPC SDK 25.9)")

family("cudatoolkit")
conflict("cudatoolkit-standalone")

local cuda_ver = "13.0"
local sdk_ver = "25.9"
local sdk = "@HPCSDK@"
local cuda = pathJoin(sdk, "cuda", cuda_ver)
local math = pathJoin(sdk, "math_libs", cuda_ver)
local nccl = pathJoin(sdk, "comm_libs", cuda_ver, "nccl")

setenv("CRAY_CUDATOOLKIT_VERSION", cuda_ver .. "_" .. sdk_ver)
setenv("CRAY_CUDATOOLKIT_DIR", cuda)
setenv("CUDATOOLKIT_HOME", cuda)
setenv("CUDA_HOME", cuda)
setenv("CRAY_CUDATOOLKIT_INCLUDE_OPTS", "-I" .. cuda .. "/include -I" .. math .. "/include -I" .. cuda ..
       "/extras/CUPTI/include -I" .. cuda .. "/nvvm/include -I" .. nccl .. "/include")
setenv("CRAY_CUDATOOLKIT_POST_LINK_OPTS", " -L" .. cuda .. "/lib64 -L" .. math .. "/lib64 -L" .. cuda ..
       "/extras/CUPTI/lib64 -L" .. cuda .. "/nvvm/lib64 -L" .. nccl .. "/lib -lcudart -lcuda")

prepend_path("PE_PKGCONFIG_LIBS", "ctk-" .. cuda_ver)
prepend_path("PE_PKGCONFIG_PRODUCTS", "PE_CUDATOOLKIT")
append_path("PE_PRODUCT_LIST", "CRAY_CUDATOOLKIT")
prepend_path("PKG_CONFIG_PATH", "@CORPUS@/pc/site")

prepend_path("PATH", pathJoin(cuda, "bin"))
prepend_path("MANPATH", pathJoin(sdk, "compilers/man"))
for _, d in ipairs({ pathJoin(nccl, "lib"), pathJoin(cuda, "nvvm/lib64"), pathJoin(cuda, "extras/CUPTI/lib64"),
                     pathJoin(math, "lib64"), pathJoin(cuda, "lib64") }) do
    prepend_path("LD_LIBRARY_PATH", d)
end
