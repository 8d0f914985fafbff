// CMake's CUDA language: a kernel is compiled and linked; main only asks
// the runtime its version, which needs no GPU.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int *p) { *p = 1; }
int main()
{
    int rt = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) return 1;
    std::printf("cudart %d\n", rt);
    return 0;
}
