/* fuzz_probe.c - fuzz target: the probe-report parser.
 * SPDX-License-Identifier: MIT
 *
 * A probe's stdout is untrusted (a broken or hostile toolkit may print
 * anything): parsing either fills a record whose strings are set, or fails
 * with CTK_E_JSON (or out of memory); the record is left empty then. */
#include <ctkconf.h>

#include "fuzz.h"
#include "probeio.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctk_error_t err;
    ctk_probe_report_t r;
    char *s = malloc(size + 1);

    FUZZ_ASSERT(s != NULL);
    memcpy(s, data, size);
    s[size] = '\0';
    ctk_error_init(&err);
    ctk_probe_report_init(&r);
    if (ctk_probe_report_parse(s, &r, &err)) {
        FUZZ_ASSERT(r.present && r.status && r.device && r.libcudart);
    } else {
        FUZZ_ASSERT(err.code == CTK_E_JSON || err.code == CTK_E_NOMEM);
        FUZZ_ASSERT(!r.present);
    }
    ctk_probe_report_fini(&r);
    free(s);
    return 0;
}
