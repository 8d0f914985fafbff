/* check_pc.c - ctk_pc_resolve gives the pkgconf CLI's answer, split into arguments.
 * SPDX-License-Identifier: MIT
 *
 * Each case writes .pc files into a temp dir, resolves them in-process and
 * compares cflags, libs and versions with what the real pkgconf prints for
 * the same search path (run with an empty environment, --keep-system-cflags
 * and --keep-system-libs, see pc.h), after splitting that output the way sh
 * would.  Cases that matter most also state the expected arguments outright,
 * so the CLI and libpkgconf cannot be wrong together unnoticed.
 */
#include <ctkconf.h>

#include "pc.h"
#include "proc.h"
#include "quote.h"
#include "testutil.h"
#include "util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HPCSDK "tests/data/render/hpcsdk/expected/pkgconfig/"
#define CTK "ctk-11.6-nvhpc22.3"
#define CUBLAS "ctk-cublas-11.6-nvhpc22.3"
#define CUDART "ctk-cudart-11.6-nvhpc22.3"

/* ---- helpers ------------------------------------------------------------ */

/* Split CLI output into words as sh does for pkgconf's escaping: a
 * backslash takes the next byte literally, unescaped blanks separate. */
static void split_words(const char *s, ctk_strlist_t *out)
{
    ctk_buf_t w;
    bool in_word = false;

    ctk_buf_init(&w);
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            ctk_buf_append(&w, ++s, 1);
            in_word = true;
        } else if (*s == ' ' || *s == '\t' || *s == '\n') {
            if (in_word)
                ck_assert(ctk_strlist_take(out, ctk_buf_take(&w, NULL), NULL));
            in_word = false;
        } else {
            ctk_buf_append(&w, s, 1);
            in_word = true;
        }
    }
    if (in_word)
        ck_assert(ctk_strlist_take(out, ctk_buf_take(&w, NULL), NULL));
    ctk_buf_fini(&w);
}

static void split_lines(const char *s, ctk_strlist_t *out)
{
    const char *nl;

    for (; *s; s = *nl ? nl + 1 : nl) {
        nl = strchr(s, '\n');
        if (!nl)
            nl = s + strlen(s);
        if (nl > s)
            ck_assert(ctk_strlist_take(out, ctk_strndup(s, (size_t)(nl - s), NULL), NULL));
    }
}

/* Run the real CLI on search path `path` (colon-separated); stdout, caller
 * frees.  *status gets its exit status. */
static char *run_cli(const char *path, const char *opt, const char *package, int *status)
{
    const char *env_path = getenv("PATH");
    char *cmd = NULL, *buf = NULL;
    size_t len = 0, cap = 0, n;
    FILE *f;
    int rc;

    if (!env_path)
        env_path = "/usr/bin:/bin";
    ck_assert(!strchr(path, '\'') && !strchr(package, '\'') && !strchr(env_path, '\''));
    ck_assert(asprintf(&cmd,
                       "env -i PATH='%s' PKG_CONFIG_PATH='%s' PKG_CONFIG_LIBDIR=/nonexistent "
                       "pkgconf --keep-system-cflags --keep-system-libs %s '%s' 2>/dev/null",
                       env_path, path, opt, package) > 0);
    f = popen(cmd, "r");
    ck_assert_msg(f != NULL, "cannot run: %s", cmd);
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            buf = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(buf);
        }
        n = fread(buf + len, 1, cap - len, f);
        if (n == 0)
            break;
        len += n;
    }
    buf[len] = '\0';
    rc = pclose(f);
    *status = (rc != -1 && WIFEXITED(rc)) ? WEXITSTATUS(rc) : -1;
    free(cmd);
    return buf;
}

static char *list_text(const ctk_strlist_t *l)
{
    ctk_buf_t b;
    size_t i;

    ctk_buf_init(&b);
    for (i = 0; i < l->len; i++)
        ctk_buf_printf(&b, "%s[%s]", i ? " " : "", l->items[i]);
    return ctk_buf_take(&b, NULL);
}

static void assert_lists_eq(const ctk_strlist_t *got, const ctk_strlist_t *want, const char *what)
{
    char *g = list_text(got), *w = list_text(want);
    size_t i;
    bool same = got->len == want->len;

    for (i = 0; same && i < got->len; i++)
        same = strcmp(got->items[i], want->items[i]) == 0;
    ck_assert_msg(same, "%s differs:\n  ctk_pc: %s\n  pkgconf: %s", what, g, w);
    free(g);
    free(w);
}

static void assert_args(const ctk_strlist_t *got, const char *const *want, size_t n, const char *what)
{
    ctk_strlist_t w;
    size_t i;

    ctk_strlist_init(&w);
    for (i = 0; i < n; i++)
        ck_assert(ctk_strlist_push(&w, want[i], NULL));
    assert_lists_eq(got, &w, what);
    ctk_strlist_fini(&w);
}

/* The CLI succeeds and prints, for --cflags, --libs and --modversion,
 * exactly what r holds. */
static void assert_matches_cli(const char *path, const char *package, const ctk_pc_result_t *r)
{
    static const char *const opts[] = {"--cflags", "--libs", "--modversion"};
    const ctk_strlist_t *mine[] = {&r->cflags, &r->libs, &r->versions};
    size_t i;

    for (i = 0; i < 3; i++) {
        ctk_strlist_t cli;
        int status;
        char *out = run_cli(path, opts[i], package, &status);
        char *what = NULL;

        ck_assert_msg(status == 0, "pkgconf %s '%s' failed (%d)", opts[i], package, status);
        ctk_strlist_init(&cli);
        if (i == 2)
            split_lines(out, &cli);
        else
            split_words(out, &cli);
        ck_assert(asprintf(&what, "%s of '%s'", opts[i], package) > 0);
        assert_lists_eq(mine[i], &cli, what);
        free(what);
        ctk_strlist_fini(&cli);
        free(out);
    }
}

static void assert_cli_fails(const char *path, const char *package)
{
    int status;
    char *out = run_cli(path, "--cflags --libs", package, &status);

    ck_assert_msg(status != 0, "pkgconf unexpectedly resolved '%s': %s", package, out);
    free(out);
}

static bool resolve1(const char *dir, const char *package, ctk_pc_result_t *r, ctk_error_t *err)
{
    const char *dirs[] = {dir};
    return ctk_pc_resolve(dirs, 1, package, r, err);
}

static void assert_empty(const ctk_pc_result_t *r)
{
    ck_assert_ptr_null(r->version);
    ck_assert_uint_eq(r->versions.len, 0);
    ck_assert_uint_eq(r->cflags.len, 0);
    ck_assert_uint_eq(r->libs.len, 0);
}

static void copy_hpcsdk(const char *dir)
{
    static const char *const files[] = {CTK ".pc", CUBLAS ".pc", CUDART ".pc"};
    size_t i;

    for (i = 0; i < 3; i++) {
        char *src = tu_srcpath(HPCSDK), *from, *text;

        ck_assert(asprintf(&from, "%s%s", src, files[i]) > 0);
        text = tu_read(from);
        ck_assert_msg(text != NULL, "cannot read %s", from);
        free(tu_write(dir, files[i], text));
        free(text);
        free(from);
        free(src);
    }
}

/* ---- ctkgen's own .pc files ---------------------------------------------- */

static const char *const golden_packages[] = {
    CTK,
    CUBLAS,
    CUDART,
    CUBLAS " " CUDART, /* two packages sharing a Requires: dedup */
    CUDART " >= 11.6",
    CUBLAS ", " CTK,
};
#define N_GOLDEN (sizeof golden_packages / sizeof golden_packages[0])

START_TEST(test_pc_matches_cli_for_golden_pc_files)
{
    const char *package = golden_packages[_i];
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    copy_hpcsdk(dir);
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(resolve1(dir, package, &r, &err), "%s: %s", err.source, err.text);
    ck_assert_str_eq(r.version, "11.6.2");
    assert_matches_cli(dir, package, &r);
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pc_resolves_toolkit_pc_into_arguments)
{
    static const char *const cflags[] = {"-I/opt/cuda-13.0/include", "-I/opt/math/include"};
    static const char *const libs[] = {"-L/opt/cuda-13.0/lib64", "-L/opt/math/lib64", "-lcudart",
                                       "-Xlinker", "-rpath=/opt/cuda-13.0/lib64:/opt/math/lib64"};
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(dir, "ctk-13.0.pc",
                  "# generated by ctkgen; do not edit\n"
                  "cudaroot=/opt/cuda-13.0\n"
                  "includedir=${cudaroot}/include\n"
                  "math_includedir=/opt/math/include\n"
                  "libdir=${cudaroot}/lib64\n"
                  "math_libdir=/opt/math/lib64\n"
                  "\n"
                  "Name: ctk\n"
                  "Description: NVIDIA CUDA Toolkit 13.0.1\n"
                  "Version: 13.0.1\n"
                  "Cflags: -I${includedir} -I${math_includedir}\n"
                  "Libs: -L${libdir} -L${math_libdir} -lcudart -Xlinker -rpath=${libdir}:${math_libdir}\n"));
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(resolve1(dir, "ctk-13.0", &r, &err), "%s", err.text);
    ck_assert_str_eq(r.version, "13.0.1");
    ck_assert_uint_eq(r.versions.len, 1);
    assert_args(&r.cflags, cflags, 2, "cflags");
    assert_args(&r.libs, libs, 5, "libs");
    assert_matches_cli(dir, "ctk-13.0", &r);

    /* resolving again into the same result replaces it (valgrind: no leak) */
    ck_assert(resolve1(dir, "ctk-13.0", &r, &err));
    assert_args(&r.libs, libs, 5, "libs");
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pc_matches_cli_for_requires)
{
    static const char *const libs[] = {"-lcublas", "-lcublasLt", "-L/opt/cuda/lib64", "-lcudart"};
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(dir, "ctk-13.0.pc",
                  "libdir=/opt/cuda/lib64\n"
                  "Name: ctk\nDescription: d\nVersion: 13.0.1\n"
                  "Cflags: -I/opt/cuda/include\nLibs: -L${libdir} -lcudart\n"));
    free(tu_write(dir, "ctk-cublas-13.0.pc",
                  "Name: ctk-cublas-13.0\nDescription: cuBLAS\nVersion: 13.0.1\n"
                  "Requires: ctk-13.0 = 13.0.1\nLibs: -lcublas -lcublasLt\n"));
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(resolve1(dir, "ctk-cublas-13.0", &r, &err), "%s", err.text);
    ck_assert_uint_eq(r.cflags.len, 1);
    ck_assert_str_eq(r.cflags.items[0], "-I/opt/cuda/include");
    assert_args(&r.libs, libs, 4, "libs");
    assert_matches_cli(dir, "ctk-cublas-13.0", &r);
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* --cflags walks Requires.private, --libs does not (no --static). */
START_TEST(test_pc_follows_requires_private_for_cflags_only)
{
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(dir, "inner.pc", "Name: inner\nDescription: d\nVersion: 1\n"
                                   "Cflags: -I/opt/inner/include\nLibs: -linner\n"));
    free(tu_write(dir, "outer.pc", "Name: outer\nDescription: d\nVersion: 2\n"
                                   "Requires.private: inner\n"
                                   "Cflags: -isystem /opt/outer/include -DOUTER\nLibs: -louter\n"));
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(resolve1(dir, "outer", &r, &err), "%s", err.text);
    ck_assert(ctk_strlist_contains(&r.cflags, "-I/opt/inner/include"));
    ck_assert(ctk_strlist_contains(&r.cflags, "-isystem"));
    ck_assert(ctk_strlist_contains(&r.cflags, "/opt/outer/include"));
    ck_assert(!ctk_strlist_contains(&r.libs, "-linner"));
    ck_assert(ctk_strlist_contains(&r.libs, "-louter"));
    assert_matches_cli(dir, "outer", &r);
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- hostile paths --------------------------------------------------------- */

static const char *const hostile[] = {
    "/opt/with space/cuda",
    "/opt/quote\"d/cuda",
    "/opt/single'q/cuda",
    "/opt/hash#not-a-comment",
    "/opt/back\\slash",
    "/opt/dollar$HOME/cuda",
    "/opt/sub$(touch /tmp/ctkgen-pwned)/cuda",
    "/opt/semi;colon&amp|pipe<>",
    "/opt/glob*?[x]{a,b}",
    "/opt/unicod\xc3\xa9/\xe6\x97\xa5",
};
#define N_HOSTILE (sizeof hostile / sizeof hostile[0])

START_TEST(test_pc_matches_cli_for_escaped_paths)
{
    const char *path = hostile[_i];
    char *dir = tu_mkdtemp(), *q, *text = NULL, *inc = NULL, *lib = NULL, *rpath = NULL;
    ctk_pc_result_t r;
    ctk_error_t err;

    ctk_error_init(&err);
    q = ctk_quote_pc(path, "test", &err);
    ck_assert_msg(q != NULL, "%s", err.text);
    ck_assert(asprintf(&text,
                       "cudaroot=%s\nincludedir=${cudaroot}/include\nlibdir=${cudaroot}/lib64\n"
                       "Name: ctk\nDescription: d\nVersion: 13.0.1\n"
                       "Cflags: -I${includedir}\n"
                       "Libs: -L${libdir} -lcudart -Xlinker -rpath=${libdir}\n", q) > 0);
    free(tu_write(dir, "ctk.pc", text));
    ck_assert(asprintf(&inc, "-I%s/include", path) > 0);
    ck_assert(asprintf(&lib, "-L%s/lib64", path) > 0);
    ck_assert(asprintf(&rpath, "-rpath=%s/lib64", path) > 0);
    {
        const char *libs[] = {lib, "-lcudart", "-Xlinker", rpath};

        ctk_pc_result_init(&r);
        ck_assert_msg(resolve1(dir, "ctk", &r, &err), "%s", err.text);
        assert_args(&r.cflags, (const char *const *)&inc, 1, "cflags");
        assert_args(&r.libs, libs, 4, "libs");
        assert_matches_cli(dir, "ctk", &r);
        ctk_pc_result_fini(&r);
    }
    free(rpath);
    free(lib);
    free(inc);
    free(text);
    free(q);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pc_tolerates_whitespace_like_cli)
{
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(dir, "ws.pc", "prefix=/opt/ws   \n"
                                "  Name: ws\nDescription: d\nVersion: 1.2\n"
                                "Cflags:   -I${prefix}/include   \n"));
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(resolve1(dir, "ws", &r, &err), "%s", err.text);
    assert_matches_cli(dir, "ws", &r);
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- search path and environment ---------------------------------------- */

START_TEST(test_pc_searches_dirs_in_order)
{
    char *a = tu_mkdtemp(), *b = tu_mkdtemp(), *path = NULL;
    const char *dirs[2];
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(a, "ctk.pc", "Name: ctk\nDescription: a\nVersion: 1.0\nCflags: -I/a\n"));
    free(tu_write(b, "ctk.pc", "Name: ctk\nDescription: b\nVersion: 2.0\nCflags: -I/b\n"));
    free(tu_write(b, "only-b.pc", "Name: only-b\nDescription: b\nVersion: 3\nRequires: ctk\n"));
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    dirs[0] = b;
    dirs[1] = a;
    ck_assert(ctk_pc_resolve(dirs, 2, "ctk", &r, &err));
    ck_assert_str_eq(r.version, "2.0");
    dirs[0] = a;
    dirs[1] = b;
    ck_assert(ctk_pc_resolve(dirs, 2, "only-b", &r, &err));
    ck_assert_str_eq(r.version, "3");
    ck_assert_uint_eq(r.cflags.len, 1);
    ck_assert_str_eq(r.cflags.items[0], "-I/a");
    ck_assert(asprintf(&path, "%s:%s", a, b) > 0);
    assert_matches_cli(path, "only-b", &r);
    ctk_pc_result_fini(&r);
    free(path);
    tu_rmtree(a);
    tu_rmtree(b);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_pc_ignores_environment_and_keeps_system_dirs)
{
    static const char *const cflags[] = {"-I/usr/include", "-I/opt/ctk/include"};
    static const char *const libs[] = {"-L/usr/lib", "-L/usr/lib64", "-lcudart"};
    static const char *const vars[] = {"PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR",
                                       "PKG_CONFIG_SYSTEM_INCLUDE_PATH", "PKG_CONFIG_SYSTEM_LIBRARY_PATH",
                                       "CPATH", "C_INCLUDE_PATH", "LIBRARY_PATH",
                                       "PKG_CONFIG_MAXIMUM_TRAVERSE_DEPTH"};
    char *dir = tu_mkdtemp(), *other = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;
    size_t i;

    free(tu_write(dir, "ctk.pc", "Name: ctk\nDescription: d\nVersion: 1.0\n"
                                 "Cflags: -I/usr/include -I/opt/ctk/include\n"
                                 "Libs: -L/usr/lib -L/usr/lib64 -lcudart\n"));
    free(tu_write(other, "ctk.pc", "Name: ctk\nDescription: other\nVersion: 9.9\nCflags: -I/other\n"));
    free(tu_write(other, "only-in-env.pc", "Name: e\nDescription: e\nVersion: 1\n"));
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        setenv(vars[i], strstr(vars[i], "PKG_CONFIG_P") || strstr(vars[i], "LIBDIR") ? other
                        : strstr(vars[i], "SYSROOT") ? "/sysroot"
                        : strstr(vars[i], "DEPTH") ? "1"
                        : strstr(vars[i], "LIB") ? "/usr/lib:/usr/lib64" : "/usr/include:/opt/ctk/include",
               1);

    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(resolve1(dir, "ctk", &r, &err), "%s", err.text);
    ck_assert_str_eq(r.version, "1.0");
    assert_args(&r.cflags, cflags, 2, "cflags");
    assert_args(&r.libs, libs, 3, "libs");
    assert_matches_cli(dir, "ctk", &r); /* the CLI runs under env -i */

    ck_assert(!resolve1(dir, "only-in-env", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    assert_empty(&r);

    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    tu_rmtree(other);
    free(dir);
    free(other);
}
END_TEST

/* ---- errors ---------------------------------------------------------------- */

START_TEST(test_pc_reports_missing_package_with_dirs)
{
    char *dir = tu_mkdtemp();
    const char *dirs[2] = {dir, "/nonexistent/pc-dir"};
    ctk_pc_result_t r;
    ctk_error_t err;

    copy_hpcsdk(dir);
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert(!ctk_pc_resolve(dirs, 2, "ctk-99.9", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, "");
    ck_assert_int_eq(err.line, 0);
    ck_assert_msg(strstr(err.text, "'ctk-99.9'") && strstr(err.text, dir) &&
                      strstr(err.text, "/nonexistent/pc-dir") && strstr(err.text, "not found"),
                  "%s", err.text);
    ck_assert(!strstr(err.text, "virtual:world"));
    assert_empty(&r);
    assert_cli_fails(dir, "ctk-99.9");

    /* err may be NULL; one missing package among found ones still fails */
    ck_assert(!ctk_pc_resolve(dirs, 2, CTK " ctk-99.9", &r, NULL));
    assert_empty(&r);
    ctk_error_init(&err);
    ck_assert(!ctk_pc_resolve(NULL, 0, CTK, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_ptr_nonnull(strstr(err.text, "empty search path"));
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pc_reports_missing_requires_with_requiring_file)
{
    char *dir = tu_mkdtemp(), *cublas;
    ctk_pc_result_t r;
    ctk_error_t err;

    copy_hpcsdk(dir);
    ck_assert(asprintf(&cublas, "%s/" CTK ".pc", dir) > 0);
    ck_assert_int_eq(unlink(cublas), 0);
    free(cublas);
    ck_assert(asprintf(&cublas, "%s/" CUBLAS ".pc", dir) > 0);

    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert(!resolve1(dir, CUBLAS, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, cublas);
    ck_assert_msg(strstr(err.text, "'" CTK "'") && strstr(err.text, "required by '" CUBLAS "'") &&
                      strstr(err.text, dir),
                  "%s", err.text);
    assert_empty(&r);
    assert_cli_fails(dir, CUBLAS);
    ctk_pc_result_fini(&r);
    free(cublas);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pc_reports_unsatisfied_requires_version)
{
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(dir, "ctk-13.0.pc", "Name: ctk\nDescription: d\nVersion: 13.0.0\n"));
    free(tu_write(dir, "ctk-cublas-13.0.pc", "Name: c\nDescription: d\nVersion: 13.0.1\n"
                                             "Requires: ctk-13.0 = 13.0.1\nLibs: -lcublas\n"));
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert(!resolve1(dir, "ctk-cublas-13.0", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_VERSION);
    ck_assert_msg(strstr(err.text, "ctk-13.0 = 13.0.1") && strstr(err.text, "13.0.0"), "%s", err.text);
    assert_empty(&r);
    assert_cli_fails(dir, "ctk-cublas-13.0");
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

static const struct {
    const char *text;
    int line;
    const char *says;
} malformed[] = {
    {"Name: x\nDescription: d\nCflags: -I/x\n", 0, "`Version'"},
    {"Description: d\nVersion: 1\n", 0, "`Name'"},
    {"Name: x\nDescription: d\nVersion: 1\nCflags: -I\"/opt/unterminated\n", 4, "'Cflags'"},
    {"Name: x\nDescription: d\nVersion: 1\nLibs: -L'/x -lfoo\n", 4, "'Libs'"},
    {"Name: x\nDescription: d\nVersion: 1.0 beta\n", 3, "version"},
};
#define N_MALFORMED (sizeof malformed / sizeof malformed[0])

START_TEST(test_pc_rejects_malformed_pc_with_path_and_line)
{
    char *dir = tu_mkdtemp(), *path = tu_write(dir, "bad.pc", malformed[_i].text);
    ctk_pc_result_t r;
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert(!resolve1(dir, "bad", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_str_eq(err.source, path);
    ck_assert_int_eq(err.line, malformed[_i].line);
    ck_assert_msg(strstr(err.text, malformed[_i].says) != NULL, "%s", err.text);
    ck_assert(!strstr(err.text, "warning:"));
    assert_empty(&r);
    ctk_pc_result_fini(&r);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A broken file is named as such, not as "not found", also when it is only
 * required; a broken file that is never read changes nothing. */
START_TEST(test_pc_reports_broken_required_pc_not_missing)
{
    char *dir = tu_mkdtemp(), *bad = tu_write(dir, "inner.pc", "Name: inner\nDescription: d\n");
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(dir, "outer.pc", "Name: outer\nDescription: d\nVersion: 1\nRequires: inner\n"));
    free(tu_write(dir, "fine.pc", "Name: fine\nDescription: d\nVersion: 2\nLibs: -lfine\n"));
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert(!resolve1(dir, "outer", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_str_eq(err.source, bad);
    ck_assert_ptr_nonnull(strstr(err.text, "`Version'"));

    ctk_error_init(&err);
    ck_assert_msg(resolve1(dir, "fine", &r, &err), "%s", err.text);
    assert_matches_cli(dir, "fine", &r);

    /* a missing package is "not found" even though the Provides scan read inner.pc */
    ctk_error_init(&err);
    ck_assert(!resolve1(dir, "absent", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_ptr_nonnull(strstr(err.text, "'absent'"));
    ctk_pc_result_fini(&r);
    free(bad);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_pc_rejects_empty_package_list)
{
    static const char *const empty[] = {"", "  ", " , "};
    const char *dirs[] = {"/nonexistent"};
    ctk_pc_result_t r;
    ctk_error_t err;
    size_t i;

    ctk_pc_result_init(&r);
    for (i = 0; i < 3; i++) {
        ctk_error_init(&err);
        ck_assert(!ctk_pc_resolve(dirs, 1, empty[i], &r, &err));
        ck_assert_int_eq(err.code, CTK_E_USAGE);
    }
    ctk_error_init(&err);
    ck_assert(!ctk_pc_resolve(dirs, 1, NULL, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_USAGE);
    assert_empty(&r);
    ctk_pc_result_fini(&r);
}
END_TEST

START_TEST(test_pc_result_fini_accepts_null_and_repeats)
{
    ctk_pc_result_t r;

    ctk_pc_result_init(NULL);
    ctk_pc_result_fini(NULL);
    ctk_pc_result_init(&r);
    ck_assert(ctk_strlist_push(&r.cflags, "-I/x", NULL));
    ctk_pc_result_fini(&r);
    assert_empty(&r);
    ctk_pc_result_fini(&r);
}
END_TEST

/* ---- bounds, cycles and files that are not files --------------------------------- */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* c0 .. c<n>: each requires the next, `times` times over, in one
 * Requires line; each has a Cflags and a Libs word of its own. */
static void write_chain(const char *dir, int n, int times)
{
    for (int i = 0; i <= n; i++) {
        ctk_buf_t b;
        char name[32];

        ctk_buf_init(&b);
        ctk_buf_printf(&b, "Name: c%d\nDescription: d\nVersion: 1\nCflags: -I/inc/c%d\nLibs: -lc%d\n", i, i, i);
        if (i < n) {
            ctk_buf_puts(&b, "Requires:");
            for (int k = 0; k < times; k++)
                ctk_buf_printf(&b, "%s c%d", k ? "," : "", i + 1);
            ctk_buf_puts(&b, "\n");
        }
        snprintf(name, sizeof name, "c%d.pc", i);
        free(tu_write(dir, name, b.data));
        ctk_buf_fini(&b);
    }
}

/* resolve `package` in dir with lim, expecting a stop of kind `stop` with
 * code `code`, its text holding `says`, within `seconds` */
static void assert_stops(const char *dir, const char *package, const ctk_pc_limits_t *lim, ctk_pc_stop_t stop,
                         ctk_errcode_t code, const char *says, double seconds)
{
    const char *dirs[] = {dir};
    ctk_pc_result_t r;
    ctk_error_t err;
    double t0 = now_s(), took;

    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(!ctk_pc_resolve_limited(dirs, 1, package, lim, &r, &err), "'%s' resolved", package);
    took = now_s() - t0;
    ck_assert_msg(r.stop == stop, "'%s': stop %d, not %d: %s", package, (int)r.stop, (int)stop, err.text);
    ck_assert_msg(err.code == code, "'%s': code %d, not %d: %s", package, (int)err.code, (int)code, err.text);
    ck_assert_msg(strstr(err.text, says) != NULL, "'%s': no \"%s\" in: %s", package, says, err.text);
    ck_assert_msg(took < seconds, "'%s' took %.2f s", package, took);
    assert_empty(&r);
    ctk_pc_result_fini(&r);
}

/* n=30 is 2^31 visits for libpkgconf (hours); counted, it is refused at once */
START_TEST(test_pc_diamond_is_refused_in_linear_time)
{
    char *dir = tu_mkdtemp();

    write_chain(dir, 30, 2);
    assert_stops(dir, "c0", NULL, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "2147483648 visits", 2.0);
    /* the same through a path, as lint names it */
    {
        char *path = tu_str("%s/c0.pc", dir);

        assert_stops(dir, path, NULL, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "visits", 2.0);
        tu_free_kept();
    }
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* a small diamond is within the bounds, and resolves as the CLI does */
START_TEST(test_pc_small_diamond_matches_cli)
{
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    write_chain(dir, 6, 2);
    ctk_error_init(&err);
    ctk_pc_result_init(&r);
    ck_assert_msg(resolve1(dir, "c0", &r, &err), "%s", err.text);
    ck_assert_uint_eq(r.cflags.len, 7);
    assert_matches_cli(dir, "c0", &r);
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* More packages than fit at first (the graph grows while it is walked),
 * and a Provides scan over them all */
START_TEST(test_pc_large_graph_matches_cli)
{
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    write_chain(dir, 40, 1);
    free(tu_write(dir, "x.pc", "Name: x\nDescription: d\n"));
    free(tu_write(dir, "y.pc", "Name: y\nDescription: d\nVersion: 1\nRequires: c0, x\n"));
    free(tu_write(dir, "z.pc", "Name: z\nDescription: d\nVersion: 1\nRequires: c0, absent\n"));
    ctk_pc_result_init(&r);
    ctk_error_init(&err);
    ck_assert_msg(resolve1(dir, "c0", &r, &err), "%s", err.text);
    ck_assert_uint_eq(r.cflags.len, 41);
    assert_matches_cli(dir, "c0", &r);
    ctk_error_init(&err);
    ck_assert(!resolve1(dir, "y", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_msg(strstr(err.source, "/x.pc") != NULL, "%s: %s", err.source, err.text);
    assert_cli_fails(dir, "y");
    ctk_error_init(&err);
    ck_assert(!resolve1(dir, "z", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_ptr_nonnull(strstr(err.text, "'absent', required by 'z'"));
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* each bound, just past it and just within it */
START_TEST(test_pc_bounds_stop_resolution)
{
    char *dir = tu_mkdtemp();
    const char *dirs[] = {dir};
    ctk_pc_limits_t lim;
    ctk_pc_result_t r;
    ctk_error_t err;

    ctk_pc_result_init(&r);
    write_chain(dir, 9, 1); /* c9 is 9 below c0 */
    memset(&lim, 0, sizeof lim);
    lim.depth = 8;
    assert_stops(dir, "c0", &lim, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "nested more than 8 deep", 2.0);
    lim.depth = 9;
    ctk_error_init(&err);
    ck_assert_msg(ctk_pc_resolve_limited(dirs, 1, "c0", &lim, &r, &err), "%s", err.text);
    assert_matches_cli(dir, "c0", &r);

    memset(&lim, 0, sizeof lim);
    lim.packages = 5;
    assert_stops(dir, "c0", &lim, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "more than 5 .pc files", 2.0);
    lim.packages = 10;
    ctk_error_init(&err);
    ck_assert_msg(ctk_pc_resolve_limited(dirs, 1, "c0", &lim, &r, &err), "%s", err.text);

    memset(&lim, 0, sizeof lim);
    lim.words = 9;
    assert_stops(dir, "c0", &lim, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "Cflags come to more than 9 words", 2.0);
    lim.words = 10;
    ctk_error_init(&err);
    ck_assert_msg(ctk_pc_resolve_limited(dirs, 1, "c0", &lim, &r, &err), "%s", err.text);

    /* c0..c10 twice over: 2^11 - 1 visits and the world's */
    tu_rmtree(dir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    write_chain(dir, 10, 2);
    memset(&lim, 0, sizeof lim);
    lim.visits = 2047;
    assert_stops(dir, "c0", &lim, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "2048 visits (at most 2047)", 2.0);
    lim.visits = 2048;
    ctk_error_init(&err);
    ck_assert_msg(ctk_pc_resolve_limited(dirs, 1, "c0", &lim, &r, &err), "%s", err.text);
    assert_matches_cli(dir, "c0", &r);

    /* the clock: n=18 is 2^19 visits, past 50 ms anywhere; stopped soon after */
    tu_rmtree(dir);
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    write_chain(dir, 18, 2);
    memset(&lim, 0, sizeof lim);
    lim.visits = 1UL << 40;
    lim.ms = 50;
    assert_stops(dir, "c0", &lim, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "longer than 50 ms", 3.0);
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* 200 000 Requires entries: libpkgconf's parser alone takes minutes on
 * them.  Over 64 KiB the file is not read; allowed to be read, its
 * entries are counted before the parse and refused; and a variable that
 * holds thousands of entries, used in a few Requires lines of a small
 * file, is counted as it expands. */
START_TEST(test_pc_many_requires_are_refused_before_the_parse)
{
    char *dir = tu_mkdtemp(), *big;
    ctk_pc_limits_t lim;
    ctk_buf_t b;

    free(tu_write(dir, "leaf.pc", "Name: leaf\nDescription: d\nVersion: 1\nCflags: -I/leaf\n"));
    ctk_buf_init(&b);
    ctk_buf_puts(&b, "Name: many\nDescription: d\nVersion: 1\n");
    for (int i = 0; i < 200000; i++)
        ctk_buf_puts(&b, "Requires: leaf\n");
    big = tu_write(dir, "many.pc", b.data);
    ctk_buf_fini(&b);
    assert_stops(dir, "many", NULL, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "larger than 65536 bytes", 2.0);
    memset(&lim, 0, sizeof lim);
    lim.file_bytes = (size_t)8 << 20;
    assert_stops(dir, "many", &lim, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "more than 4096 entries", 5.0);

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "Name: amp\nDescription: d\nVersion: 1\nx=");
    for (int i = 0; i < 12000; i++)
        ctk_buf_puts(&b, "leaf ");
    ctk_buf_puts(&b, "\n");
    for (int i = 0; i < 8; i++)
        ctk_buf_puts(&b, "Requires: ${x}\n");
    ck_assert_uint_lt(b.len, 65536);
    free(tu_write(dir, "amp.pc", b.data));
    ctk_buf_fini(&b);
    assert_stops(dir, "amp", NULL, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "more than 4096 entries", 2.0);

    /* variables that double each other: 64 KiB each, counted as they grow */
    ctk_buf_init(&b);
    ctk_buf_puts(&b, "Name: bomb\nDescription: d\nVersion: 1\na=");
    for (int i = 0; i < 20000; i++)
        ctk_buf_puts(&b, "x");
    ctk_buf_puts(&b, "\n");
    for (int i = 0; i < 2000; i++)
        ctk_buf_printf(&b, "b%d=${a}${a}\n", i);
    free(tu_write(dir, "bomb.pc", b.data));
    ctk_buf_fini(&b);
    assert_stops(dir, "bomb", NULL, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, "expand to more than", 2.0);
    free(big);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Requires that lead back: refused with the way around named, and the
 * packages read are all freed (libpkgconf itself leaks a cycle: the
 * sanitized build checks this test for leaks) */
static const struct {
    const char *a, *b, *c, *says;
} cycles[] = {
    {"Requires: b\n", "Requires: a\n", NULL, "a -> b -> a"},
    {"Requires: a\n", "", NULL, "a -> a"},
    {"Requires: b\n", "Requires: c\n", "Requires.private: a\n", "a -> b -> c -> a"},
    {"Requires: b, c\n", "Requires: c\n", "Requires: b >= 1\n", "b -> c -> b"},
};
#define N_CYCLES (sizeof cycles / sizeof cycles[0])

START_TEST(test_pc_cycle_is_refused_and_freed)
{
    char *dir = tu_mkdtemp(), *text;

    text = tu_str("Name: a\nDescription: d\nVersion: 1\nCflags: -I/a\n%s", cycles[_i].a);
    free(tu_write(dir, "a.pc", text));
    text = tu_str("Name: b\nDescription: d\nVersion: 1\nCflags: -I/b\n%s", cycles[_i].b);
    free(tu_write(dir, "b.pc", text));
    text = tu_str("Name: c\nDescription: d\nVersion: 1\nCflags: -I/c\n%s", cycles[_i].c ? cycles[_i].c : "");
    free(tu_write(dir, "c.pc", text));
    assert_stops(dir, "a", NULL, CTK_PC_STOP_CYCLE, CTK_E_LIMIT, cycles[_i].says, 2.0);
    tu_free_kept();
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A FIFO (no writer: an open for reading would wait for ever), a device
 * and a file of /proc, where a Requires leads, are refused unopened and
 * named; a FIFO that a Provides scan passes is nobody's answer. */
START_TEST(test_pc_reads_only_regular_files)
{
    char *dir = tu_mkdtemp(), *fifo = tu_str("%s/fifo.pc", dir), *proc = tu_str("%s/proc.pc", dir),
         *dev = tu_str("%s/dev.pc", dir);
    ctk_pc_result_t r;
    ctk_error_t err;

    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert_int_eq(symlink("/proc/self/status", proc), 0);
    ck_assert_int_eq(symlink("/dev/zero", dev), 0);
    free(tu_write(dir, "a.pc", "Name: a\nDescription: d\nVersion: 1\nRequires: fifo\n"));
    free(tu_write(dir, "b.pc", "Name: b\nDescription: d\nVersion: 1\nRequires: proc\n"));
    free(tu_write(dir, "c.pc", "Name: c\nDescription: d\nVersion: 1\nRequires: dev\n"));
    free(tu_write(dir, "d.pc", "Name: d\nDescription: d\nVersion: 1\nRequires: absent\n"));
    assert_stops(dir, "a", NULL, CTK_PC_STOP_NOT_REGULAR, CTK_E_IO, "fifo.pc is a FIFO, not a regular file", 2.0);
    assert_stops(dir, fifo, NULL, CTK_PC_STOP_NOT_REGULAR, CTK_E_IO, "a FIFO", 2.0);
    assert_stops(dir, "b", NULL, CTK_PC_STOP_NOT_REGULAR, CTK_E_IO, "kernel file system", 2.0);
    assert_stops(dir, "c", NULL, CTK_PC_STOP_NOT_REGULAR, CTK_E_IO, "a character device", 2.0);
    assert_stops(dir, "d", NULL, CTK_PC_STOP_NONE, CTK_E_IO, "'absent', required by 'd', not found", 2.0);
    ck_assert_str_eq(ctk_pc_stop_finding(CTK_PC_STOP_NOT_REGULAR), "CTK-READ-001");
    ck_assert_str_eq(ctk_pc_stop_finding(CTK_PC_STOP_LIMIT), "CTK-PC-005");
    ck_assert_str_eq(ctk_pc_stop_finding(CTK_PC_STOP_CYCLE), "CTK-PC-006");
    ck_assert_str_eq(ctk_pc_stop_finding(CTK_PC_STOP_NONE), "CTK-MOD-001");
    /* the source is the file refused */
    {
        const char *dirs[] = {dir};

        ctk_error_init(&err);
        ctk_pc_result_init(&r);
        ck_assert(!ctk_pc_resolve(dirs, 1, "a", &r, &err));
        ck_assert_str_eq(err.source, fifo);
        ctk_pc_result_fini(&r);
    }
    tu_free_kept();
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* What pc.c does in libpkgconf's place (the lookup order, Provides,
 * Conflicts, -uninstalled.pc, Requires.internal, the builtins) gives
 * what the CLI gives. */
START_TEST(test_pc_lookup_matches_cli)
{
    char *dir = tu_mkdtemp();
    ctk_pc_result_t r;
    ctk_error_t err;

    free(tu_write(dir, "user.pc", "Name: user\nDescription: d\nVersion: 1\nRequires: virt >= 1.5\n"
                                  "Cflags: -I/user\n"));
    free(tu_write(dir, "impl.pc", "Name: impl\nDescription: d\nVersion: 3\nProvides: virt = 2\n"
                                  "Cflags: -I/impl\nLibs: -limpl\n"));
    free(tu_write(dir, "u.pc", "Name: u\nDescription: d\nVersion: 1\nCflags: -I/installed\n"));
    free(tu_write(dir, "u-uninstalled.pc", "Name: u\nDescription: d\nVersion: 1\nCflags: -I/uninstalled\n"));
    free(tu_write(dir, "int.pc", "Name: int\nDescription: d\nVersion: 1\nRequires.internal: u\n"
                                 "Requires.private: impl\nCflags: -I/int\n"));
    free(tu_write(dir, "x.pc", "Name: x\nDescription: d\nVersion: 1\nRequires: y\nConflicts: y >= 2\n"));
    free(tu_write(dir, "y.pc", "Name: y\nDescription: d\nVersion: 2\n"));
    free(tu_write(dir, "z.pc", "Name: z\nDescription: d\nVersion: 1\nRequires: y\nConflicts: y < 2\n"
                               "Libs: -lz\n"));
    free(tu_write(dir, "b.pc", "Name: b\nDescription: d\nVersion: 1\nRequires: pkg-config, y\n"));
    ctk_pc_result_init(&r);
    for (const char *const *p = (const char *const[]){"user", "u", "int", "z", "b", "pkg-config", "user u z", NULL};
         *p; p++) {
        ctk_error_init(&err);
        ck_assert_msg(resolve1(dir, *p, &r, &err), "%s: %s", *p, err.text);
        assert_matches_cli(dir, *p, &r);
    }
    ck_assert(ctk_strlist_contains(&r.cflags, "-I/uninstalled"));
    ctk_error_init(&err);
    ck_assert(!resolve1(dir, "x", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_VERSION);
    ck_assert_msg(strstr(err.text, "conflicts with 'x'") && strstr(err.text, "y >= 2"), "%s", err.text);
    assert_cli_fails(dir, "x");
    free(tu_write(dir, "user2.pc", "Name: user2\nDescription: d\nVersion: 1\nRequires: virt >= 5\n"));
    ctk_error_init(&err);
    ck_assert(!resolve1(dir, "user2", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    assert_cli_fails(dir, "user2");
    ctk_pc_result_fini(&r);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* SIGINT (caught as proc.c catches it) stops a resolution at once */
START_TEST(test_pc_interrupt_stops_resolution)
{
    char *dir = tu_mkdtemp();

    write_chain(dir, 3, 1);
    ck_assert(ctk_proc_catch_interrupts(NULL));
    ck_assert_int_eq(raise(SIGINT), 0);
    ck_assert_int_eq(ctk_proc_interrupted(), SIGINT);
    assert_stops(dir, "c0", NULL, CTK_PC_STOP_INTERRUPTED, CTK_E_ENV, "interrupted by SIGINT", 2.0);
    ctk_proc_release_interrupts();
    tu_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pc");
    TCase *tc = tcase_create("pc");

    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_pc_matches_cli_for_golden_pc_files, 0, N_GOLDEN);
    tcase_add_test(tc, test_pc_resolves_toolkit_pc_into_arguments);
    tcase_add_test(tc, test_pc_matches_cli_for_requires);
    tcase_add_test(tc, test_pc_follows_requires_private_for_cflags_only);
    tcase_add_loop_test(tc, test_pc_matches_cli_for_escaped_paths, 0, N_HOSTILE);
    tcase_add_test(tc, test_pc_tolerates_whitespace_like_cli);
    tcase_add_test(tc, test_pc_searches_dirs_in_order);
    tcase_add_test(tc, test_pc_ignores_environment_and_keeps_system_dirs);
    tcase_add_test(tc, test_pc_reports_missing_package_with_dirs);
    tcase_add_test(tc, test_pc_reports_missing_requires_with_requiring_file);
    tcase_add_test(tc, test_pc_reports_unsatisfied_requires_version);
    tcase_add_loop_test(tc, test_pc_rejects_malformed_pc_with_path_and_line, 0, N_MALFORMED);
    tcase_add_test(tc, test_pc_reports_broken_required_pc_not_missing);
    tcase_add_test(tc, test_pc_rejects_empty_package_list);
    tcase_add_test(tc, test_pc_result_fini_accepts_null_and_repeats);
    tcase_add_test(tc, test_pc_diamond_is_refused_in_linear_time);
    tcase_add_test(tc, test_pc_small_diamond_matches_cli);
    tcase_add_test(tc, test_pc_large_graph_matches_cli);
    tcase_add_test(tc, test_pc_bounds_stop_resolution);
    tcase_add_test(tc, test_pc_many_requires_are_refused_before_the_parse);
    tcase_add_loop_test(tc, test_pc_cycle_is_refused_and_freed, 0, N_CYCLES);
    tcase_add_test(tc, test_pc_reads_only_regular_files);
    tcase_add_test(tc, test_pc_lookup_matches_cli);
    tcase_add_test(tc, test_pc_interrupt_stops_resolution);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
