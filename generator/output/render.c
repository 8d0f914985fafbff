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
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TEMPLATE_MAX_BYTES (1u << 20)

/* ---- templates ------------------------------------------------------------- */
/* What an output must be, to be written at all. */
typedef enum {
    OUT_LUA, /* compiles as Lua (Lmod loads it as a chunk) */
    OUT_TCL, /* "#%Module" first, then a complete Tcl script */
    OUT_PC   /* parses as a .pc file: fields, variables, Name/Description/Version */
} out_kind_t;

/* Every template ctkgen reads: one list for rendering and for the check
 * of a site's template dir.  ctk_builtin_templates holds the same names. */
enum { T_LMOD, T_LMOD_RC, T_TCL, T_TCL_RC, T_PC, T_PC_LIB, T__COUNT };
static const struct {
    const char *name;
    out_kind_t kind;
} templates[T__COUNT] = {
    [T_LMOD] = { "lmod.lua", OUT_LUA },  [T_LMOD_RC] = { "lmod-rc.lua", OUT_LUA },
    [T_TCL] = { "tcl.lua", OUT_TCL },    [T_TCL_RC] = { "tcl-rc.lua", OUT_TCL },
    [T_PC] = { "pc.lua", OUT_PC },       [T_PC_LIB] = { "pc-lib.lua", OUT_PC },
};

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
            *label = ctk_concat(err, "templates/", name, NULL);
            return *label ? t->data : NULL;
        }
    }
    ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "no built-in template %s", name);
    return NULL;
}

/* ---- a site's template dir ----------------------------------------------------
 * Every entry of the dir must be a template ctkgen reads, as every key of
 * the config must be one it knows: a misspelt template would otherwise be
 * ignored without a word, and the site would believe it is in use.  Names
 * starting with '.' (.git, editor state) are left alone.  A dir holding no
 * template at all is refused too: it changes nothing, which is never what
 * -t was given for. */


static int template_index(const char *name)
{
    int i;

    for (i = 0; i < T__COUNT; i++)
        if (strcmp(templates[i].name, name) == 0)
            return i;
    return -1;
}

/* The known name closest to name (at most two edits, or the same but for
 * case); NULL when none is. */
static const char *closest_template(const char *name)
{
    const char *best = NULL;
    size_t best_d = 3, d;
    int i;

    for (i = 0; i < T__COUNT; i++) {
        d = strcasecmp(name, templates[i].name) == 0 ? 0 : ctk_edit_distance(name, templates[i].name);
        if (d < best_d) {
            best_d = d;
            best = templates[i].name;
        }
    }
    return best;
}

#define KNOWN_TEMPLATES "lmod.lua, lmod-rc.lua, tcl.lua, tcl-rc.lua, pc.lua and pc-lib.lua"

/* A known template name in dir: it must be a regular file (a dir or a
 * dangling link of a known name would be passed over for the built-in
 * template). */
static bool known_template_ok(const char *dir, const char *name, ctk_error_t *err)
{
    char *path = ctk_path_join(dir, name, err);
    bool ok = path && ctk_is_file(path);

    if (path && !ok)
        ctk_error_set(err, CTK_E_TEMPLATE, path, 0, 0, "not a regular file: a template must be one");
    free(path);
    return ok;
}

/* A name in the template dir that is no template: CTK_E_TEMPLATE, with
 * the closest known name when there is one. */
static void unknown_template(const char *dir, const char *bad, ctk_error_t *err)
{
    const char *near = closest_template(bad);
    char *path = ctk_path_join(dir, bad, err);

    if (path && near)
        ctk_error_set(err, CTK_E_TEMPLATE, path, 0, 0, "not a template ctkgen knows; did you mean %s?", near);
    else if (path)
        ctk_error_set(err, CTK_E_TEMPLATE, path, 0, 0,
                      "not a template ctkgen knows (it reads " KNOWN_TEMPLATES
                      "; names starting with '.' are left alone): move it out of the template dir");
    free(path);
}

/* Every name in the template dir that does not start with '.' is a known
 * template, a regular file, and there is at least one. */
static bool check_template_dir(const char *dir, ctk_error_t *err)
{
    DIR *d;
    struct dirent *e;
    char *bad = NULL;
    size_t known = 0;
    bool ok = true;

    errno = 0;
    if (!(d = opendir(dir))) {
        if (errno == ENOMEM)
            ctk_error_nomem(err);
        else
            ctk_error_set(err, CTK_E_IO, dir, 0, 0, "cannot read the template dir: %s", strerror(errno));
        return false;
    }
    while (ok && (errno = 0, e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (template_index(e->d_name) >= 0) {
            ok = known_template_ok(dir, e->d_name, err);
            known++;
        } else if (!bad || strcmp(e->d_name, bad) < 0) {
            /* the first in byte order, so that the message does not depend
             * on the order readdir() gives */
            free(bad);
            ok = (bad = ctk_strdup(e->d_name, err)) != NULL;
        }
    }
    if (ok && errno) {
        ctk_error_set(err, CTK_E_IO, dir, 0, 0, "cannot read the template dir: %s", strerror(errno));
        ok = false;
    } else if (ok && bad) {
        unknown_template(dir, bad, err);
        ok = false;
    } else if (ok && known == 0) {
        ctk_error_set(err, CTK_E_TEMPLATE, dir, 0, 0,
                      "holds none of the templates ctkgen reads (" KNOWN_TEMPLATES "), so it would change nothing");
        ok = false;
    }
    closedir(d);
    free(bad);
    return ok;
}

/* ---- checks of what a template wrote ----------------------------------------- */
/* The line of text holding at. */
static int line_of(const char *text, const char *at)
{
    int line = 1;
    const char *p;

    for (p = text; p < at; p++)
        if (*p == '\n')
            line++;
    return line;
}

/* Tcl's parser (tclParse.c of Tcl 8.6: Tcl_ParseCommand, ParseComment,
 * ParseWhiteSpace, ParseTokens, Tcl_ParseVarName, ParseBraces) reduced to
 * what decides completeness.  Braces count raw (a backslash escapes the
 * next byte), double quotes and brackets hold substitutions, ';', newline
 * and (inside brackets) ']' end a command, '#' at a command's start runs
 * to the end of its line (a backslash escapes there too), ${name} needs
 * its '}', $name(index) its ')', and a backslash-newline as the last two
 * bytes leaves the script open. */
typedef struct {
    const char *end;
    bool incomplete;
    bool failed;
    const char *at;  /* where the trouble starts */
    const char *why;
    int depth;
} tcl_t;

#define TCL_MAX_DEPTH 500

enum {
    M_SPACE = 1u << 0, /* blanks end a word */
    M_END = 1u << 1,   /* '\n' and ';' */
    M_BRACK = 1u << 2, /* ']' */
    M_QUOTE = 1u << 3, /* '"' */
    M_PAREN = 1u << 4  /* ')' */
};

static bool tcl_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* The masks each byte belongs to, looked up rather than tested: the check
 * reads every byte of every Tcl module through it. */
static const unsigned char tcl_class[256] = {
    [' '] = M_SPACE, ['\t'] = M_SPACE, ['\v'] = M_SPACE, ['\f'] = M_SPACE, ['\r'] = M_SPACE,
    ['\n'] = M_END, [';'] = M_END, [']'] = M_BRACK, ['"'] = M_QUOTE, [')'] = M_PAREN,
};

static bool tcl_in_mask(char c, unsigned mask)
{
    return (tcl_class[(unsigned char)c] & mask) != 0;
}

static bool tcl_fail(tcl_t *t, const char *at, const char *why, bool incomplete)
{
    t->failed = true;
    t->at = at;
    t->why = why;
    t->incomplete = t->incomplete || incomplete;
    return false;
}

static void tcl_open_end(tcl_t *t, const char *bs)
{
    if (!t->incomplete) {
        t->incomplete = true;
        t->at = bs;
        t->why = "a backslash-newline at the end continues the script into nothing";
    }
}

/* ParseWhiteSpace: blanks and backslash-newlines. */
static const char *tcl_ws(tcl_t *t, const char *p)
{
    for (;;) {
        while (p < t->end && tcl_space(*p))
            p++;
        if (p + 1 < t->end && p[0] == '\\' && p[1] == '\n') {
            p += 2;
            if (p == t->end)
                tcl_open_end(t, p - 2);
            continue;
        }
        return p;
    }
}

/* ParseComment: blank lines and comments before a command. */
static const char *tcl_comments(tcl_t *t, const char *p)
{
    while (p < t->end) {
        for (;;) {
            p = tcl_ws(t, p);
            if (p < t->end && *p == '\n')
                p++;
            else
                break;
        }
        if (p == t->end || *p != '#')
            break;
        while (p < t->end) {
            if (*p == '\\') {
                const char *q = tcl_ws(t, p);

                p = q != p ? q : p + (p + 1 < t->end ? 2 : 1);
            } else if (*p++ == '\n') {
                break;
            }
        }
    }
    return p;
}

static bool tcl_command(tcl_t *t, const char *p, bool nested, const char **next,
                        const char **term);

/* ParseTokens: text up to a byte of mask (or the end) with its $, [ and
 * backslash substitutions; *out gets where it stopped. */
static bool tcl_tokens(tcl_t *t, const char *p, unsigned mask, const char **out);

/* Tcl_ParseVarName, p at '$'. */
static bool tcl_var(tcl_t *t, const char **pp)
{
    const char *dollar = *pp, *p = dollar + 1, *q;

    if (p < t->end && *p == '{') {
        while (++p < t->end && *p != '}')
            ;
        if (p == t->end)
            return tcl_fail(t, dollar, "missing close-brace for variable name", true);
        *pp = p + 1;
        return true;
    }
    while (p < t->end) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '_') {
            p++;
        } else if (*p == ':' && p + 1 < t->end && p[1] == ':') {
            for (p += 2; p < t->end && *p == ':'; p++)
                ;
        } else {
            break;
        }
    }
    if (p == t->end || *p != '(') {
        *pp = p; /* with no name this is a plain '$' */
        return true;
    }
    if (++t->depth > TCL_MAX_DEPTH)
        return tcl_fail(t, p, "array indices nested too deep", false);
    if (!tcl_tokens(t, p + 1, M_PAREN, &q))
        return false;
    t->depth--;
    if (q == t->end)
        return tcl_fail(t, dollar, "missing ) of an array index", true);
    *pp = q + 1;
    return true;
}

static bool tcl_tokens(tcl_t *t, const char *p, unsigned mask, const char **out)
{
    while (p < t->end && !tcl_in_mask(*p, mask)) {
        if (*p == '$') {
            if (!tcl_var(t, &p))
                return false;
        } else if (*p == '[') {
            const char *open = p, *term;

            if (++t->depth > TCL_MAX_DEPTH)
                return tcl_fail(t, open, "brackets nested too deep", false);
            for (p++;;) {
                if (!tcl_command(t, p, true, &p, &term))
                    return false;
                if (term < t->end && *term == ']')
                    break;
                if (p == t->end)
                    return tcl_fail(t, open, "missing close-bracket", true);
            }
            t->depth--;
        } else if (*p == '\\') {
            if (p + 1 == t->end) {
                p++;
                continue;
            }
            if (p[1] == '\n') {
                if (p + 2 == t->end)
                    tcl_open_end(t, p);
                if (mask & M_SPACE)
                    break; /* a backslash-newline is a blank: it ends the word */
            }
            p += 2;
        } else {
            p++;
        }
    }
    *out = p;
    return true;
}

/* ParseBraces, p at '{'; *out gets the byte after the matching '}'. */
static bool tcl_braces(tcl_t *t, const char *p, const char **out)
{
    const char *open = p;
    int level = 1;

    for (p++; p < t->end; p++) {
        if (*p == '{') {
            level++;
        } else if (*p == '}') {
            if (--level == 0) {
                *out = p + 1;
                return true;
            }
        } else if (*p == '\\' && p + 1 < t->end) {
            if (p[1] == '\n' && p + 2 == t->end)
                tcl_open_end(t, p);
            p++;
        }
    }
    return tcl_fail(t, open, "missing close-brace", true);
}

/* Tcl_ParseCommand: one command from p; *next gets where the next one
 * starts, *term its terminator (or the end). */
static bool tcl_command(tcl_t *t, const char *p, bool nested, const char **next,
                        const char **term)
{
    unsigned ends = M_END | (nested ? M_BRACK : 0);

    p = tcl_comments(t, p);
    for (;;) {
        bool expanded = false;
        const char *q;

        p = tcl_ws(t, p);
        if (p == t->end || tcl_in_mask(*p, ends)) {
            *term = p;
            *next = p == t->end ? p : p + 1;
            return true;
        }
word:
        if (*p == '"') {
            if (!tcl_tokens(t, p + 1, M_QUOTE, &q))
                return false;
            if (q == t->end)
                return tcl_fail(t, p, "missing close-quote", true);
            p = q + 1;
        } else if (*p == '{') {
            const char *open = p;

            if (!tcl_braces(t, p, &p))
                return false;
            /* {*} right before a word: that word, expanded */
            if (!expanded && p - open == 3 && open[1] == '*' && p < t->end &&
                tcl_ws(t, p) == p && *p != '\n' && *p != ';') {
                expanded = true;
                goto word;
            }
        } else {
            if (!tcl_tokens(t, p, M_SPACE | ends, &p))
                return false;
        }
        q = tcl_ws(t, p);
        if (q != p || p == t->end || tcl_in_mask(*p, ends)) {
            p = q;
            continue;
        }
        return tcl_fail(t, p, p[-1] == '"' ? "extra characters after close-quote"
                                           : "extra characters after close-brace", false);
    }
}

ctk_tcl_check_t ctk_render_check_tcl(const char *text, size_t len, int *line, const char **why)
{
    tcl_t t;
    const char *p = text, *term;

    memset(&t, 0, sizeof t);
    t.end = text + len;
    while (p < t.end) {
        if (!tcl_command(&t, p, false, &p, &term))
            break;
    }
    if (line)
        *line = t.at ? line_of(text, t.at) : 0;
    if (why)
        *why = t.why;
    /* as in Tcl's CommandComplete: a parse error that is not a missing
     * close is "complete", but still no script */
    if (t.incomplete)
        return CTK_TCL_INCOMPLETE;
    return t.failed ? CTK_TCL_BAD : CTK_TCL_COMPLETE;
}

/* A .pc file as libpkgconf reads it (parser.c, fgetline): a line is blank,
 * a comment, "name=value" or "Field: value", a '#' not after a backslash
 * starts a comment, and a backslash-newline joins lines.  Beyond what
 * pkgconf checks: Name, Description and Version are each there once and
 * not empty, Version has no blank, and every ${name} is a variable defined
 * above it (pkgconf would put nothing in its place). */
/* The bytes that end a run of a .pc line's plain text. */
static const bool pc_line_special[256] = { ['\\'] = true, ['#'] = true, ['\n'] = true };

/* What check_pc() has seen so far, and where it reports. */
typedef struct {
    struct {
        const char *s;
        size_t n;
    } vars[256];
    size_t n_vars;
    bool overflow;  /* more variables than vars holds: no ${} check */
    int seen[3];    /* Name, Description, Version */
    int ln;         /* the line being checked */
    int *line;
    char *why;
    size_t whylen;
} pcchk_t;

static const char *const pc_needed[] = { "Name", "Description", "Version" };

static bool pc_bad(pcchk_t *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool pc_bad(pcchk_t *c, int line, const char *fmt, ...)
{
    va_list ap;

    *c->line = line;
    va_start(ap, fmt);
    vsnprintf(c->why, c->whylen, fmt, ap);
    va_end(ap);
    return false;
}

/* One logical line from p, as pkgconf_fgetline() reads it: a backslash
 * escapes the next byte (a newline too: the lines join), an unescaped '#'
 * ends the line's text and the line.  Returns where the line ends (its
 * newline, or end); *vend where its text ends; *next_ln counts the lines
 * it spans. */
static const char *pc_logical_line(const char *p, const char *end, const char **vend, int *next_ln)
{
    const char *eol;

    *vend = NULL;
    for (eol = p; eol < end; eol++) {
        while (eol < end && !pc_line_special[(unsigned char)*eol])
            eol++;
        if (eol == end)
            break;
        if (*eol == '\\') { /* the next byte as it is (a newline too) */
            if (eol + 1 < end && *++eol == '\n')
                (*next_ln)++;
            continue;
        }
        if (*eol == '#') {
            *vend = eol;
            while (eol < end && *eol != '\n')
                eol++;
            if (eol < end)
                (*next_ln)++;
            break;
        }
        (*next_ln)++; /* a newline */
        break;
    }
    if (!*vend)
        *vend = eol;
    return eol;
}

/* Every ${name} in v..vend names a variable defined above, or pkgconf's own. */
static bool pc_refs_defined(pcchk_t *c, const char *v, const char *vend)
{
    static const char *const builtin[] = { "pcfiledir", "pc_sysrootdir", "pc_top_builddir" };
    const char *q, *close;
    size_t i, n;

    for (q = v; q < vend; q++) {
        bool known = false;

        if (q[0] != '$' || q + 1 >= vend || q[1] != '{')
            continue;
        for (close = q + 2; close < vend && *close != '}'; close++)
            ;
        if (close == vend)
            return pc_bad(c, c->ln, "a '${' with no '}'");
        n = (size_t)(close - q - 2);
        for (i = 0; i < c->n_vars && !known; i++)
            known = c->vars[i].n == n && strncmp(c->vars[i].s, q + 2, n) == 0;
        for (i = 0; i < sizeof builtin / sizeof builtin[0] && !known; i++)
            known = strlen(builtin[i]) == n && strncmp(builtin[i], q + 2, n) == 0;
        if (!known && !c->overflow)
            return pc_bad(c, c->ln, "${%.*s} names no variable defined above it", (int)(n > 64 ? 64 : n), q + 2);
        q = close;
    }
    return true;
}

/* A field: Name, Description and Version once each, not empty, and no
 * blank inside the Version; other fields as they are. */
static bool pc_field_ok(pcchk_t *c, const char *key, size_t klen, const char *v, const char *vend)
{
    const char *q;
    size_t k;

    for (k = 0; k < 3; k++) {
        if (klen != strlen(pc_needed[k]) || strncmp(key, pc_needed[k], klen) != 0)
            continue;
        if (c->seen[k]++)
            return pc_bad(c, c->ln, "a second %s field", pc_needed[k]);
        if (v == vend)
            return pc_bad(c, c->ln, "an empty %s field", pc_needed[k]);
        for (q = v; k == 2 && q < vend; q++)
            if (isspace((unsigned char)*q))
                return pc_bad(c, c->ln, "a blank inside the Version");
    }
    return true;
}

/* One logical line's text, p..vend: blank, "name=value" or "Field: value". */
static bool pc_line_ok(pcchk_t *c, const char *p, const char *vend)
{
    const char *key, *q, *v;
    size_t klen;
    char op;

    for (key = p; key < vend && isspace((unsigned char)*key); key++)
        ;
    if (key == vend)
        return true;
    for (q = key; q < vend && (isalnum((unsigned char)*q) || *q == '_' || *q == '.'); q++)
        ;
    klen = (size_t)(q - key);
    while (q < vend && (*q == ' ' || *q == '\t'))
        q++;
    op = q < vend ? *q : '\0';
    if (klen == 0 || !isalpha((unsigned char)key[0]) || (op != ':' && op != '='))
        return pc_bad(c, c->ln, "neither a variable (name=value) nor a field (Name: value)");
    for (v = q + 1; v < vend && (*v == ' ' || *v == '\t'); v++)
        ;
    while (vend > v && isspace((unsigned char)vend[-1]))
        vend--;
    if (!pc_refs_defined(c, v, vend))
        return false;
    if (op == ':')
        return pc_field_ok(c, key, klen, v, vend);
    if (c->n_vars < sizeof c->vars / sizeof c->vars[0]) {
        c->vars[c->n_vars].s = key;
        c->vars[c->n_vars++].n = klen;
    } else {
        c->overflow = true;
    }
    return true;
}

static bool check_pc(const char *text, size_t len, int *line, char *why, size_t whylen)
{
    const char *p = text, *end = text + len, *eol, *vend;
    pcchk_t c;
    int next_ln = 1;
    size_t k;

    memset(&c, 0, sizeof c);
    c.line = line;
    c.why = why;
    c.whylen = whylen;
    while (p < end) {
        c.ln = next_ln;
        eol = pc_logical_line(p, end, &vend, &next_ln);
        if (!pc_line_ok(&c, p, vend))
            return false;
        p = eol < end ? eol + 1 : end;
    }
    for (k = 0; k < 3; k++)
        if (!c.seen[k])
            return pc_bad(&c, 0, "no %s field", pc_needed[k]);
    return true;
}

/* Control bytes shown as '?', for paths in messages. */
static void visible(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

/* A Lua modulefile loads as a Lua chunk. */
static bool check_lua_output(ctk_lua_renderer_t *lr, const char *label, const char *relpath, const char *text,
                             size_t len, ctk_error_t *err)
{
    ctk_error_t e;

    ctk_error_init(&e);
    if (ctk_lua_renderer_check_syntax(lr, relpath, text, len, &e))
        return true;
    if (e.code != CTK_E_TEMPLATE) {
        ctk_error_set(err, e.code, e.source, e.line, e.column, "%s", e.text);
        return false;
    }
    ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0, "wrote %s, which Lua cannot load: line %d: %s", relpath,
                  e.line, e.text);
    return false;
}

/* A Tcl modulefile has the magic cookie, without which Environment
 * Modules reads no file, and parses as a complete Tcl script. */
static bool check_tcl_output(const char *label, const char *relpath, const char *text, size_t len,
                             ctk_error_t *err)
{
    const char *tw;
    int line = 0;

    if (len < 8 || memcmp(text, "#%Module", 8) != 0) {
        ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0,
                      "wrote %s, which does not start with \"#%%Module\" (Environment "
                      "Modules would not read it)", relpath);
        return false;
    }
    switch (ctk_render_check_tcl(text, len, &line, &tw)) {
    case CTK_TCL_COMPLETE:
        return true;
    case CTK_TCL_INCOMPLETE:
        ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0,
                      "wrote %s, which is not a complete Tcl script: line %d: %s", relpath, line, tw);
        return false;
    case CTK_TCL_BAD:
        break;
    }
    ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0, "wrote %s, which Tcl cannot parse: line %d: %s", relpath,
                  line, tw);
    return false;
}

/* A .pc file as check_pc() reads one. */
static bool check_pc_output(const char *label, const char *relpath, const char *text, size_t len,
                            ctk_error_t *err)
{
    char why[256];
    int line = 0;

    if (check_pc(text, len, &line, why, sizeof why))
        return true;
    if (line)
        ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0, "wrote %s, which is not a .pc file: line %d: %s",
                      relpath, line, why);
    else
        ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0, "wrote %s, which is not a .pc file: %s", relpath, why);
    return false;
}

/* Whether text, which template `label` wrote for relpath, can be written:
 * not empty, no NUL byte, and of its kind (out_kind_t).  The error names
 * the template as its source and the output in the text. */
static bool check_output(ctk_lua_renderer_t *lr, out_kind_t kind, const char *label, const char *relpath,
                         const char *text, size_t len, ctk_error_t *err)
{
    if (len == 0) {
        ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0, "wrote nothing for %s", relpath);
        return false;
    }
    if (memchr(text, '\0', len)) {
        ctk_error_set(err, CTK_E_TEMPLATE, label, 0, 0, "wrote a NUL byte into %s (line %d)",
                      relpath, line_of(text, memchr(text, '\0', len)));
        return false;
    }
    switch (kind) {
    case OUT_LUA:
        return check_lua_output(lr, label, relpath, text, len, err);
    case OUT_TCL:
        return check_tcl_output(label, relpath, text, len, err);
    case OUT_PC:
        return check_pc_output(label, relpath, text, len, err);
    }
    ctk_error_set(err, CTK_E_INTERNAL, label, 0, 0, "no check for %s", relpath);
    return false;
}

/* Render template t over lr's data into out as relpath, once it passes
 * its check: a broken template stops the run before anything is written. */
static bool run_template(const ctk_render_opts_t *opts, ctk_lua_renderer_t *lr, int t, const char *relpath,
                         ctk_outset_t *out, ctk_error_t *err)
{
    char *owned = NULL, *label = NULL, *text = NULL;
    size_t len = 0, outlen = 0;
    const char *src = template_text(opts, templates[t].name, &len, &owned, &label, err);
    bool ok = false;

    if (!src)
        goto out;
    text = ctk_lua_renderer_run(lr, label, src, len, &outlen, err);
    if (!text || !check_output(lr, templates[t].kind, label, relpath, text, outlen, err))
        goto out;
    ok = ctk_outset_take(out, relpath, text, outlen, err);
    text = NULL; /* taken, even on failure */
out:
    free(text);
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

/* A .pc variable name = dir; one under root, when given, as a ref to
 * cudaroot and the rest of its path. */
static ctk_lval_t *pc_var(build_t *b, const char *name, const char *dir, const char *root)
{
    ctk_lval_t *v = ctk_lval_map();

    bput(b, v, "name", ctk_lval_str(name));
    if (root && under(dir, root)) {
        bput(b, v, "ref", ctk_lval_str("cudaroot"));
        bput(b, v, "value", ctk_lval_str(dir + strlen(root)));
    } else {
        bput(b, v, "value", ctk_lval_str(dir));
    }
    return v;
}

static ctk_lval_t *pc_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s, const char *desc,
                          const char *link_dir)
{
    const pc_role_t roles[] = {
        { "includedir", s->incdir, true },
        { "cccl_includedir", s->cccl_incdir, true },
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
    size_t i;

    /* the toolkit's root, always: the variables below build on it where
     * their dirs lie under it, and a .pc-only build takes nvcc from it
     * ($(pkg-config --variable=cudaroot ...)/bin/nvcc: sdk.c requires
     * base/bin/nvcc), even where no dir survives (Debian's /usr) */
    bpush(b, vars, pc_var(b, "cudaroot", s->root, NULL));
    for (i = 0; i < sizeof roles / sizeof roles[0]; i++) {
        if (!role_used(roles, i, s))
            continue;
        bpush(b, vars, pc_var(b, roles[i].var, roles[i].dir, s->root));
        bpush(b, roles[i].include ? cflags : libdirs, ctk_lval_str(roles[i].var));
    }
    if (link_dir) {
        /* ctkgen's own dir of unversioned names: on -L first, never on the
           run path (it holds no library the loader could use) */
        bpush(b, vars, pc_var(b, "ctk_linkdir", link_dir, NULL));
        bput(b, pc, "linkdir", ctk_lval_str("ctk_linkdir"));
    }
    bput(b, pc, "vars", vars);
    bput(b, pc, "cflags", cflags);
    bput(b, pc, "libdirs", libdirs);
    bput(b, pc, "libs", ctk_lval_str("-lcudart"));
    bput(b, pc, "rpath", ctk_lval_bool(cfg->pc_rpath));
    bput(b, pc, "description", ctk_lval_str(desc));
    /* for `nvcc -ccbin $(pkg-config --variable=ccbin ...)`: the one
     * variable no field uses, as prefix is in other .pc files */
    if (s->conf->host_compiler_ccbin)
        bput(b, pc, "ccbin", ctk_lval_str(s->conf->host_compiler_ccbin));
    return pc;
}

/* ---- one SDK's data tree ---------------------------------------------------- */

static bool has_lib(const ctk_sdk_t *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_libs; i++)
        if (strcmp(s->libs[i].name, name) == 0)
            return true;
    return false;
}

/* What the toolkit holds, in words, from what the SDK model found:
 * "compiler (nvcc), runtime, math libraries (cuBLAS, cuFFT), CUPTI and NCCL".
 * nvcc and libcudart are always there (sdk.c refuses a toolkit without
 * them); a tree assembled from NVIDIA's CUDA 13 wheels may hold nothing
 * more, and its whatis must not promise math libraries.  A part counts
 * when its directory was verified (CUPTI, comm_libs) or its library found
 * in one of the toolkit's lib dirs (a wheel tree's lib/ may hold libnccl).
 * Caller frees. */
static char *contents_text(const ctk_sdk_t *s, ctk_error_t *err)
{
    const char *parts[6];
    size_t n = 0, i, n_math = 0;
    ctk_buf_t math, b;
    char *text = NULL;

    ctk_buf_init(&math);
    ctk_buf_init(&b);
    for (i = 0; i < s->n_libs; i++)
        if (s->libs[i].math && s->libs[i].label)
            ctk_buf_printf(&math, "%s%s", n_math++ ? ", " : "math libraries (", s->libs[i].label);
    if (n_math)
        ctk_buf_puts(&math, ")");
    parts[n++] = "compiler (nvcc)";
    parts[n++] = "runtime";
    if (n_math && !math.failed)
        parts[n++] = math.data;
    if (s->cupti_libdir || has_lib(s, "cupti"))
        parts[n++] = "CUPTI";
    if (s->nccl_libdir || has_lib(s, "nccl"))
        parts[n++] = "NCCL";
    if (s->nvshmem_libdir || has_lib(s, "nvshmem"))
        parts[n++] = "NVSHMEM";
    for (i = 0; i < n; i++)
        ctk_buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : " and ", parts[i]);
    if (!math.failed && !b.failed)
        text = ctk_buf_take(&b, NULL);
    else
        ctk_error_nomem(err);
    ctk_buf_fini(&b);
    ctk_buf_fini(&math);
    return text;
}

/* ctk.paths: each path variable the module prepends to, with its dirs.
 * CMake's find_library and find_path search CMAKE_LIBRARY_PATH and
 * CMAKE_INCLUDE_PATH before FindCUDAToolkit's hints and before the
 * system's dirs: the toolkit's own dirs (math_libs, CUPTI of a split tree)
 * then win over a cuBLAS in /usr/local/lib64 or /usr/lib.  LIBRARY_PATH
 * and CMAKE_LIBRARY_PATH start with link_dir (render.h) when there is one. */
static ctk_lval_t *paths_val(build_t *b, const ctk_sdk_t *s, const char *pkgconfig_dir, const char *link_dir,
                             ctk_error_t *err)
{
    ctk_lval_t *paths = ctk_lval_list();
    ctk_strlist_t pcpath, libpath;
    struct {
        const char *name;
        const ctk_strlist_t *dirs;
    } vars[] = {
        { "PATH", &s->path },
        { "CPATH", &s->cpath },
        { "LIBRARY_PATH", &libpath },
        { "LD_LIBRARY_PATH", &s->ld_library_path },
        { "MANPATH", &s->manpath },
        { "PKG_CONFIG_PATH", &pcpath },
        { "CMAKE_INCLUDE_PATH", &s->cpath },
        { "CMAKE_LIBRARY_PATH", &libpath },
    };
    size_t i;

    ctk_strlist_init(&pcpath);
    ctk_strlist_init(&libpath);
    if (!ctk_strlist_push(&pcpath, pkgconfig_dir, err) || (link_dir && !ctk_strlist_push(&libpath, link_dir, err)))
        b->ok = false;
    for (i = 0; b->ok && i < s->library_path.len; i++)
        if (!ctk_strlist_push(&libpath, s->library_path.items[i], err))
            b->ok = false;
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
    ctk_strlist_fini(&libpath);
    ctk_strlist_fini(&pcpath);
    return paths;
}

/* ctk.setenv: the toolkit's root three ways, <MODULE>_VERSION (vvar),
 * CUDAHOSTCXX, then the site's and the SDK's "env". */
static ctk_lval_t *setenv_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s, const char *vvar,
                              const char *shown)
{
    const ctk_sdk_conf_t *c = s->conf;
    ctk_lval_t *env = ctk_lval_list();
    size_t i;

    bpush(b, env, pair_val(b, "CUDA_HOME", s->root));
    bpush(b, env, pair_val(b, "CUDA_PATH", s->root));
    bpush(b, env, pair_val(b, "CUDAToolkit_ROOT", s->root));
    if (vvar)
        bpush(b, env, pair_val(b, vvar, shown));
    /* CMake's CUDA language takes its host compiler from CUDAHOSTCXX; nvcc
     * itself from NVCC_PREPEND_FLAGS (the templates), which 11.8, 12.4
     * and 13.0 all read, where 11.8 and 12.4 ignore NVCC_CCBIN */
    if (c->host_compiler_ccbin)
        bpush(b, env, pair_val(b, "CUDAHOSTCXX", c->host_compiler_ccbin));
    for (i = 0; i < cfg->n_env; i++)
        bpush(b, env, pair_val(b, cfg->env[i].name, cfg->env[i].value));
    for (i = 0; i < c->n_env; i++)
        bpush(b, env, pair_val(b, c->env[i].name, c->env[i].value));
    return env;
}

/* ctk.properties: Lmod's add_property, the site's then the SDK's (config.h). */
static ctk_lval_t *props_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_conf_t *c, ctk_error_t *err)
{
    ctk_lval_t *props = ctk_lval_list();
    const ctk_kv_t **prop = calloc(cfg->n_properties + c->n_properties + 1, sizeof *prop);
    size_t i, n_prop;

    if (!prop) {
        ctk_error_nomem(err);
        b->ok = false;
        return props;
    }
    n_prop = ctk_config_properties(cfg, c, prop);
    for (i = 0; i < n_prop; i++)
        bpush(b, props, pair_val(b, prop[i]->name, prop[i]->value));
    free(prop);
    return props;
}

/* ctk.whatis: name, version and what the toolkit holds, where. */
static ctk_lval_t *whatis_val(build_t *b, const ctk_sdk_t *s, const char *shown, ctk_error_t *err)
{
    ctk_lval_t *whatis = ctk_lval_list();
    char *contents = contents_text(s, err);

    if (!contents)
        b->ok = false;
    bpush(b, whatis, ctk_lval_str("Name: NVIDIA CUDA Toolkit"));
    bpush(b, whatis, str_take(ctk_printf(err, "Version: %s", shown)));
    bpush(b, whatis, str_take(contents ? ctk_printf(err, "Description: CUDA %s %s from %s",
                                                    s->version_mm, contents, s->root)
                                       : NULL));
    free(contents);
    return whatis;
}

/* ctk.help: what loading does and how to build with it, then the site's
 * and the SDK's "help". */
static ctk_lval_t *help_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s, const char *shown,
                            const char *pc_name)
{
    ctk_lval_t *v;
    ctk_buf_t help;

    ctk_buf_init(&help);
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
    if (s->conf->help)
        ctk_buf_printf(&help, "\n%s\n", s->conf->help);
    if (help.failed)
        b->ok = false;
    v = ctk_lval_str(help.data ? help.data : "");
    ctk_buf_fini(&help);
    return v;
}

/* ctk of a toolkit's modulefiles and .pc (lmod.lua, tcl.lua, pc.lua). */
static ctk_lval_t *sdk_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s,
                           const char *pkgconfig_dir, const char *link_dir, ctk_error_t *err)
{
    const ctk_sdk_conf_t *c = s->conf;
    const char *shown = s->version_full ? s->version_full : s->version_mm;
    ctk_lval_t *m = ctk_lval_map(), *prereq = ctk_lval_list();
    char *vvar = version_var(cfg->module_name, err);
    char *pc_name = ctk_printf(err, "%s-%s", cfg->pc_prefix, s->module_version);
    char *desc = ctk_printf(err, "NVIDIA CUDA Toolkit %s", shown);
    char *vsrc = ctk_printf(err, "%s (%s)", ctk_version_source_name(s->version.source), s->version.path);

    if (!vvar || !pc_name || !desc || !vsrc)
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
    bput(b, m, "paths", paths_val(b, s, pkgconfig_dir, link_dir, err));
    bput(b, m, "setenv", setenv_val(b, cfg, s, vvar, shown));
    if (c->host_compiler_module)
        bpush(b, prereq, ctk_lval_str(c->host_compiler_module));
    bput(b, m, "prereq", prereq);
    /* "-ccbin=PATH", one word: the module prepends it to the user's own
     * NVCC_PREPEND_FLAGS as a " "-separated path entry, so that unloading
     * removes that word alone (a user's later -ccbin still wins) */
    if (c->host_compiler_ccbin)
        bput(b, m, "ccbin_flag", str_take(ctk_printf(err, "-ccbin=%s", c->host_compiler_ccbin)));
    bput(b, m, "properties", props_val(b, cfg, c, err));
    bput(b, m, "whatis", whatis_val(b, s, shown, err));
    bput(b, m, "help", help_val(b, cfg, s, shown, pc_name));
    bput(b, m, "pc", pc_val(b, cfg, s, desc ? desc : "", link_dir));
    free(vvar);
    free(pc_name);
    free(desc);
    free(vsrc);
    return m;
}

/* ctk.lib of a library's .pc (pc-lib.lua), beside the SDK's data. */
static ctk_lval_t *lib_val(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s, const ctk_sdk_lib_t *lib,
                           ctk_error_t *err)
{
    const char *shown = s->version_full ? s->version_full : s->version_mm;
    ctk_lval_t *l = ctk_lval_map();

    bput(b, l, "name", ctk_lval_str(lib->name));
    bput(b, l, "pc_name",
         str_take(ctk_concat(err, cfg->pc_prefix, "-", lib->name, "-", s->module_version, NULL)));
    bput(b, l, "description",
         str_take(ctk_concat(err, lib->description, " from NVIDIA CUDA Toolkit ", shown, NULL)));
    bput(b, l, "link", ctk_lval_str(lib->link));
    return l;
}

/* ---- checks before rendering ------------------------------------------------ */
/* The SDK's own dirs, named by the SDK and the config position of its base. */
static bool check_pathvars(const ctk_config_t *cfg, const ctk_sdk_t *s, ctk_error_t *err)
{
    const ctk_strlist_t *lists[] = { &s->path, &s->cpath, &s->library_path, &s->ld_library_path,
                                     &s->manpath };
    ctk_error_t e;
    size_t i, j;

    ctk_error_init(&e);
    for (i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        for (j = 0; j < lists[i]->len; j++) {
            if (!ctk_quote_check_pathvar(lists[i]->items[j], lists[i]->items[j], &e)) {
                ctk_error_set(err, CTK_E_QUOTE, cfg->source, s->conf->pos[CTK_F_BASE].line,
                              s->conf->pos[CTK_F_BASE].column, "%s: SDK %s: %s", s->conf->jpath,
                              s->module_version, e.text);
                return false;
            }
        }
    }
    return true;
}

/* The pkgconfig dir every modulefile puts on PKG_CONFIG_PATH comes from the
 * output dir (-o) or "pkgconfig_dir", not from any SDK: no config position. */
static bool check_pkgconfig_dir(const char *dir, ctk_error_t *err)
{
    ctk_error_t e;
    char *shown;

    ctk_error_init(&e);
    if (ctk_quote_check_pathvar(dir, "it", &e))
        return true;
    if (!(shown = ctk_strdup(dir, err)))
        return false;
    visible(shown);
    ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                  "pkgconfig dir %s (from the output dir, or \"pkgconfig_dir\" in the config), "
                  "which every modulefile puts on PKG_CONFIG_PATH: %s", shown, e.text);
    free(shown);
    return false;
}

/* ---- link files ---------------------------------------------------------------- */
/* The link dir goes on LIBRARY_PATH and CMAKE_LIBRARY_PATH like the SDK's
 * own dirs; it comes from the output dir (or "pkgconfig_dir"). */
static bool check_link_dir(const ctk_config_t *cfg, const ctk_sdk_t *s, const char *dir,
                           ctk_error_t *err)
{
    ctk_error_t e;

    (void)cfg;
    ctk_error_init(&e);
    if (ctk_quote_check_pathvar(dir, "it", &e))
        return true;
    ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                  "SDK %s: link dir %s (from the output dir, or \"pkgconfig_dir\" in the config), "
                  "which its modules put on LIBRARY_PATH: %s", s->module_version, dir, e.text);
    return false;
}

/* lib<name>.so for each library the toolkit ships versioned alone: a GNU
 * ld input script.  Its file name is quoted (ld scripts have no escapes:
 * a '"' or a control character cannot be written). */
static bool link_files(const ctk_config_t *cfg, const ctk_sdk_t *s, ctk_outset_t *out,
                       ctk_error_t *err)
{
    size_t i;

    for (i = 0; i < s->n_versioned; i++) {
        const ctk_sdk_versioned_t *v = &s->versioned[i];
        const char *base = strrchr(v->file, '/'), *p;
        char *rel, *text;

        for (p = v->file; *p; p++) {
            if (*p == '"' || (unsigned char)*p < 0x20 || *p == 0x7f) {
                ctk_error_set(err, CTK_E_QUOTE, cfg->source, s->conf->pos[CTK_F_BASE].line,
                              s->conf->pos[CTK_F_BASE].column,
                              "%s: SDK %s: %s: a linker script cannot name a file whose path holds "
                              "a '\"' or a control character", s->conf->jpath, s->module_version,
                              v->file);
                return false;
            }
        }
        base = base ? base + 1 : v->file;
        rel = ctk_printf(err, "lib/%s-%s/lib%s.so", cfg->pc_prefix, s->module_version, v->name);
        text = ctk_printf(err,
                          "/* %s */\n"
                          "/* -l%s: the toolkit ships %s alone; ld reads this file as it */\n"
                          "INPUT(\"%s\")\n",
                          CTK_GENERATED_MARK, v->name, base, v->file);
        if (!rel || !text) {
            free(rel);
            free(text);
            return false;
        }
        if (!ctk_outset_take(out, rel, text, strlen(text), err)) {
            free(rel);
            return false;
        }
        free(rel);
    }
    return true;
}

/* ---- default and aliases -------------------------------------------------------
 * Both .modulerc files always name the default, so that `module load NAME`
 * selects the same toolkit under Lmod and Environment Modules: left to
 * themselves they differ (Lmod ranks "13.0" above "13.0-hpc", Environment
 * Modules the other way round).  The rule, documented in
 * docs/site-config.md:
 *   1. the config's "default" (an alias there is resolved by config.c);
 *   2. else the SDK whose toolkit version is highest, comparing major,
 *      minor and patch as numbers; a toolkit whose patch level is unknown
 *      (its version came from CUDART_VERSION or nvcc) counts lower than
 *      any with a known patch level of the same major.minor;
 *   3. among equal versions, the first SDK in the config. */
static int version_cmp(const ctk_version_t *a, const ctk_version_t *b)
{
    if (a->major != b->major)
        return a->major < b->major ? -1 : 1;
    if (a->minor != b->minor)
        return a->minor < b->minor ? -1 : 1;
    if (a->patch != b->patch) /* unknown is -1: below every known one */
        return a->patch < b->patch ? -1 : 1;
    return 0;
}

static bool push_path(ctk_strlist_t *paths, char *rel, ctk_error_t *err)
{
    return rel && ctk_strlist_take(paths, rel, err);
}

bool ctk_render_sdk_paths(const ctk_config_t *cfg, const ctk_sdk_conf_t *conf, bool with_shared,
                          ctk_strlist_t *paths, ctk_error_t *err)
{
    const char *mv = conf->module_version ? conf->module_version : conf->version, *lib;
    const char *mn = cfg->module_name, *pc = cfg->pc_prefix;
    size_t i;

    if (!push_path(paths, ctk_printf(err, "lmod/%s/%s.lua", mn, mv), err) ||
        !push_path(paths, ctk_printf(err, "tcl/%s/%s", mn, mv), err) ||
        !push_path(paths, ctk_printf(err, "pkgconfig/%s-%s.pc", pc, mv), err))
        return false;
    for (i = 0; (lib = ctk_sdk_lib_name(i)); i++)
        if (!push_path(paths, ctk_printf(err, "pkgconfig/%s-%s-%s.pc", pc, lib, mv), err))
            return false;
    for (i = 0; (lib = ctk_sdk_link_name(i)); i++)
        if (!push_path(paths, ctk_printf(err, "lib/%s-%s/lib%s.so", pc, mv, lib), err))
            return false;
    return !with_shared ||
           (push_path(paths, ctk_printf(err, "lmod/%s/.modulerc.lua", mn), err) &&
            push_path(paths, ctk_printf(err, "tcl/%s/.modulerc", mn), err));
}

const char *ctk_render_default(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks)
{
    size_t i, best = 0;

    if (cfg->default_version)
        return cfg->default_version;
    if (n_sdks == 0)
        return NULL;
    for (i = 1; i < n_sdks; i++)
        if (version_cmp(&sdks[i]->version, &sdks[best]->version) > 0)
            best = i;
    return sdks[best]->module_version;
}

/* Why SDK i gets no automatic full-version alias. */
typedef enum {
    FULL_KEPT = 0,    /* it gets one */
    FULL_NONE,        /* no full version, or it is the module version itself */
    FULL_OWN_ALIAS,   /* an explicit alias of i says the same: nothing lost */
    FULL_SHARED,      /* another SDK has the same full version (other) */
    FULL_MODULE,      /* it is the module version of SDK other */
    FULL_ALIAS        /* it is an explicit alias of SDK other */
} full_alias_t;

static bool has_alias(const ctk_sdk_t *s, const char *name)
{
    size_t k;

    for (k = 0; k < s->conf->n_aliases; k++)
        if (strcmp(s->conf->aliases[k], name) == 0)
            return true;
    return false;
}

/* Every name the SDKs hold, by name, so that each SDK's full version is
 * looked up, not compared with every other SDK's names. */
typedef struct {
    ctk_strmap_t version; /* module version -> the SDK */
    ctk_strmap_t alias;   /* explicit alias -> the SDK */
    ctk_strmap_t full;    /* full version -> the first SDK with it */
    size_t *second;       /* [first SDK with a full version]: the second, or SIZE_MAX */
} names_t;

static void names_fini(names_t *nm)
{
    ctk_strmap_fini(&nm->version);
    ctk_strmap_fini(&nm->alias);
    ctk_strmap_fini(&nm->full);
    free(nm->second);
}

static bool names_init(names_t *nm, ctk_sdk_t *const *sdks, size_t n, ctk_error_t *err)
{
    size_t i, k, n_alias = 0;

    memset(nm, 0, sizeof *nm);
    for (i = 0; i < n; i++)
        n_alias += sdks[i]->conf->n_aliases;
    nm->second = malloc((n ? n : 1) * sizeof *nm->second);
    if (!nm->second) {
        ctk_error_nomem(err);
        return false;
    }
    if (!ctk_strmap_init(&nm->version, n, err) || !ctk_strmap_init(&nm->alias, n_alias, err) ||
        !ctk_strmap_init(&nm->full, n, err)) {
        names_fini(nm);
        return false;
    }
    for (i = 0; i < n; i++) {
        const char *full = sdks[i]->version_full;
        const size_t *first;

        nm->second[i] = SIZE_MAX;
        ctk_strmap_add(&nm->version, sdks[i]->module_version, i);
        for (k = 0; k < sdks[i]->conf->n_aliases; k++)
            ctk_strmap_add(&nm->alias, sdks[i]->conf->aliases[k], i);
        if (full && !ctk_strmap_add(&nm->full, full, i) && (first = ctk_strmap_get(&nm->full, full)) &&
            nm->second[*first] == SIZE_MAX)
            nm->second[*first] = i;
    }
    return true;
}

/* Explicit names clashing were refused by config.c; the automatic one
 * yields to any name that is taken, by another SDK or by its own alias. */
static full_alias_t full_alias(const names_t *nm, ctk_sdk_t *const *sdks, size_t i, size_t *other)
{
    const char *full = sdks[i]->version_full;
    const size_t *j;

    if (!full || strcmp(full, sdks[i]->module_version) == 0)
        return FULL_NONE;
    if ((j = ctk_strmap_get(&nm->version, full)) && *j != i) {
        *other = *j;
        return FULL_MODULE;
    }
    if ((j = ctk_strmap_get(&nm->alias, full)) && *j != i) {
        *other = *j;
        return FULL_ALIAS;
    }
    j = ctk_strmap_get(&nm->full, full); /* i's own, at least */
    if (j && *j != i) {
        *other = *j;
        return FULL_SHARED;
    }
    if (j && nm->second[*j] != SIZE_MAX) {
        *other = nm->second[*j];
        return FULL_SHARED;
    }
    return has_alias(sdks[i], full) ? FULL_OWN_ALIAS : FULL_KEPT;
}

/* "<name>: <full> is the full version of both A and B: no <full> alias
 * written", naming every SDK that shares the full version of SDK i. */
static char *shared_note(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks, size_t i,
                         ctk_error_t *err)
{
    const char *full = sdks[i]->version_full;
    ctk_buf_t b;
    size_t j, n = 0, k = 0;
    char *note = NULL;

    for (j = 0; j < n_sdks; j++)
        if (sdks[j]->version_full && strcmp(sdks[j]->version_full, full) == 0)
            n++;
    ctk_buf_init(&b);
    ctk_buf_printf(&b, "%s: %s is the full version of %s", cfg->module_name, full, n == 2 ? "both " : "");
    for (j = 0; j < n_sdks; j++) {
        if (!sdks[j]->version_full || strcmp(sdks[j]->version_full, full) != 0)
            continue;
        k++;
        ctk_buf_printf(&b, "%s%s", k == 1 ? "" : k == n ? " and " : ", ", sdks[j]->module_version);
    }
    ctk_buf_printf(&b, ": no %s alias written", full);
    if (b.failed)
        ctk_error_nomem(err);
    else
        note = ctk_buf_take(&b, NULL);
    ctk_buf_fini(&b);
    return note;
}

/* Why SDK i gets no full-version name (how, other: full_alias()), as a
 * note; NULL with err for want of memory. */
static char *dropped_note(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks, size_t i, int how,
                          size_t other, ctk_error_t *err)
{
    const char *full = sdks[i]->version_full, *name = cfg->module_name;

    if (how == FULL_MODULE)
        return ctk_printf(err, "%s: %s is the full version of %s and a module version of its own: no %s alias "
                          "for %s written", name, full, sdks[i]->module_version, full, sdks[i]->module_version);
    if (how == FULL_ALIAS)
        return ctk_printf(err, "%s: %s is the full version of %s and an alias of %s: no %s alias for %s written",
                          name, full, sdks[i]->module_version, sdks[other]->module_version, full,
                          sdks[i]->module_version);
    return shared_note(cfg, sdks, n_sdks, i, err);
}

bool ctk_render_notes(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks,
                      ctk_strlist_t *notes, ctk_error_t *err)
{
    size_t i, other = 0, kept = 0;
    names_t nm;
    bool ok = true;
    char *note;

    if (cfg->full_version_aliases <= 0)
        return true; /* no automatic name, so none yields to another */
    if (!names_init(&nm, sdks, n_sdks, err))
        return false;
    for (i = 0; ok && i < n_sdks; i++) {
        int how = full_alias(&nm, sdks, i, &other);

        if (how == FULL_KEPT)
            kept++;
        /* a name shared by several SDKs: one note, at the first of them */
        if (how == FULL_KEPT || how == FULL_NONE || how == FULL_OWN_ALIAS || (how == FULL_SHARED && other < i))
            continue;
        note = dropped_note(cfg, sdks, n_sdks, i, how, other, err);
        ok = note && ctk_strlist_take(notes, note, err);
    }
    /* each name is a line that both module systems read on every avail and
     * load in the family (docs/benchmarks.md, "Module commands at site
     * scale"); at a few dozen it hardly shows, at hundreds it does */
    if (ok && kept > CTK_RENDER_FULL_NAMES_NOTE)
        ok = (note = ctk_printf(err, "%s: the .modulerc files hold %zu full-version names (X.Y.Z), one line each, "
                                "which every module avail and module load of %s reads; \"full_version_aliases\": "
                                "false in the site config leaves them out", cfg->module_name, kept,
                                cfg->module_name)) &&
             ctk_strlist_take(notes, note, err);
    names_fini(&nm);
    return ok;
}

/* The data of the .modulerc files: the default, each SDK's own aliases and,
 * where "full_version_aliases" is 1, each toolkit's X.Y.Z.  Both
 * module systems read the whole file on every load and avail: at 1000
 * toolkits the X.Y.Z lines cost Environment Modules 5.2 0.92 of an avail
 * and 0.49 of a load again, Lmod 0.11 and 0.08, which is what the key's
 * false saves a site with hundreds of toolkits (docs/benchmarks.md,
 * "Module commands at site scale"). */
static ctk_lval_t *rc_val(build_t *b, const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n)
{
    ctk_lval_t *m, *mods;
    size_t i, k, other;
    names_t nm;
    ctk_error_t err;

    ctk_error_init(&err);
    if (!names_init(&nm, sdks, n, &err)) {
        b->ok = false;
        return NULL;
    }
    m = ctk_lval_map();
    mods = ctk_lval_list();

    bput(b, m, "header", ctk_lval_str(CTK_GENERATED_MARK));
    bput(b, m, "module_name", ctk_lval_str(cfg->module_name));
    bput(b, m, "default", ctk_lval_str(ctk_render_default(cfg, sdks, n)));
    bput(b, m, "default_implicit", ctk_lval_bool(!cfg->default_version));
    bput(b, m, "full_version_aliases", ctk_lval_bool(cfg->full_version_aliases > 0));
    for (i = 0; i < n; i++) {
        ctk_lval_t *e = ctk_lval_map(), *al = ctk_lval_list();

        bput(b, e, "version", ctk_lval_str(sdks[i]->module_version));
        for (k = 0; k < sdks[i]->conf->n_aliases; k++)
            bpush(b, al, ctk_lval_str(sdks[i]->conf->aliases[k]));
        if (cfg->full_version_aliases > 0 && full_alias(&nm, sdks, i, &other) == FULL_KEPT)
            bpush(b, al, ctk_lval_str(sdks[i]->version_full));
        bput(b, e, "aliases", al);
        bpush(b, mods, e);
    }
    bput(b, m, "modules", mods);
    names_fini(&nm);
    return m;
}

/* ---- inputs -------------------------------------------------------------------
 * What rendering an SDK's files depends on beyond its data: ctkgen itself
 * (its version, and the build IDs of the program and the libraries it
 * runs with: util.h, ctk_hash_self) and the per-SDK templates' text.  A
 * rebuilt ctkgen, or a new Lua library, renders everything once.  false
 * (no error) when the process cannot be identified: then nothing is
 * reused. */
static const int sdk_templates[] = { T_LMOD, T_TCL, T_PC, T_PC_LIB };
static const int every_template[] = { T_LMOD, T_LMOD_RC, T_TCL, T_TCL_RC, T_PC, T_PC_LIB };

/* h fed with ctkgen itself and the text of each of the n templates. */
static bool seed_of(const ctk_render_opts_t *opts, const int *which, size_t n, uint64_t *seed,
                    ctk_error_t *err)
{
    uint64_t h = ctk_hash_update(CTK_HASH_INIT, PACKAGE_VERSION, sizeof PACKAGE_VERSION);
    size_t i;

    if (!ctk_hash_self(&h))
        return false;
    for (i = 0; i < n; i++) {
        char *owned = NULL, *label = NULL;
        size_t len = 0;
        const char *src = template_text(opts, templates[which[i]].name, &len, &owned,
                                        &label, err);

        if (src) {
            h = ctk_hash_size(h, len);
            h = ctk_hash_update(h, src, len);
        }
        free(owned);
        free(label);
        if (!src)
            return false;
    }
    *seed = h;
    return true;
}

static bool inputs_seed(const ctk_render_opts_t *opts, uint64_t *seed, ctk_error_t *err)
{
    return seed_of(opts, sdk_templates, sizeof sdk_templates / sizeof *sdk_templates, seed, err);
}

bool ctk_render_seed(const ctk_render_opts_t *opts, uint64_t *seed, ctk_error_t *err)
{
    if (opts->template_dir && !check_template_dir(opts->template_dir, err))
        return false;
    return seed_of(opts, every_template, sizeof every_template / sizeof *every_template, seed, err);
}

/* ---- one SDK ----------------------------------------------------------------- */
/* An SDK's template outputs: their paths (rel[0..2]: Lmod, Tcl, .pc; then
 * one per library) and the data each is rendered from. */
typedef struct {
    ctk_lval_t *data;
    ctk_lval_t **libs;
    char **rel;
    size_t n_rel;
} sdk_job_t;

static void job_fini(sdk_job_t *j)
{
    size_t i;

    ctk_lval_free(j->data);
    for (i = 0; j->libs && i + 3 < j->n_rel; i++)
        ctk_lval_free(j->libs[i]);
    for (i = 0; j->rel && i < j->n_rel; i++)
        free(j->rel[i]);
    free(j->libs);
    free(j->rel);
    memset(j, 0, sizeof *j);
}

static bool job_init(build_t *b, const ctk_config_t *cfg, const ctk_sdk_t *s, const char *pcdir,
                     const char *link_dir, sdk_job_t *j, ctk_error_t *err)
{
    const char *mn = cfg->module_name, *pc = cfg->pc_prefix, *mv = s->module_version;
    size_t k;

    memset(j, 0, sizeof *j);
    j->n_rel = 3 + s->n_libs;
    j->rel = calloc(j->n_rel, sizeof *j->rel);
    j->libs = calloc(s->n_libs + 1, sizeof *j->libs);
    if (!j->rel || !j->libs)
        goto nomem;
    if (!(j->rel[0] = ctk_concat(err, "lmod/", mn, "/", mv, ".lua", NULL)) ||
        !(j->rel[1] = ctk_concat(err, "tcl/", mn, "/", mv, NULL)) ||
        !(j->rel[2] = ctk_concat(err, "pkgconfig/", pc, "-", mv, ".pc", NULL)))
        return false;
    for (k = 0; k < s->n_libs; k++)
        if (!(j->rel[3 + k] = ctk_concat(err, "pkgconfig/", pc, "-", s->libs[k].name, "-", mv, ".pc",
                                         NULL)))
            return false;
    j->data = sdk_val(b, cfg, s, pcdir, link_dir, err);
    if (!b->ok || !j->data)
        goto nomem;
    for (k = 0; k < s->n_libs; k++) {
        j->libs[k] = lib_val(b, cfg, s, &s->libs[k], err);
        if (!b->ok || !j->libs[k])
            goto nomem;
    }
    return true;
nomem:
    ctk_error_nomem(err);
    return false;
}

/* The hash of what the job's files are rendered from, as 16 hex digits. */
static void job_inputs(const sdk_job_t *j, uint64_t seed, char out[17])
{
    uint64_t h = ctk_hash_size(seed, j->n_rel);
    size_t i;

    for (i = 0; i < j->n_rel; i++)
        h = ctk_hash_mix(h, j->rel[i], strlen(j->rel[i]));
    h = ctk_lval_hash(h, j->data);
    for (i = 0; i + 3 < j->n_rel; i++)
        h = ctk_lval_hash(h, j->libs[i]);
    ctk_hash_fmt(h, out);
}

/* Whether every file of the job is recorded under these inputs; if so,
 * they go into out as reused.  -1 on error. */
static int job_reuse(const sdk_job_t *j, const ctk_records_t *rec, const char input[17],
                     ctk_outset_t *out, ctk_error_t *err)
{
    char hash[17], was[17];
    size_t i;

    for (i = 0; i < j->n_rel; i++)
        if (!ctk_records_find(rec, j->rel[i], hash, was) || strcmp(was, input) != 0)
            return 0;
    for (i = 0; i < j->n_rel; i++)
        if (!ctk_records_find(rec, j->rel[i], hash, was) ||
            !ctk_outset_reuse(out, j->rel[i], hash, input, err))
            return -1;
    return 1;
}

static bool job_render(const sdk_job_t *j, const ctk_render_opts_t *opts, ctk_lua_renderer_t *lr,
                       ctk_outset_t *out, ctk_error_t *err)
{
    size_t k;

    ctk_lua_renderer_data(lr, j->data);
    if (!run_template(opts, lr, T_LMOD, j->rel[0], out, err) ||
        !run_template(opts, lr, T_TCL, j->rel[1], out, err) ||
        !run_template(opts, lr, T_PC, j->rel[2], out, err))
        return false;
    /* each library's .pc: the same data, and its own ctk.lib */
    for (k = 0; k + 3 < j->n_rel; k++) {
        ctk_lua_renderer_field(lr, "lib", j->libs[k]);
        if (!run_template(opts, lr, T_PC_LIB, j->rel[3 + k], out, err))
            return false;
    }
    return true;
}

/* The link scripts of s, and the files of its templates: rendered, or
 * reused when seed is set and the records allow.  *reused counts. */
static bool render_sdk(const ctk_config_t *cfg, const ctk_sdk_t *s, const ctk_render_opts_t *opts,
                       const uint64_t *seed, ctk_lua_renderer_t *lr, ctk_outset_t *out,
                       size_t *reused, ctk_error_t *err)
{
    build_t b = { true };
    sdk_job_t j = { NULL, NULL, NULL, 0 };
    char *link_dir = NULL, input[17];
    size_t from;
    bool ok = false;
    int r = 0;

    if (!check_pathvars(cfg, s, err))
        return false;
    if (s->n_versioned && opts->link_dir &&
        (!(link_dir = ctk_printf(err, "%s/%s-%s", opts->link_dir, cfg->pc_prefix,
                                 s->module_version)) ||
         !check_link_dir(cfg, s, link_dir, err) || !link_files(cfg, s, out, err)))
        goto out;
    if (!job_init(&b, cfg, s, opts->pkgconfig_dir, link_dir, &j, err))
        goto out;
    job_inputs(&j, seed ? *seed : 0, input);
    if (seed && opts->records && (r = job_reuse(&j, opts->records, input, out, err)) < 0)
        goto out;
    if (r == 1) {
        (*reused)++;
    } else {
        from = out->n;
        if (!job_render(&j, opts, lr, out, err))
            goto out;
        ctk_outset_mark_input(out, from, input);
    }
    ok = true;
out:
    job_fini(&j);
    free(link_dir);
    return ok;
}

bool ctk_render_all(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks,
                    const ctk_render_opts_t *opts, ctk_outset_t *out, ctk_error_t *err)
{
    size_t i, reused = 0;
    bool ok = false, have_seed;
    char *rel = NULL;
    ctk_lval_t *data = NULL;
    build_t b = { true };
    uint64_t seed = 0;
    /* one sandbox for every template of the run (luahost.h) */
    ctk_lua_renderer_t *lr = ctk_lua_renderer_new(NULL, err);

    if (!lr)
        return false;
    if (opts->template_dir && !check_template_dir(opts->template_dir, err))
        goto out;
    if (!check_pkgconfig_dir(opts->pkgconfig_dir, err))
        goto out;
    have_seed = inputs_seed(opts, &seed, err);
    if (!have_seed && ctk_error_is_set(err))
        goto out;
    for (i = 0; i < n_sdks; i++)
        if (!render_sdk(cfg, sdks[i], opts, have_seed ? &seed : NULL, lr, out, &reused, err))
            goto out;
    data = rc_val(&b, cfg, sdks, n_sdks);
    if (!b.ok || !data) {
        ctk_error_nomem(err);
        goto out;
    }
    ctk_lua_renderer_data(lr, data);
    if (!(rel = ctk_printf(err, "lmod/%s/.modulerc.lua", cfg->module_name)) ||
        !run_template(opts, lr, T_LMOD_RC, rel, out, err))
        goto out;
    free(rel);
    if (!(rel = ctk_printf(err, "tcl/%s/.modulerc", cfg->module_name)) ||
        !run_template(opts, lr, T_TCL_RC, rel, out, err))
        goto out;
    if (opts->reused)
        *opts->reused = reused;
    ok = true;
out:
    free(rel);
    ctk_lval_free(data);
    ctk_lua_renderer_free(lr);
    return ok;
}
