/* check_report_html.c - the HTML page made from validate's JSON report.
 * SPDX-License-Identifier: MIT
 *
 * The reports are written here as JSON text, as `ctkgen validate --json`
 * prints them: two SDKs on two Slurm partitions (one cell failing, one
 * partition still pending at the queue timeout), and the local form
 * without a matrix.  The pages are checked for what a user reads, for the
 * table's shape, for escaping of hostile strings, for sameness across
 * calls, and, with xmllint, for being well-formed.
 */
#include <ctkconf.h>

#include "failmalloc.h"
#include "report_html.h"
#include "testutil.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixtures -------------------------------------------------------------- */

#define MOD_A "cudatoolkit/13.0"
#define MOD_B "cudatoolkit/12.8"
#define FAIL_CODE "CTK-RUN-002"
#define FAIL_MSG "the probe kernel did not launch: no kernel image is available for cc 8.0"
#define FAIL_FIX "load a toolkit that builds for the partition's GPU"
#define PENDING_REASON "(Resources) no node with gpu:h100 free"
#define HOSTILE "<script>alert(1)</script>"

static const char *const arts[] = { "lmod", "tcl", "pc" };

/* One SDK of "sdks"; caller frees. */
static char *sdk_json(const char *module, const char *pc, const char *verdict)
{
    ctk_buf_t b;
    int k;

    ctk_buf_init(&b);
    ctk_buf_printf(&b, "{\"module\":\"%s\",\"pc\":\"%s\",\"version\":\"13.0.1\","
                       "\"root\":\"/usr/local/cuda-13.0\",\"verdict\":\"%s\",\"seconds\":4.1,"
                       "\"artifacts\":[", module, pc, verdict);
    for (k = 0; k < 3; k++)
        ctk_buf_printf(&b, "%s{\"kind\":\"%s\",\"file\":\"/srv/modules/%s/%s\",\"verdict\":\"%s\","
                           "\"skip\":null,\"findings\":[]}",
                       k ? "," : "", arts[k], arts[k], pc, verdict);
    ctk_buf_puts(&b, "]}");
    ck_assert(!b.failed);
    return ctk_buf_take(&b, NULL);
}

/* One matrix entry; fail adds the failing finding with message msg. */
static void matrix_entry(ctk_buf_t *b, const char *module, const char *part, const char *art,
                         const char *verdict, const char *msg)
{
    ctk_buf_printf(b, ",{\"module\":\"%s\",\"partition\":\"%s\",\"artifact\":\"%s\","
                      "\"verdict\":\"%s\",\"launched\":%s,",
                   module, part, art, verdict, strcmp(verdict, "skip") ? "true" : "false");
    if (strcmp(verdict, "skip") == 0)
        ctk_buf_puts(b, "\"skip\":{\"code\":\"CTK-SKIP-002\",\"reason\":\"not launched: no CUDA-capable "
                        "GPU visible (cudaErrorNoDevice)\"},\"cuda_probe\":null,\"findings\":[]}");
    else if (strcmp(verdict, "fail") == 0)
        ctk_buf_printf(b, "\"skip\":null,\"cuda_probe\":{\"cudart_header\":13000,\"runtime\":13000,"
                          "\"driver\":12040,\"devices\":1,\"status\":\"cudaSuccess\",\"device\":"
                          "\"NVIDIA A100\",\"cc\":\"8.0\",\"kernel_ok\":false,\"libcudart\":\"/x\"},"
                          "\"findings\":[{\"code\":\"" FAIL_CODE "\",\"severity\":\"error\","
                          "\"file\":\"/srv/modules/tcl/x\",\"line\":null,\"message\":\"%s\","
                          "\"fix\":\"" FAIL_FIX "\"}]}",
                       msg);
    else
        ctk_buf_puts(b, "\"skip\":null,\"cuda_probe\":null,\"findings\":[]}");
}

/* The Slurm report: MOD_A and module_b on gpu-a100 (ran; module_b's tcl
 * fails with msg) and gpu-h100 (pending_timeout with reason; MOD_A's
 * entries are skips, module_b has none).  Caller frees. */
static char *slurm_report(const char *module_b, const char *msg, const char *reason)
{
    char *a = sdk_json(MOD_A, "ctk-13.0", "pass"), *bsdk = sdk_json(module_b, "ctk-12.8", "pass");
    ctk_buf_t b;
    int k;

    ctk_buf_init(&b);
    ctk_buf_printf(&b, "{\"ctkgen\":\"0.9\",\"outdir\":\"/srv/modules\",\"jobs\":2,\"seconds\":12.3,"
                       "\"generated_at\":\"2026-11-26T15:00:00Z\",\"future_key\":{\"x\":[1]},"
                       "\"host\":{\"cc\":\"/usr/bin/cc\",\"cc_version\":\"12.2.0\",\"driver\":null},"
                       "\"summary\":{\"pass\":2,\"skip\":0,\"fail\":0},\"sdks\":[%s,%s],"
                       "\"launcher\":\"slurm\",\"partitions\":["
                       "{\"name\":\"gpu-a100\",\"gres\":\"gpu:a100:1\",\"job_id\":\"4711\",\"state\":\"ran\","
                       "\"reason\":null,\"node\":\"gpu-a100-1\",\"gpu\":\"NVIDIA A100-SXM4-80GB\","
                       "\"cc\":\"8.0\",\"driver\":\"12.4\",\"queued_s\":1.2,\"ran_s\":3.4},"
                       "{\"name\":\"gpu-h100\",\"job_id\":\"4712\",\"state\":\"pending_timeout\","
                       "\"reason\":\"%s\",\"node\":null,\"gpu\":null,\"cc\":null,\"driver\":null}],"
                       "\"matrix\":[{\"module\":\"nowhere\",\"partition\":\"gpu-a100\",\"artifact\":\"pc\"}",
                   a, bsdk, reason);
    for (k = 0; k < 3; k++) {
        matrix_entry(&b, MOD_A, "gpu-a100", arts[k], "pass", NULL);
        matrix_entry(&b, module_b, "gpu-a100", arts[k], k == 1 ? "fail" : "pass", msg);
        matrix_entry(&b, MOD_A, "gpu-h100", arts[k], "skip", NULL);
    }
    ctk_buf_puts(&b, "],\"matrix_summary\":{\"pass\":5,\"skip\":3,\"fail\":1}}");
    free(a);
    free(bsdk);
    ck_assert(!b.failed);
    return ctk_buf_take(&b, NULL);
}

/* The page of text (asserting there is one); kept until teardown. */
static char *page_of(const char *text)
{
    ctk_error_t err;
    char *page;

    ctk_error_init(&err);
    page = ctk_report_html(text, &err);
    ck_assert_msg(page != NULL, "no page: %s", err.text);
    ck_assert(!ctk_error_is_set(&err));
    return tu_keep(page);
}

static char *slurm_page(void)
{
    char *text = tu_keep(slurm_report(MOD_B, FAIL_MSG, PENDING_REASON));

    return page_of(text);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    const char *p;

    for (p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* The text between the first from and the next to (kept). */
static char *between(const char *s, const char *from, const char *to)
{
    const char *a = strstr(s, from), *z;

    ck_assert_msg(a != NULL, "no %s", from);
    z = strstr(a, to);
    ck_assert_msg(z != NULL, "no %s after %s", to, from);
    return tu_keep(ctk_strndup(a, (size_t)(z - a), NULL));
}

/* a occurs in s, and before the first b. */
static void assert_before(const char *s, const char *a, const char *b)
{
    const char *pa = strstr(s, a), *pb = strstr(s, b);

    ck_assert_msg(pa && pb && pa < pb, "%s does not come before %s", a, b);
}

#define ck_assert_has(page, s) ck_assert_msg(strstr((page), (s)) != NULL, "page lacks %s", (s))
#define ck_assert_lacks(page, s) ck_assert_msg(strstr((page), (s)) == NULL, "page holds %s", (s))

static void teardown(void)
{
    tu_free_kept();
}

/* ---- tests -------------------------------------------------------------------- */

START_TEST(test_html_is_a_standalone_page_named_after_the_outdir)
{
    const char *page = slurm_page();

    ck_assert(ctk_str_has_prefix(page, "<!DOCTYPE html>\n"));
    ck_assert_has(page, "<meta charset=\"utf-8\" />");
    ck_assert_has(page, "<title>CUDA toolkits on /srv/modules</title>");
    ck_assert_has(page, "<h1>CUDA toolkits on <code>/srv/modules</code></h1>");
    ck_assert_has(page, "<style>");
    ck_assert_has(page, "ctkgen 0.9");
    ck_assert_has(page, "<time datetime=\"2026-11-26T15:00:00Z\">2026-11-26T15:00:00Z</time>");
    /* nothing runs, nothing is fetched */
    ck_assert_lacks(page, "<script");
    ck_assert_lacks(page, "<link");
    ck_assert_lacks(page, "src=");
    ck_assert_lacks(page, "url(");
    ck_assert_lacks(page, "@import");
    ck_assert(strlen(page) > 0 && page[strlen(page) - 1] == '\n');
    ck_assert_has(page, "</html>\n");
}
END_TEST

START_TEST(test_html_legend_names_each_verdict)
{
    const char *legend = between(slurm_page(), "<h2 id=\"legend\">", "</section>");

    ck_assert_has(legend, "<span class=\"b pass\">pass</span>");
    ck_assert_has(legend, "<span class=\"b skip\">skip</span> not launched");
    ck_assert_has(legend, "<span class=\"b fail\">fail</span>");
    /* MOD_B has no result on gpu-h100 */
    ck_assert_has(legend, "<span class=\"b none\">none</span>");
}
END_TEST

START_TEST(test_html_matrix_shows_modules_partitions_and_the_failure)
{
    const char *page = slurm_page();
    const char *table = between(page, "<table>", "</table>");
    const char *head = between(table, "<thead>", "</thead>");

    ck_assert_has(table, "<caption>");
    ck_assert_has(table, MOD_A);
    ck_assert_has(table, MOD_B);
    ck_assert_has(head, "gpu-a100");
    ck_assert_has(head, "gpu-h100");
    ck_assert_lacks(table, "nowhere");
    /* the partition that ran: GPU, cc, driver, node, job */
    ck_assert_has(head, "GPU NVIDIA A100-SXM4-80GB");
    ck_assert_has(head, "cc 8.0");
    ck_assert_has(head, "driver 12.4");
    ck_assert_has(head, "node gpu-a100-1");
    ck_assert_has(head, "job 4711");
    /* the one that did not: its state and Slurm's reason */
    ck_assert_has(head, "<code>pending_timeout</code>");
    ck_assert_has(head, PENDING_REASON);
    ck_assert_uint_eq(count(head, "<span class=\"state\">Did not run"), 1);
    /* the failing cell says what failed and how to fix it */
    ck_assert_has(table, FAIL_CODE);
    ck_assert_has(table, FAIL_MSG);
    ck_assert_has(table, "Fix: load a toolkit that builds for the partition&#39;s GPU");
    ck_assert_has(table, "the kernel did not run correctly");
    /* the skipped cell says why */
    ck_assert_has(table, "CTK-SKIP-002");
    ck_assert_has(table, "no CUDA-capable GPU visible");
    /* details for the failing and the skipped cell only */
    ck_assert_uint_eq(count(table, "<details>"), 2);
    ck_assert_uint_eq(count(table, "<span class=\"b fail\">fail</span>"), 1);
    ck_assert_uint_eq(count(table, "<span class=\"b pass\">pass</span>"), 5);
    ck_assert_uint_eq(count(table, "<span class=\"b skip\">skip</span>"), 3);
    ck_assert_uint_eq(count(table, "<span class=\"b none\">none</span>"), 3);
}
END_TEST

START_TEST(test_html_has_one_row_per_module_and_a_column_per_partition)
{
    const char *page = slurm_page();
    const char *body = between(page, "<tbody>", "</tbody>");
    const char *head = between(page, "<thead>", "</thead>");

    ck_assert_uint_eq(count(page, "<table>"), 1);
    ck_assert_uint_eq(count(body, "<tr>"), 2);
    ck_assert_uint_eq(count(body, "<th scope=\"row\">"), 2);
    ck_assert_uint_eq(count(body, "<td>"), 4);
    ck_assert_uint_eq(count(head, "<tr>"), 1);
    ck_assert_uint_eq(count(head, "<th scope=\"col\">"), 3);
    /* rows in "sdks" order, columns in "partitions" order */
    assert_before(body, MOD_A, MOD_B);
    assert_before(head, "gpu-a100", "gpu-h100");
}
END_TEST

START_TEST(test_html_tells_users_what_to_type)
{
    const char *page = slurm_page();
    const char *use = between(page, "<h2 id=\"use\">", "</main>");

    ck_assert_has(use, "<pre><code>module load " MOD_A "</code></pre>");
    ck_assert_has(use, "<pre><code>module load " MOD_B "</code></pre>");
    ck_assert_has(use, "<pre><code>pkg-config --cflags --libs ctk-13.0</code></pre>");
    ck_assert_has(use, "<pre><code>pkg-config --cflags --libs ctk-12.8</code></pre>");
    ck_assert_has(use, "/srv/modules/pc/ctk-13.0");
    assert_before(use, MOD_A, MOD_B);
    /* the table's row headers link to these sections */
    ck_assert_has(page, "<a href=\"#sdk-2\">" MOD_B "</a>");
    ck_assert_has(use, "<h3 id=\"sdk-2\">" MOD_B "</h3>");
}
END_TEST

START_TEST(test_html_escapes_every_string_of_the_report)
{
    static const char quote[] = "x\\\" onmouseover=\\\"alert(2)\\\" y='z'";
    char *reason = tu_str("%s \\u0007 \\u0085", quote);
    char *text = tu_keep(slurm_report(HOSTILE, HOSTILE, reason));
    const char *page = page_of(text);

    ck_assert_lacks(page, "<script");
    ck_assert_lacks(page, "</script");
    ck_assert_lacks(page, "\" onmouseover");
    ck_assert_lacks(page, "'z'");
    ck_assert_lacks(page, "\x07");
    ck_assert_lacks(page, "\xc2\x85");
    /* the row header, its link, the finding, module load */
    ck_assert_uint_ge(count(page, "&lt;script&gt;alert(1)&lt;/script&gt;"), 4);
    ck_assert_has(page, "<pre><code>module load &lt;script&gt;alert(1)&lt;/script&gt;</code></pre>");
    ck_assert_has(page, "x&quot; onmouseover=&quot;alert(2)&quot; y=&#39;z&#39; \xef\xbf\xbd \xef\xbf\xbd");
}
END_TEST

START_TEST(test_html_is_the_same_on_every_call)
{
    char *text = tu_keep(slurm_report(MOD_B, FAIL_MSG, PENDING_REASON));
    const char *one = page_of(text), *two = page_of(text);

    ck_assert_str_eq(one, two);
}
END_TEST

START_TEST(test_html_rejects_what_is_not_a_report)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_report_html("{\"sdks\": [\n  {\"module\": }]}", &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert_str_eq(err.source, "validate report");
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_gt(err.column, 0);
    ck_assert_msg(strstr(err.text, "not valid JSON") != NULL, "%s", err.text);

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_report_html("[1, 2]", &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);
    ck_assert_msg(strstr(err.text, "not a JSON object") != NULL, "%s", err.text);

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_report_html("", &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_report_html(NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_JSON);

    ck_assert_ptr_null(ctk_report_html("{\"a\":1,\"a\":2}", NULL));
}
END_TEST

START_TEST(test_html_local_form_has_one_column_for_this_host)
{
    static const char text[] =
        "{\"ctkgen\":\"0.9\",\"outdir\":\"/srv/modules\",\"host\":{\"driver\":\"580.65\"},"
        "\"sdks\":[{\"module\":\"cudatoolkit/13.0\",\"pc\":\"ctk-13.0\",\"verdict\":\"skip\","
        "\"artifacts\":[{\"kind\":\"pc\",\"verdict\":\"pass\",\"skip\":null,\"findings\":[]},"
        "{\"kind\":\"lmod\",\"verdict\":\"skip\",\"skip\":{\"code\":\"CTK-SKIP-001\",\"reason\":"
        "\"not launched: no NVIDIA driver on this machine\"},\"findings\":[]},"
        "{\"kind\":\"tcl\",\"verdict\":\"pass\",\"skip\":null,\"findings\":[],"
        "\"cuda_probe\":{\"device\":\"NVIDIA H100\",\"cc\":\"9.0\"}}]}]}";
    const char *page = page_of(text);
    const char *head = between(page, "<thead>", "</thead>");
    const char *body = between(page, "<tbody>", "</tbody>");

    ck_assert_uint_eq(count(head, "<th scope=\"col\">"), 2);
    ck_assert_has(head, "<th scope=\"col\">this host");
    ck_assert_has(head, "driver 580.65");
    ck_assert_has(head, "GPU NVIDIA H100");
    ck_assert_uint_eq(count(body, "<tr>"), 1);
    ck_assert_uint_eq(count(body, "<td>"), 1);
    /* lmod, tcl, pc in that order whatever the report's order */
    ck_assert_has(body, "<li><span class=\"art\">lmod</span> <span class=\"b skip\">skip</span></li>\n"
                        "<li><span class=\"art\">tcl</span> <span class=\"b pass\">pass</span></li>\n"
                        "<li><span class=\"art\">pc</span> <span class=\"b pass\">pass</span></li>");
    ck_assert_has(body, "<details>");
    ck_assert_has(body, "CTK-SKIP-001");
    ck_assert_has(body, "no NVIDIA driver on this machine");
    ck_assert_has(page, "<pre><code>module load cudatoolkit/13.0</code></pre>");
    ck_assert_has(page, "<pre><code>pkg-config --cflags --libs ctk-13.0</code></pre>");
    ck_assert_lacks(page, "<span class=\"b none\">");
    ck_assert_lacks(page, "Slurm jobs");
}
END_TEST

START_TEST(test_html_tolerates_absent_and_odd_keys)
{
    const char *empty = page_of("{}");
    const char *odd = page_of("{\"outdir\":7,\"sdks\":{\"module\":\"x\"},\"partitions\":\"a\","
                              "\"matrix\":[],\"summary\":[1],\"host\":null,\"generated_at\":false}");
    const char *bare = page_of("{\"sdks\":[{\"artifacts\":[{\"kind\":\"lmod\"},7,{\"kind\":\"other\"}]},"
                               "{\"module\":\"m\",\"artifacts\":\"no\"}],\"launcher\":\"slurm\","
                               "\"partitions\":[{},{\"name\":\"p\",\"state\":\"lost\"}],\"matrix\":"
                               "[7,{\"module\":\"m\",\"partition\":\"p\",\"artifact\":\"pc\","
                               "\"verdict\":\"weird<\",\"skip\":\"x\",\"findings\":{}}]}");

    ck_assert_has(empty, "<title>CUDA toolkits</title>");
    ck_assert_uint_eq(count(between(empty, "<tbody>", "</tbody>"), "<tr>"), 0);
    ck_assert_has(odd, "<title>CUDA toolkits</title>");
    ck_assert_has(odd, "<th scope=\"col\">this host");
    ck_assert_uint_eq(count(between(bare, "<tbody>", "</tbody>"), "<tr>"), 2);
    ck_assert_uint_eq(count(between(bare, "<thead>", "</thead>"), "<th scope=\"col\">"), 3);
    ck_assert_has(bare, "<code>lost</code>): the job was lost");
    ck_assert_has(bare, "<span class=\"b none\">weird&lt;</span>");
}
END_TEST

/* The page parses as XML (every element closed and nested: the markup is
 * written that way on purpose, see report_html.c) and as HTML, where
 * libxml2's HTML 4 parser may only object to HTML5's own elements. */
static const char *const html5_tags[] = { "main", "section", "details", "summary", "time" };

START_TEST(test_html_is_well_formed_per_xmllint)
{
    char *dir = tu_keep(tu_mkdtemp());
    char *text = tu_keep(slurm_report(HOSTILE, HOSTILE, PENDING_REASON));
    char *file = tu_keep(tu_write(dir, "page.html", page_of(text)));
    char *log = tu_keep(ctk_path_join(dir, "html.log", NULL));
    char *errors, *line, *save = NULL;
    size_t i;

    ck_assert_int_eq(tu_sh("xmllint --noout '%s'", file), 0);
    tu_sh("xmllint --html --noout '%s' >'%s' 2>&1", file, log);
    errors = tu_keep(tu_read(log));
    for (line = strtok_r(errors, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        bool known = false;

        if (!strstr(line, "error : "))
            continue; /* the context lines under a message */
        for (i = 0; i < sizeof html5_tags / sizeof html5_tags[0]; i++)
            if (strstr(line, tu_str("Tag %s invalid", html5_tags[i])))
                known = true;
        ck_assert_msg(known, "xmllint --html: %s", line);
    }
    tu_rmtree(dir);
}
END_TEST

/* ---- out of memory ------------------------------------------------------------ */

#ifdef TU_HAVE_FAILING_MALLOC
static char *sweep_text;

static void *op_html(ctk_error_t *err)
{
    return ctk_report_html(sweep_text, err);
}

static void release_free(void *p)
{
    free(p);
}

START_TEST(test_out_of_memory_is_reported_and_leaks_nothing)
{
    long n;

    sweep_text = slurm_report(MOD_B, FAIL_MSG, PENDING_REASON);
    n = tu_alloc_sweep("ctk_report_html", op_html, release_free);
    ck_assert_int_gt(n, 50);
    free(sweep_text);
}
END_TEST
#endif

/* Whether xmllint can be run; says so when not, and the test is left out. */
static bool have_xmllint(void)
{
    if (tu_sh("command -v xmllint >/dev/null 2>&1") == 0)
        return true;
    fprintf(stderr, "SKIP: check_report_html: xmllint not found (libxml2-utils): the page's "
                    "well-formedness is not checked\n");
    return false;
}

int main(void)
{
    Suite *s = suite_create("report_html");
    TCase *tc = tcase_create("report_html");

    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_add_test(tc, test_html_is_a_standalone_page_named_after_the_outdir);
    tcase_add_test(tc, test_html_legend_names_each_verdict);
    tcase_add_test(tc, test_html_matrix_shows_modules_partitions_and_the_failure);
    tcase_add_test(tc, test_html_has_one_row_per_module_and_a_column_per_partition);
    tcase_add_test(tc, test_html_tells_users_what_to_type);
    tcase_add_test(tc, test_html_escapes_every_string_of_the_report);
    tcase_add_test(tc, test_html_is_the_same_on_every_call);
    tcase_add_test(tc, test_html_rejects_what_is_not_a_report);
    tcase_add_test(tc, test_html_local_form_has_one_column_for_this_host);
    tcase_add_test(tc, test_html_tolerates_absent_and_odd_keys);
    if (have_xmllint())
        tcase_add_test(tc, test_html_is_well_formed_per_xmllint);
#ifdef TU_HAVE_FAILING_MALLOC
    if (tu_alloc_sweeps_possible("check_report_html"))
        tcase_add_test(tc, test_out_of_memory_is_reported_and_leaks_nothing);
#else
    tu_alloc_sweeps_possible("check_report_html");
#endif
    suite_add_tcase(s, tc);
    return tu_run(s);
}
