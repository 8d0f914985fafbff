/* write.h - the output tree: plan, diff, atomic apply, manifest, lock.
 * SPDX-License-Identifier: MIT
 *
 * The caller collects every file of a run in a ctk_outset_t (paths relative
 * to OUT), then plans against what is on disk, then applies.  Nothing is
 * written before the whole plan is known to be safe:
 *  - a file whose bytes are unchanged is not touched (mtime kept);
 *  - a changed file is replaced atomically (temp in the same dir, then
 *    rename), mode 0644, dirs 0755;
 *  - a file ctkgen wrote earlier (listed in OUT/.ctkgen-manifest) and no
 *    longer produces is removed, with dirs left empty by that;
 *  - a file that differs from what the manifest says ctkgen wrote (edited
 *    by hand), or that exists but was never written by ctkgen, is a
 *    conflict: apply refuses (CTK_E_CONFLICT) unless force is set;
 *  - the manifest is rewritten last, and only if it changes; beside each
 *    file's hash it records the hash of the inputs a file was rendered
 *    from (ctk_outfile_t.input), so that a re-run with the same inputs
 *    need not render it (ctk_outset_reuse, ctk_write_records).
 * Crash safety: before changing anything, apply writes the new manifest as
 * OUT/.ctkgen-manifest.pending (atomically); it is removed once the real
 * manifest is written.  Every file is replaced by rename, so a run killed
 * at any point leaves each file either as it was or as it is meant to be,
 * and so does a power loss: the bytes of every temp file are made durable
 * (one syncfs of OUT's file system) before the pending manifest is renamed
 * into place and synced, and that before any file is renamed; the
 * directories the renames touched are synced, each once, before the
 * manifest is renamed into place (synced), and that before the pending one
 * is removed (synced).  So the sync calls do not grow with the number of
 * files: one syncfs, four fsyncs of OUT, one per directory below it with
 * a changed file in or under it;
 * and the next run (whatever its config) counts a file matching either
 * record as ctkgen's own: it finishes the job or rolls it back, and
 * removes the temp files (".<name>.ctkgen-tmp-XXXXXX") the killed run
 * left.  SIGINT, SIGTERM, SIGHUP and SIGQUIT are held while a plan is
 * applied (a few milliseconds) and take effect once the tree is whole.
 * A lock on OUT/.ctkgen.lock (flock, mode 0600, never written to)
 * serialises concurrent runs.
 */
#ifndef CTK_WRITE_H
#define CTK_WRITE_H

#include "error.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

#define CTK_MANIFEST_NAME ".ctkgen-manifest"
#define CTK_LOCK_NAME ".ctkgen.lock"
#define CTK_PENDING_NAME ".ctkgen-manifest.pending"

typedef struct {
    char *relpath; /* "lmod/cudatoolkit/12.4.lua" */
    char *data;    /* NULL for a reused file */
    size_t len;
    char input[17]; /* "" or the hash of what the file was rendered from,
                       recorded in the manifest beside the file's own */
    char reuse[17]; /* "" or: not rendered, because its inputs hash as the
                       manifest records; the file's bytes must be on disk
                       with this hash (the plan checks) */
} ctk_outfile_t;

typedef struct {
    ctk_outfile_t *files;
    size_t n, cap;
    size_t *index;     /* relpath hash -> 1 + position in files; 0: empty slot */
    size_t index_cap;  /* 0 or a power of two, more than twice n */
    bool from_records; /* every file came from ctk_records_reuse_all: the paths
                          are a manifest's, which a plan checked when it was made */
    bool verified;     /* the caller proved every reused file on disk as the
                          manifest records it (ctk_records_identity): the plan
                          does not read them again */
} ctk_outset_t;

void ctk_outset_init(ctk_outset_t *set);
void ctk_outset_fini(ctk_outset_t *set);
/* Add a file; takes ownership of data (freed even on failure).  Refuses
 * absolute paths, "..", empty components and duplicates (CTK_E_INTERNAL).
 * Constant time on average: a site's thousands of files are not compared
 * with each other. */
bool ctk_outset_take(ctk_outset_t *set, const char *relpath, char *data, size_t len,
                     ctk_error_t *err);
/* Add a file that was not rendered: the manifest records it with hash
 * under inputs hashing to input (ctk_write_records; "" where it records
 * none), and the caller's own inputs hash the same, so what rendering
 * would give is those bytes.  The
 * plan reads the file and holds it unchanged only if it still hashes so;
 * otherwise the plan is stale and the caller renders after all. */
bool ctk_outset_reuse(ctk_outset_t *set, const char *relpath, const char hash[17],
                      const char input[17], ctk_error_t *err);
/* Record input (16 hex digits) as the inputs of files from..n-1. */
void ctk_outset_mark_input(ctk_outset_t *set, size_t from, const char input[17]);

/* ---- the manifest's records, read before rendering ----------------------
 * What the manifest of OUT says of each file: its hash and the hash of
 * its inputs.  Read as the plan reads the manifest (a manifest another
 * user could have written counts as none), without the lock: a record
 * only lets a file go unrendered, and the plan checks the file on disk
 * under the lock. */
typedef struct ctk_records ctk_records_t;

/* The records of outdir's manifest; an empty set when there is none, or
 * none this user can rely on, or it cannot be parsed (the plan reports
 * that).  NULL only on ENOMEM. */
ctk_records_t *ctk_write_records(const char *outdir, ctk_error_t *err);
/* The record of rel, when there is one with an input hash. */
bool ctk_records_find(const ctk_records_t *rec, const char *rel, char hash[17], char input[17]);
void ctk_records_free(ctk_records_t *rec);
/* The hash of the manifest's bytes as read (ctk_write_manifest_hash); 0
 * when there was none to rely on. */
uint64_t ctk_records_hash(const ctk_records_t *rec);
/* OUT/rel as ctkgen wrote it: 1 when the manifest lists rel and its
 * bytes now hash as recorded, with *data (NUL-terminated, caller frees)
 * and *len; 0 when not (not listed, absent, changed since, not a regular
 * file, unreadable: read as ctk_write_read() reads); -1 with err only for
 * want of memory (CTK_E_NOMEM). */
int ctk_records_read(const ctk_records_t *rec, const char *outdir, const char *rel, char **data,
                     size_t *len, ctk_error_t *err);
/* How many files the manifest lists. */
size_t ctk_records_count(const ctk_records_t *rec);
/* Every file the manifest lists, into out as reused (ctk_outset_reuse):
 * for a run that knows it would render exactly what the run that wrote
 * the manifest did.  The plan checks each file on disk, as for any reused
 * file.  false only on error (CTK_E_NOMEM, CTK_E_INTERNAL). */
bool ctk_records_reuse_all(const ctk_records_t *rec, ctk_outset_t *out, ctk_error_t *err);
/* The identity of every file the manifest lists, as it is now: each
 * path with its device, inode, mode, size, mtime and ctime (looked at
 * without following links, as the plan reads), hashed in the manifest's
 * order.  A file's bytes cannot change without its ctime, or its inode,
 * changing.  false when one is not a regular file there (or cannot be
 * reached). */
bool ctk_records_identity(const char *outdir, const ctk_records_t *rec, uint64_t *h);
/* The hash ctk_records_hash gives of a manifest's text. */
uint64_t ctk_write_manifest_hash(const char *data, size_t len);

/* Replace outdir/name with data by a temp file and a rename, without
 * syncing: for a cache, whose loss costs only time.  Temp files of name
 * that an interrupted write left are removed first (the caller is the
 * only writer of name).  false with err (CTK_E_IO, CTK_E_NOMEM). */
bool ctk_write_cache_file(const char *outdir, const char *name, const char *data, size_t len,
                          ctk_error_t *err);

/* Drop the files whose relpath is in keep (they stay as on disk), keeping
 * the others in order.  false: no memory (only ctk_outset_fini is then
 * left to do with the set). */
bool ctk_outset_drop(ctk_outset_t *set, const ctk_strlist_t *keep, ctk_error_t *err);

typedef enum {
    CTK_CHANGE_SAME = 0, /* on disk and identical: left alone */
    CTK_CHANGE_CREATE,
    CTK_CHANGE_UPDATE,
    CTK_CHANGE_REMOVE    /* in the manifest, no longer produced */
} ctk_change_kind_t;

typedef struct {
    char *relpath;
    ctk_change_kind_t kind;
    bool conflict;        /* on-disk bytes are not what ctkgen last wrote */
    char *old_data;       /* current bytes (UPDATE/REMOVE), NULL otherwise */
    size_t old_len;
    const char *new_data; /* borrowed from the outset (CREATE/UPDATE/SAME) */
    size_t new_len;
    uint64_t seen;        /* the identity of the bytes the plan read (ctk_plan_identity); 0: none read */
} ctk_change_t;

typedef struct {
    char *outdir;
    ctk_change_t *items;  /* sorted by relpath */
    size_t n;
    char *manifest;       /* new manifest text */
    size_t manifest_len;
    bool manifest_changed; /* also true when a pending manifest is left over */
    bool pending;          /* OUT holds the pending manifest of an interrupted run */
    ctk_strlist_t notes;   /* warnings for the user, one line each: bookkeeping files
                            * ignored because another user could have written them */
    size_t stale;          /* reused files (ctk_outset_reuse) not on disk as recorded:
                            * the plan cannot be applied or shown; render them and
                            * plan again */
} ctk_plan_t;

/* Compare the outset with OUT on disk.  OUT need not exist.  Caller frees.
 * The outset must outlive the plan.
 * A manifest or pending manifest that is not owned by the user running
 * ctkgen, or that its group or others may write, is read as absent (fstat
 * of the descriptor it was read from, opened O_NOFOLLOW): another user
 * could have planted it to have an admin's file counted as ctkgen's and
 * removed.  Files it names count as not written by ctkgen, so nothing is
 * overwritten or removed without --force on its word.  A temp file of
 * that kind is left where it is by apply.  Each such file gets a line in
 * plan->notes. */
ctk_plan_t *ctk_write_plan(const char *outdir, const ctk_outset_t *set, ctk_error_t *err);

/* ctk_write_plan(), but a file ctkgen wrote before (in the manifest or a
 * pending one), no longer in the outset and named in keep (relative
 * paths; NULL: none) is left exactly as it is: not removed, not
 * rewritten, and kept in the new manifest with the record it had (so a
 * later hand edit is still told apart).  generate --keep-going keeps the
 * files of an SDK that did not load this way. */
ctk_plan_t *ctk_write_plan_keep(const char *outdir, const ctk_outset_t *set,
                                const ctk_strlist_t *keep, ctk_error_t *err);
/* ctk_write_plan_keep(), taking the manifest as rec parsed it (NULL:
 * none) when the manifest read under the lock is the same bytes. */
ctk_plan_t *ctk_write_plan_rec(const char *outdir, const ctk_outset_t *set,
                               const ctk_strlist_t *keep, const ctk_records_t *rec,
                               ctk_error_t *err);
void ctk_plan_free(ctk_plan_t *plan);
/* The same hash of the files plan's manifest lists, once apply has run:
 * what ctk_records_identity will give while nothing changes them.  false
 * when one is not there as a regular file, or when a file the plan read
 * and kept is not the one it read (it changed since).  Waits for the
 * clock's next tick first when the plan wrote anything, so that a change
 * after this look moves a file's ctime past what is recorded. */
bool ctk_plan_identity(const ctk_plan_t *plan, uint64_t *h);

/* Counts of each kind, and of conflicts. */
void ctk_plan_counts(const ctk_plan_t *plan, size_t *created, size_t *updated,
                     size_t *removed, size_t *same, size_t *conflicts);
bool ctk_plan_has_changes(const ctk_plan_t *plan);

/* Unified diff of the whole plan (a/ and b/ prefixes, 3 lines of context).
 * Caller frees. */
char *ctk_plan_diff(const ctk_plan_t *plan, ctk_error_t *err);

/* Whether apply may carry out the plan: false with CTK_E_CONFLICT, naming
 * the files edited by hand, when a change hits one and force is false. */
bool ctk_plan_allowed(const ctk_plan_t *plan, bool force, ctk_error_t *err);

/* Carry out the plan.  Refuses with CTK_E_CONFLICT, writing nothing, when a
 * change hits a conflict and force is false (ctk_plan_allowed). */
bool ctk_write_apply(const ctk_plan_t *plan, bool force, ctk_error_t *err);

/* Replace one file at path with data, atomically: a temp file next to it,
 * fsync, rename, fsync of the directory; mode 0644.  The directory must
 * exist.  On failure (CTK_E_IO) the file is as it was and no temp is left. */
bool ctk_write_file_atomic(const char *path, const char *data, size_t len, ctk_error_t *err);

/* Read OUT/rel as generate reads its own files: OUT opened as named (it
 * may be a symlink the admin chose), every directory below it opened with
 * O_NOFOLLOW, the file itself a regular file, opened O_NOFOLLOW and
 * O_NONBLOCK (a FIFO neither hangs nor is read).  1: *data holds its bytes,
 * NUL-terminated (caller frees), and *len their count; 0: it, or a
 * directory on the way, does not exist; -1: err is set: CTK_E_CONFLICT for
 * a symlink (on the way or at rel) or anything but a regular file, naming
 * it, CTK_E_IO for a file over max bytes or an I/O error. */
int ctk_write_read(const char *outdir, const char *rel, size_t max, char **data, size_t *len,
                   ctk_error_t *err);

/* Is OUT/rel a file ctkgen wrote and nobody changed since: listed in
 * OUT's manifest with the hash of its bytes now?  The manifest counts only
 * when it could not have been written by another user (as for
 * ctk_write_plan: owned by this user, not group- or other-writable); rel
 * and the manifest are read as ctk_write_read() reads.  1 yes, 0 no (no
 * tree, no manifest or one that decides nothing, rel not listed, absent,
 * changed, or not a regular file), -1 err set (no memory, I/O). */
int ctk_write_owns(const char *outdir, const char *rel, ctk_error_t *err);

/* The run lock, a flock on OUT/.ctkgen.lock.  wait_s: how long to wait
 * for another run that holds it: CTK_LOCK_WAIT_FOREVER (< 0) as long as
 * it takes, 0 not at all, else at most that many seconds; then it fails
 * with CTK_E_LOCK, naming the holder as /proc/locks shows it (or saying
 * it cannot be told).  The lock file is never written to.
 * A writer creates OUT (0755) and the lock file, mode 0600 whatever the
 * umask, and makes an existing one of its own 0600; it refuses
 * (CTK_E_CONFLICT) a lock file another user owns: anyone who can open it
 * can hold the lock and stall every run. */
#define CTK_LOCK_WAIT_FOREVER (-1.0)
typedef struct ctk_lock ctk_lock_t;
ctk_lock_t *ctk_write_lock(const char *outdir, double wait_s, ctk_error_t *err);
/* The same lock, shared, for a run that only reads the tree (--check,
 * --dry-run, validate): it waits for a writer to finish, runs beside other
 * readers, and creates and changes nothing; with no tree or no lock file
 * yet it locks nothing.  It takes a lock file owned by this user, by root
 * or by OUT's owner, and refuses any other (CTK_E_CONFLICT).  One it may not
 * open (the owner's, mode 0600) it reads without: ctk_write_lock_note()
 * then says so. */
ctk_lock_t *ctk_write_lock_shared(const char *outdir, double wait_s, ctk_error_t *err);
/* Why a reader holds no lock although the tree has a lock file; NULL when
 * it holds one or there is none.  Borrowed from lock. */
const char *ctk_write_lock_note(const ctk_lock_t *lock);
void ctk_write_unlock(ctk_lock_t *lock);

/* Who may not write where: what ctk_write_denied() found. */
typedef struct {
    char dir[CTK_ERROR_SOURCE_MAX]; /* the directory this process may not write in */
    int why;                        /* EACCES, EPERM or EROFS */
    unsigned uid, owner_uid;        /* this process's effective user; dir's owner */
    char user[64], owner[64];       /* their names ("uid N" for one without) */
    unsigned mode;                  /* dir's permission bits */
} ctk_denied_t;

/* Whether writing at path failed because this process may not write
 * there: path itself when it is a directory that exists, else the
 * directory it is or would be created in (the nearest one that exists).
 * Fills *d when so.  It only diagnoses a failure that happened: it
 * changes nothing, and a directory found writable says nothing. */
bool ctk_write_denied(const char *path, ctk_denied_t *d);

#endif
