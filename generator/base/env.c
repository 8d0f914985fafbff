/* env.c - an environment as an ordered set of NAME=VALUE strings.
 * SPDX-License-Identifier: MIT
 *
 * A plain list with linear lookup: probe environments hold a few dozen
 * entries, so order-preserving simplicity beats a hash table here.
 */
#include <ctkconf.h>

#include "env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* execvp's search list when PATH is unset (confstr(_CS_PATH) on glibc). */
#define DEFAULT_PATH "/bin:/usr/bin"

void ctk_env_init(ctk_env_t *e)
{
    ctk_strlist_init(&e->kv);
}

void ctk_env_fini(ctk_env_t *e)
{
    if (e)
        ctk_strlist_fini(&e->kv);
}

/* Index of NAME in e, or e->kv.len. */
static size_t find(const ctk_env_t *e, const char *name, size_t n)
{
    size_t i;

    for (i = 0; i < e->kv.len; i++)
        if (strncmp(e->kv.items[i], name, n) == 0 && e->kv.items[i][n] == '=')
            return i;
    return e->kv.len;
}

static bool valid_name(const char *name, size_t n)
{
    return n > 0 && !memchr(name, '=', n);
}

/* Set from a ready "NAME=VALUE" string whose name is n bytes; owns kv. */
static bool set_entry(ctk_env_t *e, char *kv, size_t n, ctk_error_t *err)
{
    size_t i = find(e, kv, n);

    if (i < e->kv.len) {
        free(e->kv.items[i]);
        e->kv.items[i] = kv;
        return true;
    }
    return ctk_strlist_take(&e->kv, kv, err);
}

static void remove_at(ctk_env_t *e, size_t i)
{
    free(e->kv.items[i]);
    memmove(e->kv.items + i, e->kv.items + i + 1, (e->kv.len - i - 1) * sizeof *e->kv.items);
    e->kv.len--;
}

bool ctk_env_set(ctk_env_t *e, const char *name, const char *value, ctk_error_t *err)
{
    size_t n = strlen(name), i;
    char *kv;

    if (!valid_name(name, n)) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0,
                      "invalid environment variable name '%s'", name);
        return false;
    }
    if (!value) {
        i = find(e, name, n);
        if (i < e->kv.len)
            remove_at(e, i);
        return true;
    }
    kv = ctk_printf(err, "%s=%s", name, value);
    if (!kv)
        return false;
    return set_entry(e, kv, n, err);
}

const char *ctk_env_get(const ctk_env_t *e, const char *name)
{
    size_t n = strlen(name), i = find(e, name, n);

    return i < e->kv.len ? e->kv.items[i] + n + 1 : NULL;
}

bool ctk_env_copy(ctk_env_t *dst, const ctk_env_t *src, ctk_error_t *err)
{
    ctk_env_t tmp;
    size_t i;

    if (dst == src)
        return true;
    ctk_env_init(&tmp);
    for (i = 0; i < src->kv.len; i++) {
        if (!ctk_strlist_push(&tmp.kv, src->kv.items[i], err)) {
            ctk_env_fini(&tmp);
            return false;
        }
    }
    ctk_env_fini(dst);
    *dst = tmp;
    return true;
}

bool ctk_env_parse_nul(ctk_env_t *e, const char *buf, size_t len, ctk_error_t *err)
{
    ctk_env_t tmp;
    size_t pos = 0;

    ctk_env_init(&tmp);
    while (pos < len) {
        const char *s = buf + pos, *nul = memchr(s, '\0', len - pos);
        size_t n = nul ? (size_t)(nul - s) : len - pos;
        const char *eq = memchr(s, '=', n);

        pos += n + 1;
        if (!eq || eq == s)
            continue;
        {
            char *kv = ctk_strndup(s, n, err);

            if (!kv || !set_entry(&tmp, kv, (size_t)(eq - s), err)) {
                ctk_env_fini(&tmp);
                return false;
            }
        }
    }
    ctk_env_fini(e);
    *e = tmp;
    return true;
}

const char *const *ctk_env_envp(ctk_env_t *e, ctk_error_t *err)
{
    static const char *const empty[] = { NULL };

    if (e->kv.len == 0)
        return empty;
    if (e->kv.len == e->kv.cap) {
        char **p = realloc(e->kv.items, (e->kv.cap + 1) * sizeof *p);

        if (!p) {
            ctk_error_nomem(err);
            return NULL;
        }
        e->kv.items = p;
        e->kv.cap++;
    }
    e->kv.items[e->kv.len] = NULL;
    return (const char *const *)e->kv.items;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Push the names of `from` whose value in `other` differs (or is unset). */
static bool diff_one(const ctk_env_t *from, const ctk_env_t *other, ctk_strlist_t *tmp,
                     ctk_error_t *err)
{
    size_t i;

    for (i = 0; i < from->kv.len; i++) {
        const char *kv = from->kv.items[i], *eq = strchr(kv, '=');
        size_t n = (size_t)(eq - kv), j = find(other, kv, n);
        char *name;

        if (j < other->kv.len && strcmp(other->kv.items[j] + n + 1, eq + 1) == 0)
            continue;
        if (!(name = ctk_strndup(kv, n, err)) || !ctk_strlist_take(tmp, name, err))
            return false;
    }
    return true;
}

bool ctk_env_diff(const ctk_env_t *a, const ctk_env_t *b, ctk_strlist_t *names, ctk_error_t *err)
{
    ctk_strlist_t tmp;
    size_t i;
    bool ok = false;

    ctk_strlist_init(&tmp);
    if (!diff_one(a, b, &tmp, err) || !diff_one(b, a, &tmp, err))
        goto out;
    if (tmp.len > 1)
        qsort(tmp.items, tmp.len, sizeof *tmp.items, cmp_str);
    for (i = 0; i < tmp.len; i++) {
        if (i > 0 && strcmp(tmp.items[i], tmp.items[i - 1]) == 0)
            continue;
        if (!ctk_strlist_push(names, tmp.items[i], err))
            goto out;
    }
    ok = true;
out:
    ctk_strlist_fini(&tmp);
    return ok;
}

/* 0 when `path` (relative to dirfd) is an executable regular file, else
 * the errno execve would give for it: EACCES or ENOENT. */
static int check_exec(int dirfd, const char *path)
{
    struct stat st;

    if (fstatat(dirfd, path, &st, 0) != 0)
        return errno == EACCES ? EACCES : ENOENT;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    return faccessat(dirfd, path, X_OK, 0) == 0 ? 0 : EACCES;
}

char *ctk_env_path_search(const char *path, const char *prog, const char *cwd, int *why,
                          ctk_error_t *err)
{
    int dirfd = AT_FDCWD, reason = ENOENT, r;
    char *found = NULL;
    const char *p;

    if (cwd) {
        dirfd = open(cwd, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0) {
            reason = errno;
            goto out;
        }
    }
    if (!*prog)
        goto out;
    if (strchr(prog, '/')) {
        reason = check_exec(dirfd, prog);
        if (reason == 0 && !(found = ctk_strdup(prog, err)))
            reason = ENOMEM;
        goto out;
    }
    if (!path)
        path = DEFAULT_PATH;
    for (p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char *cand;

        /* an empty element is the current directory, as for execvp */
        cand = n ? ctk_printf(err, "%.*s/%s", (int)n, p, prog) : ctk_printf(err, "./%s", prog);
        if (!cand) {
            reason = ENOMEM;
            goto out;
        }
        r = check_exec(dirfd, cand);
        if (r == 0) {
            found = cand;
            reason = 0;
            goto out;
        }
        free(cand);
        if (r == EACCES)
            reason = EACCES;
        if (!end)
            break;
        p = end;
    }
out:
    if (dirfd >= 0 && dirfd != AT_FDCWD)
        close(dirfd);
    if (why)
        *why = found ? 0 : reason;
    return found;
}

char *ctk_env_which(const ctk_env_t *e, const char *prog, ctk_error_t *err)
{
    return ctk_env_path_search(ctk_env_get(e, "PATH"), prog, NULL, NULL, err);
}
