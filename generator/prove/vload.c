/* vload.c - load each artifact as its users will, and check what it sets.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "vload.h"

#include "checks.h"
#include "diag.h"
#include "env.h"
#include "error.h"
#include "modenv.h"
#include "modeval.h"
#include "pc.h"
#include "proc.h"
#include "quote.h"
#include "render.h"
#include "sandbox.h"
#include "tcl2lua.h"
#include "trust.h"
#include "util.h"
#include "verdict.h"
#include "vjob.h"
#include "write.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ART_MAX_BYTES (4u << 20)

/* ---- evaluation ------------------------------------------------------------------- */

static bool env_from_modeval(vjob_t *j, const ctk_modeval_t *ev, ctk_env_t *menv, ctk_vart_t *a)
{
    size_t i;

    if (!ctk_env_copy(menv, j->have_pre[0] ? &j->pre_env[0] : &j->c->base, j->err))
        return false;
    for (i = 0; i < ev->n_vars; i++) {
        if (!ctk_env_set(menv, ev->vars[i].name, ev->vars[i].value, j->err))
            return false;
        if (ev->vars[i].value && !ctk_env_set(&a->env, ev->vars[i].name, ev->vars[i].value, j->err))
            return false;
    }
    return true;
}

/* a->env: every variable whose value in menv differs from base. */
static bool record_changes(vjob_t *j, const ctk_env_t *base, const ctk_env_t *menv, ctk_vart_t *a)
{
    size_t i;

    for (i = 0; i < menv->kv.len; i++) {
        const char *kv = menv->kv.items[i], *eq = strchr(kv, '=');
        char name[256];
        const char *was;

        if (!eq || (size_t)(eq - kv) >= sizeof name)
            continue;
        memcpy(name, kv, (size_t)(eq - kv));
        name[eq - kv] = '\0';
        was = ctk_env_get(base, name);
        if ((!was || strcmp(was, eq + 1) != 0) && !ctk_env_set(&a->env, name, eq + 1, j->err))
            return false;
    }
    return true;
}

/* ---- the tree ---------------------------------------------------------------------- */

/* Where the module system or libpkgconf reads beside the artifact: the
 * directory's .modulerc(.lua) (defaults and aliases); NULL for the .pc. */
static const char *rc_name(ctk_art_t a)
{
    return a == CTK_ART_LMOD ? ".modulerc.lua" : a == CTK_ART_TCL ? ".modulerc" : NULL;
}

/* Read rel below OUT as generate reads the tree (write.h: no symlink
 * followed, nothing but a regular file read).  A refusal is CTK-MOD-006 on
 * a, and *refused is set; a file too large or unreadable is CTK-MOD-001.
 * 1: *text (caller frees, may be NULL); 0: absent; -1: found wanting (a
 * finding added) or ctkgen's own failure (j->err set). */
static int read_tree_file(vjob_t *j, ctk_vart_t *a, const char *rel, char **text, size_t *len,
                          bool *refused)
{
    ctk_error_t e;
    char *data = NULL;
    int r;

    ctk_error_init(&e);
    r = ctk_write_read(j->c->rep->outdir, rel, ART_MAX_BYTES, &data, len, &e);
    if (r > 0) {
        if (text)
            *text = data;
        else
            free(data);
        return 1;
    }
    if (r == 0)
        return 0;
    if (e.code == CTK_E_NOMEM || e.code == CTK_E_INTERNAL)
        *j->err = e;
    else {
        /* the finding is on a->file: name the path only when it is another */
        bool other = strcmp(e.source, a->file) != 0;

        *refused = true;
        ctk_vart_addf(a, e.code == CTK_E_CONFLICT ? "CTK-MOD-006" : "CTK-MOD-001", 0, j->err,
                      "%s%s%s%s", other ? e.source : "", other ? ": " : "", e.text,
                      e.code == CTK_E_CONFLICT ? "; not read, not loaded" : "");
    }
    return -1;
}

bool ctk_vload_check_tree(vjob_t *j, bool *any_refused)
{
    size_t skip = strlen(j->c->rep->outdir) + 1;

    *any_refused = false;
    for (int k = 0; k < CTK_ART__COUNT; k++) {
        ctk_vart_t *a = &j->res->art[k];
        const char *rel = a->file + skip, *rc = rc_name((ctk_art_t)k), *slash;
        char *rcpath;
        size_t len = 0;

        if (read_tree_file(j, a, rel, &j->text[k], &j->text_len[k], &j->refused[k]) < 0 &&
            j->err->code != CTK_E_OK)
            return false;
        if (rc && !j->refused[k] && (slash = strrchr(rel, '/'))) {
            if (!(rcpath = ctk_printf(j->err, "%.*s/%s", (int)(slash - rel), rel, rc)))
                return false;
            read_tree_file(j, a, rcpath, NULL, &len, &j->refused[k]);
            free(rcpath);
            if (j->err->code != CTK_E_OK)
                return false;
        }
        *any_refused |= j->refused[k];
    }
    return true;
}

/* The artifact's bytes, read by ctk_vload_check_tree (the caller frees them), or
 * NULL: missing (CTK-MOD-002 added) or refused already. */
static char *read_artifact(vjob_t *j, ctk_vart_t *a, size_t *len)
{
    char *text = j->text[a->kind];

    if (j->refused[a->kind])
        return NULL;
    if (!text) {
        ctk_vart_addf(a, "CTK-MOD-002", 0, j->err, "%s is missing; run ctkgen generate", a->file);
        return NULL;
    }
    *len = j->text_len[a->kind];
    return ctk_strndup(text, *len, j->err);
}

/* The artifact's own tree: who loads it is decided there (the site's
 * dirs must let that user in too, or its module system says it cannot
 * find the prerequisite). */
static char *own_path(vjob_t *j, const char *sub)
{
    return ctk_printf(j->err, "%s/%s", j->c->o->outdir, sub);
}

/* Real Lmod runs a Lua modulefile unsandboxed (os.execute works): as
 * root, it runs as the sandbox's user too.  false when it is not run here
 * (a note says why, *ok true; or no memory, *ok false). */
static bool lmod_identity(vjob_t *j, ctk_vart_t *a, const ctk_sandbox_t **sb, bool *ok)
{
    ctk_sandbox_t lua = j->c->sb; /* a view, never finished: --trust-tcl speaks of Tcl only */
    const ctk_sandbox_t *got;
    char *as = NULL, *skip_why = NULL, *own = own_path(j, "lmod");

    *ok = own != NULL;
    if (!own)
        return false;
    lua.trust_root_files = false;
    got = ctk_sandbox_pick(&lua, own, a->file, &as, &skip_why, j->err);
    free(own);
    free(as);
    *ok = true;
    if (got) {
        *sb = got == &lua ? &j->c->sb : got;
        return true;
    }
    *ok = skip_why && ctk_findings_add(&a->findings, "CTK-SKIP-004", a->file, 0, j->err, "real Lmod not run: %s",
                                       skip_why);
    free(skip_why);
    return false;
}

/* ---- the module an SDK's module requires (host_compiler.module) ------------------------ */

char *ctk_vload_module_path(vjob_t *j, const char *sub)
{
    const char *site = j->c->o->modulepath;
    bool more = j->pre[0] && site && *site;

    return ctk_printf(j->err, "%s/%s%s%s", j->c->o->outdir, sub, more ? ":" : "", more ? site : "");
}

/* " (no site MODULEPATH was given: ...)" when none was; "" otherwise. */
static const char *site_hint(const vjob_t *j)
{
    return j->c->o->modulepath && *j->c->o->modulepath
               ? ""
               : " (validate was given no site MODULEPATH: --modulepath, the site config's validation.modulepath, "
                 "or --inherit-modulepath)";
}

/* Who loads an artifact with its prerequisite: whoever loads the
 * artifact, but never root, which no one vouched for the prerequisite's
 * file to (--trust-tcl speaks of ctkgen's own files). */
static const ctk_sandbox_t *never_root(const vjob_t *j, const ctk_sandbox_t *sb)
{
    return j->pre[0] && j->c->sb.drop && sb && !sb->drop ? &j->c->sb : sb;
}

bool ctk_vload_skip_prereq(vjob_t *j, ctk_vart_t *a, const char *what, const char *why)
{
    return (a->skip_code = ctk_strdup("CTK-SKIP-006", j->err)) &&
           (a->skip_reason = ctk_printf(j->err, "%s %s (host_compiler.module), which %s", what, j->pre[0],
                                        why ? why : "could not be loaded"));
}

/* modeval's reader of a prerequisite written in Tcl: Lmod's tcl2lua, never
 * as root. */
static char *pre_tcl2lua(void *ud, const char *file, const char *full, size_t *len, ctk_error_t *err)
{
    vjob_t *j = ud;
    ctk_sandbox_t view = j->c->sb; /* a view, never finished */

    view.trust_root_files = false;
    return ctk_tcl2lua_dep(&j->c->t2l, &view, &j->c->base, j->c->timeout, file, full, len, err);
}

/* Why the sandbox did not load the prerequisite, from its record. */
static char *prereq_lua_why(vjob_t *j, const ctk_moddep_t *d, const char *mp)
{
    if (!d)
        return ctk_strdup("was not evaluated", j->err);
    if (!d->file)
        return ctk_printf(j->err, "is not found on MODULEPATH %s%s", mp, site_hint(j));
    if (!j->c->have_t2l && strstr(d->why, "Tcl modulefile"))
        return ctk_printf(j->err, "is a Tcl modulefile (%s), which the sandbox reads only through Lmod's tcl2lua: %s",
                          d->file, j->c->t2l_why ? j->c->t2l_why : "not found");
    return ctk_printf(j->err, "(%s) %s", d->file, d->why);
}

bool ctk_vload_prereq_lua(vjob_t *j)
{
    ctk_modeval_opts_t o = { CTK_MODE_LOAD, NULL, true, NULL, true, NULL, NULL };
    ctk_modeval_t *ev = NULL;
    const ctk_moddep_t *d;
    ctk_error_t e;
    char *mp = ctk_vload_module_path(j, "lmod"), *q = NULL, *src = NULL, *mpkv = NULL;
    bool ok = false;

    if (!mp || !(q = ctk_quote_lua(j->pre[0], "a module name", j->err)) ||
        !(src = ctk_printf(j->err, "load(%s)\n", q)) || !(mpkv = ctk_printf(j->err, "MODULEPATH=%s", mp)))
        goto out;
    for (size_t i = 0; i < j->c->base.kv.len; i++)
        if (!ctk_strlist_push(&j->pre_kv, j->c->base.kv.items[i], j->err))
            goto out;
    if (!ctk_strlist_push(&j->pre_kv, mpkv, j->err))
        goto out;
    if (j->c->have_t2l) {
        o.tcl_to_lua = pre_tcl2lua;
        o.tcl_ud = j;
    }
    o.initial_env = &j->pre_kv;
    ctk_error_init(&e);
    /* a one-line module that loads it, as `module load` does: its
     * dependencies followed, a Tcl one read as Lmod reads it */
    if (!(ev = ctk_modeval_run("(module load)", src, strlen(src), "ctkgen-prereq/1", &o, &e))) {
        if (e.code == CTK_E_NOMEM || ctk_proc_interrupted()) {
            *j->err = e;
            goto out;
        }
        ok = (j->pre_why[0] = ctk_printf(j->err, "failed to load in the sandbox: %s%s%s", e.source,
                                         e.source[0] ? ": " : "", e.text)) != NULL;
        goto out;
    }
    d = ev->n_deps ? &ev->deps[0] : NULL;
    if (!d || d->why) {
        ok = (j->pre_why[0] = prereq_lua_why(j, d, mp)) != NULL;
        goto out;
    }
    if (!ctk_env_copy(&j->pre_env[0], &j->c->base, j->err))
        goto out;
    for (size_t i = 0; i < ev->n_vars; i++)
        if (!ctk_modenv_is_bookkeeping(ev->vars[i].name) &&
            !ctk_env_set(&j->pre_env[0], ev->vars[i].name, ev->vars[i].value, j->err))
            goto out;
    ok = ctk_modeval_apply(ev, &j->pre_kv, j->err);
    j->have_pre[0] = ok;
out:
    ctk_modeval_free(ev);
    free(mp);
    free(q);
    free(src);
    free(mpkv);
    return ok;
}

bool ctk_vload_prereq_tcl(vjob_t *j)
{
    const ctk_sandbox_t *sb;
    ctk_error_t e;
    char *mp = ctk_vload_module_path(j, "tcl"), *own = own_path(j, "tcl"), *as = NULL, *why = NULL;
    bool ok = false;

    if (!mp || !own)
        goto out;
    sb = never_root(j, ctk_sandbox_pick(&j->c->sb, own, j->res->art[CTK_ART_TCL].file, &as, &why, j->err));
    if (!sb || (sb->drop && j->c->tcl_user_why)) {
        ok = !ctk_error_is_set(j->err);
        goto out;
    }
    ctk_error_init(&e);
    if (ctk_modenv_load_as(&j->c->tcl, mp, j->pre[0], &j->c->base, j->c->timeout, sb, &j->pre_env[1], &e))
        ok = j->have_pre[1] = true;
    else if (e.code == CTK_E_NOMEM)
        *j->err = e;
    else
        ok = (j->pre_why[1] = ctk_printf(j->err, "Environment Modules could not load from MODULEPATH %s%s: %s", mp,
                                         site_hint(j), e.text)) != NULL;
out:
    free(mp);
    free(own);
    free(as);
    free(why);
    return ok;
}

/* --lmod: the module loaded by real Lmod gives the environment the
 * sandbox gave; a difference is a finding. */
static bool compare_real_lmod(vjob_t *j, ctk_vart_t *a)
{
    const ctk_sandbox_t *sb = NULL;
    ctk_env_t real;
    ctk_strlist_t diff;
    ctk_error_t e;
    char *mp = ctk_vload_module_path(j, "lmod");
    bool ok = true;

    ctk_env_init(&real);
    ctk_strlist_init(&diff);
    ctk_error_init(&e);
    if (!mp)
        ok = false;
    else if (!lmod_identity(j, a, &sb, &ok))
        ; /* not run, and said so (or no memory) */
    else if (!ctk_modenv_load_after(&j->c->lmod, mp, j->pre[0] ? j->pre : NULL, j->full_name, &j->c->base,
                                    j->c->timeout, sb, &real, &e))
        ok = ctk_vart_addf(a, "CTK-ENV-002", 0, j->err, "real Lmod failed where the sandbox loaded the module: %s", e.text);
    else if (!ctk_env_diff(&j->menv[0], &real, &diff, j->err))
        ok = false;
    else if (diff.len > 0) {
        const char *n = diff.items[0], *sv = ctk_env_get(&j->menv[0], n), *lv = ctk_env_get(&real, n);

        ok = ctk_vart_addf(a, "CTK-ENV-002", 0, j->err,
                           "real Lmod and the sandbox disagree on %zu variable(s), first %s: sandbox %s%s%s, Lmod %s%s%s",
                           diff.len, n, sv ? "\"" : "", sv ? sv : "unset", sv ? "\"" : "", lv ? "\"" : "",
                           lv ? lv : "unset", lv ? "\"" : "");
    }
    free(mp);
    ctk_strlist_fini(&diff);
    ctk_env_fini(&real);
    return ok;
}

bool ctk_vload_eval_lmod(vjob_t *j, ctk_vart_t *a)
{
    ctk_modeval_t *ev;
    ctk_error_t e;
    size_t len;
    char *src = read_artifact(j, a, &len);
    bool ok = true;

    if (!src)
        return j->err->code == CTK_E_OK;
    if (j->pre[0] && !j->have_pre[0]) {
        ev = NULL;
        ok = ctk_vload_skip_prereq(j, a, "not loaded: it requires", j->pre_why[0]);
        goto out;
    }
    ctk_error_init(&e);
    ev = ctk_modeval_lua(a->file, src, len, j->full_name, j->have_pre[0] ? &j->pre_kv : &j->c->base.kv, &e);
    if (!ev) {
        /* an interrupt stops the evaluation (luahost.c): no finding, unwind */
        if (e.code == CTK_E_NOMEM || ctk_proc_interrupted()) {
            *j->err = e;
            ok = false;
        } else {
            ok = ctk_vart_addf(a, "CTK-MOD-001", e.line, j->err, "%s", e.text);
        }
        goto out;
    }
    if (!env_from_modeval(j, ev, &j->menv[0], a)) {
        ok = false;
        goto out;
    }
    j->have_env[0] = true;
    if (!ev->family && ev->conflicts.len == 0)
        ok = ctk_vart_addf(a, "CTK-MOD-003", 0, j->err, "no family() or conflict(): another toolkit can be loaded alongside");
    if (ok && j->c->have_lmod)
        ok = compare_real_lmod(j, a);
out:
    ctk_modeval_free(ev);
    free(src);
    return ok;
}

/* Without Environment Modules: a missing modulefile is still a finding,
 * one that is there is skipped. */
static bool tcl_not_run(vjob_t *j, ctk_vart_t *a)
{
    if (j->refused[a->kind])
        return true;
    if (!j->text[a->kind])
        return ctk_vart_addf(a, "CTK-MOD-002", 0, j->err, "%s is missing; run ctkgen generate", a->file);
    return (a->skip_code = ctk_strdup("CTK-SKIP-003", j->err)) &&
           (a->skip_reason = ctk_strdup(j->c->tcl_why, j->err));
}

/* The Tcl modulefile, text src, loaded by Environment Modules from mp in
 * sb: the changes it makes recorded, and a finding if it fails or names
 * no family or conflict. */
static bool load_tcl(vjob_t *j, ctk_vart_t *a, const char *mp, const ctk_sandbox_t *sb, const char *src)
{
    ctk_error_t e;

    ctk_error_init(&e);
    if (!ctk_modenv_load_after(&j->c->tcl, mp, j->pre[0] ? j->pre : NULL, j->full_name, &j->c->base,
                               j->c->timeout, sb, &j->menv[1], &e)) {
        if (e.code == CTK_E_NOMEM) {
            *j->err = e;
            return false;
        }
        return ctk_vart_addf(a, "CTK-MOD-001", e.line, j->err, "%s", e.text);
    }
    j->have_env[1] = true;
    if (!record_changes(j, j->have_pre[1] ? &j->pre_env[1] : &j->c->base, &j->menv[1], a))
        return false;
    if (!strstr(src, "conflict") && !strstr(src, "family"))
        return ctk_vart_addf(a, "CTK-MOD-003", 0, j->err, "no family or conflict: another toolkit can be loaded alongside");
    return true;
}

bool ctk_vload_eval_tcl(vjob_t *j, ctk_vart_t *a)
{
    const ctk_sandbox_t *sb;
    size_t len;
    char *src, *mp, *own = NULL, *as = NULL, *skip_why = NULL;
    bool ok = true;

    if (!j->c->have_tcl)
        return tcl_not_run(j, a);
    if (!(src = read_artifact(j, a, &len)))
        return j->err->code == CTK_E_OK;
    if (!(mp = ctk_vload_module_path(j, "tcl")) || !(own = own_path(j, "tcl"))) {
        free(mp);
        free(src);
        return false;
    }
    if (!(sb = never_root(j, ctk_sandbox_pick(&j->c->sb, own, a->file, &as, &skip_why, j->err)))) {
        ok = skip_why && (a->skip_code = ctk_strdup("CTK-SKIP-004", j->err)) &&
             (a->skip_reason = ctk_printf(j->err, "not loaded: %s", skip_why));
        goto out;
    }
    if (sb->drop && j->c->tcl_user_why) { /* Environment Modules itself is closed to the user */
        ok = (a->skip_code = ctk_strdup("CTK-SKIP-004", j->err)) &&
             (a->skip_reason = ctk_printf(j->err, "not loaded: %s", j->c->tcl_user_why));
        goto out;
    }
    if (j->pre[0] && !j->have_pre[1]) {
        ok = ctk_vload_skip_prereq(j, a, "not loaded: it requires", j->pre_why[1]);
        goto out;
    }
    ok = load_tcl(j, a, mp, sb, src);
out:
    free(as);
    free(skip_why);
    free(mp);
    free(own);
    free(src);
    return ok;
}

bool ctk_vload_eval_pc(vjob_t *j, ctk_vart_t *a)
{
    ctk_error_t e;
    size_t len;
    char *src = read_artifact(j, a, &len), *dir = NULL, *slash;
    const char *dirs[1];
    bool ok = true, resolved;

    if (!src)
        return j->err->code == CTK_E_OK;
    if (!(dir = ctk_strdup(a->file, j->err)))
        goto fail;
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    dirs[0] = dir;
    ctk_error_init(&e);
    pthread_mutex_lock(&j->c->pc_lock);
    resolved = ctk_pc_resolve(dirs, 1, j->res->pc_name, &j->pc, &e);
    pthread_mutex_unlock(&j->c->pc_lock);
    if (!resolved) {
        if (e.code == CTK_E_NOMEM || j->pc.stop == CTK_PC_STOP_INTERRUPTED) {
            *j->err = e;
            goto fail;
        }
        ok = ctk_vart_addf(a, ctk_pc_stop_finding(j->pc.stop), e.line, j->err, "%s", e.text);
        goto out;
    }
    j->have_pc = true;
    for (size_t i = 0; i < j->pc.cflags.len; i++)
        if (!ctk_strlist_push(&a->cflags, j->pc.cflags.items[i], j->err))
            goto fail;
    for (size_t i = 0; i < j->pc.libs.len; i++)
        if (!ctk_strlist_push(&a->libs, j->pc.libs.items[i], j->err))
            goto fail;
    if (j->pc.version && !(a->pc_version = ctk_strdup(j->pc.version, j->err)))
        goto fail;
    goto out;
fail:
    ok = false;
out:
    free(dir);
    free(src);
    return ok;
}

/* ---- static checks --------------------------------------------------------------------- */

bool ctk_vload_check_module_env(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
{
    char *nvcc = NULL;
    ctk_check_src_t src = {a->file, j->text[a->kind], NULL};
    bool ok = ctk_check_module_env(j->sdk, menv, &a->env, &src, &nvcc, &a->findings, j->err);

    if (!ok || !nvcc)
        return ok;
    a->nvcc = nvcc;
    a->nvcc_release = j->nvcc_release ? ctk_strdup(j->nvcc_release, j->err) : NULL;
    return !j->nvcc_release || a->nvcc_release;
}

bool ctk_vload_check_pc_static(vjob_t *j, ctk_vart_t *a)
{
    ctk_check_src_t src = {a->file, j->text[a->kind], NULL};

    return ctk_check_pc(j->sdk, &a->cflags, &a->libs, a->pc_version, &src, &a->findings, j->err);
}

/* ---- programs another user can change ---------------------------------------------------- */

/* CTK-TRUST-002 on a when ctk_trust_exec() refuses prog; what says which it is. */
static bool trust_finding(vjob_t *j, ctk_vart_t *a, const char *prog, const char *what)
{
    char why[1024];

    if (!prog || ctk_trust_exec(prog, why, sizeof why))
        return true;
    return ctk_vart_addf(a, "CTK-TRUST-002", 0, j->err, "validate runs %s (%s) though another user can change it: %s",
                         prog, what, why);
}

bool ctk_vload_trust_findings(vjob_t *j, ctk_art_t k)
{
    ctk_vart_t *a = &j->res->art[k];

    ctk_findings_drop(&a->findings, "CTK-TRUST-002");
    if (k == CTK_ART_PC)
        return trust_finding(j, a, j->sdk->nvcc, "the SDK's nvcc") &&
               trust_finding(j, a, j->sdk->conf->host_compiler_ccbin, "host_compiler.ccbin");
    if (a->nvcc && !ctk_same_file(a->nvcc, j->sdk->nvcc))
        return trust_finding(j, a, a->nvcc, "the nvcc on the module's PATH");
    return true;
}
