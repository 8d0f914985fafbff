/* render.c - SDK records + Lua templates -> the text of every output file.
 * SPDX-License-Identifier: MIT
 *
 * This file turns each ctk_sdk_t into a plain data tree (ctk_lval_t) and
 * runs the templates over it.  It decides names (file names, aliases, the
 * version variable) and the .pc variable layout; which directory goes on
 * which variable was decided in sdk.c.
 */
#include <ctkconf.h>

#include "render.h"
#include "luahost.h"
#include "quote.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define TEMPLATE_MAX_BYTES (1u << 20)

/* ---- templates ------------------------------------------------------------- */
/* Source of a template: the site's directory first, then the built-in one.
 * *owned is set when the text was read from disk and must be freed. */
static const char *template_text(const ctk_render_opts_t *opts, const char *name, size_t *len,
                                 char **owned, char **label, ctk_error_t *err)
{
    const ctk_template_t *t;

    *owned = NULL;
    *label = NULL;
    if (opts && opts->template_dir) {
        char *path = ctk_path_join(opts->template_dir, name, err);

        if (!path)
            return NULL;
        if (ctk_is_file(path)) {
            *owned = ctk_file_read(path, TEMPLATE_MAX_BYTES, len, err);
            if (!*owned) {
                free(path);
                return NULL;
            }
            *label = path;
            return *owned;
        }
        free(path);
    }
    for (t = ctk_builtin_templates; t->name; t++) {
        if (strcmp(t->name, name) == 0) {
            *len = (size_t)t->len;
            *label = ctk_printf(err, "templates/%s", name);
            return *label ? t->data : NULL;
        }
    }
    ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "no built-in template %s", name);
    return NULL;
}

static bool run_template(const ctk_render_opts_t *opts, const char *name, const ctk_lval_t *data,
                         const char *relpath, ctk_outset_t *out, ctk_error_t *err)
{
    char *owned = NULL, *label = NULL, *text = NULL;
    size_t len = 0, outlen = 0;
    const char *src = template_text(opts, name, &len, &owned, &label, err);
    bool ok = false;

    if (!src)
        goto out;
    text = ctk_lua_render(label, src, len, data, NULL, &outlen, err);
    if (!text)
        goto out;
    ok = ctk_outset_take(out, relpath, text, outlen, err);
out:
    free(owned);
    free(label);
    return ok;
}

/* ---- small builders ------------------------------------------------------- */
/* Builders tolerate a NULL container or value (an earlier allocation failed)
 * and clear b->ok; the caller reports CTK_E_NOMEM once, at the end. */
typedef struct {
    bool ok;
} build_t;

static void bput(build_t *b, ctk_lval_t *map, const char *key, ctk_lval_t *v)
{
    if (!ctk_lval_set(map, key, v)) /* frees v on failure, NULL map included */
        b->ok = false;
}

static void bpush(build_t *b, ctk_lval_t *list, ctk_lval_t *v)
{
    if (!ctk_lval_push(list, v))
        b->ok = false;
}

/* A value of s, which is freed.  Where s is NULL (a ctk_printf that ran
 * out of memory) so is the value, and the bput/bpush it goes to fails;
 * ctk_lval_str(NULL) would give a nil, and the text would silently lack it. */
static ctk_lval_t *str_take(char *s)
{
    ctk_lval_t *v = s ? ctk_lval_str(s) : NULL;

    free(s);
    return v;
}

static ctk_lval_t *strlist_val(build_t *b, const ctk_strlist_t *l)
{
    ctk_lval_t *list = ctk_lval_list();
    size_t i;

    for (i = 0; i < l->len; i++)
        bpush(b, list, ctk_lval_str(l->items[i]));
    return list;
}

static ctk_lval_t *pair_val(build_t *b, const char *name, const char *value)
{
    ctk_lval_t *m = ctk_lval_map();

    bput(b, m, "name", ctk_lval_str(name));
    bput(b, m, "value", ctk_lval_str(value));
    return m;
}

/* CUDATOOLKIT_VERSION from "cudatoolkit", non-alphanumerics as '_'. */
static char *version_var(const char *module_name, ctk_error_t *err)
{
    char *v = ctk_printf(err, "%s_VERSION", module_name);
    char *p;

    if (!v)
        return NULL;
    for (p = v; *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    if (isdigit((unsigned char)v[0]))
        v[0] = '_';
    return v;
}

/* ---- the .pc variable layout ------------------------------------------------ */
typedef struct {
    const char *var;
    const char *dir;
    bool include; /* -I (else -L) */
} pc_role_t;

static bool under(const char *dir, const char *root)
{
    size_t n = strlen(root);

    return strncmp(dir, root, n) == 0 && dir[n] == '/' && dir[n + 1] != '\0';
}

/* Whether roles[i] gets a .pc variable: its dir survived deduplication in
 * sdk.c and no earlier role has the same dir (math_libs inside base). */
static bool role_used(const pc_role_t *roles, size_t i, const ctk_sdk_t *s)
{
    const ctk_strlist_t *l = roles[i].include ? &s->cpath : &s->library_path;
    size_t j;

    if (!roles[i].dir || !ctk_strlist_contains(l, roles[i].dir))
        return false;
    for (j = 0; j < i; j++)
        if (roles[j].dir && strcmp(roles[j].dir, roles[i].dir) == 0)
            return false;
    return true;
}

static ctk_lval_t *pc_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s, const char *desc)
{
    const pc_role_t roles[] = {
        { "includedir", s->incdir, true },
        { "math_includedir", s->math_incdir, true },
        { "cupti_includedir", s->cupti_incdir, true },
        { "nvvm_includedir", s->nvvm_incdir, true },
        { "nccl_includedir", s->nccl_incdir, true },
        { "nvshmem_includedir", s->nvshmem_incdir, true },
        { "libdir", s->libdir, false },
        { "math_libdir", s->math_libdir, false },
        { "cupti_libdir", s->cupti_libdir, false },
        { "nvvm_libdir", s->nvvm_libdir, false },
        { "nccl_libdir", s->nccl_libdir, false },
        { "nvshmem_libdir", s->nvshmem_libdir, false },
    };
    ctk_lval_t *pc = ctk_lval_map(), *vars = ctk_lval_list();
    ctk_lval_t *cflags = ctk_lval_list(), *libdirs = ctk_lval_list();
    bool root_used = false;
    size_t i;

    /* every variable defined is used in Cflags or Libs */
    for (i = 0; i < sizeof roles / sizeof roles[0]; i++)
        if (role_used(roles, i, s) && under(roles[i].dir, s->root))
            root_used = true;
    if (root_used) {
        ctk_lval_t *v = ctk_lval_map();

        bput(b, v, "name", ctk_lval_str("cudaroot"));
        bput(b, v, "value", ctk_lval_str(s->root));
        bpush(b, vars, v);
    }
    for (i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        ctk_lval_t *v;

        if (!role_used(roles, i, s))
            continue;
        v = ctk_lval_map();
        bput(b, v, "name", ctk_lval_str(roles[i].var));
        if (under(roles[i].dir, s->root)) {
            bput(b, v, "ref", ctk_lval_str("cudaroot"));
            bput(b, v, "value", ctk_lval_str(roles[i].dir + strlen(s->root)));
        } else {
            bput(b, v, "value", ctk_lval_str(roles[i].dir));
        }
        bpush(b, vars, v);
        bpush(b, roles[i].include ? cflags : libdirs, ctk_lval_str(roles[i].var));
    }
    bput(b, pc, "vars", vars);
    bput(b, pc, "cflags", cflags);
    bput(b, pc, "libdirs", libdirs);
    bput(b, pc, "libs", ctk_lval_str("-lcudart"));
    bput(b, pc, "rpath", ctk_lval_bool(cfg->pc_rpath));
    bput(b, pc, "description", ctk_lval_str(desc));
    return pc;
}

/* ---- one SDK's data tree ---------------------------------------------------- */
static ctk_lval_t *sdk_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s,
                           const char *pkgconfig_dir, const ctk_sdk_lib_t *lib, ctk_error_t *err)
{
    const ctk_sdk_conf_t *c = s->conf;
    const char *shown = s->version_full ? s->version_full : s->version_mm;
    ctk_lval_t *m = ctk_lval_map(), *paths = ctk_lval_list(), *env = ctk_lval_list();
    ctk_lval_t *whatis = ctk_lval_list(), *prereq = ctk_lval_list();
    char *vvar = version_var(cfg->module_name, err);
    char *pc_name = ctk_printf(err, "%s-%s", cfg->pc_prefix, s->module_version);
    char *desc = ctk_printf(err, "NVIDIA CUDA Toolkit %s", shown);
    char *vsrc = ctk_printf(err, "%s (%s)", ctk_version_source_name(s->version.source), s->version.path);
    ctk_buf_t help;
    ctk_strlist_t pcpath;
    struct {
        const char *name;
        const ctk_strlist_t *dirs;
    } vars[] = {
        { "PATH", &s->path },
        { "CPATH", &s->cpath },
        { "LIBRARY_PATH", &s->library_path },
        { "LD_LIBRARY_PATH", &s->ld_library_path },
        { "MANPATH", &s->manpath },
        { "PKG_CONFIG_PATH", &pcpath },
    };
    size_t i;

    ctk_strlist_init(&pcpath);
    ctk_buf_init(&help);
    if (!vvar || !pc_name || !desc || !vsrc || !ctk_strlist_push(&pcpath, pkgconfig_dir, err))
        b->ok = false;

    bput(b, m, "header", ctk_lval_str(CTK_GENERATED_MARK));
    bput(b, m, "module_name", ctk_lval_str(cfg->module_name));
    bput(b, m, "family", ctk_lval_str(cfg->family));
    bput(b, m, "version", ctk_lval_str(s->module_version));
    bput(b, m, "cuda_version", ctk_lval_str(s->version_mm));
    bput(b, m, "full_version", ctk_lval_str(s->version_full));
    bput(b, m, "display_version", ctk_lval_str(shown));
    bput(b, m, "version_source", ctk_lval_str(vsrc));
    bput(b, m, "root", ctk_lval_str(s->root));
    bput(b, m, "pc_name", ctk_lval_str(pc_name));
    bput(b, m, "pc_prefix", ctk_lval_str(cfg->pc_prefix));
    bput(b, m, "description", ctk_lval_str(desc));

    for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        ctk_lval_t *pv;

        if (vars[i].dirs->len == 0)
            continue;
        pv = ctk_lval_map();
        bput(b, pv, "name", ctk_lval_str(vars[i].name));
        bput(b, pv, "dirs", strlist_val(b, vars[i].dirs));
        /* man reads an empty MANPATH element as "the system's pages too";
         * without one, loading the module would hide every other man page */
        bput(b, pv, "keep_default", ctk_lval_bool(strcmp(vars[i].name, "MANPATH") == 0));
        bpush(b, paths, pv);
    }
    bput(b, m, "paths", paths);

    bpush(b, env, pair_val(b, "CUDA_HOME", s->root));
    bpush(b, env, pair_val(b, "CUDA_PATH", s->root));
    bpush(b, env, pair_val(b, "CUDAToolkit_ROOT", s->root));
    if (vvar)
        bpush(b, env, pair_val(b, vvar, shown));
    if (c->host_compiler_ccbin)
        bpush(b, env, pair_val(b, "NVCC_CCBIN", c->host_compiler_ccbin));
    for (i = 0; i < cfg->n_env; i++)
        bpush(b, env, pair_val(b, cfg->env[i].name, cfg->env[i].value));
    for (i = 0; i < c->n_env; i++)
        bpush(b, env, pair_val(b, c->env[i].name, c->env[i].value));
    bput(b, m, "setenv", env);

    if (c->host_compiler_module)
        bpush(b, prereq, ctk_lval_str(c->host_compiler_module));
    bput(b, m, "prereq", prereq);

    bpush(b, whatis, ctk_lval_str("Name: NVIDIA CUDA Toolkit"));
    bpush(b, whatis, str_take(ctk_printf(err, "Version: %s", shown)));
    bpush(b, whatis, str_take(ctk_printf(err, "Description: nvcc, CUDA runtime and math "
                                         "libraries from %s", s->root)));
    bput(b, m, "whatis", whatis);

    ctk_buf_printf(&help,
                   "NVIDIA CUDA Toolkit %s, installed at %s.\n"
                   "\n"
                   "Loading this module puts nvcc on PATH and the toolkit's headers and\n"
                   "libraries on CPATH, LIBRARY_PATH and LD_LIBRARY_PATH, so that\n"
                   "  nvcc app.cu -o app        and   cc app.c -lcudart -o app\n"
                   "work without -I or -L flags.  Build systems can use pkg-config:\n"
                   "  pkg-config --cflags --libs %s\n"
                   "CMake finds it through CUDAToolkit_ROOT.\n",
                   shown, s->root, pc_name ? pc_name : "");
    if (cfg->help)
        ctk_buf_printf(&help, "\n%s\n", cfg->help);
    if (c->help)
        ctk_buf_printf(&help, "\n%s\n", c->help);
    if (help.failed)
        b->ok = false;
    bput(b, m, "help", ctk_lval_str(help.data ? help.data : ""));

    bput(b, m, "pc", pc_val(b, cfg, s, desc ? desc : ""));

    if (lib) {
        ctk_lval_t *l = ctk_lval_map();

        bput(b, l, "name", ctk_lval_str(lib->name));
        bput(b, l, "pc_name", str_take(ctk_printf(err, "%s-%s-%s", cfg->pc_prefix, lib->name,
                                                  s->module_version)));
        bput(b, l, "description", str_take(ctk_printf(err, "%s from NVIDIA CUDA Toolkit %s",
                                                      lib->description, shown)));
        bput(b, l, "link", ctk_lval_str(lib->link));
        bput(b, m, "lib", l);
    }

    ctk_buf_fini(&help);
    ctk_strlist_fini(&pcpath);
    free(vvar);
    free(pc_name);
    free(desc);
    free(vsrc);
    return m;
}

/* ---- checks before rendering ------------------------------------------------ */
static bool check_pathvars(const ctk_config_t *cfg, const ctk_sdk_t *s, const char *pkgconfig_dir,
                           ctk_error_t *err)
{
    const ctk_strlist_t *lists[] = { &s->path, &s->cpath, &s->library_path, &s->ld_library_path,
                                     &s->manpath };
    ctk_error_t e;
    size_t i, j;

    ctk_error_init(&e);
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (j = 0; j < lists[i]->len; j++)
            if (!ctk_quote_check_pathvar(lists[i]->items[j], lists[i]->items[j], &e))
                goto bad;
    if (ctk_quote_check_pathvar(pkgconfig_dir, "pkgconfig dir", &e))
        return true;
bad:
    ctk_error_set(err, CTK_E_QUOTE, cfg->source, s->conf->pos[CTK_F_BASE].line,
                  s->conf->pos[CTK_F_BASE].column, "%s: SDK %s: %s", s->conf->jpath,
                  s->module_version, e.text);
    return false;
}

/* A name users can load: module versions, explicit aliases, full versions. */
typedef struct {
    const char *name;
    size_t sdk;
    bool automatic; /* a full version added by ctkgen, yields to others */
} alias_t;

/* Collect aliases for the .modulerc files; explicit clashes were refused by
 * config.c, automatic ones that clash with anything are dropped. */
static ctk_lval_t *rc_val(build_t *b, const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n)
{
    ctk_lval_t *m = ctk_lval_map(), *mods = ctk_lval_list();
    size_t i, j, k;

    bput(b, m, "header", ctk_lval_str(CTK_GENERATED_MARK));
    bput(b, m, "module_name", ctk_lval_str(cfg->module_name));
    bput(b, m, "default", ctk_lval_str(cfg->default_version));
    for (i = 0; i < n; i++) {
        ctk_lval_t *e = ctk_lval_map(), *al = ctk_lval_list();
        const char *full = sdks[i]->version_full;

        bput(b, e, "version", ctk_lval_str(sdks[i]->module_version));
        for (k = 0; k < sdks[i]->conf->n_aliases; k++)
            bpush(b, al, ctk_lval_str(sdks[i]->conf->aliases[k]));
        if (full && strcmp(full, sdks[i]->module_version) != 0) {
            bool clash = false;

            for (j = 0; j < n && !clash; j++) {
                if (strcmp(sdks[j]->module_version, full) == 0)
                    clash = true;
                if (j != i && sdks[j]->version_full && strcmp(sdks[j]->version_full, full) == 0)
                    clash = true;
                for (k = 0; k < sdks[j]->conf->n_aliases && !clash; k++)
                    clash = strcmp(sdks[j]->conf->aliases[k], full) == 0;
            }
            if (!clash)
                bpush(b, al, ctk_lval_str(full));
        }
        bput(b, e, "aliases", al);
        bpush(b, mods, e);
    }
    bput(b, m, "modules", mods);
    return m;
}

bool ctk_render_all(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks,
                    const ctk_render_opts_t *opts, ctk_outset_t *out, ctk_error_t *err)
{
    const char *pcdir = opts->pkgconfig_dir;
    size_t i, k;
    bool ok = false;
    char *rel = NULL;
    ctk_lval_t *data = NULL;
    build_t b = { true };

    for (i = 0; i < n_sdks; i++) {
        const ctk_sdk_t *s = sdks[i];

        if (!check_pathvars(cfg, s, pcdir, err))
            goto out;
        data = sdk_val(&b, cfg, s, pcdir, NULL, err);
        if (!b.ok || !data) {
            ctk_error_nomem(err);
            goto out;
        }
        if (!(rel = ctk_printf(err, "lmod/%s/%s.lua", cfg->module_name, s->module_version)) ||
            !run_template(opts, "lmod.lua", data, rel, out, err))
            goto out;
        free(rel);
        if (!(rel = ctk_printf(err, "tcl/%s/%s", cfg->module_name, s->module_version)) ||
            !run_template(opts, "tcl.lua", data, rel, out, err))
            goto out;
        free(rel);
        if (!(rel = ctk_printf(err, "pkgconfig/%s-%s.pc", cfg->pc_prefix, s->module_version)) ||
            !run_template(opts, "pc.lua", data, rel, out, err))
            goto out;
        free(rel);
        rel = NULL;
        ctk_lval_free(data);
        data = NULL;
        for (k = 0; k < s->n_libs; k++) {
            data = sdk_val(&b, cfg, s, pcdir, &s->libs[k], err);
            if (!b.ok || !data) {
                ctk_error_nomem(err);
                goto out;
            }
            if (!(rel = ctk_printf(err, "pkgconfig/%s-%s-%s.pc", cfg->pc_prefix, s->libs[k].name,
                                   s->module_version)) ||
                !run_template(opts, "pc-lib.lua", data, rel, out, err))
                goto out;
            free(rel);
            rel = NULL;
            ctk_lval_free(data);
            data = NULL;
        }
    }
    data = rc_val(&b, cfg, sdks, n_sdks);
    if (!b.ok || !data) {
        ctk_error_nomem(err);
        goto out;
    }
    if (!(rel = ctk_printf(err, "lmod/%s/.modulerc.lua", cfg->module_name)) ||
        !run_template(opts, "lmod-rc.lua", data, rel, out, err))
        goto out;
    free(rel);
    if (!(rel = ctk_printf(err, "tcl/%s/.modulerc", cfg->module_name)) ||
        !run_template(opts, "tcl-rc.lua", data, rel, out, err))
        goto out;
    ok = true;
out:
    free(rel);
    ctk_lval_free(data);
    return ok;
}
