/* trust.c - may ctkgen run this program?  The rule is in trust.h.
 * SPDX-License-Identifier: MIT
 *
 * Every path is walked one component at a time with lstat(), from / down,
 * so each prefix is what the kernel resolves when it opens the path: a
 * link in the middle is followed by the next prefix, and its target's
 * directories are checked by the walk over the resolved path.
 */
#include <ctkconf.h>

#include "trust.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The kernel follows at most this many #! interpreters (BINPRM_MAX_RECURSION). */
#define MAX_INTERP_DEPTH 4

static void say(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;

    if (!why || n == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
}

/* "uid 1000 (alice)", or "uid 1000" when the name is unknown. */
static void user_text(uid_t uid, char *out, size_t n)
{
    struct passwd pw, *res = NULL;
    char buf[1024];

    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res && res->pw_name)
        snprintf(out, n, "uid %u (%s)", (unsigned)uid, res->pw_name);
    else
        snprintf(out, n, "uid %u", (unsigned)uid);
}

static void group_text(gid_t gid, char *out, size_t n)
{
    struct group gr, *res = NULL;
    char buf[1024];

    if (getgrgid_r(gid, &gr, buf, sizeof buf, &res) == 0 && res && res->gr_name)
        snprintf(out, n, "gid %u (%s)", (unsigned)gid, res->gr_name);
    else
        snprintf(out, n, "gid %u", (unsigned)gid);
}

/* One path component, by its lstat.  tail: what to add after the reason
 * ("" or ", on the way to X"). */
static bool component_ok(const char *p, const char *tail, const struct stat *st, char *why, size_t n)
{
    uid_t me = geteuid();
    unsigned mode = (unsigned)(st->st_mode & 07777);
    char owner[320], grp[320], other[64] = "";

    if (st->st_uid != 0 && st->st_uid != me) {
        user_text(st->st_uid, owner, sizeof owner);
        if (me != 0)
            snprintf(other, sizeof other, " or uid %u (this user)", (unsigned)me);
        if (S_ISLNK(st->st_mode))
            say(why, n, "%s is a symbolic link owned by %s, not root%s%s", p, owner, other, tail);
        else
            say(why, n, "%s is owned by %s, not root%s: mode %04o%s", p, owner, other, mode, tail);
        return false;
    }
    if (S_ISLNK(st->st_mode))
        return true; /* a link's mode is always 0777 and never used */
    if (st->st_mode & S_IWOTH) {
        user_text(st->st_uid, owner, sizeof owner);
        say(why, n, "%s is writable by others: mode %04o, owner %s%s", p, mode, owner, tail);
        return false;
    }
    if (st->st_mode & S_IWGRP) {
        user_text(st->st_uid, owner, sizeof owner);
        group_text(st->st_gid, grp, sizeof grp);
        say(why, n, "%s is writable by its group %s: mode %04o, owner %s%s", p, grp, mode, owner, tail);
        return false;
    }
    return true;
}

/* Every prefix of the absolute path abs, "/" first, then abs itself.
 * note: "" or how abs was reached (" (where X leads)"). */
static bool walk_ok(const char *abs, const char *note, char *why, size_t n)
{
    size_t len = strlen(abs), i;
    char *p = malloc(len + 2), *tail = NULL, *here_tail = NULL;
    struct stat st;
    bool ok = false;

    /* a directory above abs is named with abs; abs itself with the note */
    tail = ctk_printf(NULL, ", on the way to %s%s", abs, note);
    here_tail = ctk_printf(NULL, "%s", note);
    if (!p || !tail || !here_tail) {
        say(why, n, "cannot check %s: out of memory", abs);
        goto out;
    }
    p[0] = '/';
    p[1] = '\0';
    for (i = 0; i <= len; i++) {
        const char *t;

        /* a component ends before each '/' and at the end; "//" and a
         * trailing '/' end none (i == 0 is "/" itself) */
        if (i > 0 && ((i < len && abs[i] != '/') || abs[i - 1] == '/'))
            continue;
        if (i > 0) {
            memcpy(p, abs, i);
            p[i] = '\0';
        }
        t = strcmp(p, abs) == 0 ? here_tail : tail;
        if (lstat(p, &st) != 0) {
            say(why, n, "cannot check %s: %s%s", p, strerror(errno), t);
            goto out;
        }
        if (!component_ok(p, t, &st, why, n))
            goto out;
    }
    ok = true;
out:
    free(here_tail);
    free(tail);
    free(p);
    return ok;
}

/* The interpreter a #! line names ("" when the file is no script);
 * false when the file cannot be read. */
static bool interpreter_of(const char *path, char *out, size_t n, char *why, size_t whyn)
{
    char head[512];
    ssize_t got;
    size_t k = 0;
    const char *p;
    int fd;

    out[0] = '\0';
    /* O_NONBLOCK: a FIFO or device planted as the program cannot hold us */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        say(why, whyn, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    got = read(fd, head, sizeof head - 1);
    close(fd);
    if (got < 0) {
        say(why, whyn, "cannot read %s: %s", path, strerror(errno));
        return false;
    }
    head[got] = '\0';
    if (got < 2 || head[0] != '#' || head[1] != '!')
        return true;
    for (p = head + 2; *p == ' ' || *p == '\t'; p++)
        ;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && k + 1 < n)
        out[k++] = *p++;
    out[k] = '\0';
    return true;
}

static bool trust(const char *path, const char *context, int depth, char *why, size_t n);

/* path made absolute against the working directory; NULL, said in why,
 * when that cannot be. */
static char *absolute(const char *path, char *why, size_t n)
{
    char cwd[4096], *abs;

    if (path[0] == '/') {
        abs = ctk_strdup(path, NULL);
    } else {
        if (!getcwd(cwd, sizeof cwd)) {
            say(why, n, "cannot check %s: the working directory: %s", path, strerror(errno));
            return NULL;
        }
        abs = ctk_printf(NULL, "%s/%s", strcmp(cwd, "/") ? cwd : "", path);
    }
    if (!abs)
        say(why, n, "cannot check %s: out of memory", path);
    return abs;
}

/* The #! interpreter of the regular file real (named abs in context), if
 * it has one, trusted in turn. */
static bool interpreter_trusted(const char *real, const char *abs, const char *context, int depth, char *why,
                                size_t n)
{
    char interp[512], *ictx;
    bool ok;

    if (!interpreter_of(real, interp, sizeof interp, why, n))
        return false;
    if (!interp[0])
        return true;
    if (depth >= MAX_INTERP_DEPTH) {
        say(why, n, "%s%s: more than %d #! interpreters in a row", abs, context, MAX_INTERP_DEPTH);
        return false;
    }
    if (!(ictx = ctk_printf(NULL, " (the #! interpreter of %s%s)", abs, context))) {
        say(why, n, "cannot check %s: out of memory", interp);
        return false;
    }
    ok = trust(interp, ictx, depth + 1, why, n);
    free(ictx);
    return ok;
}

static bool trust(const char *path, const char *context, int depth, char *why, size_t n)
{
    char *abs = NULL, *real = NULL, *ctx = NULL;
    struct stat st;
    bool ok = false;

    if (!path || !*path) {
        say(why, n, "no program named");
        return false;
    }
    if (!(abs = absolute(path, why, n)))
        return false;
    if (!walk_ok(abs, context, why, n))
        goto out;
    if (!(real = realpath(abs, NULL))) {
        say(why, n, "cannot resolve %s%s: %s", abs, context, strerror(errno));
        goto out;
    }
    if (strcmp(real, abs) != 0) {
        if (!(ctx = ctk_printf(NULL, " (where %s%s leads)", abs, context))) {
            say(why, n, "cannot check %s: out of memory", abs);
            goto out;
        }
        if (!walk_ok(real, ctx, why, n))
            goto out;
    }
    if (stat(real, &st) != 0) {
        say(why, n, "cannot check %s%s: %s", real, ctx ? ctx : context, strerror(errno));
        goto out;
    }
    ok = !S_ISREG(st.st_mode) || interpreter_trusted(real, abs, context, depth, why, n);
out:
    if (ok)
        say(why, n, "%s", "");
    free(ctx);
    free(real);
    free(abs);
    return ok;
}

bool ctk_trust_exec(const char *path, char *why, size_t why_len)
{
    return trust(path, "", 0, why, why_len);
}
