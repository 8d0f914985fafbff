-- -*- lua -*-
-- CUDA 13.0 for the GPU partition.  Maintained by the HPC team; ask
-- hpc-help before changing the paths.
help([[
CUDA Toolkit 13.0 (runfile install).
Puts nvcc on PATH and the headers and libraries on CPATH,
LIBRARY_PATH and LD_LIBRARY_PATH.
]])
whatis("Name: CUDA Toolkit")
whatis("Version: 13.0")

family("cuda")

local root = "@CUDA@"

prepend_path("PATH", pathJoin(root, "bin"))
prepend_path("MANPATH", pathJoin(root, "doc/man"))
prepend_path("CPATH", pathJoin(root, "nvvm/include"))
prepend_path("CPATH", pathJoin(root, "extras/CUPTI/include"))
prepend_path("CPATH", pathJoin(root, "include"))
for _, var in ipairs({"LIBRARY_PATH", "LD_LIBRARY_PATH"}) do
    prepend_path(var, pathJoin(root, "nvvm/lib64"))
    prepend_path(var, pathJoin(root, "extras/CUPTI/lib64"))
    prepend_path(var, pathJoin(root, "lib64"))
end
setenv("CUDA_HOME", root)
setenv("CUDA_PATH", root)
setenv("CUDAToolkit_ROOT", root)
