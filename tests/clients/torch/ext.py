"""A PyTorch C++/CUDA extension built with torch.utils.cpp_extension.load_inline
under a loaded toolkit, as users build one for their environment
(tests/clients_torch.sh), then run on the GPU.  argv[1]: the build
directory.  Prints JSON: what torch took as CUDA_HOME, the CUDA release torch
was built with, the result of the kernel, and the extension's file."""
import json
import sys

import torch
from torch.utils import cpp_extension

cuda_src = r"""
#include <torch/extension.h>
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
torch::Tensor plus_one(torch::Tensor x)
{
    auto y = x.clone();
    int n = y.numel();
    add_one<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), n);
    return y;
}
"""
cpp_src = "torch::Tensor plus_one(torch::Tensor x);"
ext = cpp_extension.load_inline(
    name="ctk_plus_one", cpp_sources=cpp_src, cuda_sources=cuda_src,
    functions=["plus_one"], build_directory=sys.argv[1], verbose=False)
x = torch.arange(1000, dtype=torch.float32, device="cuda")
y = ext.plus_one(x)
torch.cuda.synchronize()
print(json.dumps({
    "cuda_home": cpp_extension.CUDA_HOME,
    "torch_cuda": torch.version.cuda,
    "ok": bool(torch.equal(y.cpu(), x.cpu() + 1)),
    "file": ext.__file__,
}))
