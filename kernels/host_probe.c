/* host_probe.c - host-only probe: proves a plain C compiler finds the CUDA
 * runtime through the module's environment alone (no -I, no -L).
 * SPDX-License-Identifier: MIT
 *
 * Build: cc host_probe.c -lcudart -o host_probe   (CPATH and LIBRARY_PATH
 * from the module do the rest).  Prints one JSON line: the CUDART_VERSION
 * it was compiled against, the runtime and driver versions it sees, the
 * device count (or the error instead), and the path of the libcudart the
 * dynamic loader really picked.  Keys and their order are documented in
 * generator/prove/probeio.h.  Plain C99 and libc only: the probe must build with
 * whatever compiler the module puts first.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

#include "probe_json.h"

int main(void)
{
    int runtime = 0, driver = 0, devices = 0;
    cudaError_t rc;
    Dl_info info;
    const char *lib = "";

    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess)
        runtime = 0;
    /* 0 is how the runtime says "no driver"; keep it 0 on any failure too */
    if (cudaDriverGetVersion(&driver) != cudaSuccess || driver < 0)
        driver = 0;
    rc = cudaGetDeviceCount(&devices);
    if (rc != cudaSuccess)
        devices = 0;
    if (dladdr((void *)cudaRuntimeGetVersion, &info) && info.dli_fname)
        lib = info.dli_fname;
    printf("{\"probe\":\"host\",\"cudart_header\":%d,\"runtime\":%d,\"driver\":%d,"
           "\"devices\":%d,\"device_status\":",
           CUDART_VERSION, runtime, driver, devices);
    put_json_string(cudaGetErrorName(rc));
    fputs(",\"libcudart\":", stdout);
    put_json_string(lib);
    fputs("}\n", stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}
