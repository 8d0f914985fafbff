-- -*- lua -*-
-- Site-written CUDA module that asks the node for its GPU: capture() feeds setenv (not run: CTK-MOD-007)
family("cuda")
local root = "@CUDA@"
local cc = capture("nvidia-smi --query-gpu=compute_cap --format=csv,noheader"):match("^%s*(%d+)%.(%d+)")
setenv("CUDAARCHS", cc or "90")
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
