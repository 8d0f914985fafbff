/* sdkfacts.c - a probed SDK record as text, and back.
 * SPDX-License-Identifier: MIT
 *
 * The text (sdkfacts.h) is read back for every toolkit of a site on every
 * run, so it is made to be read in one pass: each string says its length
 * first, and nothing is escaped.  Reading checks each member in the order
 * of members[] below, and every value for its shape, before taking it.
 * One table, members[], drives the dump, the load and the comparison, so
 * a field is either in all three or in none; the assertions below the
 * includes stop the build when sdk.h's records grow and the table does
 * not.
 */
#include <ctkconf.h>

#include "sdkfacts.h"

#include "util.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The form of the text ("sdkfacts FORM" first): raise it when what a
 * member means changes, so that text of the old form no longer loads. */
#define FORM 2

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

/* ======================================================================
 * Writing
 * ====================================================================== */

/* The text is made in one block: room for a member is made before it is
 * written (ctk_buf_reserve), and each piece is then a plain copy.  A
 * member that finds no room leaves b failed. */

static void raw(ctk_buf_t *b, const char *s, size_t n)
{
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

/* a number in decimal: at most 20 digits and a sign */
static void raw_num(ctk_buf_t *b, long long v)
{
    char d[24], *p = d + sizeof d;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        *--p = '-';
    raw(b, p, (size_t)(d + sizeof d - p));
}

/* s[0..len) as "<len>:<bytes>", "-" for NULL; room: bytes_room() */
static void raw_bytes(ctk_buf_t *b, const char *s, size_t len)
{
    if (!s) {
        raw(b, "-", 1);
        return;
    }
    raw_num(b, (long long)len);
    raw(b, ":", 1);
    raw(b, s, len);
}

static size_t bytes_room(const char *s, size_t len)
{
    return s ? len + 22 : 1;
}

/* room for "<key> " and more bytes, then the key written */
static bool begin(ctk_buf_t *b, const char *key, size_t more)
{
    size_t kl = strlen(key);

    if (!ctk_buf_reserve(b, kl + 1 + more))
        return false;
    raw(b, key, kl);
    raw(b, " ", 1);
    return true;
}

/* "<key> <str>\n" */
static void put_str(ctk_buf_t *b, const char *key, const char *s)
{
    size_t n = s ? strlen(s) : 0;

    if (!begin(b, key, bytes_room(s, n) + 1))
        return;
    raw_bytes(b, s, n);
    raw(b, "\n", 1);
}

/* "<key> <str of a char array>\n" */
static void put_array(ctk_buf_t *b, const char *key, const char *a, size_t size)
{
    size_t n = strnlen(a, size);

    if (!begin(b, key, bytes_room(a, n) + 1))
        return;
    raw_bytes(b, a, n);
    raw(b, "\n", 1);
}

static void put_version(ctk_buf_t *b, const ctk_version_t *v)
{
    if (begin(b, "version", 4 * 22 + 1)) {
        raw_num(b, v->major);
        raw(b, " ", 1);
        raw_num(b, v->minor);
        raw(b, " ", 1);
        raw_num(b, v->patch);
        raw(b, " ", 1);
        raw_num(b, (long long)v->source);
        raw(b, "\n", 1);
    }
    put_array(b, "version.path", v->path, sizeof v->path);
    put_array(b, "version.passed_over", v->passed_over, sizeof v->passed_over);
    put_array(b, "version.out_of_step", v->out_of_step, sizeof v->out_of_step);
}

/* "<key> <count>\n" */
static bool put_count(ctk_buf_t *b, const char *key, size_t n)
{
    if (!begin(b, key, 22 + 1))
        return false;
    raw_num(b, (long long)n);
    raw(b, "\n", 1);
    return true;
}

/* an item line: "  " and the strings, each after a blank but the first */
static void put_item(ctk_buf_t *b, const char *const *strs, size_t n)
{
    size_t i, len[3], room = 3;

    for (i = 0; i < n; i++) {
        len[i] = strs[i] ? strlen(strs[i]) : 0;
        room += bytes_room(strs[i], len[i]) + 1;
    }
    if (!ctk_buf_reserve(b, room))
        return;
    raw(b, "  ", 2);
    for (i = 0; i < n; i++) {
        if (i)
            raw(b, " ", 1);
        raw_bytes(b, strs[i], len[i]);
    }
    raw(b, "\n", 1);
}

static void put_list(ctk_buf_t *b, const char *key, const ctk_strlist_t *l)
{
    size_t i;

    if (!put_count(b, key, l->len))
        return;
    for (i = 0; i < l->len; i++)
        put_item(b, (const char *const *)&l->items[i], 1);
}

static void put_libs(ctk_buf_t *b, const ctk_sdk_t *s)
{
    size_t i;

    if (!put_count(b, "libs", s->n_libs))
        return;
    for (i = 0; i < s->n_libs; i++) {
        const char *item[3] = { s->libs[i].name, s->libs[i].libdir, s->libs[i].link };

        put_item(b, item, 3);
    }
}

static void put_versioned(ctk_buf_t *b, const ctk_sdk_t *s)
{
    size_t i;

    if (!put_count(b, "versioned", s->n_versioned))
        return;
    for (i = 0; i < s->n_versioned; i++) {
        const char *item[2] = { s->versioned[i].name, s->versioned[i].file };

        put_item(b, item, 2);
    }
}

char *ctk_sdkfacts_dump(const ctk_sdk_t *s, ctk_error_t *err)
{
    ctk_buf_t b;
    size_t i;

    ctk_buf_init(&b);
    ctk_buf_reserve(&b, 2048); /* a toolkit's record: one block, grown rarely */
    for (i = 0; i < N_MEMBERS && !b.failed; i++) {
        const struct member *m = &members[i];

        switch (m->kind) {
        case M_FORM:
            put_count(&b, m->key, FORM);
            break;
        case M_STR:
            put_str(&b, m->key, *str_field(s, m->off));
            break;
        case M_VERSION:
            put_version(&b, &s->version);
            break;
        case M_LIST:
            put_list(&b, m->key, list_field(s, m->off));
            break;
        case M_LIBS:
            put_libs(&b, s);
            break;
        case M_VERSIONED:
            put_versioned(&b, s);
            break;
        }
    }
    if (b.failed || !ctk_buf_append(&b, "", 0)) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return ctk_buf_take(&b, NULL);
}

/* ======================================================================
 * Reading
 * ====================================================================== */

/* The text being read, and where. */
typedef struct {
    const char *p, *end;
    const char *where; /* the member being read, for messages */
    ctk_error_t *err;
} cur_t;

static bool bad(cur_t *c, const char *what)
{
    if (!ctk_error_is_set(c->err))
        ctk_error_set(c->err, CTK_E_IO, NULL, 0, 0, "SDK facts: %s: %s", c->where, what);
    return false;
}

/* the literal s next */
static bool lit(cur_t *c, const char *s, size_t n)
{
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
        return false;
    c->p += n;
    return true;
}

/* "key " next: the member the form has here */
static bool key(cur_t *c, const char *k)
{
    c->where = k;
    if (!lit(c, k, strlen(k)) || !lit(c, " ", 1))
        return bad(c, "not the member the form has here");
    return true;
}

static bool nl(cur_t *c)
{
    return lit(c, "\n", 1) || bad(c, "more than the member holds");
}

/* An integer from lo to hi (lo <= hi, hi >= 0): an optional '-', then
 * digits without a needless leading zero, as put_num writes it. */
static bool num(cur_t *c, long long lo, long long hi, long long *out)
{
    bool neg = lit(c, "-", 1);
    unsigned long long v = 0, lim = neg ? (lo < 0 ? 0ULL - (unsigned long long)lo : 0) : (unsigned long long)hi;
    const char *start = c->p;

    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = (unsigned)(*c->p++ - '0');

        if (d > lim || v > (lim - d) / 10) /* v * 10 + d > lim, without wrapping */
            return bad(c, "a number out of range");
        v = v * 10 + d;
    }
    if (c->p == start || (*start == '0' && c->p - start > 1) || (neg && v == 0))
        return bad(c, "not a number");
    *out = neg ? -(long long)v : (long long)v;
    if (*out < lo)
        return bad(c, "a number out of range");
    return true;
}

/* A string ("<len>:<bytes>" without NUL, at most max bytes, or "-" when
 * null_ok) into *out (caller frees; NULL for "-"). */
static bool str(cur_t *c, bool null_ok, size_t max, char **out)
{
    long long n;

    *out = NULL;
    if (lit(c, "-", 1))
        return null_ok || bad(c, "no string, where one is needed");
    if (!num(c, 0, (long long)(max < (size_t)LLONG_MAX ? max : (size_t)LLONG_MAX), &n))
        return false;
    if (!lit(c, ":", 1) || (size_t)(c->end - c->p) < (size_t)n)
        return bad(c, "a string cut short");
    if (memchr(c->p, '\0', (size_t)n))
        return bad(c, "a string holding NUL");
    if (!(*out = ctk_strndup(c->p, (size_t)n, c->err)))
        return false;
    c->p += n;
    return true;
}

/* into a char array of size bytes */
static bool array(cur_t *c, char *a, size_t size)
{
    char *s;

    size_t n;

    if (!str(c, false, size - 1, &s))
        return false;
    n = strlen(s);
    memcpy(a, s, n + 1); /* past the NUL a is not read (blank()) */
    free(s);
    return true;
}

static bool get_int(cur_t *c, int *out)
{
    long long v;

    if (!num(c, INT_MIN, INT_MAX, &v))
        return false;
    *out = (int)v;
    return true;
}

static bool get_version(cur_t *c, ctk_version_t *v)
{
    long long src;

    if (!key(c, "version") || !get_int(c, &v->major) || !lit(c, " ", 1) || !get_int(c, &v->minor) ||
        !lit(c, " ", 1) || !get_int(c, &v->patch) || !lit(c, " ", 1) ||
        !num(c, CTK_VSRC_NONE, CTK_VSRC_NVCC, &src) || !nl(c))
        return bad(c, "not four numbers");
    v->source = (ctk_version_source_t)src;
    return key(c, "version.path") && array(c, v->path, sizeof v->path) && nl(c) &&
           key(c, "version.passed_over") && array(c, v->passed_over, sizeof v->passed_over) &&
           nl(c) && key(c, "version.out_of_step") &&
           array(c, v->out_of_step, sizeof v->out_of_step);
}

/* "<count>", then count items each on a line of its own after two blanks;
 * a count no larger than the text could hold */
static bool count(cur_t *c, size_t *n)
{
    long long v;

    if (!num(c, 0, (long long)(c->end - c->p) / 4, &v))
        return false;
    *n = (size_t)v;
    return true;
}

static bool item(cur_t *c)
{
    return lit(c, "\n  ", 3) || bad(c, "fewer items than its count");
}

static bool get_list(cur_t *c, const char *k, ctk_strlist_t *l)
{
    size_t n, i;

    if (!key(c, k) || !count(c, &n))
        return false;
    for (i = 0; i < n; i++) {
        char *s;

        if (!item(c) || !str(c, false, SIZE_MAX, &s) || !ctk_strlist_take(l, s, c->err))
            return false;
    }
    return true;
}

/* a name of table, as its index: a string compared where it lies */
static bool name_in(cur_t *c, const char *(*table)(size_t), size_t *t)
{
    const char *name;
    long long n;

    if (!num(c, 0, 64, &n) || !lit(c, ":", 1) || (size_t)(c->end - c->p) < (size_t)n)
        return bad(c, "not a library name");
    name = c->p;
    c->p += n;
    for (*t = 0; table(*t); (*t)++)
        if (strlen(table(*t)) == (size_t)n && memcmp(table(*t), name, (size_t)n) == 0)
            return true;
    *t = SIZE_MAX;
    return bad(c, "not a library ctkgen knows");
}

static bool get_libs(cur_t *c, ctk_sdk_t *s)
{
    size_t n, i, t;

    if (!key(c, "libs") || !count(c, &n))
        return false;
    if (n == 0)
        return true;
    if (!(s->libs = calloc(n, sizeof *s->libs))) {
        ctk_error_nomem(c->err);
        return false;
    }
    s->n_libs = n; /* zeroed: ctk_sdk_free frees what is filled */
    for (i = 0; i < n; i++) {
        ctk_sdk_lib_t *l = &s->libs[i];

        if (!item(c) || !name_in(c, ctk_sdk_lib_name, &t))
            return false;
        if (!ctk_sdk_lib_describe(t, l))
            return bad(c, "not a library ctkgen knows");
        if (!lit(c, " ", 1) || !str(c, true, SIZE_MAX, &l->libdir) || !lit(c, " ", 1) ||
            !str(c, true, SIZE_MAX, &l->link))
            return bad(c, "not a name, a dir and a link");
    }
    return true;
}

static bool get_versioned(cur_t *c, ctk_sdk_t *s)
{
    size_t n, i, t;

    if (!key(c, "versioned") || !count(c, &n))
        return false;
    if (n == 0)
        return true;
    if (!(s->versioned = calloc(n, sizeof *s->versioned))) {
        ctk_error_nomem(c->err);
        return false;
    }
    s->n_versioned = n;
    for (i = 0; i < n; i++) {
        ctk_sdk_versioned_t *v = &s->versioned[i];

        if (!item(c) || !name_in(c, ctk_sdk_link_name, &t))
            return false;
        v->name = ctk_sdk_link_name(t);
        if (!lit(c, " ", 1) || !str(c, true, SIZE_MAX, &v->file))
            return bad(c, "not a name and a file");
    }
    return true;
}

static bool get_member(cur_t *c, const struct member *m, ctk_sdk_t *s)
{
    long long form;

    switch (m->kind) {
    case M_FORM:
        return key(c, m->key) && num(c, FORM, FORM, &form);
    case M_STR:
        return key(c, m->key) && str(c, true, SIZE_MAX, str_slot(s, m->off));
    case M_VERSION:
        return get_version(c, &s->version);
    case M_LIST:
        return get_list(c, m->key, list_slot(s, m->off));
    case M_LIBS:
        return get_libs(c, s);
    case M_VERSIONED:
        return get_versioned(c, s);
    }
    return false;
}

/* A record of nothing, as calloc would make it, but for the version's
 * strings, which are empty but not cleared to their ends (6 KB a
 * toolkit, filled from the text up to their NUL, and read only so far:
 * same_array(), put_array(), the templates' data). */
_Static_assert(offsetof(ctk_version_t, passed_over) == offsetof(ctk_version_t, path) + 4096 &&
                   offsetof(ctk_version_t, out_of_step) == offsetof(ctk_version_t, passed_over) + 512 &&
                   offsetof(ctk_version_t, out_of_step) + 1536 == sizeof(ctk_version_t),
               "ctk_version_t's strings are no longer its last fields, one after another: "
               "update blank() in sdkfacts.c");

static void blank(ctk_sdk_t *s)
{
    char *p = (char *)s, *lo = s->version.path;
    char *hi = s->version.out_of_step + sizeof s->version.out_of_step;

    memset(p, 0, (size_t)(lo - p));
    memset(hi, 0, (size_t)((char *)(s + 1) - hi));
    s->version.path[0] = s->version.passed_over[0] = s->version.out_of_step[0] = '\0';
}

ctk_sdk_t *ctk_sdkfacts_load(const ctk_sdk_conf_t *conf, const char *text, size_t len, ctk_error_t *err)
{
    cur_t c = { text, text + len, "the text", err };
    ctk_sdk_t *s;
    size_t i;

    if (!(s = malloc(sizeof *s))) {
        ctk_error_nomem(err);
        return NULL;
    }
    blank(s);
    s->conf = conf;
    ctk_strlist_init(&s->path);
    ctk_strlist_init(&s->ld_library_path);
    ctk_strlist_init(&s->library_path);
    ctk_strlist_init(&s->cpath);
    ctk_strlist_init(&s->manpath);
    for (i = 0; i < N_MEMBERS; i++)
        if (!get_member(&c, &members[i], s) || !nl(&c))
            goto fail;
    c.where = "the text";
    if (c.p == c.end)
        return s;
    bad(&c, "more after its last member");
fail:
    if (!ctk_error_is_set(err))
        bad(&c, "not SDK facts");
    ctk_sdk_free(s);
    return NULL;
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
