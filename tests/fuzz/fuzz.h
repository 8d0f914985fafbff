/* fuzz.h - shared by the fuzz targets.
 * SPDX-License-Identifier: MIT
 *
 * Each target defines LLVMFuzzerTestOneInput.  Linked with libFuzzer
 * (build-aux/fuzz.sh, clang) it is fuzzed; linked with replay.c (any
 * compiler, `make check`) it is run over its seed corpus and every saved
 * crash, so each crash ever found stays a regression test. */
#ifndef CTK_FUZZ_H
#define CTK_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property that must hold: abort (a crash libFuzzer records) if not. */
#define FUZZ_ASSERT(cond)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

#endif
