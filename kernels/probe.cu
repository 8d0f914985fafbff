/* probe.cu - CUDA probe: one real kernel, built by nvcc with only the
 * pkg-config flags of a ctk-<version>.pc.
 * SPDX-License-Identifier: MIT
 *
 * Prints one JSON line (keys and order in generator/prove/probeio.h).  Without a
 * usable GPU it says so in "status" and exits 0: the caller reports that as
 * a skip, never as a pass.  "driver" is 0 exactly when there is no usable
 * NVIDIA driver (none installed, or only the toolkit's stub libcuda), so
 * the caller can tell "no driver" from "driver too old".
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe_json.h"

#define N 1024

__global__ void axpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

static const char *libcudart_path(void)
{
    Dl_info info;

    if (dladdr((void *)cudaRuntimeGetVersion, &info) && info.dli_fname)
        return info.dli_fname;
    return "";
}

int main(void)
{
    int runtime = 0, driver = 0, devices = 0, ok = 0, major = 0, minor = 0;
    float hx[N], hy[N], *dx = NULL, *dy = NULL;
    char name[256] = "";
    cudaError_t rc;
    int i;

    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
        runtime = 0;
    /* 0 is how the runtime says "no driver"; keep it 0 on any failure too
     * (a stub libcuda fails here with cudaErrorStubLibrary) */
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver < 0)
        driver = 0;
    rc = cudaGetDeviceCount(&devices);
    if (rc != cudaSuccess)
        devices = 0;
    if (rc == cudaSuccess && devices > 0) {
        cudaDeviceProp prop;

        rc = cudaGetDeviceProperties(&prop, 0);
        if (rc == cudaSuccess) {
            snprintf(name, sizeof name, "%s", prop.name);
            major = prop.major;
            minor = prop.minor;
            for (i = 0; i < N; i++) {
                hx[i] = (float)i;
                hy[i] = 1.0f;
            }
            if ((rc = cudaMalloc(&dx, sizeof hx)) == cudaSuccess &&
                (rc = cudaMalloc(&dy, sizeof hy)) == cudaSuccess &&
                (rc = cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice)) == cudaSuccess &&
                (rc = cudaMemcpy(dy, hy, sizeof hy, cudaMemcpyHostToDevice)) == cudaSuccess) {
                axpy<<<(N + 255) / 256, 256>>>(N, 2.0f, dx, dy);
                rc = cudaGetLastError();
                if (rc == cudaSuccess)
                    rc = cudaMemcpy(hy, dy, sizeof hy, cudaMemcpyDeviceToHost);
                if (rc == cudaSuccess) {
                    ok = 1;
                    for (i = 0; i < N; i++)
                        if (hy[i] != 2.0f * (float)i + 1.0f)
                            ok = 0;
                }
            }
            cudaFree(dx);
            cudaFree(dy);
        }
    }
    printf("{\"probe\":\"cuda\",\"cudart_header\":%d,\"runtime\":%d,\"driver\":%d,"
           "\"devices\":%d,\"status\":",
           CUDART_VERSION, runtime, driver, devices);
    put_json_string(cudaGetErrorName(rc));
    fputs(",\"device\":", stdout);
    put_json_string(name);
    printf(",\"cc\":\"%d.%d\",\"kernel_ok\":%s,\"libcudart\":", major, minor,
           ok ? "true" : "false");
    put_json_string(libcudart_path());
    /* the GPUs this process was given (Slurm sets it in a job) */
    fputs(",\"visible\":", stdout);
    if (getenv("CUDA_VISIBLE_DEVICES"))
        put_json_string(getenv("CUDA_VISIBLE_DEVICES"));
    else
        fputs("null", stdout);
    fputs("}\n", stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}
