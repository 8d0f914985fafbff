/* report.h - validate's results for people (progress lines, summary table)
 * and lint's report for scripts (--json); validate's JSON is verdict.h's.
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_REPORT_H
#define CTK_REPORT_H

#include "error.h"
#include "lint.h"
#include "verdict.h"

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

#endif
