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

#include <string.h>

static const char *what_or(const char *what)
{
    return what ? what : "value";
}

/* First control byte (other than the ones allowed) in s, or -1. */
static long find_control(const char *s, bool allow_newline_tab)
{
    const unsigned char *p;

    for (p = (const unsigned char *)s; *p; p++) {
        if (allow_newline_tab && (*p == '\n' || *p == '\t'))
            continue;
        if (*p < 0x20 || *p == 0x7f)
            return (long)(p - (const unsigned char *)s);
    }
    return -1;
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

char *ctk_quote_lua(const char *s, const char *what, ctk_error_t *err)
{
    ctk_buf_t b;
    const unsigned char *p;

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "\"");
    for (p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\\': ctk_buf_puts(&b, "\\\\"); break;
        case '"':  ctk_buf_puts(&b, "\\\""); break;
        case '\n': ctk_buf_puts(&b, "\\n"); break;
        case '\t': ctk_buf_puts(&b, "\\t"); break;
        case '\r': ctk_buf_puts(&b, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                /* three digits always, so a following digit cannot join in */
                ctk_buf_printf(&b, "\\%03u", (unsigned)*p);
            else
                ctk_buf_append(&b, (const char *)p, 1);
        }
    }
    ctk_buf_puts(&b, "\"");
    (void)what;
    return take_or_nomem(&b, err);
}

char *ctk_quote_tcl(const char *s, const char *what, ctk_error_t *err)
{
    ctk_buf_t b;
    const unsigned char *p;

    /* Tcl could spell other control bytes as \xHH, but no path or help
     * text has a reason to carry them and Environment Modules echoes
     * values into shell code: refuse rather than guess. */
    if (refuse_control(s, true, what, "go into a Tcl modulefile", err))
        return NULL;
    ctk_buf_init(&b);
    ctk_buf_puts(&b, "\"");
    for (p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\\': case '"': case '$': case '[': case ']': case '{': case '}':
            ctk_buf_append(&b, "\\", 1);
            ctk_buf_append(&b, (const char *)p, 1);
            break;
        case '\n': ctk_buf_puts(&b, "\\n"); break;
        case '\t': ctk_buf_puts(&b, "\\t"); break;
        default:
            ctk_buf_append(&b, (const char *)p, 1);
        }
    }
    ctk_buf_puts(&b, "\"");
    return take_or_nomem(&b, err);
}

char *ctk_quote_pc(const char *s, const char *what, ctk_error_t *err)
{
    ctk_buf_t b;
    const unsigned char *p;
    const char *ref = strstr(s, "${");

    if (refuse_control(s, false, what, "be expressed in a pkg-config file", err))
        return NULL;
    if (ref) {
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: \"${\" at offset %ld cannot be expressed in a pkg-config file "
                      "(pkg-config always expands it as a variable)",
                      what_or(what), (long)(ref - s));
        return NULL;
    }
    if (strlen(s) > CTK_QUOTE_PC_ARG_MAX) {
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: %zu bytes cannot be expressed in a pkg-config file (pkgconf keeps "
                      "%zu bytes of one argument and silently drops the rest)",
                      what_or(what), strlen(s), CTK_QUOTE_PC_ARG_MAX);
        return NULL;
    }
    if (*s && s[strlen(s) - 1] == ' ') {
        /* pkgconf trims blanks at the end of a line before splitting it,
         * so an escaped final blank would leave a dangling backslash */
        ctk_error_set(err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s: a blank at the end cannot be expressed in a pkg-config file "
                      "(pkg-config trims it)",
                      what_or(what));
        return NULL;
    }
    ctk_buf_init(&b);
    for (p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case ' ': case '"': case '\'': case '\\': case '#':
            ctk_buf_append(&b, "\\", 1);
            /* fall through */
        default:
            ctk_buf_append(&b, (const char *)p, 1);
        }
    }
    return take_or_nomem(&b, err);
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
