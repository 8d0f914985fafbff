/* report.c - validate's results as progress lines, a table, JSON and cache
 * entries; the probes' one-line reports parsed back.
 * SPDX-License-Identifier: MIT
 *
 * This is the only file of the validation side that includes jansson.h; no
 * json_t leaves it.
 *
 * Strings in JSON: everything we write must be valid JSON, whatever bytes a
 * path, an environment value or a compiler's message holds.  jansson
 * escapes quotes, backslashes and control bytes itself, but refuses strings
 * that are not UTF-8.  Such strings are written with each byte that does
 * not begin a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) replaced by U+FFFD, so the report
 * stays readable and one odd byte never costs the whole report.  The
 * replacement is lossy: a cache entry holding such a string reads back
 * with U+FFFD in it.  Validate caches the three artifacts of an SDK as one
 * entry, so what it compares across them stays consistent.
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

#include "report.h"
#include "util.h"

#include "jsonload.h"

#include <jansson.h>
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

/* ======================================================================
 * Records
 * ====================================================================== */

void ctk_probe_report_init(ctk_probe_report_t *r)
{
    memset(r, 0, sizeof *r);
}

void ctk_probe_report_fini(ctk_probe_report_t *r)
{
    if (!r)
        return;
    free(r->status);
    free(r->device);
    free(r->libcudart);
    free(r->visible);
    ctk_probe_report_init(r);
}

static void vart_init(ctk_vart_t *a, ctk_art_t kind)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    ctk_findings_init(&a->findings);
    ctk_env_init(&a->env);
    ctk_strlist_init(&a->cflags);
    ctk_strlist_init(&a->libs);
    ctk_probe_report_init(&a->host);
    ctk_probe_report_init(&a->cuda);
    ctk_probe_report_init(&a->sass);
    ctk_probe_report_init(&a->ptx);
}

void ctk_vart_fini(ctk_vart_t *a)
{
    if (!a)
        return;
    free(a->file);
    free(a->skip_code);
    free(a->skip_reason);
    ctk_findings_fini(&a->findings);
    ctk_env_fini(&a->env);
    ctk_strlist_fini(&a->cflags);
    ctk_strlist_fini(&a->libs);
    free(a->pc_version);
    free(a->nvcc);
    free(a->nvcc_release);
    free(a->built_by);
    free(a->linked_by);
    ctk_probe_report_fini(&a->host);
    ctk_probe_report_fini(&a->cuda);
    ctk_probe_report_fini(&a->sass);
    ctk_probe_report_fini(&a->ptx);
    vart_init(a, a->kind);
}

/* ======================================================================
 * Reading JSON: typed getters that name the key on failure
 * ====================================================================== */

static const char *type_name(const json_t *v)
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

/* Where errors while reading one object go: the source and line given to
 * ctk_error_set and a prefix naming the object ("the probe's report",
 * "/findings/0"). */
typedef struct {
    const char *source;
    int line;
    const char *what;
    ctk_error_t *err;
} rd_t;

static const json_t *rd_get(const rd_t *rd, const json_t *obj, const char *key)
{
    const json_t *v = json_object_get(obj, key);

    if (!v)
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0, "%s has no \"%s\" key",
                      rd->what, key);
    return v;
}

static bool rd_type_error(const rd_t *rd, const char *key, const json_t *v, const char *want)
{
    ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0, "%s: \"%s\" is %s, expected %s",
                  rd->what, key, type_name(v), want);
    return false;
}

static bool rd_int(const rd_t *rd, const json_t *obj, const char *key, int *out)
{
    const json_t *v = rd_get(rd, obj, key);
    json_int_t n;

    if (!v)
        return false;
    if (!json_is_integer(v))
        return rd_type_error(rd, key, v, "an integer");
    n = json_integer_value(v);
    if (n < INT_MIN || n > INT_MAX) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0, "%s: \"%s\" is out of range",
                      rd->what, key);
        return false;
    }
    *out = (int)n;
    return true;
}

static bool rd_bool(const rd_t *rd, const json_t *obj, const char *key, bool *out)
{
    const json_t *v = rd_get(rd, obj, key);

    if (!v)
        return false;
    if (!json_is_boolean(v))
        return rd_type_error(rd, key, v, "true or false");
    *out = json_is_true(v);
    return true;
}

static bool rd_number(const rd_t *rd, const json_t *obj, const char *key, double *out)
{
    const json_t *v = rd_get(rd, obj, key);

    if (!v)
        return false;
    if (!json_is_number(v))
        return rd_type_error(rd, key, v, "a number");
    *out = json_number_value(v);
    return true;
}

/* A string copied into *out (caller frees).  null_ok: null gives NULL. */
static bool rd_str(const rd_t *rd, const json_t *obj, const char *key, bool null_ok, char **out)
{
    const json_t *v = rd_get(rd, obj, key);

    *out = NULL;
    if (!v)
        return false;
    if (null_ok && json_is_null(v))
        return true;
    if (!json_is_string(v))
        return rd_type_error(rd, key, v, null_ok ? "a string or null" : "a string");
    *out = ctk_strdup(json_string_value(v), rd->err);
    return *out != NULL;
}

/* "9.0" -> 9, 0: digits, one dot, digits. */
static bool parse_cc(const char *s, int *major, int *minor)
{
    long v[2] = { 0, 0 };
    int i;

    for (i = 0; i < 2; i++) {
        int digits = 0;

        while (*s >= '0' && *s <= '9' && digits < 4) {
            v[i] = v[i] * 10 + (*s++ - '0');
            digits++;
        }
        if (digits == 0 || *s != (i == 0 ? '.' : '\0'))
            return false;
        if (i == 0)
            s++;
    }
    *major = (int)v[0];
    *minor = (int)v[1];
    return true;
}

/* json_loadb; failures become CTK_E_JSON (source, line, jansson's column
 * plus col0, the column text starts at) or CTK_E_NOMEM. */
json_t *ctk_json_load(const char *text, size_t len, const char *source, int line, int col0, const char *what,
                      ctk_error_t *err)
{
    json_error_t je;
    json_t *root;
    bool ran_out;

    parse_state = PARSING;
    root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
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
    if (json_error_code(&je) == json_error_out_of_memory) {
#else
    if (je.text[0] == '\0' || strstr(je.text, "memory")) {
#endif
        ctk_error_nomem(err);
        return NULL;
    }
    ctk_error_set(err, CTK_E_JSON, source, line > 0 ? line : je.line,
                  je.column > 0 ? je.column + col0 : 0, "%s is not valid JSON: %s", what, je.text);
    return NULL;
}

/* ======================================================================
 * Probe reports
 * ====================================================================== */

#define PROBE_SOURCE "probe output"

static bool probe_from_object(const json_t *o, const rd_t *rd, ctk_probe_report_t *r)
{
    const json_t *v;
    const char *kind;
    char *cc = NULL;
    bool ok = false;

    if (!(v = rd_get(rd, o, "probe")))
        goto out;
    if (!json_is_string(v)) {
        rd_type_error(rd, "probe", v, "\"host\" or \"cuda\"");
        goto out;
    }
    kind = json_string_value(v);
    if (strcmp(kind, "cuda") == 0) {
        r->is_cuda = true;
    } else if (strcmp(kind, "host") != 0) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0,
                      "%s: \"probe\" is neither \"host\" nor \"cuda\"", rd->what);
        goto out;
    }
    if (!rd_int(rd, o, "cudart_header", &r->cudart_header) ||
        !rd_int(rd, o, "runtime", &r->runtime) || !rd_int(rd, o, "driver", &r->driver) ||
        !rd_int(rd, o, "devices", &r->devices) ||
        !rd_str(rd, o, r->is_cuda ? "status" : "device_status", false, &r->status))
        goto out;
    if (r->is_cuda) {
        bool kernel_ok;

        if (!rd_str(rd, o, "device", false, &r->device) || !rd_str(rd, o, "cc", false, &cc) ||
            !rd_bool(rd, o, "kernel_ok", &kernel_ok))
            goto out;
        if (!parse_cc(cc, &r->cc_major, &r->cc_minor)) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0,
                          "%s: \"cc\" is not \"major.minor\"", rd->what);
            goto out;
        }
        r->kernel_ok = kernel_ok ? 1 : 0;
    } else {
        if (!(r->device = ctk_strdup("", rd->err)))
            goto out;
        r->kernel_ok = -1;
    }
    if (!rd_str(rd, o, "libcudart", false, &r->libcudart))
        goto out;
    if (r->is_cuda && json_object_get(o, "visible") && !rd_str(rd, o, "visible", true, &r->visible))
        goto out;
    r->present = true;
    ok = true;
out:
    free(cc);
    return ok;
}

bool ctk_probe_report_parse(const char *out, ctk_probe_report_t *r, ctk_error_t *err)
{
    ctk_probe_report_t t;
    ctk_error_t first; /* the first line that looked like JSON but was not */
    const char *line, *end;
    json_t *root = NULL;
    int lineno = 0;
    bool ok = false;

    ctk_probe_report_init(&t);
    ctk_error_init(&first);
    for (line = out ? out : ""; *line; line = *end ? end + 1 : end) {
        const char *p;

        end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        lineno++;
        /* from the line's first brace: output a library printed without a
         * newline may come before the report on the same line */
        p = memchr(line, '{', (size_t)(end - line));
        if (!p)
            continue;
        root = ctk_json_load(p, (size_t)(end - p), PROBE_SOURCE, lineno, (int)(p - line),
                    "the probe's report", &first);
        if (first.code == CTK_E_NOMEM)
            break;
        if (json_is_object(root))
            break;
        json_decref(root);
        root = NULL;
    }
    if (!root) {
        if (ctk_error_is_set(&first)) {
            if (err && !ctk_error_is_set(err))
                *err = first;
        } else {
            ctk_error_set(err, CTK_E_JSON, PROBE_SOURCE, 0, 0,
                          "no line of the probe's output holds a JSON report");
        }
        goto out;
    }
    {
        rd_t rd = { PROBE_SOURCE, lineno, "the probe's report", err };

        ok = probe_from_object(root, &rd, &t);
    }
out:
    json_decref(root);
    ctk_probe_report_fini(r);
    if (ok)
        *r = t;
    else
        ctk_probe_report_fini(&t);
    return ok;
}

/* ======================================================================
 * Writing JSON
 * ====================================================================== */

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
static json_t *jstr(const char *s)
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
 * that is not UTF-8 is fixed as jstr() does. */
static bool jset(json_t *obj, const char *key, json_t *v)
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

static bool jappend(json_t *arr, json_t *v)
{
    return v && json_array_append_new(arr, v) == 0;
}

/* Seconds rounded to milliseconds; 0 for nonsense (json_real refuses NaN). */
static json_t *jsecs(double s)
{
    if (!(s >= 0.0) || s > 1e12)
        s = 0.0;
    return json_real((double)(long long)(s * 1000.0 + 0.5) / 1000.0);
}

static json_t *jint(long long n)
{
    return json_integer((json_int_t)n);
}

/* Dump into our own buffer, so callers free() it whatever allocator
 * jansson has; with a final newline. */
static char *dump(const json_t *root, ctk_error_t *err)
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

static json_t *strlist_json(const ctk_strlist_t *l)
{
    json_t *arr = json_array();
    size_t i;

    for (i = 0; arr && i < l->len; i++) {
        if (!jappend(arr, jstr(l->items[i]))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *env_json(const ctk_env_t *e)
{
    json_t *o = json_object();
    size_t i;

    for (i = 0; o && i < e->kv.len; i++) {
        const char *kv = e->kv.items[i], *eq = strchr(kv, '=');
        char *name = ctk_strndup(kv, eq ? (size_t)(eq - kv) : strlen(kv), NULL);
        bool ok = name && jset(o, name, jstr(eq ? eq + 1 : ""));

        free(name);
        if (!ok) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *probe_json(const ctk_probe_report_t *p)
{
    json_t *o;
    char cc[32];

    if (!p->present)
        return json_null();
    o = json_object();
    if (p->cc_major || p->cc_minor)
        snprintf(cc, sizeof cc, "%d.%d", p->cc_major, p->cc_minor);
    if (!o || !jset(o, "cudart_header", jint(p->cudart_header)) ||
        !jset(o, "runtime", jint(p->runtime)) || !jset(o, "driver", jint(p->driver)) ||
        !jset(o, "devices", jint(p->devices)) || !jset(o, "status", jstr(p->status)) ||
        !jset(o, "device", jstr(p->device)) ||
        !jset(o, "cc", (p->cc_major || p->cc_minor) ? jstr(cc) : json_null()) ||
        !jset(o, "kernel_ok", p->kernel_ok < 0 ? json_null() : json_boolean(p->kernel_ok)) ||
        !jset(o, "libcudart", jstr(p->libcudart)) || !jset(o, "visible", jstr(p->visible))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* What a lint policy did to x: "waived", "reason", "policy" (where the
 * rule is written) and "default_severity" (the table's).  Only lint's
 * report has them; validate's findings (and the cache) do not. */
static bool policy_json(json_t *o, const ctk_finding_t *x, const ctk_diag_t *d)
{
    return jset(o, "waived", json_boolean(x->waived)) && jset(o, "reason", jstr(x->reason)) &&
           jset(o, "policy", jstr(x->rule_at)) &&
           jset(o, "default_severity", jstr(d ? ctk_severity_name(d->severity) : NULL));
}

static json_t *findings_json_ex(const ctk_findings_t *f, bool policy)
{
    json_t *arr = json_array();
    size_t i;

    for (i = 0; arr && i < f->len; i++) {
        const ctk_finding_t *x = &f->items[i];
        const ctk_diag_t *d = ctk_diag_find(x->code);
        json_t *o = json_object();

        if (!jappend(arr, o) || !jset(o, "code", jstr(x->code)) ||
            !jset(o, "severity", jstr(ctk_severity_name(x->severity))) ||
            !jset(o, "file", jstr(x->file)) ||
            !jset(o, "line", x->line > 0 ? jint(x->line) : json_null()) ||
            !jset(o, "message", jstr(x->text)) || !jset(o, "fix", jstr(d ? ctk_finding_fix(x) : NULL)) ||
            (policy && !policy_json(o, x, d))) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *findings_json(const ctk_findings_t *f)
{
    return findings_json_ex(f, false);
}

static json_t *art_json(const ctk_vart_t *a)
{
    json_t *o = json_object(), *skip = json_null();
    bool ok;

    if (!o)
        return NULL;
    if (a->verdict == CTK_VERDICT_SKIP || a->skip_code || a->skip_reason) {
        skip = json_object();
        if (!skip || !jset(skip, "code", jstr(a->skip_code)) ||
            !jset(skip, "reason", jstr(a->skip_reason))) {
            json_decref(skip);
            skip = NULL;
        }
    }
    ok = jset(o, "kind", jstr(ctk_art_name(a->kind))) && jset(o, "file", jstr(a->file)) &&
         jset(o, "verdict", jstr(ctk_verdict_name(a->verdict)));
    if (ok)
        ok = jset(o, "skip", skip); /* takes skip */
    else
        json_decref(skip);
    ok = ok && jset(o, "cached", json_boolean(a->cached)) && jset(o, "seconds", jsecs(a->seconds));
    if (ok && a->kind == CTK_ART_PC)
        ok = jset(o, "cflags", strlist_json(&a->cflags)) &&
             jset(o, "libs", strlist_json(&a->libs)) &&
             jset(o, "pc_version", jstr(a->pc_version));
    else if (ok)
        ok = jset(o, "env", env_json(&a->env));
    ok = ok && jset(o, "nvcc", jstr(a->nvcc)) && jset(o, "nvcc_release", jstr(a->nvcc_release)) &&
         jset(o, "built_by", jstr(a->built_by)) && jset(o, "linked_by", jstr(a->linked_by)) &&
         jset(o, "host_probe", probe_json(&a->host)) &&
         jset(o, "cuda_probe", probe_json(&a->cuda)) && jset(o, "sass_probe", probe_json(&a->sass)) &&
         jset(o, "ptx_probe", probe_json(&a->ptx)) &&
         jset(o, "launched", json_boolean(a->launched)) &&
         jset(o, "findings", findings_json(&a->findings));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *sdk_json(const ctk_vsdk_t *s)
{
    json_t *o = json_object(), *arts = NULL;
    bool ok;
    int k;

    ok = o && jset(o, "module", jstr(s->module)) && jset(o, "pc", jstr(s->pc_name)) &&
         jset(o, "version", jstr(s->version)) && jset(o, "root", jstr(s->root)) &&
         jset(o, "verdict", jstr(ctk_verdict_name(s->verdict))) &&
         jset(o, "seconds", jsecs(s->seconds)) && (arts = json_array()) != NULL;
    for (k = 0; ok && k < CTK_ART__COUNT; k++)
        ok = jappend(arts, art_json(&s->art[k]));
    if (ok)
        ok = jset(o, "artifacts", arts); /* takes arts */
    else
        json_decref(arts);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *part_json(const ctk_vpart_t *p)
{
    json_t *o = json_object();
    char cc[16], drv[16];

    snprintf(cc, sizeof cc, "%d.%d", p->cc_major, p->cc_minor);
    snprintf(drv, sizeof drv, "%d.%d", p->driver / 1000, p->driver % 1000 / 10);
    if (!o || !jset(o, "name", jstr(p->name)) || !jset(o, "gres_request", jstr(p->gres_request)) ||
        !jset(o, "gres", jstr(p->gres)) || !jset(o, "features", jstr(p->features)) ||
        !jset(o, "job_id", jstr(p->job_id)) || !jset(o, "state", jstr(ctk_part_state_name(p->state))) ||
        !jset(o, "reason", jstr(p->reason)) || !jset(o, "node", jstr(p->node)) ||
        !jset(o, "host", jstr(p->host)) || !jset(o, "cuda_visible_devices", jstr(p->cvd)) ||
        !jset(o, "gpu", jstr(p->gpu)) || !jset(o, "cc", p->gpu ? jstr(cc) : json_null()) ||
        !jset(o, "driver", p->driver ? jstr(drv) : json_null()) || !jset(o, "nvidia_driver", jstr(p->nvidia)) ||
        !jset(o, "queued_s", jsecs(p->queued_s)) ||
        !jset(o, "ran_s", jsecs(p->ran_s)) || !jset(o, "cached", json_boolean(p->cached)) ||
        !jset(o, "cache_age_s", jsecs(p->cache_age_s))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *cell_json(const ctk_vreport_t *r, size_t i, size_t p, ctk_art_t k)
{
    const ctk_vart_t *c = ctk_vreport_cell(r, i, p, k);
    json_t *o = json_object(), *skip = json_null();

    if (c->verdict == CTK_VERDICT_SKIP) {
        if (!(skip = json_object()) || !jset(skip, "code", jstr(c->skip_code)) ||
            !jset(skip, "reason", jstr(c->skip_reason))) {
            json_decref(skip);
            skip = NULL;
        }
    }
    if (!o || !skip || !jset(o, "module", jstr(r->sdks[i].module)) || !jset(o, "partition", jstr(r->parts[p].name)) ||
        !jset(o, "artifact", jstr(ctk_art_name(k))) || !jset(o, "verdict", jstr(ctk_verdict_name(c->verdict))) ||
        !jset(o, "skip", json_incref(skip)) || !jset(o, "launched", json_boolean(c->launched)) ||
        !jset(o, "host_probe", probe_json(&c->host)) || !jset(o, "cuda_probe", probe_json(&c->cuda)) ||
        !jset(o, "sass_probe", probe_json(&c->sass)) || !jset(o, "ptx_probe", probe_json(&c->ptx)) ||
        !jset(o, "findings", findings_json(&c->findings))) {
        json_decref(skip);
        json_decref(o);
        return NULL;
    }
    json_decref(skip);
    return o;
}

/* launcher, partitions, matrix and matrix_summary, into root. */
static bool matrix_json(json_t *root, const ctk_vreport_t *r)
{
    json_t *parts = json_array(), *cells = json_array(), *sum = json_object();
    bool ok = parts && cells && sum;

    for (size_t p = 0; ok && p < r->n_parts; p++)
        ok = jappend(parts, part_json(&r->parts[p]));
    for (size_t i = 0; ok && i < r->n_sdks; i++)
        for (size_t p = 0; ok && p < r->n_parts; p++)
            for (int k = 0; ok && k < CTK_ART__COUNT; k++)
                ok = jappend(cells, cell_json(r, i, p, (ctk_art_t)k));
    ok = ok && jset(sum, "pass", jint((long long)r->m_pass)) && jset(sum, "skip", jint((long long)r->m_skip)) &&
         jset(sum, "fail", jint((long long)r->m_fail)) && jset(sum, "jobs", jint(r->jobs_submitted)) &&
         jset(sum, "scheduler_calls", jint(r->scheduler_calls));
    ok = ok && jset(root, "launcher", jstr(r->launcher)) && json_object_set(root, "partitions", parts) == 0 &&
         json_object_set(root, "matrix", cells) == 0 && json_object_set(root, "matrix_summary", sum) == 0;
    json_decref(parts);
    json_decref(cells);
    json_decref(sum);
    return ok;
}

char *ctk_report_json(const ctk_vreport_t *r, ctk_error_t *err)
{
    json_t *root = NULL, *host = NULL, *sum = NULL, *sdks = NULL;
    char *text = NULL;
    size_t i;
    bool ok;

    /* children are filled first and attached with json_object_set (which
     * adds a reference), so every path ends with the same four decrefs */
    ok = (root = json_object()) && (host = json_object()) && (sum = json_object()) &&
         (sdks = json_array());
    ok = ok && jset(host, "cc", jstr(r->cc)) && jset(host, "cc_version", jstr(r->cc_version)) &&
         jset(host, "cxx", jstr(r->cxx)) && jset(host, "driver", jstr(r->driver)) &&
         jset(host, "tcl", jstr(r->tcl_modsys)) && jset(host, "lmod", jstr(r->lmod)) &&
         jset(host, "tcl_user", jstr(r->tcl_user)) && jset(host, "trust_tcl", json_boolean(r->trust_tcl));
    ok = ok && jset(sum, "pass", jint((long long)r->n_pass)) &&
         jset(sum, "skip", jint((long long)r->n_skip)) &&
         jset(sum, "fail", jint((long long)r->n_fail)) &&
         jset(sum, "skip_launch", jint((long long)r->n_skip_launch)) &&
         jset(sum, "skip_unchecked", jint((long long)r->n_skip_unchecked));
    for (i = 0; ok && i < r->n_sdks; i++)
        ok = jappend(sdks, sdk_json(&r->sdks[i]));
    ok = ok && jset(root, "ctkgen", jstr(PACKAGE_VERSION)) &&
         jset(root, "outdir", jstr(r->outdir)) && jset(root, "jobs", jint(r->jobs)) &&
         jset(root, "seconds", jsecs(r->seconds)) && json_object_set(root, "host", host) == 0 &&
         json_object_set(root, "summary", sum) == 0 && json_object_set(root, "sdks", sdks) == 0;
    ok = ok && (!r->launcher || matrix_json(root, r));
    if (ok)
        text = dump(root, err);
    else
        ctk_error_nomem(err);
    json_decref(sdks);
    json_decref(sum);
    json_decref(host);
    json_decref(root);
    return text;
}

static json_t *lint_file_json(const ctk_lint_file_t *f)
{
    json_t *o = json_object(), *tk = json_null(), *sug = json_null();

    if (!o)
        return NULL;
    if (f->root && !(tk = json_object()))
        goto fail;
    if (f->root && (!jset(tk, "root", jstr(f->root)) || !jset(tk, "version", jstr(f->version)) ||
                    !jset(tk, "found_by", jstr(f->found_by))))
        goto fail;
    if (f->suggestion && !(sug = json_loads(f->suggestion, 0, NULL)))
        goto fail;
    if (!jset(o, "file", jstr(f->file)) || !jset(o, "kind", jstr(ctk_lint_kind_name(f->kind))) ||
        !jset(o, "name", jstr(f->name)) || !jset(o, "evaluated_as", jstr(f->evaluated_as)) ||
        json_object_set(o, "toolkit", tk) != 0 ||
        !jset(o, "findings", findings_json_ex(&f->findings, true)) ||
        !jset(o, "not_fully_checked", json_boolean(f->incomplete)) || !jset(o, "unchecked", strlist_json(&f->unchecked)) ||
        json_object_set(o, "suggestion", sug) != 0 ||
        (f->suggestion && !jset(o, "suggestion_notes", strlist_json(&f->suggestion_notes))))
        goto fail;
    json_decref(tk);
    json_decref(sug);
    return o;
fail:
    json_decref(tk);
    json_decref(sug);
    json_decref(o);
    return NULL;
}

char *ctk_report_lint_json(const ctk_lint_report_t *r, ctk_error_t *err)
{
    json_t *root = NULL, *sum = NULL, *files = NULL, *skipped = NULL;
    char *text = NULL;
    size_t i;
    bool ok;

    ok = (root = json_object()) && (sum = json_object()) && (files = json_array()) && (skipped = json_array());
    ok = ok && jset(sum, "files", jint((long long)r->n_files)) && jset(sum, "error", jint((long long)r->n_error)) &&
         jset(sum, "warning", jint((long long)r->n_warning)) && jset(sum, "note", jint((long long)r->n_note)) &&
         jset(sum, "waived", jint((long long)r->n_waived)) &&
         jset(sum, "not_fully_checked", jint((long long)r->n_incomplete)) &&
         jset(sum, "skipped", jint((long long)r->n_skipped));
    for (i = 0; ok && i < r->n_files; i++)
        ok = jappend(files, lint_file_json(&r->files[i]));
    for (i = 0; ok && i < r->n_skipped; i++) {
        json_t *s = json_object();

        ok = jappend(skipped, s) && jset(s, "file", jstr(r->skipped[i].file)) && jset(s, "why", jstr(r->skipped[i].why));
    }
    ok = ok && jset(root, "ctkgen", jstr(PACKAGE_VERSION)) && jset(root, "tcl", jstr(r->tcl_modsys)) &&
         jset(root, "tcl_skip", jstr(r->tcl_skip)) && jset(root, "tcl_user", jstr(r->tcl_user)) &&
         jset(root, "trust_tcl", json_boolean(r->trust_tcl)) && json_object_set(root, "summary", sum) == 0 &&
         json_object_set(root, "files", files) == 0 && json_object_set(root, "skipped", skipped) == 0;
    if (ok)
        text = dump(root, err);
    else
        ctk_error_nomem(err);
    json_decref(skipped);
    json_decref(files);
    json_decref(sum);
    json_decref(root);
    return text;
}

char *ctk_report_art_to_json(const ctk_vart_t *a, ctk_error_t *err)
{
    json_t *o = art_json(a);
    char *text;

    if (!o) {
        ctk_error_nomem(err);
        return NULL;
    }
    text = dump(o, err);
    json_decref(o);
    return text;
}

/* ======================================================================
 * Cache entries back into records
 * ====================================================================== */

#define CACHE_SOURCE "cache entry"

/* Each reader counts the keys it consumed so that unknown keys are caught:
 * an entry is accepted only if it is exactly what art_json writes. */
static bool exact_keys(const rd_t *rd, const json_t *o, size_t n)
{
    if (json_object_size(o) == n)
        return true;
    ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "%s has keys ctkgen does not write",
                  rd->what);
    return false;
}

static bool probe_from_cache(const rd_t *rd0, const json_t *o, const char *key, bool is_cuda,
                             ctk_probe_report_t *p)
{
    const json_t *v = rd_get(rd0, o, key), *x;
    char what[64];
    rd_t rd = *rd0;
    char *cc = NULL;
    bool ok = false;

    if (!v)
        return false;
    if (json_is_null(v))
        return true;
    if (!json_is_object(v))
        return rd_type_error(rd0, key, v, "an object or null");
    snprintf(what, sizeof what, "/%s", key);
    rd.what = what;
    p->is_cuda = is_cuda;
    if (!rd_int(&rd, v, "cudart_header", &p->cudart_header) ||
        !rd_int(&rd, v, "runtime", &p->runtime) || !rd_int(&rd, v, "driver", &p->driver) ||
        !rd_int(&rd, v, "devices", &p->devices) || !rd_str(&rd, v, "status", true, &p->status) ||
        !rd_str(&rd, v, "device", true, &p->device) || !rd_str(&rd, v, "cc", true, &cc) ||
        !(x = rd_get(&rd, v, "kernel_ok")) ||
        !rd_str(&rd, v, "libcudart", true, &p->libcudart) || !rd_str(&rd, v, "visible", true, &p->visible) ||
        !exact_keys(&rd, v, 10))
        goto out;
    if (cc && !parse_cc(cc, &p->cc_major, &p->cc_minor)) {
        ctk_error_set(rd.err, CTK_E_JSON, rd.source, 0, 0, "%s: \"cc\" is not \"major.minor\"",
                      what);
        goto out;
    }
    if (json_is_null(x)) {
        p->kernel_ok = -1;
    } else if (json_is_boolean(x)) {
        p->kernel_ok = json_is_true(x) ? 1 : 0;
    } else {
        rd_type_error(&rd, "kernel_ok", x, "true, false or null");
        goto out;
    }
    p->present = true;
    ok = true;
out:
    free(cc);
    return ok;
}

static bool strlist_from_cache(const rd_t *rd, const json_t *o, const char *key,
                               ctk_strlist_t *l)
{
    const json_t *v = rd_get(rd, o, key);
    size_t i;

    if (!v)
        return false;
    if (!json_is_array(v))
        return rd_type_error(rd, key, v, "an array of strings");
    for (i = 0; i < json_array_size(v); i++) {
        const json_t *s = json_array_get(v, i);

        if (!json_is_string(s)) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "/%s/%zu is %s, expected a string",
                          key, i, type_name(s));
            return false;
        }
        if (!ctk_strlist_push(l, json_string_value(s), rd->err))
            return false;
    }
    return true;
}

static bool env_from_cache(const rd_t *rd, const json_t *o, ctk_env_t *e)
{
    const json_t *v = rd_get(rd, o, "env"), *val;
    const char *name;

    if (!v)
        return false;
    if (!json_is_object(v))
        return rd_type_error(rd, "env", v, "an object");
    json_object_foreach((json_t *)v, name, val) {
        if (!json_is_string(val)) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "/env/%s is %s, expected a string",
                          name, type_name(val));
            return false;
        }
        if (name[0] == '\0' || strchr(name, '=')) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0,
                          "/env: \"%s\" is not a variable name", name);
            return false;
        }
        if (!ctk_env_set(e, name, json_string_value(val), rd->err))
            return false;
    }
    return true;
}

static bool findings_from_cache(const rd_t *rd0, const json_t *o, ctk_findings_t *f)
{
    const json_t *v = rd_get(rd0, o, "findings");
    size_t i;

    if (!v)
        return false;
    if (!json_is_array(v))
        return rd_type_error(rd0, "findings", v, "an array");
    for (i = 0; i < json_array_size(v); i++) {
        const json_t *x = json_array_get(v, i), *line_v;
        const ctk_diag_t *d;
        char what[64], *code = NULL, *sev = NULL, *file = NULL, *msg = NULL, *fix = NULL;
        rd_t rd = *rd0;
        int line = 0;
        bool ok = false;

        snprintf(what, sizeof what, "/findings/%zu", i);
        rd.what = what;
        if (!json_is_object(x)) {
            ctk_error_set(rd.err, CTK_E_JSON, rd.source, 0, 0, "%s is %s, expected an object",
                          what, type_name(x));
            return false;
        }
        if (!rd_str(&rd, x, "code", false, &code) || !rd_str(&rd, x, "severity", false, &sev) ||
            !rd_str(&rd, x, "file", true, &file) || !(line_v = rd_get(&rd, x, "line")) ||
            !rd_str(&rd, x, "message", false, &msg) || !rd_str(&rd, x, "fix", true, &fix) ||
            !exact_keys(&rd, x, 6))
            goto next;
        if (json_is_integer(line_v) && json_integer_value(line_v) > 0 &&
            json_integer_value(line_v) <= INT_MAX) {
            line = (int)json_integer_value(line_v);
        } else if (!json_is_null(line_v)) {
            rd_type_error(&rd, "line", line_v, "a positive integer or null");
            goto next;
        }
        /* a code this ctkgen does not know, or whose severity changed,
         * comes from another version: the entry is stale */
        d = ctk_diag_find(code);
        if (!d || strcmp(sev, ctk_severity_name(d->severity)) != 0) {
            ctk_error_set(rd.err, CTK_E_JSON, rd.source, 0, 0,
                          "%s: \"%s\" is not a %s code of this ctkgen", what, code, sev);
            goto next;
        }
        ok = ctk_findings_add(f, code, file, line, rd.err, "%s", msg) &&
             (!fix || strcmp(fix, d->fix) == 0 || ctk_findings_set_fix(f, f->len - 1, rd.err, "%s", fix));
    next:
        free(code);
        free(sev);
        free(file);
        free(msg);
        free(fix);
        if (!ok)
            return false;
    }
    return true;
}

static bool verdict_from_name(const char *s, ctk_verdict_t *v)
{
    static const ctk_verdict_t all[] = { CTK_VERDICT_PASS, CTK_VERDICT_SKIP, CTK_VERDICT_FAIL };
    size_t i;

    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(s, ctk_verdict_name(all[i])) == 0) {
            *v = all[i];
            return true;
        }
    }
    return false;
}

static bool art_from_object(const rd_t *rd, const json_t *o, ctk_vart_t *t)
{
    const json_t *skip;
    char *kind = NULL, *verdict = NULL;
    bool cached, ok = false;
    size_t n_keys;

    if (!json_is_object(o)) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "%s is %s, expected an object",
                      rd->what, type_name(o));
        return false;
    }
    if (!rd_str(rd, o, "kind", false, &kind))
        goto out;
    if (strcmp(kind, ctk_art_name(t->kind)) != 0) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0,
                      "%s is for a %s artifact, not %s", rd->what, kind, ctk_art_name(t->kind));
        goto out;
    }
    if (!rd_str(rd, o, "file", true, &t->file) || !rd_str(rd, o, "verdict", false, &verdict))
        goto out;
    if (!verdict_from_name(verdict, &t->verdict)) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0,
                      "%s: \"verdict\" is not pass, skip or fail", rd->what);
        goto out;
    }
    if (!(skip = rd_get(rd, o, "skip")))
        goto out;
    if (json_is_object(skip)) {
        rd_t sk = *rd;

        sk.what = "/skip";
        if (!rd_str(&sk, skip, "code", true, &t->skip_code) ||
            !rd_str(&sk, skip, "reason", true, &t->skip_reason) || !exact_keys(&sk, skip, 2))
            goto out;
    } else if (!json_is_null(skip)) {
        rd_type_error(rd, "skip", skip, "an object or null");
        goto out;
    }
    if (!rd_bool(rd, o, "cached", &cached) || !rd_number(rd, o, "seconds", &t->seconds))
        goto out;
    if (t->kind == CTK_ART_PC) {
        if (!strlist_from_cache(rd, o, "cflags", &t->cflags) ||
            !strlist_from_cache(rd, o, "libs", &t->libs) ||
            !rd_str(rd, o, "pc_version", true, &t->pc_version))
            goto out;
        n_keys = 19;
    } else {
        if (!env_from_cache(rd, o, &t->env))
            goto out;
        n_keys = 17;
    }
    if (!rd_str(rd, o, "nvcc", true, &t->nvcc) ||
        !rd_str(rd, o, "nvcc_release", true, &t->nvcc_release) ||
        !rd_str(rd, o, "built_by", true, &t->built_by) ||
        !rd_str(rd, o, "linked_by", true, &t->linked_by) ||
        !probe_from_cache(rd, o, "host_probe", false, &t->host) ||
        !probe_from_cache(rd, o, "cuda_probe", true, &t->cuda) ||
        !probe_from_cache(rd, o, "sass_probe", true, &t->sass) ||
        !probe_from_cache(rd, o, "ptx_probe", true, &t->ptx) ||
        !rd_bool(rd, o, "launched", &t->launched) || !findings_from_cache(rd, o, &t->findings) ||
        !exact_keys(rd, o, n_keys))
        goto out;
    t->cached = true;
    ok = true;
out:
    free(kind);
    free(verdict);
    return ok;
}

/* One artifact object of a node's own report into a matrix cell. */
static bool cell_from_sdk(const rd_t *rd, const json_t *sdk, ctk_vart_t *cell)
{
    const json_t *arts = json_object_get(sdk, "artifacts");
    size_t i;

    for (i = 0; json_is_array(arts) && i < json_array_size(arts); i++) {
        const json_t *a = json_array_get(arts, i);
        const json_t *kind = json_object_get(a, "kind");
        ctk_vart_t t;

        if (!json_is_string(kind) || strcmp(json_string_value(kind), ctk_art_name(cell->kind)) != 0)
            continue;
        vart_init(&t, cell->kind);
        if (!art_from_object(rd, a, &t)) {
            ctk_vart_fini(&t);
            return false;
        }
        t.cached = false;
        ctk_vart_fini(cell);
        *cell = t;
        return true;
    }
    ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "%s has no %s artifact", rd->what,
                  ctk_art_name(cell->kind));
    return false;
}

bool ctk_report_cells_from_json(const char *text, const ctk_vreport_t *r, size_t part, ctk_error_t *err)
{
    rd_t rd = { "the node's report", 0, "the node's report", err };
    json_t *root = text ? ctk_json_load(text, strlen(text), rd.source, 0, 0, rd.what, err) : NULL;
    const json_t *sdks = root ? json_object_get(root, "sdks") : NULL;
    bool ok = root != NULL;

    if (!text)
        ctk_error_set(err, CTK_E_JSON, rd.source, 0, 0, "the node printed no report");
    for (size_t i = 0; ok && i < r->n_sdks; i++) {
        const json_t *match = NULL;

        for (size_t k = 0; json_is_array(sdks) && k < json_array_size(sdks); k++) {
            const json_t *m = json_object_get(json_array_get(sdks, k), "module");

            if (json_is_string(m) && r->sdks[i].module && strcmp(json_string_value(m), r->sdks[i].module) == 0)
                match = json_array_get(sdks, k);
        }
        if (!match) {
            ctk_error_set(err, CTK_E_JSON, rd.source, 0, 0, "the node's report has no %s", r->sdks[i].module);
            ok = false;
        }
        for (int a = 0; ok && a < CTK_ART__COUNT; a++)
            ok = cell_from_sdk(&rd, match, ctk_vreport_cell(r, i, part, (ctk_art_t)a));
    }
    json_decref(root);
    return ok;
}

bool ctk_report_art_from_json(const char *text, ctk_vart_t *a, ctk_error_t *err)
{
    rd_t rd = { CACHE_SOURCE, 0, "the cache entry", err };
    ctk_vart_t t;
    json_t *root;
    bool ok = false;

    if (!text) {
        ctk_error_set(err, CTK_E_JSON, CACHE_SOURCE, 0, 0, "the cache entry is empty");
        return false;
    }
    vart_init(&t, a->kind);
    root = ctk_json_load(text, strlen(text), CACHE_SOURCE, 0, 0, "the cache entry", err);
    if (root)
        ok = art_from_object(&rd, root, &t);
    json_decref(root);
    if (!ok) {
        ctk_vart_fini(&t);
        return false;
    }
    ctk_vart_fini(a);
    *a = t;
    return true;
}

/* ======================================================================
 * Text for people
 * ====================================================================== */

#define ANSI_RESET "\033[0m"

/* What a person reads for an artifact's result.  A SKIP is split by what it
 * left unknown (ctk_vart_skip_kind): after a launch skip the environment,
 * build and link were checked; an artifact that was never evaluated was not
 * checked at all, and the two must not look alike. */
typedef enum { MARK_PASS, MARK_NOLAUNCH, MARK_UNCHECKED, MARK_FAIL, MARK__COUNT } mark_t;

static const struct {
    const char *word;    /* the cell, the progress line */
    const char *color;
    const char *legend;  /* under the table */
} marks[MARK__COUNT] = {
    { "PASS", "\033[32m", "passed: environment, build, link and kernel launch checked" },
    { "NOLAUNCH", "\033[33m", "launch skipped (no GPU): environment, build and link passed" },
    { "UNCHECKED", "\033[33m",
      "not checked: never evaluated here (Tcl: no Environment Modules, or unreadable by the unprivileged user)" },
    { "FAIL", "\033[1;31m", "failed: an error-level finding, listed under its progress line" },
};

/* widest word above, plus the cache's '*' */
#define MARK_WIDTH 10

static mark_t mark_of(const ctk_vart_t *a)
{
    switch (a->verdict) {
    case CTK_VERDICT_PASS:
        return MARK_PASS;
    case CTK_VERDICT_SKIP:
        return ctk_vart_skip_kind(a) == CTK_SKIP_LAUNCH ? MARK_NOLAUNCH : MARK_UNCHECKED;
    case CTK_VERDICT_FAIL:
        break;
    }
    return MARK_FAIL;
}

/* gcc's colours for the same words */
static const char *severity_color(ctk_severity_t s)
{
    switch (s) {
    case CTK_SEV_NOTE:
        return "\033[1;36m";
    case CTK_SEV_WARNING:
        return "\033[1;35m";
    case CTK_SEV_ERROR:
        return "\033[1;31m";
    }
    return "";
}

/* Untrusted text (compiler output, paths, module errors) on a terminal:
 * control bytes are shown as \xNN so they cannot move the cursor or
 * recolour the screen. */
static void put_text(FILE *fp, const char *s)
{
    const unsigned char *p;

    for (p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            fprintf(fp, "\\x%02x", *p);
        else
            fputc(*p, fp);
    }
}

/* The mark's word, coloured when asked, '*' when cached, padded with
 * spaces to width. */
static void put_mark(FILE *fp, mark_t m, bool cached, int width, bool color)
{
    int n = (int)strlen(marks[m].word);

    if (color)
        fputs(marks[m].color, fp);
    fputs(marks[m].word, fp);
    if (color)
        fputs(ANSI_RESET, fp);
    if (cached) {
        fputc('*', fp);
        n++;
    }
    for (; n < width; n++)
        fputc(' ', fp);
}

/* A result's findings, each with its fix, and its skip reason, indented. */
static void put_details(FILE *fp, const ctk_vart_t *a, bool color)
{
    size_t i;

    for (i = 0; i < a->findings.len; i++) {
        const ctk_finding_t *f = &a->findings.items[i];
        const ctk_diag_t *d = ctk_diag_find(f->code);

        fprintf(fp, "    %s%s%s %s: ", color ? severity_color(f->severity) : "",
                ctk_severity_name(f->severity), color ? ANSI_RESET : "", f->code);
        if (f->file) {
            put_text(fp, f->file);
            if (f->line > 0)
                fprintf(fp, ":%d", f->line);
            fputs(": ", fp);
        }
        put_text(fp, f->text);
        fputc('\n', fp);
        if (d)
            fprintf(fp, "      fix: %s\n", ctk_finding_fix(f));
    }
    /* a skip that is not already one of the findings */
    if (a->verdict == CTK_VERDICT_SKIP && (a->skip_reason || a->skip_code) &&
        !ctk_findings_has(&a->findings, a->skip_code)) {
        fprintf(fp, "    %sskipped%s", color ? severity_color(CTK_SEV_NOTE) : "",
                color ? ANSI_RESET : "");
        if (a->skip_code)
            fprintf(fp, " %s", a->skip_code);
        fputs(": ", fp);
        put_text(fp, a->skip_reason ? a->skip_reason : "");
        fputc('\n', fp);
    }
}

void ctk_report_progress(FILE *fp, const ctk_vsdk_t *sdk, ctk_art_t art, bool color)
{
    const ctk_vart_t *a = &sdk->art[art];
    const char *m = sdk->module ? sdk->module : "?";
    size_t len = strlen(m);

    fputs("  ", fp);
    put_text(fp, m);
    fprintf(fp, "%*s  %-4s  ", len < 20 ? (int)(20 - len) : 0, "", ctk_art_name(art));
    put_mark(fp, mark_of(a), false, MARK_WIDTH - 1, color);
    fprintf(fp, " %7.2f s%s\n", a->seconds, a->cached ? "  (cached)" : "");
    put_details(fp, a, color);
    fflush(fp);
}

void ctk_report_table(FILE *fp, const ctk_vreport_t *r, bool color)
{
    static const char head[] = "module";
    size_t i, width = sizeof head - 1;
    bool used[MARK__COUNT] = { false }, any_cached = false;
    int k;

    for (i = 0; i < r->n_sdks; i++) {
        const char *m = r->sdks[i].module ? r->sdks[i].module : "?";

        if (strlen(m) > width)
            width = strlen(m);
    }
    fprintf(fp, "  %-*s", (int)width, head);
    for (k = 0; k < CTK_ART__COUNT; k++)
        fprintf(fp, "  %-*s", MARK_WIDTH, ctk_art_name((ctk_art_t)k));
    fprintf(fp, " %8s\n", "time");
    for (i = 0; i < r->n_sdks; i++) {
        const ctk_vsdk_t *s = &r->sdks[i];
        const char *m = s->module ? s->module : "?";

        fputs("  ", fp);
        put_text(fp, m);
        fprintf(fp, "%*s", (int)(width - strlen(m)), "");
        for (k = 0; k < CTK_ART__COUNT; k++) {
            mark_t mk = mark_of(&s->art[k]);

            fputs("  ", fp);
            put_mark(fp, mk, s->art[k].cached, MARK_WIDTH, color);
            used[mk] = true;
            any_cached = any_cached || s->art[k].cached;
        }
        fprintf(fp, " %6.2f s\n", s->seconds);
    }
    /* the legend: the marks this table uses, in the order above */
    if (r->n_sdks)
        fputc('\n', fp);
    for (k = 0; k < MARK__COUNT; k++)
        if (used[k])
            fprintf(fp, "  %-*s %s\n", MARK_WIDTH, marks[k].word,
                    r->launcher && k == MARK_PASS
                        ? "passed here: environment, build and link (the launch: per partition, below)"
                        : marks[k].legend);
    if (any_cached)
        fprintf(fp, "  %-*s %s\n", MARK_WIDTH, "*", "from the cache: nothing it depends on changed");
    fprintf(fp,
            "%zu passed, %zu passed with launch skipped (no GPU), %zu not checked, %zu failed "
            "(artifacts)\n",
            r->n_pass, r->n_skip_launch, r->n_skip_unchecked, r->n_fail);
    if (r->tcl_user)
        fprintf(fp, "modulefiles were evaluated as user %s, not as root%s\n", r->tcl_user,
                r->trust_tcl ? " (Tcl files only root can change: as root, --trust-tcl)" : "");
    fflush(fp);
}

/* ---- the Slurm matrix -------------------------------------------------------------------- */

/* "SASS cudaSuccess, PTX cudaErrorUnsupportedPtxVersion": the first SDK's
 * architecture probes on partition pi, when they ran. */
static void put_arch_line(FILE *fp, const ctk_vreport_t *r, size_t pi)
{
    for (size_t i = 0; i < r->n_sdks; i++) {
        const ctk_vart_t *c = ctk_vreport_cell(r, i, pi, CTK_ART_PC);

        if (!c->sass.present || !c->ptx.present)
            continue;
        fputs("    ", fp);
        put_text(fp, r->sdks[i].module);
        fputs(": SASS for every architecture ", fp);
        put_text(fp, c->sass.status);
        fputs(", PTX alone ", fp);
        put_text(fp, c->ptx.status);
        fputc('\n', fp);
    }
}

static void put_partition_line(FILE *fp, const ctk_vpart_t *p)
{
    fputs("  ", fp);
    put_text(fp, p->name);
    fprintf(fp, ": job %s", p->job_id ? p->job_id : "-");
    if (p->state == CTK_PART_RAN) {
        fputs(" on ", fp);
        put_text(fp, p->node && p->node[0] ? p->node : "?");
        if (p->gpu) {
            fputs(", ", fp);
            put_text(fp, p->gpu);
            fprintf(fp, " (cc %d.%d)", p->cc_major, p->cc_minor);
        } else {
            fputs(", no GPU seen", fp);
        }
        if (p->driver)
            fprintf(fp, ", driver for CUDA %d.%d", p->driver / 1000, p->driver % 1000 / 10);
        if (p->nvidia) {
            fputs(" (", fp);
            put_text(fp, p->nvidia);
            fputc(')', fp);
        }
        fputs(", CUDA_VISIBLE_DEVICES=", fp);
        put_text(fp, p->cvd ? p->cvd : "(unset)");
        if (p->cached)
            fprintf(fp, "; from the cache, %.0f s old\n", p->cache_age_s);
        else
            fprintf(fp, "; queued %.1f s, ran %.1f s\n", p->queued_s, p->ran_s);
    } else {
        fprintf(fp, " %s: ", ctk_part_state_name(p->state));
        put_text(fp, p->reason ? p->reason : "");
        fputc('\n', fp);
    }
}

void ctk_report_matrix(FILE *fp, const ctk_vreport_t *r, bool color)
{
    static const char head[] = "module";
    size_t i, p, width = sizeof head - 1, cw = (size_t)CTK_ART__COUNT * (MARK_WIDTH + 1);
    bool used[MARK__COUNT] = { false };
    int k;

    fprintf(fp, "\nlaunched through %s: one job per partition\n", r->launcher ? r->launcher : "?");
    for (p = 0; p < r->n_parts; p++) {
        put_partition_line(fp, &r->parts[p]);
        put_arch_line(fp, r, p);
    }
    for (i = 0; i < r->n_sdks; i++)
        if (r->sdks[i].module && strlen(r->sdks[i].module) > width)
            width = strlen(r->sdks[i].module);
    fprintf(fp, "\n  %-*s", (int)width, "");
    for (p = 0; p < r->n_parts; p++) {
        fputs("  ", fp);
        put_text(fp, r->parts[p].name);
        fprintf(fp, "%*s", strlen(r->parts[p].name) < cw ? (int)(cw - strlen(r->parts[p].name)) : 0, "");
    }
    fprintf(fp, "\n  %-*s", (int)width, head);
    for (p = 0; p < r->n_parts; p++) {
        fputs("  ", fp);
        for (k = 0; k < CTK_ART__COUNT; k++)
            fprintf(fp, "%-*s ", MARK_WIDTH, ctk_art_name((ctk_art_t)k));
    }
    fputc('\n', fp);
    for (i = 0; i < r->n_sdks; i++) {
        const char *m = r->sdks[i].module ? r->sdks[i].module : "?";

        fputs("  ", fp);
        put_text(fp, m);
        fprintf(fp, "%*s", (int)(width - strlen(m)), "");
        for (p = 0; p < r->n_parts; p++) {
            fputs("  ", fp);
            for (k = 0; k < CTK_ART__COUNT; k++) {
                mark_t mk = mark_of(ctk_vreport_cell(r, i, p, (ctk_art_t)k));

                put_mark(fp, mk, false, MARK_WIDTH, color);
                fputc(' ', fp);
                used[mk] = true;
            }
        }
        fputc('\n', fp);
    }
    /* what did not pass, cell by cell */
    for (i = 0; i < r->n_sdks; i++)
        for (p = 0; p < r->n_parts; p++)
            for (k = 0; k < CTK_ART__COUNT; k++) {
                const ctk_vart_t *c = ctk_vreport_cell(r, i, p, (ctk_art_t)k);

                if (c->verdict == CTK_VERDICT_PASS)
                    continue;
                fputs("\n  ", fp);
                put_text(fp, r->sdks[i].module);
                fputs(" on ", fp);
                put_text(fp, r->parts[p].name);
                fprintf(fp, ", %s: ", ctk_art_name((ctk_art_t)k));
                put_mark(fp, mark_of(c), false, 0, color);
                fputc('\n', fp);
                put_details(fp, c, color);
            }
    fputc('\n', fp);
    for (k = 0; k < MARK__COUNT; k++)
        if (used[k])
            fprintf(fp, "  %-*s %s\n", MARK_WIDTH, marks[k].word,
                    k == MARK_NOLAUNCH ? "launch skipped (no GPU on the node, or the partition's job did not "
                                         "run): environment, build and link passed"
                                       : marks[k].legend);
    fprintf(fp, "%zu passed, %zu skipped, %zu failed (module x partition x artifact); %u job%s, %u Slurm command%s\n",
            r->m_pass, r->m_skip, r->m_fail, r->jobs_submitted, r->jobs_submitted == 1 ? "" : "s",
            r->scheduler_calls, r->scheduler_calls == 1 ? "" : "s");
    fflush(fp);
}
