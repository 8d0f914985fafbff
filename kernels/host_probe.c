/* host_probe.c - host-only probe: proves a plain C compiler finds the CUDA
 * runtime through the module's environment alone (no -I, no -L).
 * SPDX-License-Identifier: MIT
 *
 * Build: cc host_probe.c -lcudart -o host_probe   (CPATH and LIBRARY_PATH
 * from the module do the rest).  Prints one JSON line: the CUDART_VERSION
 * it was compiled against, the runtime and driver versions it sees, the
 * device count (or the error instead), and the path of the libcudart the
 * dynamic loader really picked.  Keys and their order are documented in
 * generator/probeio.h.  Plain C99 and libc only: the probe must build with
 * whatever compiler the module puts first.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/* Length of the well-formed UTF-8 sequence of 2-4 bytes at p, or 0 (an
 * ASCII byte, a stray continuation byte, an overlong form, a surrogate,
 * past U+10FFFF, or cut short by the terminating NUL). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned long cp;
    size_t n, i;

    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
        cp = p[0] & 0x1fu;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        cp = p[0] & 0x0fu;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        cp = p[0] & 0x07u;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xc0u) != 0x80u)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3fu);
    }
    if ((n == 3 && cp < 0x800ul) || (n == 4 && (cp < 0x10000ul || cp > 0x10fffful)) ||
        (cp >= 0xd800ul && cp <= 0xdffful))
        return 0;
    return n;
}

/* Print s as a JSON string.  Quote and backslash are escaped, control
 * characters (and DEL) become \u00XX, so the report stays one line; a byte
 * that is not part of well-formed UTF-8 (a path may hold any bytes) becomes
 * U+FFFD, so that a strict parser still accepts the line. */
static void put_json_string(const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    putchar('"');
    while (*p) {
        size_t n;

        if (*p == '"' || *p == '\\') {
            putchar('\\');
            putchar(*p++);
        } else if (*p < 0x20 || *p == 0x7f) {
            printf("\\u%04x", (unsigned)*p++);
        } else if (*p < 0x80) {
            putchar(*p++);
        } else if ((n = utf8_len(p)) != 0) {
            fwrite(p, 1, n, stdout);
            p += n;
        } else {
            fputs("\\ufffd", stdout);
            p++;
        }
    }
    putchar('"');
}

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
