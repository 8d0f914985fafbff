// pkg_check_modules(... IMPORTED_TARGET ctk-NAME ctk-cublas-NAME)
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
int main()
{
    int rt = 0, blas = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) return 1;
    if (cublasGetProperty(MAJOR_VERSION, &blas) != CUBLAS_STATUS_SUCCESS) return 1;
    std::printf("cudart %d cublas %d\n", rt, blas);
    return 0;
}
