/* jsonio.c - JSON through jansson: loading, typed reading, writing.
 * SPDX-License-Identifier: MIT
 *
 * Strings in JSON: everything we write must be valid JSON, whatever bytes a
 * path, an environment value or a compiler's message holds.  jansson
 * escapes quotes, backslashes and control bytes itself, but refuses strings
 * that are not UTF-8.  Such strings are written with each byte that does
 * not begin a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) replaced by U+FFFD, so the report
 * stays readable and one odd byte never costs the whole report.  The
 * replacement is lossy: a cache entry holding such a string reads back
 * with U+FFFD in it.
 *
 * Numbers: seconds are rounded to milliseconds and written with at most
 * ten significant digits, so 1.42 prints as 1.42 and not 1.4199999999999999.
 *
 * Allocation failures while parsing: jansson 2.14's lexer ignores a failed
 * append to its token buffer, so a token can lose a byte; a string that
 * lost its closing quote or the byte after a backslash then makes the
 * decoder read past the buffer or hit assert(0).  Every allocation jansson
 * makes therefore goes through a malloc that, while this file is parsing
 * on the calling thread, notes the first failure and fails every later
 * allocation of that parse.  The lexer allocates the decoded string before
 * decoding it, so a damaged token is never decoded; the parse fails, and
 * it is reported as CTK_E_NOMEM whatever jansson said.  Validate parses
 * from its worker threads, so the state is thread-local and the wrapper is
 * installed once, before main(), when no thread can be using jansson
 * (config.c's temporary wrapper chains onto it).
 */
#include <ctkconf.h>

#include "jsonio.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10))

static json_malloc_t next_malloc;

static _Thread_local enum { NOT_PARSING, PARSING, RAN_OUT } parse_state;

static void *noting_malloc(size_t size)
{
    void *p;

    if (parse_state == RAN_OUT)
        return NULL;
    p = next_malloc(size);
    if (!p && parse_state == PARSING)
        parse_state = RAN_OUT;
    return p;
}

/* Memory allocated before and after pairs up either way: only malloc is
 * wrapped, free stays jansson's. */
__attribute__((constructor)) static void install_noting_malloc(void)
{
    json_free_t f;

    json_get_alloc_funcs(&next_malloc, &f);
    if (next_malloc != noting_malloc)
        json_set_alloc_funcs(noting_malloc, f);
}

const char *ctk_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
        return "null";
    }
    return "unknown";
}

const json_t *ctk_jread_get(const ctk_jread_t *rd, const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    if (!v)
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0, "%s has no \"%s\" key",
                      rd->what, key);
    return v;
}

bool ctk_jread_type_error(const ctk_jread_t *rd, const char *key, const json_t *v, const char *want)
{
    ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0, "%s: \"%s\" is %s, expected %s",
                  rd->what, key, ctk_json_type_name(v), want);
    return false;
}

bool ctk_jread_int(const ctk_jread_t *rd, const json_t *obj, const char *key, int *out)
{
    const json_t *v = ctk_jread_get(rd, obj, key);
    json_int_t n;

    if (!v)
        return false;
    if (!json_is_integer(v))
        return ctk_jread_type_error(rd, key, v, "an integer");
    n = json_integer_value(v);
    if (n < INT_MIN || n > INT_MAX) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0, "%s: \"%s\" is out of range",
                      rd->what, key);
        return false;
    }
    *out = (int)n;
    return true;
}

bool ctk_jread_bool(const ctk_jread_t *rd, const json_t *obj, const char *key, bool *out)
{
    const json_t *v = ctk_jread_get(rd, obj, key);

    if (!v)
        return false;
    if (!json_is_boolean(v))
        return ctk_jread_type_error(rd, key, v, "true or false");
    *out = json_is_true(v);
    return true;
}

bool ctk_jread_number(const ctk_jread_t *rd, const json_t *obj, const char *key, double *out)
{
    const json_t *v = ctk_jread_get(rd, obj, key);

    if (!v)
        return false;
    if (!json_is_number(v))
        return ctk_jread_type_error(rd, key, v, "a number");
    *out = json_number_value(v);
    return true;
}

/* A string copied into *out (caller frees).  null_ok: null gives NULL. */
bool ctk_jread_str(const ctk_jread_t *rd, const json_t *obj, const char *key, bool null_ok, char **out)
{
    const json_t *v = ctk_jread_get(rd, obj, key);

    *out = NULL;
    if (!v)
        return false;
    if (null_ok && json_is_null(v))
        return true;
    if (!json_is_string(v))
        return ctk_jread_type_error(rd, key, v, null_ok ? "a string or null" : "a string");
    *out = ctk_strdup(json_string_value(v), rd->err);
    return *out != NULL;
}

/* json_loadb; failures become CTK_E_JSON (source, line, jansson's column
 * plus col0, the column text starts at) or CTK_E_NOMEM. */
json_t *ctk_json_try_load(const char *text, size_t len, json_error_t *bad, ctk_error_t *err)
{
    json_t *root;
    bool ran_out;

    parse_state = PARSING;
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, bad);
    ran_out = parse_state == RAN_OUT;
    parse_state = NOT_PARSING;
    if (ran_out) {
        json_decref(root);
        ctk_error_nomem(err);
        return NULL;
    }
    if (root)
        return root;
#if JANSSON_VERSION_HEX >= 0x020e00
    if (json_error_code(bad) == json_error_out_of_memory)
#else
    if (bad->text[0] == '\0' || strstr(bad->text, "memory"))
#endif
        ctk_error_nomem(err);
    return NULL;
}

json_t *ctk_json_load(const char *text, size_t len, const char *source, int line, int col0, const char *what,
                      ctk_error_t *err)
{
    json_error_t je;
    ctk_error_t e;
    json_t *root;

    ctk_error_init(&e);
    if ((root = ctk_json_try_load(text, len, &je, &e)))
        return root;
    if (e.code == CTK_E_NOMEM)
        ctk_error_nomem(err);
    else
        ctk_error_set(err, CTK_E_JSON, source, line > 0 ? line : je.line, je.column > 0 ? je.column + col0 : 0,
                      "%s is not valid JSON: %s", what, je.text);
    return NULL;
}

/* Length of the well-formed UTF-8 sequence at p (at most avail bytes), or 0. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
    unsigned char lo = 0x80, hi = 0xbf;
    size_t n, i;

    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        if (p[0] == 0xe0)
            lo = 0xa0; /* no overlong forms */
        else if (p[0] == 0xed)
            hi = 0x9f; /* no surrogates */
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        if (p[0] == 0xf0)
            lo = 0x90;
        else if (p[0] == 0xf4)
            hi = 0x8f; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (avail < n || p[1] < lo || p[1] > hi)
        return 0;
    for (i = 2; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* s as UTF-8 with U+FFFD for every byte that starts no valid sequence;
 * caller frees, *fixed_len gets its length.  NULL when s already is valid,
 * or on allocation failure (then *nomem is set). */
static char *utf8_fixed(const char *s, size_t len, size_t *fixed_len, bool *nomem)
{
    const unsigned char *p = (const unsigned char *)s;
    ctk_buf_t b;
    size_t i = 0, n;

    while (i < len && (n = utf8_seq(p + i, len - i)) != 0)
        i += n;
    if (i == len)
        return NULL;
    ctk_buf_init(&b);
    ctk_buf_append(&b, s, i);
    while (i < len) {
        n = utf8_seq(p + i, len - i);
        if (n) {
            ctk_buf_append(&b, s + i, n);
            i += n;
        } else {
            ctk_buf_append(&b, "\xef\xbf\xbd", 3);
            i++;
        }
    }
    if (b.failed) {
        ctk_buf_fini(&b);
        *nomem = true;
        return NULL;
    }
    return ctk_buf_take(&b, fixed_len);
}

/* A JSON string for s (null for NULL); NULL only when out of memory. */
json_t *ctk_json_str(const char *s)
{
    size_t len, fixed_len = 0;
    bool nomem = false;
    char *fixed;
    json_t *v;

    if (!s)
        return json_null();
    len = strlen(s);
    fixed = utf8_fixed(s, len, &fixed_len, &nomem);
    if (nomem)
        return NULL;
    v = fixed ? json_stringn(fixed, fixed_len) : json_stringn(s, len);
    free(fixed);
    return v;
}

/* obj[key] = v, taking v; false when v is NULL or out of memory.  A key
 * that is not UTF-8 is fixed as ctk_json_str() does. */
bool ctk_json_set(json_t *obj, const char *key, json_t *v)
{
    size_t len = strlen(key), fixed_len = 0;
    bool nomem = false;
    char *fixed;
    int rc;

    if (!v)
        return false;
    fixed = utf8_fixed(key, len, &fixed_len, &nomem);
    if (nomem) {
        json_decref(v);
        return false;
    }
    rc = json_object_set_new(obj, fixed ? fixed : key, v);
    free(fixed);
    return rc == 0;
}

bool ctk_json_append(json_t *arr, json_t *v)
{
    return v && json_array_append_new(arr, v) == 0;
}

/* Seconds rounded to milliseconds; 0 for nonsense (json_real refuses NaN). */
json_t *ctk_json_secs(double s)
{
    if (!(s >= 0.0) || s > 1e12)
        s = 0.0;
    return json_real((double)(long long)(s * 1000.0 + 0.5) / 1000.0);
}

json_t *ctk_json_int(long long n)
{
    return json_integer((json_int_t)n);
}

/* Dump into our own buffer, so callers free() it whatever allocator
 * jansson has; with a final newline. */
char *ctk_json_dump(const json_t *root, ctk_error_t *err)
{
    size_t n = json_dumpb(root, NULL, 0, DUMP_FLAGS);
    char *out;

    if (n == 0 || n > SIZE_MAX - 2 || !(out = malloc(n + 2))) {
        ctk_error_nomem(err);
        return NULL;
    }
    if (json_dumpb(root, out, n, DUMP_FLAGS) != n) {
        free(out);
        ctk_error_nomem(err);
        return NULL;
    }
    out[n] = '\n';
    out[n + 1] = '\0';
    return out;
}

json_t *ctk_json_strlist(const ctk_strlist_t *l)
{
    json_t *arr = json_array();
    size_t i;

    for (i = 0; arr && i < l->len; i++) {
        if (!ctk_json_append(arr, ctk_json_str(l->items[i]))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

json_t *ctk_json_env(const ctk_env_t *e)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; o && i < e->kv.len; i++) {
        const char *kv = e->kv.items[i], *eq = strchr(kv, '=');
        char *name = ctk_strndup(kv, eq ? (size_t)(eq - kv) : strlen(kv), NULL);
        bool ok = name && ctk_json_set(o, name, ctk_json_str(eq ? eq + 1 : ""));

        free(name);
        if (!ok) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* What a lint policy did to x: "waived", "reason", "policy" (where the
 * rule is written) and "default_severity" (the table's).  Only lint's
 * report has them; validate's findings (and the cache) do not. */
static bool policy_json(json_t *o, const ctk_finding_t *x, const ctk_diag_t *d)
{
    return ctk_json_set(o, "waived", json_boolean(x->waived)) && ctk_json_set(o, "reason", ctk_json_str(x->reason)) &&
           ctk_json_set(o, "policy", ctk_json_str(x->rule_at)) &&
           ctk_json_set(o, "default_severity", ctk_json_str(d ? ctk_severity_name(d->severity) : NULL));
}

json_t *ctk_json_findings(const ctk_findings_t *f, bool policy)
{
    json_t *arr = json_array();
    size_t i;

    for (i = 0; arr && i < f->len; i++) {
        const ctk_finding_t *x = &f->items[i];
        const ctk_diag_t *d = ctk_diag_find(x->code);
        json_t *o = json_object();

        if (!ctk_json_append(arr, o) || !ctk_json_set(o, "code", ctk_json_str(x->code)) ||
            !ctk_json_set(o, "severity", ctk_json_str(ctk_severity_name(x->severity))) ||
            !ctk_json_set(o, "file", ctk_json_str(x->file)) ||
            !ctk_json_set(o, "line", x->line > 0 ? ctk_json_int(x->line) : json_null()) ||
            !ctk_json_set(o, "message", ctk_json_str(x->text)) || !ctk_json_set(o, "fix", ctk_json_str(d ? ctk_finding_fix(x) : NULL)) ||
            (policy && !policy_json(o, x, d))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}
