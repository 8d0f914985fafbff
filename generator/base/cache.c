/* cache.c - content-addressed store of validation results under DIR/v1.
 * SPDX-License-Identifier: MIT
 *
 * Keys.  Two independent 64-bit hashes run side by side over a framed byte
 * stream: FNV-1a 64 and a multiply-rotate hash with another seed and
 * multiplier; each is finished with the splitmix64 mixer and the two are
 * printed as 32 hex digits.  Every part is framed as
 *     tag byte, u64 label length, label, u64 data length, data
 * (u64 little-endian), so no two different sequences of parts feed the same
 * bytes: ("ab","c") and ("a","bc") differ, a NULL string differs from "",
 * and a stat identity differs from the same bytes given as data.  This
 * guards against accidents, not against an attacker: the dir is the user's
 * own (0700).  Changing the framing or the hashes changes every key; bump
 * the "v1" dir name with it.
 *
 * Entries.  DIR/v1/<key>.json holds one header line and then the text:
 *     ctkgen-cache 1 <key> <text bytes> <FNV-1a 64 of text, 16 hex>\n<text>
 * put() writes a temp file in the same dir (mkostemp), fsyncs it, renames
 * it over the entry and fsyncs the dir, so a reader sees the old entry or
 * the new one, whole.  get() still checks the header: an entry that was
 * truncated, edited, or copied under another key's name is a miss.
 * Several processes or threads may put the same key at once: each renames
 * its own complete temp file and the last rename wins.
 */
#include <ctkconf.h>

#include "cache.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define VERSION_DIR "v1"
#define ENTRY_MAGIC "ctkgen-cache 1 "
/* Largest file add_file reads, and largest entry get/put handle. */
#define MAX_BYTES ((size_t)16 << 20)
#define KEY_LEN 32

/* ---- hashing ---------------------------------------------------------------- */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
/* second hash: seed = fractional bits of sqrt(2), multiplier = 2^64/phi (odd) */
#define H2_SEED 0x6a09e667f3bcc908ULL
#define H2_MUL 0x9e3779b97f4a7c15ULL

static void feed(ctk_cache_key_t *k, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h1 = k->h1, h2 = k->h2;
    size_t i;

    for (i = 0; i < len; i++) {
        h1 = (h1 ^ p[i]) * FNV_PRIME;
        /* the rotate carries the well-mixed high bits down, which FNV's
         * multiply alone never does */
        h2 = (h2 ^ p[i]) * H2_MUL;
        h2 = (h2 << 27) | (h2 >> 37);
    }
    k->h1 = h1;
    k->h2 = h2;
}

static void feed_u64(ctk_cache_key_t *k, uint64_t v)
{
    unsigned char b[8];
    int i;

    for (i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    feed(k, b, sizeof b);
}

/* One framed part; see the top of the file. */
static void part(ctk_cache_key_t *k, char tag, const char *label, const void *data, size_t len)
{
    size_t ll;

    if (!label)
        label = "";
    ll = strlen(label);
    feed(k, &tag, 1);
    feed_u64(k, ll);
    feed(k, label, ll);
    feed_u64(k, len);
    if (len)
        feed(k, data, len);
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void ctk_cache_key_init(ctk_cache_key_t *k)
{
    k->h1 = FNV_OFFSET;
    k->h2 = H2_SEED;
}

void ctk_cache_key_add(ctk_cache_key_t *k, const char *label, const void *data, size_t len)
{
    part(k, 'b', label, data, data ? len : 0);
}

void ctk_cache_key_add_str(ctk_cache_key_t *k, const char *label, const char *s)
{
    if (s)
        part(k, 'b', label, s, strlen(s));
    else
        part(k, 'n', label, NULL, 0);
}

/* dev, ino, size, mtime in ns: 32 bytes, little-endian */
static void pack_stat(const struct stat *st, unsigned char out[32])
{
    uint64_t v[4];
    int i, j;

    v[0] = (uint64_t)st->st_dev;
    v[1] = (uint64_t)st->st_ino;
    v[2] = (uint64_t)st->st_size;
    v[3] = (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 8; j++)
            out[i * 8 + j] = (unsigned char)(v[i] >> (8 * j));
}

void ctk_cache_key_add_stat(ctk_cache_key_t *k, const char *path)
{
    struct stat st;
    unsigned char id[32];

    /* stat, not lstat: the identity of the file a tool will really open */
    if (!path || stat(path, &st) < 0) {
        part(k, 'x', path, "absent", 6);
        return;
    }
    pack_stat(&st, id);
    part(k, 's', path, id, sizeof id);
}

void ctk_cache_key_add_file(ctk_cache_key_t *k, const char *path)
{
    struct stat st;
    unsigned char id[32];
    char *data;
    size_t len = 0;

    if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
        part(k, 'y', path, "absent", 6);
        return;
    }
    data = (size_t)st.st_size <= MAX_BYTES ? ctk_file_read(path, MAX_BYTES, &len, NULL) : NULL;
    if (data) {
        part(k, 'f', path, data, len);
        free(data);
        return;
    }
    /* too large, unreadable, grew past the cap while read, or no memory:
     * key on its identity, so a change to the file still changes the key */
    pack_stat(&st, id);
    part(k, 'F', path, id, sizeof id);
}

void ctk_cache_key_hex(const ctk_cache_key_t *k, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)mix64(k->h1),
             (unsigned long long)mix64(k->h2));
}

/* ---- store ------------------------------------------------------------------- */
static bool key_ok(const char *key, ctk_error_t *err)
{
    size_t i;

    for (i = 0; key && i < KEY_LEN; i++)
        if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f')))
            break;
    if (key && i == KEY_LEN && key[i] == '\0')
        return true;
    ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0,
                  "cache key '%.40s' is not 32 lowercase hex digits", key ? key : "(null)");
    return false;
}

char *ctk_cache_default_dir(ctk_error_t *err)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");

    /* the XDG spec says to ignore a relative XDG_CACHE_HOME */
    if (xdg && xdg[0] == '/')
        return ctk_path_join(xdg, "ctkgen", err);
    if (home && home[0])
        return ctk_path_join(home, ".cache/ctkgen", err);
    return NULL;
}

/* mkdir -p path; components this call creates get mode 0700.  path is
 * modified while walking and restored before returning. */
static bool mkdirs(char *path, ctk_error_t *err)
{
    size_t i, n = strlen(path);
    struct stat st;
    bool ok = true;

    for (i = 1; i <= n && ok; i++) {
        char c = path[i];

        if ((c != '/' && c != '\0') || path[i - 1] == '/')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0700) < 0 && errno != EEXIST) {
            ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot create cache directory: %s",
                          strerror(errno));
            ok = false;
        } else if (stat(path, &st) < 0) {
            ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot use as cache directory: %s",
                          strerror(errno));
            ok = false;
        } else if (!S_ISDIR(st.st_mode)) {
            ctk_error_set(err, CTK_E_IO, path, 0, 0,
                          "cannot use as cache directory: not a directory");
            ok = false;
        }
        path[i] = c;
    }
    return ok;
}

bool ctk_cache_mkdirs(const char *dir, ctk_error_t *err)
{
    char *copy = ctk_strdup(dir, err);
    bool ok = copy && mkdirs(copy, err);

    free(copy);
    return ok;
}

static char *entry_path(const char *dir, const char *key, ctk_error_t *err)
{
    return ctk_printf(err, "%s/" VERSION_DIR "/%s.json", dir, key);
}

/* The text of a well-formed entry, moved to the start of buf; NULL if the
 * header is missing, names another key, or disagrees with the text. */
static char *entry_text(char *buf, size_t len, const char *key)
{
    char want[128], hash[17];
    const char *nl = memchr(buf, '\n', len);
    size_t hlen, tlen;

    if (!nl)
        return NULL;
    hlen = (size_t)(nl - buf) + 1;
    tlen = len - hlen;
    if (memchr(nl + 1, '\0', tlen))
        return NULL;
    ctk_hash_hex(nl + 1, tlen, hash);
    snprintf(want, sizeof want, ENTRY_MAGIC "%s %zu %s\n", key, tlen, hash);
    if (hlen != strlen(want) || memcmp(buf, want, hlen) != 0)
        return NULL;
    memmove(buf, nl + 1, tlen + 1); /* with ctk_file_read's NUL */
    return buf;
}

char *ctk_cache_get(const char *dir, const char *key, ctk_error_t *err)
{
    ctk_error_t rerr;
    char *path = NULL, *buf = NULL, *text = NULL;
    size_t len = 0;

    if (!key_ok(key, err))
        return NULL;
    if (!dir) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "no cache directory");
        return NULL;
    }
    path = entry_path(dir, key, err);
    if (!path)
        goto out;
    ctk_error_init(&rerr);
    buf = ctk_file_read(path, MAX_BYTES + 256, &len, &rerr);
    if (!buf) {
        /* missing or unreadable is a miss; only running out of memory is news */
        if (rerr.code == CTK_E_NOMEM)
            ctk_error_nomem(err);
        goto out;
    }
    text = entry_text(buf, len, key);
    if (text)
        buf = NULL;
out:
    free(buf);
    free(path);
    return text;
}


/* A new file from the pattern tmp in vdir, mode 0600, holding head and
 * text, synced and closed; on failure nothing is left. */
static bool write_temp(const char *vdir, char *tmp, const char *head, const char *text, size_t tlen,
                       ctk_error_t *err)
{
    int fd = mkostemp(tmp, O_CLOEXEC);

    if (fd < 0) {
        ctk_error_set(err, CTK_E_IO, vdir, 0, 0, "cannot create a temporary file: %s", strerror(errno));
        return false;
    }
    /* mkostemp makes 0600 already; say so in case a libc does otherwise */
    if (fchmod(fd, 0600) < 0 || !ctk_write_all(fd, head, strlen(head)) || !ctk_write_all(fd, text, tlen) ||
        fsync(fd) < 0) {
        ctk_error_set(err, CTK_E_IO, tmp, 0, 0, "cannot write: %s", strerror(errno));
        close(fd);
        unlink(tmp);
        return false;
    }
    if (close(fd) < 0) {
        ctk_error_set(err, CTK_E_IO, tmp, 0, 0, "cannot write (close): %s", strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

/* The rename into dir made durable; a cache entry lost in a crash is only
 * a miss, so a dir that cannot be synced is not an error. */
static void sync_dir(const char *dir)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
}

bool ctk_cache_put(const char *dir, const char *key, const char *text, ctk_error_t *err)
{
    char *vdir = NULL, *path = NULL, *tmp = NULL, *head = NULL;
    char hash[17];
    size_t tlen;
    bool ok = false;

    if (!key_ok(key, err))
        return false;
    if (!dir || !text) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "no cache directory or text");
        return false;
    }
    tlen = strlen(text);
    if (tlen > MAX_BYTES) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "cache entry of %zu bytes is too large",
                      tlen);
        return false;
    }
    ctk_hash_hex(text, tlen, hash);
    if (!(vdir = ctk_path_join(dir, VERSION_DIR, err)) || !(path = entry_path(dir, key, err)) ||
        !(tmp = ctk_printf(err, "%s/.%s.XXXXXX", vdir, key)) ||
        !(head = ctk_printf(err, ENTRY_MAGIC "%s %zu %s\n", key, tlen, hash)))
        goto out;
    if (!mkdirs(vdir, err) || !write_temp(vdir, tmp, head, text, tlen, err))
        goto out;
    if (rename(tmp, path) < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot store: %s", strerror(errno));
        unlink(tmp);
        goto out;
    }
    sync_dir(vdir);
    ok = true;
out:
    free(head);
    free(tmp);
    free(path);
    free(vdir);
    return ok;
}
