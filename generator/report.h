/* report.h - validate's results for people (progress lines, summary table)
 * and for scripts (--json), and the cache's serialised form of one result.
 * SPDX-License-Identifier: MIT
 *
 * report.c owns every json_t of the validation side; nothing of jansson
 * leaks through this header.
 *
 * JSON report (verdicts and the summary's counts are explained in
 * docs/diagnostics.md):
 *   { "ctkgen": "<version>", "outdir": ..., "jobs": N, "seconds": S,
 *     "host": { "cc": ..., "cc_version": ..., "cxx": ..., "driver": ...|null,
 *               "tcl": ...|null, "lmod": ...|null },
 *     "summary": { "pass": n, "skip": n, "fail": n,
 *                  "skip_launch": n, "skip_unchecked": n },
 *     "sdks": [ { "module": ..., "pc": ..., "version": ..., "root": ...,
 *                 "verdict": "pass|skip|fail", "seconds": S,
 *                 "artifacts": [ { "kind": "lmod|tcl|pc", "file": ...,
 *                     "verdict": ..., "skip": {"code","reason"}|null,
 *                     "cached": bool, "seconds": S,
 *                     "env": {NAME: VALUE, ...}      (lmod, tcl)
 *                     "cflags": [...], "libs": [...], "pc_version": ... (pc)
 *                     "nvcc": ..., "nvcc_release": ...,
 *                     "host_probe": {...}|null, "cuda_probe": {...}|null,
 *                     "launched": bool,
 *                     "findings": [ {"code","severity","file","line","message","fix"} ] } ] } ] }
 * "skip_launch" and "skip_unchecked" split "skip" by ctk_vart_skip_kind():
 * launch skipped (CTK-SKIP-001, -002) and never evaluated (CTK-SKIP-003).
 * Probe objects carry the probe's own keys (cudart_header, runtime, driver,
 * devices, status, device, cc, kernel_ok, libcudart).
 * Conventions: absent strings are null; "cc" is null when 0.0 (no GPU),
 * "kernel_ok" null for the host probe, a finding's "line" null when
 * unknown; seconds are rounded to milliseconds.  Strings that are not
 * UTF-8 are written with U+FFFD for each byte that starts no valid
 * sequence, so the text is always valid JSON.
 */
#ifndef CTK_REPORT_H
#define CTK_REPORT_H

#include "error.h"
#include "lint.h"
#include "validate.h"

#include <stdbool.h>
#include <stdio.h>

/* "  cudatoolkit/13.0  lmod  PASS       1.42 s" plus, indented below, one
 * line per finding ("    error CTK-CPATH-001: ...") followed by its fix,
 * and the skip reason.  The result is a mark: PASS, NOLAUNCH (a skip of the
 * launch alone), UNCHECKED (a skip of the whole artifact) or FAIL.  When
 * color is true, marks and severities are colored (ANSI).  Control bytes
 * in messages are shown as \xNN. */
void ctk_report_progress(FILE *fp, const ctk_vsdk_t *sdk, ctk_art_t art, bool color);
/* Summary table: one row per SDK, one column per artifact holding its mark
 * as above ('*' after it when read from the cache) and the SDK's time; a
 * legend line for each mark the table uses; then the counts line of r->n_*
 * ("3 passed, 1 passed with launch skipped (no GPU), 1 not checked,
 * 2 failed (artifacts)"). */
void ctk_report_table(FILE *fp, const ctk_vreport_t *r, bool color);
/* After the table, for a run whose probes launched elsewhere (Slurm): a
 * line per partition (its job, node, GPU, driver, CUDA_VISIBLE_DEVICES, or
 * why it did not run), the matrix (a row per module, three marks per
 * partition), each cell that did not pass with its findings, the legend
 * and the counts line of r->m_* with the jobs and Slurm commands used. */
void ctk_report_matrix(FILE *fp, const ctk_vreport_t *r, bool color);
/* The whole report as JSON text (pretty, sorted as documented); caller frees. */
char *ctk_report_json(const ctk_vreport_t *r, ctk_error_t *err);

/* lint's report as JSON text (pretty); caller frees.  Schema (docs/lint.md):
 *   { "ctkgen": "<version>", "tcl": "Environment Modules X (path)"|null,
 *     "tcl_skip": why Tcl files were not loaded|null,
 *     "summary": { "files": n, "error": n, "warning": n, "note": n, "skipped": n },
 *     "files": [ { "file": ..., "kind": "lua|tcl|pc", "name": ...,
 *                  "toolkit": { "root", "version", "found_by" }|null,
 *                  "findings": [ {"code","severity","file","line","message","fix"} ],
 *                  "suggestion": {site config}|null } ],
 *     "skipped": [ { "file": ..., "why": ... } ] } */
char *ctk_report_lint_json(const ctk_lint_report_t *r, ctk_error_t *err);

/* Cache form of one artifact result: the same object as in the JSON
 * report's "artifacts" array.  from_json fills an artifact record
 * (a->kind must already be set; other members are replaced) and marks it
 * cached; CTK_E_JSON when the text is not what to_json writes (another
 * kind, unknown keys, a code this ctkgen does not know), and then *a is
 * left as it was. */
char *ctk_report_art_to_json(const ctk_vart_t *a, ctk_error_t *err);
bool ctk_report_art_from_json(const char *text, ctk_vart_t *a, ctk_error_t *err);

/* Free everything a result owns and leave it zeroed with kind kept. */
void ctk_vart_fini(ctk_vart_t *a);
/* The report a `ctkgen validate --json` printed on a compute node, into
 * partition part's cells of r (matched by module name).  false with
 * CTK_E_JSON naming what is missing. */
bool ctk_report_cells_from_json(const char *text, const ctk_vreport_t *r, size_t part, ctk_error_t *err);

#endif
