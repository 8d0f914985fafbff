/* sandbox.c - evaluate code others wrote without root's rights: who, where, and may it.
 * SPDX-License-Identifier: MIT
 *
 * The identity change itself happens in proc.c's child (run_as); this
 * file picks the user, makes and removes the private directories, and
 * judges from owners and modes whether that user can load a file, or
 * whether only root can change it.  Judging by modes is a prediction:
 * an ACL can make it wrong in either direction, and a wrong "readable"
 * only costs a load error from Environment Modules, never root's rights.
 */
#include <ctkconf.h>

#include "sandbox.h"

#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The uid and gid of `nobody` on Debian, Ubuntu, Fedora and RHEL. */
#define FALLBACK_ID 65534
/* Directory levels a run's leftovers are removed to; one descriptor each. */
#define REMOVE_DEPTH 128

enum { MAY_X = 1, MAY_R = 4 };

const char *ctk_sandbox_describe(const ctk_sandbox_t *sb, char *buf, size_t bufsz)
{
    if (!sb->drop)
        snprintf(buf, bufsz, "%s", geteuid() == 0 ? "root" : "the user running ctkgen");
    else if (strcmp(sb->user, "nobody") == 0)
        snprintf(buf, bufsz, "nobody (uid %u)", (unsigned)sb->uid);
    else
        snprintf(buf, bufsz, "%s", sb->user);
    return buf;
}

static const char *owner_name(uid_t uid, char *buf, size_t bufsz)
{
    struct passwd pw, *res = NULL;
    char pwbuf[1024];

    if (getpwuid_r(uid, &pw, pwbuf, sizeof pwbuf, &res) == 0 && res)
        snprintf(buf, bufsz, "%s", pw.pw_name);
    else
        snprintf(buf, bufsz, "uid %u", (unsigned)uid);
    return buf;
}

/* May the sandbox's user do `want` (MAY_R | MAY_X) to st, by its mode bits? */
static bool user_may(const ctk_sandbox_t *sb, const struct stat *st, int want)
{
    int bits;

    if (sb->uid == 0)
        return true;
    if (st->st_uid == sb->uid)
        bits = (int)(st->st_mode >> 6) & 7;
    else if (st->st_gid == sb->gid)
        bits = (int)(st->st_mode >> 3) & 7;
    else
        bits = (int)st->st_mode & 7;
    return (bits & want) == want;
}

static char *deny(const ctk_sandbox_t *sb, const char *path, const struct stat *st, const char *verb,
                  ctk_error_t *err)
{
    char owner[64], who[96];

    return ctk_printf(err, "%s is mode %04o, owner %s: user %s cannot %s it", path, (unsigned)(st->st_mode & 07777),
                      owner_name(st->st_uid, owner, sizeof owner), ctk_sandbox_describe(sb, who, sizeof who),
                      verb);
}

/* One step of walk_may: dir (an ancestor: MAY_X) or the end of the walk (want). */
static bool may_at(const ctk_sandbox_t *sb, const char *path, bool last, int want, char **why, ctk_error_t *err)
{
    struct stat st;
    int need;

    if (stat(path, &st) != 0) {
        *why = ctk_printf(err, "%s: %s", path, strerror(errno));
        return false;
    }
    if (!last) {
        if (user_may(sb, &st, MAY_X))
            return true;
        *why = deny(sb, path, &st, "enter", err);
        return false;
    }
    need = want | (S_ISDIR(st.st_mode) && (want & MAY_R) ? MAY_X : 0);
    if (user_may(sb, &st, need))
        return true;
    *why = deny(sb, path, &st, S_ISDIR(st.st_mode) ? "list" : "read", err);
    return false;
}

/* Check the directories above path for MAY_X ("/", "/a", "/a/b"...) and
 * path itself for want.  path must be absolute and resolved.  false with
 * *why when denied (*why NULL: no memory). */
static bool walk_may(const ctk_sandbox_t *sb, const char *path, int want, char **why, ctk_error_t *err)
{
    char *p = ctk_strdup(path, err);
    size_t len, k;
    bool ok = false;

    *why = NULL;
    if (!p)
        return false;
    len = strlen(p);
    if (len > 1 && !may_at(sb, "/", false, want, why, err))
        goto out;
    for (k = 1; k < len; k++) {
        if (p[k] != '/')
            continue;
        p[k] = '\0';
        ok = may_at(sb, p, false, want, why, err);
        p[k] = '/';
        if (!ok)
            goto out;
    }
    ok = may_at(sb, p, true, want, why, err);
out:
    free(p);
    return ok;
}

/* Call each(dir, ctx, why, err) for every directory strictly between mp and
 * real (both resolved; real below mp), deepest first; false at the first
 * that says no, or when out of memory.  Nothing to do when real is not
 * below mp. */
typedef bool (*dir_check_fn)(const char *dir, const void *ctx, char **why, ctk_error_t *err);

static bool each_dir_between(const char *mp, const char *real, dir_check_fn each, const void *ctx, char **why,
                             ctk_error_t *err)
{
    size_t n = strlen(mp);
    char *dir, *slash;
    bool ok = true;

    if (strncmp(real, mp, n) != 0 || real[n] != '/')
        return true;
    if (!(dir = ctk_strdup(real, err)))
        return false;
    while (ok && (slash = strrchr(dir, '/')) && (size_t)(slash - dir) > n) {
        *slash = '\0';
        ok = each(dir, ctx, why, err);
    }
    free(dir);
    return ok;
}

static bool dir_may_read(const char *dir, const void *ctx, char **why, ctk_error_t *err)
{
    return walk_may(ctx, dir, MAY_R, why, err);
}

bool ctk_sandbox_can_read(const ctk_sandbox_t *sb, const char *path, char **why, ctk_error_t *err)
{
    char *real = ctk_realpath(path);
    bool ok;

    *why = NULL;
    if (!real) {
        *why = ctk_printf(err, "%s: %s", path, strerror(errno));
        return false;
    }
    ok = walk_may(sb, real, MAY_R, why, err);
    free(real);
    return ok;
}

bool ctk_sandbox_can_load(const ctk_sandbox_t *sb, const char *modulepath, const char *file, char **why,
                          ctk_error_t *err)
{
    char *mp = ctk_realpath(modulepath), *real = ctk_realpath(file);
    bool ok = false;

    *why = NULL;
    if (!mp || !real) {
        *why = ctk_printf(err, "%s: %s", !mp ? modulepath : file, strerror(errno));
        goto out;
    }
    if (!walk_may(sb, real, MAY_R, why, err) || !walk_may(sb, mp, MAY_R, why, err))
        goto out;
    /* the directories between modulepath and the file are listed too */
    ok = each_dir_between(mp, real, dir_may_read, sb, why, err);
out:
    free(real);
    free(mp);
    return ok;
}

/* ---- only root can change it ------------------------------------------------ */

static bool root_owned(const char *path, const struct stat *st, bool dir, char **why, ctk_error_t *err)
{
    char owner[64];

    if (st->st_uid != 0) {
        *why = ctk_printf(err, "%s is owned by %s, not root", path, owner_name(st->st_uid, owner, sizeof owner));
        return false;
    }
    /* a sticky directory (/tmp): others may add entries, not replace ours */
    if ((st->st_mode & 022) && !(dir && (st->st_mode & S_ISVTX))) {
        *why = ctk_printf(err, "%s is mode %04o: others than root can change it", path,
                          (unsigned)(st->st_mode & 07777));
        return false;
    }
    return true;
}

static bool root_owned_at(const char *path, char **why, ctk_error_t *err)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        *why = ctk_printf(err, "%s: %s", path, strerror(errno));
        return false;
    }
    return root_owned(path, &st, S_ISDIR(st.st_mode), why, err);
}

/* Every directory from / to real (resolved) and real itself. */
static bool path_root_only(const char *real, char **why, ctk_error_t *err)
{
    char *p = ctk_strdup(real, err);
    size_t len, k;
    bool ok = false;

    if (!p)
        return false;
    len = strlen(p);
    if (len > 1 && !root_owned_at("/", why, err))
        goto out;
    for (k = 1; k < len; k++) {
        if (p[k] != '/')
            continue;
        p[k] = '\0';
        ok = root_owned_at(p, why, err);
        p[k] = '/';
        if (!ok)
            goto out;
    }
    ok = root_owned_at(p, why, err);
out:
    free(p);
    return ok;
}

/* The rc files Environment Modules evaluates in dir, when there. */
static bool rc_root_only(const char *dir, char **why, ctk_error_t *err)
{
    static const char *const names[] = { ".modulerc", ".version", NULL };

    for (size_t i = 0; names[i]; i++) {
        char *p = ctk_path_join(dir, names[i], err), *real;
        struct stat st;
        bool ok;

        if (!p)
            return false;
        if (lstat(p, &st) != 0) {
            free(p);
            continue;
        }
        real = ctk_realpath(p);
        if (!real) {
            *why = ctk_printf(err, "%s: %s", p, strerror(errno));
            free(p);
            return false;
        }
        ok = path_root_only(real, why, err);
        free(real);
        free(p);
        if (!ok)
            return false;
    }
    return true;
}

static bool dir_root_only(const char *dir, const void *ctx, char **why, ctk_error_t *err)
{
    (void)ctx;
    return rc_root_only(dir, why, err);
}

bool ctk_sandbox_root_only(const char *modulepath, const char *file, char **why, ctk_error_t *err)
{
    char *mp = ctk_realpath(modulepath), *real = ctk_realpath(file);
    bool ok = false;

    *why = NULL;
    if (!mp || !real) {
        *why = ctk_printf(err, "%s: %s", !mp ? modulepath : file, strerror(errno));
        goto out;
    }
    if (!path_root_only(real, why, err) || !path_root_only(mp, why, err) || !rc_root_only(mp, why, err))
        goto out;
    ok = each_dir_between(mp, real, dir_root_only, NULL, why, err);
out:
    free(real);
    free(mp);
    return ok;
}

/* ---- the user and the private directories ------------------------------------ */

/* Every directory of path (resolved) searchable by the user, and path a directory. */
static bool reachable_dir(const ctk_sandbox_t *sb, const char *path)
{
    char *why = NULL, *real = ctk_realpath(path);
    bool ok = real && ctk_is_dir(real) && walk_may(sb, real, MAY_X, &why, NULL);

    free(why);
    free(real);
    return ok;
}

bool ctk_sandbox_init(ctk_sandbox_t *sb, bool trust_root_files, const char *tmpdir, ctk_error_t *err)
{
    const char *places[3];
    struct passwd pw, *res = NULL;
    char pwbuf[1024];
    size_t i, n = 0;

    memset(sb, 0, sizeof *sb);
    sb->trust_root_files = trust_root_files;
    if (geteuid() != 0)
        return true;
    sb->drop = true;
    if (getpwnam_r("nobody", &pw, pwbuf, sizeof pwbuf, &res) == 0 && res && pw.pw_uid != 0 && pw.pw_gid != 0) {
        sb->uid = pw.pw_uid;
        sb->gid = pw.pw_gid;
        snprintf(sb->user, sizeof sb->user, "nobody");
    } else {
        sb->uid = FALLBACK_ID;
        sb->gid = FALLBACK_ID;
        snprintf(sb->user, sizeof sb->user, "uid %u", (unsigned)FALLBACK_ID);
    }
    if (tmpdir && tmpdir[0] == '/')
        places[n++] = tmpdir;
    places[n++] = "/tmp";
    for (i = 0; i < n; i++) {
        if (!reachable_dir(sb, places[i]))
            continue;
        if (!(sb->base = ctk_printf(err, "%s/ctkgen-sandbox-XXXXXX", places[i])))
            return false;
        if (mkdtemp(sb->base) && chmod(sb->base, 0711) == 0)
            return true;
        if (errno != ENOENT)
            rmdir(sb->base);
        free(sb->base);
        sb->base = NULL;
    }
    sb->why_not = ctk_printf(err, "no directory user %s can reach for its private HOME and TMPDIR (tried %s%s%s)",
                             sb->user, places[0], n > 1 ? " and " : "", n > 1 ? places[1] : "");
    return sb->why_not != NULL;
}

bool ctk_sandbox_need(ctk_sandbox_t *sb, const char *path, const char *what, ctk_error_t *err)
{
    char who[96], *why = NULL;

    if (!sb->drop || sb->why_not)
        return true;
    if (ctk_sandbox_can_read(sb, path, &why, err))
        return true;
    if (!why)
        return false;
    sb->why_not = ctk_printf(err, "%s cannot run as user %s: %s", what, ctk_sandbox_describe(sb, who, sizeof who),
                             why);
    free(why);
    return sb->why_not != NULL;
}

/* A sandbox that keeps ctkgen's own identity. */
static const ctk_sandbox_t as_caller;

const ctk_sandbox_t *ctk_sandbox_pick(const ctk_sandbox_t *sb, const char *modulepath, const char *file,
                                      char **evaluated_as, char **skip_why, ctk_error_t *err)
{
    char who[96], *why = NULL, *trust_why = NULL;

    *evaluated_as = NULL;
    *skip_why = NULL;
    if (!sb->drop)
        return sb;
    if (sb->trust_root_files) {
        if (ctk_sandbox_root_only(modulepath, file, &trust_why, err)) {
            *evaluated_as = ctk_strdup("root (--trust-tcl: only root can change it)", err);
            return *evaluated_as ? &as_caller : NULL;
        }
        if (!trust_why)
            return NULL;
    }
    ctk_sandbox_describe(sb, who, sizeof who);
    if (sb->why_not)
        why = ctk_strdup(sb->why_not, err);
    else if (ctk_sandbox_can_load(sb, modulepath, file, &why, err)) {
        free(trust_why);
        *evaluated_as = ctk_printf(err, "user %s", who);
        return *evaluated_as ? sb : NULL;
    }
    if (why)
        *skip_why = ctk_printf(err, "ctkgen runs as root and evaluates it as user %s, who cannot load it: %s%s%s",
                               who, why, trust_why ? "; not trusted as root (--trust-tcl): " : "",
                               trust_why ? trust_why : "");
    free(why);
    free(trust_why);
    return NULL;
}

/* Remove name in dirfd and everything below it, never following a link. */
static void remove_at(int at, const char *name, int depth)
{
    DIR *d;
    struct dirent *e;
    int fd;

    if (unlinkat(at, name, 0) == 0 || errno == ENOENT)
        return;
    if (depth >= REMOVE_DEPTH)
        return;
    fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (!(d = fdopendir(fd))) {
        close(fd);
        return;
    }
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_at(dirfd(d), e->d_name, depth + 1);
    closedir(d);
    unlinkat(at, name, AT_REMOVEDIR);
}

static void remove_path(const char *path)
{
    char *copy, *slash;
    int fd;

    if (!path || !(copy = ctk_strdup(path, NULL)))
        return;
    if ((slash = strrchr(copy, '/')) && slash[1]) {
        *slash = '\0';
        fd = open(copy[0] ? copy : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            remove_at(fd, slash + 1, 0);
            close(fd);
        }
    }
    free(copy);
}

void ctk_sandbox_fini(ctk_sandbox_t *sb)
{
    if (!sb)
        return;
    remove_path(sb->base);
    free(sb->base);
    free(sb->why_not);
    memset(sb, 0, sizeof *sb);
}

void ctk_sandbox_run_remove(ctk_sandbox_run_t *run)
{
    if (!run)
        return;
    remove_path(run->dir);
    free(run->dir);
    free(run->home);
    free(run->tmp);
    memset(run, 0, sizeof *run);
}

bool ctk_sandbox_run_new(const ctk_sandbox_t *sb, ctk_sandbox_run_t *run, ctk_error_t *err)
{
    const char *bad = NULL;

    memset(run, 0, sizeof *run);
    if (!sb->drop || !sb->base) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "ctk_sandbox_run_new: no sandbox");
        return false;
    }
    if (!(run->dir = ctk_make_dtemp(sb->base, "run", "dir", err)))
        return false;
    if (!(run->home = ctk_path_join(run->dir, "home", err)) || !(run->tmp = ctk_path_join(run->dir, "tmp", err)))
        goto fail;
    /* made and handed over inside a dir only root can enter: no race */
    if (mkdir(run->home, 0700) != 0)
        bad = run->home;
    else if (mkdir(run->tmp, 0700) != 0)
        bad = run->tmp;
    else if (chown(run->home, sb->uid, sb->gid) != 0)
        bad = run->home;
    else if (chown(run->tmp, sb->uid, sb->gid) != 0)
        bad = run->tmp;
    else if (chown(run->dir, sb->uid, sb->gid) != 0 || chmod(run->dir, 0700) != 0)
        bad = run->dir;
    if (bad) {
        ctk_error_set(err, CTK_E_IO, bad, 0, 0, "cannot make a private dir for %s: %s", sb->user, strerror(errno));
        goto fail;
    }
    return true;
fail:
    ctk_sandbox_run_remove(run);
    return false;
}

bool ctk_sandbox_run_env(const ctk_sandbox_run_t *run, const ctk_env_t *base, ctk_env_t *out, ctk_error_t *err)
{
    ctk_env_init(out);
    return ctk_env_copy(out, base, err) && ctk_env_set(out, "HOME", run->home, err) &&
           ctk_env_set(out, "TMPDIR", run->tmp, err);
}
