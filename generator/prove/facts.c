/* facts.c - per-release CUDA facts: host compiler range, real SM targets, driver floors.
 * SPDX-License-Identifier: MIT
 *
 * Transcribed from shared/research/cuda-facts.json.  Each row ends with the
 * source tag(s) and status the research file gives it ([verified-local],
 * [verified-src], [derived]); the tags are explained in that file's _meta.
 * CUDA 12.7 was never released, so it is not a row and answers "unknown".
 *
 * The three tables mirror the three sections of the JSON and are looked up
 * independently, so a release could be known to one and not another; today
 * all three cover the same 22 releases, 10.0 .. 13.0.
 */
#include <ctkconf.h>

#include "facts.h"

#include <stddef.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- host compilers ("host_compiler_max") ---------------------------------
 * gcc_max: newest GCC major crt/host_config.h accepts without
 * -allow-unsupported-compiler.  gcc_min: 0 unless the file names a floor
 * for that very release (it does for 11.0 and 11.4 only; no floor is
 * carried forward to later rows because the file does not say it holds).
 * clang_max is kept for a future ctk_facts_clang_max(); the file's value is
 * a string, the major is what host_config.h compares. */
typedef struct {
    int major, minor;
    int gcc_min, gcc_max, clang_max;
} host_row_t;

static const host_row_t HOST[] = {
    { 10, 0, 0, 7, 6 },   /* spack_cudapkg [derived] */
    { 10, 1, 0, 8, 8 },   /* spack_cudapkg [derived]; clang 7 on 10.1.105 GA */
    { 10, 2, 0, 8, 8 },   /* spack_cudapkg [derived] */
    { 11, 0, 5, 9, 9 },   /* spack_cudapkg, pytorch [derived] */
    { 11, 1, 0, 10, 10 }, /* spack_cudapkg, pytorch [derived]; clang 11 on 11.1.1 per Spack */
    { 11, 2, 0, 10, 11 }, /* spack_cudapkg, pytorch [derived] */
    { 11, 3, 0, 10, 11 }, /* spack_cudapkg, pytorch [derived] */
    { 11, 4, 6, 11, 12 }, /* spack_cudapkg, pytorch [derived]; 11.4.0 GA: gcc 10 / clang 11 */
    { 11, 5, 0, 11, 12 }, /* spack_cudapkg [derived] */
    { 11, 6, 0, 11, 13 }, /* spack_cudapkg, pytorch [derived] */
    { 11, 7, 0, 11, 13 }, /* spack_cudapkg, pytorch [derived] */
    { 11, 8, 0, 11, 14 }, /* spack_cudapkg [derived] */
    { 12, 0, 0, 12, 14 }, /* spack_cudapkg [derived] */
    { 12, 1, 0, 12, 15 }, /* spack_cudapkg [derived] */
    { 12, 2, 0, 12, 16 }, /* spack_cudapkg [derived] */
    { 12, 3, 0, 12, 16 }, /* spack_cudapkg [derived] */
    { 12, 4, 0, 13, 17 }, /* spack_cudapkg [derived] */
    { 12, 5, 0, 13, 17 }, /* spack_cudapkg [derived] */
    { 12, 6, 0, 13, 18 }, /* hostcfg_12_6 [verified-src]: __GNUC__ > 13, __clang_major__ >= 19 */
    { 12, 8, 0, 14, 19 }, /* spack_cudapkg [derived] */
    { 12, 9, 0, 14, 19 }, /* spack_cudapkg [derived] */
    { 13, 0, 0, 15, 20 }, /* hostcfg_13_0 [verified-local]: __GNUC__ > 15, __clang_major__ >= 21 */
};

/* ---- real SM targets ("sm_arch") -------------------------------------------
 * Integer sm numbers only (cc 9.0 -> 90); the 'a' and 'f' variants (90a,
 * 100f) are the same silicon and do not change whether a cc is a target.
 * Lists the file gives in full are copied; the others are expanded here
 * from the file's chain (same_as, dropped, added, and a max the chain does
 * not otherwise reach: 80 in 11.0), and the expansion's min/max were
 * checked against each row's "min"/"max". */
static const unsigned char SM_10[] = { /* sm_arch.10.0.list */
    30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75
};
static const unsigned char SM_11_0[] = { /* 10.x - 30, 32 (dropped) + 80 (max) */
    35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80
};
static const unsigned char SM_11_1[] = { /* 11.0 + 86 (added) */
    35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86
};
static const unsigned char SM_11_4[] = { /* 11.1 + 87 (added) */
    35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87
};
static const unsigned char SM_11_8[] = { /* 11.4 + 89, 90 (added; CMake, see the 11.8 row) */
    35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90
};
static const unsigned char SM_12_0[] = { /* 11.8 - 35, 37 (dropped); 90a ignored */
    50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90
};
static const unsigned char SM_12_8[] = { /* 12.0 + 100, 101, 120 (added; a-variants ignored) */
    50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 120
};
static const unsigned char SM_12_9[] = { /* 12.8 + 103, 121 (added; f-variants ignored) */
    50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 120, 121
};
static const unsigned char SM_13_0[] = { /* sm_arch.13.0.list (101 renamed to 110) */
    75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121
};

typedef struct {
    int major, minor;
    const unsigned char *sm; /* ascending */
    size_t n;
} sm_row_t;

#define SM(a) a, COUNT(a)
static const sm_row_t SMS[] = {
    { 10, 0, SM(SM_10) },   /* cmake_arch, spack_cudapkg [verified-src] */
    { 10, 1, SM(SM_10) },   /* cmake_arch, spack_cudapkg [verified-src]; same_as 10.0 */
    { 10, 2, SM(SM_10) },   /* cmake_arch, spack_cudapkg [verified-src]; same_as 10.0 */
    { 11, 0, SM(SM_11_0) }, /* cmake_arch, spack_cudapkg [verified-src] */
    { 11, 1, SM(SM_11_1) }, /* cmake_arch [verified-src] */
    { 11, 2, SM(SM_11_1) }, /* cmake_arch [verified-src] */
    { 11, 3, SM(SM_11_1) }, /* cmake_arch [verified-src] */
    { 11, 4, SM(SM_11_4) }, /* cmake_arch [verified-src] */
    { 11, 5, SM(SM_11_4) }, /* cmake_arch [verified-src] */
    { 11, 6, SM(SM_11_4) }, /* cmake_arch [verified-src] */
    { 11, 7, SM(SM_11_4) }, /* cmake_arch [verified-src] */
    /* cmake_arch [verified-src]; Spack wants cuda>=12.0 for sm_90, CMake
     * (and nvcc 11.8 itself, which introduced Hopper) accept it here */
    { 11, 8, SM(SM_11_8) },
    { 12, 0, SM(SM_12_0) }, /* cmake_arch, spack_cudapkg [verified-src] */
    { 12, 1, SM(SM_12_0) }, /* cmake_arch [verified-src] */
    { 12, 2, SM(SM_12_0) }, /* cmake_arch [verified-src] */
    { 12, 3, SM(SM_12_0) }, /* cmake_arch [verified-src] */
    { 12, 4, SM(SM_12_0) }, /* cmake_arch [verified-src] */
    { 12, 5, SM(SM_12_0) }, /* cmake_arch [verified-src] */
    { 12, 6, SM(SM_12_0) }, /* cmake_arch [verified-src] */
    { 12, 8, SM(SM_12_8) }, /* cmake_arch, spack_cudapkg [verified-src] */
    { 12, 9, SM(SM_12_9) }, /* cmake_arch, spack_cudapkg [verified-src] */
    { 13, 0, SM(SM_13_0) }, /* nvcc_13_0, cmake_arch, spack_cudapkg [verified-local] */
};
#undef SM

/* ---- Linux x86_64 drivers ("driver_linux_x86_64") -------------------------
 * full: the oldest driver the release's runtime runs on with every
 * feature: min_driver where the file gives one (10.x), else the first
 * (GA) build of toolkit_driver, the driver bundled in the runfile.
 * compat: the floor under minor-version compatibility; 10.x has none.  The
 * compat doc only says ">= 525" for 12.x and ">= 580" for 13.x; the exact
 * builds are the x.0 GA drivers, which the file marks as unverified. */
typedef struct {
    int major, minor;
    const char *full;
    const char *compat;
} driver_row_t;

static const driver_row_t DRIVERS[] = {
    { 10, 0, "410.48", NULL },          /* compat_doc Table 2, spack_cuda */
    { 10, 1, "418.39", NULL },          /* compat_doc Table 2, spack_cuda; runfile 10.1.243: 418.87.00 */
    { 10, 2, "440.33", NULL },          /* compat_doc Table 2, spack_cuda; runfile: 440.33.01 */
    { 11, 0, "450.51.05", "450.80.02" }, /* compat_doc, spack_cuda (11.0.2; 11.0.3: 450.51.06) */
    { 11, 1, "455.23.05", "450.80.02" }, /* spack_cuda, compat_doc */
    { 11, 2, "460.27.04", "450.80.02" }, /* spack_cuda, compat_doc */
    { 11, 3, "465.19.01", "450.80.02" }, /* spack_cuda, compat_doc */
    { 11, 4, "470.42.01", "450.80.02" }, /* spack_cuda, compat_doc */
    { 11, 5, "495.29.05", "450.80.02" }, /* spack_cuda, compat_doc */
    { 11, 6, "510.39.01", "450.80.02" }, /* spack_cuda, compat_doc */
    { 11, 7, "515.43.04", "450.80.02" }, /* spack_cuda, compat_doc */
    { 11, 8, "520.61.05", "450.80.02" }, /* spack_cuda, compat_doc */
    { 12, 0, "525.60.13", "525.60.13" }, /* spack_cuda, compat_doc (>= 525) */
    { 12, 1, "530.30.02", "525.60.13" }, /* spack_cuda, compat_doc */
    { 12, 2, "535.54.03", "525.60.13" }, /* spack_cuda, compat_doc */
    { 12, 3, "545.23.06", "525.60.13" }, /* spack_cuda, compat_doc */
    { 12, 4, "550.54.14", "525.60.13" }, /* spack_cuda, compat_doc */
    { 12, 5, "555.42.02", "525.60.13" }, /* spack_cuda, compat_doc */
    { 12, 6, "560.28.03", "525.60.13" }, /* spack_cuda, compat_doc */
    { 12, 8, "570.86.10", "525.60.13" }, /* spack_cuda, compat_doc */
    { 12, 9, "575.51.03", "525.60.13" }, /* spack_cuda, compat_doc */
    { 13, 0, "580.65.06", "580.65.06" }, /* spack_cuda, compat_doc (>= 580; GA build) */
};

/* Linear searches: 22 rows, looked up a handful of times per run. */
static const host_row_t *host_row(int major, int minor)
{
    size_t i;

    for (i = 0; i < COUNT(HOST); i++)
        if (HOST[i].major == major && HOST[i].minor == minor)
            return &HOST[i];
    return NULL;
}

static const sm_row_t *sm_row(int major, int minor)
{
    size_t i;

    for (i = 0; i < COUNT(SMS); i++)
        if (SMS[i].major == major && SMS[i].minor == minor)
            return &SMS[i];
    return NULL;
}

static const driver_row_t *driver_row(int major, int minor)
{
    size_t i;

    for (i = 0; i < COUNT(DRIVERS); i++)
        if (DRIVERS[i].major == major && DRIVERS[i].minor == minor)
            return &DRIVERS[i];
    return NULL;
}

int ctk_facts_gcc_max(int major, int minor)
{
    const host_row_t *r = host_row(major, minor);

    return r ? r->gcc_max : 0;
}

int ctk_facts_gcc_min(int major, int minor)
{
    const host_row_t *r = host_row(major, minor);

    return r ? r->gcc_min : 0;
}

int ctk_facts_sm_supported(int major, int minor, int cc_major, int cc_minor)
{
    const sm_row_t *r = sm_row(major, minor);
    int sm;
    size_t i;

    if (!r)
        return -1;
    /* a cc minor is one digit: 12.10 is not sm_130 */
    if (cc_major < 0 || cc_major > 99 || cc_minor < 0 || cc_minor > 9)
        return 0;
    sm = cc_major * 10 + cc_minor;
    for (i = 0; i < r->n; i++)
        if (r->sm[i] == sm)
            return 1;
    return 0;
}

bool ctk_facts_sm_range(int major, int minor, int *lo, int *hi)
{
    const sm_row_t *r = sm_row(major, minor);

    if (!r)
        return false;
    if (lo)
        *lo = r->sm[0];
    if (hi)
        *hi = r->sm[r->n - 1];
    return true;
}

bool ctk_facts_driver_min(int major, int minor, const char **full, const char **minor_compat)
{
    const driver_row_t *r = driver_row(major, minor);

    if (!r)
        return false;
    if (full)
        *full = r->full;
    if (minor_compat)
        *minor_compat = r->compat;
    return true;
}
