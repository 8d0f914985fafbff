/* A user's C program over a toolkit's .pc files (tests/clients_make.sh):
 * one call into cudart and one into cuBLAS, neither needs a GPU. */
#include <stdio.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
int main(void)
{
    int rt = 0, blas = 0;
    cudaError_t e = cudaRuntimeGetVersion(&rt);
    if (e != cudaSuccess) { printf("cudaRuntimeGetVersion: error %d\n", (int)e); return 1; }
    if (cublasGetProperty(MAJOR_VERSION, &blas) != CUBLAS_STATUS_SUCCESS) { puts("cublasGetProperty failed"); return 1; }
    printf("cudart %d cublas %d\n", rt, blas);
    return 0;
}
