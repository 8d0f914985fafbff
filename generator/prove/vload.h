/* vload.h - load each artifact and check what it sets (validate's part).
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_VLOAD_H
#define CTK_VLOAD_H

#include "vjob.h"

#include <stdbool.h>

/* Before anything reads an artifact (the cache key, the sandbox, Lmod,
 * Environment Modules, libpkgconf, each of which would follow a symlink
 * or block on a FIFO): read each one, and the .modulerc its module system
 * reads beside it, as generate reads the tree.  A symlink or anything but
 * a regular file there is refused, and that artifact is not evaluated.
 * False only for ctkgen's own failures. */
bool ctk_vload_check_tree(vjob_t *j, bool *any_refused);

/* The MODULEPATH an artifact loads from: its own tree, then, when the
 * module requires another, the site's dirs (ctk_vopts_t.modulepath). */
char *ctk_vload_module_path(vjob_t *j, const char *sub);

/* a was not loaded because its prerequisite could not be: a skip with why. */
bool ctk_vload_skip_prereq(vjob_t *j, ctk_vart_t *a, const char *what, const char *why);

/* The sandbox's environment after `module load PREREQ`, as Lmod would
 * leave it (Tcl files through Lmod's tcl2lua): pre_env[0] and pre_kv, or
 * pre_why[0]. */
bool ctk_vload_prereq_lua(vjob_t *j);

/* Environment Modules' environment after `module load PREREQ`, loaded as
 * the Tcl artifact would be: pre_env[1], or pre_why[1].  Nothing when the
 * artifact itself is not to be loaded here (ctk_vload_eval_tcl() says why). */
bool ctk_vload_prereq_tcl(vjob_t *j);

/* The Lua modulefile a evaluated in the sandbox, after its prerequisite:
 * its environment into j->menv[0], and its findings; with --lmod, real
 * Lmod must load it the same.  False only for ctkgen's own failures
 * (j->err). */
bool ctk_vload_eval_lmod(vjob_t *j, ctk_vart_t *a);

/* The Tcl modulefile a loaded by real Environment Modules (as another
 * user when ctkgen is root), after its prerequisite: its changes into
 * j->menv[1] and a->env, and its findings; a skip where it cannot be
 * loaded here.  False only for ctkgen's own failures (j->err). */
bool ctk_vload_eval_tcl(vjob_t *j, ctk_vart_t *a);

/* The .pc file a resolved by libpkgconf in its own dir: j->pc, and its
 * Cflags, Libs and Version into a; a finding where it does not resolve.
 * False only for ctkgen's own failures (j->err). */
bool ctk_vload_eval_pc(vjob_t *j, ctk_vart_t *a);

/* The static checks of a module's environment menv (checks.h), with lines
 * from the text ctk_vload_check_tree() read; the nvcc it puts first on PATH, and its
 * release, into a. */
bool ctk_vload_check_module_env(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv);

/* The static checks of the .pc's Cflags, Libs and Version (checks.h). */
bool ctk_vload_check_pc_static(vjob_t *j, ctk_vart_t *a);

/* The programs validate runs for artifact k that the site config named
 * (not the host compilers, not the probes it builds in its private dir):
 * the SDK's nvcc and ccbin on the .pc artifact, whose steps run them by
 * those paths; a module's own nvcc, when its PATH finds another, on that
 * module.  They still run (the admin chose them); the warning changes no
 * verdict.  Judged on every run, never taken from the cache: a chown
 * changes no cache key. */
bool ctk_vload_trust_findings(vjob_t *j, ctk_art_t k);

#endif
