/* sandbox.h - evaluate code others wrote without root's rights: who, where, and may it.
 * SPDX-License-Identifier: MIT
 *
 * ctkgen runs as root on trees other users can write to.  A Tcl
 * modulefile is a program (`exec`, `file delete`, `open`), and so is the
 * shell code Environment Modules or Lmod prints for it (`puts stdout`
 * reaches sh untouched).  When ctkgen's effective uid is 0, such code is
 * run as an unprivileged user instead: `nobody` from the passwd database
 * (getpwnam_r), else uid and gid 65534, with no supplementary groups and
 * no way back to root (proc.h, run_as).  Each run gets a private, empty
 * HOME and TMPDIR of its own (mode 0700, owned by that user: a file one
 * run leaves there, such as ~/.modulerc, cannot reach the next), removed
 * afterwards without following a link the run may have planted.  Runs of
 * a ctkgen that is not root are unchanged: they already lack root's rights.
 *
 * The file is evaluated where it is, never copied: a modulefile that finds
 * its siblings through its own path keeps working, and what users load is
 * what gets checked.  So the user must be able to reach and read it
 * (ctk_sandbox_can_load); when it cannot, the caller reports that the file
 * was not evaluated and why, rather than loading it as root.
 *
 * --trust-tcl (trust_root_files) evaluates as root a file that only root
 * can change (ctk_sandbox_root_only): owned by root, and so is every
 * directory on its path and every rc file Environment Modules reads beside
 * it, none of them writable by another user.  Anything else is still run
 * as the unprivileged user.
 */
#ifndef CTK_SANDBOX_H
#define CTK_SANDBOX_H

#include "env.h"
#include "error.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    bool drop;               /* ctkgen is root: run code from audited files as uid:gid */
    bool trust_root_files;   /* --trust-tcl: a file only root can change runs as root */
    uid_t uid;
    gid_t gid;
    char user[64];           /* "nobody"; "uid 65534" when the passwd database has no nobody */
    char *base;              /* drop: a root-owned 0711 dir holding the runs' private dirs */
    char *why_not;           /* drop, but nothing can run as the user here: why; else NULL */
} ctk_sandbox_t;

/* Decide: drop when geteuid() == 0.  When dropping, make `base` under
 * tmpdir (ctkgen's $TMPDIR when absolute, else /tmp) when the user can
 * reach it there, else under /tmp; when neither works, why_not says so
 * (each load is then refused, never run as root).  false: no memory
 * only.  Call ctk_sandbox_fini() whatever it returns. */
bool ctk_sandbox_init(ctk_sandbox_t *sb, bool trust_root_files, const char *tmpdir, ctk_error_t *err);
/* Remove base (and any run left in it); sb may be NULL. */
void ctk_sandbox_fini(ctk_sandbox_t *sb);
/* The user must be able to read what runs the code (modulecmd.tcl, Lmod's
 * libexec/lmod), what names it (for messages: "Environment Modules"):
 * when it cannot, why_not says so.  false: no memory. */
bool ctk_sandbox_need(ctk_sandbox_t *sb, const char *path, const char *what, ctk_error_t *err);

/* Who loads file from modulepath.  Not root: ctkgen's own user, as ever
 * (a sandbox that does not drop; *evaluated_as NULL).  Root: sb's user,
 * or, with trust_root_files and a file only root can change, root itself;
 * never root for a file another user can change.  *evaluated_as (caller
 * frees) says which: "user nobody (uid 65534)", "root (--trust-tcl: only
 * root can change it)".  NULL with *skip_why (caller frees) when the file
 * is not to be loaded here: the user cannot load it, or nothing can run
 * as the user (why_not).  NULL with neither: no memory. */
const ctk_sandbox_t *ctk_sandbox_pick(const ctk_sandbox_t *sb, const char *modulepath, const char *file,
                                      char **evaluated_as, char **skip_why, ctk_error_t *err);

/* Who runs code from audited files: "nobody (uid 65534)", "uid 65534"
 * (no user nobody), "root" (not dropping), for "evaluated as user ...". */
const char *ctk_sandbox_describe(const ctk_sandbox_t *sb, char *buf, size_t bufsz);

/* One run's private directories, owned by the user, mode 0700. */
typedef struct {
    char *dir;               /* base/run-XXXXXX */
    char *home;              /* dir/home */
    char *tmp;               /* dir/tmp */
} ctk_sandbox_run_t;

/* Make a run's directories (sb->drop only).  false: CTK_E_IO or
 * CTK_E_NOMEM, nothing left behind. */
bool ctk_sandbox_run_new(const ctk_sandbox_t *sb, ctk_sandbox_run_t *run, ctk_error_t *err);
/* Remove them, whatever the run put there (links are removed, never
 * followed; a tree deeper than 128 levels is left); run may be NULL. */
void ctk_sandbox_run_remove(ctk_sandbox_run_t *run);
/* base's environment with HOME and TMPDIR pointing into the run. */
bool ctk_sandbox_run_env(const ctk_sandbox_run_t *run, const ctk_env_t *base, ctk_env_t *out, ctk_error_t *err);

/* Could the user read path: every directory above it searchable, the file
 * itself readable (judged from owners and mode bits, with the user's one
 * group; ACLs are not read).  false with *why (caller frees), e.g.
 * "/root is mode 0700, owner root: user nobody cannot enter it"; err only
 * for allocation failure (then false and *why NULL). */
bool ctk_sandbox_can_read(const ctk_sandbox_t *sb, const char *path, char **why, ctk_error_t *err);
/* Could the user load file from modulepath: as ctk_sandbox_can_read, and
 * modulepath and every directory between it and the file readable too
 * (Environment Modules lists them to find the module). */
bool ctk_sandbox_can_load(const ctk_sandbox_t *sb, const char *modulepath, const char *file, char **why,
                          ctk_error_t *err);
/* Can only root change what loading file from modulepath runs: the file,
 * every directory from / down to it, and the .modulerc and .version files
 * Environment Modules reads in modulepath and the directories below it,
 * each owned by root and not writable by group or others (a sticky
 * directory owned by root, like /tmp, may be).  false with *why. */
bool ctk_sandbox_root_only(const char *modulepath, const char *file, char **why, ctk_error_t *err);

#endif
