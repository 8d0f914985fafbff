-- conflicts with cuda
conflict("cuda")
setenv("NVHPC", "1")
