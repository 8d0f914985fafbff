/* lint.h - audit existing modulefiles and .pc files, whoever wrote them.
 * SPDX-License-Identifier: MIT
 *
 * ctk_lint() takes files and directories (walked recursively, entries in
 * byte order, symbolic links not followed, a file reached twice linted
 * once) and classifies each file.  Only regular files are read: a FIFO,
 * device or socket, and a link found in a walk that leads to one or into
 * /proc or /sys, is a CTK-READ-001 finding, never opened; a path named
 * in paths[] may be a link to a regular file.  Classes:
 *   *.lua                 Lua modulefile: evaluated in the modeval sandbox
 *                         (no commands, files or code loading; memory,
 *                         instruction and stack limits)
 *   *.pc                  pkg-config file: resolved by libpkgconf
 *   starts with #%Module  Tcl modulefile: loaded by the real Environment
 *                         Modules (modulecmd.tcl under tclsh) in a private
 *                         HOME with a clean environment and a timeout.
 *                         Tcl is a full language: loading runs whatever
 *                         the file says, as `module load` would.  So a
 *                         root ctkgen loads it as an unprivileged user
 *                         (sandbox.h), and a file that user cannot read
 *                         gets CTK-SKIP-004 instead of a load as root;
 *                         trust_tcl loads a file only root can change as
 *                         root.  With no Environment Modules (or
 *                         tcl_with lmod), read as Lmod reads it: Lmod's
 *                         tcl2lua.tcl turns it into Lua (same rules:
 *                         clean env, timeout, the unprivileged user),
 *                         which is evaluated and checked as a Lua file;
 *                         evaluated_as says "through Lmod's tcl2lua".
 *   .version .modulerc .modulerc.lua, other files: not linted; listed
 *                         in the report's skipped entries with the reason
 * A module's name comes from its path: .../<name>/<version>[.lua] gives
 * "<name>/<version>" (myModuleName(), [module-info name]).
 *
 * For each file lint works out which toolkit it points at from what it
 * sets (CUDA_HOME and friends, PATH entries with bin/nvcc, LD_LIBRARY_PATH
 * entries with libcudart, CPATH entries with cuda_runtime.h; a .pc's
 * variables and -I/-L dirs) and the companions outside that root
 * (math_libs, CUPTI, NVVM, NCCL, NVSHMEM), verifies it with ctk_sdk_load(),
 * and runs the checks of checks.h against it, plus lint's own: forbidden
 * calls and limits (CTK-MOD-004/005), family/conflict (CTK-MOD-003), the
 * version in the module's name (CTK-VER-001), PKG_CONFIG_PATH against the
 * .pc names the module gives (CTK-PC-004), .pc variables no field uses
 * (CTK-PC-003), .pc Libs nvcc rejects (CTK-PC-001, by `nvcc -dryrun`; a
 * static rule when no nvcc is available).  No toolkit found: CTK-SDK-001
 * and only the toolkit-independent checks.
 *
 * Lint runs a program only when ctk_trust_exec() (trust.h) trusts it: the
 * toolkit's nvcc (for `nvcc --version` when no file gives the release, and
 * for `nvcc -dryrun`), an nvcc from ctkgen's PATH, and tclsh,
 * modulecmd.tcl, /bin/sh and env for Tcl files.  A check whose program is
 * refused does not run; the file gets CTK-TRUST-001 saying which check and
 * why (the static rule still judges the Libs; an untrusted --modulecmd is
 * no error, the Tcl files get the finding).
 */
#ifndef CTK_LINT_H
#define CTK_LINT_H

#include "diag.h"
#include "error.h"
#include "policy.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum { CTK_LINT_LUA, CTK_LINT_TCL, CTK_LINT_PC, CTK_LINT_OTHER } ctk_lint_kind_t;

const char *ctk_lint_kind_name(ctk_lint_kind_t k); /* "lua" "tcl" "pc" "other" */

typedef struct {
    char *file;               /* the path as given or found */
    ctk_lint_kind_t kind;
    char *name;               /* modules: "cudatoolkit/13.0"; .pc: the package name */
    char *root;               /* the toolkit it points at; NULL when none was found */
    char *version;            /* that toolkit's version ("13.0.0" or "13.0"); NULL: none */
    char *found_by;           /* how the root was found ("CUDA_HOME", "PATH (bin/nvcc)"...) */
    char *suggestion;         /* with fix_suggest and a toolkit: a site config (JSON text)
                               * that makes `ctkgen generate` write a correct module for it */
    ctk_strlist_t suggestion_notes; /* what the suggestion changed or could not keep of
                               * the file (lintsuggest.h), one line each */
    char *evaluated_as;       /* Tcl loaded by a root ctkgen: "user nobody (uid 65534)", or
                               * "root (--trust-tcl: ...)"; NULL otherwise */
    ctk_findings_t findings;  /* after the policy: severities changed, some waived */
    /* Not fully checked: some check could not run on this file (a Tcl file
     * not loaded, a toolkit whose release could not be read, a call the
     * sandbox did not run, a dependency it could not follow).  unchecked
     * says what, one line each; set through ctk_lint_mark_unchecked(). */
    bool incomplete;
    ctk_strlist_t unchecked;
} ctk_lint_file_t;

typedef struct {
    char *file;
    char *why;                /* one line */
} ctk_lint_skip_t;

typedef struct {
    ctk_lint_file_t *files;   /* in the order met */
    size_t n_files;
    ctk_lint_skip_t *skipped;
    size_t n_skipped;
    char *tcl_modsys;         /* "Environment Modules 5.5.0 (path)"; NULL when none */
    char *tcl_skip;           /* why Tcl modulefiles are not loaded; NULL when they are */
    char *tcl_user;           /* ctkgen is root: who loads Tcl files ("nobody (uid 65534)"); NULL: not root */
    bool trust_tcl;           /* and files only root can change are loaded as root */
    size_t n_error, n_warning, n_note;  /* findings of all files, the waived ones not counted */
    size_t n_waived;                    /* findings the policy waived */
    size_t n_incomplete;                /* files not fully checked */
} ctk_lint_report_t;

/* What reads Tcl modulefiles (--tcl-with). */
typedef enum {
    CTK_LINT_TCL_AUTO = 0,    /* Environment Modules, else Lmod's tcl2lua */
    CTK_LINT_TCL_MODULES,     /* Environment Modules only */
    CTK_LINT_TCL_LMOD         /* Lmod's tcl2lua only (tcl2lua.h) */
} ctk_lint_tcl_with_t;

typedef struct {
    const char *modulecmd;    /* modulecmd.tcl; NULL: $MODULES_CMD, then the standard places */
    double timeout_s;         /* per Tcl load or nvcc run; <= 0: 30 */
    bool fix_suggest;         /* fill ctk_lint_file_t.suggestion */
    bool trust_tcl;           /* root: load a Tcl file only root can change as root */
    const ctk_policy_t *policy; /* applied to each file's findings; NULL: none */
    ctk_lint_tcl_with_t tcl_with;
    const char *modulepath;   /* ':'-separated dirs searched after the module's own tree
                               * for what it loads, inherits or requires; NULL: none */
} ctk_lint_opts_t;

void ctk_lint_report_init(ctk_lint_report_t *r);
void ctk_lint_report_fini(ctk_lint_report_t *r);

/* Lint every file under paths[0..n).  Returns false for ctkgen's own
 * failures only: a path that does not exist or a file or directory that
 * cannot be read (CTK_E_CONFIG, bad input: exit 3; every named path is
 * checked before anything is linted), an explicit
 * --modulecmd that names nothing (CTK_E_ENV), no temp dir, no memory.
 * Findings never make it fail.  *out is filled as far as it got; free
 * it with ctk_lint_report_fini(). */
bool ctk_lint(const char *const *paths, size_t n_paths, const ctk_lint_opts_t *opts,
              ctk_lint_report_t *out, ctk_error_t *err);

/* Record that a check could not run on f: f->incomplete is set and the
 * formatted reason (one line) added to f->unchecked.  For every code that
 * gives up on part of a file; false only when out of memory. */
bool ctk_lint_mark_unchecked(ctk_lint_file_t *f, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- pieces, exposed for tests ------------------------------------------- */

/* What a file is, from its name and its first bytes (text may be NULL). */
ctk_lint_kind_t ctk_lint_classify(const char *path, const char *text);

/* "<name>/<version>" from a modulefile's path (".lua" dropped); caller frees. */
char *ctk_lint_module_name(const char *path, ctk_error_t *err);

/* The first reference in Lua source, outside comments and strings, to
 * something the sandbox refuses (os.execute, io.*, require, dofile,
 * loadfile, loadstring, package, debug, string.dump, Lmod's execute{} and
 * capture()...): true with its name (static) and line; false if none. */
bool ctk_lint_lua_forbidden(const char *src, size_t len, const char **name, int *line);

/* Variables a .pc file defines that neither its fields (Cflags, Libs,
 * their .private forms, Requires...) use, directly or through other
 * variables; the conventional prefix, exec_prefix and pcfiledir never
 * count.  Pushed in file order with their line into names/lines
 * (lines: a caller-sized array of at least 64; at most 64 reported). */
bool ctk_lint_pc_unused(const char *text, ctk_strlist_t *names, int *lines, ctk_error_t *err);

/* Does nvcc accept these Libs words as link options?  The static rule used
 * when no nvcc can be run: -L, -l, -Xlinker ARG, -Xlinker=ARG, -shared
 * and words not starting with '-' pass; anything else does not.  false
 * with *bad pointing at the first rejected word. */
bool ctk_lint_nvcc_libs_static(const ctk_strlist_t *libs, const char **bad);

/* The CUDA release a module name's version speaks of, compared with
 * major.minor: 1 agrees (some X.Y in the version is major.minor), 0
 * disagrees (X.Y numbers present, none matching), -1 says nothing (no X.Y
 * in it, or the module is not named like a CUDA module: only names
 * containing "cuda" are checked, so nvhpc/25.9 is not). */
int ctk_lint_name_version_agrees(const char *full_name, int major, int minor);

#endif
