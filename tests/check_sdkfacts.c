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
#include <jansson.h>
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

/* g_tmp/rel: bin/nvcc, include/cuda_runtime{,_api}.h saying cudart,
 * lib64/libcudart.so*, version.json saying json unless NULL. */
static char *fake_toolkit(const char *rel, const char *json, int cudart)
{
    wrx(S("%s/bin/nvcc", rel),
        S("#!/bin/sh\necho 'Cuda compilation tools, release %d.%d, V%d.%d.99'\n", cudart / 1000,
          cudart % 1000 / 10, cudart / 1000, cudart % 1000 / 10));
    wr(S("%s/include/cuda_runtime.h", rel), "#include \"cuda_runtime_api.h\"\n");
    wr(S("%s/include/cuda_runtime_api.h", rel), S("#define CUDART_VERSION  %d\n", cudart));
    wr(S("%s/lib64/libcudart.so.%d", rel, cudart / 1000), "");
    lnk(S("libcudart.so.%d", cudart / 1000), S("%s/lib64/libcudart.so", rel));
    if (json)
        wr(S("%s/version.json", rel), S("{\"cuda\": {\"name\": \"CUDA SDK\", \"version\": \"%s\"}}\n", json));
    return S("%s/%s", g_tmp, rel);
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

START_TEST(test_full_record_round_trips)
{
    ctk_sdk_t *s = full_record();
    char *t = dump_ok(s);

    ck_assert_uint_gt(s->n_libs, 5);
    ck_assert_uint_gt(s->n_versioned, 20);
    /* the bytes that are not UTF-8 are kept as such, the rest as JSON strings */
    ck_assert_ptr_nonnull(strstr(t, "\"root\": {\"hex\": \"2f6f70742ffffe"));
    ck_assert_ptr_nonnull(strstr(t, "\"version_mm\": \"/opt/cuda-12.4/version_mm\""));
    ck_assert_ptr_nonnull(strstr(t, "\"version_full\": \"/opt/cuda-12.4/version_full\""));
    assert_round_trip(s);
    free(t);
    ctk_sdk_free(s);
}
END_TEST

/* Valid JSON of the same members in another layout is the same record. */
START_TEST(test_reformatted_text_loads_the_same)
{
    ctk_sdk_t *s = full_record(), *back;
    char *t = dump_ok(s), *compact;
    json_t *j = json_loads(t, 0, NULL);

    ck_assert_ptr_nonnull(j);
    compact = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    ck_assert_ptr_nonnull(compact);
    back = facts_ok(&g_conf, compact);
    ck_assert(ctk_sdkfacts_equal(s, back));
    free(compact);
    json_decref(j);
    free(t);
    ctk_sdk_free(back);
    ctk_sdk_free(s);
}
END_TEST

/* ==== every field matters =========================================================== */

static void set(char **slot, const char *v)
{
    free(*slot);
    *slot = v ? xdup(v) : NULL;
}

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

/* A field added to sdk.h and left out of the lists above (and so, through
 * the sums in sdkfacts.c, of sdkfacts.c) fails here: each field of each
 * record is named in the text, or is the record's own structure. */
START_TEST(test_every_field_of_sdk_h_is_in_the_text)
{
    char *path = keep(tu_srcpath("generator/sdk.h"));
    char *h = keep(tu_read(path));
    const char *str_keys[N_STR], *list_keys[N_LIST];
    ctk_sdk_t *s = full_record();
    char *t = keep(dump_ok(s)), *ver_line, *lib_line, *vd_line, *fields;
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
                ck_assert_msg(strstr(t, S("\n  \"%s\": ", w)), "ctk_sdk_t.%s is not in the text", w);
        }
    }
    ver_line = strstr(t, "\n  \"version\": {");
    ck_assert_ptr_nonnull(ver_line);
    ver_line = S("%.*s", (int)(strchr(ver_line + 1, '\n') - ver_line), ver_line);
    fields = struct_fields(h, "ctk_version_t");
    ck_assert_str_eq(fields, names_of(version_fields, 7, NULL, 0));
    for (i = 0; i < 7; i++)
        ck_assert_msg(strstr(ver_line, S("\"%s\": ", version_fields[i])), "version.%s", version_fields[i]);
    lib_line = strstr(t, "\n    {\"name\": \"cudart\", \"libdir\"");
    ck_assert_ptr_nonnull(lib_line);
    lib_line = S("%.*s", (int)(strchr(lib_line + 1, '\n') - lib_line), lib_line);
    fields = struct_fields(h, "ctk_sdk_lib_t");
    ck_assert_str_eq(fields, "name label description math libdir link");
    for (i = 0; i < 3; i++)
        ck_assert_msg(strstr(lib_line, S("\"%s\": ", lib_fields[i])), "libs[].%s", lib_fields[i]);
    for (i = 0; i < 3; i++)
        ck_assert_msg(has_word(fields, lib_table_fields[i]) && !strstr(lib_line, S("\"%s\"", lib_table_fields[i])),
                      "libs[].%s", lib_table_fields[i]);
    vd_line = strstr(t, "\n    {\"name\": \"cudart\", \"file\"");
    ck_assert_ptr_nonnull(vd_line);
    fields = struct_fields(h, "ctk_sdk_versioned_t");
    ck_assert_str_eq(fields, names_of(versioned_fields, 2, NULL, 0));
    ctk_sdk_free(s);
}
END_TEST

/* ==== bad text ====================================================================== */

/* text refused with CTK_E_IO, nothing left allocated */
static void assert_refused(const char *text, size_t len, const char *why)
{
    ctk_error_t e;
    ctk_sdk_t *sdk;
#ifdef TU_HAVE_FAILING_MALLOC
    long long before = tu_live_bytes;
#endif

    ctk_error_init(&e);
    sdk = ctk_sdkfacts_load(&g_conf, text, len, &e);
#ifdef TU_HAVE_FAILING_MALLOC
    ck_assert_msg(sdk != NULL || tu_live_bytes == before, "%s: leaked %lld bytes", why, tu_live_bytes - before);
#endif
    ck_assert_msg(sdk == NULL, "%s: loaded", why);
    ck_assert_msg(e.code == CTK_E_IO, "%s: %s: %s", why, ctk_error_code_name(e.code), e.text);
    ck_assert_msg(e.text[0] != '\0', "%s: no message", why);
}

static json_t *g_doc; /* the full record's text as jansson sees it */

static json_t *doc(void)
{
    ctk_sdk_t *s = full_record();
    char *t = dump_ok(s);

    json_decref(g_doc);
    g_doc = json_loads(t, 0, NULL);
    ck_assert_ptr_nonnull(g_doc);
    free(t);
    ctk_sdk_free(s);
    return g_doc;
}

/* d as text; refused, or (ok) loaded */
static void try_doc(const json_t *d, bool ok, const char *why)
{
    char *t = json_dumps(d, JSON_PRESERVE_ORDER);

    ck_assert_ptr_nonnull(t);
    if (ok)
        ctk_sdk_free(facts_ok(&g_conf, t));
    else
        assert_refused(t, strlen(t), why);
    free(t);
}

START_TEST(test_malformed_text_is_refused)
{
    static const char *const cases[] = {
        "", " ", "{", "}", "[]", "null", "\"x\"", "1", "{\"sdkfacts\": 1",
        "{\"sdkfacts\": 1,}", "{} {}", "{\"sdkfacts\": 1} x",
    };
    ctk_sdk_t *s = full_record();
    char *t = dump_ok(s), *dupkey;
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_refused(cases[i], strlen(cases[i]), S("case %zu: %s", i, cases[i]));
    assert_refused(t, strlen(t) / 2, "half the text");
    assert_refused(t, strlen(t) - 3, "the text less its end");
    /* the same member twice */
    dupkey = S("{\"root\": null,%s", t + 1);
    assert_refused(dupkey, strlen(dupkey), "root twice");
    /* a NUL byte in the text itself */
    {
        char *nul = S("%s", t);

        strstr(nul, "version_mm\": \"")[14] = '\0';
        assert_refused(nul, strlen(t), "a raw NUL");
    }
    free(t);
    ctk_sdk_free(s);
}
END_TEST

/* the members of the text, and of each of its objects */
START_TEST(test_each_missing_or_unknown_member_is_refused)
{
    json_t *d = doc();
    const char *keys[64];
    void *it;
    size_t i, n = 0;

    for (it = json_object_iter(d); it; it = json_object_iter_next(d, it)) {
        ck_assert_uint_lt(n, 64);
        keys[n++] = keep(strdup(json_object_iter_key(it)));
    }
    ck_assert_uint_eq(n, 1 + N_STR + 1 + N_LIST + 2);
    for (i = 0; i < n; i++) {
        json_t *held = json_incref(json_object_get(d, keys[i]));

        json_object_del(d, keys[i]);
        try_doc(d, false, S("no %s", keys[i]));
        json_object_set_new(d, keys[i], held);
    }
    for (i = 0; i < 7; i++) {
        json_t *ver = json_object_get(d, "version"), *held = json_incref(json_object_get(ver, version_fields[i]));

        json_object_del(ver, version_fields[i]);
        try_doc(d, false, S("no version.%s", version_fields[i]));
        json_object_set_new(ver, version_fields[i], held);
    }
    for (i = 0; i < 3; i++) {
        json_t *lib = json_array_get(json_object_get(d, "libs"), 2), *held = json_incref(json_object_get(lib, lib_fields[i]));

        json_object_del(lib, lib_fields[i]);
        try_doc(d, false, S("no libs[2].%s", lib_fields[i]));
        json_object_set_new(lib, lib_fields[i], held);
    }
    for (i = 0; i < 2; i++) {
        json_t *vd = json_array_get(json_object_get(d, "versioned"), 1),
               *held = json_incref(json_object_get(vd, versioned_fields[i]));

        json_object_del(vd, versioned_fields[i]);
        try_doc(d, false, S("no versioned[1].%s", versioned_fields[i]));
        json_object_set_new(vd, versioned_fields[i], held);
    }
    try_doc(d, true, "whole again");
    /* one member more, at each level */
    {
        json_t *where[] = {d, json_object_get(d, "version"), json_array_get(json_object_get(d, "libs"), 0),
                           json_array_get(json_object_get(d, "versioned"), 0)};

        for (i = 0; i < 4; i++) {
            json_object_set_new(where[i], "extra", json_null());
            try_doc(d, false, S("extra member at level %zu", i));
            json_object_del(where[i], "extra");
        }
        json_object_set_new(where[0], "label", json_string("cuBLAS")); /* not in the text either */
        try_doc(d, false, "libs[0].label");
        json_object_del(where[0], "label");
    }
    try_doc(d, true, "whole again");
}
END_TEST

/* What a member may hold, for the table of values below. */
typedef enum { K_FORM, K_STR_OR_NULL, K_INT, K_SOURCE, K_ARRAY_STR, K_ARRAY_OBJ, K_OBJ, K_ARRAY_OF_STR } want_t;

static json_t *wrong_value(int i)
{
    switch (i) {
    case 0: return json_integer(12345);
    case 1: return json_true();
    case 2: return json_string("s");
    case 3: return json_array();
    case 4: return json_object();
    case 5: return json_null();
    case 6: return json_real(1.5);
    case 7: return json_pack("[i]", 1);
    case 8: return json_pack("[n]");
    case 9: return json_pack("[[s]]", "a");
    case 10: return json_integer(1);
    case 11: return json_integer(-1);
    case 12: return json_integer(5);
    case 13: return json_integer(2147483648LL);
    case 14: return json_integer(-2147483649LL);
    case 15: return json_pack("{s:s}", "hex", "ff");
    }
    return NULL;
}

/* whether wrong_value(i) is in fact right for a member that holds w */
static bool value_fits(want_t w, int i)
{
    switch (w) {
    case K_FORM: return i == 10;
    case K_STR_OR_NULL: return i == 2 || i == 5 || i == 15;
    case K_INT: return i == 0 || i == 10 || i == 11 || i == 12;
    case K_SOURCE: return i == 10;
    case K_ARRAY_STR: return i == 3; /* a list: [] only of these */
    case K_ARRAY_OBJ: return i == 3;
    case K_OBJ: return false;
    case K_ARRAY_OF_STR: return i == 3;
    }
    return false;
}

static void try_values(json_t *obj, const char *key, want_t w, const char *where)
{
    json_t *held = json_incref(json_object_get(obj, key));
    int i;

    ck_assert_ptr_nonnull(held);
    for (i = 0; i <= 15; i++) {
        char why[128];

        snprintf(why, sizeof why, "%s = value %d", where, i);
        json_object_set_new(obj, key, wrong_value(i));
        try_doc(g_doc, value_fits(w, i), why);
    }
    json_object_set_new(obj, key, held);
}

START_TEST(test_wrong_types_and_ranges_are_refused)
{
    json_t *d = doc(), *ver = json_object_get(d, "version");
    json_t *lib = json_array_get(json_object_get(d, "libs"), 0);
    json_t *vd = json_array_get(json_object_get(d, "versioned"), 0);
    size_t i;

    try_values(d, "sdkfacts", K_FORM, "sdkfacts");
    for (i = 0; i < N_STR; i++)
        try_values(d, str_fields[i].key, K_STR_OR_NULL, str_fields[i].key);
    for (i = 0; i < N_LIST; i++)
        try_values(d, list_fields[i].key, K_ARRAY_OF_STR, list_fields[i].key);
    try_values(d, "version", K_OBJ, "version");
    try_values(d, "libs", K_ARRAY_OBJ, "libs");
    try_values(d, "versioned", K_ARRAY_OBJ, "versioned");
    try_values(ver, "major", K_INT, "version.major");
    try_values(ver, "minor", K_INT, "version.minor");
    try_values(ver, "patch", K_INT, "version.patch");
    try_values(ver, "source", K_SOURCE, "version.source");
    try_values(lib, "libdir", K_STR_OR_NULL, "libs[0].libdir");
    try_values(lib, "link", K_STR_OR_NULL, "libs[0].link");
    try_values(vd, "file", K_STR_OR_NULL, "versioned[0].file");
    /* strings that may not be null, and names that must be known */
    for (i = 0; i <= 15; i++) {
        bool str = i == 2 || i == 15;

        json_object_set_new(ver, "path", wrong_value((int)i));
        try_doc(d, str, S("version.path = value %zu", i));
        json_object_set_new(lib, "name", wrong_value((int)i));
        json_object_set_new(ver, "path", json_string("/p"));
        try_doc(d, false, S("libs[0].name = value %zu", i));
        json_object_set_new(lib, "name", json_string("cudart"));
        json_object_set_new(vd, "name", wrong_value((int)i));
        try_doc(d, false, S("versioned[0].name = value %zu", i));
        json_object_set_new(vd, "name", json_string("cudart"));
    }
    /* the sources at either end */
    for (i = CTK_VSRC_NONE; i <= CTK_VSRC_NVCC; i++) {
        json_object_set_new(ver, "source", json_integer((json_int_t)i));
        try_doc(d, true, "a source in range");
    }
    json_object_set_new(ver, "source", json_integer(CTK_VSRC_NVCC + 1));
    try_doc(d, false, "source past the last");
    json_object_set_new(ver, "source", json_integer(1));
    json_object_set_new(d, "sdkfacts", json_integer(2));
    try_doc(d, false, "another form");
    json_object_set_new(d, "sdkfacts", json_integer(1));
    try_doc(d, true, "whole again");
    /* the libraries array itself */
    json_array_append_new(json_object_get(d, "libs"), json_string("cudart"));
    try_doc(d, false, "a library as a string");
    json_array_remove(json_object_get(d, "libs"), json_array_size(json_object_get(d, "libs")) - 1);
    json_array_append_new(json_object_get(d, "versioned"), json_null());
    try_doc(d, false, "a versioned library as null");
    json_array_remove(json_object_get(d, "versioned"), json_array_size(json_object_get(d, "versioned")) - 1);
    try_doc(d, true, "whole again");
}
END_TEST

START_TEST(test_unknown_library_names_are_refused)
{
    static const char *const lib_bad[] = {"cuNOPE", "", "CUDART", "cudart ", "cublasLt" /* a link name only */};
    static const char *const vd_bad[] = {"nope", "", "nccl" /* a .pc library only */, "cudart\n"};
    json_t *d = doc();
    json_t *lib = json_array_get(json_object_get(d, "libs"), 1);
    json_t *vd = json_array_get(json_object_get(d, "versioned"), 1);
    size_t i;

    for (i = 0; i < sizeof lib_bad / sizeof lib_bad[0]; i++) {
        json_object_set_new(lib, "name", json_string(lib_bad[i]));
        try_doc(d, false, S("libs[1].name %s", lib_bad[i]));
    }
    json_object_set_new(lib, "name", json_pack("{s:s}", "hex", "ff"));
    try_doc(d, false, "libs[1].name hex");
    json_object_set_new(lib, "name", json_string("nvshmem"));
    try_doc(d, true, "libs[1].name nvshmem");
    for (i = 0; i < sizeof vd_bad / sizeof vd_bad[0]; i++) {
        json_object_set_new(vd, "name", json_string(vd_bad[i]));
        try_doc(d, false, S("versioned[1].name %s", vd_bad[i]));
    }
    json_object_set_new(vd, "name", json_string("npps"));
    try_doc(d, true, "versioned[1].name npps");
}
END_TEST

static json_t *filled(char c, size_t n)
{
    char *s = malloc(n + 1);
    json_t *v;

    ck_assert_ptr_nonnull(s);
    memset(s, c, n);
    s[n] = '\0';
    v = json_string(s);
    free(s);
    return v;
}

static json_t *hex_filled(size_t n) /* n bytes 0xff */
{
    char *s = malloc(2 * n + 1);
    json_t *v;

    ck_assert_ptr_nonnull(s);
    memset(s, 'f', 2 * n);
    s[2 * n] = '\0';
    v = json_pack("{s:s}", "hex", s);
    free(s);
    return v;
}

START_TEST(test_strings_too_long_for_their_arrays_are_refused)
{
    static const struct {
        const char *key;
        size_t size;
    } arrays[] = {{"path", 4096}, {"passed_over", 512}, {"out_of_step", 1536}};
    json_t *d = doc(), *ver = json_object_get(d, "version");
    size_t i;

    for (i = 0; i < 3; i++) {
        json_object_set_new(ver, arrays[i].key, filled('a', arrays[i].size - 1));
        try_doc(d, true, S("version.%s of %zu bytes", arrays[i].key, arrays[i].size - 1));
        json_object_set_new(ver, arrays[i].key, filled('a', arrays[i].size));
        try_doc(d, false, S("version.%s of %zu bytes", arrays[i].key, arrays[i].size));
        json_object_set_new(ver, arrays[i].key, hex_filled(arrays[i].size - 1));
        try_doc(d, true, S("version.%s of %zu bytes in hex", arrays[i].key, arrays[i].size - 1));
        json_object_set_new(ver, arrays[i].key, hex_filled(arrays[i].size));
        try_doc(d, false, S("version.%s of %zu bytes in hex", arrays[i].key, arrays[i].size));
        json_object_set_new(ver, arrays[i].key, json_string(""));
    }
    /* "é" is two bytes: 2048 of them are 4096 */
    {
        char s[4097];

        for (i = 0; i < 4096; i += 2) {
            s[i] = '\xc3';
            s[i + 1] = '\xa9';
        }
        s[4096] = '\0';
        json_object_set_new(ver, "path", json_string(s));
        try_doc(d, false, "version.path of 2048 two-byte characters");
        s[4094] = '\0';
        json_object_set_new(ver, "path", json_string(s));
        try_doc(d, true, "version.path of 2047 two-byte characters");
    }
}
END_TEST

START_TEST(test_nul_and_bad_hex_are_refused)
{
    static const char *const hex_bad[] = {
        "",         /* "" is UTF-8: written as a string */
        "61",       /* "a": the same */
        "c3a9",     /* "é": the same */
        "f",  "fff", "FF", "fg", "ff00", "00ff", "00", " ff", "ff ",
    };
    json_t *d = doc(), *ver = json_object_get(d, "version");
    json_t *lib = json_array_get(json_object_get(d, "libs"), 0);
    size_t i;

    for (i = 0; i < sizeof hex_bad / sizeof hex_bad[0]; i++) {
        json_object_set_new(d, "incdir", json_pack("{s:s}", "hex", hex_bad[i]));
        try_doc(d, false, S("hex \"%s\"", hex_bad[i]));
    }
    json_object_set_new(d, "incdir", json_pack("{s:s, s:n}", "hex", "ff", "more"));
    try_doc(d, false, "hex with another member");
    json_object_set_new(d, "incdir", json_pack("{s:i}", "hex", 255));
    try_doc(d, false, "hex not a string");
    json_object_set_new(d, "incdir", json_pack("{s:s}", "Hex", "ff"));
    try_doc(d, false, "Hex");
    json_object_set_new(d, "incdir", json_pack("{s:s}", "hex", "ff61"));
    try_doc(d, true, "hex ff61");
    json_object_set_new(d, "incdir", json_string("/i"));
    /* \u0000 in a string: in a field, a list, the version, a library */
    {
        json_t *targets[][2] = {{d, NULL}, {ver, NULL}, {lib, NULL}};
        const char *keys[] = {"root", "path", "libdir"};

        for (i = 0; i < 3; i++) {
            targets[i][1] = json_incref(json_object_get(targets[i][0], keys[i]));
            json_object_set_new(targets[i][0], keys[i], json_stringn("a\0b", 3));
            try_doc(d, false, S("NUL in %s", keys[i]));
            json_object_set_new(targets[i][0], keys[i], targets[i][1]);
        }
        json_array_append_new(json_object_get(d, "cpath"), json_stringn("\0", 1));
        try_doc(d, false, "NUL in cpath");
    }
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
    tcase_add_test(tc, test_reformatted_text_loads_the_same);
    tcase_add_test(tc, test_every_field_changes_the_comparison_and_the_text);
    tcase_add_test(tc, test_equal_tells_null_from_empty_and_null_records);
    tcase_add_test(tc, test_every_field_of_sdk_h_is_in_the_text);
    tcase_add_test(tc, test_malformed_text_is_refused);
    tcase_add_test(tc, test_each_missing_or_unknown_member_is_refused);
    tcase_add_test(tc, test_wrong_types_and_ranges_are_refused);
    tcase_add_test(tc, test_unknown_library_names_are_refused);
    tcase_add_test(tc, test_strings_too_long_for_their_arrays_are_refused);
    tcase_add_test(tc, test_nul_and_bad_hex_are_refused);
    tcase_add_loop_test(tc, test_fake_trees_round_trip, 0, 6);
    if (have_cuda) {
        if (!read_real_mm()) {
            fprintf(stderr, "check_sdkfacts: no CUDART_VERSION under %s\n", tu_cuda_root());
            return 1;
        }
        tcase_add_test(tc, test_real_toolkit_round_trips);
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
