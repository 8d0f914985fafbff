-- -*- lua -*-
-- cudatoolkit 12.4 (upgraded in place to 13.0 during the spring maintenance)
family("cuda")
local base = "@CUDA@"
prepend_path("PATH", base .. "/bin")
prepend_path("CPATH", base .. "/include")
prepend_path("CPATH", base .. "/extras/CUPTI/include")
prepend_path("CPATH", base .. "/nvvm/include")
for _, d in ipairs({"/lib64", "/extras/CUPTI/lib64", "/nvvm/lib64"}) do
    append_path("LD_LIBRARY_PATH", base .. d)
    append_path("LIBRARY_PATH", base .. d)
end
setenv("CUDA_HOME", base)
