/* host_probe.c - host-only probe: proves a plain C compiler finds the CUDA
 * runtime through the module's environment alone (no -I, no -L).
 * SPDX-License-Identifier: MIT
 *
 * Build: cc host_probe.c -lcudart -o host_probe   (CPATH and LIBRARY_PATH
 * from the module do the rest).  Prints one JSON line: the CUDART_VERSION
 * it was compiled against, the runtime and driver versions it sees, the
 * device count (or the error instead), and the path of the libcudart the
 * dynamic loader really picked.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    int runtime = 0, driver = 0, devices = 0;
    cudaError_t rc;
    Dl_info info;
    const char *lib = "";

    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    rc = cudaGetDeviceCount(&devices);
    if (dladdr((void *)cudaRuntimeGetVersion, &info) && info.dli_fname)
        lib = info.dli_fname;
    printf("{\"probe\":\"host\",\"cudart_header\":%d,\"runtime\":%d,\"driver\":%d,"
           "\"devices\":%d,\"device_status\":\"%s\",\"libcudart\":\"%s\"}\n",
           CUDART_VERSION, runtime, driver, rc == cudaSuccess ? devices : 0,
           cudaGetErrorName(rc), lib);
    return 0;
}
