/* report_html.h - validate's JSON report as one HTML page for users.
 * SPDX-License-Identifier: MIT
 *
 * The page tells the users of a site which `module load` line and which
 * .pc file works on which partition.  It is self-contained (inline CSS, no
 * scripts, nothing fetched), so an admin can publish it as one file.
 *
 * Input: the text `ctkgen validate --json` prints (report.h documents the
 * shape), with the Slurm keys when validation ran on partitions:
 * "launcher", "partitions" [{name, gres_request, gres, features, job_id,
 * state, reason, node, host, cuda_visible_devices, gpu, cc, driver,
 * queued_s, ran_s}], "matrix" [{module, partition, artifact, verdict,
 * skip, launched, cuda_probe, findings}], "matrix_summary", and
 * "generated_at".  Every key is optional and a value of another type than
 * expected counts as absent, so an older or newer report still renders;
 * unknown keys are ignored.
 *
 * The page: a table with one row per SDK ("sdks" order) and one column
 * per partition ("partitions" order), or, without a "matrix" array, one
 * column "this host" made of the SDKs' own artifacts; each cell shows the
 * lmod, tcl and pc verdicts as badges (a word and a colour) and, unless
 * all three passed, a <details> element with the skip reasons and the
 * findings.  Below the table, the commands a user types for each SDK.
 *
 * Every string of the input is escaped for HTML (& < > " '); control
 * characters become U+FFFD.  The page depends on the input alone (no
 * clock, no environment): the same report gives the same bytes.
 */
#ifndef CTK_REPORT_HTML_H
#define CTK_REPORT_HTML_H

#include "error.h"

/* The page for report json_text (NUL-terminated); caller frees.  NULL with
 * err set: CTK_E_JSON (with line and column) when json_text is not JSON or
 * not a JSON object, CTK_E_NOMEM when memory ran out. */
char *ctk_report_html(const char *json_text, ctk_error_t *err);

#endif
