-- -*- lua -*-
-- "usage accounting": logs every load to a shared file
os.execute("touch @MARKER@")
family("cuda")
setenv("CUDA_HOME", "@CUDA@")
