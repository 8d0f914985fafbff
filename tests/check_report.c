/* check_report.c - findings, probe reports, the JSON report, cache entries
 * and the text validate prints.
 * SPDX-License-Identifier: MIT
 *
 * JSON output is parsed back with jansson and checked field by field;
 * text output goes to a memory stream and is checked for the lines a user
 * reads.  The code table is checked against docs/diagnostics.md both ways.
 */
#include <ctkconf.h>

#include "diag.h"
#include "failmalloc.h"
#include "jsonio.h"
#include "probeio.h"
#include "report.h"
#include "testutil.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixtures -------------------------------------------------------------- */

#define LIBCUDART "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcudart.so.13"

static const char host_line[] =
    "{\"probe\":\"host\",\"cudart_header\":13000,\"runtime\":13000,\"driver\":0,"
    "\"devices\":0,\"device_status\":\"cudaErrorInsufficientDriver\","
    "\"libcudart\":\"" LIBCUDART "\"}";

/* The cuda report as key/value pairs, so tests can drop or replace one. */
typedef struct {
    const char *key;
    const char *value; /* JSON text */
} kv_t;

static const kv_t cuda_keys[] = {
    { "probe", "\"cuda\"" },
    { "cudart_header", "13000" },
    { "runtime", "13000" },
    { "driver", "13020" },
    { "devices", "1" },
    { "status", "\"cudaSuccess\"" },
    { "device", "\"NVIDIA H200\"" },
    { "cc", "\"9.0\"" },
    { "kernel_ok", "true" },
    { "libcudart", "\"" LIBCUDART "\"" },
};
#define N_CUDA_KEYS (sizeof cuda_keys / sizeof cuda_keys[0])

/* The cuda report line without key `drop` and with `key` set to `value`
 * (either may be NULL); caller frees. */
static char *cuda_line_with(const char *drop, const char *key, const char *value)
{
    ctk_buf_t b;
    size_t i;
    bool first = true;

    ctk_buf_init(&b);
    ctk_buf_puts(&b, "{");
    for (i = 0; i < N_CUDA_KEYS; i++) {
        const char *v = cuda_keys[i].value;

        if (drop && strcmp(cuda_keys[i].key, drop) == 0)
            continue;
        if (key && strcmp(cuda_keys[i].key, key) == 0)
            v = value;
        ctk_buf_printf(&b, "%s\"%s\":%s", first ? "" : ",", cuda_keys[i].key, v);
        first = false;
    }
    ctk_buf_puts(&b, "}");
    ck_assert(!b.failed);
    return ctk_buf_take(&b, NULL);
}

static void assert_report_empty(const ctk_probe_report_t *r)
{
    ck_assert(!r->present);
    ck_assert_ptr_null(r->status);
    ck_assert_ptr_null(r->device);
    ck_assert_ptr_null(r->libcudart);
    ck_assert_int_eq(r->runtime, 0);
}

static char *xstrdup(const char *s)
{
    char *p = ctk_strdup(s, NULL);

    ck_assert_ptr_nonnull(p);
    return p;
}

static void env_put(ctk_env_t *e, const char *name, const char *value)
{
    ck_assert(ctk_env_set(e, name, value, NULL));
}

static void add_finding(ctk_findings_t *f, const char *code, const char *file, int line,
                        const char *text)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_findings_add(f, code, file, line, &err, "%s", text), "%s", err.text);
}

static void probe_fill(ctk_probe_report_t *p, bool is_cuda)
{
    p->present = true;
    p->is_cuda = is_cuda;
    p->cudart_header = 13000;
    p->runtime = 13000;
    p->driver = is_cuda ? 13020 : 0;
    p->devices = is_cuda ? 1 : 0;
    p->status = xstrdup(is_cuda ? "cudaSuccess" : "cudaErrorInsufficientDriver");
    p->device = xstrdup(is_cuda ? "NVIDIA H200" : "");
    p->cc_major = is_cuda ? 9 : 0;
    p->cc_minor = 0;
    p->kernel_ok = is_cuda ? 1 : -1;
    p->libcudart = xstrdup(LIBCUDART);
}

/* A result with every member set that its kind uses. */
static void art_fill(ctk_vart_t *a, ctk_art_t kind)
{
    static const char *const files[] = {
        "/out/lmod/cudatoolkit/13.0.lua",
        "/out/tcl/cudatoolkit/13.0",
        "/out/pkgconfig/ctk-13.0.pc",
    };

    ctk_vart_init(a, kind);
    a->file = xstrdup(files[kind]);
    a->seconds = 1.42;
    a->nvcc = xstrdup("/usr/local/cuda-13.0/bin/nvcc");
    a->nvcc_release = xstrdup("13.0");
    probe_fill(&a->cuda, true);
    switch (kind) {
    case CTK_ART_LMOD:
        a->built_by = xstrdup("pc");
        a->linked_by = xstrdup("pc");
        a->verdict = CTK_VERDICT_FAIL;
        env_put(&a->env, "PATH", "/usr/local/cuda-13.0/bin:/usr/bin:/bin");
        env_put(&a->env, "CPATH", "/usr/local/cuda-13.0/include");
        env_put(&a->env, "EMPTY", "");
        env_put(&a->env, "QUOTED", "a \"b\" c\\d\te");
        add_finding(&a->findings, "CTK-CPATH-001", a->file, 12,
                    "CPATH misses /usr/local/cuda-13.0/include, which holds cuda_runtime.h");
        add_finding(&a->findings, "CTK-MOD-003", NULL, 0, "no family() or conflict()");
        probe_fill(&a->host, false);
        a->launched = true;
        break;
    case CTK_ART_TCL:
        a->verdict = CTK_VERDICT_SKIP;
        a->skip_code = xstrdup("CTK-SKIP-003");
        a->skip_reason = xstrdup("Environment Modules not found");
        ctk_probe_report_fini(&a->cuda);
        break;
    case CTK_ART_PC:
        a->verdict = CTK_VERDICT_PASS;
        a->cached = true;
        ck_assert(ctk_strlist_push(&a->cflags, "-I/usr/local/cuda-13.0/include", NULL));
        ck_assert(ctk_strlist_push(&a->libs, "-L/usr/local/cuda-13.0/lib64", NULL));
        ck_assert(ctk_strlist_push(&a->libs, "-Wl,-rpath,/usr/local/cuda-13.0/lib64", NULL));
        ck_assert(ctk_strlist_push(&a->libs, "-lcudart", NULL));
        a->pc_version = xstrdup("13.0.1");
        a->cuda.kernel_ok = 0;
        a->cuda.cc_major = a->cuda.cc_minor = 0;
        a->cuda.devices = 0;
        break;
    case CTK_ART__COUNT:
        break;
    }
}

static void sdk_fill(ctk_vsdk_t *s, const char *mm, ctk_verdict_t v, double seconds)
{
    int k;

    memset(s, 0, sizeof *s);
    s->module = ctk_printf(NULL, "cudatoolkit/%s", mm);
    s->pc_name = ctk_printf(NULL, "ctk-%s", mm);
    s->version = ctk_printf(NULL, "%s.1", mm);
    s->root = ctk_printf(NULL, "/usr/local/cuda-%s", mm);
    s->verdict = v;
    s->seconds = seconds;
    for (k = 0; k < CTK_ART__COUNT; k++)
        art_fill(&s->art[k], (ctk_art_t)k);
}

static void sdk_fini(ctk_vsdk_t *s)
{
    int k;

    free(s->module);
    free(s->pc_name);
    free(s->version);
    free(s->root);
    for (k = 0; k < CTK_ART__COUNT; k++)
        ctk_vart_fini(&s->art[k]);
}

/* Two SDKs; the second all PASS but for a FAIL pc. */
static void report_fill(ctk_vreport_t *r)
{
    int k;

    memset(r, 0, sizeof *r);
    r->outdir = xstrdup("/out");
    r->n_sdks = 2;
    r->sdks = calloc(2, sizeof *r->sdks);
    ck_assert_ptr_nonnull(r->sdks);
    sdk_fill(&r->sdks[0], "13.0", CTK_VERDICT_FAIL, 3.5);
    sdk_fill(&r->sdks[1], "12.4", CTK_VERDICT_FAIL, 2.25);
    for (k = 0; k < CTK_ART__COUNT; k++) {
        ctk_vart_t *a = &r->sdks[1].art[k];

        ctk_vart_fini(a);
        a->file = xstrdup("/out/x");
        a->verdict = k == CTK_ART_PC ? CTK_VERDICT_FAIL : CTK_VERDICT_PASS;
        a->seconds = 0.5;
    }
    r->cc = xstrdup("/usr/bin/cc");
    r->cxx = xstrdup("/usr/bin/c++");
    r->cc_version = xstrdup("12.2.0");
    r->tcl_modsys = xstrdup("Environment Modules 5.2.0 (/usr/share/modules/libexec/modulecmd.tcl)");
    r->jobs = 4;
    r->seconds = 12.3456;
    r->n_pass = 3;
    r->n_skip = 1;
    r->n_fail = 2;
    r->n_skip_unchecked = 1;
}

static void report_free(ctk_vreport_t *r)
{
    size_t i;

    for (i = 0; i < r->n_sdks; i++)
        sdk_fini(&r->sdks[i]);
    free(r->sdks);
    free(r->outdir);
    free(r->cc);
    free(r->cxx);
    free(r->cc_version);
    free(r->driver);
    free(r->tcl_modsys);
    free(r->tcl_user);
    free(r->lmod);
}

static json_t *parse_json(const char *text)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);

    ck_assert_msg(root != NULL, "not JSON: %s at %d:%d\n%.1500s", je.text, je.line, je.column,
                  text);
    return root;
}

/* The keys of a JSON object, in order, joined with ','; caller frees. */
static char *keys_of(const json_t *o)
{
    const char *key;
    json_t *v;
    ctk_buf_t b;

    ck_assert(json_is_object(o));
    ctk_buf_init(&b);
    json_object_foreach((json_t *)o, key, v) {
        (void)v;
        ctk_buf_printf(&b, "%s%s", b.len ? "," : "", key);
    }
    ctk_buf_puts(&b, "");
    return ctk_buf_take(&b, NULL);
}

static void assert_keys(const json_t *o, const char *expected)
{
    char *keys = keys_of(o);

    ck_assert_str_eq(keys, expected);
    free(keys);
}

static const char *jget_str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    ck_assert_msg(json_is_string(v), "\"%s\" is not a string", key);
    return json_string_value(v);
}

static long long jget_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    ck_assert_msg(json_is_integer(v), "\"%s\" is not an integer", key);
    return (long long)json_integer_value(v);
}

/* What fp wrote; caller frees. */
typedef struct {
    FILE *fp;
    char *buf;
    size_t len;
} mem_t;

static void mem_open(mem_t *m)
{
    m->buf = NULL;
    m->len = 0;
    m->fp = open_memstream(&m->buf, &m->len);
    ck_assert_ptr_nonnull(m->fp);
}

static char *mem_close(mem_t *m)
{
    fclose(m->fp);
    return m->buf;
}

static void assert_contains(const char *hay, const char *needle)
{
    ck_assert_msg(strstr(hay, needle) != NULL, "expected \"%s\" in:\n%.1500s", needle, hay);
}

static void assert_ends_with(const char *hay, const char *tail)
{
    size_t n = strlen(hay), t = strlen(tail);

    ck_assert_msg(n >= t && strcmp(hay + n - t, tail) == 0, "expected to end with \"%s\":\n%.1500s",
                  tail, hay);
}

static void assert_lacks(const char *hay, const char *needle)
{
    ck_assert_msg(strstr(hay, needle) == NULL, "did not expect \"%s\" in:\n%.1500s", needle, hay);
}

/* ---- the code table ---------------------------------------------------------- */

static bool code_well_formed(const char *c)
{
    const char *p;
    int n;

    if (strncmp(c, "CTK-", 4) != 0)
        return false;
    for (p = c + 4; *p >= 'A' && *p <= 'Z'; p++)
        ;
    if (p == c + 4 || *p++ != '-')
        return false;
    for (n = 0; *p >= '0' && *p <= '9'; p++)
        n++;
    return n == 3 && *p == '\0';
}

START_TEST(test_diag_codes_are_unique_well_formed_and_explained)
{
    const ctk_diag_t *d, *e;
    size_t n = 0;

    for (d = ctk_diags; d->code; d++, n++) {
        ck_assert_msg(code_well_formed(d->code), "malformed code \"%s\"", d->code);
        for (e = d + 1; e->code; e++)
            ck_assert_msg(strcmp(d->code, e->code) != 0, "%s appears twice", d->code);
        ck_assert_msg(d->summary && d->summary[0], "%s has no summary", d->code);
        ck_assert_msg(d->fix && d->fix[0], "%s has no fix", d->code);
        ck_assert_msg(!strchr(d->summary, '\n') && !strchr(d->fix, '\n'), "%s: not one line",
                      d->code);
        ck_assert_msg(d->summary[strlen(d->summary) - 1] != '.' && d->fix[strlen(d->fix) - 1] != '.',
                      "%s: summary and fix end without a period", d->code);
        ck_assert(ctk_diag_find(d->code) == d);
        ck_assert_str_ne(ctk_severity_name(d->severity), "unknown");
    }
    ck_assert_uint_eq(n, 54);
    ck_assert_ptr_null(ctk_diag_find("CTK-NOPE-001"));
    ck_assert_ptr_null(ctk_diag_find(NULL));
    ck_assert(!code_well_formed("CTK-CPATH-01"));
    ck_assert(!code_well_formed("CTK--001"));
    ck_assert(!code_well_formed("CTK-cpath-001"));
}
END_TEST

START_TEST(test_diag_severities_are_as_specified)
{
    static const struct {
        const char *code;
        ctk_severity_t sev;
    } cases[] = {
        { "CTK-MOD-003", CTK_SEV_WARNING },   { "CTK-CPATH-002", CTK_SEV_WARNING },
        { "CTK-LDLIB-003", CTK_SEV_WARNING }, { "CTK-HOSTCC-002", CTK_SEV_WARNING },
        { "CTK-HOSTCC-003", CTK_SEV_WARNING },
        { "CTK-SKIP-001", CTK_SEV_NOTE },     { "CTK-SKIP-002", CTK_SEV_NOTE },
        { "CTK-SKIP-003", CTK_SEV_NOTE },     { "CTK-SKIP-004", CTK_SEV_NOTE },
        { "CTK-CPATH-001", CTK_SEV_ERROR },
        { "CTK-GPU-005", CTK_SEV_ERROR },     { "CTK-ENV-003", CTK_SEV_ERROR },
        { "CTK-TRUST-001", CTK_SEV_WARNING }, { "CTK-TRUST-002", CTK_SEV_WARNING },
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const ctk_diag_t *d = ctk_diag_find(cases[i].code);

        ck_assert_msg(d != NULL, "%s missing", cases[i].code);
        ck_assert_msg(d->severity == cases[i].sev, "%s has severity %s", cases[i].code,
                      ctk_severity_name(d->severity));
    }
    ck_assert_str_eq(ctk_severity_name(CTK_SEV_NOTE), "note");
    ck_assert_str_eq(ctk_severity_name(CTK_SEV_WARNING), "warning");
    ck_assert_str_eq(ctk_severity_name(CTK_SEV_ERROR), "error");
}
END_TEST

/* Every code has a "## CODE" section stating its severity, and every
 * "## CTK-" section is a code of the table. */
START_TEST(test_diag_table_and_docs_agree)
{
    char *path = tu_srcpath("docs/diagnostics.md");
    char *doc = tu_read(path);
    const ctk_diag_t *d;
    const char *p;
    size_t sections = 0;

    ck_assert_msg(doc != NULL, "cannot read %s", path);
    for (d = ctk_diags; d->code; d++) {
        char *head = ctk_printf(NULL, "\n## %s\n", d->code);
        char *sev = ctk_printf(NULL, "**Severity:** %s\n", ctk_severity_name(d->severity));
        const char *sec = strstr(doc, head), *next;

        ck_assert_msg(sec != NULL, "docs/diagnostics.md has no \"## %s\" section", d->code);
        sec += strlen(head);
        next = strstr(sec, "\n## ");
        p = strstr(sec, sev);
        ck_assert_msg(p && (!next || p < next), "docs: %s does not say \"%s\"", d->code, sev);
        ck_assert_msg(strstr(sec, "**Fix:**") && (!next || strstr(sec, "**Fix:**") < next),
                      "docs: %s has no fix", d->code);
        ck_assert_msg(strstr(sec, "**Detection:**") &&
                          (!next || strstr(sec, "**Detection:**") < next),
                      "docs: %s does not say how it is detected", d->code);
        ck_assert_msg(strstr(sec, d->code) && (!next || strstr(sec, d->code) < next),
                      "docs: %s has no example message", d->code);
        free(head);
        free(sev);
    }
    for (p = doc; (p = strstr(p, "\n## CTK-")) != NULL; p++) {
        const char *start = p + 4, *end = strchr(start, '\n');
        char *code = ctk_strndup(start, end ? (size_t)(end - start) : strlen(start), NULL);

        ck_assert_msg(ctk_diag_find(code) != NULL,
                      "docs/diagnostics.md documents \"%s\", which is not in the table", code);
        free(code);
        sections++;
    }
    for (d = ctk_diags; d->code; d++)
        sections--;
    ck_assert_msg(sections == 0, "a code is documented twice");
    free(doc);
    free(path);
}
END_TEST

/* ---- findings ---------------------------------------------------------------------- */

START_TEST(test_findings_take_severity_from_table_and_copy_text)
{
    ctk_findings_t f;
    ctk_error_t err;
    char file[] = "/out/x.lua";

    ctk_findings_init(&f);
    ctk_error_init(&err);
    ck_assert(ctk_findings_add(&f, "CTK-CPATH-002", file, 7, &err, "CPATH misses %s (%d)", "/m",
                               3));
    ck_assert(ctk_findings_add(&f, "CTK-SKIP-001", NULL, -4, &err, "no driver"));
    file[1] = 'X';
    ck_assert_uint_eq(f.len, 2);
    ck_assert_ptr_eq(f.items[0].code, ctk_diag_find("CTK-CPATH-002")->code);
    ck_assert_int_eq(f.items[0].severity, CTK_SEV_WARNING);
    ck_assert_str_eq(f.items[0].file, "/out/x.lua");
    ck_assert_int_eq(f.items[0].line, 7);
    ck_assert_str_eq(f.items[0].text, "CPATH misses /m (3)");
    ck_assert_ptr_null(f.items[1].file);
    ck_assert_int_eq(f.items[1].line, 0);
    ck_assert(ctk_findings_has(&f, "CTK-SKIP-001"));
    ck_assert(!ctk_findings_has(&f, "CTK-SKIP-002"));
    ck_assert(!ctk_findings_has(&f, NULL));
    ck_assert_uint_eq(ctk_findings_count(&f, CTK_SEV_WARNING), 1);
    ck_assert_uint_eq(ctk_findings_count(&f, CTK_SEV_NOTE), 1);
    ck_assert_uint_eq(ctk_findings_count(&f, CTK_SEV_ERROR), 0);
    ctk_findings_fini(&f);
    ctk_findings_fini(&f);
    ctk_findings_fini(NULL);
}
END_TEST

START_TEST(test_findings_reject_unknown_code_as_internal)
{
    ctk_findings_t f;
    ctk_error_t err;

    ctk_findings_init(&f);
    ctk_error_init(&err);
    ck_assert(!ctk_findings_add(&f, "CTK-NOPE-001", NULL, 0, &err, "x"));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    assert_contains(err.text, "CTK-NOPE-001");
    ck_assert_uint_eq(f.len, 0);
    ctk_findings_fini(&f);
}
END_TEST

START_TEST(test_findings_extend_copies_every_finding)
{
    ctk_findings_t a, b;
    int i;

    ctk_findings_init(&a);
    ctk_findings_init(&b);
    for (i = 0; i < 9; i++)
        add_finding(&a, i % 2 ? "CTK-RUN-001" : "CTK-LDLIB-003", i % 3 ? "/f" : NULL, i, "m");
    add_finding(&b, "CTK-MOD-002", NULL, 0, "first");
    ck_assert(ctk_findings_extend(&b, &a, NULL));
    ck_assert(ctk_findings_extend(&b, NULL, NULL));
    ctk_findings_fini(&a);
    ck_assert_uint_eq(b.len, 10);
    ck_assert_str_eq(b.items[0].text, "first");
    ck_assert_str_eq(b.items[2].code, "CTK-RUN-001");
    ck_assert_str_eq(b.items[2].file, "/f");
    ck_assert_ptr_null(b.items[1].file);
    ck_assert_int_eq(b.items[9].line, 8);
    ck_assert_uint_eq(ctk_findings_count(&b, CTK_SEV_WARNING), 5);
    ctk_findings_fini(&b);
}
END_TEST

START_TEST(test_findings_drop_removes_one_code_and_keeps_the_order)
{
    ctk_findings_t f;
    int i;

    ctk_findings_init(&f);
    for (i = 0; i < 7; i++)
        add_finding(&f, i % 3 == 0 ? "CTK-TRUST-002" : "CTK-RUN-001", "/f", i, "m");
    ctk_findings_drop(&f, "CTK-TRUST-002");
    ck_assert_uint_eq(f.len, 4);
    for (i = 0; i < 4; i++)
        ck_assert_str_eq(f.items[i].code, "CTK-RUN-001");
    ck_assert_int_eq(f.items[0].line, 1);
    ck_assert_int_eq(f.items[3].line, 5);
    ctk_findings_drop(&f, "CTK-NOPE-001");
    ctk_findings_drop(&f, NULL);
    ctk_findings_drop(NULL, "CTK-RUN-001");
    ck_assert_uint_eq(f.len, 4);
    ctk_findings_drop(&f, "CTK-RUN-001");
    ck_assert_uint_eq(f.len, 0);
    ctk_findings_fini(&f);
}
END_TEST

/* ---- probe reports ------------------------------------------------------------------ */

START_TEST(test_probe_parses_host_report)
{
    ctk_probe_report_t r;
    ctk_error_t err;
    char *out = ctk_printf(NULL, "%s\n", host_line);

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert_msg(ctk_probe_report_parse(out, &r, &err), "%s", err.text);
    ck_assert(r.present);
    ck_assert(!r.is_cuda);
    ck_assert_int_eq(r.cudart_header, 13000);
    ck_assert_int_eq(r.runtime, 13000);
    ck_assert_int_eq(r.driver, 0);
    ck_assert_int_eq(r.devices, 0);
    ck_assert_str_eq(r.status, "cudaErrorInsufficientDriver");
    ck_assert_str_eq(r.device, "");
    ck_assert_int_eq(r.cc_major, 0);
    ck_assert_int_eq(r.cc_minor, 0);
    ck_assert_int_eq(r.kernel_ok, -1);
    ck_assert_str_eq(r.libcudart, LIBCUDART);
    ctk_probe_report_fini(&r);
    ctk_probe_report_fini(&r);
    ctk_probe_report_fini(NULL);
    free(out);
}
END_TEST

START_TEST(test_probe_parses_cuda_report)
{
    ctk_probe_report_t r;
    ctk_error_t err;
    char *line = cuda_line_with(NULL, "cc", "\"10.3\"");

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert_msg(ctk_probe_report_parse(line, &r, &err), "%s", err.text);
    ck_assert(r.present);
    ck_assert(r.is_cuda);
    ck_assert_int_eq(r.driver, 13020);
    ck_assert_int_eq(r.devices, 1);
    ck_assert_str_eq(r.status, "cudaSuccess");
    ck_assert_str_eq(r.device, "NVIDIA H200");
    ck_assert_int_eq(r.cc_major, 10);
    ck_assert_int_eq(r.cc_minor, 3);
    ck_assert_int_eq(r.kernel_ok, 1);
    ck_assert_str_eq(r.libcudart, LIBCUDART);
    free(line);
    /* kernel_ok false, and a record that held a report is reused */
    line = cuda_line_with(NULL, "kernel_ok", "false");
    ck_assert(ctk_probe_report_parse(line, &r, &err));
    ck_assert_int_eq(r.kernel_ok, 0);
    ck_assert_int_eq(r.cc_major, 9);
    ctk_probe_report_fini(&r);
    free(line);
}
END_TEST

START_TEST(test_probe_skips_other_lines_before_the_report)
{
    ctk_probe_report_t r;
    ctk_error_t err;
    char *line = cuda_line_with(NULL, NULL, NULL);
    char *out = ctk_printf(NULL,
                           "warning: something on stdout\n"
                           "\n"
                           "{ this brace starts no JSON\n"
                           "  %s\r\n"
                           "{\"probe\":\"host\"}\n"
                           "trailing text",
                           line);

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert_msg(ctk_probe_report_parse(out, &r, &err), "%s", err.text);
    ck_assert(r.is_cuda);
    ck_assert_str_eq(r.device, "NVIDIA H200");
    free(out);
    /* text before the report on its own line */
    out = ctk_printf(NULL, "stray output without a newline%s\n", host_line);
    ck_assert_msg(ctk_probe_report_parse(out, &r, &err), "%s", err.text);
    ck_assert(!r.is_cuda);
    ck_assert_str_eq(r.libcudart, LIBCUDART);
    ctk_probe_report_fini(&r);
    free(out);
    free(line);
}
END_TEST

START_TEST(test_probe_rejects_missing_key_naming_it)
{
    const char *key = cuda_keys[_i].key;
    char *line = cuda_line_with(key, NULL, NULL);
    char *out = ctk_printf(NULL, "first line\n%s\n", line);
    char *quoted = ctk_printf(NULL, "\"%s\"", key);
    ctk_probe_report_t r;
    ctk_error_t err;

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert(!ctk_probe_report_parse(out, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert_str_eq(err.source, "probe output");
    ck_assert_int_eq(err.line, 2);
    assert_contains(err.text, quoted);
    assert_report_empty(&r);
    free(quoted);
    free(out);
    free(line);
}
END_TEST

START_TEST(test_probe_rejects_missing_host_key)
{
    static const char *const keys[] = { "device_status", "libcudart", "driver" };
    ctk_probe_report_t r;
    ctk_error_t err;
    size_t i;

    ctk_probe_report_init(&r);
    for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char *line = xstrdup(host_line), *k = ctk_printf(NULL, "\"%s\"", keys[i]);
        char *at = strstr(line, k);

        ck_assert_ptr_nonnull(at);
        at[1] = 'X'; /* rename the key */
        ctk_error_init(&err);
        ck_assert(!ctk_probe_report_parse(line, &r, &err));
        ck_assert_int_eq(err.code, CTK_E_JSON);
        assert_contains(err.text, k);
        assert_report_empty(&r);
        free(k);
        free(line);
    }
}
END_TEST

static const struct {
    const char *key, *value, *want; /* want: a word of the message */
} bad_values[] = {
    { "runtime", "\"13000\"", "expected an integer" },
    { "runtime", "13000.0", "expected an integer" },
    { "devices", "null", "expected an integer" },
    { "driver", "99999999999", "out of range" },
    { "kernel_ok", "1", "expected true or false" },
    { "status", "0", "expected a string" },
    { "device", "[]", "expected a string" },
    { "libcudart", "{}", "expected a string" },
    { "cc", "9.0", "expected a string" },
    { "cc", "\"9\"", "major.minor" },
    { "cc", "\"9.x\"", "major.minor" },
    { "cc", "\"9.0.1\"", "major.minor" },
    { "probe", "\"gpu\"", "neither \"host\" nor \"cuda\"" },
    { "probe", "true", "\"host\" or \"cuda\"" },
};
#define N_BAD_VALUES (sizeof bad_values / sizeof bad_values[0])

START_TEST(test_probe_rejects_wrong_types_naming_the_key)
{
    char *line = cuda_line_with(NULL, bad_values[_i].key, bad_values[_i].value);
    char *quoted = ctk_printf(NULL, "\"%s\"", bad_values[_i].key);
    ctk_probe_report_t r;
    ctk_error_t err;

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert_msg(!ctk_probe_report_parse(line, &r, &err), "%s accepted", line);
    ck_assert_int_eq(err.code, CTK_E_JSON);
    assert_contains(err.text, quoted);
    assert_contains(err.text, bad_values[_i].want);
    assert_report_empty(&r);
    free(quoted);
    free(line);
}
END_TEST

START_TEST(test_probe_decodes_escaped_strings)
{
    ctk_probe_report_t r;
    ctk_error_t err;
    char *line = cuda_line_with(NULL, "libcudart",
                                "\"/opt/a \\\"q\\\" b\\\\c\\/\\u00e9\\t\\u0001/libcudart.so\"");
    char *line2;

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert_msg(ctk_probe_report_parse(line, &r, &err), "%s", err.text);
    ck_assert_str_eq(r.libcudart, "/opt/a \"q\" b\\c/\xc3\xa9\t\x01/libcudart.so");
    /* a NUL would cut the string short: jansson refuses it */
    line2 = cuda_line_with(NULL, "device", "\"GPU\\u0000x\"");
    ck_assert(!ctk_probe_report_parse(line2, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    assert_report_empty(&r);
    free(line2);
    free(line);
}
END_TEST

START_TEST(test_probe_reports_missing_or_broken_json)
{
    ctk_probe_report_t r;
    ctk_error_t err;

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert(!ctk_probe_report_parse("Segmentation fault\n", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    assert_contains(err.text, "no line");
    ctk_error_init(&err);
    ck_assert(!ctk_probe_report_parse("", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ctk_error_init(&err);
    ck_assert(!ctk_probe_report_parse(NULL, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    /* a cut-off report: jansson's message, with the line and column */
    ctk_error_init(&err);
    ck_assert(!ctk_probe_report_parse("start\n{\"probe\":\"cuda\",\"runtime\":13\n", &r, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_gt(err.column, 0);
    assert_contains(err.text, "not valid JSON");
    assert_report_empty(&r);
    ck_assert(!ctk_probe_report_parse("[1,2]\n", &r, NULL));
}
END_TEST

START_TEST(test_probe_failure_empties_a_used_record)
{
    ctk_probe_report_t r;
    ctk_error_t err;

    ctk_probe_report_init(&r);
    ctk_error_init(&err);
    ck_assert(ctk_probe_report_parse(host_line, &r, &err));
    ck_assert(r.present);
    ck_assert(!ctk_probe_report_parse("{\"probe\":\"host\"}", &r, &err));
    assert_report_empty(&r);
    ctk_probe_report_fini(&r);
}
END_TEST

/* ---- the JSON report ------------------------------------------------------------------ */

START_TEST(test_report_json_has_documented_shape)
{
    ctk_vreport_t r;
    ctk_error_t err;
    char *text;
    json_t *root, *host, *sdk, *arts, *a, *f, *probe;

    report_fill(&r);
    ctk_error_init(&err);
    text = ctk_vreport_json(&r, &err);
    ck_assert_msg(text != NULL, "%s", err.text);
    ck_assert(text[strlen(text) - 1] == '\n');
    assert_contains(text, "\n  \"ctkgen\": ");  /* indented by 2 */
    assert_contains(text, "\"seconds\": 12.346"); /* milliseconds, no binary noise */
    assert_contains(text, "\"seconds\": 1.42,");
    root = parse_json(text);
    assert_keys(root, "ctkgen,outdir,jobs,seconds,host,summary,sdks");
    ck_assert_str_eq(jget_str(root, "ctkgen"), PACKAGE_VERSION);
    ck_assert_str_eq(jget_str(root, "outdir"), "/out");
    ck_assert_int_eq(jget_int(root, "jobs"), 4);
    ck_assert(json_is_real(json_object_get(root, "seconds")));

    host = json_object_get(root, "host");
    assert_keys(host, "cc,cc_version,cxx,driver,tcl,lmod,tcl_user,trust_tcl");
    ck_assert_str_eq(jget_str(host, "cc"), "/usr/bin/cc");
    ck_assert_str_eq(jget_str(host, "cc_version"), "12.2.0");
    ck_assert(json_is_null(json_object_get(host, "driver")));
    ck_assert(json_is_null(json_object_get(host, "lmod")));
    assert_contains(jget_str(host, "tcl"), "Environment Modules 5.2.0");

    /* the skip split comes after the original keys, which stay */
    assert_keys(json_object_get(root, "summary"), "pass,skip,fail,skip_launch,skip_unchecked");
    ck_assert_int_eq(jget_int(json_object_get(root, "summary"), "pass"), 3);
    ck_assert_int_eq(jget_int(json_object_get(root, "summary"), "skip"), 1);
    ck_assert_int_eq(jget_int(json_object_get(root, "summary"), "fail"), 2);
    ck_assert_int_eq(jget_int(json_object_get(root, "summary"), "skip_launch"), 0);
    ck_assert_int_eq(jget_int(json_object_get(root, "summary"), "skip_unchecked"), 1);

    ck_assert_uint_eq(json_array_size(json_object_get(root, "sdks")), 2);
    sdk = json_array_get(json_object_get(root, "sdks"), 0);
    assert_keys(sdk, "module,pc,version,root,verdict,seconds,artifacts");
    ck_assert_str_eq(jget_str(sdk, "module"), "cudatoolkit/13.0");
    ck_assert_str_eq(jget_str(sdk, "pc"), "ctk-13.0");
    ck_assert_str_eq(jget_str(sdk, "version"), "13.0.1");
    ck_assert_str_eq(jget_str(sdk, "root"), "/usr/local/cuda-13.0");
    ck_assert_str_eq(jget_str(sdk, "verdict"), "fail");
    arts = json_object_get(sdk, "artifacts");
    ck_assert_uint_eq(json_array_size(arts), 3);

    /* lmod: env, findings, both probes */
    a = json_array_get(arts, 0);
    assert_keys(a, "kind,file,verdict,skip,cached,seconds,env,nvcc,nvcc_release,built_by,linked_by,"
                   "host_probe,cuda_probe,sass_probe,ptx_probe,launched,findings");
    ck_assert_str_eq(jget_str(a, "kind"), "lmod");
    ck_assert_str_eq(jget_str(a, "file"), "/out/lmod/cudatoolkit/13.0.lua");
    ck_assert_str_eq(jget_str(a, "verdict"), "fail");
    ck_assert(json_is_null(json_object_get(a, "skip")));
    ck_assert(json_is_false(json_object_get(a, "cached")));
    ck_assert(json_is_true(json_object_get(a, "launched")));
    assert_keys(json_object_get(a, "env"), "PATH,CPATH,EMPTY,QUOTED");
    ck_assert_str_eq(jget_str(json_object_get(a, "env"), "QUOTED"), "a \"b\" c\\d\te");
    ck_assert_str_eq(jget_str(json_object_get(a, "env"), "EMPTY"), "");
    ck_assert_str_eq(jget_str(a, "nvcc_release"), "13.0");
    ck_assert_str_eq(jget_str(a, "built_by"), "pc");
    ck_assert_str_eq(jget_str(a, "linked_by"), "pc");
    probe = json_object_get(a, "host_probe");
    assert_keys(probe,
                "cudart_header,runtime,driver,devices,status,device,cc,kernel_ok,libcudart,visible");
    ck_assert(json_is_null(json_object_get(probe, "kernel_ok")));
    ck_assert(json_is_null(json_object_get(probe, "cc")));
    ck_assert_str_eq(jget_str(probe, "status"), "cudaErrorInsufficientDriver");
    probe = json_object_get(a, "cuda_probe");
    ck_assert_str_eq(jget_str(probe, "cc"), "9.0");
    ck_assert(json_is_true(json_object_get(probe, "kernel_ok")));
    ck_assert_int_eq(jget_int(probe, "driver"), 13020);
    ck_assert_str_eq(jget_str(probe, "device"), "NVIDIA H200");
    ck_assert_uint_eq(json_array_size(json_object_get(a, "findings")), 2);
    f = json_array_get(json_object_get(a, "findings"), 0);
    assert_keys(f, "code,severity,file,line,message,fix");
    ck_assert_str_eq(jget_str(f, "code"), "CTK-CPATH-001");
    ck_assert_str_eq(jget_str(f, "severity"), "error");
    ck_assert_str_eq(jget_str(f, "file"), "/out/lmod/cudatoolkit/13.0.lua");
    ck_assert_int_eq(jget_int(f, "line"), 12);
    assert_contains(jget_str(f, "message"), "CPATH misses");
    ck_assert_str_eq(jget_str(f, "fix"), ctk_diag_find("CTK-CPATH-001")->fix);
    f = json_array_get(json_object_get(a, "findings"), 1);
    ck_assert_str_eq(jget_str(f, "severity"), "warning");
    ck_assert(json_is_null(json_object_get(f, "file")));
    ck_assert(json_is_null(json_object_get(f, "line")));

    /* tcl: a skip, no cuda probe */
    a = json_array_get(arts, 1);
    ck_assert_str_eq(jget_str(a, "kind"), "tcl");
    ck_assert_str_eq(jget_str(a, "verdict"), "skip");
    assert_keys(json_object_get(a, "skip"), "code,reason");
    ck_assert_str_eq(jget_str(json_object_get(a, "skip"), "code"), "CTK-SKIP-003");
    ck_assert(json_is_null(json_object_get(a, "cuda_probe")));
    ck_assert(json_is_null(json_object_get(a, "host_probe")));
    assert_keys(json_object_get(a, "env"), "");

    /* pc: flags and version instead of env */
    a = json_array_get(arts, 2);
    assert_keys(a, "kind,file,verdict,skip,cached,seconds,cflags,libs,pc_version,nvcc,"
                   "nvcc_release,built_by,linked_by,host_probe,cuda_probe,sass_probe,ptx_probe,launched,findings");
    ck_assert(json_is_null(json_object_get(a, "built_by")));
    ck_assert(json_is_null(json_object_get(a, "linked_by")));
    ck_assert_str_eq(jget_str(a, "kind"), "pc");
    ck_assert(json_is_true(json_object_get(a, "cached")));
    ck_assert_uint_eq(json_array_size(json_object_get(a, "libs")), 3);
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(a, "libs"), 2)), "-lcudart");
    ck_assert_str_eq(json_string_value(json_array_get(json_object_get(a, "cflags"), 0)),
                     "-I/usr/local/cuda-13.0/include");
    ck_assert_str_eq(jget_str(a, "pc_version"), "13.0.1");
    ck_assert(json_is_false(json_object_get(json_object_get(a, "cuda_probe"), "kernel_ok")));
    ck_assert(json_is_null(json_object_get(json_object_get(a, "cuda_probe"), "cc")));
    ck_assert_uint_eq(json_array_size(json_object_get(a, "findings")), 0);

    /* the second SDK's pc failed */
    sdk = json_array_get(json_object_get(root, "sdks"), 1);
    ck_assert_str_eq(jget_str(json_array_get(json_object_get(sdk, "artifacts"), 2), "verdict"),
                     "fail");

    json_decref(root);
    free(text);
    report_free(&r);
}
END_TEST

START_TEST(test_report_json_of_nothing_is_valid)
{
    ctk_vreport_t r;
    char *text;
    json_t *root;

    memset(&r, 0, sizeof r);
    text = ctk_vreport_json(&r, NULL);
    ck_assert_ptr_nonnull(text);
    root = parse_json(text);
    ck_assert(json_is_null(json_object_get(root, "outdir")));
    ck_assert_uint_eq(json_array_size(json_object_get(root, "sdks")), 0);
    ck_assert_int_eq(jget_int(json_object_get(root, "summary"), "pass"), 0);
    json_decref(root);
    free(text);
}
END_TEST

/* Quotes, backslashes and control bytes are escaped; bytes that are not
 * UTF-8 become U+FFFD, one per byte; valid UTF-8 passes unchanged. */
START_TEST(test_report_json_survives_hostile_strings)
{
    static const char hostile[] = "q\"b\\n\nt\tesc\x1b[31m del\x7f ff\xff\xfe overlong\xc0\xaf"
                                  " surrogate\xed\xa0\x80 big\xf4\x90\x80\x80 ok\xc3\xa9\xe2\x82\xac"
                                  "\xf0\x9f\x98\x80 cut\xe2\x82";
    static const char fixed[] =
        "q\"b\\n\nt\tesc\x1b[31m del\x7f ff\xef\xbf\xbd\xef\xbf\xbd overlong\xef\xbf\xbd\xef\xbf\xbd"
        " surrogate\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd big\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
        "\xef\xbf\xbd ok\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80 cut\xef\xbf\xbd\xef\xbf\xbd";
    ctk_vreport_t r;
    ctk_vart_t *a;
    char *text, *art_text;
    json_t *root, *j;

    report_fill(&r);
    a = &r.sdks[0].art[CTK_ART_LMOD];
    free(r.outdir);
    r.outdir = xstrdup(hostile);
    add_finding(&a->findings, "CTK-BUILD-002", hostile, 3, hostile);
    env_put(&a->env, "BAD\xffNAME", hostile);
    text = ctk_vreport_json(&r, NULL);
    ck_assert_ptr_nonnull(text);
    assert_lacks(text, "\x1b");
    ck_assert(strcasestr(text, "\\u001b") != NULL); /* jansson writes \u001B */
    root = parse_json(text);
    ck_assert_str_eq(jget_str(root, "outdir"), fixed);
    j = json_array_get(json_object_get(json_array_get(json_object_get(root, "sdks"), 0),
                                       "artifacts"),
                       0);
    ck_assert_str_eq(jget_str(json_array_get(json_object_get(j, "findings"), 2), "message"),
                     fixed);
    ck_assert_str_eq(jget_str(json_array_get(json_object_get(j, "findings"), 2), "file"), fixed);
    ck_assert_str_eq(jget_str(json_object_get(j, "env"), "BAD\xef\xbf\xbdNAME"), fixed);
    json_decref(root);

    /* the cache form is as robust */
    art_text = ctk_vart_to_json(a, NULL);
    ck_assert_ptr_nonnull(art_text);
    json_decref(parse_json(art_text));
    free(art_text);
    free(text);
    report_free(&r);
}
END_TEST

/* ---- cache entries ---------------------------------------------------------------------- */

static void assert_probe_eq(const ctk_probe_report_t *x, const ctk_probe_report_t *y)
{
    ck_assert_int_eq(x->present, y->present);
    if (!x->present)
        return;
    ck_assert_int_eq(x->is_cuda, y->is_cuda);
    ck_assert_int_eq(x->cudart_header, y->cudart_header);
    ck_assert_int_eq(x->runtime, y->runtime);
    ck_assert_int_eq(x->driver, y->driver);
    ck_assert_int_eq(x->devices, y->devices);
    ck_assert_pstr_eq(x->status, y->status);
    ck_assert_pstr_eq(x->device, y->device);
    ck_assert_int_eq(x->cc_major, y->cc_major);
    ck_assert_int_eq(x->cc_minor, y->cc_minor);
    ck_assert_int_eq(x->kernel_ok, y->kernel_ok);
    ck_assert_pstr_eq(x->libcudart, y->libcudart);
}

static void assert_strlist_eq(const ctk_strlist_t *x, const ctk_strlist_t *y)
{
    size_t i;

    ck_assert_uint_eq(x->len, y->len);
    for (i = 0; i < x->len; i++)
        ck_assert_str_eq(x->items[i], y->items[i]);
}

/* Equal in every member but `cached`. */
static void assert_art_eq(const ctk_vart_t *x, const ctk_vart_t *y)
{
    size_t i;

    ck_assert_int_eq(x->kind, y->kind);
    ck_assert_pstr_eq(x->file, y->file);
    ck_assert_int_eq(x->verdict, y->verdict);
    ck_assert_pstr_eq(x->skip_code, y->skip_code);
    ck_assert_pstr_eq(x->skip_reason, y->skip_reason);
    ck_assert_double_eq_tol(x->seconds, y->seconds, 0.0005);
    ck_assert_uint_eq(x->findings.len, y->findings.len);
    for (i = 0; i < x->findings.len; i++) {
        const ctk_finding_t *f = &x->findings.items[i], *g = &y->findings.items[i];

        ck_assert_ptr_eq(f->code, g->code); /* both point into the table */
        ck_assert_int_eq(f->severity, g->severity);
        ck_assert_pstr_eq(f->file, g->file);
        ck_assert_int_eq(f->line, g->line);
        ck_assert_str_eq(f->text, g->text);
    }
    assert_strlist_eq(&x->env.kv, &y->env.kv);
    assert_strlist_eq(&x->cflags, &y->cflags);
    assert_strlist_eq(&x->libs, &y->libs);
    ck_assert_pstr_eq(x->pc_version, y->pc_version);
    ck_assert_pstr_eq(x->nvcc, y->nvcc);
    ck_assert_pstr_eq(x->nvcc_release, y->nvcc_release);
    ck_assert_pstr_eq(x->built_by, y->built_by);
    ck_assert_pstr_eq(x->linked_by, y->linked_by);
    assert_probe_eq(&x->host, &y->host);
    assert_probe_eq(&x->cuda, &y->cuda);
    ck_assert_int_eq(x->launched, y->launched);
}

START_TEST(test_art_json_round_trips)
{
    ctk_vart_t a, b;
    ctk_error_t err;
    char *text, *again;

    art_fill(&a, (ctk_art_t)_i);
    ctk_error_init(&err);
    text = ctk_vart_to_json(&a, &err);
    ck_assert_msg(text != NULL, "%s", err.text);
    ctk_vart_init(&b, (ctk_art_t)_i);
    ck_assert_msg(ctk_vart_from_json(text, &b, &err), "%s\n%s", err.text, text);
    assert_art_eq(&a, &b);
    ck_assert(b.cached);
    /* and back to the same text */
    a.cached = true;
    free(text);
    text = ctk_vart_to_json(&a, NULL);
    again = ctk_vart_to_json(&b, NULL);
    ck_assert_str_eq(again, text);
    /* reading into a record that holds a result replaces it */
    ck_assert(ctk_vart_from_json(text, &b, &err));
    assert_art_eq(&a, &b);
    free(again);
    free(text);
    ctk_vart_fini(&a);
    ctk_vart_fini(&b);
    ck_assert_int_eq(b.kind, (ctk_art_t)_i);
    ck_assert_ptr_null(b.file);
    ck_assert_uint_eq(b.findings.len, 0);
    ctk_vart_fini(&b);
    ctk_vart_fini(NULL);
}
END_TEST

/* Each edit turns a good lmod entry into one ctkgen never writes. */
static const struct {
    const char *find, *replace, *want;
} bad_entries[] = {
    { "\"kind\": \"lmod\"", "\"kind\": \"pc\"", "for a pc artifact" },
    { "\"verdict\": \"fail\"", "\"verdict\": \"maybe\"", "\"verdict\"" },
    { "\"cached\": false", "\"cached\": 0", "\"cached\"" },
    { "\"seconds\": 1.42", "\"seconds\": \"1.42\"", "\"seconds\"" },
    { "\"launched\": true,", "", "\"launched\"" },
    { "\"code\": \"CTK-CPATH-001\"", "\"code\": \"CTK-GONE-001\"", "CTK-GONE-001" },
    { "\"severity\": \"error\"", "\"severity\": \"note\"", "/findings/0" },
    { "\"line\": 12", "\"line\": -1", "\"line\"" },
    { "\"PATH\": \"", "\"PA=TH\": \"", "PA=TH" },
    { "\"CPATH\": \"/usr/local/cuda-13.0/include\"", "\"CPATH\": 1", "/env/CPATH" },
    { "\"cc\": \"9.0\"", "\"cc\": \"nine\"", "\"cc\"" },
    { "\"kernel_ok\": true", "\"kernel_ok\": 1", "\"kernel_ok\"" },
    { "\"nvcc_release\": \"13.0\",", "\"nvcc_release\": \"13.0\", \"extra\": 1,",
      "keys ctkgen does not write" },
    { "\"built_by\": \"pc\"", "\"built_by\": 1", "\"built_by\"" },
    { "\"linked_by\": \"pc\"", "\"linked_by\": []", "\"linked_by\"" },
    { "\"findings\": [", "\"findings\": {\"x\": [", "is not valid JSON" },
    { "{", "[", "is not valid JSON" },
};
#define N_BAD_ENTRIES (sizeof bad_entries / sizeof bad_entries[0])

START_TEST(test_art_from_json_rejects_what_to_json_never_writes)
{
    ctk_vart_t a, b;
    ctk_error_t err;
    char *text, *at, *bad;

    art_fill(&a, CTK_ART_LMOD);
    text = ctk_vart_to_json(&a, NULL);
    ck_assert_ptr_nonnull(text);
    at = strstr(text, bad_entries[_i].find);
    ck_assert_msg(at != NULL, "\"%s\" not in\n%s", bad_entries[_i].find, text);
    bad = ctk_printf(NULL, "%.*s%s%s", (int)(at - text), text, bad_entries[_i].replace,
                     at + strlen(bad_entries[_i].find));
    art_fill(&b, CTK_ART_LMOD);
    ctk_error_init(&err);
    ck_assert_msg(!ctk_vart_from_json(bad, &b, &err), "accepted:\n%s", bad);
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert_str_eq(err.source, "cache entry");
    assert_contains(err.text, bad_entries[_i].want);
    /* the record is as it was */
    assert_art_eq(&a, &b);
    ck_assert(!b.cached);
    free(bad);
    free(text);
    ctk_vart_fini(&a);
    ctk_vart_fini(&b);
}
END_TEST

START_TEST(test_art_from_json_rejects_empty_and_other_kinds)
{
    ctk_vart_t a, b;
    ctk_error_t err;
    char *text;

    art_fill(&a, CTK_ART_PC);
    text = ctk_vart_to_json(&a, NULL);
    ctk_vart_init(&b, CTK_ART_TCL);
    ctk_error_init(&err);
    ck_assert(!ctk_vart_from_json(text, &b, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ctk_error_init(&err);
    ck_assert(!ctk_vart_from_json(NULL, &b, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ctk_error_init(&err);
    ck_assert(!ctk_vart_from_json("", &b, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert(!ctk_vart_from_json("null", &b, NULL));
    ck_assert_int_eq(b.kind, CTK_ART_TCL);
    free(text);
    ctk_vart_fini(&a);
    ctk_vart_fini(&b);
}
END_TEST

/* ---- text output ---------------------------------------------------------------------- */

START_TEST(test_progress_shows_verdict_time_findings_and_fix)
{
    ctk_vsdk_t s;
    mem_t m;
    char *out, *expect;

    sdk_fill(&s, "13.0", CTK_VERDICT_FAIL, 3.0);
    add_finding(&s.art[CTK_ART_LMOD].findings, "CTK-BUILD-002", NULL, 0, "bad\x1b[2Jbyte");
    mem_open(&m);
    ctk_report_progress(m.fp, &s, CTK_ART_LMOD, false);
    out = mem_close(&m);
    ck_assert(ctk_str_has_prefix(out, "  cudatoolkit/13.0"));
    assert_contains(out, " lmod ");
    assert_contains(out, " FAIL ");
    assert_contains(out, "1.42 s\n");
    assert_contains(out, "\n    error CTK-CPATH-001: /out/lmod/cudatoolkit/13.0.lua:12: CPATH "
                         "misses /usr/local/cuda-13.0/include, which holds cuda_runtime.h\n");
    expect = ctk_printf(NULL, "\n      fix: %s\n", ctk_diag_find("CTK-CPATH-001")->fix);
    assert_contains(out, expect);
    assert_contains(out, "\n    warning CTK-MOD-003: no family() or conflict()\n");
    assert_contains(out, "CTK-BUILD-002: bad\\x1b[2Jbyte\n"); /* no raw escape reaches the tty */
    assert_lacks(out, "\033");
    assert_lacks(out, "cached");
    free(expect);
    free(out);

    mem_open(&m);
    ctk_report_progress(m.fp, &s, CTK_ART_LMOD, true);
    out = mem_close(&m);
    assert_contains(out, "\033[1;31mFAIL\033[0m");
    assert_contains(out, "\033[1;31merror\033[0m CTK-CPATH-001");
    assert_contains(out, "\033[1;35mwarning\033[0m CTK-MOD-003");
    free(out);
    sdk_fini(&s);
}
END_TEST

START_TEST(test_progress_shows_skip_reason_once_and_cache)
{
    ctk_vsdk_t s;
    mem_t m;
    char *out;

    sdk_fill(&s, "12.4", CTK_VERDICT_SKIP, 3.0);
    mem_open(&m);
    ctk_report_progress(m.fp, &s, CTK_ART_TCL, false);
    ctk_report_progress(m.fp, &s, CTK_ART_PC, false);
    out = mem_close(&m);
    assert_contains(out, "  cudatoolkit/12.4");
    assert_contains(out, " tcl   UNCHECKED ");
    assert_contains(out, "\n    skipped CTK-SKIP-003: Environment Modules not found\n");
    assert_contains(out, " pc    PASS ");
    assert_contains(out, "1.42 s  (cached)\n");
    free(out);

    /* when the skip is also a finding, it is printed once */
    add_finding(&s.art[CTK_ART_TCL].findings, "CTK-SKIP-003", NULL, 0,
                "Environment Modules not found");
    mem_open(&m);
    ctk_report_progress(m.fp, &s, CTK_ART_TCL, false);
    out = mem_close(&m);
    assert_contains(out, "\n    note CTK-SKIP-003: Environment Modules not found\n");
    assert_lacks(out, "skipped");
    free(out);
    sdk_fini(&s);
}
END_TEST

START_TEST(test_table_has_one_row_per_sdk_and_counts)
{
    ctk_vreport_t r;
    mem_t m;
    char *out;
    const char *last;

    report_fill(&r);
    mem_open(&m);
    ctk_report_table(m.fp, &r, false);
    out = mem_close(&m);
    ck_assert(ctk_str_has_prefix(
        out, "  module            lmod        tcl         pc             time\n"));
    assert_contains(out, "\n  cudatoolkit/13.0  FAIL        UNCHECKED   PASS*        3.50 s\n");
    assert_contains(out, "\n  cudatoolkit/12.4  PASS        PASS        FAIL         2.25 s\n\n");
    assert_contains(out, "\n  PASS       passed: environment, build, link and kernel launch checked\n");
    assert_contains(out, "\n  FAIL       failed: ");
    assert_contains(out, "\n  *          from the cache");
    last = strrchr(out, '\n');
    ck_assert(last && last[1] == '\0');
    while (last > out && last[-1] != '\n')
        last--;
    ck_assert_str_eq(last, "3 passed, 0 passed with launch skipped (no GPU), 1 not checked, "
                           "2 failed (artifacts)\n");
    assert_lacks(out, "\033");
    free(out);

    mem_open(&m);
    ctk_report_table(m.fp, &r, true);
    out = mem_close(&m);
    assert_contains(out, "\033[32mPASS\033[0m*");
    assert_contains(out, "\033[33mUNCHECKED\033[0m ");
    free(out);
    report_free(&r);
}
END_TEST

/* One SDK whose lmod and pc artifacts were built, linked and run but not
 * launched (no driver, no GPU) and whose Tcl modulefile was never loaded
 * (no Environment Modules): all three are SKIP, and what they prove differs. */
static void report_fill_skips(ctk_vreport_t *r)
{
    static const char *const codes[] = { "CTK-SKIP-001", "CTK-SKIP-003", "CTK-SKIP-002" };
    int k;

    report_fill(r);
    sdk_fini(&r->sdks[1]);
    r->n_sdks = 1;
    for (k = 0; k < CTK_ART__COUNT; k++) {
        ctk_vart_t *a = &r->sdks[0].art[k];

        ctk_vart_fini(a);
        a->file = xstrdup("/out/x");
        a->verdict = CTK_VERDICT_SKIP;
        a->skip_code = xstrdup(codes[k]);
        a->skip_reason = xstrdup(ctk_diag_find(codes[k])->summary);
        a->seconds = 0.5;
    }
    r->sdks[0].verdict = CTK_VERDICT_SKIP;
    r->n_pass = r->n_fail = 0;
    r->n_skip = 3;
    r->n_skip_launch = 2;
    r->n_skip_unchecked = 1;
}

START_TEST(test_skip_kind_follows_the_skip_code)
{
    static const struct {
        ctk_verdict_t verdict;
        const char *code;
        ctk_skip_kind_t want;
    } cases[] = {
        { CTK_VERDICT_SKIP, "CTK-SKIP-001", CTK_SKIP_LAUNCH },
        { CTK_VERDICT_SKIP, "CTK-SKIP-002", CTK_SKIP_LAUNCH },
        { CTK_VERDICT_SKIP, "CTK-SKIP-003", CTK_SKIP_UNCHECKED },
        { CTK_VERDICT_SKIP, NULL, CTK_SKIP_UNCHECKED },     /* unknown: claim nothing */
        { CTK_VERDICT_SKIP, "CTK-SKIP-999", CTK_SKIP_UNCHECKED },
        { CTK_VERDICT_PASS, NULL, CTK_SKIP_NONE },
        { CTK_VERDICT_FAIL, "CTK-SKIP-001", CTK_SKIP_NONE }, /* a failure is a failure */
    };
    size_t i;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ctk_vart_t a;

        ctk_vart_init(&a, CTK_ART_LMOD);
        a.verdict = cases[i].verdict;
        a.skip_code = cases[i].code ? xstrdup(cases[i].code) : NULL;
        ck_assert_msg(ctk_vart_skip_kind(&a) == cases[i].want, "case %zu", i);
        ctk_vart_fini(&a);
    }
}
END_TEST

START_TEST(test_table_tells_launch_skip_from_not_checked)
{
    ctk_vreport_t r;
    mem_t m;
    char *out;

    report_fill_skips(&r);
    mem_open(&m);
    ctk_report_table(m.fp, &r, false);
    out = mem_close(&m);
    /* the cells */
    assert_contains(out, "\n  cudatoolkit/13.0  NOLAUNCH    UNCHECKED   NOLAUNCH     3.50 s\n");
    assert_lacks(out, "SKIP");
    /* a legend line for each mark used, none for the others */
    assert_contains(out, " s\n\n  NOLAUNCH   launch skipped (no GPU): environment, build and link "
                         "passed\n");
    assert_contains(out, "\n  UNCHECKED  not checked: never evaluated here (Tcl: no Environment "
                         "Modules, or unreadable by the unprivileged user)\n");
    assert_lacks(out, "\n  PASS ");
    assert_lacks(out, "\n  FAIL ");
    assert_lacks(out, "from the cache");
    /* the summary */
    assert_ends_with(out, "\n0 passed, 2 passed with launch skipped (no GPU), 1 not checked, "
                          "0 failed (artifacts)\n");
    free(out);

    mem_open(&m);
    ctk_report_table(m.fp, &r, true);
    out = mem_close(&m);
    assert_contains(out, "\033[33mNOLAUNCH\033[0m ");
    assert_contains(out, "\033[33mUNCHECKED\033[0m ");
    free(out);

    /* progress lines use the same marks */
    mem_open(&m);
    ctk_report_progress(m.fp, &r.sdks[0], CTK_ART_LMOD, false);
    ctk_report_progress(m.fp, &r.sdks[0], CTK_ART_TCL, false);
    out = mem_close(&m);
    assert_contains(out, " lmod  NOLAUNCH     0.50 s\n    skipped CTK-SKIP-001: ");
    assert_contains(out, " tcl   UNCHECKED    0.50 s\n    skipped CTK-SKIP-003: ");
    free(out);

    /* run as root: who evaluated the modulefiles, after the summary */
    r.tcl_user = xstrdup("nobody (uid 65534)");
    mem_open(&m);
    ctk_report_table(m.fp, &r, false);
    out = mem_close(&m);
    assert_ends_with(out, "0 failed (artifacts)\nmodulefiles were evaluated as user nobody (uid 65534), not as root\n");
    free(out);
    r.trust_tcl = true;
    mem_open(&m);
    ctk_report_table(m.fp, &r, false);
    out = mem_close(&m);
    assert_ends_with(out, "not as root (Tcl files only root can change: as root, --trust-tcl)\n");
    free(out);
    report_free(&r);
}
END_TEST

START_TEST(test_report_json_splits_the_skips)
{
    ctk_vreport_t r;
    char *text;
    json_t *root, *sum;

    report_fill_skips(&r);
    text = ctk_vreport_json(&r, NULL);
    ck_assert_ptr_nonnull(text);
    root = parse_json(text);
    sum = json_object_get(root, "summary");
    ck_assert_int_eq(jget_int(sum, "skip"), 3);
    ck_assert_int_eq(jget_int(sum, "skip_launch"), 2);
    ck_assert_int_eq(jget_int(sum, "skip_unchecked"), 1);
    json_decref(root);
    free(text);
    report_free(&r);
}
END_TEST

START_TEST(test_json_try_load_leaves_bad_text_to_the_caller)
{
    json_error_t je;
    ctk_error_t err;
    json_t *root;

    ctk_error_init(&err);
    root = ctk_json_try_load("{\n  \"a\": [1,", 12, &je, &err);
    ck_assert_ptr_null(root);
    ck_assert_int_eq(err.code, CTK_E_OK);
    ck_assert_int_eq(je.line, 2);
    ck_assert_ptr_nonnull(strstr(je.text, "end of file"));
    /* duplicate keys are refused, as by ctk_json_load */
    ck_assert_ptr_null(ctk_json_try_load("{\"a\": 1, \"a\": 2}", 16, &je, &err));
    ck_assert_int_eq(err.code, CTK_E_OK);
    ck_assert_ptr_nonnull(strstr(je.text, "duplicate"));
    root = ctk_json_try_load("{\"a\": 1}", 8, &je, &err);
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(json_integer_value(json_object_get(root, "a")), 1);
    json_decref(root);
    /* ctk_json_load words the same failure as an error */
    ck_assert_ptr_null(ctk_json_load("{\n  \"a\": [1,", 12, "f.json", 0, 0, "the file", &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert_int_eq(err.line, 2);
    ck_assert_ptr_nonnull(strstr(err.text, "the file is not valid JSON: "));
}
END_TEST

/* ---- out of memory ------------------------------------------------------------ */

/* Each sweep (tests/failmalloc.c) fails every allocation of one operation in
 * turn: each must come back as CTK_E_NOMEM, even inside jansson's parser,
 * and leak nothing. */
#ifdef TU_HAVE_FAILING_MALLOC
static ctk_vreport_t sweep_report;
static ctk_vart_t sweep_art, sweep_into;
static char *sweep_text;

static void *op_report_json(ctk_error_t *err)
{
    return ctk_vreport_json(&sweep_report, err);
}

static void *op_art_to_json(ctk_error_t *err)
{
    return ctk_vart_to_json(&sweep_art, err);
}

static void *op_art_from_json(ctk_error_t *err)
{
    return ctk_vart_from_json(sweep_text, &sweep_into, err) ? &sweep_into : NULL;
}

static ctk_probe_report_t sweep_probe;

static void *op_probe_parse(ctk_error_t *err)
{
    return ctk_probe_report_parse(sweep_text, &sweep_probe, err) ? &sweep_probe : NULL;
}

static ctk_findings_t sweep_src, sweep_dst;

static void *op_findings(ctk_error_t *err)
{
    ctk_findings_t f;

    ctk_findings_init(&f);
    if (!ctk_findings_add(&f, "CTK-RUN-002", "/f", 1, err, "loaded %s", "/x/libcudart.so") ||
        !ctk_findings_extend(&f, &sweep_src, err)) {
        ctk_findings_fini(&f);
        return NULL;
    }
    ctk_findings_fini(&f);
    return &sweep_dst;
}

static void release_free(void *p)
{
    free(p);
}

static void release_art(void *p)
{
    ctk_vart_fini(p);
}

static void release_probe(void *p)
{
    ctk_probe_report_fini(p);
}

static void release_nothing(void *p)
{
    (void)p;
}

/* a toolkit's version.json, escapes and all (model/sdk.c reads it so) */
static const char version_json[] = "{ \"cuda\": { \"name\": \"CUDA SDK \\\"x\\\"\", \"version\": \"12.4.1\" },\n"
                                   "  \"cuda_nvcc\": { \"name\": \"nvcc\\u00e9\", \"version\": \"12.4.131\" } }\n";

static void *op_try_load(ctk_error_t *err)
{
    json_error_t je;

    return ctk_json_try_load(version_json, strlen(version_json), &je, err);
}

static void release_json(void *p)
{
    json_decref(p);
}

START_TEST(test_out_of_memory_is_reported_and_leaks_nothing)
{
    long n;
    int i;

    report_fill(&sweep_report);
    n = tu_alloc_sweep("ctk_vreport_json", op_report_json, release_free);
    ck_assert_int_gt(n, 50);
    report_free(&sweep_report);

    art_fill(&sweep_art, CTK_ART_LMOD);
    tu_alloc_sweep("ctk_vart_to_json", op_art_to_json, release_free);
    sweep_text = ctk_vart_to_json(&sweep_art, NULL);
    ctk_vart_init(&sweep_into, CTK_ART_LMOD);
    n = tu_alloc_sweep("ctk_vart_from_json", op_art_from_json, release_art);
    ck_assert_int_gt(n, 20);
    free(sweep_text);
    ctk_vart_fini(&sweep_art);

    sweep_text = cuda_line_with(NULL, NULL, NULL);
    ctk_probe_report_init(&sweep_probe);
    tu_alloc_sweep("ctk_probe_report_parse", op_probe_parse, release_probe);
    free(sweep_text);

    ctk_findings_init(&sweep_src);
    for (i = 0; i < 6; i++)
        add_finding(&sweep_src, "CTK-LDLIB-003", i % 2 ? "/f" : NULL, i, "LIBRARY_PATH misses /d");
    tu_alloc_sweep("ctk_findings_add/extend", op_findings, release_nothing);
    ctk_findings_fini(&sweep_src);

    n = tu_alloc_sweep("ctk_json_try_load", op_try_load, release_json);
    ck_assert_int_gt(n, 5);
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("report");

    tcase_add_test(tc, test_diag_codes_are_unique_well_formed_and_explained);
    tcase_add_test(tc, test_diag_severities_are_as_specified);
    tcase_add_test(tc, test_diag_table_and_docs_agree);
    tcase_add_test(tc, test_findings_take_severity_from_table_and_copy_text);
    tcase_add_test(tc, test_findings_reject_unknown_code_as_internal);
    tcase_add_test(tc, test_findings_drop_removes_one_code_and_keeps_the_order);
    tcase_add_test(tc, test_findings_extend_copies_every_finding);
    tcase_add_test(tc, test_json_try_load_leaves_bad_text_to_the_caller);
    tcase_add_test(tc, test_probe_parses_host_report);
    tcase_add_test(tc, test_probe_parses_cuda_report);
    tcase_add_test(tc, test_probe_skips_other_lines_before_the_report);
    tcase_add_loop_test(tc, test_probe_rejects_missing_key_naming_it, 0, (int)N_CUDA_KEYS);
    tcase_add_test(tc, test_probe_rejects_missing_host_key);
    tcase_add_loop_test(tc, test_probe_rejects_wrong_types_naming_the_key, 0, (int)N_BAD_VALUES);
    tcase_add_test(tc, test_probe_decodes_escaped_strings);
    tcase_add_test(tc, test_probe_reports_missing_or_broken_json);
    tcase_add_test(tc, test_probe_failure_empties_a_used_record);
    tcase_add_test(tc, test_report_json_has_documented_shape);
    tcase_add_test(tc, test_report_json_of_nothing_is_valid);
    tcase_add_test(tc, test_report_json_survives_hostile_strings);
    tcase_add_loop_test(tc, test_art_json_round_trips, 0, CTK_ART__COUNT);
    tcase_add_loop_test(tc, test_art_from_json_rejects_what_to_json_never_writes, 0,
                        (int)N_BAD_ENTRIES);
    tcase_add_test(tc, test_art_from_json_rejects_empty_and_other_kinds);
    tcase_add_test(tc, test_progress_shows_verdict_time_findings_and_fix);
    tcase_add_test(tc, test_progress_shows_skip_reason_once_and_cache);
    tcase_add_test(tc, test_table_has_one_row_per_sdk_and_counts);
    tcase_add_test(tc, test_skip_kind_follows_the_skip_code);
    tcase_add_test(tc, test_table_tells_launch_skip_from_not_checked);
    tcase_add_test(tc, test_report_json_splits_the_skips);
#ifdef TU_HAVE_FAILING_MALLOC
    if (tu_alloc_sweeps_possible("check_report"))
        tcase_add_test(tc, test_out_of_memory_is_reported_and_leaks_nothing);
#else
    tu_alloc_sweeps_possible("check_report");
#endif
    suite_add_tcase(s, tc);
    return tu_run(s);
}
