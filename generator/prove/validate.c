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
 *                                                    same, same_compile_env)
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
 */
#include <ctkconf.h>

#include "cache.h"
#include "checks.h"
#include "diag.h"
#include "env.h"
#include "facts.h"
#include "modenv.h"
#include "modeval.h"
#include "pc.h"
#include "proc.h"
#include "probeio.h"
#include "quote.h"
#include "render.h"
#include "trust.h"
#include "sandbox.h"
#include "tcl2lua.h"
#include "util.h"
#include "validate.h"
#include "write.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_TIMEOUT_S 120.0
#define ART_MAX_BYTES (4u << 20)
#define CACHE_SEP "\n\036\n" /* record separator between artifacts in a cache entry */




/* ---- shared state --------------------------------------------------------- */

typedef struct {
    const ctk_config_t *cfg;
    ctk_sdk_t *const *sdks;
    const ctk_vopts_t *o;
    ctk_vreport_t *rep;
    double timeout;
    char *tmproot;            /* private: mkdtemp, 0700 */
    char *cache_dir;          /* NULL: no cache */
    ctk_env_t base;           /* read-only once workers start */
    const char *const *base_envp; /* base as an envp, made once before the workers start */
    bool have_tcl, have_lmod;
    ctk_modsys_info_t tcl, lmod;
    ctk_sandbox_t sb;         /* who runs the modulefiles when ctkgen is root */
    char *tcl_user_why;       /* sb drops root, and Environment Modules cannot run as its user: why */
    char *tcl_why;            /* why Tcl is skipped */
    char *lmod_why;
    bool have_t2l;            /* Lmod's tcl2lua, for a prerequisite written in Tcl */
    ctk_tcl2lua_t t2l;
    char *t2l_why;            /* why not, when an SDK has a prerequisite */
    char global_key[33];      /* hash of everything shared by all SDKs */
    int gcc_major;            /* `gcc -dumpversion` on the base PATH: nvcc's default host compiler; 0: none */
    pthread_mutex_t lock;     /* next, progress, pc_lock use */
    pthread_mutex_t pc_lock;  /* libpkgconf is not documented thread-safe */
    size_t next;
    pthread_mutex_t nvcc_lock; /* held while an nvcc is asked its release */
    ctk_strlist_t nvcc_seen;  /* "FILE-IDENTITY\tRELEASE" of each nvcc asked (nvcc_lock) */
    ctk_strlist_t base_dirs;  /* `c++ -print-search-dirs` in the base environment,
                               * asked once (nvcc_lock); empty: not yet */
    bool failed;              /* a worker hit an internal error */
    ctk_error_t err;          /* the first such error */
} vctx_t;

/* What judging a probe's run needs, wherever it ran. */
typedef struct {
    const ctk_sdk_t *sdk;
    ctk_error_t *err;
    double timeout;           /* the run's limit, for messages */
    bool require_launch;
    const char *where;        /* "on this machine", "on node gpu-a100-1" */
} vjudge_t;

typedef struct {
    vctx_t *c;
    const ctk_sdk_t *sdk;
    vjudge_t jd;
    ctk_vsdk_t *res;
    char *dir;                /* private build dir of this SDK */
    char *full_name;          /* "cudatoolkit/13.0" */
    ctk_env_t menv[2];        /* lmod, tcl: base + the module's changes */
    bool have_env[2];
    bool same_env;            /* lmod and tcl environments agree for every user-visible variable */
    ctk_pc_result_t pc;
    bool have_pc;
    char *probe_o;            /* path of probe.o when the pc compile worked */
    char *pc_exe;             /* path of probe_pc when the pc link took every
                               * library from where it should (no CTK-LINK) */
    char *pc_trace;           /* that link's -Wl,--trace output */
    char *lmod_cuda;          /* the CUDA program lmod's check ran (its own or
                               * probe_pc), for a Tcl module with the same environment */
    char *nvcc_release;       /* of sdk->nvcc */
    char *text[CTK_ART__COUNT]; /* each artifact's bytes as check_tree read them; NULL: none */
    size_t text_len[CTK_ART__COUNT];
    bool refused[CTK_ART__COUNT]; /* check_tree refused it (CTK-MOD-006): not evaluated */
    /* the module the SDK's module requires (host_compiler.module), loaded
     * first as its users must; pre[0] NULL: none */
    const char *pre[2];
    ctk_env_t pre_env[2];     /* lmod, tcl: base + what loading it changed */
    bool have_pre[2];
    char *pre_why[2];         /* it could not be loaded that way: why (CTK-SKIP-006) */
    ctk_strlist_t pre_kv;     /* the sandbox's state after it (Lmod's bookkeeping included) */
    ctk_error_t *err;
} vjob_t;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- small helpers -------------------------------------------------------------- */

static bool write_text(const char *dir, const char *name, const char *data, size_t len,
                       ctk_error_t *err)
{
    char *p = ctk_path_join(dir, name, err);
    FILE *f;
    bool ok = false;

    if (!p)
        return false;
    f = fopen(p, "wb");
    if (!f) {
        ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot create: %s", strerror(errno));
        goto out;
    }
    if (fwrite(data, 1, len, f) != len) {
        ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot write: %s", strerror(errno));
        fclose(f);
        goto out;
    }
    if (fclose(f) != 0) {
        ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot write: %s", strerror(errno));
        goto out;
    }
    ok = true;
out:
    free(p);
    return ok;
}

static const ctk_template_t *probe_source(const char *name)
{
    const ctk_template_t *t;

    for (t = ctk_probe_sources; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

/* The first line of compiler output that says what went wrong, copied
 * into buf (trimmed); "" when none. */
static const char *first_error_line(const char *text, char *buf, size_t bufsz)
{
    const char *p = text, *best = NULL, *eol;
    size_t n;

    buf[0] = '\0';
    if (!text)
        return buf;
    while (*p) {
        eol = strchr(p, '\n');
        n = eol ? (size_t)(eol - p) : strlen(p);
        if (!best && n > 0)
            best = p; /* fallback: the first non-empty line */
        if (memmem(p, n, "error", 5) || memmem(p, n, "fatal", 5) ||
            memmem(p, n, "cannot find", 11) || memmem(p, n, "undefined reference", 19)) {
            best = p;
            break;
        }
        if (!eol)
            break;
        p = eol + 1;
    }
    if (best) {
        eol = strchr(best, '\n');
        n = eol ? (size_t)(eol - best) : strlen(best);
        if (n >= bufsz)
            n = bufsz - 1;
        memcpy(buf, best, n);
        buf[n] = '\0';
    }
    return buf;
}

/* Line of a module's operation on `name` (Lua: from modeval; others: text
 * search in the bytes check_tree read; 0 without them). */
static int var_line(const vjob_t *j, const ctk_vart_t *a, const char *name)
{
    return ctk_check_line_of(j->text[a->kind], name);
}

/* Is the library file `lib` one that the directory `dir` provides?  Either
 * it resolves into dir, or dir holds an entry of the same name that is the
 * same file: a toolkit assembled from symlinks or hard links into another
 * tree (a view, a fixture on another filesystem) loads its libraries by
 * paths that resolve elsewhere. */
static bool lib_in_dir(const char *lib, const char *dir)
{
    char *rl = ctk_realpath(lib), *rd = ctk_realpath(dir), *slash, *own = NULL;
    const char *base = strrchr(lib, '/');
    bool in = false;

    if (rl && rd && (slash = strrchr(rl, '/'))) {
        *slash = '\0';
        in = strcmp(rl, rd) == 0;
    }
    if (!in && base && (own = ctk_path_join(dir, base + 1, NULL)))
        in = ctk_same_file(lib, own);
    free(own);
    free(rl);
    free(rd);
    return in;
}

/* stdout of a tool run in the base environment, when it exits 0; caller
 * frees.  For version queries (nvcc --version, cc -dumpversion). */
static char *tool_output(const vctx_t *c, const char *const *argv, const char *cwd)
{
    ctk_proc_spec_t spec = {0};
    ctk_proc_result_t r;
    char *out = NULL;

    ctk_proc_result_init(&r);
    spec.argv = argv;
    spec.envp = c->base_envp;
    spec.cwd = cwd;
    spec.timeout_s = c->timeout;
    if (ctk_proc_run(&spec, &r, NULL) && ctk_proc_ok(&r)) {
        out = r.out;
        r.out = NULL;
    }
    ctk_proc_result_fini(&r);
    return out;
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
    text = tool_output(j->c, argv, j->dir);
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

/* ---- steps ------------------------------------------------------------------------ */

/* Run argv in env, in the job's dir.  false only for internal errors. */
static bool run_step(vjob_t *j, const char *const *argv, ctk_env_t *env, ctk_proc_result_t *r)
{
    ctk_proc_spec_t spec = {0};

    spec.argv = argv;
    if (!(spec.envp = ctk_env_envp(env, j->err)))
        return false;
    spec.cwd = j->dir;
    spec.timeout_s = j->c->timeout;
    spec.max_output = 256u << 10;
    return ctk_proc_run(&spec, r, j->err);
}

static bool addf(ctk_vart_t *a, const char *code, int line, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static bool addf(ctk_vart_t *a, const char *code, int line, ctk_error_t *err, const char *fmt, ...)
{
    char text[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return ctk_findings_add(&a->findings, code, a->file, line, err, "%s", text);
}

/* The host compiler NVCC_PREPEND_FLAGS names: its last "-ccbin=X",
 * "-ccbin X", "--compiler-bindir=X" or "--compiler-bindir X" (nvcc takes
 * the last), or NULL; caller frees. */
static char *prepend_ccbin(const char *flags)
{
    char *copy = flags ? ctk_strdup(flags, NULL) : NULL, *w, *save = NULL, *got = NULL;
    bool want = false;

    for (w = copy ? strtok_r(copy, " \t", &save) : NULL; w; w = strtok_r(NULL, " \t", &save)) {
        const char *v = NULL;

        if (want)
            v = w;
        else if (strncmp(w, "-ccbin=", 7) == 0)
            v = w + 7;
        else if (strncmp(w, "--compiler-bindir=", 18) == 0)
            v = w + 18;
        want = strcmp(w, "-ccbin") == 0 || strcmp(w, "--compiler-bindir") == 0;
        if (v) {
            free(got);
            got = ctk_strdup(v, NULL);
        }
    }
    free(copy);
    return got;
}

/* The host compiler that nvcc runs in env, from `nvcc -dryrun`: the
 * program of its first host preprocessing step ("#$ \"/usr/bin\"/g++-11
 * ... -E -x c++ ..."), searched on env's PATH when bare; NULL when it
 * cannot say (caller frees). */
static char *nvcc_host_compiler(vjob_t *j, const char *nvcc, ctk_env_t *env)
{
    const char *argv[] = {nvcc, "-dryrun", "-c", "probe.cu", "-o", "probe_dry.o", NULL};
    ctk_proc_result_t r;
    char *got = NULL;

    ctk_proc_result_init(&r);
    if (run_step(j, argv, env, &r) && ctk_proc_ok(&r)) {
        const char *text = r.err && strstr(r.err, "#$ ") ? r.err : r.out;

        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            const char *end = strchr(l, '\n');
            size_t n = end ? (size_t)(end - l) : strlen(l);
            char word[PATH_MAX], *line;
            size_t k = 0;

            if (strncmp(l, "#$ ", 3) != 0 || !(line = ctk_strndup(l, n, NULL)))
                continue;
            if (strstr(line, " -E -x c++ ")) {
                for (const char *p = line + 3; *p && *p != ' ' && k + 1 < sizeof word; p++)
                    if (*p != '"')
                        word[k++] = *p;
                word[k] = '\0';
                got = strchr(word, '/') ? ctk_strdup(word, NULL) : ctk_env_which(env, word, NULL);
            }
            free(line);
            if (got)
                break;
        }
    }
    ctk_proc_result_fini(&r);
    return got;
}

/* CTK-HOSTCC-001's advice when the site config names the host compiler
 * (ccbin): whether the artifact hands it to nvcc, and how. */
static void ccbin_hint(vjob_t *j, const ctk_vart_t *a, const char *ccbin, int gmax, char *hint, size_t size)
{
    char older[64] = "an older one";
    const ctk_env_t *menv = a->kind == CTK_ART_LMOD ? &j->menv[0] : a->kind == CTK_ART_TCL ? &j->menv[1] : NULL;
    char *named = NULL;
    bool handed;

    if (gmax > 0)
        snprintf(older, sizeof older, "GCC %d or older", gmax);
    if (a->kind == CTK_ART_PC)
        handed = j->pc.ccbin && ctk_same_file(j->pc.ccbin, ccbin);
    else
        handed = menv && (named = prepend_ccbin(ctk_env_get(menv, "NVCC_PREPEND_FLAGS"))) &&
                 ctk_same_file(named, ccbin);
    free(named);
    if (handed)
        snprintf(hint, size, "nvcc ran %s, the compiler host_compiler.ccbin names, and refuses it: "
                 "name %s in host_compiler.ccbin", ccbin, older);
    else if (a->kind == CTK_ART_PC)
        snprintf(hint, size, "the .pc has no ccbin variable naming host_compiler.ccbin %s, so nvcc ran its "
                 "default; run ctkgen generate (it writes ccbin=%s)", ccbin, ccbin);
    else
        snprintf(hint, size, "the module does not hand host_compiler.ccbin %s to nvcc, which ran its default "
                 "(nvcc 11.8 and 12.4 ignore NVCC_CCBIN; every release reads NVCC_PREPEND_FLAGS=-ccbin=%s); "
                 "run ctkgen generate", ccbin, ccbin);
}

/* A failed compile or link: the finding that says why. */
static bool build_failure(vjob_t *j, ctk_vart_t *a, const char *what, const ctk_proc_result_t *r)
{
    char line[512], desc[256];
    const char *text = r->err && r->err[0] ? r->err : r->out;

    first_error_line(text, line, sizeof line);
    if (r->spawn_errno || r->timed_out || r->term_signal) {
        ctk_proc_describe(r, j->c->timeout, desc, sizeof desc);
        return addf(a, "CTK-BUILD-002", 0, j->err, "%s: %s", what, desc);
    }
    if (text && (strstr(text, "unsupported GNU version") || strstr(text, "unsupported clang version") ||
                 strstr(text, "-allow-unsupported-compiler"))) {
        int gmax = ctk_facts_gcc_max(j->sdk->version.major, j->sdk->version.minor);
        const char *ccbin = j->sdk->conf->host_compiler_ccbin;
        char hint[768] = "";

        if (ccbin)
            ccbin_hint(j, a, ccbin, gmax, hint, sizeof hint);
        else if (gmax > 0) {
            char name[32];
            int v;

            snprintf(hint, sizeof hint, "use GCC %d or older (set host_compiler.ccbin in the site config)",
                     gmax);
            for (v = gmax; v >= 5; v--) {
                char *found;

                snprintf(name, sizeof name, "g++-%d", v);
                if ((found = ctk_env_which(&j->c->base, name, NULL))) {
                    snprintf(hint, sizeof hint,
                             "use %s, the newest accepted compiler here (host_compiler.ccbin)", found);
                    free(found);
                    break;
                }
            }
        }
        return addf(a, "CTK-HOSTCC-001", 0, j->err, "%s: nvcc refuses the host compiler: %s; %s", what,
                    line, hint);
    }
    if (text && strstr(text, "cuda_runtime.h") &&
        (strstr(text, "No such file") || strstr(text, "cannot open source file")))
        return addf(a, "CTK-BUILD-001", 0, j->err, "%s: cuda_runtime.h not found: %s", what, line);
    if (text && (strstr(text, "cannot find -lcudart") || strstr(text, "unable to find library -lcudart")))
        return addf(a, "CTK-BUILD-003", 0, j->err, "%s: libcudart not found: %s", what, line);
    if (text && strstr(text, "nvcc fatal") && strstr(text, "Unknown option"))
        return addf(a, "CTK-PC-001", var_line(j, a, "Libs:"), j->err,
                    "%s: nvcc rejects the Libs: %s", what, line);
    if (text && (strstr(text, "ld returned") || strstr(text, "undefined reference") ||
                 strstr(text, "cannot find -l")))
        return addf(a, "CTK-BUILD-004", 0, j->err, "%s: %s", what, line);
    return addf(a, "CTK-BUILD-002", 0, j->err, "%s: %s", what, line[0] ? line : "failed");
}

/* How a probe's run ended, judged: a finding when it did not exit 0 with a
 * report, else the report parsed into rep.  false only for internal errors. */
static bool judge_run(const vjudge_t *jd, ctk_vart_t *a, const char *exe, const ctk_proc_result_t *r,
                      ctk_probe_report_t *rep)
{
    ctk_error_t perr;
    char desc[256], line[512];

    if (!ctk_proc_ok(r)) {
        first_error_line(r->err, line, sizeof line);
        if (strstr(r->err, "error while loading shared libraries") && strstr(r->err, "libcudart"))
            return addf(a, "CTK-RUN-003", 0, jd->err, "%s: %s", exe, line);
        return addf(a, "CTK-RUN-001", 0, jd->err, "%s: %s%s%s", exe,
                    ctk_proc_describe(r, jd->timeout, desc, sizeof desc), line[0] ? ": " : "", line);
    }
    ctk_error_init(&perr);
    if (!ctk_probe_report_parse(r->out, rep, &perr))
        return addf(a, "CTK-RUN-001", 0, jd->err, "%s: no report: %s", exe, perr.text);
    return true;
}

static bool stage_probe(vjob_t *j, ctk_vart_t *a, const char *exe, ctk_env_t *env, ctk_probe_kind_t kind);

/* Run a built probe in env and check how it ended.  With a stage dir the
 * probe is also staged for a launcher elsewhere, and the CUDA probe is not
 * run here at all (its launch is judged where it runs). */
static bool launch(vjob_t *j, ctk_vart_t *a, const char *exe, ctk_env_t *env,
                   ctk_probe_report_t *rep)
{
    const char *argv[] = {exe, NULL};
    ctk_proc_result_t r;
    bool ok = false;

    if (j->c->o->stage_dir) {
        ctk_probe_kind_t kind = rep == &a->host   ? CTK_PROBE_HOST
                                : rep == &a->cuda ? CTK_PROBE_CUDA
                                : rep == &a->sass ? CTK_PROBE_SASS
                                                  : CTK_PROBE_PTX;

        if (!stage_probe(j, a, exe, env, kind))
            return false;
        if (kind != CTK_PROBE_HOST)
            return true;
    }
    ctk_proc_result_init(&r);
    if (run_step(j, argv, env, &r))
        ok = judge_run(&j->jd, a, exe, &r, rep);
    ctk_proc_result_fini(&r);
    return ok;
}

/* What a probe's report says about the libcudart, versions and the GPU. */
static bool judge_report(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p, const char *what)
{
    const ctk_sdk_t *s = jd->sdk;
    int ma = s->version.major, mi = s->version.minor;

    if (!p->present)
        return true;
    if (p->libcudart && p->libcudart[0] && !lib_in_dir(p->libcudart, s->libdir)) {
        char *real = ctk_realpath(p->libcudart);

        if (!addf(a, "CTK-RUN-002", 0, jd->err, "%s loaded %s%s%s%s, not the libcudart in %s", what,
                  p->libcudart, real && strcmp(real, p->libcudart) ? " (" : "",
                  real && strcmp(real, p->libcudart) ? real : "",
                  real && strcmp(real, p->libcudart) ? ")" : "", s->libdir)) {
            free(real);
            return false;
        }
        free(real);
    }
    if (p->cudart_header / 1000 != ma || p->cudart_header % 1000 / 10 != mi)
        if (!addf(a, "CTK-VER-001", 0, jd->err,
                  "%s was compiled against CUDART_VERSION %d (CUDA %d.%d), the toolkit is %d.%d", what,
                  p->cudart_header, p->cudart_header / 1000, p->cudart_header % 1000 / 10, ma, mi))
            return false;
    if (p->runtime && (p->runtime / 1000 != ma || p->runtime % 1000 / 10 != mi))
        if (!addf(a, "CTK-VER-001", 0, jd->err, "%s runs on a CUDA %d.%d runtime (%s), the toolkit is %d.%d",
                  what, p->runtime / 1000, p->runtime % 1000 / 10, p->libcudart ? p->libcudart : "?",
                  ma, mi))
            return false;
    return true;
}

/* The driver cannot JIT this toolkit's PTX for p's GPU (CUDA minor-version
 * compatibility: an older driver runs SASS, not newer PTX). */
static bool ptx_too_new(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p, const char *code)
{
    const ctk_sdk_t *s = jd->sdk;
    const char *full = NULL, *compat = NULL;
    int sm = p->cc_major * 10 + p->cc_minor;

    ctk_facts_driver_min(s->version.major, s->version.minor, &full, &compat);
    return addf(a, code, 0, jd->err,
                "%s (compute capability %d.%d) %s: its driver supports CUDA %d.%d, older than this toolkit's "
                "%d.%d, so it cannot JIT the toolkit's PTX (cudaErrorUnsupportedPtxVersion); code built with SASS "
                "for it (-arch=sm_%d) runs, code that needs PTX (-arch=compute_XX, newer GPUs) does not; "
                "update the driver%s%s%s",
                p->device && p->device[0] ? p->device : "the GPU", p->cc_major, p->cc_minor, jd->where,
                p->driver / 1000, p->driver % 1000 / 10, s->version.major, s->version.minor, sm,
                full ? " to " : "", full ? full : "", full ? " or newer" : "");
}

static bool kernel_ran(const ctk_probe_report_t *p)
{
    return p->present && p->status && strcmp(p->status, "cudaSuccess") == 0 && p->kernel_ok == 1;
}

/* What the SASS-only and PTX-only builds say about the GPU and driver, once
 * both ran: a GPU outside the toolkit's architectures, or a driver that
 * runs SASS but cannot JIT this toolkit's PTX although the plain build
 * passed (it held SASS for this GPU). */
static bool judge_arch(const vjudge_t *jd, ctk_vart_t *a)
{
    const ctk_probe_report_t *sass = &a->sass, *ptx = &a->ptx;

    if (!sass->present || !ptx->present || sass->driver == 0 || sass->devices == 0)
        return true; /* no GPU there: nothing learnt */
    if (!kernel_ran(sass) && sass->status && strcmp(sass->status, "cudaErrorNoKernelImageForDevice") == 0 &&
        !ctk_findings_has(&a->findings, "CTK-GPU-002"))
        return addf(a, "CTK-GPU-002", 0, jd->err,
                    "%s (compute capability %d.%d) %s runs none of the SASS this toolkit builds for every "
                    "architecture it knows (cudaErrorNoKernelImageForDevice): not a target of this toolkit",
                    sass->device && sass->device[0] ? sass->device : "the GPU", sass->cc_major, sass->cc_minor,
                    jd->where);
    if (kernel_ran(sass) && ptx->status && strcmp(ptx->status, "cudaErrorUnsupportedPtxVersion") == 0 &&
        !ctk_findings_has(&a->findings, "CTK-GPU-006"))
        return ptx_too_new(jd, a, ptx, "CTK-GPU-007");
    return true;
}

/* The launch part of a cuda probe's report: pass, skip or a GPU finding. */
static bool judge_launch(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p)
{
    const ctk_sdk_t *s = jd->sdk;
    const char *st = p->status ? p->status : "";
    const char *skip_code = NULL;
    char reason[256];

    if (!p->present || !p->is_cuda)
        return true;
    if (p->driver == 0) {
        skip_code = "CTK-SKIP-001";
        snprintf(reason, sizeof reason, "not launched: no NVIDIA driver %s (%s)", jd->where, st);
    } else if (strcmp(st, "cudaErrorNoDevice") == 0 || (strcmp(st, "cudaSuccess") == 0 && p->devices == 0)) {
        skip_code = "CTK-SKIP-002";
        snprintf(reason, sizeof reason, "not launched: no CUDA-capable GPU visible %s (%s)", jd->where, st);
    } else if (strcmp(st, "cudaErrorInsufficientDriver") == 0) {
        const char *full = NULL, *compat = NULL;

        ctk_facts_driver_min(s->version.major, s->version.minor, &full, &compat);
        return addf(a, "CTK-GPU-003", 0, jd->err,
                    "the driver supports CUDA %d.%d, this runtime is %d.%d%s%s%s", p->driver / 1000,
                    p->driver % 1000 / 10, p->runtime / 1000, p->runtime % 1000 / 10,
                    full ? " (needs driver " : "", full ? full : "", full ? " or newer)" : "");
    } else if (strcmp(st, "cudaErrorUnsupportedPtxVersion") == 0) {
        return ptx_too_new(jd, a, p, "CTK-GPU-006");
    } else if (strcmp(st, "cudaErrorCallRequiresNewerDriver") == 0) {
        const char *full = NULL, *compat = NULL;

        ctk_facts_driver_min(s->version.major, s->version.minor, &full, &compat);
        return addf(a, "CTK-GPU-003", 0, jd->err,
                    "the driver supports CUDA %d.%d; a call of this %d.%d runtime needs a newer one "
                    "(cudaErrorCallRequiresNewerDriver)%s%s%s",
                    p->driver / 1000, p->driver % 1000 / 10, s->version.major, s->version.minor,
                    full ? ": driver " : "", full ? full : "", full ? " or newer" : "");
    } else if (strcmp(st, "cudaErrorNoKernelImageForDevice") == 0 ||
               strcmp(st, "cudaErrorInvalidKernelImage") == 0) {
        int sup = ctk_facts_sm_supported(s->version.major, s->version.minor, p->cc_major, p->cc_minor);

        return addf(a, "CTK-GPU-002", 0, jd->err, "%s (compute capability %d.%d) cannot run this kernel: %s%s",
                    p->device ? p->device : "GPU", p->cc_major, p->cc_minor, st,
                    sup == 0 ? "; that architecture is not a target of this toolkit" : "");
    } else if (strcmp(st, "cudaSuccess") != 0) {
        return addf(a, "CTK-GPU-004", 0, jd->err, "CUDA error on %s: %s", p->device ? p->device : "GPU", st);
    } else if (p->kernel_ok != 1) {
        return addf(a, "CTK-GPU-001", 0, jd->err, "the axpy kernel ran on %s but its result was wrong",
                    p->device ? p->device : "GPU");
    } else {
        a->launched = true;
        return true;
    }
    if (jd->require_launch)
        return addf(a, "CTK-GPU-005", 0, jd->err, "%s", reason);
    if (!a->skip_code) {
        if (!(a->skip_code = ctk_strdup(skip_code, jd->err)) ||
            !(a->skip_reason = ctk_strdup(reason, jd->err)))
            return false;
    }
    return true;
}

/* ---- probes staged for a launcher elsewhere --------------------------------------------- */

/* Copy exe into the stage dir under a name of its own and list it. */
static bool stage_probe(vjob_t *j, ctk_vart_t *a, const char *exe, ctk_env_t *env, ctk_probe_kind_t kind)
{
    ctk_vreport_t *rep = j->c->rep;
    size_t idx = (size_t)(j->res - rep->sdks), len = 0;
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    ctk_vlaunch_t l = {0};
    char *data = NULL, name[96];
    bool ok = false;

    snprintf(name, sizeof name, "%zu-%s-%s", idx, ctk_art_name(a->kind), base);
    ctk_strlist_init(&l.env);
    l.sdk = idx;
    l.art = a->kind;
    l.probe = kind;
    if (!(data = ctk_file_read(exe, 256u << 20, &len, j->err)) ||
        !(l.exe = ctk_path_join(j->c->o->stage_dir, name, j->err)) || !(l.name = ctk_strdup(base, j->err)))
        goto out;
    if (!write_text(j->c->o->stage_dir, name, data, len, j->err) || chmod(l.exe, 0755) != 0) {
        if (j->err->code == CTK_E_OK)
            ctk_error_set(j->err, CTK_E_IO, l.exe, 0, 0, "cannot make it executable: %s", strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < env->kv.len; i++)
        if (!ctk_strlist_push(&l.env, env->kv.items[i], j->err))
            goto out;
    pthread_mutex_lock(&j->c->lock);
    {
        ctk_vlaunch_t *grown = realloc(rep->launches, (rep->n_launches + 1) * sizeof *grown);

        if (grown) {
            rep->launches = grown;
            grown[rep->n_launches++] = l;
            memset(&l, 0, sizeof l);
            ok = true;
        } else {
            ctk_error_nomem(j->err);
        }
    }
    pthread_mutex_unlock(&j->c->lock);
out:
    free(data);
    free(l.exe);
    free(l.name);
    ctk_strlist_fini(&l.env);
    return ok;
}

bool ctk_validate_judge_run(const ctk_sdk_t *sdk, const ctk_vlaunch_t *l, const ctk_proc_result_t *r,
                            double timeout_s, bool require_launch, const char *where, ctk_vart_t *cell,
                            ctk_error_t *err)
{
    vjudge_t jd = {sdk, err, timeout_s, require_launch, where};
    ctk_probe_report_t *reps[] = {&cell->host, &cell->cuda, &cell->sass, &cell->ptx}, *rep = reps[l->probe];
    size_t before = cell->findings.len;

    if (!judge_run(&jd, cell, l->name, r, rep))
        return false;
    if (l->probe == CTK_PROBE_PTX)
        return judge_arch(&jd, cell);
    if (cell->findings.len > before || !rep->present || l->probe == CTK_PROBE_SASS)
        return true;
    if (!judge_report(&jd, cell, rep, l->name))
        return false;
    return l->probe != CTK_PROBE_CUDA || judge_launch(&jd, cell, rep);
}



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
        addf(a, e.code == CTK_E_CONFLICT ? "CTK-MOD-006" : "CTK-MOD-001", 0, j->err,
             "%s%s%s%s", other ? e.source : "", other ? ": " : "", e.text,
             e.code == CTK_E_CONFLICT ? "; not read, not loaded" : "");
    }
    return -1;
}

/* Before anything reads an artifact (the cache key, the sandbox, Lmod,
 * Environment Modules, libpkgconf, each of which would follow a symlink
 * or block on a FIFO): read each one, and the .modulerc its module system
 * reads beside it, as generate reads the tree.  A symlink or anything but
 * a regular file there is refused, and that artifact is not evaluated.
 * False only for ctkgen's own failures. */
static bool check_tree(vjob_t *j, bool *any_refused)
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

/* The artifact's bytes, read by check_tree (the caller frees them), or
 * NULL: missing (CTK-MOD-002 added) or refused already. */
static char *read_artifact(vjob_t *j, ctk_vart_t *a, size_t *len)
{
    char *text = j->text[a->kind];

    if (j->refused[a->kind])
        return NULL;
    if (!text) {
        addf(a, "CTK-MOD-002", 0, j->err, "%s is missing; run ctkgen generate", a->file);
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

/* The MODULEPATH an artifact loads from: its own tree, then, when the
 * module requires another, the site's dirs (ctk_vopts_t.modulepath). */
static char *module_path(vjob_t *j, const char *sub)
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

/* a was not loaded because its prerequisite could not be: a skip with why. */
static bool skip_prereq(vjob_t *j, ctk_vart_t *a, const char *what, const char *why)
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

/* The sandbox's environment after `module load PREREQ`, as Lmod would
 * leave it (Tcl files through Lmod's tcl2lua): pre_env[0] and pre_kv, or
 * pre_why[0]. */
static bool prereq_lua(vjob_t *j)
{
    ctk_modeval_opts_t o = { CTK_MODE_LOAD, NULL, true, NULL, true, NULL, NULL };
    ctk_modeval_t *ev = NULL;
    const ctk_moddep_t *d;
    ctk_error_t e;
    char *mp = module_path(j, "lmod"), *q = NULL, *src = NULL, *mpkv = NULL;
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

/* Environment Modules' environment after `module load PREREQ`, loaded as
 * the Tcl artifact would be: pre_env[1], or pre_why[1].  Nothing when the
 * artifact itself is not to be loaded here (eval_tcl says why). */
static bool prereq_tcl(vjob_t *j)
{
    const ctk_sandbox_t *sb;
    ctk_error_t e;
    char *mp = module_path(j, "tcl"), *own = own_path(j, "tcl"), *as = NULL, *why = NULL;
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
    char *mp = module_path(j, "lmod");
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
        ok = addf(a, "CTK-ENV-002", 0, j->err, "real Lmod failed where the sandbox loaded the module: %s", e.text);
    else if (!ctk_env_diff(&j->menv[0], &real, &diff, j->err))
        ok = false;
    else if (diff.len > 0) {
        const char *n = diff.items[0], *sv = ctk_env_get(&j->menv[0], n), *lv = ctk_env_get(&real, n);

        ok = addf(a, "CTK-ENV-002", 0, j->err,
                  "real Lmod and the sandbox disagree on %zu variable(s), first %s: sandbox %s%s%s, Lmod %s%s%s",
                  diff.len, n, sv ? "\"" : "", sv ? sv : "unset", sv ? "\"" : "", lv ? "\"" : "",
                  lv ? lv : "unset", lv ? "\"" : "");
    }
    free(mp);
    ctk_strlist_fini(&diff);
    ctk_env_fini(&real);
    return ok;
}

static bool eval_lmod(vjob_t *j, ctk_vart_t *a)
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
        ok = skip_prereq(j, a, "not loaded: it requires", j->pre_why[0]);
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
            ok = addf(a, "CTK-MOD-001", e.line, j->err, "%s", e.text);
        }
        goto out;
    }
    if (!env_from_modeval(j, ev, &j->menv[0], a)) {
        ok = false;
        goto out;
    }
    j->have_env[0] = true;
    if (!ev->family && ev->conflicts.len == 0)
        ok = addf(a, "CTK-MOD-003", 0, j->err, "no family() or conflict(): another toolkit can be loaded alongside");
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
        return addf(a, "CTK-MOD-002", 0, j->err, "%s is missing; run ctkgen generate", a->file);
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
        return addf(a, "CTK-MOD-001", e.line, j->err, "%s", e.text);
    }
    j->have_env[1] = true;
    if (!record_changes(j, j->have_pre[1] ? &j->pre_env[1] : &j->c->base, &j->menv[1], a))
        return false;
    if (!strstr(src, "conflict") && !strstr(src, "family"))
        return addf(a, "CTK-MOD-003", 0, j->err, "no family or conflict: another toolkit can be loaded alongside");
    return true;
}

static bool eval_tcl(vjob_t *j, ctk_vart_t *a)
{
    const ctk_sandbox_t *sb;
    size_t len;
    char *src, *mp, *own = NULL, *as = NULL, *skip_why = NULL;
    bool ok = true;

    if (!j->c->have_tcl)
        return tcl_not_run(j, a);
    if (!(src = read_artifact(j, a, &len)))
        return j->err->code == CTK_E_OK;
    if (!(mp = module_path(j, "tcl")) || !(own = own_path(j, "tcl"))) {
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
        ok = skip_prereq(j, a, "not loaded: it requires", j->pre_why[1]);
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

static bool eval_pc(vjob_t *j, ctk_vart_t *a)
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
        ok = addf(a, ctk_pc_stop_finding(j->pc.stop), e.line, j->err, "%s", e.text);
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

/* Read the artifact's text again for line numbers (NULL when unreadable:
 * findings then carry no line). */
static bool check_module_env(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
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

static bool check_pc_static(vjob_t *j, ctk_vart_t *a)
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
    return addf(a, "CTK-TRUST-002", 0, j->err, "validate runs %s (%s) though another user can change it: %s",
                prog, what, why);
}

/* The programs validate runs for artifact k that the site config named
 * (not the host compilers, not the probes it builds in its private dir):
 * the SDK's nvcc and ccbin on the .pc artifact, whose steps run them by
 * those paths; a module's own nvcc, when its PATH finds another, on that
 * module.  They still run (the admin chose them); the warning changes no
 * verdict.  Judged on every run, never taken from the cache: a chown
 * changes no cache key. */
static bool trust_findings(vjob_t *j, ctk_art_t k)
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

/* ---- builds ---------------------------------------------------------------------------- */

/* The environment the .pc steps run in: the base, no CPATH/LIBRARY_PATH/
 * LD_LIBRARY_PATH (the base has none).  The host compiler comes from the
 * .pc's ccbin variable, on nvcc's command line, as a .pc user passes it;
 * without one, from the module the site names (host_compiler.module),
 * which its users load: the base after loading it. */
static bool pc_env(vjob_t *j, ctk_env_t *env)
{
    const ctk_env_t *from = &j->c->base;

    if (j->pre[0] && !j->sdk->conf->host_compiler_ccbin)
        from = j->have_pre[0] ? &j->pre_env[0] : &j->pre_env[1];
    return ctk_env_copy(env, from, j->err);
}

/* argv = prefix..., then each flag of list, then suffix...; caller frees the array. */
static const char **make_argv(const char *const *pre, const ctk_strlist_t *list, const char *const *post,
                              ctk_error_t *err)
{
    size_t n = 0, k = 0, i;
    const char **v;

    for (i = 0; pre[i]; i++)
        n++;
    for (i = 0; post[i]; i++)
        n++;
    n += list ? list->len : 0;
    if (!(v = calloc(n + 1, sizeof *v))) {
        ctk_error_set(err, CTK_E_NOMEM, NULL, 0, 0, "out of memory");
        return NULL;
    }
    for (i = 0; pre[i]; i++)
        v[k++] = pre[i];
    for (i = 0; list && i < list->len; i++)
        v[k++] = list->items[i];
    for (i = 0; post[i]; i++)
        v[k++] = post[i];
    return v;
}

static bool run_argv(vjob_t *j, const char *const *pre, const ctk_strlist_t *list,
                     const char *const *post, ctk_env_t *env, ctk_proc_result_t *r)
{
    const char **argv = make_argv(pre, list, post, j->err);
    bool ok;

    if (!argv)
        return false;
    ok = run_step(j, argv, env, r);
    free(argv);
    return ok;
}

/* nvcc accepted its host compiler; is that compiler within what this
 * release supports (facts.h)?  Only for nvcc's default, gcc on PATH: a
 * ccbin or a compiler module from the site config is the admin's
 * explicit choice. */
static bool check_host_compiler(vjob_t *j, ctk_vart_t *a)
{
    int gmax = ctk_facts_gcc_max(j->sdk->version.major, j->sdk->version.minor);

    if (j->sdk->conf->host_compiler_ccbin || j->sdk->conf->host_compiler_module || !j->c->gcc_major || !gmax ||
        j->c->gcc_major <= gmax)
        return true;
    return addf(a, "CTK-HOSTCC-002", 0, j->err,
                "nvcc built with GCC %d, newer than the GCC %d that CUDA %d.%d supports; name a supported "
                "compiler in host_compiler.ccbin",
                j->c->gcc_major, gmax, j->sdk->version.major, j->sdk->version.minor);
}

/* The architectures this nvcc builds for ("sm_75 sm_80 ..."), from
 * --list-gpu-code; NULL when it cannot say. */
static char *gpu_codes(vjob_t *j)
{
    const char *argv[] = {j->sdk->nvcc, "--list-gpu-code", NULL};
    char *out = tool_output(j->c, argv, j->dir);

    if (out && strncmp(out, "sm_", 3) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Build and run one variant of probe.cu: -gencode for each sm_XX of codes
 * (SASS alone), or for the oldest one's compute_XX alone (PTX alone). */
static bool arch_probe(vjob_t *j, ctk_vart_t *a, const char *codes, bool sass, ctk_env_t *env)
{
    const char *argv[64];
    char gencode[32][48], *exe = NULL, *copy = ctk_strdup(codes, j->err), *save = NULL;
    const char *name = sass ? "probe_sass" : "probe_ptx";
    ctk_proc_result_t r;
    size_t n = 0, g = 0;
    bool ok = false;

    if (!copy)
        return false;
    argv[n++] = j->sdk->nvcc;
    for (char *c = strtok_r(copy, " \t\n", &save); c && g < 32; c = strtok_r(NULL, " \t\n", &save)) {
        const char *num = c + 3;

        if (sass)
            snprintf(gencode[g], sizeof gencode[g], "arch=compute_%s,code=sm_%s", num, num);
        else
            snprintf(gencode[g], sizeof gencode[g], "arch=compute_%s,code=compute_%s", num, num);
        argv[n++] = "-gencode";
        argv[n++] = gencode[g++];
        if (!sass)
            break;
    }
    argv[n++] = "probe.cu";
    argv[n++] = "-o";
    argv[n++] = name;
    argv[n] = NULL;
    ctk_proc_result_init(&r);
    if (!run_step(j, argv, env, &r))
        goto out;
    if (!ctk_proc_ok(&r)) {
        ok = true; /* nothing learnt: the plain build says what matters */
        goto out;
    }
    ok = (exe = ctk_path_join(j->dir, name, j->err)) && launch(j, a, exe, env, sass ? &a->sass : &a->ptx);
out:
    ctk_proc_result_fini(&r);
    free(exe);
    free(copy);
    return ok;
}

/* Where a GPU may run them (a launcher elsewhere, or a driver here), the
 * SASS-only and PTX-only variants tell a driver too old for this toolkit's
 * PTX and a GPU outside its architectures from other failures. */
static bool arch_probes(vjob_t *j, ctk_vart_t *a, ctk_env_t *env)
{
    char *codes;
    bool ok;

    if (!j->c->o->stage_dir && !j->c->rep->driver)
        return true;
    if (!(codes = gpu_codes(j)))
        return true;
    ok = arch_probe(j, a, codes, true, env) && arch_probe(j, a, codes, false, env);
    free(codes);
    return ok && (j->c->o->stage_dir || judge_arch(&j->jd, a));
}

/* ---- where the linker found each library ------------------------------------------ */
/* A GNU ld input script (ctkgen's OUT/lib/<pc>-<version>/lib<name>.so):
 * neither an ELF file nor an archive.  ld traces the files it names next. */
static bool is_ld_script(const char *path)
{
    char head[8] = "";
    FILE *f = fopen(path, "rb");
    size_t n;

    if (!f)
        return false;
    n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n >= 4 && memcmp(head, "\177ELF", 4) != 0 && (n < 7 || memcmp(head, "!<arch>", 7) != 0);
}

/* path is in one of the toolkit's own lib dirs (stubs included) */
static bool in_toolkit_libdirs(const ctk_sdk_t *s, const char *path)
{
    const char *dirs[] = {s->libdir, s->stubsdir, s->math_libdir, s->cupti_libdir,
                          s->nvvm_libdir, s->nccl_libdir, s->nvshmem_libdir};
    size_t i;

    for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (dirs[i] && lib_in_dir(path, dirs[i]))
            return true;
    return false;
}

/* lib<name>.so, lib<name>.so.* or lib<name>.a is in one of the
 * toolkit's lib dirs: -l<name> is one of its libraries (-lrt, -ldl and
 * the like are the system's, wherever the linker takes them) */
static bool toolkit_has(const ctk_sdk_t *s, const char *name)
{
    const char *dirs[] = {s->libdir, s->stubsdir, s->math_libdir, s->cupti_libdir,
                          s->nvvm_libdir, s->nccl_libdir, s->nvshmem_libdir};
    size_t i, nl = strlen(name);
    bool found = false;

    for (i = 0; i < sizeof dirs / sizeof dirs[0] && !found; i++) {
        DIR *d = dirs[i] ? opendir(dirs[i]) : NULL;
        struct dirent *e;

        if (!d)
            continue;
        while (!found && (e = readdir(d))) {
            const char *suf;

            if (strncmp(e->d_name, "lib", 3) != 0 || strncmp(e->d_name + 3, name, nl) != 0)
                continue;
            suf = e->d_name + 3 + nl;
            found = strcmp(suf, ".so") == 0 || strncmp(suf, ".so.", 4) == 0 || strcmp(suf, ".a") == 0;
        }
        closedir(d);
    }
    return found;
}

/* The file a --trace line names: "/x/libfoo.so", "(/x/libfoo.a)member.o"
 * or "-lfoo (/x/libfoo.so)"; copied into buf, "" when none. */
static void trace_file(const char *line, size_t len, char *buf, size_t size)
{
    const char *b = line, *e = line + len;

    if (len && line[0] == '(' && (e = memchr(line, ')', len))) {
        b = line + 1;
    } else if (len && line[len - 1] == ')' && (b = memchr(line, '(', len)) && b[1] == '/') {
        b++;
        e = line + len - 1;
    } else {
        b = line;
        e = line + len;
    }
    if (b >= e || *b != '/' || (size_t)(e - b) >= size) {
        buf[0] = '\0';
        return;
    }
    memcpy(buf, b, (size_t)(e - b));
    buf[e - b] = '\0';
}

/* The link of a probe ran with -Wl,--trace (trace: its stdout): for each
 * -l<name> of words that names a library of the toolkit (toolkit_has), the
 * library file the linker took (the last traced
 * lib<name>.so* or lib<name>.a that is not an ld script: a script of
 * ctkgen's link dir is followed by the toolkit file it names) must be in
 * the toolkit's own lib dirs.  At run time the loader may find the right
 * copy through LD_LIBRARY_PATH even so; what was linked is what a build
 * elsewhere, or a static link, gets. */
static bool check_link_trace(vjob_t *j, ctk_vart_t *a, const char *what, const char *const *words,
                             size_t n_words, const char *trace)
{
    size_t w;

    for (w = 0; w < n_words && trace; w++) {
        const char *name = words[w], *line;
        char took[4096] = "", file[4096];
        size_t nl;
        bool dup = false;

        if (!name || strncmp(name, "-l", 2) != 0 || !name[2] || name[2] == ':')
            continue;
        name += 2;
        for (size_t k = 0; k < w; k++)
            if (words[k] && strcmp(words[k], words[w]) == 0)
                dup = true;
        if (dup || !toolkit_has(j->sdk, name))
            continue;
        nl = strlen(name);
        for (line = trace; *line; line += strcspn(line, "\n"), line += *line == '\n') {
            size_t len = strcspn(line, "\n");
            const char *base, *suf;

            trace_file(line, len, file, sizeof file);
            if (!file[0] || !(base = strrchr(file, '/')))
                continue;
            base++;
            if (strncmp(base, "lib", 3) != 0 || strncmp(base + 3, name, nl) != 0)
                continue;
            suf = base + 3 + nl;
            if (strcmp(suf, ".so") != 0 && strncmp(suf, ".so.", 4) != 0 && strcmp(suf, ".a") != 0)
                continue;
            if (is_ld_script(file))
                continue;
            snprintf(took, sizeof took, "%s", file);
        }
        if (took[0] && !in_toolkit_libdirs(j->sdk, took)) {
            char *real = ctk_realpath(took);
            bool show = real && strcmp(real, took) != 0;

            if (!addf(a, "CTK-LINK-001", 0, j->err,
                      "%s: the linker took -l%s from %s%s%s%s, not from this toolkit's lib dirs (%s)",
                      what, name, took, show ? " (" : "", show ? real : "", show ? ")" : "",
                      j->sdk->libdir)) {
                free(real);
                return false;
            }
            free(real);
        }
    }
    return true;
}

/* Every word of libs is one nvcc and the compiler only link with: -L<dir>,
 * -l<name>, or -Xlinker and the word it passes on.  nvcc's own options
 * spelt like -l<name> (-lineinfo, -ldir, -lto, -lib, -link) are not. */
static bool link_words_only(const ctk_strlist_t *libs)
{
    static const char *const nvcc_opts[] = {"-lineinfo", "-ldir", "-lto", "-lib", "-link", NULL};

    for (size_t i = 0; i < libs->len; i++) {
        const char *w = libs->items[i];

        if (strcmp(w, "-Xlinker") == 0 && i + 1 < libs->len) {
            i++;
            continue;
        }
        if ((strncmp(w, "-L", 2) != 0 && strncmp(w, "-l", 2) != 0) || !w[2])
            return false;
        for (int k = 0; nvcc_opts[k]; k++)
            if (strcmp(w, nvcc_opts[k]) == 0)
                return false;
    }
    return libs->len > 0;
}

/* The .pc's `nvcc -c probe.cu $(Cflags)`.  Where every Libs word is a
 * link word (link_words_only), the Libs ride along, as in a Makefile's
 * `nvcc -c $(pkg-config --cflags --libs)`: nvcc reads every option of
 * its command line before it runs anything and sets link options aside
 * in a compile, so a compile that passes is also nvcc accepting the Libs
 * verbatim (*libs_read), which then needs no run of its own.  A compile
 * that fails so is run again with the Cflags alone, so that its finding
 * is the compile's.  false only for internal errors. */
static bool compile_pc(vjob_t *j, const ctk_vart_t *a, const char *const *pre, const char *const *post,
                       ctk_env_t *env, ctk_proc_result_t *r, bool *libs_read)
{
    const char **with = NULL;
    size_t n = 0, k = 0;

    *libs_read = false;
    if (link_words_only(&a->libs)) {
        while (post[n])
            n++;
        if (!(with = calloc(a->libs.len + n + 1, sizeof *with))) {
            ctk_error_nomem(j->err);
            return false;
        }
        for (size_t i = 0; i < a->libs.len; i++)
            with[k++] = a->libs.items[i];
        for (size_t i = 0; i < n; i++)
            with[k++] = post[i];
        if (!run_argv(j, pre, &a->cflags, with, env, r)) {
            free(with);
            return false;
        }
        free(with);
        if ((*libs_read = ctk_proc_ok(r)))
            return true;
        ctk_proc_result_fini(r);
        ctk_proc_result_init(r);
    }
    return run_argv(j, pre, &a->cflags, post, env, r);
}

/* `nvcc -c probe.cu $(cflags)` (the Libs too where they are link words
 * alone: *libs_read) into probe.o, and the host compiler nvcc used.  1
 * built, 0 not (a finding says why), -1 error. */
static int pc_compile(vjob_t *j, ctk_vart_t *a, ctk_env_t *env, bool *libs_read)
{
    const char *pre[] = {j->sdk->nvcc, "-c", "probe.cu", NULL, NULL, NULL};
    const char *post[] = {"-o", "probe.o", NULL};
    ctk_proc_result_t r;
    int got = -1;

    if (j->pc.ccbin) {
        pre[3] = "-ccbin";
        pre[4] = j->pc.ccbin;
    }
    ctk_proc_result_init(&r);
    if (!compile_pc(j, a, pre, post, env, &r, libs_read))
        goto out;
    if (!ctk_proc_ok(&r)) {
        got = build_failure(j, a,
                            j->pc.ccbin ? "nvcc -ccbin $(pkg-config --variable=ccbin) -c probe.cu $(pkg-config --cflags)"
                                        : "nvcc -c probe.cu $(pkg-config --cflags)",
                            &r) ? 0 : -1;
        goto out;
    }
    if ((j->probe_o = ctk_path_join(j->dir, "probe.o", j->err)) && check_host_compiler(j, a))
        got = 1;
out:
    ctk_proc_result_fini(&r);
    return got;
}

/* `c++ probe.o $(libs)`, traced: *linked when it linked; the link kept
 * (pc_exe, pc_trace) for the modules, whose link this one may stand for,
 * when its trace raised no finding. */
static bool pc_link(vjob_t *j, ctk_vart_t *a, ctk_env_t *env, bool *linked)
{
    const char *pre[] = {j->c->rep->cxx, "probe.o", NULL};
    const char *post[] = {"-Wl,--trace", "-o", "probe_pc", NULL};
    ctk_proc_result_t r;
    size_t n_found;
    bool ok = false;

    ctk_proc_result_init(&r);
    if (!run_argv(j, pre, &a->libs, post, env, &r))
        goto out;
    if (!(*linked = ctk_proc_ok(&r))) {
        ok = build_failure(j, a, "c++ probe.o $(pkg-config --libs)", &r);
        goto out;
    }
    n_found = a->findings.len;
    if (!check_link_trace(j, a, "c++ probe.o $(pkg-config --libs)", (const char *const *)a->libs.items,
                          a->libs.len, r.out))
        goto out;
    if (a->findings.len == n_found && !r.truncated) {
        if (!(j->pc_exe = ctk_path_join(j->dir, "probe_pc", j->err)))
            goto out;
        j->pc_trace = r.out;
        r.out = NULL;
    }
    ok = true;
out:
    ctk_proc_result_fini(&r);
    return ok;
}

/* The same Libs, verbatim, for nvcc: a -Wl,a,b list works for c++ and
 * makes nvcc stop with "Unknown option".  nvcc checks its options before
 * it runs anything, so a dry run answers that in 10 ms; the link itself is
 * proven by the c++ link (linked).  CTK-PC-001 when nvcc refuses them. */
static bool pc_libs_for_nvcc(vjob_t *j, ctk_vart_t *a, ctk_env_t *env, bool linked)
{
    const char *pre[] = {j->sdk->nvcc, "-dryrun", "probe.o", NULL, NULL, NULL};
    const char *post[] = {"-o", "probe_pc_nvcc", NULL};
    ctk_proc_result_t r;
    char line[512];
    bool ok = false;

    if (j->pc.ccbin) {
        pre[3] = "-ccbin";
        pre[4] = j->pc.ccbin;
    }
    ctk_proc_result_init(&r);
    if (run_argv(j, pre, &a->libs, post, env, &r)) {
        const char *text = r.err[0] ? r.err : r.out;

        ok = true;
        if (!ctk_proc_ok(&r)) {
            first_error_line(text, line, sizeof line);
            if (strstr(text, "nvcc fatal") || linked)
                ok = addf(a, "CTK-PC-001", var_line(j, a, "Libs:"), j->err, "nvcc probe.o $(pkg-config --libs): %s",
                          line);
        }
    }
    ctk_proc_result_fini(&r);
    return ok;
}

/* probe_pc run with nothing but the base environment, its report and
 * launch judged, then the architecture probes. */
static bool pc_run(vjob_t *j, ctk_vart_t *a)
{
    ctk_env_t run_env;
    char *exe = ctk_path_join(j->dir, "probe_pc", j->err);
    bool ok;

    ctk_env_init(&run_env);
    ok = exe && ctk_env_copy(&run_env, &j->c->base, j->err) && launch(j, a, exe, &run_env, &a->cuda) &&
         judge_report(&j->jd, a, &a->cuda, "probe_pc") && judge_launch(&j->jd, a, &a->cuda) &&
         arch_probes(j, a, &run_env);
    ctk_env_fini(&run_env);
    free(exe);
    return ok;
}

static bool build_pc(vjob_t *j, ctk_vart_t *a)
{
    const ctk_sdk_t *s = j->sdk;
    ctk_env_t env;
    bool ok = false, linked = false, libs_read = false;
    int got;

    if (j->pre[0] && !s->conf->host_compiler_ccbin && !j->have_pre[0] && !j->have_pre[1])
        return skip_prereq(j, a, "not built: the host compiler is in the module's prerequisite",
                           j->pre_why[0] ? j->pre_why[0] : j->pre_why[1]);
    ctk_env_init(&env);
    if (!pc_env(j, &env) || !(a->nvcc = ctk_strdup(s->nvcc, j->err)) ||
        (j->nvcc_release && !(a->nvcc_release = ctk_strdup(j->nvcc_release, j->err))))
        goto out;
    if ((got = pc_compile(j, a, &env, &libs_read)) <= 0) {
        ok = got == 0;
        goto out;
    }
    ok = pc_link(j, a, &env, &linked) && (libs_read || pc_libs_for_nvcc(j, a, &env, linked)) &&
         (!linked || pc_run(j, a));
out:
    ctk_env_fini(&env);
    return ok;
}

/* Which cuda_runtime.h did the host compile read?  A compiler finds one in
 * its default dirs (/usr/local/include, /usr/include) when CPATH misses the
 * toolkit's: that is another toolkit's header, or this one's by luck. */
static bool check_header_origin(vjob_t *j, ctk_vart_t *a, const char *deps_name)
{
    char *deps_path = ctk_path_join(j->dir, deps_name, j->err), *text, *p, *want, *hdr = NULL, *save = NULL;
    bool ok = true;

    if (!deps_path)
        return false;
    text = ctk_file_read(deps_path, 1 << 22, NULL, NULL);
    free(deps_path);
    if (!text)
        return true; /* no record: nothing to say */
    for (p = strtok_r(text, " \t\n\\", &save); p; p = strtok_r(NULL, " \t\n\\", &save)) {
        size_t n = strlen(p);

        if (n >= 15 && strcmp(p + n - 15, "/cuda_runtime.h") == 0) {
            hdr = p;
            break;
        }
    }
    if (hdr && (want = ctk_path_join(j->sdk->incdir, "cuda_runtime.h", j->err))) {
        char *rh = ctk_realpath(hdr);

        if (!ctk_same_file(hdr, want))
            ok = addf(a, "CTK-BUILD-001", var_line(j, a, "CPATH"), j->err,
                      "cc found cuda_runtime.h at %s%s%s%s, not in this toolkit's %s", hdr,
                      rh && strcmp(rh, hdr) ? " (" : "", rh && strcmp(rh, hdr) ? rh : "",
                      rh && strcmp(rh, hdr) ? ")" : "", j->sdk->incdir);
        free(rh);
        free(want);
    } else if (hdr) {
        ok = false;
    }
    free(text);
    return ok;
}

/* ---- one compile for several artifacts ------------------------------------------- */
/* The .pc's `nvcc -c probe.cu $(Cflags)` stands for a module's own nvcc
 * run when nothing nvcc or the programs it runs read differs between the
 * two, so the module's `nvcc -E` would only repeat it.  Decided
 * conservatively: any difference not named below keeps the module's own
 * run.
 *
 *   argv       the .pc passed no -ccbin, and every Cflag is an -I
 *   nvcc       the module's PATH finds the same file as the .pc's
 *   PATH       the module only puts nvcc's own dir in front: nvcc.profile
 *              puts that dir first on the PATH of every program it runs
 *   CPATH      names the .pc's -I dirs in their order, the first being
 *              nvcc's $(TOP)/include, which nvcc passes after a command
 *              line's -I and before CPATH's: the compiler searches the
 *              same dirs in the same order either way
 *   LD_LIBRARY_PATH  the module only adds dirs whose shared libraries
 *              are all CUDA's (never_loaded_by_compilers)
 *   LIBRARY_PATH  read when linking only; `nvcc -c` links nothing
 *   others     module bookkeeping and build-system hints no compiler
 *              reads (not_read_by_compilers); every other variable, NVCC_*,
 *              C_INCLUDE_PATH, CPLUS_INCLUDE_PATH, TMPDIR... must be equal */

/* Variables that neither nvcc, the programs it runs, nor GCC read. */
static bool not_read_by_compilers(const char *name)
{
    static const char *const exact[] = {"PKG_CONFIG_PATH", "CMAKE_INCLUDE_PATH", "CMAKE_LIBRARY_PATH",
                                        "CMAKE_PREFIX_PATH", "CMAKE_BUILD_RPATH", "CUDAToolkit_ROOT",
                                        "CUDAHOSTCXX", "CUDA_HOME", "CUDA_PATH", "CUDATOOLKIT_VERSION",
                                        "MANPATH", "INFOPATH", "LOADEDMODULES", "_LMFILES_", "MODULEPATH",
                                        "LIBRARY_PATH", NULL};
    static const char *const prefix[] = {"LMOD_", "MODULES_", "__MODULES_", "__LMOD_", "_ModuleTable", NULL};

    for (int i = 0; exact[i]; i++)
        if (strcmp(name, exact[i]) == 0)
            return true;
    for (int i = 0; prefix[i]; i++)
        if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
            return true;
    return false;
}

/* DIR/../sub for the SDK's nvcc DIR/nvcc: nvcc.profile's $(TOP)/sub.
 * NULL when nvcc has no dir or memory ran out. */
static char *nvcc_top(const vjob_t *j, const char *sub)
{
    const char *slash = strrchr(j->sdk->nvcc, '/');

    if (!slash)
        return NULL;
    return ctk_printf(NULL, "%.*s/../%s", (int)(slash - j->sdk->nvcc), j->sdk->nvcc, sub);
}

static bool is_nvcc_dir(const vjob_t *j, const char *dir)
{
    char *here = nvcc_top(j, "bin");
    bool same = here && ctk_same_file(dir, here);

    free(here);
    return same;
}

/* Every shared library in dir is one of CUDA's (libcu*, libnv*, libnpp*,
 * libnccl*, libOpenCL*, ...): none is a library that nvcc, its programs
 * or the GNU toolchain load (libc, libstdc++, libz...).  Subdirs do not
 * count: the loader does not look into them. */
static bool never_loaded_by_compilers(const vjob_t *j, const char *dir)
{
    static const char *const cuda[] = {"libcu", "libnv", "libnpp", "libnccl", "libOpenCL", "libaccinj",
                                       "libcheckpoint", "libpcsamplingutil", NULL};
    static const char *const not_cuda[] = {"libcurl", "libcups", "libnvpair", NULL}; /* spelt alike */
    DIR *d = opendir(dir);
    struct dirent *e;
    bool ok = d != NULL;

    (void)j;
    while (ok && (e = readdir(d))) {
        bool known = false;

        if (!strstr(e->d_name, ".so"))
            continue;
        for (int i = 0; cuda[i] && !known; i++)
            known = strncmp(e->d_name, cuda[i], strlen(cuda[i])) == 0;
        for (int i = 0; not_cuda[i] && known; i++)
            known = strncmp(e->d_name, not_cuda[i], strlen(not_cuda[i])) != 0;
        ok = known;
    }
    if (d)
        closedir(d);
    return ok;
}

/* mod is some dirs, each accepted by keep, then exactly pc (or just the
 * dirs, where pc is unset).  An empty element (the current dir) is never
 * accepted. */
static bool only_adds(const vjob_t *j, const char *mod, const char *pc,
                      bool (*keep)(const vjob_t *, const char *))
{
    size_t pl = pc ? strlen(pc) : 0, ml = mod ? strlen(mod) : 0;
    char *head, *rest, *d;
    bool ok = true;

    if (!mod || (pc && (ml <= pl || mod[ml - pl - 1] != ':' || strcmp(mod + ml - pl, pc) != 0)))
        return false;
    if (!(head = strndup(mod, pc ? ml - pl - 1 : ml)))
        return false;
    for (rest = head; ok && (d = strsep(&rest, ":"));)
        ok = *d && keep(j, d);
    free(head);
    return ok;
}

/* CPATH names exactly the .pc's -I dirs in their order, the first being
 * nvcc's own include dir; an empty element (the current dir) never. */
static bool cpath_is_cflags(const vjob_t *j, const char *cpath)
{
    const ctk_strlist_t *fl = &j->res->art[CTK_ART_PC].cflags;
    char *list = cpath ? ctk_strdup(cpath, NULL) : NULL, *rest = list, *top = nvcc_top(j, "include");
    const char *d = list ? strsep(&rest, ":") : NULL;
    bool ok = list && top && fl->len > 0 && strncmp(fl->items[0], "-I", 2) == 0 &&
              ctk_same_file(fl->items[0] + 2, top);

    for (size_t i = 0; ok && i < fl->len; i++, d = strsep(&rest, ":"))
        ok = strncmp(fl->items[i], "-I", 2) == 0 && d && *d && ctk_same_file(fl->items[i] + 2, d);
    ok = ok && !d;
    free(list);
    free(top);
    return ok;
}

/* *same: would the module's nvcc, in menv, see what the .pc's compile
 * saw?  False only on an internal error (j->err). */
static bool same_compile_env(vjob_t *j, const ctk_vart_t *a, const ctk_env_t *menv, bool *same)
{
    ctk_env_t penv;
    ctk_strlist_t diff;
    bool ok;

    *same = false;
    if (!j->probe_o || j->pc.ccbin || !a->nvcc || !ctk_same_file(a->nvcc, j->sdk->nvcc))
        return true;
    ctk_env_init(&penv);
    ctk_strlist_init(&diff);
    ok = pc_env(j, &penv) && ctk_env_diff(&penv, menv, &diff, j->err);
    *same = ok;
    for (size_t i = 0; *same && i < diff.len; i++) {
        const char *n = diff.items[i], *pv = ctk_env_get(&penv, n), *mv = ctk_env_get(menv, n);

        if (strcmp(n, "PATH") == 0)
            *same = only_adds(j, mv, pv, is_nvcc_dir);
        else if (strcmp(n, "LD_LIBRARY_PATH") == 0)
            *same = only_adds(j, mv, pv, never_loaded_by_compilers);
        else if (strcmp(n, "CPATH") == 0)
            *same = !pv && cpath_is_cflags(j, mv);
        else
            *same = not_read_by_compilers(n);
    }
    ctk_strlist_fini(&diff);
    ctk_env_fini(&penv);
    return ok;
}

/* ---- one link for several artifacts ---------------------------------------------- */
/* The .pc's `c++ probe.o $(Libs)` stands for a module's own
 * `c++ probe.o -lcudart`, and the program it made, run in the module's
 * environment, for the module's program, when the module's link would
 * take the same files and its program would load the same libraries: the
 * two programs then differ in the .pc's rpath alone.  Decided
 * conservatively: any difference not named below keeps the module's own
 * link.
 *
 *   the .pc    its link passed and took its libraries from the toolkit (no
 *              CTK-LINK-001); Libs are -L<dir>..., -lcudart and rpaths
 *              (-Xlinker -rpath=<dirs>, -Wl,-rpath,<dir>, -Wl,-rpath=<dirs>)
 *              of absolute dirs that are -L dirs too, and every -L dir holds
 *              no shared library but CUDA's (never_loaded_by_compilers)
 *   the files  each file that link took (its --trace) is found first in the
 *              same file by the module's: the compiler's own search list
 *              (`c++ -print-search-dirs`, LIBRARY_PATH in it, wherever the
 *              compiler puts it) is searched as ld does, a dir's libX.so
 *              before its libX.a, after the -L dirs for the .pc; every dir
 *              the module's list has and the .pc's has not holds no shared
 *              library but CUDA's, so what ld looks up for a library's
 *              DT_NEEDED comes from the same place too
 *   PATH       the module only adds dirs without the programs a link runs
 *              by name (ld, collect2 ...: link_tools)
 *   LD_LIBRARY_PATH  the module only adds dirs of CUDA libraries, and each
 *              shared library in the rpath dirs is found first through it in
 *              the same dir as through the rpath: the loader searches
 *              LD_LIBRARY_PATH after an RPATH and before a RUNPATH, so either
 *              way both programs load the same files; no dir has subdirs
 *              the loader would search first (glibc-hwcaps, tls ...)
 *   others     header search variables (CPATH ...: a link of objects reads
 *              none), NVCC_* (nvcc's alone), and those no compiler reads
 *              (not_read_by_compilers); every other variable must be equal
 *   staging    probes staged for a launcher to run elsewhere (--launcher
 *              slurm) link their own: the loader there sees that machine's
 *              files
 *
 * The model of ld's search is checked against the .pc's own link: it must
 * find each traced file where that link took it.  Where compile and link
 * both stand, and `cc` in the module's environment searches the list c++
 * does, the host probe's C link would take the same files too: it is
 * parsed, not built.
 */

/* Programs a link runs by their name on PATH when the compiler's own
 * dirs lack them, and compilers a wrapper (ccache, distcc) may look up
 * there: the compilers' own names are checked too. */
static const char *const link_tools[] = {"ld",     "ld.bfd",  "ld.gold", "ld.lld",  "ld.mold", "collect2",
                                         "real-ld", "collect-ld", "lto-wrapper", "as", "cc", "c++",
                                         "gcc",    "g++",     "clang",   "clang++", NULL};

static bool absent_from(const char *dir, const char *name)
{
    char *p = ctk_path_join(dir, name, NULL);
    bool absent = p && access(p, F_OK) != 0 && errno == ENOENT;

    free(p);
    return absent;
}

static bool no_link_tools(const vjob_t *j, const char *dir)
{
    const char *own[] = {strrchr(j->c->rep->cxx, '/'), strrchr(j->c->rep->cc, '/')};
    bool ok = true;

    for (int i = 0; ok && link_tools[i]; i++)
        ok = absent_from(dir, link_tools[i]);
    for (int i = 0; ok && i < 2; i++)
        ok = !own[i] || absent_from(dir, own[i] + 1);
    return ok;
}

/* Push each element of a ':' list of absolute dirs without '$' (no
 * $ORIGIN); false when one is not. */
static bool push_dirs(ctk_strlist_t *l, const char *list, ctk_error_t *err, bool *nomem)
{
    char *copy = ctk_strdup(list, err), *rest = copy, *d;
    bool ok = copy != NULL;

    *nomem = !copy;
    while (ok && (d = strsep(&rest, ":")))
        if (!(ok = d[0] == '/' && !strchr(d, '$')))
            ;
        else if (!(ok = ctk_strlist_push(l, d, err)))
            *nomem = true;
    free(copy);
    return ok;
}

/* Libs is -L<dir>..., -lcudart and rpaths of those dirs (see above):
 * *ldirs and *rpath get the dirs.  *plain false: it is not. */
static bool plain_libs(vjob_t *j, const ctk_strlist_t *libs, ctk_strlist_t *ldirs, ctk_strlist_t *rpath,
                       bool *plain)
{
    bool cudart = false, nomem = false;

    *plain = true;
    for (size_t i = 0; *plain && i < libs->len; i++) {
        const char *w = libs->items[i];

        if (strncmp(w, "-L", 2) == 0)
            *plain = push_dirs(ldirs, w + 2, j->err, &nomem) && !strchr(w, ':');
        else if (strcmp(w, "-lcudart") == 0)
            cudart = true;
        else if (strcmp(w, "-Xlinker") == 0 && i + 1 < libs->len && strncmp(libs->items[i + 1], "-rpath=", 7) == 0)
            *plain = push_dirs(rpath, libs->items[++i] + 7, j->err, &nomem);
        else if ((strncmp(w, "-Wl,-rpath,", 11) == 0 || strncmp(w, "-Wl,-rpath=", 11) == 0) && !strchr(w + 11, ','))
            *plain = push_dirs(rpath, w + 11, j->err, &nomem);
        else
            *plain = false;
    }
    if (nomem)
        return false;
    *plain = *plain && cudart && ldirs->len > 0;
    for (size_t i = 0; *plain && i < ldirs->len; i++)
        *plain = never_loaded_by_compilers(j, ldirs->items[i]);
    for (size_t i = 0; *plain && i < rpath->len; i++) {
        bool named = false;

        for (size_t k = 0; !named && k < ldirs->len; k++)
            named = ctk_same_file(rpath->items[i], ldirs->items[k]);
        *plain = named;
    }
    return true;
}

/* The library search list of the compiler cc in env, in order
 * (`cc -print-search-dirs`: "libraries: =a:b:..."); *got false when it
 * would not say, or named a dir that is not absolute. */
static bool search_dirs(vjob_t *j, const char *cc, ctk_env_t *env, ctk_strlist_t *dirs, bool *got)
{
    const char *argv[] = {cc, "-print-search-dirs", NULL};
    ctk_proc_result_t r;
    const char *p;
    bool ok, nomem = false;

    *got = false;
    ctk_proc_result_init(&r);
    if (!(ok = run_step(j, argv, env, &r)))
        goto out;
    for (p = r.out; p && *p; p += strcspn(p, "\n"), p += *p == '\n')
        if (strncmp(p, "libraries: =", 12) == 0) {
            char *line = ctk_strndup(p + 12, strcspn(p + 12, "\n"), j->err), *rest = line, *d;

            if (!(ok = line != NULL))
                goto out;
            *got = true;
            while (!nomem && (d = strsep(&rest, ":"))) {
                *got &= !*d || *d == '/';
                nomem = *d && !ctk_strlist_push(dirs, d, j->err);
            }
            free(line);
            ok = !nomem;
            *got = *got && ok && ctk_proc_ok(&r) && !r.truncated && dirs->len > 0;
            break;
        }
out:
    ctk_proc_result_fini(&r);
    return ok;
}

/* search_dirs() in the .pc's environment: asked once per run where
 * that is the base environment, as it is unless the SDK's host compiler
 * comes from a module. */
static bool pc_search_dirs(vjob_t *j, ctk_env_t *penv, ctk_strlist_t *dirs, bool *got)
{
    vctx_t *c = j->c;
    bool ok = true;

    if (j->pre[0] && !j->sdk->conf->host_compiler_ccbin)
        return search_dirs(j, j->c->rep->cxx, penv, dirs, got);
    pthread_mutex_lock(&c->nvcc_lock);
    if (!c->base_dirs.len && (ok = search_dirs(j, j->c->rep->cxx, penv, &c->base_dirs, got)) && !*got) {
        ctk_strlist_fini(&c->base_dirs); /* it would not say: nothing kept */
        ctk_strlist_init(&c->base_dirs);
    }
    for (size_t i = 0; ok && i < c->base_dirs.len; i++)
        ok = ctk_strlist_push(dirs, c->base_dirs.items[i], j->err);
    *got = ok && dirs->len > 0;
    pthread_mutex_unlock(&c->nvcc_lock);
    return ok;
}

/* The file a link searching a then b (either may be NULL) takes for the
 * name base: libX.so or libX.a as ld takes -lX (a dir's .so before its
 * .a), any other name as itself.  NULL: none holds it (or no memory). */
static char *first_holder(const ctk_strlist_t *a, const ctk_strlist_t *b, const char *base)
{
    size_t n = strlen(base);
    bool lib = strncmp(base, "lib", 3) == 0 &&
               ((n > 6 && strcmp(base + n - 3, ".so") == 0) || (n > 5 && strcmp(base + n - 2, ".a") == 0));
    size_t stem = lib ? (base[n - 1] == 'o' ? n - 3 : n - 2) : n;
    const ctk_strlist_t *lists[] = {a, b};

    for (int l = 0; l < 2; l++)
        for (size_t i = 0; lists[l] && i < lists[l]->len; i++) {
            const char *suf[] = {lib ? ".so" : "", lib ? ".a" : NULL};

            for (int s = 0; s < 2 && suf[s]; s++) {
                char *p = ctk_printf(NULL, "%s/%.*s%s", lists[l]->items[i], (int)stem, base, suf[s]);

                if (p && ctk_is_file(p))
                    return p;
                free(p);
            }
        }
    return NULL;
}

/* Every file the .pc's link took is the one the module's link takes:
 * the .pc searches its -L dirs, then the compiler's list g; the module
 * the compiler's list m.  A file the model finds elsewhere than the
 * .pc's link did is a difference; one neither list holds was named by
 * its path (an ld script's /lib/.../libc.so.6), the same in both. */
static bool takes_same_files(const char *trace, const ctk_strlist_t *ldirs, const ctk_strlist_t *g,
                             const ctk_strlist_t *m)
{
    const char *line;
    bool same = true;

    for (line = trace; same && *line; line += strcspn(line, "\n"), line += *line == '\n') {
        char file[4096], *pc, *mod;
        const char *base;

        trace_file(line, strcspn(line, "\n"), file, sizeof file);
        if (!file[0] || !(base = strrchr(file, '/')) || !*++base)
            continue; /* probe.o, given by its name */
        pc = first_holder(ldirs, g, base);
        mod = first_holder(m, NULL, base);
        /* the model must find what the .pc's link took, where it searched */
        same = pc ? ctk_same_file(pc, file) && mod && ctk_same_file(mod, file) : !mod;
        free(pc);
        free(mod);
    }
    return same;
}

/* dir may hold what the loader searches before dir itself. */
static bool has_loader_subdirs(const char *dir)
{
    static const char *const sub[] = {"glibc-hwcaps", "tls", "haswell", "x86_64", "avx512_1", NULL};
    bool has = false;

    for (int i = 0; !has && sub[i]; i++) {
        char *p = ctk_path_join(dir, sub[i], NULL);

        has = !p || ctk_is_dir(p);
        free(p);
    }
    return has;
}

/* Which of dirs first holds name: its index, or -1. */
static long first_dir_with(const ctk_strlist_t *dirs, const char *name)
{
    for (size_t i = 0; i < dirs->len; i++) {
        char *p = ctk_path_join(dirs->items[i], name, NULL);
        bool here = p && access(p, F_OK) == 0;

        free(p);
        if (here)
            return (long)i;
    }
    return -1;
}

/* Each shared library in the rpath dirs is found first through ldlp in
 * the dir it is found first through the rpath. */
static bool loads_same(const ctk_strlist_t *rpath, const char *ldlp)
{
    ctk_strlist_t lp;
    bool nomem = false, same;

    ctk_strlist_init(&lp);
    /* glibc splits LD_LIBRARY_PATH at ';' too: one is refused */
    same = ldlp && !strchr(ldlp, ';') && push_dirs(&lp, ldlp, NULL, &nomem);
    for (size_t i = 0; same && i < lp.len; i++)
        same = !has_loader_subdirs(lp.items[i]);
    for (size_t i = 0; same && i < rpath->len; i++) {
        DIR *d = opendir(rpath->items[i]);
        struct dirent *e;

        same = d && !has_loader_subdirs(rpath->items[i]);
        while (same && (e = readdir(d))) {
            long r, l;

            if (!strstr(e->d_name, ".so"))
                continue;
            r = first_dir_with(rpath, e->d_name);
            l = first_dir_with(&lp, e->d_name);
            same = r >= 0 && l >= 0 && ctk_same_file(rpath->items[r], lp.items[l]);
        }
        if (d)
            closedir(d);
    }
    ctk_strlist_fini(&lp);
    return same;
}

/* Would the module's link, in menv, take what the .pc's took?  Its
 * variables, for a link (see above). */
static bool same_link_vars(vjob_t *j, const ctk_env_t *penv, const ctk_env_t *menv, bool *same)
{
    static const char *const headers[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
                                          NULL};
    ctk_strlist_t diff;
    bool ok;

    ctk_strlist_init(&diff);
    ok = ctk_env_diff(penv, menv, &diff, j->err);
    *same = ok;
    for (size_t i = 0; *same && i < diff.len; i++) {
        const char *n = diff.items[i], *pv = ctk_env_get(penv, n), *mv = ctk_env_get(menv, n);
        bool header = false;

        for (int k = 0; headers[k] && !header; k++)
            header = strcmp(n, headers[k]) == 0;
        if (strcmp(n, "PATH") == 0)
            *same = only_adds(j, mv, pv, no_link_tools);
        else if (strcmp(n, "LD_LIBRARY_PATH") == 0)
            *same = only_adds(j, mv, pv, never_loaded_by_compilers);
        else
            *same = header || strncmp(n, "NVCC_", 5) == 0 || not_read_by_compilers(n);
    }
    ctk_strlist_fini(&diff);
    return ok;
}

/* Dirs of m that g lacks hold no shared library but CUDA's (a dir that
 * does not exist holds none). */
static bool added_dirs_cuda_only(vjob_t *j, const ctk_strlist_t *m, const ctk_strlist_t *g)
{
    for (size_t i = 0; i < m->len; i++) {
        bool shared = false;

        for (size_t k = 0; !shared && k < g->len; k++)
            shared = strcmp(m->items[i], g->items[k]) == 0;
        if (!shared && ctk_is_dir(m->items[i]) && !never_loaded_by_compilers(j, m->items[i]))
            return false;
    }
    return true;
}

/* *same: may the .pc's program stand for the module's (see above)?
 * *cc_too: and does `cc`, in menv, search what c++ does, so that the
 * host probe's C link would take the same files?  Not where probes are
 * staged to run elsewhere: the loader there sees that machine's files.
 * false only on an internal error (j->err). */
static bool same_link(vjob_t *j, ctk_env_t *menv, bool *same, bool *cc_too)
{
    ctk_env_t penv;
    ctk_strlist_t ldirs, rpath, g, m, mc;
    bool ok, got;

    *same = *cc_too = false;
    if (!j->pc_exe || !j->pc_trace || j->c->o->stage_dir)
        return true;
    ctk_env_init(&penv);
    ctk_strlist_init(&ldirs);
    ctk_strlist_init(&rpath);
    ctk_strlist_init(&g);
    ctk_strlist_init(&m);
    ctk_strlist_init(&mc);
    ok = plain_libs(j, &j->res->art[CTK_ART_PC].libs, &ldirs, &rpath, same);
    if (ok && *same)
        ok = pc_env(j, &penv) && same_link_vars(j, &penv, menv, same);
    if (ok && *same)
        *same = loads_same(&rpath, ctk_env_get(menv, "LD_LIBRARY_PATH"));
    if (ok && *same && (ok = pc_search_dirs(j, &penv, &g, &got)) && (*same = got))
        ok = search_dirs(j, j->c->rep->cxx, menv, &m, same);
    if (ok && *same)
        *same = added_dirs_cuda_only(j, &m, &g) && takes_same_files(j->pc_trace, &ldirs, &g, &m);
    if (ok && *same && (ok = search_dirs(j, j->c->rep->cc, menv, &mc, &got)) && got) {
        *cc_too = mc.len == m.len;
        for (size_t i = 0; *cc_too && i < m.len; i++)
            *cc_too = strcmp(mc.items[i], m.items[i]) == 0;
    }
    ctk_strlist_fini(&mc);
    ctk_strlist_fini(&m);
    ctk_strlist_fini(&g);
    ctk_strlist_fini(&rpath);
    ctk_strlist_fini(&ldirs);
    ctk_env_fini(&penv);
    return ok;
}

/* The Tcl module's environment is the Lua module's: the same compiler
 * runs on the same files with the same variables, so the probes built for
 * the Lua module are what the Tcl module would build.  Run the programs the
 * Lua module's check ran in the Tcl environment instead of building them
 * again. */
static bool reuse_module_probes(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
{
    const char *lmod_linked = j->res->art[CTK_ART_LMOD].linked_by;
    char *host = ctk_path_join(j->dir, "host_lmod", j->err);
    const char *cuda = j->lmod_cuda, *cuda_base = cuda ? strrchr(cuda, '/') + 1 : NULL;
    bool ok = host && (a->built_by = ctk_strdup(ctk_art_name(CTK_ART_LMOD), j->err)) &&
              (!lmod_linked || (a->linked_by = ctk_strdup(lmod_linked, j->err)));

    if (ok && ctk_is_file(host))
        ok = launch(j, a, host, menv, &a->host) && judge_report(&j->jd, a, &a->host, "host_lmod");
    if (ok && cuda)
        ok = launch(j, a, cuda, menv, &a->cuda) && judge_report(&j->jd, a, &a->cuda, cuda_base) &&
             judge_launch(&j->jd, a, &a->cuda);
    free(host);
    return ok;
}

/* The module's own nvcc and host compiler, as a user's plain `nvcc` runs
 * them: which compiler `nvcc -dryrun` runs against the one the module
 * names (CTK-HOSTCC-003 when the variable naming it is one this nvcc
 * ignores), and `nvcc -E` (a host preprocessing, ~0.3 s), where nvcc
 * refuses a host compiler outside its range.  The probe object itself
 * comes from the .pc build, compiled with the .pc's flags. */
static bool check_module_nvcc(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
{
    const char *cc_var = ctk_env_get(menv, "NVCC_CCBIN"), *var = "NVCC_PREPEND_FLAGS";
    char *named = prepend_ccbin(ctk_env_get(menv, "NVCC_PREPEND_FLAGS")), *ran = NULL;
    const char *argv[] = {a->nvcc, "-E", "probe.cu", "-o", "probe_mod.ii", NULL};
    ctk_proc_result_t r;
    bool ok = true, same;

    if (!a->nvcc)
        goto out;
    if (!named && cc_var) {
        named = ctk_strdup(cc_var, NULL);
        var = "NVCC_CCBIN";
    }
    if (named && (ran = nvcc_host_compiler(j, a->nvcc, menv)) && !ctk_same_file(named, ran))
        ok = addf(a, "CTK-HOSTCC-003", var_line(j, a, var), j->err,
                  "the module names the host compiler %s in %s, which nvcc%s%s ignores: it runs %s; name it "
                  "in NVCC_PREPEND_FLAGS (-ccbin=%s), which every nvcc reads",
                  named, var, a->nvcc_release ? " " : "", a->nvcc_release ? a->nvcc_release : "", ran, named);
    if (!ok || !j->probe_o)
        goto out; /* without the .pc's object, build_module compiles with this nvcc itself */
    if (!(ok = same_compile_env(j, a, menv, &same)))
        goto out;
    if (same) { /* the .pc's compile ran what this one would */
        ok = (a->built_by = ctk_strdup(ctk_art_name(CTK_ART_PC), j->err)) != NULL;
        goto out;
    }
    ctk_proc_result_init(&r);
    if (!(ok = run_step(j, argv, menv, &r)))
        ;
    else if (!ctk_proc_ok(&r))
        ok = build_failure(j, a, "nvcc -E probe.cu (the module's nvcc and host compiler)", &r);
    ctk_proc_result_fini(&r);
out:
    free(named);
    free(ran);
    return ok;
}

/* The host C probe in the module's environment: `cc host_probe.c
 * -lcudart`, run, or, where the .pc's compile and link both stand for the
 * module's (parse_only), `cc -fsyntax-only host_probe.c`: the header
 * lookup through CPATH is then the one thing the .pc's build did not
 * prove, and the link and the run the .pc's program shows.  -MD only
 * records which headers were read; lookup is untouched.  A build that
 * fails is a finding.  false only for internal errors. */
static bool module_host_probe(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv, bool parse_only)
{
    char exe[64], deps[80], *path = NULL;
    const char *link[] = {j->c->rep->cc, "-MD", "-MF", deps, "host_probe.c", "-lcudart", "-Wl,--trace",
                          "-o", exe, NULL};
    const char *parse[] = {j->c->rep->cc, "-fsyntax-only", "-MD", "-MF", deps, "host_probe.c", NULL};
    const char *const *argv = parse_only ? parse : link;
    ctk_proc_result_t r;
    bool ok = false;

    snprintf(exe, sizeof exe, "host_%s", ctk_art_name(a->kind));
    snprintf(deps, sizeof deps, "%s.d", exe);
    ctk_proc_result_init(&r);
    if (!run_step(j, argv, menv, &r))
        goto out;
    if (!ctk_proc_ok(&r)) {
        ok = build_failure(j, a, parse_only ? "cc -fsyntax-only host_probe.c" : "cc host_probe.c -lcudart", &r);
        goto out;
    }
    if (parse_only) { /* a compiler that wrote no deps file proves no lookup: build */
        if (!(path = ctk_path_join(j->dir, deps, j->err)))
            goto out;
        if (!ctk_is_file(path)) {
            ok = module_host_probe(j, a, menv, false);
            goto out;
        }
        free(path);
        path = NULL;
    }
    if ((!parse_only && !check_link_trace(j, a, "cc host_probe.c -lcudart", link + 5, 1, r.out)) ||
        !check_header_origin(j, a, deps))
        goto out;
    ok = parse_only || ((path = ctk_path_join(j->dir, exe, j->err)) && launch(j, a, path, menv, &a->host) &&
                        judge_report(&j->jd, a, &a->host, exe));
out:
    free(path);
    ctk_proc_result_fini(&r);
    return ok;
}

/* The CUDA probe in the module's environment: probe.o (the .pc's, else
 * compiled by the module's nvcc) linked by `c++ probe.o -lcudart`, or,
 * where the .pc's link stands for that (linked), the .pc's program; run.
 * *exe gets the program's path.  false only for internal errors. */
static bool module_cuda_probe(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv, bool linked, char **exe)
{
    char name[64];
    const char *object = j->probe_o ? "probe.o" : "probe_mod.o";
    const char *compile[] = {a->nvcc, "-c", "probe.cu", "-o", "probe_mod.o", NULL};
    const char *link[] = {j->c->rep->cxx, object, "-lcudart", "-Wl,--trace", "-o", name, NULL};
    ctk_proc_result_t r;
    bool ok = false;

    snprintf(name, sizeof name, "probe_%s", ctk_art_name(a->kind));
    ctk_proc_result_init(&r);
    if (linked) {
        if (!(*exe = ctk_strdup(j->pc_exe, j->err)))
            goto out;
        snprintf(name, sizeof name, "probe_pc");
        goto run;
    }
    if (!j->probe_o) { /* the .pc build failed: compile the object with the module's nvcc */
        if (!a->nvcc) {
            ok = true; /* CTK-PATH-001 already says why */
            goto out;
        }
        if (!run_step(j, compile, menv, &r))
            goto out;
        if (!ctk_proc_ok(&r)) {
            ok = build_failure(j, a, "nvcc -c probe.cu", &r);
            goto out;
        }
        ctk_proc_result_fini(&r);
        ctk_proc_result_init(&r);
    }
    if (!run_step(j, link, menv, &r))
        goto out;
    if (!ctk_proc_ok(&r)) {
        ok = build_failure(j, a, "c++ probe.o -lcudart", &r);
        goto out;
    }
    if (!check_link_trace(j, a, "c++ probe.o -lcudart", link + 2, 1, r.out) ||
        !(*exe = ctk_path_join(j->dir, name, j->err)))
        goto out;
run:
    ok = launch(j, a, *exe, menv, &a->cuda) && judge_report(&j->jd, a, &a->cuda, name) &&
         judge_launch(&j->jd, a, &a->cuda);
out:
    ctk_proc_result_fini(&r);
    return ok;
}

static bool build_module(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv)
{
    char *exe = NULL;
    bool linked, cc_too, ok;

    if (a->kind == CTK_ART_TCL && j->same_env && !j->res->art[CTK_ART_LMOD].findings.len)
        return reuse_module_probes(j, a, menv);
    if (!check_module_nvcc(j, a, menv) || !same_link(j, menv, &linked, &cc_too))
        return false;
    if (linked && !(a->linked_by = ctk_strdup(ctk_art_name(CTK_ART_PC), j->err)))
        return false;
    if (!module_host_probe(j, a, menv, linked && cc_too && a->built_by))
        return false;
    ok = module_cuda_probe(j, a, menv, linked, &exe);
    if (ok && exe && a->kind == CTK_ART_LMOD) {
        j->lmod_cuda = exe;
        exe = NULL;
    }
    free(exe);
    return ok;
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
                !addf(&j->res->art[k], "CTK-VER-001", 0, j->err, "the module is named %s but the toolkit is %s",
                      j->full_name, j->res->version))
                return false;
    }
    if (j->nvcc_release && sscanf(j->nvcc_release, "%d.%d", &ma, &mi) == 2 &&
        (ma != s->version.major || mi != s->version.minor))
        for (int k = 0; k < CTK_ART__COUNT; k++)
            if (!addf(&j->res->art[k], "CTK-VER-001", 0, j->err, "%s says release %s, the toolkit is %s",
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
        char *mp = module_path(j, "lmod"), *file = NULL, *full = NULL;

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
        if (!write_text(j->dir, names[i], t->data, (size_t)t->len, j->err))
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
        if (!trust_findings(j, (ctk_art_t)a))
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
    return write_probes(j) && (!j->pre[0] || (prereq_lua(j) && (!j->c->have_tcl || prereq_tcl(j))));
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
        ok = addf(&j->res->art[CTK_ART_TCL], "CTK-ENV-001", 0, j->err, "%s differs: Lua %s%s%s, Tcl %s%s%s", n,
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

    if (!eval_pc(j, &res->art[CTK_ART_PC]) ||
        (j->have_pc && (!check_pc_static(j, &res->art[CTK_ART_PC]) || !build_pc(j, &res->art[CTK_ART_PC]))))
        return false;
    res->art[CTK_ART_PC].seconds = now_s() - t;
    t = now_s();
    if (!eval_lmod(j, &res->art[CTK_ART_LMOD]) ||
        (j->have_env[0] && !check_module_env(j, &res->art[CTK_ART_LMOD], &j->menv[0])))
        return false;
    res->art[CTK_ART_LMOD].seconds = now_s() - t;
    t = now_s();
    if (!eval_tcl(j, &res->art[CTK_ART_TCL]) ||
        (j->have_env[1] && !check_module_env(j, &res->art[CTK_ART_TCL], &j->menv[1])) ||
        (j->have_env[0] && j->have_env[1] && !compare_module_envs(j)))
        return false;
    res->art[CTK_ART_TCL].seconds = now_s() - t;
    return true;
}

/* The .pc settled; then each module's probes built and run, and settled. */
static bool build_modules(vjob_t *j)
{
    ctk_vsdk_t *res = j->res;

    if (!check_versions(j) || !trust_findings(j, CTK_ART_PC))
        return false;
    ctk_vart_settle(&res->art[CTK_ART_PC]);
    progress(j, CTK_ART_PC);
    for (int a = CTK_ART_LMOD; a <= CTK_ART_TCL; a++) {
        double t = now_s();

        if ((j->have_env[a] && !build_module(j, &res->art[a], &j->menv[a])) || !trust_findings(j, (ctk_art_t)a))
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
    if (!check_tree(j, &refused) || (j->c->o->stage_dir && !refused && !sdk_key(j, res->key)))
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
    char *v = tool_output(c, argv, c->tmproot), *nl;

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


