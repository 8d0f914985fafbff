/* vbuild.h - build the probes through each artifact (validate's part).
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_VBUILD_H
#define CTK_VBUILD_H

#include "vjob.h"

#include <stdbool.h>

/* The .pc's probes built in its environment (ctk_vjob_pc_env): `nvcc -c`
 * with its Cflags, the link by c++ with its Libs, traced, and the Libs
 * verbatim for nvcc; then run.  Its probe.o and program (j->probe_o,
 * j->pc_exe) then serve the modules where they may.  False only for
 * ctkgen's own failures (j->err). */
bool ctk_vbuild_pc(vjob_t *j, ctk_vart_t *a);

/* A module's probes in its environment menv: its own nvcc and host
 * compiler, the host probe and the CUDA probe built and run, each reusing
 * the .pc's build where vreuse.h says it stands for the module's (a Tcl
 * module whose environment is the Lua module's takes the Lua module's
 * results).  False only for ctkgen's own failures (j->err). */
bool ctk_vbuild_module(vjob_t *j, ctk_vart_t *a, ctk_env_t *menv);

#endif
