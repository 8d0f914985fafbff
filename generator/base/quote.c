/* quote.c - quoting strings for Lua, Tcl and pkg-config files.
 * SPDX-License-Identifier: MIT
 *
 * Each quoter either produces text its format reads back byte for byte or
 * refuses.  Nothing here trusts the input: a path such as
 * /opt/x"]]; os.execute("rm -rf /") --[[ must stay a string.
 */
#include <ctkconf.h>

#include "quote.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *what_or(const char *what)
{
    return what ? what : "value";
}

/* The control bytes, and the NUL that ends a string: 1 for each, 2 more
 * for the two a newline-and-tab-allowing target takes. */
static const unsigned char control[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    [0x7f] = 1,
};

/* First control byte (other than the ones allowed) in s, or -1. */
static long find_control(const char *s, bool allow_newline_tab)
{
    const unsigned char *p = (const unsigned char *)s;

    for (;;) {
        while (!control[*p])
            p++;
        if (!*p)
            return -1;
        if (!(allow_newline_tab && control[*p] == 3))
            return (long)(p - (const unsigned char *)s);
        p++;
    }
}

/* Refuse s when it holds a control byte the target cannot carry; `where`
 * completes "cannot ..." in the message. */
static bool refuse_control(const char *s, bool allow_newline_tab, const char *what,
                           const char *where, ctk_error_t *err)
{
    long bad = find_control(s, allow_newline_tab);
    unsigned char c;

    if (bad < 0)
        return false;
    c = (unsigned char)s[bad];
    if (c == '\n')
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0, "%s: a newline at offset %ld cannot %s",
                      what_or(what), bad, where);
    else
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: control character 0x%02x at offset %ld cannot %s", what_or(what),
                      (unsigned)c, bad, where);
    return true;
}

/* ---- a bounded writer ----------------------------------------------------
 * The quoters write through it into the caller's room and count what the
 * whole text needs, as snprintf() does: one pass fills a buffer that is big
 * enough, a first pass with no room measures one that is not.  Plain runs
 * are copied whole, so a path costs a few copies, not one per byte. */
typedef struct {
    char *dst;
    size_t cap, len;
} out_t;

static void out_put(out_t *o, const char *p, size_t n)
{
    if (o->len < o->cap) {
        size_t room = o->cap - o->len;

        memcpy(o->dst + o->len, p, n < room ? n : room);
    }
    o->len += n;
}

/* The text's length; dst (cap bytes, 0 allowed) holds as much of it as
 * fits, NUL-terminated. */
static size_t out_end(out_t *o)
{
    if (o->cap)
        o->dst[o->len < o->cap ? o->len : o->cap - 1] = '\0';
    return o->len;
}

/* The bytes that are not copied as they are, for each format. */
static const char lua_special[] = "\\\"\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f"
                                  "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f";
static const char tcl_special[] = "\\\"$[]{}\n\t";
static const char pc_special[] = " \"'\\#";

static size_t lua_into(const char *s, char *dst, size_t cap)
{
    out_t o = { dst, cap, 0 };
    const char *p = s;

    out_put(&o, "\"", 1);
    for (;;) {
        size_t run = strcspn(p, lua_special);
        unsigned char c;

        out_put(&o, p, run);
        p += run;
        if (!*p)
            break;
        c = (unsigned char)*p++;
        switch (c) {
        case '\\': out_put(&o, "\\\\", 2); break;
        case '"':  out_put(&o, "\\\"", 2); break;
        case '\n': out_put(&o, "\\n", 2); break;
        case '\t': out_put(&o, "\\t", 2); break;
        case '\r': out_put(&o, "\\r", 2); break;
        default: {
            /* three digits always, so a following digit cannot join in */
            char esc[5] = { '\\', (char)('0' + c / 100), (char)('0' + c / 10 % 10),
                            (char)('0' + c % 10), '\0' };

            out_put(&o, esc, 4);
        }
        }
    }
    out_put(&o, "\"", 1);
    return out_end(&o);
}

static size_t tcl_into(const char *s, char *dst, size_t cap)
{
    out_t o = { dst, cap, 0 };
    const char *p = s;

    out_put(&o, "\"", 1);
    for (;;) {
        size_t run = strcspn(p, tcl_special);

        out_put(&o, p, run);
        p += run;
        if (!*p)
            break;
        if (*p == '\n')
            out_put(&o, "\\n", 2);
        else if (*p == '\t')
            out_put(&o, "\\t", 2);
        else {
            out_put(&o, "\\", 1);
            out_put(&o, p, 1);
        }
        p++;
    }
    out_put(&o, "\"", 1);
    return out_end(&o);
}

static size_t pc_into(const char *s, char *dst, size_t cap)
{
    out_t o = { dst, cap, 0 };
    const char *p = s;

    for (;;) {
        size_t run = strcspn(p, pc_special);

        out_put(&o, p, run);
        p += run;
        if (!*p)
            break;
        out_put(&o, "\\", 1);
        out_put(&o, p++, 1);
    }
    return out_end(&o);
}

/* Tcl could spell other control bytes as \xHH, but no path or help text
 * has a reason to carry them and Environment Modules echoes values into
 * shell code: refuse rather than guess. */
static bool tcl_refuses(const char *s, const char *what, ctk_error_t *err)
{
    return refuse_control(s, true, what, "go into a Tcl modulefile", err);
}

static bool pc_refuses(const char *s, const char *what, ctk_error_t *err)
{
    const char *ref;
    size_t len;

    if (refuse_control(s, false, what, "be expressed in a pkg-config file", err))
        return true;
    if ((ref = strstr(s, "${"))) {
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: \"${\" at offset %ld cannot be expressed in a pkg-config file "
                      "(pkg-config always expands it as a variable)",
                      what_or(what), (long)(ref - s));
        return true;
    }
    len = strlen(s);
    if (len > CTK_QUOTE_PC_ARG_MAX) {
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: %zu bytes cannot be expressed in a pkg-config file (pkgconf keeps "
                      "%zu bytes of one argument and silently drops the rest)",
                      what_or(what), len, CTK_QUOTE_PC_ARG_MAX);
        return true;
    }
    if (len && s[len - 1] == ' ') {
        /* pkgconf trims blanks at the end of a line before splitting it,
         * so an escaped final blank would leave a dangling backslash */
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: a blank at the end cannot be expressed in a pkg-config file "
                      "(pkg-config trims it)",
                      what_or(what));
        return true;
    }
    return false;
}

bool ctk_quote_lua_into(const char *s, const char *what, char *dst, size_t cap, size_t *need,
                        ctk_error_t *err)
{
    (void)what;
    (void)err;
    *need = lua_into(s, dst, cap);
    return true;
}

bool ctk_quote_tcl_into(const char *s, const char *what, char *dst, size_t cap, size_t *need,
                        ctk_error_t *err)
{
    if (tcl_refuses(s, what, err))
        return false;
    *need = tcl_into(s, dst, cap);
    return true;
}

bool ctk_quote_pc_into(const char *s, const char *what, char *dst, size_t cap, size_t *need,
                       ctk_error_t *err)
{
    if (pc_refuses(s, what, err))
        return false;
    *need = pc_into(s, dst, cap);
    return true;
}

/* A fresh copy of what quoter writes for s (caller frees); NULL when it
 * refuses (err set by it) or memory runs out. */
static char *quote_new(ctk_quote_into_t quoter, const char *s, const char *what, ctk_error_t *err)
{
    size_t need;
    char *r;

    if (!quoter(s, what, NULL, 0, &need, err))
        return NULL;
    if (!(r = malloc(need + 1))) {
        ctk_error_nomem(err);
        return NULL;
    }
    quoter(s, what, r, need + 1, &need, err);
    return r;
}

char *ctk_quote_lua(const char *s, const char *what, ctk_error_t *err)
{
    return quote_new(ctk_quote_lua_into, s, what, err);
}

char *ctk_quote_tcl(const char *s, const char *what, ctk_error_t *err)
{
    return quote_new(ctk_quote_tcl_into, s, what, err);
}

char *ctk_quote_pc(const char *s, const char *what, ctk_error_t *err)
{
    return quote_new(ctk_quote_pc_into, s, what, err);
}

bool ctk_quote_check_pathvar(const char *s, const char *what, ctk_error_t *err)
{
    const char *colon = strchr(s, ':');

    if (refuse_control(s, false, what, "go on a search-path variable", err))
        return false;
    if (colon) {
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: ':' at offset %ld cannot go on a colon-separated search-path variable",
                      what_or(what), (long)(colon - s));
        return false;
    }
    return true;
}

/* The buffer's text (caller frees), or NULL with CTK_E_NOMEM. */
static char *take_or_nomem(ctk_buf_t *b, ctk_error_t *err)
{
    if (b->failed) {
        ctk_buf_fini(b);
        ctk_error_nomem(err);
        return NULL;
    }
    return ctk_buf_take(b, NULL);
}

char *ctk_quote_sh(const char *s, const char *what, ctk_error_t *err)
{
    ctk_buf_t b;

    /* sh reads any byte inside '...', but a job script stays one line per step */
    if (refuse_control(s, false, what, "go in a job script", err))
        return NULL;
    ctk_buf_init(&b);
    ctk_buf_append(&b, "'", 1);
    for (const char *p = s; *p; p++)
        ctk_buf_append(&b, *p == '\'' ? "'\\''" : p, *p == '\'' ? 4 : 1);
    ctk_buf_append(&b, "'", 1);
    return take_or_nomem(&b, err);
}
