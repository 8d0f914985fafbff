/* modenv.c - the environment a real module system produces for `module load`.
 * SPDX-License-Identifier: MIT
 *
 * Two steps, both through proc.c: the module system prints shell code for
 * `sh load NAME`, then /bin/sh, started with the base environment, evals
 * that code and execs `env -0`.  A refused load is recognised from what
 * the module systems print in that case, checked on this machine against
 * Environment Modules 5.2.0 and Lmod 8.6.19:
 *   Environment Modules: exit status 0, stdout ends with `test 0 = 1;`
 *     (`test 0;` on success), stderr "Loading NAME" then indented
 *     "Module ERROR: ..." and a Tcl trace naming (file "PATH" line N);
 *   Lmod: exit status 1, stdout ends with `false`, stderr "Lmod has
 *     detected the following error: ..." then a table of the modules
 *     being processed with their files.
 * Messages are unwrapped (LMOD_TERM_WIDTH, MODULES_TERM_WIDTH) and
 * uncoloured so the first lines of stderr can be quoted as they are.
 * With a sandbox that drops root (sandbox.h), both steps run as its user,
 * in a HOME and TMPDIR made for the load and removed after it.
 */
#include <ctkconf.h>

#include "modenv.h"

#include "proc.h"
#include "trust.h"
#include "sandbox.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Module systems print little; more means something is wrong. */
#define MAX_OUTPUT ((size_t)4 << 20)
/* Seconds for `--version` while looking for a module system. */
#define VERSION_TIMEOUT 15.0
/* Meaningful stderr lines quoted in an error. */
#define MESSAGE_LINES 4
/* Shell code is handed to sh in argv pieces below MAX_ARG_STRLEN (128 KiB). */
#define ARG_PIECE 65536

static const char *const tcl_places[] = {
    "/usr/share/modules/libexec/modulecmd.tcl",
#if defined(__x86_64__)
    "/usr/lib/x86_64-linux-gnu/modulecmd.tcl",
#elif defined(__aarch64__)
    "/usr/lib/aarch64-linux-gnu/modulecmd.tcl",
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
    "/usr/lib/powerpc64le-linux-gnu/modulecmd.tcl",
#endif
    "/usr/share/Modules/libexec/modulecmd.tcl",
    "/usr/local/Modules/libexec/modulecmd.tcl",
    "/opt/modules/libexec/modulecmd.tcl",
    NULL,
};

static const char *const lmod_places[] = {
    "/usr/share/lmod/lmod/libexec/lmod",
    "/opt/apps/lmod/lmod/libexec/lmod",
    "/usr/local/lmod/lmod/libexec/lmod",
    NULL,
};

static const char *const tclsh_names[] = { "tclsh", "tclsh8.6", "tclsh9.0", NULL };

void ctk_modsys_info_fini(ctk_modsys_info_t *m)
{
    if (!m)
        return;
    free(m->cmd);
    free(m->interp);
    free(m->version);
    memset(m, 0, sizeof *m);
}

/* State a module system keeps in the environment about what is loaded. */
static bool module_state(const char *name)
{
    static const char *const exact[] = { "LOADEDMODULES", "_LMFILES_", "MODULEPATH", NULL };
    static const char *const prefixes[] = {
        "__MODULES_",      /* Environment Modules 5: reference counts, alt names, tags */
        "MODULES_LM",      /* Environment Modules 4: MODULES_LMALTNAME, MODULES_LMCONFLICT... */
        "MODULES_FAMILY_", /* Environment Modules' copy of LMOD_FAMILY_<NAME> */
        "_LMFILES__",      /* Environment Modules splits long values */
        "LOADEDMODULES_",
        "__LMOD_",         /* Lmod: __LMOD_REF_COUNT_* and friends */
        "_ModuleTable",    /* Lmod's saved state */
        NULL,
    };
    size_t i, n = strlen(name);

    for (i = 0; exact[i]; i++)
        if (strcmp(name, exact[i]) == 0)
            return true;
    for (i = 0; prefixes[i]; i++)
        if (ctk_str_has_prefix(name, prefixes[i]))
            return true;
    if (ctk_str_has_prefix(name, "LMOD_"))
        return !ctk_str_has_prefix(name, "LMOD_FAMILY_");
    /* Environment Modules 4 reference counts: PATH_modshare */
    return n > 9 && strcmp(name + n - 9, "_modshare") == 0;
}

bool ctk_modenv_is_bookkeeping(const char *name)
{
    /* the rest is put there by /bin/sh itself (dash exports PWD) */
    return module_state(name) || strcmp(name, "PWD") == 0 || strcmp(name, "OLDPWD") == 0 ||
           strcmp(name, "SHLVL") == 0 || strcmp(name, "_") == 0;
}

static const char *envp_get(const char *const *envp, const char *name)
{
    size_t n = strlen(name), i;

    for (i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

/* The first token after `marker` in text that starts with a digit. */
static char *parse_version(const char *text, const char *marker)
{
    const char *p = strstr(text, marker), *e;

    if (!p)
        return NULL;
    p += strlen(marker);
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return NULL;
    for (e = p; *e && !isspace((unsigned char)*e) && *e != '(' && *e != ','; e++)
        ;
    return ctk_strndup(p, (size_t)(e - p), NULL);
}

/* Ask the module system for its version; NULL when it will not say. */
static char *ask_version(const ctk_modsys_info_t *m, ctk_error_t *err, bool *nomem)
{
    const char *argv[5];
    ctk_proc_spec_t spec;
    ctk_proc_result_t r;
    ctk_error_t run_err;
    char *v = NULL;
    size_t n = 0;

    if (m->interp)
        argv[n++] = m->interp;
    argv[n++] = m->cmd;
    if (m->kind == CTK_MODSYS_TCL)
        argv[n++] = "sh"; /* modulecmd.tcl takes the shell first, even for --version */
    argv[n++] = "--version";
    argv[n] = NULL;
    memset(&spec, 0, sizeof spec);
    spec.argv = argv;
    spec.timeout_s = VERSION_TIMEOUT;
    spec.max_output = 65536;
    ctk_proc_result_init(&r);
    ctk_error_init(&run_err);
    *nomem = false;
    /* a module system that cannot even say its version is still reported
     * found: the load will say what is wrong */
    if (!ctk_proc_run(&spec, &r, &run_err)) {
        if (run_err.code == CTK_E_NOMEM) {
            ctk_error_nomem(err);
            *nomem = true;
        }
        ctk_proc_result_fini(&r);
        return NULL;
    }
    /* both print to stderr; accept stdout too */
    if (m->kind == CTK_MODSYS_TCL) {
        if (!(v = parse_version(r.err, "Modules Release")))
            v = parse_version(r.out, "Modules Release");
    } else {
        if (!(v = parse_version(r.err, "Version")))
            v = parse_version(r.out, "Version");
    }
    ctk_proc_result_fini(&r);
    return v;
}

/* The env(1) that prints what a module system's shell code leaves. */
static const char *find_env_prog(void)
{
    return ctk_is_executable("/usr/bin/env") ? "/usr/bin/env" : "/bin/env";
}

/* The interpreter named by a script's #! line when it is a tclsh. */
static char *shebang_tclsh(const char *script)
{
    /* opened as util.c opens files: a FIFO in its place cannot hold us */
    int fd = ctk_file_open_regular(script, 0, NULL, NULL);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    char line[512], *p, *e, *base;

    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    p = fgets(line, sizeof line, f);
    fclose(f);
    if (!p || strncmp(line, "#!", 2) != 0)
        return NULL;
    for (p = line + 2; *p == ' ' || *p == '\t'; p++)
        ;
    for (e = p; *e && !isspace((unsigned char)*e); e++)
        ;
    *e = '\0';
    base = strrchr(p, '/');
    if (!base || strncmp(base + 1, "tclsh", 5) != 0 || !ctk_is_executable(p))
        return NULL;
    return ctk_strdup(p, NULL);
}

/* A finding-style reason; false only when even that could not be allocated. */
static bool say_why(char **why_not, ctk_error_t *err, char *text)
{
    if (!text) {
        ctk_error_nomem(err);
        return false;
    }
    *why_not = text;
    return true;
}

static bool usable(const char *path, bool need_exec)
{
    return need_exec ? ctk_is_executable(path) : (ctk_is_file(path) && access(path, R_OK) == 0);
}

/* Pick the program: explicit, else $var, else the first usable place.
 * *chosen NULL (and *why set) when none; returns false on allocation failure. */
static bool pick(const char *explicit_cmd, const char *const *caller_env, const char *var,
                 const char *const *places, bool need_exec, const char *what, char **chosen,
                 char **why, ctk_error_t *err)
{
    const char *given = explicit_cmd;
    ctk_buf_t b;
    size_t i;

    *chosen = NULL;
    *why = NULL;
    if (!given && (given = envp_get(caller_env, var)) != NULL && !*given)
        given = NULL;
    if (given) {
        /* a choice made by the user is not second-guessed with another install */
        if (usable(given, need_exec))
            return (*chosen = ctk_strdup(given, err)) != NULL;
        return say_why(why, err,
                       ctk_printf(err, "no %s: %s (%s%s) is not %s", what, given,
                                  explicit_cmd ? "given" : "from $", explicit_cmd ? "" : var,
                                  need_exec ? "an executable file" : "a readable file"));
    }
    for (i = 0; places[i]; i++)
        if (usable(places[i], need_exec))
            return (*chosen = ctk_strdup(places[i], err)) != NULL;
    ctk_buf_init(&b);
    ctk_buf_printf(&b, "no %s: $%s is not set and none of ", what, var);
    for (i = 0; places[i]; i++)
        ctk_buf_printf(&b, "%s%s", i ? ", " : "", places[i]);
    ctk_buf_puts(&b, " exists");
    if (b.failed) {
        ctk_buf_fini(&b);
        return say_why(why, err, NULL);
    }
    return say_why(why, err, ctk_buf_take(&b, NULL));
}

bool ctk_modsys_trusted(const ctk_modsys_info_t *m, char *why, size_t why_len)
{
    const char *progs[] = {m->interp, m->cmd, "/bin/sh", find_env_prog()};
    char reason[1024];

    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        if (!progs[i] || ctk_trust_exec(progs[i], reason, sizeof reason))
            continue;
        snprintf(why, why_len, "`%s%s%s` was not run: %s", m->interp ? m->interp : "", m->interp ? " " : "",
                 m->cmd, reason);
        return false;
    }
    if (why_len)
        why[0] = '\0';
    return true;
}

/* The tclsh to run m's modulecmd.tcl into m->interp: the first of
 * tclsh_names on path, else the one its #! line names.  False with *why
 * saying so when there is none, with *why NULL when out of memory. */
static bool find_tclsh(ctk_modsys_info_t *m, const char *path, char **why, ctk_error_t *err)
{
    for (int i = 0; path && tclsh_names[i] && !m->interp; i++) {
        int why_missing = 0;

        m->interp = ctk_env_path_search(path, tclsh_names[i], NULL, &why_missing, err);
        if (!m->interp && why_missing == ENOMEM)
            return false;
    }
    if (!m->interp)
        m->interp = shebang_tclsh(m->cmd);
    if (m->interp)
        return true;
    *why = ctk_printf(err, "no tclsh to run %s: none of tclsh, tclsh8.6, tclsh9.0 on PATH (%s), "
                           "and its #! line names no usable tclsh",
                      m->cmd, path ? path : "unset");
    return false;
}

static bool find_tcl(const char *explicit_cmd, const char *const *caller_env, bool trusted_only,
                     ctk_modsys_info_t *out, char **why_not, bool *untrusted, ctk_error_t *err)
{
    ctk_modsys_info_t m;
    const char *path = envp_get(caller_env, "PATH");
    char *why = NULL, reason[2048];
    bool nomem;

    memset(&m, 0, sizeof m);
    memset(out, 0, sizeof *out);
    *why_not = NULL;
    if (untrusted)
        *untrusted = false;
    m.kind = CTK_MODSYS_TCL;
    if (!pick(explicit_cmd, caller_env, "MODULES_CMD", tcl_places, false,
              "Environment Modules modulecmd.tcl", &m.cmd, &why, err))
        goto fail;
    if (!m.cmd) {
        *why_not = why;
        return false;
    }
    if (!find_tclsh(&m, path, &why, err))
        goto not_found;
    if (trusted_only && !ctk_modsys_trusted(&m, reason, sizeof reason)) {
        if (!(why = ctk_strdup(reason, err)))
            goto fail;
        if (untrusted)
            *untrusted = true;
        goto not_found;
    }
    m.version = ask_version(&m, err, &nomem);
    if (nomem)
        goto fail;
    *out = m;
    return true;
not_found:
    if (!why)
        goto fail;
    ctk_modsys_info_fini(&m);
    *why_not = why;
    return false;
fail:
    ctk_modsys_info_fini(&m);
    return false;
}

bool ctk_modsys_find_tcl(const char *explicit_cmd, const char *const *caller_env,
                         ctk_modsys_info_t *out, char **why_not, ctk_error_t *err)
{
    return find_tcl(explicit_cmd, caller_env, false, out, why_not, NULL, err);
}

bool ctk_modsys_find_tcl_trusted(const char *explicit_cmd, const char *const *caller_env,
                                 ctk_modsys_info_t *out, char **why_not, bool *untrusted, ctk_error_t *err)
{
    return find_tcl(explicit_cmd, caller_env, true, out, why_not, untrusted, err);
}

bool ctk_modsys_find_lmod(const char *explicit_cmd, const char *const *caller_env,
                          ctk_modsys_info_t *out, char **why_not, ctk_error_t *err)
{
    ctk_modsys_info_t m;
    char *why = NULL;
    bool nomem;

    memset(&m, 0, sizeof m);
    memset(out, 0, sizeof *out);
    *why_not = NULL;
    m.kind = CTK_MODSYS_LMOD;
    if (!pick(explicit_cmd, caller_env, "LMOD_CMD", lmod_places, true, "Lmod libexec/lmod",
              &m.cmd, &why, err))
        goto fail;
    if (!m.cmd) {
        *why_not = why;
        return false;
    }
    m.version = ask_version(&m, err, &nomem);
    if (nomem)
        goto fail;
    *out = m;
    return true;
fail:
    ctk_modsys_info_fini(&m);
    return false;
}

/* ---- load ------------------------------------------------------------------ */

static const char *sys_name(const ctk_modsys_info_t *m)
{
    return m->kind == CTK_MODSYS_TCL ? "Environment Modules" : "Lmod";
}

/* The last non-blank line of text, trimmed, into buf. */
static void last_line(const char *text, size_t len, char *buf, size_t bufsz)
{
    const char *e = text + len, *b;

    while (e > text && isspace((unsigned char)e[-1]))
        e--;
    for (b = e; b > text && b[-1] != '\n'; b--)
        ;
    while (b < e && isspace((unsigned char)*b))
        b++;
    snprintf(buf, bufsz, "%.*s", (int)(e - b), b);
}

/* Did the module system say the load failed? */
static bool refused(const ctk_modsys_info_t *m, const ctk_proc_result_t *r)
{
    char last[64];

    if (r->exit_status != 0)
        return true;
    last_line(r->out, r->out_len, last, sizeof last);
    if (m->kind == CTK_MODSYS_TCL)
        /* "test 0 = 1;" on failure, "test 0;" on success */
        return strncmp(last, "test 0 = 1", 10) == 0 || strcmp(last, "false") == 0 ||
               strcmp(last, "false;") == 0;
    return strcmp(last, "false") == 0 || strcmp(last, "false;") == 0;
}

/* Where the module system says the error is: Environment Modules' Tcl
 * trace `(file "PATH" line N)`, Lmod's table row `NAME  PATH` under
 * "Module Filename" and, for a Lua error, `PATH: [string "..."]:N:`. */
static void locate(const char *msg, char *src, size_t srcsz, int *line)
{
    const char *p, *e;

    src[0] = '\0';
    *line = 0;
    if ((p = strstr(msg, "(file \"")) != NULL) {
        p += 7;
        if ((e = strchr(p, '"')) != NULL) {
            snprintf(src, srcsz, "%.*s", (int)(e - p), p);
            if (strncmp(e, "\" line ", 7) == 0)
                *line = (int)strtol(e + 7, NULL, 10);
        }
        return;
    }
    if ((p = strstr(msg, "Module Filename")) != NULL && (p = strstr(p, "\n")) != NULL &&
        (p = strstr(p + 1, "\n")) != NULL) {
        /* past the dashes: "    name    /path/to/file.lua" */
        const char *eol = strchr(++p, '\n'), *t;

        if (!eol)
            eol = p + strlen(p);
        while (eol > p && isspace((unsigned char)eol[-1]))
            eol--;
        for (t = eol; t > p && !isspace((unsigned char)t[-1]); t--)
            ;
        if (t < eol && *t == '/')
            snprintf(src, srcsz, "%.*s", (int)(eol - t), t);
    }
    if (src[0]) {
        char pat[CTK_ERROR_SOURCE_MAX + 16];

        snprintf(pat, sizeof pat, "%s: [string \"", src);
        if ((p = strstr(msg, pat)) != NULL && (p = strstr(p, "\"]:")) != NULL)
            *line = (int)strtol(p + 3, NULL, 10);
    }
}

static bool noise(const char *line, size_t n)
{
    static const char *const skip[] = {
        "Please check the modulefile and especially if there is a line number",
        "Please contact ", NULL,
    };
    size_t i;

    for (i = 0; skip[i]; i++)
        if (n >= strlen(skip[i]) && strncmp(line, skip[i], strlen(skip[i])) == 0)
            return true;
    /* Environment Modules' "Loading NAME" header over its messages */
    return n > 8 && strncmp(line, "Loading ", 8) == 0 && !memchr(line + 8, ' ', n - 8);
}

static bool stops(const char *line, size_t n)
{
    static const char *const stop[] = { "While processing the following module(s):",
                                        "Please check the spelling or version number",
                                        "while executing", "invoked from within", NULL };
    size_t i;

    for (i = 0; stop[i]; i++)
        if (n >= strlen(stop[i]) && strncmp(line, stop[i], strlen(stop[i])) == 0)
            return true;
    return false;
}

/* The first few meaningful lines of a module system's stderr, on one line:
 * a line ending in ':' runs on into the next, others are joined by "; ". */
static char *summarize(const char *msg, ctk_error_t *err)
{
    static const char lmod_prefix[] = "Lmod has detected the following error:";
    ctk_buf_t b;
    const char *p = msg;
    int lines = 0;

    ctk_buf_init(&b);
    while (*p && lines < MESSAGE_LINES) {
        const char *eol = strchr(p, '\n'), *s = p, *e;

        if (!eol)
            eol = p + strlen(p);
        e = eol;
        p = *eol ? eol + 1 : eol;
        while (s < e && isspace((unsigned char)*s))
            s++;
        while (e > s && isspace((unsigned char)e[-1]))
            e--;
        if (ctk_str_has_prefix(s, lmod_prefix)) {
            s += sizeof lmod_prefix - 1;
            while (s < e && *s == ' ')
                s++;
        }
        if (s == e || noise(s, (size_t)(e - s)))
            continue;
        if (stops(s, (size_t)(e - s)))
            break;
        if (b.len)
            ctk_buf_puts(&b, b.data[b.len - 1] == ':' ? " " : "; ");
        ctk_buf_append(&b, s, (size_t)(e - s));
        lines++;
    }
    if (b.failed) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return ctk_buf_take(&b, NULL);
}

/* The modulefile for full_name in modulepath, when the system did not say. */
static void guess_source(const ctk_modsys_info_t *m, const char *modulepath,
                         const char *full_name, char *src, size_t srcsz)
{
    const char *p = modulepath;

    while (*p) {
        const char *e = strchr(p, ':');
        size_t n = e ? (size_t)(e - p) : strlen(p);

        if (n) {
            snprintf(src, srcsz, "%.*s/%s%s", (int)n, p, full_name,
                     m->kind == CTK_MODSYS_LMOD ? ".lua" : "");
            if (ctk_is_file(src))
                return;
            if (m->kind == CTK_MODSYS_LMOD) {
                snprintf(src, srcsz, "%.*s/%s", (int)n, p, full_name);
                if (ctk_is_file(src))
                    return;
            }
        }
        if (!e)
            break;
        p = e + 1;
    }
    src[0] = '\0';
}

static void report_refusal(const ctk_modsys_info_t *m, const char *modulepath,
                           const char *full_name, const ctk_proc_result_t *r, ctk_error_t *err)
{
    char src[CTK_ERROR_SOURCE_MAX], desc[128];
    char *text;
    int line;

    if (!err)
        return;
    locate(r->err, src, sizeof src, &line);
    if (!src[0])
        guess_source(m, modulepath, full_name, src, sizeof src);
    if (!(text = summarize(r->err, err)))
        return;
    if (!*text)
        ctk_error_set(err, CTK_E_TEMPLATE, src[0] ? src : NULL, line, 0,
                      "%s refused to load %s (%s) and said nothing", sys_name(m), full_name,
                      ctk_proc_describe(r, 0, desc, sizeof desc));
    else
        ctk_error_set(err, CTK_E_TEMPLATE, src[0] ? src : NULL, line, 0,
                      "%s refused to load %s: %s", sys_name(m), full_name, text);
    free(text);
}

/* The module system's environment: base without module state, plus the
 * search path and settings that keep its messages plain. */

/* MODULEPATH with each relative entry made absolute from ctkgen's working
 * directory: the module system runs in a directory of its own (and, as
 * another user, may not be allowed into ours). */
static bool set_modulepath(ctk_env_t *env, const char *modulepath, ctk_error_t *err)
{
    char cwd[PATH_MAX];
    ctk_buf_t b;
    const char *p = modulepath;
    char *v;
    bool ok;

    if (!getcwd(cwd, sizeof cwd))
        return ctk_env_set(env, "MODULEPATH", modulepath, err);
    ctk_buf_init(&b);
    while (*p) {
        size_t n = strcspn(p, ":");

        if (b.len)
            ctk_buf_puts(&b, ":");
        if (n && *p != '/')
            ctk_buf_printf(&b, "%s/", cwd);
        ctk_buf_append(&b, p, n);
        p += n + (p[n] == ':');
    }
    if (b.failed || !ctk_buf_puts(&b, "") || !(v = ctk_buf_take(&b, NULL))) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return false;
    }
    ok = ctk_env_set(env, "MODULEPATH", v, err);
    free(v);
    return ok;
}

static bool modsys_env(const ctk_modsys_info_t *m, const ctk_env_t *base, const char *modulepath,
                       ctk_env_t *env, ctk_error_t *err)
{
    static const char *const tcl_set[][2] = {
        { "MODULES_COLOR", "never" }, { "MODULES_TERM_WIDTH", "1000" }, { NULL, NULL } };
    static const char *const lmod_set[][2] = {
        { "LMOD_COLORIZE", "no" }, { "LMOD_TERM_WIDTH", "1000" },
        { "LMOD_IGNORE_CACHE", "yes" }, { NULL, NULL } };
    const char *const (*set)[2] = m->kind == CTK_MODSYS_TCL ? tcl_set : lmod_set;
    size_t i = 0;

    ctk_env_init(env);
    while (i < base->kv.len) {
        const char *kv = base->kv.items[i];
        char name[256];
        size_t n = strcspn(kv, "=");

        snprintf(name, sizeof name, "%.*s", (int)n, kv);
        /* a loaded-module state in base would change what a load does */
        if (n < sizeof name && module_state(name)) {
            i++;
            continue;
        }
        if (!ctk_strlist_push(&env->kv, kv, err))
            return false;
        i++;
    }
    if (!set_modulepath(env, modulepath, err))
        return false;
    for (i = 0; set[i][0]; i++)
        if (!ctk_env_set(env, set[i][0], set[i][1], err))
            return false;
    return true;
}

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What is left of the caller's timeout for the next step; 0: no deadline. */
static double left(double deadline, double timeout_s)
{
    double l;

    if (timeout_s <= 0)
        return 0;
    l = deadline - mono_now();
    return l > 0.001 ? l : 0.001;
}

/* Both steps of a load run as the sandbox's user when it drops root:
 * the module system runs the modulefile's Tcl (or Lua), and sh runs what
 * it printed, which a modulefile can fill with any command (`puts stdout`). */
static void as_user(ctk_proc_spec_t *spec, const ctk_sandbox_t *sb, const char *cwd)
{
    if (!sb || !sb->drop)
        return;
    spec->run_as = true;
    spec->run_as_uid = sb->uid;
    spec->run_as_gid = sb->gid;
    spec->cwd = cwd; /* ctkgen's own may be closed to the user */
}

/* Evaluate code in /bin/sh started with base; *r gets `env -0` output.
 * The code travels as argv pieces (one argument may hold 128 KiB at most)
 * that the script joins back; its own variables are not exported. */
static bool eval_code(const char *code, size_t len, const ctk_env_t *base, double timeout_s,
                      const ctk_sandbox_t *sb, const char *cwd, ctk_proc_result_t *r, ctk_error_t *err)
{
    static const char script[] =
        "__ctk_env=$1; shift; __ctk_code=; for __ctk_p do __ctk_code=$__ctk_code$__ctk_p; done; "
        "eval \"$__ctk_code\" && exec \"$__ctk_env\" -0";
    ctk_env_t env;
    ctk_strlist_t args;
    ctk_proc_spec_t spec;
    const char *const *envp;
    size_t off;
    bool ok = false;

    ctk_env_init(&env);
    ctk_strlist_init(&args);
    if (memchr(code, '\0', len)) {
        ctk_error_set(err, CTK_E_TEMPLATE, NULL, 0, 0, "module system printed a NUL byte");
        goto out;
    }
    if (!ctk_strlist_push(&args, "/bin/sh", err) || !ctk_strlist_push(&args, "-c", err) ||
        !ctk_strlist_push(&args, script, err) || !ctk_strlist_push(&args, "sh", err) ||
        !ctk_strlist_push(&args, find_env_prog(), err))
        goto out;
    for (off = 0; off < len; off += ARG_PIECE) {
        size_t n = len - off < ARG_PIECE ? len - off : ARG_PIECE;

        if (!ctk_strlist_take(&args, ctk_strndup(code + off, n, err), err))
            goto out;
    }
    if (!ctk_strlist_push(&args, "", err)) /* room for the NULL below */
        goto out;
    free(args.items[--args.len]);
    args.items[args.len] = NULL;
    if (!ctk_env_copy(&env, base, err) || !(envp = ctk_env_envp(&env, err)))
        goto out;
    memset(&spec, 0, sizeof spec);
    spec.argv = (const char *const *)args.items;
    spec.envp = envp;
    spec.timeout_s = timeout_s;
    spec.max_output = MAX_OUTPUT;
    as_user(&spec, sb, cwd);
    ok = ctk_proc_run(&spec, r, err);
out:
    ctk_strlist_fini(&args);
    ctk_env_fini(&env);
    return ok;
}

/* out[name] = base[name] for every bookkeeping name in either. */
static bool drop_bookkeeping(ctk_env_t *out, const ctk_env_t *base, ctk_error_t *err)
{
    ctk_strlist_t names;
    size_t i;
    const ctk_env_t *from[2] = { out, base };
    int k;
    bool ok = false;

    ctk_strlist_init(&names);
    for (k = 0; k < 2; k++) {
        for (i = 0; i < from[k]->kv.len; i++) {
            const char *kv = from[k]->kv.items[i];
            char *name = ctk_strndup(kv, strcspn(kv, "="), err);

            if (!name)
                goto out;
            if (!ctk_modenv_is_bookkeeping(name) || ctk_strlist_contains(&names, name)) {
                free(name);
                continue;
            }
            if (!ctk_strlist_take(&names, name, err))
                goto out;
        }
    }
    for (i = 0; i < names.len; i++)
        if (!ctk_env_set(out, names.items[i], ctk_env_get(base, names.items[i]), err))
            goto out;
    ok = true;
out:
    ctk_strlist_fini(&names);
    return ok;
}

bool ctk_modenv_load(const ctk_modsys_info_t *m, const char *modulepath, const char *full_name,
                     const ctk_env_t *base, double timeout_s, ctk_env_t *out, ctk_error_t *err)
{
    return ctk_modenv_load_as(m, modulepath, full_name, base, timeout_s, NULL, out, err);
}

/* The run's own HOME and TMPDIR, where the result still has them, go back
 * to base's values: they are not the module's doing. */
static bool unswap(ctk_env_t *out, const ctk_env_t *run_base, const ctk_env_t *base, ctk_error_t *err)
{
    static const char *const names[] = { "HOME", "TMPDIR", NULL };

    for (size_t i = 0; names[i]; i++) {
        const char *v = ctk_env_get(out, names[i]), *rv = ctk_env_get(run_base, names[i]);

        if (v && rv && strcmp(v, rv) == 0 && !ctk_env_set(out, names[i], ctk_env_get(base, names[i]), err))
            return false;
    }
    return true;
}

bool ctk_modenv_load_as(const ctk_modsys_info_t *m, const char *modulepath, const char *full_name,
                        const ctk_env_t *base, double timeout_s, const ctk_sandbox_t *sb, ctk_env_t *out,
                        ctk_error_t *err)
{
    return ctk_modenv_load_after(m, modulepath, NULL, full_name, base, timeout_s, sb, out, err);
}

/* A name the module system would take as an option, or none: refused. */
static bool bad_name(const char *name, ctk_error_t *err)
{
    if (name[0] && name[0] != '-')
        return false;
    ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "bad module name '%s'", name);
    return true;
}

/* Every module name plain enough to pass as a word, and not too many. */
static bool load_names_ok(const char *const *first, const char *full_name, ctk_error_t *err)
{
    if (bad_name(full_name, err))
        return false;
    for (size_t i = 0; first && first[i]; i++) {
        if (i == CTK_MODENV_MAX_FIRST) {
            ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "more than %d modules to load first",
                          CTK_MODENV_MAX_FIRST);
            return false;
        }
        if (bad_name(first[i], err))
            return false;
    }
    return true;
}

/* `<modulecmd> sh load FIRST... FULL_NAME` in the module system's
 * environment (menv), as the sandbox's user with sb, into *r: false (err)
 * unless it ran to the end (run_s at most; total_s is the whole load's
 * time, for messages), within its output limit, and loaded. */
static bool run_load(const ctk_modsys_info_t *m, const char *modulepath, const char *const *first,
                     const char *full_name, ctk_env_t *menv, double run_s, double total_s,
                     const ctk_sandbox_t *sb, const char *home, ctk_proc_result_t *r, ctk_error_t *err)
{
    const char *argv[6 + CTK_MODENV_MAX_FIRST];
    ctk_proc_spec_t spec;
    char desc[256];
    size_t n = 0;

    if (m->interp)
        argv[n++] = m->interp;
    argv[n++] = m->cmd;
    argv[n++] = "sh";
    argv[n++] = "load";
    for (size_t i = 0; first && first[i]; i++)
        argv[n++] = first[i];
    argv[n++] = full_name;
    argv[n] = NULL;
    memset(&spec, 0, sizeof spec);
    spec.argv = argv;
    if (!(spec.envp = ctk_env_envp(menv, err)))
        return false;
    spec.timeout_s = run_s;
    spec.max_output = MAX_OUTPUT;
    as_user(&spec, sb, home);
    if (!ctk_proc_run(&spec, r, err))
        return false;
    if (r->spawn_errno || r->timed_out || r->term_signal) {
        ctk_error_set(err, CTK_E_ENV, m->cmd, 0, 0, "%s load %s: %s", sys_name(m), full_name,
                      ctk_proc_describe(r, total_s, desc, sizeof desc));
        return false;
    }
    if (r->truncated) {
        ctk_error_set(err, CTK_E_ENV, m->cmd, 0, 0, "%s load %s: more than %zu bytes of output",
                      sys_name(m), full_name, (size_t)MAX_OUTPUT);
        return false;
    }
    if (refused(m, r)) {
        report_refusal(m, modulepath, full_name, r, err);
        return false;
    }
    return true;
}

/* The shell code the module system printed (r), run by /bin/sh from
 * start, within timeout_s (total_s: the whole load's time, for
 * messages), into *ev: false (err) unless it ran clean.  The code failed, or a
 * command in it did (which sh does not make the status of the whole):
 * neither module system quotes a newline for sh, so `FOO=a<newline>b;`
 * runs `b` and leaves FOO=a.  A user's shell would show the same message
 * on `module load`. */
static bool eval_load(const ctk_modsys_info_t *m, const char *full_name, const ctk_proc_result_t *r,
                      const ctk_env_t *start, double timeout_s, double total_s, const ctk_sandbox_t *sb,
                      const char *home, ctk_proc_result_t *ev, ctk_error_t *err)
{
    char desc[256], *text;

    if (!eval_code(r->out, r->out_len, start, timeout_s, sb, home, ev, err))
        return false;
    if (ev->spawn_errno || ev->timed_out || ev->term_signal || ev->truncated) {
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "/bin/sh evaluating what %s printed for %s: %s",
                      sys_name(m), full_name,
                      ev->truncated ? "too much output" : ctk_proc_describe(ev, total_s, desc, sizeof desc));
        return false;
    }
    if (ev->exit_status == 0 && ev->err_len == 0)
        return true;
    if ((text = summarize(ev->err, err)))
        ctk_error_set(err, CTK_E_TEMPLATE, NULL, 0, 0, "%s load %s: its shell code failed in /bin/sh (%s)%s%s",
                      sys_name(m), full_name, ctk_proc_describe(ev, 0, desc, sizeof desc), *text ? ": " : "",
                      text);
    free(text);
    return false;
}

bool ctk_modenv_load_after(const ctk_modsys_info_t *m, const char *modulepath, const char *const *first,
                           const char *full_name, const ctk_env_t *base, double timeout_s,
                           const ctk_sandbox_t *sb, ctk_env_t *out, ctk_error_t *err)
{
    ctk_env_t menv, result, run_base;
    ctk_sandbox_run_t run;
    const ctk_env_t *start = base;
    ctk_proc_result_t r, ev;
    double deadline = mono_now() + timeout_s;
    bool ok = false, drop = sb && sb->drop;

    ctk_env_init(&menv);
    ctk_env_init(&result);
    ctk_env_init(&run_base);
    memset(&run, 0, sizeof run);
    ctk_proc_result_init(&r);
    ctk_proc_result_init(&ev);
    if (!load_names_ok(first, full_name, err))
        goto out;
    if (drop) {
        /* a HOME and TMPDIR of this load's own, the user's, empty */
        if (!ctk_sandbox_run_new(sb, &run, err) || !ctk_sandbox_run_env(&run, base, &run_base, err))
            goto out;
        start = &run_base;
    }
    if (!modsys_env(m, start, modulepath, &menv, err) ||
        !run_load(m, modulepath, first, full_name, &menv, left(deadline, timeout_s), timeout_s, sb, run.home, &r,
                  err) ||
        !eval_load(m, full_name, &r, start, left(deadline, timeout_s), timeout_s, sb, run.home, &ev, err))
        goto out;
    if (!ctk_env_parse_nul(&result, ev.out, ev.out_len, err) ||
        !drop_bookkeeping(&result, base, err) || (drop && !unswap(&result, &run_base, base, err)))
        goto out;
    ctk_env_fini(out);
    *out = result;
    ctk_env_init(&result);
    ok = true;
out:
    ctk_proc_result_fini(&ev);
    ctk_proc_result_fini(&r);
    ctk_env_fini(&result);
    ctk_env_fini(&menv);
    ctk_env_fini(&run_base);
    if (drop)
        ctk_sandbox_run_remove(&run);
    return ok;
}
