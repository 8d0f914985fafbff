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
 * Bounded, and reading only regular files.  libpkgconf opens no file here:
 * pc.c finds every package itself, in libpkgconf's order (a path ending in
 * .pc, the builtins, then NAME-uninstalled.pc and NAME.pc in each dir, then
 * the dirs' Provides: lines), reads each .pc once through
 * ctk_file_open_regular() (so a FIFO, a device or a file of /proc or /sys
 * is refused unread), checks each Requires' version, the Conflicts and the
 * shape of the whole graph, and only then lets libpkgconf walk it, with
 * every dependency already matched.  What a .pc costs libpkgconf is bounded
 * before libpkgconf sees it (ctk_pc_limits_t): the file's size, what its
 * values expand to, its entries (libpkgconf's parser is quadratic in the
 * Requires of one file); the number of files read; the depth of Requires;
 * the visits of libpkgconf's walk, which goes down every path again (a
 * diamond of n levels is 2^n visits, counted here in linear time first);
 * and the wall time, checked between files and at each visit.  Requires
 * that lead back to a package on the way (a cycle) are refused: the CLI
 * accepts them, but its walk of them is exponential and libpkgconf never
 * frees such a graph.  SIGINT, SIGTERM and SIGHUP caught by proc.c stop a
 * resolution at the same points.
 *
 * Errors (first one wins, see error.h):
 *   CTK_E_IO       a package or a Requires not found; the text names the
 *                  package and the searched dirs; source is the requiring
 *                  .pc file for a missing Requires, empty for a top-level one.
 *                  Also a .pc that is not a regular file (result's stop
 *                  CTK_PC_STOP_NOT_REGULAR; source is that file)
 *   CTK_E_CONFIG   a broken .pc file; source is its path, line where known
 *   CTK_E_VERSION  a Requires version constraint or Conflicts not satisfied
 *   CTK_E_LIMIT    a bound of ctk_pc_limits_t (CTK_PC_STOP_LIMIT) or a
 *                  cycle (CTK_PC_STOP_CYCLE); source is the .pc at fault
 *   CTK_E_ENV      interrupted (CTK_PC_STOP_INTERRUPTED)
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

/* Why a resolution stopped short of an answer pkg-config would give. */
typedef enum {
    CTK_PC_STOP_NONE = 0,    /* resolved, or failed as pkg-config fails */
    CTK_PC_STOP_LIMIT,       /* a bound of ctk_pc_limits_t was reached */
    CTK_PC_STOP_CYCLE,       /* Requires lead back to a package on the way */
    CTK_PC_STOP_NOT_REGULAR, /* a .pc it would read is a FIFO, a device... */
    CTK_PC_STOP_INTERRUPTED, /* SIGINT, SIGTERM or SIGHUP (proc.h) */
} ctk_pc_stop_t;

/* Bounds of one resolution; 0 in a field means its default. */
typedef struct {
    unsigned depth;          /* Requires nested below a requested package (64) */
    size_t packages;         /* .pc files read, Provides scans included (2048) */
    size_t entries;          /* per .pc: variables, Requires/Conflicts/Provides
                              * entries and Cflags/Libs words (4096) */
    size_t file_bytes;       /* per .pc: its size (64 KiB) */
    size_t bytes;            /* all .pc files: what their values expand to (32 MiB) */
    unsigned long visits;    /* packages libpkgconf's walk visits in one step (100000) */
    size_t words;            /* the Cflags, or the Libs, of the answer (8192) */
    unsigned ms;             /* wall time of the resolution (5000) */
} ctk_pc_limits_t;

typedef struct {
    ctk_pc_stop_t stop;     /* after a failure: why it stopped */
    char *version;          /* Version: of the first requested package; NULL if it has none */
    char *ccbin;            /* its variable "ccbin" (the host compiler for nvcc), expanded;
                             * NULL if it has none */
    ctk_strlist_t versions; /* one per requested package, as --modversion prints them */
    ctk_strlist_t cflags;   /* one entry per argument, unescaped, e.g. "-I/opt/a b" */
    ctk_strlist_t libs;     /* same for --libs: "-L/x", "-lcudart", "-Xlinker", "-rpath=a:b" */
} ctk_pc_result_t;

/* The finding a failed resolution is, from its stop: CTK-PC-005 (a
 * limit), CTK-PC-006 (a cycle), CTK-READ-001 (not a regular file), else
 * CTK-MOD-001 (the .pc does not resolve).  An interrupt is no finding:
 * the caller unwinds. */
const char *ctk_pc_stop_finding(ctk_pc_stop_t stop);

void ctk_pc_result_init(ctk_pc_result_t *r);
/* Frees what r owns and leaves it initialised; accepts NULL. */
void ctk_pc_result_fini(ctk_pc_result_t *r);

/* Resolve `package` searching only dirs[0..n_dirs) in order, following
 * Requires.  On success fills *out (which must be initialised; previous
 * contents are released; out must not be NULL) and returns true.  On
 * failure returns false, sets err and leaves *out initialised and empty
 * but for out->stop. */
bool ctk_pc_resolve(const char *const *dirs, size_t n_dirs, const char *package,
                    ctk_pc_result_t *out, ctk_error_t *err);
/* The same with other bounds (NULL: the defaults).  On failure out->stop
 * says whether it was one of ctkgen's own refusals. */
bool ctk_pc_resolve_limited(const char *const *dirs, size_t n_dirs, const char *package,
                            const ctk_pc_limits_t *limits, ctk_pc_result_t *out, ctk_error_t *err);

#endif
