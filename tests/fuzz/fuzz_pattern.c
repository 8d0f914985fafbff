/* fuzz_pattern.c - placeholder, replaced by the differential target. */
#include <ctkconf.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)data;
    (void)size;
    return 0;
}
