/* fuzz_modeval.c - fuzz target: the Lua modulefile evaluator.
 * SPDX-License-Identifier: MIT
 *
 * Any byte string is a modulefile: evaluation either gives a result whose
 * every variable it reports was touched by an operation, or fails with a
 * sandbox error (limit, refused call, syntax); never a crash, a leak, an
 * escape or a hang (the instruction budget bounds the work).  A file that
 * loads is then unloaded from the environment its load left (Lmod's
 * reference counts, stacks and LOADEDMODULES included), which must work
 * too: in unload mode Lmod, and the sandbox, keep going past errors. */
#include <ctkconf.h>

#include "fuzz.h"
#include "modeval.h"

#include <string.h>

static void unload_after(const uint8_t *data, size_t size, const ctk_modeval_t *loaded)
{
    ctk_modeval_opts_t o = { CTK_MODE_UNLOAD, NULL, true, NULL };
    ctk_strlist_t env;
    ctk_modeval_t *ev;
    ctk_error_t err;

    ctk_strlist_init(&env);
    ctk_error_init(&err);
    if (!ctk_modeval_apply(loaded, &env, &err)) {
        FUZZ_ASSERT(err.code == CTK_E_NOMEM);
        ctk_strlist_fini(&env);
        return;
    }
    o.initial_env = &env;
    ev = ctk_modeval_run("fuzz.lua", (const char *)data, size, "cudatoolkit/13.0", &o, &err);
    FUZZ_ASSERT(ev || err.code == CTK_E_LIMIT || err.code == CTK_E_NOMEM);
    ctk_modeval_free(ev);
    ctk_strlist_fini(&env);
}

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
    unload_after(data, size, ev);
    ctk_modeval_free(ev);
    return 0;
}
