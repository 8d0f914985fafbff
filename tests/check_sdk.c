/* check_sdk.c - unit tests for the SDK model (sdk.c) and discovery (discover.c).
 * SPDX-License-Identifier: MIT
 *
 * Layout tests run against real toolkit trees built by tests/fixtures.sh
 * from $CTK_TEST_CUDA; version, error and discovery tests use tiny fake
 * trees in a temp dir.  Without a toolkit the fake-tree tests still run,
 * then the program reports SKIP (exit 77) rather than a pass.
 */
#include <ctkconf.h>

#include "discover.h"
#include "render.h"
#include "sdk.h"
#include "testutil.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__aarch64__)
#define HPC_ARCH "Linux_aarch64"
#define LOOKED_INC "include, targets/sbsa-linux/include, targets/aarch64-linux/include, targets/x86_64-linux/include"
#define LOOKED_LIB "lib64, lib, targets/sbsa-linux/lib, targets/aarch64-linux/lib, targets/x86_64-linux/lib, targets/sbsa-linux/lib64, targets/aarch64-linux/lib64, targets/x86_64-linux/lib64, lib/aarch64-linux-gnu"
#define TARGET "sbsa-linux"
#define MULTIARCH_DIR "aarch64-linux-gnu"
#else
#define HPC_ARCH "Linux_x86_64"
#define LOOKED_INC "include, targets/x86_64-linux/include, targets/sbsa-linux/include, targets/aarch64-linux/include"
#define LOOKED_LIB "lib64, lib, targets/x86_64-linux/lib, targets/sbsa-linux/lib, targets/aarch64-linux/lib, targets/x86_64-linux/lib64, targets/sbsa-linux/lib64, targets/aarch64-linux/lib64, lib/x86_64-linux-gnu"
#define TARGET "x86_64-linux"
#define MULTIARCH_DIR "x86_64-linux-gnu"
#endif

/* ---- per-test scratch: a temp dir and strings freed at teardown ------------- */
static char *g_tmp;

/* the real toolkit's release ("13.0"), read once in main() */
static char g_mm[16];

#define keep tu_keep
#define S tu_str

static void setup(void)
{
    g_tmp = tu_scratch();
}

static void teardown(void)
{
    tu_scratch_end(&g_tmp);
}

/* g_tmp/rel with text; returns the path */
static char *wr(const char *rel, const char *text)
{
    return keep(tu_write(g_tmp, rel, text));
}

static char *wrx(const char *rel, const char *text)
{
    char *p = wr(rel, text);

    ck_assert_int_eq(chmod(p, 0755), 0);
    return p;
}

static char *mkd(const char *rel)
{
    return keep(tu_mkdirs(g_tmp, rel));
}

static void lnk(const char *target, const char *rel)
{
    char *p = S("%s/%s", g_tmp, rel);

    ck_assert_msg(symlink(target, p) == 0, "symlink %s", p);
}

/* A fake toolkit g_tmp/rel (tu_fake_toolkit). */
static char *fake_toolkit(const char *rel, const char *json, int cudart)
{
    return keep(tu_fake_toolkit(g_tmp, rel, json, cudart));
}

/* cuBLAS in root/include and root/lib64 */
static void fake_cublas(const char *rel)
{
    wr(S("%s/include/cublas_v2.h", rel), "/* fake */\n");
    wr(S("%s/lib64/libcublas.so.12", rel), "");
    lnk("libcublas.so.12", S("%s/lib64/libcublas.so", rel));
}

/* A zeroed conf as config.c would fill it: every field at its own line. */
static void conf_init(ctk_sdk_conf_t *c, const char *version, const char *base)
{
    int f;

    memset(c, 0, sizeof *c);
    c->version = (char *)version;
    c->base = (char *)base;
    snprintf(c->jpath, sizeof c->jpath, "/sdks/0");
    for (f = 0; f < CTK_F__COUNT; f++) {
        c->pos[f].line = 10 + f;
        c->pos[f].column = 3 + f;
    }
}

#define ASSERT_ERR(e, c, f, msg)                                                   \
    do {                                                                           \
        ck_assert_int_eq((e).code, (c));                                          \
        ck_assert_str_eq((e).source, "site.json");                                \
        ck_assert_int_eq((e).line, 10 + (f));                                     \
        ck_assert_int_eq((e).column, 3 + (f));                                    \
        ck_assert_str_eq((e).text, (msg));                                        \
    } while (0)

/* list == the NULL-terminated expected strings */
static void assert_list(const ctk_strlist_t *l, ...)
{
    va_list ap;
    const char *want;
    size_t i = 0;

    va_start(ap, l);
    while ((want = va_arg(ap, const char *)) != NULL) {
        ck_assert_msg(i < l->len, "list has %zu items, wanted more (next: %s)", l->len, want);
        ck_assert_str_eq(l->items[i], want);
        i++;
    }
    va_end(ap);
    ck_assert_msg(i == l->len, "list has %zu items, wanted %zu (extra: %s)", l->len, i,
                  l->len > i ? l->items[i] : "");
}

/* every item exists, is no stubs/compat dir, and no two resolve alike */
static void assert_sane_list(const ctk_strlist_t *l, const char *stubs)
{
    char *rs = stubs ? realpath(stubs, NULL) : NULL;
    size_t i, j;

    for (i = 0; i < l->len; i++) {
        char *ri = realpath(l->items[i], NULL);
        const char *b;

        ck_assert_msg(ri != NULL, "%s does not exist", l->items[i]);
        b = strrchr(ri, '/') + 1;
        ck_assert_msg(strcmp(b, "stubs") != 0 && strcmp(b, "compat") != 0, "%s listed", ri);
        ck_assert_msg(!rs || strcmp(ri, rs) != 0, "stubs dir %s listed", l->items[i]);
        for (j = 0; j < i; j++) {
            char *rj = realpath(l->items[j], NULL);

            ck_assert_msg(strcmp(ri, rj) != 0, "%s and %s are one dir", l->items[i], l->items[j]);
            free(rj);
        }
        free(ri);
    }
    free(rs);
}

static void assert_sane(const ctk_sdk_t *sdk)
{
    assert_sane_list(&sdk->path, sdk->stubsdir);
    assert_sane_list(&sdk->cpath, sdk->stubsdir);
    assert_sane_list(&sdk->ld_library_path, sdk->stubsdir);
    assert_sane_list(&sdk->library_path, sdk->stubsdir);
    assert_sane_list(&sdk->manpath, sdk->stubsdir);
}

static const ctk_sdk_lib_t *find_lib(const ctk_sdk_t *sdk, const char *name)
{
    size_t i;

    for (i = 0; i < sdk->n_libs; i++)
        if (strcmp(sdk->libs[i].name, name) == 0)
            return &sdk->libs[i];
    return NULL;
}

static void assert_lib(const ctk_sdk_t *sdk, const char *name, const char *libdir, const char *link)
{
    const ctk_sdk_lib_t *l = find_lib(sdk, name);

    static const char *const math[] = { "cublas", "cufft", "curand", "cusolver", "cusparse" };
    bool is_math = false;
    size_t i;

    ck_assert_msg(l != NULL, "no lib %s", name);
    ck_assert_str_eq(l->libdir, libdir);
    ck_assert_str_eq(l->link, link);
    ck_assert_ptr_nonnull(l->description);
    ck_assert_ptr_nonnull(l->label);
    for (i = 0; i < sizeof math / sizeof math[0]; i++)
        is_math = is_math || strcmp(name, math[i]) == 0;
    /* the modules' whatis names math libraries from this flag */
    ck_assert_msg(l->math == is_math, "%s: math is %d", name, l->math);
}

static void assert_lib_names(const ctk_sdk_t *sdk, const char *names)
{
    char buf[512] = "";
    size_t i;

    for (i = 0; i < sdk->n_libs; i++) {
        strncat(buf, i ? " " : "", sizeof buf - strlen(buf) - 1);
        strncat(buf, sdk->libs[i].name, sizeof buf - strlen(buf) - 1);
    }
    ck_assert_str_eq(buf, names);
}

static ctk_sdk_t *load_ok(const ctk_sdk_conf_t *c)
{
    ctk_error_t e;
    ctk_sdk_t *sdk;

    ctk_error_init(&e);
    sdk = ctk_sdk_load(c, "site.json", &e);
    ck_assert_msg(sdk != NULL, "load failed: %s:%d:%d: %s", e.source, e.line, e.column, e.text);
    ck_assert_int_eq(e.code, CTK_E_OK);
    return sdk;
}

/* A scanned config names no default; what generate makes the default of
 * it (the highest version, the first of equals), from its SDKs loaded. */
static const char *generated_default(const ctk_config_t *cfg)
{
    ctk_sdk_t *sdks[8];
    const char *d;
    size_t i;

    ck_assert_ptr_null(cfg->default_version);
    ck_assert_uint_le(cfg->n_sdks, 8);
    for (i = 0; i < cfg->n_sdks; i++)
        sdks[i] = load_ok(&cfg->sdks[i]);
    d = keep(strdup(ctk_render_default(cfg, sdks, cfg->n_sdks)));
    for (i = 0; i < cfg->n_sdks; i++)
        ctk_sdk_free(sdks[i]);
    return d;
}

/* The toolkit's include/cccl (CUDA 13 keeps Thrust, CUB and libcu++ there)
 * follows its include dir on CPATH; take it out, so the rest of the list is
 * compared alike on toolkits with and without one. */
static void take_cccl(ctk_sdk_t *sdk)
{
    char *want = S("%s/cccl", sdk->incdir);

    if (!ctk_is_dir(S("%s/thrust", want)) && !ctk_is_dir(S("%s/cuda", want))) {
        ck_assert_ptr_null(sdk->cccl_incdir);
        return;
    }
    ck_assert_str_eq(sdk->cccl_incdir, want);
    ck_assert_uint_ge(sdk->cpath.len, 2);
    ck_assert_str_eq(sdk->cpath.items[1], want);
    free(sdk->cpath.items[1]);
    memmove(&sdk->cpath.items[1], &sdk->cpath.items[2],
            (sdk->cpath.len - 2) * sizeof *sdk->cpath.items);
    sdk->cpath.len--;
}

static void load_fails(const ctk_sdk_conf_t *c, ctk_error_t *e)
{
    ctk_sdk_t *sdk;

    ctk_error_init(e);
    sdk = ctk_sdk_load(c, "site.json", e);
    ck_assert_ptr_null(sdk);
}

static bool notes_have(const ctk_strlist_t *notes, const char *line)
{
    return ctk_strlist_contains(notes, line);
}

static const char *fixtures(void)
{
    const char *f = tu_fixtures();

    ck_assert_ptr_nonnull(f);
    return f;
}

/* The source toolkit is a wheel-assembled tree (targets/<arch>/include is a
 * link to ../../include): the noversion fixture then has its exact layout. */
static bool source_is_wheel(void)
{
    char p[4096];
    struct stat st;

    snprintf(p, sizeof p, "%s/targets/" TARGET "/include", tu_cuda_root());
    return lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && !tu_sh("test -f '%s/include/nvvm.h'", tu_cuda_root());
}

/* ==== version parsing and detection (fake trees) ================================= */

static const struct {
    const char *s;
    bool ok;
    int major, minor, patch;
} parse_cases[] = {
    {"12.4", true, 12, 4, -1},     {"12.4.1", true, 12, 4, 1},   {"13.0.0", true, 13, 0, 0},
    {"12.1.20230222", true, 12, 1, 20230222},
    {"12", false, 0, 0, 0},        {"12.", false, 0, 0, 0},      {".4", false, 0, 0, 0},
    {"12.4.", false, 0, 0, 0},     {"12.4.1.2", false, 0, 0, 0}, {"v12.4", false, 0, 0, 0},
    {" 12.4", false, 0, 0, 0},     {"12.4 ", false, 0, 0, 0},    {"12.x", false, 0, 0, 0},
    {"", false, 0, 0, 0},          {"1234567890.1", false, 0, 0, 0},
};

/* /usr/local/cuda -> /etc/alternatives/cuda -> /usr/local/cuda-13.0, in small */
START_TEST(test_sdk_base_link_pinned_unless_follow_link)
{
    ctk_sdk_conf_t conf;
    ctk_error_t e;
    char *note = NULL, *to;

    mkd("local/cuda-13.0");
    mkd("alt");
    lnk(S("%s/local/cuda-13.0", g_tmp), "alt/cuda");
    lnk(S("%s/alt/cuda", g_tmp), "local/cuda");
    lnk("cuda", "local/cuda-13");
    ctk_error_init(&e);
    to = ctk_sdk_base_link(S("%s/local/cuda-13", g_tmp), &e);
    ck_assert_str_eq(to, S("%s/local/cuda-13.0", g_tmp));
    free(to);
    ck_assert_ptr_null(ctk_sdk_base_link(S("%s/local/cuda-13.0", g_tmp), &e));
    ck_assert_ptr_null(ctk_sdk_base_link(S("%s/local/nothing", g_tmp), &e));
    memset(&conf, 0, sizeof conf);
    conf.version = (char *)"13.0";
    snprintf(conf.jpath, sizeof conf.jpath, "/sdks/0");
    conf.base = strdup(S("%s/local/cuda", g_tmp));
    ck_assert(ctk_sdk_conf_pin_base(&conf, "cudatoolkit", &note, &e));
    ck_assert_str_eq(conf.base, S("%s/local/cuda-13.0", g_tmp));
    ck_assert_ptr_nonnull(strstr(note, "cudatoolkit/13.0: base "));
    ck_assert_ptr_nonnull(strstr(note, "\"follow_link\": true in /sdks/0"));
    free(note);
    free(conf.base);
    conf.base = strdup(S("%s/local/cuda", g_tmp));
    conf.follow_link = true;
    ck_assert(ctk_sdk_conf_pin_base(&conf, "cudatoolkit", &note, &e));
    ck_assert_ptr_null(note);
    ck_assert_str_eq(conf.base, S("%s/local/cuda", g_tmp));
    free(conf.base);
    ck_assert(!ctk_error_is_set(&e));
}
END_TEST

START_TEST(test_version_parse_table)
{
    int a = -9, b = -9, c = -9;
    bool ok = ctk_version_parse(parse_cases[_i].s, &a, &b, &c);

    ck_assert_msg(ok == parse_cases[_i].ok, "\"%s\"", parse_cases[_i].s);
    if (ok) {
        ck_assert_int_eq(a, parse_cases[_i].major);
        ck_assert_int_eq(b, parse_cases[_i].minor);
        ck_assert_int_eq(c, parse_cases[_i].patch);
    }
}
END_TEST

START_TEST(test_version_source_names)
{
    ck_assert_str_eq(ctk_version_source_name(CTK_VSRC_VERSION_JSON), "version.json");
    ck_assert_str_eq(ctk_version_source_name(CTK_VSRC_VERSION_TXT), "version.txt");
    ck_assert_str_eq(ctk_version_source_name(CTK_VSRC_HEADER), "CUDART_VERSION");
    ck_assert_str_eq(ctk_version_source_name(CTK_VSRC_NVCC), "nvcc --version");
    ck_assert_str_eq(ctk_version_source_name(CTK_VSRC_NONE), "none");
}
END_TEST

static void detect_ok(const char *root, const char *inc, const char *nvcc, ctk_version_t *v)
{
    ctk_error_t e;

    ctk_error_init(&e);
    ck_assert_msg(ctk_version_detect(root, inc, nvcc, v, &e), "detect: %s", e.text);
}

START_TEST(test_version_json_date_version_has_no_patch)
{
    char *root = fake_toolkit("t", "12.1.20230222", 12010);
    ctk_version_t v;

    detect_ok(root, S("%s/include", root), S("%s/bin/nvcc", root), &v);
    ck_assert_int_eq(v.source, CTK_VSRC_VERSION_JSON);
    ck_assert_int_eq(v.major, 12);
    ck_assert_int_eq(v.minor, 1);
    ck_assert_int_eq(v.patch, -1);
    ck_assert_str_eq(v.path, S("%s/version.json", root));
}
END_TEST

START_TEST(test_version_json_beats_txt_and_header)
{
    char *root = fake_toolkit("t", "11.8.0", 11080);
    ctk_version_t v;

    wr("t/version.txt", "CUDA Version 10.1.243\n");
    detect_ok(root, S("%s/include", root), S("%s/bin/nvcc", root), &v);
    ck_assert_int_eq(v.source, CTK_VSRC_VERSION_JSON);
    ck_assert_int_eq(v.major, 11);
    ck_assert_int_eq(v.minor, 8);
    ck_assert_int_eq(v.patch, 0);
}
END_TEST

START_TEST(test_version_txt_beats_header)
{
    char *root = fake_toolkit("t", NULL, 10010);
    ctk_version_t v;

    wr("t/version.txt", "CUDA Version 10.1.243\n");
    detect_ok(root, S("%s/include", root), S("%s/bin/nvcc", root), &v);
    ck_assert_int_eq(v.source, CTK_VSRC_VERSION_TXT);
    ck_assert_int_eq(v.major, 10);
    ck_assert_int_eq(v.minor, 1);
    ck_assert_int_eq(v.patch, 243);
    ck_assert_str_eq(v.path, S("%s/version.txt", root));
}
END_TEST

START_TEST(test_version_malformed_json_falls_through)
{
    char *root = fake_toolkit("t", NULL, 12040);
    ctk_version_t v;

    wr("t/version.json", "{ \"cuda\": { \"version\": ");
    wr("t/version.txt", "CUDA Version 12.4.1\n");
    detect_ok(root, NULL, NULL, &v);
    ck_assert_int_eq(v.source, CTK_VSRC_VERSION_TXT);
    ck_assert_int_eq(v.patch, 1);
    /* ... and says which source it passed over, and why */
    ck_assert_str_eq(v.passed_over, S("%s/version.json:1:23: not valid JSON: unexpected token near "
                                      "end of file", root));

    /* valid JSON without a "cuda" entry says nothing either */
    wr("t/version.json", "{ \"cuda_nvcc\": { \"version\": \"12.4.99\" } }");
    unlink(S("%s/version.txt", root));
    detect_ok(root, S("%s/include", root), NULL, &v);
    ck_assert_int_eq(v.source, CTK_VSRC_HEADER);
    ck_assert_str_eq(v.passed_over,
                     S("%s/version.json: no CUDA release in its \"cuda\" \"version\"", root));

    /* a version.txt without its line; nothing passed over when all is well */
    unlink(S("%s/version.json", root));
    wr("t/version.txt", "CUDA 12.4\n");
    detect_ok(root, S("%s/include", root), NULL, &v);
    ck_assert_str_eq(v.passed_over, S("%s/version.txt: no \"CUDA Version X.Y.Z\" line", root));
    unlink(S("%s/version.txt", root));
    detect_ok(root, S("%s/include", root), NULL, &v);
    ck_assert_str_eq(v.passed_over, "");
}
END_TEST

START_TEST(test_version_header_gives_major_minor)
{
    char *root = fake_toolkit("t", NULL, 12040);
    ctk_version_t v;

    detect_ok(root, S("%s/include", root), S("%s/bin/nvcc", root), &v);
    ck_assert_int_eq(v.source, CTK_VSRC_HEADER);
    ck_assert_int_eq(v.major, 12);
    ck_assert_int_eq(v.minor, 4);
    ck_assert_int_eq(v.patch, -1);
    ck_assert_str_eq(v.path, S("%s/include/cuda_runtime_api.h", root));
}
END_TEST

START_TEST(test_version_nvcc_is_last)
{
    char *root = fake_toolkit("t", NULL, 11080);
    char *nvcc = S("%s/bin/nvcc", root);
    ctk_version_t v;
    ctk_error_t e;

    /* no incdir given: only nvcc can answer */
    detect_ok(root, NULL, nvcc, &v);
    ck_assert_int_eq(v.source, CTK_VSRC_NVCC);
    ck_assert_int_eq(v.major, 11);
    ck_assert_int_eq(v.minor, 8);
    ck_assert_int_eq(v.patch, -1);
    ck_assert_str_eq(v.path, nvcc);

    /* an nvcc that fails gives no answer, and then nothing does */
    wrx("t/bin/nvcc", "#!/bin/sh\necho 'Cuda compilation tools, release 11.8, V11.8.89'\nexit 3\n");
    ctk_error_init(&e);
    ck_assert(!ctk_version_detect(root, NULL, nvcc, &v, &e));
    ck_assert_int_eq(e.code, CTK_E_SDK);
    ck_assert_int_eq(v.source, CTK_VSRC_NONE);
    ck_assert_ptr_nonnull(strstr(e.text, "no version.json or version.txt in"));
}
END_TEST

START_TEST(test_version_nvcc_child_outliving_stdout_is_waited_for)
{
    char *root = fake_toolkit("t", NULL, 11080);
    char *nvcc = S("%s/bin/nvcc", root);
    ctk_version_t v;

    /* closes stdout, then takes a moment to exit: still read and reaped */
    wrx("t/bin/nvcc", "#!/bin/sh\necho 'Cuda compilation tools, release 9.2, V9.2.148'\n"
                      "exec >/dev/null\nsleep 0.3\nexit 0\n");
    detect_ok(NULL, NULL, nvcc, &v);
    ck_assert_int_eq(v.source, CTK_VSRC_NVCC);
    ck_assert_int_eq(v.major, 9);
    ck_assert_int_eq(v.minor, 2);
}
END_TEST

START_TEST(test_version_nothing_answers)
{
    ctk_version_t v;
    ctk_error_t e;

    mkd("empty");
    ctk_error_init(&e);
    ck_assert(!ctk_version_detect(S("%s/empty", g_tmp), S("%s/empty/include", g_tmp), NULL, &v, &e));
    ck_assert_int_eq(e.code, CTK_E_SDK);
    ck_assert_int_eq(v.patch, -1);
    ck_assert(!ctk_version_detect(NULL, NULL, NULL, &v, NULL));
}
END_TEST

/* ==== ctk_sdk_load on fake trees: errors ============================================= */

START_TEST(test_sdk_error_missing_base)
{
    ctk_sdk_conf_t c;
    ctk_error_t e;
    char *base = S("%s/nope", g_tmp);

    conf_init(&c, "12.4", base);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_BASE, S("/sdks/0/base: SDK 12.4: %s does not exist", base));

    base = wr("file", "x");
    conf_init(&c, "12.4", base);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_BASE, S("/sdks/0/base: SDK 12.4: %s is not a directory", base));
}
END_TEST

START_TEST(test_sdk_error_no_cuda_runtime_h)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_error_t e;

    unlink(S("%s/include/cuda_runtime.h", root));
    conf_init(&c, "12.4", root);
    c.module_version = (char *)"12.4-site";
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_BASE,
               S("/sdks/0/base: SDK 12.4-site: no cuda_runtime.h under %s (looked in " LOOKED_INC ")",
                 root));
}
END_TEST

START_TEST(test_sdk_error_no_libcudart)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_error_t e;

    unlink(S("%s/lib64/libcudart.so", root));
    unlink(S("%s/lib64/libcudart.so.12", root));
    /* a dangling link does not count */
    lnk("libcudart.so.12", S("cuda/lib64/libcudart.so"));
    wr("cuda/lib64/libcudart_static.a", "");
    conf_init(&c, "12.4", root);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_BASE,
               S("/sdks/0/base: SDK 12.4: no libcudart.so* under %s (looked in " LOOKED_LIB ")",
                 root));
}
END_TEST

/* NVIDIA's CUDA 13 wheels ship libcudart.so.13 and no libcudart.so: the
 * record names each such library and its soname-form file. */
START_TEST(test_sdk_versioned_only_libraries_are_named)
{
    char *root = fake_toolkit("cuda", NULL, 13050);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    unlink(S("%s/lib64/libcudart.so", root));
    wr("cuda/lib64/libcudart.so.13.5.37", "");
    wr("cuda/lib64/libcublas.so.13", "");
    wr("cuda/lib64/libcublasLt.so.13.1", "");
    wr("cuda/lib64/libcublasLt.so.13.10", "");
    wr("cuda/lib64/libcufft.so.12", "");
    wr("cuda/lib64/libcufft.so", "");            /* has its name: none needed */
    wr("cuda/lib64/libnvrtc-builtins.so.13.5", ""); /* not -lnvrtc's */
    lnk("libcurand.so.10", "cuda/lib64/libcurand.so.10.4"); /* dangling: not a library */
    conf_init(&c, "13.5", root);
    sdk = load_ok(&c);
    ck_assert_uint_eq(sdk->n_versioned, 3);
    ck_assert_str_eq(sdk->versioned[0].name, "cudart");
    ck_assert_str_eq(sdk->versioned[0].file, S("%s/lib64/libcudart.so.13", root));
    ck_assert_str_eq(sdk->versioned[1].name, "cublas");
    ck_assert_str_eq(sdk->versioned[1].file, S("%s/lib64/libcublas.so.13", root));
    ck_assert_str_eq(sdk->versioned[2].name, "cublasLt");
    ck_assert_str_eq(sdk->versioned[2].file, S("%s/lib64/libcublasLt.so.13.10", root));
    ctk_sdk_free(sdk);
}
END_TEST

/* A runfile tree has every unversioned name: no link names. */
START_TEST(test_sdk_unversioned_names_need_nothing)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    fake_cublas("cuda");
    conf_init(&c, "12.4", root);
    sdk = load_ok(&c);
    ck_assert_uint_eq(sdk->n_versioned, 0);
    ctk_sdk_free(sdk);
}
END_TEST

/* pip's tree: nvcc's wheel 13.1 beside NVVM's 13.5 and headers 13.5 */
START_TEST(test_sdk_parts_of_two_releases_fail)
{
    char *root = fake_toolkit("sp/nvidia/cu13", NULL, 13050);
    ctk_sdk_conf_t c;
    ctk_error_t e;

    mkd("sp/nvidia_cuda_nvcc-13.1.80.dist-info");
    mkd("sp/nvidia_nvvm-13.5.37.dist-info");
    mkd("sp/nvidia_cuda_runtime_cu13-13.5.37.dist-info");
    mkd("sp/nvidia_cublas-13.10.0.20.dist-info"); /* numbered on its own: not compared */
    conf_init(&c, "13.5", root);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_BASE,
               S("/sdks/0/base: SDK 13.5: the parts of the toolkit at %s are of different CUDA "
                 "releases: nvcc, its headers, NVVM and the runtime must be one (reinstall the odd "
                 "ones, or point base at a whole toolkit): 13.1: nvidia_cuda_nvcc-13.1.80.dist-info; "
                 "13.5: CUDART_VERSION (%s/include/cuda_runtime_api.h), "
                 "nvcc (%s/bin/nvcc: \"release 13.5\"), "
                 "nvidia_cuda_runtime_cu13-13.5.37.dist-info, nvidia_nvvm-13.5.37.dist-info "
                 "(the dist-info in %s/sp)",
                 root, root, root, g_tmp));
}
END_TEST

/* An ELF nvcc: its banner is looked for in .rodata, where a string
 * literal is, and then in the whole file: here it follows the sections of
 * a real executable (/bin/true, whose .rodata holds none), and says 12.6
 * against headers of 13.0. */
START_TEST(test_sdk_banner_of_an_elf_nvcc_outside_rodata)
{
    char *root = fake_toolkit("cuda", NULL, 13000);
    char *nvcc = S("%s/bin/nvcc", root);
    ctk_sdk_conf_t c;
    ctk_error_t e;
    FILE *in = fopen("/bin/true", "rb"), *out;
    char buf[4096];
    size_t n;

    ck_assert_ptr_nonnull(in);
    unlink(nvcc);
    ck_assert_ptr_nonnull(out = fopen(nvcc, "wb"));
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        ck_assert_uint_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    ck_assert(fputs("Cuda compilation tools, release 12.6, V12.6.99\n", out) >= 0);
    ck_assert_int_eq(fclose(out), 0);
    ck_assert_int_eq(chmod(nvcc, 0755), 0);
    conf_init(&c, "13.0", root);
    load_fails(&c, &e);
    ck_assert_ptr_nonnull(strstr(e.text, S("nvcc (%s: \"release 12.6\")", nvcc)));
}
END_TEST

/* the parts agree (13.0: the headers, and the banner of the fake nvcc
 * script, read as nvcc's executable is) and version.json says 12.4.1: a
 * warning, the file's word kept */
START_TEST(test_sdk_version_file_out_of_step_is_a_warning)
{
    char *root = fake_toolkit("cuda", "12.4.1", 13000);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, "12.4", root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->version_mm, "12.4");
    ck_assert_str_eq(sdk->version.out_of_step,
                     S("%s/version.json says CUDA 12.4, but CUDART_VERSION "
                       "(%s/include/cuda_runtime_api.h) and the other parts say 13.0: the version "
                       "file is taken; "
                       "correct it, or the module is named for a release it does not hold",
                       root, root));
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_error_no_nvcc)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_error_t e;

    ck_assert_int_eq(chmod(S("%s/bin/nvcc", root), 0644), 0);
    conf_init(&c, "12.4", root);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_BASE,
               S("/sdks/0/base: SDK 12.4: no executable bin/nvcc under %s", root));
    unlink(S("%s/bin/nvcc", root));
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_BASE,
               S("/sdks/0/base: SDK 12.4: no executable bin/nvcc under %s", root));
}
END_TEST

START_TEST(test_sdk_error_declared_version_mismatch)
{
    char *root = fake_toolkit("cuda", "12.4.1", 12040);
    ctk_sdk_conf_t c;
    ctk_error_t e;
    ctk_sdk_t *sdk;

    conf_init(&c, "12.6", root);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_VERSION, CTK_F_VERSION,
               S("/sdks/0/version: SDK declared 12.6 but the toolkit at %s is 12.4.1 (from %s/version.json)",
                 root, root));

    /* a patch is checked when the toolkit knows its own */
    conf_init(&c, "12.4.0", root);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_VERSION, CTK_F_VERSION,
               S("/sdks/0/version: SDK declared 12.4.0 but the toolkit at %s is 12.4.1 (from %s/version.json)",
                 root, root));

    /* a module version of its own is named */
    conf_init(&c, "13.0", root);
    c.module_version = (char *)"13.0-gcc";
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_VERSION, CTK_F_VERSION,
               S("/sdks/0/version: SDK 13.0-gcc declared 13.0 but the toolkit at %s is 12.4.1 (from %s/version.json)",
                 root, root));

    conf_init(&c, "12.4.1", root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->version_mm, "12.4");
    ck_assert_str_eq(sdk->version_full, "12.4.1");
    ck_assert_str_eq(sdk->module_version, "12.4.1");
    ctk_sdk_free(sdk);

    conf_init(&c, "12.4", root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->version_full, "12.4.1");
    ck_assert_str_eq(sdk->module_version, "12.4");
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_declared_patch_accepted_when_toolkit_does_not_know)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_error_t e;
    ctk_sdk_t *sdk;

    conf_init(&c, "12.4.1", root);
    sdk = load_ok(&c);
    ck_assert_int_eq(sdk->version.source, CTK_VSRC_HEADER);
    ck_assert_str_eq(sdk->version_mm, "12.4");
    ck_assert_ptr_null(sdk->version_full);
    ctk_sdk_free(sdk);

    conf_init(&c, "12.5.1", root);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_VERSION, CTK_F_VERSION,
               S("/sdks/0/version: SDK declared 12.5.1 but the toolkit at %s is 12.4 (from %s/include/cuda_runtime_api.h)",
                 root, root));
}
END_TEST

/* The header and nvcc are read once per run for each state of the file:
 * a toolkit changed between two loads is seen as it is now. */
START_TEST(test_sdk_version_read_again_when_files_change)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, "12.4", root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->version_mm, "12.4");
    ctk_sdk_free(sdk);
    sdk = load_ok(&c); /* the same files: the same answer */
    ck_assert_str_eq(sdk->version_mm, "12.4");
    ctk_sdk_free(sdk);
    wr("cuda/include/cuda_runtime_api.h", "/* updated */\n#define CUDART_VERSION 12060\n");
    wrx("cuda/bin/nvcc", "#!/bin/sh\n# updated\n"
                         "echo 'Cuda compilation tools, release 12.6, V12.6.99'\n");
    conf_init(&c, "12.6", root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->version_mm, "12.6");
    ck_assert_int_eq(sdk->version.source, CTK_VSRC_HEADER);
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_version_from_nvcc_named_in_mismatch)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_error_t e;

    /* no CUDART_VERSION: nvcc answers (it says 12.4) */
    wr("cuda/include/cuda_runtime_api.h", "/* nothing */\n");
    conf_init(&c, "11.8", root);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_VERSION, CTK_F_VERSION,
               S("/sdks/0/version: SDK declared 11.8 but the toolkit at %s is 12.4 (from %s/bin/nvcc --version)",
                 root, root));
}
END_TEST

START_TEST(test_sdk_error_math_libs_without_cublas)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    char *math = mkd("math/include");
    ctk_sdk_conf_t c;
    ctk_error_t e;

    math = S("%s/math", g_tmp);
    conf_init(&c, "12.4", root);
    c.math_libs = math;
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_MATH_LIBS,
               S("/sdks/0/math_libs: SDK 12.4: no cublas_v2.h under %s (looked in " LOOKED_INC ")",
                 math));

    wr("math/include/cublas_v2.h", "");
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_MATH_LIBS,
               S("/sdks/0/math_libs: SDK 12.4: no libcublas.so* under %s (looked in " LOOKED_LIB ")",
                 math));

    c.math_libs = S("%s/nope", g_tmp);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_MATH_LIBS,
               S("/sdks/0/math_libs: SDK 12.4: %s/nope does not exist", g_tmp));
}
END_TEST

START_TEST(test_sdk_error_bad_ccbin)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    char *gcc = wr("bin/gcc-12", "not executable");
    ctk_sdk_conf_t c;
    ctk_error_t e;
    ctk_sdk_t *sdk;

    conf_init(&c, "12.4", root);
    c.host_compiler_ccbin = gcc;
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_CCBIN,
               S("/sdks/0/host_compiler/ccbin: SDK 12.4: %s is not an executable file", gcc));

    c.host_compiler_ccbin = S("%s/bin", g_tmp);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_CCBIN,
               S("/sdks/0/host_compiler/ccbin: SDK 12.4: %s/bin is not an executable file", g_tmp));

    ck_assert_int_eq(chmod(gcc, 0755), 0);
    c.host_compiler_ccbin = gcc;
    sdk = load_ok(&c);
    ctk_sdk_free(sdk);
}
END_TEST

/* include/cccl is found only where it holds CCCL, and goes right after the
 * include dir on CPATH */
START_TEST(test_sdk_cccl_include_dir)
{
    char *root = fake_toolkit("t", NULL, 13000);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, "13.0", root);
    mkd("t/include/cccl");
    sdk = load_ok(&c);
    ck_assert_ptr_null(sdk->cccl_incdir); /* empty: not CCCL */
    assert_list(&sdk->cpath, S("%s/include", root), NULL);
    ctk_sdk_free(sdk);

    mkd("t/include/cccl/thrust");
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->cccl_incdir, S("%s/include/cccl", root));
    assert_list(&sdk->cpath, S("%s/include", root), S("%s/include/cccl", root), NULL);
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_error_configured_roots_missing)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_error_t e;

    conf_init(&c, "12.4", root);
    c.nvvm = wr("nvvm-file", "");
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_NVVM,
               S("/sdks/0/nvvm: SDK 12.4: %s is not a directory", c.nvvm));

    /* a directory that is not NVVM (here: NVSHMEM's) is named, not dropped */
    conf_init(&c, "12.4", root);
    c.nvvm = mkd("not-nvvm/lib");
    wr("not-nvvm/include/nvshmem.h", "");
    c.nvvm = S("%s/not-nvvm", g_tmp);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_NVVM,
               S("/sdks/0/nvvm: SDK 12.4: no NVVM under %s (looked for lib64/libnvvm.so*, "
                 "lib/libnvvm.so*, include/nvvm.h, bin/cicc, libdevice/)",
                 c.nvvm));

    /* ... while one that keeps only libdevice/ (a wheel-assembled toolkit) is NVVM */
    conf_init(&c, "12.4", root);
    c.nvvm = mkd("wheel-nvvm/libdevice");
    c.nvvm = S("%s/wheel-nvvm", g_tmp);
    ctk_sdk_free(load_ok(&c));

    conf_init(&c, "12.4", root);
    c.cupti = mkd("cupti");
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_CUPTI,
               S("/sdks/0/cupti: SDK 12.4: no cupti.h under %s (looked in extras/CUPTI/include, "
                 LOOKED_INC ")",
                 c.cupti));

    conf_init(&c, "12.4", root);
    c.nccl = mkd("nccl");
    wr("nccl/include/nccl.h", "");
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_NCCL,
               S("/sdks/0/comm_libs/nccl: SDK 12.4: no libnccl.so* under %s (looked in lib, lib64)",
                 c.nccl));

    conf_init(&c, "12.4", root);
    c.nvshmem = mkd("nvshmem/lib");
    c.nvshmem = S("%s/nvshmem", g_tmp);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_SDK, CTK_F_NVSHMEM,
               S("/sdks/0/comm_libs/nvshmem: SDK 12.4: no nvshmem.h under %s (looked in include)",
                 c.nvshmem));
}
END_TEST

START_TEST(test_sdk_error_keeps_first_error)
{
    ctk_sdk_conf_t c;
    ctk_error_t e;

    conf_init(&c, "12.4", S("%s/nope", g_tmp));
    ctk_error_init(&e);
    ctk_error_set(&e, CTK_E_IO, "earlier", 1, 2, "first");
    ck_assert_ptr_null(ctk_sdk_load(&c, "site.json", &e));
    ck_assert_str_eq(e.text, "first");
    ck_assert_ptr_null(ctk_sdk_load(&c, "site.json", NULL));
    ctk_sdk_free(NULL);
}
END_TEST

/* ==== ctk_sdk_load on fake trees: decisions ============================================ */

START_TEST(test_sdk_dedups_symlinked_dirs)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    char *alias = S("%s/alias", g_tmp);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    /* lib is the real dir, lib64 -> lib; math_libs names the same tree again */
    ck_assert_int_eq(rename(S("%s/lib64", root), S("%s/lib", root)), 0);
    lnk("lib", "cuda/lib64");
    fake_cublas("cuda");
    lnk("cuda", "alias");
    wr("cuda/extras/CUPTI/include/cupti.h", "");
    wr("cuda/extras/CUPTI/lib64/libcupti.so", "");
    conf_init(&c, "12.4", root);
    c.math_libs = alias;
    c.cupti = alias;
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->libdir, S("%s/lib64", root));
    ck_assert_str_eq(sdk->math_incdir, S("%s/include", alias));
    ck_assert_str_eq(sdk->math_libdir, S("%s/lib64", alias));
    ck_assert_str_eq(sdk->cupti_incdir, S("%s/extras/CUPTI/include", alias));
    assert_list(&sdk->cpath, S("%s/include", root), S("%s/extras/CUPTI/include", alias), NULL);
    assert_list(&sdk->ld_library_path, S("%s/lib64", root), S("%s/extras/CUPTI/lib64", alias),
                NULL);
    assert_list(&sdk->library_path, S("%s/lib64", root), S("%s/extras/CUPTI/lib64", alias), NULL);
    assert_list(&sdk->path, S("%s/bin", root), NULL);
    assert_lib(sdk, "cublas", S("%s/lib64", root), "-lcublas");
    assert_sane(sdk);
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_system_dirs_recognised)
{
    mkd("mine/include");
    lnk("/usr/include", "sysinc");
    ck_assert(ctk_sdk_is_system_dir("/usr/include"));
    ck_assert(ctk_sdk_is_system_dir("/usr/include/"));
    ck_assert(ctk_sdk_is_system_dir("/usr/bin"));
    ck_assert(ctk_sdk_is_system_dir("/lib64"));
    ck_assert(ctk_sdk_is_system_dir("/usr/lib/" MULTIARCH_DIR));
    ck_assert(ctk_sdk_is_system_dir(S("%s/sysinc", g_tmp))); /* by its resolved path */
    ck_assert(!ctk_sdk_is_system_dir("/usr/local/include"));
    ck_assert(!ctk_sdk_is_system_dir("/usr/lib/" MULTIARCH_DIR "/stubs"));
    ck_assert(!ctk_sdk_is_system_dir(S("%s/mine/include", g_tmp)));
    ck_assert(!ctk_sdk_is_system_dir(NULL));
}
END_TEST

/* a toolkit whose man pages are the system's: they stay off MANPATH */
START_TEST(test_sdk_system_dir_kept_off_lists)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    if (!ctk_is_dir("/usr/share/man")) {
        printf("SKIP: test_sdk_system_dir_kept_off_lists: no /usr/share/man here\n");
        return;
    }
    mkd("cuda/share");
    lnk("/usr/share/man", "cuda/share/man");
    conf_init(&c, "12.4", root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->mandir, S("%s/share/man", root)); /* the field still names it */
    ck_assert_uint_eq(sdk->manpath.len, 0);
    assert_list(&sdk->ld_library_path, S("%s/lib64", root), NULL);
    ctk_sdk_free(sdk);
}
END_TEST

/* Debian's nvidia-cuda-toolkit under a prefix: libraries in lib/<multiarch> */
START_TEST(test_sdk_debian_multiarch_layout)
{
    char *usr = S("%s/deb/usr", g_tmp);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    wrx("deb/usr/bin/nvcc", "#!/bin/sh\nexec \"$(dirname \"$0\")/../lib/nvidia-cuda-toolkit/bin/nvcc\" \"$@\"\n");
    wrx("deb/usr/lib/nvidia-cuda-toolkit/bin/nvcc", "#!/bin/sh\nexit 1\n");
    wr("deb/usr/include/cuda_runtime.h", "");
    wr("deb/usr/include/cuda_runtime_api.h", "#define CUDART_VERSION 12040\n");
    wr("deb/usr/include/cupti.h", "");
    wr("deb/usr/include/nvvm.h", "");
    wr("deb/usr/lib/" MULTIARCH_DIR "/libcudart.so.12", "");
    wr("deb/usr/lib/" MULTIARCH_DIR "/libcupti.so.12", "");
    wr("deb/usr/lib/" MULTIARCH_DIR "/libnvvm.so.4", "");
    wr("deb/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc", "");
    conf_init(&c, "12.4", usr);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->incdir, S("%s/include", usr));
    ck_assert_str_eq(sdk->libdir, S("%s/lib/" MULTIARCH_DIR, usr));
    ck_assert_str_eq(sdk->cupti_incdir, S("%s/include", usr));
    ck_assert_str_eq(sdk->cupti_libdir, S("%s/lib/" MULTIARCH_DIR, usr));
    ck_assert_ptr_null(sdk->nvvm_root); /* no nvvm/: nvvm.h and libnvvm are in include/ and lib/<multiarch> */
    assert_list(&sdk->path, S("%s/bin", usr), NULL);
    assert_list(&sdk->cpath, S("%s/include", usr), NULL);
    assert_list(&sdk->ld_library_path, S("%s/lib/" MULTIARCH_DIR, usr), NULL);
    assert_lib(sdk, "cudart", S("%s/lib/" MULTIARCH_DIR, usr), "-lcudart");
    assert_lib(sdk, "cupti", S("%s/lib/" MULTIARCH_DIR, usr), "-lcupti");
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_stubs_and_compat_never_listed)
{
    char *root = fake_toolkit("cuda", NULL, 12040);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    wr("cuda/lib64/stubs/libcuda.so", "");
    wr("cuda/compat/libcuda.so.1", "");
    wr("cuda/compat/libcublas.so", "");
    /* a math_libs whose lib64 is really the compat dir */
    wr("math/include/cublas_v2.h", "");
    lnk("../cuda/compat", "math/lib64");
    conf_init(&c, "12.4", root);
    c.math_libs = S("%s/math", g_tmp);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->stubsdir, S("%s/lib64/stubs", root));
    ck_assert_str_eq(sdk->math_libdir, S("%s/math/lib64", g_tmp));
    assert_list(&sdk->ld_library_path, S("%s/lib64", root), NULL);
    assert_list(&sdk->cpath, S("%s/include", root), S("%s/math/include", g_tmp), NULL);
    ck_assert_ptr_null(find_lib(sdk, "cublas"));
    assert_sane(sdk);
    ctk_sdk_free(sdk);

    /* without libcuda.so, stubs/ is no stubs dir */
    unlink(S("%s/lib64/stubs/libcuda.so", root));
    conf_init(&c, "12.4", root);
    sdk = load_ok(&c);
    ck_assert_ptr_null(sdk->stubsdir);
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_targets_only_layout)
{
    char *root = S("%s/conda", g_tmp);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    wrx("conda/bin/nvcc", "#!/bin/sh\necho 'release 12.6, V12.6.77'\n");
    wr("conda/targets/" TARGET "/include/cuda_runtime.h", "");
    wr("conda/targets/" TARGET "/include/cuda_runtime_api.h", "#define CUDART_VERSION 12060\n");
    wr("conda/targets/" TARGET "/include/cupti.h", "");
    wr("conda/targets/" TARGET "/lib/libcudart.so.12", "");
    wr("conda/targets/" TARGET "/lib/libcupti.so.12", "");
    wr("conda/targets/" TARGET "/lib/libnvrtc.so.12", "");
    wr("conda/nvvm/lib64/libnvvm.so.4", "");
    wr("conda/nvvm/include/nvvm.h", "");
    wr("conda/share/man/man1/nvcc.1", "");
    conf_init(&c, "12.6", root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->incdir, S("%s/targets/" TARGET "/include", root));
    ck_assert_str_eq(sdk->libdir, S("%s/targets/" TARGET "/lib", root));
    ck_assert_ptr_null(sdk->math_incdir);
    ck_assert_ptr_null(sdk->math_libdir);
    ck_assert_str_eq(sdk->cupti_incdir, S("%s/targets/" TARGET "/include", root));
    ck_assert_str_eq(sdk->cupti_libdir, S("%s/targets/" TARGET "/lib", root));
    ck_assert_str_eq(sdk->nvvm_root, S("%s/nvvm", root));
    ck_assert_str_eq(sdk->nvvm_libdir, S("%s/nvvm/lib64", root));
    ck_assert_str_eq(sdk->nvvm_incdir, S("%s/nvvm/include", root));
    ck_assert_str_eq(sdk->mandir, S("%s/share/man", root));
    ck_assert_ptr_null(sdk->stubsdir);
    assert_list(&sdk->manpath, S("%s/share/man", root), NULL);
    assert_list(&sdk->cpath, S("%s/targets/" TARGET "/include", root), S("%s/nvvm/include", root),
                NULL);
    assert_list(&sdk->ld_library_path, S("%s/targets/" TARGET "/lib", root),
                S("%s/nvvm/lib64", root), NULL);
    assert_lib_names(sdk, "cudart nvrtc cupti");
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_comm_libs_and_module_version)
{
    char *root = fake_toolkit("cuda", "12.4.1", 12040);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    wr("cuda/doc/man/man1/nvcc.1", "");
    wr("nccl/include/nccl.h", "");
    wr("nccl/lib/libnccl.so.2", "");
    wr("nvshmem/include/nvshmem.h", "");
    wr("nvshmem/lib/libnvshmem_host.so.3", "");
    wr("nvshmem/lib/libnvshmem_device.a", "");
    wrx("nvshmem/bin/nvshmrun", "#!/bin/sh\n");
    conf_init(&c, "12.4", root);
    c.module_version = (char *)"12.4-gcc13";
    c.nccl = S("%s/nccl", g_tmp);
    c.nvshmem = S("%s/nvshmem", g_tmp);
    sdk = load_ok(&c);
    ck_assert_ptr_eq(sdk->conf, &c);
    ck_assert_str_eq(sdk->module_version, "12.4-gcc13");
    ck_assert_str_eq(sdk->root, root);
    ck_assert_str_eq(sdk->bindir, S("%s/bin", root));
    ck_assert_str_eq(sdk->nvcc, S("%s/bin/nvcc", root));
    ck_assert_str_eq(sdk->mandir, S("%s/doc/man", root));
    ck_assert_ptr_null(sdk->nvvm_root);
    ck_assert_ptr_null(sdk->cupti_incdir);
    ck_assert_ptr_null(sdk->cupti_libdir);
    ck_assert_str_eq(sdk->nccl_incdir, S("%s/nccl/include", g_tmp));
    ck_assert_str_eq(sdk->nccl_libdir, S("%s/nccl/lib", g_tmp));
    ck_assert_str_eq(sdk->nvshmem_incdir, S("%s/nvshmem/include", g_tmp));
    ck_assert_str_eq(sdk->nvshmem_libdir, S("%s/nvshmem/lib", g_tmp));
    ck_assert_str_eq(sdk->nvshmem_bindir, S("%s/nvshmem/bin", g_tmp));
    assert_list(&sdk->path, S("%s/bin", root), S("%s/nvshmem/bin", g_tmp), NULL);
    assert_list(&sdk->cpath, S("%s/include", root), S("%s/nccl/include", g_tmp),
                S("%s/nvshmem/include", g_tmp), NULL);
    assert_list(&sdk->ld_library_path, S("%s/lib64", root), S("%s/nccl/lib", g_tmp),
                S("%s/nvshmem/lib", g_tmp), NULL);
    assert_list(&sdk->manpath, S("%s/doc/man", root), NULL);
    assert_lib_names(sdk, "cudart nccl nvshmem");
    assert_lib(sdk, "cudart", S("%s/lib64", root), "-lcudart");
    assert_lib(sdk, "nccl", S("%s/nccl/lib", g_tmp), "-lnccl");
    assert_lib(sdk, "nvshmem", S("%s/nvshmem/lib", g_tmp), "-lnvshmem_host");
    ctk_sdk_free(sdk);
}
END_TEST

/* ==== real layouts built from the toolkit ============================================ */

START_TEST(test_sdk_real_toolkit)
{
    const char *root = tu_cuda_root();
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, g_mm, root);
    sdk = load_ok(&c);
    ck_assert_str_eq(sdk->version_mm, g_mm);
    ck_assert_str_eq(sdk->bindir, S("%s/bin", root));
    ck_assert_str_eq(sdk->nvcc, S("%s/bin/nvcc", root));
    ck_assert_int_eq(tu_sh("test -f '%s/cuda_runtime.h'", sdk->incdir), 0);
    ck_assert_int_eq(tu_sh("ls '%s'/libcudart.so* >/dev/null 2>&1", sdk->libdir), 0);
    ck_assert_str_eq(sdk->path.items[0], sdk->bindir);
    ck_assert_str_eq(sdk->cpath.items[0], sdk->incdir);
    ck_assert_str_eq(sdk->ld_library_path.items[0], sdk->libdir);
    ck_assert_uint_eq(sdk->ld_library_path.len, sdk->library_path.len);
    ck_assert_ptr_nonnull(sdk->math_libdir);
    ck_assert_str_eq(sdk->libs[0].name, "cudart");
    assert_lib(sdk, "cudart", sdk->libdir, "-lcudart");
    ck_assert_ptr_nonnull(find_lib(sdk, "cublas"));
    assert_sane(sdk);
    ctk_sdk_free(sdk);
}
END_TEST

/* the wheel tree as it is (fixture noversion/ has no version file) */
START_TEST(test_sdk_wheel_layout)
{
    const char *b = S("%s/noversion/cuda-%s", fixtures(), g_mm);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, S("%s.0", g_mm), b);
    sdk = load_ok(&c);
    ck_assert_int_eq(sdk->version.source, CTK_VSRC_HEADER);
    ck_assert_str_eq(sdk->version_mm, g_mm);
    ck_assert_int_eq(sdk->version.patch, -1);
    ck_assert_ptr_null(sdk->version_full); /* the declared patch is not made up */
    ck_assert_str_eq(sdk->module_version, S("%s.0", g_mm));
    assert_sane(sdk);
    if (!source_is_wheel()) {
        ctk_sdk_free(sdk);
        return;
    }
    ck_assert_str_eq(sdk->version.path, S("%s/include/cuda_runtime_api.h", b));
    ck_assert_str_eq(sdk->incdir, S("%s/include", b));
    ck_assert_str_eq(sdk->libdir, S("%s/lib64", b));
    ck_assert_str_eq(sdk->stubsdir, S("%s/lib64/stubs", b));
    ck_assert_str_eq(sdk->math_incdir, S("%s/include", b));
    ck_assert_str_eq(sdk->math_libdir, S("%s/lib64", b));
    ck_assert_str_eq(sdk->cupti_incdir, S("%s/include", b));
    ck_assert_str_eq(sdk->cupti_libdir, S("%s/lib64", b));
    ck_assert_str_eq(sdk->nvvm_root, S("%s/nvvm", b));
    ck_assert_ptr_null(sdk->nvvm_libdir); /* libnvvm sits in lib/ */
    ck_assert_ptr_null(sdk->nvvm_incdir);
    ck_assert_ptr_null(sdk->mandir);
    assert_list(&sdk->path, S("%s/bin", b), NULL);
    take_cccl(sdk);
    assert_list(&sdk->cpath, S("%s/include", b), NULL);
    assert_list(&sdk->ld_library_path, S("%s/lib64", b), NULL); /* lib64 -> lib: once */
    assert_list(&sdk->library_path, S("%s/lib64", b), NULL);
    assert_list(&sdk->manpath, NULL);
    assert_lib_names(sdk, "cudart cublas cufft curand cusolver cusparse nvrtc cupti nvjitlink nccl");
    assert_lib(sdk, "cublas", S("%s/lib64", b), "-lcublas -lcublasLt");
    assert_lib(sdk, "nvjitlink", S("%s/lib64", b), "-lnvJitLink");
    assert_lib(sdk, "cusparse", S("%s/lib64", b), "-lcusparse"); /* beside it: $ORIGIN finds it */
    assert_lib(sdk, "cupti", S("%s/lib64", b), "-lcupti");
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_standalone_layout)
{
    const char *b = S("%s/standalone/cuda-%s", fixtures(), g_mm);
    ctk_sdk_conf_t c;
    ctk_error_t e;
    ctk_sdk_t *sdk;

    conf_init(&c, S("%s.0", g_mm), b);
    sdk = load_ok(&c);
    ck_assert_int_eq(sdk->version.source, CTK_VSRC_VERSION_JSON);
    ck_assert_str_eq(sdk->version.path, S("%s/version.json", b));
    ck_assert_str_eq(sdk->version_full, S("%s.0", g_mm));
    ck_assert_str_eq(sdk->incdir, S("%s/include", b));
    ck_assert_str_eq(sdk->libdir, S("%s/lib64", b));
    ck_assert_str_eq(sdk->stubsdir, S("%s/lib64/stubs", b));
    ck_assert_str_eq(sdk->math_incdir, S("%s/include", b));
    ck_assert_str_eq(sdk->math_libdir, S("%s/lib64", b));
    ck_assert_str_eq(sdk->nvvm_root, S("%s/nvvm", b));
    ck_assert_str_eq(sdk->nvvm_libdir, S("%s/nvvm/lib64", b));
    ck_assert_str_eq(sdk->nvvm_incdir, S("%s/nvvm/include", b));
    ck_assert_str_eq(sdk->cupti_incdir, S("%s/extras/CUPTI/include", b));
    ck_assert_str_eq(sdk->cupti_libdir, S("%s/extras/CUPTI/lib64", b));
    assert_list(&sdk->path, S("%s/bin", b), NULL);
    take_cccl(sdk);
    assert_list(&sdk->cpath, S("%s/include", b), S("%s/extras/CUPTI/include", b),
                S("%s/nvvm/include", b), NULL);
    assert_list(&sdk->ld_library_path, S("%s/lib64", b), S("%s/extras/CUPTI/lib64", b),
                S("%s/nvvm/lib64", b), NULL);
    assert_list(&sdk->library_path, S("%s/lib64", b), S("%s/extras/CUPTI/lib64", b),
                S("%s/nvvm/lib64", b), NULL);
    assert_lib(sdk, "cudart", S("%s/lib64", b), "-lcudart");
    assert_lib(sdk, "cupti", S("%s/extras/CUPTI/lib64", b), "-lcupti");
    assert_lib(sdk, "cublas", S("%s/lib64", b), "-lcublas -lcublasLt");
    assert_sane(sdk);
    ctk_sdk_free(sdk);

    /* the toolkit knows its patch: a wrong one is refused */
    conf_init(&c, S("%s.7", g_mm), b);
    load_fails(&c, &e);
    ASSERT_ERR(e, CTK_E_VERSION, CTK_F_VERSION,
               S("/sdks/0/version: SDK declared %s.7 but the toolkit at %s is %s.0 (from %s/version.json)",
                 g_mm, b, g_mm, b));
}
END_TEST

START_TEST(test_sdk_versiontxt_layout)
{
    const char *b = S("%s/versiontxt/cuda-%s", fixtures(), g_mm);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, g_mm, b);
    sdk = load_ok(&c);
    ck_assert_int_eq(sdk->version.source, CTK_VSRC_VERSION_TXT);
    ck_assert_str_eq(sdk->version.path, S("%s/version.txt", b));
    ck_assert_str_eq(sdk->version_mm, g_mm);
    ck_assert_str_eq(sdk->version_full, S("%s.0", g_mm));
    ck_assert_str_eq(sdk->module_version, g_mm);
    assert_sane(sdk);
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_noversion_mismatch_names_header)
{
    const char *b = S("%s/noversion/cuda-%s", fixtures(), g_mm);
    ctk_sdk_conf_t c;
    ctk_error_t e;

    conf_init(&c, "9.2", b);
    load_fails(&c, &e);
    ck_assert_int_eq(e.code, CTK_E_VERSION);
    ck_assert_int_eq(e.line, 10 + CTK_F_VERSION);
    ck_assert_ptr_nonnull(strstr(e.text, S("/sdks/0/version: SDK declared 9.2 but the toolkit at %s is %s (from ",
                                           b, g_mm)));
    ck_assert_ptr_nonnull(strstr(e.text, "/cuda_runtime_api.h)"));
}
END_TEST

static const char *hpc_rel(void)
{
    return S("%s/hpcsdk/" HPC_ARCH "/25.9", fixtures());
}

START_TEST(test_sdk_hpcsdk_split_layout)
{
    const char *r = hpc_rel();
    const char *C = S("%s/cuda/%s", r, g_mm), *M = S("%s/math_libs/%s", r, g_mm),
               *N = S("%s/comm_libs/%s/nccl", r, g_mm);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, g_mm, C);
    c.math_libs = (char *)M;
    c.nccl = (char *)N;
    sdk = load_ok(&c);
    ck_assert_int_eq(sdk->version.source, CTK_VSRC_VERSION_JSON);
    ck_assert_str_eq(sdk->incdir, S("%s/include", C));
    ck_assert_str_eq(sdk->libdir, S("%s/lib64", C));
    ck_assert_str_eq(sdk->math_incdir, S("%s/include", M));
    ck_assert_str_eq(sdk->math_libdir, S("%s/lib64", M));
    ck_assert_str_eq(sdk->cupti_incdir, S("%s/extras/CUPTI/include", C));
    ck_assert_str_eq(sdk->cupti_libdir, S("%s/extras/CUPTI/lib64", C));
    ck_assert_str_eq(sdk->nvvm_libdir, S("%s/nvvm/lib64", C));
    ck_assert_str_eq(sdk->nvvm_incdir, S("%s/nvvm/include", C));
    ck_assert_str_eq(sdk->nccl_incdir, S("%s/include", N));
    ck_assert_str_eq(sdk->nccl_libdir, S("%s/lib", N));
    take_cccl(sdk);
    assert_list(&sdk->cpath, S("%s/include", C), S("%s/include", M), S("%s/extras/CUPTI/include", C),
                S("%s/nvvm/include", C), S("%s/include", N), NULL);
    assert_list(&sdk->ld_library_path, S("%s/lib64", C), S("%s/lib64", M),
                S("%s/extras/CUPTI/lib64", C), S("%s/nvvm/lib64", C), S("%s/lib", N), NULL);
    assert_list(&sdk->library_path, S("%s/lib64", C), S("%s/lib64", M),
                S("%s/extras/CUPTI/lib64", C), S("%s/nvvm/lib64", C), S("%s/lib", N), NULL);
    assert_list(&sdk->path, S("%s/bin", C), NULL);
    if (source_is_wheel())
        assert_lib_names(sdk,
                         "cudart cublas cufft curand cusolver cusparse nvrtc cupti nvjitlink nccl");
    assert_lib(sdk, "cudart", S("%s/lib64", C), "-lcudart");
    assert_lib(sdk, "cublas", S("%s/lib64", M), "-lcublas -lcublasLt");
    assert_lib(sdk, "cufft", S("%s/lib64", M), "-lcufft");
    assert_lib(sdk, "curand", S("%s/lib64", M), "-lcurand");
    /* libcusolver and libcusparse load libnvJitLink, which stays beside
       libcudart, out of reach of their own run path: linked directly */
    if (tu_sh("ls '%s/lib64'/libnvJitLink.so* >/dev/null 2>&1", C) == 0) {
        assert_lib(sdk, "cusolver", S("%s/lib64", M), "-lcusolver -lnvJitLink");
        assert_lib(sdk, "cusparse", S("%s/lib64", M), "-lcusparse -lnvJitLink");
    } else {
        assert_lib(sdk, "cusolver", S("%s/lib64", M), "-lcusolver");
        assert_lib(sdk, "cusparse", S("%s/lib64", M), "-lcusparse");
    }
    assert_lib(sdk, "cupti", S("%s/extras/CUPTI/lib64", C), "-lcupti");
    assert_lib(sdk, "nccl", S("%s/lib", N), "-lnccl");
    assert_sane(sdk);
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_sdk_hpcsdk_defaulted_math_libs_is_runtime_only)
{
    const char *C = S("%s/cuda/%s", hpc_rel(), g_mm);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, g_mm, C);
    sdk = load_ok(&c);
    ck_assert_ptr_null(sdk->math_incdir);
    ck_assert_ptr_null(sdk->math_libdir);
    ck_assert_ptr_null(find_lib(sdk, "cublas"));
    ck_assert_ptr_null(find_lib(sdk, "nccl"));
    ck_assert_ptr_null(sdk->nccl_incdir);
    ctk_sdk_free(sdk);
}
END_TEST

/* A program using cuBLAS and CUPTI builds against the split tree only with
 * the model's -I/-L lists.  The host compiler runs with its standard
 * include dirs but /usr/local/include (which may hold a toolkit's headers),
 * and the link is traced to show where each library came from. */
START_TEST(test_sdk_hpcsdk_flags_build_a_program)
{
    const char *r = hpc_rel();
    const char *C = S("%s/cuda/%s", r, g_mm), *M = S("%s/math_libs/%s", r, g_mm);
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;
    char *src, *trace, *text, *all_i, *all_l;
    const char *sysinc;
    size_t i;

    if (tu_sh("command -v cc >/dev/null 2>&1") != 0) {
        printf("SKIP: test_sdk_hpcsdk_flags_build_a_program: no cc\n");
        return;
    }
    conf_init(&c, g_mm, C);
    c.math_libs = (char *)M;
    sdk = load_ok(&c);
    src = wr("p.c", "#include <cuda_runtime.h>\n#include <cublas_v2.h>\n#include <cupti.h>\n"
                    "int main(void)\n{\n    cublasHandle_t h;\n    uint32_t v;\n"
                    "    cuptiGetVersion(&v);\n    return cublasCreate(&h) != CUBLAS_STATUS_SUCCESS;\n}\n");
    sysinc = "-nostdinc -isystem \"$(cc -print-file-name=include)\" "
             "-isystem \"/usr/include/$(cc -print-multiarch)\" -isystem /usr/include";
    all_i = S("%s", "");
    all_l = S("%s", "");
    for (i = 0; i < sdk->cpath.len; i++)
        all_i = S("%s -I'%s'", all_i, sdk->cpath.items[i]);
    for (i = 0; i < sdk->ld_library_path.len; i++)
        all_l = S("%s -L'%s'", all_l, sdk->ld_library_path.items[i]);

    /* base flags alone: cublas_v2.h is not found */
    ck_assert_int_ne(tu_sh("cd '%s' && cc %s -I'%s' -c p.c -o p.o 2>/dev/null", g_tmp, sysinc,
                           sdk->incdir),
                     0);
    /* base + math_libs: cupti.h is still missing */
    ck_assert_int_ne(tu_sh("cd '%s' && cc %s -I'%s' -I'%s' -c p.c -o p.o 2>/dev/null", g_tmp,
                           sysinc, sdk->incdir, sdk->math_incdir),
                     0);
    /* the model's CPATH: compiles */
    ck_assert_int_eq(tu_sh("cd '%s' && cc %s %s -c p.c -o p.o", g_tmp, sysinc, all_i), 0);
    /* the model's LIBRARY_PATH: links, each library from its own dir */
    trace = S("%s/trace", g_tmp);
    ck_assert_int_eq(tu_sh("cd '%s' && cc p.o -o p %s -lcublas -lcupti -lcudart -Wl,--trace >'%s' 2>&1",
                           g_tmp, all_l, trace),
                     0);
    text = keep(tu_read(trace));
    ck_assert_msg(strstr(text, S("%s/lib64/libcublas.so", M)) != NULL, "trace: %s", text);
    ck_assert_msg(strstr(text, S("%s/extras/CUPTI/lib64/libcupti.so", C)) != NULL, "trace: %s", text);
    ck_assert_msg(strstr(text, S("%s/lib64/libcudart.so", C)) != NULL, "trace: %s", text);
    (void)src;
    ctk_sdk_free(sdk);
}
END_TEST

/* nvcc of the rearranged trees still compiles and links (runfile profile) */
START_TEST(test_fixture_nvcc_works)
{
    const char *b = S("%s/standalone/cuda-%s", fixtures(), g_mm);

    wr("k.cu", "__global__ void k(int *p) { *p = 1; }\n"
               "int main() { int *d = 0; k<<<1, 1>>>(d); return 0; }\n");
    ck_assert_int_eq(tu_sh("cd '%s' && '%s/bin/nvcc' -o k k.cu >/dev/null 2>&1", g_tmp, b), 0);
}
END_TEST

/* ==== discovery ========================================================================= */

/* a fake HPC SDK release REL carrying CUDA XY (cudart, json version) */
static void fake_hpc(const char *top, const char *rel, const char *xy, const char *json,
                     int cudart, bool versioned_nccl)
{
    fake_toolkit(S("%s/" HPC_ARCH "/%s/cuda/%s", top, rel, xy), json, cudart);
    mkd(S("%s/" HPC_ARCH "/%s/cuda/bin", top, rel));
    fake_cublas(S("%s/" HPC_ARCH "/%s/math_libs/%s", top, rel, xy));
    if (versioned_nccl) {
        wr(S("%s/" HPC_ARCH "/%s/comm_libs/%s/nccl/include/nccl.h", top, rel, xy), "");
        wr(S("%s/" HPC_ARCH "/%s/comm_libs/%s/nccl/lib/libnccl.so.2", top, rel, xy), "");
    } else {
        wr(S("%s/" HPC_ARCH "/%s/comm_libs/nccl/include/nccl.h", top, rel), "");
        wr(S("%s/" HPC_ARCH "/%s/comm_libs/nccl/lib/libnccl.so.2", top, rel), "");
    }
}

static void make_scan_tree(void)
{
    fake_toolkit("local/cuda-12.4", "12.4.1", 12040);
    lnk("cuda-12.4", "local/cuda");
    fake_toolkit("local/cuda-13.0", NULL, 13000);
    mkd("local/cuda-11.0/bin"); /* no toolkit here */
    fake_hpc("hpc", "24.11", "12.6", "12.6.2", 12060, true);
    fake_hpc("hpc", "25.1", "12.6", "12.6.3", 12060, false);
}

static void check_scan_result(ctk_config_t *cfg, const ctk_strlist_t *notes)
{
    const char *h1 = S("%s/hpc/" HPC_ARCH "/24.11", g_tmp), *h2 = S("%s/hpc/" HPC_ARCH "/25.1", g_tmp);
    size_t i;

    ck_assert_str_eq(cfg->source, "<scan>");
    ck_assert_uint_eq(cfg->n_sdks, 4);
    ck_assert_str_eq(cfg->sdks[0].version, "12.4");
    ck_assert_str_eq(cfg->sdks[0].base, S("%s/local/cuda-12.4", g_tmp));
    ck_assert_ptr_null(cfg->sdks[0].module_version);
    ck_assert_ptr_null(cfg->sdks[0].math_libs);
    ck_assert_ptr_null(cfg->sdks[0].nccl);

    ck_assert_str_eq(cfg->sdks[1].version, "12.6");
    ck_assert_str_eq(cfg->sdks[1].base, S("%s/cuda/12.6", h1));
    ck_assert_str_eq(cfg->sdks[1].module_version, "12.6-nvhpc-24.11");
    ck_assert_str_eq(cfg->sdks[1].math_libs, S("%s/math_libs/12.6", h1));
    ck_assert_str_eq(cfg->sdks[1].nccl, S("%s/comm_libs/12.6/nccl", h1));
    ck_assert_ptr_null(cfg->sdks[1].nvshmem);

    ck_assert_str_eq(cfg->sdks[2].version, "12.6");
    ck_assert_str_eq(cfg->sdks[2].base, S("%s/cuda/12.6", h2));
    ck_assert_str_eq(cfg->sdks[2].module_version, "12.6-nvhpc-25.1");
    ck_assert_str_eq(cfg->sdks[2].math_libs, S("%s/math_libs/12.6", h2));
    ck_assert_str_eq(cfg->sdks[2].nccl, S("%s/comm_libs/nccl", h2));

    ck_assert_str_eq(cfg->sdks[3].version, "13.0");
    ck_assert_str_eq(cfg->sdks[3].base, S("%s/local/cuda-13.0", g_tmp));
    ck_assert_ptr_null(cfg->sdks[3].module_version);
    ck_assert_str_eq(generated_default(cfg), "13.0");

    ck_assert_msg(notes_have(notes, S("duplicate %s/local/cuda: same toolkit as %s/local/cuda-12.4",
                                      g_tmp, g_tmp)),
                  "notes: %s", notes->len ? notes->items[0] : "");
    ck_assert(notes_have(notes, S("found %s/local/cuda-13.0: CUDA 13.0 (CUDART_VERSION), standalone", g_tmp)));
    ck_assert(notes_have(notes, S("found %s/cuda/12.6: CUDA 12.6.2 (version.json), hpcsdk, as 12.6-nvhpc-24.11", h1)));

    /* what a scan writes loads as it is */
    for (i = 0; i < cfg->n_sdks; i++) {
        ctk_sdk_t *sdk = load_ok(&cfg->sdks[i]);

        ck_assert_str_eq(sdk->version_mm, cfg->sdks[i].version);
        if (cfg->sdks[i].math_libs)
            ck_assert_str_eq(sdk->math_libdir, S("%s/lib64", cfg->sdks[i].math_libs));
        if (cfg->sdks[i].nccl)
            ck_assert_str_eq(sdk->nccl_libdir, S("%s/lib", cfg->sdks[i].nccl));
        ctk_sdk_free(sdk);
    }
}

START_TEST(test_discover_patterns_dedup_and_names)
{
    const char *roots[3];
    ctk_strlist_t notes;
    ctk_error_t e;
    ctk_config_t *cfg;

    make_scan_tree();
    roots[0] = S("%s/local/cuda", g_tmp);
    roots[1] = S("%s/local/cuda-*", g_tmp);
    roots[2] = S("%s/hpc/Linux_*/*/cuda/*", g_tmp);
    ctk_strlist_init(&notes);
    ctk_error_init(&e);
    cfg = ctk_discover_standard(roots, 3, &notes, &e);
    ck_assert_msg(cfg != NULL, "%s", e.text);
    check_scan_result(cfg, &notes);
    ctk_config_free(cfg);
    ctk_strlist_fini(&notes);
}
END_TEST

START_TEST(test_discover_directory_roots)
{
    const char *roots[2];
    ctk_strlist_t notes;
    ctk_error_t e;
    ctk_config_t *cfg;

    make_scan_tree();
    roots[0] = S("%s/local", g_tmp);
    roots[1] = S("%s/hpc", g_tmp);
    ctk_strlist_init(&notes);
    ctk_error_init(&e);
    cfg = ctk_discover_standard(roots, 2, &notes, &e);
    ck_assert_msg(cfg != NULL, "%s", e.text);
    check_scan_result(cfg, &notes);
    ctk_config_free(cfg);
    ctk_strlist_fini(&notes);
}
END_TEST

START_TEST(test_discover_standalone_beats_hpc_for_plain_name)
{
    const char *roots[2];
    ctk_strlist_t notes;
    ctk_error_t e;
    ctk_config_t *cfg;

    fake_toolkit("local/cuda-12.6", "12.6.2", 12060);
    fake_toolkit("local/cuda-12.6-copy", "12.6.2", 12060);
    fake_hpc("hpc", "24.11", "12.6", "12.6.2", 12060, true);
    /* a toolkit that does not load is skipped, with the reason */
    fake_toolkit("local/cuda-12.8", NULL, 12080);
    unlink(S("%s/local/cuda-12.8/include/cuda_runtime.h", g_tmp));
    roots[0] = S("%s/local/cuda-*", g_tmp);
    roots[1] = S("%s/hpc", g_tmp);
    ctk_strlist_init(&notes);
    ctk_error_init(&e);
    cfg = ctk_discover_standard(roots, 2, &notes, &e);
    ck_assert_msg(cfg != NULL, "%s", e.text);
    ck_assert_uint_eq(cfg->n_sdks, 3);
    ck_assert_str_eq(cfg->sdks[0].base, S("%s/local/cuda-12.6", g_tmp));
    ck_assert_str_eq(cfg->sdks[0].module_version, "12.6-cuda-12.6");
    ck_assert_str_eq(cfg->sdks[1].base, S("%s/local/cuda-12.6-copy", g_tmp));
    ck_assert_str_eq(cfg->sdks[1].module_version, "12.6-cuda-12.6-copy");
    ck_assert_str_eq(cfg->sdks[2].module_version, "12.6-nvhpc-24.11");
    /* equal releases: a standalone toolkit is the default */
    ck_assert_str_eq(generated_default(cfg), "12.6-cuda-12.6");
    ck_assert(notes_have(&notes, S("broken %s/local/cuda-12.8: no cuda_runtime.h under %s/local/cuda-12.8 "
                                   "(looked in " LOOKED_INC ")",
                                   g_tmp, g_tmp)));
    ctk_config_free(cfg);
    ctk_strlist_fini(&notes);

    /* one standalone toolkit keeps the plain X.Y */
    tu_rmtree(S("%s/local/cuda-12.6-copy", g_tmp));
    ctk_strlist_init(&notes);
    cfg = ctk_discover_standard(roots, 2, &notes, &e);
    ck_assert_ptr_nonnull(cfg);
    ck_assert_uint_eq(cfg->n_sdks, 2);
    ck_assert_ptr_null(cfg->sdks[0].module_version);
    ck_assert_str_eq(cfg->sdks[1].module_version, "12.6-nvhpc-24.11");
    ck_assert_str_eq(generated_default(cfg), "12.6");
    ctk_config_free(cfg);
    ctk_strlist_fini(&notes);
}
END_TEST

/* an HPC SDK's unversioned cuda/ whose bin and include link into cuda/X.Y */
START_TEST(test_discover_hpc_unversioned_cuda_is_an_alias)
{
    const char *rel = S("%s/hpc/" HPC_ARCH "/24.11", g_tmp);
    const char *roots[1];
    ctk_strlist_t notes;
    ctk_error_t e;
    ctk_config_t *cfg;

    fake_hpc("hpc", "24.11", "12.6", "12.6.2", 12060, true);
    ck_assert_int_eq(rmdir(S("%s/cuda/bin", rel)), 0);
    lnk("12.6/bin", S("hpc/" HPC_ARCH "/24.11/cuda/bin"));
    lnk("12.6/include", S("hpc/" HPC_ARCH "/24.11/cuda/include"));
    lnk("12.6/lib64", S("hpc/" HPC_ARCH "/24.11/cuda/lib64"));
    roots[0] = rel;
    ctk_strlist_init(&notes);
    ctk_error_init(&e);
    cfg = ctk_discover_standard(roots, 1, &notes, &e);
    ck_assert_msg(cfg != NULL, "%s", e.text);
    ck_assert_uint_eq(cfg->n_sdks, 1);
    ck_assert_str_eq(cfg->sdks[0].base, S("%s/cuda/12.6", rel));
    ck_assert_ptr_null(cfg->sdks[0].module_version);
    ck_assert_str_eq(cfg->sdks[0].math_libs, S("%s/math_libs/12.6", rel));
    ck_assert_str_eq(generated_default(cfg), "12.6");
    ck_assert(notes_have(&notes, S("duplicate %s/cuda: same toolkit as %s/cuda/12.6", rel, rel)));
    ctk_config_free(cfg);
    ctk_strlist_fini(&notes);
}
END_TEST

START_TEST(test_discover_nothing_found)
{
    const char *roots[1];
    ctk_error_t e;
    ctk_config_t *cfg;

    mkd("empty");
    roots[0] = S("%s/empty/*", g_tmp);
    ctk_error_init(&e);
    cfg = ctk_discover_standard(roots, 1, NULL, &e);
    ck_assert_ptr_nonnull(cfg);
    ck_assert_uint_eq(cfg->n_sdks, 0);
    ck_assert_ptr_null(cfg->default_version);
    ctk_config_free(cfg);
}
END_TEST

START_TEST(test_discover_fixture_layouts)
{
    const char *roots[2];
    ctk_strlist_t notes;
    ctk_error_t e;
    ctk_config_t *cfg;
    const char *r = hpc_rel();
    size_t i;

    roots[0] = S("%s/standalone", fixtures());
    roots[1] = S("%s/hpcsdk", fixtures());
    ctk_strlist_init(&notes);
    ctk_error_init(&e);
    cfg = ctk_discover_standard(roots, 2, &notes, &e);
    ck_assert_msg(cfg != NULL, "%s", e.text);
    ck_assert_uint_eq(cfg->n_sdks, 2);
    ck_assert_str_eq(cfg->sdks[0].base, S("%s/standalone/cuda-%s", fixtures(), g_mm));
    ck_assert_str_eq(cfg->sdks[0].version, g_mm);
    ck_assert_ptr_null(cfg->sdks[0].module_version);
    ck_assert_str_eq(cfg->sdks[1].base, S("%s/cuda/%s", r, g_mm));
    ck_assert_str_eq(cfg->sdks[1].module_version, S("%s-nvhpc-25.9", g_mm));
    ck_assert_str_eq(cfg->sdks[1].math_libs, S("%s/math_libs/%s", r, g_mm));
    ck_assert_str_eq(cfg->sdks[1].nccl, S("%s/comm_libs/%s/nccl", r, g_mm));
    ck_assert_str_eq(generated_default(cfg), g_mm);
    for (i = 0; i < cfg->n_sdks; i++) {
        ctk_sdk_t *sdk = load_ok(&cfg->sdks[i]);

        ck_assert_ptr_nonnull(find_lib(sdk, "cublas"));
        ctk_sdk_free(sdk);
    }
    ctk_config_free(cfg);
    ctk_strlist_fini(&notes);
}
END_TEST

/* the built-in list on this machine: whatever is there, each toolkit once */
START_TEST(test_discover_standard_places)
{
    ctk_strlist_t notes;
    ctk_error_t e;
    ctk_config_t *cfg;
    size_t i, j;

    ctk_strlist_init(&notes);
    ctk_error_init(&e);
    cfg = ctk_discover_standard(NULL, 0, &notes, &e);
    ck_assert_msg(cfg != NULL, "%s", e.text);
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
        ck_assert_uint_ge(cfg->n_sdks, 1);
    for (i = 0; i < cfg->n_sdks; i++) {
        char *ri = realpath(cfg->sdks[i].base, NULL);

        ck_assert_ptr_nonnull(ri);
        ck_assert_msg(strcmp(cfg->sdks[i].base, "/usr/local/cuda") != 0 ||
                          strcmp(ri, "/usr/local/cuda") == 0,
                      "the /usr/local/cuda alias was kept");
        for (j = 0; j < i; j++) {
            char *rj = realpath(cfg->sdks[j].base, NULL);

            ck_assert_str_ne(ri, rj);
            free(rj);
        }
        free(ri);
    }
    ctk_config_free(cfg);
    ctk_strlist_fini(&notes);
}
END_TEST

/* ==== main =================================================================================== */

static TCase *tcase(const char *name)
{
    TCase *tc = tcase_create(name);

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    return tc;
}

static Suite *sdk_suite(bool have_cuda)
{
    Suite *s = suite_create("sdk");
    TCase *tc;

    tc = tcase("version");
    tcase_add_loop_test(tc, test_version_parse_table, 0, sizeof parse_cases / sizeof parse_cases[0]);
    tcase_add_test(tc, test_version_source_names);
    tcase_add_test(tc, test_version_json_date_version_has_no_patch);
    tcase_add_test(tc, test_version_json_beats_txt_and_header);
    tcase_add_test(tc, test_version_txt_beats_header);
    tcase_add_test(tc, test_version_malformed_json_falls_through);
    tcase_add_test(tc, test_version_header_gives_major_minor);
    tcase_add_test(tc, test_version_nvcc_is_last);
    tcase_add_test(tc, test_version_nvcc_child_outliving_stdout_is_waited_for);
    tcase_add_test(tc, test_version_nothing_answers);
    suite_add_tcase(s, tc);

    tc = tcase("errors");
    tcase_add_test(tc, test_sdk_error_missing_base);
    tcase_add_test(tc, test_sdk_error_no_cuda_runtime_h);
    tcase_add_test(tc, test_sdk_error_no_libcudart);
    tcase_add_test(tc, test_sdk_versioned_only_libraries_are_named);
    tcase_add_test(tc, test_sdk_unversioned_names_need_nothing);
    tcase_add_test(tc, test_sdk_parts_of_two_releases_fail);
    tcase_add_test(tc, test_sdk_banner_of_an_elf_nvcc_outside_rodata);
    tcase_add_test(tc, test_sdk_version_file_out_of_step_is_a_warning);
    tcase_add_test(tc, test_sdk_error_no_nvcc);
    tcase_add_test(tc, test_sdk_error_declared_version_mismatch);
    tcase_add_test(tc, test_sdk_declared_patch_accepted_when_toolkit_does_not_know);
    tcase_add_test(tc, test_sdk_version_from_nvcc_named_in_mismatch);
    tcase_add_test(tc, test_sdk_version_read_again_when_files_change);
    tcase_add_test(tc, test_sdk_error_math_libs_without_cublas);
    tcase_add_test(tc, test_sdk_error_bad_ccbin);
    tcase_add_test(tc, test_sdk_error_configured_roots_missing);
    tcase_add_test(tc, test_sdk_cccl_include_dir);
    tcase_add_test(tc, test_sdk_error_keeps_first_error);
    suite_add_tcase(s, tc);

    tc = tcase("decisions");
    tcase_add_test(tc, test_sdk_dedups_symlinked_dirs);
    tcase_add_test(tc, test_sdk_stubs_and_compat_never_listed);
    tcase_add_test(tc, test_sdk_system_dirs_recognised);
    tcase_add_test(tc, test_sdk_system_dir_kept_off_lists);
    tcase_add_test(tc, test_sdk_debian_multiarch_layout);
    tcase_add_test(tc, test_sdk_targets_only_layout);
    tcase_add_test(tc, test_sdk_comm_libs_and_module_version);
    tcase_add_test(tc, test_sdk_base_link_pinned_unless_follow_link);
    suite_add_tcase(s, tc);

    tc = tcase("discover");
    tcase_add_test(tc, test_discover_patterns_dedup_and_names);
    tcase_add_test(tc, test_discover_directory_roots);
    tcase_add_test(tc, test_discover_standalone_beats_hpc_for_plain_name);
    tcase_add_test(tc, test_discover_hpc_unversioned_cuda_is_an_alias);
    tcase_add_test(tc, test_discover_nothing_found);
    tcase_add_test(tc, test_discover_standard_places);
    suite_add_tcase(s, tc);

    if (!have_cuda)
        return s;
    tc = tcase("layouts");
    tcase_add_test(tc, test_sdk_real_toolkit);
    tcase_add_test(tc, test_sdk_wheel_layout);
    tcase_add_test(tc, test_sdk_standalone_layout);
    tcase_add_test(tc, test_sdk_versiontxt_layout);
    tcase_add_test(tc, test_sdk_noversion_mismatch_names_header);
    tcase_add_test(tc, test_sdk_hpcsdk_split_layout);
    tcase_add_test(tc, test_sdk_hpcsdk_defaulted_math_libs_is_runtime_only);
    tcase_add_test(tc, test_sdk_hpcsdk_flags_build_a_program);
    tcase_add_test(tc, test_fixture_nvcc_works);
    tcase_add_test(tc, test_discover_fixture_layouts);
    suite_add_tcase(s, tc);
    return s;
}

/* The real toolkit's X.Y, from its CUDART_VERSION. */
static bool read_real_mm(void)
{
    const char *root = tu_cuda_root();
    const char *incs[] = {"include", "targets/" TARGET "/include"};
    size_t i;

    for (i = 0; i < 2; i++) {
        char inc[4096];
        ctk_version_t v;

        snprintf(inc, sizeof inc, "%s/%s", root, incs[i]);
        if (ctk_version_detect(NULL, inc, NULL, &v, NULL)) {
            snprintf(g_mm, sizeof g_mm, "%d.%d", v.major, v.minor);
            return true;
        }
    }
    return false;
}

int main(void)
{
    bool have_cuda = tu_cuda_root() != NULL;
    int rc;

    if (have_cuda) {
        if (!read_real_mm()) {
            fprintf(stderr, "check_sdk: no CUDART_VERSION under %s\n", tu_cuda_root());
            return 1;
        }
        /* the fixtures are built by the first test that asks (tu_fixtures
         * asserts, so it may only run inside a test) */
    }
    rc = tu_run(sdk_suite(have_cuda));
    if (!have_cuda && rc == 0) {
        const char *ok = getenv("CTK_TEST_CUDA_SKIP_OK");

        if (!ok || strcmp(ok, "yes") != 0) {
            printf("FAIL: no CUDA toolkit: configure found none, so the layout tests did not run "
                   "(configure --with-cuda=DIR, or --without-cuda to skip them knowingly)\n");
            return 1;
        }
        printf("SKIP: no CUDA toolkit (configured --without-cuda): the toolkit-free tests passed, "
               "the layout tests did not run\n");
        return 77;
    }
    return rc;
}
