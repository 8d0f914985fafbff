/* fuzz_modeval.c - fuzz target: the Lua modulefile evaluator.
 * SPDX-License-Identifier: MIT
 *
 * Any byte string is a modulefile: evaluation either gives a result whose
 * every variable it reports was touched by an operation, or fails with a
 * sandbox error (limit, refused call, syntax); never a crash, a leak, an
 * escape or a hang (the instruction budget bounds the work). */
#include <ctkconf.h>

#include "fuzz.h"
#include "modeval.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctk_error_t err;
    ctk_modeval_t *ev;
    size_t i;

    ctk_error_init(&err);
    ev = ctk_modeval_lua("fuzz.lua", (const char *)data, size, "cudatoolkit/13.0", NULL, &err);
    if (!ev) {
        FUZZ_ASSERT(err.code == CTK_E_LIMIT || err.code == CTK_E_TEMPLATE || err.code == CTK_E_NOMEM);
        return 0;
    }
    for (i = 0; i < ev->n_vars; i++) {
        const char *v;

        FUZZ_ASSERT(ev->vars[i].name != NULL);
        FUZZ_ASSERT(ctk_modeval_get(ev, ev->vars[i].name, &v));
    }
    ctk_modeval_free(ev);
    return 0;
}
