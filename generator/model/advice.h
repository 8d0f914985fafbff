/* advice.h - warnings about a run that is valid but may not do what the
 * admin meant: a version source passed over, a declared patch level the
 * toolkit cannot confirm, an HPC SDK whose math_libs were not named, paths
 * that some consumers of the output cannot take, a pkgconfig_dir that does
 * not exist yet (the staging workflow: OUT/pkgconfig is copied there).  None stops a run.
 * (Full-version aliases left out: ctk_render_notes().)
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_ADVICE_H
#define CTK_ADVICE_H

#include "config.h"
#include "error.h"
#include "sdk.h"
#include "util.h"

/* Append one line per warning to notes (no "warning:" prefix, no newline),
 * in SDK order.  outdir is the absolute output directory.  False only when
 * memory runs out. */
bool ctk_advise(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n, const char *outdir,
                ctk_strlist_t *notes, ctk_error_t *err);

#endif
