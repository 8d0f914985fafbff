/* checks.h - static checks of a module's environment and a .pc's flags
 * against a verified toolkit, shared by validate and lint.
 * SPDX-License-Identifier: MIT
 *
 * Nothing here runs a program: each check compares what an artifact
 * provides (the environment a modulefile produces, the Cflags/Libs/Version
 * libpkgconf resolves for a .pc) with the toolkit record sdk.c built, and
 * adds findings (diag.h) to *out.  Findings are results, not errors: the
 * functions return false only for ctkgen's own failures (allocation,
 * an unknown code), with err set.
 */
#ifndef CTK_CHECKS_H
#define CTK_CHECKS_H

#include "diag.h"
#include "env.h"
#include "error.h"
#include "modeval.h"
#include "sdk.h"
#include "util.h"

#include <stdbool.h>

/* The file a check looks at, for the file and line of its findings. */
typedef struct {
    const char *file;          /* names the file in findings; may be NULL */
    const char *text;          /* its text, searched for line numbers; NULL: lines unknown */
    const ctk_modeval_t *ev;   /* a Lua modulefile's evaluation: the line of each variable's
                                * first operation is used instead of a text search, and
                                * findings about a whole list get that line too; NULL
                                * otherwise (validate passes NULL: its lines come from text) */
} ctk_check_src_t;

/* 1-based number of the first line of text containing needle; 0 if none. */
int ctk_check_line_of(const char *text, const char *needle);
/* Line of the module's first operation on variable name: from the Lua
 * evaluation when there is one (0 when the file itself never touches it),
 * else the first line naming it as a word of its own. */
int ctk_check_var_line(const ctk_check_src_t *src, const char *name);

/* Does the ':'-separated list hold the directory dir (compared after
 * resolving symlinks on both sides)?  Its index, or -1. */
long ctk_check_list_find_dir(const char *list, const char *dir);

/* A module's environment against the toolkit.  env: the environment after
 * loading (base + the module's changes); set: only the variables the module
 * sets, with their values.  Checks: LDFLAGS/CFLAGS/CXXFLAGS/CPPFLAGS set
 * (CTK-ENV-003); a driver stubs dir on LD_LIBRARY_PATH (CTK-LDLIB-001);
 * another libcudart's dir first (CTK-LDLIB-002); a toolkit lib dir missing
 * from LD_LIBRARY_PATH or LIBRARY_PATH (CTK-LDLIB-003); CPATH without
 * cuda_runtime.h's dir (CTK-CPATH-001) or another include dir of the
 * toolkit (CTK-CPATH-002); nvcc on PATH not the toolkit's (CTK-PATH-001).
 * *nvcc (may be NULL) gets the nvcc found on PATH when it is this
 * toolkit's (caller frees), else NULL. */
bool ctk_check_module_env(const ctk_sdk_t *sdk, const ctk_env_t *env, const ctk_env_t *set,
                          const ctk_check_src_t *src, char **nvcc, ctk_findings_t *out,
                          ctk_error_t *err);

/* A .pc's resolved flags against the toolkit: -I for cuda_runtime.h's dir
 * (CTK-CPATH-001) and the other include dirs (CTK-CPATH-002), -L for every
 * lib dir (CTK-LDLIB-003), Version against the toolkit's (CTK-PC-002;
 * pc_version NULL: not checked). */
bool ctk_check_pc(const ctk_sdk_t *sdk, const ctk_strlist_t *cflags, const ctk_strlist_t *libs,
                  const char *pc_version, const ctk_check_src_t *src, ctk_findings_t *out,
                  ctk_error_t *err);

#endif
