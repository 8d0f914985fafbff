/* check_render.c - templates + SDK records -> exact text (golden files).
 * SPDX-License-Identifier: MIT
 *
 * SDK records are built by hand here, so the golden files do not depend on
 * the machine.  CTK_UPDATE_GOLDEN=1 rewrites them (review the diff!).
 */
#include <ctkconf.h>

#include "failmalloc.h"
#include "render.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void push(ctk_strlist_t *l, const char *s)
{
    if (s)
        ck_assert(ctk_strlist_push(l, s, NULL));
}

/* A record as sdk.c would produce it, from the dirs given. */
static ctk_sdk_t *fake_sdk(const ctk_sdk_conf_t *conf, const char *mm, const char *full,
                           const char *inc, const char *lib, const char *minc, const char *mlib,
                           const char *cinc, const char *clib, const char *nlib, const char *ncinc,
                           const char *nclib)
{
    ctk_sdk_t *s = calloc(1, sizeof *s);

    s->conf = conf;
    s->module_version = strdup(conf->module_version ? conf->module_version : conf->version);
    s->version_mm = strdup(mm);
    s->version_full = full ? strdup(full) : NULL;
    s->version.source = full ? CTK_VSRC_VERSION_JSON : CTK_VSRC_HEADER;
    snprintf(s->version.path, sizeof s->version.path, "%s/%s", conf->base,
             full ? "version.json" : "include/cuda_runtime_api.h");
    s->root = strdup(conf->base);
    s->bindir = ctk_path_join(conf->base, "bin", NULL);
    s->incdir = strdup(inc);
    s->libdir = strdup(lib);
    s->math_incdir = minc ? strdup(minc) : NULL;
    s->math_libdir = mlib ? strdup(mlib) : NULL;
    s->cupti_incdir = cinc ? strdup(cinc) : NULL;
    s->cupti_libdir = clib ? strdup(clib) : NULL;
    s->nvvm_libdir = nlib ? strdup(nlib) : NULL;
    s->nccl_incdir = ncinc ? strdup(ncinc) : NULL;
    s->nccl_libdir = nclib ? strdup(nclib) : NULL;
    push(&s->path, s->bindir);
    push(&s->cpath, inc);
    if (minc && strcmp(minc, inc))
        push(&s->cpath, minc);
    push(&s->cpath, cinc);
    push(&s->cpath, ncinc);
    push(&s->library_path, lib);
    if (mlib && strcmp(mlib, lib))
        push(&s->library_path, mlib);
    push(&s->library_path, clib);
    push(&s->library_path, nlib);
    push(&s->library_path, nclib);
    {
        size_t i;

        for (i = 0; i < s->library_path.len; i++)
            push(&s->ld_library_path, s->library_path.items[i]);
    }
    s->libs = calloc(2, sizeof *s->libs);
    s->n_libs = 2;
    s->libs[0].name = "cudart";
    s->libs[0].description = "CUDA runtime";
    s->libs[0].libdir = strdup(lib);
    s->libs[0].link = strdup("-lcudart");
    s->libs[1].name = "cublas";
    s->libs[1].description = "cuBLAS";
    s->libs[1].libdir = strdup(mlib ? mlib : lib);
    s->libs[1].link = strdup("-lcublas -lcublasLt");
    return s;
}

static ctk_config_t *base_config(void)
{
    ctk_config_t *cfg = calloc(1, sizeof *cfg);

    cfg->source = strdup("site.json");
    cfg->module_name = strdup("cudatoolkit");
    cfg->family = strdup("cuda");
    cfg->pc_prefix = strdup("ctk");
    cfg->pc_rpath = true;
    return cfg;
}

/* Compare every file of the outset with tests/data/render/<case>/expected. */
static void compare_golden(const char *name, const ctk_outset_t *out)
{
    size_t i;
    bool update = getenv("CTK_UPDATE_GOLDEN") && !strcmp(getenv("CTK_UPDATE_GOLDEN"), "1");

    for (i = 0; i < out->n; i++) {
        char *rel = NULL, *path, *want;

        ck_assert(asprintf(&rel, "tests/data/render/%s/expected/%s", name, out->files[i].relpath) > 0);
        path = tu_srcpath(rel);
        if (update) {
            char *dir = strdup(path);

            *strrchr(dir, '/') = '\0';
            ck_assert_int_eq(tu_sh("mkdir -p '%s'", dir), 0);
            free(tu_write(dir, strrchr(path, '/') + 1, out->files[i].data));
            free(dir);
        }
        want = tu_read(path);
        ck_assert_msg(want != NULL, "missing golden file %s (CTK_UPDATE_GOLDEN=1 makes it)", path);
        ck_assert_msg(strcmp(want, out->files[i].data) == 0, "%s differs from its golden file:\n%s",
                      out->files[i].relpath, out->files[i].data);
        free(want);
        free(path);
        free(rel);
    }
}

static void free_all(ctk_config_t *cfg, ctk_sdk_t **sdks, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        ctk_sdk_free(sdks[i]);
    ctk_config_free(cfg);
}

START_TEST(test_render_standalone_matches_golden)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_conf_t *c;
    ctk_sdk_t *s;
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };

    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    cfg->default_version = strdup("12.4");
    c = &cfg->sdks[0];
    c->version = strdup("12.4");
    c->base = strdup("/usr/local/cuda-12.4");
    strcpy(c->jpath, "/sdks/0");
    s = fake_sdk(c, "12.4", "12.4.1", "/usr/local/cuda-12.4/include", "/usr/local/cuda-12.4/lib64",
                 "/usr/local/cuda-12.4/include", "/usr/local/cuda-12.4/lib64",
                 "/usr/local/cuda-12.4/extras/CUPTI/include", "/usr/local/cuda-12.4/extras/CUPTI/lib64",
                 "/usr/local/cuda-12.4/nvvm/lib64", NULL, NULL);
    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, &s, 1, &o, &out, &err), "%s:%d: %s", err.source, err.line, err.text);
    ck_assert_uint_eq(out.n, 7); /* lua, tcl, pc, 2 lib pcs, 2 rc files */
    compare_golden("standalone", &out);
    ctk_outset_fini(&out);
    free_all(cfg, &s, 1);
}
END_TEST

/* The HPC SDK's split layout with every optional part of the config:
 * help, site and SDK env, host compiler, an alias. */
static ctk_config_t *hpcsdk_config(ctk_sdk_t **sdk)
{
    const char *r = "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3";
    ctk_config_t *cfg = base_config();
    ctk_sdk_conf_t *c;
    char base[256], minc[256], mlib[256], cinc[256], clib[256], nlib[256], ncinc[256], nclib[256];

    snprintf(base, sizeof base, "%s/cuda/11.6", r);
    snprintf(minc, sizeof minc, "%s/math_libs/11.6/include", r);
    snprintf(mlib, sizeof mlib, "%s/math_libs/11.6/lib64", r);
    snprintf(cinc, sizeof cinc, "%s/cuda/11.6/extras/CUPTI/include", r);
    snprintf(clib, sizeof clib, "%s/cuda/11.6/extras/CUPTI/lib64", r);
    snprintf(nlib, sizeof nlib, "%s/cuda/11.6/nvvm/lib64", r);
    snprintf(ncinc, sizeof ncinc, "%s/comm_libs/11.6/nccl/include", r);
    snprintf(nclib, sizeof nclib, "%s/comm_libs/11.6/nccl/lib", r);
    cfg->module_name = (free(cfg->module_name), strdup("cuda"));
    cfg->help = strdup("Questions: hpc-help@example.org");
    cfg->env = calloc(1, sizeof *cfg->env);
    cfg->n_env = 1;
    cfg->env[0].name = strdup("PE_PKGCONFIG_LIBS");
    cfg->env[0].value = strdup("ctk-11.6");
    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    c = &cfg->sdks[0];
    c->version = strdup("11.6");
    c->module_version = strdup("11.6-nvhpc22.3");
    c->base = strdup(base);
    c->host_compiler_module = strdup("gcc/11");
    c->host_compiler_ccbin = strdup("/usr/bin/gcc-11");
    c->env = calloc(1, sizeof *c->env);
    c->n_env = 1;
    c->env[0].name = strdup("CRAY_CUDATOOLKIT_VERSION");
    c->env[0].value = strdup("11.6.2_3.14");
    c->aliases = calloc(1, sizeof *c->aliases);
    c->n_aliases = 1;
    c->aliases[0] = strdup("hpcsdk");
    strcpy(c->jpath, "/sdks/0");
    *sdk = fake_sdk(c, "11.6", "11.6.2", "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/targets/x86_64-linux/include",
                    "/opt/nvidia/hpc_sdk/Linux_x86_64/22.3/cuda/11.6/targets/x86_64-linux/lib", minc, mlib,
                    cinc, clib, nlib, ncinc, nclib);
    return cfg;
}

START_TEST(test_render_hpcsdk_split_matches_golden)
{
    ctk_sdk_t *s;
    ctk_config_t *cfg = hpcsdk_config(&s);
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };

    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, &s, 1, &o, &out, &err), "%s:%d: %s", err.source, err.line, err.text);
    compare_golden("hpcsdk", &out);
    ctk_outset_fini(&out);
    free_all(cfg, &s, 1);
}
END_TEST

/* One SDK with its own build of the records, for the error cases. */
static bool render_one(const char *base, const char *tdir, ctk_outset_t *out, ctk_error_t *err)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_t *s;
    char inc[512], lib[512];
    ctk_render_opts_t o = { tdir, "/out/pkgconfig" };
    bool ok;

    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    cfg->sdks[0].version = strdup("12.4");
    cfg->sdks[0].base = strdup(base);
    cfg->sdks[0].pos[CTK_F_BASE].line = 4;
    cfg->sdks[0].pos[CTK_F_BASE].column = 15;
    strcpy(cfg->sdks[0].jpath, "/sdks/0");
    snprintf(inc, sizeof inc, "%s/include", base);
    snprintf(lib, sizeof lib, "%s/lib64", base);
    s = fake_sdk(&cfg->sdks[0], "12.4", NULL, inc, lib, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    ctk_outset_init(out);
    ctk_error_init(err);
    ok = ctk_render_all(cfg, &s, 1, &o, out, err);
    ctk_outset_fini(out);
    free_all(cfg, &s, 1);
    return ok;
}

START_TEST(test_render_refuses_colon_in_search_path)
{
    ctk_outset_t out;
    ctk_error_t err;

    ck_assert(!render_one("/opt/cuda:12.4", NULL, &out, &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_str_eq(err.source, "site.json");
    ck_assert_int_eq(err.line, 4);
    ck_assert_int_eq(err.column, 15);
    ck_assert_ptr_nonnull(strstr(err.text, "/sdks/0"));
    ck_assert_ptr_nonnull(strstr(err.text, "':'"));
}
END_TEST

START_TEST(test_render_refuses_newline_in_path)
{
    ctk_outset_t out;
    ctk_error_t err;

    ck_assert(!render_one("/opt/cuda\n12.4", NULL, &out, &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_ptr_nonnull(strstr(err.text, "newline"));
}
END_TEST

START_TEST(test_render_uses_site_template_dir)
{
    char *dir = tu_mkdtemp(), *p;
    ctk_outset_t out;
    ctk_error_t err;

    p = tu_write(dir, "pc.lua", "emit('broken(')\nlocal x = nil .. 1\n");
    ck_assert(!render_one("/opt/cuda-12.4", dir, &out, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_str_eq(err.source, p);
    ck_assert_int_eq(err.line, 2);
    free(p);
    p = tu_write(dir, "pc.lua", "emit('site pc for ', ctk.version, '\\n')\n");
    ck_assert_msg(render_one("/opt/cuda-12.4", dir, &out, &err), "%s", err.text);
    free(p);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- out of memory ---------------------------------------------------------
 * Each sweep (tests/failmalloc.c) fails every allocation of a whole
 * ctk_render_all() in turn: the data trees, every template's Lua state,
 * the outset.  Each failure is CTK_E_NOMEM and leaks nothing; the run
 * that meets none gives the same files as ever. */
#ifdef TU_HAVE_FAILING_MALLOC
static ctk_config_t *sweep_cfg;
static ctk_sdk_t *sweep_sdk;
static ctk_render_opts_t sweep_opts;
static ctk_outset_t sweep_out, sweep_ref;
static const char *sweep_golden;

static void *op_render_all(ctk_error_t *err)
{
    ctk_outset_init(&sweep_out);
    if (!ctk_render_all(sweep_cfg, &sweep_sdk, 1, &sweep_opts, &sweep_out, err)) {
        ctk_outset_fini(&sweep_out);
        return NULL;
    }
    return &sweep_out;
}

static void release_golden(void *p)
{
    compare_golden(sweep_golden, p);
    ctk_outset_fini(p);
}

static void release_same(void *p)
{
    const ctk_outset_t *o = p;
    size_t i;

    ck_assert_uint_eq(o->n, sweep_ref.n);
    for (i = 0; i < o->n; i++) {
        ck_assert_str_eq(o->files[i].relpath, sweep_ref.files[i].relpath);
        ck_assert_str_eq(o->files[i].data, sweep_ref.files[i].data);
    }
    ctk_outset_fini(p);
}

static long sweep_render(const char *name, void (*release)(void *))
{
    long n = tu_alloc_sweep(name, op_render_all, release);

    fprintf(stderr, "check_render: %s: %ld allocations, each failed in turn\n", name, n);
    return n;
}
#endif

START_TEST(test_render_out_of_memory_is_nomem_and_leaks_nothing)
{
#ifdef TU_HAVE_FAILING_MALLOC
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };
    char *dir = tu_mkdtemp(), *src = tu_srcpath("templates/pc.lua"), *text = tu_read(src);

    /* built-in templates: Lua, Tcl and .pc files, per-library .pc files,
     * both .modulerc files */
    sweep_cfg = hpcsdk_config(&sweep_sdk);
    sweep_opts = o;
    sweep_golden = "hpcsdk";
    ck_assert_int_gt(sweep_render("ctk_render_all", release_golden), 1000);

    /* one template read from a site's directory */
    ck_assert_ptr_nonnull(text);
    free(tu_write(dir, "pc.lua", text));
    sweep_opts.template_dir = dir;
    ck_assert_int_gt(sweep_render("ctk_render_all with a template dir", release_golden), 1000);
    free_all(sweep_cfg, &sweep_sdk, 1);
    tu_rmtree(dir);
    free(dir);
    free(text);
    free(src);
#endif
}
END_TEST

/* The model sdk.c builds from the real toolkit, rendered. */
START_TEST(test_render_real_toolkit_out_of_memory_is_nomem)
{
#ifdef TU_HAVE_FAILING_MALLOC
    const char *root = tu_cuda_root();
    char *inc = tu_str("%s/include", root), *nvcc = tu_str("%s/bin/nvcc", root), *mm;
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };
    ctk_version_t v;
    ctk_sdk_conf_t *c;
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_version_detect(root, inc, nvcc, &v, &err), "%s", err.text);
    mm = tu_str("%d.%d", v.major, v.minor);
    sweep_cfg = ctk_config_new("site.json", &err);
    ck_assert_ptr_nonnull(sweep_cfg);
    c = ctk_config_add_sdk(sweep_cfg, mm, root, &err);
    ck_assert_ptr_nonnull(c);
    sweep_sdk = ctk_sdk_load(c, sweep_cfg->source, &err);
    ck_assert_msg(sweep_sdk != NULL, "%s: %s", err.source, err.text);
    sweep_opts = o;
    ctk_outset_init(&sweep_ref);
    ck_assert_msg(ctk_render_all(sweep_cfg, &sweep_sdk, 1, &sweep_opts, &sweep_ref, &err), "%s",
                  err.text);
    ck_assert_uint_ge(sweep_ref.n, 5);
    ck_assert_int_gt(sweep_render("ctk_render_all of the real toolkit", release_same), 1000);
    ctk_outset_fini(&sweep_ref);
    free_all(sweep_cfg, &sweep_sdk, 1);
    tu_free_kept();
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("render");
    TCase *tc = tcase_create("render");

    tcase_add_test(tc, test_render_standalone_matches_golden);
    tcase_add_test(tc, test_render_hpcsdk_split_matches_golden);
    tcase_add_test(tc, test_render_refuses_colon_in_search_path);
    tcase_add_test(tc, test_render_refuses_newline_in_path);
    tcase_add_test(tc, test_render_uses_site_template_dir);
    if (tu_alloc_sweeps_possible("check_render")) {
        tcase_set_timeout(tc, 300);
        tcase_add_test(tc, test_render_out_of_memory_is_nomem_and_leaks_nothing);
        if (tu_cuda_root())
            tcase_add_test(tc, test_render_real_toolkit_out_of_memory_is_nomem);
        else
            fprintf(stderr, "SKIP: check_render: no CUDA toolkit ($CTK_TEST_CUDA unset): the "
                    "sweep over a real toolkit's model did not run\n");
    }
    suite_add_tcase(s, tc);
    return tu_run(s);
}
