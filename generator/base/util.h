/* util.h - small owned strings, string lists, buffers and file helpers.
 * SPDX-License-Identifier: MIT
 *
 * All functions that allocate return NULL/false on allocation failure and
 * report CTK_E_NOMEM through err when err is given.
 */
#ifndef CTK_UTIL_H
#define CTK_UTIL_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* ---- strings ---------------------------------------------------------- */
char *ctk_strdup(const char *s, ctk_error_t *err);                 /* caller frees */
char *ctk_strndup(const char *s, size_t n, ctk_error_t *err);      /* caller frees */
char *ctk_printf(ctk_error_t *err, const char *fmt, ...)           /* caller frees */
    __attribute__((format(printf, 2, 3)));
/* The strings up to the first NULL, one after the other (caller frees):
 * ctk_printf("%s%s%s") without parsing a format, for paths and names
 * made thousands of times a run.  NULL with CTK_E_NOMEM. */
char *ctk_concat(ctk_error_t *err, const char *s, ...) __attribute__((sentinel));
/* a/b with exactly one slash between; caller frees. */
char *ctk_path_join(const char *a, const char *b, ctk_error_t *err);
bool ctk_str_has_prefix(const char *s, const char *prefix);
/* Optimal string alignment distance between a and b (insertions, deletions,
 * substitutions and swaps of neighbours, one edit each), for "did you
 * mean"; SIZE_MAX when either is over 63 bytes. */
size_t ctk_edit_distance(const char *a, const char *b);

/* ---- growable byte buffer (always NUL-terminated) ------------------------ */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
    bool failed; /* an append ran out of memory; data holds what fit */
} ctk_buf_t;

void ctk_buf_init(ctk_buf_t *b);
void ctk_buf_fini(ctk_buf_t *b);
bool ctk_buf_append(ctk_buf_t *b, const char *data, size_t len);
/* Room for n more bytes without growing again; false when memory runs out
 * (b then failed, as after a failed append). */
bool ctk_buf_reserve(ctk_buf_t *b, size_t n);
bool ctk_buf_puts(ctk_buf_t *b, const char *s);
bool ctk_buf_printf(ctk_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hand the bytes to the caller (caller frees) and reset b. */
char *ctk_buf_take(ctk_buf_t *b, size_t *len);

/* ---- list of owned strings ---------------------------------------------- */
typedef struct {
    char **items;
    size_t len;
    size_t cap;
} ctk_strlist_t;

void ctk_strlist_init(ctk_strlist_t *l);
void ctk_strlist_fini(ctk_strlist_t *l);
bool ctk_strlist_push(ctk_strlist_t *l, const char *s, ctk_error_t *err); /* copies s */
/* Push a formatted line (cut at 2047 bytes). */
bool ctk_strlist_pushf(ctk_strlist_t *l, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool ctk_strlist_take(ctk_strlist_t *l, char *s, ctk_error_t *err);      /* owns s, even on failure */
bool ctk_strlist_contains(const ctk_strlist_t *l, const char *s);
/* Push the words of s, split at any byte of seps, empty ones left out
 * (NULL s: none). */
bool ctk_strlist_split(ctk_strlist_t *l, const char *s, const char *seps, ctk_error_t *err);

/* ---- files --------------------------------------------------------------- */
/* How ctk_file_open_regular() and ctk_file_read_ex() treat a path. */
#define CTK_READ_NOFOLLOW 0x1u     /* refuse a symbolic link as the last component */
#define CTK_READ_NO_KERNEL_FS 0x2u /* refuse files of /proc, /sys and the other kernel file systems */
#define CTK_READ_ANY_TYPE 0x4u     /* read a FIFO or a device too, waiting on it as it wants
                                    * (only for a path the user named to be read that way) */

/* Open path for reading, only when it is a regular file: what the path
 * is comes from an O_PATH descriptor (fstat, fstatfs), which opens
 * nothing, so a FIFO (which would wait for a writer) or a device (whose
 * open is an act of its own) is refused without being opened; then that
 * same inode is opened through /proc/self/fd (O_NONBLOCK), so a path
 * swapped in the meantime changes nothing.  With the flags above, a final
 * symbolic link and a file of a kernel file system are refused too.
 * Returns the descriptor (O_CLOEXEC; the caller closes it) or -1 with err
 * set (CTK_E_IO).  *what (may be NULL) is NULL, or, when the path exists
 * but was refused for what it is, a static description: "a FIFO", "a
 * character device", "a block device", "a socket", "a directory", "a
 * symbolic link", "a file of /proc, /sys or another kernel file system". */
int ctk_file_open_regular(const char *path, unsigned flags, const char **what, ctk_error_t *err);
/* Read a whole regular file, opened as ctk_file_open_regular() does;
 * caller frees.  *len gets the size (may be NULL).  Refuses files over
 * max_bytes (CTK_E_IO); *what as above. */
char *ctk_file_read_ex(const char *path, size_t max_bytes, unsigned flags, size_t *len, const char **what,
                       ctk_error_t *err);
/* Read what is left of fd (not closed) as ctk_file_read_ex() reads; path
 * names it in errors. */
char *ctk_file_read_fd(int fd, const char *path, size_t max_bytes, size_t *len, ctk_error_t *err);
/* ctk_file_read_ex() with no flags: regular files only, symlinks followed. */
char *ctk_file_read(const char *path, size_t max_bytes, size_t *len, ctk_error_t *err);
bool ctk_is_dir(const char *path);
bool ctk_is_file(const char *path);        /* regular file (after symlinks) */
bool ctk_is_executable(const char *path);  /* regular file with an x bit we may use */
/* Write all of data to fd, retrying short writes and EINTR; false with
 * errno set on failure. */
bool ctk_write_all(int fd, const char *data, size_t len);
/* $TMPDIR when it is an absolute path, else "/tmp". */
const char *ctk_tmp_base(void);
/* A new dir DIR/NAME-XXXXXX (mkdtemp: mode 0700, a name nobody else has);
 * caller frees the path (and removes the dir).  NULL with CTK_E_NOMEM, or
 * CTK_E_IO "cannot create a private <what>: <why>". */
char *ctk_make_dtemp(const char *dir, const char *name, const char *what, ctk_error_t *err);
/* rm -r path without following symlinks; best effort, errors ignored. */
void ctk_remove_tree(const char *path);
/* realpath(3) into a fresh string; NULL if it does not resolve (no error set). */
char *ctk_realpath(const char *path);
/* Do a and b name the same file (device and inode, after symlinks)?  How a
 * path is spelt says nothing about what it is: a toolkit reached through a
 * tree of symlinks or hard links is still that toolkit.  False if either
 * does not resolve. */
bool ctk_same_file(const char *a, const char *b);

/* 64-bit FNV-1a of a byte string, as 16 lowercase hex digits in out[17]. */
void ctk_hash_hex(const void *data, size_t len, char out[17]);
/* The same hash over several pieces: start from CTK_HASH_INIT, feed each
 * piece in order; ctk_hash_fmt writes the result as ctk_hash_hex does.
 * A caller hashing a structure feeds each piece's length before variable
 * bytes, so that no two structures share one stream. */
#define CTK_HASH_INIT 0xcbf29ce484222325ULL
uint64_t ctk_hash_update(uint64_t h, const void *data, size_t len);
uint64_t ctk_hash_size(uint64_t h, size_t n);
void ctk_hash_fmt(uint64_t h, char out[17]);
/* A faster hash of the same kind for what only this machine compares (the
 * inputs a file was rendered from): eight bytes a step, the length mixed
 * in.  Not FNV: never for a file's own hash in the manifest. */
uint64_t ctk_hash_mix(uint64_t h, const void *data, size_t len);
/* h fed with what this process runs as: for ctkgen and every shared
 * library loaded, its GNU build ID (a hash of its linked content, so that
 * a copy of a build is the same and a rebuild with any change is not);
 * for an object without one, its path and file identity (device, inode,
 * size, mtime, ctime: a rebuilt or reinstalled file changes one).  false
 * when an object without a build ID cannot be looked at: then nothing
 * identifies the process. */
bool ctk_hash_self(uint64_t *h);

/* A map from strings to numbers, for lookups by name over thousands of
 * SDKs.  Keys are borrowed (they must outlive the map); the map is sized
 * once for at most n keys.  Open addressing, FNV-1a of the key. */
typedef struct {
    const char **key;
    size_t *val;
    size_t mask; /* slots - 1: a power of two, at least twice n */
    size_t n;
} ctk_strmap_t;

bool ctk_strmap_init(ctk_strmap_t *m, size_t n, ctk_error_t *err);
void ctk_strmap_fini(ctk_strmap_t *m);
/* The value of key, or NULL when it has none. */
const size_t *ctk_strmap_get(const ctk_strmap_t *m, const char *key);
/* Give key the value val unless it has one: true if it was added.  The
 * caller adds no more keys than the map was sized for. */
bool ctk_strmap_add(ctk_strmap_t *m, const char *key, size_t val);

/* ---- what a piece of work looked at -------------------------------------
 * A record of the questions the calling thread asks of the filesystem
 * while the record is active (ctk_seen_begin .. ctk_seen_end): each
 * question once (its kind and path), in the order first asked, with the
 * hash of every answer.  Asked again later (ctk_seen_recheck), unchanged
 * answers hash the same, and any change to what was looked at changes the
 * hash: a file rewritten or replaced (an answer is the file's identity:
 * device, inode, mode, owner, group, size, mtime and ctime; its bytes
 * cannot change without its mtime or ctime), a directory's entries added,
 * removed or renamed (its mtime and ctime), a path that now resolves
 * elsewhere, exists or no longer does (the errno is the answer).  Work
 * whose result rests on something the record cannot ask again (a program
 * it ran, a refusal it cannot tell the cause of) marks the record opaque:
 * then it proves nothing.
 *
 * The helpers of this file that look at the filesystem (ctk_is_dir,
 * ctk_is_file, ctk_is_executable, ctk_realpath, ctk_file_open_regular and
 * the readers built on it) note their questions themselves; other code
 * notes its own with ctk_seen_note.  Outside an active record noting costs
 * one test of a thread-local pointer. */
typedef enum {
    CTK_SEEN_STAT,     /* stat(2): the identity after links, or the errno */
    CTK_SEEN_LSTAT,    /* lstat(2) */
    CTK_SEEN_EXEC,     /* access(path, X_OK) */
    CTK_SEEN_REALPATH, /* realpath(3): the resolved path, or the errno */
    CTK_SEEN_KINDS
} ctk_seen_kind_t;
typedef struct ctk_seen ctk_seen_t;

/* An empty record; NULL when memory runs out. */
ctk_seen_t *ctk_seen_new(void);
void ctk_seen_free(ctk_seen_t *s);
/* s (not NULL) records what this thread asks until ctk_seen_end(). */
void ctk_seen_begin(ctk_seen_t *s);
void ctk_seen_end(void);
/* Note a question and its answer: st after a successful stat/lstat, or
 * NULL and the errno of the failure.  Not active: nothing. */
void ctk_seen_note(ctk_seen_kind_t kind, const char *path, const struct stat *st, int errnum);
/* The same for dir "/" name (a question asked of a descriptor of dir). */
void ctk_seen_note_at(ctk_seen_kind_t kind, const char *dir, const char *name,
                      const struct stat *st, int errnum);
/* The record proves nothing (see above).  Not active: nothing. */
void ctk_seen_opaque(void);
/* Whether the record can be relied on: not opaque, no memory lost. */
bool ctk_seen_usable(const ctk_seen_t *s);
/* Its questions: how many, and the i-th (its kind into *kind). */
size_t ctk_seen_count(const ctk_seen_t *s);
const char *ctk_seen_question(const ctk_seen_t *s, size_t i, ctk_seen_kind_t *kind);
/* The length of the i-th question's path. */
size_t ctk_seen_question_len(const ctk_seen_t *s, size_t i);
/* The hash of the answers as recorded. */
uint64_t ctk_seen_hash(const ctk_seen_t *s);
/* Add a question without an answer (a record read back from storage, to
 * be rechecked); false when memory runs out or kind is not a kind. */
bool ctk_seen_ask(ctk_seen_t *s, ctk_seen_kind_t kind, const char *path);
/* Ask every question of s again, now: the hash of the answers, which
 * equals the recorded one when nothing it looked at changed. */
uint64_t ctk_seen_recheck(const ctk_seen_t *s);
/* The same for questions kept as text, without building a record: fold
 * n questions in their recorded order (init, then ask each: false for a
 * kind that is none or a relative path), and end gives what
 * ctk_seen_recheck would of the record they came from. */
typedef struct {
    uint64_t h;
} ctk_seen_fold_t;
void ctk_seen_fold_init(ctk_seen_fold_t *f, size_t n);
bool ctk_seen_fold_ask(ctk_seen_fold_t *f, ctk_seen_kind_t kind, const char *path);
uint64_t ctk_seen_fold_end(const ctk_seen_fold_t *f);

#endif
