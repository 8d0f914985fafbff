/* config.c - the site config: JSON text in, a checked ctk_config_t out.
 * SPDX-License-Identifier: MIT
 *
 * Loading runs in three steps:
 *   1. jansson parses the text (duplicate keys rejected) and, on failure,
 *      we turn its byte offset into a line and a byte column of our own;
 *   2. a small scanner walks the same text again and records where every
 *      key and value starts, by JSON pointer, because jansson keeps no
 *      positions for values;
 *   3. the checker walks the jansson tree against the key tables below,
 *      in file order; each error names the JSON pointer of the culprit and
 *      its position from step 2.  A bad value is reported and left out,
 *      and checking goes on with the next one, so one run reports every
 *      error of the file (in a ctk_errlist_t, in file order).  A value that
 *      other rules read (an SDK's version, name or aliases; module_name) is
 *      not kept when it is bad, and the rules across entries skip what is
 *      missing, so one mistake makes one error.  Running out of memory
 *      stops the check.
 * No json_t ever leaves this file.
 */
#include <ctkconf.h>

#include "config.h" /* generator/model/config.h: this directory comes first */
#include "sdk.h"
#include "util.h"

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_MAX_BYTES (16u * 1024u * 1024u)
#define DEFAULT_MODULE_NAME "cudatoolkit"
#define DEFAULT_FAMILY "cuda"
#define DEFAULT_PC_PREFIX "ctk"
/* jansson stops at 2048 levels; the scanner only runs on text jansson took */
#define SCAN_MAX_DEPTH 4096

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ======================================================================
 * Positions: where each key and value starts, by JSON pointer
 * ====================================================================== */

typedef struct {
    char *ptr;     /* RFC 6901 pointer; "" is the whole document */
    ctk_pos_t key; /* the member's key; 0/0 for array items and the root */
    ctk_pos_t val; /* first byte of the value */
} posent_t;

typedef struct {
    posent_t *ents;
    size_t n, cap;
} posidx_t;

typedef struct {
    const char *s;
    size_t len, off;
    int line;
    size_t line_start; /* offset of the first byte of the current line */
    posidx_t *idx;
    ctk_buf_t ptr;     /* pointer of the value being scanned */
    ctk_buf_t key;     /* scratch: the decoded key */
    bool nomem;
} scan_t;

static void posidx_fini(posidx_t *idx)
{
    size_t i;

    for (i = 0; i < idx->n; i++)
        free(idx->ents[i].ptr);
    free(idx->ents);
    memset(idx, 0, sizeof *idx);
}

/* Index of the new entry, or SIZE_MAX when out of memory. */
static size_t posidx_add(posidx_t *idx, const char *ptr, ctk_pos_t key)
{
    posent_t *e;

    if (idx->n == idx->cap) {
        size_t cap = idx->cap ? idx->cap * 2 : 64;
        posent_t *p = realloc(idx->ents, cap * sizeof *p);

        if (!p)
            return SIZE_MAX;
        idx->ents = p;
        idx->cap = cap;
    }
    e = &idx->ents[idx->n];
    e->ptr = ctk_strdup(ptr, NULL);
    if (!e->ptr)
        return SIZE_MAX;
    e->key = key;
    e->val.line = e->val.column = 0;
    return idx->n++;
}

static int posent_cmp(const void *a, const void *b)
{
    return strcmp(((const posent_t *)a)->ptr, ((const posent_t *)b)->ptr);
}

static const posent_t *posidx_find(const posidx_t *idx, const char *ptr)
{
    posent_t key;

    if (!idx || idx->n == 0)
        return NULL;
    key.ptr = (char *)ptr;
    return bsearch(&key, idx->ents, idx->n, sizeof key, posent_cmp);
}

/* Append one reference token to a pointer: "/" then the key with '~' and
 * '/' escaped as RFC 6901 says. */
static bool ptr_append_key(ctk_buf_t *b, const char *key, size_t len)
{
    size_t i;

    ctk_buf_append(b, "/", 1);
    for (i = 0; i < len; i++) {
        if (key[i] == '~')
            ctk_buf_append(b, "~0", 2);
        else if (key[i] == '/')
            ctk_buf_append(b, "~1", 2);
        else
            ctk_buf_append(b, key + i, 1);
    }
    return !b->failed;
}

static void buf_truncate(ctk_buf_t *b, size_t len)
{
    b->len = len;
    if (b->data)
        b->data[len] = '\0';
}

static ctk_pos_t scan_here(const scan_t *sc)
{
    ctk_pos_t p;

    p.line = sc->line;
    p.column = (int)(sc->off - sc->line_start + 1);
    return p;
}

static void scan_skip_ws(scan_t *sc)
{
    while (sc->off < sc->len) {
        char ch = sc->s[sc->off];

        if (ch == '\n') {
            sc->line++;
            sc->line_start = sc->off + 1;
        } else if (ch != ' ' && ch != '\t' && ch != '\r') {
            break;
        }
        sc->off++;
    }
}

static bool hex4(const char *p, unsigned *out)
{
    unsigned v = 0;
    int i;

    for (i = 0; i < 4; i++) {
        char ch = p[i];

        v <<= 4;
        if (ch >= '0' && ch <= '9')
            v |= (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v |= (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F')
            v |= (unsigned)(ch - 'A' + 10);
        else
            return false;
    }
    *out = v;
    return true;
}

static void put_utf8(ctk_buf_t *b, unsigned cp)
{
    char u[4];
    size_t n;

    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    ctk_buf_append(b, u, n);
}

/* Skip a string starting at its opening quote; decode it into out unless
 * out is NULL.  jansson has already checked the escapes, so this only has
 * to decode them the same way. */
static bool scan_string(scan_t *sc, ctk_buf_t *out)
{
    const char *s = sc->s;

    sc->off++;
    while (sc->off < sc->len) {
        char ch = s[sc->off];

        if (ch == '"') {
            sc->off++;
            if (out && out->failed)
                sc->nomem = true;
            return !sc->nomem;
        }
        if (ch == '\n')
            return false;
        if (ch != '\\') {
            if (out)
                ctk_buf_append(out, s + sc->off, 1);
            sc->off++;
            continue;
        }
        if (sc->off + 1 >= sc->len)
            return false;
        ch = s[sc->off + 1];
        if (ch == 'u') {
            unsigned cp, lo;

            if (sc->off + 6 > sc->len || !hex4(s + sc->off + 2, &cp))
                return false;
            sc->off += 6;
            if (cp >= 0xd800 && cp < 0xdc00 && sc->off + 6 <= sc->len && s[sc->off] == '\\' &&
                s[sc->off + 1] == 'u' && hex4(s + sc->off + 2, &lo) && lo >= 0xdc00 &&
                lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                sc->off += 6;
            }
            if (out)
                put_utf8(out, cp);
            continue;
        }
        if (out) {
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *hit = strchr(from, ch);

            if (!hit || ch == '\0')
                return false;
            ctk_buf_append(out, to + (hit - from), 1);
        }
        sc->off += 2;
    }
    return false;
}

static bool scan_value(scan_t *sc, size_t ent, int depth);

static bool scan_object(scan_t *sc, int depth)
{
    sc->off++;
    scan_skip_ws(sc);
    if (sc->off < sc->len && sc->s[sc->off] == '}') {
        sc->off++;
        return true;
    }
    for (;;) {
        size_t saved = sc->ptr.len, ent;
        ctk_pos_t keypos;

        scan_skip_ws(sc);
        if (sc->off >= sc->len || sc->s[sc->off] != '"')
            return false;
        keypos = scan_here(sc);
        buf_truncate(&sc->key, 0);
        if (!scan_string(sc, &sc->key))
            return false;
        if (!ptr_append_key(&sc->ptr, sc->key.data ? sc->key.data : "", sc->key.len)) {
            sc->nomem = true;
            return false;
        }
        ent = posidx_add(sc->idx, sc->ptr.data, keypos);
        if (ent == SIZE_MAX) {
            sc->nomem = true;
            return false;
        }
        scan_skip_ws(sc);
        if (sc->off >= sc->len || sc->s[sc->off] != ':')
            return false;
        sc->off++;
        if (!scan_value(sc, ent, depth + 1))
            return false;
        buf_truncate(&sc->ptr, saved);
        scan_skip_ws(sc);
        if (sc->off < sc->len && sc->s[sc->off] == ',') {
            sc->off++;
            continue;
        }
        if (sc->off < sc->len && sc->s[sc->off] == '}') {
            sc->off++;
            return true;
        }
        return false;
    }
}

static bool scan_array(scan_t *sc, int depth)
{
    size_t i;

    sc->off++;
    scan_skip_ws(sc);
    if (sc->off < sc->len && sc->s[sc->off] == ']') {
        sc->off++;
        return true;
    }
    for (i = 0;; i++) {
        size_t saved = sc->ptr.len, ent;
        ctk_pos_t none = { 0, 0 };

        if (!ctk_buf_printf(&sc->ptr, "/%zu", i)) {
            sc->nomem = true;
            return false;
        }
        ent = posidx_add(sc->idx, sc->ptr.data, none);
        if (ent == SIZE_MAX) {
            sc->nomem = true;
            return false;
        }
        if (!scan_value(sc, ent, depth + 1))
            return false;
        buf_truncate(&sc->ptr, saved);
        scan_skip_ws(sc);
        if (sc->off < sc->len && sc->s[sc->off] == ',') {
            sc->off++;
            continue;
        }
        if (sc->off < sc->len && sc->s[sc->off] == ']') {
            sc->off++;
            return true;
        }
        return false;
    }
}

static bool scan_value(scan_t *sc, size_t ent, int depth)
{
    size_t start;

    scan_skip_ws(sc);
    if (sc->off >= sc->len || depth > SCAN_MAX_DEPTH)
        return false;
    /* by index: the entries may move while the value is scanned */
    sc->idx->ents[ent].val = scan_here(sc);
    switch (sc->s[sc->off]) {
    case '{':
        return scan_object(sc, depth);
    case '[':
        return scan_array(sc, depth);
    case '"':
        return scan_string(sc, NULL);
    default:
        /* number or literal: jansson vouched for it, we only skip it */
        start = sc->off;
        while (sc->off < sc->len && strchr("+-.0123456789eEaflnrstu", sc->s[sc->off]) &&
               sc->s[sc->off] != '\0')
            sc->off++;
        return sc->off > start;
    }
}

/* Record the position of every key and value of text, which jansson has
 * already accepted, and sort them for lookup. */
static bool posidx_build(posidx_t *idx, const char *text, size_t len, const char *source,
                         ctk_error_t *err)
{
    scan_t sc;
    ctk_pos_t none = { 0, 0 };
    bool ok = false;

    memset(&sc, 0, sizeof sc);
    sc.s = text;
    sc.len = len;
    sc.line = 1;
    sc.idx = idx;
    ctk_buf_init(&sc.ptr);
    ctk_buf_init(&sc.key);
    if (posidx_add(idx, "", none) == SIZE_MAX) {
        sc.nomem = true;
        goto out;
    }
    if (!scan_value(&sc, 0, 0))
        goto out;
    scan_skip_ws(&sc);
    if (sc.off != sc.len)
        goto out;
    qsort(idx->ents, idx->n, sizeof *idx->ents, posent_cmp);
    ok = true;
out:
    if (!ok) {
        if (sc.nomem)
            ctk_error_nomem(err);
        else
            ctk_error_set(err, CTK_E_INTERNAL, source, sc.line, (int)(sc.off - sc.line_start + 1),
                          "config scanner disagrees with the JSON parser here");
    }
    ctk_buf_fini(&sc.ptr);
    ctk_buf_fini(&sc.key);
    return ok;
}

/* ======================================================================
 * Where a JSON syntax error is
 * ====================================================================== */

static bool is_json_ws(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static bool is_json_punct(char ch)
{
    return ch == '{' || ch == '}' || ch == '[' || ch == ']' || ch == ':' || ch == ',';
}

/* Start of the lexical token that holds byte target (target itself when it
 * is whitespace).  Tokens as a lexer sees them, whatever the grammar says. */
static size_t token_start(const char *s, size_t len, size_t target)
{
    size_t i = 0;

    while (i < len) {
        size_t end = i + 1;

        if (s[i] == '"') {
            while (end < len && s[end] != '"' && s[end] != '\n') {
                if (s[end] == '\\' && end + 1 < len && s[end + 1] != '\n')
                    end++;
                end++;
            }
            if (end < len && s[end] == '"')
                end++;
        } else if (!is_json_ws(s[i]) && !is_json_punct(s[i])) {
            while (end < len && !is_json_ws(s[end]) && !is_json_punct(s[end]) && s[end] != '"')
                end++;
        }
        if (target < end)
            return is_json_ws(s[i]) ? target : i;
        i = end;
    }
    return target;
}

static void offset_to_pos(const char *s, size_t off, int *line, int *column)
{
    size_t i, line_start = 0;
    int l = 1;

    for (i = 0; i < off; i++) {
        if (s[i] == '\n') {
            l++;
            line_start = i + 1;
        }
    }
    *line = l;
    *column = (int)(off - line_start + 1);
}

/* jansson reports the line and the column in characters of the last byte it
 * read, usually the end of the bad token; we want the token's first byte and
 * a column counted in bytes.  json_error_t.position is the byte offset just
 * past what jansson consumed, and its text ends in "near '<token>'" with the
 * raw bytes of that token, so the token starts that many bytes earlier. */
static size_t json_error_place(const char *text, size_t len, const json_error_t *je, int *line,
                               int *column)
{
    size_t off = je->position > 0 ? (size_t)je->position : 0, at, tlen = strlen(je->text);
    const char *near = strstr(je->text, " near '"), *tok = NULL;
    size_t toklen = 0;

    if (off > len)
        off = len;
    if (near && tlen > 0 && je->text[tlen - 1] == '\'') {
        tok = near + strlen(" near '");
        toklen = (size_t)(je->text + tlen - 1 - tok);
    }
    if (ctk_str_has_prefix(je->text, "unable to decode byte") ||
        strstr(je->text, "near end of file"))
        at = off; /* the offset is the bad byte itself, or the end */
    else if (tok && toklen > 0 && toklen <= off && memcmp(text + off - toklen, tok, toklen) == 0)
        at = off - toklen;
    else /* no token quoted, or quoted only in part: find the token ourselves */
        at = token_start(text, len, off > 0 ? off - 1 : 0);
    offset_to_pos(text, at, line, column);
    return at;
}

/* What the parser's words do not say about the two mistakes JSON written
 * by hand makes most: a comma after the last member or item (the parser
 * stopped at the '}' or ']' after it) and a comment (it stopped at the
 * '/' that opens one).  at: the offset json_error_place() found.  Writes
 * "" when neither applies. */
static void json_error_hint(const char *text, size_t len, size_t at, char *hint, size_t size)
{
    size_t i = at;
    int line, column;

    hint[0] = '\0';
    if (at >= len)
        return;
    if (text[at] == '/' && at + 1 < len && (text[at + 1] == '/' || text[at + 1] == '*')) {
        snprintf(hint, size, "JSON has no comments: remove the %s comment",
                 text[at + 1] == '/' ? "'//'" : "'/* */'");
        return;
    }
    if (text[at] != '}' && text[at] != ']')
        return;
    while (i > 0 && is_json_ws(text[i - 1]))
        i--;
    if (i == 0 || text[i - 1] != ',')
        return;
    offset_to_pos(text, i - 1, &line, &column);
    snprintf(hint, size,
             "JSON allows no trailing comma: remove the comma before '%c' (line %d, column %d)",
             text[at], line, column);
}

/* jansson's lexer reports some allocation failures as syntax errors
 * ("invalid token") and survives others with a truncated token, so parsing
 * goes through a malloc that notes failures, and any failure means out of
 * memory, whatever jansson returned.  The free function stays the same, so
 * memory allocated before or after pairs up either way.  Not thread-safe,
 * like jansson's allocator setting itself; ctkgen loads configs from one
 * thread. */
static json_malloc_t outer_malloc;
static bool json_ran_out;

static void *noting_malloc(size_t size)
{
    void *p = outer_malloc(size);

    if (!p)
        json_ran_out = true;
    return p;
}

static json_t *parse(const char *text, size_t len, json_error_t *je)
{
    json_malloc_t m;
    json_free_t f;
    json_t *root;

    json_get_alloc_funcs(&m, &f);
    outer_malloc = m;
    json_ran_out = false;
    json_set_alloc_funcs(noting_malloc, f);
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, je);
    json_set_alloc_funcs(m, f);
    if (json_ran_out) {
        json_decref(root);
        root = NULL;
    }
    return root;
}

/* Whether jansson failed for want of memory. */
static bool json_error_is_nomem(const json_error_t *je)
{
    /* it leaves the text empty when it could not even start */
    if (json_ran_out || je->text[0] == '\0')
        return true;
#if JANSSON_VERSION_HEX >= 0x020e00
    return json_error_code(je) == json_error_out_of_memory;
#else
    return strstr(je->text, "memory") != NULL;
#endif
}

/* ======================================================================
 * Checking
 * ====================================================================== */

typedef struct {
    const char *source;
    const char *text; /* the config as loaded, for a value as written */
    size_t len;
    const posidx_t *idx;
    ctk_buf_t ptr; /* pointer of the value being checked */
    ctk_error_t *err;     /* what stops the check (out of memory), never a schema error */
    ctk_errlist_t *errs;  /* every schema error, in file order */
    size_t n_bad;         /* schema errors found, kept in errs or not */
    bool modvers_known;   /* every SDK's module version and aliases were read:
                             "default" can be checked against them */
} check_t;

/* Whether checking must stop: out of memory, not a schema error. */
static bool stopped(const check_t *c)
{
    return ctk_error_is_set(c->err);
}

static const char *cur_ptr(const check_t *c)
{
    return c->ptr.data ? c->ptr.data : "";
}

static ctk_pos_t pos_of(const check_t *c, const char *ptr, bool at_key)
{
    const posent_t *e = posidx_find(c->idx, ptr);
    ctk_pos_t none = { 0, 0 };

    if (!e)
        return none;
    return at_key ? e->key : e->val;
}

static bool vfail_at(check_t *c, const char *ptr, bool at_key, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static bool vfail_at(check_t *c, const char *ptr, bool at_key, const char *fmt, va_list ap)
{
    char msg[CTK_ERROR_TEXT_MAX];
    ctk_pos_t p = pos_of(c, ptr, at_key);
    ctk_error_t e;

    vsnprintf(msg, sizeof msg, fmt, ap);
    ctk_error_init(&e);
    ctk_error_set(&e, CTK_E_CONFIG, c->source, p.line, p.column, "%s: %s", *ptr ? ptr : "/",
                  msg);
    c->n_bad++;
    if (!ctk_errlist_add(c->errs, &e))
        ctk_error_nomem(c->err);
    return false;
}

/* Report at the value (or key) named by ptr, adding to the errors; always
 * returns false.  Checking goes on unless stopped(c). */
static bool fail_at(check_t *c, const char *ptr, bool at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool fail_at(check_t *c, const char *ptr, bool at_key, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail_at(c, ptr, at_key, fmt, ap);
    va_end(ap);
    return false;
}

/* Report at the value being checked. */
static bool fail(check_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(check_t *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail_at(c, cur_ptr(c), false, fmt, ap);
    va_end(ap);
    return false;
}

/* Report at the key of the member being checked. */
static bool fail_key(check_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail_key(check_t *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vfail_at(c, cur_ptr(c), true, fmt, ap);
    va_end(ap);
    return false;
}

static bool push_key(check_t *c, const char *key, size_t *saved)
{
    *saved = c->ptr.len;
    if (!ptr_append_key(&c->ptr, key, strlen(key))) {
        ctk_error_nomem(c->err);
        return false;
    }
    return true;
}

static bool push_index(check_t *c, size_t i, size_t *saved)
{
    *saved = c->ptr.len;
    if (!ctk_buf_printf(&c->ptr, "/%zu", i)) {
        ctk_error_nomem(c->err);
        return false;
    }
    return true;
}

static void pop(check_t *c, size_t saved)
{
    buf_truncate(&c->ptr, saved);
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "object";
    case JSON_ARRAY:
        return "array";
    case JSON_STRING:
        return "string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "boolean";
    case JSON_NULL:
        break;
    }
    return "null";
}

/* A value quoted for a message: at most about 60 bytes, bytes that would
 * upset a terminal written as \xNN, '"' and '\' escaped. */
static const char *show(const char *s, char out[96])
{
    size_t o = 0;

    out[o++] = '"';
    for (; *s && o < 80; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch < 0x20 || ch == 0x7f) {
            snprintf(out + o, 5, "\\x%02x", ch);
            o += 4;
        } else if (ch == '"' || ch == '\\') {
            out[o++] = '\\';
            out[o++] = (char)ch;
        } else {
            out[o++] = (char)ch;
        }
    }
    if (*s) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o++] = '"';
    out[o] = '\0';
    return out;
}

static const char *show_char(unsigned char ch, char out[8])
{
    if (ch > 0x20 && ch < 0x7f && ch != '\'')
        snprintf(out, 8, "'%c'", ch);
    else
        snprintf(out, 8, "0x%02x", ch);
    return out;
}

/* ---- value rules --------------------------------------------------------- */

static bool is_name_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '.' || ch == '_' || ch == '+' || ch == '-';
}

/* A name that is safe as a directory or file name in a module tree and as
 * a .pc name: [A-Za-z0-9._+-]+, not starting with '.', which module
 * systems read as hidden or as their own control files. */
static bool check_name(check_t *c, const char *s, const char *what)
{
    char q[96], ch[8];
    const char *p;

    if (s[0] == '.')
        return fail(c, "%s %s must not start with '.'", what, show(s, q));
    for (p = s; *p; p++)
        if (!is_name_char(*p))
            return fail(c, "%s %s contains %s; use letters, digits, '.', '_', '+' and '-'", what,
                        show(s, q), show_char((unsigned char)*p, ch));
    return true;
}

/* A module version: a name, and not "default", which Lmod and Environment
 * Modules read as the marker of the default version. */
static bool check_modver(check_t *c, const char *s, const char *what)
{
    if (!check_name(c, s, what))
        return false;
    if (strcmp(s, "default") == 0)
        return fail(c, "%s \"default\" is reserved: module systems read it as the default marker",
                    what);
    return true;
}

/* "gcc/12": names separated by single slashes. */
static bool check_module(check_t *c, const char *s)
{
    char q[96], ch[8];
    const char *p;

    for (p = s; *p; p++) {
        bool starts = (p == s || p[-1] == '/');

        if (*p == '/' && (starts || p[1] == '\0'))
            return fail(c, "module %s has an empty part; write it as \"name/version\"", show(s, q));
        if (*p != '/' && !is_name_char(*p))
            return fail(c, "module %s contains %s; use letters, digits, '.', '_', '+', '-' and '/'",
                        show(s, q), show_char((unsigned char)*p, ch));
        if (starts && *p == '.')
            return fail(c, "module %s has a part starting with '.'", show(s, q));
    }
    return true;
}

static bool check_version(check_t *c, const char *s)
{
    char q[96];
    const char *p = s;
    int parts = 0;
    bool ok = true;

    /* digits, then up to two more ".digits" */
    for (;;) {
        const char *start = p;

        while (*p >= '0' && *p <= '9')
            p++;
        if (p == start) {
            ok = false;
            break;
        }
        parts++;
        if (p - start > 1 && *start == '0')
            return fail(c, "%s is not a CUDA version: a part has a leading zero "
                           "(CUDA writes \"13.0\", not \"013.0\")",
                        show(s, q));
        if (*p != '.' || parts == 3)
            break;
        p++;
    }
    if (!ok || *p != '\0' || parts < 2)
        return fail(c, "%s is not a CUDA version; write \"X.Y\" or \"X.Y.Z\" in digits, "
                       "e.g. \"12.4\"",
                    show(s, q));
    return true;
}

/* Where a path ends up decides what it may hold. */
enum {
    PATH_PC = 1,      /* written into .pc files: no "${" */
    PATH_PATHVAR = 2, /* put on PATH-style variables: no ':' */
    PATH_JOB = 4,     /* under a Slurm job's --output and --error: no '%' */
};

static bool check_path(check_t *c, char *s, unsigned uses)
{
    char q[96];
    const char *where = (uses & PATH_PC) ? "pkg-config files and search-path variables"
                        : (uses & PATH_PATHVAR) ? "search-path variables"
                        : (uses & PATH_JOB)     ? "a Slurm job's options"
                                                : "a modulefile";
    size_t i, len = strlen(s);

    if (s[0] != '/')
        return fail(c, "%s is not an absolute path", show(s, q));
    for (i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];

        if (ch == '\n')
            return fail(c, "path contains a newline, which %s cannot express", where);
        if (ch < 0x20 || ch == 0x7f)
            return fail(c, "path contains control character 0x%02x, which %s cannot express", ch,
                        where);
        if (ch == ':' && (uses & PATH_PATHVAR))
            return fail(c, "path contains ':', which separates entries of search-path variables "
                           "(PATH, LD_LIBRARY_PATH, CPATH) and so cannot be part of one");
        if (ch == '$' && s[i + 1] == '{' && (uses & PATH_PC))
            return fail(c, "path contains \"${\", which pkg-config always expands as a variable");
        if (ch == '%' && (uses & PATH_JOB))
            return fail(c, "path contains '%%', which sbatch reads as a file name pattern "
                           "(%%j, %%u, ...) in --output and --error");
    }
    while (len > 1 && s[len - 1] == '/')
        s[--len] = '\0';
    return true;
}

/* Text that Lua and Tcl modulefiles can hold: newlines and tabs are fine,
 * other control bytes are not. */
static bool check_text(check_t *c, const char *s, const char *what)
{
    const unsigned char *p;

    for (p = (const unsigned char *)s; *p; p++)
        if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
            return fail(c, "%s contains control character 0x%02x, which a Tcl modulefile cannot "
                           "express",
                        what, *p);
    return true;
}

/* A value both module systems can hand to the shell as it is.  Lmod and
 * Environment Modules write a newline into sh code unescaped (the next line
 * would run as a command), and Environment Modules leaves a '~' at the
 * start or after a ':' for the shell to expand into a home directory. */
static bool check_env_value(check_t *c, const char *s)
{
    const char *p;

    if (!check_text(c, s, "value"))
        return false;
    if (strchr(s, '\n'))
        return fail(c, "a value may not hold a newline: the module systems write it into shell "
                       "code unescaped, and the next line would run as a command");
    for (p = s; *p; p++)
        if (*p == '~' && (p == s || p[-1] == ':'))
            return fail(c, "a value may not have '~' at its start or after ':': Environment "
                           "Modules leaves it for the shell, which makes it a home directory");
    return true;
}

/* Variables every generated module sets itself. */
static const char *const owned_env[] = {
    "PATH",      "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH",           "MANPATH",
    "PKG_CONFIG_PATH", "CUDA_HOME", "CUDA_PATH",    "CUDAToolkit_ROOT",
};
/* Variables build systems treat as the user's own flags. */
static const char *const refused_env[] = { "LDFLAGS", "CFLAGS", "CXXFLAGS", "CPPFLAGS" };

/* What a name given to "env" is, by the one rule that the config and
 * lint's suggested config both keep. */
typedef enum {
    ENV_NAME_OK,
    ENV_NAME_BAD,    /* not letters, digits and '_', not starting with a digit */
    ENV_NAME_FLAGS,  /* one of refused_env */
    ENV_NAME_OWNED,  /* one of owned_env */
    ENV_NAME_HOSTCC, /* the host compiler's: from host_compiler.ccbin */
} env_name_t;

static env_name_t env_name_kind(const char *name)
{
    const char *p;
    size_t i;

    if (!*name || (*name >= '0' && *name <= '9'))
        return ENV_NAME_BAD;
    for (p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return ENV_NAME_BAD;
    for (i = 0; i < sizeof refused_env / sizeof refused_env[0]; i++)
        if (strcmp(name, refused_env[i]) == 0)
            return ENV_NAME_FLAGS;
    for (i = 0; i < sizeof owned_env / sizeof owned_env[0]; i++)
        if (strcmp(name, owned_env[i]) == 0)
            return ENV_NAME_OWNED;
    if (strcmp(name, "NVCC_CCBIN") == 0 || strcmp(name, "NVCC_PREPEND_FLAGS") == 0 ||
        strcmp(name, "CUDAHOSTCXX") == 0)
        return ENV_NAME_HOSTCC;
    return ENV_NAME_OK;
}

static bool check_env_name(check_t *c, const char *name)
{
    char q[96];

    switch (env_name_kind(name)) {
    case ENV_NAME_OK:
        break;
    case ENV_NAME_BAD:
        if (!*name)
            return fail_key(c, "an empty name is not an environment variable name");
        return fail_key(c, "%s is not an environment variable name; use letters, digits and "
                           "'_', not starting with a digit",
                        show(name, q));
    case ENV_NAME_FLAGS:
        return fail_key(c, "refused: a module that sets %s breaks users' builds, which read "
                           "it as their own flags (configure, CMake, pip); users get the "
                           "toolkit's flags from its pkg-config file instead",
                        name);
    case ENV_NAME_OWNED:
        return fail_key(c, "%s is set by the generated module itself", name);
    case ENV_NAME_HOSTCC:
        return fail_key(c, "the host compiler goes in host_compiler.ccbin, from which the generated "
                           "module sets NVCC_PREPEND_FLAGS (-ccbin=PATH, read by every nvcc; 11.8 and "
                           "12.4 ignore NVCC_CCBIN) and CUDAHOSTCXX (CMake)");
    }
    return true;
}

/* A property's name (at its key) or value: a word both module systems
 * write as it is, in Lua's add_property("arch", "gpu") and Tcl's
 * add-property arch gpu. */
#define PROPERTY_MAX 64

/* Why s is no property word (static text), or NULL when it is one. */
static const char *property_refusal(const char *s)
{
    const char *p;

    if (!*s)
        return "it is empty";
    if (strlen(s) > PROPERTY_MAX)
        return "it is longer than 64 bytes";
    for (p = s; *p; p++)
        if (!is_name_char(*p) || *p == '+')
            return "it has a character other than letters, digits, '.', '_' and '-'";
    return NULL;
}

const char *ctk_config_property_refusal(const char *name, const char *value)
{
    if (property_refusal(name))
        return "the name is not a word of letters, digits, '.', '_' and '-' (at most 64 bytes)";
    if (property_refusal(value))
        return "the value is not a word of letters, digits, '.', '_' and '-' (at most 64 bytes)";
    return NULL;
}

static bool check_property_word(check_t *c, const char *s, bool name)
{
    const char *what = name ? "property name" : "property value";
    char q[96], ch[8], why[256];
    const char *p;

    if (!property_refusal(s))
        return true;
    if (!*s)
        snprintf(why, sizeof why, "an empty %s%s", what,
                 name ? " names no property" : " (leave the property out to not set it)");
    else if (strlen(s) > PROPERTY_MAX)
        snprintf(why, sizeof why, "%s %s is longer than %d bytes", what, show(s, q), PROPERTY_MAX);
    else
        for (p = s; *p; p++)
            if (!is_name_char(*p) || *p == '+') {
                snprintf(why, sizeof why,
                         "%s %s contains %s; use letters, digits, '.', '_' and '-'", what,
                         show(s, q), show_char((unsigned char)*p, ch));
                break;
            }
    return name ? fail_key(c, "%s", why) : fail(c, "%s", why);
}

/* <MODULE_NAME>_VERSION: upper case, anything but letters and digits as '_'. */
static bool is_own_version_var(const char *module_name, const char *name)
{
    size_t n = strlen(module_name);

    if (strlen(name) != n + 8 || strcmp(name + n, "_VERSION") != 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        char m = module_name[i], u = m >= 'a' && m <= 'z' ? (char)(m - 'a' + 'A') : m;

        if (!((u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9')))
            u = '_';
        if (name[i] != u)
            return false;
    }
    return true;
}

const char *ctk_config_env_refusal(const char *module_name, const char *name, const char *value)
{
    const char *p;

    switch (env_name_kind(name)) {
    case ENV_NAME_OK:
        break;
    case ENV_NAME_BAD:
        return "not an environment variable name";
    case ENV_NAME_FLAGS:
        return "a flags variable users' builds read as their own";
    case ENV_NAME_OWNED:
    case ENV_NAME_HOSTCC:
        return "set by the generated module itself";
    }
    if (module_name && is_own_version_var(module_name, name))
        return "set by the generated module itself";
    if (!*value)
        return "an empty value";
    for (p = value; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return "a newline or control character in the value";
        if (*p == '~' && (p == value || p[-1] == ':'))
            return "a '~' the shell would expand";
    }
    return NULL;
}

/* ---- the validation section ------------------------------------------------ */

/* the longest partition name taken */
#define PARTITION_NAME_MAX 64
/* "queue_timeout": a week; a probe job that waits longer waits for nothing */
#define QUEUE_TIMEOUT_MAX 604800

/* One of two words. */
static bool check_choice(check_t *c, const char *s, const char *what, const char *a,
                         const char *b)
{
    char q[96];
    const char *near = NULL;

    if (strcmp(s, a) == 0 || strcmp(s, b) == 0)
        return true;
    if (ctk_edit_distance(s, a) < 3)
        near = a;
    else if (ctk_edit_distance(s, b) < 3)
        near = b;
    if (near)
        return fail(c, "%s %s is not \"%s\" or \"%s\" (did you mean \"%s\"?)", what, show(s, q), a,
                    b, near);
    return fail(c, "%s %s is not \"%s\" or \"%s\"", what, show(s, q), a, b);
}

/* A value that goes to sbatch as (part of) one argument: no control
 * characters.  A NUL never gets this far: the parser refuses \u0000. */
static bool check_plain(check_t *c, const char *s, const char *what)
{
    char q[96];
    const unsigned char *p;

    for (p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return fail(c, "%s %s contains control character 0x%02x, which a Slurm option "
                           "cannot carry",
                        what, show(s, q), *p);
    return true;
}

static bool is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

static bool is_alnum(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || is_digit(ch);
}

/* The characters Slurm allows in a partition name; "all-gpu" is one of
 * them.  "." and ".." would be directories, not names, wherever a name
 * becomes part of a path. */
static bool check_partition_name(check_t *c, const char *s)
{
    char q[96], ch[8];
    const char *p;

    if (!check_plain(c, s, "partition name"))
        return false;
    for (p = s; *p; p++)
        if (!is_alnum(*p) && *p != '-' && *p != '_' && *p != '.')
            return fail(c, "partition name %s contains %s; Slurm partition names use letters, "
                           "digits, '-', '_' and '.'",
                        show(s, q), show_char((unsigned char)*p, ch));
    if (strlen(s) > PARTITION_NAME_MAX)
        return fail(c, "partition name %s has more than %d characters", show(s, q),
                    PARTITION_NAME_MAX);
    if (strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return fail(c, "partition name %s names a directory, not a partition", show(s, q));
    return true;
}

/* How many characters at s are in the class; at most max + 1, so that
 * "too many" shows. */
static size_t span(const char *s, bool (*in)(char), size_t max)
{
    size_t n = 0;

    while (n <= max && s[n] && in(s[n]))
        n++;
    return n;
}

/* Whether the n characters at s are 1 to max of the class. */
static bool all_in(const char *s, size_t n, size_t max, bool (*in)(char))
{
    size_t i;

    if (n == 0 || n > max)
        return false;
    for (i = 0; i < n; i++)
        if (!in(s[i]))
            return false;
    return true;
}

static bool is_gres_name_char(char ch)
{
    return is_alnum(ch) || ch == '_';
}

static bool is_gres_type_char(char ch)
{
    return is_alnum(ch) || ch == '_' || ch == '-' || ch == '.';
}

/* One GRES as sbatch --gres takes it, with its count: "name:count" or
 * "name:type:count" ("gpu:1", "gpu:h100:2", "gpu:1g.10gb:1" for a MIG
 * slice).  The name starts with a letter; the count is a whole number of
 * at most 9 digits, not 0 (a probe job needs a device).  Slurm's other
 * forms (a bare name meaning 1, a list, count suffixes) are refused: the
 * job must ask for devices, and for one kind. */
static bool check_gres(check_t *c, const char *s)
{
    char q[96];
    const char *c1, *c2, *count;

    if (!check_plain(c, s, "gres"))
        return false;
    c1 = strchr(s, ':');
    c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || (c2 && strchr(c2 + 1, ':')))
        goto bad;
    count = c2 ? c2 + 1 : c1 + 1;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) ||
        !all_in(s, (size_t)(c1 - s), 64, is_gres_name_char) ||
        (c2 && !all_in(c1 + 1, (size_t)(c2 - c1 - 1), 64, is_gres_type_char)) ||
        !all_in(count, strlen(count), 9, is_digit))
        goto bad;
    if (strspn(count, "0") == strlen(count))
        return fail(c, "gres %s asks for no device; give a count of 1 or more", show(s, q));
    return true;
bad:
    return fail(c, "gres %s is not \"name:count\" or \"name:type:count\", e.g. \"gpu:1\" or "
                   "\"gpu:h100:2\"",
                show(s, q));
}

/* Digits at p, at least 1 and at most max; *value is what they say.  The
 * end of them, or NULL. */
static const char *time_field(const char *p, size_t max, unsigned long *value)
{
    size_t n = span(p, is_digit, max), i;

    if (n == 0 || n > max)
        return NULL;
    *value = 0;
    for (i = 0; i < n; i++)
        *value = *value * 10 + (unsigned long)(p[i] - '0');
    return p + n;
}

/* A time limit in one of Slurm's forms: "minutes", "MM:SS", "HH:MM:SS",
 * "D-HH", "D-HH:MM", "D-HH:MM:SS".  The first field may be as large as it
 * likes (up to 9 digits); the ones after it are one or two digits, hours
 * after a day below 24, minutes and seconds after a field below 60: Slurm
 * would take "1-30" or "10:75" and compute something, which is unlikely to
 * be what was meant. */
static bool check_time(check_t *c, const char *s)
{
    char q[96];
    const char *p;
    unsigned long v;
    int colons = 0;

    if (!check_plain(c, s, "time"))
        return false;
    if (!(p = time_field(s, 9, &v)))
        goto bad;
    if (*p == '-') {
        if (!(p = time_field(p + 1, 2, &v)) || v >= 24)
            goto bad;
    }
    while (*p == ':' && colons < 2) {
        if (!(p = time_field(p + 1, 2, &v)) || v >= 60)
            goto bad;
        colons++;
    }
    if (*p != '\0')
        goto bad;
    return true;
bad:
    return fail(c, "time %s is not a Slurm time limit; write \"minutes\", \"MM:SS\", "
                   "\"HH:MM:SS\", \"D-HH\", \"D-HH:MM\" or \"D-HH:MM:SS\" in digits, e.g. "
                   "\"00:05:00\"",
                show(s, q));
}

/* sbatch options ctkgen sets on every probe job: the job must run where it
 * says, write where it reads, and be waited for as it waits. */
static const struct {
    char letter; /* the short form, or 0 */
    const char *name;
    const char *instead; /* what to write instead, or NULL */
} owned_sbatch[] = {
    { 'p', "partition", "list the partition under \"partitions\"" },
    { 0, "gres", "set the partition's \"gres\"" },
    { 'o', "output", NULL },
    { 'e', "error", NULL },
    { 0, "wrap", NULL },
    { 0, "export", NULL },
    { 'D', "chdir", NULL },
    { 'J', "job-name", NULL },
    { 0, "parsable", NULL },
    { 'W', "wait", NULL },
};

/* One of "extra_args".  Only long options, "--name" or "--name=value" in
 * one string: anything else could be taken as the job script, or as the
 * value of the option before it.  sbatch's getopt_long takes any
 * unambiguous abbreviation, so a prefix of an owned option is as owned as
 * the option. */
static bool check_extra_arg(check_t *c, const char *s)
{
    char q[96];
    const char *eq;
    size_t i, n;

    if (!check_plain(c, s, "argument"))
        return false;
    if (s[0] == '-' && s[1] != '-')
        for (i = 0; i < N_OF(owned_sbatch); i++)
            if (owned_sbatch[i].letter && s[1] == owned_sbatch[i].letter)
                return fail(c, "%s is sbatch's -%c (--%s), which ctkgen sets itself%s%s",
                            show(s, q), s[1], owned_sbatch[i].name,
                            owned_sbatch[i].instead ? "; " : "",
                            owned_sbatch[i].instead ? owned_sbatch[i].instead : "");
    if (!ctk_str_has_prefix(s, "--"))
        return fail(c, "%s does not start with \"--\": extra_args take sbatch's long options, "
                       "each written \"--name=value\" in one string",
                    show(s, q));
    if (s[2] == '\0')
        return fail(c, "\"--\" ends sbatch's options, after which an argument is the job script");
    eq = strchr(s + 2, '=');
    n = eq ? (size_t)(eq - (s + 2)) : strlen(s + 2);
    if (n == 0)
        return fail(c, "%s has no option name after \"--\"", show(s, q));
    for (i = 0; i < N_OF(owned_sbatch); i++) {
        const char *name = owned_sbatch[i].name;

        if (strncmp(s + 2, name, n) != 0 || n > strlen(name))
            continue;
        return fail(c, "%s %s --%s, which ctkgen sets itself%s%s", show(s, q),
                    n == strlen(name) ? "is sbatch's" : "abbreviates", name,
                    owned_sbatch[i].instead ? "; " : "",
                    owned_sbatch[i].instead ? owned_sbatch[i].instead : "");
    }
    return true;
}

/* ---- key tables ------------------------------------------------------------ */

typedef enum {
    K_IGNORE,  /* "$schema": a string, not kept */
    K_STRING,  /* any non-empty string */
    K_TEXT,    /* help text */
    K_NAME,    /* module_name, family, pc_prefix */
    K_MODVER,  /* an SDK's "name" */
    K_MODULE,  /* host_compiler.module */
    K_VERSION, /* "X.Y" or "X.Y.Z" */
    K_DIR,     /* toolkit directories */
    K_PCDIR,   /* pkgconfig_dir */
    K_FILE,    /* host_compiler.ccbin */
    K_BOOL,
    K_ENV,
    K_PROPERTIES,
    K_ALIASES,
    K_COMM,
    K_HOSTCC,
    K_SDKS,
    K_VALIDATION, /* the "validation" object */
    K_LAUNCHER,   /* "local" or "slurm" */
    K_BUILD,      /* "login" or "compute" */
    K_SECONDS,    /* queue_timeout */
    K_STAGEDIR,   /* stage_dir */
    K_MODPATH,    /* modulepath: absolute directories */
    K_PARTITIONS,
    K_PARTNAME,   /* a partition object's "name" */
    K_GRES,
    K_SLURM,      /* account, qos, constraint: passed to sbatch as they are */
    K_TIME,
    K_ARGS,       /* extra_args */
    K_LINT,       /* the "lint" object: a lint policy */
    K_ERROR_ON,   /* "warning" or "error" */
    K_OPTBOOL,    /* a bool kept as 1/0 in an int (-1: not given) */
    K_RULES,      /* the policy's rules */
    K_CODES,      /* a rule's "code": a finding code, or an array of them */
    K_GLOBS,      /* a rule's "files": a glob, or an array of them */
    K_ACTION,     /* a rule's "severity": error, warning, note, off, waive */
    K_REASON      /* a rule's "reason" */
} kind_t;

typedef struct {
    const char *key;
    kind_t kind;
    bool required;
    size_t off, off2; /* fields in the struct being filled (off2: a count) */
    int field;        /* ctk_sdk_field_t whose position to keep, or -1 */
} keyspec_t;

#define CF(f) offsetof(ctk_config_t, f)
#define SF(f) offsetof(ctk_sdk_conf_t, f)
#define VF(f) offsetof(ctk_validation_conf_t, f)
#define PF(f) offsetof(ctk_partition_conf_t, f)
#define LF(f) offsetof(ctk_policy_t, f)
#define RF(f) offsetof(rule_conf_t, f)

/* A policy rule as written, before it is split into one ctk_policy_rule_t
 * per code and glob. */
typedef struct {
    char **codes;
    size_t n_codes;
    char **globs;
    size_t n_globs;
    char *action;
    char *reason;
} rule_conf_t;

static const keyspec_t top_keys[] = {
    { "$schema", K_IGNORE, false, 0, 0, -1 },
    { "module_name", K_NAME, false, CF(module_name), 0, -1 },
    { "family", K_NAME, false, CF(family), 0, -1 },
    { "default", K_STRING, false, CF(default_version), 0, -1 },
    { "pc_prefix", K_NAME, false, CF(pc_prefix), 0, -1 },
    { "pkgconfig_dir", K_PCDIR, false, CF(pkgconfig_dir), 0, -1 },
    { "pc_rpath", K_BOOL, false, CF(pc_rpath), 0, -1 },
    { "full_version_aliases", K_OPTBOOL, false, CF(full_version_aliases), 0, -1 },
    { "modulecmd", K_FILE, false, CF(modulecmd), 0, -1 },
    { "help", K_TEXT, false, CF(help), 0, -1 },
    { "env", K_ENV, false, CF(env), CF(n_env), -1 },
    { "properties", K_PROPERTIES, false, CF(properties), CF(n_properties), -1 },
    { "validation", K_VALIDATION, false, CF(validation), 0, -1 },
    { "lint", K_LINT, false, CF(lint), 0, -1 },
    { "sdks", K_SDKS, true, 0, 0, -1 },
};

static const keyspec_t sdk_keys[] = {
    { "version", K_VERSION, true, SF(version), 0, CTK_F_VERSION },
    { "name", K_MODVER, false, SF(module_version), 0, CTK_F_NAME },
    { "base", K_DIR, true, SF(base), 0, CTK_F_BASE },
    { "math_libs", K_DIR, false, SF(math_libs), 0, CTK_F_MATH_LIBS },
    { "nvvm", K_DIR, false, SF(nvvm), 0, CTK_F_NVVM },
    { "cupti", K_DIR, false, SF(cupti), 0, CTK_F_CUPTI },
    { "comm_libs", K_COMM, false, 0, 0, -1 },
    { "host_compiler", K_HOSTCC, false, 0, 0, -1 },
    { "help", K_TEXT, false, SF(help), 0, -1 },
    { "env", K_ENV, false, SF(env), SF(n_env), -1 },
    { "properties", K_PROPERTIES, false, SF(properties), SF(n_properties), -1 },
    { "aliases", K_ALIASES, false, SF(aliases), SF(n_aliases), -1 },
    { "follow_link", K_BOOL, false, SF(follow_link), 0, -1 },
};

static const keyspec_t comm_keys[] = {
    { "nccl", K_DIR, false, SF(nccl), 0, CTK_F_NCCL },
    { "nvshmem", K_DIR, false, SF(nvshmem), 0, CTK_F_NVSHMEM },
};

static const keyspec_t hostcc_keys[] = {
    { "module", K_MODULE, false, SF(host_compiler_module), 0, -1 },
    { "ccbin", K_FILE, false, SF(host_compiler_ccbin), 0, CTK_F_CCBIN },
};

static const keyspec_t validation_keys[] = {
    { "launcher", K_LAUNCHER, false, VF(launcher), 0, -1 },
    { "build", K_BUILD, false, VF(build), 0, -1 },
    { "queue_timeout", K_SECONDS, false, VF(queue_timeout_s), 0, -1 },
    { "stage_dir", K_STAGEDIR, false, VF(stage_dir), 0, -1 },
    { "modulepath", K_MODPATH, false, VF(modulepath), VF(n_modulepath), -1 },
    { "partitions", K_PARTITIONS, false, 0, 0, -1 },
};

static const keyspec_t partition_keys[] = {
    { "name", K_PARTNAME, true, PF(name), 0, -1 },
    { "gres", K_GRES, false, PF(gres), 0, -1 },
    { "account", K_SLURM, false, PF(account), 0, -1 },
    { "qos", K_SLURM, false, PF(qos), 0, -1 },
    { "time", K_TIME, false, PF(time), 0, -1 },
    { "constraint", K_SLURM, false, PF(constraint), 0, -1 },
    { "extra_args", K_ARGS, false, PF(extra_args), PF(n_extra_args), -1 },
};

static const keyspec_t lint_keys[] = {
    { "$schema", K_IGNORE, false, 0, 0, -1 },
    { "error_on", K_ERROR_ON, false, LF(error_on), 0, -1 },
    { "strict", K_OPTBOOL, false, LF(strict), 0, -1 },
    { "rules", K_RULES, false, 0, 0, -1 },
};

static const keyspec_t rule_keys[] = {
    { "code", K_CODES, true, RF(codes), RF(n_codes), -1 },
    { "files", K_GLOBS, false, RF(globs), RF(n_globs), -1 },
    { "severity", K_ACTION, true, RF(action), 0, -1 },
    { "reason", K_REASON, true, RF(reason), 0, -1 },
};

typedef struct {
    const keyspec_t *keys;
    size_t n;
    const char *what; /* for messages */
} table_t;

static const table_t top_table = { top_keys, N_OF(top_keys), "top level" };
static const table_t sdk_table = { sdk_keys, N_OF(sdk_keys), "SDK" };
static const table_t comm_table = { comm_keys, N_OF(comm_keys), "comm_libs" };
static const table_t hostcc_table = { hostcc_keys, N_OF(hostcc_keys), "host_compiler" };
static const table_t validation_table = { validation_keys, N_OF(validation_keys), "validation" };
static const table_t partition_table = { partition_keys, N_OF(partition_keys), "partition" };
static const table_t lint_table = { lint_keys, N_OF(lint_keys), "lint" };
static const table_t rule_table = { rule_keys, N_OF(rule_keys), "rule" };

static const keyspec_t *table_find(const table_t *t, const char *key)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (strcmp(t->keys[i].key, key) == 0)
            return &t->keys[i];
    return NULL;
}


/* *meant: the key of t it suggests instead, or NULL. */
static bool unknown_key(check_t *c, const table_t *t, const char *key, const keyspec_t **meant)
{
    const keyspec_t *best = NULL;
    size_t i, best_d = 3;

    *meant = NULL;
    /* a key that is right, one level off */
    if (t == &sdk_table && table_find(&comm_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs inside \"comm_libs\")", key);
    if (t == &sdk_table && table_find(&hostcc_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs inside \"host_compiler\")", key);
    if (t == &sdk_table && table_find(&top_table, key) && !table_find(&sdk_table, key))
        return fail_key(c, "unknown key (\"%s\" is a top-level key)", key);
    if (t == &top_table && table_find(&sdk_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs inside an entry of \"sdks\")", key);
    if (t == &top_table && table_find(&validation_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs inside \"validation\")", key);
    if (t == &validation_table && table_find(&partition_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs inside an entry of \"partitions\")",
                        key);
    if (t == &validation_table && table_find(&top_table, key))
        return fail_key(c, "unknown key (\"%s\" is a top-level key)", key);
    if (t == &lint_table && table_find(&rule_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs inside an entry of \"rules\")", key);
    if (t == &lint_table && table_find(&top_table, key))
        return fail_key(c, "unknown key (\"%s\" is a site config key, not a lint policy's: give a site "
                           "config with --config, its \"lint\" object with --policy)",
                        key);
    if (t == &rule_table && table_find(&lint_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs to the policy, not a rule)", key);
    if (t == &partition_table && table_find(&validation_table, key))
        return fail_key(c, "unknown key (\"%s\" belongs inside \"validation\", not a partition)",
                        key);
    for (i = 0; i < t->n; i++) {
        size_t d = ctk_edit_distance(key, t->keys[i].key);

        if (d < best_d) {
            best_d = d;
            best = &t->keys[i];
        }
    }
    *meant = best;
    if (best)
        return fail_key(c, "unknown key (did you mean \"%s\"?)", best->key);
    return fail_key(c, "unknown key");
}

/* ---- members ----------------------------------------------------------------- */

/* The number v, being checked, as the file writes it ("13.0", "12.10"),
 * which is what its author meant as a string; formatted when that text
 * cannot be had.  Returns out. */
static const char *number_text(const check_t *c, const json_t *v, char *out, size_t size)
{
    ctk_pos_t p = pos_of(c, cur_ptr(c), false);
    size_t off = 0, n;
    int line = 1, prec;

    while (c->text && line < p.line && off < c->len)
        if (c->text[off++] == '\n')
            line++;
    if (c->text && p.line > 0 && line == p.line && p.column > 0) {
        off += (size_t)p.column - 1;
        for (n = 0; off + n < c->len && c->text[off + n] &&
                    strchr("+-.0123456789eE", c->text[off + n]);
             n++)
            ;
        if (n > 0 && n < size) {
            memcpy(out, c->text + off, n);
            out[n] = '\0';
            return out;
        }
    }
    if (json_is_integer(v)) {
        snprintf(out, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return out;
    }
    /* the shortest form that reads back as the same double */
    for (prec = 1; prec <= 17; prec++) {
        snprintf(out, size, "%.*g", prec, json_real_value(v));
        if (strtod(out, NULL) == json_real_value(v))
            break;
    }
    if (!strpbrk(out, ".eE") && strlen(out) + 2 < size)
        memcpy(out + strlen(out), ".0", 3);
    return out;
}

/* v, being checked, is not the string it should be.  A number is most
 * likely a version or a name written without quotes: say how to quote it. */
static bool fail_not_string(check_t *c, const json_t *v)
{
    char num[48];

    if (json_is_number(v))
        return fail(c, "expected a string, got number; write \"%s\" in quotes",
                    number_text(c, v, num, sizeof num));
    return fail(c, "expected a string, got %s", type_name(v));
}

static bool take_string(check_t *c, const json_t *v, char **dst)
{
    char *copy;

    if (!json_is_string(v))
        return fail_not_string(c, v);
    if (json_string_length(v) == 0)
        return fail(c, "expected a non-empty string");
    copy = ctk_strdup(json_string_value(v), c->err);
    if (!copy)
        return false;
    free(*dst);
    *dst = copy;
    return true;
}

/* A bad value that rules across entries would read is not kept: they
 * skip what is missing instead of reporting on a value already refused.
 * Returns false. */
static bool drop(char **str)
{
    free(*str);
    *str = NULL;
    return false;
}

/* kv[*n] = NAME=VALUE (copies), counted once its name is kept so that the
 * config's freeing sees it.  false: no memory. */
static bool keep_pair(check_t *c, ctk_kv_t *kv, size_t *n, const char *name, const char *value)
{
    ctk_kv_t *e = &kv[*n];

    if (!(e->name = ctk_strdup(name, c->err)))
        return false;
    (*n)++;
    return (e->value = ctk_strdup(value, c->err)) != NULL;
}

static bool take_env(check_t *c, const json_t *v, ctk_kv_t **env, size_t *n)
{
    const char *name;
    json_t *val;
    ctk_kv_t *kv;
    bool ok = true;

    if (!json_is_object(v))
        return fail(c, "expected an object of NAME: \"value\", got %s", type_name(v));
    if (json_object_size(v) == 0)
        return true;
    kv = calloc(json_object_size(v), sizeof *kv);
    if (!kv) {
        ctk_error_nomem(c->err);
        return false;
    }
    *env = kv;
    *n = 0;
    /* a bad entry is reported and left out; the others are still checked */
    json_object_foreach((json_t *)v, name, val) {
        size_t saved;

        if (!push_key(c, name, &saved))
            return false;
        if (!check_env_name(c, name))
            ok = false;
        else if (!json_is_string(val))
            ok = fail_not_string(c, val);
        else if (json_string_length(val) == 0)
            ok = fail(c, "expected a non-empty string (leave %s out to not set it)", name);
        else if (!check_env_value(c, json_string_value(val)))
            ok = false;
        else if (!keep_pair(c, kv, n, name, json_string_value(val)))
            return false;
        pop(c, saved);
        if (stopped(c))
            return false;
    }
    return ok;
}

/* "properties": {"arch": "gpu"}, kept in file order. */
static bool take_properties(check_t *c, const json_t *v, ctk_kv_t **props, size_t *n)
{
    const char *name;
    json_t *val;
    ctk_kv_t *kv;
    bool ok = true;

    if (!json_is_object(v))
        return fail(c, "expected an object of NAME: \"value\" (Lmod's add_property), got %s",
                    type_name(v));
    if (json_object_size(v) == 0)
        return true;
    kv = calloc(json_object_size(v), sizeof *kv);
    if (!kv) {
        ctk_error_nomem(c->err);
        return false;
    }
    *props = kv;
    *n = 0;
    json_object_foreach((json_t *)v, name, val) {
        size_t saved;

        if (!push_key(c, name, &saved))
            return false;
        if (!check_property_word(c, name, true))
            ok = false;
        else if (!json_is_string(val))
            ok = fail_not_string(c, val);
        else if (!check_property_word(c, json_string_value(val), false))
            ok = false;
        else if (!keep_pair(c, kv, n, name, json_string_value(val)))
            return false;
        pop(c, saved);
        if (stopped(c))
            return false;
    }
    return ok;
}

/* An array of strings, each checked by check(c, item) where it stands;
 * a bad one is reported and left NULL in *items, so that the others keep
 * their index (a config with a bad item is not handed out). */
static bool take_strings(check_t *c, const json_t *v, char ***items, size_t *n,
                         bool (*check)(check_t *c, const char *item))
{
    size_t i;
    char **list;
    bool ok = true;

    if (!json_is_array(v))
        return fail(c, "expected an array of strings, got %s", type_name(v));
    if (json_array_size(v) == 0)
        return true;
    list = calloc(json_array_size(v), sizeof *list);
    if (!list) {
        ctk_error_nomem(c->err);
        return false;
    }
    *items = list;
    *n = 0;
    for (i = 0; i < json_array_size(v); i++) {
        size_t saved;

        if (!push_index(c, i, &saved))
            return false;
        *n = i + 1;
        if (!take_string(c, json_array_get(v, i), &list[i]))
            ok = false;
        else if (!check(c, list[i]))
            ok = drop(&list[i]);
        pop(c, saved);
        if (stopped(c))
            return false;
    }
    return ok;
}

static bool check_alias(check_t *c, const char *alias)
{
    return check_modver(c, alias, "alias");
}

static bool take_aliases(check_t *c, const json_t *v, char ***aliases, size_t *n)
{
    return take_strings(c, v, aliases, n, check_alias);
}

/* A MODULEPATH entry: the item is the config's own copy, which check_path
 * may trim of trailing '/'. */
static bool check_modulepath_dir(check_t *c, const char *dir)
{
    return check_path(c, (char *)dir, PATH_PATHVAR);
}

static bool check_object(check_t *c, const json_t *obj, const table_t *t, void *base,
                         ctk_config_t *cfg, ctk_sdk_conf_t *sdk);

static bool take_sdks(check_t *c, const json_t *v, ctk_config_t *cfg)
{
    size_t i;
    bool ok = true;

    if (!json_is_array(v))
        return fail(c, "expected an array of SDK objects, got %s", type_name(v));
    if (json_array_size(v) == 0)
        return fail(c, "expected at least one SDK");
    cfg->sdks = calloc(json_array_size(v), sizeof *cfg->sdks);
    if (!cfg->sdks) {
        ctk_error_nomem(c->err);
        return false;
    }
    c->modvers_known = true;
    /* an SDK with errors does not stop the others being checked */
    for (i = 0; i < json_array_size(v); i++) {
        ctk_sdk_conf_t *sdk = &cfg->sdks[i];
        const json_t *item = json_array_get(v, i);
        size_t saved;

        cfg->n_sdks = i + 1;
        if (!push_index(c, i, &saved))
            return false;
        snprintf(sdk->jpath, sizeof sdk->jpath, "/sdks/%zu", i);
        sdk->pos[CTK_F_SDK] = pos_of(c, cur_ptr(c), false);
        if (!check_object(c, item, &sdk_table, sdk, cfg, sdk))
            ok = false;
        if (stopped(c))
            return false;
        /* the version names the module unless a "name" does, or would had
           it been good */
        if (!sdk->module_version && sdk->version && !json_object_get(item, "name")) {
            sdk->module_version = ctk_strdup(sdk->version, c->err);
            if (!sdk->module_version)
                return false;
        }
        if (!sdk->module_version)
            c->modvers_known = false;
        pop(c, saved);
    }
    return ok;
}

/* "queue_timeout": a number of seconds, more than 0 and at most a week. */
static bool take_seconds(check_t *c, const json_t *v, double *dst, const char *what)
{
    char num[48];
    double secs;

    if (json_is_string(v) && json_string_length(v) > 0 &&
        strspn(json_string_value(v), "0123456789") == json_string_length(v))
        return fail(c, "expected a number of seconds, got string; write %s without quotes",
                    json_string_value(v));
    if (!json_is_number(v))
        return fail(c, "expected a number of seconds, got %s", type_name(v));
    secs = json_number_value(v);
    if (!(secs > 0 && secs <= QUEUE_TIMEOUT_MAX))
        return fail(c, "%s %s is out of range: give more than 0 and at most %d seconds (7 days)",
                    what, number_text(c, v, num, sizeof num), QUEUE_TIMEOUT_MAX);
    *dst = secs;
    return true;
}

static bool take_args(check_t *c, const json_t *v, char ***args, size_t *n)
{
    return take_strings(c, v, args, n, check_extra_arg);
}

/* Where a partition's name is: the entry itself when it is a string. */
static ctk_pos_t partition_name_pos(const check_t *c, const ctk_partition_conf_t *p, char *at,
                                    size_t size)
{
    ctk_pos_t pos;

    snprintf(at, size, "%s/name", p->jpath);
    pos = pos_of(c, at, false);
    if (pos.line == 0) {
        snprintf(at, size, "%s", p->jpath);
        pos = p->pos;
    }
    return pos;
}

/* p's name, just read (the value being checked), is not an earlier
 * entry's: reported here, in file order, with the earlier one's place. */
static bool check_partition_unique(check_t *c, const ctk_validation_conf_t *val,
                                   const ctk_partition_conf_t *p)
{
    char first[64], q[96];
    ctk_pos_t there;
    size_t j;

    for (j = 0; &val->partitions[j] != p; j++) {
        /* an earlier entry whose name was bad or missing has none */
        if (!val->partitions[j].name || strcmp(val->partitions[j].name, p->name) != 0)
            continue;
        there = partition_name_pos(c, &val->partitions[j], first, sizeof first);
        return fail(c, "duplicate partition %s (also %s, line %d, column %d)", show(p->name, q),
                    first, there.line, there.column);
    }
    return true;
}

static bool take_partitions(check_t *c, const json_t *v, ctk_validation_conf_t *val,
                            ctk_config_t *cfg)
{
    size_t i;
    bool ok = true;

    if (!json_is_array(v))
        return fail(c, "expected an array of partition names or objects, got %s", type_name(v));
    if (json_array_size(v) == 0)
        return fail(c, "expected at least one partition (leave \"partitions\" out to give them "
                       "on the command line)");
    val->partitions = calloc(json_array_size(v), sizeof *val->partitions);
    if (!val->partitions) {
        ctk_error_nomem(c->err);
        return false;
    }
    for (i = 0; i < json_array_size(v); i++) {
        ctk_partition_conf_t *p = &val->partitions[i];
        const json_t *item = json_array_get(v, i);
        size_t saved;

        val->n_partitions = i + 1;
        if (!push_index(c, i, &saved))
            return false;
        snprintf(p->jpath, sizeof p->jpath, "%s", cur_ptr(c));
        p->pos = pos_of(c, cur_ptr(c), false);
        if (json_is_string(item)) {
            if (!take_string(c, item, &p->name) || !check_partition_name(c, p->name) ||
                !check_partition_unique(c, val, p))
                ok = false;
        } else if (json_is_object(item)) {
            if (!check_object(c, item, &partition_table, p, cfg, NULL))
                ok = false;
        } else {
            ok = fail(c, "expected a partition name or object, got %s", type_name(item));
        }
        pop(c, saved);
        if (stopped(c))
            return false;
    }
    return ok;
}

/* ---- the lint section ---------------------------------------------------------- */

static bool check_code(check_t *c, const char *s)
{
    const char *near = NULL;
    size_t best = 3;
    char q[96];

    if (ctk_diag_find(s))
        return true;
    for (size_t i = 0; ctk_diags[i].code; i++) {
        size_t d = ctk_edit_distance(s, ctk_diags[i].code);

        if (d < best) {
            best = d;
            near = ctk_diags[i].code;
        }
    }
    if (near)
        return fail(c, "unknown finding code %s (did you mean \"%s\"?)", show(s, q), near);
    return fail(c, "unknown finding code %s: diagnostics.md lists the codes", show(s, q));
}

/* Globs and reasons are shown in reports, one line each. */
static bool check_line(check_t *c, const char *s, const char *what)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return fail(c, "%s contains control character 0x%02x: write it on one line", what, *p);
    return true;
}

static bool check_glob(check_t *c, const char *s)
{
    return check_line(c, s, "a glob");
}

static bool check_reason(check_t *c, const char *s)
{
    return check_line(c, s, "the reason");
}

static bool check_action(check_t *c, const char *s)
{
    ctk_severity_t sev;
    bool waive;
    char q[96];

    if (ctk_policy_parse_action(s, &waive, &sev))
        return true;
    return fail(c, "severity %s is not \"error\", \"warning\", \"note\", \"off\" or \"waive\"", show(s, q));
}

static bool take_error_on(check_t *c, const json_t *v, int *dst)
{
    char *s = NULL;
    bool ok = take_string(c, v, &s) && check_choice(c, s, "error_on", "warning", "error");

    if (ok)
        *dst = strcmp(s, "warning") == 0 ? CTK_SEV_WARNING : CTK_SEV_ERROR;
    free(s);
    return ok;
}

/* A string, or a non-empty array of strings, each checked by check. */
static bool take_one_or_more(check_t *c, const json_t *v, char ***items, size_t *n,
                             bool (*check)(check_t *c, const char *item))
{
    if (json_is_array(v) && json_array_size(v) == 0)
        return fail(c, "expected a string or a non-empty array of strings");
    if (json_is_array(v))
        return take_strings(c, v, items, n, check);
    if (!(*items = calloc(1, sizeof **items))) {
        ctk_error_nomem(c->err);
        return false;
    }
    if (!take_string(c, v, &(*items)[0]))
        return false;
    *n = 1;
    return check(c, (*items)[0]);
}

static void rule_conf_fini(rule_conf_t *r)
{
    for (size_t i = 0; i < r->n_codes; i++)
        free(r->codes[i]);
    free(r->codes);
    for (size_t i = 0; i < r->n_globs; i++)
        free(r->globs[i]);
    free(r->globs);
    free(r->action);
    free(r->reason);
}

/* One rule object: a policy rule for each of its codes and globs. */
static bool take_rule(check_t *c, const json_t *v, ctk_policy_t *p)
{
    ctk_pos_t at = pos_of(c, cur_ptr(c), false);
    ctk_severity_t sev = CTK_SEV_NOTE;
    char *where = NULL;
    rule_conf_t r;
    bool waive = false, ok = false;

    memset(&r, 0, sizeof r);
    if (!check_object(c, v, &rule_table, &r, NULL, NULL))
        goto out;
    ctk_policy_parse_action(r.action, &waive, &sev);
    if (!(where = at.line ? ctk_printf(c->err, "%s:%d", c->source, at.line) : ctk_strdup(c->source, c->err)))
        goto out;
    for (size_t i = 0; i < r.n_codes; i++)
        for (size_t j = 0; j < (r.n_globs ? r.n_globs : 1); j++)
            if (!ctk_policy_add(p, r.codes[i], r.n_globs ? r.globs[j] : NULL, waive, sev, r.reason, where, c->err))
                goto out;
    ok = true;
out:
    free(where);
    rule_conf_fini(&r);
    return ok;
}

static bool take_rules(check_t *c, const json_t *v, ctk_policy_t *p)
{
    bool ok = true;

    if (!json_is_array(v))
        return fail(c, "expected an array of rule objects, got %s", type_name(v));
    for (size_t i = 0; i < json_array_size(v); i++) {
        size_t saved;

        if (!push_index(c, i, &saved))
            return false;
        if (!take_rule(c, json_array_get(v, i), p))
            ok = false;
        pop(c, saved);
        if (stopped(c))
            return false;
    }
    return ok;
}

/* A member whose value is one string, taken into *str and checked as its
 * kind says: 1 taken, 0 refused (said), -1 when k is not such a kind. */
static int take_string_member(check_t *c, const keyspec_t *k, const json_t *v, char **str, void *base,
                              ctk_config_t *cfg)
{
    switch (k->kind) {
    case K_STRING: return take_string(c, v, str);
    case K_TEXT: return take_string(c, v, str) && check_text(c, *str, "help text");
    case K_NAME: return (take_string(c, v, str) && check_name(c, *str, k->key)) || drop(str);
    case K_MODVER: return (take_string(c, v, str) && check_modver(c, *str, k->key)) || drop(str);
    case K_MODULE: return take_string(c, v, str) && check_module(c, *str);
    case K_VERSION: return (take_string(c, v, str) && check_version(c, *str)) || drop(str);
    case K_DIR: return take_string(c, v, str) && check_path(c, *str, PATH_PC | PATH_PATHVAR);
    case K_PCDIR: return take_string(c, v, str) && check_path(c, *str, PATH_PATHVAR);
    case K_FILE: return take_string(c, v, str) && check_path(c, *str, 0);
    case K_LAUNCHER: return take_string(c, v, str) && check_choice(c, *str, k->key, "local", "slurm");
    case K_BUILD: return take_string(c, v, str) && check_choice(c, *str, k->key, "login", "compute");
    case K_STAGEDIR: return take_string(c, v, str) && check_path(c, *str, PATH_JOB);
    case K_PARTNAME:
        return take_string(c, v, str) && check_partition_name(c, *str) &&
               check_partition_unique(c, &cfg->validation, base);
    case K_GRES: return take_string(c, v, str) && check_gres(c, *str);
    case K_SLURM: return take_string(c, v, str) && check_plain(c, *str, k->key);
    case K_TIME: return take_string(c, v, str) && check_time(c, *str);
    case K_ACTION: return take_string(c, v, str) && check_action(c, *str);
    case K_REASON: return take_string(c, v, str) && check_reason(c, *str);
    default: return -1;
    }
}

/* true or false into a bool (K_BOOL) or, kept as 1/0, an int (K_OPTBOOL). */
static bool take_bool(check_t *c, const keyspec_t *k, const json_t *v, void *base)
{
    if (!json_is_boolean(v))
        return fail(c, "expected true or false, got %s", type_name(v));
    if (k->kind == K_BOOL)
        *(bool *)((char *)base + k->off) = json_is_true(v);
    else
        *(int *)((char *)base + k->off) = json_is_true(v);
    return true;
}

/* A member whose value is an object of its own keys, checked by its
 * table: 1 or 0 for taken or failed, -1 for a kind that is not one. */
static int take_object_member(check_t *c, const keyspec_t *k, const json_t *v, void *base, ctk_config_t *cfg,
                              ctk_sdk_conf_t *sdk)
{
    switch (k->kind) {
    case K_COMM:
        if (!check_object(c, v, &comm_table, base, cfg, sdk))
            return false;
        return sdk->nccl || sdk->nvshmem || fail(c, "expected \"nccl\", \"nvshmem\" or both");
    case K_HOSTCC:
        if (!check_object(c, v, &hostcc_table, base, cfg, sdk))
            return false;
        return sdk->host_compiler_module || sdk->host_compiler_ccbin ||
               fail(c, "expected \"module\", \"ccbin\" or both");
    case K_VALIDATION:
        cfg->validation.present = true;
        return check_object(c, v, &validation_table, &cfg->validation, cfg, NULL);
    case K_LINT:
        return check_object(c, v, &lint_table, (char *)base + k->off, cfg, NULL);
    default:
        return -1;
    }
}

static bool take_member(check_t *c, const keyspec_t *k, const json_t *v, void *base,
                        ctk_config_t *cfg, ctk_sdk_conf_t *sdk)
{
    char *field = (char *)base + k->off;
    size_t *count = (size_t *)((char *)base + k->off2);
    int r;

    if (sdk && k->field >= 0)
        sdk->pos[k->field] = pos_of(c, cur_ptr(c), false);
    if ((r = take_string_member(c, k, v, (char **)field, base, cfg)) >= 0 ||
        (r = take_object_member(c, k, v, base, cfg, sdk)) >= 0)
        return r;
    switch (k->kind) {
    case K_IGNORE:
        return json_is_string(v) || fail_not_string(c, v);
    case K_BOOL:
    case K_OPTBOOL:
        return take_bool(c, k, v, base);
    case K_ENV:
        return take_env(c, v, (ctk_kv_t **)field, count);
    case K_PROPERTIES:
        return take_properties(c, v, (ctk_kv_t **)field, count);
    case K_ALIASES:
        if (take_aliases(c, v, (char ***)field, count))
            return true;
        c->modvers_known = false; /* the bad ones are left out */
        return false;
    case K_SDKS:
        return take_sdks(c, v, cfg);
    case K_SECONDS:
        return take_seconds(c, v, (double *)field, k->key);
    case K_MODPATH:
        return take_strings(c, v, (char ***)field, count, check_modulepath_dir);
    case K_PARTITIONS:
        return take_partitions(c, v, base, cfg);
    case K_ARGS:
        return take_args(c, v, (char ***)field, count);
    case K_ERROR_ON:
        return take_error_on(c, v, (int *)field);
    case K_RULES:
        return take_rules(c, v, base);
    case K_CODES:
        return take_one_or_more(c, v, (char ***)field, count, check_code);
    case K_GLOBS:
        return take_one_or_more(c, v, (char ***)field, count, check_glob);
    default:
        return fail(c, "internal error: unhandled key kind");
    }
}

/* Check an object against a key table, in file order, filling base. */
static bool check_object(check_t *c, const json_t *obj, const table_t *t, void *base,
                         ctk_config_t *cfg, ctk_sdk_conf_t *sdk)
{
    const char *key;
    json_t *val;
    size_t i;
    bool ok = true;
    bool meant[32] = { false }; /* by index in t: an unknown key was taken for it */

    if (!json_is_object(obj))
        return fail(c, "expected %s object, got %s", t == &sdk_table ? "an SDK" : "an",
                    type_name(obj));
    /* a bad member is reported and checking goes on with the next */
    json_object_foreach((json_t *)obj, key, val) {
        const keyspec_t *k = table_find(t, key), *m;
        size_t saved;

        if (!push_key(c, key, &saved))
            return false;
        if (!k) {
            ok = unknown_key(c, t, key, &m);
            if (m && (size_t)(m - t->keys) < N_OF(meant))
                meant[m - t->keys] = true;
        } else if (!take_member(c, k, val, base, cfg, sdk)) {
            ok = false;
        }
        pop(c, saved);
        if (stopped(c))
            return false;
    }
    /* a misspelt required key is one error, the unknown key's */
    for (i = 0; i < t->n; i++)
        if (t->keys[i].required && !json_object_get(obj, t->keys[i].key) &&
            !(i < N_OF(meant) && meant[i]))
            ok = fail(c, "missing required key \"%s\"", t->keys[i].key);
    return ok;
}

/* ---- rules across entries ------------------------------------------------ */

typedef struct {
    const char *name;
    char where[96]; /* "/sdks/0" or "/sdks/0/aliases/1" */
    size_t sdk;     /* index of the SDK the name selects */
} modver_t;

/* The names claimed so far, with an index by name (util.h: ctk_strmap_t,
 * sized for every name up front): a config of thousands of SDKs checks
 * each name once, not against every earlier one. */
typedef struct {
    modver_t *v;
    size_t n;
    ctk_strmap_t index; /* name -> position in v */
} modvers_t;

static bool modvers_init(modvers_t *t, size_t total, ctk_error_t *err)
{
    t->n = 0;
    t->v = calloc(total ? total : 1, sizeof *t->v);
    if (!t->v) {
        ctk_error_nomem(err);
        return false;
    }
    return ctk_strmap_init(&t->index, total, err);
}

static const modver_t *modver_find(const modvers_t *t, const char *name)
{
    const size_t *at = ctk_strmap_get(&t->index, name);

    return at ? &t->v[*at] : NULL;
}

/* Claim name (not claimed yet) for SDK sdk, found at where. */
static void modver_add(modvers_t *t, const char *name, const char *where, size_t sdk)
{
    modver_t *m = &t->v[t->n];

    m->name = name;
    snprintf(m->where, sizeof m->where, "%s", where);
    m->sdk = sdk;
    ctk_strmap_add(&t->index, name, t->n++);
}

/* Each SDK's module version into tab, once: a second is refused. */
static void claim_versions(check_t *c, const ctk_config_t *cfg, modvers_t *tab)
{
    char at[96], q[96];

    for (size_t i = 0; i < cfg->n_sdks; i++) {
        const ctk_sdk_conf_t *sdk = &cfg->sdks[i];
        bool named = sdk->pos[CTK_F_NAME].line != 0;
        const modver_t *hit;

        if (!sdk->module_version)
            continue;
        if ((hit = modver_find(tab, sdk->module_version))) {
            snprintf(at, sizeof at, "%s/%s", sdk->jpath, named ? "name" : "version");
            fail_at(c, at, false, "duplicate %s %s (also %s)", named ? "name" : "version",
                    show(sdk->module_version, q), hit->where);
            continue;
        }
        modver_add(tab, sdk->module_version, sdk->jpath, i);
    }
}

/* <prefix>-<lib>-<name>.pc is a library .pc of SDK <name>: no SDK may be
 * named <lib>-<name> after another. */
static void refuse_library_names(check_t *c, const ctk_config_t *cfg, const modvers_t *tab)
{
    char at[96], q[96];

    for (size_t i = 0; i < cfg->n_sdks && cfg->pc_prefix; i++) {
        const ctk_sdk_conf_t *sdk = &cfg->sdks[i];
        bool named = sdk->pos[CTK_F_NAME].line != 0;
        const modver_t *hit;
        const char *lib;

        for (size_t j = 0; sdk->module_version && (lib = ctk_sdk_lib_name(j)) != NULL; j++) {
            size_t len = strlen(lib);

            if (strncmp(sdk->module_version, lib, len) != 0 || sdk->module_version[len] != '-' ||
                !(hit = modver_find(tab, sdk->module_version + len + 1)))
                continue;
            snprintf(at, sizeof at, "%s/%s", sdk->jpath, named ? "name" : "version");
            fail_at(c, at, false, "%s %s would be written to %s-%s.pc, the %s .pc file of %s: choose another",
                    named ? "name" : "version", show(sdk->module_version, q), cfg->pc_prefix,
                    sdk->module_version, lib, hit->where);
            break;
        }
    }
}

/* Each alias into tab (after the n_vers versions), once: one that is a
 * version, or an alias already, is refused. */
static void claim_aliases(check_t *c, const ctk_config_t *cfg, modvers_t *tab, size_t n_vers)
{
    char at[96], q[96];

    for (size_t i = 0; i < cfg->n_sdks; i++) {
        const ctk_sdk_conf_t *sdk = &cfg->sdks[i];

        for (size_t j = 0; j < sdk->n_aliases; j++) {
            const modver_t *hit;

            if (!sdk->aliases[j]) /* bad, and reported */
                continue;
            snprintf(at, sizeof at, "%s/aliases/%zu", sdk->jpath, j);
            hit = modver_find(tab, sdk->aliases[j]);
            if (hit && hit < tab->v + n_vers)
                fail_at(c, at, false, "alias %s is already the version of %s", show(sdk->aliases[j], q),
                        hit->where);
            else if (hit)
                fail_at(c, at, false, "duplicate alias %s (also %s)", show(sdk->aliases[j], q), hit->where);
            else
                modver_add(tab, sdk->aliases[j], at, i);
        }
    }
}

/* "default" names a version or an alias in tab; an alias stands for the
 * SDK it selects, whose module version replaces it. */
static bool resolve_default(check_t *c, ctk_config_t *cfg, const modvers_t *tab)
{
    const modver_t *hit = modver_find(tab, cfg->default_version);
    char q[96], *resolved;

    if (!hit) {
        ctk_buf_t have;

        ctk_buf_init(&have);
        for (size_t i = 0; i < cfg->n_sdks && have.len < 400; i++)
            ctk_buf_printf(&have, "%s%s", i ? ", " : "", cfg->sdks[i].module_version);
        fail_at(c, "/default", false, "%s is not the version or alias of any SDK (versions: %s)",
                show(cfg->default_version, q), have.data ? have.data : "");
        ctk_buf_fini(&have);
        return false;
    }
    if (!(resolved = ctk_strdup(cfg->sdks[hit->sdk].module_version, c->err)))
        return false;
    free(cfg->default_version);
    cfg->default_version = resolved;
    return true;
}

/* Every module version and alias selects one SDK: no two may be equal.
 * Versions are claimed first so that a clash with an alias is blamed on
 * the alias.  Then "default" must name one of them.  An SDK without a
 * module version (its version or name was bad) takes no part, and
 * "default" is not checked then, nor when an alias was bad: it may name
 * what was left out. */
static bool check_modvers(check_t *c, ctk_config_t *cfg)
{
    size_t i, n_vers, total = cfg->n_sdks, bad = c->n_bad;
    modvers_t tab = { NULL, 0, { NULL, NULL, 0, 0 } };
    bool ok = false;

    for (i = 0; i < cfg->n_sdks; i++)
        total += cfg->sdks[i].n_aliases;
    if (!modvers_init(&tab, total, c->err))
        goto out;
    claim_versions(c, cfg, &tab);
    n_vers = tab.n;
    refuse_library_names(c, cfg, &tab);
    claim_aliases(c, cfg, &tab, n_vers);
    if (stopped(c) || (cfg->default_version && c->modvers_known && !resolve_default(c, cfg, &tab)))
        goto out;
    ok = c->n_bad == bad;
out:
    free(tab.v);
    ctk_strmap_fini(&tab.index);
    return ok;
}

static const ctk_kv_t *env_find(const ctk_kv_t *env, size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (strcmp(env[i].name, name) == 0)
            return &env[i];
    return NULL;
}

/* <MODULE_NAME>_VERSION is the module's own, and a variable is set in one
 * place only, so no modulefile depends on which setting it emits last.
 * With a bad module_name (NULL here) there is no own variable to check. */
static bool check_env_across(check_t *c, const ctk_config_t *cfg)
{
    char *own = NULL, *at = NULL, *p;
    size_t i, j, bad = c->n_bad;
    bool ok = false;

    if (cfg->module_name && !(own = ctk_printf(c->err, "%s_VERSION", cfg->module_name)))
        goto out;
    for (p = own; p && *p; p++) {
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
        else if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            *p = '_';
    }
    if (own && env_find(cfg->env, cfg->n_env, own)) {
        if (!(at = ctk_printf(c->err, "/env/%s", own)))
            goto out;
        fail_at(c, at, true, "%s is set by the generated module itself", own);
        free(at);
        at = NULL;
    }
    for (i = 0; i < cfg->n_sdks; i++) {
        const ctk_sdk_conf_t *sdk = &cfg->sdks[i];

        for (j = 0; j < sdk->n_env; j++) {
            const char *name = sdk->env[j].name;
            bool mine = own && strcmp(name, own) == 0;

            if (!mine && !env_find(cfg->env, cfg->n_env, name))
                continue;
            if (!(at = ctk_printf(c->err, "%s/env/%s", sdk->jpath, name)))
                goto out;
            if (mine)
                fail_at(c, at, true, "%s is set by the generated module itself", own);
            else
                fail_at(c, at, true, "%s is also set in /env; set it in one place", name);
            free(at);
            at = NULL;
        }
    }
    ok = c->n_bad == bad && !stopped(c);
out:
    free(at);
    free(own);
    return ok;
}

/* ======================================================================
 * Public API
 * ====================================================================== */

static void kv_free(ctk_kv_t *env, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(env[i].name);
        free(env[i].value);
    }
    free(env);
}

static void sdk_conf_fini(ctk_sdk_conf_t *sdk)
{
    size_t i;

    free(sdk->version);
    free(sdk->module_version);
    free(sdk->base);
    free(sdk->math_libs);
    free(sdk->nvvm);
    free(sdk->cupti);
    free(sdk->nccl);
    free(sdk->nvshmem);
    free(sdk->host_compiler_module);
    free(sdk->host_compiler_ccbin);
    free(sdk->help);
    kv_free(sdk->env, sdk->n_env);
    kv_free(sdk->properties, sdk->n_properties);
    for (i = 0; i < sdk->n_aliases; i++)
        free(sdk->aliases[i]);
    free(sdk->aliases);
}

static void partition_conf_fini(ctk_partition_conf_t *p)
{
    size_t i;

    free(p->name);
    free(p->gres);
    free(p->account);
    free(p->qos);
    free(p->time);
    free(p->constraint);
    for (i = 0; i < p->n_extra_args; i++)
        free(p->extra_args[i]);
    free(p->extra_args);
}

static void validation_conf_fini(ctk_validation_conf_t *v)
{
    size_t i;

    for (i = 0; i < v->n_partitions; i++)
        partition_conf_fini(&v->partitions[i]);
    free(v->partitions);
    for (i = 0; i < v->n_modulepath; i++)
        free(v->modulepath[i]);
    free(v->modulepath);
    free(v->stage_dir);
    free(v->build);
    free(v->launcher);
}

void ctk_config_free(ctk_config_t *cfg)
{
    size_t i;

    if (!cfg)
        return;
    validation_conf_fini(&cfg->validation);
    ctk_policy_fini(&cfg->lint);
    for (i = 0; i < cfg->n_sdks; i++)
        sdk_conf_fini(&cfg->sdks[i]);
    free(cfg->sdks);
    kv_free(cfg->env, cfg->n_env);
    kv_free(cfg->properties, cfg->n_properties);
    free(cfg->help);
    free(cfg->pkgconfig_dir);
    free(cfg->modulecmd);
    free(cfg->pc_prefix);
    free(cfg->default_version);
    free(cfg->family);
    free(cfg->module_name);
    free(cfg->source);
    free(cfg);
}

ctk_config_t *ctk_config_new(const char *source, ctk_error_t *err)
{
    ctk_config_t *cfg = calloc(1, sizeof *cfg);

    if (!cfg) {
        ctk_error_nomem(err);
        return NULL;
    }
    cfg->pc_rpath = true;
    cfg->full_version_aliases = -1; /* generate decides from OUT */
    ctk_policy_init(&cfg->lint);
    if (!(cfg->source = ctk_strdup(source ? source : "<string>", err)) ||
        !(cfg->module_name = ctk_strdup(DEFAULT_MODULE_NAME, err)) ||
        !(cfg->family = ctk_strdup(DEFAULT_FAMILY, err)) ||
        !(cfg->pc_prefix = ctk_strdup(DEFAULT_PC_PREFIX, err))) {
        ctk_config_free(cfg);
        return NULL;
    }
    return cfg;
}

ctk_sdk_conf_t *ctk_config_add_sdk(ctk_config_t *cfg, const char *version, const char *base,
                                   ctk_error_t *err)
{
    ctk_sdk_conf_t *sdks, *sdk;
    char *v = NULL, *b = NULL;

    if (cfg->n_sdks >= SIZE_MAX / sizeof *sdks - 1)
        goto nomem;
    v = ctk_strdup(version, err);
    b = ctk_strdup(base, err);
    if (!v || !b)
        goto fail;
    sdks = realloc(cfg->sdks, (cfg->n_sdks + 1) * sizeof *sdks);
    if (!sdks)
        goto nomem;
    cfg->sdks = sdks;
    sdk = &sdks[cfg->n_sdks];
    memset(sdk, 0, sizeof *sdk);
    snprintf(sdk->jpath, sizeof sdk->jpath, "/sdks/%zu", cfg->n_sdks);
    sdk->version = v;
    sdk->base = b;
    cfg->n_sdks++;
    return sdk;
nomem:
    ctk_error_nomem(err);
fail:
    free(v);
    free(b);
    return NULL;
}

/* Parse text (a byte-order mark at *text skipped: RFC 8259 lets a parser
 * ignore one, and editors that write it do not show it, so positions count
 * from after it) and index its positions.  NULL with err set on failure. */
static json_t *parse_indexed(const char **text, size_t *len, const char *source, posidx_t *idx,
                             ctk_error_t *err)
{
    json_error_t je;
    json_t *root;

    memset(&je, 0, sizeof je);
    if (*len >= 3 && memcmp(*text, "\xEF\xBB\xBF", 3) == 0) {
        *text += 3;
        *len -= 3;
    }
    root = parse(*text, *len, &je);
    if (!root) {
        size_t at;
        int line, column;
        char hint[160];

        if (json_error_is_nomem(&je)) {
            ctk_error_nomem(err);
            return NULL;
        }
        at = json_error_place(*text, *len, &je, &line, &column);
        json_error_hint(*text, *len, at, hint, sizeof hint);
        ctk_error_set(err, CTK_E_JSON, source, line, column, "%s%s%s", je.text,
                      hint[0] ? "; " : "", hint);
        return NULL;
    }
    if (!posidx_build(idx, *text, *len, source, err)) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* Start a check of text (parsed into idx) from source: its errors go to
 * errs, or to local (which keeps the first) when errs is NULL; what stops
 * it goes to hard. */
static void check_init(check_t *c, const char *source, const char *text, size_t len,
                       const posidx_t *idx, ctk_errlist_t *errs, ctk_errlist_t *local,
                       ctk_error_t *hard)
{
    memset(c, 0, sizeof *c);
    ctk_buf_init(&c->ptr);
    ctk_errlist_init(local, 1);
    ctk_error_init(hard);
    c->source = source;
    c->text = text;
    c->len = len;
    c->idx = idx;
    c->errs = errs ? errs : local;
    c->err = hard;
}

/* Hand the outcome of a check to the caller's err: what stopped it, else
 * the first schema error (which errs holds too).  Returns whether the
 * file was good. */
static bool check_fini(check_t *c, ctk_errlist_t *local, ctk_error_t *err)
{
    const ctk_error_t *e = stopped(c) ? c->err : c->errs->n > 0 ? &c->errs->items[0] : NULL;
    bool ok = !e && c->n_bad == 0;

    if (e)
        ctk_error_set(err, e->code, e->source, e->line, e->column, "%s", e->text);
    ctk_buf_fini(&c->ptr);
    ctk_errlist_fini(local);
    return ok;
}

ctk_config_t *ctk_config_load_string_all(const char *text, size_t len, const char *source,
                                         ctk_errlist_t *errs, ctk_error_t *err)
{
    json_t *root = NULL;
    posidx_t idx;
    check_t c;
    ctk_errlist_t local;
    ctk_error_t hard;
    ctk_config_t *cfg = NULL;
    bool ok;

    memset(&idx, 0, sizeof idx);
    if (!source)
        source = "<string>";
    check_init(&c, source, text, len, &idx, errs, &local, &hard);
    if (!(root = parse_indexed(&text, &len, source, &idx, &hard)) ||
        !(cfg = ctk_config_new(source, &hard)))
        goto out;
    c.text = text; /* past a byte-order mark */
    c.len = len;
    check_object(&c, root, &top_table, cfg, cfg, NULL);
    /* the rules across entries, on what the walk kept */
    if (!stopped(&c))
        check_modvers(&c, cfg);
    if (!stopped(&c))
        check_env_across(&c, cfg);
    cfg->text_hash = ctk_hash_mix(CTK_HASH_INIT, text, len) | 1;
out:
    ok = check_fini(&c, &local, err);
    posidx_fini(&idx);
    json_decref(root);
    if (!ok) {
        ctk_config_free(cfg);
        cfg = NULL;
    }
    return cfg;
}

ctk_config_t *ctk_config_load_string(const char *text, size_t len, const char *source,
                                     ctk_error_t *err)
{
    return ctk_config_load_string_all(text, len, source, NULL, err);
}

ctk_config_t *ctk_config_load_all(const char *path, ctk_errlist_t *errs, ctk_error_t *err)
{
    ctk_config_t *cfg;
    size_t len = 0;
    /* the file the admin named: a pipe (-c <(jq ...)) is read as it comes */
    char *text = ctk_file_read_ex(path, CONFIG_MAX_BYTES, CTK_READ_ANY_TYPE, &len, NULL, err);

    if (!text)
        return NULL;
    cfg = ctk_config_load_string_all(text, len, path, errs, err);
    free(text);
    return cfg;
}

ctk_config_t *ctk_config_load(const char *path, ctk_error_t *err)
{
    return ctk_config_load_all(path, NULL, err);
}

bool ctk_config_load_lint(const char *path, bool site_config, ctk_policy_t *into, bool *found,
                          ctk_errlist_t *errs, ctk_error_t *err)
{
    size_t len = 0, saved;
    char *text = ctk_file_read_ex(path, CONFIG_MAX_BYTES, CTK_READ_ANY_TYPE, &len, NULL, err);
    const char *t = text;
    json_t *root = NULL, *lint;
    posidx_t idx;
    check_t c;
    ctk_errlist_t local;
    ctk_error_t hard;
    bool read = text != NULL;

    memset(&idx, 0, sizeof idx);
    check_init(&c, path, NULL, 0, &idx, errs, &local, &hard);
    if (found)
        *found = false;
    if (!text || !(root = parse_indexed(&t, &len, path, &idx, &hard)))
        goto out;
    c.text = t;
    c.len = len;
    if (!site_config) {
        check_object(&c, root, &lint_table, into, NULL, NULL);
        goto out;
    }
    if (!json_is_object(root)) {
        fail(&c, "expected a site config object, got %s", type_name(root));
        goto out;
    }
    if (!(lint = json_object_get(root, "lint")))
        goto out;
    if (found)
        *found = true;
    if (push_key(&c, "lint", &saved))
        check_object(&c, lint, &lint_table, into, NULL, NULL);
out:
    posidx_fini(&idx);
    json_decref(root);
    free(text);
    /* an unreadable file: err already says so */
    return check_fini(&c, &local, err) && read;
}

/* ---- dump ---------------------------------------------------------------------- */

static bool utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        unsigned cp;
        int n, i;

        if (*p < 0x80) {
            p++;
            continue;
        }
        if ((*p & 0xe0) == 0xc0) {
            n = 1;
            cp = *p & 0x1f;
        } else if ((*p & 0xf0) == 0xe0) {
            n = 2;
            cp = *p & 0x0f;
        } else if ((*p & 0xf8) == 0xf0) {
            n = 3;
            cp = *p & 0x07;
        } else {
            return false;
        }
        for (i = 1; i <= n; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
            cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
            return false;
        p += n + 1;
    }
    return true;
}

typedef struct {
    ctk_error_t *err;
    const char *where; /* the SDK's pointer, or "" at the top */
} dump_t;

/* obj[key] = s unless s is NULL. */
static bool put_str(dump_t *d, json_t *obj, const char *key, const char *s)
{
    if (!s)
        return true;
    if (!utf8_valid(s)) {
        ctk_error_set(d->err, CTK_E_QUOTE, NULL, 0, 0,
                      "%s/%s: not valid UTF-8, which JSON cannot hold", d->where, key);
        return false;
    }
    if (json_object_set_new(obj, key, json_string(s)) != 0) {
        ctk_error_nomem(d->err);
        return false;
    }
    return true;
}

/* obj[key] = child, taking child (NULL: out of memory). */
static bool put_new(dump_t *d, json_t *obj, const char *key, json_t *child)
{
    if (json_object_set_new(obj, key, child) != 0) {
        ctk_error_nomem(d->err);
        return false;
    }
    return true;
}

/* obj[key] = {NAME: VALUE...} unless there are none ("env", "properties"). */
static bool put_kvs(dump_t *d, json_t *obj, const char *key, const ctk_kv_t *env, size_t n)
{
    json_t *e;
    size_t i;

    if (n == 0)
        return true;
    e = json_object();
    if (!put_new(d, obj, key, e))
        return false;
    for (i = 0; i < n; i++) {
        if (!utf8_valid(env[i].name)) {
            ctk_error_set(d->err, CTK_E_QUOTE, NULL, 0, 0,
                          "%s/%s: a name is not valid UTF-8, which JSON cannot hold", d->where,
                          key);
            return false;
        }
        if (!put_str(d, e, env[i].name, env[i].value ? env[i].value : ""))
            return false;
    }
    return true;
}

/* obj[key] = [list...] unless the list is empty. */
static bool put_strs(dump_t *d, json_t *obj, const char *key, char *const *list, size_t n)
{
    json_t *arr;
    size_t i;

    if (n == 0)
        return true;
    arr = json_array();
    if (!put_new(d, obj, key, arr))
        return false;
    for (i = 0; i < n; i++) {
        if (!utf8_valid(list[i])) {
            ctk_error_set(d->err, CTK_E_QUOTE, NULL, 0, 0,
                          "%s/%s/%zu: not valid UTF-8, which JSON cannot hold", d->where, key, i);
            return false;
        }
        if (json_array_append_new(arr, json_string(list[i])) != 0) {
            ctk_error_nomem(d->err);
            return false;
        }
    }
    return true;
}

static bool dump_sdk(dump_t *d, json_t *arr, const ctk_sdk_conf_t *sdk)
{
    json_t *o = json_object(), *sub;

    if (!o || json_array_append_new(arr, o) != 0) {
        ctk_error_nomem(d->err);
        return false;
    }
    d->where = sdk->jpath;
    if (!put_str(d, o, "version", sdk->version))
        return false;
    if (sdk->module_version && (!sdk->version || strcmp(sdk->module_version, sdk->version) != 0) &&
        !put_str(d, o, "name", sdk->module_version))
        return false;
    if (!put_str(d, o, "base", sdk->base) || !put_str(d, o, "math_libs", sdk->math_libs) ||
        !put_str(d, o, "nvvm", sdk->nvvm) || !put_str(d, o, "cupti", sdk->cupti))
        return false;
    if (sdk->nccl || sdk->nvshmem) {
        sub = json_object();
        if (!put_new(d, o, "comm_libs", sub) || !put_str(d, sub, "nccl", sdk->nccl) ||
            !put_str(d, sub, "nvshmem", sdk->nvshmem))
            return false;
    }
    if (sdk->host_compiler_module || sdk->host_compiler_ccbin) {
        sub = json_object();
        if (!put_new(d, o, "host_compiler", sub) ||
            !put_str(d, sub, "module", sdk->host_compiler_module) ||
            !put_str(d, sub, "ccbin", sdk->host_compiler_ccbin))
            return false;
    }
    if (sdk->follow_link && !put_new(d, o, "follow_link", json_true()))
        return false;
    return put_str(d, o, "help", sdk->help) && put_kvs(d, o, "env", sdk->env, sdk->n_env) &&
           put_kvs(d, o, "properties", sdk->properties, sdk->n_properties) &&
           put_strs(d, o, "aliases", sdk->aliases, sdk->n_aliases);
}

/* A partition with a name alone is written as the name. */
static bool dump_partition(dump_t *d, json_t *arr, const ctk_partition_conf_t *p)
{
    json_t *o;

    if (!p->gres && !p->account && !p->qos && !p->time && !p->constraint && !p->n_extra_args) {
        if (!utf8_valid(p->name ? p->name : "")) {
            ctk_error_set(d->err, CTK_E_QUOTE, NULL, 0, 0,
                          "%s: not valid UTF-8, which JSON cannot hold", d->where);
            return false;
        }
        o = json_string(p->name ? p->name : "");
    } else {
        o = json_object();
    }
    if (!o || json_array_append_new(arr, o) != 0) {
        ctk_error_nomem(d->err);
        return false;
    }
    return !json_is_object(o) ||
           (put_str(d, o, "name", p->name) && put_str(d, o, "gres", p->gres) &&
            put_str(d, o, "account", p->account) && put_str(d, o, "qos", p->qos) &&
            put_str(d, o, "time", p->time) && put_str(d, o, "constraint", p->constraint) &&
            put_strs(d, o, "extra_args", p->extra_args, p->n_extra_args));
}

/* The seconds as a JSON number: whole ones as an integer (600, not 600.0). */
static json_t *seconds_json(double secs)
{
    if (secs >= 0 && secs < 1e15 && (double)(json_int_t)secs == secs)
        return json_integer((json_int_t)secs);
    return json_real(secs);
}

static bool dump_validation(dump_t *d, json_t *root, const ctk_validation_conf_t *v)
{
    char where[48];
    json_t *o, *arr;
    size_t i;
    bool ok = true;

    if (!v->present)
        return true;
    o = json_object();
    if (!put_new(d, root, "validation", o))
        return false;
    d->where = "/validation";
    if (!put_str(d, o, "launcher", v->launcher) || !put_str(d, o, "build", v->build))
        return false;
    if (v->queue_timeout_s > 0 && !put_new(d, o, "queue_timeout", seconds_json(v->queue_timeout_s)))
        return false;
    if (!put_str(d, o, "stage_dir", v->stage_dir) || !put_strs(d, o, "modulepath", v->modulepath, v->n_modulepath))
        return false;
    if (v->n_partitions == 0)
        return true;
    arr = json_array();
    if (!put_new(d, o, "partitions", arr))
        return false;
    for (i = 0; ok && i < v->n_partitions; i++) {
        snprintf(where, sizeof where, "/validation/partitions/%zu", i);
        d->where = where;
        ok = dump_partition(d, arr, &v->partitions[i]);
    }
    d->where = ""; /* not where, which is gone when this returns */
    return ok;
}

size_t ctk_config_properties(const ctk_config_t *cfg, const ctk_sdk_conf_t *sdk,
                             const ctk_kv_t **out)
{
    size_t i, j, n = 0;

    for (i = 0; i < cfg->n_properties; i++) {
        out[n] = &cfg->properties[i];
        for (j = 0; sdk && j < sdk->n_properties; j++)
            if (strcmp(sdk->properties[j].name, cfg->properties[i].name) == 0)
                out[n] = &sdk->properties[j];
        n++;
    }
    for (j = 0; sdk && j < sdk->n_properties; j++) {
        for (i = 0; i < cfg->n_properties; i++)
            if (strcmp(sdk->properties[j].name, cfg->properties[i].name) == 0)
                break;
        if (i == cfg->n_properties)
            out[n++] = &sdk->properties[j];
    }
    return n;
}

static bool differs(const char *s, const char *dflt)
{
    return s && strcmp(s, dflt) != 0;
}

char *ctk_config_dump(const ctk_config_t *cfg, ctk_error_t *err)
{
    dump_t d = { err, "" };
    json_t *root = json_object(), *arr;
    char *out = NULL;
    size_t i, n;

    if (!root) {
        ctk_error_nomem(err);
        goto out;
    }
    if ((differs(cfg->module_name, DEFAULT_MODULE_NAME) &&
         !put_str(&d, root, "module_name", cfg->module_name)) ||
        (differs(cfg->family, DEFAULT_FAMILY) && !put_str(&d, root, "family", cfg->family)) ||
        !put_str(&d, root, "default", cfg->default_version) ||
        (differs(cfg->pc_prefix, DEFAULT_PC_PREFIX) &&
         !put_str(&d, root, "pc_prefix", cfg->pc_prefix)) ||
        !put_str(&d, root, "pkgconfig_dir", cfg->pkgconfig_dir))
        goto out;
    if (!put_str(&d, root, "modulecmd", cfg->modulecmd))
        goto out;
    if (!cfg->pc_rpath && !put_new(&d, root, "pc_rpath", json_false()))
        goto out;
    if (cfg->full_version_aliases >= 0 &&
        !put_new(&d, root, "full_version_aliases", json_boolean(cfg->full_version_aliases)))
        goto out;
    if (!put_str(&d, root, "help", cfg->help) || !put_kvs(&d, root, "env", cfg->env, cfg->n_env) ||
        !put_kvs(&d, root, "properties", cfg->properties, cfg->n_properties) ||
        !dump_validation(&d, root, &cfg->validation))
        goto out;
    arr = json_array();
    if (!put_new(&d, root, "sdks", arr))
        goto out;
    for (i = 0; i < cfg->n_sdks; i++)
        if (!dump_sdk(&d, arr, &cfg->sdks[i]))
            goto out;
    /* into our own buffer, so the caller frees with free() whatever
     * allocator jansson was given */
    n = json_dumpb(root, NULL, 0, JSON_INDENT(2));
    if (n == 0 || n > SIZE_MAX - 2) {
        ctk_error_nomem(err);
        goto out;
    }
    out = malloc(n + 2);
    if (!out) {
        ctk_error_nomem(err);
        goto out;
    }
    if (json_dumpb(root, out, n, JSON_INDENT(2)) != n) {
        free(out);
        out = NULL;
        ctk_error_nomem(err);
        goto out;
    }
    out[n] = '\n';
    out[n + 1] = '\0';
out:
    json_decref(root);
    return out;
}
