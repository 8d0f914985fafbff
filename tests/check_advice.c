/* check_advice.c - the warnings generate prints for a valid run that may
 * not do what the admin meant.
 * SPDX-License-Identifier: MIT
 */
#include "advice.h"
#include "config.h"
#include "sdk.h"
#include "testutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define S tu_str

static char *g_tmp;
static ctk_config_t *g_cfg;
static ctk_sdk_t g_sdk[3];
static ctk_sdk_t *g_sdks[3];
static ctk_strlist_t g_notes;

static void setup(void)
{
    g_tmp = tu_scratch();
    memset(g_sdk, 0, sizeof g_sdk);
    ctk_strlist_init(&g_notes);
}

static void teardown(void)
{
    size_t i;

    for (i = 0; i < 3; i++) {
        ctk_strlist_fini(&g_sdk[i].cpath);
        ctk_strlist_fini(&g_sdk[i].library_path);
    }
    ctk_strlist_fini(&g_notes);
    ctk_config_free(g_cfg);
    g_cfg = NULL;
    tu_scratch_end(&g_tmp);
}

/* A config of n SDKs (versions v[i], bases b[i]) and records for them as
 * sdk.c would make for a toolkit of version mm (patch -1: unknown) with
 * its include and lib dirs under the base. */
static void make(size_t n, const char *const *v, const char *const *b, const char *mm,
                 int patch, ctk_version_source_t src)
{
    char json[4096];
    size_t i, len = 0;
    ctk_error_t err;

    len += (size_t)snprintf(json + len, sizeof json - len, "{\"sdks\": [");
    for (i = 0; i < n; i++)
        len += (size_t)snprintf(json + len, sizeof json - len,
                                "%s{\"version\": \"%s\", \"base\": \"%s\"}", i ? ", " : "", v[i],
                                b[i]);
    snprintf(json + len, sizeof json - len, "]}");
    ctk_error_init(&err);
    g_cfg = ctk_config_load_string(json, strlen(json), "site.json", &err);
    ck_assert_msg(g_cfg != NULL, "%s", err.text);
    for (i = 0; i < n; i++) {
        ctk_sdk_t *s = &g_sdk[i];

        s->conf = &g_cfg->sdks[i];
        s->module_version = g_cfg->sdks[i].module_version;
        s->root = g_cfg->sdks[i].base;
        s->version_mm = (char *)mm;
        s->version.patch = patch;
        s->version.source = src;
        s->version_full = patch >= 0 ? S("%s.%d", mm, patch) : NULL;
        s->math_libdir = S("%s/lib64", b[i]);
        ck_assert(ctk_strlist_push(&s->cpath, S("%s/include", b[i]), NULL));
        ck_assert(ctk_strlist_push(&s->library_path, S("%s/lib64", b[i]), NULL));
        g_sdks[i] = s;
    }
}

static size_t advise(const char *outdir)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_advise(g_cfg, g_sdks, g_cfg->n_sdks, outdir, &g_notes, &err), "%s",
                  err.text);
    return g_notes.len;
}

START_TEST(test_advice_none_for_a_plain_toolkit)
{
    const char *v[] = {"12.4"}, *b[] = {"/opt/cuda-12.4"};

    make(1, v, b, "12.4", 1, CTK_VSRC_VERSION_JSON);
    ck_assert_uint_eq(advise("/apps/modules"), 0);
}
END_TEST

START_TEST(test_advice_names_a_version_source_passed_over)
{
    const char *v[] = {"12.4"}, *b[] = {"/opt/cuda-12.4"};

    make(1, v, b, "12.4", 1, CTK_VSRC_VERSION_TXT);
    strcpy(g_sdk[0].version.passed_over, "/opt/cuda-12.4/version.json:1:3: not valid JSON: x");
    ck_assert_uint_eq(advise("/apps"), 1);
    ck_assert_str_eq(g_notes.items[0], "cudatoolkit/12.4: /opt/cuda-12.4/version.json:1:3: not "
                                       "valid JSON: x; the version was read from version.txt "
                                       "instead");
}
END_TEST

START_TEST(test_advice_declared_patch_taken_on_trust)
{
    const char *v[] = {"13.0.5"}, *b[] = {"/opt/cuda-13.0"};

    make(1, v, b, "13.0", -1, CTK_VSRC_HEADER);
    ck_assert_uint_eq(advise("/apps"), 1);
    ck_assert_str_eq(g_notes.items[0],
                     "cudatoolkit/13.0.5: the toolkit at /opt/cuda-13.0 does not record its patch "
                     "level (CUDART_VERSION gives 13.0): the declared 13.0.5 is taken on trust");
    /* a patch the toolkit records was checked by sdk.c: nothing to say */
    teardown();
    setup();
    make(1, v, b, "13.0", 5, CTK_VSRC_VERSION_JSON);
    ck_assert_uint_eq(advise("/apps"), 0);
}
END_TEST

START_TEST(test_advice_points_an_hpc_sdk_at_its_math_libs)
{
    const char *v[] = {"11.6", "11.7"};
    const char *b[] = {S("%s/Linux_x86_64/22.3/cuda/11.6", g_tmp),
                       S("%s/Linux_x86_64/22.3/cuda", g_tmp)};

    free(tu_mkdirs(g_tmp, "Linux_x86_64/22.3/math_libs/11.6"));
    make(2, v, b, "11.6", 0, CTK_VSRC_VERSION_JSON);
    g_sdk[0].math_libdir = NULL;
    g_sdk[1].math_libdir = NULL;
    g_sdk[1].version_full = S("11.7.0");
    ck_assert_uint_eq(advise("/apps"), 2);
    ck_assert_str_eq(g_notes.items[0],
                     S("cudatoolkit/11.6: no cuBLAS under %s; an NVIDIA HPC SDK keeps it in "
                       "%s/Linux_x86_64/22.3/math_libs/11.6: add \"math_libs\": "
                       "\"%s/Linux_x86_64/22.3/math_libs/11.6\" to its SDK",
                       b[0], g_tmp, g_tmp));
    ck_assert_str_eq(g_notes.items[1],
                     S("cudatoolkit/11.7: no cuBLAS under %s; an NVIDIA HPC SDK keeps it in "
                       "%s/Linux_x86_64/22.3/math_libs: add \"math_libs\": "
                       "\"%s/Linux_x86_64/22.3/math_libs\" to its SDK",
                       b[1], g_tmp, g_tmp));
}
END_TEST

START_TEST(test_advice_quiet_when_no_math_libs_dir_exists)
{
    const char *v[] = {"11.6"}, *b[] = {S("%s/rel/cuda/11.6", g_tmp)};

    make(1, v, b, "11.6", 0, CTK_VSRC_VERSION_JSON);
    g_sdk[0].math_libdir = NULL;
    ck_assert_uint_eq(advise("/apps"), 0);
}
END_TEST

START_TEST(test_advice_paths_pkgconf_cannot_escape)
{
    const char *v[] = {"12.4", "12.6"}, *b[] = {"/opt/a$b/cuda", "/opt/cd/cuda"};

    make(2, v, b, "12.4", 1, CTK_VSRC_VERSION_JSON);
    g_sdk[1].version_full = S("12.6.1");
    free(g_sdk[1].cpath.items[0]);
    g_sdk[1].cpath.items[0] = strdup("/opt/c\"d/cuda/include");
    ck_assert_uint_eq(advise("/apps"), 2);
    ck_assert_str_eq(g_notes.items[0],
                     "cudatoolkit/12.4: /opt/a$b/cuda/include holds '$', which pkgconf prints "
                     "unescaped: a make recipe or eval that re-reads `pkg-config --cflags --libs "
                     "ctk-12.4` expands it ($(pkg-config ...) in a shell does not)");
    ck_assert_str_eq(g_notes.items[1],
                     "cudatoolkit/12.6: /opt/c\"d/cuda/include holds '\"', which nvcc refuses in "
                     "any argument: `nvcc $(pkg-config --cflags ctk-12.6)` fails; the modulefiles "
                     "work");
}
END_TEST

START_TEST(test_advice_output_dir_environment_modules_cannot_use)
{
    const char *v[] = {"12.4"}, *b[] = {"/opt/cuda-12.4"};
    const char *bad[] = {"/apps/m[1]", "/apps/$x", "/apps/a\\b", "/apps/{a}"};
    size_t i;

    make(1, v, b, "12.4", 1, CTK_VSRC_VERSION_JSON);
    ck_assert_uint_eq(advise("/apps/with space/and*star"), 0);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ctk_strlist_fini(&g_notes);
        ctk_strlist_init(&g_notes);
        ck_assert_uint_eq(advise(bad[i]), 1);
        ck_assert_ptr_nonnull(strstr(g_notes.items[0], "Environment Modules finds no modulefile"));
        ck_assert(strncmp(g_notes.items[0], bad[i], strlen(bad[i])) == 0);
    }
}
END_TEST

static Suite *advice_suite(void)
{
    Suite *s = suite_create("advice");
    TCase *tc = tcase_create("advice");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_advice_none_for_a_plain_toolkit);
    tcase_add_test(tc, test_advice_names_a_version_source_passed_over);
    tcase_add_test(tc, test_advice_declared_patch_taken_on_trust);
    tcase_add_test(tc, test_advice_points_an_hpc_sdk_at_its_math_libs);
    tcase_add_test(tc, test_advice_quiet_when_no_math_libs_dir_exists);
    tcase_add_test(tc, test_advice_paths_pkgconf_cannot_escape);
    tcase_add_test(tc, test_advice_output_dir_environment_modules_cannot_use);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run(advice_suite());
}
