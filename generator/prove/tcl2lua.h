/* tcl2lua.h - Tcl modulefiles read as Lmod reads them: through its tcl2lua.tcl.
 * SPDX-License-Identifier: MIT
 *
 * Lmod loads a Tcl modulefile by running `tclsh tcl2lua.tcl ... FILE`
 * (libexec/loadModuleFile.lua, runTCLprog) and evaluating the Lua it
 * prints.  Where Environment Modules is absent but Lmod is installed,
 * lint does the same: this runs tcl2lua.tcl on a file and hands back the
 * Lua, which the modeval sandbox evaluates (modeval.h).
 *
 * tcl2lua.tcl runs the file's Tcl, a full language (`exec`, `file
 * delete`), so the run follows the rules of Environment Modules' loads
 * (sandbox.h): a clean environment, a timeout after which every process
 * it started is killed, and as an unprivileged user, in a HOME and TMPDIR
 * of its own, when ctkgen is root.  tclsh and tcl2lua.tcl run only when
 * ctk_trust_exec() (trust.h) trusts them.
 */
#ifndef CTK_TCL2LUA_H
#define CTK_TCL2LUA_H

#include "env.h"
#include "error.h"
#include "sandbox.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *tclsh;      /* absolute */
    char *script;     /* .../libexec/tcl2lua.tcl */
    char *version;    /* Lmod's, from libexec/Version.lua ("8.6.19"); "?" when unread */
} ctk_tcl2lua_t;

/* Find tcl2lua.tcl: beside $LMOD_CMD (from caller_env, may be NULL), else
 * in /usr/share/lmod/lmod/libexec, /opt/apps/lmod/lmod/libexec and
 * /usr/local/lmod/lmod/libexec; tclsh on caller_env's PATH (else
 * /usr/bin:/bin).  true with *out filled when both are found and
 * trusted.  false with *why_not (caller frees) saying what is missing, or
 * which program another user can change (then *untrusted is set; may be
 * NULL); err only for allocation failure (then *why_not is NULL). */
bool ctk_tcl2lua_find(const char *const *caller_env, ctk_tcl2lua_t *out, char **why_not, bool *untrusted,
                      ctk_error_t *err);
void ctk_tcl2lua_fini(ctk_tcl2lua_t *t);

/* "Lmod 8.6.19's tcl2lua (path)", for reports; caller frees. */
char *ctk_tcl2lua_describe(const ctk_tcl2lua_t *t, ctk_error_t *err);

/* Translate file, loaded as full_name ("cuda/13.0"), in load mode, as
 * Lmod's loadModuleFile does: `tclsh tcl2lua.tcl -l "" -f full_name -m
 * load -u full_name -s sh file`, with base plus LMOD_VERSION, in sb's
 * user's private dirs when sb->drop (sb may be NULL), within timeout_s.
 * true: *lua and *len (caller frees) hold the Lua it printed.  false:
 * CTK_E_TEMPLATE, source file, when tcl2lua refused the file (its Tcl
 * failed; err->text quotes tcl2lua's first lines); CTK_E_ENV when it
 * could not run (timeout included); CTK_E_NOMEM. */
bool ctk_tcl2lua_run(const ctk_tcl2lua_t *t, const char *file, const char *full_name, const ctk_env_t *base,
                     double timeout_s, const ctk_sandbox_t *sb, char **lua, size_t *len, ctk_error_t *err);

/* ctk_tcl2lua_run() on a dependency a modulefile names (modeval.h's
 * tcl_to_lua): file is DIR/full_name, and who runs it is
 * ctk_sandbox_pick(sb, DIR, file); a file that user may not load is an
 * error (CTK_E_ENV, its reason).  The Lua, or NULL with err set. */
char *ctk_tcl2lua_dep(const ctk_tcl2lua_t *t, const ctk_sandbox_t *sb, const ctk_env_t *base, double timeout_s,
                      const char *file, const char *full_name, size_t *len, ctk_error_t *err);

#endif
