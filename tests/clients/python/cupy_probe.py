"""CuPy's toolkit discovery under a loaded toolkit (tests/clients_python.sh):
the CUDA path and nvcc CuPy settles on, and the NVRTC (through
cuda.pathfinder, as CuPy loads it) it derives the path from; the release
of the NVRTC CuPy compiles with and the libnvrtc files mapped then; as
JSON."""
import json
import os

import cupy
from cuda import pathfinder

# CuPy first, as a program uses it; then the NVRTC it settled on, which
# pathfinder answers from what is loaded
cuda_path = cupy.cuda.get_cuda_path()
nvcc = cupy.cuda.get_nvcc_path()
release = "%d.%d" % cupy.cuda.nvrtc.getVersion()
with open("/proc/self/maps") as maps:
    mapped = sorted({line.split()[-1] for line in maps if "/libnvrtc.so" in line})
nvrtc = pathfinder.load_nvidia_dynamic_lib("nvrtc")
print(json.dumps({
    "cuda_path": cuda_path, "nvcc": nvcc,
    "nvrtc_release": release, "nvrtc_mapped": mapped,
    "nvrtc": nvrtc.abs_path, "nvrtc_by": nvrtc.found_via,
    # what CuPy computes the path from: the NVRTC's directory, links followed
    "nvrtc_root": os.path.dirname(os.path.dirname(os.path.realpath(nvrtc.abs_path))),
}))
