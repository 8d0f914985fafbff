/* modenv.h - the environment a real module system produces for `module load`.
 * SPDX-License-Identifier: MIT
 *
 * Environment Modules (modulecmd.tcl run by tclsh) evaluates Tcl
 * modulefiles; Lmod (its libexec/lmod) can be asked to evaluate Lua ones
 * as a cross-check of the embedded sandbox (modeval.h).  Both print shell
 * code for `sh`; we evaluate it in /bin/sh started with the base
 * environment and read the result back with `env -0`.  Module-system
 * bookkeeping (LOADEDMODULES, _LMFILES_, MODULEPATH, __MODULES_*,
 * __LMOD_*, _ModuleTable*_, LMOD_* except LMOD_FAMILY_*, MODULES_LMALT*...)
 * is dropped from the result so it can be compared with the sandbox's.
 */
#ifndef CTK_MODENV_H
#define CTK_MODENV_H

#include "env.h"
#include "error.h"
#include "sandbox.h"

#include <stdbool.h>

typedef enum { CTK_MODSYS_TCL, CTK_MODSYS_LMOD } ctk_modsys_t;

typedef struct {
    ctk_modsys_t kind;
    char *cmd;      /* modulecmd.tcl, or Lmod's libexec/lmod */
    char *interp;   /* tclsh for modulecmd.tcl; NULL for lmod (run as is) */
    char *version;  /* "5.2.0" / "8.6.19" when it says; else NULL */
} ctk_modsys_info_t;

void ctk_modsys_info_fini(ctk_modsys_info_t *m);

/* Find Environment Modules: `explicit_cmd` (site config or --modulecmd)
 * when given, else $MODULES_CMD from `caller_env` (ctkgen's own
 * environment as envp; may be NULL), else the standard places
 * (/usr/share/modules/libexec/modulecmd.tcl,
 * /usr/lib/x86_64-linux-gnu/modulecmd.tcl, /usr/share/Modules/libexec/...,
 * /usr/local/Modules/libexec/..., /opt/modules/libexec/...), and tclsh on
 * the caller's PATH.  true with *out filled when found; false with
 * *why_not (caller frees) saying what was looked at and missing, which
 * validate reports as the reason for a skipped Tcl check.  err only for
 * allocation failure (then false and *why_not NULL). */
bool ctk_modsys_find_tcl(const char *explicit_cmd, const char *const *caller_env,
                         ctk_modsys_info_t *out, char **why_not, ctk_error_t *err);
/* As ctk_modsys_find_tcl(), for callers that must not run a program
 * another user controls (lint): when ctk_modsys_trusted() refuses what it
 * found, nothing is run, not even to ask the version: false, *untrusted
 * set (may be NULL), and *why_not names the program and why. */
bool ctk_modsys_find_tcl_trusted(const char *explicit_cmd, const char *const *caller_env,
                                 ctk_modsys_info_t *out, char **why_not, bool *untrusted, ctk_error_t *err);
/* Does ctk_trust_exec() (trust.h) trust every program a load with m runs:
 * the interpreter, the module command, and the /bin/sh and env(1) that
 * evaluate what it prints?  false with why (one line: the command not run,
 * the path at fault and why) when not. */
bool ctk_modsys_trusted(const ctk_modsys_info_t *m, char *why, size_t why_len);
/* Same for Lmod: explicit path to libexec/lmod, else $LMOD_CMD, else
 * /usr/share/lmod/lmod/libexec/lmod, /opt/apps/lmod/lmod/libexec/lmod,
 * /usr/local/lmod/lmod/libexec/lmod. */
bool ctk_modsys_find_lmod(const char *explicit_cmd, const char *const *caller_env,
                          ctk_modsys_info_t *out, char **why_not, ctk_error_t *err);

/* Load `full_name` ("cudatoolkit/13.0") from `modulepath` with the real
 * module system, starting from `base`; *out (initialised by the caller)
 * becomes base with the module's changes applied, bookkeeping dropped.
 * A module that refuses to load, or a module system that fails, is a
 * result: false is returned with CTK_E_TEMPLATE and the module system's
 * own message in err->text (source = the modulefile when known).
 * CTK_E_ENV: the module system could not be run at all (timeout included).
 * Details: the module system runs with base minus any module state in it
 * (see ctk_modenv_is_bookkeeping) plus MODULEPATH and settings that keep
 * its messages plain (no colour, no wrapping, no Lmod cache); bookkeeping
 * names in *out keep their value from base (unset when base lacks them).
 * timeout_s (<= 0: none) covers both steps together.  *out is untouched
 * on failure. */
bool ctk_modenv_load(const ctk_modsys_info_t *m, const char *modulepath, const char *full_name,
                     const ctk_env_t *base, double timeout_s, ctk_env_t *out, ctk_error_t *err);
/* The same, with both steps (the module system, and sh evaluating what it
 * printed) run as sb's user when sb->drop (sandbox.h): in a HOME and
 * TMPDIR of the load's own, which *out does not show (HOME and TMPDIR keep
 * base's values unless the module set them).  The module system, the
 * modulefile and the directories Environment Modules lists must be
 * readable by that user (ctk_sandbox_can_load), else the load fails as
 * any refused load.  sb NULL, or not dropping: ctk_modenv_load(). */
bool ctk_modenv_load_as(const ctk_modsys_info_t *m, const char *modulepath, const char *full_name,
                        const ctk_env_t *base, double timeout_s, const ctk_sandbox_t *sb, ctk_env_t *out,
                        ctk_error_t *err);

/* The same, loading the modules named in first (NULL-terminated, at most
 * CTK_MODENV_MAX_FIRST; NULL: none) before full_name in the same command,
 * `module load FIRST... FULL_NAME`, as a user loads a module's
 * prerequisites (prereq) with it.  *out holds what all of them changed. */
#define CTK_MODENV_MAX_FIRST 8
bool ctk_modenv_load_after(const ctk_modsys_info_t *m, const char *modulepath, const char *const *first,
                           const char *full_name, const ctk_env_t *base, double timeout_s,
                           const ctk_sandbox_t *sb, ctk_env_t *out, ctk_error_t *err);

/* Is NAME module-system or shell bookkeeping, which ctk_modenv_load()
 * leaves at its value in base: LOADEDMODULES, _LMFILES_, MODULEPATH,
 * __MODULES_*, MODULES_LM*, MODULES_FAMILY_* (Environment Modules' copy of
 * LMOD_FAMILY_*), *_modshare, __LMOD_*, _ModuleTable*, LMOD_* except
 * LMOD_FAMILY_*, and PWD, OLDPWD, SHLVL, _ (set by /bin/sh itself).
 * For filtering another evaluation the same way before comparing. */
bool ctk_modenv_is_bookkeeping(const char *name);

#endif
