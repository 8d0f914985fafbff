/* lint.c - audit modulefiles and .pc files against the toolkit they point at.
 * SPDX-License-Identifier: MIT
 *
 * Per file: evaluate it with its client (modeval sandbox, Environment
 * Modules, libpkgconf), work out the toolkit from what it sets, load that
 * toolkit's record (sdk.c), and run the shared checks (checks.c) plus the
 * ones only lint needs.  Everything a file sees comes from a small clean
 * base environment (PATH=/usr/bin:/bin, HOME and TMPDIR in a private temp
 * dir, LC_ALL=C); ctkgen's own environment never leaks into an evaluation.
 */
#include <ctkconf.h>

#include "checks.h"
#include "config.h"
#include "env.h"
#include "lint.h"
#include "lintfix.h"
#include "lintsuggest.h"
#include "tcl2lua.h"
#include "modenv.h"
#include "modeval.h"
#include "pc.h"
#include "proc.h"
#include "sandbox.h"
#include "sdk.h"
#include "trust.h"
#include "util.h"
#include "write.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define FILE_MAX_BYTES (4u << 20)
#define DEFAULT_TIMEOUT_S 30.0
#define MAX_UNUSED 64
#define MAX_DEPTH 64

const char *ctk_lint_kind_name(ctk_lint_kind_t k)
{
    switch (k) {
    case CTK_LINT_LUA: return "lua";
    case CTK_LINT_TCL: return "tcl";
    case CTK_LINT_PC: return "pc";
    case CTK_LINT_OTHER: break;
    }
    return "other";
}

/* ---- report -------------------------------------------------------------- */

void ctk_lint_report_init(ctk_lint_report_t *r)
{
    memset(r, 0, sizeof *r);
}

static void file_fini(ctk_lint_file_t *f)
{
    free(f->file);
    free(f->name);
    free(f->root);
    free(f->version);
    free(f->found_by);
    free(f->suggestion);
    ctk_strlist_fini(&f->suggestion_notes);
    free(f->evaluated_as);
    ctk_findings_fini(&f->findings);
    ctk_strlist_fini(&f->unchecked);
}

void ctk_lint_report_fini(ctk_lint_report_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_files; i++)
        file_fini(&r->files[i]);
    free(r->files);
    for (size_t i = 0; i < r->n_skipped; i++) {
        free(r->skipped[i].file);
        free(r->skipped[i].why);
    }
    free(r->skipped);
    free(r->tcl_modsys);
    free(r->tcl_skip);
    free(r->tcl_user);
    memset(r, 0, sizeof *r);
}

static bool add_skip(ctk_lint_report_t *r, const char *file, const char *why, ctk_error_t *err)
{
    ctk_lint_skip_t *p = realloc(r->skipped, (r->n_skipped + 1) * sizeof *p);

    if (!p) {
        ctk_error_nomem(err);
        return false;
    }
    r->skipped = p;
    p = &r->skipped[r->n_skipped];
    p->file = ctk_strdup(file, err);
    p->why = ctk_strdup(why, err);
    if (!p->file || !p->why) {
        free(p->file);
        free(p->why);
        return false;
    }
    r->n_skipped++;
    return true;
}

/* ---- classification and names ---------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

ctk_lint_kind_t ctk_lint_classify(const char *path, const char *text)
{
    const char *b = base_name(path);

    if (strcmp(b, ".modulerc.lua") == 0 || strcmp(b, ".modulerc") == 0 || strcmp(b, ".version") == 0)
        return CTK_LINT_OTHER;
    if (has_suffix(b, ".lua"))
        return CTK_LINT_LUA;
    if (has_suffix(b, ".pc"))
        return CTK_LINT_PC;
    if (text && strncmp(text, "#%Module", 8) == 0)
        return CTK_LINT_TCL;
    return CTK_LINT_OTHER;
}

char *ctk_lint_module_name(const char *path, ctk_error_t *err)
{
    char *copy = ctk_strdup(path, err), *ver, *slash, *name, *out;
    size_t n;

    if (!copy)
        return NULL;
    n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    if (has_suffix(copy, ".lua"))
        copy[n - 4] = '\0';
    slash = strrchr(copy, '/');
    ver = slash ? slash + 1 : copy;
    if (!slash) {
        out = ctk_strdup(ver, err);
        free(copy);
        return out;
    }
    *slash = '\0';
    name = (char *)base_name(copy);
    out = name[0] ? ctk_printf(err, "%s/%s", name, ver) : ctk_strdup(ver, err);
    free(copy);
    return out;
}

/* ---- Lua: what the sandbox refuses ---------------------------------------------- */

/* Globals the sandbox does not have because they run commands, touch
 * files or load code; and fields of os/string that it leaves out. */
static const char *const forbidden_globals[] = {
    "io", "require", "dofile", "loadfile", "loadstring", "package", "debug", "collectgarbage",
    "setfenv", "getfenv", "module", NULL};
/* os.execute is not here: the sandbox records it as a call not run (CTK-MOD-007) */
static const char *const forbidden_os[] = {
    "remove", "rename", "exit", "tmpname", "setlocale", "popen", NULL};

static bool in_list(const char *const *list, const char *s, size_t n)
{
    for (size_t i = 0; list[i]; i++)
        if (strlen(list[i]) == n && strncmp(list[i], s, n) == 0)
            return true;
    return false;
}

/* Length of a long bracket opener "[==[" at p (0 if none); *level = the '='s. */
static size_t long_open(const char *p, const char *end, int *level)
{
    const char *q = p + 1;

    if (p >= end || *p != '[')
        return 0;
    while (q < end && *q == '=')
        q++;
    if (q < end && *q == '[') {
        *level = (int)(q - p - 1);
        return (size_t)(q - p + 1);
    }
    return 0;
}

/* Skip to after the matching "]==]"; counts newlines into *line. */
static const char *long_close(const char *p, const char *end, int level, int *line)
{
    for (; p < end; p++) {
        if (*p == '\n')
            (*line)++;
        else if (*p == ']') {
            const char *q = p + 1;
            int n = 0;

            while (q < end && *q == '=') {
                q++;
                n++;
            }
            if (n == level && q < end && *q == ']')
                return q + 1;
        }
    }
    return end;
}

/* After "load": a call whose first argument is a string holding Lua code
 * rather than a module name (Lmod's load() takes module names, which never
 * hold parentheses, '=' or ';'). */
static bool load_of_code(const char *p, const char *end)
{
    char q;

    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p >= end || *p != '(')
        return false;
    p++;
    while (p < end && isspace((unsigned char)*p))
        p++;
    if (p >= end || (*p != '"' && *p != '\'' && *p != '['))
        return false;
    q = *p == '[' ? ']' : *p;
    for (p++; p < end && *p != q && *p != '\n'; p++)
        if (*p == '(' || *p == '=' || *p == ';')
            return true;
    return false;
}

/* Past a short string that starts at p (its quote), counting the
 * newlines it escapes into *line. */
static const char *skip_short_string(const char *p, const char *end, int *line)
{
    char q = *p++;

    while (p < end && *p != q && *p != '\n') {
        if (*p == '\\' && p + 1 < end) {
            if (p[1] == '\n')
                (*line)++;
            p++;
        }
        p++;
    }
    return p < end && *p == q ? p + 1 : p;
}

/* After os or string (id, idn long) at p: a member the sandbox forbids
 * (os.execute ..., string.dump), spelt into found. */
static bool forbidden_member(const char *id, size_t idn, const char *p, const char *end, char *found, size_t size)
{
    const char *f;
    size_t fn;

    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || (*p != '.' && *p != ':'))
        return false;
    for (p++; p < end && (*p == ' ' || *p == '\t'); p++)
        ;
    for (f = p; p < end && (isalnum((unsigned char)*p) || *p == '_'); p++)
        ;
    fn = (size_t)(p - f);
    if ((idn == 2 && in_list(forbidden_os, f, fn)) || (idn == 6 && fn == 4 && strncmp(f, "dump", 4) == 0)) {
        snprintf(found, size, "%.*s.%.*s", (int)idn, id, (int)fn, f);
        return true;
    }
    return false;
}

/* The identifier id (idn long, p just past it), not a field: a global the
 * sandbox forbids, a load of Lua code, or a forbidden os or string member,
 * spelt into found. */
static bool forbidden_ident(const char *id, size_t idn, const char *p, const char *end, char *found, size_t size)
{
    if (in_list(forbidden_globals, id, idn)) {
        snprintf(found, size, "%.*s", (int)idn, id);
        return true;
    }
    if (idn == 4 && strncmp(id, "load", 4) == 0 && load_of_code(p, end)) {
        snprintf(found, size, "load (of Lua code)");
        return true;
    }
    return ((idn == 2 && strncmp(id, "os", 2) == 0) || (idn == 6 && strncmp(id, "string", 6) == 0)) &&
           forbidden_member(id, idn, p, end, found, size);
}

bool ctk_lint_lua_forbidden(const char *src, size_t len, const char **name, int *line_out)
{
    static char found[64];
    const char *p = src, *end = src + len;
    int line = 1, level;
    char prev = 0; /* the last significant character before an identifier */

    while (p < end) {
        size_t n;

        if (*p == '\n') {
            line++;
            p++;
        } else if (isspace((unsigned char)*p)) {
            p++;
        } else if (p + 1 < end && p[0] == '-' && p[1] == '-') {
            p += 2;
            if ((n = long_open(p, end, &level)) > 0)
                p = long_close(p + n, end, level, &line);
            else
                while (p < end && *p != '\n')
                    p++;
        } else if ((n = long_open(p, end, &level)) > 0) {
            p = long_close(p + n, end, level, &line);
            prev = 's';
        } else if (*p == '"' || *p == '\'') {
            p = skip_short_string(p, end, &line);
            prev = 's';
        } else if (isalpha((unsigned char)*p) || *p == '_') {
            const char *id = p;

            while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
                p++;
            if (prev != '.' && prev != ':' && forbidden_ident(id, (size_t)(p - id), p, end, found, sizeof found)) {
                if (name)
                    *name = found;
                if (line_out)
                    *line_out = line;
                return true;
            }
            prev = 'a';
        } else {
            prev = *p++;
        }
    }
    return false;
}

/* Does an evaluation error name something the sandbox forbids? */
static bool error_is_forbidden(const char *text)
{
    char pat[64];

    for (size_t i = 0; forbidden_globals[i]; i++) {
        snprintf(pat, sizeof pat, "global '%s'", forbidden_globals[i]);
        if (strstr(text, pat))
            return true;
    }
    for (size_t i = 0; forbidden_os[i]; i++) {
        snprintf(pat, sizeof pat, "field '%s'", forbidden_os[i]);
        if (strstr(text, pat))
            return true;
    }
    return strstr(text, "field 'dump'") != NULL;
}

/* ---- .pc text ------------------------------------------------------------------------ */

typedef struct {
    char *name;
    char *value;   /* raw, unexpanded */
    char *expanded; /* pc_expand()'s answer for a variable, once asked */
    bool busy;     /* being expanded: a reference back to it is empty */
    int line;
    bool is_var;   /* name=value; else a field (Name: value) */
} pcline_t;

typedef struct {
    pcline_t *items;
    size_t len;
} pcfile_t;

static void pcfile_fini(pcfile_t *p)
{
    for (size_t i = 0; i < p->len; i++) {
        free(p->items[i].name);
        free(p->items[i].value);
        free(p->items[i].expanded);
    }
    free(p->items);
    memset(p, 0, sizeof *p);
}

/* Variables (name=value) and fields (Key: value), as pkgconf splits them:
 * the first of '=' and ':' after the name decides.  Comments dropped. */
static bool pcfile_parse(const char *text, pcfile_t *out, ctk_error_t *err)
{
    const char *p = text;
    int line = 0;

    memset(out, 0, sizeof *out);
    while (p && *p) {
        const char *eol = strchr(p, '\n'), *e = eol ? eol : p + strlen(p), *q = p, *name;
        size_t nn;
        pcline_t *items;
        char *v, *hash;

        line++;
        while (q < e && isspace((unsigned char)*q))
            q++;
        name = q;
        while (q < e && (isalnum((unsigned char)*q) || *q == '_' || *q == '.' || *q == '-'))
            q++;
        nn = (size_t)(q - name);
        while (q < e && (*q == ' ' || *q == '\t'))
            q++;
        if (nn > 0 && q < e && (*q == '=' || *q == ':') && *name != '#') {
            bool is_var = *q == '=';

            q++;
            while (q < e && (*q == ' ' || *q == '\t'))
                q++;
            if (!(items = realloc(out->items, (out->len + 1) * sizeof *items))) {
                ctk_error_nomem(err);
                return false;
            }
            out->items = items;
            if (!(v = ctk_strndup(q, (size_t)(e - q), err)))
                return false;
            if ((hash = strchr(v, '#')))
                *hash = '\0';
            items[out->len].value = v;
            items[out->len].expanded = NULL;
            items[out->len].busy = false;
            items[out->len].line = line;
            items[out->len].is_var = is_var;
            if (!(items[out->len].name = ctk_strndup(name, nn, err))) {
                free(v);
                return false;
            }
            out->len++;
        }
        p = eol ? eol + 1 : NULL;
    }
    return true;
}

/* Mark used every variable named name (all its definitions) not marked
 * yet, and queue it. */
static void mark_used(const pcfile_t *pc, const size_t *by_name, size_t n_vars, const char *name, size_t n,
                      bool *used, size_t *queue, size_t *q_len)
{
    size_t lo = 0, hi = n_vars;

    /* by_name: the variables' indices sorted by name; find the first of name */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *m = pc->items[by_name[mid]].name;
        int c = strncmp(m, name, n);

        if (c < 0 || (c == 0 && strlen(m) < n))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n_vars; lo++) {
        size_t v = by_name[lo];

        if (strlen(pc->items[v].name) != n || strncmp(pc->items[v].name, name, n) != 0)
            break;
        if (!used[v]) {
            used[v] = true;
            queue[(*q_len)++] = v;
        }
    }
}

/* Every "${name}" in value, marked used. */
static void mark_refs(const pcfile_t *pc, const size_t *by_name, size_t n_vars, const char *value, bool *used,
                      size_t *queue, size_t *q_len)
{
    for (const char *p = value; (p = strstr(p, "${")); p += 2) {
        const char *close = strchr(p + 2, '}');

        if (!close)
            break;
        mark_used(pc, by_name, n_vars, p + 2, (size_t)(close - p - 2), used, queue, q_len);
    }
}

static const pcfile_t *sort_pc; /* qsort's context: the one file sorted at a time */

static int cmp_var_name(const void *a, const void *b)
{
    return strcmp(sort_pc->items[*(const size_t *)a].name, sort_pc->items[*(const size_t *)b].name);
}

/* Variables a .pc defines for `pkg-config --variable=NAME` rather than for
 * its fields: pkg-config's own, and those ctkgen writes for a build with
 * the .pc alone (pc.lua; docs/variables.md): the toolkit's root (nvcc
 * under it), the host compiler, what the module tells CMake and the
 * loader. */
static bool for_variable(const char *nm)
{
    static const char *const names[] = { "prefix", "exec_prefix", "pcfiledir", "cudaroot", "ccbin",
                                          "cmake_library_path", "cmake_include_path",
                                          "cmake_build_rpath", "ld_library_path", NULL };

    for (size_t i = 0; names[i]; i++)
        if (strcmp(nm, names[i]) == 0)
            return true;
    return false;
}

/* Used: referenced by a field, a variable read by name, or a used variable.  Each value's
 * references are read once and followed from the fields (a worklist), so
 * the cost is the file's size, whatever the order of its variables. */
bool ctk_lint_pc_unused(const char *text, ctk_strlist_t *names, int *lines, ctk_error_t *err)
{
    pcfile_t pc;
    bool *used = NULL, ok = false;
    size_t *by_name = NULL, *queue = NULL, n_vars = 0, q_len = 0, i, n_out = 0;

    if (!pcfile_parse(text, &pc, err))
        goto out;
    if (pc.len && (!(used = calloc(pc.len, sizeof *used)) || !(by_name = calloc(pc.len, sizeof *by_name)) ||
                   !(queue = calloc(pc.len, sizeof *queue)))) {
        ctk_error_nomem(err);
        goto out;
    }
    for (i = 0; i < pc.len; i++)
        if (pc.items[i].is_var)
            by_name[n_vars++] = i;
    sort_pc = &pc;
    if (n_vars > 1)
        qsort(by_name, n_vars, sizeof *by_name, cmp_var_name);
    sort_pc = NULL;
    /* the fields, and the variables read by name, use what they name */
    for (i = 0; i < pc.len; i++)
        if (!pc.items[i].is_var || for_variable(pc.items[i].name))
            mark_refs(&pc, by_name, n_vars, pc.items[i].value, used, queue, &q_len);
    for (i = 0; i < q_len; i++)
        mark_refs(&pc, by_name, n_vars, pc.items[queue[i]].value, used, queue, &q_len);
    for (i = 0; i < pc.len; i++) {
        const char *nm = pc.items[i].name;

        if (!pc.items[i].is_var || used[i] || for_variable(nm) || n_out >= MAX_UNUSED ||
            ctk_strlist_contains(names, nm))
            continue;
        if (!ctk_strlist_push(names, nm, err))
            goto out;
        lines[n_out++] = pc.items[i].line;
    }
    ok = true;
out:
    free(queue);
    free(by_name);
    free(used);
    pcfile_fini(&pc);
    return ok;
}

/* value with its ${var} expanded against the file's variables (and
 * pcfiledir, as given); caller frees.
 * Each variable is expanded once and its answer kept: a file of
 * variables that each name the next a thousand times would otherwise
 * cost a thousand to the power of their nesting.  A reference back to a
 * variable being expanded, or nested more than PC_EXPAND_DEPTH deep, is
 * empty; an answer stops at PC_EXPAND_MAX bytes, as libpkgconf's
 * (PKGCONF_BUFSIZE). */
#define PC_EXPAND_DEPTH 64
#define PC_EXPAND_MAX 65535

static char *pc_expand(pcfile_t *pc, const char *value, const char *pcfiledir, int depth, ctk_error_t *err)
{
    ctk_buf_t b;
    const char *p = value;

    ctk_buf_init(&b);
    while (*p && b.len < PC_EXPAND_MAX) {
        const char *close;

        if (p[0] == '$' && p[1] == '{' && (close = strchr(p + 2, '}'))) {
            size_t n = (size_t)(close - p - 2);
            const char *v = NULL;
            pcline_t *var = NULL;

            if (n == 9 && strncmp(p + 2, "pcfiledir", 9) == 0)
                v = pcfiledir;
            for (size_t i = 0; !v && !var && i < pc->len; i++)
                if (pc->items[i].is_var && strlen(pc->items[i].name) == n && strncmp(pc->items[i].name, p + 2, n) == 0)
                    var = &pc->items[i];
            if (var && !var->expanded && !var->busy && depth < PC_EXPAND_DEPTH) {
                var->busy = true;
                var->expanded = pc_expand(pc, var->value, pcfiledir, depth + 1, err);
                var->busy = false;
                if (!var->expanded) {
                    ctk_buf_fini(&b);
                    return NULL;
                }
            }
            if (var)
                v = var->expanded;
            if (v)
                ctk_buf_append(&b, v, strnlen(v, PC_EXPAND_MAX - b.len));
            p = close + 1;
            continue;
        }
        ctk_buf_append(&b, p, 1);
        p++;
    }
    if (b.failed) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    if (!b.data)
        return ctk_strdup("", err);
    return ctk_buf_take(&b, NULL);
}

/* ---- nvcc and Libs -------------------------------------------------------------------- */

bool ctk_lint_nvcc_libs_static(const ctk_strlist_t *libs, const char **bad)
{
    for (size_t i = 0; i < libs->len; i++) {
        const char *w = libs->items[i];

        if (w[0] != '-' || strncmp(w, "-L", 2) == 0 || strncmp(w, "-l", 2) == 0 ||
            strncmp(w, "-Xlinker=", 9) == 0 || strcmp(w, "-shared") == 0)
            continue;
        if (strcmp(w, "-Xlinker") == 0 && i + 1 < libs->len) {
            i++;
            continue;
        }
        if (bad)
            *bad = w;
        return false;
    }
    return true;
}

/* ---- versions in names ---------------------------------------------------------------- */

int ctk_lint_name_version_agrees(const char *full_name, int major, int minor)
{
    const char *slash = strrchr(full_name, '/'), *p;
    char lower[256];
    size_t i;
    bool any = false;

    if (!slash)
        return -1;
    for (i = 0; i < sizeof lower - 1 && full_name + i < slash; i++)
        lower[i] = (char)tolower((unsigned char)full_name[i]);
    lower[i] = '\0';
    if (!strstr(lower, "cuda"))
        return -1;
    for (p = slash + 1; *p;) {
        if (isdigit((unsigned char)*p) && (p == slash + 1 || !isdigit((unsigned char)p[-1])) && p[-1] != '.') {
            char *end;
            long ma = strtol(p, &end, 10), mi;

            if (*end == '.' && isdigit((unsigned char)end[1])) {
                mi = strtol(end + 1, &end, 10);
                any = true;
                if (ma == major && mi == minor)
                    return 1;
            }
            p = end;
            continue;
        }
        p++;
    }
    return any ? 0 : -1;
}

/* ---- the lint context ----------------------------------------------------------------- */

typedef struct {
    const ctk_lint_opts_t *o;
    ctk_lint_report_t *rep;
    double timeout;
    char *tmproot;
    ctk_env_t base;
    bool have_tcl;
    bool tcl_untrusted;   /* Environment Modules found, but not run: rep->tcl_skip says why */
    ctk_modsys_info_t tcl;
    ctk_sandbox_t sb;     /* who evaluates Tcl when ctkgen is root */
    bool have_t2l;        /* no Environment Modules: Tcl through Lmod's tcl2lua */
    ctk_tcl2lua_t t2l;
    ctk_strlist_t seen;   /* real paths linted */
    const char *top;      /* the directory being walked, for the policy's relative paths; NULL: a file */
    ctk_error_t *err;
} lctx_t;

/* What a file sets that may lead to a toolkit. */
typedef struct {
    ctk_strlist_t roots, labels;   /* candidate roots in order, and how each was found */
    ctk_strlist_t incdirs, libdirs;
    bool cuda_like;
} hints_t;

static void hints_init(hints_t *h)
{
    ctk_strlist_init(&h->roots);
    ctk_strlist_init(&h->labels);
    ctk_strlist_init(&h->incdirs);
    ctk_strlist_init(&h->libdirs);
    h->cuda_like = false;
}

static void hints_fini(hints_t *h)
{
    ctk_strlist_fini(&h->roots);
    ctk_strlist_fini(&h->labels);
    ctk_strlist_fini(&h->incdirs);
    ctk_strlist_fini(&h->libdirs);
}

static bool add_root(hints_t *h, const char *root, const char *label, ctk_error_t *err)
{
    if (!root || !root[0] || ctk_strlist_contains(&h->roots, root))
        return true;
    return ctk_strlist_push(&h->roots, root, err) && ctk_strlist_push(&h->labels, label, err);
}

static bool dir_has_file(const char *dir, const char *name)
{
    char *p = ctk_path_join(dir, name, NULL);
    bool yes = p && ctk_is_file(p);

    free(p);
    return yes;
}

/* A file "lib<stem>.so*" in dir. */
static bool dir_has_lib(const char *dir, const char *stem)
{
    char want[128];
    size_t n;
    DIR *d = opendir(dir);
    struct dirent *e;
    bool yes = false;

    if (!d)
        return false;
    snprintf(want, sizeof want, "lib%s.so", stem);
    n = strlen(want);
    while (!yes && (e = readdir(d)))
        yes = strncmp(e->d_name, want, n) == 0 && (e->d_name[n] == '\0' || e->d_name[n] == '.');
    closedir(d);
    return yes;
}

/* dir minus a trailing "/<tail>" or "/targets/<arch>/<tail>"; caller frees;
 * NULL when dir ends in neither. */
static char *strip_tail(const char *dir, const char *const *tails, ctk_error_t *err)
{
    char *d = ctk_strdup(dir, err), *slash;
    size_t n;

    if (!d)
        return NULL;
    n = strlen(d);
    while (n > 1 && d[n - 1] == '/')
        d[--n] = '\0';
    for (size_t i = 0; tails[i]; i++) {
        size_t m = strlen(tails[i]);

        if (n > m + 1 && d[n - m - 1] == '/' && strcmp(d + n - m, tails[i]) == 0) {
            d[n - m - 1] = '\0';
            /* targets/<arch>/ */
            if ((slash = strrchr(d, '/')) && slash > d) {
                char *arch = slash;

                *slash = '\0';
                if ((slash = strrchr(d, '/')) && strcmp(slash + 1, "targets") == 0 && strstr(arch + 1, "-linux"))
                    *slash = '\0';
                else
                    *arch = '/';
            }
            return d;
        }
    }
    free(d);
    return NULL;
}

static const char *const inc_tails[] = {"include", NULL};
static const char *const lib_tails[] = {"lib64", "lib", NULL};
static const char *const bin_tails[] = {"bin", NULL};

static bool contains_ci(const char *s, const char *needle)
{
    size_t n = strlen(needle);

    for (; s && *s; s++)
        if (strncasecmp(s, needle, n) == 0)
            return true;
    return false;
}

static bool looks_cuda(const char *s)
{
    return contains_ci(s, "cuda") || contains_ci(s, "nvhpc") || contains_ci(s, "hpc_sdk");
}

/* Split a ':'-list into dirs, pushing the ones not in `except` (the base
 * environment's value of the same variable). */
static bool push_list(ctk_strlist_t *to, const char *list, const char *except, hints_t *h, ctk_error_t *err)
{
    ctk_strlist_t dirs;
    bool ok;

    ctk_strlist_init(&dirs);
    ok = ctk_strlist_split(&dirs, list, ":", err);
    for (size_t i = 0; ok && i < dirs.len; i++) {
        const char *dir = dirs.items[i];

        if (except && ctk_check_list_find_dir(except, dir) >= 0)
            continue;
        if (looks_cuda(dir))
            h->cuda_like = true;
        if (!ctk_strlist_contains(to, dir))
            ok = ctk_strlist_push(to, dir, err);
    }
    ctk_strlist_fini(&dirs);
    return ok;
}

/* -I / -L words of a flags string ("-I/a -I/b -L/c"). */
static bool push_flag_dirs(hints_t *h, const char *flags, ctk_error_t *err)
{
    ctk_strlist_t words;
    bool ok;

    ctk_strlist_init(&words);
    ok = ctk_strlist_split(&words, flags, " \t", err);
    for (size_t i = 0; ok && i < words.len; i++) {
        const char *w = words.items[i];

        if (looks_cuda(w))
            h->cuda_like = true;
        if (strncmp(w, "-I", 2) == 0 && w[2] && !ctk_strlist_contains(&h->incdirs, w + 2))
            ok = ctk_strlist_push(&h->incdirs, w + 2, err);
        else if (strncmp(w, "-L", 2) == 0 && w[2] && !ctk_strlist_contains(&h->libdirs, w + 2))
            ok = ctk_strlist_push(&h->libdirs, w + 2, err);
    }
    ctk_strlist_fini(&words);
    return ok;
}

/* Roots from dirs holding nvcc, libcudart, cuda_runtime.h (in that order). */
static bool roots_from_dirs(hints_t *h, const ctk_strlist_t *bindirs, ctk_error_t *err)
{
    size_t i;
    char *r;

    for (i = 0; bindirs && i < bindirs->len; i++)
        if (dir_has_file(bindirs->items[i], "nvcc") && (r = strip_tail(bindirs->items[i], bin_tails, NULL))) {
            bool ok = add_root(h, r, "PATH (bin/nvcc)", err);

            free(r);
            if (!ok)
                return false;
        }
    for (i = 0; i < h->libdirs.len; i++)
        if (dir_has_lib(h->libdirs.items[i], "cudart") && (r = strip_tail(h->libdirs.items[i], lib_tails, NULL))) {
            bool ok = add_root(h, r, "a lib dir holding libcudart", err);

            free(r);
            if (!ok)
                return false;
        }
    for (i = 0; i < h->incdirs.len; i++)
        if (dir_has_file(h->incdirs.items[i], "cuda_runtime.h") &&
            (r = strip_tail(h->incdirs.items[i], inc_tails, NULL))) {
            bool ok = add_root(h, r, "an include dir holding cuda_runtime.h", err);

            free(r);
            if (!ok)
                return false;
        }
    return true;
}

static const char *const root_vars[] = {
    "CUDA_HOME", "CUDA_PATH", "CUDAToolkit_ROOT", "CUDA_ROOT", "CUDA_DIR", "CUDA_TOOLKIT_ROOT_DIR",
    "NVHPC_CUDA_HOME", "CRAY_CUDATOOLKIT_DIR", "CUDATOOLKIT_HOME", "CUDA_INSTALL_PATH", NULL};

/* Hints from a module: `set` holds what it sets, `base` what it started from. */
static bool hints_from_env(hints_t *h, const ctk_env_t *set, const ctk_env_t *base, ctk_error_t *err)
{
    static const char *const incvars[] = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "INCLUDE", NULL};
    static const char *const libvars[] = {"LD_LIBRARY_PATH", "LIBRARY_PATH", NULL};
    ctk_strlist_t bindirs;
    bool ok = false;
    size_t i;

    ctk_strlist_init(&bindirs);
    for (i = 0; root_vars[i]; i++) {
        const char *v = ctk_env_get(set, root_vars[i]);

        if (v && v[0]) {
            h->cuda_like = true;
            if (!add_root(h, v, root_vars[i], err))
                goto out;
        }
    }
    for (i = 0; incvars[i]; i++)
        if (!push_list(&h->incdirs, ctk_env_get(set, incvars[i]), ctk_env_get(base, incvars[i]), h, err))
            goto out;
    for (i = 0; libvars[i]; i++)
        if (!push_list(&h->libdirs, ctk_env_get(set, libvars[i]), ctk_env_get(base, libvars[i]), h, err))
            goto out;
    if (!push_list(&bindirs, ctk_env_get(set, "PATH"), ctk_env_get(base, "PATH"), h, err) ||
        !push_flag_dirs(h, ctk_env_get(set, "CRAY_CUDATOOLKIT_INCLUDE_OPTS"), err) ||
        !push_flag_dirs(h, ctk_env_get(set, "CRAY_CUDATOOLKIT_POST_LINK_OPTS"), err))
        goto out;
    for (i = 0; i < set->kv.len; i++)
        if (strncmp(set->kv.items[i], "CUDA", 4) == 0 || strncmp(set->kv.items[i], "CRAY_CUDATOOLKIT", 16) == 0)
            h->cuda_like = true;
    ok = roots_from_dirs(h, &bindirs, err);
out:
    ctk_strlist_fini(&bindirs);
    return ok;
}

/* Is dir (resolved) inside root (resolved)? */
static bool under(const char *dir, const char *root)
{
    char *rd = ctk_realpath(dir), *rr = ctk_realpath(root);
    bool in = false;

    if (rd && rr) {
        size_t n = strlen(rr);

        in = strncmp(rd, rr, n) == 0 && (rd[n] == '/' || rd[n] == '\0');
    }
    free(rd);
    free(rr);
    return in;
}

/* Companion roots outside base: set *slot from the first dir holding what. */
static bool companion(char **slot, const ctk_strlist_t *dirs, const char *base, bool header, const char *what,
                      const char *const *tails, ctk_error_t *err)
{
    if (*slot)
        return true;
    for (size_t i = 0; i < dirs->len; i++) {
        const char *d = dirs->items[i];

        /* a dir of another toolkit (it has its own runtime) is no companion */
        if (under(d, base) || !(header ? dir_has_file(d, what) : dir_has_lib(d, what)) ||
            (header ? dir_has_file(d, "cuda_runtime.h") : dir_has_lib(d, "cudart")))
            continue;
        *slot = strip_tail(d, tails, err);
        if (!*slot && err && err->code != CTK_E_OK)
            return false;
        if (*slot)
            return true;
    }
    return true;
}

typedef struct {
    ctk_config_t *cfg;
    ctk_sdk_t *sdk;
    char *why_not;   /* when sdk is NULL: why */
    const char *label;
    ctk_sdk_exec_t ex; /* ex.nvcc_refused: `nvcc --version` was needed and not run */
} tk_t;

static void tk_fini(tk_t *t)
{
    ctk_sdk_free(t->sdk);
    ctk_config_free(t->cfg);
    free(t->why_not);
    memset(t, 0, sizeof *t);
}

/* The first candidate root with an executable bin/nvcc (t->label says
 * which hint gave it); NULL with t->why_not saying why there is none, or
 * with err. */
static const char *root_with_nvcc(const hints_t *h, tk_t *t, ctk_error_t *err)
{
    for (size_t i = 0; i < h->roots.len; i++) {
        char *nvcc = ctk_path_join(h->roots.items[i], "bin/nvcc", err);
        bool yes = nvcc && ctk_is_executable(nvcc);

        free(nvcc);
        if (yes) {
            t->label = h->labels.items[i];
            return h->roots.items[i];
        }
    }
    if (h->roots.len)
        t->why_not = ctk_printf(err, "%s=%s%s holds no bin/nvcc", h->labels.items[0], h->roots.items[0],
                                h->roots.len > 1 ? " (and the other candidates)" : "");
    else if (h->cuda_like)
        t->why_not = ctk_strdup("no path it sets holds bin/nvcc, libcudart or cuda_runtime.h", err);
    else
        t->why_not = ctk_strdup("it sets nothing that leads to a CUDA toolkit", err);
    return NULL;
}

/* The companion roots the hints' dirs point at (math_libs, CUPTI, NVVM,
 * NCCL, NVSHMEM of a split tree), into sc. */
static bool companions_of(ctk_sdk_conf_t *sc, const hints_t *h, const char *base, ctk_error_t *err)
{
    return companion(&sc->math_libs, &h->incdirs, base, true, "cublas_v2.h", inc_tails, err) &&
           companion(&sc->math_libs, &h->libdirs, base, false, "cublas", lib_tails, err) &&
           companion(&sc->cupti, &h->incdirs, base, true, "cupti.h", inc_tails, err) &&
           companion(&sc->cupti, &h->libdirs, base, false, "cupti", lib_tails, err) &&
           companion(&sc->nvvm, &h->libdirs, base, false, "nvvm", lib_tails, err) &&
           companion(&sc->nccl, &h->incdirs, base, true, "nccl.h", inc_tails, err) &&
           companion(&sc->nccl, &h->libdirs, base, false, "nccl", lib_tails, err) &&
           companion(&sc->nvshmem, &h->incdirs, base, true, "nvshmem.h", inc_tails, err);
}

/* One try at loading the toolkit at base, with its companions or without:
 * 1 loaded into t, 0 not (t->why_not says why), -1 error.  The root comes
 * from the file: its nvcc runs only if trusted. */
static int load_toolkit(const hints_t *h, const char *base, bool with_companions, tk_t *t, ctk_error_t *err)
{
    ctk_sdk_conf_t *sc;
    ctk_sdk_exec_t ex;
    ctk_error_t e;

    if (!(t->cfg = ctk_config_new("<lint>", err)) || !(sc = ctk_config_add_sdk(t->cfg, "0.0", base, err)))
        return -1;
    free(sc->version);
    sc->version = NULL; /* the toolkit's own word stands */
    if (with_companions && !companions_of(sc, h, base, err))
        return -1;
    ctk_error_init(&e);
    memset(&ex, 0, sizeof ex);
    ex.trusted_only = true;
    t->sdk = ctk_sdk_load_ex(sc, "<lint>", &ex, &e);
    if (ex.nvcc_refused)
        t->ex = ex;
    if (t->sdk)
        return 1;
    if (e.code == CTK_E_NOMEM) {
        ctk_error_nomem(err);
        return -1;
    }
    free(t->why_not);
    if (!(t->why_not = ctk_printf(err, "%s=%s: %s", t->label, base, e.text)))
        return -1;
    ctk_config_free(t->cfg);
    t->cfg = NULL;
    return 0;
}

/* Build and load the toolkit record for the first candidate root with
 * bin/nvcc: with the companions the hints point at, else (they may be
 * someone else's) without.  false only for ctkgen's own failures. */
static bool find_toolkit(const hints_t *h, tk_t *t, ctk_error_t *err)
{
    const char *base;
    int got = 0;

    memset(t, 0, sizeof *t);
    if (!(base = root_with_nvcc(h, t, err)))
        return t->why_not != NULL;
    for (int attempt = 0; attempt < 2 && got == 0; attempt++)
        if ((got = load_toolkit(h, base, attempt == 0, t, err)) < 0)
            return false;
    if (!t->sdk)
        return true;
    free(t->why_not);
    t->why_not = NULL;
    return (t->cfg->sdks[0].version =
                ctk_strdup(t->sdk->version_full ? t->sdk->version_full : t->sdk->version_mm, err)) != NULL;
}

/* ---- per-file bookkeeping --------------------------------------------------------------- */

static bool addf(ctk_lint_file_t *f, const char *code, int line, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static bool addf(ctk_lint_file_t *f, const char *code, int line, ctk_error_t *err, const char *fmt, ...)
{
    char text[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return ctk_findings_add(&f->findings, code, f->file, line, err, "%s", text);
}

bool ctk_lint_mark_unchecked(ctk_lint_file_t *f, ctk_error_t *err, const char *fmt, ...)
{
    char text[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    text[strcspn(text, "\n")] = '\0';
    f->incomplete = true;
    return ctk_strlist_push(&f->unchecked, text, err);
}

/* The first line of a multi-line message (modulecmd and Lua tracebacks). */
static void first_line(const char *text, char *buf, size_t n)
{
    const char *eol = strchr(text, '\n');
    size_t len = eol ? (size_t)(eol - text) : strlen(text);

    if (len >= n)
        len = n - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
}

/* CTK-TRUST-001 when loading the toolkit needed `nvcc --version` and
 * that nvcc is one another user can change. */
static bool note_refused_nvcc(ctk_lint_file_t *f, const tk_t *t, ctk_error_t *err)
{
    if (!t->ex.nvcc_refused)
        return true;
    return ctk_lint_mark_unchecked(f, err, "the toolkit checks (CTK-TRUST-001: the release is unknown)") &&
           addf(f, "CTK-TRUST-001", 0, err,
                "`%s --version` was not run, so the toolkit's release is unknown (no version.json, "
                "version.txt or CUDART_VERSION says it) and the toolkit checks did not run: %s",
                t->ex.nvcc, t->ex.why);
}

/* --fix-suggest: what a module sets beyond the toolkit (set: its
 * variables; src->ev: a Lua file's evaluation, else src->text is Tcl). */
static bool suggest_keep(lctx_t *c, ctk_lint_file_t *f, tk_t *t, const ctk_env_t *set, const ctk_check_src_t *src)
{
    char *family = NULL;
    bool ok;

    if (!src->ev && src->text && !(family = ctk_lintsuggest_tcl_family(src->text, c->err)) &&
        ctk_error_is_set(c->err))
        return false;
    ok = ctk_lintsuggest_keep(t->cfg, set, src->ev ? src->ev->family : family,
                              src->ev ? &src->ev->properties : NULL, &f->suggestion_notes, c->err);
    free(family);
    return ok;
}

/* Record the toolkit in f and fill the suggestion; a module's set and src
 * (NULL for a .pc) give what it sets beyond the toolkit. */
static bool note_toolkit(lctx_t *c, ctk_lint_file_t *f, tk_t *t, const char *full_name, const ctk_env_t *set,
                         const ctk_check_src_t *src)
{
    const ctk_sdk_t *s = t->sdk;
    ctk_sdk_conf_t *sc = &t->cfg->sdks[0];

    if (!(f->root = ctk_strdup(s->root, c->err)) ||
        !(f->version = ctk_strdup(s->version_full ? s->version_full : s->version_mm, c->err)) ||
        !(f->found_by = ctk_strdup(t->label, c->err)))
        return false;
    if (!c->o->fix_suggest)
        return true;
    if (full_name && f->kind != CTK_LINT_PC) {
        const char *slash = strrchr(full_name, '/');

        if (slash && slash > full_name) {
            free(t->cfg->module_name);
            if (!(t->cfg->module_name = ctk_strndup(full_name, (size_t)(slash - full_name), c->err)))
                return false;
        }
        if (ctk_lint_name_version_agrees(full_name, s->version.major, s->version.minor) != 0 && slash &&
            strcmp(slash + 1, sc->version) != 0 && !(sc->module_version = ctk_strdup(slash + 1, c->err)))
            return false;
    } else if (full_name) {
        /* ctk-13.0 -> pc_prefix "ctk", name "13.0" */
        const char *dash = strrchr(full_name, '-');

        if (dash && dash > full_name && isdigit((unsigned char)dash[1])) {
            char *mod;

            free(t->cfg->pc_prefix);
            if (!(t->cfg->pc_prefix = ctk_strndup(full_name, (size_t)(dash - full_name), c->err)) ||
                !(mod = ctk_printf(c->err, "cuda/%s", dash + 1)))
                return false;
            if (ctk_lint_name_version_agrees(mod, s->version.major, s->version.minor) != 0 &&
                strcmp(dash + 1, sc->version) != 0 && !(sc->module_version = ctk_strdup(dash + 1, c->err))) {
                free(mod);
                return false;
            }
            free(mod);
        }
    }
    if (set && !suggest_keep(c, f, t, set, src))
        return false;
    return (f->suggestion = ctk_config_dump(t->cfg, c->err)) != NULL;
}

/* The staging workflow: generate writes OUT/pkgconfig while the modules
 * name pkgconfig_dir, where the .pc files go when the tree is deployed
 * (and which may not exist before).  So ctkgen's own module at
 * OUT/{lmod,tcl}/<name>/<version>[.lua] finds pcname in OUT/pkgconfig when
 * OUT's manifest says ctkgen wrote it there, as validate reads it: 1 it
 * does, 0 not, -1 err set. */
static int staged_pc(lctx_t *c, const ctk_lint_file_t *f, const char *text, const char *pcname)
{
    char *out, *rel, *cut = NULL;
    int r = 0;

    if (!ctk_lintfix_is_own(text) || !strchr(f->name, '/') || !(out = ctk_realpath(f->file)))
        return 0;
    for (int up = 0; up < 3 && (cut = strrchr(out, '/')) && cut > out; up++)
        *cut = '\0';
    if (cut && cut > out && (strcmp(cut + 1, "lmod") == 0 || strcmp(cut + 1, "tcl") == 0)) {
        *cut = '\0';
        if (!(rel = ctk_printf(c->err, "pkgconfig/%s", pcname)))
            r = -1;
        else
            r = ctk_write_owns(out, rel, c->err);
        free(rel);
    }
    free(out);
    return r;
}

/* PE_PKGCONFIG_LIBS (and PE_<PRODUCT>_PKGCONFIG_LIBS for each product in
 * PE_PKGCONFIG_PRODUCTS) name .pc files the Cray compiler wrappers ask
 * pkg-config for: each must be in a PKG_CONFIG_PATH dir. */
static bool check_pkgconfig_names(lctx_t *c, ctk_lint_file_t *f, const ctk_env_t *menv, const ctk_env_t *set,
                                  const ctk_check_src_t *src)
{
    ctk_strlist_t vars, names;
    const char *prods = ctk_env_get(set, "PE_PKGCONFIG_PRODUCTS");
    const char *pcp = ctk_env_get(menv, "PKG_CONFIG_PATH");
    bool ok = false;

    ctk_strlist_init(&vars);
    ctk_strlist_init(&names);
    if (!ctk_strlist_push(&vars, "PE_PKGCONFIG_LIBS", c->err) || !ctk_strlist_split(&names, prods, ": \t", c->err))
        goto out;
    for (size_t i = 0; i < names.len; i++) {
        char *v = ctk_printf(c->err, "%s_PKGCONFIG_LIBS", names.items[i]);

        if (!v || !ctk_strlist_take(&vars, v, c->err))
            goto out;
    }
    for (size_t i = 0; i < vars.len; i++) {
        ctk_strlist_t pcs, dirs;
        bool good = true;
        int r;

        ctk_strlist_init(&pcs);
        ctk_strlist_init(&dirs);
        good = ctk_strlist_split(&pcs, ctk_env_get(set, vars.items[i]), ": \t", c->err) &&
               ctk_strlist_split(&dirs, pcp, ": \t", c->err);
        for (size_t k = 0; good && k < pcs.len; k++) {
            char *pcname = ctk_printf(c->err, "%s.pc", pcs.items[k]);
            bool there = false;

            if (!pcname) {
                good = false;
                break;
            }
            for (size_t d = 0; d < dirs.len && !there; d++)
                there = dir_has_file(dirs.items[d], pcname);
            if (!there && (r = staged_pc(c, f, src->text, pcname)) < 0)
                good = false;
            else if (!there && r == 0)
                good = addf(f, "CTK-PC-004", ctk_check_var_line(src, vars.items[i]), c->err,
                            "%s names %s, but %s", vars.items[i], pcname,
                            pcp ? "no PKG_CONFIG_PATH dir holds it" : "the module sets no PKG_CONFIG_PATH");
            free(pcname);
        }
        ctk_strlist_fini(&pcs);
        ctk_strlist_fini(&dirs);
        if (!good)
            goto out;
    }
    ok = true;
out:
    ctk_strlist_fini(&vars);
    ctk_strlist_fini(&names);
    return ok;
}

/* Checks every module gets once its environment is known. */
static bool check_module(lctx_t *c, ctk_lint_file_t *f, const char *full_name, const ctk_env_t *menv,
                         const ctk_env_t *set, const ctk_check_src_t *src)
{
    hints_t h;
    tk_t t;
    bool ok = false;

    hints_init(&h);
    memset(&t, 0, sizeof t);
    /* PE_PKGCONFIG_LIBS (and PE_<PRODUCT>_PKGCONFIG_LIBS for each product in
     * PE_PKGCONFIG_PRODUCTS) name .pc files the Cray compiler wrappers ask
     * pkg-config for: each must be in a PKG_CONFIG_PATH dir. */
    if (!check_pkgconfig_names(c, f, menv, set, src))
        goto out;
    if (!hints_from_env(&h, set, &c->base, c->err) || !find_toolkit(&h, &t, c->err) ||
        !note_refused_nvcc(f, &t, c->err))
        goto out;
    if (!t.sdk) {
        ok = addf(f, "CTK-SDK-001", 0, c->err, "no toolkit checks: %s", t.why_not);
        goto out;
    }
    if (!note_toolkit(c, f, &t, full_name, set, src) ||
        !ctk_check_module_env(t.sdk, menv, set, src, NULL, &f->findings, c->err))
        goto out;
    if (ctk_lint_name_version_agrees(full_name, t.sdk->version.major, t.sdk->version.minor) == 0 &&
        !addf(f, "CTK-VER-001", 0, c->err, "the module is named %s but the toolkit at %s (found by %s) is %s",
              full_name, t.sdk->root, t.label, f->version))
        goto out;
    ok = true;
out:
    tk_fini(&t);
    hints_fini(&h);
    return ok;
}

/* ---- Lua modulefiles -------------------------------------------------------------------- */

/* The MODULEPATH a linted module is evaluated under: the directory its
 * name is relative to (.../<name>/<version>.lua gives ...). */
static char *module_root(const ctk_lint_file_t *f, ctk_error_t *err)
{
    size_t n = strlen(f->file), k = strlen(f->name);
    const char *end;

    if (n > 4 && strcmp(f->file + n - 4, ".lua") == 0)
        n -= 4;
    end = f->file + n - k;
    if (n > k && strncmp(end, f->name, k) == 0 && end[-1] == '/')
        return ctk_strndup(f->file, (size_t)(end - 1 - f->file), err);
    return ctk_strdup(".", err);
}

/* CTK-MOD-007 for each call not run, CTK-MOD-008 for each dependency not
 * evaluated. */
static bool lua_unchecked(lctx_t *c, ctk_lint_file_t *f, const ctk_modeval_t *ev)
{
    size_t i;

    for (i = 0; i < ev->n_ops; i++) {
        const ctk_modop_t *op = &ev->ops[i];

        if (op->kind == CTK_MODOP_NOT_RUN && !op->file &&
            (!addf(f, "CTK-MOD-007", op->line, c->err,
                   "%s was not run; what the module does with its output (or after it) was not checked",
                   op->value) ||
             !ctk_lint_mark_unchecked(f, c->err, "line %d: %s was not run", op->line, op->value)))
            return false;
    }
    for (i = 0; i < ev->n_deps; i++) {
        const ctk_moddep_t *d = &ev->deps[i];

        if (d->why && strcmp(d->why, "already loaded") != 0 &&
            (!addf(f, "CTK-MOD-008", d->line, c->err, "%s('%s'): %s; what it sets was not checked",
                   ctk_modop_kind_name(d->kind), d->name, d->why) ||
             !ctk_lint_mark_unchecked(f, c->err, "line %d: %s('%s') was not evaluated: %s", d->line,
                                      ctk_modop_kind_name(d->kind), d->name, d->why)))
            return false;
    }
    return true;
}

static char *module_root(const ctk_lint_file_t *f, ctk_error_t *err);

/* modeval's reader of a Tcl dependency: Lmod's tcl2lua, as for a Tcl file
 * linted by it (who runs it: ctk_sandbox_pick()). */
static char *dep_tcl2lua(void *ud, const char *file, const char *full, size_t *len, ctk_error_t *err)
{
    lctx_t *c = ud;

    return ctk_tcl2lua_dep(&c->t2l, &c->sb, &c->base, c->timeout, file, full, len, err);
}

/* The file in the sandbox as `module load` would run it: following its
 * dependencies on the MODULEPATH of its tree (Tcl ones through Lmod's
 * tcl2lua where lint uses it), read leniently. */
static ctk_modeval_t *sandbox_eval(lctx_t *c, const ctk_lint_file_t *f, const char *text, size_t len,
                                   ctk_error_t *e)
{
    ctk_modeval_opts_t o = { CTK_MODE_LOAD, NULL, true, NULL, true, NULL, NULL };
    ctk_modeval_t *ev = NULL;
    ctk_strlist_t env;
    char *root = module_root(f, c->err), *mp = NULL;
    const char *more = c->o->modulepath;
    size_t i;

    if (root)
        mp = ctk_printf(c->err, "MODULEPATH=%s%s%s", root, more && *more ? ":" : "", more ? more : "");

    ctk_strlist_init(&env);
    for (i = 0; mp && i < c->base.kv.len; i++)
        if (!ctk_strlist_push(&env, c->base.kv.items[i], c->err))
            break;
    if (c->have_t2l) {
        o.tcl_to_lua = dep_tcl2lua;
        o.tcl_ud = c;
    }
    if (mp && !ctk_error_is_set(c->err) && ctk_strlist_push(&env, mp, c->err)) {
        o.initial_env = &env;
        ev = ctk_modeval_run(f->file, text, len, f->name, &o, e);
    } else {
        ctk_error_nomem(e);
    }
    free(root);
    free(mp);
    ctk_strlist_fini(&env);
    return ev;
}

/* The finding for a module the sandbox could not evaluate, e: stopped
 * on a limit, refused a call (forbidden: bad on bad_line, found in the
 * text), or failed.  tcl: the lines are not the reader's. */
static bool eval_failed(lctx_t *c, ctk_lint_file_t *f, ctk_error_t *e, bool tcl, bool forbidden, const char *bad,
                        int bad_line)
{
    char line[512];

    if (e->code == CTK_E_NOMEM) {
        ctk_error_nomem(c->err);
        return false;
    }
    if (tcl)
        e->line = 0;
    first_line(e->text, line, sizeof line);
    if (e->code == CTK_E_LIMIT || strstr(e->text, "stack overflow"))
        return addf(f, "CTK-MOD-005", e->line, c->err, "stopped: %s", line);
    if (forbidden)
        return addf(f, "CTK-MOD-004", bad_line, c->err, "calls %s; the sandbox refused it: %s", bad, line);
    if (error_is_forbidden(e->text))
        return addf(f, "CTK-MOD-004", e->line, c->err, "the sandbox refused a call: %s", line);
    return addf(f, "CTK-MOD-001", e->line, c->err, "%s", line);
}

/* What the evaluated module ev sets, checked as the environment it
 * leaves over the base; a toolkit's module names a family or conflict. */
static bool check_evaluated(lctx_t *c, ctk_lint_file_t *f, const ctk_modeval_t *ev, const char *text,
                            const char *tcl)
{
    ctk_check_src_t src = {f->file, tcl ? tcl : text, tcl ? NULL : ev};
    ctk_env_t menv, set;
    bool ok = false;

    ctk_env_init(&menv);
    ctk_env_init(&set);
    if (!ctk_env_copy(&menv, &c->base, c->err))
        goto out;
    for (size_t i = 0; i < ev->n_vars; i++) {
        if (!ctk_env_set(&menv, ev->vars[i].name, ev->vars[i].value, c->err))
            goto out;
        if (ev->vars[i].value && !ctk_env_set(&set, ev->vars[i].name, ev->vars[i].value, c->err))
            goto out;
    }
    ok = check_module(c, f, f->name, &menv, &set, &src) &&
         (ev->family || ev->conflicts.len || !f->root || /* a toolkit's module only */
          addf(f, "CTK-MOD-003", 0, c->err, "no family() or conflict(): another toolkit can be loaded alongside"));
out:
    ctk_env_fini(&menv);
    ctk_env_fini(&set);
    return ok;
}

/* Evaluate Lua in the sandbox and check what it sets.  tcl: NULL for a
 * Lua modulefile; the Tcl text when the Lua is what Lmod's tcl2lua made
 * of a Tcl modulefile (its lines are the Tcl file's, found in that text;
 * the Lua's own lines mean nothing to the reader). */
static bool eval_lua(lctx_t *c, ctk_lint_file_t *f, const char *text, size_t len, const char *tcl)
{
    ctk_modeval_t *ev;
    ctk_error_t e;
    const char *bad = NULL;
    int bad_line = 0;
    bool ok, forbidden;

    forbidden = !tcl && ctk_lint_lua_forbidden(text, len, &bad, &bad_line);
    ctk_error_init(&e);
    if (!(ev = sandbox_eval(c, f, text, len, &e)))
        return eval_failed(c, f, &e, tcl != NULL, forbidden, bad, bad_line);
    ok = (!forbidden ||
          addf(f, "CTK-MOD-004", bad_line, c->err,
               "refers to %s, which the sandbox does not provide; the call failed (caught by the module) "
               "and nothing ran", bad)) &&
         lua_unchecked(c, f, ev) && check_evaluated(c, f, ev, text, tcl);
    ctk_modeval_free(ev);
    return ok;
}

static bool lint_lua(lctx_t *c, ctk_lint_file_t *f, const char *text, size_t len)
{
    return eval_lua(c, f, text, len, NULL);
}

/* ---- Tcl modulefiles -------------------------------------------------------------------- */

/* A non-comment line whose first word is conflict or family, or a
 * `family` call inside a guard (ctkgen's own "if {[info commands family]"). */
static bool tcl_has_family(const char *text)
{
    const char *p = text;

    while (p && *p) {
        const char *q = p;

        while (*q == ' ' || *q == '\t')
            q++;
        if (*q != '#' && (strncmp(q, "conflict", 8) == 0 || strncmp(q, "family", 6) == 0) &&
            (q[strncmp(q, "family", 6) == 0 ? 6 : 8] == ' ' || q[strncmp(q, "family", 6) == 0 ? 6 : 8] == '\t'))
            return true;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return false;
}

/* The MODULEPATH a Tcl file loads from by its full name: the dir above
 * <name>/ (caller frees); NULL with a finding added (*ok) or err. */
static char *tcl_modulepath(lctx_t *c, ctk_lint_file_t *f, bool *ok)
{
    char *dir, *slash;

    if (!(dir = ctk_realpath(f->file))) {
        *ok = addf(f, "CTK-MOD-001", 0, c->err, "cannot resolve the path: %s", strerror(errno));
        return NULL;
    }
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    if (strchr(f->name, '/') && (slash = strrchr(dir, '/')) && slash > dir)
        *slash = '\0';
    return dir;
}

/* "through Lmod's tcl2lua[, as user nobody (uid 65534)]" in f->evaluated_as. */
static bool note_t2l(lctx_t *c, ctk_lint_file_t *f)
{
    char *was = f->evaluated_as;

    f->evaluated_as = ctk_printf(c->err, "through Lmod's tcl2lua%s%s", was ? ", as " : "", was ? was : "");
    free(was);
    return f->evaluated_as != NULL;
}

/* A Tcl file as Lmod reads it when there is no Environment Modules:
 * tcl2lua.tcl (run with the privilege rules of Tcl loads), then the Lua
 * it printed through the sandbox and the Lua checks. */
static bool lint_tcl_lmod(lctx_t *c, ctk_lint_file_t *f, const char *text)
{
    const ctk_sandbox_t *sb;
    char *mp, *skip_why = NULL, *lua = NULL, line[512];
    size_t len = 0;
    ctk_error_t e;
    bool ok = false;

    if (!(mp = tcl_modulepath(c, f, &ok)))
        return ok;
    if (!(sb = ctk_sandbox_pick(&c->sb, mp, f->file, &f->evaluated_as, &skip_why, c->err)) && !skip_why)
        goto out;
    if (skip_why) {
        ok = addf(f, "CTK-SKIP-004", 0, c->err, "not loaded: %s", skip_why);
        goto out;
    }
    if (!note_t2l(c, f))
        goto out;
    ctk_error_init(&e);
    if (!ctk_tcl2lua_run(&c->t2l, f->file, f->name, &c->base, c->timeout, sb, &lua, &len, &e)) {
        if (e.code == CTK_E_NOMEM) {
            ctk_error_nomem(c->err);
            goto out;
        }
        first_line(e.text, line, sizeof line);
        ok = addf(f, "CTK-MOD-001", 0, c->err, "%s", line);
        goto out;
    }
    ok = eval_lua(c, f, lua, len, text);
out:
    free(lua);
    free(skip_why);
    free(mp);
    return ok;
}

/* Without Environment Modules: through Lmod's tcl2lua where that is
 * there, else the file is marked unchecked with why (CTK-TRUST-001 for a
 * modulecmd another user can change, else CTK-SKIP-003). */
static bool lint_tcl_without_em(lctx_t *c, ctk_lint_file_t *f, const char *text)
{
    if (c->have_t2l)
        return lint_tcl_lmod(c, f, text);
    if (c->tcl_untrusted)
        return ctk_lint_mark_unchecked(f, c->err, "not loaded (CTK-TRUST-001): none of its checks ran") &&
               addf(f, "CTK-TRUST-001", 0, c->err, "not loaded by Environment Modules, so none of its checks ran: %s",
                    c->rep->tcl_skip);
    return ctk_lint_mark_unchecked(f, c->err, "not loaded (CTK-SKIP-003): none of its checks ran") &&
           addf(f, "CTK-SKIP-003", 0, c->err, "not loaded: %s", c->rep->tcl_skip);
}

/* The MODULEPATH under which the file loads by its full name: the dir
 * above <name>/ (caller frees); NULL with a finding (*ok) or err. */
static char *module_path_of(lctx_t *c, ctk_lint_file_t *f, bool *ok)
{
    char *dir = ctk_realpath(f->file), *slash;

    *ok = false;
    if (!dir) {
        *ok = addf(f, "CTK-MOD-001", 0, c->err, "cannot resolve the path: %s", strerror(errno));
        return NULL;
    }
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    if (strchr(f->name, '/') && (slash = strrchr(dir, '/')) && slash > dir)
        *slash = '\0';
    return dir;
}

/* What loading the module changed from the base environment, into set. */
static bool changed_vars(const ctk_env_t *base, const ctk_env_t *menv, ctk_env_t *set, ctk_error_t *err)
{
    for (size_t i = 0; i < menv->kv.len; i++) {
        const char *kv = menv->kv.items[i], *eq = strchr(kv, '='), *was;
        char name[256];

        if (!eq || (size_t)(eq - kv) >= sizeof name)
            continue;
        memcpy(name, kv, (size_t)(eq - kv));
        name[eq - kv] = '\0';
        was = ctk_env_get(base, name);
        if ((!was || strcmp(was, eq + 1) != 0) && !ctk_env_set(set, name, eq + 1, err))
            return false;
    }
    return true;
}

static bool lint_tcl(lctx_t *c, ctk_lint_file_t *f, const char *text)
{
    ctk_env_t menv, set;
    ctk_error_t e;
    const ctk_sandbox_t *sb;
    char *mp = NULL, line[512], *skip_why = NULL;
    ctk_check_src_t src = {f->file, text, NULL};
    bool ok = false;

    if (!c->have_tcl)
        return lint_tcl_without_em(c, f, text);
    ctk_env_init(&menv);
    ctk_env_init(&set);
    if (!(mp = module_path_of(c, f, &ok)))
        goto out;
    ok = false;
    if (!(sb = ctk_sandbox_pick(&c->sb, mp, f->file, &f->evaluated_as, &skip_why, c->err)) && !skip_why)
        goto out;
    if (skip_why) {
        ok = ctk_lint_mark_unchecked(f, c->err, "not loaded (CTK-SKIP-004): none of its checks ran") &&
             addf(f, "CTK-SKIP-004", 0, c->err, "not loaded: %s", skip_why);
        goto out;
    }
    ctk_error_init(&e);
    if (!ctk_modenv_load_as(&c->tcl, mp, f->name, &c->base, c->timeout, sb, &menv, &e)) {
        if (e.code == CTK_E_NOMEM) {
            ctk_error_nomem(c->err);
            goto out;
        }
        first_line(e.text, line, sizeof line);
        ok = addf(f, "CTK-MOD-001", e.line, c->err, "Environment Modules could not load it: %s", line);
        goto out;
    }
    ok = changed_vars(&c->base, &menv, &set, c->err) && check_module(c, f, f->name, &menv, &set, &src) &&
         (tcl_has_family(text) || !f->root || /* a toolkit's module only */
          addf(f, "CTK-MOD-003", 0, c->err, "no family or conflict: another toolkit can be loaded alongside"));
out:
    free(skip_why);
    free(mp);
    ctk_env_fini(&menv);
    ctk_env_fini(&set);
    return ok;
}

/* ---- .pc files ---------------------------------------------------------------------------- */

/* Does any word link libcudart ("-lcudart", or inside "-Wl,...,-lcudart,...")? */
static bool links_cudart(const ctk_strlist_t *l)
{
    for (size_t i = 0; i < l->len; i++)
        if (strstr(l->items[i], "-lcudart"))
            return true;
    return false;
}

/* nvcc -dryrun with the Libs: "" when accepted, the refusal, or NULL when
 * nvcc could not answer (*why says why). */
static bool nvcc_libs(lctx_t *c, const char *nvcc, const ctk_strlist_t *libs, char **refusal, char *why,
                      size_t whysz)
{
    const char **argv = calloc(libs->len + 6, sizeof *argv);
    ctk_proc_spec_t spec = {0};
    ctk_proc_result_t r;
    size_t k = 0;
    bool ok = false;

    *refusal = NULL;
    why[0] = '\0';
    if (!argv) {
        ctk_error_nomem(c->err);
        return false;
    }
    argv[k++] = nvcc;
    argv[k++] = "-dryrun";
    argv[k++] = "probe.o";
    for (size_t i = 0; i < libs->len; i++)
        argv[k++] = libs->items[i];
    argv[k++] = "-o";
    argv[k++] = "probe";
    ctk_proc_result_init(&r);
    spec.argv = argv;
    if (!(spec.envp = ctk_env_envp(&c->base, c->err)))
        goto out;
    spec.cwd = c->tmproot;
    spec.timeout_s = c->timeout;
    if (!ctk_proc_run(&spec, &r, c->err))
        goto out;
    ok = true;
    if (ctk_proc_ok(&r)) {
        *refusal = ctk_strdup("", c->err);
        ok = *refusal != NULL;
    } else {
        const char *text = r.err && r.err[0] ? r.err : r.out;
        const char *fatal = text ? strstr(text, "nvcc fatal") : NULL;
        char line[512];

        if (fatal) {
            first_line(fatal, line, sizeof line);
            *refusal = ctk_strdup(line, c->err);
            ok = *refusal != NULL;
        } else {
            ctk_proc_describe(&r, c->timeout, why, whysz);
        }
    }
out:
    ctk_proc_result_fini(&r);
    free(argv);
    return ok;
}

static bool check_pc_libs(lctx_t *c, ctk_lint_file_t *f, const ctk_sdk_t *sdk, const ctk_strlist_t *libs,
                          const char *text)
{
    char *nvcc = NULL, *refusal = NULL, why[256] = "";
    const char *bad = NULL, *path = getenv("PATH");
    int line = ctk_check_line_of(text, "Libs:");
    bool ok = false;

    if (sdk)
        nvcc = ctk_strdup(sdk->nvcc, c->err);
    else if (!(nvcc = ctk_env_path_search(path, "nvcc", NULL, NULL, c->err)) && c->err &&
             c->err->code != CTK_E_OK)
        return false;
    if (nvcc) {
        char trust_why[1024];

        /* the toolkit's nvcc comes from the file, one on PATH from whoever
         * set ctkgen's PATH: either runs only if no other user can change it */
        if (!ctk_trust_exec(nvcc, trust_why, sizeof trust_why)) {
            if (!addf(f, "CTK-TRUST-001", line, c->err,
                      "nvcc's own check of the Libs (`%s -dryrun probe.o $(pkg-config --libs)`) was not run; "
                      "the static rule stands in: %s",
                      nvcc, trust_why))
                goto out;
            snprintf(why, sizeof why, "%s not run: another user can change it", nvcc);
            goto rule;
        }
        if (!nvcc_libs(c, nvcc, libs, &refusal, why, sizeof why))
            goto out;
        if (refusal) {
            ok = !refusal[0] || addf(f, "CTK-PC-001", line, c->err, "%s -dryrun probe.o $(pkg-config --libs): %s",
                                     nvcc, refusal);
            goto out;
        }
    } else {
        snprintf(why, sizeof why, "no nvcc found (no toolkit, none on PATH)");
    }
rule:
    ok = ctk_lint_nvcc_libs_static(libs, &bad) ||
         addf(f, "CTK-PC-001", line, c->err, "nvcc would reject '%s' in the Libs (static rule: %s)", bad, why);
out:
    free(nvcc);
    free(refusal);
    return ok;
}

/* The directory of a file's path ("." for a bare name); NULL: no memory. */
static char *dir_of(const char *file, ctk_error_t *err)
{
    const char *slash = strrchr(file, '/');

    return slash ? ctk_strndup(file, (size_t)(slash - file), err) : ctk_strdup(".", err);
}

/* The .pc resolved as pkgconf would: 1 resolved into *pc, 0 not (a
 * finding says why, or err an interrupt), -1 for want of memory. */
static int resolve_pc(lctx_t *c, ctk_lint_file_t *f, const char *dir, ctk_pc_result_t *pc)
{
    const char *dirs[1] = { dir };
    char line[512];
    ctk_error_t e;

    ctk_error_init(&e);
    if (ctk_pc_resolve(dirs, 1, f->file, pc, &e))
        return 1;
    if (e.code == CTK_E_NOMEM) {
        ctk_error_nomem(c->err);
        return -1;
    }
    if (pc->stop == CTK_PC_STOP_INTERRUPTED) {
        ctk_error_set(c->err, CTK_E_ENV, f->file, 0, 0, "not linted: %s", e.text);
        return -1;
    }
    first_line(e.text, line, sizeof line);
    return addf(f, ctk_pc_stop_finding(pc->stop), e.line, c->err, "%s%s", pc->stop ? "" : "libpkgconf: ", line)
               ? 0
               : -1;
}

/* CTK-PC-003 for each variable no field uses. */
static bool note_unused_vars(lctx_t *c, ctk_lint_file_t *f, const char *text)
{
    ctk_strlist_t unused;
    int lines[MAX_UNUSED];
    bool ok;

    ctk_strlist_init(&unused);
    ok = ctk_lint_pc_unused(text, &unused, lines, c->err);
    for (size_t i = 0; ok && i < unused.len; i++)
        ok = addf(f, "CTK-PC-003", lines[i], c->err,
                  "%s is defined but no field uses it (directly or through another variable)", unused.items[i]);
    ctk_strlist_fini(&unused);
    return ok;
}

/* Roots from the .pc's root-like variables (cudaroot, prefix, ...). */
static bool pc_root_vars(lctx_t *c, pcfile_t *raw, const char *dir, hints_t *h)
{
    static const char *const rootvars[] = {"cudaroot", "cuda_root", "cuda_home", "cudatoolkit_root", "prefix",
                                           "root", NULL};

    for (size_t i = 0; i < raw->len; i++) {
        if (!raw->items[i].is_var)
            continue;
        for (size_t k = 0; rootvars[k]; k++) {
            char *v;
            bool good;

            if (strcasecmp(raw->items[i].name, rootvars[k]) != 0)
                continue;
            v = pc_expand(raw, raw->items[i].value, dir, 0, c->err);
            good = v && add_root(h, v, raw->items[i].name, c->err);
            free(v);
            if (!good)
                return false;
        }
    }
    return true;
}

/* Every variable naming a dir may name a companion root: a .pc that
 * defines math_libs but never uses it still says where cuBLAS is.  Its
 * include, lib64 and lib dirs into the hints. */
static bool pc_var_dirs(lctx_t *c, pcfile_t *raw, const char *dir, hints_t *h)
{
    static const char *const subs[] = {"include", "lib64", "lib"};

    for (size_t i = 0; i < raw->len; i++) {
        char *v, *sub;
        bool good = true;

        if (!raw->items[i].is_var)
            continue;
        if (!(v = pc_expand(raw, raw->items[i].value, dir, 0, c->err)))
            return false;
        for (int k = 0; good && k < 3 && ctk_is_dir(v); k++) {
            ctk_strlist_t *to = k == 0 ? &h->incdirs : &h->libdirs;

            if (!(sub = ctk_path_join(v, subs[k], c->err)))
                good = false;
            else if (!ctk_is_dir(sub) || ctk_strlist_contains(to, sub))
                free(sub);
            else
                good = ctk_strlist_take(to, sub, c->err);
        }
        free(v);
        if (!good)
            return false;
    }
    return true;
}

/* The dirs after each flag word (-I, -L) of words into to, once each. */
static bool flag_dirs(const ctk_strlist_t *words, const char *flag, ctk_strlist_t *to, ctk_error_t *err)
{
    for (size_t i = 0; i < words->len; i++)
        if (strncmp(words->items[i], flag, 2) == 0 && words->items[i][2] &&
            !ctk_strlist_contains(to, words->items[i] + 2) && !ctk_strlist_push(to, words->items[i] + 2, err))
            return false;
    return true;
}

/* The toolkit the .pc is for, and the checks that need it: those of the
 * runtime's .pc where it links libcudart (ctk-X.Y, cudart-X.Y); a
 * per-library .pc (cufft-X.Y) has its own Version and needs only its own
 * dirs. */
static bool pc_toolkit_checks(lctx_t *c, ctk_lint_file_t *f, hints_t *h, tk_t *t, const ctk_pc_result_t *pc,
                              const char *text)
{
    ctk_check_src_t src = {f->file, text, NULL};

    if (!roots_from_dirs(h, NULL, c->err) || !find_toolkit(h, t, c->err) || !note_refused_nvcc(f, t, c->err))
        return false;
    if (!t->sdk)
        return addf(f, "CTK-SDK-001", 0, c->err, "no toolkit checks: %s", t->why_not);
    if (!note_toolkit(c, f, t, f->name, NULL, NULL))
        return false;
    return !links_cudart(&pc->libs) ||
           ctk_check_pc(t->sdk, &pc->cflags, &pc->libs, pc->version, &src, &f->findings, c->err);
}

static bool lint_pc(lctx_t *c, ctk_lint_file_t *f, const char *text)
{
    ctk_pc_result_t pc;
    pcfile_t raw;
    hints_t h;
    tk_t t;
    char *dir;
    bool ok = false;
    int r;

    ctk_pc_result_init(&pc);
    hints_init(&h);
    memset(&t, 0, sizeof t);
    memset(&raw, 0, sizeof raw);
    if (!(dir = dir_of(f->file, c->err)) || (r = resolve_pc(c, f, dir, &pc)) < 0)
        goto out;
    if (r == 0) {
        ok = true; /* a finding says why it does not resolve */
        goto out;
    }
    /* the toolkit: root-like variables, then the -I/-L dirs */
    ok = note_unused_vars(c, f, text) && pcfile_parse(text, &raw, c->err) && pc_root_vars(c, &raw, dir, &h) &&
         pc_var_dirs(c, &raw, dir, &h) && flag_dirs(&pc.cflags, "-I", &h.incdirs, c->err) &&
         flag_dirs(&pc.libs, "-L", &h.libdirs, c->err) && pc_toolkit_checks(c, f, &h, &t, &pc, text) &&
         check_pc_libs(c, f, t.sdk, &pc.libs, text);
out:
    tk_fini(&t);
    hints_fini(&h);
    pcfile_fini(&raw);
    ctk_pc_result_fini(&pc);
    free(dir);
    return ok;
}

/* ---- files and the walk ------------------------------------------------------------------ */

/* A new entry in the report for path, of kind, named from its path. */
static ctk_lint_file_t *add_file(lctx_t *c, const char *path, ctk_lint_kind_t kind)
{
    ctk_lint_report_t *r = c->rep;
    ctk_lint_file_t *f, *files;

    if (!(files = realloc(r->files, (r->n_files + 1) * sizeof *files))) {
        ctk_error_nomem(c->err);
        return NULL;
    }
    r->files = files;
    f = &r->files[r->n_files];
    memset(f, 0, sizeof *f);
    ctk_findings_init(&f->findings);
    ctk_strlist_init(&f->unchecked);
    f->kind = kind;
    r->n_files++;
    if (!(f->file = ctk_strdup(path, c->err)))
        return NULL;
    if (kind == CTK_LINT_PC) {
        const char *b = base_name(path);

        f->name = ctk_strndup(b, strlen(b) - 3, c->err);
    } else {
        f->name = ctk_lint_module_name(path, c->err);
    }
    return f->name ? f : NULL;
}

/* Apply the policy to f's findings, then count them (and f, if it was
 * not fully checked) into the report. */
static bool count_findings(lctx_t *c, ctk_lint_file_t *f)
{
    if (!ctk_policy_apply(c->o->policy, &f->findings, f->file, ctk_policy_relpath(f->file, c->top), c->err))
        return false;
    c->rep->n_error += ctk_findings_count(&f->findings, CTK_SEV_ERROR);
    c->rep->n_warning += ctk_findings_count(&f->findings, CTK_SEV_WARNING);
    c->rep->n_note += ctk_findings_count(&f->findings, CTK_SEV_NOTE);
    c->rep->n_waived += ctk_findings_count_waived(&f->findings);
    c->rep->n_incomplete += f->incomplete;
    return true;
}

/* path is not a regular file (what: "a FIFO"...; target: where the link
 * found in a walk leads, or NULL): a finding, and nothing read.  A module
 * system or pkg-config that opens it waits forever (a FIFO, a terminal),
 * reads without end (/dev/zero) or reads kernel state (/proc/kmsg). */
static bool refused(lctx_t *c, const char *path, const char *what, const char *target)
{
    ctk_lint_file_t *f = add_file(c, path, ctk_lint_classify(path, NULL));

    if (!f)
        return false;
    if (target) {
        if (!addf(f, "CTK-READ-001", 0, c->err, "a symbolic link to %s (%s): not followed", what, target))
            return false;
    } else if (!addf(f, "CTK-READ-001", 0, c->err, "%s%s: not read", what,
                     strstr(what, "kernel") ? "" : ", not a regular file")) {
        return false;
    }
    return count_findings(c, f);
}

/* The file's text into *text: 1 read; 0 refused (a special file, or one
 * the walk may not follow: recorded as such); -1 error (an unreadable
 * input is bad input, exit 3, not the environment). */
static int read_input(lctx_t *c, const char *path, const char *real, bool from_walk, char **text, size_t *len)
{
    const char *what = NULL;
    ctk_error_t re;

    ctk_error_init(&re);
    *text = ctk_file_read_ex(path, FILE_MAX_BYTES, CTK_READ_NO_KERNEL_FS | (from_walk ? CTK_READ_NOFOLLOW : 0), len,
                             &what, &re);
    if (*text)
        return 1;
    if (what)
        return ctk_strlist_push(&c->seen, real, c->err) && refused(c, path, what, NULL) ? 0 : -1;
    ctk_error_set(c->err, re.code == CTK_E_NOMEM ? CTK_E_NOMEM : CTK_E_CONFIG, re.source, re.line, re.column, "%s",
                  re.text);
    return -1;
}

/* Why a file that is neither a modulefile nor a .pc is skipped. */
static const char *not_linted_why(const char *path)
{
    const char *b = base_name(path);

    return strcmp(b, ".modulerc.lua") == 0 || strcmp(b, ".modulerc") == 0 || strcmp(b, ".version") == 0
               ? "a module default/alias file: not linted"
               : "not a modulefile (.lua, #%Module) or a .pc file";
}

/* Lint the text as what it is; a file ctkgen did not write is fixed by
 * hand: fixes that say where. */
static bool lint_as(lctx_t *c, ctk_lint_file_t *f, ctk_lint_kind_t kind, const char *text, size_t len)
{
    bool ok = false;

    switch (kind) {
    case CTK_LINT_LUA: ok = lint_lua(c, f, text, len); break;
    case CTK_LINT_TCL: ok = lint_tcl(c, f, text); break;
    case CTK_LINT_PC: ok = lint_pc(c, f, text); break;
    case CTK_LINT_OTHER: break;
    }
    return ok && (ctk_lintfix_is_own(text) || ctk_lintfix_apply(f, text, c->err));
}

/* Lint one file.  A file found in a walk is read only if it is a regular
 * file itself (no link followed); a path named on the command line may be
 * a link, but what it leads to must be a regular file all the same. */
static bool lint_file(lctx_t *c, const char *path, bool from_walk)
{
    ctk_lint_file_t *f;
    char *text = NULL, *real = NULL;
    size_t len = 0;
    ctk_lint_kind_t kind;
    bool ok = false;
    int got;

    if (ctk_proc_interrupted()) {
        /* the caller caught SIGINT or the like: stop here and unwind */
        ctk_error_set(c->err, CTK_E_ENV, path, 0, 0, "not linted: interrupted");
        return false;
    }
    if (!(real = ctk_realpath(path))) {
        ctk_error_set(c->err, CTK_E_CONFIG, path, 0, 0, "cannot resolve: %s", strerror(errno));
        return false;
    }
    if (ctk_strlist_contains(&c->seen, real)) {
        char *why = ctk_printf(c->err, "the same file as one linted already (%s)", real);

        ok = why && add_skip(c->rep, path, why, c->err);
        free(why);
        free(real);
        return ok;
    }
    if ((got = read_input(c, path, real, from_walk, &text, &len)) <= 0) {
        ok = got == 0;
        goto out;
    }
    if ((kind = ctk_lint_classify(path, text)) == CTK_LINT_OTHER) {
        ok = add_skip(c->rep, path, not_linted_why(path), c->err);
        goto out;
    }
    if (!ctk_strlist_push(&c->seen, real, c->err) || !(f = add_file(c, path, kind)))
        goto out;
    ok = lint_as(c, f, kind, text, len);
    /* a signal stops a Lua run or a resolution short of its answer: what
     * it left is no finding, and lint unwinds */
    if (ok && ctk_proc_interrupted()) {
        ctk_error_set(c->err, CTK_E_ENV, path, 0, 0, "not linted: interrupted");
        ok = false;
    }
    ok = count_findings(c, f) && ok;
out:
    free(text);
    free(real);
    return ok;
}

/* A symbolic link met in a walk: never followed.  One to a directory, a
 * dangling one and one to a regular file are skipped (a link inside the
 * tree names a file the walk lints where it lies); one to anything else
 * (a FIFO, a device, a file of /proc or /sys) is a finding, as module
 * systems do follow it.  What it leads to is asked through an O_PATH
 * descriptor (ctk_file_open_regular), which opens nothing. */
static bool walk_link(lctx_t *c, const char *p)
{
    const char *what = NULL;
    char *target;
    bool ok;
    int fd;

    if (ctk_is_dir(p))
        return add_skip(c->rep, p, "symbolic link to a directory: not followed", c->err);
    fd = ctk_file_open_regular(p, CTK_READ_NO_KERNEL_FS, &what, NULL);
    if (fd >= 0) {
        close(fd);
        return add_skip(c->rep, p, "symbolic link to a file: not followed (a file in the tree is linted where it "
                        "lies; name one elsewhere to lint it)", c->err);
    }
    if (!what)
        return add_skip(c->rep, p, "dangling symbolic link", c->err);
    target = ctk_realpath(p);
    ok = refused(c, p, what, target ? target : "?");
    free(target);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool walk(lctx_t *c, const char *dir, int depth);

/* The names in dir but "." and "..", sorted, into names. */
static bool read_names(lctx_t *c, const char *dir, ctk_strlist_t *names)
{
    struct dirent *e;
    DIR *d;

    if (!(d = opendir(dir))) {
        ctk_error_set(c->err, CTK_E_CONFIG, dir, 0, 0, "cannot read the directory: %s", strerror(errno));
        return false;
    }
    while ((e = readdir(d))) {
        if ((names->len & 1023) == 1023 && ctk_proc_interrupted()) {
            closedir(d);
            ctk_error_set(c->err, CTK_E_ENV, dir, 0, 0, "not walked: interrupted");
            return false;
        }
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            !ctk_strlist_push(names, e->d_name, c->err)) {
            closedir(d);
            return false;
        }
    }
    closedir(d);
    if (names->len)
        qsort(names->items, names->len, sizeof *names->items, cmp_str);
    return true;
}

/* The entry p of a directory depth deep: a directory walked (a hidden
 * one passed over), a link followed as walk_link() says, anything else
 * linted as a file. */
static bool walk_entry(lctx_t *c, const char *p, const char *name, int depth)
{
    struct stat st;

    if (ctk_proc_interrupted()) {
        /* before each entry, whatever it is: a tree of empty directories
         * is a long walk too */
        ctk_error_set(c->err, CTK_E_ENV, p, 0, 0, "not walked: interrupted");
        return false;
    }
    if (lstat(p, &st) != 0) {
        ctk_error_set(c->err, CTK_E_IO, p, 0, 0, "cannot stat: %s", strerror(errno));
        return false;
    }
    if (S_ISDIR(st.st_mode))
        return name[0] == '.' ? add_skip(c->rep, p, "hidden directory: not walked", c->err) : walk(c, p, depth + 1);
    if (S_ISLNK(st.st_mode))
        return walk_link(c, p);
    return lint_file(c, p, true); /* what is not a regular file is refused there, unread */
}

static bool walk(lctx_t *c, const char *dir, int depth)
{
    ctk_strlist_t names;
    bool ok;

    if (depth > MAX_DEPTH)
        return add_skip(c->rep, dir, "directory nested too deep: not walked", c->err);
    ctk_strlist_init(&names);
    ok = read_names(c, dir, &names);
    for (size_t i = 0; ok && i < names.len; i++) {
        char *p = ctk_path_join(dir, names.items[i], c->err);

        ok = p && walk_entry(c, p, names.items[i], depth);
        free(p);
    }
    ctk_strlist_fini(&names);
    return ok;
}


/* Tcl as root: evaluated as the sandbox's user, who must be able to run
 * Environment Modules at all (else each Tcl file gets CTK-SKIP-004,
 * unless --trust-tcl loads it as root). */
static bool setup_sandbox(lctx_t *c, const char *tmp, const char *runner, const char *what, ctk_error_t *err)
{
    char who[96];

    if (!ctk_sandbox_init(&c->sb, c->o->trust_tcl, tmp, err) || !ctk_sandbox_need(&c->sb, runner, what, err))
        return false;
    if (!c->sb.drop)
        return true;
    c->rep->trust_tcl = c->sb.trust_root_files;
    return (c->rep->tcl_user = ctk_strdup(ctk_sandbox_describe(&c->sb, who, sizeof who), err)) != NULL;
}

/* No Environment Modules: Lmod's tcl2lua when it is there and trusted
 * (then it replaces the reason Tcl files are not loaded), else that
 * reason says what was missing of both. */
static bool setup_t2l(lctx_t *c, const char *tmp, ctk_error_t *err)
{
    char *why = NULL, *both;
    bool untrusted = false;

    if (ctk_tcl2lua_find((const char *const *)environ, &c->t2l, &why, &untrusted, err)) {
        c->have_t2l = true;
        c->tcl_untrusted = false;
        free(c->rep->tcl_skip);
        c->rep->tcl_skip = NULL;
        return (c->rep->tcl_modsys = ctk_tcl2lua_describe(&c->t2l, err)) != NULL &&
               setup_sandbox(c, tmp, c->t2l.script, "Lmod's tcl2lua", err);
    }
    if (!why)
        return false;
    c->tcl_untrusted |= untrusted;
    both = ctk_printf(err, "%s; %s", c->rep->tcl_skip, why);
    free(why);
    if (!both)
        return false;
    free(c->rep->tcl_skip);
    c->rep->tcl_skip = both;
    return true;
}

static bool setup(lctx_t *c, ctk_error_t *err)
{
    const char *tmp = getenv("TMPDIR");
    char *home = NULL, *why = NULL;
    bool ok = false, found = false;

    if (!(c->tmproot = ctk_make_dtemp(ctk_tmp_base(), "ctkgen-lint", "temp dir", err)))
        return false;
    if (!(home = ctk_path_join(c->tmproot, "home", err)))
        goto out;
    if (mkdir(home, 0700) != 0) {
        ctk_error_set(err, CTK_E_IO, home, 0, 0, "cannot create: %s", strerror(errno));
        goto out;
    }
    if (!ctk_env_set(&c->base, "PATH", "/usr/bin:/bin", err) || !ctk_env_set(&c->base, "HOME", home, err) ||
        !ctk_env_set(&c->base, "TMPDIR", c->tmproot, err) || !ctk_env_set(&c->base, "LC_ALL", "C", err) ||
        !ctk_env_set(&c->base, "LANG", "C", err))
        goto out;
    /* tclsh, modulecmd.tcl, /bin/sh and env run only if no other user can
     * change them; else the Tcl files get CTK-TRUST-001 */
    /* --tcl-with lmod: as if there were none (no memory: why stays NULL) */
    if (c->o->tcl_with == CTK_LINT_TCL_LMOD)
        why = ctk_strdup("Environment Modules not used (--tcl-with lmod)", err);
    else
        found = ctk_modsys_find_tcl_trusted(c->o->modulecmd, (const char *const *)environ, &c->tcl, &why,
                                            &c->tcl_untrusted, err);
    if (found) {
        c->have_tcl = true;
        if (!(c->rep->tcl_modsys = ctk_printf(err, "Environment Modules %s (%s)", c->tcl.version ? c->tcl.version : "?",
                                              c->tcl.cmd)))
            goto out;
        if (!setup_sandbox(c, tmp, c->tcl.cmd, "Environment Modules", err))
            goto out;
    } else {
        if (!why)
            goto out;
        if (c->o->modulecmd && !c->tcl_untrusted) {
            ctk_error_set(err, CTK_E_ENV, c->o->modulecmd, 0, 0, "%s", why);
            goto out;
        }
        c->rep->tcl_skip = why;
        why = NULL;
        /* Lmod only where Environment Modules is absent: one named
         * (--modulecmd) or found but not trusted keeps its finding */
        if (c->o->tcl_with != CTK_LINT_TCL_MODULES && !c->o->modulecmd && !c->tcl_untrusted &&
            !setup_t2l(c, tmp, err))
            goto out;
    }
    ok = true;
out:
    free(why);
    free(home);
    return ok;
}

bool ctk_lint(const char *const *paths, size_t n_paths, const ctk_lint_opts_t *o, ctk_lint_report_t *out,
              ctk_error_t *err)
{
    lctx_t c;
    ctk_error_t e;
    bool ok = false;
    size_t i;

    memset(&c, 0, sizeof c);
    c.o = o;
    c.rep = out;
    c.timeout = o->timeout_s > 0 ? o->timeout_s : DEFAULT_TIMEOUT_S;
    ctk_env_init(&c.base);
    ctk_strlist_init(&c.seen);
    ctk_error_init(&e);
    c.err = &e;
    /* every path first: a typo must not cost a half-done run */
    for (i = 0; i < n_paths; i++) {
        struct stat st;

        if (stat(paths[i], &st) != 0) {
            ctk_error_set(&e, CTK_E_CONFIG, paths[i], 0, 0, "%s", strerror(errno));
            goto out;
        }
        if (access(paths[i], R_OK) != 0) {
            ctk_error_set(&e, CTK_E_CONFIG, paths[i], 0, 0, "cannot read: %s", strerror(errno));
            goto out;
        }
    }
    if (!setup(&c, &e))
        goto out;
    for (i = 0; i < n_paths; i++) {
        bool good;

        c.top = ctk_is_dir(paths[i]) ? paths[i] : NULL;
        good = c.top ? walk(&c, paths[i], 0) : lint_file(&c, paths[i], false);

        if (!good)
            goto out;
    }
    ok = true;
out:
    if (!ok && err && !ctk_error_is_set(err))
        *err = e;
    if (c.tmproot)
        ctk_remove_tree(c.tmproot);
    free(c.tmproot);
    if (c.have_tcl)
        ctk_modsys_info_fini(&c.tcl);
    ctk_tcl2lua_fini(&c.t2l);
    ctk_sandbox_fini(&c.sb);
    ctk_env_fini(&c.base);
    ctk_strlist_fini(&c.seen);
    return ok;
}
