/* report.c - validate's results as progress lines, a table and a matrix
 * for people; lint's report as JSON.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "report.h"
#include "util.h"

#include "jsonio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *lint_file_json(const ctk_lint_file_t *f)
{
    json_t *o = json_object(), *tk = json_null(), *sug = json_null();

    if (!o)
        return NULL;
    if (f->root && !(tk = json_object()))
        goto fail;
    if (f->root && (!ctk_json_set(tk, "root", ctk_json_str(f->root)) || !ctk_json_set(tk, "version", ctk_json_str(f->version)) ||
                    !ctk_json_set(tk, "found_by", ctk_json_str(f->found_by))))
        goto fail;
    if (f->suggestion && !(sug = json_loads(f->suggestion, 0, NULL)))
        goto fail;
    if (!ctk_json_set(o, "file", ctk_json_str(f->file)) || !ctk_json_set(o, "kind", ctk_json_str(ctk_lint_kind_name(f->kind))) ||
        !ctk_json_set(o, "name", ctk_json_str(f->name)) || !ctk_json_set(o, "evaluated_as", ctk_json_str(f->evaluated_as)) ||
        json_object_set(o, "toolkit", tk) != 0 ||
        !ctk_json_set(o, "findings", ctk_json_findings(&f->findings, true)) ||
        !ctk_json_set(o, "not_fully_checked", json_boolean(f->incomplete)) || !ctk_json_set(o, "unchecked", ctk_json_strlist(&f->unchecked)) ||
        json_object_set(o, "suggestion", sug) != 0 ||
        (f->suggestion && !ctk_json_set(o, "suggestion_notes", ctk_json_strlist(&f->suggestion_notes))))
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
    ok = ok && ctk_json_set(sum, "files", ctk_json_int((long long)r->n_files)) && ctk_json_set(sum, "error", ctk_json_int((long long)r->n_error)) &&
         ctk_json_set(sum, "warning", ctk_json_int((long long)r->n_warning)) && ctk_json_set(sum, "note", ctk_json_int((long long)r->n_note)) &&
         ctk_json_set(sum, "waived", ctk_json_int((long long)r->n_waived)) &&
         ctk_json_set(sum, "not_fully_checked", ctk_json_int((long long)r->n_incomplete)) &&
         ctk_json_set(sum, "skipped", ctk_json_int((long long)r->n_skipped));
    for (i = 0; ok && i < r->n_files; i++)
        ok = ctk_json_append(files, lint_file_json(&r->files[i]));
    for (i = 0; ok && i < r->n_skipped; i++) {
        json_t *s = json_object();

        ok = ctk_json_append(skipped, s) && ctk_json_set(s, "file", ctk_json_str(r->skipped[i].file)) && ctk_json_set(s, "why", ctk_json_str(r->skipped[i].why));
    }
    ok = ok && ctk_json_set(root, "ctkgen", ctk_json_str(PACKAGE_VERSION)) && ctk_json_set(root, "tcl", ctk_json_str(r->tcl_modsys)) &&
         ctk_json_set(root, "tcl_skip", ctk_json_str(r->tcl_skip)) && ctk_json_set(root, "tcl_user", ctk_json_str(r->tcl_user)) &&
         ctk_json_set(root, "trust_tcl", json_boolean(r->trust_tcl)) && json_object_set(root, "summary", sum) == 0 &&
         json_object_set(root, "files", files) == 0 && json_object_set(root, "skipped", skipped) == 0;
    if (ok)
        text = ctk_json_dump(root, err);
    else
        ctk_error_nomem(err);
    json_decref(skipped);
    json_decref(files);
    json_decref(sum);
    json_decref(root);
    return text;
}

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

/* The matrix's two header lines: each partition's name over its three
 * columns, then the artifacts' names under each. */
static void put_matrix_head(FILE *fp, const ctk_vreport_t *r, size_t width, const char *head)
{
    size_t p, cw = (size_t)CTK_ART__COUNT * (MARK_WIDTH + 1);
    int k;

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
}

/* A row per module: its mark in each partition for each artifact; the
 * marks used noted in used. */
static void put_matrix_rows(FILE *fp, const ctk_vreport_t *r, size_t width, bool color, bool used[MARK__COUNT])
{
    for (size_t i = 0; i < r->n_sdks; i++) {
        const char *m = r->sdks[i].module ? r->sdks[i].module : "?";

        fputs("  ", fp);
        put_text(fp, m);
        fprintf(fp, "%*s", (int)(width - strlen(m)), "");
        for (size_t p = 0; p < r->n_parts; p++) {
            fputs("  ", fp);
            for (int k = 0; k < CTK_ART__COUNT; k++) {
                mark_t mk = mark_of(ctk_vreport_cell(r, i, p, (ctk_art_t)k));

                put_mark(fp, mk, false, MARK_WIDTH, color);
                fputc(' ', fp);
                used[mk] = true;
            }
        }
        fputc('\n', fp);
    }
}

/* What did not pass, cell by cell, with its findings. */
static void put_matrix_failures(FILE *fp, const ctk_vreport_t *r, bool color)
{
    for (size_t i = 0; i < r->n_sdks; i++)
        for (size_t p = 0; p < r->n_parts; p++)
            for (int k = 0; k < CTK_ART__COUNT; k++) {
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
}

void ctk_report_matrix(FILE *fp, const ctk_vreport_t *r, bool color)
{
    static const char head[] = "module";
    size_t i, p, width = sizeof head - 1;
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
    put_matrix_head(fp, r, width, head);
    put_matrix_rows(fp, r, width, color, used);
    put_matrix_failures(fp, r, color);
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

