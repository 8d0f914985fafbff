-- -*- lua -*-
-- Site meta module for GPU work: family("env"), sticky add_property, load_any, depends_on_any (Lmod 8.7.38+), always_unload, unload
whatis("GPU programming environment, September 2025")
help([[
Loads a CUDA toolkit (cuda/13.1 where it exists, else cudatoolkit/13.0)
and the matching CUDA-aware helpers.  Sticky: `module purge` keeps it.
]])

family("env")
add_property("lmod", "sticky")

unload("cuda-legacy")
always_unload("gpu-env-old")
load_any("cuda/13.1", "cudatoolkit/13.0")
depends_on_any("nccl/2.27", "cudatoolkit/13.0")

setenv("SITE_GPU_ENV", "2025.09")
