/* lintfix.c - fixes that fit the file lint looked at (see lintfix.h).
 * SPDX-License-Identifier: MIT
 *
 * The words a fix needs (the variable, the directory) are read back from
 * the finding's message, whose forms checks.c and lint.c fix; a message
 * that does not have the form expected keeps the table's fix, which is
 * never wrong, only less precise.
 */
#include <ctkconf.h>

#include "checks.h"
#include "lintfix.h"
#include "render.h"

#include <stdio.h>
#include <string.h>

#define WORD_MAX 1024

typedef struct {
    ctk_lint_file_t *f;
    const char *text;
    size_t i;              /* the finding */
    const ctk_finding_t *x;
    char at[40];           /* " at line N", or "" */
    ctk_error_t *err;
} fixctx_t;

bool ctk_lintfix_is_own(const char *text)
{
    const char *p = text;

    for (int n = 0; p && *p && n < 5; n++) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        const char *hit = strstr(p, CTK_GENERATED_MARK);

        if (hit && (size_t)(hit - p) < len)
            return true;
        p = eol ? eol + 1 : NULL;
    }
    return false;
}

/* The word after the first marker in s (up to a blank, ',' or the end)
 * into buf; false when there is no marker or no word. */
static bool word_after(const char *s, const char *marker, char *buf, size_t n)
{
    const char *p = s ? strstr(s, marker) : NULL;
    size_t len;

    if (!p)
        return false;
    p += strlen(marker);
    len = strcspn(p, " \t,");
    if (len == 0 || len >= n)
        return false;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return true;
}

/* The last blank-separated word of s. */
static bool last_word(const char *s, char *buf, size_t n)
{
    const char *sp = s ? strrchr(s, ' ') : NULL;

    return sp && word_after(sp, " ", buf, n);
}

/* The first word of s, up to a blank, '=' or ','. */
static bool first_word(const char *s, char *buf, size_t n)
{
    size_t len = s ? strcspn(s, " \t=,") : 0;

    if (len == 0 || len >= n)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return true;
}

static bool is_lua(const fixctx_t *c)
{
    return c->f->kind == CTK_LINT_LUA;
}

/* How this file adds dir to var: prepend_path("V", "D") or prepend-path V D. */
static void prepend_call(const fixctx_t *c, const char *var, const char *dir, char *buf, size_t n)
{
    if (is_lua(c))
        snprintf(buf, n, "prepend_path(\"%s\", \"%s\")", var, dir);
    else
        snprintf(buf, n, "prepend-path %s %s", var, dir);
}

#define SET_FIX(c, ...) ctk_findings_set_fix(&(c)->f->findings, (c)->i, (c)->err, __VA_ARGS__)

static bool fix_mod_001(fixctx_t *c)
{
    if (c->f->kind == CTK_LINT_PC)
        return SET_FIX(c, "correct the line the message quotes%s; pkg-config fails on it the same way", c->at);
    return SET_FIX(c, "correct what the message quotes%s of this file: `module load` fails on it the same way "
                   "under %s", c->at, is_lua(c) ? "Lmod" : "Environment Modules");
}

static bool fix_mod_003(fixctx_t *c)
{
    if (is_lua(c))
        return SET_FIX(c, "add family(\"cuda\") to this file, so that loading another toolkit's module swaps "
                       "this one out");
    return SET_FIX(c, "add 'family cuda' (Environment Modules 5, Lmod) or 'conflict %.*s' to this file",
                   (int)strcspn(c->f->name, "/"), c->f->name);
}

static bool fix_env_003(fixctx_t *c)
{
    char set[WORD_MAX], var[WORD_MAX];

    if (!word_after(c->x->text, "sets ", set, sizeof set) || !first_word(set, var, sizeof var))
        return true;
    return SET_FIX(c, "remove %s%s%s%s; users' builds get the toolkit's flags from CPATH, LIBRARY_PATH or a "
                   ".pc file", is_lua(c) ? "the setenv(\"" : "'setenv ", var, is_lua(c) ? "\", ...) call" : " ...'",
                   c->at);
}

static bool fix_ldlib_001(fixctx_t *c)
{
    char dir[WORD_MAX], call[WORD_MAX + 64];

    if (!last_word(c->x->text, dir, sizeof dir))
        return true;
    prepend_call(c, "LIBRARY_PATH", dir, call, sizeof call);
    return SET_FIX(c, "remove %s from LD_LIBRARY_PATH%s (the %s that adds it); where builds need the stubs, "
                   "%s instead", dir, c->at, is_lua(c) ? "prepend_path or append_path" : "prepend-path or append-path",
                   call);
}

static bool fix_ldlib_002(fixctx_t *c)
{
    char other[WORD_MAX], own[WORD_MAX], call[WORD_MAX + 64];

    if (!word_after(c->x->text, "puts ", other, sizeof other) || !last_word(c->x->text, own, sizeof own))
        return true;
    prepend_call(c, "LD_LIBRARY_PATH", own, call, sizeof call);
    return SET_FIX(c, "remove the call that adds %s to LD_LIBRARY_PATH%s, or make %s the file's last "
                   "LD_LIBRARY_PATH prepend, so this toolkit's libcudart comes first",
                   other, c->at, call);
}

/* CTK-LDLIB-003, CTK-CPATH-001/002: "V misses D", or "the Libs miss -LD" /
 * "the Cflags miss -ID" for a .pc. */
static bool fix_missing_dir(fixctx_t *c)
{
    char var[WORD_MAX], dir[WORD_MAX], call[2 * WORD_MAX + 32];
    const char *t = c->x->text;

    if (c->f->kind == CTK_LINT_PC) {
        const char *field = strncmp(t, "the Libs", 8) == 0 ? "Libs" : "Cflags";

        if (!word_after(t, " miss ", dir, sizeof dir))
            return true;
        return SET_FIX(c, "add %s to the %s: field%s of this file", dir, field, c->at);
    }
    if (!first_word(t, var, sizeof var) || !word_after(t, " misses ", dir, sizeof dir))
        return true;
    prepend_call(c, var, dir, call, sizeof call);
    return SET_FIX(c, "add %s to this file%s%s", call, c->x->line > 0 ? ", next to its other entries" : "", c->at);
}

static bool fix_path_001(fixctx_t *c)
{
    char dir[WORD_MAX + 8], call[2 * WORD_MAX];

    if (!c->f->root)
        return true;
    snprintf(dir, sizeof dir, "%s/bin", c->f->root);
    prepend_call(c, "PATH", dir, call, sizeof call);
    return SET_FIX(c, "add %s to this file%s, after any call that puts another nvcc first", call, c->at);
}

static bool fix_pc_002(fixctx_t *c)
{
    if (!c->f->version)
        return true;
    return SET_FIX(c, "set 'Version: %s'%s in this file, or point its directories at a toolkit of the Version "
                   "it declares", c->f->version, c->at);
}

static bool fix_pc_004(fixctx_t *c)
{
    char var[WORD_MAX], pc[WORD_MAX], call[WORD_MAX + 64];

    if (!first_word(c->x->text, var, sizeof var) || !word_after(c->x->text, " names ", pc, sizeof pc))
        return true;
    prepend_call(c, "PKG_CONFIG_PATH", "<dir holding it>", call, sizeof call);
    return SET_FIX(c, "add %s for %s to this file, or make %s%s name a .pc that a PKG_CONFIG_PATH dir holds",
                   call, pc, var, c->at);
}

/* The version part of "name/version", or the whole name. */
static const char *name_version(const char *full)
{
    const char *slash = strrchr(full, '/');

    return slash ? slash + 1 : full;
}

/* "13.0" of "13.0.88": the release a module name speaks of. */
static int major_minor_len(const char *v)
{
    const char *dot = strchr(v, '.');

    return (int)(dot && strchr(dot + 1, '.') ? (size_t)(strchr(dot + 1, '.') - v) : strlen(v));
}

static bool fix_ver_001(fixctx_t *c)
{
    const ctk_lint_file_t *f = c->f;
    char var[WORD_MAX], where[48] = "";
    int line;

    if (!f->version || !f->found_by || !strchr(f->name, '/') || !first_word(f->found_by, var, sizeof var))
        return true;
    if ((line = ctk_check_line_of(c->text, var)) > 0)
        snprintf(where, sizeof where, " (line %d)", line);
    return SET_FIX(c, "rename the module file to %.*s/%.*s%s, or point %s%s at a CUDA %s toolkit",
                   (int)(name_version(f->name) - f->name - 1), f->name, major_minor_len(f->version), f->version,
                   is_lua(c) ? ".lua" : "", var, where, name_version(f->name));
}

typedef struct {
    const char *code;
    bool (*fix)(fixctx_t *c);
} rule_t;

static const rule_t rules[] = {
    { "CTK-MOD-001", fix_mod_001 },       { "CTK-MOD-003", fix_mod_003 },     { "CTK-ENV-003", fix_env_003 },
    { "CTK-LDLIB-001", fix_ldlib_001 },   { "CTK-LDLIB-002", fix_ldlib_002 }, { "CTK-LDLIB-003", fix_missing_dir },
    { "CTK-CPATH-001", fix_missing_dir }, { "CTK-CPATH-002", fix_missing_dir }, { "CTK-PATH-001", fix_path_001 },
    { "CTK-PC-002", fix_pc_002 },         { "CTK-PC-004", fix_pc_004 },       { "CTK-VER-001", fix_ver_001 },
    { NULL, NULL },
};

bool ctk_lintfix_apply(ctk_lint_file_t *f, const char *text, ctk_error_t *err)
{
    fixctx_t c;

    memset(&c, 0, sizeof c);
    c.f = f;
    c.text = text;
    c.err = err;
    if (!f->name)
        return true;
    for (c.i = 0; c.i < f->findings.len; c.i++) {
        c.x = &f->findings.items[c.i];
        c.at[0] = '\0';
        if (c.x->line > 0)
            snprintf(c.at, sizeof c.at, " at line %d", c.x->line);
        for (const rule_t *r = rules; r->code; r++)
            if (strcmp(r->code, c.x->code) == 0 && !r->fix(&c))
                return false;
    }
    return true;
}
