-- -*- lua -*-
-- CUDA 13.0 for login nodes, which have no NVIDIA driver: the stubs let
-- nvidia-smi-less nodes "load" libcuda.
family("cuda")
local root = "@CUDA@"
prepend_path("PATH", root .. "/bin")
prepend_path("CPATH", root .. "/nvvm/include")
prepend_path("CPATH", root .. "/extras/CUPTI/include")
prepend_path("CPATH", root .. "/include")
for _, var in ipairs({"LIBRARY_PATH", "LD_LIBRARY_PATH"}) do
    prepend_path(var, root .. "/nvvm/lib64")
    prepend_path(var, root .. "/extras/CUPTI/lib64")
    prepend_path(var, root .. "/lib64")
end
append_path("LD_LIBRARY_PATH", root .. "/lib64/stubs")
setenv("CUDA_HOME", root)
