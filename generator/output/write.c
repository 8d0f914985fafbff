/* write.c - atomic, idempotent output tree: plan, diff, apply, manifest, lock.
 * SPDX-License-Identifier: MIT
 *
 * Everything below OUT is reached through directory descriptors opened
 * with O_NOFOLLOW, one component at a time, so a symlink planted inside the
 * output directory can never redirect a write (or a removal) elsewhere.
 * OUT itself is named by the admin and may be a symlink.
 *
 * Temporary files are created with openat(O_CREAT|O_EXCL|O_NOFOLLOW) in the
 * directory descriptor rather than with mkostemp(), which takes a path and
 * would resolve every component of it again.
 */
#include <ctkconf.h>

#include "write.h"
#include "diff.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define MANIFEST_HEADER "# ctkgen manifest v1\n"
/* v2 records each file's inputs too: "<hash> <inputs or 16 '-'> <path>" */
#define MANIFEST_HEADER_V2 "# ctkgen manifest v2\n"
#define NO_INPUT "----------------"
#define TMP_TAG ".ctkgen-tmp-"
/* ctkgen's own files are a few KB; anything far larger is not ours. */
#define MAX_FILE_BYTES ((size_t)64 << 20)
/* how many conflicting paths an error message names */
#define CONFLICTS_SHOWN 3

typedef enum { WALK_FOUND, WALK_ABSENT, WALK_NOTDIR, WALK_FAILED } walk_t;

static bool is_hex16(const char *p);
static bool sweep_tmp(int outfd, const ctk_plan_t *plan, bool remove, ctk_strlist_t *notes,
                      ctk_error_t *err);

/* ---- paths ---------------------------------------------------------------- */

/* NULL if rel is a relative path ctkgen may write, else the reason why not. */
static const char *relpath_problem(const char *rel)
{
    const char *s = rel, *slash, *comp_why;
    size_t n;

    if (*rel == '\0')
        return "is empty";
    if (*rel == '/')
        return "is absolute";
    if (strlen(rel) >= PATH_MAX)
        return "is too long";
    /* one pass: a control character anywhere is said before a component's
       problem, the first component's problem before a later one's */
    comp_why = NULL;
    for (s = rel, slash = rel;; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch < 0x20 || ch == 0x7f) {
            if (ch != '\0')
                return "contains a control character";
        } else if (ch != '/') {
            continue;
        }
        n = (size_t)(s - slash);
        if (comp_why)
            ;
        else if (n == 0)
            comp_why = "has an empty component";
        else if (n > NAME_MAX)
            comp_why = "has a component longer than NAME_MAX";
        else if ((n == 1 && slash[0] == '.') || (n == 2 && slash[0] == '.' && slash[1] == '.'))
            comp_why = "has a '.' or '..' component";
        if (ch == '\0')
            break;
        slash = s + 1;
    }
    if (comp_why)
        return comp_why;
    if (strcmp(rel, CTK_MANIFEST_NAME) == 0 || strcmp(rel, CTK_LOCK_NAME) == 0)
        return "is reserved for ctkgen's own bookkeeping";
    if (strstr(rel, TMP_TAG))
        return "looks like a ctkgen temporary file";
    return NULL;
}

/* "OUT/rel[0..n)" for messages. */
static const char *shown(char buf[CTK_ERROR_SOURCE_MAX], const char *outdir, const char *rel,
                         size_t n)
{
    size_t ol = strlen(outdir);
    const char *sep = (ol > 0 && outdir[ol - 1] == '/') ? "" : "/";

    snprintf(buf, CTK_ERROR_SOURCE_MAX, "%s%s%.*s", outdir, sep, (int)n, rel);
    return buf;
}

/* An error set without its file (write_temp, commit_temp called with no
 * path, so that none is spelt for the files that succeed): OUT/rel. */
static void place(ctk_error_t *err, const char *outdir, const char *rel)
{
    char where[CTK_ERROR_SOURCE_MAX];

    if (err && err->code != CTK_E_OK && err->code != CTK_E_NOMEM && !err->source[0])
        snprintf(err->source, sizeof err->source, "%s", shown(where, outdir, rel, strlen(rel)));
}

static int fsync_dir(int fd)
{
    /* some filesystems cannot sync a directory; that is not our failure */
    if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP)
        return -1;
    return 0;
}

/* ---- bookkeeping another user could have written -------------------------- */

static void user_name(uid_t uid, char *out, size_t size)
{
    struct passwd pw, *res = NULL;
    char buf[1024];

    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_name[0])
        snprintf(out, size, "%s", res->pw_name);
    else
        snprintf(out, size, "uid %u", (unsigned)uid);
}

/* Whether one of ctkgen's own files (the manifest, the pending manifest, a
 * temp file), as fstat saw it on the descriptor opened without following
 * links, could have been written by someone other than the user running
 * ctkgen: owned by another user, or writable by its group or by others.
 * Such a file decides nothing (it could name an admin's file for removal);
 * why says in a few words why. */
static bool foreign(const struct stat *st, char *why, size_t size)
{
    char owner[64], me[64];

    if (st->st_uid != geteuid()) {
        user_name(st->st_uid, owner, sizeof owner);
        user_name(geteuid(), me, sizeof me);
        snprintf(why, size, "owned by %s, not by %s, who runs ctkgen", owner, me);
        return true;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, size, "mode %04o: %s may write it", (unsigned)(st->st_mode & 07777),
                 (st->st_mode & S_IWOTH) ? "every user" : "its group");
        return true;
    }
    return false;
}

/* Open, without following symlinks, each directory on the way to rel's last
 * component under outfd, creating missing ones (0755) when create is set.
 * WALK_FOUND: *dirfd is the parent (caller closes), *leaf points into rel.
 * WALK_ABSENT: a directory on the way is missing (create false only).
 * WALK_NOTDIR: rel[0..*stop) is a file or other non-directory, not a symlink.
 * WALK_FAILED: err is set (a symlink on the way, or an I/O error). */
/* The component name (rel[0..upto) in messages) of the directory cur,
 * looked at without following it into *st, made (0755) when missing and
 * create is set (*made).  WALK_FOUND when there is something there now,
 * WALK_ABSENT, or WALK_FAILED with err. */
static walk_t walk_step_stat(int cur, const char *name, bool create, struct stat *st, bool *made,
                             const char *outdir, const char *rel, size_t upto, ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];

    *made = false;
    if (fstatat(cur, name, st, AT_SYMLINK_NOFOLLOW) == 0)
        return WALK_FOUND;
    if (errno != ENOENT) {
        ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, upto), 0, 0, "cannot stat: %s", strerror(errno));
        return WALK_FAILED;
    }
    if (!create)
        return WALK_ABSENT;
    if (mkdirat(cur, name, 0755) == 0) {
        *made = true;
    } else if (errno != EEXIST) {
        ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, upto), 0, 0, "cannot create directory: %s",
                      strerror(errno));
        return WALK_FAILED;
    }
    if (fstatat(cur, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
        ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, upto), 0, 0, "cannot stat: %s", strerror(errno));
        return WALK_FAILED;
    }
    return WALK_FOUND;
}

/* The directory name in cur opened (no symlink followed), its mode set to
 * 0755 when it was just made (mkdirat's mode is filtered by the umask;
 * the tree's modes are not; its entry in cur is made durable by apply's
 * directory pass, sync_dirs, which syncs every directory above a changed
 * file).  -1 with err. */
static int walk_step_open(int cur, const char *name, bool made, const char *outdir, const char *rel, size_t upto,
                          ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];
    int next = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (next < 0) {
        if (errno == ELOOP || errno == ENOTDIR)
            ctk_error_set(err, CTK_E_CONFLICT, shown(where, outdir, rel, upto), 0, 0,
                          "was replaced by a symlink or a file while ctkgen ran");
        else
            ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, upto), 0, 0, "cannot open directory: %s",
                          strerror(errno));
        return -1;
    }
    if (made && fchmod(next, 0755) < 0) {
        ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, upto), 0, 0, "cannot set up directory: %s",
                      strerror(errno));
        close(next);
        return -1;
    }
    return next;
}

static walk_t walk(int outfd, const char *outdir, const char *rel, bool create, int *dirfd,
                   const char **leaf, size_t *stop, ctk_error_t *err)
{
    char name[NAME_MAX + 1], where[CTK_ERROR_SOURCE_MAX];
    const char *s = rel, *slash;
    walk_t rc = WALK_FAILED;
    struct stat st;
    int cur, next;

    cur = fcntl(outfd, F_DUPFD_CLOEXEC, 0);
    if (cur < 0) {
        ctk_error_set(err, CTK_E_IO, outdir, 0, 0, "cannot open: %s", strerror(errno));
        return WALK_FAILED;
    }
    while ((slash = strchr(s, '/'))) {
        size_t n = (size_t)(slash - s), upto = (size_t)(slash - rel);
        bool made;

        /* relpath_problem() has bounded n by NAME_MAX */
        memcpy(name, s, n);
        name[n] = '\0';
        if ((rc = walk_step_stat(cur, name, create, &st, &made, outdir, rel, upto, err)) != WALK_FOUND)
            goto out;
        rc = WALK_FAILED;
        if (S_ISLNK(st.st_mode)) {
            ctk_error_set(err, CTK_E_CONFLICT, shown(where, outdir, rel, upto), 0, 0,
                          "is a symlink; ctkgen does not follow symlinks inside the output "
                          "directory (remove it or choose another output directory)");
            goto out;
        }
        if (!S_ISDIR(st.st_mode)) {
            *stop = upto;
            rc = WALK_NOTDIR;
            goto out;
        }
        if ((next = walk_step_open(cur, name, made, outdir, rel, upto, err)) < 0)
            goto out;
        close(cur);
        cur = next;
        s = slash + 1;
    }
    *dirfd = cur;
    cur = -1;
    *leaf = s;
    rc = WALK_FOUND;
out:
    if (cur >= 0)
        close(cur);
    return rc;
}

/* Read the regular file name in dirfd.  1: *data holds its bytes (caller
 * frees) and *stp (may be NULL) what fstat says of the descriptor they
 * were read from; 0: it does not exist; -1: err is set (symlink, not a
 * regular file, or an I/O error). */
static int read_leaf_in(int dirfd, const char *name, const char *path, const char *outdir,
                        const char *rel, size_t max, char **data, size_t *len, struct stat *stp,
                        ctk_error_t *err);

static int read_leaf(int dirfd, const char *name, const char *path, size_t max, char **data,
                     size_t *len, struct stat *stp, ctk_error_t *err)
{
    return read_leaf_in(dirfd, name, path, NULL, NULL, max, data, len, stp, err);
}

/* How a leaf is named in messages: path, or when that is NULL outdir/rel,
 * spelt only for a message (where). */
typedef struct {
    const char *path, *outdir, *rel;
    char where[CTK_ERROR_SOURCE_MAX];
} leaf_name_t;

static const char *leaf_shown(leaf_name_t *l)
{
    return l->path ? l->path : shown(l->where, l->outdir, l->rel, strlen(l->rel));
}

/* What is at name in dirfd, looked at without following it: 1 a regular
 * file, 0 nothing, -1 anything else or an error (err). */
static int leaf_is_file(int dirfd, const char *name, leaf_name_t *l, ctk_error_t *err)
{
    struct stat st;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno == ENOENT)
            return 0;
        ctk_error_set(err, CTK_E_IO, leaf_shown(l), 0, 0, "cannot stat: %s", strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        ctk_error_set(err, CTK_E_CONFLICT, leaf_shown(l), 0, 0,
                      "is a symlink; ctkgen neither follows nor writes through a symlink inside "
                      "the output directory (remove it or choose another output directory)");
    } else if (S_ISDIR(st.st_mode)) {
        ctk_error_set(err, CTK_E_CONFLICT, leaf_shown(l), 0, 0, "is a directory where ctkgen needs a regular file");
    } else if (!S_ISREG(st.st_mode)) {
        ctk_error_set(err, CTK_E_CONFLICT, leaf_shown(l), 0, 0,
                      "is not a regular file; ctkgen will neither read nor replace it");
    } else {
        return 1;
    }
    return -1;
}

/* The regular file at name opened for reading, *st its fstat; -1 with
 * *gone when it went away since, else with err.  O_NONBLOCK: a FIFO
 * swapped in after the check must not hang us. */
static int open_leaf(int dirfd, const char *name, leaf_name_t *l, struct stat *st, bool *gone, ctk_error_t *err)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

    *gone = false;
    if (fd < 0) {
        if (errno == ENOENT)
            *gone = true;
        else if (errno == ELOOP)
            ctk_error_set(err, CTK_E_CONFLICT, leaf_shown(l), 0, 0, "was replaced by a symlink while ctkgen ran");
        else
            ctk_error_set(err, CTK_E_IO, leaf_shown(l), 0, 0, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
        ctk_error_set(err, CTK_E_CONFLICT, leaf_shown(l), 0, 0,
                      "was replaced by something other than a regular file while ctkgen ran");
        close(fd);
        return -1;
    }
    return fd;
}

/* All of fd into b, NUL-terminated: at most max bytes. */
static bool read_all(int fd, size_t max, ctk_buf_t *b, leaf_name_t *l, ctk_error_t *err)
{
    char chunk[8192];
    ssize_t got;

    for (;;) {
        got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            ctk_error_set(err, CTK_E_IO, leaf_shown(l), 0, 0, "cannot read: %s", strerror(errno));
            return false;
        }
        if (got == 0)
            break;
        if (b->len + (size_t)got > max) {
            ctk_error_set(err, CTK_E_IO, leaf_shown(l), 0, 0, "is larger than %zu bytes; not a file ctkgen wrote",
                          max);
            return false;
        }
        if (!ctk_buf_append(b, chunk, (size_t)got)) {
            ctk_error_nomem(err);
            return false;
        }
    }
    if (!ctk_buf_append(b, "", 0)) {
        ctk_error_nomem(err);
        return false;
    }
    return true;
}

/* read_leaf, its path for messages either path or, when that is NULL,
 * outdir/rel, spelt only for a message. */
static int read_leaf_in(int dirfd, const char *name, const char *path, const char *outdir,
                        const char *rel, size_t max, char **data, size_t *len, struct stat *stp,
                        ctk_error_t *err)
{
    leaf_name_t l = { path, outdir, rel, "" };
    struct stat st;
    ctk_buf_t b;
    bool gone;
    int fd, rc;

    if ((rc = leaf_is_file(dirfd, name, &l, err)) <= 0)
        return rc;
    if ((fd = open_leaf(dirfd, name, &l, &st, &gone, err)) < 0)
        return gone ? 0 : -1;
    ctk_buf_init(&b);
    rc = -1;
    if (read_all(fd, max, &b, &l, err)) {
        *data = ctk_buf_take(&b, len);
        if (stp)
            *stp = st;
        rc = 1;
    }
    close(fd);
    ctk_buf_fini(&b);
    return rc;
}

/* The directory walked to last, kept open: the plan's files and apply's
 * items are sorted, so the files of one directory follow each other and
 * each directory is walked (opened component by component, O_NOFOLLOW)
 * once per pass rather than once per file.  The descriptor names the directory it was
 * opened on whatever happens to its path since, as one from a fresh walk
 * would a moment later. */
typedef struct {
    int fd;             /* -1: none */
    dev_t dev;          /* the file system it is on */
    size_t len;         /* its path relative to OUT with the '/' after it; 0 for OUT */
    char dir[PATH_MAX];
} dircache_t;

static void dircache_init(dircache_t *dc)
{
    dc->fd = -1;
    dc->len = 0;
}

static void dircache_drop(dircache_t *dc)
{
    if (dc->fd >= 0)
        close(dc->fd);
    dc->fd = -1;
}

/* walk() through the cache: on WALK_FOUND *dirfd is the cache's (the
 * caller does not close it) and *dev its file system; otherwise as
 * walk(), and *dirfd is -1. */
static walk_t walk_cached(dircache_t *dc, int outfd, const char *outdir, const char *rel,
                          bool create, int *dirfd, dev_t *dev, const char **leaf, size_t *stop,
                          ctk_error_t *err)
{
    const char *slash = strrchr(rel, '/');
    size_t dl = slash ? (size_t)(slash - rel) + 1 : 0;
    struct stat st;
    walk_t w;
    int fd = -1;

    *dirfd = -1;
    if (dc->fd >= 0 && dc->len == dl && memcmp(dc->dir, rel, dl) == 0) {
        *dirfd = dc->fd;
        *dev = dc->dev;
        *leaf = rel + dl;
        return WALK_FOUND;
    }
    dircache_drop(dc);
    w = walk(outfd, outdir, rel, create, &fd, leaf, stop, err);
    if (w != WALK_FOUND) {
        if (fd >= 0)
            close(fd);
        return w;
    }
    if (fstat(fd, &st) < 0) {
        char where[CTK_ERROR_SOURCE_MAX];

        ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, dl), 0, 0,
                      "cannot stat directory: %s", strerror(errno));
        close(fd);
        return WALK_FAILED;
    }
    /* relpath_problem() has bounded rel, so dl, by PATH_MAX */
    memcpy(dc->dir, rel, dl);
    dc->len = dl;
    dc->fd = *dirfd = fd;
    dc->dev = *dev = st.st_dev;
    return WALK_FOUND;
}

/* What is at OUT/rel: WALK_FOUND with its bytes, WALK_ABSENT, WALK_NOTDIR
 * (a non-directory at rel[0..*stop) on the way), or WALK_FAILED.  Its
 * directory is walked through dc. */
static uint64_t ident_of(const struct stat *st);

static walk_t probe(dircache_t *dc, int outfd, const char *outdir, const char *rel, char **data,
                    size_t *len, size_t *stop, uint64_t *seen, ctk_error_t *err)
{
    struct stat st;
    const char *leaf = NULL;
    int dirfd = -1, r;
    dev_t dev;
    walk_t w;

    if (outfd < 0)
        return WALK_ABSENT;
    w = walk_cached(dc, outfd, outdir, rel, false, &dirfd, &dev, &leaf, stop, err);
    if (w != WALK_FOUND)
        return w;
    r = read_leaf_in(dirfd, leaf, NULL, outdir, rel, MAX_FILE_BYTES, data, len, &st, err);
    if (r == 1 && seen)
        *seen = ident_of(&st);
    return r < 0 ? WALK_FAILED : r == 0 ? WALK_ABSENT : WALK_FOUND;
}

int ctk_write_read(const char *outdir, const char *rel, size_t max, char **data, size_t *len,
                   ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];
    const char *leaf = NULL, *why = relpath_problem(rel);
    size_t stop = 0;
    int outfd, dirfd = -1, r = -1;
    walk_t w;

    /* the bookkeeping names are refused too: nothing to read there */
    if (why) {
        ctk_error_set(err, CTK_E_INTERNAL, rel, 0, 0, "path %s", why);
        return -1;
    }
    outfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (outfd < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        ctk_error_set(err, CTK_E_IO, outdir, 0, 0, "cannot open output directory: %s",
                      strerror(errno));
        return -1;
    }
    w = walk(outfd, outdir, rel, false, &dirfd, &leaf, &stop, err);
    if (w == WALK_FOUND)
        r = read_leaf(dirfd, leaf, shown(where, outdir, rel, strlen(rel)), max, data, len, NULL,
                      err);
    else if (w != WALK_FAILED)
        r = 0; /* a directory on the way is missing, or is a file */
    if (dirfd >= 0)
        close(dirfd);
    close(outfd);
    return r;
}

/* mkdir -p for OUT itself; directories it creates get 0755 whatever the umask. */
static bool mkdir_p(const char *dir, ctk_error_t *err)
{
    char *p = ctk_strdup(dir, err);
    size_t i, n;
    bool ok = false;

    if (!p)
        return false;
    n = strlen(p);
    for (i = 1; i <= n; i++) {
        char c = p[i];

        if ((i < n && c != '/') || p[i - 1] == '/')
            continue;
        p[i] = '\0';
        if (!ctk_is_dir(p)) {
            if (mkdir(p, 0755) == 0) {
                if (chmod(p, 0755) < 0) {
                    ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot set mode: %s",
                                  strerror(errno));
                    goto out;
                }
            } else if (errno != EEXIST || !ctk_is_dir(p)) {
                ctk_error_set(err, CTK_E_IO, p, 0, 0, "cannot create directory: %s",
                              errno == EEXIST ? "exists and is not a directory"
                                              : strerror(errno));
                goto out;
            }
        }
        p[i] = c;
    }
    ok = true;
out:
    free(p);
    return ok;
}

/* ---- output set ------------------------------------------------------------ */

void ctk_outset_init(ctk_outset_t *set)
{
    memset(set, 0, sizeof *set);
}

void ctk_outset_fini(ctk_outset_t *set)
{
    size_t i;

    if (!set)
        return;
    for (i = 0; i < set->n; i++) {
        free(set->files[i].relpath);
        free(set->files[i].data);
    }
    free(set->files);
    free(set->index);
    memset(set, 0, sizeof *set);
}

/* FNV-1a, 64 bits. */
static size_t path_hash(const char *s)
{
    uint64_t h = 14695981039346656037ULL;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)h;
}

/* The index slot holding relpath, or the empty slot where it would go. */
static size_t index_slot(const ctk_outset_t *set, const char *relpath)
{
    size_t mask = set->index_cap - 1, i = path_hash(relpath) & mask;

    while (set->index[i] && strcmp(set->files[set->index[i] - 1].relpath, relpath) != 0)
        i = (i + 1) & mask;
    return i;
}

/* An index of cap slots (a power of two) over the files. */
static bool index_build(ctk_outset_t *set, size_t cap, ctk_error_t *err)
{
    size_t *slots = calloc(cap, sizeof *slots), *old = set->index;

    if (!slots) {
        ctk_error_nomem(err);
        return false;
    }
    set->index = slots;
    set->index_cap = cap;
    for (size_t k = 0; k < set->n; k++)
        slots[index_slot(set, set->files[k].relpath)] = k + 1;
    free(old);
    return true;
}

bool ctk_outset_drop(ctk_outset_t *set, const ctk_strlist_t *keep, ctk_error_t *err)
{
    size_t i, n = 0;

    for (i = 0; i < set->n; i++) {
        if (ctk_strlist_contains(keep, set->files[i].relpath)) {
            free(set->files[i].relpath);
            free(set->files[i].data);
            continue;
        }
        set->files[n++] = set->files[i];
    }
    set->n = n;
    return set->index_cap == 0 || index_build(set, set->index_cap, err);
}

/* The index slot for relpath, the index grown first to stay at most half
 * full; SIZE_MAX, an error set, when relpath is there already or on no
 * memory. */
static size_t free_slot(ctk_outset_t *set, const char *relpath, ctk_error_t *err)
{
    size_t cap = set->index_cap ? set->index_cap : 64, slot;

    while ((set->n + 1) * 2 >= cap)
        cap *= 2;
    if (cap != set->index_cap && !index_build(set, cap, err))
        return SIZE_MAX;
    slot = index_slot(set, relpath);
    if (set->index[slot]) {
        ctk_error_set(err, CTK_E_INTERNAL, relpath, 0, 0, "output path produced twice");
        return SIZE_MAX;
    }
    return slot;
}

/* Room in set for one file more. */
static bool files_room(ctk_outset_t *set, ctk_error_t *err)
{
    size_t cap;
    ctk_outfile_t *p;

    if (set->n < set->cap)
        return true;
    cap = set->cap ? set->cap * 2 : 16;
    if (!(p = realloc(set->files, cap * sizeof *p))) {
        ctk_error_nomem(err);
        return false;
    }
    set->files = p;
    set->cap = cap;
    return true;
}

/* Append relpath with data (taken, freed on failure); the new entry or
 * NULL.  checked: relpath_problem() has passed it already (a manifest's
 * path). */
static ctk_outfile_t *outset_add_path(ctk_outset_t *set, const char *relpath, char *data, size_t len,
                                      bool checked, ctk_error_t *err)
{
    const char *why;
    char *rel = NULL;
    ctk_outfile_t *f = NULL;
    size_t slot = SIZE_MAX;

    if (!relpath || (!data && len > 0)) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "output file without a path or data");
        goto out;
    }
    if (!checked)
        set->from_records = false;
    why = checked ? NULL : relpath_problem(relpath);
    if (why) {
        ctk_error_set(err, CTK_E_INTERNAL, relpath, 0, 0, "output path %s", why);
        goto out;
    }
    /* a manifest's entries, each once (manifest_sort), are not indexed
       unless another file joins them */
    if (!(checked && set->from_records) && (slot = free_slot(set, relpath, err)) == SIZE_MAX)
        goto out;
    if (!files_room(set, err) || !(rel = ctk_strdup(relpath, err)))
        goto out;
    f = &set->files[set->n];
    memset(f, 0, sizeof *f);
    f->relpath = rel;
    f->data = data;
    f->len = len;
    if (slot != SIZE_MAX)
        set->index[slot] = set->n + 1;
    set->n++;
    rel = NULL;
    data = NULL;
out:
    free(rel);
    free(data);
    return f;
}

static ctk_outfile_t *outset_add(ctk_outset_t *set, const char *relpath, char *data, size_t len,
                                 ctk_error_t *err)
{
    return outset_add_path(set, relpath, data, len, false, err);
}

bool ctk_outset_take(ctk_outset_t *set, const char *relpath, char *data, size_t len,
                     ctk_error_t *err)
{
    return outset_add(set, relpath, data, len, err) != NULL;
}

static bool outset_reuse(ctk_outset_t *set, const char *relpath, const char hash[17],
                         const char input[17], bool checked, ctk_error_t *err)
{
    ctk_outfile_t *f;

    if (!is_hex16(hash) || (input[0] && !is_hex16(input))) {
        ctk_error_set(err, CTK_E_INTERNAL, relpath, 0, 0, "reused output without its hashes");
        return false;
    }
    f = outset_add_path(set, relpath, NULL, 0, checked, err);
    if (!f)
        return false;
    memcpy(f->reuse, hash, 17);
    memcpy(f->input, input, 17);
    return true;
}

bool ctk_outset_reuse(ctk_outset_t *set, const char *relpath, const char hash[17],
                      const char input[17], ctk_error_t *err)
{
    return outset_reuse(set, relpath, hash, input, false, err);
}

void ctk_outset_mark_input(ctk_outset_t *set, size_t from, const char input[17])
{
    for (; from < set->n; from++)
        memcpy(set->files[from].input, input, 17);
}

/* ---- manifest -------------------------------------------------------------- */

typedef struct {
    char *rel;
    char hash[17];
    char input[17]; /* "" when the manifest records no inputs for it */
    int line;
} mentry_t;

typedef struct {
    mentry_t *v;
    size_t n;
    char *paths; /* every entry's rel, each NUL-ended, in one block */
} manifest_t;

static void manifest_fini(manifest_t *m)
{
    free(m->paths);
    free(m->v);
    memset(m, 0, sizeof *m);
}

static int mentry_cmp(const void *x, const void *y)
{
    return strcmp(((const mentry_t *)x)->rel, ((const mentry_t *)y)->rel);
}

static const mentry_t *manifest_find(const manifest_t *m, const char *rel)
{
    mentry_t key;

    if (m->n == 0)
        return NULL;
    key.rel = (char *)rel;
    return bsearch(&key, m->v, m->n, sizeof *m->v, mentry_cmp);
}

static bool is_hex16(const char *p)
{
    int i;

    for (i = 0; i < 16; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return false;
    return true;
}

/* Room for one more entry in m; false on ENOMEM. */
static bool manifest_grow(manifest_t *m, size_t *cap, ctk_error_t *err)
{
    size_t ncap = *cap ? *cap * 2 : 32;
    mentry_t *v;

    if (m->n < *cap)
        return true;
    v = realloc(m->v, ncap * sizeof *v);
    if (!v) {
        ctk_error_nomem(err);
        return false;
    }
    m->v = v;
    *cap = ncap;
    return true;
}

/* The inputs column of a v2 line at p (16 hex digits or NO_INPUT, then a
 * blank) into input; false when it is not one. */
static bool parse_input(const char *p, size_t l, char input[17])
{
    if (l < 17 || p[16] != ' ')
        return false;
    if (memcmp(p, NO_INPUT, 16) == 0) {
        input[0] = '\0';
        return true;
    }
    if (!is_hex16(p))
        return false;
    memcpy(input, p, 16);
    input[16] = '\0';
    return true;
}

/* qsort, less the work where base is in order already (as a manifest
 * ctkgen wrote is, and a plan of no removals): one pass to see. */
static void sort_unless_sorted(void *base, size_t n, size_t size,
                               int (*cmp)(const void *, const void *))
{
    const char *p = base;
    size_t i;

    for (i = 1; i < n; i++)
        if (cmp(p + (i - 1) * size, p + i * size) > 0)
            break;
    if (i < n)
        qsort(base, n, size, cmp);
}

/* Entries sorted by path; a path listed twice is corrupt. */
static bool manifest_sort(const char *path, manifest_t *m, const char *hint, ctk_error_t *err)
{
    size_t i;
    int c = -1;

    /* in order already (as ctkgen writes it) when each path sorts before
       the next: one pass, which meets a path listed twice too */
    for (i = 1; i < m->n && (c = strcmp(m->v[i - 1].rel, m->v[i].rel)) < 0; i++)
        ;
    if (i == m->n)
        return true;
    if (c > 0) {
        qsort(m->v, m->n, sizeof *m->v, mentry_cmp);
        for (i = 1; i < m->n && strcmp(m->v[i - 1].rel, m->v[i].rel) != 0; i++)
            ;
        if (i == m->n)
            return true;
    }
    /* m->v[i - 1] and m->v[i]: the same path */
    {
        int dup = m->v[i].line > m->v[i - 1].line ? m->v[i].line : m->v[i - 1].line;

        ctk_error_set(err, CTK_E_IO, path, dup, 18, "corrupt manifest line: %s is listed twice%s",
                      m->v[i].rel, hint);
    }
    return false;
}

/* One entry line of a manifest, p of l bytes without its newline, number
 * line, appended to m; its path copied to *next, which moves past it. */
static bool manifest_line(const char *path, const char *p, size_t l, bool v2, int line, manifest_t *m,
                          size_t *cap, char **next, const char *hint, ctk_error_t *err)
{
    size_t skip = v2 ? 17 : 0;
    const char *why;
    char *rel;

    if (l < 18 + skip || !is_hex16(p) || p[16] != ' ' || memchr(p, '\0', l) || !manifest_grow(m, cap, err) ||
        (v2 && !parse_input(p + 17, l - 17, m->v[m->n].input))) {
        if (ctk_error_is_set(err))
            return false;
        ctk_error_set(err, CTK_E_IO, path, line, 0,
                      v2 ? "corrupt manifest line: expected \"<16 hex digits> <16 hex digits "
                           "or 16 '-'> <path>\"%s"
                         : "corrupt manifest line: expected \"<16 hex digits> <path>\"%s",
                      hint);
        return false;
    }
    if (!v2)
        m->v[m->n].input[0] = '\0';
    rel = *next;
    memcpy(rel, p + 17 + skip, l - 17 - skip);
    rel[l - 17 - skip] = '\0';
    *next += l - 17 - skip + 1;
    if ((why = relpath_problem(rel))) {
        ctk_error_set(err, CTK_E_IO, path, line, (int)(18 + skip), "corrupt manifest line: path %s%s", why, hint);
        return false;
    }
    m->v[m->n].rel = rel;
    memcpy(m->v[m->n].hash, p, 16);
    m->v[m->n].hash[16] = '\0';
    m->v[m->n].line = line;
    m->n++;
    return true;
}

static bool manifest_parse(const char *path, const char *data, size_t len, manifest_t *m,
                           ctk_error_t *err)
{
    static const char hint[] = "; move the manifest away and rerun with --force to regenerate";
    size_t hl = strlen(MANIFEST_HEADER), pos, cap = 0;
    bool v2 = len >= hl && memcmp(data, MANIFEST_HEADER_V2, hl) == 0;
    char *next;
    int line = 1;

    if (!v2 && (len < hl || memcmp(data, MANIFEST_HEADER, hl) != 0)) {
        ctk_error_set(err, CTK_E_IO, path, 1, 0,
                      "not a ctkgen manifest: the first line must be \"# ctkgen manifest v1\" "
                      "or \"# ctkgen manifest v2\"%s", hint);
        return false;
    }
    /* every path fits in the text it came from */
    if (!(m->paths = malloc(len + 1))) {
        ctk_error_nomem(err);
        return false;
    }
    for (pos = hl, next = m->paths; pos < len;) {
        const char *p = data + pos, *nl = memchr(p, '\n', len - pos);

        line++;
        if (!nl) {
            ctk_error_set(err, CTK_E_IO, path, line, 0,
                          "corrupt manifest line: no newline at the end (truncated?)%s", hint);
            return false;
        }
        if (!manifest_line(path, p, (size_t)(nl - p), v2, line, m, &cap, &next, hint, err))
            return false;
        pos += (size_t)(nl - p) + 1;
    }
    return manifest_sort(path, m, hint, err);
}

/* ---- plan ------------------------------------------------------------------ */

static int outfile_ptr_cmp(const void *x, const void *y)
{
    return strcmp((*(const ctk_outfile_t *const *)x)->relpath,
                  (*(const ctk_outfile_t *const *)y)->relpath);
}

static const ctk_outfile_t *sorted_find(const ctk_outfile_t **files, size_t n, const char *rel)
{
    ctk_outfile_t key;
    const ctk_outfile_t *kp = &key, *const *hit;

    if (n == 0)
        return NULL;
    key.relpath = (char *)rel;
    hit = bsearch(&kp, files, n, sizeof *files, outfile_ptr_cmp);
    return hit ? *hit : NULL;
}

/* Whether set holds rel: through its index when it has one (constant
 * time), else in files, its sorted view. */
static bool outset_holds(const ctk_outset_t *set, const ctk_outfile_t **files, const char *rel)
{
    if (set->index_cap && !set->from_records)
        return set->index[index_slot(set, rel)] != 0;
    return sorted_find(files, set->n, rel) != NULL;
}

static int change_cmp(const void *x, const void *y)
{
    return strcmp(((const ctk_change_t *)x)->relpath, ((const ctk_change_t *)y)->relpath);
}

static bool hash_differs(const char *data, size_t len, const char *hash)
{
    char h[17];

    ctk_hash_hex(data ? data : "", len, h);
    return strcmp(h, hash) != 0;
}

static bool bytes_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

void ctk_plan_free(ctk_plan_t *plan)
{
    size_t i;

    if (!plan)
        return;
    for (i = 0; i < plan->n; i++) {
        free(plan->items[i].relpath);
        free(plan->items[i].old_data);
    }
    free(plan->items);
    free(plan->manifest);
    free(plan->outdir);
    ctk_strlist_fini(&plan->notes);
    free(plan);
}

/* A manifest or pending manifest read from path, as fstat saw it: one
 * another user could have written is taken as absent (*r becomes 0), with
 * a note on the plan saying so.  False only on ENOMEM. */
static bool trust_record(ctk_plan_t *plan, const char *path, const struct stat *st, int *r,
                         ctk_error_t *err)
{
    char why[192], *note;

    if (!foreign(st, why, sizeof why))
        return true;
    *r = 0;
    note = ctk_printf(err, "%s: ignored: %s, so it could have been written by another user and "
                      "decides nothing (ctkgen removes no file on its word); look at it, then "
                      "remove it", path, why);
    return ctk_strlist_take(&plan->notes, note, err);
}

/* Append an item for rel; the caller fills in the rest.  NULL on ENOMEM. */
static ctk_change_t *plan_add(ctk_plan_t *plan, const char *rel, ctk_error_t *err)
{
    ctk_change_t *c = &plan->items[plan->n];

    memset(c, 0, sizeof *c);
    c->relpath = ctk_strdup(rel, err);
    if (!c->relpath)
        return NULL;
    plan->n++;
    return c;
}

/* Are these bytes what ctkgen last wrote at rel: the manifest's record,
 * or the pending one of a run that was interrupted before it finished? */
static bool ours(const manifest_t *man, const manifest_t *pend, const char *rel, const char *data,
                 size_t len)
{
    const mentry_t *me = manifest_find(man, rel), *pe = manifest_find(pend, rel);

    return (me && !hash_differs(data, len, me->hash)) || (pe && !hash_differs(data, len, pe->hash));
}

/* The manifest of outdir, when one this user can rely on is there: 1 read
 * into *m, 0 none (or one another user could have written), -1 err. */
static int manifest_load(const char *outdir, manifest_t *m, uint64_t *bytes, ctk_error_t *err)
{
    char *path = ctk_path_join(outdir, CTK_MANIFEST_NAME, err), *data = NULL, why[192];
    size_t len = 0;
    struct stat st;
    int outfd, r = -1;

    if (!path)
        return -1;
    outfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (outfd < 0) {
        r = 0;
        goto out;
    }
    r = read_leaf(outfd, CTK_MANIFEST_NAME, path, MAX_FILE_BYTES, &data, &len, &st, err);
    close(outfd);
    if (r == 1 && foreign(&st, why, sizeof why))
        r = 0;
    if (r == 1 && !manifest_parse(path, data, len, m, err))
        r = -1;
    if (r == 1 && bytes)
        *bytes = ctk_write_manifest_hash(data, len);
out:
    free(data);
    free(path);
    return r;
}

/* OUT/rel when m lists it and its bytes hash as m records: 1 with *data
 * (caller frees) and *len, 0 when not (not listed, absent, changed, not a
 * regular file, unreadable), -1 with err for want of memory alone. */
static int read_recorded(const manifest_t *m, const char *outdir, const char *rel, char **data,
                         size_t *len, ctk_error_t *err)
{
    const mentry_t *me = manifest_find(m, rel);
    ctk_error_t e;
    int got;

    *data = NULL;
    *len = 0;
    if (!me)
        return 0;
    ctk_error_init(&e);
    got = ctk_write_read(outdir, rel, MAX_FILE_BYTES, data, len, &e);
    if (got < 0 && e.code == CTK_E_NOMEM) {
        if (err && !ctk_error_is_set(err))
            *err = e;
        return -1;
    }
    if (got == 1 && !hash_differs(*data, *len, me->hash))
        return 1;
    free(*data);
    *data = NULL;
    *len = 0;
    return 0;
}

int ctk_write_owns(const char *outdir, const char *rel, ctk_error_t *err)
{
    manifest_t man = {NULL, 0, NULL};
    char *data = NULL;
    size_t len = 0;
    ctk_error_t e;
    int r;

    ctk_error_init(&e);
    if (relpath_problem(rel) || (r = manifest_load(outdir, &man, NULL, &e)) == 0)
        return 0;
    /* a manifest or file that cannot be read or parsed says "no"; only
     * want of memory is an error */
    if (r < 0 && e.code == CTK_E_NOMEM) {
        if (err && !ctk_error_is_set(err))
            *err = e;
        manifest_fini(&man);
        return -1;
    }
    r = r < 0 ? 0 : read_recorded(&man, outdir, rel, &data, &len, err);
    free(data);
    manifest_fini(&man);
    return r;
}

struct ctk_records {
    manifest_t m;
    uint64_t bytes; /* ctk_hash_mix of the manifest's bytes; 0 when none was read */
};

ctk_records_t *ctk_write_records(const char *outdir, ctk_error_t *err)
{
    ctk_records_t *rec = calloc(1, sizeof *rec);
    ctk_error_t e;

    if (!rec) {
        ctk_error_nomem(err);
        return NULL;
    }
    ctk_error_init(&e);
    if (manifest_load(outdir, &rec->m, &rec->bytes, &e) < 0) {
        rec->bytes = 0;
        manifest_fini(&rec->m); /* the plan reports a manifest it cannot read */
        if (e.code == CTK_E_NOMEM) {
            *err = e;
            free(rec);
            return NULL;
        }
    }
    return rec;
}

bool ctk_records_find(const ctk_records_t *rec, const char *rel, char hash[17], char input[17])
{
    const mentry_t *me = rec ? manifest_find(&rec->m, rel) : NULL;

    if (!me || !me->input[0])
        return false;
    memcpy(hash, me->hash, 17);
    memcpy(input, me->input, 17);
    return true;
}

int ctk_records_read(const ctk_records_t *rec, const char *outdir, const char *rel, char **data,
                     size_t *len, ctk_error_t *err)
{
    *data = NULL;
    *len = 0;
    if (!rec || relpath_problem(rel))
        return 0;
    return read_recorded(&rec->m, outdir, rel, data, len, err);
}

uint64_t ctk_write_manifest_hash(const char *data, size_t len)
{
    return ctk_hash_mix(CTK_HASH_INIT, data, len) | 1; /* never 0: "none" */
}

uint64_t ctk_records_hash(const ctk_records_t *rec)
{
    return rec ? rec->bytes : 0;
}

size_t ctk_records_count(const ctk_records_t *rec)
{
    return rec ? rec->m.n : 0;
}

bool ctk_records_reuse_all(const ctk_records_t *rec, ctk_outset_t *out, ctk_error_t *err)
{
    size_t i;

    out->from_records = out->n == 0;
    for (i = 0; rec && i < rec->m.n; i++)
        if (!outset_reuse(out, rec->m.v[i].rel, rec->m.v[i].hash, rec->m.v[i].input, true, err))
            return false;
    return true;
}

static uint64_t ident_of(const struct stat *st)
{
    uint64_t v[8] = { (uint64_t)st->st_dev,          (uint64_t)st->st_ino,
                      (uint64_t)st->st_mode,         (uint64_t)st->st_size,
                      (uint64_t)st->st_mtim.tv_sec,  (uint64_t)st->st_mtim.tv_nsec,
                      (uint64_t)st->st_ctim.tv_sec,  (uint64_t)st->st_ctim.tv_nsec };

    return ctk_hash_mix(CTK_HASH_INIT, v, sizeof v) | 1; /* never 0: "none" */
}

/* The identity of OUT/rel, reached as the plan reads (no symlink on the
 * way or at the end); 0 when it is not a regular file there. */
static uint64_t ident_at(dircache_t *dc, int outfd, const char *outdir, const char *rel)
{
    const char *leaf = NULL;
    struct stat st;
    ctk_error_t e;
    size_t stop = 0;
    int dirfd;
    dev_t dev;

    ctk_error_init(&e);
    if (walk_cached(dc, outfd, outdir, rel, false, &dirfd, &dev, &leaf, &stop, &e) != WALK_FOUND ||
        fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return 0;
    return ident_of(&st);
}

static uint64_t fold_ident(uint64_t h, const char *rel, uint64_t ident)
{
    return ctk_hash_mix(ctk_hash_mix(h, rel, strlen(rel)), &ident, sizeof ident);
}

bool ctk_records_identity(const char *outdir, const ctk_records_t *rec, uint64_t *h)
{
    dircache_t dc;
    uint64_t acc, id;
    size_t i;
    int outfd;

    if (!rec || (outfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return false;
    dircache_init(&dc);
    acc = ctk_hash_size(CTK_HASH_INIT, rec->m.n);
    for (i = 0; i < rec->m.n; i++) {
        if (!(id = ident_at(&dc, outfd, outdir, rec->m.v[i].rel)))
            break;
        acc = fold_ident(acc, rec->m.v[i].rel, id);
    }
    dircache_drop(&dc);
    close(outfd);
    *h = acc;
    return i == rec->m.n;
}

/* Sleep until CLOCK_REALTIME_COARSE, which file times follow, has moved
 * past where it is now: at most one of its ticks. */
static void next_tick(void)
{
    struct timespec t0, t, nap = { 0, 500000 };
    int i;

    if (clock_gettime(CLOCK_REALTIME_COARSE, &t0) != 0)
        return;
    for (i = 0; i < 200; i++) {
        nanosleep(&nap, NULL);
        if (clock_gettime(CLOCK_REALTIME_COARSE, &t) != 0 || t.tv_sec != t0.tv_sec ||
            t.tv_nsec != t0.tv_nsec)
            return;
    }
}

bool ctk_plan_identity(const ctk_plan_t *plan, uint64_t *h)
{
    dircache_t dc;
    uint64_t acc, id;
    size_t i, n = 0;
    int outfd;
    bool ok = true;

    for (i = 0; i < plan->n; i++)
        n += plan->items[i].kind != CTK_CHANGE_REMOVE;
    if (ctk_plan_has_changes(plan))
        next_tick();
    if ((outfd = open(plan->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return false;
    dircache_init(&dc);
    acc = ctk_hash_size(CTK_HASH_INIT, n);
    for (i = 0; ok && i < plan->n; i++) {
        const ctk_change_t *c = &plan->items[i];

        if (c->kind == CTK_CHANGE_REMOVE)
            continue;
        id = ident_at(&dc, outfd, plan->outdir, c->relpath);
        /* kept as read: the bytes the plan saw, or nothing is proved */
        ok = id && (c->kind != CTK_CHANGE_SAME || c->seen == id);
        acc = fold_ident(acc, c->relpath, id);
    }
    dircache_drop(&dc);
    close(outfd);
    *h = acc;
    return ok;
}

void ctk_records_free(ctk_records_t *rec)
{
    if (!rec)
        return;
    manifest_fini(&rec->m);
    free(rec);
}

static int mentry_ptr_cmp(const void *x, const void *y)
{
    return strcmp((*(const mentry_t *const *)x)->rel, (*(const mentry_t *const *)y)->rel);
}

/* The manifest text: every file of the outset (sorted) and every kept
 * entry (sorted, none of them in the outset) by path, merged.  Version 2
 * (an inputs column) when any of them has recorded inputs, else 1. */
static void manifest_text(ctk_buf_t *mb, const ctk_outfile_t **files, size_t n,
                          const mentry_t **kept, size_t n_kept)
{
    size_t i = 0, k = 0;
    bool v2 = false;

    for (i = 0; i < n && !v2; i++)
        v2 = files[i]->input[0] != '\0';
    for (k = 0; k < n_kept && !v2; k++)
        v2 = kept[k]->input[0] != '\0';
    ctk_buf_puts(mb, v2 ? MANIFEST_HEADER_V2 : MANIFEST_HEADER);
    for (i = 0, k = 0; i < n || k < n_kept;) {
        const char *hash, *input, *rel;
        char h[17];

        if (k < n_kept && (i == n || strcmp(kept[k]->rel, files[i]->relpath) < 0)) {
            hash = kept[k]->hash;
            input = kept[k]->input;
            rel = kept[k++]->rel;
        } else {
            const ctk_outfile_t *f = files[i++];

            if (!f->reuse[0])
                ctk_hash_hex(f->data ? f->data : "", f->len, h);
            hash = f->reuse[0] ? f->reuse : h;
            input = f->input;
            rel = f->relpath;
        }
        ctk_buf_append(mb, hash, 16);
        ctk_buf_append(mb, " ", 1);
        if (v2) {
            ctk_buf_append(mb, input[0] ? input : NO_INPUT, 16);
            ctk_buf_append(mb, " ", 1);
        }
        ctk_buf_puts(mb, rel);
        ctk_buf_append(mb, "\n", 1);
    }
}

ctk_plan_t *ctk_write_plan(const char *outdir, const ctk_outset_t *set, ctk_error_t *err)
{
    return ctk_write_plan_keep(outdir, set, NULL, err);
}

ctk_plan_t *ctk_write_plan_keep(const char *outdir, const ctk_outset_t *set,
                                const ctk_strlist_t *keep, ctk_error_t *err)
{
    return ctk_write_plan_rec(outdir, set, keep, NULL, err);
}

/* One plan being made: what ctk_write_plan_rec() reads and holds. */
typedef struct {
    const ctk_outset_t *set;
    const ctk_strlist_t *keep;
    ctk_error_t *err;
    ctk_plan_t *plan;
    const ctk_outfile_t **files;   /* set's files, sorted by path */
    const mentry_t **kept;         /* records kept as they were (keep) */
    size_t n_kept;
    manifest_t man, pend;          /* the manifest, the pending one */
    bool have_manifest, borrowed;  /* borrowed: man is rec's, not ours to free */
    char *mpath, *mdata, *ppath, *pdata;
    size_t mlen, plen;
    int outfd;                     /* OUT, or -1 when it does not exist yet */
    dircache_t dc;                 /* the directory of the file read last */
    char prefix[PATH_MAX];
} planner_t;

static bool planner_init(planner_t *pl, const char *outdir, const ctk_outset_t *set, const ctk_strlist_t *keep,
                         ctk_error_t *err)
{
    size_t n = strlen(outdir);

    memset(pl, 0, sizeof *pl);
    pl->set = set;
    pl->keep = keep;
    pl->err = err;
    pl->outfd = -1;
    dircache_init(&pl->dc);
    if (!(pl->plan = calloc(1, sizeof *pl->plan))) {
        ctk_error_nomem(err);
        return false;
    }
    ctk_strlist_init(&pl->plan->notes);
    while (n > 1 && outdir[n - 1] == '/')
        n--;
    return (pl->plan->outdir = ctk_strndup(outdir, n, err)) &&
           (pl->mpath = ctk_path_join(pl->plan->outdir, CTK_MANIFEST_NAME, err));
}

static void planner_fini(planner_t *pl)
{
    dircache_drop(&pl->dc);
    if (pl->outfd >= 0)
        close(pl->outfd);
    if (!pl->borrowed)
        manifest_fini(&pl->man);
    manifest_fini(&pl->pend);
    free(pl->mdata);
    free(pl->mpath);
    free(pl->pdata);
    free(pl->ppath);
    free(pl->files);
    free(pl->kept);
    ctk_plan_free(pl->plan);
}

/* A sorted view of the outset; no path may be both a file and a dir. */
static bool sort_outputs(planner_t *pl)
{
    const ctk_outset_t *set = pl->set;
    size_t i;

    if (!(pl->files = malloc((set->n ? set->n : 1) * sizeof *pl->files))) {
        ctk_error_nomem(pl->err);
        return false;
    }
    for (i = 0; i < set->n; i++)
        pl->files[i] = &set->files[i];
    sort_unless_sorted(pl->files, set->n, sizeof *pl->files, outfile_ptr_cmp);
    for (i = 0; i < set->n && !set->from_records; i++) {
        const char *rel = pl->files[i]->relpath, *s;

        for (s = strchr(rel, '/'); s; s = strchr(s + 1, '/')) {
            /* relpath_problem() has bounded the length by PATH_MAX */
            memcpy(pl->prefix, rel, (size_t)(s - rel));
            pl->prefix[s - rel] = '\0';
            if (outset_holds(set, pl->files, pl->prefix)) {
                ctk_error_set(pl->err, CTK_E_INTERNAL, rel, 0, 0,
                              "output path lies below %s, which is also an output file", pl->prefix);
                return false;
            }
        }
    }
    return true;
}

/* OUT's manifest (rec's parse when it is the same bytes) and an
 * interrupted run's pending manifest, each only when this user could
 * have written it (trust_record). */
static bool read_manifests(planner_t *pl, const ctk_records_t *rec)
{
    ctk_plan_t *plan = pl->plan;
    struct stat st;
    int r;

    pl->outfd = open(plan->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pl->outfd < 0 && errno != ENOENT) {
        ctk_error_set(pl->err, CTK_E_IO, plan->outdir, 0, 0, "cannot open output directory: %s",
                      strerror(errno));
        return false;
    }
    if (pl->outfd < 0)
        return true;
    r = read_leaf(pl->outfd, CTK_MANIFEST_NAME, pl->mpath, MAX_FILE_BYTES, &pl->mdata, &pl->mlen, &st, pl->err);
    if (r < 0 || (r == 1 && !trust_record(plan, pl->mpath, &st, &r, pl->err)))
        return false;
    pl->have_manifest = r == 1;
    if (pl->have_manifest && rec && rec->bytes && ctk_write_manifest_hash(pl->mdata, pl->mlen) == rec->bytes) {
        pl->man = rec->m; /* the same bytes, parsed before: borrowed */
        pl->borrowed = true;
    } else if (pl->have_manifest && !manifest_parse(pl->mpath, pl->mdata, pl->mlen, &pl->man, pl->err)) {
        return false;
    }
    if (!(pl->ppath = ctk_path_join(plan->outdir, CTK_PENDING_NAME, pl->err)))
        return false;
    r = read_leaf(pl->outfd, CTK_PENDING_NAME, pl->ppath, MAX_FILE_BYTES, &pl->pdata, &pl->plen, &st, pl->err);
    if (r < 0 || (r == 1 && !trust_record(plan, pl->ppath, &st, &r, pl->err)))
        return false;
    plan->pending = r == 1;
    return !plan->pending || manifest_parse(pl->ppath, pl->pdata, pl->plen, &pl->pend, pl->err);
}

/* The change for output file f: compared with what is on disk, or, for a
 * file not rendered (f->reuse), checked against its record. */
static bool plan_output(planner_t *pl, const ctk_outfile_t *f)
{
    ctk_plan_t *plan = pl->plan;
    ctk_change_t *c = plan_add(plan, f->relpath, pl->err);
    char where[CTK_ERROR_SOURCE_MAX], *old = NULL;
    size_t oldlen = 0, stop = 0;
    walk_t w;

    if (!c)
        return false;
    c->new_data = f->data;
    c->new_len = f->len;
    if (f->reuse[0] && pl->set->verified && pl->borrowed) {
        c->kind = CTK_CHANGE_SAME; /* proved on disk as recorded: not read */
        return true;
    }
    w = probe(&pl->dc, pl->outfd, plan->outdir, f->relpath, &old, &oldlen, &stop, &c->seen, pl->err);
    if (w == WALK_FAILED) {
        free(old);
        return false;
    }
    if (f->reuse[0]) {
        /* not rendered: right only if the recorded bytes are still there */
        if (w != WALK_FOUND || hash_differs(old, oldlen, f->reuse))
            plan->stale++;
        c->kind = CTK_CHANGE_SAME;
        free(old);
        return true;
    }
    if (w == WALK_NOTDIR) {
        /* a file ctkgen wrote there and no longer produces gives way
         * (apply removes it first); anything else is in the way */
        memcpy(pl->prefix, f->relpath, stop);
        pl->prefix[stop] = '\0';
        if (!manifest_find(&pl->man, pl->prefix) && !manifest_find(&pl->pend, pl->prefix)) {
            ctk_error_set(pl->err, CTK_E_CONFLICT, shown(where, plan->outdir, pl->prefix, stop), 0, 0,
                          "is not a directory, but ctkgen needs one here for %s", f->relpath);
            free(old);
            return false;
        }
        w = WALK_ABSENT;
    }
    if (w == WALK_ABSENT) {
        c->kind = CTK_CHANGE_CREATE;
    } else if (bytes_equal(old, oldlen, f->data, f->len)) {
        c->kind = CTK_CHANGE_SAME;
        free(old);
    } else {
        c->kind = CTK_CHANGE_UPDATE;
        c->conflict = !ours(&pl->man, &pl->pend, f->relpath, old, oldlen);
        c->old_data = old;
        c->old_len = oldlen;
    }
    return true;
}

/* A file the manifest (or the pending one) lists and the outset does not:
 * removed, or kept as it is when keep names it. */
static bool plan_leftover(planner_t *pl, const mentry_t *me)
{
    ctk_change_t *c;
    char *old = NULL;
    size_t oldlen = 0, stop = 0;
    walk_t w = probe(&pl->dc, pl->outfd, pl->plan->outdir, me->rel, &old, &oldlen, &stop, NULL, pl->err);

    if (w != WALK_FOUND) {
        free(old);
        return w != WALK_FAILED; /* else already gone */
    }
    if (pl->keep && ctk_strlist_contains(pl->keep, me->rel)) {
        pl->kept[pl->n_kept++] = me; /* as it is, and recorded as it was */
        free(old);
        return true;
    }
    if (!(c = plan_add(pl->plan, me->rel, pl->err))) {
        free(old);
        return false;
    }
    c->kind = CTK_CHANGE_REMOVE;
    c->conflict = !ours(&pl->man, &pl->pend, me->rel, old, oldlen);
    c->old_data = old;
    c->old_len = oldlen;
    return true;
}

/* Every change: each output file, then what ctkgen wrote before (the
 * manifest, and an interrupted run's pending manifest) and no longer
 * produces. */
static bool plan_changes(planner_t *pl)
{
    const ctk_outset_t *set = pl->set;
    size_t i;

    pl->plan->items = malloc((set->n + pl->man.n + pl->pend.n + 1) * sizeof *pl->plan->items);
    pl->kept = malloc((pl->man.n + pl->pend.n + 1) * sizeof *pl->kept);
    if (!pl->plan->items || !pl->kept) {
        ctk_error_nomem(pl->err);
        return false;
    }
    for (i = 0; i < set->n; i++)
        if (!plan_output(pl, pl->files[i]))
            return false;
    /* an outset of exactly the manifest's files (the same manifest, taken
       whole) leaves none of them out */
    for (i = set->from_records && pl->borrowed ? pl->man.n : 0; i < pl->man.n + pl->pend.n; i++) {
        const mentry_t *me = i < pl->man.n ? &pl->man.v[i] : &pl->pend.v[i - pl->man.n];

        if (outset_holds(set, pl->files, me->rel))
            continue;
        if (i >= pl->man.n && manifest_find(&pl->man, me->rel))
            continue; /* listed in both: seen already */
        if (!plan_leftover(pl, me))
            return false;
    }
    sort_unless_sorted(pl->plan->items, pl->plan->n, sizeof *pl->plan->items, change_cmp);
    return true;
}

/* The new manifest's text, and whether it differs from the one on disk. */
static bool plan_manifest(planner_t *pl)
{
    ctk_plan_t *plan = pl->plan;
    const ctk_outset_t *set = pl->set;
    ctk_buf_t mb;

    if (pl->n_kept > 1)
        qsort(pl->kept, pl->n_kept, sizeof *pl->kept, mentry_ptr_cmp);
    ctk_buf_init(&mb);
    if (set->from_records && set->verified && pl->borrowed && pl->n_kept == 0)
        /* the same files with the same records: the manifest as it is (a
           run of this build wrote it, so it is what manifest_text gives) */
        ctk_buf_append(&mb, pl->mdata, pl->mlen);
    else
        manifest_text(&mb, pl->files, set->n, pl->kept, pl->n_kept);
    if (mb.failed) {
        ctk_buf_fini(&mb);
        ctk_error_nomem(pl->err);
        return false;
    }
    plan->manifest = ctk_buf_take(&mb, &plan->manifest_len);
    plan->manifest_changed = plan->pending || !pl->have_manifest ||
                             !bytes_equal(pl->mdata, pl->mlen, plan->manifest, plan->manifest_len);
    return true;
}

ctk_plan_t *ctk_write_plan_rec(const char *outdir, const ctk_outset_t *set,
                               const ctk_strlist_t *keep, const ctk_records_t *rec,
                               ctk_error_t *err)
{
    planner_t pl;
    ctk_plan_t *res = NULL;

    if (planner_init(&pl, outdir, set, keep, err) && sort_outputs(&pl) && read_manifests(&pl, rec) &&
        plan_changes(&pl) &&
        /* temp files apply will leave alone, said now */
        (pl.outfd < 0 || sweep_tmp(pl.outfd, pl.plan, false, &pl.plan->notes, err)) && plan_manifest(&pl)) {
        res = pl.plan;
        pl.plan = NULL;
    }
    planner_fini(&pl);
    return res;
}

void ctk_plan_counts(const ctk_plan_t *plan, size_t *created, size_t *updated,
                     size_t *removed, size_t *same, size_t *conflicts)
{
    size_t c[4] = {0, 0, 0, 0}, nconf = 0, i;

    for (i = 0; plan && i < plan->n; i++) {
        c[plan->items[i].kind]++;
        if (plan->items[i].conflict && plan->items[i].kind != CTK_CHANGE_SAME)
            nconf++;
    }
    if (created)
        *created = c[CTK_CHANGE_CREATE];
    if (updated)
        *updated = c[CTK_CHANGE_UPDATE];
    if (removed)
        *removed = c[CTK_CHANGE_REMOVE];
    if (same)
        *same = c[CTK_CHANGE_SAME];
    if (conflicts)
        *conflicts = nconf;
}

bool ctk_plan_has_changes(const ctk_plan_t *plan)
{
    size_t i;

    for (i = 0; plan && i < plan->n; i++)
        if (plan->items[i].kind != CTK_CHANGE_SAME)
            return true;
    return false;
}

/* A stale plan holds files that were not rendered and are not on disk as
 * recorded: what they should become is unknown, so it is never shown or
 * carried out. */
static bool plan_whole(const ctk_plan_t *plan, ctk_error_t *err)
{
    if (plan->stale == 0)
        return true;
    ctk_error_set(err, CTK_E_INTERNAL, plan->outdir, 0, 0,
                  "%zu reused file(s) are not on disk as the manifest records: render them and "
                  "plan again", plan->stale);
    return false;
}

char *ctk_plan_diff(const ctk_plan_t *plan, ctk_error_t *err)
{
    ctk_buf_t out;
    char *res = NULL, *alabel = NULL, *blabel = NULL, *d = NULL;
    size_t i;

    if (!plan_whole(plan, err))
        return NULL;
    ctk_buf_init(&out);
    for (i = 0; i < plan->n; i++) {
        const ctk_change_t *c = &plan->items[i];

        if (c->kind == CTK_CHANGE_SAME)
            continue;
        alabel = c->kind == CTK_CHANGE_CREATE ? ctk_strdup("/dev/null", err)
                                              : ctk_printf(err, "a/%s", c->relpath);
        blabel = c->kind == CTK_CHANGE_REMOVE ? ctk_strdup("/dev/null", err)
                                              : ctk_printf(err, "b/%s", c->relpath);
        if (!alabel || !blabel)
            goto out;
        d = ctk_diff_unified(alabel, c->old_data, c->old_len, blabel,
                             c->kind == CTK_CHANGE_REMOVE ? NULL : c->new_data,
                             c->kind == CTK_CHANGE_REMOVE ? 0 : c->new_len, err);
        if (!d)
            goto out;
        if (c->conflict)
            ctk_buf_printf(&out, "# conflict: %s edited by hand (or not written by ctkgen)\n",
                           c->relpath);
        ctk_buf_puts(&out, d);
        free(d);
        free(alabel);
        free(blabel);
        d = alabel = blabel = NULL;
    }
    if (out.failed) {
        ctk_error_nomem(err);
        goto out;
    }
    res = ctk_buf_take(&out, NULL);
    if (!res)
        ctk_error_nomem(err);
out:
    free(d);
    free(alabel);
    free(blabel);
    ctk_buf_fini(&out);
    return res;
}

/* ---- apply ----------------------------------------------------------------- */


/* ".<leaf>.ctkgen-tmp-XXXXXX": hidden, recognisable, unpredictable enough;
 * O_EXCL makes it safe whatever the name. */
static void tmp_name(char out[NAME_MAX + 1], const char *leaf)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned long counter;
    struct timespec ts;
    uint64_t x = 14695981039346656037ULL;
    uint64_t parts[3];
    char suffix[7];
    size_t i, room = NAME_MAX - 1 - strlen(TMP_TAG) - 6;
    int j;

    clock_gettime(CLOCK_REALTIME, &ts);
    parts[0] = (uint64_t)getpid();
    parts[1] = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
    parts[2] = ++counter;
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 8; j++) {
            x ^= (parts[i] >> (8 * j)) & 0xff;
            x *= 1099511628211ULL;
        }
    }
    for (i = 0; i < 6; i++) {
        suffix[i] = abc[x % (sizeof abc - 1)];
        x /= sizeof abc - 1;
    }
    suffix[6] = '\0';
    {
        size_t ll = strnlen(leaf, room), tl = strlen(TMP_TAG);

        out[0] = '.';
        memcpy(out + 1, leaf, ll);
        memcpy(out + 1 + ll, TMP_TAG, tl);
        memcpy(out + 1 + ll + tl, suffix, 7);
    }
}

/* Write data to a new temp file beside leaf in dirfd (mode 0644), and
 * fsync it when durable is set (else the caller syncs it before renaming
 * it: sync_staged); its name goes to tmp.  On failure no temp file is
 * left. */
static bool write_temp(int dirfd, const char *leaf, const char *path, const char *data,
                       size_t len, bool durable, char tmp[NAME_MAX + 1], ctk_error_t *err)
{
    bool ok = false;
    int fd = -1, tries;

    for (tries = 0; tries < 100; tries++) {
        tmp_name(tmp, leaf);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot create a temporary file next to it: %s",
                      strerror(errno));
        tmp[0] = '\0';
        return false;
    }
    if (!ctk_write_all(fd, data ? data : "", len)) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot write: %s", strerror(errno));
        goto out;
    }
    if (fchmod(fd, 0644) < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot set mode: %s", strerror(errno));
        goto out;
    }
    if (durable && fsync(fd) < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot write (fsync): %s", strerror(errno));
        goto out;
    }
    ok = true;
out:
    if (close(fd) < 0 && ok) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot write (close): %s", strerror(errno));
        ok = false;
    }
    if (!ok) {
        unlinkat(dirfd, tmp, 0);
        tmp[0] = '\0';
    }
    return ok;
}

/* Rename tmp (whose bytes are durable already) over leaf in dirfd, and
 * sync the directory when sync_dir is set (else the caller's directory
 * pass does: sync_dirs).  If the rename fails, tmp is removed and leaf is
 * as it was. */
static bool commit_temp(int dirfd, const char *tmp, const char *leaf, const char *path,
                        bool sync_dir, ctk_error_t *err)
{
    if (renameat(dirfd, tmp, dirfd, leaf) < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot replace: %s", strerror(errno));
        unlinkat(dirfd, tmp, 0);
        return false;
    }
    if (sync_dir && fsync_dir(dirfd) < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot sync its directory: %s",
                      strerror(errno));
        return false;
    }
    return true;
}

/* Replace leaf in dirfd with data: temp file, fsync, rename, fsync of the
 * directory.  On failure the temp file is gone and leaf is as it was. */
static bool write_atomic(int dirfd, const char *leaf, const char *path, const char *data,
                         size_t len, ctk_error_t *err)
{
    char tmp[NAME_MAX + 1];

    return write_temp(dirfd, leaf, path, data, len, true, tmp, err) &&
           commit_temp(dirfd, tmp, leaf, path, true, err);
}

bool ctk_write_file_atomic(const char *path, const char *data, size_t len, ctk_error_t *err)
{
    const char *slash = strrchr(path, '/');
    const char *leaf = slash ? slash + 1 : path;
    char *dir;
    bool ok;
    int dfd;

    if (!*leaf) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "not a file name");
        return false;
    }
    dir = !slash ? ctk_strdup(".", err)
          : slash == path ? ctk_strdup("/", err)
                          : ctk_strndup(path, (size_t)(slash - path), err);
    if (!dir)
        return false;
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (dfd < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot open its directory: %s", strerror(errno));
        return false;
    }
    ok = write_atomic(dfd, leaf, path, data, len, err);
    close(dfd);
    return ok;
}

/* Remove the temp files of name in dirfd that an interrupted write left
 * (".<name>" TMP_TAG "XXXXXX"); best effort. */
static void drop_temps_of(int dirfd, const char *name)
{
    char prefix[NAME_MAX + 1];
    struct dirent *e;
    size_t pl;
    DIR *d;
    int fd = dup(dirfd);

    if (fd < 0)
        return;
    if (!(d = fdopendir(fd))) {
        close(fd);
        return;
    }
    pl = (size_t)snprintf(prefix, sizeof prefix, ".%s%s", name, TMP_TAG);
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, pl) == 0 && strlen(e->d_name) == pl + 6)
            (void)unlinkat(dirfd, e->d_name, 0);
    closedir(d);
}

bool ctk_write_cache_file(const char *outdir, const char *name, const char *data, size_t len,
                          ctk_error_t *err)
{
    char tmp[NAME_MAX + 1], *path = ctk_path_join(outdir, name, err);
    bool ok = false;
    int dfd;

    if (!path)
        return false;
    dfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        ctk_error_set(err, CTK_E_IO, outdir, 0, 0, "cannot open: %s", strerror(errno));
        free(path);
        return false;
    }
    drop_temps_of(dfd, name);
    ok = write_temp(dfd, name, path, data, len, false, tmp, err) &&
         commit_temp(dfd, tmp, name, path, false, err);
    close(dfd);
    free(path);
    return ok;
}

static bool apply_write(int outfd, const char *outdir, const ctk_change_t *c, ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];
    const char *leaf = NULL;
    size_t stop = 0;
    int dirfd = -1;
    bool ok = false;
    walk_t w;

    w = walk(outfd, outdir, c->relpath, true, &dirfd, &leaf, &stop, err);
    if (w == WALK_NOTDIR || w == WALK_ABSENT)
        ctk_error_set(err, CTK_E_CONFLICT, shown(where, outdir, c->relpath, stop), 0, 0,
                      "is not a directory, but ctkgen needs one here for %s", c->relpath);
    if (w != WALK_FOUND)
        goto out;
    ok = write_atomic(dirfd, leaf, shown(where, outdir, c->relpath, strlen(c->relpath)),
                      c->new_data, c->new_len, err);
out:
    if (dirfd >= 0)
        close(dirfd);
    return ok;
}

/* Remove rel, then the marker staged beside it (if any).  The directory is
 * synced by apply's directory pass (sync_dirs). */
static bool apply_remove(int outfd, const char *outdir, const char *rel, const char *marker,
                         ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];
    const char *leaf = NULL;
    size_t stop = 0;
    int dirfd = -1;
    bool ok = false;
    walk_t w;

    w = walk(outfd, outdir, rel, false, &dirfd, &leaf, &stop, err);
    if (w == WALK_FAILED)
        goto out;
    if (w == WALK_FOUND) {
        /* unlinkat never follows: a symlink put here since the plan is
         * itself removed, not its target */
        if (unlinkat(dirfd, leaf, 0) < 0 && errno != ENOENT) {
            ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, strlen(rel)), 0, 0,
                          "cannot remove: %s", strerror(errno));
            goto out;
        }
        if (marker && *marker)
            unlinkat(dirfd, marker, 0);
    }
    ok = true;
out:
    if (dirfd >= 0)
        close(dirfd);
    return ok;
}

/* Remove the directories above rel that are empty now, deepest first, up
 * to but not including OUT; their parents are synced by apply's directory
 * pass (sync_dirs).  It runs once files have changed: it must not
 * allocate, or running out of memory would leave the tree half done. */
static bool prune_dirs(int outfd, const char *outdir, const char *rel, ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX], dir[PATH_MAX], *slash;
    bool ok = false;

    /* relpath_problem() has bounded rel by PATH_MAX */
    snprintf(dir, sizeof dir, "%s", rel);
    while ((slash = strrchr(dir, '/'))) {
        const char *leaf = NULL;
        size_t stop = 0;
        int dirfd = -1;
        walk_t w;
        int r;

        *slash = '\0';
        w = walk(outfd, outdir, dir, false, &dirfd, &leaf, &stop, err);
        if (w == WALK_FAILED)
            goto out;
        if (w != WALK_FOUND)
            break;
        r = unlinkat(dirfd, leaf, AT_REMOVEDIR);
        close(dirfd);
        if (r < 0) {
            int e = errno;

            if (e == ENOTEMPTY || e == EEXIST || e == ENOENT || e == ENOTDIR || e == EBUSY)
                break;
            ctk_error_set(err, CTK_E_IO, shown(where, outdir, dir, strlen(dir)), 0, 0,
                          "cannot remove empty directory: %s", strerror(e));
            goto out;
        }
    }
    ok = true;
out:
    return ok;
}

/* ---- two stages ------------------------------------------------------------ */

/* What the first stage of apply leaves for the second, per plan item: a
 * temp file beside the item's path holding its new bytes, or, beside a
 * file to be removed, an empty one that proves the directory can be
 * changed. */
typedef struct {
    char tmp[NAME_MAX + 1]; /* "" when nothing is staged (any more) */
    bool deferred;          /* a file this run removes stands where a directory is needed */
    dev_t dev;              /* the file system tmp is on */
} stage_t;

static bool is_write(const ctk_change_t *c)
{
    return c->kind == CTK_CHANGE_CREATE || c->kind == CTK_CHANGE_UPDATE;
}

/* Whether the plan removes the file at rel[0..len). */
static bool plan_removes(const ctk_plan_t *plan, const char *rel, size_t len)
{
    size_t i;

    for (i = 0; i < plan->n; i++)
        if (plan->items[i].kind == CTK_CHANGE_REMOVE && strlen(plan->items[i].relpath) == len &&
            strncmp(plan->items[i].relpath, rel, len) == 0)
            return true;
    return false;
}

/* First stage for one item: create its directories and its temp file. */
static bool stage_item(int outfd, const ctk_plan_t *plan, const ctk_change_t *c, stage_t *st,
                       dircache_t *dc, ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];
    const char *leaf = NULL;
    size_t stop = 0;
    int dirfd = -1;
    bool writing = is_write(c), ok;
    walk_t w;

    st->tmp[0] = '\0';
    st->deferred = false;
    if (!writing && c->kind != CTK_CHANGE_REMOVE)
        return true;
    w = walk_cached(dc, outfd, plan->outdir, c->relpath, writing, &dirfd, &st->dev, &leaf, &stop,
                    err);
    if (w == WALK_NOTDIR && writing && plan_removes(plan, c->relpath, stop)) {
        /* written in the second stage, once that file is gone */
        st->deferred = true;
        return true;
    }
    if (w == WALK_NOTDIR && writing)
        ctk_error_set(err, CTK_E_CONFLICT, shown(where, plan->outdir, c->relpath, stop), 0, 0,
                      "is not a directory, but ctkgen needs one here for %s", c->relpath);
    if (w == WALK_FAILED || (w == WALK_NOTDIR && writing))
        return false;
    if (w != WALK_FOUND) /* nothing left to remove */
        return true;
    ok = writing ? write_temp(dirfd, leaf, NULL, c->new_data, c->new_len, false, st->tmp, err)
                 : write_temp(dirfd, leaf, NULL, "", 0, false, st->tmp, err);
    if (!ok)
        place(err, plan->outdir, c->relpath);
    return ok;
}

/* Second stage for a written item: its temp file takes its place. */
static bool commit_item(int outfd, const ctk_plan_t *plan, const ctk_change_t *c, stage_t *st,
                        dircache_t *dc, ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];
    const char *leaf = NULL;
    size_t stop = 0;
    int dirfd = -1;
    dev_t dev;
    bool ok;

    if (st->deferred)
        return apply_write(outfd, plan->outdir, c, err);
    if (walk_cached(dc, outfd, plan->outdir, c->relpath, false, &dirfd, &dev, &leaf, &stop, err) !=
        WALK_FOUND) {
        ctk_error_set(err, CTK_E_CONFLICT,
                      shown(where, plan->outdir, c->relpath, strlen(c->relpath)), 0, 0,
                      "its directory went away while ctkgen ran");
        return false;
    }
    ok = commit_temp(dirfd, st->tmp, leaf, NULL, false, err);
    if (!ok)
        place(err, plan->outdir, c->relpath);
    st->tmp[0] = '\0';
    return ok;
}

/* After a failure: remove every temp file still staged (the caller's
 * pending and manifest ones too), and, when the second stage never began,
 * the directories the first stage made that are empty again.  Best effort,
 * and it allocates nothing. */
static void unstage(int outfd, const ctk_plan_t *plan, stage_t *stages, size_t n,
                    const char *ptmp, const char *mtmp, bool prune)
{
    size_t i;

    if (*ptmp)
        unlinkat(outfd, ptmp, 0);
    if (*mtmp)
        unlinkat(outfd, mtmp, 0);
    for (i = 0; i < n; i++) {
        const char *rel = plan->items[i].relpath, *leaf = NULL;
        size_t stop = 0;
        int dirfd = -1;

        if (stages[i].tmp[0] &&
            walk(outfd, plan->outdir, rel, false, &dirfd, &leaf, &stop, NULL) == WALK_FOUND) {
            unlinkat(dirfd, stages[i].tmp, 0);
            stages[i].tmp[0] = '\0';
        }
        if (dirfd >= 0)
            close(dirfd);
        if (prune && is_write(&plan->items[i]))
            prune_dirs(outfd, plan->outdir, rel, NULL);
    }
    fsync_dir(outfd);
}

/* ---- durability ------------------------------------------------------------ */

/* How many file systems sync_staged remembers having synced; temp files on
 * more (mount points inside OUT) get a syncfs each time one is met. */
#define SYNCED_FS_MAX 8

/* Make the bytes of every temp file the first stage wrote (those of the
 * n stages, and the pending and manifest ones beside OUT) durable before
 * any of them is renamed into place: one syncfs() per file system they
 * lie on, OUT's first (almost always the only one), rather than an fsync
 * per file.  syncfs also writes back what else is dirty on that file
 * system; a sync call of its own per file commits the journal once per
 * file.  Allocates nothing. */
static bool sync_staged(int outfd, const ctk_plan_t *plan, const stage_t *stages, size_t n,
                        ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX];
    dev_t synced[SYNCED_FS_MAX];
    size_t i, k, nsynced = 0;
    struct stat st;

    if (fstat(outfd, &st) < 0 || syncfs(outfd) < 0) {
        ctk_error_set(err, CTK_E_IO, plan->outdir, 0, 0, "cannot write (syncfs): %s",
                      strerror(errno));
        return false;
    }
    synced[nsynced++] = st.st_dev;
    for (i = 0; i < n; i++) {
        const char *rel = plan->items[i].relpath, *leaf = NULL;
        size_t stop = 0;
        int dirfd = -1, r;

        if (!stages[i].tmp[0])
            continue;
        for (k = 0; k < nsynced && synced[k] != stages[i].dev; k++)
            ;
        if (k < nsynced)
            continue;
        if (walk(outfd, plan->outdir, rel, false, &dirfd, &leaf, &stop, err) != WALK_FOUND) {
            ctk_error_set(err, CTK_E_CONFLICT, shown(where, plan->outdir, rel, strlen(rel)), 0,
                          0, "its directory went away while ctkgen ran");
            if (dirfd >= 0)
                close(dirfd);
            return false;
        }
        r = syncfs(dirfd);
        close(dirfd);
        if (r < 0) {
            ctk_error_set(err, CTK_E_IO, shown(where, plan->outdir, rel, strlen(rel)), 0, 0,
                          "cannot write (syncfs): %s", strerror(errno));
            return false;
        }
        if (nsynced < SYNCED_FS_MAX)
            synced[nsynced++] = stages[i].dev;
    }
    return true;
}

/* Sync OUT/rel[0..dl), a directory; one that is gone (pruned) is skipped. */
static bool sync_dir_at(int outfd, const char *outdir, const char *rel, size_t dl,
                        ctk_error_t *err)
{
    char where[CTK_ERROR_SOURCE_MAX], dir[PATH_MAX];
    const char *leaf = NULL;
    size_t stop = 0;
    int dirfd = -1;
    bool ok = true;
    walk_t w;

    /* "a/b/": walk opens a, then b, and leaves an empty leaf */
    memcpy(dir, rel, dl + 1);
    dir[dl + 1] = '\0';
    w = walk(outfd, outdir, dir, false, &dirfd, &leaf, &stop, err);
    if (w == WALK_FAILED)
        return false;
    if (w == WALK_FOUND && fsync_dir(dirfd) < 0) {
        ctk_error_set(err, CTK_E_IO, shown(where, outdir, rel, dl), 0, 0,
                      "cannot sync directory: %s", strerror(errno));
        ok = false;
    }
    if (dirfd >= 0)
        close(dirfd);
    return ok;
}

/* Sync, once each, OUT and every directory above a file the plan writes or
 * removes: the renames, the removals and the directories made or pruned
 * in them become durable together, before the manifest says the tree is
 * done.  The items are sorted, so the files below one directory are
 * neighbours: a directory is synced for the first changed file below it.
 * Allocates nothing. */
static bool sync_dirs(int outfd, const ctk_plan_t *plan, ctk_error_t *err)
{
    const char *prev = NULL, *rel, *slash;
    size_t i, dl;

    if (fsync_dir(outfd) < 0) {
        ctk_error_set(err, CTK_E_IO, plan->outdir, 0, 0, "cannot sync directory: %s",
                      strerror(errno));
        return false;
    }
    for (i = 0; i < plan->n; i++) {
        if (plan->items[i].kind == CTK_CHANGE_SAME)
            continue;
        rel = plan->items[i].relpath;
        for (slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
            dl = (size_t)(slash - rel);
            if (prev && strncmp(prev, rel, dl + 1) == 0)
                continue; /* synced for the changed file before */
            if (!sync_dir_at(outfd, plan->outdir, rel, dl, err))
                return false;
        }
        prev = rel;
    }
    return true;
}

/* CTK_E_CONFLICT naming the first few conflicting paths. */
static void conflict_error(const ctk_plan_t *plan, size_t nconf, ctk_error_t *err)
{
    const ctk_change_t *first = NULL;
    ctk_buf_t b;
    size_t i, named = 0;

    ctk_buf_init(&b);
    for (i = 0; i < plan->n; i++) {
        const ctk_change_t *c = &plan->items[i];

        if (!c->conflict || c->kind == CTK_CHANGE_SAME)
            continue;
        if (!first)
            first = c;
        if (named < CONFLICTS_SHOWN) {
            ctk_buf_printf(&b, "%s%s", named ? ", " : "", c->relpath);
            named++;
        }
    }
    if (!first || b.failed)
        ctk_error_set(err, CTK_E_CONFLICT, plan->outdir, 0, 0,
                      "files were edited by hand; use --force to overwrite");
    else if (nconf == 1 && first->kind == CTK_CHANGE_REMOVE)
        ctk_error_set(err, CTK_E_CONFLICT, plan->outdir, 0, 0,
                      "%s was edited by hand and ctkgen no longer generates it; "
                      "use --force to remove it", first->relpath);
    else if (nconf == 1)
        ctk_error_set(err, CTK_E_CONFLICT, plan->outdir, 0, 0,
                      "%s was edited by hand (or not written by ctkgen); "
                      "use --force to overwrite", first->relpath);
    else if (nconf > named)
        ctk_error_set(err, CTK_E_CONFLICT, plan->outdir, 0, 0,
                      "%zu files were edited by hand (or not written by ctkgen): %s and %zu "
                      "more; use --force to overwrite", nconf, b.data, nconf - named);
    else
        ctk_error_set(err, CTK_E_CONFLICT, plan->outdir, 0, 0,
                      "%zu files were edited by hand (or not written by ctkgen): %s; "
                      "use --force to overwrite", nconf, b.data);
    ctk_buf_fini(&b);
}

bool ctk_plan_allowed(const ctk_plan_t *plan, bool force, ctk_error_t *err)
{
    size_t nconf = 0;

    if (!plan_whole(plan, err))
        return false;
    ctk_plan_counts(plan, NULL, NULL, NULL, NULL, &nconf);
    if (nconf > 0 && !force) {
        conflict_error(plan, nconf, err);
        return false;
    }
    return true;
}

/* Termination signals wait while the tree is being changed. */
static void hold_signals(sigset_t *saved)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, saved);
}

static void release_signals(const sigset_t *saved)
{
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static bool is_tmp_name(const char *name)
{
    const char *tag = strstr(name, TMP_TAG);

    return name[0] == '.' && tag && strlen(tag) == strlen(TMP_TAG) + 6;
}

/* The temp files a killed run left in OUT and in every directory the plan
 * touches: removed when remove is set (the caller holds the lock, so no
 * live run owns them), else only looked at.  A temp file another user
 * could have made (foreign()) is left alone, and named in notes when
 * notes is not NULL.  Best effort: a temp file that stays is harmless.
 * Only running out of memory fails (CTK_E_NOMEM): nothing else would go
 * well after it, and no file of the tree has changed yet.  dir is the
 * directory's path relative to OUT, dl bytes long (0: OUT itself). */
static bool sweep_dir(int dirfd, const char *outdir, const char *dir, size_t dl, bool remove,
                      ctk_strlist_t *notes, ctk_error_t *err)
{
    int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *e;
    struct stat st;
    char why[192] = "", where[CTK_ERROR_SOURCE_MAX];
    bool ok = true;

    if (!d) {
        bool nomem = errno == ENOMEM;

        if (fd >= 0)
            close(fd);
        if (nomem)
            ctk_error_nomem(err);
        return !nomem;
    }
    while (ok && (e = readdir(d))) {
        int tfd;
        bool theirs;

        if (!is_tmp_name(e->d_name))
            continue;
        /* O_PATH: fstat sees the entry itself (a link, a FIFO) and opens nothing */
        tfd = openat(dirfd, e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (tfd < 0)
            continue;
        theirs = fstat(tfd, &st) < 0 || foreign(&st, why, sizeof why);
        close(tfd);
        if (!theirs) {
            if (remove)
                unlinkat(dirfd, e->d_name, 0);
            continue;
        }
        if (!notes)
            continue;
        if (dl)
            snprintf(where, sizeof where, "%s/%.*s/%s", outdir, (int)dl, dir, e->d_name);
        else
            snprintf(where, sizeof where, "%s/%s", outdir, e->d_name);
        ok = ctk_strlist_take(notes,
                              ctk_printf(err, "%s: left alone: %s; a temporary file ctkgen "
                                         "did not make is not its to remove", where,
                                         why[0] ? why : "cannot be examined"),
                              err);
        why[0] = '\0';
    }
    closedir(d);
    return ok;
}

static bool sweep_tmp(int outfd, const ctk_plan_t *plan, bool remove, ctk_strlist_t *notes,
                      ctk_error_t *err)
{
    const char *last = NULL;
    size_t i, lastlen = 0;

    if (!sweep_dir(outfd, plan->outdir, "", 0, remove, notes, err))
        return false;
    for (i = 0; i < plan->n; i++) {
        const char *rel = plan->items[i].relpath, *slash = strrchr(rel, '/');
        const char *leaf = NULL;
        size_t stop = 0, dl = slash ? (size_t)(slash - rel) : 0;
        int dirfd = -1;

        if (!slash || (last && dl == lastlen && strncmp(rel, last, dl) == 0))
            continue; /* OUT itself, or the same dir as the item before (sorted) */
        last = rel;
        lastlen = dl;
        if (walk(outfd, plan->outdir, rel, false, &dirfd, &leaf, &stop, NULL) == WALK_FOUND &&
            !sweep_dir(dirfd, plan->outdir, rel, dl, remove, notes, err)) {
            close(dirfd);
            return false;
        }
        if (dirfd >= 0)
            close(dirfd);
    }
    return true;
}

/* Two stages.  The first puts every new byte in a temp file beside its
 * place (and an empty one beside each file to be removed): a full disk, a
 * read-only file system or a directory ctkgen may not write stops the run
 * there, and the temp files and new directories are taken away again, so
 * the tree is as it was.  It ends with one syncfs (sync_staged): every
 * temp file's bytes are durable before any is renamed.  The second only
 * renames and removes, which needs no room; it starts by putting the
 * pending manifest in place (synced), so a run killed or a machine that
 * loses power from then on is finished or rolled back by the next run.
 * After the renames, removals and prunes, each directory they touched is
 * synced once (sync_dirs); only then is the manifest renamed into place
 * (synced) and the pending one removed (synced).  Sync calls: one syncfs
 * and four of OUT, plus one per directory with a changed file below it,
 * however many files change. */
/* One apply in progress: what unstage() needs to undo it. */
typedef struct {
    const ctk_plan_t *plan;
    ctk_error_t *err;
    char *mpath, *ppath;
    char ptmp[NAME_MAX + 1], mtmp[NAME_MAX + 1]; /* the pending and new manifest's temps */
    stage_t *stages;
    size_t staged;                               /* items staged so far */
    bool changes, second;                        /* second: the renames have begun */
    int outfd;
    dircache_t dc;
} applier_t;

/* Every allocation (here, in mkdir_p and in sweep_tmp) comes before the
 * first file is written: from there on nothing fails for want of memory,
 * so running out leaves the tree as it was. */
static bool apply_prepare(applier_t *ap)
{
    const ctk_plan_t *plan = ap->plan;

    if (!(ap->mpath = ctk_path_join(plan->outdir, CTK_MANIFEST_NAME, ap->err)) ||
        !(ap->ppath = ctk_path_join(plan->outdir, CTK_PENDING_NAME, ap->err)))
        return false;
    if (plan->n > 0 && !(ap->stages = calloc(plan->n, sizeof *ap->stages))) {
        ctk_error_nomem(ap->err);
        return false;
    }
    if (!mkdir_p(plan->outdir, ap->err))
        return false;
    ap->outfd = open(plan->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ap->outfd < 0) {
        ctk_error_set(ap->err, CTK_E_IO, plan->outdir, 0, 0, "cannot open output directory: %s", strerror(errno));
        return false;
    }
    return sweep_tmp(ap->outfd, plan, true, NULL, ap->err);
}

/* The first stage: the pending manifest, every new file and the new
 * manifest as temp files, synced; nothing a user reads has changed. */
static bool apply_stage(applier_t *ap)
{
    const ctk_plan_t *plan = ap->plan;

    if (ap->changes &&
        !write_temp(ap->outfd, CTK_PENDING_NAME, ap->ppath, plan->manifest, plan->manifest_len, false, ap->ptmp,
                    ap->err))
        return false;
    for (ap->staged = 0; ap->staged < plan->n; ap->staged++)
        if (!stage_item(ap->outfd, plan, &plan->items[ap->staged], &ap->stages[ap->staged], &ap->dc, ap->err))
            return false;
    dircache_drop(&ap->dc);
    if (plan->manifest_changed &&
        !write_temp(ap->outfd, CTK_MANIFEST_NAME, ap->mpath, plan->manifest, plan->manifest_len, false, ap->mtmp,
                    ap->err))
        return false;
    return sync_staged(ap->outfd, plan, ap->stages, ap->staged, ap->err);
}

/* tmp (cleared either way) renamed into place as name, synced. */
static bool apply_commit_temp(applier_t *ap, char *tmp, const char *name, const char *path)
{
    bool ok = commit_temp(ap->outfd, tmp, name, path, true, ap->err);

    tmp[0] = '\0';
    return ok;
}

/* The second stage: the pending manifest in place, then the removals (a
 * file ctkgen no longer writes may stand where a directory is needed now),
 * the renames, the emptied directories pruned (only now, so a directory
 * that is written into again is not removed), and each touched directory
 * synced. */
static bool apply_commit(applier_t *ap)
{
    const ctk_plan_t *plan = ap->plan;
    size_t i;

    ap->second = true;
    if (ap->changes && !apply_commit_temp(ap, ap->ptmp, CTK_PENDING_NAME, ap->ppath))
        return false;
    for (i = 0; i < plan->n; i++)
        if (plan->items[i].kind == CTK_CHANGE_REMOVE) {
            if (!apply_remove(ap->outfd, plan->outdir, plan->items[i].relpath, ap->stages[i].tmp, ap->err))
                return false;
            ap->stages[i].tmp[0] = '\0';
        }
    for (i = 0; i < plan->n; i++)
        if (is_write(&plan->items[i]) &&
            !commit_item(ap->outfd, plan, &plan->items[i], &ap->stages[i], &ap->dc, ap->err))
            return false;
    dircache_drop(&ap->dc);
    for (i = 0; i < plan->n; i++)
        if (plan->items[i].kind == CTK_CHANGE_REMOVE &&
            !prune_dirs(ap->outfd, plan->outdir, plan->items[i].relpath, ap->err))
            return false;
    return !ap->changes || sync_dirs(ap->outfd, plan, ap->err);
}

/* The new manifest in place (synced), then the pending one removed (synced). */
static bool apply_finish(applier_t *ap)
{
    if (ap->plan->manifest_changed && !apply_commit_temp(ap, ap->mtmp, CTK_MANIFEST_NAME, ap->mpath))
        return false;
    if (unlinkat(ap->outfd, CTK_PENDING_NAME, 0) == 0) {
        if (fsync_dir(ap->outfd) < 0) {
            ctk_error_set(ap->err, CTK_E_IO, ap->ppath, 0, 0, "cannot sync its directory after removing it: %s",
                          strerror(errno));
            return false;
        }
    } else if (errno != ENOENT) {
        ctk_error_set(ap->err, CTK_E_IO, ap->ppath, 0, 0, "cannot remove: %s", strerror(errno));
        return false;
    }
    return true;
}

bool ctk_write_apply(const ctk_plan_t *plan, bool force, ctk_error_t *err)
{
    sigset_t saved;
    applier_t ap;
    bool ok;

    if (!ctk_plan_allowed(plan, force, err))
        return false;
    memset(&ap, 0, sizeof ap);
    ap.plan = plan;
    ap.err = err;
    ap.changes = ctk_plan_has_changes(plan);
    if (!ap.changes && !plan->manifest_changed) {
        /* nothing to write; a killed run's temp files still go */
        int outfd = open(plan->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        ok = outfd < 0 || sweep_tmp(outfd, plan, true, NULL, err);
        if (outfd >= 0)
            close(outfd);
        return ok;
    }
    ap.outfd = -1;
    dircache_init(&ap.dc);
    hold_signals(&saved);
    ok = apply_prepare(&ap) && apply_stage(&ap) && apply_commit(&ap) && apply_finish(&ap);
    dircache_drop(&ap.dc);
    if (!ok && ap.outfd >= 0)
        unstage(ap.outfd, plan, ap.stages, ap.staged, ap.ptmp, ap.mtmp, !ap.second);
    if (ap.outfd >= 0)
        close(ap.outfd);
    free(ap.stages);
    free(ap.mpath);
    free(ap.ppath);
    release_signals(&saved);
    return ok;
}

/* ---- lock ------------------------------------------------------------------ */

/* The lock file is the runner's alone (mode 0600): flock works on any
 * descriptor, a read-only one too, so whoever can open the file can hold
 * the lock and stall every run.  ctkgen never writes to it: its holder is
 * read from /proc/locks, which names the process that took the lock, not
 * one that merely took it last, and a re-run with nothing to change
 * leaves the file as it was (mtime and all). */
struct ctk_lock {
    int fd;     /* -1: nothing locked (no tree or no lock file yet, or a reader
                 * that may not open the owner's lock) */
    char *note; /* why a reader reads without the lock; NULL otherwise */
};

/* The process holding a flock on the file st describes, from /proc/locks:
 * the first holder's pid (0 when none shows: no /proc, or a holder in
 * another PID namespace) and how many other processes hold it too. */
static long lock_holders(const struct stat *st, size_t *others)
{
    FILE *fp = fopen("/proc/locks", "re");
    char line[256], type[16];
    unsigned maj, mnr;
    unsigned long ino;
    long pid, first = 0;

    *others = 0;
    if (!fp)
        return 0;
    /* "1: FLOCK  ADVISORY  WRITE 4242 fe:00:1234 0 EOF"; a waiter's line
     * has "->" after the number */
    while (fgets(line, sizeof line, fp)) {
        const char *p = strchr(line, ':');

        if (!p)
            continue;
        while (*++p == ' ')
            ;
        if (strncmp(p, "->", 2) == 0 ||
            sscanf(p, "%15s %*s %*s %ld %x:%x:%lu", type, &pid, &maj, &mnr, &ino) != 5 ||
            strcmp(type, "FLOCK") != 0 || maj != major(st->st_dev) ||
            mnr != minor(st->st_dev) || ino != (unsigned long)st->st_ino)
            continue;
        if (first == 0 && pid > 0)
            first = pid;
        else
            (*others)++;
    }
    fclose(fp);
    return first;
}

/* "pid 4242 (ctkgen)", or why the holder cannot be named, into buf. */
static void describe_holder(const struct stat *st, char *buf, size_t size)
{
    char path[64], comm[64] = "";
    size_t others = 0, n;
    long pid = lock_holders(st, &others);
    FILE *fp;

    if (pid <= 0) {
        snprintf(buf, size, "which process holds it cannot be told here (/proc/locks names "
                 "no process of this system for it)");
        return;
    }
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    if ((fp = fopen(path, "re"))) {
        if (!fgets(comm, sizeof comm, fp))
            comm[0] = '\0';
        fclose(fp);
    }
    n = strcspn(comm, "\n");
    comm[n] = '\0';
    if (!comm[0] && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
        snprintf(buf, size, "pid %ld took it and has exited; a process it started holds it now",
                 pid);
    else if (others)
        snprintf(buf, size, "pid %ld%s%s%s and %zu other process%s", pid, comm[0] ? " (" : "",
                 comm, comm[0] ? ")" : "", others, others == 1 ? "" : "es");
    else
        snprintf(buf, size, "pid %ld%s%s%s", pid, comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
}

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* flock(fd, op), waiting as wait_s says (< 0: as long as it takes; 0: not
 * at all; else at most that many seconds).  -1 with errno EWOULDBLOCK when
 * the time is up.  A bounded wait tries again every 10 to 100 ms. */
static int lock_wait(int fd, int op, double wait_s)
{
    double t0 = mono_s(), left, nap = 0.01;
    struct timespec ts;

    if (wait_s < 0) {
        while (flock(fd, op) < 0)
            if (errno != EINTR)
                return -1;
        return 0;
    }
    for (;;) {
        if (flock(fd, op | LOCK_NB) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK)
            return -1;
        left = wait_s - (mono_s() - t0);
        if (left <= 0) {
            errno = EWOULDBLOCK;
            return -1;
        }
        if (nap > left)
            nap = left;
        ts.tv_sec = (time_t)nap;
        ts.tv_nsec = (long)((nap - (double)ts.tv_sec) * 1e9);
        nanosleep(&ts, NULL);
        if (nap < 0.1)
            nap *= 2;
    }
}

/* The lock file in OUT (outfd).  O_CLOEXEC: probes and compilers we start
 * must not inherit the lock.  O_NONBLOCK: a FIFO planted at the lock's
 * name must not hang us.  A reader opens the lock file read-only and never
 * creates it: a tree on a read-only file system, or one no run has locked,
 * can be read.  A writer makes it 0600 whatever the umask (*created). */
static int open_lock_file(int outfd, bool shared, bool *created)
{
    int fd;

    *created = false;
    if (shared)
        return openat(outfd, CTK_LOCK_NAME, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    fd = openat(outfd, CTK_LOCK_NAME, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    *created = fd >= 0;
    if (fd < 0 && errno == EEXIST)
        fd = openat(outfd, CTK_LOCK_NAME, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    return fd;
}

/* Why the lock file could not be opened (e, an errno).  A reader goes on
 * without a lock it has no right to open: true, with *note saying so.
 * Otherwise false with err. */
static bool lock_unopened(int outfd, const char *path, bool shared, int e, char **note, ctk_error_t *err)
{
    char owner[64], me[64];
    struct stat st;

    if (e == ELOOP) {
        ctk_error_set(err, CTK_E_CONFLICT, path, 0, 0,
                      "is a symlink; ctkgen does not follow symlinks inside the output directory");
        return false;
    }
    if (e != EACCES || fstatat(outfd, CTK_LOCK_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot open lock file: %s", strerror(e));
        return false;
    }
    user_name(st.st_uid, owner, sizeof owner);
    user_name(geteuid(), me, sizeof me);
    if (shared) {
        /* the lock of the tree's writer, which only it may open: read
         * without it (each file is whole; the set may be mixed if a run
         * writes meanwhile) rather than not at all */
        *note = ctk_printf(err, "%s belongs to %s (mode %04o), so %s cannot take it: reading the tree "
                           "without waiting for a run that may be changing it",
                           path, owner, (unsigned)(st.st_mode & 07777), me);
        return *note != NULL;
    }
    ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot open lock file: %s (owner %s, mode %04o: only %s can run "
                  "ctkgen on this tree)", strerror(e), owner, (unsigned)(st.st_mode & 07777), owner);
    return false;
}

/* The lock file (fd, whose stat is *st) is one to use: a regular file; a
 * writer's own, or for a reader also root's or OUT's owner's (outst), the
 * tree's writers; a writer makes it 0600. */
static bool lock_file_usable(int fd, const char *path, bool shared, bool created, const struct stat *outst,
                             struct stat *st, ctk_error_t *err)
{
    char owner[64], me[64];

    if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
        ctk_error_set(err, CTK_E_CONFLICT, path, 0, 0, "is not a regular file");
        return false;
    }
    if (st->st_uid != geteuid() && (!shared || (st->st_uid != 0 && st->st_uid != outst->st_uid))) {
        user_name(st->st_uid, owner, sizeof owner);
        user_name(geteuid(), me, sizeof me);
        ctk_error_set(err, CTK_E_CONFLICT, path, 0, 0,
                      "is owned by %s, not by %s, who runs ctkgen: whoever can open a lock file "
                      "can hold the lock and stall every run, so ctkgen does not use it; look "
                      "at it and remove it (the next run makes its own, mode 0600)", owner, me);
        return false;
    }
    /* a lock file made by an older ctkgen (0644) or under a umask; one
     * another process opened before this still lets it hold the lock:
     * --wait-timeout bounds the wait for it */
    if (!shared && (created || (st->st_mode & 07777) != 0600) && fchmod(fd, 0600) < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot set mode 0600: %s", strerror(errno));
        return false;
    }
    return true;
}

/* flock, waiting wait_s at most; else CTK_E_LOCK naming the holder. */
static bool lock_acquire(int fd, const struct stat *st, bool shared, double wait_s, const char *outdir,
                         const char *path, ctk_error_t *err)
{
    char holder[192];

    if (lock_wait(fd, shared ? LOCK_SH : LOCK_EX, wait_s) == 0)
        return true;
    if (errno != EWOULDBLOCK) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot lock: %s", strerror(errno));
        return false;
    }
    describe_holder(st, holder, sizeof holder);
    if (wait_s > 0)
        ctk_error_set(err, CTK_E_LOCK, outdir, 0, 0, "another process holds %s: %s; gave up after waiting %g s",
                      path, holder, wait_s);
    else
        ctk_error_set(err, CTK_E_LOCK, outdir, 0, 0, "another process holds %s: %s", path, holder);
    return false;
}

static ctk_lock_t *lock_take(const char *outdir, bool shared, double wait_s, ctk_error_t *err)
{
    ctk_lock_t *lock = NULL;
    char *path = NULL, *note = NULL;
    struct stat st, outst;
    int outfd = -1, fd = -1;
    bool created, held = false;

    if ((!shared && !mkdir_p(outdir, err)) || !(path = ctk_path_join(outdir, CTK_LOCK_NAME, err)))
        goto out;
    outfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (outfd < 0 && shared && (errno == ENOENT || errno == ENOTDIR)) {
        held = true; /* no tree yet: nothing to read half-written, nothing to lock */
    } else if (outfd < 0 || fstat(outfd, &outst) < 0) {
        ctk_error_set(err, CTK_E_IO, outdir, 0, 0, "cannot open output directory: %s", strerror(errno));
    } else if ((fd = open_lock_file(outfd, shared, &created)) < 0) {
        held = (shared && errno == ENOENT) || lock_unopened(outfd, path, shared, errno, &note, err);
    } else {
        held = lock_file_usable(fd, path, shared, created, &outst, &st, err) &&
               lock_acquire(fd, &st, shared, wait_s, outdir, path, err);
    }
    if (held && !(lock = malloc(sizeof *lock)))
        ctk_error_nomem(err);
    if (lock) {
        lock->fd = fd;
        lock->note = note;
        fd = -1;
        note = NULL;
    }
out:
    if (fd >= 0)
        close(fd);
    if (outfd >= 0)
        close(outfd);
    free(note);
    free(path);
    return lock;
}

ctk_lock_t *ctk_write_lock(const char *outdir, double wait_s, ctk_error_t *err)
{
    return lock_take(outdir, false, wait_s, err);
}

ctk_lock_t *ctk_write_lock_shared(const char *outdir, double wait_s, ctk_error_t *err)
{
    return lock_take(outdir, true, wait_s, err);
}

const char *ctk_write_lock_note(const ctk_lock_t *lock)
{
    return lock ? lock->note : NULL;
}

void ctk_write_unlock(ctk_lock_t *lock)
{
    if (!lock)
        return;
    if (lock->fd >= 0)
        close(lock->fd);
    free(lock->note);
    free(lock);
}

/* ---- who may not write ------------------------------------------------------- */

/* dir becomes its parent, in place: "/a/b/" -> "/a", "/a" -> "/", "a" -> ".".
 * False when dir is "/" or "." already. */
static bool up_one(char *dir)
{
    size_t n = strlen(dir);
    char *slash;

    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    if (!strcmp(dir, "/") || !strcmp(dir, "."))
        return false;
    slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, 2, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return true;
}

bool ctk_write_denied(const char *path, ctk_denied_t *d)
{
    struct stat st;

    memset(d, 0, sizeof *d);
    if (!*path || (size_t)snprintf(d->dir, sizeof d->dir, "%s", path) >= sizeof d->dir)
        return false;
    /* a file (the lock, a config) is written in its directory; a directory
     * that is not there yet, in the nearest one above it that is */
    while (stat(d->dir, &st) < 0 || !S_ISDIR(st.st_mode))
        if (!up_one(d->dir))
            return false;
    /* the kernel's own check, for the effective user, ACLs included */
    if (faccessat(AT_FDCWD, d->dir, W_OK | X_OK, AT_EACCESS) == 0)
        return false;
    if (errno != EACCES && errno != EPERM && errno != EROFS)
        return false;
    d->why = errno;
    d->uid = (unsigned)geteuid();
    d->owner_uid = (unsigned)st.st_uid;
    d->mode = (unsigned)(st.st_mode & 07777);
    user_name(geteuid(), d->user, sizeof d->user);
    user_name(st.st_uid, d->owner, sizeof d->owner);
    return true;
}
