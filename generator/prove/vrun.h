/* vrun.h - run a built probe and judge how it ran (validate's part).
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_VRUN_H
#define CTK_VRUN_H

#include "vjob.h"

#include <stdbool.h>

/* Run a built probe in env and check how it ended.  With a stage dir the
 * probe is also staged for a launcher elsewhere, and the CUDA probe is not
 * run here at all (its launch is judged where it runs). */
bool ctk_vrun_launch(vjob_t *j, ctk_vart_t *a, const char *exe, ctk_env_t *env,
                     ctk_probe_report_t *rep);

/* What a probe's report says about the libcudart, versions and the GPU. */
bool ctk_vrun_judge_report(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p, const char *what);

/* What the SASS-only and PTX-only builds say about the GPU and driver, once
 * both ran: a GPU outside the toolkit's architectures, or a driver that
 * runs SASS but cannot JIT this toolkit's PTX although the plain build
 * passed (it held SASS for this GPU). */
bool ctk_vrun_judge_arch(const vjudge_t *jd, ctk_vart_t *a);

/* The launch part of a cuda probe's report: pass, skip or a GPU finding. */
bool ctk_vrun_judge_launch(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p);

/* ctk_validate_judge_run() (validate.h): a probe staged for a launcher
 * elsewhere, judged as a local one is. */
bool ctk_vrun_judge_staged(const ctk_sdk_t *sdk, const ctk_vlaunch_t *l, const ctk_proc_result_t *r, double timeout_s,
                           bool require_launch, const char *where, ctk_vart_t *cell, ctk_error_t *err);

#endif
