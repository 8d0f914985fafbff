/* diff.h - line-based unified diff of two byte strings (Myers O(ND)).
 * SPDX-License-Identifier: MIT
 *
 * Used by `ctkgen generate --diff` to show what a run would change.  The
 * output is the classic unified format that `patch -p1` and `git apply`
 * accept:
 *
 *   --- <a_label>
 *   +++ <b_label>
 *   @@ -l,n +l,n @@        (",n" left out when n is 1, as GNU diff does)
 *    context / -removed / +added lines, 3 lines of context
 *   \ No newline at end of file   (after a last line that has no newline)
 *
 * No timestamps, so the text is byte-deterministic.  An empty file on one
 * side gives "@@ -0,0 +1,n @@" (or the mirror image); use "/dev/null" as
 * the label of a side that does not exist.
 *
 * Lines are compared byte for byte, including the newline: "x" at the end
 * of a file without a newline differs from "x\n".  Inputs too large for the
 * line diff to be cheap (more than CTK_DIFF_MAX_LINES lines between the
 * common head and tail, or an edit distance above CTK_DIFF_MAX_D) are shown
 * as one hunk that removes all of the differing middle and adds the new
 * one: still a correct patch, just not a minimal one.
 */
#ifndef CTK_DIFF_H
#define CTK_DIFF_H

#include "error.h"

#include <stddef.h>

#define CTK_DIFF_CONTEXT 3
#define CTK_DIFF_MAX_LINES 200000
#define CTK_DIFF_MAX_D 2000

/* Unified diff turning a[0..alen) into b[0..blen).  Neither side needs a
 * NUL terminator; a or b may be NULL when its length is 0.  Returns "" (not
 * NULL) when the two are identical: no headers are written then.  NULL on
 * allocation failure (CTK_E_NOMEM).  Caller frees. */
char *ctk_diff_unified(const char *a_label, const char *a, size_t alen,
                       const char *b_label, const char *b, size_t blen,
                       ctk_error_t *err);

#endif
