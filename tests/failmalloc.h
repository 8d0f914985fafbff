/* failmalloc.h - allocation failure injection for the Check test programs.
 * SPDX-License-Identifier: MIT
 *
 * Linking tests/failmalloc.c replaces malloc, calloc, realloc and free for
 * the whole process (jansson included) by versions that fail once, on the
 * Nth call, when armed (with errno ENOMEM, as the real ones), and count
 * the bytes they hand out.  glibc only: the
 * real allocator is reached through its __libc_ names.  Under
 * AddressSanitizer nothing is replaced and TU_HAVE_FAILING_MALLOC stays
 * undefined: it owns malloc.  Link it into the tests that sweep, no others.
 */
#ifndef CTK_FAILMALLOC_H
#define CTK_FAILMALLOC_H

#include "error.h"

#include <stdbool.h>
#include <stdlib.h> /* defines __GLIBC__ where it applies */

/* Whether allocation failures can be injected in this process.  When not,
 * prints "SKIP: <who>: <why>" to stderr: the caller then leaves its sweeps
 * out of the suite, so that they are neither run nor counted as passed. */
bool tu_alloc_sweeps_possible(const char *who);

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define TU_HAVE_FAILING_MALLOC 1

extern long tu_fail_after;      /* calls that still succeed; -1: disarmed */
extern bool tu_failed_one;      /* the armed failure has happened */
extern long long tu_live_bytes; /* allocated and not yet freed, through us */

/* Whether our malloc is the one called: valgrind, for one, puts its own in
 * place of every malloc, ours included.  Tests skip their sweep when not. */
bool tu_failing_malloc_works(void);

/* One operation under test: returns a result (released by the sweep) or
 * NULL with err set. */
typedef void *(*tu_alloc_op_t)(ctk_error_t *err);

/* Fail the 1st, 2nd, ... allocation of op until it runs without meeting a
 * failure: each failure must come back as CTK_E_NOMEM and leave the heap and
 * the open file descriptors as it found them, or a Check assertion naming
 * name fails.  Returns how many allocations op makes.  Nothing in op may
 * allocate but the code under test: a Check assertion there would. */
long tu_alloc_sweep(const char *name, tu_alloc_op_t op, void (*release)(void *));

/* The same, calling after_failure(n) once the checks of the failure of
 * allocation n have passed, with nothing armed: it may assert what else a
 * failure must leave as it was (files on disk), and put it back for the
 * next round. */
long tu_alloc_sweep_with(const char *name, tu_alloc_op_t op, void (*release)(void *),
                         void (*after_failure)(long n));

/* Open file descriptors of this process (entries of /proc/self/fd); -1 if
 * they cannot be counted. */
int tu_open_fds(void);
#endif

#endif
