/* vreuse.h - when the .pc's build stands for a module's (validate's part).
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_VREUSE_H
#define CTK_VREUSE_H

#include "vjob.h"

#include <stdbool.h>

/* *same: would the module's nvcc, in menv, see what the .pc's compile
 * saw?  False only on an internal error (j->err). */
bool ctk_vreuse_same_compile_env(vjob_t *j, const ctk_vart_t *a, const ctk_env_t *menv, bool *same);

/* *same: may the .pc's program stand for the module's (vreuse.c, "one
 * link for several artifacts")?  *cc_too: and does `cc`, in menv, search
 * what c++ does, so that the host probe's C link would take the same
 * files?  Not where probes are staged to run elsewhere: the loader there
 * sees that machine's files.  False only on an internal error (j->err). */
bool ctk_vreuse_same_link(vjob_t *j, ctk_env_t *menv, bool *same, bool *cc_too);

#endif
