/* libcall.c - one call into one CUDA library, chosen with -DLIB_<NAME>; no GPU needed.
 * SPDX-License-Identifier: MIT
 *
 * integration.sh builds it once per per-library .pc file (ctk-<lib>-X.Y)
 * with nothing but `pkg-config --cflags --libs` of that file, as C (cc),
 * as C++ (c++ -x c++) and as CUDA (nvcc -x cu), runs it in a clean
 * environment and reads `ldd` of the result.  Each call below only asks
 * the library for its version, so it runs without a device or driver.
 * Prints "<lib> <number>" and exits 0 when the call succeeded. */
#include <stdio.h>

#if defined(LIB_CUDART)
#include <cuda_runtime_api.h>
#define NAME "cudart"
static int call(int *v) { return cudaRuntimeGetVersion(v) == cudaSuccess; }
#elif defined(LIB_CUBLAS)
#include <cublas_v2.h>
#define NAME "cublas"
static int call(int *v) { return cublasGetProperty(MAJOR_VERSION, v) == CUBLAS_STATUS_SUCCESS; }
#elif defined(LIB_CUFFT)
#include <cufft.h>
#define NAME "cufft"
static int call(int *v) { return cufftGetVersion(v) == CUFFT_SUCCESS; }
#elif defined(LIB_CURAND)
#include <curand.h>
#define NAME "curand"
static int call(int *v) { return curandGetVersion(v) == CURAND_STATUS_SUCCESS; }
#elif defined(LIB_CUSOLVER)
#include <cusolverDn.h>
#define NAME "cusolver"
static int call(int *v) { return cusolverGetVersion(v) == CUSOLVER_STATUS_SUCCESS; }
#elif defined(LIB_CUSPARSE)
#include <cusparse.h>
#define NAME "cusparse"
static int call(int *v) { return cusparseGetProperty(MAJOR_VERSION, v) == CUSPARSE_STATUS_SUCCESS; }
#elif defined(LIB_NVRTC)
#include <nvrtc.h>
#define NAME "nvrtc"
static int call(int *v)
{
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
        return 0;
    *v = major * 1000 + minor * 10;
    return 1;
}
#elif defined(LIB_NVJITLINK)
#include <nvJitLink.h>
#define NAME "nvjitlink"
static int call(int *v)
{
    unsigned major = 0, minor = 0;
    if (nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS)
        return 0;
    *v = (int)(major * 1000 + minor * 10);
    return 1;
}
#elif defined(LIB_CUPTI)
#include <cupti.h>
#define NAME "cupti"
static int call(int *v)
{
    uint32_t u = 0;
    if (cuptiGetVersion(&u) != CUPTI_SUCCESS)
        return 0;
    *v = (int)u;
    return 1;
}
#elif defined(LIB_NCCL)
#include <nccl.h>
#define NAME "nccl"
static int call(int *v) { return ncclGetVersion(v) == ncclSuccess; }
#else
#error "define one of LIB_CUDART LIB_CUBLAS LIB_CUFFT LIB_CURAND LIB_CUSOLVER LIB_CUSPARSE LIB_NVRTC LIB_NVJITLINK LIB_CUPTI LIB_NCCL"
#endif

int main(void)
{
    int v = 0;
    if (!call(&v)) {
        printf("%s call failed\n", NAME);
        return 1;
    }
    printf("%s %d\n", NAME, v);
    return 0;
}
