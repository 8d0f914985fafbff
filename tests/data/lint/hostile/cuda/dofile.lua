-- -*- lua -*-
-- shared settings for every CUDA module
dofile("/etc/cuda-site.lua")
family("cuda")
