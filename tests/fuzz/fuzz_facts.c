/* fuzz_facts.c - fuzz target: the SDK facts reader.
 * SPDX-License-Identifier: MIT
 *
 * generate keeps each toolkit's probed record as text in a cache file and
 * reads it back on the next run, so the reader meets whatever bytes that
 * file holds.  Loading either gives a record or fails with CTK_E_IO
 * ("SDK facts: ...") or out of memory.  A record has one text
 * (sdkfacts.h): a text that loads is the one its record dumps to, byte
 * for byte, and that dump loads again to a record holding the same facts.
 * The input is read from a block of its own size, so a read past its end
 * is one AddressSanitizer sees. */
#include <ctkconf.h>

#include "fuzz.h"
#include "sdkfacts.h"

#include <stdlib.h>
#include <string.h>

static const ctk_sdk_conf_t conf;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctk_error_t err;
    ctk_sdk_t *s, *again;
    char *text = malloc(size ? size : 1), *dump, *dump2;
    size_t n;

    FUZZ_ASSERT(text != NULL);
    if (size)
        memcpy(text, data, size);
    ctk_error_init(&err);
    s = ctk_sdkfacts_load(&conf, text, size, &err);
    free(text);
    if (!s) {
        FUZZ_ASSERT(err.code == CTK_E_IO || err.code == CTK_E_NOMEM);
        FUZZ_ASSERT(err.code != CTK_E_IO || strncmp(err.text, "SDK facts: ", 11) == 0);
        return 0;
    }
    FUZZ_ASSERT(err.code == CTK_E_OK);
    FUZZ_ASSERT(s->conf == &conf);
    FUZZ_ASSERT(ctk_sdkfacts_equal(s, s));
    dump = ctk_sdkfacts_dump(s, &err);
    FUZZ_ASSERT(dump != NULL);
    /* the one spelling of the record: the input itself */
    n = strlen(dump);
    FUZZ_ASSERT(n == size && memcmp(dump, data, size) == 0);
    again = ctk_sdkfacts_load(&conf, dump, n, &err);
    FUZZ_ASSERT(again != NULL);
    FUZZ_ASSERT(ctk_sdkfacts_equal(s, again) && ctk_sdkfacts_equal(again, s));
    dump2 = ctk_sdkfacts_dump(again, &err);
    FUZZ_ASSERT(dump2 != NULL && strcmp(dump, dump2) == 0);
    free(dump2);
    free(dump);
    ctk_sdk_free(again);
    ctk_sdk_free(s);
    return 0;
}
