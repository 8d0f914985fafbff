/* check_sdkfacts.c - unit tests for the text form of SDK records (sdkfacts.c).
 * SPDX-License-Identifier: MIT
 *
 * Records come from ctk_sdk_load() on the real toolkit, on the layouts
 * tests/fixtures.sh builds from it and on tiny fake trees, and from a
 * record made here with every field set (every library of sdk.c's
 * tables, strings that are not UTF-8, arrays filled to their last byte).
 * Each must come back from its text equal and give the same text again;
 * a change to any one field must show in the comparison and the text;
 * text that is not the form must be refused.  The field lists below are
 * checked against sdk.h itself, so a field added there and forgotten here
 * or in sdkfacts.c fails the suite.
 */
#include <ctkconf.h>

#include "failmalloc.h"
#include "sdk.h"
#include "sdkfacts.h"
#include "testutil.h"

#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__aarch64__)
#define HPC_ARCH_DIR "Linux_aarch64"
#else
#define HPC_ARCH_DIR "Linux_x86_64"
#endif

#define keep tu_keep
#define S tu_str

static char *g_tmp;
static char g_mm[16]; /* the real toolkit's X.Y */

static void setup(void)
{
    g_tmp = tu_scratch();
}

static void teardown(void)
{
    tu_scratch_end(&g_tmp);
}

static char *wr(const char *rel, const char *text)
{
    return keep(tu_write(g_tmp, rel, text));
}

static void wrx(const char *rel, const char *text)
{
    ck_assert_int_eq(chmod(wr(rel, text), 0755), 0);
}

static void lnk(const char *target, const char *rel)
{
    ck_assert_int_eq(symlink(target, S("%s/%s", g_tmp, rel)), 0);
}

/* A fake toolkit g_tmp/rel (tu_fake_toolkit). */
static char *fake_toolkit(const char *rel, const char *json, int cudart)
{
    return keep(tu_fake_toolkit(g_tmp, rel, json, cudart));
}

static void conf_init(ctk_sdk_conf_t *c, const char *version, const char *base)
{
    memset(c, 0, sizeof *c);
    c->version = (char *)version;
    c->base = (char *)base;
    snprintf(c->jpath, sizeof c->jpath, "/sdks/0");
}

static ctk_sdk_t *load_ok(const ctk_sdk_conf_t *c)
{
    ctk_error_t e;
    ctk_sdk_t *sdk;

    ctk_error_init(&e);
    sdk = ctk_sdk_load(c, "site.json", &e);
    ck_assert_msg(sdk != NULL, "ctk_sdk_load: %s", e.text);
    return sdk;
}

static char *dump_ok(const ctk_sdk_t *sdk)
{
    ctk_error_t e;
    char *t;

    ctk_error_init(&e);
    t = ctk_sdkfacts_dump(sdk, &e);
    ck_assert_msg(t != NULL, "dump: %s", e.text);
    ck_assert_int_eq(e.code, CTK_E_OK);
    return t;
}

static ctk_sdk_t *facts_ok(const ctk_sdk_conf_t *c, const char *text)
{
    ctk_error_t e;
    ctk_sdk_t *sdk;

    ctk_error_init(&e);
    sdk = ctk_sdkfacts_load(c, text, strlen(text), &e);
    ck_assert_msg(sdk != NULL, "load: %s\n%s", e.text, text);
    ck_assert_ptr_eq(sdk->conf, c);
    return sdk;
}

/* dump -> load -> equal both ways; the loaded record dumps to the same
 * bytes; library names, labels and descriptions are sdk.c's own strings */
static void assert_round_trip(const ctk_sdk_t *sdk)
{
    char *t1 = dump_ok(sdk), *t2, *t3;
    ctk_sdk_t *back;
    size_t i;

    ck_assert(ctk_sdkfacts_equal(sdk, sdk));
    back = facts_ok(sdk->conf, t1);
    ck_assert_msg(ctk_sdkfacts_equal(sdk, back), "not equal after the round trip:\n%s", t1);
    ck_assert(ctk_sdkfacts_equal(back, sdk));
    t2 = dump_ok(back);
    ck_assert_str_eq(t1, t2);
    t3 = dump_ok(sdk);
    ck_assert_str_eq(t1, t3);
    for (i = 0; i < back->n_libs; i++) {
        ck_assert_ptr_eq(back->libs[i].name, sdk->libs[i].name);
        ck_assert_ptr_eq(back->libs[i].label, sdk->libs[i].label);
        ck_assert_ptr_eq(back->libs[i].description, sdk->libs[i].description);
    }
    for (i = 0; i < back->n_versioned; i++)
        ck_assert_ptr_eq(back->versioned[i].name, sdk->versioned[i].name);
    free(t1);
    free(t2);
    free(t3);
    ctk_sdk_free(back);
}

/* ==== the fields, as this test knows them ========================================== */

#define F(name) {#name, offsetof(ctk_sdk_t, name)}
static const struct {
    const char *key;
    size_t off;
} str_fields[] = {
    F(module_version), F(version_mm),     F(version_full),   F(root),           F(bindir),
    F(nvcc),           F(incdir),         F(cccl_incdir),    F(libdir),         F(stubsdir),
    F(mandir),         F(math_incdir),    F(math_libdir),    F(nvvm_root),      F(nvvm_incdir),
    F(nvvm_libdir),    F(cupti_incdir),   F(cupti_libdir),   F(nccl_incdir),    F(nccl_libdir),
    F(nvshmem_incdir), F(nvshmem_libdir), F(nvshmem_bindir),
};
static const struct {
    const char *key;
    size_t off;
} list_fields[] = {F(path), F(ld_library_path), F(library_path), F(cpath), F(manpath)};
#undef F
#define N_STR (sizeof str_fields / sizeof str_fields[0])
#define N_LIST (sizeof list_fields / sizeof list_fields[0])

/* ctk_sdk_t's fields that are neither: the record's own structure */
static const char *const other_sdk_fields[] = {"conf", "version", "libs", "n_libs", "versioned", "n_versioned"};
static const char *const version_fields[] = {"major", "minor", "patch", "source", "path", "passed_over", "out_of_step"};
static const char *const lib_fields[] = {"name", "libdir", "link"};        /* in the text */
static const char *const lib_table_fields[] = {"label", "description", "math"}; /* from sdk.c's table */
static const char *const versioned_fields[] = {"name", "file"};

static char **str_at(ctk_sdk_t *s, size_t i)
{
    return (char **)(void *)((char *)s + str_fields[i].off);
}

static ctk_strlist_t *list_at(ctk_sdk_t *s, size_t i)
{
    return (ctk_strlist_t *)(void *)((char *)s + list_fields[i].off);
}

/* The fields of `typedef struct { ... } name;` in text, space separated. */
static char *struct_fields(const char *text, const char *name)
{
    const char *end = strstr(text, S("} %s;", name)), *start = NULL, *p;
    char *body, *q, *decl, *save = NULL, out[4096] = "";

    ck_assert_msg(end != NULL, "sdk.h has no %s", name);
    for (p = text; (p = strstr(p, "typedef struct {")) && p < end; p++)
        start = p + strlen("typedef struct {");
    ck_assert_ptr_nonnull(start);
    body = keep(strndup(start, (size_t)(end - start)));
    /* comments and array sizes out */
    while ((q = strstr(body, "/*"))) {
        char *c = strstr(q, "*/");

        ck_assert_ptr_nonnull(c);
        memmove(q, c + 2, strlen(c + 2) + 1);
    }
    while ((q = strchr(body, '['))) {
        char *c = strchr(q, ']');

        ck_assert_ptr_nonnull(c);
        memmove(q, c + 1, strlen(c + 1) + 1);
    }
    for (decl = strtok_r(body, ";", &save); decl; decl = strtok_r(NULL, ";", &save)) {
        char *part, *save2 = NULL;

        for (part = strtok_r(decl, ",", &save2); part; part = strtok_r(NULL, ",", &save2)) {
            char *e = part + strlen(part), *b;

            while (e > part && !(e[-1] == '_' || (e[-1] >= 'a' && e[-1] <= 'z') ||
                                 (e[-1] >= 'A' && e[-1] <= 'Z') || (e[-1] >= '0' && e[-1] <= '9')))
                e--;
            for (b = e; b > part && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') ||
                                     (b[-1] >= 'A' && b[-1] <= 'Z') || (b[-1] >= '0' && b[-1] <= '9'));)
                b--;
            if (b == e)
                continue;
            snprintf(out + strlen(out), sizeof out - strlen(out), "%s%.*s", out[0] ? " " : "",
                     (int)(e - b), b);
        }
    }
    return S("%s", out);
}

/* names, space separated, from the given lists in order */
static char *names_of(const char *const *a, size_t n, const char *const *b, size_t nb)
{
    char out[4096] = "";
    size_t i;

    for (i = 0; i < n; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", out[0] ? " " : "", a[i]);
    for (i = 0; i < nb; i++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", out[0] ? " " : "", b[i]);
    return S("%s", out);
}

static bool has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    const char *p;

    for (p = list; (p = strstr(p, w)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* ==== a record with every field set ================================================ */

static ctk_sdk_conf_t g_conf;

static char *xdup(const char *s)
{
    char *d = strdup(s);

    ck_assert_ptr_nonnull(d);
    return d;
}

static void push(ctk_strlist_t *l, const char *s)
{
    ck_assert(ctk_strlist_push(l, s, NULL));
}

/* Allocated as ctk_sdk_load() allocates, so ctk_sdk_free() frees it. */
static ctk_sdk_t *full_record(void)
{
    ctk_sdk_t *s = calloc(1, sizeof *s);
    const char *name;
    size_t i;

    ck_assert_ptr_nonnull(s);
    conf_init(&g_conf, "12.4", "/opt/cuda");
    s->conf = &g_conf;
    for (i = 0; i < N_LIST; i++)
        ctk_strlist_init(list_at(s, i));
    for (i = 0; i < N_STR; i++)
        *str_at(s, i) = xdup(S("/opt/cuda-12.4/%s", str_fields[i].key));
    free(s->root); /* bytes that are not UTF-8, quotes, backslashes, control bytes */
    s->root = xdup("/opt/\xff\xfe-\"q\"\\\n\t\x01\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    free(s->nvcc);
    s->nvcc = xdup("/opt/\xc3/\xed\xa0\x80/\xf4\x90\x80\x80/\xc0\xaf/nvcc"); /* cut, surrogate, > U+10FFFF, overlong */
    s->version.major = 12;
    s->version.minor = 4;
    s->version.patch = 7;
    s->version.source = CTK_VSRC_VERSION_TXT;
    memset(s->version.path, 'p', sizeof s->version.path - 1); /* the longest that fits */
    s->version.path[0] = '/';
    memset(s->version.passed_over, '\xff', sizeof s->version.passed_over - 1);
    snprintf(s->version.out_of_step, sizeof s->version.out_of_step, "version.json says \"12.5\"\n\xe9");
    for (i = 0; i < N_LIST; i++) {
        push(list_at(s, i), S("/a/%s", list_fields[i].key));
        push(list_at(s, i), S("/b/%s", list_fields[i].key));
        push(list_at(s, i), "");
        push(list_at(s, i), "/c/\xfe");
    }
    for (i = 0; ctk_sdk_lib_name(i); i++)
        ;
    s->libs = calloc(i, sizeof *s->libs);
    ck_assert_ptr_nonnull(s->libs);
    for (s->n_libs = 0; s->n_libs < i; s->n_libs++) {
        ctk_sdk_lib_t *l = &s->libs[s->n_libs];

        ck_assert(ctk_sdk_lib_describe(s->n_libs, l));
        l->libdir = xdup(S("/opt/lib/%s", l->name));
        l->link = xdup(S("-l%s -lextra", l->name));
    }
    for (i = 0; ctk_sdk_link_name(i); i++)
        ;
    s->versioned = calloc(i, sizeof *s->versioned);
    ck_assert_ptr_nonnull(s->versioned);
    for (s->n_versioned = 0; (name = ctk_sdk_link_name(s->n_versioned)); s->n_versioned++) {
        s->versioned[s->n_versioned].name = name;
        s->versioned[s->n_versioned].file = xdup(S("/opt/lib/lib%s.so.13", name));
    }
    return s;
}

static void set(char **slot, const char *v)
{
    free(*slot);
    *slot = v ? xdup(v) : NULL;
}

START_TEST(test_full_record_round_trips)
{
    ctk_sdk_t *s = full_record();
    char *t = dump_ok(s);

    ck_assert_uint_gt(s->n_libs, 5);
    ck_assert_uint_gt(s->n_versioned, 20);
    ck_assert_msg(strncmp(t, "sdkfacts 2\nmodule_version ", 26) == 0, "%.40s", t);
    /* each string is its length, a colon and its bytes as they are: bytes
     * that are not UTF-8, control bytes and newlines included */
    ck_assert_ptr_nonnull(strstr(t, S("\nroot %zu:%s\n", strlen(s->root), s->root)));
    ck_assert_ptr_nonnull(strstr(t, S("\nnvcc %zu:%s\n", strlen(s->nvcc), s->nvcc)));
    ck_assert_ptr_nonnull(strstr(t, S("\nversion_mm %zu:%s\n", strlen(s->version_mm), s->version_mm)));
    ck_assert_ptr_nonnull(strstr(t, "\nversion 12 4 7 2\nversion.path 4095:/ppp"));
    ck_assert_ptr_nonnull(strstr(t, S("\nversion.passed_over 511:%s\n", s->version.passed_over)));
    ck_assert_ptr_nonnull(strstr(t, S("\nversion.out_of_step %zu:%s\n", strlen(s->version.out_of_step),
                                      s->version.out_of_step)));
    ck_assert_ptr_nonnull(strstr(t, S("\ncpath 4\n  8:/a/cpath\n  8:/b/cpath\n  0:\n  4:/c/\xfe\nmanpath 4\n")));
    ck_assert_ptr_nonnull(strstr(t, S("\nlibs %zu\n  6:cudart 15:/opt/lib/cudart 16:-lcudart -lextra\n", s->n_libs)));
    ck_assert_ptr_nonnull(strstr(t, S("\n  4:npps 22:/opt/lib/libnpps.so.13\n")));
    ck_assert_uint_eq(t[strlen(t) - 1], '\n');
    assert_round_trip(s);
    free(t);
    /* NULL, "" and an empty list each have their own spelling */
    set(&s->stubsdir, NULL);
    set(&s->mandir, "");
    while (s->manpath.len)
        free(s->manpath.items[--s->manpath.len]);
    t = dump_ok(s);
    ck_assert_ptr_nonnull(strstr(t, "\nstubsdir -\nmandir 0:\n"));
    ck_assert_ptr_nonnull(strstr(t, "\nmanpath 0\nlibs "));
    assert_round_trip(s);
    free(t);
    ctk_sdk_free(s);
}
END_TEST

/* ==== every field matters =========================================================== */

/* Mutation k of s (a copy of full_record()); false past the last.  *what
 * names it; *in_text is false for what the text does not hold (a library's
 * label, description and math come from sdk.c's table by its name). */
static bool mutate(ctk_sdk_t *s, int k, const char **what, bool *in_text)
{
    size_t i;
    char *t;

    *in_text = true;
    for (i = 0; i < N_STR; i++) {
        if (k < 3) {
            *what = S("%s %s", str_fields[i].key, k == 0 ? "changed" : k == 1 ? "NULL" : "\"\"");
            set(str_at(s, i), k == 0 ? "/elsewhere" : k == 1 ? NULL : "");
            return true;
        }
        k -= 3;
    }
    switch (k) {
    case 0: *what = "version.major"; s->version.major++; return true;
    case 1: *what = "version.minor"; s->version.minor++; return true;
    case 2: *what = "version.patch -1"; s->version.patch = -1; return true;
    case 3: *what = "version.patch +1"; s->version.patch++; return true;
    case 4: *what = "version.source"; s->version.source = CTK_VSRC_HEADER; return true;
    case 5: *what = "version.path last byte"; s->version.path[sizeof s->version.path - 2] = 'q'; return true;
    case 6: *what = "version.path \"\""; s->version.path[0] = '\0'; return true;
    case 7: *what = "version.passed_over"; s->version.passed_over[0] = 'x'; return true;
    case 8: *what = "version.passed_over \"\""; s->version.passed_over[0] = '\0'; return true;
    case 9: *what = "version.out_of_step"; s->version.out_of_step[0] = 'V'; return true;
    case 10: *what = "version.out_of_step \"\""; s->version.out_of_step[0] = '\0'; return true;
    }
    k -= 11;
    for (i = 0; i < N_LIST; i++) {
        ctk_strlist_t *l = list_at(s, i);

        if ((size_t)k < l->len) {
            *what = S("%s[%d]", list_fields[i].key, k);
            t = S("%s/x", l->items[k]);
            set(&l->items[k], t);
            return true;
        }
        k -= (int)l->len;
        switch (k) {
        case 0:
            *what = S("%s: last dropped", list_fields[i].key);
            free(l->items[--l->len]);
            return true;
        case 1:
            *what = S("%s: one more", list_fields[i].key);
            push(l, "/more");
            return true;
        case 2:
            *what = S("%s: first two swapped", list_fields[i].key);
            t = l->items[0];
            l->items[0] = l->items[1];
            l->items[1] = t;
            return true;
        case 3:
            *what = S("%s: emptied", list_fields[i].key);
            while (l->len)
                free(l->items[--l->len]);
            return true;
        }
        k -= 4;
    }
    for (i = 0; i < s->n_libs; i++) {
        ctk_sdk_lib_t *l = &s->libs[i];

        switch (k) {
        case 0: *what = S("libs[%zu].libdir", i); set(&l->libdir, "/other"); return true;
        case 1: *what = S("libs[%zu].libdir NULL", i); set(&l->libdir, NULL); return true;
        case 2: *what = S("libs[%zu].link", i); set(&l->link, "-lother"); return true;
        case 3: *what = S("libs[%zu].link \"\"", i); set(&l->link, ""); return true;
        case 4:
            *what = S("libs[%zu] another library", i);
            ck_assert(ctk_sdk_lib_describe((i + 1) % s->n_libs, l));
            return true;
        case 5: *what = S("libs[%zu].label", i); *in_text = false; l->label = "Other"; return true;
        case 6: *what = S("libs[%zu].description", i); *in_text = false; l->description = "Other"; return true;
        case 7: *what = S("libs[%zu].math", i); *in_text = false; l->math = !l->math; return true;
        }
        k -= 8;
    }
    switch (k) {
    case 0:
        *what = "libs: last dropped";
        s->n_libs--;
        free(s->libs[s->n_libs].libdir);
        free(s->libs[s->n_libs].link);
        return true;
    case 1: {
        ctk_sdk_lib_t l = s->libs[0];

        *what = "libs: first two swapped";
        s->libs[0] = s->libs[1];
        s->libs[1] = l;
        return true;
    }
    }
    k -= 2;
    for (i = 0; i < s->n_versioned; i++) {
        switch (k) {
        case 0: *what = S("versioned[%zu].file", i); set(&s->versioned[i].file, "/f"); return true;
        case 1: *what = S("versioned[%zu].file NULL", i); set(&s->versioned[i].file, NULL); return true;
        case 2:
            *what = S("versioned[%zu] another name", i);
            s->versioned[i].name = ctk_sdk_link_name((i + 1) % s->n_versioned);
            return true;
        }
        k -= 3;
    }
    switch (k) {
    case 0:
        *what = "versioned: last dropped";
        free(s->versioned[--s->n_versioned].file);
        return true;
    case 1: {
        ctk_sdk_versioned_t v = s->versioned[0];

        *what = "versioned: first two swapped";
        s->versioned[0] = s->versioned[1];
        s->versioned[1] = v;
        return true;
    }
    }
    return false;
}

START_TEST(test_every_field_changes_the_comparison_and_the_text)
{
    ctk_sdk_t *base = full_record();
    char *base_text = dump_ok(base);
    int k, n_text = 0, n_table = 0;

    for (k = 0;; k++) {
        ctk_sdk_t *m = facts_ok(&g_conf, base_text);
        const char *what = NULL;
        bool in_text;
        char *t;

        ck_assert(ctk_sdkfacts_equal(base, m));
        if (!mutate(m, k, &what, &in_text)) {
            ctk_sdk_free(m);
            break;
        }
        ck_assert_msg(!ctk_sdkfacts_equal(base, m), "%s: still equal", what);
        ck_assert_msg(!ctk_sdkfacts_equal(m, base), "%s: still equal (other way)", what);
        t = dump_ok(m);
        if (in_text) {
            ck_assert_msg(strcmp(t, base_text) != 0, "%s: same text", what);
            assert_round_trip(m);
            n_text++;
        } else {
            ck_assert_msg(strcmp(t, base_text) == 0, "%s: in the text", what);
            n_table++;
        }
        free(t);
        ctk_sdk_free(m);
    }
    ck_assert_int_eq(n_table, 3 * (int)base->n_libs);
    ck_assert_int_eq(n_text, 3 * (int)N_STR + 11 + (int)N_LIST * (4 + 4) + 5 * (int)base->n_libs + 2 +
                                 3 * (int)base->n_versioned + 2);
    free(base_text);
    ctk_sdk_free(base);
}
END_TEST

START_TEST(test_equal_tells_null_from_empty_and_null_records)
{
    ctk_sdk_t *a = full_record(), *b = full_record();

    ck_assert(ctk_sdkfacts_equal(a, b));
    set(&a->stubsdir, NULL);
    set(&b->stubsdir, "");
    ck_assert(!ctk_sdkfacts_equal(a, b));
    set(&b->stubsdir, NULL);
    ck_assert(ctk_sdkfacts_equal(a, b));
    ck_assert(ctk_sdkfacts_equal(NULL, NULL));
    ck_assert(!ctk_sdkfacts_equal(a, NULL));
    ck_assert(!ctk_sdkfacts_equal(NULL, a));
    ctk_sdk_free(a);
    ctk_sdk_free(b);
}
END_TEST

/* The line of the text that member key starts, to its end ("" when none). */
static char *member_line(const char *t, const char *key)
{
    const char *p = strncmp(t, S("%s ", key), strlen(key) + 1) == 0 ? t : strstr(t, S("\n%s ", key));

    if (!p)
        return S("%s", "");
    if (p != t)
        p++;
    return S("%.*s", (int)strcspn(p, "\n"), p);
}

/* A field added to sdk.h and left out of the lists above (and so, through
 * the sums in sdkfacts.c, of sdkfacts.c) fails here: each field of each
 * record is named in the text, or is the record's own structure. */
START_TEST(test_every_field_of_sdk_h_is_in_the_text)
{
    char *path = keep(tu_srcpath("generator/model/sdk.h"));
    char *h = keep(tu_read(path));
    const char *str_keys[N_STR], *list_keys[N_LIST];
    ctk_sdk_t *s = full_record();
    char *t = keep(dump_ok(s)), *fields, *line;
    size_t i;

    for (i = 0; i < N_STR; i++)
        str_keys[i] = str_fields[i].key;
    for (i = 0; i < N_LIST; i++)
        list_keys[i] = list_fields[i].key;
    ck_assert_ptr_nonnull(h);
    fields = struct_fields(h, "ctk_sdk_t");
    ck_assert_str_eq(fields, S("conf module_version version version_mm version_full root bindir nvcc incdir "
                               "cccl_incdir libdir stubsdir mandir math_incdir math_libdir nvvm_root "
                               "nvvm_incdir nvvm_libdir cupti_incdir cupti_libdir nccl_incdir nccl_libdir "
                               "nvshmem_incdir nvshmem_libdir nvshmem_bindir path ld_library_path "
                               "library_path cpath manpath libs n_libs versioned n_versioned"));
    for (i = 0; i < N_STR; i++)
        ck_assert_msg(has_word(fields, str_keys[i]), "%s", str_keys[i]);
    /* each field of sdk.h is one of ours, and each of ours is in the text */
    {
        char *ours = S("%s %s %s", names_of(str_keys, N_STR, list_keys, N_LIST),
                       names_of(other_sdk_fields, 6, NULL, 0), "");
        char *f = S("%s", fields), *w, *save = NULL;

        for (w = strtok_r(f, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
            ck_assert_msg(has_word(ours, w), "ctk_sdk_t.%s is new: add it to check_sdkfacts.c and sdkfacts.c", w);
            if (strcmp(w, "conf") && strcmp(w, "n_libs") && strcmp(w, "n_versioned"))
                ck_assert_msg(member_line(t, w)[0] != '\0', "ctk_sdk_t.%s is not in the text", w);
        }
        ck_assert_msg(strstr(t, "conf") == NULL, "conf is in the text");
    }
    /* the version: its four numbers on its line, in sdk.h's order, and
     * each of its arrays a member of its own */
    fields = struct_fields(h, "ctk_version_t");
    ck_assert_str_eq(fields, names_of(version_fields, 7, NULL, 0));
    ck_assert_str_eq(member_line(t, "version"), "version 12 4 7 2");
    for (i = 4; i < 7; i++)
        ck_assert_msg(member_line(t, S("version.%s", version_fields[i]))[0] != '\0', "version.%s",
                      version_fields[i]);
    /* a library: its name, libdir and link, and no more (label,
     * description and math come from sdk.c's table) */
    fields = struct_fields(h, "ctk_sdk_lib_t");
    ck_assert_str_eq(fields, "name label description math libdir link");
    for (i = 0; i < 3; i++)
        ck_assert_msg(has_word(fields, lib_fields[i]) && has_word(fields, lib_table_fields[i]), "libs[].%s %s",
                      lib_fields[i], lib_table_fields[i]);
    line = strstr(t, S("\nlibs %zu\n", s->n_libs));
    ck_assert_ptr_nonnull(line);
    line = strchr(line + 1, '\n') + 1;
    ck_assert_str_eq(S("%.*s", (int)strcspn(line, "\n"), line), "  6:cudart 15:/opt/lib/cudart 16:-lcudart -lextra");
    for (i = 0; i < s->n_libs; i++)
        ck_assert_msg(!strstr(t, s->libs[i].description), "%s", s->libs[i].description);
    /* a versioned library: its name and file */
    fields = struct_fields(h, "ctk_sdk_versioned_t");
    ck_assert_str_eq(fields, names_of(versioned_fields, 2, NULL, 0));
    ck_assert_ptr_nonnull(strstr(t, S("\nversioned %zu\n  6:cudart 24:/opt/lib/libcudart.so.13\n", s->n_versioned)));
    ctk_sdk_free(s);
}
END_TEST

/* ==== bad text ====================================================================== */

/* Texts to load: n bytes at p (a NUL among them or not), owned. */
typedef struct {
    char *p;
    size_t n;
} text_t;

static text_t text_of(const char *p, size_t n)
{
    text_t t = {malloc(n + 1), n};

    ck_assert_ptr_nonnull(t.p);
    memcpy(t.p, p, n);
    t.p[n] = '\0';
    return t;
}

/* t with its bytes [off, off + cut) replaced by ins[0..nins) */
static text_t spliced(text_t t, size_t off, size_t cut, const char *ins, size_t nins)
{
    text_t r;

    ck_assert_uint_le(off + cut, t.n);
    r.n = t.n - cut + nins;
    r.p = malloc(r.n + 1);
    ck_assert_ptr_nonnull(r.p);
    memcpy(r.p, t.p, off);
    memcpy(r.p + off, ins, nins);
    memcpy(r.p + off + nins, t.p + off + cut, t.n - off - cut);
    r.p[r.n] = '\0';
    return r;
}

/* A short formatted string, in one of a few buffers used in turn: good
 * until the eighth call after. */
static const char *W(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *W(const char *fmt, ...)
{
    static char buf[8][1024];
    static unsigned next;
    char *b = buf[next++ % 8];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(b, sizeof buf[0], fmt, ap);
    va_end(ap);
    ck_assert_int_lt(n, (int)sizeof buf[0]);
    return b;
}

/* The members of the text, in their order: the keys its lines start with. */
#define N_KEYS (1 + N_STR + 4 + N_LIST + 2)
static const char *g_keys[N_KEYS];

static void fill_keys(void)
{
    size_t i, k = 0;

    g_keys[k++] = "sdkfacts";
    g_keys[k++] = str_fields[0].key; /* module_version */
    g_keys[k++] = "version";
    g_keys[k++] = "version.path";
    g_keys[k++] = "version.passed_over";
    g_keys[k++] = "version.out_of_step";
    for (i = 1; i < N_STR; i++)
        g_keys[k++] = str_fields[i].key;
    for (i = 0; i < N_LIST; i++)
        g_keys[k++] = list_fields[i].key;
    g_keys[k++] = "libs";
    g_keys[k++] = "versioned";
    ck_assert_uint_eq(k, N_KEYS);
    ck_assert_str_eq(str_fields[0].key, "module_version");
}

static size_t key_index(const char *key)
{
    size_t i;

    for (i = 0; i < N_KEYS; i++)
        if (strcmp(g_keys[i], key) == 0)
            return i;
    ck_abort_msg("%s is no member", key);
    return 0;
}

/* where the line of member key starts: the one line that starts "key " */
static size_t member_start(text_t t, const char *key)
{
    size_t k = strlen(key), i, at = 0, hits = 0;

    for (i = 0; i + k < t.n; i++)
        if ((i == 0 || t.p[i - 1] == '\n') && memcmp(t.p + i, key, k) == 0 && t.p[i + k] == ' ') {
            at = i;
            hits++;
        }
    ck_assert_msg(hits == 1, "%s: %zu lines", key, hits);
    return at;
}

/* where member key ends: after its last "\n" */
static size_t member_end(text_t t, const char *key)
{
    size_t i = key_index(key);

    return i + 1 < N_KEYS ? member_start(t, g_keys[i + 1]) : t.n;
}

/* the value of member key: after "key ", to its last "\n" (items included) */
static void value_span(text_t t, const char *key, size_t *off, size_t *len)
{
    *off = member_start(t, key) + strlen(key) + 1;
    *len = member_end(t, key) - 1 - *off;
}

static text_t with_value(text_t t, const char *key, const char *v, size_t nv)
{
    size_t off, len;

    value_span(t, key, &off, &len);
    return spliced(t, off, len, v, nv);
}

static text_t with_valuez(text_t t, const char *key, const char *v)
{
    return with_value(t, key, v, strlen(v));
}

/* a list's count, libs' or versioned's, replaced */
static text_t with_count(text_t t, const char *key, const char *v)
{
    size_t off, len;

    value_span(t, key, &off, &len);
    return spliced(t, off, strcspn(t.p + off, "\n"), v, strlen(v));
}

static text_t without_member(text_t t, const char *key)
{
    size_t off = member_start(t, key);

    return spliced(t, off, member_end(t, key) - off, "", 0);
}

static text_t with_key(text_t t, const char *key, const char *k)
{
    return spliced(t, member_start(t, key), strlen(key), k, strlen(k));
}

/* item i of member key: the bytes after its "\n  ", to the end of its line */
static void item_span(text_t t, const char *key, size_t i, size_t *off, size_t *len)
{
    size_t p = member_start(t, key), end = member_end(t, key) - 1, j;
    const char *nl;

    for (j = 0;; j++) {
        const char *q = memmem(t.p + p, end - p, "\n  ", 3);

        ck_assert_msg(q != NULL, "%s has no item %zu", key, i);
        p = (size_t)(q - t.p) + 3;
        if (j == i)
            break;
    }
    nl = memchr(t.p + p, '\n', end - p);
    *off = p;
    *len = (nl ? (size_t)(nl - t.p) : end) - p;
}

static text_t with_item(text_t t, const char *key, size_t i, const char *v, size_t nv)
{
    size_t off, len;

    item_span(t, key, i, &off, &len);
    return spliced(t, off, len, v, nv);
}

static text_t with_itemz(text_t t, const char *key, size_t i, const char *v)
{
    return with_item(t, key, i, v, strlen(v));
}

/* "<length>:<bytes>" of s[0..n), as the text spells a string */
static text_t lstr(const char *s, size_t n)
{
    char len[32];
    int k = snprintf(len, sizeof len, "%zu:", n);
    text_t a = text_of(len, (size_t)k), r = spliced(a, a.n, 0, s, n);

    free(a.p);
    return r;
}

/* Text loaded from a buffer of exactly its size, so that a read past its
 * end shows under AddressSanitizer.  Refused: NULL, CTK_E_IO naming
 * member when given, nothing left allocated. */
static void assert_refused_at(const char *text, size_t len, const char *member, const char *why)
{
    char *b = malloc(len ? len : 1);
    ctk_error_t e;
    ctk_sdk_t *sdk;
#ifdef TU_HAVE_FAILING_MALLOC
    long long before;
#endif

    ck_assert_ptr_nonnull(b);
    if (len)
        memcpy(b, text, len);
    ctk_error_init(&e);
#ifdef TU_HAVE_FAILING_MALLOC
    before = tu_live_bytes;
#endif
    sdk = ctk_sdkfacts_load(&g_conf, b, len, &e);
#ifdef TU_HAVE_FAILING_MALLOC
    ck_assert_msg(sdk != NULL || tu_live_bytes == before, "%s: leaked %lld bytes", why, tu_live_bytes - before);
#endif
    free(b);
    ck_assert_msg(sdk == NULL, "%s: loaded", why);
    ck_assert_msg(e.code == CTK_E_IO, "%s: %s: %s", why, ctk_error_code_name(e.code), e.text);
    ck_assert_msg(strncmp(e.text, "SDK facts: ", 11) == 0 && e.text[11] != '\0', "%s: %s", why, e.text);
    if (member) {
        size_t n = strlen(member);

        ck_assert_msg(strncmp(e.text + 11, member, n) == 0 && strncmp(e.text + 11 + n, ": ", 2) == 0,
                      "%s: %s", why, e.text);
    }
}

static void assert_refused(const char *text, size_t len, const char *why)
{
    assert_refused_at(text, len, NULL, why);
}

/* t loaded (t freed) */
static ctk_sdk_t *load_exact(text_t t, const char *why)
{
    char *b = malloc(t.n ? t.n : 1);
    ctk_error_t e;
    ctk_sdk_t *sdk;

    ck_assert_ptr_nonnull(b);
    memcpy(b, t.p, t.n);
    ctk_error_init(&e);
    sdk = ctk_sdkfacts_load(&g_conf, b, t.n, &e);
    free(b);
    free(t.p);
    ck_assert_msg(sdk != NULL, "%s: %s", why, e.text);
    ck_assert_int_eq(e.code, CTK_E_OK);
    return sdk;
}

/* t loads (ok) or is refused; t freed */
static void expect(text_t t, bool ok, const char *why)
{
    if (ok) {
        ctk_sdk_free(load_exact(t, why));
    } else {
        assert_refused(t.p, t.n, why);
        free(t.p);
    }
}

static void expect_at(text_t t, const char *member, const char *why)
{
    assert_refused_at(t.p, t.n, member, why);
    free(t.p);
}

/* t with v put in at off */
static text_t with_at(text_t t, size_t off, const char *v, size_t nv)
{
    return spliced(t, off, 0, v, nv);
}

/* the full record's text */
static text_t full_text(void)
{
    ctk_sdk_t *s = full_record();
    char *d = dump_ok(s);
    text_t t = text_of(d, strlen(d));

    free(d);
    ctk_sdk_free(s);
    fill_keys();
    return t;
}

START_TEST(test_malformed_text_is_refused)
{
    static const char *const cases[] = {
        "", " ", "\n", "sdkfacts", "sdkfacts 2", "sdkfacts 2\n", "sdkfacts 2\nmodule_version -\n",
        "{\"sdkfacts\": 1}", "{\"sdkfacts\": 2}\n", "sdkfacts: 2\n", "SDKFACTS 2\n", "x",
    };
    text_t t = full_text();
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_refused(cases[i], strlen(cases[i]), W("case %zu: %s", i, cases[i]));
    expect(text_of(t.p, t.n), true, "the text as written");
    expect(text_of(t.p, t.n / 2), false, "half the text");
    expect(text_of(t.p + 1, t.n - 1), false, "the text less its first byte");
    expect(text_of(t.p + t.n / 2, t.n - t.n / 2), false, "the second half of the text");
    /* a NUL byte in the text itself, in place of each byte of the start
     * of a member, of its blank and of its last "\n" */
    for (i = 0; i < N_KEYS; i++) {
        size_t at = member_start(t, g_keys[i]), end = member_end(t, g_keys[i]);

        expect(spliced(t, at, 1, "", 1), false, W("NUL for the first byte of %s", g_keys[i]));
        expect(spliced(t, at + strlen(g_keys[i]), 1, "", 1), false, W("NUL for the blank of %s", g_keys[i]));
        expect(spliced(t, end - 1, 1, "", 1), false, W("NUL for the end of %s", g_keys[i]));
    }
    free(t.p);
}
END_TEST

/* One spelling for each record: another spelling of the same facts is
 * refused. */
START_TEST(test_text_is_canonical)
{
    static const char *const versions[] = {
        "012 4 7 2", "12 04 7 2", "12 4 07 2", "12 4 7 02", "00 4 7 2", "-0 4 7 2", "12 -0 7 2", "12 4 -0 2",
        "12 4 7 -0", "+12 4 7 2", "12 4 +7 2", "12 4 -07 2", "12 4 7 2.0", "12.0 4 7 2", "12 4 7  2",
        "12  4 7 2", " 12 4 7 2", "12 4 7 2 ", "12\t4 7 2", "0x0c 4 7 2", "1e1 4 7 2", "12 4 7 0002",
    };
    ctk_sdk_t *s = full_record();
    text_t t = full_text(), v;
    size_t i, off, len;

    expect(text_of(t.p, t.n), true, "as written");
    /* numbers: no needless zero, no sign but a '-' that counts, one blank apart */
    for (i = 0; i < sizeof versions / sizeof versions[0]; i++)
        expect(with_valuez(t, "version", versions[i]), false, W("version %s", versions[i]));
    expect(with_valuez(t, "version", "0 0 -1 0"), true, "version 0 0 -1 0");
    expect(with_valuez(t, "version", "10 100 -100 4"), true, "version 10 100 -100 4");
    expect(with_valuez(t, "sdkfacts", "02"), false, "sdkfacts 02");
    expect(with_valuez(t, "sdkfacts", "+2"), false, "sdkfacts +2");
    expect(with_valuez(t, "sdkfacts", "2.0"), false, "sdkfacts 2.0");
    expect(with_valuez(t, "sdkfacts", "2 "), false, "sdkfacts 2 and a blank");
    for (i = N_KEYS - N_LIST - 2; i < N_KEYS; i++) {
        value_span(t, g_keys[i], &off, &len);
        len = strcspn(t.p + off, "\n");
        expect(with_count(t, g_keys[i], W("0%.*s", (int)len, t.p + off)), false,
               W("%s: a count with a leading zero", g_keys[i]));
        expect(with_count(t, g_keys[i], W("+%.*s", (int)len, t.p + off)), false,
               W("%s: a count with a '+'", g_keys[i]));
    }
    expect(with_valuez(t, "manpath", "0"), true, "manpath 0");
    expect(with_valuez(t, "manpath", "00"), false, "manpath 00");
    expect(with_valuez(t, "manpath", "-0"), false, "manpath -0");
    /* lengths: no needless zero, no sign */
    for (i = 0; i < N_STR; i++) {
        const char *k = str_fields[i].key, *val = *str_at(s, i);

        v = lstr(val, strlen(val));
        expect(with_value(t, k, v.p, v.n), true, W("%s as written", k));
        expect(with_value(t, k, W("0%s", v.p), v.n + 1), false, W("%s: a length with a leading zero", k));
        expect(with_value(t, k, W("+%s", v.p), v.n + 1), false, W("%s: a length with a '+'", k));
        free(v.p);
    }
    expect(with_valuez(t, "mandir", "0:"), true, "mandir 0:");
    expect(with_valuez(t, "mandir", "00:"), false, "mandir 00:");
    expect(with_valuez(t, "mandir", "-0:"), false, "mandir -0:");
    expect(with_valuez(t, "mandir", "-"), true, "mandir -");
    expect(with_valuez(t, "mandir", "--"), false, "mandir --");
    expect(with_itemz(t, "cpath", 2, "0:"), true, "cpath[2] 0:");
    expect(with_itemz(t, "cpath", 2, "00:"), false, "cpath[2] 00:");
    expect(with_itemz(t, "versioned", 0, "6:cudart -"), true, "versioned[0] cudart -");
    expect(with_itemz(t, "versioned", 0, "06:cudart -"), false, "versioned[0] 06:cudart");
    expect(with_itemz(t, "libs", 0, "6:cudart - -"), true, "libs[0] cudart - -");
    expect(with_itemz(t, "libs", 0, "6:cudart 00: -"), false, "libs[0] 00:");
    /* members in their order: each two in turn swapped */
    for (i = 0; i + 1 < N_KEYS; i++) {
        size_t a = member_start(t, g_keys[i]), b = member_start(t, g_keys[i + 1]), e = member_end(t, g_keys[i + 1]);
        text_t sw = text_of(t.p, t.n);

        memcpy(sw.p + a, t.p + b, e - b);
        memcpy(sw.p + a + (e - b), t.p + a, b - a);
        expect(sw, false, W("%s after %s", g_keys[i], g_keys[i + 1]));
    }
    /* one blank after the key, none before it or at the end of a line, no
     * blank line, "\n" and not "\r\n" */
    for (i = 0; i < N_KEYS; i++) {
        const char *k = g_keys[i];
        size_t a = member_start(t, k), e = member_end(t, k);

        expect(spliced(t, a + strlen(k), 1, "", 0), false, W("no blank after %s", k));
        expect(with_at(t, a + strlen(k), " ", 1), false, W("two blanks after %s", k));
        expect(spliced(t, a + strlen(k), 1, "\t", 1), false, W("a tab after %s", k));
        expect(with_at(t, a, " ", 1), false, W("a blank before %s", k));
        expect(with_at(t, e - 1, " ", 1), false, W("a blank at the end of %s", k));
        expect(with_at(t, e - 1, "\r", 1), false, W("\\r\\n after %s", k));
        expect(with_at(t, a, "\n", 1), false, W("a blank line before %s", k));
    }
    /* items: two blanks before each, one between its strings */
    for (i = N_KEYS - N_LIST - 2; i < N_KEYS; i++) {
        const char *k = g_keys[i];

        item_span(t, k, 1, &off, &len);
        expect(spliced(t, off - 1, 1, "", 0), false, W("%s[1] after one blank", k));
        expect(with_at(t, off, " ", 1), false, W("%s[1] after three blanks", k));
        expect(spliced(t, off - 2, 2, "\t", 1), false, W("%s[1] after a tab", k));
        expect(with_at(t, off - 3, "\r", 1), false, W("%s[0] ending in \\r\\n", k));
        expect(with_at(t, off + len, " ", 1), false, W("%s[1] and a blank", k));
    }
    expect(with_itemz(t, "libs", 0, "6:cudart  - -"), false, "libs[0]: two blanks between name and libdir");
    expect(with_itemz(t, "libs", 0, "6:cudart -  -"), false, "libs[0]: two blanks between libdir and link");
    expect(with_itemz(t, "libs", 0, "6:cudart\t-\t-"), false, "libs[0]: tabs");
    expect(with_itemz(t, "versioned", 0, "6:cudart  -"), false, "versioned[0]: two blanks");
    /* nothing after the last member, and its "\n" there */
    expect(with_at(t, t.n, "x", 1), false, "a byte after the last member");
    expect(with_at(t, t.n, "\n", 1), false, "a blank line after the last member");
    expect(with_at(t, t.n, " ", 1), false, "a blank after the last member");
    expect(with_at(t, t.n, "", 1), false, "a NUL after the last member");
    expect(with_at(t, t.n, t.p, t.n), false, "the text twice");
    expect(with_at(t, t.n, "sdkfacts 2\n", 11), false, "another text begun");
    expect(text_of(t.p, t.n - 1), false, "no \"\\n\" after the last member");
    expect(spliced(t, t.n - 1, 1, "\r\n", 2), false, "\"\\r\\n\" after the last member");
    free(t.p);
    ctk_sdk_free(s);
}
END_TEST

/* Each member missing, under another name, twice, or one more. */
START_TEST(test_each_missing_or_unknown_member_is_refused)
{
    text_t t = full_text();
    size_t i;

    for (i = 0; i < N_KEYS; i++) {
        const char *k = g_keys[i];
        size_t n = strlen(k);
        char *upper = S("%s", k);

        upper[0] = (char)(upper[0] - 'a' + 'A');
        expect_at(without_member(t, k), k, W("no %s", k));
        expect_at(with_key(t, k, W("%sx", k)), k, W("%s renamed %sx", k, k));
        expect_at(with_key(t, k, W("x%s", k)), k, W("%s renamed x%s", k, k));
        expect_at(with_key(t, k, upper), k, W("%s renamed %s", k, upper));
        expect_at(with_key(t, k, W("%.*s", (int)n - 1, k)), k, W("%s less its last letter", k));
        expect_at(with_key(t, k, ""), k, W("%s without its key", k));
        if (i > 0)
            expect_at(with_key(t, k, g_keys[i - 1]), k, W("%s renamed %s", k, g_keys[i - 1]));
        if (i + 1 < N_KEYS)
            expect_at(with_key(t, k, g_keys[i + 1]), k, W("%s renamed %s", k, g_keys[i + 1]));
        /* twice in a row, and one more before it */
        {
            size_t a = member_start(t, k), e = member_end(t, k);

            expect(with_at(t, e, t.p + a, e - a), false, W("%s twice", k));
            expect(with_at(t, a, "extra 1:x\n", 10), false, W("a member more before %s", k));
            expect(with_at(t, a, "extra -\n", 8), false, W("a member more, NULL, before %s", k));
        }
    }
    expect_at(with_at(t, t.n, "extra 1:x\n", 10), "the text", "a member more at the end");
    /* the version's line: four numbers, no more, no fewer */
    expect(with_valuez(t, "version", "12 4 7"), false, "version without its source");
    expect(with_valuez(t, "version", "12 4"), false, "version without patch and source");
    expect(with_valuez(t, "version", "12 4 7 2 1"), false, "version with a fifth number");
    expect(with_valuez(t, "version", ""), false, "version without numbers");
    free(t.p);
}
END_TEST

START_TEST(test_wrong_kinds_of_value_are_refused)
{
    static const char *const not_strings[] = {
        "12", "x", "", " ", "1", "1:", "-1:x", "- ", "-\t", "1:x 1:y", "2:x", ":", ":x", "1 :x", "1: x",
        "null", "\"x\"", "{\"hex\": \"ff\"}", "-1",
    };
    static const char *const strings_or_null[] = {"-", "0:", "1:x", "3:a b", "1:-", "2:12", "1:\n", "4:\n  x"};
    static const char *const not_counts[] = {"-", "1:x", "0:", "", " ", "x", "-1", "1.0", "1:", "- 1", "null", "[]"};
    text_t t = full_text();
    size_t i, j;

    /* a string member: a string or "-", and nothing else */
    for (i = 0; i < N_STR; i++) {
        for (j = 0; j < sizeof not_strings / sizeof not_strings[0]; j++)
            expect(with_valuez(t, str_fields[i].key, not_strings[j]), false,
                   W("%s %s", str_fields[i].key, not_strings[j]));
        for (j = 0; j < sizeof strings_or_null / sizeof strings_or_null[0]; j++)
            expect(with_valuez(t, str_fields[i].key, strings_or_null[j]), true,
                   W("%s %s", str_fields[i].key, strings_or_null[j]));
    }
    /* the version's arrays: a string, never "-" */
    for (i = 3; i < 6; i++) {
        for (j = 0; j < sizeof not_strings / sizeof not_strings[0]; j++)
            expect(with_valuez(t, g_keys[i], not_strings[j]), false, W("%s %s", g_keys[i], not_strings[j]));
        expect(with_valuez(t, g_keys[i], "-"), false, W("%s -", g_keys[i]));
        expect(with_valuez(t, g_keys[i], "0:"), true, W("%s 0:", g_keys[i]));
        expect(with_valuez(t, g_keys[i], "2:\n-"), true, W("%s 2:\\n-", g_keys[i]));
    }
    /* the version's numbers, and the form */
    for (j = 0; j < sizeof not_counts / sizeof not_counts[0]; j++) {
        if (strcmp(not_counts[j], "-1") != 0) /* a major, minor or patch may be negative */
            expect(with_valuez(t, "version", W("%s 4 7 2", not_counts[j])), false,
                   W("version.major %s", not_counts[j]));
        expect(with_valuez(t, "version", W("12 4 7 %s", not_counts[j])), false, W("version.source %s", not_counts[j]));
        expect(with_valuez(t, "sdkfacts", not_counts[j]), false, W("sdkfacts %s", not_counts[j]));
    }
    expect(with_valuez(t, "version", "3:12. 4 7 2"), false, "version as a string");
    expect(with_valuez(t, "version", "-"), false, "version -");
    expect(with_valuez(t, "sdkfacts", "1:2"), false, "sdkfacts 1:2");
    /* counts: a number, and then that many items, each a string */
    for (i = N_KEYS - N_LIST - 2; i < N_KEYS; i++) {
        const char *k = g_keys[i];

        for (j = 0; j < sizeof not_counts / sizeof not_counts[0]; j++)
            expect(with_valuez(t, k, not_counts[j]), false, W("%s %s", k, not_counts[j]));
        expect(with_valuez(t, k, "0"), true, W("%s 0", k));
    }
    for (i = 0; i < N_LIST; i++) {
        const char *k = list_fields[i].key;

        for (j = 0; j < sizeof not_strings / sizeof not_strings[0]; j++)
            expect(with_itemz(t, k, 1, not_strings[j]), false, W("%s[1] %s", k, not_strings[j]));
        expect(with_itemz(t, k, 1, "-"), false, W("%s[1] -", k));
        for (j = 1; j < sizeof strings_or_null / sizeof strings_or_null[0]; j++)
            expect(with_itemz(t, k, 1, strings_or_null[j]), true, W("%s[1] %s", k, strings_or_null[j]));
    }
    /* a library: a known name (never "-"), then a dir and a link, each a string or "-" */
    {
        static const char *const bad_libs[] = {
            "- - -", "6:cudart", "6:cudart -", "6:cudart - - -", "6:cudart 5 -", "6:cudart - 5", "5 - -",
            "6:cudart --", "6:cudart - 1:x 1:y", "6:cudart -1:x -", "cudart - -", "6:cudart 1:x", "",
            "6:cudart - -1", "-",
        };
        static const char *const good_libs[] = {"6:cudart - -", "6:cudart 0: 0:", "6:cudart 1:x -", "6:cudart - 1:y",
                                                "6:cublas 2:\n  3: - "};
        static const char *const bad_versioned[] = {
            "- -", "-", "6:cudart", "6:cudart - -", "6:cudart 5", "5 -", "cudart -", "6:cudart --", "",
            "6:cudart 1:x 1:y",
        };
        static const char *const good_versioned[] = {"6:cudart -", "6:cudart 0:", "4:npps 1:x", "6:cublas 3:- -"};

        for (j = 0; j < sizeof bad_libs / sizeof bad_libs[0]; j++) {
            expect(with_itemz(t, "libs", 0, bad_libs[j]), false, W("libs[0] %s", bad_libs[j]));
            expect(with_itemz(t, "libs", 10, bad_libs[j]), false, W("libs[10] %s", bad_libs[j]));
        }
        for (j = 0; j < sizeof good_libs / sizeof good_libs[0]; j++)
            expect(with_itemz(t, "libs", 0, good_libs[j]), true, W("libs[0] %s", good_libs[j]));
        for (j = 0; j < sizeof bad_versioned / sizeof bad_versioned[0]; j++) {
            expect(with_itemz(t, "versioned", 0, bad_versioned[j]), false, W("versioned[0] %s", bad_versioned[j]));
            expect(with_itemz(t, "versioned", 29, bad_versioned[j]), false, W("versioned[29] %s", bad_versioned[j]));
        }
        for (j = 0; j < sizeof good_versioned / sizeof good_versioned[0]; j++)
            expect(with_itemz(t, "versioned", 0, good_versioned[j]), true, W("versioned[0] %s", good_versioned[j]));
    }
    free(t.p);
}
END_TEST

/* A string's length, or a count, that says more or less than is there. */
START_TEST(test_lengths_and_counts_that_do_not_match_are_refused)
{
    ctk_sdk_t *s = full_record();
    text_t t = full_text(), v;
    size_t i, j, off, len, n;

    for (i = 0; i < N_STR; i++) {
        const char *k = str_fields[i].key, *val = *str_at(s, i);

        n = strlen(val);
        ck_assert_uint_gt(n, 0);
        expect(with_valuez(t, k, W("%zu:%s", n + 1, val)), false, W("%s: length + 1", k));
        expect(with_valuez(t, k, W("%zu:%s", n - 1, val)), false, W("%s: length - 1", k));
        expect(with_valuez(t, k, W("%zu:%s", n + 2, val)), false, W("%s: length + 2", k));
        expect(with_valuez(t, k, W("%zu:%s", 2 * n, val)), false, W("%s: length * 2", k));
        expect(with_valuez(t, k, W("%zu:%s", t.n, val)), false, W("%s: past the end", k));
        expect(with_valuez(t, k, W("%zu:%s", t.n * 1000, val)), false,
               W("%s: far past the end", k));
    }
    v = lstr(s->version.out_of_step, strlen(s->version.out_of_step));
    expect(with_value(t, "version.out_of_step", v.p, v.n), true, "version.out_of_step as written");
    free(v.p);
    n = strlen(s->version.out_of_step);
    expect(with_valuez(t, "version.out_of_step", W("%zu:%s", n + 1, s->version.out_of_step)),
           false, "version.out_of_step: length + 1");
    expect(with_valuez(t, "version.out_of_step", W("%zu:%s", n - 1, s->version.out_of_step)),
           false, "version.out_of_step: length - 1");
    /* the items of each list, each library and each versioned library */
    for (i = 0; i < N_LIST; i++) {
        const char *k = list_fields[i].key, *val = list_at(s, i)->items[0];

        n = strlen(val);
        expect(with_itemz(t, k, 0, W("%zu:%s", n + 1, val)), false, W("%s[0]: length + 1", k));
        expect(with_itemz(t, k, 0, W("%zu:%s", n - 1, val)), false, W("%s[0]: length - 1", k));
        val = list_at(s, i)->items[3];
        n = strlen(val);
        expect(with_itemz(t, k, 3, W("%zu:%s", n, val)), true, W("%s[3] as written", k));
        expect(with_itemz(t, k, 3, W("%zu:%s", n + 1, val)), false, W("%s[3]: length + 1", k));
        expect(with_itemz(t, k, 3, W("%zu:%s", n - 1, val)), false, W("%s[3]: length - 1", k));
    }
    for (i = 0; i < s->n_libs; i += s->n_libs - 1) {
        const ctk_sdk_lib_t *l = &s->libs[i];
        size_t a = strlen(l->name), b = strlen(l->libdir), c = strlen(l->link);

        expect(with_itemz(t, "libs", i, W("%zu:%s %zu:%s %zu:%s", a, l->name, b, l->libdir, c, l->link)), true,
               W("libs[%zu] as written", i));
        expect(with_itemz(t, "libs", i, W("%zu:%s %zu:%s %zu:%s", a + 1, l->name, b, l->libdir, c, l->link)), false,
               W("libs[%zu].name: length + 1", i));
        expect(with_itemz(t, "libs", i, W("%zu:%s %zu:%s %zu:%s", a - 1, l->name, b, l->libdir, c, l->link)), false,
               W("libs[%zu].name: length - 1", i));
        expect(with_itemz(t, "libs", i, W("%zu:%s %zu:%s %zu:%s", a, l->name, b + 1, l->libdir, c, l->link)), false,
               W("libs[%zu].libdir: length + 1", i));
        expect(with_itemz(t, "libs", i, W("%zu:%s %zu:%s %zu:%s", a, l->name, b - 1, l->libdir, c, l->link)), false,
               W("libs[%zu].libdir: length - 1", i));
        expect(with_itemz(t, "libs", i, W("%zu:%s %zu:%s %zu:%s", a, l->name, b, l->libdir, c + 1, l->link)), false,
               W("libs[%zu].link: length + 1", i));
        expect(with_itemz(t, "libs", i, W("%zu:%s %zu:%s %zu:%s", a, l->name, b, l->libdir, c - 1, l->link)), false,
               W("libs[%zu].link: length - 1", i));
    }
    for (i = 0; i < s->n_versioned; i += s->n_versioned - 1) {
        const ctk_sdk_versioned_t *d = &s->versioned[i];
        size_t a = strlen(d->name), b = strlen(d->file);

        expect(with_itemz(t, "versioned", i, W("%zu:%s %zu:%s", a, d->name, b, d->file)), true,
               W("versioned[%zu] as written", i));
        expect(with_itemz(t, "versioned", i, W("%zu:%s %zu:%s", a + 1, d->name, b, d->file)), false,
               W("versioned[%zu].name: length + 1", i));
        expect(with_itemz(t, "versioned", i, W("%zu:%s %zu:%s", a - 1, d->name, b, d->file)), false,
               W("versioned[%zu].name: length - 1", i));
        expect(with_itemz(t, "versioned", i, W("%zu:%s %zu:%s", a, d->name, b - 1, d->file)), false,
               W("versioned[%zu].file: length - 1", i));
        for (j = 1; j <= 3; j++) /* the last: + 1 takes the text's "\n", + 2 runs past its end */
            expect(with_itemz(t, "versioned", i, W("%zu:%s %zu:%s", a, d->name, b + j, d->file)), false,
                   W("versioned[%zu].file: length + %zu", i, j));
    }
    /* counts: one more or one fewer than the items, or more than the text
     * could hold */
    for (i = N_KEYS - N_LIST - 2; i < N_KEYS; i++) {
        const char *k = g_keys[i];

        value_span(t, k, &off, &len);
        n = strtoul(t.p + off, NULL, 10);
        ck_assert_uint_ge(n, 4);
        expect(with_count(t, k, W("%zu", n)), true, W("%s: its count", k));
        expect(with_count(t, k, W("%zu", n + 1)), false, W("%s: count + 1", k));
        expect(with_count(t, k, W("%zu", n - 1)), false, W("%s: count - 1", k));
        expect(with_count(t, k, W("%zu", n + 1000)), false, W("%s: count + 1000", k));
        expect(with_count(t, k, W("%zu", t.n)), false, W("%s: the text's size", k));
        expect(with_count(t, k, "4611686018427387904"), false, W("%s: 2^62", k));
        expect(with_count(t, k, "18446744073709551615"), false, W("%s: 2^64 - 1", k));
        expect(with_count(t, k, "18446744073709551620"), false, W("%s: 2^64 + 4", k));
    }
    free(t.p);
    ctk_sdk_free(s);
}
END_TEST

/* Numbers out of int's range, of the sources, of the form; and lengths
 * out of size_t's. */
START_TEST(test_numbers_out_of_range_are_refused)
{
    static const char *const not_ints[] = {
        "2147483648", "-2147483649", "4294967296", "4294967298", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "18446744073709551620", "18446744073709551623", "99999999999999999999", "999999999999999999999999",
    };
    static const char *const not_lengths[] = {
        "9223372036854775808:", "9223372036854775807:", "18446744073709551615:", "18446744073709551616:",
        "18446744073709551617:x", "18446744073709551620:abcd", "18446744073709551625:abcdefghi",
        "36893488147419103232:", "99999999999999999999:",
    };
    text_t t = full_text();
    ctk_sdk_t *s;
    size_t i;
    int src;

    for (i = 0; i < sizeof not_ints / sizeof not_ints[0]; i++) {
        const char *n = not_ints[i];

        expect(with_valuez(t, "version", W("%s 4 7 2", n)), false, W("version.major %s", n));
        expect(with_valuez(t, "version", W("12 %s 7 2", n)), false, W("version.minor %s", n));
        expect(with_valuez(t, "version", W("12 4 %s 2", n)), false, W("version.patch %s", n));
        expect(with_valuez(t, "version", W("12 4 7 %s", n)), false, W("version.source %s", n));
        expect(with_valuez(t, "sdkfacts", n), false, W("sdkfacts %s", n));
    }
    s = load_exact(with_valuez(t, "version", "2147483647 -2147483648 2147483647 0"), "int's range");
    ck_assert_int_eq(s->version.major, 2147483647);
    ck_assert_int_eq(s->version.minor, -2147483647 - 1);
    ck_assert_int_eq(s->version.patch, 2147483647);
    ctk_sdk_free(s);
    /* the sources: 0 to 4 */
    for (src = -2; src <= 10; src++) {
        text_t e = with_valuez(t, "version", W("12 4 7 %d", src));

        if (src >= CTK_VSRC_NONE && src <= CTK_VSRC_NVCC) {
            s = load_exact(e, W("source %d", src));
            ck_assert_int_eq(s->version.source, src);
            ctk_sdk_free(s);
        } else {
            expect_at(e, "version", W("source %d", src));
        }
    }
    /* the form: 2 and no other */
    for (src = -3; src <= 30; src++)
        if (src != 2)
            expect_at(with_valuez(t, "sdkfacts", W("%d", src)), "sdkfacts", W("sdkfacts %d", src));
    /* lengths beyond any text */
    for (i = 0; i < sizeof not_lengths / sizeof not_lengths[0]; i++) {
        expect(with_valuez(t, "version_mm", not_lengths[i]), false, W("version_mm %s", not_lengths[i]));
        expect(with_valuez(t, "version.path", not_lengths[i]), false, W("version.path %s", not_lengths[i]));
        expect(with_itemz(t, "cpath", 1, not_lengths[i]), false, W("cpath[1] %s", not_lengths[i]));
        expect(with_itemz(t, "versioned", 29, W("4:npps %s", not_lengths[i])), false,
               W("versioned[29].file %s", not_lengths[i]));
    }
    free(t.p);
}
END_TEST

/* libs[i] of the full record's text (full_record()) named n[0..nn) */
static text_t lib_named(text_t t, size_t i, const char *n, size_t nn)
{
    const char *was = ctk_sdk_lib_name(i);
    char buf[512];
    size_t k = (size_t)snprintf(buf, sizeof buf, "%zu:", nn);

    ck_assert_uint_lt(k + nn, 256);
    memcpy(buf + k, n, nn);
    k += nn;
    k += (size_t)snprintf(buf + k, sizeof buf - k, " %zu:/opt/lib/%s %zu:-l%s -lextra", strlen(was) + 9, was,
                          strlen(was) + 10, was);
    return with_item(t, "libs", i, buf, k);
}

/* versioned[i] of the full record's text named n[0..nn), its file "f" */
static text_t versioned_named(text_t t, size_t i, const char *n, size_t nn)
{
    char buf[512];
    size_t k = (size_t)snprintf(buf, sizeof buf, "%zu:", nn);

    ck_assert_uint_lt(k + nn, 256);
    memcpy(buf + k, n, nn);
    memcpy(buf + k + nn, " 1:f", 4);
    return with_item(t, "versioned", i, buf, k + nn + 4);
}

/* the entry of table that is name */
static const char *entry_of(const char *(*table)(size_t), const char *name)
{
    size_t i;

    for (i = 0; table(i); i++)
        if (strcmp(table(i), name) == 0)
            return table(i);
    ck_abort_msg("%s is in no table", name);
    return NULL;
}

START_TEST(test_unknown_library_names_are_refused)
{
    static const char *const lib_bad[] = {
        "cuNOPE", "", "CUDART", "cudart ", " cudart", "cudar", "cudartt", "cublasLt" /* a link name only */,
        "nvJitLink" /* the link name; the library is nvjitlink */, "cudart\n", "lib",
        "cudartcudartcudartcudartcudartcudartcudartcudartcudartcudartcudart" /* 66 bytes */,
    };
    static const char *const vd_bad[] = {
        "nope", "", "nccl" /* a .pc library only */, "nvshmem", "nvjitlink", "cudart\n", "Cudart", "npp",
    };
    static const char *const lib_good[] = {"nvshmem", "nvjitlink", "cudart", "nccl"};
    static const char *const vd_good[] = {"npps", "nvJitLink", "cublasLt", "cudart"};
    text_t t = full_text();
    size_t i;

    for (i = 0; i < sizeof lib_bad / sizeof lib_bad[0]; i++) {
        expect_at(lib_named(t, 1, lib_bad[i], strlen(lib_bad[i])), "libs", W("libs[1].name %s", lib_bad[i]));
        expect_at(lib_named(t, 10, lib_bad[i], strlen(lib_bad[i])), "libs", W("libs[10].name %s", lib_bad[i]));
    }
    expect_at(lib_named(t, 1, "cudart\0", 7), "libs", "libs[1].name cudart and NUL");
    for (i = 0; i < sizeof lib_good / sizeof lib_good[0]; i++) {
        ctk_sdk_t *s = load_exact(lib_named(t, 1, lib_good[i], strlen(lib_good[i])), lib_good[i]);

        ck_assert_str_eq(s->libs[1].name, lib_good[i]);
        ck_assert_ptr_eq(s->libs[1].name, entry_of(ctk_sdk_lib_name, lib_good[i]));
        ck_assert_ptr_nonnull(s->libs[1].label);
        ck_assert_ptr_nonnull(s->libs[1].description);
        ck_assert_str_eq(s->libs[1].libdir, "/opt/lib/cublas");
        ctk_sdk_free(s);
    }
    for (i = 0; i < sizeof vd_bad / sizeof vd_bad[0]; i++) {
        expect_at(versioned_named(t, 1, vd_bad[i], strlen(vd_bad[i])), "versioned",
                  W("versioned[1].name %s", vd_bad[i]));
        expect_at(versioned_named(t, 29, vd_bad[i], strlen(vd_bad[i])), "versioned",
                  W("versioned[29].name %s", vd_bad[i]));
    }
    expect_at(versioned_named(t, 1, "cudart\0", 7), "versioned", "versioned[1].name cudart and NUL");
    for (i = 0; i < sizeof vd_good / sizeof vd_good[0]; i++) {
        ctk_sdk_t *s = load_exact(versioned_named(t, 1, vd_good[i], strlen(vd_good[i])), vd_good[i]);

        ck_assert_str_eq(s->versioned[1].name, vd_good[i]);
        ck_assert_ptr_eq(s->versioned[1].name, entry_of(ctk_sdk_link_name, vd_good[i]));
        ck_assert_str_eq(s->versioned[1].file, "f");
        ctk_sdk_free(s);
    }
    free(t.p);
}
END_TEST

/* n bytes c, as the text spells a string */
static text_t filled(char c, size_t n)
{
    char *b = malloc(n + 1);
    text_t r;

    ck_assert_ptr_nonnull(b);
    memset(b, c, n);
    r = lstr(b, n);
    free(b);
    return r;
}

START_TEST(test_strings_too_long_for_their_arrays_are_refused)
{
    static const struct {
        const char *key;
        size_t size;
    } arrays[] = {{"version.path", 4096}, {"version.passed_over", 512}, {"version.out_of_step", 1536}};
    static const char fills[] = {'a', '\xff', '\n'};
    text_t t = full_text();
    size_t i, j;

    for (i = 0; i < 3; i++) {
        for (j = 0; j < sizeof fills; j++) {
            size_t size = arrays[i].size;
            text_t v = filled(fills[j], size - 1);
            ctk_sdk_t *s = load_exact(with_value(t, arrays[i].key, v.p, v.n),
                                      W("%s of %zu bytes", arrays[i].key, size - 1));
            const char *a = i == 0 ? s->version.path : i == 1 ? s->version.passed_over : s->version.out_of_step;

            ck_assert_uint_eq(strnlen(a, size), size - 1);
            ck_assert_uint_eq((unsigned char)a[size - 2], (unsigned char)fills[j]);
            ctk_sdk_free(s);
            free(v.p);
            v = filled(fills[j], size);
            expect_at(with_value(t, arrays[i].key, v.p, v.n), arrays[i].key, W("%s of %zu bytes", arrays[i].key, size));
            free(v.p);
            v = filled(fills[j], size + 1000);
            expect_at(with_value(t, arrays[i].key, v.p, v.n), arrays[i].key,
                      W("%s of %zu bytes", arrays[i].key, size + 1000));
            free(v.p);
        }
    }
    /* "é" is two bytes: 2048 of them are 4096 */
    {
        char s[4097];

        for (i = 0; i < 4096; i += 2) {
            s[i] = '\xc3';
            s[i + 1] = '\xa9';
        }
        s[4096] = '\0';
        expect(with_value(t, "version.path", W("4096:%.10s", s), 15), false, "its length alone");
        {
            text_t v = lstr(s, 4096);

            expect(with_value(t, "version.path", v.p, v.n), false, "version.path of 2048 two-byte characters");
            free(v.p);
            v = lstr(s, 4094);
            expect(with_value(t, "version.path", v.p, v.n), true, "version.path of 2047 two-byte characters");
            free(v.p);
        }
    }
    free(t.p);
}
END_TEST

/* NUL is the one byte a string may not hold: in a field, the version's
 * arrays, a list, a library, a versioned library. */
#define B(s) {s, sizeof s - 1}
START_TEST(test_nul_is_refused)
{
    static const char *const keys[] = {"module_version", "root", "nvshmem_bindir", "version.path",
                                       "version.passed_over", "version.out_of_step"};
    static const struct {
        const char *p;
        size_t n;
    } nuls[] = {B("1:\0"), B("3:a\0b"), B("2:\0a"), B("2:a\0"), B("4:\0\0\0\0")},
      libs[] = {B("5:cufft 3:a\0b 1:x"), B("5:cufft 1:x 3:a\0b"), B("5:cufft 1:\0 -"), B("5:cufft - 1:\0"),
                B("6:cufft\0 - -"), B("6:\0cufft - -")},
      versioned[] = {B("6:cudart 3:a\0b"), B("6:cudart 1:\0"), B("7:cudart\0 1:f"), B("7:\0cudart 1:f")};
    text_t t = full_text();
    size_t i, j;

    for (j = 0; j < sizeof nuls / sizeof nuls[0]; j++) {
        for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
            expect_at(with_value(t, keys[i], nuls[j].p, nuls[j].n), keys[i], W("NUL in %s (%zu)", keys[i], j));
        for (i = 0; i < N_LIST; i++) {
            expect_at(with_item(t, list_fields[i].key, 0, nuls[j].p, nuls[j].n), list_fields[i].key,
                      W("NUL in %s[0] (%zu)", list_fields[i].key, j));
            expect_at(with_item(t, list_fields[i].key, 3, nuls[j].p, nuls[j].n), list_fields[i].key,
                      W("NUL in %s[3] (%zu)", list_fields[i].key, j));
        }
    }
    for (j = 0; j < sizeof libs / sizeof libs[0]; j++) {
        expect_at(with_item(t, "libs", 2, libs[j].p, libs[j].n), "libs", W("NUL in libs[2] (%zu)", j));
        expect_at(with_item(t, "libs", 10, libs[j].p, libs[j].n), "libs", W("NUL in libs[10] (%zu)", j));
    }
    for (j = 0; j < sizeof versioned / sizeof versioned[0]; j++) {
        expect_at(with_item(t, "versioned", 0, versioned[j].p, versioned[j].n), "versioned",
                  W("NUL in versioned[0] (%zu)", j));
        expect_at(with_item(t, "versioned", 29, versioned[j].p, versioned[j].n), "versioned",
                  W("NUL in versioned[29] (%zu)", j));
    }
    /* the same without the NUL loads */
    expect(with_itemz(t, "libs", 2, "5:cufft 3:a-b 1:x"), true, "libs[2] without NUL");
    expect(with_itemz(t, "versioned", 0, "6:cudart 3:a-b"), true, "versioned[0] without NUL");
    expect(with_valuez(t, "root", "3:a-b"), true, "root without NUL");
    free(t.p);
}
END_TEST
#undef B

/* Each prefix of s's text is refused, from a buffer of its size: nothing
 * left allocated, nothing read past it. */
static void assert_every_cut_refused(const ctk_sdk_t *s)
{
    char *t = dump_ok(s);
    size_t n = strlen(t), i;

    ck_assert_uint_gt(n, 100);
    for (i = 0; i < n; i++)
        assert_refused(t, i, W("the first %zu of %zu bytes", i, n));
    ctk_sdk_free(facts_ok(s->conf, t));
    free(t);
}

START_TEST(test_every_cut_of_a_text_is_refused)
{
    ctk_sdk_t *s = full_record();
    ctk_sdk_conf_t c;
    char *root;

    assert_every_cut_refused(s);
    ctk_sdk_free(s);
    /* NULLs, empty lists, no libraries without their names */
    root = fake_toolkit("cuda", NULL, 12040);
    conf_init(&c, "12.4", root);
    s = load_ok(&c);
    ck_assert_ptr_null(s->nvvm_root);
    ck_assert_uint_eq(s->n_versioned, 0);
    assert_every_cut_refused(s);
    ctk_sdk_free(s);
}
END_TEST

/* ==== real records ================================================================== */

START_TEST(test_real_toolkit_round_trips)
{
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, g_mm, tu_cuda_root());
    sdk = load_ok(&c);
    ck_assert_uint_gt(sdk->n_libs, 3);
    ck_assert_ptr_nonnull(sdk->nvvm_root);
    assert_round_trip(sdk);
    ctk_sdk_free(sdk);
}
END_TEST

START_TEST(test_every_cut_of_the_real_toolkit_text_is_refused)
{
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    conf_init(&c, g_mm, tu_cuda_root());
    sdk = load_ok(&c);
    ck_assert_uint_gt(sdk->n_libs, 3);
    assert_every_cut_refused(sdk);
    ctk_sdk_free(sdk);
}
END_TEST
/* the layouts of tests/fixtures.sh */
START_TEST(test_fixture_layouts_round_trip)
{
    const char *f = tu_fixtures();
    const char *hpc;
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;

    ck_assert_ptr_nonnull(f);
    switch (_i) {
    case 0: /* runfile layout: NVVM, CUPTI, version.json */
        conf_init(&c, g_mm, S("%s/standalone/cuda-%s", f, g_mm));
        sdk = load_ok(&c);
        ck_assert_ptr_nonnull(sdk->nvvm_libdir);
        ck_assert_ptr_nonnull(sdk->cupti_libdir);
        ck_assert_ptr_nonnull(sdk->version_full);
        break;
    case 1:
        conf_init(&c, g_mm, S("%s/versiontxt/cuda-%s", f, g_mm));
        sdk = load_ok(&c);
        ck_assert_int_eq(sdk->version.source, CTK_VSRC_VERSION_TXT);
        break;
    case 2: /* the header alone says the release: no patch */
        conf_init(&c, S("%s.0", g_mm), S("%s/noversion/cuda-%s", f, g_mm));
        sdk = load_ok(&c);
        ck_assert_int_eq(sdk->version.patch, -1);
        ck_assert_ptr_null(sdk->version_full);
        break;
    default: /* HPC SDK: math libraries and NCCL apart */
        hpc = S("%s/hpcsdk/%s/25.9", f, HPC_ARCH_DIR);
        conf_init(&c, g_mm, S("%s/cuda/%s", hpc, g_mm));
        c.math_libs = S("%s/math_libs/%s", hpc, g_mm);
        c.nccl = S("%s/comm_libs/%s/nccl", hpc, g_mm);
        sdk = load_ok(&c);
        ck_assert_ptr_nonnull(sdk->nccl_libdir);
        ck_assert_str_ne(sdk->math_libdir, sdk->libdir);
        break;
    }
    assert_round_trip(sdk);
    ctk_sdk_free(sdk);
}
END_TEST

/* fake trees: what the real toolkit does not show */
START_TEST(test_fake_trees_round_trip)
{
    ctk_sdk_conf_t c;
    ctk_sdk_t *sdk;
    char *root;

    switch (_i) {
    case 0: /* the least a toolkit can be: no NVVM, CUPTI, man pages, stubs or patch */
        root = fake_toolkit("cuda", NULL, 12040);
        conf_init(&c, "12.4", root);
        sdk = load_ok(&c);
        ck_assert_int_eq(sdk->version.patch, -1);
        ck_assert_ptr_null(sdk->version_full);
        ck_assert_ptr_null(sdk->nvvm_root);
        ck_assert_ptr_null(sdk->cupti_libdir);
        ck_assert_ptr_null(sdk->mandir);
        ck_assert_ptr_null(sdk->stubsdir);
        ck_assert_uint_eq(sdk->n_versioned, 0);
        break;
    case 1: /* NCCL, NVSHMEM, man pages, a module version of its own */
        root = fake_toolkit("cuda", "12.4.1", 12040);
        wr("cuda/doc/man/man1/nvcc.1", "");
        wr("nccl/include/nccl.h", "");
        wr("nccl/lib/libnccl.so.2", "");
        wr("nvshmem/include/nvshmem.h", "");
        wr("nvshmem/lib/libnvshmem_host.so.3", "");
        wrx("nvshmem/bin/nvshmrun", "#!/bin/sh\n");
        conf_init(&c, "12.4", root);
        c.module_version = (char *)"12.4-gcc13";
        c.nccl = S("%s/nccl", g_tmp);
        c.nvshmem = S("%s/nvshmem", g_tmp);
        sdk = load_ok(&c);
        ck_assert_str_eq(sdk->version_full, "12.4.1");
        ck_assert_ptr_nonnull(sdk->nvshmem_bindir);
        ck_assert_ptr_nonnull(sdk->mandir);
        ck_assert_uint_eq(sdk->n_libs, 3);
        break;
    case 2: /* libraries under their versioned names alone */
        root = fake_toolkit("cuda", NULL, 13050);
        ck_assert_int_eq(unlink(S("%s/lib64/libcudart.so", root)), 0);
        wr("cuda/lib64/libcublas.so.13", "");
        wr("cuda/lib64/libcublasLt.so.13.10", "");
        conf_init(&c, "13.5", root);
        sdk = load_ok(&c);
        ck_assert_uint_eq(sdk->n_versioned, 3);
        break;
    case 3: /* version.json out of step with the parts */
        root = fake_toolkit("cuda", "12.4.1", 13000);
        conf_init(&c, "12.4", root);
        sdk = load_ok(&c);
        ck_assert_str_ne(sdk->version.out_of_step, "");
        break;
    case 4: /* a version.json passed over; cuBLAS and NVVM beside */
        root = fake_toolkit("cuda", NULL, 12040);
        wr("cuda/version.json", "{ not json");
        wr("cuda/include/cublas_v2.h", "");
        wr("cuda/lib64/libcublas.so.12", "");
        lnk("libcublas.so.12", "cuda/lib64/libcublas.so");
        wr("cuda/nvvm/include/nvvm.h", "");
        wr("cuda/nvvm/lib64/libnvvm.so.4", "");
        conf_init(&c, "12.4", root);
        sdk = load_ok(&c);
        ck_assert_str_ne(sdk->version.passed_over, "");
        ck_assert_ptr_nonnull(sdk->nvvm_libdir);
        ck_assert_ptr_nonnull(sdk->math_libdir);
        break;
    default: /* a base whose path is not UTF-8 and holds a quote and a backslash */
        root = fake_toolkit("odd \"q\" \\ \xff\xfe", NULL, 12040);
        conf_init(&c, "12.4", root);
        sdk = load_ok(&c);
        ck_assert_ptr_nonnull(strstr(sdk->root, "\xff\xfe"));
        break;
    }
    assert_round_trip(sdk);
    ctk_sdk_free(sdk);
}
END_TEST

/* ==== out of memory ================================================================= */

#ifdef TU_HAVE_FAILING_MALLOC
static ctk_sdk_t *sweep_sdk;
static char *sweep_text;

static void *op_dump(ctk_error_t *err)
{
    return ctk_sdkfacts_dump(sweep_sdk, err);
}

static void *op_load(ctk_error_t *err)
{
    return ctk_sdkfacts_load(&g_conf, sweep_text, strlen(sweep_text), err);
}

static void release_free(void *p)
{
    free(p);
}

static void release_sdk(void *p)
{
    ctk_sdk_free(p);
}

START_TEST(test_out_of_memory_is_reported_and_leaks_nothing)
{
    long n;

    sweep_sdk = full_record();
    n = tu_alloc_sweep("ctk_sdkfacts_dump", op_dump, release_free);
    ck_assert_int_gt(n, 0);
    sweep_text = dump_ok(sweep_sdk);
    n = tu_alloc_sweep("ctk_sdkfacts_load", op_load, release_sdk);
    ck_assert_int_gt(n, 100);
    free(sweep_text);
    ctk_sdk_free(sweep_sdk);
}
END_TEST
#endif

/* The real toolkit's X.Y, from its CUDART_VERSION. */
static bool read_real_mm(void)
{
    const char *incs[] = {"include", "targets/x86_64-linux/include", "targets/sbsa-linux/include"};
    size_t i;

    for (i = 0; i < 3; i++) {
        char inc[4096];
        ctk_version_t v;

        snprintf(inc, sizeof inc, "%s/%s", tu_cuda_root(), incs[i]);
        if (ctk_version_detect(NULL, inc, NULL, &v, NULL)) {
            snprintf(g_mm, sizeof g_mm, "%d.%d", v.major, v.minor);
            return true;
        }
    }
    return false;
}

int main(void)
{
    Suite *s = suite_create("sdkfacts");
    TCase *tc = tcase_create("sdkfacts");
    bool have_cuda = tu_cuda_root() != NULL;
    int rc;

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_full_record_round_trips);
    tcase_add_test(tc, test_text_is_canonical);
    tcase_add_test(tc, test_every_field_changes_the_comparison_and_the_text);
    tcase_add_test(tc, test_equal_tells_null_from_empty_and_null_records);
    tcase_add_test(tc, test_every_field_of_sdk_h_is_in_the_text);
    tcase_add_test(tc, test_malformed_text_is_refused);
    tcase_add_test(tc, test_each_missing_or_unknown_member_is_refused);
    tcase_add_test(tc, test_wrong_kinds_of_value_are_refused);
    tcase_add_test(tc, test_lengths_and_counts_that_do_not_match_are_refused);
    tcase_add_test(tc, test_numbers_out_of_range_are_refused);
    tcase_add_test(tc, test_unknown_library_names_are_refused);
    tcase_add_test(tc, test_strings_too_long_for_their_arrays_are_refused);
    tcase_add_test(tc, test_nul_is_refused);
    tcase_add_test(tc, test_every_cut_of_a_text_is_refused);
    tcase_add_loop_test(tc, test_fake_trees_round_trip, 0, 6);
    if (have_cuda) {
        if (!read_real_mm()) {
            fprintf(stderr, "check_sdkfacts: no CUDART_VERSION under %s\n", tu_cuda_root());
            return 1;
        }
        tcase_add_test(tc, test_real_toolkit_round_trips);
        tcase_add_test(tc, test_every_cut_of_the_real_toolkit_text_is_refused);
        tcase_add_loop_test(tc, test_fixture_layouts_round_trip, 0, 4);
    }
#ifdef TU_HAVE_FAILING_MALLOC
    if (tu_alloc_sweeps_possible("check_sdkfacts"))
        tcase_add_test(tc, test_out_of_memory_is_reported_and_leaks_nothing);
#else
    tu_alloc_sweeps_possible("check_sdkfacts");
#endif
    suite_add_tcase(s, tc);
    rc = tu_run(s);
    if (!have_cuda && rc == 0) {
        const char *ok = getenv("CTK_TEST_CUDA_SKIP_OK");

        if (!ok || strcmp(ok, "yes") != 0) {
            printf("FAIL: no CUDA toolkit: the real-record tests did not run\n");
            return 1;
        }
        printf("SKIP: no CUDA toolkit (configured --without-cuda): the real-record tests did not run\n");
        return 77;
    }
    return rc;
}
