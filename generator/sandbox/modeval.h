/* modeval.h - Lua modulefile -> environment changes, as Lmod's `module load`
 * and `module unload`.
 * SPDX-License-Identifier: MIT
 *
 * Evaluates a Lua modulefile (ctkgen's own or a site's/vendor's) in the
 * luahost sandbox (no io, no os but getenv/date/time, no require/load/
 * dofile, an instruction budget and a memory cap) with Lmod's modulefile
 * functions, and returns what loading or unloading it would do: every
 * operation with the line it came from, and the final value of every
 * variable it touched.  docs/lmod-semantics.md is the reference; the
 * differential tests (tests/lmod_diff.sh) hold this to the real Lmod.
 *
 * Semantics follow Lmod 8.6.19 with its defaults (LMOD_DUPLICATE_PATHS=no,
 * LMOD_TMOD_PATH_RULE=no, LMOD_PREPEND_BLOCK=normal, LMOD_AUTO_SWAP=yes):
 * path entries are kept once with a reference count (read from and
 * written to __LMOD_REF_COUNT_<V>); prepending/appending an entry already
 * there moves it and bumps its count; unloading a prepend/append or a
 * remove_path drops one count (all with force=true) and the entry when
 * none is left; entries are cleaned as Lmod's path_regularize does;
 * priority (0 or >= 10, kept in __LMOD_Priority_<V>) orders entries;
 * PATH loses empty entries; a path variable with no entries left is unset.
 * setenv is undone by unsetting; pushenv keeps Lmod's base64 stack in
 * __LMOD_STACK_<V> and unload pops it; family() sets and unload unsets
 * LMOD_FAMILY_<NAME>[_VERSION].  LOADEDMODULES and _LMFILES_ say what
 * isloaded() sees; with opts.follow, load/depends_on/prereq/... evaluate
 * the Lua modulefile the name resolves to on MODULEPATH (readable by every
 * user; Tcl ones through opts->tcl_to_lua when given, else recorded, not
 * evaluated).  In unload mode an error
 * stops the file but keeps what ran (as Lmod), LmodError is a warning and
 * LmodBreak does nothing; in load mode LmodBreak drops the module's
 * changes.  family() swaps out the member of the family already loaded,
 * and loading a module whose name is loaded replaces it.  Known
 * differences from Lmod (docs/lmod-differences.md): depends_on() in unload
 * mode unloads a dependency the user had loaded directly or another module
 * still needs (Lmod keeps those counts in _ModuleTable_, which is neither
 * read nor written); a path entry holding ':' or ';' (the separators of
 * Lmod's own tables) is counted as Lmod reads its tables, but Lmod then
 * misreads entries around it; pushenv() of "" under another value unloads
 * cleanly here, not in Lmod; loaded modules are not re-checked after a
 * MODULEPATH change (Lmod's inactive modules); atleast/between/latest name
 * the module's default; a module's default version is its "default" link
 * or the highest version (.modulerc and .version are not read); hide_* and
 * module_version are .modulerc functions, absent here as in Lmod.
 */
#ifndef CTK_MODEVAL_H
#define CTK_MODEVAL_H

#include "error.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    CTK_MODOP_SETENV,
    CTK_MODOP_PUSHENV,
    CTK_MODOP_UNSETENV,
    CTK_MODOP_PREPEND_PATH,
    CTK_MODOP_APPEND_PATH,
    CTK_MODOP_REMOVE_PATH,
    CTK_MODOP_FAMILY,
    CTK_MODOP_CONFLICT,
    CTK_MODOP_PREREQ,
    CTK_MODOP_PREREQ_ANY,
    CTK_MODOP_DEPENDS_ON,
    CTK_MODOP_LOAD,
    CTK_MODOP_ALWAYS_LOAD,
    CTK_MODOP_TRY_LOAD,
    CTK_MODOP_WHATIS,
    CTK_MODOP_HELP,
    CTK_MODOP_MESSAGE,  /* LmodMessage, LmodMsgRaw */
    CTK_MODOP_WARNING,  /* LmodWarning; LmodError in unload mode */
    CTK_MODOP_LOAD_ANY,
    CTK_MODOP_DEPENDS_ON_ANY,
    CTK_MODOP_UNLOAD,   /* unload, always_unload */
    CTK_MODOP_SET_ALIAS,
    CTK_MODOP_UNSET_ALIAS,
    CTK_MODOP_SET_SHELL_FUNCTION,
    CTK_MODOP_UNSET_SHELL_FUNCTION,
    CTK_MODOP_COMPLETE,
    CTK_MODOP_UNCOMPLETE,
    CTK_MODOP_ADD_PROPERTY,
    CTK_MODOP_REMOVE_PROPERTY,
    CTK_MODOP_EXTENSIONS,
    CTK_MODOP_INHERIT,
    CTK_MODOP_BREAK,    /* LmodBreak */
    CTK_MODOP_NOT_RUN   /* execute, capture, subprocess, source_sh, os.execute: name = the call */
} ctk_modop_kind_t;

typedef struct {
    ctk_modop_kind_t kind;
    char *name;     /* variable (env and path ops), family, module name, alias,
                     * function, property name, the call not run; NULL otherwise */
    char *value;    /* value as given (path ops: unsplit); text of whatis/help/messages;
                     * property value; alias text; bash body; the command not run;
                     * NULL for unsetenv and module names; pushenv(name, false): NULL */
    char *delim;    /* path ops: the delimiter asked for; NULL otherwise */
    char *file;     /* the file the call is in when it is not the file evaluated
                     * (a followed dependency, inherit()); NULL: that file */
    long priority;  /* path ops: as written (0 or >= 10) */
    bool force;     /* remove_path{..., force=true} */
    int line;       /* in the modulefile; 0 if unknown */
} ctk_modop_t;

typedef struct {
    char *name;
    char *value;    /* final value; NULL: unset */
} ctk_modvar_t;

/* A module named by load(), depends_on(), prereq() and the rest. */
typedef struct {
    ctk_modop_kind_t kind;  /* of the call that named it */
    char *name;             /* as written ("gcc", "gcc/11") */
    char *file;             /* the modulefile it resolved to on MODULEPATH; NULL: none */
    char *why;              /* when it was not evaluated, why ("not found on MODULEPATH
                             * a:b", "a Tcl modulefile", "already loaded", "follow is off");
                             * NULL: evaluated */
    int line;
} ctk_moddep_t;

/* Read-only for the caller; freed with ctk_modeval_free(). */
typedef struct {
    ctk_modvar_t *vars;  /* every variable touched, in first-touched order */
    size_t n_vars;
    ctk_modvar_t *lmod_vars;  /* Lmod's own variables this command changes, as `lmod bash`
                               * would export them: __LMOD_REF_COUNT_<V>, __LMOD_Priority_<V>,
                               * __LMOD_STACK_<V>, LOADEDMODULES, _LMFILES_ (NULL: unset) */
    size_t n_lmod_vars;
    ctk_modvar_t *aliases;    /* set_alias (value) / unset_alias or unload (NULL) */
    size_t n_aliases;
    ctk_modvar_t *functions;  /* set_shell_function (bash body) / unset (NULL) */
    size_t n_functions;
    ctk_modop_t *ops;    /* in execution order, followed files' included */
    size_t n_ops;
    ctk_moddep_t *deps;  /* in call order */
    size_t n_deps;
    char *family;        /* the last family() name; NULL if none */
    ctk_strlist_t conflicts;  /* conflict() names */
    ctk_strlist_t prereqs;    /* prereq() and prereq_any() names */
    ctk_strlist_t loads;      /* depends_on, load, always_load, try_load, load_any names */
    ctk_strlist_t whatis;     /* whatis() lines */
    ctk_strlist_t messages;   /* LmodMessage / LmodWarning texts */
    ctk_strlist_t properties; /* add_property: "name=value" */
    ctk_strlist_t extensions; /* extensions() names */
    ctk_strlist_t not_run;    /* each call that runs a program and was not run:
                               * "execute{cmd=\"...\"}" as the file wrote it, shortened */
    char *help;               /* help() texts concatenated; NULL if none */
    bool broke;               /* load mode: LmodBreak(); the module's changes are dropped */
    bool warned;              /* LmodWarning, or LmodError in unload mode: Lmod exits 1 */
} ctk_modeval_t;

typedef enum { CTK_MODE_LOAD, CTK_MODE_UNLOAD } ctk_modmode_t;

typedef struct {
    ctk_modmode_t mode;
    /* "NAME=VALUE" entries (NULL: empty).  Lmod's own state in it is read
     * as Lmod reads it: __LMOD_REF_COUNT_*, __LMOD_Priority_*,
     * __LMOD_STACK_*, LOADEDMODULES and _LMFILES_ (isloaded()). */
    const ctk_strlist_t *initial_env;
    /* Evaluate the modules that load(), depends_on(), prereq() (when not
     * loaded) and the rest name, found on MODULEPATH as the file leaves
     * it, as Lmod would; each is a ctk_moddep_t either way. */
    bool follow;
    /* What the user typed (myModuleUsrName(), requireFullName()); NULL:
     * the full name. */
    const char *user_name;
    /* With follow, read the file as an auditor would rather than refuse
     * it as Lmod does: a prereq()/prereq_any() module that is not loaded
     * is loaded first, as the user would have to, and a load() (or
     * always_load, load_any) of a module that cannot be found is recorded
     * in deps and the file goes on. */
    bool lenient;
    /* With follow: how a Tcl modulefile found on MODULEPATH is read as Lua
     * (as Lmod reads it, through its tcl2lua), given the file and the full
     * name it is loaded as: the Lua (caller frees, *len set), or NULL with
     * err set: CTK_E_NOMEM fails the evaluation, any other error is the
     * dependency's (recorded in deps with err's text; the file goes on).
     * NULL: a Tcl dependency is recorded, not evaluated. */
    char *(*tcl_to_lua)(void *ud, const char *file, const char *full_name, size_t *len, ctk_error_t *err);
    void *tcl_ud;
} ctk_modeval_opts_t;

/* Evaluate a Lua modulefile as `module load full_name` (or unload) would.
 * path_label names the file in errors and is what myFileName() returns;
 * full_name ("cudatoolkit/13.0") gives myModuleName() ("cudatoolkit"),
 * myModuleVersion() ("13.0") and myModuleFullName().  Functions that run
 * programs (execute, capture, subprocess, source_sh, os.execute) are not
 * run: capture/subprocess return "", each is recorded in not_run and as a
 * CTK_MODOP_NOT_RUN op, and the file goes on.  Caller frees the result.
 * Errors (NULL returned), source = path_label, line of the call:
 *   CTK_E_LIMIT     memory cap or instruction budget hit (not catchable)
 *   CTK_E_TEMPLATE  syntax error; runtime error (load mode only: in
 *                   unload mode Lmod ignores it and so does this, keeping
 *                   what ran before); a call to anything absent
 *                   (io.*, require, load of a chunk: "undefined global
 *                   'x'" or "attempt to call a nil value (field 'x')");
 *                   bad arguments to an Lmod function; LmodError() in load
 *                   mode, whose text starts "LmodError: "; a prereq() or
 *                   conflict() Lmod would refuse (a prereq() only with
 *                   follow and without lenient); load() of a module
 *                   that cannot be found (with follow, without lenient).
 *                   Errors from Lmod functions cannot be caught by pcall.
 *   CTK_E_NOMEM */
ctk_modeval_t *ctk_modeval_run(const char *path_label, const char *src, size_t len,
                               const char *full_name, const ctk_modeval_opts_t *opts,
                               ctk_error_t *err);

/* ctk_modeval_run() in load mode, without following dependencies. */
ctk_modeval_t *ctk_modeval_lua(const char *path_label, const char *src, size_t len,
                               const char *full_name, const ctk_strlist_t *initial_env,
                               ctk_error_t *err);

/* Apply a result to an environment of "NAME=VALUE" entries, as the shell
 * evaluating Lmod's output would: vars and lmod_vars (aliases and
 * functions are not environment). */
bool ctk_modeval_apply(const ctk_modeval_t *ev, ctk_strlist_t *env, ctk_error_t *err);

/* Find a module on a MODULEPATH as Lmod does: "name/version" is the file
 * <dir>/name/version.lua or <dir>/name/version; a bare "name" is its
 * default (a "default" symlink, else the highest version by Lmod's
 * version ordering), in the first dir that has the name.  Returns true
 * with *file and *full_name (caller frees), false with both NULL when not
 * found; errors only for memory. */
bool ctk_modeval_find(const char *modulepath, const char *name, char **file, char **full_name,
                      ctk_error_t *err);

/* Final value of a variable the module touched: true with *value set (NULL
 * if unset), false if the module did not touch it. */
bool ctk_modeval_get(const ctk_modeval_t *ev, const char *name, const char **value);

/* The Lmod function name of an operation kind ("prepend_path"). */
const char *ctk_modop_kind_name(ctk_modop_kind_t kind);

void ctk_modeval_free(ctk_modeval_t *ev);

#endif
