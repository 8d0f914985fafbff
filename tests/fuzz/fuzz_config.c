/* fuzz_config.c - fuzz target: the site-config loader.
 * SPDX-License-Identifier: MIT
 *
 * Any byte string is a config text: loading must either succeed (and then
 * dumping and reloading gives the same dump) or fail with an error that
 * has a code and a message; never crash, leak or read out of bounds. */
#include <ctkconf.h>

#include "config.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctk_error_t err;
    ctk_config_t *cfg, *again;
    char *dump, *dump2;

    ctk_error_init(&err);
    cfg = ctk_config_load_string((const char *)data, size, "<fuzz>", &err);
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
