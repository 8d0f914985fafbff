/* check_render.c - templates + SDK records -> exact text (golden files).
 * SPDX-License-Identifier: MIT
 *
 * SDK records are built by hand here, so the golden files do not depend on
 * the machine.  CTK_UPDATE_GOLDEN=1 rewrites them (review the diff!).
 */
#include <ctkconf.h>

#include "failmalloc.h"
#include "luahost.h"
#include "render.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    s->version.patch = -1;
    ck_assert(sscanf(full ? full : mm, "%d.%d.%d", &s->version.major, &s->version.minor,
                     &s->version.patch) >= 2);
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
    s->libs[0].label = "CUDA runtime";
    s->libs[0].description = "CUDA runtime";
    s->libs[0].libdir = strdup(lib);
    s->libs[0].link = strdup("-lcudart");
    s->libs[1].name = "cublas";
    s->libs[1].label = "cuBLAS";
    s->libs[1].description = "cuBLAS";
    s->libs[1].math = true;
    s->libs[1].libdir = strdup(mlib ? mlib : lib);
    s->libs[1].link = strdup("-lcublas -lcublasLt");
    return s;
}

/* NVSHMEM under comm_libs, placed as sdk.c places it: its bin after the
 * toolkit's, its dirs last on each variable, its own .pc file. */
static void add_nvshmem(ctk_sdk_t *s, const char *root)
{
    ctk_sdk_lib_t *libs = realloc(s->libs, (s->n_libs + 1) * sizeof *libs);

    ck_assert_ptr_nonnull(libs);
    s->libs = libs;
    memset(&libs[s->n_libs], 0, sizeof libs[s->n_libs]); /* as sdk.c fills a record */
    s->nvshmem_incdir = tu_str("%s/include", root);
    s->nvshmem_libdir = tu_str("%s/lib", root);
    s->nvshmem_bindir = tu_str("%s/bin", root);
    push(&s->path, s->nvshmem_bindir);
    push(&s->cpath, s->nvshmem_incdir);
    push(&s->library_path, s->nvshmem_libdir);
    push(&s->ld_library_path, s->nvshmem_libdir);
    s->nvshmem_incdir = strdup(s->nvshmem_incdir); /* the record owns its own copies */
    s->nvshmem_libdir = strdup(s->nvshmem_libdir);
    s->nvshmem_bindir = strdup(s->nvshmem_bindir);
    libs[s->n_libs].name = "nvshmem";
    libs[s->n_libs].label = "NVSHMEM";
    libs[s->n_libs].description = "NVIDIA OpenSHMEM Library";
    libs[s->n_libs].libdir = strdup(s->nvshmem_libdir);
    libs[s->n_libs].link = strdup("-lnvshmem_host -lnvshmem");
    s->n_libs++;
}

static ctk_config_t *base_config(void)
{
    ctk_config_t *cfg = calloc(1, sizeof *cfg);

    cfg->source = strdup("site.json");
    cfg->module_name = strdup("cudatoolkit");
    cfg->family = strdup("cuda");
    cfg->pc_prefix = strdup("ctk");
    cfg->pc_rpath = true;
    cfg->full_version_aliases = true; /* the defaults, as ctk_config_new sets them */
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

/* NVIDIA's CUDA 13 wheels as pip installs them: libcudart.so.13 and
 * libcublas.so.13 alone.  The link dir (an ld script per library) is first
 * on LIBRARY_PATH, CMAKE_LIBRARY_PATH and the .pc's -L, never on
 * LD_LIBRARY_PATH or the run path. */
START_TEST(test_render_wheel_link_files_match_golden)
{
    const char *r = "/opt/venv/lib/python3.12/site-packages/nvidia/cu13";
    ctk_config_t *cfg = base_config();
    ctk_sdk_conf_t *c;
    ctk_sdk_t *s;
    ctk_outset_t out;
    ctk_error_t err;
    char inc[256], lib[256];
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig", "/apps/modules/cuda/lib" };
    size_t i, links = 0;

    snprintf(inc, sizeof inc, "%s/include", r);
    snprintf(lib, sizeof lib, "%s/lib", r);
    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    c = &cfg->sdks[0];
    c->version = strdup("13.5");
    c->base = strdup(r);
    strcpy(c->jpath, "/sdks/0");
    s = fake_sdk(c, "13.5", NULL, inc, lib, inc, lib, NULL, NULL, NULL, NULL, NULL);
    s->versioned = calloc(2, sizeof *s->versioned);
    s->n_versioned = 2;
    s->versioned[0].name = "cudart";
    s->versioned[0].file = ctk_path_join(lib, "libcudart.so.13", NULL);
    s->versioned[1].name = "cublas";
    s->versioned[1].file = ctk_path_join(lib, "libcublas.so.13", NULL);
    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, &s, 1, &o, &out, &err), "%s:%d: %s", err.source, err.line, err.text);
    for (i = 0; i < out.n; i++)
        if (strncmp(out.files[i].relpath, "lib/ctk-13.5/", 13) == 0)
            links++;
    ck_assert_uint_eq(links, 2);
    compare_golden("wheel", &out);
    ctk_outset_fini(&out);
    free_all(cfg, &s, 1);
}
END_TEST

/* A path a linker script cannot quote stops the render. */
START_TEST(test_render_link_file_refuses_a_quote)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_conf_t *c;
    ctk_sdk_t *s;
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/p", "/l" };

    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    c = &cfg->sdks[0];
    c->version = strdup("13.5");
    c->base = strdup("/opt/w");
    strcpy(c->jpath, "/sdks/0");
    s = fake_sdk(c, "13.5", NULL, "/opt/w/include", "/opt/w/lib", NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    s->versioned = calloc(1, sizeof *s->versioned);
    s->n_versioned = 1;
    s->versioned[0].name = "cudart";
    s->versioned[0].file = strdup("/opt/w/lib/a\"b/libcudart.so.13");
    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert(!ctk_render_all(cfg, &s, 1, &o, &out, &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_str_eq(err.text, "/sdks/0: SDK 13.5: /opt/w/lib/a\"b/libcudart.so.13: a linker script cannot "
                               "name a file whose path holds a '\"' or a control character");
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
static bool render_one_pc(const char *base, const char *tdir, const char *pcdir, ctk_outset_t *out,
                          ctk_error_t *err)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_t *s;
    char inc[512], lib[512];
    ctk_render_opts_t o = { tdir, pcdir };
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

static bool render_one(const char *base, const char *tdir, ctk_outset_t *out, ctk_error_t *err)
{
    return render_one_pc(base, tdir, "/out/pkgconfig", out, err);
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

/* The .pc's CMake lists (pc.lua): written from the variables, in the
 * module's order; a dir holding ';', which no CMake list element can
 * hold, leaves all of them out and the rest of the .pc as it was. */
static const char *out_file(const ctk_outset_t *out, const char *relpath);

static char *render_pc_text(const char *base)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_t *s;
    char inc[512], lib[512], *text;
    ctk_render_opts_t o = { NULL, "/out/pkgconfig" };
    ctk_outset_t out;
    ctk_error_t err;

    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    cfg->sdks[0].version = strdup("12.4");
    cfg->sdks[0].base = strdup(base);
    strcpy(cfg->sdks[0].jpath, "/sdks/0");
    snprintf(inc, sizeof inc, "%s/include", base);
    snprintf(lib, sizeof lib, "%s/lib64", base);
    s = fake_sdk(&cfg->sdks[0], "12.4", NULL, inc, lib, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, &s, 1, &o, &out, &err), "%s", err.text);
    text = strdup(out_file(&out, "pkgconfig/ctk-12.4.pc"));
    ctk_outset_fini(&out);
    free_all(cfg, &s, 1);
    return text;
}

START_TEST(test_render_pc_cmake_lists_leave_out_a_semicolon)
{
    char *plain = render_pc_text("/opt/cuda-12.4"), *semi = render_pc_text("/opt/cuda;12.4");

    ck_assert_ptr_nonnull(strstr(plain, "\ncudaroot=/opt/cuda-12.4\n"));
    ck_assert_ptr_nonnull(strstr(plain, "\ncmake_library_path=${libdir}\n"));
    ck_assert_ptr_nonnull(strstr(plain, "\ncmake_include_path=${includedir}\n"));
    ck_assert_ptr_nonnull(strstr(plain, "\ncmake_build_rpath=${libdir}\n"));
    ck_assert_ptr_nonnull(strstr(plain, "\nld_library_path=${libdir}\n"));
    ck_assert_ptr_nonnull(strstr(semi, "\nld_library_path=${libdir}\n"));
    ck_assert_ptr_nonnull(strstr(semi, "\ncudaroot=/opt/cuda;12.4\n"));
    ck_assert_ptr_nonnull(strstr(semi, "\nLibs: -L${libdir} -lcudart"));
    ck_assert_ptr_null(strstr(semi, "cmake_"));
    free(plain);
    free(semi);
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
    p = tu_write(dir, "pc.lua", "emitln('# site pc for ', ctk.version)\n"
                 "emitln('Name: x') emitln('Description: y') emitln('Version: 1')\n");
    ck_assert_msg(render_one("/opt/cuda-12.4", dir, &out, &err), "%s", err.text);
    free(p);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* A file of the outset by path; fails the test when absent. */
static const char *out_file(const ctk_outset_t *out, const char *relpath)
{
    size_t i;

    for (i = 0; i < out->n; i++)
        if (strcmp(out->files[i].relpath, relpath) == 0)
            return out->files[i].data;
    ck_abort_msg("no %s in the output", relpath);
    return NULL;
}

/* ---- properties -------------------------------------------------------------- */
static void kv_set(ctk_kv_t **kv, size_t *n, const char *name, const char *value)
{
    *kv = realloc(*kv, (*n + 1) * sizeof **kv);
    ck_assert_ptr_nonnull(*kv);
    (*kv)[*n].name = strdup(name);
    (*kv)[*n].value = strdup(value);
    (*n)++;
}

/* The site's properties then the SDK's, an SDK one of the same name in the
 * site one's place; a module with none gets no add_property line (the
 * golden cases have none). */
START_TEST(test_render_properties_site_then_sdk)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_conf_t *c;
    ctk_sdk_t *s[2];
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };
    const char *lua, *tcl;
    size_t i;

    cfg->sdks = calloc(2, sizeof *cfg->sdks);
    cfg->n_sdks = 2;
    kv_set(&cfg->properties, &cfg->n_properties, "arch", "gpu");
    kv_set(&cfg->properties, &cfg->n_properties, "state", "testing");
    for (i = 0; i < 2; i++) {
        c = &cfg->sdks[i];
        c->version = strdup(i ? "12.6" : "12.4");
        c->base = tu_str("/usr/local/cuda-%s", c->version);
        c->base = strdup(c->base);
        snprintf(c->jpath, sizeof c->jpath, "/sdks/%zu", i);
        s[i] = fake_sdk(c, c->version, i ? "12.6.3" : "12.4.1", tu_str("%s/include", c->base),
                        tu_str("%s/lib64", c->base), NULL, NULL, tu_str("%s/extras/CUPTI/include", c->base),
                        tu_str("%s/extras/CUPTI/lib64", c->base), tu_str("%s/nvvm/lib64", c->base), NULL,
                        NULL);
    }
    kv_set(&cfg->sdks[0].properties, &cfg->sdks[0].n_properties, "lmod", "sticky");
    kv_set(&cfg->sdks[0].properties, &cfg->sdks[0].n_properties, "state", "experimental");
    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, s, 2, &o, &out, &err), "%s:%d: %s", err.source, err.line, err.text);

    lua = out_file(&out, "lmod/cudatoolkit/12.4.lua");
    tcl = out_file(&out, "tcl/cudatoolkit/12.4");
    ck_assert_msg(strstr(lua, "family(\"cuda\")\n"
                              "add_property(\"arch\", \"gpu\")\n"
                              "add_property(\"state\", \"experimental\")\n"
                              "add_property(\"lmod\", \"sticky\")\n\n") != NULL, "%s", lua);
    ck_assert_msg(strstr(tcl, "}\n"
                              "add-property \"arch\" \"gpu\"\n"
                              "add-property \"state\" \"experimental\"\n"
                              "add-property \"lmod\" \"sticky\"\n\n") != NULL, "%s", tcl);
    lua = out_file(&out, "lmod/cudatoolkit/12.6.lua");
    tcl = out_file(&out, "tcl/cudatoolkit/12.6");
    ck_assert_msg(strstr(lua, "add_property(\"arch\", \"gpu\")\n"
                              "add_property(\"state\", \"testing\")\n\n") != NULL, "%s", lua);
    ck_assert_msg(strstr(tcl, "add-property \"arch\" \"gpu\"\n"
                              "add-property \"state\" \"testing\"\n\n") != NULL, "%s", tcl);
    ck_assert_ptr_null(strstr(lua, "sticky"));
    ck_assert_ptr_null(strstr(tcl, "sticky"));
    ck_assert_ptr_null(strstr(out_file(&out, "pkgconfig/ctk-12.4.pc"), "arch"));
    ctk_outset_fini(&out);
    free_all(cfg, s, 2);
}
END_TEST

/* ---- NVSHMEM, per-SDK help --------------------------------------------------- */
START_TEST(test_render_nvshmem_and_sdk_help_match_golden)
{
    const char *r = "/opt/nvidia/hpc_sdk/Linux_x86_64/25.9";
    ctk_config_t *cfg = base_config();
    ctk_sdk_conf_t *c;
    ctk_sdk_t *s;
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };
    const char *lua, *tcl, *pc;

    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    c = &cfg->sdks[0];
    c->version = strdup("13.0");
    c->base = tu_str("%s/cuda/13.0", r);
    c->base = strdup(c->base);
    c->help = strdup("NVSHMEM needs a launcher: run programs with nvshmrun or srun --mpi=pmix.");
    strcpy(c->jpath, "/sdks/0");
    s = fake_sdk(c, "13.0", "13.0.2", tu_str("%s/cuda/13.0/targets/x86_64-linux/include", r),
                 tu_str("%s/cuda/13.0/targets/x86_64-linux/lib", r),
                 tu_str("%s/math_libs/13.0/include", r), tu_str("%s/math_libs/13.0/lib64", r),
                 tu_str("%s/cuda/13.0/extras/CUPTI/include", r),
                 tu_str("%s/cuda/13.0/extras/CUPTI/lib64", r), tu_str("%s/cuda/13.0/nvvm/lib64", r),
                 tu_str("%s/comm_libs/13.0/nccl/include", r), tu_str("%s/comm_libs/13.0/nccl/lib", r));
    add_nvshmem(s, tu_str("%s/comm_libs/13.0/nvshmem", r));
    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, &s, 1, &o, &out, &err), "%s:%d: %s", err.source, err.line, err.text);
    compare_golden("nvshmem", &out);

    lua = out_file(&out, "lmod/cudatoolkit/13.0.lua");
    tcl = out_file(&out, "tcl/cudatoolkit/13.0");
    pc = out_file(&out, "pkgconfig/ctk-13.0.pc");
    /* nvshmem's bin on PATH, after the toolkit's (prepended in reverse) */
    ck_assert_ptr_nonnull(strstr(lua, "prepend_path(\"PATH\", \"/opt/nvidia/hpc_sdk/Linux_x86_64/25.9/comm_libs/13.0/nvshmem/bin\")\n"
                                      "prepend_path(\"PATH\", \"/opt/nvidia/hpc_sdk/Linux_x86_64/25.9/cuda/13.0/bin\")"));
    ck_assert_ptr_nonnull(strstr(tcl, "prepend-path \"PATH\" \"/opt/nvidia/hpc_sdk/Linux_x86_64/25.9/comm_libs/13.0/nvshmem/bin\""));
    ck_assert_ptr_nonnull(strstr(pc, "nvshmem_includedir="));
    ck_assert_ptr_nonnull(strstr(pc, "-I${nvshmem_includedir}"));
    ck_assert_ptr_nonnull(strstr(pc, "-L${nvshmem_libdir}"));
    ck_assert_ptr_nonnull(strstr(out_file(&out, "pkgconfig/ctk-nvshmem-13.0.pc"),
                                 "Libs: -lnvshmem_host -lnvshmem\n"));
    /* the SDK's own help, in both modulefiles */
    ck_assert_ptr_nonnull(strstr(lua, "run programs with nvshmrun"));
    ck_assert_ptr_nonnull(strstr(tcl, "run programs with nvshmrun"));
    ctk_outset_fini(&out);
    free_all(cfg, &s, 1);
    tu_free_kept();
}
END_TEST

/* ---- whatis: what the toolkit holds ----------------------------------------------- */

/* Replace s's library records with cudart and the math libraries named
 * (NULL-terminated), all in s->libdir. */
static void set_libs(ctk_sdk_t *s, const char *const *math)
{
    size_t i, n = 1;

    for (i = 0; i < s->n_libs; i++) {
        free(s->libs[i].libdir);
        free(s->libs[i].link);
    }
    while (math[n - 1])
        n++;
    free(s->libs);
    s->libs = calloc(n, sizeof *s->libs);
    ck_assert_ptr_nonnull(s->libs);
    s->n_libs = n;
    s->libs[0].name = "cudart";
    s->libs[0].label = "CUDA runtime";
    s->libs[0].description = "CUDA Runtime Library";
    for (i = 1; i < n; i++) {
        s->libs[i].name = math[i - 1];
        s->libs[i].label = math[i - 1];
        s->libs[i].description = math[i - 1];
        s->libs[i].math = true;
    }
    for (i = 0; i < n; i++) {
        s->libs[i].libdir = strdup(s->libdir);
        s->libs[i].link = tu_str("-l%s", s->libs[i].name);
        s->libs[i].link = strdup(s->libs[i].link);
    }
}

/* The modulefiles' whatis Description of one 13.0 SDK at base. */
static void render_whatis(const char *base, const char *const *math, bool cupti, char **lua_line,
                          char **tcl_line)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_t *s;
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };
    const char *lua, *tcl, *p;

    cfg->sdks = calloc(1, sizeof *cfg->sdks);
    cfg->n_sdks = 1;
    cfg->sdks[0].version = strdup("13.0");
    cfg->sdks[0].base = strdup(base);
    strcpy(cfg->sdks[0].jpath, "/sdks/0");
    s = fake_sdk(&cfg->sdks[0], "13.0", "13.0.2", tu_str("%s/include", base), tu_str("%s/lib", base),
                 NULL, NULL, cupti ? tu_str("%s/include", base) : NULL,
                 cupti ? tu_str("%s/lib", base) : NULL, NULL, NULL, NULL);
    set_libs(s, math);
    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, &s, 1, &o, &out, &err), "%s", err.text);
    lua = out_file(&out, "lmod/cudatoolkit/13.0.lua");
    tcl = out_file(&out, "tcl/cudatoolkit/13.0");
    ck_assert_ptr_nonnull(p = strstr(lua, "whatis(\"Description: "));
    *lua_line = strndup(p, strcspn(p, "\n"));
    ck_assert_ptr_nonnull(p = strstr(tcl, "module-whatis \"Description: "));
    *tcl_line = strndup(p, strcspn(p, "\n"));
    ctk_outset_fini(&out);
    free_all(cfg, &s, 1);
    tu_free_kept();
}

START_TEST(test_render_whatis_names_only_what_the_toolkit_holds)
{
    static const char *const none[] = { NULL };
    static const char *const three[] = { "cuBLAS", "cuFFT", "cuSPARSE", NULL };
    static const char *const wheel = "/opt/venv/lib/python3.12/site-packages/nvidia/cu13";
    char *lua, *tcl;

    /* NVIDIA's CUDA 13 wheels: nvcc and the runtime, no math library, no CUPTI */
    render_whatis(wheel, none, false, &lua, &tcl);
    ck_assert_str_eq(lua, "whatis(\"Description: CUDA 13.0 compiler (nvcc) and runtime from "
                          "/opt/venv/lib/python3.12/site-packages/nvidia/cu13\")");
    ck_assert_str_eq(tcl, "module-whatis \"Description: CUDA 13.0 compiler (nvcc) and runtime from "
                          "/opt/venv/lib/python3.12/site-packages/nvidia/cu13\"");
    free(lua);
    free(tcl);

    /* the same tree with cupti's wheel */
    render_whatis(wheel, none, true, &lua, &tcl);
    ck_assert_str_eq(lua, "whatis(\"Description: CUDA 13.0 compiler (nvcc), runtime and CUPTI from "
                          "/opt/venv/lib/python3.12/site-packages/nvidia/cu13\")");
    free(lua);
    free(tcl);

    /* a full toolkit: each math library found, by name */
    render_whatis("/usr/local/cuda-13.0", three, true, &lua, &tcl);
    ck_assert_str_eq(lua, "whatis(\"Description: CUDA 13.0 compiler (nvcc), runtime, math libraries "
                          "(cuBLAS, cuFFT, cuSPARSE) and CUPTI from /usr/local/cuda-13.0\")");
    ck_assert_str_eq(tcl, "module-whatis \"Description: CUDA 13.0 compiler (nvcc), runtime, math "
                          "libraries (cuBLAS, cuFFT, cuSPARSE) and CUPTI from /usr/local/cuda-13.0\"");
    free(lua);
    free(tcl);
}
END_TEST

/* ---- several SDKs: aliases, the implicit default, no run path ----------------- */
static ctk_config_t *multi_config(ctk_sdk_t **sdks)
{
    static const struct {
        const char *version, *name, *full, *alias;
    } v[] = {
        { "12.9", NULL, "12.9.1", "legacy" },
        { "13.0", NULL, "13.0.0", NULL },
        { "13.0", "13.0-hpc", "13.0.0", "hpc" },
    };
    ctk_config_t *cfg = base_config();
    size_t i;

    cfg->pc_rpath = false;
    cfg->sdks = calloc(3, sizeof *cfg->sdks);
    cfg->n_sdks = 3;
    for (i = 0; i < 3; i++) {
        ctk_sdk_conf_t *c = &cfg->sdks[i];
        const char *mv = v[i].name ? v[i].name : v[i].version;

        c->version = strdup(v[i].version);
        c->module_version = v[i].name ? strdup(v[i].name) : NULL;
        c->base = tu_str("/sw/cuda-%s", mv);
        c->base = strdup(c->base);
        if (v[i].alias) {
            c->aliases = calloc(1, sizeof *c->aliases);
            c->n_aliases = 1;
            c->aliases[0] = strdup(v[i].alias);
        }
        snprintf(c->jpath, sizeof c->jpath, "/sdks/%zu", i);
        sdks[i] = fake_sdk(c, v[i].version, v[i].full, tu_str("%s/include", c->base),
                           tu_str("%s/lib64", c->base), tu_str("%s/include", c->base),
                           tu_str("%s/lib64", c->base), NULL, NULL, NULL, NULL, NULL);
    }
    return cfg;
}

START_TEST(test_render_multi_sdk_modulerc_matches_golden)
{
    ctk_sdk_t *sdks[3];
    ctk_config_t *cfg = multi_config(sdks);
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/apps/modules/cuda/pkgconfig" };
    const char *lrc, *trc;
    size_t i;

    ctk_outset_init(&out);
    ctk_error_init(&err);
    ck_assert_msg(ctk_render_all(cfg, sdks, 3, &o, &out, &err), "%s:%d: %s", err.source, err.line, err.text);
    compare_golden("multi", &out);
    lrc = out_file(&out, "lmod/cudatoolkit/.modulerc.lua");
    trc = out_file(&out, "tcl/cudatoolkit/.modulerc");
    /* no "default" in the config: 13.0 and 13.0-hpc tie at 13.0.0, the
     * first in the config wins, and both files say so */
    ck_assert_ptr_nonnull(strstr(lrc, "module_version(\"cudatoolkit/13.0\", \"default\")\n"));
    ck_assert_ptr_nonnull(strstr(trc, "module-version \"cudatoolkit/13.0\" default\n"));
    ck_assert_ptr_null(strstr(lrc, "13.0-hpc\", \"default"));
    /* explicit aliases, and the full version where it is unique */
    ck_assert_ptr_nonnull(strstr(lrc, "module_version(\"cudatoolkit/12.9\", \"legacy\")\n"));
    ck_assert_ptr_nonnull(strstr(lrc, "module_version(\"cudatoolkit/12.9\", \"12.9.1\")\n"));
    ck_assert_ptr_nonnull(strstr(lrc, "module_version(\"cudatoolkit/13.0-hpc\", \"hpc\")\n"));
    ck_assert_ptr_nonnull(strstr(trc, "module-version \"cudatoolkit/13.0-hpc\" \"hpc\"\n"));
    ck_assert_ptr_null(strstr(lrc, "13.0.0"));
    ck_assert_ptr_null(strstr(trc, "13.0.0"));
    /* pc_rpath false: no run path anywhere */
    for (i = 0; i < out.n; i++)
        ck_assert_msg(strstr(out.files[i].data, "rpath") == NULL, "%s", out.files[i].relpath);
    ck_assert_ptr_nonnull(strstr(out_file(&out, "pkgconfig/ctk-13.0.pc"),
                                 "Libs: -L${libdir} -lcudart\n"));
    ctk_outset_fini(&out);
    free_all(cfg, sdks, 3);
    tu_free_kept();
}
END_TEST

/* With "full_version_aliases": false (0), or not settled (-1, which only
 * generate settles), the .modulerc files hold the default and the config's
 * own aliases, one line each, and no X.Y.Z name, and say so in their
 * "full_version_aliases" line; nothing to note, not even the 13.0.0 that
 * 13.0 and 13.0-hpc share. */
START_TEST(test_render_modulerc_without_full_version_aliases)
{
    ctk_sdk_t *sdks[3];
    ctk_config_t *cfg = multi_config(sdks);
    ctk_outset_t out;
    ctk_error_t err;
    ctk_strlist_t notes;
    ctk_render_opts_t o = { NULL, "/p" };
    const char *lrc, *trc;

    ctk_outset_init(&out);
    ctk_error_init(&err);
    ctk_strlist_init(&notes);
    ck_assert(ctk_render_notes(cfg, sdks, 3, &notes, &err));
    ck_assert_uint_eq(notes.len, 1); /* by default: the shared 13.0.0 */
    ctk_strlist_fini(&notes);
    ck_assert_msg(ctk_render_all(cfg, sdks, 3, &o, &out, &err), "%s", err.text);
    ck_assert(strstr(out_file(&out, "lmod/cudatoolkit/.modulerc.lua"),
                     "\n-- full_version_aliases: true\n"));
    ck_assert(strstr(out_file(&out, "tcl/cudatoolkit/.modulerc"), "\n## full_version_aliases: true\n"));
    ctk_outset_fini(&out);
    ctk_outset_init(&out);
    cfg->full_version_aliases = _i == 0 ? 0 : -1;
    ck_assert_msg(ctk_render_all(cfg, sdks, 3, &o, &out, &err), "%s", err.text);
    lrc = out_file(&out, "lmod/cudatoolkit/.modulerc.lua");
    trc = out_file(&out, "tcl/cudatoolkit/.modulerc");
    ck_assert(strstr(lrc, "\n-- full_version_aliases: false\n"));
    ck_assert(strstr(trc, "\n## full_version_aliases: false\n"));
    ck_assert_str_eq(strstr(lrc, "module_version("),
                     "module_version(\"cudatoolkit/13.0\", \"default\")\n"
                     "module_version(\"cudatoolkit/12.9\", \"legacy\")\n"
                     "module_version(\"cudatoolkit/13.0-hpc\", \"hpc\")\n");
    ck_assert_str_eq(strstr(trc, "module-version "),
                     "module-version \"cudatoolkit/13.0\" default\n"
                     "module-version \"cudatoolkit/12.9\" \"legacy\"\n"
                     "module-version \"cudatoolkit/13.0-hpc\" \"hpc\"\n");
    ck_assert(ctk_render_notes(cfg, sdks, 3, &notes, &err));
    ck_assert_uint_eq(notes.len, 0);
    ctk_strlist_fini(&notes);
    ctk_outset_fini(&out);
    free_all(cfg, sdks, 3);
    tu_free_kept();
}
END_TEST

/* ---- the default rule ---------------------------------------------------------- */
static const struct {
    const char *versions[4]; /* "X.Y" (patch unknown) or "X.Y.Z"; module versions v0, v1... */
    const char *configured;
    const char *want;
} default_cases[] = {
    { { "12.4.1", "13.0.0" }, NULL, "v1" },
    { { "13.0.0", "12.4.1" }, NULL, "v0" },
    { { "13.0.0", "13.0.0" }, NULL, "v0" },            /* a tie: the first */
    { { "13.0.0", "13.0.0", "13.0.0" }, NULL, "v0" },
    { { "13.0", "13.0.0" }, NULL, "v1" },              /* unknown patch below any known */
    { { "13.0.0", "13.0" }, NULL, "v0" },
    { { "13.0", "13.0" }, NULL, "v0" },
    { { "13.0.1", "13.0.10" }, NULL, "v1" },           /* numbers, not text */
    { { "13.10.0", "13.9.5" }, NULL, "v0" },
    { { "9.2.148", "10.0.130" }, NULL, "v1" },
    { { "11.8.0", "12.0", "12.0.1", "11.8.1" }, NULL, "v2" },
    { { "12.4.1", "13.0.0" }, "v0", "v0" },            /* the config's own wins */
    { { "12.4.1" }, NULL, "v0" },
};

START_TEST(test_render_default_follows_the_rule)
{
    ctk_config_t *cfg = base_config();
    ctk_sdk_t *sdks[4];
    size_t n = 0, i;
    char *full = NULL;

    cfg->sdks = calloc(4, sizeof *cfg->sdks);
    for (n = 0; n < 4 && default_cases[_i].versions[n]; n++) {
        const char *v = default_cases[_i].versions[n];
        ctk_sdk_conf_t *c = &cfg->sdks[n];
        bool has_patch = strchr(strchr(v, '.') + 1, '.') != NULL;

        c->version = has_patch ? strndup(v, (size_t)(strrchr(v, '.') - v)) : strdup(v);
        c->module_version = tu_str("v%zu", n);
        c->module_version = strdup(c->module_version);
        c->base = strdup("/sw/cuda");
        full = has_patch ? (char *)v : NULL;
        sdks[n] = fake_sdk(c, c->version, full, "/sw/cuda/include", "/sw/cuda/lib64", NULL, NULL,
                           NULL, NULL, NULL, NULL, NULL);
    }
    cfg->n_sdks = n;
    cfg->default_version = default_cases[_i].configured ? strdup(default_cases[_i].configured) : NULL;
    ck_assert_str_eq(ctk_render_default(cfg, sdks, n), default_cases[_i].want);
    /* the .modulerc files say the same */
    {
        ctk_outset_t out;
        ctk_error_t err;
        ctk_render_opts_t o = { NULL, "/p" };
        char *want_l = tu_str("module_version(\"cudatoolkit/%s\", \"default\")\n", default_cases[_i].want);
        char *want_t = tu_str("module-version \"cudatoolkit/%s\" default\n", default_cases[_i].want);

        ctk_outset_init(&out);
        ctk_error_init(&err);
        ck_assert_msg(ctk_render_all(cfg, sdks, n, &o, &out, &err), "%s", err.text);
        ck_assert_ptr_nonnull(strstr(out_file(&out, "lmod/cudatoolkit/.modulerc.lua"), want_l));
        ck_assert_ptr_nonnull(strstr(out_file(&out, "tcl/cudatoolkit/.modulerc"), want_t));
        /* one default line in each, whatever the rest */
        ck_assert_ptr_null(strstr(strstr(out_file(&out, "lmod/cudatoolkit/.modulerc.lua"), want_l) + strlen(want_l),
                                  "\"default\")"));
        ck_assert_ptr_null(strstr(strstr(out_file(&out, "tcl/cudatoolkit/.modulerc"), want_t) + strlen(want_t),
                                  " default\n"));
        ctk_outset_fini(&out);
    }
    for (i = 0; i < n; i++)
        ctk_sdk_free(sdks[i]);
    ctk_config_free(cfg);
    tu_free_kept();
}
END_TEST

/* ---- dropped automatic aliases, as notes ---------------------------------------- */
/* SDKs "name=full[+alias]" in order. */
static ctk_config_t *named_config(const char *const *spec, size_t n, ctk_sdk_t **sdks)
{
    ctk_config_t *cfg = base_config();
    size_t i;

    cfg->sdks = calloc(n, sizeof *cfg->sdks);
    cfg->n_sdks = n;
    for (i = 0; i < n; i++) {
        ctk_sdk_conf_t *c = &cfg->sdks[i];
        char *sp = strdup(spec[i]), *eq = strchr(sp, '='), *plus = strchr(sp, '+');

        *eq = '\0';
        if (plus) {
            *plus = '\0';
            c->aliases = calloc(1, sizeof *c->aliases);
            c->n_aliases = 1;
            c->aliases[0] = strdup(plus + 1);
        }
        c->module_version = strdup(sp);
        c->version = strndup(eq + 1, (size_t)(strrchr(eq + 1, '.') - (eq + 1)));
        c->base = strdup("/sw/cuda");
        sdks[i] = fake_sdk(c, c->version, eq + 1, "/sw/cuda/include", "/sw/cuda/lib64", NULL, NULL,
                           NULL, NULL, NULL, NULL, NULL);
        free(sp);
    }
    return cfg;
}

static const struct {
    const char *spec[3];
    const char *notes[2];
    const char *absent; /* no such alias line in .modulerc.lua */
} note_cases[] = {
    { { "13.0=13.0.0", "13.0-hpc=13.0.0" },
      { "cudatoolkit: 13.0.0 is the full version of both 13.0 and 13.0-hpc: no 13.0.0 alias written" },
      "\"13.0.0\")" },
    { { "13.0=13.0.0", "13.0-a=13.0.0", "13.0-b=13.0.0" },
      { "cudatoolkit: 13.0.0 is the full version of 13.0, 13.0-a and 13.0-b: no 13.0.0 alias written" },
      "\"13.0.0\")" },
    { { "12.4=12.4.1", "12.4-b=12.4.0+12.4.1" },
      { "cudatoolkit: 12.4.1 is the full version of 12.4 and an alias of 12.4-b: no 12.4.1 alias for 12.4 written" },
      "cudatoolkit/12.4\", \"12.4.1\")" },
    { { "12.4=12.4.1", "12.4.1=12.4.1" },
      { "cudatoolkit: 12.4.1 is the full version of 12.4 and a module version of its own: no 12.4.1 alias for 12.4 written" },
      "\"12.4.1\")" },
    /* an explicit alias of its own that says the same: nothing lost */
    { { "12.4=12.4.1+12.4.1" }, { NULL }, NULL },
    { { "12.4=12.4.1", "13.0=13.0.0" }, { NULL }, NULL },
    { { "12.4=12.4.1", "12.4-x=12.4.1", "13.0=13.0.2" },
      { "cudatoolkit: 12.4.1 is the full version of both 12.4 and 12.4-x: no 12.4.1 alias written" },
      "\"12.4.1\")" },
};

START_TEST(test_render_notes_name_dropped_full_version_aliases)
{
    ctk_sdk_t *sdks[3];
    size_t n = 0, i;
    ctk_config_t *cfg;
    ctk_strlist_t notes;
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/p" };

    while (n < 3 && note_cases[_i].spec[n])
        n++;
    cfg = named_config(note_cases[_i].spec, n, sdks);
    ctk_strlist_init(&notes);
    ctk_error_init(&err);
    ck_assert(ctk_render_notes(cfg, sdks, n, &notes, &err));
    for (i = 0; i < 2 && note_cases[_i].notes[i]; i++) {
        ck_assert_uint_gt(notes.len, i);
        ck_assert_str_eq(notes.items[i], note_cases[_i].notes[i]);
    }
    ck_assert_uint_eq(notes.len, i);
    ctk_outset_init(&out);
    ck_assert_msg(ctk_render_all(cfg, sdks, n, &o, &out, &err), "%s", err.text);
    if (note_cases[_i].absent)
        ck_assert_ptr_null(strstr(out_file(&out, "lmod/cudatoolkit/.modulerc.lua"), note_cases[_i].absent));
    ctk_outset_fini(&out);
    ctk_strlist_fini(&notes);
    free_all(cfg, sdks, n);
}
END_TEST

/* More than CTK_RENDER_FULL_NAMES_NOTE X.Y.Z lines, and one note says so;
 * the lines written count, not the SDKs (two sharing a full version give
 * none), and with "full_version_aliases": false there is no line to count. */
static const struct {
    size_t n;     /* SDKs, each with a full version of its own... */
    bool shared;  /* ...but the last two share one */
    bool full;    /* "full_version_aliases" */
    size_t lines; /* X.Y.Z lines in each .modulerc */
    bool note;    /* the note on what they cost */
} count_cases[] = {
    { CTK_RENDER_FULL_NAMES_NOTE, false, true, CTK_RENDER_FULL_NAMES_NOTE, false },
    { CTK_RENDER_FULL_NAMES_NOTE + 1, false, true, CTK_RENDER_FULL_NAMES_NOTE + 1, true },
    { CTK_RENDER_FULL_NAMES_NOTE + 2, true, true, CTK_RENDER_FULL_NAMES_NOTE, false },
    { CTK_RENDER_FULL_NAMES_NOTE + 1, false, false, 0, false },
};

static size_t count_lines(const char *text, const char *prefix)
{
    size_t n = 0;
    const char *p;

    for (p = text; (p = strstr(p, prefix)); p++)
        n++;
    return n;
}

START_TEST(test_render_notes_count_full_version_names_over_the_limit)
{
    size_t n = count_cases[_i].n, i, dropped = count_cases[_i].shared ? 1 : 0;
    char **spec = calloc(n, sizeof *spec), want[400];
    ctk_sdk_t **sdks = calloc(n, sizeof *sdks);
    ctk_config_t *cfg;
    ctk_strlist_t notes;
    ctk_outset_t out;
    ctk_error_t err;
    ctk_render_opts_t o = { NULL, "/p" };

    for (i = 0; i < n; i++) {
        spec[i] = malloc(32);
        snprintf(spec[i], 32, "13.0-t%zu=13.0.%zu", i + 1,
                 count_cases[_i].shared && i + 1 == n ? n - 1 : i + 1);
    }
    cfg = named_config((const char *const *)spec, n, sdks);
    cfg->full_version_aliases = count_cases[_i].full;
    ctk_strlist_init(&notes);
    ctk_error_init(&err);
    ck_assert(ctk_render_notes(cfg, sdks, n, &notes, &err));
    ck_assert_uint_eq(notes.len, dropped + (count_cases[_i].note ? 1 : 0));
    snprintf(want, sizeof want,
             "cudatoolkit: the .modulerc files hold %zu full-version names (X.Y.Z), one line each, "
             "which every module avail and module load of cudatoolkit reads; "
             "\"full_version_aliases\": false in the site config leaves them out",
             count_cases[_i].lines);
    if (count_cases[_i].note)
        ck_assert_str_eq(notes.items[notes.len - 1], want);
    for (i = 0; i + (count_cases[_i].note ? 1 : 0) < notes.len; i++)
        ck_assert_ptr_null(strstr(notes.items[i], "full-version names"));
    ctk_outset_init(&out);
    ck_assert_msg(ctk_render_all(cfg, sdks, n, &o, &out, &err), "%s", err.text);
    ck_assert_uint_eq(count_lines(out_file(&out, "lmod/cudatoolkit/.modulerc.lua"), "\", \"13.0."),
                      count_cases[_i].lines);
    ck_assert_uint_eq(count_lines(out_file(&out, "tcl/cudatoolkit/.modulerc"), "\" \"13.0."),
                      count_cases[_i].lines);
    ctk_outset_fini(&out);
    ctk_strlist_fini(&notes);
    free_all(cfg, sdks, n);
    for (i = 0; i < n; i++)
        free(spec[i]);
    free(spec);
    free(sdks);
}
END_TEST

/* ---- Tcl completeness ------------------------------------------------------------ */
static const struct {
    const char *text;
    ctk_tcl_check_t want;
    int line;
} tcl_cases[] = {
    { "", CTK_TCL_COMPLETE, 0 },
    { "puts a\n", CTK_TCL_COMPLETE, 0 },
    { "proc ModulesHelp {} {\n    puts stderr \"x\"\n}\n", CTK_TCL_COMPLETE, 0 },
    { "proc ModulesHelp {} {\n    puts stderr \"x\"\n", CTK_TCL_INCOMPLETE, 1 },
    { "a {b {c}\n", CTK_TCL_INCOMPLETE, 1 },
    { "a {b \\}\n", CTK_TCL_INCOMPLETE, 1 },          /* an escaped brace does not count */
    { "a {b \\{}\n", CTK_TCL_COMPLETE, 0 },
    { "a {b \\\\}\n", CTK_TCL_COMPLETE, 0 },           /* an escaped backslash does not escape */
    { "a }\n", CTK_TCL_COMPLETE, 0 },                   /* a stray close is a plain character */
    { "a b}\n", CTK_TCL_COMPLETE, 0 },
    { "a \"b\n", CTK_TCL_INCOMPLETE, 1 },
    { "a \"b\\\"\n", CTK_TCL_INCOMPLETE, 1 },
    { "a \"b\\\\\"\n", CTK_TCL_COMPLETE, 0 },
    { "a \"b\nc\"\n", CTK_TCL_COMPLETE, 0 },
    { "a b\"c\n", CTK_TCL_COMPLETE, 0 },               /* a quote inside a word is text */
    { "a b{c\n", CTK_TCL_COMPLETE, 0 },
    { "a \"{\"\n", CTK_TCL_COMPLETE, 0 },               /* braces inside quotes do not count */
    { "a {\"}\n", CTK_TCL_COMPLETE, 0 },                /* quotes inside braces do not count */
    { "a [b\n", CTK_TCL_INCOMPLETE, 1 },
    { "a [b]\n", CTK_TCL_COMPLETE, 0 },
    { "a [b [c]\n", CTK_TCL_INCOMPLETE, 1 },
    { "a \"[b\"\n", CTK_TCL_INCOMPLETE, 1 },           /* brackets work inside quotes */
    { "a \"[b]\"\n", CTK_TCL_COMPLETE, 0 },
    { "a {[b}\n", CTK_TCL_COMPLETE, 0 },                /* and not inside braces */
    { "a [b \"]\"]\n", CTK_TCL_COMPLETE, 0 },
    { "a [b {]}]\n", CTK_TCL_COMPLETE, 0 },
    { "a ]\n", CTK_TCL_COMPLETE, 0 },
    { "a \\[b\n", CTK_TCL_COMPLETE, 0 },
    { "# {\n", CTK_TCL_COMPLETE, 0 },                   /* comments hide braces at the top level */
    { "# a\\\n{\n", CTK_TCL_COMPLETE, 0 },              /* a comment continues past backslash-newline */
    { "# a\\\\\n{\n", CTK_TCL_INCOMPLETE, 2 },
    { "a ;# {\n", CTK_TCL_COMPLETE, 0 },
    { "a # {\n", CTK_TCL_INCOMPLETE, 1 },               /* not at a command's start: a word */
    { "proc p {} {\n  # {\n}\n", CTK_TCL_INCOMPLETE, 1 }, /* inside braces a comment is text */
    { "[# ]\n]", CTK_TCL_COMPLETE, 0 },
    { "[# ]", CTK_TCL_INCOMPLETE, 1 },
    { "a \\\n", CTK_TCL_INCOMPLETE, 1 },
    { "a \\\\\n", CTK_TCL_COMPLETE, 0 },
    { "a\\\n", CTK_TCL_INCOMPLETE, 1 },
    { "# a \\\n", CTK_TCL_INCOMPLETE, 1 },
    { "a\\", CTK_TCL_COMPLETE, 0 },
    { "a\\\nb\n", CTK_TCL_COMPLETE, 0 },
    { "a ${b\n", CTK_TCL_INCOMPLETE, 1 },
    { "a ${b}\n", CTK_TCL_COMPLETE, 0 },
    { "a ${}\n", CTK_TCL_COMPLETE, 0 },
    { "a $b(c\n", CTK_TCL_INCOMPLETE, 1 },
    { "a $b(c d e]\n", CTK_TCL_INCOMPLETE, 1 },
    { "a $b(c)\n", CTK_TCL_COMPLETE, 0 },
    { "a $(c\n", CTK_TCL_INCOMPLETE, 1 },
    { "a $::b(\n", CTK_TCL_INCOMPLETE, 1 },
    { "a $:b(\n", CTK_TCL_COMPLETE, 0 },
    { "a $ (\n", CTK_TCL_COMPLETE, 0 },
    { "a $b([c)\n", CTK_TCL_INCOMPLETE, 1 },
    { "a {$b(}\n", CTK_TCL_COMPLETE, 0 },
    { "a \"$b(\"\n", CTK_TCL_INCOMPLETE, 1 },
    { "a {*}{b c}\n", CTK_TCL_COMPLETE, 0 },
    { "a {*}$b\n", CTK_TCL_COMPLETE, 0 },
    { "a {*}\n", CTK_TCL_COMPLETE, 0 },
    { "a {*}{b\n", CTK_TCL_INCOMPLETE, 1 },
    { "a\nb {\n\nc\n", CTK_TCL_INCOMPLETE, 2 },
    { "a\r\nb\r\n", CTK_TCL_COMPLETE, 0 },
    /* complete, but no script Tcl runs */
    { "a {b}c\n", CTK_TCL_BAD, 1 },
    { "a\n\"b\"c\n", CTK_TCL_BAD, 2 },
    { "a {*}{*}b\n", CTK_TCL_BAD, 1 },
    { "a \"b\"c {\n", CTK_TCL_BAD, 1 },                 /* the error comes first */
};

START_TEST(test_render_tcl_check_cases)
{
    int line = -1;
    const char *why = NULL;
    const char *t = tcl_cases[_i].text;

    ck_assert_msg(ctk_render_check_tcl(t, strlen(t), &line, &why) == tcl_cases[_i].want,
                  "case %d: \"%s\": %s", _i, t, why ? why : "complete");
    ck_assert_int_eq(line, tcl_cases[_i].line);
    ck_assert(tcl_cases[_i].want == CTK_TCL_COMPLETE ? why == NULL : why != NULL);
}
END_TEST

/* Brackets nested past the limit: refused, the C stack untouched. */
START_TEST(test_render_tcl_check_deep_nesting)
{
    size_t n = 100000, i;
    char *t = malloc(2 * n + 1);

    for (i = 0; i < n; i++) {
        t[i] = '[';
        t[n + i] = ']';
    }
    t[2 * n] = '\0';
    ck_assert_int_eq(ctk_render_check_tcl(t, 2 * n, NULL, NULL), CTK_TCL_BAD);
    free(t);
}
END_TEST

/* Every case above, and random scripts of Tcl's special characters, against
 * the real `info complete` of the tclsh on PATH. */
START_TEST(test_render_tcl_check_agrees_with_tclsh)
{
    static const char alphabet[] = "{}[]\"\\$()#; \n\tab:*";
    char *dir = tu_mkdtemp(), *in, *script, *outp, *got, *line, *save = NULL;
    FILE *f;
    size_t n = sizeof tcl_cases / sizeof tcl_cases[0], total, i, k, disagree = 0;
    char buf[32];
    unsigned seed = 12345;

    if (tu_sh("command -v tclsh >/dev/null 2>&1") != 0) {
        fprintf(stderr, "SKIP: check_render: no tclsh on PATH: the Tcl checker was not compared "
                "with Tcl's own info complete\n");
        tu_rmtree(dir);
        free(dir);
        return;
    }
    in = tu_str("%s/cases", dir);
    script = tu_write(dir, "ic.tcl",
                      "fconfigure stdin -translation binary\n"
                      "while {[gets stdin line] >= 0} {\n"
                      "    set s [encoding convertfrom utf-8 [binary format H* [string trim $line]]]\n"
                      "    puts [info complete $s]\n"
                      "}\n");
    outp = tu_str("%s/answers", dir);
    total = n + 5000;
    {
        char **texts = calloc(total, sizeof *texts);

        f = fopen(in, "w");
        ck_assert_ptr_nonnull(f);
        for (i = 0; i < total; i++) {
            if (i < n) {
                texts[i] = strdup(tcl_cases[i].text);
            } else {
                size_t len = (seed = seed * 1103515245u + 12345u) >> 16 & 15;

                texts[i] = calloc(len + 1, 1);
                for (k = 0; k < len; k++) {
                    seed = seed * 1103515245u + 12345u;
                    texts[i][k] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
                }
            }
            for (k = 0; texts[i][k]; k++)
                fprintf(f, "%02x", (unsigned char)texts[i][k]);
            fputc('\n', f);
        }
        fclose(f);
        ck_assert_int_eq(tu_sh("tclsh '%s' < '%s' > '%s'", script, in, outp), 0);
        got = tu_read(outp);
        ck_assert_ptr_nonnull(got);
        for (i = 0, line = strtok_r(got, "\n", &save); i < total && line;
             i++, line = strtok_r(NULL, "\n", &save)) {
            ctk_tcl_check_t r = ctk_render_check_tcl(texts[i], strlen(texts[i]), NULL, NULL);
            int mine = r != CTK_TCL_INCOMPLETE;

            if (mine != atoi(line)) {
                disagree++;
                if (disagree < 10) {
                    size_t m = 0;

                    for (k = 0; texts[i][k] && m + 5 < sizeof buf; k++)
                        m += (size_t)snprintf(buf + m, sizeof buf - m,
                                              texts[i][k] == '\n' ? "\\n" : "%c", texts[i][k]);
                    buf[m] = '\0';
                    fprintf(stderr, "check_render: tclsh says %s for [%s], the checker %d\n", line,
                            buf, mine);
                }
            }
        }
        ck_assert_uint_eq(i, total);
        for (i = 0; i < total; i++)
            free(texts[i]);
        free(texts);
        free(got);
    }
    ck_assert_msg(disagree == 0, "%zu of %zu scripts judged otherwise than tclsh", disagree, total);
    free(script);
    tu_rmtree(dir);
    free(dir);
    tu_free_kept();
}
END_TEST

/* ---- broken templates: nothing broken is ever kept ----------------------------- */
static const struct {
    const char *name;    /* the site template */
    const char *text;
    const char *output;  /* the output its error names */
    const char *why;     /* in the error text */
} broken_cases[] = {
    { "lmod.lua", "emitln('-- -*- lua -*-') emitln('setenv(\"A\", ')", "lmod/cudatoolkit/12.4.lua",
      "which Lua cannot load: line 3: unexpected symbol near <eof>" },
    { "lmod.lua", "emit('')", "lmod/cudatoolkit/12.4.lua", "wrote nothing" },
    { "lmod.lua", "emit('a = 1\\0')", "lmod/cudatoolkit/12.4.lua", "wrote a NUL byte" },
    { "lmod-rc.lua", "emitln('module_version(\"cudatoolkit/12.4\" \"x\")')",
      "lmod/cudatoolkit/.modulerc.lua", "which Lua cannot load: line 1: ')' expected near '\"x\"'" },
    { "tcl.lua", "emitln('## no magic') emitln('setenv A b')", "tcl/cudatoolkit/12.4",
      "does not start with \"#%Module\"" },
    { "tcl.lua", "emitln('#%Module1.0') emitln('proc ModulesHelp {} {') emitln('  puts x')",
      "tcl/cudatoolkit/12.4", "not a complete Tcl script: line 2: missing close-brace" },
    { "tcl.lua", "emitln('#%Module1.0') emitln('setenv A \"b')", "tcl/cudatoolkit/12.4",
      "not a complete Tcl script: line 2: missing close-quote" },
    { "tcl.lua", "emitln('#%Module1.0') emitln('setenv A {b}c')", "tcl/cudatoolkit/12.4",
      "which Tcl cannot parse: line 2: extra characters after close-brace" },
    { "tcl-rc.lua", "emitln('module-version cudatoolkit/12.4 default')", "tcl/cudatoolkit/.modulerc",
      "does not start with \"#%Module\"" },
    { "tcl-rc.lua", "emitln('#%Module') emitln('module-version [x default')",
      "tcl/cudatoolkit/.modulerc", "line 2: missing close-bracket" },
    { "pc.lua", "emitln('Name: ctk') emitln('Description: d')", "pkgconfig/ctk-12.4.pc",
      "not a .pc file: no Version field" },
    { "pc.lua", "emitln('Name: ctk') emitln('Description: d') emitln('Version: 1 2')",
      "pkgconfig/ctk-12.4.pc", "line 3: a blank inside the Version" },
    { "pc.lua", "emitln('Name: ctk') emitln('Description: d') emitln('Version: 1') emitln('Cflags: -I${incdir}')",
      "pkgconfig/ctk-12.4.pc", "line 4: ${incdir} names no variable defined above it" },
    { "pc.lua", "emitln('Name: ctk') emitln('-L/x') emitln('Description: d') emitln('Version: 1')",
      "pkgconfig/ctk-12.4.pc", "line 2: neither a variable" },
    { "pc-lib.lua", "emitln('Name: x') emitln('Name: y') emitln('Description: d') emitln('Version: 1')",
      "pkgconfig/ctk-cudart-12.4.pc", "line 2: a second Name field" },
};

START_TEST(test_render_refuses_broken_template_output)
{
    char *dir = tu_mkdtemp(), *p = tu_write(dir, broken_cases[_i].name, broken_cases[_i].text);
    ctk_outset_t out;
    ctk_error_t err;

    ck_assert(!render_one("/opt/cuda-12.4", dir, &out, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_str_eq(err.source, p);
    ck_assert_msg(strstr(err.text, broken_cases[_i].output) != NULL, "%s", err.text);
    ck_assert_msg(strstr(err.text, broken_cases[_i].why) != NULL, "%s", err.text);
    free(p);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* What the built-in templates write passes the same checks (it did above,
 * in every golden test); the checks accept a .pc file of every shape they
 * write, continued lines and escaped '#' included. */
START_TEST(test_render_pc_check_accepts_pkgconf_syntax)
{
    char *dir = tu_mkdtemp(), *p;
    ctk_outset_t out;
    ctk_error_t err;

    p = tu_write(dir, "pc.lua",
                 "emitln('# c') emitln('  ') emitln('prefix=/a\\\\#b # c') emitln('libdir=${prefix}/lib')\n"
                 "emitln('Name: ctk # not part of it') emitln('Description: a \\\\') emitln('  b')\n"
                 "emitln('Version: 1.2') emitln('Libs: -L${libdir} -L${pcfiledir}')\n");
    ck_assert_msg(render_one("/opt/cuda-12.4", dir, &out, &err), "%s", err.text);
    free(p);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* ---- the template dir holds templates only ---------------------------------------- */
static const struct {
    const char *files[3];   /* "name" (a file) or "name/" (a dir) */
    const char *bad;        /* the entry the error names; "" for the dir itself; NULL: fine */
    const char *why;
} tdir_cases[] = {
    { { "lmod.lau" }, "lmod.lau", "not a template ctkgen knows; did you mean lmod.lua?" },
    { { "lmod.lua", "tcl-rc.lau" }, "tcl-rc.lau", "did you mean tcl-rc.lua?" },
    { { "pc.lua", "PC-LIB.LUA" }, "PC-LIB.LUA", "did you mean pc-lib.lua?" },
    { { "lmod.lua", "README" }, "README", "not a template ctkgen knows (it reads lmod.lua, " },
    { { "lmod.lua", "zz.lua", "aa.txt" }, "aa.txt", "not a template ctkgen knows" },
    { { "lmod.lua/" }, "lmod.lua", "not a regular file" },
    { { NULL }, "", "holds none of the templates ctkgen reads" },
    { { ".git/", ".lmod.lua.swp" }, "", "holds none of the templates" },
    { { "lmod.lua", ".git/", ".lmod.lua.swp" }, NULL, NULL },
    { { "lmod.lua", "lmod-rc.lua", "pc-lib.lua" }, NULL, NULL },
};

START_TEST(test_render_template_dir_holds_templates_only)
{
    char *dir = tu_mkdtemp(), *want;
    const char *base = "emitln('-- -*- lua -*-')";
    ctk_outset_t out;
    ctk_error_t err;
    size_t i;

    for (i = 0; i < 3 && tdir_cases[_i].files[i]; i++) {
        const char *f = tdir_cases[_i].files[i];

        if (f[strlen(f) - 1] == '/')
            free(tu_mkdirs(dir, f));
        else if (strcmp(f, "lmod.lua") == 0)
            free(tu_write(dir, f, "emitln('-- -*- lua -*-')"));
        else if (strcmp(f, "lmod-rc.lua") == 0)
            free(tu_write(dir, f, base));
        else if (strcmp(f, "pc-lib.lua") == 0)
            free(tu_write(dir, f, "emitln('Name: a') emitln('Description: b') emitln('Version: 1')"));
        else
            free(tu_write(dir, f, "x"));
    }
    if (!tdir_cases[_i].bad) {
        ck_assert_msg(render_one("/opt/cuda-12.4", dir, &out, &err), "%s: %s", err.source, err.text);
    } else {
        ck_assert(!render_one("/opt/cuda-12.4", dir, &out, &err));
        ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
        want = *tdir_cases[_i].bad ? tu_str("%s/%s", dir, tdir_cases[_i].bad) : tu_str("%s", dir);
        ck_assert_str_eq(err.source, want);
        ck_assert_int_eq(err.line, 0);
        ck_assert_msg(strstr(err.text, tdir_cases[_i].why) != NULL, "%s", err.text);
    }
    tu_rmtree(dir);
    free(dir);
    tu_free_kept();
}
END_TEST

/* ---- one clean FILE:LINE: error ------------------------------------------------------ */
static const struct {
    const char *text;
    int line;
    const char *msg; /* err.text exactly */
} lerr_cases[] = {
    { "emit('x')\nlocal y = nil .. 1\n", 2, "attempt to concatenate a nil value" },
    { "emit('x')\nerror('no such thing')\n", 2, "no such thing" },
    /* raised with no position: the line of the function that raised it */
    { "local function f()\n  error('raised at level 0', 0)\nend\nf()\n", 2, "raised at level 0" },
    { "emit('x'\n", 2, "')' expected (to close '(' at line 1) near <eof>" },
    { "local t = nil\n\nreturn t.x\n", 3, "attempt to index a nil value (local 't')" },
    { "emit(string.rep('x', -1, {}))\n", 1,
      "bad argument #3 to 'rep' (string expected, got table)" },
};

START_TEST(test_render_template_error_is_one_line_with_one_position)
{
    /* a long dir: Lua shortens long chunk names to "...tail" in its messages */
    char *dir = tu_mkdtemp(), *deep, *p;
    ctk_outset_t out;
    ctk_error_t err;
    int pass, c = _i / 2;

    deep = tu_mkdirs(dir, _i % 2 ? "a-rather-long-directory-name/that-goes-on-and-on/and-on/templates" : "t");
    for (pass = 0; pass < 2; pass++) {
        p = tu_write(deep, pass ? "tcl.lua" : "lmod.lua", lerr_cases[c].text);
        ck_assert(!render_one("/opt/cuda-12.4", deep, &out, &err));
        ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
        ck_assert_str_eq(err.source, p);
        ck_assert_int_eq(err.line, lerr_cases[c].line);
        ck_assert_str_eq(err.text, lerr_cases[c].msg);
        unlink(p);
        free(p);
    }
    free(deep);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_render_lua_check_syntax_compiles_without_running)
{
    ctk_error_t err;
    const char *ok = "error('never run')\nwhile true do end\n";

    ctk_error_init(&err);
    ck_assert(ctk_lua_check_syntax("x.lua", ok, strlen(ok), &err));
    ck_assert(!ctk_lua_check_syntax("x.lua", "a = \n\n", 6, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_str_eq(err.source, "x.lua");
    ck_assert_int_eq(err.line, 3);
    ck_assert_str_eq(err.text, "unexpected symbol near <eof>");
    ctk_error_init(&err);
    ck_assert(!ctk_lua_check_syntax("x.lua", "\x1bLua", 4, &err)); /* text only */
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
}
END_TEST

/* ---- the pkgconfig dir is no SDK's ---------------------------------------------------- */
START_TEST(test_render_bad_pkgconfig_dir_has_no_config_position)
{
    ctk_outset_t out;
    ctk_error_t err;

    ck_assert(!render_one_pc("/opt/cuda-12.4", NULL, "/srv/out\nx/pkgconfig", &out, &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_str_eq(err.source, "");
    ck_assert_int_eq(err.line, 0);
    ck_assert_int_eq(err.column, 0);
    ck_assert_msg(strstr(err.text, "pkgconfig dir /srv/out?x/pkgconfig") != NULL, "%s", err.text);
    ck_assert_msg(strstr(err.text, "newline") != NULL, "%s", err.text);
    ck_assert_msg(strstr(err.text, "/sdks/0") == NULL, "%s", err.text);
    ck_assert(!render_one_pc("/opt/cuda-12.4", NULL, "/srv/a:b/pkgconfig", &out, &err));
    ck_assert_str_eq(err.source, "");
    ck_assert_msg(strstr(err.text, "':'") != NULL, "%s", err.text);
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
    tcase_add_test(tc, test_render_wheel_link_files_match_golden);
    tcase_add_test(tc, test_render_link_file_refuses_a_quote);
    tcase_add_test(tc, test_render_hpcsdk_split_matches_golden);
    tcase_add_test(tc, test_render_refuses_colon_in_search_path);
    tcase_add_test(tc, test_render_refuses_newline_in_path);
    tcase_add_test(tc, test_render_pc_cmake_lists_leave_out_a_semicolon);
    tcase_add_test(tc, test_render_uses_site_template_dir);
    tcase_add_test(tc, test_render_nvshmem_and_sdk_help_match_golden);
    tcase_add_test(tc, test_render_properties_site_then_sdk);
    tcase_add_test(tc, test_render_whatis_names_only_what_the_toolkit_holds);
    tcase_add_test(tc, test_render_multi_sdk_modulerc_matches_golden);
    tcase_add_loop_test(tc, test_render_modulerc_without_full_version_aliases, 0, 2);
    tcase_add_loop_test(tc, test_render_default_follows_the_rule, 0,
                        sizeof default_cases / sizeof default_cases[0]);
    tcase_add_loop_test(tc, test_render_notes_name_dropped_full_version_aliases, 0,
                        sizeof note_cases / sizeof note_cases[0]);
    tcase_add_loop_test(tc, test_render_notes_count_full_version_names_over_the_limit, 0,
                        sizeof count_cases / sizeof count_cases[0]);
    tcase_add_loop_test(tc, test_render_tcl_check_cases, 0, sizeof tcl_cases / sizeof tcl_cases[0]);
    tcase_add_test(tc, test_render_tcl_check_deep_nesting);
    tcase_add_test(tc, test_render_tcl_check_agrees_with_tclsh);
    tcase_add_loop_test(tc, test_render_refuses_broken_template_output, 0,
                        sizeof broken_cases / sizeof broken_cases[0]);
    tcase_add_test(tc, test_render_pc_check_accepts_pkgconf_syntax);
    tcase_add_loop_test(tc, test_render_template_dir_holds_templates_only, 0,
                        sizeof tdir_cases / sizeof tdir_cases[0]);
    tcase_add_loop_test(tc, test_render_template_error_is_one_line_with_one_position, 0,
                        2 * (sizeof lerr_cases / sizeof lerr_cases[0]));
    tcase_add_test(tc, test_render_lua_check_syntax_compiles_without_running);
    tcase_add_test(tc, test_render_bad_pkgconfig_dir_has_no_config_position);
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
