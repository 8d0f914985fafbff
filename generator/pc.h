/* pc.h - resolve .pc files in-process with libpkgconf, as the pkgconf CLI would.
 * SPDX-License-Identifier: MIT
 *
 * pc.c is the only file that includes libpkgconf; nothing of it leaks here.
 *
 * ctk_pc_resolve() answers what
 *
 *     PKG_CONFIG_PATH=<dirs> PKG_CONFIG_LIBDIR= \
 *         pkgconf --keep-system-cflags --keep-system-libs --cflags|--libs|--modversion <package>
 *
 * prints, split into arguments the way sh splits that output:
 *   - only the given dirs are searched: no personality or compiled-in default
 *     dirs, no PKG_CONFIG_PATH / PKG_CONFIG_LIBDIR;
 *   - nothing else is read from the environment either: no sysroot
 *     (PKG_CONFIG_SYSROOT_DIR), no system-dir filter lists (CPATH,
 *     LIBRARY_PATH, PKG_CONFIG_SYSTEM_*_PATH), no traverse-depth limit
 *     override; the answer depends only on the dirs and the files in them;
 *   - -I/-L for "system" dirs (/usr/include, /usr/lib...) are KEPT.  The CLI
 *     drops them by default, but which dirs count as system is a compile-time
 *     property of the host's pkgconf, and a toolkit installed under /usr must
 *     not lose its -I/-L in our model of it;
 *   - --cflags walks Requires.private too and --libs does not, as in the CLI
 *     (no --static); fragments are ordered and deduplicated by libpkgconf
 *     exactly as the CLI does (including its merging of "-isystem dir" and
 *     similar pairs, which the CLI prints unescaped and so become separate
 *     arguments here too);
 *   - like the CLI, `package` may name several packages ("a b", "a >= 1"),
 *     a path to a .pc file, or pkgconf's builtin packages (pkg-config), and
 *     Provides: lines are honoured.
 *
 * Stricter than the CLI: a .pc file that libpkgconf reads and has to repair
 * or skip (no Name/Description/Version, a Cflags/Libs value that does not
 * split into arguments, a Version with blanks, a value over 64 KiB) is an
 * error, where the CLI warns silently and goes on with a partial answer.
 * Whitespace warnings (leading blanks, trailing blanks in variables) are not.
 *
 * Errors (first one wins, see error.h):
 *   CTK_E_IO       a package or a Requires not found; the text names the
 *                  package and the searched dirs; source is the requiring
 *                  .pc file for a missing Requires, empty for a top-level one
 *   CTK_E_CONFIG   a broken .pc file; source is its path, line where known
 *   CTK_E_VERSION  a Requires version constraint or Conflicts not satisfied
 *   CTK_E_USAGE    `package` names no package at all
 *   CTK_E_NOMEM    our own allocations; libpkgconf itself does not check
 *                  malloc, so out-of-memory inside it is not survivable
 */
#ifndef CTK_PC_H
#define CTK_PC_H

#include "error.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *version;          /* Version: of the first requested package; NULL if it has none */
    ctk_strlist_t versions; /* one per requested package, as --modversion prints them */
    ctk_strlist_t cflags;   /* one entry per argument, unescaped, e.g. "-I/opt/a b" */
    ctk_strlist_t libs;     /* same for --libs: "-L/x", "-lcudart", "-Xlinker", "-rpath=a:b" */
} ctk_pc_result_t;

void ctk_pc_result_init(ctk_pc_result_t *r);
/* Frees what r owns and leaves it initialised; accepts NULL. */
void ctk_pc_result_fini(ctk_pc_result_t *r);

/* Resolve `package` searching only dirs[0..n_dirs) in order, following
 * Requires.  On success fills *out (which must be initialised; previous
 * contents are released; out must not be NULL) and returns true.  On failure returns false, sets
 * err and leaves *out initialised and empty. */
bool ctk_pc_resolve(const char *const *dirs, size_t n_dirs, const char *package,
                    ctk_pc_result_t *out, ctk_error_t *err);

#endif
