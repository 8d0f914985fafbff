/* vopts.h - how a validate run is asked to go: its options.
 * SPDX-License-Identifier: MIT
 *
 * Apart from validate.h so that the parts of validate (vjob.h) read them
 * without the interface they sit below.
 */
#ifndef CTK_VOPTS_H
#define CTK_VOPTS_H

#include "verdict.h"

#include <stdbool.h>

typedef struct {
    const char *outdir;       /* the generated tree */
    const char *modulecmd;    /* modulecmd.tcl; NULL: find it (modenv.h) */
    bool lmod_check;          /* also evaluate Lua with real Lmod; finding if it differs */
    const char *lmod_cmd;     /* libexec/lmod; NULL: find it */
    const char *cc;           /* host C compiler; NULL: "cc" on PATH */
    const char *cxx;          /* host C++ compiler; NULL: "c++" on PATH */
    int jobs;                 /* <= 0: the number of online CPUs */
    double timeout_s;         /* per build or run step; <= 0: 120 */
    bool require_launch;
    bool trust_tcl;           /* as root: a Tcl modulefile only root can change is loaded as root */
    bool no_cache;
    const char *stage_dir;    /* non-NULL: copy every built probe here and list
                               * it in the report's launches; the CUDA probes
                               * are not run here.  Nothing is cached. */
    const char *cache_dir;    /* NULL: $XDG_CACHE_HOME/ctkgen, else ~/.cache/ctkgen */
    /* Where the modules an SDK's module requires (host_compiler.module:
     * prereq) are found, ':'-joined, in search order; NULL or "": nowhere.
     * Such a module is loaded first, as its users must: the sandbox
     * evaluates it, the module systems load it in the same command, and
     * the .pc is built in its environment.  One that cannot be found or
     * loaded makes the SDK's artifacts a CTK-SKIP-006 skip, never a fail. */
    const char *modulepath;
    /* called once per artifact as results arrive (from worker threads,
     * serialised by validate: never concurrently); may be NULL */
    void (*progress)(const ctk_vsdk_t *sdk, ctk_art_t art, void *arg);
    void *progress_arg;
} ctk_vopts_t;

#endif
