local root = "/opt/cuda/12.4"
whatis("CUDA 12.4")
family("cuda")
conflict("cuda")
prepend_path("PATH", pathJoin(root, "bin"))
prepend_path{"LD_LIBRARY_PATH", root .. "/lib64", priority=10}
append_path("MANPATH", root .. "/doc/man", ":")
setenv("CUDA_HOME", root)
pushenv("CUDA_PATH", root)
remove_path("PATH", "/old/bin")
if os.getenv("HOME") then setenv("X", os.getenv("HOME")) end
help([[some help]])
depends_on("gcc/12")
