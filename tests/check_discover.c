/* check_discover.c - unit tests for the scanner's C API (discover.c).
 * SPDX-License-Identifier: MIT
 *
 * Tiny fake toolkits in a temp dir (bin/nvcc a script, the runtime headers
 * with CUDART_VERSION, an empty libcudart.so.N): enough for ctk_sdk_load,
 * and every layout marker the scanner looks at.  The real-toolkit layouts
 * are covered by tests/scan.sh.
 */
#include <ctkconf.h>

#include "discover.h"
#include "render.h"
#include "sdk.h"
#include "testutil.h"

#include <check.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *g_tmp;

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

static void wr(const char *rel, const char *text)
{
    free(tu_write(g_tmp, rel, text));
}

static void mkd(const char *rel)
{
    free(tu_mkdirs(g_tmp, rel));
}

static void lnk(const char *target, const char *rel)
{
    ck_assert_msg(symlink(target, S("%s/%s", g_tmp, rel)) == 0, "symlink %s", rel);
}

/* runtime headers with CUDART_VERSION cudart in g_tmp/inc */
static void fake_headers(const char *inc, int cudart)
{
    wr(S("%s/cuda_runtime.h", inc), "#include \"cuda_runtime_api.h\"\n");
    wr(S("%s/cuda_runtime_api.h", inc), S("#define CUDART_VERSION %d\n", cudart));
}

/* g_tmp/rel: bin/nvcc, include/, lib64/libcudart.so.N */
static void fake_toolkit(const char *rel, int cudart)
{
    wr(S("%s/bin/nvcc", rel), "#!/bin/sh\nexit 1\n");
    ck_assert_int_eq(chmod(S("%s/%s/bin/nvcc", g_tmp, rel), 0755), 0);
    fake_headers(S("%s/include", rel), cudart);
    wr(S("%s/lib64/libcudart.so.%d", rel, cudart / 1000), "");
}

static ctk_scan_t *scan1(const char *root, int depth)
{
    ctk_scan_opts_t o;
    ctk_error_t e;
    ctk_scan_t *r;
    const char *roots[1];

    roots[0] = root;
    o.max_depth = depth;
    ctk_error_init(&e);
    r = ctk_scan(roots, 1, &o, &e);
    ck_assert_msg(r != NULL, "%s", e.text);
    ck_assert_ptr_nonnull(r->cfg);
    return r;
}

/* the one event of kind for path; fails when there is not exactly one */
static const ctk_scan_event_t *ev(const ctk_scan_t *r, ctk_scan_event_kind_t kind, const char *path)
{
    const ctk_scan_event_t *hit = NULL;
    size_t i, n = 0;

    for (i = 0; i < r->n_events; i++) {
        if (r->events[i].kind == kind && strcmp(r->events[i].path, path) == 0) {
            hit = &r->events[i];
            n++;
        }
    }
    ck_assert_msg(n == 1, "%zu %s events for %s", n, ctk_scan_event_name(kind), path);
    return hit;
}

static size_t count(const ctk_scan_t *r, ctk_scan_event_kind_t kind)
{
    size_t i, n = 0;

    for (i = 0; i < r->n_events; i++)
        n += r->events[i].kind == kind;
    return n;
}

/* ---- names ----------------------------------------------------------------------- */

START_TEST(test_scan_names_of_layouts_and_events)
{
    ck_assert_str_eq(ctk_layout_name(CTK_LAYOUT_STANDALONE), "standalone");
    ck_assert_str_eq(ctk_layout_name(CTK_LAYOUT_HPCSDK), "hpcsdk");
    ck_assert_str_eq(ctk_layout_name(CTK_LAYOUT_CONDA), "conda");
    ck_assert_str_eq(ctk_layout_name(CTK_LAYOUT_WHEEL), "wheel");
    ck_assert_str_eq(ctk_layout_name(CTK_LAYOUT_DEBIAN), "debian");
    ck_assert_str_eq(ctk_layout_name(CTK_LAYOUT_SPACK), "spack");
    ck_assert_str_eq(ctk_scan_event_name(CTK_SCAN_RUNTIME_ONLY), "runtime-only");
    ck_assert(ctk_scan_event_is_problem(CTK_SCAN_LOOP));
    ck_assert(ctk_scan_event_is_problem(CTK_SCAN_DANGLING));
    ck_assert(ctk_scan_event_is_problem(CTK_SCAN_UNREADABLE));
    ck_assert(ctk_scan_event_is_problem(CTK_SCAN_BROKEN));
    ck_assert(!ctk_scan_event_is_problem(CTK_SCAN_DUPLICATE));
    ck_assert(!ctk_scan_event_is_problem(CTK_SCAN_RUNTIME_ONLY));
    ck_assert(!ctk_scan_event_is_problem(CTK_SCAN_DEPTH));
}
END_TEST

/* ---- the walk -------------------------------------------------------------------------- */

START_TEST(test_scan_duplicate_link_reported_once_under_real_name)
{
    ctk_scan_t *r;
    const ctk_scan_event_t *e;

    fake_toolkit("t/cuda-12.4", 12040);
    lnk("cuda-12.4", "t/cuda");
    r = scan1(S("%s/t", g_tmp), -1);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ck_assert_str_eq(r->cfg->sdks[0].base, S("%s/t/cuda-12.4", g_tmp));
    ck_assert_str_eq(r->cfg->sdks[0].version, "12.4");
    ck_assert_ptr_null(r->cfg->sdks[0].module_version);
    ck_assert_ptr_null(r->cfg->default_version);
    e = ev(r, CTK_SCAN_DUPLICATE, S("%s/t/cuda", g_tmp));
    ck_assert_str_eq(e->other, S("%s/t/cuda-12.4", g_tmp));
    e = ev(r, CTK_SCAN_FOUND, S("%s/t/cuda-12.4", g_tmp));
    ck_assert_uint_eq(e->sdk, 0);
    ck_assert_int_eq(e->version.major, 12);
    ck_assert_int_eq(e->version.minor, 4);
    ck_assert_int_eq(e->version.source, CTK_VSRC_HEADER);
    ck_assert_int_eq(r->sdks[0].layout, CTK_LAYOUT_STANDALONE);
    ck_assert_int_eq(r->sdks[0].version.source, CTK_VSRC_HEADER);
    /* t and the toolkit; the link leads to a directory already walked */
    ck_assert_uint_eq(r->dirs_visited, 2);
    ck_assert_uint_eq(r->n_problems, 0);
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_loops_dangling_links_terminate)
{
    ctk_scan_t *r;
    const ctk_scan_event_t *e;
    const char *top = S("%s/p", g_tmp);

    mkd("p/loop/a");
    lnk("..", "p/loop/a/b");
    lnk("../../..", "p/loop/a/up");   /* to g_tmp: outside the root, walked once */
    lnk("nowhere", "p/dangling");
    lnk("selfloop", "p/selfloop");
    fake_toolkit("p/cuda-13.0", 13000);
    r = scan1(top, -1);
    e = ev(r, CTK_SCAN_LOOP, S("%s/loop/a/b", top));
    ck_assert_str_eq(e->other, S("%s/loop", top));
    e = ev(r, CTK_SCAN_LOOP, S("%s/selfloop", top));
    ck_assert_ptr_null(e->other);
    e = ev(r, CTK_SCAN_DANGLING, S("%s/dangling", top));
    ck_assert_str_eq(e->other, "nowhere");
    ck_assert_str_eq(e->text, S("dangling %s/dangling -> nowhere", top));
    /* g_tmp is reached through "up" and holds p, which is on the stack */
    ev(r, CTK_SCAN_LOOP, S("%s/loop/a/up/p", top));
    ck_assert_uint_eq(count(r, CTK_SCAN_LOOP), 3);
    ck_assert_uint_eq(r->n_problems, 4);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ctk_scan_free(r);
}
END_TEST

/* The scan's part of test_scan_unreadable_dir_is_an_event: 0 when right. */
static int scan_unreadable(const char *top)
{
    ctk_scan_t *r = NULL;
    ctk_scan_opts_t o;
    ctk_error_t err;
    const char *locked = S("%s/locked", top);
    int bad = 1;
    size_t i;

    o.max_depth = -1;
    ctk_error_init(&err);
    if (!(r = ctk_scan(&top, 1, &o, &err)))
        return 2;
    for (i = 0; i < r->n_events; i++)
        if (r->events[i].kind == CTK_SCAN_UNREADABLE && strcmp(r->events[i].path, locked) == 0)
            bad = 0;
    if (r->n_problems != 1 || r->cfg->n_sdks != 1)
        bad = 1;
    ctk_scan_free(r);
    return bad;
}

START_TEST(test_scan_unreadable_dir_is_an_event)
{
    const char *top = S("%s/u", g_tmp);
    int status = 0, rc;
    pid_t pid;

    fake_toolkit("u/locked/cuda-12.4", 12040);
    fake_toolkit("u/cuda-13.0", 13000);
    ck_assert_int_eq(chmod(S("%s/locked", top), 0), 0);
    if (geteuid() != 0) {
        rc = scan_unreadable(top);
    } else {
        /* root reads a mode-000 dir: scan as uid 65534 in a child */
        ck_assert_int_eq(chmod(g_tmp, 0711), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
                setresuid(65534, 65534, 65534) != 0)
                _exit(3);
            _exit(scan_unreadable(top));
        }
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFEXITED(status));
        rc = WEXITSTATUS(status);
    }
    ck_assert_int_eq(chmod(S("%s/locked", top), 0755), 0);
    ck_assert_msg(rc == 0, "scan of %s: status %d (1: event or counts wrong, 2: scan failed, "
                           "3: could not drop privileges)", top, rc);
}
END_TEST

START_TEST(test_scan_missing_root_is_an_event)
{
    ctk_scan_t *r = scan1(S("%s/nothing-here", g_tmp), -1);
    const ctk_scan_event_t *e = ev(r, CTK_SCAN_UNREADABLE, S("%s/nothing-here", g_tmp));

    ck_assert_str_eq(e->text, S("unreadable %s/nothing-here: No such file or directory", g_tmp));
    ck_assert_uint_eq(r->cfg->n_sdks, 0);
    ck_assert_ptr_null(r->cfg->default_version);
    ck_assert_uint_eq(r->dirs_visited, 0);
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_max_depth)
{
    ctk_scan_t *r;
    const ctk_scan_event_t *e;

    fake_toolkit("d/a/b/cuda-12.4", 12040);
    r = scan1(S("%s/d", g_tmp), 2);
    ck_assert_uint_eq(r->cfg->n_sdks, 0);
    e = ev(r, CTK_SCAN_DEPTH, S("%s/d/a/b", g_tmp));
    ck_assert_str_eq(e->text, S("depth %s/d/a/b: 1 entry below not looked at (depth limit 2 reached)", g_tmp));
    ck_assert_uint_eq(r->n_problems, 0);
    ck_assert_uint_eq(r->dirs_visited, 3);
    ctk_scan_free(r);
    r = scan1(S("%s/d", g_tmp), 3);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ck_assert_uint_eq(count(r, CTK_SCAN_DEPTH), 0);
    ctk_scan_free(r);
    /* depth 0: the root itself */
    r = scan1(S("%s/d/a/b/cuda-12.4", g_tmp), 0);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_never_enters_a_toolkit_or_dot_dirs)
{
    ctk_scan_t *r;

    fake_toolkit("n/cuda-12.4", 12040);
    fake_toolkit("n/cuda-12.4/nested/cuda-11.8", 11080); /* inside a toolkit: not looked at */
    fake_toolkit("n/.hidden/cuda-12.6", 12060);
    r = scan1(S("%s/n", g_tmp), -1);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ck_assert_str_eq(r->cfg->sdks[0].version, "12.4");
    ck_assert_uint_eq(r->dirs_visited, 2);
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_broken_toolkit_skipped_with_reason)
{
    ctk_scan_t *r;
    const ctk_scan_event_t *e;

    fake_toolkit("b/cuda-12.4", 12040);
    ck_assert_int_eq(unlink(S("%s/b/cuda-12.4/lib64/libcudart.so.12", g_tmp)), 0);
    r = scan1(S("%s/b", g_tmp), -1);
    ck_assert_uint_eq(r->cfg->n_sdks, 0);
    e = ev(r, CTK_SCAN_BROKEN, S("%s/b/cuda-12.4", g_tmp));
    ck_assert_msg(strstr(e->text, "no libcudart.so* under") != NULL, "%s", e->text);
    ck_assert_uint_eq(r->n_problems, 1);
    ctk_scan_free(r);
}
END_TEST

/* ---- layouts ------------------------------------------------------------------------------ */

START_TEST(test_scan_recognises_each_layout_and_names_them_apart)
{
    ctk_scan_t *r;
    size_t i;
    const char *deb = S("%s/l/debian/usr", g_tmp);
    const char *sp = S("%s/l/spack/gcc-12.2.0/cuda-12.4.1-abcdefghijk", g_tmp);
    const char *wh = S("%s/l/venv/lib/python3.11/site-packages/nvidia/cu12", g_tmp);
    const struct {
        const char *base;
        ctk_layout_t layout;
        const char *name;
    } want[] = {
        {S("%s/l/cuda-12.4", g_tmp), CTK_LAYOUT_STANDALONE, NULL},
        {sp, CTK_LAYOUT_SPACK, "12.4-spack-abcdefg"},
        {deb, CTK_LAYOUT_DEBIAN, "12.4-debian"},
        {S("%s/l/conda/envs/myenv", g_tmp), CTK_LAYOUT_CONDA, "12.4-conda-myenv"},
        {wh, CTK_LAYOUT_WHEEL, "12.4-wheel-venv"},
        {S("%s/l/hpc/25.1/cuda/12.4", g_tmp), CTK_LAYOUT_HPCSDK, "12.4-nvhpc-25.1"},
    };

    fake_toolkit("l/cuda-12.4", 12040);
    fake_toolkit("l/spack/gcc-12.2.0/cuda-12.4.1-abcdefghijk", 12040);
    wr("l/spack/gcc-12.2.0/cuda-12.4.1-abcdefghijk/.spack/spec.json", "{}\n");
    fake_toolkit("l/debian/usr", 12040);
    wr("l/debian/usr/lib/nvidia-cuda-toolkit/bin/nvcc", "#!/bin/sh\n");
    ck_assert_int_eq(chmod(S("%s/lib/nvidia-cuda-toolkit/bin/nvcc", deb), 0755), 0);
    fake_toolkit("l/conda/envs/myenv", 12040);
    mkd("l/conda/envs/myenv/conda-meta");
    fake_toolkit("l/venv/lib/python3.11/site-packages/nvidia/cu12", 12040);
    fake_toolkit("l/hpc/25.1/cuda/12.4", 12040);
    wr("l/hpc/25.1/math_libs/12.4/include/cublas_v2.h", "");
    wr("l/hpc/25.1/math_libs/12.4/lib64/libcublas.so.12", "");
    wr("l/hpc/25.1/comm_libs/nccl/include/nccl.h", "");
    wr("l/hpc/25.1/comm_libs/nccl/lib/libnccl.so.2", "");
    r = scan1(S("%s/l", g_tmp), -1);
    ck_assert_uint_eq(r->cfg->n_sdks, sizeof want / sizeof want[0]);
    for (i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_str_eq(r->cfg->sdks[i].base, want[i].base);
        ck_assert_int_eq(r->sdks[i].layout, want[i].layout);
        if (want[i].name)
            ck_assert_str_eq(r->cfg->sdks[i].module_version, want[i].name);
        else
            ck_assert_ptr_null(r->cfg->sdks[i].module_version);
    }
    ck_assert_str_eq(r->sdks[5].release, "25.1");
    ck_assert_ptr_null(r->sdks[0].release);
    ck_assert_str_eq(r->cfg->sdks[5].math_libs, S("%s/l/hpc/25.1/math_libs/12.4", g_tmp));
    ck_assert_str_eq(r->cfg->sdks[5].nccl, S("%s/l/hpc/25.1/comm_libs/nccl", g_tmp));
    ck_assert_ptr_null(r->cfg->default_version);
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_cu12_component_wheels_are_runtime_only)
{
    ctk_scan_t *r;
    const ctk_scan_event_t *e;
    const char *nv = S("%s/w/site-packages/nvidia", g_tmp);

    fake_headers("w/site-packages/nvidia/cuda_runtime/include", 12040);
    wr("w/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", "");
    wr("w/site-packages/nvidia/cuda_nvcc/bin/ptxas", "");
    r = scan1(S("%s/w", g_tmp), -1);
    ck_assert_uint_eq(r->cfg->n_sdks, 0);
    e = ev(r, CTK_SCAN_RUNTIME_ONLY, nv);
    ck_assert_int_eq(e->version.major, 12);
    ck_assert_int_eq(e->version.minor, 4);
    ck_assert_int_eq(e->version.source, CTK_VSRC_HEADER);
    ck_assert_uint_eq(r->n_runtime_only, 1);
    ck_assert_uint_eq(r->n_problems, 0);
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_hpc_compilers_dir_left_alone)
{
    ctk_scan_t *r;

    fake_toolkit("h/25.1/cuda/12.4", 12040);
    wr("h/25.1/compilers/bin/nvcc", "#!/bin/sh\n");
    ck_assert_int_eq(chmod(S("%s/h/25.1/compilers/bin/nvcc", g_tmp), 0755), 0);
    r = scan1(S("%s/h", g_tmp), -1);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ck_assert_uint_eq(r->n_problems, 0);
    ck_assert_uint_eq(r->n_events, 1); /* the one FOUND */
    ctk_scan_free(r);
}
END_TEST

/* A scanned config names no default, so that deleting an SDK from it never
 * leaves a "default" naming nothing.  generate's rule (the highest version,
 * the first of equals) then picks from the scan's order what a person
 * would: among equal versions the standalone toolkit, then the newest HPC
 * SDK release. */
static const struct {
    const char *trees[4];   /* under g_tmp/t, CUDA 12.4 unless the name says 12.6 */
    const char *first;      /* the config's first SDK's module version */
    const char *chosen;     /* what generate makes the default */
} default_cases[] = {
    { { "hpc/25.1/cuda/12.4", "hpc/25.9/cuda/12.4" }, "12.4-nvhpc-25.9", "12.4-nvhpc-25.9" },
    { { "hpc/25.9/cuda/12.4", "hpc/25.1/cuda/12.4", "hpc/24.11/cuda/12.4" }, "12.4-nvhpc-25.9",
      "12.4-nvhpc-25.9" },
    { { "hpc/25.9/cuda/12.4", "cuda-12.4" }, "12.4", "12.4" },
    { { "hpc/25.1/cuda/12.4", "hpc/25.9/cuda/12.4", "hpc/25.1/cuda/12.6" }, "12.4-nvhpc-25.9",
      "12.6" },
};

START_TEST(test_scan_writes_no_default_and_generate_picks_the_newest)
{
    ctk_sdk_t *sdks[4] = { NULL };
    ctk_error_t e;
    ctk_scan_t *r;
    const char *mv;
    size_t i;

    for (i = 0; i < 4 && default_cases[_i].trees[i]; i++) {
        const char *t = default_cases[_i].trees[i];

        fake_toolkit(S("t/%s", t), strstr(t, "12.6") ? 12060 : 12040);
    }
    r = scan1(S("%s/t", g_tmp), -1);
    ck_assert_uint_eq(r->cfg->n_sdks, i);
    ck_assert_ptr_null(r->cfg->default_version);
    mv = r->cfg->sdks[0].module_version ? r->cfg->sdks[0].module_version : r->cfg->sdks[0].version;
    ck_assert_str_eq(mv, default_cases[_i].first);
    ctk_error_init(&e);
    for (i = 0; i < r->cfg->n_sdks; i++) {
        sdks[i] = ctk_sdk_load(&r->cfg->sdks[i], "<scan>", &e);
        ck_assert_msg(sdks[i] != NULL, "%s", e.text);
    }
    ck_assert_str_eq(ctk_render_default(r->cfg, sdks, r->cfg->n_sdks), default_cases[_i].chosen);
    for (i = 0; i < r->cfg->n_sdks; i++)
        ctk_sdk_free(sdks[i]);
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_relative_root_gives_absolute_bases)
{
    char cwd[4096];
    ctk_scan_t *r;

    fake_toolkit("rel/cuda-12.4", 12040);
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(g_tmp), 0);
    r = scan1("./rel/", -1);
    ck_assert_int_eq(chdir(cwd), 0);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ck_assert_str_eq(r->cfg->sdks[0].base, S("%s/rel/cuda-12.4", g_tmp));
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_take_config_and_summary)
{
    ctk_scan_t *r;
    ctk_config_t *cfg;
    ctk_error_t e;
    char *s;

    fake_toolkit("s/cuda-12.4", 12040);
    fake_toolkit("s/cuda-13.0", 13000);
    lnk("nowhere", "s/dangling");
    r = scan1(S("%s/s", g_tmp), -1);
    ctk_error_init(&e);
    s = ctk_scan_summary(r, 0.25, &e);
    ck_assert_str_eq(s, "2 toolkits, 0 runtime-only trees, 1 problem; 3 directories in 0.25 s");
    free(s);
    cfg = ctk_scan_take_config(r);
    ck_assert_ptr_nonnull(cfg);
    ck_assert_ptr_null(r->cfg);
    ck_assert_ptr_null(r->sdks);
    ck_assert_str_eq(cfg->source, "<scan>");
    ck_assert_ptr_null(cfg->default_version);
    s = ctk_scan_summary(r, 0.25, &e); /* still counts what was found */
    ck_assert_str_eq(s, "2 toolkits, 0 runtime-only trees, 1 problem; 3 directories in 0.25 s");
    free(s);
    ctk_scan_free(r);
    ctk_config_free(cfg);
}
END_TEST

/* /usr/local/bin/nvcc as CI hosts have it: a script that execs a toolkit's nvcc */
START_TEST(test_scan_wrapper_leads_to_the_toolkit_it_runs)
{
    ctk_scan_t *r;
    const ctk_scan_event_t *e;

    fake_toolkit("elsewhere/cuda-12.4", 12040);
    fake_toolkit("local/cuda-12.6", 12060);
    fake_headers("local/include", 12060);
    wr("local/bin/nvcc", S("#!/bin/sh\nexec %s/elsewhere/cuda-12.4/bin/nvcc \"$@\"\n", g_tmp));
    ck_assert_int_eq(chmod(S("%s/local/bin/nvcc", g_tmp), 0755), 0);
    r = scan1(S("%s/local", g_tmp), -1);
    e = ev(r, CTK_SCAN_WRAPPER, S("%s/local", g_tmp));
    ck_assert_str_eq(e->other, S("%s/elsewhere/cuda-12.4", g_tmp));
    ck_assert_ptr_nonnull(strstr(e->text, "is a wrapper script of"));
    /* the prefix is no toolkit; the one below it and the one it runs are */
    ck_assert_uint_eq(r->cfg->n_sdks, 2);
    ck_assert_str_eq(r->cfg->sdks[0].base, S("%s/elsewhere/cuda-12.4", g_tmp));
    ck_assert_str_eq(r->cfg->sdks[1].base, S("%s/local/cuda-12.6", g_tmp));
    ck_assert_uint_eq(r->n_problems, 0);
    ctk_scan_free(r);
}
END_TEST

/* a script that names no other nvcc (or only itself) is the toolkit's own */
START_TEST(test_scan_script_nvcc_naming_no_other_toolkit_is_kept)
{
    ctk_scan_t *r;

    fake_toolkit("t/cuda-12.4", 12040);
    wr("t/cuda-12.4/bin/nvcc", S("#!/bin/sh\nexec %s/t/cuda-12.4/bin/nvcc \"$@\"\n", g_tmp));
    ck_assert_int_eq(chmod(S("%s/t/cuda-12.4/bin/nvcc", g_tmp), 0755), 0);
    r = scan1(S("%s/t", g_tmp), -1);
    ck_assert_uint_eq(count(r, CTK_SCAN_WRAPPER), 0);
    ck_assert_uint_eq(r->cfg->n_sdks, 1);
    ck_assert_str_eq(r->cfg->sdks[0].base, S("%s/t/cuda-12.4", g_tmp));
    ctk_scan_free(r);
}
END_TEST

START_TEST(test_scan_system_prefixes_are_never_toolkits)
{
    ck_assert(ctk_scan_is_system_prefix("/usr/local"));
    ck_assert(ctk_scan_is_system_prefix("/usr"));
    ck_assert(ctk_scan_is_system_prefix("/opt"));
    ck_assert(ctk_scan_is_system_prefix("/"));
    ck_assert(!ctk_scan_is_system_prefix("/usr/local/cuda-13.0"));
    ck_assert(!ctk_scan_is_system_prefix(g_tmp));
    ck_assert_str_eq(ctk_scan_event_name(CTK_SCAN_WRAPPER), "wrapper");
    ck_assert(!ctk_scan_event_is_problem(CTK_SCAN_WRAPPER));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("discover");
    TCase *tc = tcase_create("scan");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_scan_names_of_layouts_and_events);
    tcase_add_test(tc, test_scan_duplicate_link_reported_once_under_real_name);
    tcase_add_test(tc, test_scan_loops_dangling_links_terminate);
    tcase_add_test(tc, test_scan_unreadable_dir_is_an_event);
    tcase_add_test(tc, test_scan_missing_root_is_an_event);
    tcase_add_test(tc, test_scan_max_depth);
    tcase_add_test(tc, test_scan_never_enters_a_toolkit_or_dot_dirs);
    tcase_add_test(tc, test_scan_broken_toolkit_skipped_with_reason);
    tcase_add_test(tc, test_scan_recognises_each_layout_and_names_them_apart);
    tcase_add_test(tc, test_scan_cu12_component_wheels_are_runtime_only);
    tcase_add_test(tc, test_scan_hpc_compilers_dir_left_alone);
    tcase_add_loop_test(tc, test_scan_writes_no_default_and_generate_picks_the_newest, 0,
                        (int)(sizeof default_cases / sizeof default_cases[0]));
    tcase_add_test(tc, test_scan_relative_root_gives_absolute_bases);
    tcase_add_test(tc, test_scan_take_config_and_summary);
    tcase_add_test(tc, test_scan_wrapper_leads_to_the_toolkit_it_runs);
    tcase_add_test(tc, test_scan_script_nvcc_naming_no_other_toolkit_is_kept);
    tcase_add_test(tc, test_scan_system_prefixes_are_never_toolkits);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
