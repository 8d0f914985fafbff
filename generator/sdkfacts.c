/* sdkfacts.c - a probed SDK record as JSON text, and back.
 * SPDX-License-Identifier: MIT
 *
 * The text is written by hand, member by member in the order of members[]
 * below, so that the bytes depend on the record alone (not on jansson's
 * version or flags).  It is read with jansson through ctk_json_load()
 * (report.c), which tells running out of memory from bad JSON, and every
 * value is checked for its shape before it is taken.  One table,
 * members[], drives the dump, the load and the comparison, so a field is
 * either in all three or in none; the assertions below the includes stop
 * the build when sdk.h's records grow and the table does not.
 */
#include <ctkconf.h>

#include "sdkfacts.h"

#include "jsonload.h"
#include "util.h"

#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The form of the text ("sdkfacts": FORM): raise it when what a member
 * means changes, so that text of the old form no longer loads. */
#define FORM 1

/* Drift guards: each record's size is the sum of its fields as this file
 * knows them (no padding today).  A field added to sdk.h changes the size:
 * then add it to members[] (or to the library or version code below), to
 * sdkfacts.h's description of the text, and to check_sdkfacts.c's field
 * lists, and update the sum here. */
_Static_assert(sizeof(ctk_sdk_t) ==
                   sizeof(const ctk_sdk_conf_t *) + 23 * sizeof(char *) + sizeof(ctk_version_t) +
                       5 * sizeof(ctk_strlist_t) + sizeof(ctk_sdk_lib_t *) + sizeof(size_t) +
                       sizeof(ctk_sdk_versioned_t *) + sizeof(size_t),
               "ctk_sdk_t has a field sdkfacts.c does not know: add it to members[] in "
               "sdkfacts.c, to sdkfacts.h and to tests/check_sdkfacts.c, then update this sum");
_Static_assert(sizeof(ctk_version_t) == 3 * sizeof(int) + sizeof(ctk_version_source_t) + 4096 + 512 + 1536,
               "ctk_version_t changed: update put_version(), get_version() and same_version() in "
               "sdkfacts.c, sdkfacts.h and tests/check_sdkfacts.c, then this sum");
/* math's bool fills a pointer's room with its padding: a field small
 * enough to fit there is caught by check_sdkfacts.c's reading of sdk.h. */
_Static_assert(sizeof(ctk_sdk_lib_t) == 6 * sizeof(char *),
               "ctk_sdk_lib_t changed: update put_libs(), get_libs() and same_lib() in sdkfacts.c, "
               "sdkfacts.h and tests/check_sdkfacts.c, then this size");
_Static_assert(sizeof(ctk_sdk_versioned_t) == 2 * sizeof(char *),
               "ctk_sdk_versioned_t changed: update put_versioned(), get_versioned() and "
               "same_versioned() in sdkfacts.c, sdkfacts.h and tests/check_sdkfacts.c, then this size");
/* The text stores a version source as its number. */
_Static_assert(CTK_VSRC_NONE == 0 && CTK_VSRC_NVCC == 4,
               "ctk_version_source_t renumbered or grown: check get_version()'s range and raise "
               "FORM in sdkfacts.c");

typedef enum { M_FORM, M_STR, M_VERSION, M_LIST, M_LIBS, M_VERSIONED } kind_t;

/* Every member of the text, in its order; key first (check_members()
 * reads the keys through a stride). */
static const struct member {
    const char *key;
    kind_t kind;
    size_t off; /* of the field in ctk_sdk_t (M_STR, M_LIST) */
} members[] = {
    {"sdkfacts", M_FORM, 0},
    {"module_version", M_STR, offsetof(ctk_sdk_t, module_version)},
    {"version", M_VERSION, 0},
    {"version_mm", M_STR, offsetof(ctk_sdk_t, version_mm)},
    {"version_full", M_STR, offsetof(ctk_sdk_t, version_full)},
    {"root", M_STR, offsetof(ctk_sdk_t, root)},
    {"bindir", M_STR, offsetof(ctk_sdk_t, bindir)},
    {"nvcc", M_STR, offsetof(ctk_sdk_t, nvcc)},
    {"incdir", M_STR, offsetof(ctk_sdk_t, incdir)},
    {"cccl_incdir", M_STR, offsetof(ctk_sdk_t, cccl_incdir)},
    {"libdir", M_STR, offsetof(ctk_sdk_t, libdir)},
    {"stubsdir", M_STR, offsetof(ctk_sdk_t, stubsdir)},
    {"mandir", M_STR, offsetof(ctk_sdk_t, mandir)},
    {"math_incdir", M_STR, offsetof(ctk_sdk_t, math_incdir)},
    {"math_libdir", M_STR, offsetof(ctk_sdk_t, math_libdir)},
    {"nvvm_root", M_STR, offsetof(ctk_sdk_t, nvvm_root)},
    {"nvvm_incdir", M_STR, offsetof(ctk_sdk_t, nvvm_incdir)},
    {"nvvm_libdir", M_STR, offsetof(ctk_sdk_t, nvvm_libdir)},
    {"cupti_incdir", M_STR, offsetof(ctk_sdk_t, cupti_incdir)},
    {"cupti_libdir", M_STR, offsetof(ctk_sdk_t, cupti_libdir)},
    {"nccl_incdir", M_STR, offsetof(ctk_sdk_t, nccl_incdir)},
    {"nccl_libdir", M_STR, offsetof(ctk_sdk_t, nccl_libdir)},
    {"nvshmem_incdir", M_STR, offsetof(ctk_sdk_t, nvshmem_incdir)},
    {"nvshmem_libdir", M_STR, offsetof(ctk_sdk_t, nvshmem_libdir)},
    {"nvshmem_bindir", M_STR, offsetof(ctk_sdk_t, nvshmem_bindir)},
    {"path", M_LIST, offsetof(ctk_sdk_t, path)},
    {"ld_library_path", M_LIST, offsetof(ctk_sdk_t, ld_library_path)},
    {"library_path", M_LIST, offsetof(ctk_sdk_t, library_path)},
    {"cpath", M_LIST, offsetof(ctk_sdk_t, cpath)},
    {"manpath", M_LIST, offsetof(ctk_sdk_t, manpath)},
    {"libs", M_LIBS, 0},
    {"versioned", M_VERSIONED, 0},
};

#define N_MEMBERS (sizeof members / sizeof members[0])
_Static_assert(N_MEMBERS == 1 + 23 + 1 + 5 + 2, "members[] and the sums above disagree");

static const char *const version_keys[] = {"major",       "minor",     "patch",      "source",
                                           "path",        "passed_over", "out_of_step"};
static const char *const lib_keys[] = {"name", "libdir", "link"};
static const char *const versioned_keys[] = {"name", "file"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static char *const *str_field(const ctk_sdk_t *s, size_t off)
{
    return (char *const *)(const void *)((const char *)s + off);
}

static const ctk_strlist_t *list_field(const ctk_sdk_t *s, size_t off)
{
    return (const ctk_strlist_t *)(const void *)((const char *)s + off);
}

static char **str_slot(ctk_sdk_t *s, size_t off)
{
    return (char **)(void *)((char *)s + off);
}

static ctk_strlist_t *list_slot(ctk_sdk_t *s, size_t off)
{
    return (ctk_strlist_t *)(void *)((char *)s + off);
}

/* Whether s[0..len) is well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), as jansson wants its strings. */
static bool utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;

    while (p < end) {
        unsigned char lo = 0x80, hi = 0xbf;
        size_t n, i;

        if (p[0] < 0x80) {
            p++;
            continue;
        }
        if (p[0] >= 0xc2 && p[0] <= 0xdf) {
            n = 2;
        } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
            n = 3;
            if (p[0] == 0xe0)
                lo = 0xa0;
            else if (p[0] == 0xed)
                hi = 0x9f;
        } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
            n = 4;
            if (p[0] == 0xf0)
                lo = 0x90;
            else if (p[0] == 0xf4)
                hi = 0x8f;
        } else {
            return false;
        }
        if ((size_t)(end - p) < n || p[1] < lo || p[1] > hi)
            return false;
        for (i = 2; i < n; i++)
            if ((p[i] & 0xc0) != 0x80)
                return false;
        p += n;
    }
    return true;
}

/* ======================================================================
 * Writing
 * ====================================================================== */

static const char hexdig[] = "0123456789abcdef";

/* s[0..len) as a JSON string, {"hex": ...} when it is not UTF-8, null
 * for NULL.  Out of memory shows in b->failed. */
static void put_bytes(ctk_buf_t *b, const char *s, size_t len)
{
    size_t i, start = 0;

    if (!s) {
        ctk_buf_puts(b, "null");
        return;
    }
    if (!utf8_valid(s, len)) {
        ctk_buf_puts(b, "{\"hex\": \"");
        for (i = 0; i < len; i++) {
            char h[2] = {hexdig[(unsigned char)s[i] >> 4], hexdig[(unsigned char)s[i] & 15]};

            ctk_buf_append(b, h, 2);
        }
        ctk_buf_puts(b, "\"}");
        return;
    }
    ctk_buf_puts(b, "\"");
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c != '"' && c != '\\' && c >= 0x20)
            continue;
        ctk_buf_append(b, s + start, i - start);
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};

            ctk_buf_append(b, e, 2);
        } else {
            char e[6] = {'\\', 'u', '0', '0', hexdig[c >> 4], hexdig[c & 15]};

            ctk_buf_append(b, e, 6);
        }
        start = i + 1;
    }
    ctk_buf_append(b, s + start, len - start);
    ctk_buf_puts(b, "\"");
}

static void put_str(ctk_buf_t *b, const char *s)
{
    put_bytes(b, s, s ? strlen(s) : 0);
}

/* a char array's string: up to its NUL, never past its end */
static void put_array(ctk_buf_t *b, const char *a, size_t size)
{
    put_bytes(b, a, strnlen(a, size));
}

static void put_version(ctk_buf_t *b, const ctk_version_t *v)
{
    ctk_buf_printf(b, "{\"major\": %d, \"minor\": %d, \"patch\": %d, \"source\": %d, \"path\": ",
                   v->major, v->minor, v->patch, (int)v->source);
    put_array(b, v->path, sizeof v->path);
    ctk_buf_puts(b, ", \"passed_over\": ");
    put_array(b, v->passed_over, sizeof v->passed_over);
    ctk_buf_puts(b, ", \"out_of_step\": ");
    put_array(b, v->out_of_step, sizeof v->out_of_step);
    ctk_buf_puts(b, "}");
}

static void put_list(ctk_buf_t *b, const ctk_strlist_t *l)
{
    size_t i;

    ctk_buf_puts(b, "[");
    for (i = 0; i < l->len; i++) {
        if (i)
            ctk_buf_puts(b, ", ");
        put_str(b, l->items[i]);
    }
    ctk_buf_puts(b, "]");
}

static void put_libs(ctk_buf_t *b, const ctk_sdk_t *s)
{
    size_t i;

    ctk_buf_puts(b, "[");
    for (i = 0; i < s->n_libs; i++) {
        ctk_buf_puts(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        put_str(b, s->libs[i].name);
        ctk_buf_puts(b, ", \"libdir\": ");
        put_str(b, s->libs[i].libdir);
        ctk_buf_puts(b, ", \"link\": ");
        put_str(b, s->libs[i].link);
        ctk_buf_puts(b, "}");
    }
    ctk_buf_puts(b, s->n_libs ? "\n  ]" : "]");
}

static void put_versioned(ctk_buf_t *b, const ctk_sdk_t *s)
{
    size_t i;

    ctk_buf_puts(b, "[");
    for (i = 0; i < s->n_versioned; i++) {
        ctk_buf_puts(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
        put_str(b, s->versioned[i].name);
        ctk_buf_puts(b, ", \"file\": ");
        put_str(b, s->versioned[i].file);
        ctk_buf_puts(b, "}");
    }
    ctk_buf_puts(b, s->n_versioned ? "\n  ]" : "]");
}

char *ctk_sdkfacts_dump(const ctk_sdk_t *s, ctk_error_t *err)
{
    ctk_buf_t b;
    size_t i;

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "{");
    for (i = 0; i < N_MEMBERS; i++) {
        const struct member *m = &members[i];

        ctk_buf_puts(&b, i ? ",\n  \"" : "\n  \"");
        ctk_buf_puts(&b, m->key);
        ctk_buf_puts(&b, "\": ");
        switch (m->kind) {
        case M_FORM:
            ctk_buf_printf(&b, "%d", FORM);
            break;
        case M_STR:
            put_str(&b, *str_field(s, m->off));
            break;
        case M_VERSION:
            put_version(&b, &s->version);
            break;
        case M_LIST:
            put_list(&b, list_field(s, m->off));
            break;
        case M_LIBS:
            put_libs(&b, s);
            break;
        case M_VERSIONED:
            put_versioned(&b, s);
            break;
        }
    }
    ctk_buf_puts(&b, "\n}\n");
    if (b.failed) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return ctk_buf_take(&b, NULL);
}

/* ======================================================================
 * Reading
 * ====================================================================== */

static bool bad(ctk_error_t *err, const char *where, const char *what)
{
    ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "SDK facts: %s: %s", where, what);
    return false;
}

/* obj is an object with exactly the n keys at keys, keys + stride, ... */
static bool check_members(const json_t *obj, const char *where, const void *keys, size_t stride, size_t n,
                          ctk_error_t *err)
{
    const char *key;
    const json_t *v;
    size_t i;

    if (!json_is_object(obj))
        return bad(err, where, "not an object");
    for (i = 0; i < n; i++) {
        const char *k = *(const char *const *)(const void *)((const char *)keys + i * stride);

        if (!json_object_get(obj, k)) {
            ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "SDK facts: %s: no \"%s\" member", where, k);
            return false;
        }
    }
    if (json_object_size(obj) == n)
        return true;
    /* n keys found, more held: name one that is not ours */
    json_object_foreach ((json_t *)obj, key, v) {
        bool ours = false;

        for (i = 0; i < n && !ours; i++)
            ours = strcmp(key, *(const char *const *)(const void *)((const char *)keys + i * stride)) == 0;
        if (!ours) {
            ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "SDK facts: %s: unknown member \"%.64s\"", where, key);
            return false;
        }
    }
    return bad(err, where, "unknown members");
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* v as a new C string in *out (caller frees): a string without NUL, or
 * {"hex": ...} of bytes without NUL that are not UTF-8 (the one spelling
 * put_bytes() writes); null gives NULL when null_ok.  At most max bytes. */
static bool get_str(const json_t *v, const char *where, bool null_ok, size_t max, char **out, ctk_error_t *err)
{
    const json_t *h;
    const char *s;
    char *d;
    size_t len, i;

    *out = NULL;
    if (json_is_null(v)) {
        if (null_ok)
            return true;
        return bad(err, where, "null, expected a string");
    }
    if (json_is_string(v)) {
        s = json_string_value(v);
        len = json_string_length(v);
        if (strlen(s) != len)
            return bad(err, where, "a string holding NUL");
        if (len > max)
            return bad(err, where, "too long");
        return (*out = ctk_strndup(s, len, err)) != NULL;
    }
    if (!json_is_object(v))
        return bad(err, where, null_ok ? "expected a string or null" : "expected a string");
    if (json_object_size(v) != 1 || !(h = json_object_get(v, "hex")) || !json_is_string(h))
        return bad(err, where, "an object other than {\"hex\": string}");
    s = json_string_value(h);
    len = json_string_length(h);
    if (len % 2)
        return bad(err, where, "\"hex\" of an odd length");
    if (len / 2 > max)
        return bad(err, where, "too long");
    if (!(d = malloc(len / 2 + 1))) {
        ctk_error_nomem(err);
        return false;
    }
    for (i = 0; i < len / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

        if (hi < 0 || lo < 0 || (hi | lo) == 0) {
            free(d);
            return bad(err, where, hi < 0 || lo < 0 ? "\"hex\" holds other than lowercase hex digits"
                                                    : "\"hex\" holds NUL");
        }
        d[i] = (char)(hi << 4 | lo);
    }
    d[len / 2] = '\0';
    if (utf8_valid(d, len / 2)) {
        free(d);
        return bad(err, where, "\"hex\" of a UTF-8 string (written as a string)");
    }
    *out = d;
    return true;
}

/* into a char array of size bytes */
static bool get_array(const json_t *v, const char *where, char *a, size_t size, ctk_error_t *err)
{
    char *s;

    if (!get_str(v, where, false, size - 1, &s, err))
        return false;
    memset(a, 0, size);
    memcpy(a, s, strlen(s));
    free(s);
    return true;
}

static bool get_int(const json_t *v, const char *where, int lo, int hi, int *out, ctk_error_t *err)
{
    json_int_t n;

    if (!json_is_integer(v))
        return bad(err, where, "expected an integer");
    n = json_integer_value(v);
    if (n < lo || n > hi)
        return bad(err, where, "out of range");
    *out = (int)n;
    return true;
}

static bool get_version(const json_t *o, ctk_version_t *v, ctk_error_t *err)
{
    int src;

    if (!check_members(o, "version", version_keys, sizeof version_keys[0], N_OF(version_keys), err))
        return false;
    if (!get_int(json_object_get(o, "major"), "version.major", INT_MIN, INT_MAX, &v->major, err) ||
        !get_int(json_object_get(o, "minor"), "version.minor", INT_MIN, INT_MAX, &v->minor, err) ||
        !get_int(json_object_get(o, "patch"), "version.patch", INT_MIN, INT_MAX, &v->patch, err) ||
        !get_int(json_object_get(o, "source"), "version.source", CTK_VSRC_NONE, CTK_VSRC_NVCC, &src, err))
        return false;
    v->source = (ctk_version_source_t)src;
    return get_array(json_object_get(o, "path"), "version.path", v->path, sizeof v->path, err) &&
           get_array(json_object_get(o, "passed_over"), "version.passed_over", v->passed_over,
                     sizeof v->passed_over, err) &&
           get_array(json_object_get(o, "out_of_step"), "version.out_of_step", v->out_of_step,
                     sizeof v->out_of_step, err);
}

static bool get_list(const json_t *a, const char *key, ctk_strlist_t *l, ctk_error_t *err)
{
    char where[64];
    const json_t *v;
    size_t i;

    if (!json_is_array(a))
        return bad(err, key, "expected an array");
    json_array_foreach (a, i, v) {
        char *s;

        snprintf(where, sizeof where, "%s[%zu]", key, i);
        if (!get_str(v, where, false, SIZE_MAX, &s, err) || !ctk_strlist_take(l, s, err))
            return false;
    }
    return true;
}

/* the entry of a name table (ctk_sdk_lib_name, ctk_sdk_link_name) that
 * holds name, or SIZE_MAX */
static size_t table_index(const char *(*table)(size_t), const char *name)
{
    const char *t;
    size_t i;

    for (i = 0; (t = table(i)) != NULL; i++)
        if (strcmp(t, name) == 0)
            return i;
    return SIZE_MAX;
}

static bool get_libs(const json_t *a, ctk_sdk_t *s, ctk_error_t *err)
{
    char where[64];
    const json_t *o;
    size_t i;

    if (!json_is_array(a))
        return bad(err, "libs", "expected an array");
    if (json_array_size(a) == 0)
        return true;
    if (!(s->libs = calloc(json_array_size(a), sizeof *s->libs))) {
        ctk_error_nomem(err);
        return false;
    }
    s->n_libs = json_array_size(a); /* zeroed: ctk_sdk_free frees what is filled */
    json_array_foreach (a, i, o) {
        ctk_sdk_lib_t *l = &s->libs[i];
        char *name;
        size_t t;

        snprintf(where, sizeof where, "libs[%zu]", i);
        if (!check_members(o, where, lib_keys, sizeof lib_keys[0], N_OF(lib_keys), err))
            return false;
        snprintf(where, sizeof where, "libs[%zu].name", i);
        if (!get_str(json_object_get(o, "name"), where, false, SIZE_MAX, &name, err))
            return false;
        t = table_index(ctk_sdk_lib_name, name);
        free(name);
        if (t == SIZE_MAX || !ctk_sdk_lib_describe(t, l))
            return bad(err, where, "not a library ctkgen knows");
        snprintf(where, sizeof where, "libs[%zu].libdir", i);
        if (!get_str(json_object_get(o, "libdir"), where, true, SIZE_MAX, &l->libdir, err))
            return false;
        snprintf(where, sizeof where, "libs[%zu].link", i);
        if (!get_str(json_object_get(o, "link"), where, true, SIZE_MAX, &l->link, err))
            return false;
    }
    return true;
}

static bool get_versioned(const json_t *a, ctk_sdk_t *s, ctk_error_t *err)
{
    char where[64];
    const json_t *o;
    size_t i;

    if (!json_is_array(a))
        return bad(err, "versioned", "expected an array");
    if (json_array_size(a) == 0)
        return true;
    if (!(s->versioned = calloc(json_array_size(a), sizeof *s->versioned))) {
        ctk_error_nomem(err);
        return false;
    }
    s->n_versioned = json_array_size(a);
    json_array_foreach (a, i, o) {
        ctk_sdk_versioned_t *v = &s->versioned[i];
        char *name;
        size_t t;

        snprintf(where, sizeof where, "versioned[%zu]", i);
        if (!check_members(o, where, versioned_keys, sizeof versioned_keys[0], N_OF(versioned_keys), err))
            return false;
        snprintf(where, sizeof where, "versioned[%zu].name", i);
        if (!get_str(json_object_get(o, "name"), where, false, SIZE_MAX, &name, err))
            return false;
        t = table_index(ctk_sdk_link_name, name);
        free(name);
        if (t == SIZE_MAX)
            return bad(err, where, "not a library name ctkgen provides");
        v->name = ctk_sdk_link_name(t);
        snprintf(where, sizeof where, "versioned[%zu].file", i);
        if (!get_str(json_object_get(o, "file"), where, true, SIZE_MAX, &v->file, err))
            return false;
    }
    return true;
}

ctk_sdk_t *ctk_sdkfacts_load(const ctk_sdk_conf_t *conf, const char *text, size_t len, ctk_error_t *err)
{
    ctk_error_t e;
    json_t *root;
    ctk_sdk_t *s = NULL;
    bool ok = false;
    size_t i;

    ctk_error_init(&e);
    if (!(root = ctk_json_load(text, len, NULL, 0, 0, "the SDK facts", &e))) {
        if (e.code == CTK_E_NOMEM)
            ctk_error_nomem(err);
        else
            ctk_error_set(err, CTK_E_IO, NULL, e.line, e.column, "%s", e.text);
        return NULL;
    }
    if (!check_members(root, "the text", members, sizeof members[0], N_MEMBERS, err))
        goto out;
    if (!(s = calloc(1, sizeof *s))) {
        ctk_error_nomem(err);
        goto out;
    }
    s->conf = conf;
    ctk_strlist_init(&s->path);
    ctk_strlist_init(&s->ld_library_path);
    ctk_strlist_init(&s->library_path);
    ctk_strlist_init(&s->cpath);
    ctk_strlist_init(&s->manpath);
    for (i = 0; i < N_MEMBERS; i++) {
        const struct member *m = &members[i];
        const json_t *v = json_object_get(root, m->key);
        int form;

        switch (m->kind) {
        case M_FORM:
            if (!get_int(v, m->key, FORM, FORM, &form, err))
                goto out;
            break;
        case M_STR:
            if (!get_str(v, m->key, true, SIZE_MAX, str_slot(s, m->off), err))
                goto out;
            break;
        case M_VERSION:
            if (!get_version(v, &s->version, err))
                goto out;
            break;
        case M_LIST:
            if (!get_list(v, m->key, list_slot(s, m->off), err))
                goto out;
            break;
        case M_LIBS:
            if (!get_libs(v, s, err))
                goto out;
            break;
        case M_VERSIONED:
            if (!get_versioned(v, s, err))
                goto out;
            break;
        }
    }
    ok = true;
out:
    json_decref(root);
    if (!ok) {
        ctk_sdk_free(s);
        s = NULL;
    }
    return s;
}

/* ======================================================================
 * Comparing
 * ====================================================================== */

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_array(const char *a, const char *b, size_t size)
{
    size_t n = strnlen(a, size);

    return n == strnlen(b, size) && memcmp(a, b, n) == 0;
}

static bool same_version(const ctk_version_t *a, const ctk_version_t *b)
{
    return a->major == b->major && a->minor == b->minor && a->patch == b->patch && a->source == b->source &&
           same_array(a->path, b->path, sizeof a->path) &&
           same_array(a->passed_over, b->passed_over, sizeof a->passed_over) &&
           same_array(a->out_of_step, b->out_of_step, sizeof a->out_of_step);
}

static bool same_list(const ctk_strlist_t *a, const ctk_strlist_t *b)
{
    size_t i;

    if (a->len != b->len)
        return false;
    for (i = 0; i < a->len; i++)
        if (!same_str(a->items[i], b->items[i]))
            return false;
    return true;
}

static bool same_lib(const ctk_sdk_lib_t *a, const ctk_sdk_lib_t *b)
{
    return same_str(a->name, b->name) && same_str(a->label, b->label) &&
           same_str(a->description, b->description) && a->math == b->math && same_str(a->libdir, b->libdir) &&
           same_str(a->link, b->link);
}

static bool same_versioned(const ctk_sdk_versioned_t *a, const ctk_sdk_versioned_t *b)
{
    return same_str(a->name, b->name) && same_str(a->file, b->file);
}

bool ctk_sdkfacts_equal(const ctk_sdk_t *a, const ctk_sdk_t *b)
{
    size_t i, j;

    if (!a || !b)
        return a == b;
    for (i = 0; i < N_MEMBERS; i++) {
        const struct member *m = &members[i];

        switch (m->kind) {
        case M_FORM:
            break;
        case M_STR:
            if (!same_str(*str_field(a, m->off), *str_field(b, m->off)))
                return false;
            break;
        case M_VERSION:
            if (!same_version(&a->version, &b->version))
                return false;
            break;
        case M_LIST:
            if (!same_list(list_field(a, m->off), list_field(b, m->off)))
                return false;
            break;
        case M_LIBS:
            if (a->n_libs != b->n_libs)
                return false;
            for (j = 0; j < a->n_libs; j++)
                if (!same_lib(&a->libs[j], &b->libs[j]))
                    return false;
            break;
        case M_VERSIONED:
            if (a->n_versioned != b->n_versioned)
                return false;
            for (j = 0; j < a->n_versioned; j++)
                if (!same_versioned(&a->versioned[j], &b->versioned[j]))
                    return false;
            break;
        }
    }
    return true;
}
