/* report_html.c - validate's JSON report as a self-contained HTML page.
 * SPDX-License-Identifier: MIT
 *
 * The report is read with jansson and the page written into one ctk_buf_t;
 * no json_t leaves this file.  The input is untrusted: module names,
 * reasons and messages come from files other users may write, so every
 * string of it goes through esc(), and class names and structure come from
 * this file's own literals only.  Reading is lenient (a key that is absent
 * or of another type is left out of the page), because a page that shows
 * what there is serves users better than an error about a newer report.
 *
 * Allocation failures while parsing: the report is read with
 * ctk_json_load() (jsonio.c says why jansson's own parse cannot be trusted
 * to report them), so any failure of memory is CTK_E_NOMEM, never a report
 * cut short.
 * Rendering reads the parsed tree only and allocates nothing through
 * jansson.
 *
 * The markup is HTML5 that is also well-formed XML (void elements end in
 * "/>", the only entities are XML's own and numeric ones), so a test can
 * check every element is closed and nested with an XML parser.
 */
#include <ctkconf.h>

#include "report_html.h"

#include "jsonio.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOURCE "validate report"

/* The report's root object (caller decrefs), or NULL with err set. */
static json_t *load_report(const char *text, ctk_error_t *err)
{
    json_t *root;

    if (!text) {
        ctk_error_set(err, CTK_E_JSON, SOURCE, 0, 0, "there is no report to render");
        return NULL;
    }
    if (!(root = ctk_json_load(text, strlen(text), SOURCE, 0, 0, "the report", err)))
        return NULL;
    if (!json_is_object(root)) {
        ctk_error_set(err, CTK_E_JSON, SOURCE, 1, 1, "the report is not a JSON object");
        json_decref(root);
        return NULL;
    }
    return root;
}

/* ======================================================================
 * Text
 * ====================================================================== */

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* s escaped for element text and quoted attribute values alike.  Control
 * characters but tab and newline, DEL and the C1 controls U+0080..U+009F
 * (parse errors in HTML) become U+FFFD.  jansson hands out valid UTF-8
 * without NUL bytes, so nothing else can be out of place. */
static void esc(ctk_buf_t *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *run = p;

    for (; *p; p++) {
        const char *rep = NULL;
        size_t n = 1;

        switch (*p) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) {
                rep = REPLACEMENT;
            } else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
                rep = REPLACEMENT;
                n = 2;
            }
        }
        if (!rep)
            continue;
        ctk_buf_append(b, (const char *)run, (size_t)(p - run));
        ctk_buf_puts(b, rep);
        p += n - 1;
        run = p + 1;
    }
    ctk_buf_append(b, (const char *)run, (size_t)(p - run));
}

/* before, s escaped, after: for the many places that wrap one value. */
static void wrap(ctk_buf_t *b, const char *before, const char *s, const char *after)
{
    ctk_buf_puts(b, before);
    esc(b, s);
    ctk_buf_puts(b, after);
}

/* o[key] when it is a string; NULL otherwise (o may be NULL or no object). */
static const char *str_of(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* o[key] as text: a string as it is, a number formatted into buf; NULL
 * for anything else. */
static const char *text_of(const json_t *o, const char *key, char *buf, size_t size)
{
    const json_t *v = json_object_get(o, key);

    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return buf;
    }
    if (json_is_real(v)) {
        snprintf(buf, size, "%g", json_real_value(v));
        return buf;
    }
    return NULL;
}

typedef struct {
    const char *label; /* our own text, written as it is */
    const char *key;
} field_t;

/* open, label, value, close for each field o has (values escaped). */
static void put_fields(ctk_buf_t *b, const json_t *o, const field_t *f, size_t n, const char *open,
                       const char *close)
{
    char num[64];
    size_t i;

    for (i = 0; i < n; i++) {
        const char *v = text_of(o, f[i].key, num, sizeof num);

        if (!v || !*v)
            continue;
        ctk_buf_puts(b, open);
        ctk_buf_puts(b, f[i].label);
        wrap(b, "", v, close);
    }
}

/* ======================================================================
 * Verdicts
 * ====================================================================== */

#define N_ARTS 3
static const char *const art_kinds[N_ARTS] = { "lmod", "tcl", "pc" };

static int kind_index(const char *kind)
{
    int k;

    for (k = 0; kind && k < N_ARTS; k++)
        if (strcmp(kind, art_kinds[k]) == 0)
            return k;
    return -1;
}

/* The badge class of a verdict: one of ours, never the input's text. */
static const char *verdict_class(const char *v)
{
    static const char *const known[] = { "pass", "skip", "fail" };
    size_t i;

    for (i = 0; v && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(v, known[i]) == 0)
            return known[i];
    return "none";
}

static bool is_pass(const json_t *art)
{
    const char *v = str_of(art, "verdict");

    return v && strcmp(v, "pass") == 0;
}

/* A colored badge that says its verdict in a word too; "none" when there
 * is no result. */
static void put_badge(ctk_buf_t *b, const char *verdict)
{
    ctk_buf_puts(b, "<span class=\"b ");
    ctk_buf_puts(b, verdict_class(verdict));
    wrap(b, "\">", verdict ? verdict : "none", "</span>");
}

/* ======================================================================
 * Cells
 * ====================================================================== */

static void put_findings(ctk_buf_t *b, const json_t *findings)
{
    char num[64];
    size_t i;

    if (json_array_size(findings) == 0)
        return;
    ctk_buf_puts(b, "<ul class=\"findings\">\n");
    for (i = 0; i < json_array_size(findings); i++) {
        const json_t *f = json_array_get(findings, i);
        const char *sev = str_of(f, "severity"), *code = str_of(f, "code");
        const char *msg = str_of(f, "message"), *fix = str_of(f, "fix");
        const char *file = str_of(f, "file"), *line = text_of(f, "line", num, sizeof num);

        ctk_buf_puts(b, "<li>");
        if (sev)
            wrap(b, "<span class=\"sev\">", sev, "</span> ");
        if (code)
            wrap(b, "<code>", code, "</code> ");
        if (msg)
            esc(b, msg);
        if (file) {
            wrap(b, "<span class=\"sub\">in <code>", file, "");
            if (line)
                wrap(b, ":", line, "");
            ctk_buf_puts(b, "</code></span>");
        }
        if (fix)
            wrap(b, "<span class=\"fix\">Fix: ", fix, "</span>");
        ctk_buf_puts(b, "</li>\n");
    }
    ctk_buf_puts(b, "</ul>\n");
}

/* What the probe kernel saw, when the artifact launched one. */
static void put_probe(ctk_buf_t *b, const json_t *probe)
{
    static const field_t f[] = {
        { "device ", "device" }, { "cc ", "cc" }, { "status ", "status" }, { "libcudart ", "libcudart" },
    };
    const json_t *ok = json_object_get(probe, "kernel_ok");

    if (!json_is_object(probe))
        return;
    ctk_buf_puts(b, "<p class=\"probe\">Probe:");
    put_fields(b, probe, f, sizeof f / sizeof f[0], " ", ";");
    if (json_is_boolean(ok))
        ctk_buf_puts(b, json_is_true(ok) ? " the kernel ran." : " the kernel did not run correctly.");
    ctk_buf_puts(b, "</p>\n");
}

/* One artifact's part of a cell's details: skip reason, probe, findings
 * (its badge is just above).  Nothing for a pass without findings. */
static void put_art_details(ctk_buf_t *b, const char *kind, const json_t *art)
{
    const json_t *skip = json_object_get(art, "skip");
    const json_t *findings = json_object_get(art, "findings");
    const char *code = str_of(skip, "code"), *reason = str_of(skip, "reason");

    if (!art || (is_pass(art) && json_array_size(findings) == 0))
        return;
    wrap(b, "<p class=\"dh\">The ", kind, " file:</p>\n");
    if (code || reason) {
        ctk_buf_puts(b, "<p>Skipped:");
        if (code)
            wrap(b, " <code>", code, "</code>");
        if (reason)
            wrap(b, " ", reason, "");
        ctk_buf_puts(b, "</p>\n");
    }
    if (!is_pass(art))
        put_probe(b, json_object_get(art, "cuda_probe"));
    put_findings(b, findings);
}

/* One table cell: arts[k] is the result of art_kinds[k] there, or NULL. */
static void put_cell(ctk_buf_t *b, const json_t *const *arts)
{
    bool all_pass = true, say = false;
    int k;

    for (k = 0; k < N_ARTS; k++) {
        if (!is_pass(arts[k]))
            all_pass = false;
        if (arts[k] && (!is_pass(arts[k]) || json_array_size(json_object_get(arts[k], "findings"))))
            say = true;
    }
    ctk_buf_puts(b, "<td>\n<ul class=\"arts\">\n");
    for (k = 0; k < N_ARTS; k++) {
        wrap(b, "<li><span class=\"art\">", art_kinds[k], "</span> ");
        put_badge(b, str_of(arts[k], "verdict"));
        ctk_buf_puts(b, "</li>\n");
    }
    ctk_buf_puts(b, "</ul>\n");
    if (!all_pass && say) {
        ctk_buf_puts(b, "<details>\n<summary>Why</summary>\n");
        for (k = 0; k < N_ARTS; k++)
            put_art_details(b, art_kinds[k], arts[k]);
        ctk_buf_puts(b, "</details>\n");
    }
    ctk_buf_puts(b, "</td>\n");
}

/* ======================================================================
 * The grid: which result goes in which cell
 * ====================================================================== */

typedef struct {
    size_t nm, np;       /* rows (SDKs) and columns (partitions, or 1: this host) */
    const json_t **cell; /* [(m * np + p) * N_ARTS + k], borrowed; NULL: no result */
} grid_t;

static bool grid_init(grid_t *g, size_t nm, size_t np)
{
    g->nm = nm;
    g->np = np;
    g->cell = NULL;
    if (nm == 0 || np == 0)
        return true;
    if (np > SIZE_MAX / N_ARTS / nm)
        return false;
    g->cell = calloc(nm * np * N_ARTS, sizeof *g->cell);
    return g->cell != NULL;
}

static const json_t **grid_slot(const grid_t *g, size_t m, size_t p)
{
    return &g->cell[(m * g->np + p) * N_ARTS];
}

/* Index of the first element of arr whose key is want; SIZE_MAX if none. */
static size_t find_by(const json_t *arr, const char *key, const char *want)
{
    size_t i;

    for (i = 0; want && i < json_array_size(arr); i++) {
        const char *s = str_of(json_array_get(arr, i), key);

        if (s && strcmp(s, want) == 0)
            return i;
    }
    return SIZE_MAX;
}

/* Matrix entries into their cells; the first entry for a cell wins, and
 * one that names no known module, partition or artifact is left out. */
static bool grid_from_matrix(grid_t *g, const json_t *sdks, const json_t *parts, const json_t *matrix)
{
    size_t i;

    if (!grid_init(g, json_array_size(sdks), json_array_size(parts)))
        return false;
    for (i = 0; i < json_array_size(matrix); i++) {
        const json_t *e = json_array_get(matrix, i);
        size_t m = find_by(sdks, "module", str_of(e, "module"));
        size_t p = find_by(parts, "name", str_of(e, "partition"));
        int k = kind_index(str_of(e, "artifact"));

        if (m != SIZE_MAX && p != SIZE_MAX && k >= 0 && !grid_slot(g, m, p)[k])
            grid_slot(g, m, p)[k] = e;
    }
    return true;
}

/* The local form: one column, the SDKs' own artifacts. */
static bool grid_from_sdks(grid_t *g, const json_t *sdks)
{
    size_t m, i;

    if (!grid_init(g, json_array_size(sdks), 1))
        return false;
    for (m = 0; m < g->nm; m++) {
        const json_t *arts = json_object_get(json_array_get(sdks, m), "artifacts");

        for (i = 0; i < json_array_size(arts); i++) {
            const json_t *a = json_array_get(arts, i);
            int k = kind_index(str_of(a, "kind"));

            if (k >= 0 && !grid_slot(g, m, 0)[k])
                grid_slot(g, m, 0)[k] = a;
        }
    }
    return true;
}

/* Whether a cell shows "none": no result, or a verdict we do not know. */
static bool grid_has_none(const grid_t *g)
{
    size_t i;

    for (i = 0; i < g->nm * g->np * N_ARTS; i++)
        if (strcmp(verdict_class(str_of(g->cell[i], "verdict")), "none") == 0)
            return true;
    return false;
}

/* ======================================================================
 * The page
 * ====================================================================== */

static const char css[] =
    "body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif;margin:1.5rem;"
    "color:#1b1b1b;background:#fff;line-height:1.4}\n"
    "h1{font-size:1.6rem}\n"
    "table{border-collapse:collapse;margin:1rem 0}\n"
    "caption{text-align:left;font-weight:600;padding:.3rem 0}\n"
    "th,td{border:1px solid #999;padding:.4rem .6rem;vertical-align:top;text-align:left}\n"
    "thead th{background:#f0f0f0}\n"
    ".sub{display:block;font-weight:normal;font-size:.85em;color:#404040}\n"
    ".state{display:block;font-weight:normal;font-size:.85em;color:#8a1111}\n"
    "ul.arts,ul.legend{list-style:none;margin:0;padding:0}\n"
    ".b{display:inline-block;min-width:3.2em;padding:0 .4em;border:1px solid;border-radius:.3em;"
    "font-size:.85em;font-weight:600;text-align:center}\n"
    ".pass{background:#dcf5e0;color:#0b5d1e}\n"
    ".skip{background:#fff1c2;color:#5c4300}\n"
    ".fail{background:#fde0e0;color:#8a1111}\n"
    ".none{background:#ececec;color:#404040}\n"
    ".art{display:inline-block;min-width:2.6em;font-family:ui-monospace,monospace}\n"
    "details{margin-top:.3rem;max-width:34rem}\n"
    "summary{cursor:pointer}\n"
    ".fix{display:block;color:#303030}\n"
    ".dh{font-weight:600;margin:.4rem 0 .1rem}\n"
    "pre{background:#f6f6f6;padding:.4rem .6rem;border:1px solid #ddd;overflow-x:auto}\n"
    "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}\n";

static void put_head(ctk_buf_t *b, const json_t *root)
{
    const char *outdir = str_of(root, "outdir"), *version = str_of(root, "ctkgen");

    ctk_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n");
    if (version)
        wrap(b, "<meta name=\"generator\" content=\"ctkgen ", version, "\" />\n");
    ctk_buf_puts(b, "<title>CUDA toolkits");
    if (outdir)
        wrap(b, " on ", outdir, "");
    ctk_buf_puts(b, "</title>\n<style>\n");
    ctk_buf_puts(b, css);
    ctk_buf_puts(b, "</style>\n</head>\n<body>\n<main>\n<h1>CUDA toolkits");
    if (outdir)
        wrap(b, " on <code>", outdir, "</code>");
    ctk_buf_puts(b, "</h1>\n");
}

/* "label: 3 pass, 0 skip, 0 fail" from a summary object, if there is one. */
static void put_counts(ctk_buf_t *b, const char *label, const json_t *sum)
{
    static const field_t f[] = { { "", "pass" }, { "", "skip" }, { "", "fail" } };
    char num[64];
    size_t i;
    bool first = true;

    if (!json_is_object(sum))
        return;
    ctk_buf_puts(b, "<li>");
    ctk_buf_puts(b, label);
    for (i = 0; i < sizeof f / sizeof f[0]; i++) {
        const char *v = text_of(sum, f[i].key, num, sizeof num);

        if (!v)
            continue;
        wrap(b, first ? " " : ", ", v, " ");
        ctk_buf_puts(b, f[i].key);
        first = false;
    }
    ctk_buf_puts(b, "</li>\n");
}

static void put_intro(ctk_buf_t *b, const json_t *root, bool matrix)
{
    static const field_t host[] = {
        { "C compiler: ", "cc" }, { "C compiler version: ", "cc_version" },
        { "C++ compiler: ", "cxx" }, { "NVIDIA driver: ", "driver" },
        { "Lmod: ", "lmod" }, { "Tcl modules: ", "tcl" },
    };
    const char *version = str_of(root, "ctkgen"), *when = str_of(root, "generated_at");
    char num[64];
    const char *secs = text_of(root, "seconds", num, sizeof num);

    ctk_buf_puts(b, "<p>Checked by <code>ctkgen validate</code>");
    if (version)
        wrap(b, " (ctkgen ", version, ")");
    if (when) {
        wrap(b, " at <time datetime=\"", when, "\">");
        wrap(b, "", when, "</time>");
    }
    if (secs)
        wrap(b, " in ", secs, " s");
    ctk_buf_puts(b, matrix ? ". Probe kernels ran as Slurm jobs on the partitions below.</p>\n"
                           : ". Probe kernels ran on the host that ran it.</p>\n");
    ctk_buf_puts(b, "<ul>\n");
    put_counts(b, "Toolkits:", json_object_get(root, "summary"));
    if (matrix)
        put_counts(b, "Results in the table:", json_object_get(root, "matrix_summary"));
    put_fields(b, json_object_get(root, "host"), host, sizeof host / sizeof host[0], "<li>", "</li>\n");
    ctk_buf_puts(b, "</ul>\n");
}

static void put_legend(ctk_buf_t *b, bool with_none)
{
    ctk_buf_puts(b,
        "<section aria-labelledby=\"legend\">\n<h2 id=\"legend\">Legend</h2>\n"
        "<p>Each cell shows three files: <span class=\"art\">lmod</span> the Lmod modulefile, "
        "<span class=\"art\">tcl</span> the Tcl modulefile (Environment Modules), "
        "<span class=\"art\">pc</span> the pkg-config file.</p>\n<ul class=\"legend\">\n"
        "<li><span class=\"b pass\">pass</span> works: it loads, a probe builds with it and its "
        "kernel runs</li>\n"
        "<li><span class=\"b skip\">skip</span> not launched (or not checked); the cell says why</li>\n"
        "<li><span class=\"b fail\">fail</span> does not work; the cell lists the findings and "
        "their fixes</li>\n");
    if (with_none)
        ctk_buf_puts(b, "<li><span class=\"b none\">none</span> no result there (a column header "
                        "says why when its partition did not run)</li>\n");
    ctk_buf_puts(b, "</ul>\n</section>\n");
}

/* A partition's column header: name, GPU, cc, driver, node, job, and the
 * state and reason when it did not run. */
static void put_part_header(ctk_buf_t *b, const json_t *part)
{
    static const field_t f[] = {
        { "GPU ", "gpu" }, { "cc ", "cc" }, { "driver ", "driver" }, { "node ", "node" }, { "job ", "job_id" },
    };
    static const char *const states[][2] = {
        { "not_submitted", "not submitted" },
        { "pending_timeout", "still pending when the queue timeout ran out" },
        { "lost", "the job was lost" },
        { "cancelled", "the job was cancelled" },
    };
    const char *name = str_of(part, "name"), *state = str_of(part, "state");
    const char *reason = str_of(part, "reason");
    size_t i;

    wrap(b, "<th scope=\"col\">", name ? name : "(unnamed)", "\n");
    put_fields(b, part, f, sizeof f / sizeof f[0], "<span class=\"sub\">", "</span>\n");
    if (state && strcmp(state, "ran") != 0) {
        wrap(b, "<span class=\"state\">Did not run (<code>", state, "</code>)");
        for (i = 0; i < sizeof states / sizeof states[0]; i++)
            if (strcmp(state, states[i][0]) == 0)
                wrap(b, ": ", states[i][1], "");
        ctk_buf_puts(b, "</span>\n");
        if (reason)
            wrap(b, "<span class=\"state\">Reason: ", reason, "</span>\n");
    }
    ctk_buf_puts(b, "</th>\n");
}

/* The first probe that saw a GPU, to name it in the local form's header. */
static const json_t *first_gpu_probe(const json_t *sdks)
{
    size_t m, i;

    for (m = 0; m < json_array_size(sdks); m++) {
        const json_t *arts = json_object_get(json_array_get(sdks, m), "artifacts");

        for (i = 0; i < json_array_size(arts); i++) {
            const json_t *p = json_object_get(json_array_get(arts, i), "cuda_probe");
            const char *dev = str_of(p, "device");

            if (dev && *dev)
                return p;
        }
    }
    return NULL;
}

static void put_host_header(ctk_buf_t *b, const json_t *root)
{
    static const field_t gpu[] = { { "GPU ", "device" }, { "cc ", "cc" } };
    static const field_t host[] = { { "driver ", "driver" } };

    ctk_buf_puts(b, "<th scope=\"col\">this host\n");
    put_fields(b, first_gpu_probe(json_object_get(root, "sdks")), gpu, sizeof gpu / sizeof gpu[0],
               "<span class=\"sub\">", "</span>\n");
    put_fields(b, json_object_get(root, "host"), host, 1, "<span class=\"sub\">", "</span>\n");
    ctk_buf_puts(b, "</th>\n");
}

static void put_row(ctk_buf_t *b, const json_t *sdk, size_t m, const grid_t *g)
{
    const char *module = str_of(sdk, "module"), *version = str_of(sdk, "version");
    size_t p;

    ctk_buf_printf(b, "<tr>\n<th scope=\"row\"><a href=\"#sdk-%zu\">", m + 1);
    wrap(b, "", module ? module : "(unnamed)", "</a>");
    if (version)
        wrap(b, "<span class=\"sub\">CUDA ", version, "</span>");
    ctk_buf_puts(b, "</th>\n");
    for (p = 0; p < g->np; p++)
        put_cell(b, grid_slot(g, m, p));
    ctk_buf_puts(b, "</tr>\n");
}

static void put_table(ctk_buf_t *b, const json_t *root, const grid_t *g, bool matrix)
{
    const json_t *sdks = json_object_get(root, "sdks"), *parts = json_object_get(root, "partitions");
    size_t i;

    ctk_buf_puts(b, "<section aria-labelledby=\"where\">\n<h2 id=\"where\">Where each toolkit works</h2>\n"
                    "<table>\n<caption>");
    ctk_buf_puts(b, matrix ? "Verdicts of each module's lmod, tcl and pc files on each Slurm partition"
                           : "Verdicts of each module's lmod, tcl and pc files on the host that checked them");
    ctk_buf_puts(b, "</caption>\n<thead>\n<tr>\n<th scope=\"col\">Module</th>\n");
    for (i = 0; i < g->np; i++) {
        if (matrix)
            put_part_header(b, json_array_get(parts, i));
        else
            put_host_header(b, root);
    }
    ctk_buf_puts(b, "</tr>\n</thead>\n<tbody>\n");
    for (i = 0; i < g->nm; i++)
        put_row(b, json_array_get(sdks, i), i, g);
    ctk_buf_puts(b, "</tbody>\n</table>\n</section>\n");
}

/* The file of one artifact of an SDK, or NULL. */
static const char *art_file(const json_t *sdk, const char *kind)
{
    const json_t *arts = json_object_get(sdk, "artifacts");

    return str_of(json_array_get(arts, find_by(arts, "kind", kind)), "file");
}

/* What a user types for one SDK, and the files behind it. */
static void put_sdk(ctk_buf_t *b, const json_t *sdk, size_t i)
{
    const char *module = str_of(sdk, "module"), *pc = str_of(sdk, "pc");
    const char *version = str_of(sdk, "version"), *root = str_of(sdk, "root");
    const char *lmod = art_file(sdk, "lmod"), *tcl = art_file(sdk, "tcl"), *pcf = art_file(sdk, "pc");

    ctk_buf_printf(b, "<section aria-labelledby=\"sdk-%zu\">\n<h3 id=\"sdk-%zu\">", i + 1, i + 1);
    wrap(b, "", module ? module : pc ? pc : "(unnamed)", "</h3>\n<p>");
    if (version)
        wrap(b, "CUDA ", version, " ");
    if (root)
        wrap(b, "in <code>", root, "</code> ");
    ctk_buf_puts(b, "&#8212; overall ");
    put_badge(b, str_of(sdk, "verdict"));
    ctk_buf_puts(b, "</p>\n");
    if (module) {
        wrap(b, "<p>With modules:</p>\n<pre><code>module load ", module, "</code></pre>\n");
        if (lmod)
            wrap(b, "<p class=\"sub\">Lmod: <code>", lmod, "</code></p>\n");
        if (tcl)
            wrap(b, "<p class=\"sub\">Tcl: <code>", tcl, "</code></p>\n");
    }
    if (pc) {
        wrap(b, "<p>With pkg-config:</p>\n<pre><code>pkg-config --cflags --libs ", pc, "</code></pre>\n");
        if (pcf)
            wrap(b, "<p class=\"sub\">File: <code>", pcf,
                 "</code> (its directory goes on PKG_CONFIG_PATH)</p>\n");
    }
    ctk_buf_puts(b, "</section>\n");
}

static void put_sdks(ctk_buf_t *b, const json_t *sdks)
{
    size_t i;

    ctk_buf_puts(b, "<section aria-labelledby=\"use\">\n<h2 id=\"use\">How to use each toolkit</h2>\n");
    for (i = 0; i < json_array_size(sdks); i++)
        put_sdk(b, json_array_get(sdks, i), i);
    ctk_buf_puts(b, "</section>\n");
}

char *ctk_report_html(const char *json_text, ctk_error_t *err)
{
    grid_t g = { 0, 0, NULL };
    const json_t *sdks, *parts, *matrix;
    json_t *root;
    ctk_buf_t b;
    char *page = NULL;
    bool is_matrix, ok;

    ctk_buf_init(&b);
    if (!(root = load_report(json_text, err)))
        goto out;
    sdks = json_object_get(root, "sdks");
    parts = json_object_get(root, "partitions");
    matrix = json_object_get(root, "matrix");
    /* a matrix without partitions has no column to show: the local form */
    is_matrix = json_is_array(matrix) && json_array_size(parts) > 0;
    ok = is_matrix ? grid_from_matrix(&g, sdks, parts, matrix) : grid_from_sdks(&g, sdks);
    if (!ok) {
        ctk_error_nomem(err);
        goto out;
    }
    put_head(&b, root);
    put_intro(&b, root, is_matrix);
    put_legend(&b, grid_has_none(&g));
    put_table(&b, root, &g, is_matrix);
    put_sdks(&b, sdks);
    ctk_buf_puts(&b, "</main>\n</body>\n</html>\n");
    if (b.failed)
        ctk_error_nomem(err);
    else
        page = ctk_buf_take(&b, NULL);
out:
    ctk_buf_fini(&b);
    free(g.cell);
    json_decref(root);
    return page;
}
