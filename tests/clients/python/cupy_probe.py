"""CuPy's toolkit discovery under a loaded toolkit (tests/clients_python.sh):
the CUDA path and nvcc CuPy settles on, and the NVRTC (through
cuda.pathfinder, as CuPy loads it) it derives the path from; as JSON."""
import json
import os

import cupy
from cuda import pathfinder

nvrtc = pathfinder.load_nvidia_dynamic_lib("nvrtc")
print(json.dumps({
    "cuda_path": cupy.cuda.get_cuda_path(),
    "nvcc": cupy.cuda.get_nvcc_path(),
    "nvrtc": nvrtc.abs_path, "nvrtc_by": nvrtc.found_via,
    # what CuPy computes the path from: the NVRTC's directory, links followed
    "nvrtc_root": os.path.dirname(os.path.dirname(os.path.realpath(nvrtc.abs_path))),
}))
