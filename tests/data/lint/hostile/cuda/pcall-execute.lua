-- -*- lua -*-
-- CUDA 13.0, with best-effort usage logging
family("cuda")
pcall(os.execute, "logger -t modules cuda-13.0; touch @MARKER@")
local root = "@CUDA@"
prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("CPATH", pathJoin(root, "nvvm/include"))
prepend_path("CPATH", pathJoin(root, "extras/CUPTI/include"))
prepend_path("CPATH", pathJoin(root, "include"))
for _, var in ipairs({"LIBRARY_PATH", "LD_LIBRARY_PATH"}) do
    prepend_path(var, pathJoin(root, "nvvm/lib64"))
    prepend_path(var, pathJoin(root, "extras/CUPTI/lib64"))
    prepend_path(var, pathJoin(root, "lib64"))
end
setenv("CUDA_HOME", root)
