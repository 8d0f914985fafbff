/* fuzz_config.c - fuzz target: the site-config loader.
 * SPDX-License-Identifier: MIT
 *
 * Any byte string is a config text: loading must either succeed (and then
 * dumping and reloading gives the same dump) or fail with an error that
 * has a code and a message; never crash, leak or read out of bounds.
 * Loading with every error listed agrees: the same outcome, and for a
 * schema error a list whose first entry is that error. */
#include <ctkconf.h>

#include "config.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctk_error_t err, all_err;
    ctk_errlist_t errs;
    ctk_config_t *cfg, *again, *all;
    char *dump, *dump2;

    ctk_error_init(&err);
    cfg = ctk_config_load_string((const char *)data, size, "<fuzz>", &err);
    ctk_errlist_init(&errs, 0);
    ctk_error_init(&all_err);
    all = ctk_config_load_string_all((const char *)data, size, "<fuzz>", &errs, &all_err);
    FUZZ_ASSERT(!cfg == !all && all_err.code == err.code && strcmp(all_err.text, err.text) == 0);
    FUZZ_ASSERT(err.code != CTK_E_CONFIG ||
                (errs.n > 0 && strcmp(errs.items[0].text, err.text) == 0));
    ctk_errlist_fini(&errs);
    ctk_config_free(all);
    if (!cfg) {
        FUZZ_ASSERT(err.code != CTK_E_OK && err.text[0] != '\0');
        return 0;
    }
    dump = ctk_config_dump(cfg, &err);
    FUZZ_ASSERT(dump != NULL);
    ctk_error_init(&err);
    again = ctk_config_load_string(dump, strlen(dump), "<dump>", &err);
    FUZZ_ASSERT(again != NULL);
    dump2 = ctk_config_dump(again, &err);
    FUZZ_ASSERT(dump2 != NULL && strcmp(dump, dump2) == 0);
    free(dump2);
    free(dump);
    ctk_config_free(again);
    ctk_config_free(cfg);
    return 0;
}
