/* tcl2lua.c - Tcl modulefiles read through Lmod's tcl2lua.tcl (see tcl2lua.h).
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "proc.h"
#include "tcl2lua.h"
#include "trust.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OUTPUT (4u << 20)

static const char *const lmod_dirs[] = {
    "/usr/share/lmod/lmod/libexec",
    "/opt/apps/lmod/lmod/libexec",
    "/usr/local/lmod/lmod/libexec",
    NULL,
};

void ctk_tcl2lua_fini(ctk_tcl2lua_t *t)
{
    if (!t)
        return;
    free(t->tclsh);
    free(t->script);
    free(t->version);
    memset(t, 0, sizeof *t);
}

/* NAME's value in a NULL-terminated "NAME=VALUE" list; NULL if none. */
static const char *env_value(const char *const *env, const char *name)
{
    size_t n = strlen(name);

    for (; env && *env; env++)
        if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
            return *env + n + 1;
    return NULL;
}

/* dir/tcl2lua.tcl when it is a file; NULL (no err) when not. */
static char *script_in(const char *dir, ctk_error_t *err)
{
    char *p = ctk_path_join(dir, "tcl2lua.tcl", err);

    if (p && !ctk_is_file(p)) {
        free(p);
        p = NULL;
    }
    return p;
}

/* The script beside $LMOD_CMD, else in the standard places. */
static char *find_script(const char *const *caller_env, ctk_error_t *err)
{
    const char *cmd = env_value(caller_env, "LMOD_CMD"), *slash = cmd ? strrchr(cmd, '/') : NULL;
    char *p = NULL;

    if (slash && slash > cmd) {
        char *dir = ctk_strndup(cmd, (size_t)(slash - cmd), err);

        if (!dir)
            return NULL;
        p = script_in(dir, err);
        free(dir);
    }
    for (size_t i = 0; !p && !ctk_error_is_set(err) && lmod_dirs[i]; i++)
        p = script_in(lmod_dirs[i], err);
    return p;
}

/* "8.6.19" from Version.lua beside the script (`M.tag() return "X"`). */
static char *read_version(const char *script, ctk_error_t *err)
{
    const char *slash = strrchr(script, '/');
    char *path = ctk_printf(err, "%.*s/Version.lua", (int)(slash - script), script), *text, *tag, *q;
    size_t len;

    if (!path)
        return NULL;
    text = ctk_file_read(path, 64u << 10, &len, NULL);
    free(path);
    tag = text ? strstr(text, "tag()") : NULL;
    tag = tag ? strchr(tag, '"') : NULL;
    q = tag ? strchr(tag + 1, '"') : NULL;
    path = q && q - tag < 64 ? ctk_strndup(tag + 1, (size_t)(q - tag - 1), err) : ctk_strdup("?", err);
    free(text);
    return path;
}

/* false, with *why_not a copy of why. */
static bool refuse(char **why_not, bool *untrusted, bool trust, const char *why, ctk_error_t *err)
{
    if (untrusted)
        *untrusted = trust;
    *why_not = ctk_strdup(why, err);
    return false;
}

bool ctk_tcl2lua_find(const char *const *caller_env, ctk_tcl2lua_t *out, char **why_not, bool *untrusted,
                      ctk_error_t *err)
{
    const char *path = env_value(caller_env, "PATH");
    char why[1024];

    memset(out, 0, sizeof *out);
    *why_not = NULL;
    if (untrusted)
        *untrusted = false;
    if (!(out->script = find_script(caller_env, err))) {
        if (ctk_error_is_set(err))
            return false;
        return refuse(why_not, untrusted, false,
                      "no Lmod tcl2lua.tcl (looked beside $LMOD_CMD and in /usr/share/lmod/lmod/libexec, "
                      "/opt/apps/lmod/lmod/libexec, /usr/local/lmod/lmod/libexec)", err);
    }
    if (!(out->tclsh = ctk_env_path_search(path ? path : "/usr/bin:/bin", "tclsh", NULL, NULL, err))) {
        ctk_tcl2lua_fini(out);
        return !ctk_error_is_set(err) &&
               refuse(why_not, untrusted, false, "Lmod's tcl2lua.tcl found, but no tclsh on PATH", err);
    }
    if (!ctk_trust_exec(out->tclsh, why, sizeof why) || !ctk_trust_exec(out->script, why, sizeof why)) {
        char *text = ctk_printf(err, "Lmod's tcl2lua not run: %s", why);

        ctk_tcl2lua_fini(out);
        if (text)
            refuse(why_not, untrusted, true, text, err);
        free(text);
        return false;
    }
    if (!(out->version = read_version(out->script, err))) {
        ctk_tcl2lua_fini(out);
        return false;
    }
    return true;
}

char *ctk_tcl2lua_describe(const ctk_tcl2lua_t *t, ctk_error_t *err)
{
    return ctk_printf(err, "Lmod %s's tcl2lua (%s)", t->version, t->script);
}

/* The first lines of tcl2lua's complaint, for a finding. */
static void first_lines(const char *text, char *buf, size_t n)
{
    size_t len = 0;

    for (int lines = 0; text && text[len] && lines < 2; len++)
        if (text[len] == '\n' && ++lines == 2)
            break;
    if (len >= n)
        len = n - 1;
    memcpy(buf, text ? text : "", len);
    buf[len] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
}

/* The run proper: the environment, then the child, then its outcome. */
static bool run_in(const ctk_tcl2lua_t *t, const char *file, const char *full_name, const ctk_env_t *start,
                   double timeout_s, const ctk_sandbox_t *sb, const char *cwd, ctk_proc_result_t *r, ctk_error_t *err)
{
    const char *argv[] = {t->tclsh, t->script, "-l", "", "-f", full_name, "-m", "load", "-u", full_name,
                          "-s", "sh", file, NULL};
    ctk_proc_spec_t spec;
    ctk_env_t env;
    bool ok = false;

    ctk_env_init(&env);
    memset(&spec, 0, sizeof spec);
    if (!ctk_env_copy(&env, start, err) || !ctk_env_set(&env, "LMOD_VERSION", t->version, err) ||
        !(spec.envp = ctk_env_envp(&env, err)))
        goto out;
    spec.argv = argv;
    spec.timeout_s = timeout_s;
    spec.max_output = MAX_OUTPUT;
    spec.cwd = cwd;
    if (sb && sb->drop) {
        spec.run_as = true;
        spec.run_as_uid = sb->uid;
        spec.run_as_gid = sb->gid;
    }
    ok = ctk_proc_run(&spec, r, err);
out:
    ctk_env_fini(&env);
    return ok;
}

bool ctk_tcl2lua_run(const ctk_tcl2lua_t *t, const char *file, const char *full_name, const ctk_env_t *base,
                     double timeout_s, const ctk_sandbox_t *sb, char **lua, size_t *len, ctk_error_t *err)
{
    ctk_sandbox_run_t run;
    ctk_env_t run_base;
    ctk_proc_result_t r;
    const ctk_env_t *start = base;
    char desc[256], text[1024];
    bool ok = false, drop = sb && sb->drop;

    *lua = NULL;
    *len = 0;
    memset(&run, 0, sizeof run);
    ctk_env_init(&run_base);
    ctk_proc_result_init(&r);
    if (!full_name[0] || full_name[0] == '-') {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "bad module name '%s'", full_name);
        goto out;
    }
    /* a HOME and TMPDIR of this run's own, the user's, empty */
    if (drop && (!ctk_sandbox_run_new(sb, &run, err) || !ctk_sandbox_run_env(&run, base, &run_base, err)))
        goto out;
    if (drop)
        start = &run_base;
    if (!run_in(t, file, full_name, start, timeout_s, sb, drop ? run.home : NULL, &r, err))
        goto out;
    if (r.spawn_errno || r.timed_out || r.term_signal || r.truncated) {
        ctk_error_set(err, CTK_E_ENV, t->script, 0, 0, "tcl2lua on %s: %s", full_name,
                      r.truncated ? "more output than 4 MiB" : ctk_proc_describe(&r, timeout_s, desc, sizeof desc));
        goto out;
    }
    if (!ctk_proc_ok(&r)) {
        first_lines(r.err && r.err[0] ? r.err : r.out, text, sizeof text);
        ctk_error_set(err, CTK_E_TEMPLATE, file, 0, 0, "Lmod's tcl2lua could not read it (%s): %s",
                      ctk_proc_describe(&r, timeout_s, desc, sizeof desc), text);
        goto out;
    }
    *lua = r.out;
    *len = r.out_len;
    r.out = NULL;
    ok = true;
out:
    ctk_proc_result_fini(&r);
    ctk_env_fini(&run_base);
    if (drop)
        ctk_sandbox_run_remove(&run);
    return ok;
}

char *ctk_tcl2lua_dep(const ctk_tcl2lua_t *t, const ctk_sandbox_t *sb, const ctk_env_t *base, double timeout_s,
                      const char *file, const char *full_name, size_t *len, ctk_error_t *err)
{
    const ctk_sandbox_t *who;
    char *as = NULL, *why = NULL, *lua = NULL, *dir;
    size_t n = strlen(file), k = strlen(full_name);

    /* file is DIR/full_name (a Tcl file has no extension): what it loads from */
    dir = n > k + 1 && strcmp(file + n - k, full_name) == 0 ? ctk_strndup(file, n - k - 1, err)
                                                           : ctk_strdup(".", err);
    if (!dir)
        return NULL;
    who = ctk_sandbox_pick(sb, dir, file, &as, &why, err);
    if (who)
        ctk_tcl2lua_run(t, file, full_name, base, timeout_s, who, &lua, len, err);
    else if (why)
        ctk_error_set(err, CTK_E_ENV, file, 0, 0, "%s", why);
    free(dir);
    free(as);
    free(why);
    return lua;
}
