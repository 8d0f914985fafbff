/* validate.c - build and launch probes through each generated artifact.
 * SPDX-License-Identifier: MIT
 *
 * Per SDK, in one worker thread (SDKs run in parallel):
 *
 *   evaluate   lmod: modeval sandbox (+ real Lmod with lmod_check)
 *              tcl:  real Environment Modules (modenv.c)
 *              pc:   libpkgconf (pc.c)
 *   static     variables a module must not set, stubs, CPATH, LD_LIBRARY_PATH
 *              order, nvcc on PATH, .pc Version (checks.c, shared with lint),
 *              family/conflict
 *   pc build   nvcc -c probe.cu $(cflags)          -> probe.o
 *              c++  probe.o $(libs)                 -> probe_pc   (run with no env)
 *              nvcc probe.o $(libs)                 -> Libs verbatim for nvcc
 *   modules    nvcc -E probe.cu                     (module env: its nvcc and host
 *                                                    compiler; skipped where the
 *                                                    pc compile provably saw the
 *                                                    same, vreuse.c)
 *              cc host_probe.c -lcudart             (module env only)
 *              c++ probe.o -lcudart                 (module env only; probe.o
 *                                                    from the pc build, else
 *                                                    nvcc -c in the module env)
 *              run both in the module env; tcl runs lmod's where their
 *              environments agree
 *
 * One probe.o serves every artifact: the object does not depend on how it
 * is linked, and compiling it is the one expensive step (nvcc, ~1 s).  The
 * module's own header lookup is proven by the host probe, which sees
 * cuda_runtime.h through CPATH alone.  An artifact whose checks another's
 * build stands for says so (built_by).  nvcc --version runs once per nvcc
 * file in a run.
 *
 * Everything a step sees comes from a small clean base environment (PATH
 * of the host compilers' dirs + /usr/bin:/bin, HOME and TMPDIR in the
 * private build dir, LC_ALL=C so compiler messages can be matched) plus
 * what the artifact sets; ctkgen's own environment never leaks in.
 *
 * This file sets the run up, runs the SDKs through worker threads, keeps
 * the cache and settles each SDK's verdicts.  The steps live beside it,
 * each file below the one that calls it (vjob.h draws the map): vload.c
 * evaluates, vbuild.c builds and runs the probes, vreuse.c decides when
 * one build stands for another, vrun.c runs and judges a probe, vjob.c
 * holds the small steps they share.
 */
#include <ctkconf.h>

#include "cache.h"
#include "checks.h"
#include "config.h"
#include "diag.h"
#include "env.h"
#include "error.h"
#include "modenv.h"
#include "modeval.h"
#include "pc.h"
#include "probeio.h"
#include "proc.h"
#include "render.h"
#include "sandbox.h"
#include "sdk.h"
#include "tcl2lua.h"
#include "util.h"
#include "validate.h"
#include "vbuild.h"
#include "verdict.h"
#include "vjob.h"
#include "vload.h"
#include "vrun.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_TIMEOUT_S 120.0
#define CACHE_SEP "\n\036\n" /* record separator between artifacts in a cache entry */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the probes' sources and nvcc's release ------------------------------------------- */

static const ctk_template_t *probe_source(const char *name)
{
    const ctk_template_t *t;

    for (t = ctk_probe_sources; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* "dev:ino:size:mtime" of a file: the same for a path, a link or a hard
 * link to the same unchanged bytes.  NULL when it cannot be read. */
static char *file_identity(const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0)
        return NULL;
    return ctk_printf(NULL, "%ju:%ju:%jd:%jd.%09ld", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
                      (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* The release an earlier SDK of this run read from the same nvcc file:
 * nvcc prints its own, so one run per file says it.  NULL: none yet.
 * Under nvcc_lock. */
static char *nvcc_release_seen(const vctx_t *c, const char *id)
{
    size_t n = strlen(id);

    for (size_t i = 0; i < c->nvcc_seen.len; i++)
        if (strncmp(c->nvcc_seen.items[i], id, n) == 0 && c->nvcc_seen.items[i][n] == '\t')
            return ctk_strdup(c->nvcc_seen.items[i] + n + 1, NULL);
    return NULL;
}

/* "13.0" from `nvcc --version` ("Cuda compilation tools, release 13.0,
 * V13.0.88"), run once per nvcc file in a run: SDKs asking at once wait
 * for the first. */
static char *nvcc_release(vjob_t *j, const char *nvcc)
{
    const char *argv[] = {nvcc, "--version", NULL};
    char *id = file_identity(nvcc), *text, *out = NULL, *p, *rec;
    int ma, mi;

    pthread_mutex_lock(&j->c->nvcc_lock);
    if (id && (out = nvcc_release_seen(j->c, id)))
        goto out;
    text = ctk_vjob_tool_output(j->c, argv, j->dir);
    if (text && (p = strstr(text, "release ")) && sscanf(p, "release %d.%d", &ma, &mi) == 2)
        out = ctk_printf(NULL, "%d.%d", ma, mi);
    free(text);
    if (id && out && (rec = ctk_printf(NULL, "%s\t%s", id, out)))
        ctk_strlist_take(&j->c->nvcc_seen, rec, NULL);
out:
    pthread_mutex_unlock(&j->c->nvcc_lock);
    free(id);
    return out;
}

/* ---- versions across artifacts ---------------------------------------------------------- */

static bool check_versions(vjob_t *j)
{
    const ctk_sdk_t *s = j->sdk;
    int ma, mi, pa;

    /* the module name, when it reads as a version */
    if (ctk_version_parse(s->module_version, &ma, &mi, &pa) &&
        (ma != s->version.major || mi != s->version.minor)) {
        for (int k = 0; k < CTK_ART__COUNT; k++)
            if (k != CTK_ART_PC &&
                !ctk_vart_addf(&j->res->art[k], "CTK-VER-001", 0, j->err, "the module is named %s but the toolkit is %s",
                               j->full_name, j->res->version))
                return false;
    }
    if (j->nvcc_release && sscanf(j->nvcc_release, "%d.%d", &ma, &mi) == 2 &&
        (ma != s->version.major || mi != s->version.minor))
        for (int k = 0; k < CTK_ART__COUNT; k++)
            if (!ctk_vart_addf(&j->res->art[k], "CTK-VER-001", 0, j->err, "%s says release %s, the toolkit is %s",
                               s->nvcc, j->nvcc_release, j->res->version))
                return false;
    return true;
}

/* ---- cache ------------------------------------------------------------------------------ */

static void key_sdk(ctk_cache_key_t *k, const ctk_sdk_t *s)
{
    const ctk_strlist_t *lists[] = {&s->path, &s->cpath, &s->ld_library_path, &s->library_path};
    char *p;

    ctk_cache_key_add_str(k, "root", s->root);
    ctk_cache_key_add_str(k, "module_version", s->module_version);
    ctk_cache_key_add_str(k, "ccbin", s->conf->host_compiler_ccbin);
    ctk_cache_key_add_stat(k, s->nvcc);
    ctk_cache_key_add_file(k, s->version.path);
    if ((p = ctk_path_join(s->incdir, "cuda_runtime_api.h", NULL))) {
        ctk_cache_key_add_stat(k, p);
        free(p);
    }
    if ((p = ctk_path_join(s->libdir, "libcudart.so", NULL))) {
        char *r = ctk_realpath(p);

        ctk_cache_key_add_stat(k, r ? r : p);
        free(r);
        free(p);
    }
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (size_t i = 0; i < lists[l]->len; i++)
            ctk_cache_key_add_stat(k, lists[l]->items[i]);
}

static bool sdk_key(vjob_t *j, char out[33])
{
    ctk_cache_key_t k;

    ctk_cache_key_init(&k);
    ctk_cache_key_add_str(&k, "global", j->c->global_key);
    ctk_cache_key_add_str(&k, "full_name", j->full_name);
    ctk_cache_key_add_str(&k, "outdir", j->c->rep->outdir);
    key_sdk(&k, j->sdk);
    for (int a = 0; a < CTK_ART__COUNT; a++)
        ctk_cache_key_add_file(&k, j->res->art[a].file);
    if (j->pre[0]) { /* where the prerequisite is, and what it holds */
        char *mp = ctk_vload_module_path(j, "lmod"), *file = NULL, *full = NULL;

        if (!mp)
            return false;
        ctk_cache_key_add_str(&k, "modulepath", mp);
        if (ctk_modeval_find(mp, j->pre[0], &file, &full, j->err)) {
            ctk_cache_key_add_str(&k, "prereq", file);
            ctk_cache_key_add_file(&k, file);
        }
        free(mp);
        free(file);
        free(full);
        if (ctk_error_is_set(j->err))
            return false;
    }
    /* as root, who may load each modulefile depends on modes and owners,
     * which the contents above do not show */
    for (int a = CTK_ART_LMOD; j->c->sb.drop && a <= CTK_ART_TCL; a++) {
        char *mp = ctk_printf(j->err, "%s/%s", j->c->rep->outdir, a == CTK_ART_LMOD ? "lmod" : "tcl");
        char *as = NULL, *why = NULL;

        if (!mp)
            return false;
        ctk_sandbox_pick(&j->c->sb, mp, j->res->art[a].file, &as, &why, j->err);
        ctk_cache_key_add_str(&k, ctk_art_name((ctk_art_t)a), as ? as : why ? why : "");
        free(as);
        free(why);
        free(mp);
    }
    ctk_cache_key_hex(&k, out);
    return true;
}

static bool cache_load(vjob_t *j, const char *key)
{
    ctk_error_t e;
    char *text, *p;
    int a = 0;

    ctk_error_init(&e);
    if (!(text = ctk_cache_get(j->c->cache_dir, key, &e)))
        return false;
    for (p = text; a < CTK_ART__COUNT; a++) {
        char *sep = strstr(p, CACHE_SEP), *file = j->res->art[a].file;
        bool loaded;

        if (sep)
            *sep = '\0';
        /* the record keeps this run's path, whatever the entry says */
        j->res->art[a].file = NULL;
        loaded = ctk_vart_from_json(p, &j->res->art[a], &e);
        free(j->res->art[a].file);
        j->res->art[a].file = file;
        if (!loaded)
            break;
        if (!sep) {
            a++;
            break;
        }
        p = sep + strlen(CACHE_SEP);
    }
    free(text);
    if (a != CTK_ART__COUNT) {
        /* a broken entry is a miss: start again from clean records */
        for (a = 0; a < CTK_ART__COUNT; a++) {
            char *file = j->res->art[a].file;

            j->res->art[a].file = NULL;
            ctk_vart_fini(&j->res->art[a]);
            j->res->art[a].file = file;
        }
        return false;
    }
    return true;
}

static void cache_store(vjob_t *j, const char *key)
{
    ctk_buf_t b;
    ctk_error_t e;

    ctk_buf_init(&b);
    ctk_error_init(&e);
    for (int a = 0; a < CTK_ART__COUNT; a++) {
        char *t = ctk_vart_to_json(&j->res->art[a], &e);

        if (!t)
            goto out;
        if (a)
            ctk_buf_puts(&b, CACHE_SEP);
        ctk_buf_puts(&b, t);
        free(t);
    }
    if (!b.failed && !ctk_cache_put(j->c->cache_dir, key, b.data, &e)) {
        pthread_mutex_lock(&j->c->lock);
        if (!j->c->rep->cache_warning)
            j->c->rep->cache_warning = ctk_printf(NULL, "results not cached: %s%s%s", e.source,
                                                  e.source[0] ? ": " : "", e.text);
        pthread_mutex_unlock(&j->c->lock);
    }
out:
    ctk_buf_fini(&b);
}

/* ---- one SDK ----------------------------------------------------------------------------- */

static void progress(vjob_t *j, ctk_art_t a)
{
    /* after an interrupt, results are cut short: nobody should read them */
    if (!j->c->o->progress || ctk_proc_interrupted())
        return;
    pthread_mutex_lock(&j->c->lock);
    j->c->o->progress(j->res, a, j->c->o->progress_arg);
    pthread_mutex_unlock(&j->c->lock);
}

static bool write_probes(vjob_t *j)
{
    static const char *const names[] = {"host_probe.c", "probe.cu", "probe_json.h", NULL};

    for (int i = 0; names[i]; i++) {
        const ctk_template_t *t = probe_source(names[i]);

        if (!t) {
            ctk_error_set(j->err, CTK_E_INTERNAL, NULL, 0, 0, "probe source %s is not built in", names[i]);
            return false;
        }
        if (!ctk_vjob_write_text(j->dir, names[i], t->data, (size_t)t->len, j->err))
            return false;
    }
    return true;
}

/* Differences between module systems that no user can observe: each
 * system's own family variables (Lmod: LMOD_FAMILY_X, Environment
 * Modules 5: MODULES_FAMILY_X), and a path list's empty elements spelled
 * "::" by one and ":" by the other (MANPATH keeps one for man's defaults). */
static bool same_for_users(const char *name, const char *a, const char *b)
{
    if (strncmp(name, "LMOD_FAMILY_", 12) == 0 || strncmp(name, "MODULES_FAMILY_", 15) == 0)
        return true;
    if (!a || !b)
        return false;
    /* equal once every run of ':' counts as one */
    while (*a && *b) {
        if (*a != *b)
            return false;
        if (*a == ':') {
            while (a[1] == ':')
                a++;
            while (b[1] == ':')
                b++;
        }
        a++;
        b++;
    }
    return !*a && !*b;
}

/* The SDK's verdicts from the cache, when they are there under key (its
 * inputs' hash, sdk_key): *hit.  false only for an error. */
static bool from_cache(vjob_t *j, char key[33], bool *hit)
{
    *hit = false;
    sdk_key(j, key);
    if (!cache_load(j, key))
        return true;
    for (int a = 0; a < CTK_ART__COUNT; a++) {
        j->res->art[a].cached = true;
        if (!ctk_vload_trust_findings(j, (ctk_art_t)a))
            return false;
        progress(j, (ctk_art_t)a);
    }
    *hit = true;
    return true;
}

/* The SDK's private dir under the run's temp root, with the probes'
 * sources, and the modules its modules require loaded. */
static bool sdk_workdir(vjob_t *j)
{
    if (!(j->dir = ctk_printf(j->err, "%s/sdk-%zu", j->c->tmproot, (size_t)(j->res - j->c->rep->sdks))))
        return false;
    if (mkdir(j->dir, 0700) != 0) {
        ctk_error_set(j->err, CTK_E_IO, j->dir, 0, 0, "cannot create: %s", strerror(errno));
        return false;
    }
    return write_probes(j) && (!j->pre[0] || (ctk_vload_prereq_lua(j) && (!j->c->have_tcl || ctk_vload_prereq_tcl(j))));
}

/* The Lua and the Tcl module must set the same environment: CTK-ENV-001
 * for each variable where they differ as users would see it; same_env
 * when they do not differ at all. */
static bool compare_module_envs(vjob_t *j)
{
    ctk_strlist_t diff;
    bool ok;

    ctk_strlist_init(&diff);
    ok = ctk_env_diff(&j->menv[0], &j->menv[1], &diff, j->err);
    j->same_env = ok;
    for (size_t i = 0; ok && i < diff.len; i++) {
        const char *n = diff.items[i], *lv = ctk_env_get(&j->menv[0], n), *tv = ctk_env_get(&j->menv[1], n);

        if (same_for_users(n, lv, tv))
            continue;
        j->same_env = false;
        ok = ctk_vart_addf(&j->res->art[CTK_ART_TCL], "CTK-ENV-001", 0, j->err, "%s differs: Lua %s%s%s, Tcl %s%s%s", n,
                           lv ? "\"" : "", lv ? lv : "unset", lv ? "\"" : "", tv ? "\"" : "", tv ? tv : "unset",
                           tv ? "\"" : "");
    }
    ctk_strlist_fini(&diff);
    return ok;
}

/* Each artifact evaluated and checked, the .pc first (its probe.o serves
 * the modules too) and built; each one's time. */
static bool eval_artifacts(vjob_t *j)
{
    ctk_vsdk_t *res = j->res;
    double t = now_s();

    if (!ctk_vload_eval_pc(j, &res->art[CTK_ART_PC]) ||
        (j->have_pc && (!ctk_vload_check_pc_static(j, &res->art[CTK_ART_PC]) || !ctk_vbuild_pc(j, &res->art[CTK_ART_PC]))))
        return false;
    res->art[CTK_ART_PC].seconds = now_s() - t;
    t = now_s();
    if (!ctk_vload_eval_lmod(j, &res->art[CTK_ART_LMOD]) ||
        (j->have_env[0] && !ctk_vload_check_module_env(j, &res->art[CTK_ART_LMOD], &j->menv[0])))
        return false;
    res->art[CTK_ART_LMOD].seconds = now_s() - t;
    t = now_s();
    if (!ctk_vload_eval_tcl(j, &res->art[CTK_ART_TCL]) ||
        (j->have_env[1] && !ctk_vload_check_module_env(j, &res->art[CTK_ART_TCL], &j->menv[1])) ||
        (j->have_env[0] && j->have_env[1] && !compare_module_envs(j)))
        return false;
    res->art[CTK_ART_TCL].seconds = now_s() - t;
    return true;
}

/* The .pc settled; then each module's probes built and run, and settled. */
static bool build_modules(vjob_t *j)
{
    ctk_vsdk_t *res = j->res;

    if (!check_versions(j) || !ctk_vload_trust_findings(j, CTK_ART_PC))
        return false;
    ctk_vart_settle(&res->art[CTK_ART_PC]);
    progress(j, CTK_ART_PC);
    for (int a = CTK_ART_LMOD; a <= CTK_ART_TCL; a++) {
        double t = now_s();

        if ((j->have_env[a] && !ctk_vbuild_module(j, &res->art[a], &j->menv[a])) || !ctk_vload_trust_findings(j, (ctk_art_t)a))
            return false;
        res->art[a].seconds += now_s() - t;
        ctk_vart_settle(&res->art[a]);
        progress(j, (ctk_art_t)a);
    }
    return true;
}

/* Every verdict settled; a run that went through with no failure stored
 * under key (not one read from the cache, nor one an interrupt cut
 * short); the SDK's verdict the worst of its artifacts'. */
static void finish_sdk(vjob_t *j, bool ok, const char *key)
{
    ctk_vsdk_t *res = j->res;
    bool any_fail = false;
    int a;

    for (a = 0; a < CTK_ART__COUNT; a++) {
        ctk_vart_settle(&res->art[a]);
        any_fail |= res->art[a].verdict == CTK_VERDICT_FAIL;
    }
    if (ok && key[0] && !res->art[0].cached && !ctk_proc_interrupted() && !any_fail)
        cache_store(j, key);
    res->verdict = CTK_VERDICT_PASS;
    for (a = 0; a < CTK_ART__COUNT; a++)
        if (res->art[a].verdict > res->verdict)
            res->verdict = res->art[a].verdict;
}

static bool run_sdk(vjob_t *j)
{
    ctk_vsdk_t *res = j->res;
    double t0 = now_s();
    char key[33] = "";
    bool ok = false, refused, hit = false;

    /* first, before the cache key reads the artifacts by their paths; a
     * refused artifact fails: never a cached verdict, never stored */
    if (!ctk_vload_check_tree(j, &refused) || (j->c->o->stage_dir && !refused && !sdk_key(j, res->key)))
        goto done;
    if (j->c->cache_dir && !refused && (!from_cache(j, key, &hit) || hit)) {
        ok = hit;
        goto done;
    }
    if (!sdk_workdir(j))
        goto done;
    j->nvcc_release = nvcc_release(j, j->sdk->nvcc);
    ok = eval_artifacts(j) && build_modules(j);
done:
    finish_sdk(j, ok, key);
    res->seconds = now_s() - t0;
    if (j->dir)
        ctk_remove_tree(j->dir);
    return ok;
}

static void job_fini(vjob_t *j)
{
    for (int a = 0; a < CTK_ART__COUNT; a++)
        free(j->text[a]);
    for (int k = 0; k < 2; k++) {
        ctk_env_fini(&j->menv[k]);
        ctk_env_fini(&j->pre_env[k]);
        free(j->pre_why[k]);
    }
    ctk_strlist_fini(&j->pre_kv);
    ctk_pc_result_fini(&j->pc);
    free(j->probe_o);
    free(j->pc_exe);
    free(j->pc_trace);
    free(j->lmod_cuda);
    free(j->nvcc_release);
    free(j->dir);
    free(j->full_name);
}

static void *worker(void *arg)
{
    vctx_t *c = arg;

    for (;;) {
        size_t i;
        vjob_t j;
        ctk_error_t e;

        if (ctk_proc_interrupted())
            break; /* the SDKs not started stay unchecked */
        pthread_mutex_lock(&c->lock);
        i = c->next++;
        pthread_mutex_unlock(&c->lock);
        if (i >= c->rep->n_sdks)
            break;
        memset(&j, 0, sizeof j);
        ctk_error_init(&e);
        j.c = c;
        j.sdk = c->sdks[i];
        j.res = &c->rep->sdks[i];
        j.err = &e;
        j.jd.sdk = j.sdk;
        j.jd.err = &e;
        j.jd.timeout = c->timeout;
        j.jd.require_launch = c->o->require_launch;
        j.jd.where = "on this machine";
        for (int k = 0; k < 2; k++) {
            ctk_env_init(&j.menv[k]);
            ctk_env_init(&j.pre_env[k]);
        }
        ctk_strlist_init(&j.pre_kv);
        j.pre[0] = j.sdk->conf->host_compiler_module;
        ctk_pc_result_init(&j.pc);
        j.full_name = ctk_printf(&e, "%s/%s", c->cfg->module_name, j.sdk->module_version);
        if (!j.full_name || !run_sdk(&j)) {
            pthread_mutex_lock(&c->lock);
            if (!c->failed) {
                c->failed = true;
                c->err = e;
            }
            pthread_mutex_unlock(&c->lock);
        }
        job_fini(&j);
    }
    return NULL;
}

/* ---- setup ------------------------------------------------------------------------------- */

static bool caller_env(ctk_env_t *e, ctk_error_t *err)
{
    for (char **p = environ; p && *p; p++) {
        const char *eq = strchr(*p, '=');
        char *name;
        bool ok;

        if (!eq || eq == *p)
            continue;
        if (!(name = strndup(*p, (size_t)(eq - *p)))) {
            ctk_error_set(err, CTK_E_NOMEM, NULL, 0, 0, "out of memory");
            return false;
        }
        ok = ctk_env_set(e, name, eq + 1, err);
        free(name);
        if (!ok)
            return false;
    }
    return true;
}

static char *find_compiler(const ctk_env_t *caller, const char *given, const char *dflt, const char *opt,
                           ctk_error_t *err)
{
    const char *want = given ? given : dflt;
    char *p = ctk_env_which(caller, want, err), *r;

    if (!p) {
        if (err && err->code == CTK_E_OK)
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "no host compiler '%s' found on PATH; name one with %s",
                          want, opt);
        return NULL;
    }
    /* keep the name (cc -> gcc-12 would change nothing, but a readable
     * path is what the report shows); only make it absolute */
    if (p[0] != '/' && (r = ctk_realpath(p))) {
        free(p);
        return r;
    }
    return p;
}

static char *first_line_of_file(const char *path)
{
    char *text = ctk_file_read(path, 1 << 16, NULL, NULL), *nl;

    if (text && (nl = strchr(text, '\n')))
        *nl = '\0';
    return text;
}

static bool setup_base(vctx_t *c, ctk_error_t *err)
{
    ctk_buf_t path;
    const char *tools[2] = {c->rep->cc, c->rep->cxx};
    char *home;
    bool ok = false;

    ctk_buf_init(&path);
    for (int i = 0; i < 2; i++) {
        char *d = ctk_strdup(tools[i], err), *slash;

        if (!d)
            goto out;
        if ((slash = strrchr(d, '/')) && slash != d) {
            *slash = '\0';
            if (strcmp(d, "/usr/bin") != 0 && strcmp(d, "/bin") != 0 &&
                !(path.len && strstr(path.data, d))) {
                ctk_buf_puts(&path, d);
                ctk_buf_puts(&path, ":");
            }
        }
        free(d);
    }
    ctk_buf_puts(&path, "/usr/bin:/bin");
    if (path.failed) {
        ctk_error_set(err, CTK_E_NOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    if (!(home = ctk_path_join(c->tmproot, "home", err)))
        goto out;
    if (mkdir(home, 0700) != 0) {
        ctk_error_set(err, CTK_E_IO, home, 0, 0, "cannot create: %s", strerror(errno));
        free(home);
        goto out;
    }
    ok = ctk_env_set(&c->base, "PATH", path.data, err) && ctk_env_set(&c->base, "HOME", home, err) &&
         ctk_env_set(&c->base, "TMPDIR", c->tmproot, err) && ctk_env_set(&c->base, "LC_ALL", "C", err) &&
         ctk_env_set(&c->base, "LANG", "C", err);
    free(home);
out:
    ctk_buf_fini(&path);
    return ok;
}

/* `cc -dumpfullversion`: "12.2.0"; NULL when it does not say. */
static char *cc_version(const vctx_t *c, const char *cc)
{
    const char *argv[] = {cc, "-dumpfullversion", "-dumpversion", NULL};
    char *v = ctk_vjob_tool_output(c, argv, c->tmproot), *nl;

    if (v && (nl = strchr(v, '\n')))
        *nl = '\0';
    return v;
}

static void global_key(vctx_t *c)
{
    static const char *const driver_files[] = {
        "/dev/nvidiactl", "/dev/nvidia0", "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1",
        "/usr/lib/aarch64-linux-gnu/libcuda.so.1", "/usr/lib/libcuda.so.1", NULL};
    ctk_cache_key_t k;
    const ctk_template_t *t;

    ctk_cache_key_init(&k);
    ctk_cache_key_add_str(&k, "ctkgen", PACKAGE_VERSION);
    for (t = ctk_probe_sources; t->name; t++)
        ctk_cache_key_add(&k, t->name, t->data, (size_t)t->len);
    ctk_cache_key_add_stat(&k, c->rep->cc);
    ctk_cache_key_add_stat(&k, c->rep->cxx);
    ctk_cache_key_add_str(&k, "cc_version", c->rep->cc_version);
    ctk_cache_key_add(&k, "gcc_major", &c->gcc_major, sizeof c->gcc_major);
    ctk_cache_key_add_str(&k, "PATH", ctk_env_get(&c->base, "PATH"));
    ctk_cache_key_add_str(&k, "driver", c->rep->driver);
    for (int i = 0; driver_files[i]; i++)
        ctk_cache_key_add_stat(&k, driver_files[i]);
    ctk_cache_key_add_str(&k, "tcl", c->have_tcl ? c->tcl.cmd : c->tcl_why);
    if (c->have_tcl) {
        ctk_cache_key_add_stat(&k, c->tcl.cmd);
        ctk_cache_key_add_stat(&k, c->tcl.interp);
    }
    ctk_cache_key_add_str(&k, "lmod", c->have_lmod ? c->lmod.cmd : "");
    ctk_cache_key_add_str(&k, "tcl2lua", c->have_t2l ? c->t2l.script : "");
    if (c->have_lmod)
        ctk_cache_key_add_stat(&k, c->lmod.cmd);
    ctk_cache_key_add_str(&k, "require_launch", c->o->require_launch ? "1" : "0");
    /* who ran the modulefiles, and whether it could */
    ctk_cache_key_add_str(&k, "tcl_user", c->rep->tcl_user ? c->rep->tcl_user : "");
    ctk_cache_key_add_str(&k, "trust_tcl", c->o->trust_tcl ? "1" : "0");
    ctk_cache_key_add_str(&k, "tcl_user_why", c->tcl_user_why ? c->tcl_user_why : "");
    ctk_cache_key_hex(&k, c->global_key);
}

/* Environment Modules found for the Tcl modulefiles, or why not: an
 * error when --modulecmd named it, else their skip. */
static bool find_tcl_modsys(vctx_t *c, const char *const *envp, ctk_error_t *err)
{
    char *why = NULL;

    if (ctk_modsys_find_tcl(c->o->modulecmd, envp, &c->tcl, &why, err)) {
        c->have_tcl = true;
        c->rep->tcl_modsys = ctk_printf(err, "Environment Modules %s (%s)", c->tcl.version ? c->tcl.version : "?",
                                        c->tcl.cmd);
        return c->rep->tcl_modsys != NULL;
    }
    if (!why)
        return false;
    if (c->o->modulecmd) {
        ctk_error_set(err, CTK_E_ENV, c->o->modulecmd, 0, 0, "%s", why);
        free(why);
        return false;
    }
    c->tcl_why = why;
    return (c->rep->tcl_skip = ctk_strdup(why, err)) != NULL;
}

/* The sandbox the modulefiles run in: as root, an unprivileged user
 * (sandbox.h), who must be able to run Environment Modules. */
static bool setup_sandbox(vctx_t *c, ctk_error_t *err)
{
    char who[96], *why = NULL;

    if (!ctk_sandbox_init(&c->sb, c->o->trust_tcl, getenv("TMPDIR"), err))
        return false;
    if (!c->sb.drop)
        return true;
    ctk_sandbox_describe(&c->sb, who, sizeof who);
    c->rep->trust_tcl = c->sb.trust_root_files;
    if (!(c->rep->tcl_user = ctk_strdup(who, err)))
        return false;
    if (c->have_tcl && !ctk_sandbox_can_read(&c->sb, c->tcl.cmd, &why, err)) {
        if (!why)
            return false;
        c->tcl_user_why = ctk_printf(err, "Environment Modules cannot run as user %s: %s", who, why);
        free(why);
        if (!c->tcl_user_why)
            return false;
    }
    return true;
}

/* Lmod's tcl2lua, or why not, when an SDK's host compiler module may be
 * written in Tcl: the sandbox reads such a prerequisite as Lmod does. */
static bool find_tcl2lua(vctx_t *c, const char *const *envp, ctk_error_t *err)
{
    char *why = NULL;

    for (size_t i = 0; i < c->cfg->n_sdks; i++) {
        if (!c->cfg->sdks[i].host_compiler_module)
            continue;
        if (ctk_tcl2lua_find(envp, &c->t2l, &why, NULL, err))
            c->have_t2l = true;
        else if (!(c->t2l_why = why))
            return false;
        return true;
    }
    return true;
}

/* Real Lmod, which --lmod requires. */
static bool find_lmod(vctx_t *c, const char *const *envp, ctk_error_t *err)
{
    char *why = NULL;

    if (!ctk_modsys_find_lmod(c->o->lmod_cmd, envp, &c->lmod, &why, err)) {
        if (why)
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "--lmod: %s", why);
        free(why);
        return false;
    }
    c->have_lmod = true;
    c->rep->lmod = ctk_printf(err, "Lmod %s (%s)", c->lmod.version ? c->lmod.version : "?", c->lmod.cmd);
    return c->rep->lmod != NULL;
}

static bool setup_modsys(vctx_t *c, const ctk_env_t *caller, ctk_error_t *err)
{
    ctk_env_t *mut = (ctk_env_t *)caller; /* envp view only */
    const char *const *envp = ctk_env_envp(mut, err);

    return envp && find_tcl_modsys(c, envp, err) && setup_sandbox(c, err) && find_tcl2lua(c, envp, err) &&
           (!c->o->lmod_check || find_lmod(c, envp, err));
}

static bool setup_results(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, ctk_vreport_t *rep, ctk_error_t *err)
{
    if (!(rep->sdks = calloc(rep->n_sdks ? rep->n_sdks : 1, sizeof *rep->sdks))) {
        ctk_error_set(err, CTK_E_NOMEM, NULL, 0, 0, "out of memory");
        return false;
    }
    for (size_t i = 0; i < rep->n_sdks; i++) {
        const ctk_sdk_t *s = sdks[i];
        ctk_vsdk_t *r = &rep->sdks[i];

        for (int a = 0; a < CTK_ART__COUNT; a++) {
            r->art[a].kind = (ctk_art_t)a;
            ctk_findings_init(&r->art[a].findings);
            ctk_env_init(&r->art[a].env);
            ctk_strlist_init(&r->art[a].cflags);
            ctk_strlist_init(&r->art[a].libs);
            ctk_probe_report_init(&r->art[a].host);
            ctk_probe_report_init(&r->art[a].cuda);
            ctk_probe_report_init(&r->art[a].sass);
            ctk_probe_report_init(&r->art[a].ptx);
        }
        if (!(r->module = ctk_printf(err, "%s/%s", cfg->module_name, s->module_version)) ||
            !(r->pc_name = ctk_printf(err, "%s-%s", cfg->pc_prefix, s->module_version)) ||
            !(r->version = s->version_full ? ctk_strdup(s->version_full, err) : ctk_strdup(s->version_mm, err)) ||
            !(r->root = ctk_strdup(s->root, err)) ||
            !(r->art[CTK_ART_LMOD].file =
                  ctk_printf(err, "%s/lmod/%s/%s.lua", rep->outdir, cfg->module_name, s->module_version)) ||
            !(r->art[CTK_ART_TCL].file =
                  ctk_printf(err, "%s/tcl/%s/%s", rep->outdir, cfg->module_name, s->module_version)) ||
            !(r->art[CTK_ART_PC].file = ctk_printf(err, "%s/pkgconfig/%s.pc", rep->outdir, r->pc_name)))
            return false;
    }
    return true;
}

static void vctx_init(vctx_t *c, const ctk_config_t *cfg, ctk_sdk_t *const *sdks, const ctk_vopts_t *o,
                      ctk_vreport_t *out)
{
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->sdks = sdks;
    c->o = o;
    c->rep = out;
    c->timeout = o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S;
    ctk_env_init(&c->base);
    ctk_strlist_init(&c->nvcc_seen);
    ctk_strlist_init(&c->base_dirs);
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->pc_lock, NULL);
    pthread_mutex_init(&c->nvcc_lock, NULL);
}

static void vctx_fini(vctx_t *c)
{
    if (c->tmproot)
        ctk_remove_tree(c->tmproot);
    free(c->tmproot);
    free(c->cache_dir);
    free(c->tcl_why);
    free(c->tcl_user_why);
    free(c->t2l_why);
    if (c->have_t2l)
        ctk_tcl2lua_fini(&c->t2l);
    ctk_sandbox_fini(&c->sb);
    if (c->have_tcl)
        ctk_modsys_info_fini(&c->tcl);
    if (c->have_lmod)
        ctk_modsys_info_fini(&c->lmod);
    ctk_env_fini(&c->base);
    ctk_strlist_fini(&c->nvcc_seen);
    ctk_strlist_fini(&c->base_dirs);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->pc_lock);
    pthread_mutex_destroy(&c->nvcc_lock);
}

/* Everything the workers share, settled once: the results' records, the
 * host compilers, the temp dir, the base environment and the module
 * systems, the compilers' versions, the driver and the cache. */
static bool prepare(vctx_t *c, ctk_error_t *err)
{
    const ctk_vopts_t *o = c->o;
    ctk_vreport_t *out = c->rep;
    ctk_env_t caller;
    bool ok = false;

    ctk_env_init(&caller);
    if (!(out->outdir = ctk_realpath(o->outdir))) {
        ctk_error_set(err, CTK_E_IO, o->outdir, 0, 0, "no such directory (run ctkgen generate first)");
        goto out;
    }
    if (!setup_results(c->cfg, c->sdks, out, err) || !caller_env(&caller, err) ||
        !(out->cc = find_compiler(&caller, o->cc, "cc", "--cc", err)) ||
        !(out->cxx = find_compiler(&caller, o->cxx, "c++", "--cxx", err)) || !(c->tmproot = ctk_make_dtemp(ctk_tmp_base(), "ctkgen-validate", "temp dir", err)) ||
        !setup_base(c, err) || !setup_modsys(c, &caller, err) || !(c->base_envp = ctk_env_envp(&c->base, err)))
        goto out;
    out->cc_version = cc_version(c, out->cc);
    {
        char *gcc = ctk_env_which(&c->base, "gcc", NULL), *gv = gcc ? cc_version(c, gcc) : NULL;

        c->gcc_major = gv ? (int)strtol(gv, NULL, 10) : 0;
        free(gv);
        free(gcc);
    }
    out->driver = first_line_of_file("/proc/driver/nvidia/version");
    if (!o->no_cache && !o->stage_dir) {
        c->cache_dir = o->cache_dir ? ctk_strdup(o->cache_dir, err) : ctk_cache_default_dir(err);
        if (!c->cache_dir && err && err->code != CTK_E_OK)
            goto out;
    }
    global_key(c);
    ok = true;
out:
    ctk_env_fini(&caller);
    return ok;
}

/* The SDKs through min(jobs, n) worker threads (here, when none starts);
 * false after an interrupt or a worker's own failure. */
static bool run_workers(vctx_t *c, size_t n_sdks, ctk_error_t *err)
{
    size_t n_threads = (size_t)c->rep->jobs < n_sdks ? (size_t)c->rep->jobs : n_sdks, i;
    pthread_t *threads = NULL;

    if (n_threads && !(threads = calloc(n_threads, sizeof *threads))) {
        ctk_error_set(err, CTK_E_NOMEM, NULL, 0, 0, "out of memory");
        return false;
    }
    for (i = 0; i < n_threads; i++)
        if (pthread_create(&threads[i], NULL, worker, c) != 0)
            break;
    if (i == 0 && n_threads > 0)
        worker(c); /* no thread could start: do the work here */
    n_threads = i;
    for (i = 0; i < n_threads; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    if (ctk_proc_interrupted()) {
        /* before any worker's error: those are the interrupt's effects */
        char name[32];

        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "interrupted by %s",
                      ctk_proc_signal_name(ctk_proc_interrupted(), name, sizeof name));
        return false;
    }
    if (c->failed) {
        if (err && err->code == CTK_E_OK)
            *err = c->err;
        return false;
    }
    return true;
}

/* The report's counts of artifacts by verdict, and of skips by kind. */
static void count_verdicts(ctk_vreport_t *out)
{
    size_t i;

    for (i = 0; i < out->n_sdks; i++)
        for (int a = 0; a < CTK_ART__COUNT; a++)
            switch (out->sdks[i].art[a].verdict) {
            case CTK_VERDICT_PASS: out->n_pass++; break;
            case CTK_VERDICT_SKIP:
                out->n_skip++;
                if (ctk_vart_skip_kind(&out->sdks[i].art[a]) == CTK_SKIP_LAUNCH)
                    out->n_skip_launch++;
                else
                    out->n_skip_unchecked++;
                break;
            case CTK_VERDICT_FAIL: out->n_fail++; break;
            }
}

bool ctk_validate_judge_run(const ctk_sdk_t *sdk, const ctk_vlaunch_t *l, const ctk_proc_result_t *r,
                            double timeout_s, bool require_launch, const char *where, ctk_vart_t *cell,
                            ctk_error_t *err)
{
    return ctk_vrun_judge_staged(sdk, l, r, timeout_s, require_launch, where, cell, err);
}

bool ctk_validate(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks, const ctk_vopts_t *o,
                  ctk_vreport_t *out, ctk_error_t *err)
{
    vctx_t c;
    double t0 = now_s();
    bool ok;

    vctx_init(&c, cfg, sdks, o, out);
    out->n_sdks = n_sdks;
    out->jobs = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (out->jobs < 1)
        out->jobs = 1;
    ok = prepare(&c, err) && run_workers(&c, n_sdks, err);
    if (ok)
        count_verdicts(out);
    out->seconds = now_s() - t0;
    vctx_fini(&c);
    return ok;
}

bool ctk_vreport_prepare(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks, const char *outdir,
                         ctk_vreport_t *out, ctk_error_t *err)
{
    out->n_sdks = n_sdks;
    if (!(out->outdir = ctk_realpath(outdir))) {
        ctk_error_set(err, CTK_E_IO, outdir, 0, 0, "no such directory (run ctkgen generate first)");
        return false;
    }
    return setup_results(cfg, sdks, out, err);
}
