/* modeval.h - Lua modulefile -> environment changes, as Lmod's `module load`.
 * SPDX-License-Identifier: MIT
 *
 * Evaluates a Lua modulefile (ctkgen's own or a site's/vendor's) in the
 * luahost sandbox (no io, no os but os.getenv, no require/load/dofile, an
 * instruction budget and a memory cap) with an Lmod-compatible API in load
 * mode, and returns what loading it would do: every operation with the line
 * it came from, and the final value of every variable it touched.
 *
 * Semantics follow Lmod 8.6 with its defaults (LMOD_DUPLICATE_PATHS=no,
 * LMOD_TMOD_PATH_RULE=no, LMOD_PREPEND_BLOCK=normal): path entries are
 * kept once with a reference count; prepending/appending an entry already
 * there moves it (to the front/back of its priority class) and bumps its
 * count; remove_path drops one count (all with force=true) and the entry
 * when none is left; entries are cleaned as Lmod's path_regularize does
 * ("//" -> "/", trailing "/" and "/./" dropped, leading "~" -> $HOME);
 * priority (0 or >= 10) orders entries before (prepend) or after (append)
 * the others; PATH loses empty entries; a path variable with no entries
 * left is unset.  Lmod's bookkeeping variables (__LMOD_REF_COUNT_*,
 * __LMOD_Priority_*, __LMOD_STACK_*, _LMFILES_, LOADEDMODULES) are not
 * reported; family() sets LMOD_FAMILY_<NAME> and LMOD_FAMILY_<NAME>_VERSION
 * as Lmod does.  Dependencies (depends_on, load, prereq, ...) are recorded,
 * not loaded; isloaded() is false; os.getenv() sees initial_env plus this
 * module's own changes, never the real environment.
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
    CTK_MODOP_MESSAGE,  /* LmodMessage */
    CTK_MODOP_WARNING   /* LmodWarning */
} ctk_modop_kind_t;

typedef struct {
    ctk_modop_kind_t kind;
    char *name;     /* variable (env and path ops), family, module name; NULL otherwise */
    char *value;    /* value as given (path ops: unsplit); text of whatis/help/messages;
                     * NULL for unsetenv and module names; pushenv(name, false): NULL */
    char *delim;    /* path ops: the delimiter asked for; NULL otherwise */
    long priority;  /* path ops: as written (0 or >= 10) */
    bool force;     /* remove_path{..., force=true} */
    int line;       /* in the modulefile; 0 if unknown */
} ctk_modop_t;

typedef struct {
    char *name;
    char *value;    /* final value; NULL: unset */
} ctk_modvar_t;

/* Read-only for the caller; freed with ctk_modeval_free(). */
typedef struct {
    ctk_modvar_t *vars;  /* every variable touched, in first-touched order */
    size_t n_vars;
    ctk_modop_t *ops;    /* in execution order */
    size_t n_ops;
    char *family;        /* the last family() name; NULL if none */
    ctk_strlist_t conflicts;  /* conflict() names */
    ctk_strlist_t prereqs;    /* prereq() and prereq_any() names */
    ctk_strlist_t loads;      /* depends_on, load, always_load, try_load names */
    ctk_strlist_t whatis;     /* whatis() lines */
    ctk_strlist_t messages;   /* LmodMessage / LmodWarning texts */
    char *help;               /* help() texts concatenated; NULL if none */
} ctk_modeval_t;

/* Evaluate a Lua modulefile as `module load full_name` would.
 * path_label names the file in errors and is what myFileName() returns;
 * full_name ("cudatoolkit/13.0") gives myModuleName() ("cudatoolkit"),
 * myModuleVersion() ("13.0") and myModuleFullName(); initial_env holds
 * "NAME=VALUE" entries (NULL: empty environment).  Caller frees the result.
 * Errors (NULL returned), source = path_label, line of the call:
 *   CTK_E_LIMIT     memory cap or instruction budget hit (not catchable)
 *   CTK_E_TEMPLATE  syntax error; runtime error; a call to anything absent
 *                   (capture, execute, os.execute, io.*, require, load, an
 *                   Lmod function not implemented: "undefined global 'x'"
 *                   or "attempt to call a nil value (field 'x')");
 *                   bad arguments to an Lmod function; LmodError(), whose
 *                   text starts "LmodError: " (the module refuses to load).
 *                   Errors from Lmod functions cannot be caught by pcall.
 *   CTK_E_NOMEM */
ctk_modeval_t *ctk_modeval_lua(const char *path_label, const char *src, size_t len,
                               const char *full_name, const ctk_strlist_t *initial_env,
                               ctk_error_t *err);

/* Final value of a variable the module touched: true with *value set (NULL
 * if unset), false if the module did not touch it. */
bool ctk_modeval_get(const ctk_modeval_t *ev, const char *name, const char **value);

/* The Lmod function name of an operation kind ("prepend_path"). */
const char *ctk_modop_kind_name(ctk_modop_kind_t kind);

void ctk_modeval_free(ctk_modeval_t *ev);

#endif
