"""numba-cuda under a loaded toolkit (tests/clients_python.sh): compile_ptx
of a function that needs libdevice (pow), for a named compute capability
so that no GPU is asked; prints, as JSON, the NVVM and libdevice numba-cuda
used and how it found them, and the libnvvm files mapped in the process."""
import json

from numba import cuda, float32
from numba.cuda import cuda_paths


def f(a, b):
    return a ** b


ptx, _ = cuda.compile_ptx(f, (float32, float32), device=True, cc=(7, 5))
paths = cuda_paths.get_cuda_paths()
with open("/proc/self/maps") as maps:
    mapped = sorted({line.split()[-1] for line in maps if "/libnvvm" in line})
print(json.dumps({
    "ptx": ".target sm_75" in ptx,
    "nvvm_mapped": mapped,
    "nvvm": paths["nvvm"].info, "nvvm_by": paths["nvvm"].by,
    "libdevice": paths["libdevice"].info, "libdevice_by": paths["libdevice"].by,
}))
