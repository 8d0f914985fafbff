// FindCUDAToolkit's CUDA::cudart CUDA::cublas CUDA::cupti CUDA::nvrtc:
// one call into each that needs no GPU (CUPTI's may fail without one); prints what it ran with.
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cupti.h>
#include <nvrtc.h>
int main()
{
    int rt = 0, blas = 0, nmaj = 0, nmin = 0;
    uint32_t cupti = 0;
    cudaError_t e = cudaRuntimeGetVersion(&rt);
    if (e != cudaSuccess) { std::printf("cudaRuntimeGetVersion: %d\n", (int)e); return 1; }
    if (cublasGetProperty(MAJOR_VERSION, &blas) != CUBLAS_STATUS_SUCCESS) { std::puts("cublasGetProperty failed"); return 1; }
    if (nvrtcVersion(&nmaj, &nmin) != NVRTC_SUCCESS) { std::puts("nvrtcVersion failed"); return 1; }
    // CUPTI 13.5 answers CUPTI_ERROR_UNKNOWN without a driver: said, not fatal
    CUptiResult c = cuptiGetVersion(&cupti);
    std::printf("cudart %d cublas %d nvrtc %d.%d cupti %u (status %d)\n", rt, blas, nmaj, nmin, cupti, (int)c);
    return 0;
}
