/* probeio.h - the one-line JSON report the probes in kernels/ print.
 * SPDX-License-Identifier: MIT
 *
 * Both probes print exactly one line of JSON on stdout:
 *   host (kernels/host_probe.c):
 *     {"probe":"host","cudart_header":13000,"runtime":13000,"driver":0,
 *      "devices":0,"device_status":"cudaErrorInsufficientDriver",
 *      "libcudart":"/usr/local/cuda-13.0/lib/libcudart.so.13"}
 *   cuda (kernels/probe.cu): the same keys ("status" for "device_status")
 *     plus "device":"NVIDIA H200","cc":"9.0","kernel_ok":true and
 *     "visible":"0" (CUDA_VISIBLE_DEVICES; null when unset).
 * Strings are JSON-escaped by the probes.  Parsed in probeio.c.
 */
#ifndef CTK_PROBEIO_H
#define CTK_PROBEIO_H

#include "error.h"

#include <stdbool.h>

typedef struct {
    bool present;        /* a report was parsed into this record */
    bool is_cuda;        /* "probe":"cuda" */
    int cudart_header;   /* CUDART_VERSION it was compiled against (13000) */
    int runtime;         /* cudaRuntimeGetVersion */
    int driver;          /* cudaDriverGetVersion; 0: no driver */
    int devices;         /* device count; 0 when the status is an error */
    char *status;        /* cudaGetErrorName of the first failing step, or "cudaSuccess" */
    char *device;        /* GPU 0's name; "" when none (host probe: "") */
    int cc_major, cc_minor; /* compute capability of GPU 0; 0.0 when none */
    int kernel_ok;       /* cuda probe: 1 / 0; host probe: -1 */
    char *libcudart;     /* the libcudart the dynamic loader picked */
    char *visible;       /* cuda probe: its CUDA_VISIBLE_DEVICES; NULL: unset (or a
                          * probe that does not say) */
} ctk_probe_report_t;

void ctk_probe_report_init(ctk_probe_report_t *r);
void ctk_probe_report_fini(ctk_probe_report_t *r);
/* Parse the probe's stdout: the first line holding a JSON object (other
 * lines are ignored).  Missing keys, wrong types or no JSON line:
 * CTK_E_JSON with a message naming the key.  r initialised by the caller;
 * left initialised and empty on failure. */
bool ctk_probe_report_parse(const char *out, ctk_probe_report_t *r, ctk_error_t *err);
/* A compute capability "9.0" into 9, 0: digits, one dot, digits (at most
 * four each); false otherwise. */
bool ctk_probe_parse_cc(const char *s, int *major, int *minor);

#endif
