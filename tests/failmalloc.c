/* failmalloc.c - malloc, calloc, realloc and free that fail on demand.
 * SPDX-License-Identifier: MIT
 *
 * See failmalloc.h.  Only the tests that sweep allocation failures link
 * this file: everywhere else the real allocator stays in place.
 */
#include <ctkconf.h>

#include "failmalloc.h"
#include "testutil.h"

#include <stdio.h>

bool tu_alloc_sweeps_possible(const char *who)
{
#ifdef TU_HAVE_FAILING_MALLOC
    if (tu_failing_malloc_works())
        return true;
    fprintf(stderr, "SKIP: %s: another malloc (valgrind's?) stands in for the failing one; "
            "allocation-failure sweeps not run\n", who);
#else
    fprintf(stderr, "SKIP: %s: malloc cannot be replaced in this build (AddressSanitizer, or "
            "not glibc); allocation-failure sweeps not run\n", who);
#endif
    return false;
}

#ifdef TU_HAVE_FAILING_MALLOC
#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);

long tu_fail_after = -1;
bool tu_failed_one;
long long tu_live_bytes;

static bool fail_now(void)
{
    if (tu_fail_after < 0)
        return false;
    if (tu_fail_after-- > 0)
        return false;
    tu_failed_one = true;
    errno = ENOMEM;
    return true;
}

static void *counted(void *p)
{
    if (p)
        tu_live_bytes += (long long)malloc_usable_size(p);
    return p;
}

void *malloc(size_t size)
{
    return fail_now() ? NULL : counted(__libc_malloc(size));
}

void *calloc(size_t n, size_t size)
{
    return fail_now() ? NULL : counted(__libc_calloc(n, size));
}

void *realloc(void *p, size_t size)
{
    size_t old = p ? malloc_usable_size(p) : 0;
    void *q;

    if (fail_now())
        return NULL;
    q = __libc_realloc(p, size);
    if (q || size == 0)
        tu_live_bytes -= (long long)old;
    return counted(q);
}

void free(void *p)
{
    if (p)
        tu_live_bytes -= (long long)malloc_usable_size(p);
    __libc_free(p);
}

bool tu_failing_malloc_works(void)
{
    /* through a volatile pointer, so the compiler cannot drop the call */
    void *(*volatile alloc)(size_t) = malloc;
    void *p;

    tu_failed_one = false;
    tu_fail_after = 0;
    p = alloc(16);
    tu_fail_after = -1;
    free(p);
    return p == NULL && tu_failed_one;
}

int tu_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;

    if (!d)
        return -1;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* d's own */
}

long tu_alloc_sweep(const char *name, tu_alloc_op_t op, void (*release)(void *))
{
    return tu_alloc_sweep_with(name, op, release, NULL);
}

long tu_alloc_sweep_with(const char *name, tu_alloc_op_t op, void (*release)(void *),
                         void (*after_failure)(long n))
{
    long n;

    for (n = 0;; n++) {
        ctk_error_t err;
        int fds = tu_open_fds();
        long long before = tu_live_bytes;
        void *result;

        ctk_error_init(&err);
        tu_failed_one = false;
        tu_fail_after = n;
        result = op(&err);
        tu_fail_after = -1;
        if (!tu_failed_one) {
            ck_assert_msg(result != NULL, "%s failed without an allocation failure: %s", name,
                          err.text);
            release(result);
            return n;
        }
        ck_assert_msg(result == NULL, "%s: allocation %ld failed, yet the call succeeded", name, n);
        ck_assert_msg(err.code == CTK_E_NOMEM, "%s: allocation %ld: %s error \"%s\"", name, n,
                      ctk_error_code_name(err.code), err.text);
        ck_assert_msg(tu_live_bytes == before, "%s: allocation %ld failing leaked %lld bytes", name,
                      n, tu_live_bytes - before);
        ck_assert_msg(tu_open_fds() == fds, "%s: allocation %ld failing left %d file descriptors "
                      "open (%d before)", name, n, tu_open_fds(), fds);
        if (after_failure)
            after_failure(n);
    }
}
#endif
