/* util.c - owned strings, buffers, string lists and file helpers.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "util.h"

#include <dirent.h>
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

char *ctk_strdup(const char *s, ctk_error_t *err)
{
    return ctk_strndup(s, strlen(s), err);
}

char *ctk_strndup(const char *s, size_t n, ctk_error_t *err)
{
    char *p = malloc(n + 1);

    if (!p) {
        ctk_error_nomem(err);
        return NULL;
    }
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

/* Formatted once into the stack when it fits (most messages and paths do),
 * twice otherwise: the first pass measures. */
char *ctk_printf(ctk_error_t *err, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p, small[256];

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "bad format string");
        return NULL;
    }
    p = malloc((size_t)n + 1);
    if (!p) {
        ctk_error_nomem(err);
        return NULL;
    }
    if ((size_t)n < sizeof small) {
        memcpy(p, small, (size_t)n + 1);
        return p;
    }
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

char *ctk_concat(ctk_error_t *err, const char *s, ...)
{
    va_list ap;
    const char *part;
    size_t len = 0, at = 0;
    char *p;

    va_start(ap, s);
    for (part = s; part; part = va_arg(ap, const char *))
        len += strlen(part);
    va_end(ap);
    if (!(p = malloc(len + 1))) {
        ctk_error_nomem(err);
        return NULL;
    }
    va_start(ap, s);
    for (part = s; part; part = va_arg(ap, const char *)) {
        size_t n = strlen(part);

        memcpy(p + at, part, n);
        at += n;
    }
    va_end(ap);
    p[at] = '\0';
    return p;
}

char *ctk_path_join(const char *a, const char *b, ctk_error_t *err)
{
    size_t la = strlen(a), lb, sep;
    char *p;

    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    if (*b == '\0')
        return ctk_strndup(a, la, err);
    sep = (la == 1 && a[0] == '/') ? 0 : 1;
    lb = strlen(b);
    if (!(p = malloc(la + sep + lb + 1))) {
        ctk_error_nomem(err);
        return NULL;
    }
    memcpy(p, a, la);
    if (sep)
        p[la] = '/';
    memcpy(p + la + sep, b, lb + 1);
    return p;
}

bool ctk_str_has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- buffer -------------------------------------------------------------- */
void ctk_buf_init(ctk_buf_t *b)
{
    memset(b, 0, sizeof *b);
}

void ctk_buf_fini(ctk_buf_t *b)
{
    if (!b)
        return;
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Room for need bytes in b (doubling); false, and b failed, when there
 * is none. */
static bool buf_grow(ctk_buf_t *b, size_t need)
{
    size_t cap = b->cap ? b->cap : 256;
    char *p;

    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            b->failed = true;
            return false;
        }
        cap *= 2;
    }
    p = realloc(b->data, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

bool ctk_buf_reserve(ctk_buf_t *b, size_t n)
{
    if (b->failed)
        return false;
    if (b->len + n + 1 > b->cap && !buf_grow(b, b->len + n + 1))
        return false;
    b->data[b->len] = '\0';
    return true;
}

bool ctk_buf_append(ctk_buf_t *b, const char *data, size_t len)
{
    if (b->failed)
        return false;
    if (b->len + len + 1 > b->cap && !buf_grow(b, b->len + len + 1))
        return false;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return true;
}

bool ctk_buf_puts(ctk_buf_t *b, const char *s)
{
    return ctk_buf_append(b, s, strlen(s));
}

bool ctk_buf_printf(ctk_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    int n;
    char small[256];

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return false;
    }
    if ((size_t)n < sizeof small)
        return ctk_buf_append(b, small, (size_t)n);
    {
        char *big = malloc((size_t)n + 1);
        bool ok;

        if (!big) {
            b->failed = true;
            return false;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        ok = ctk_buf_append(b, big, (size_t)n);
        free(big);
        return ok;
    }
}

char *ctk_buf_take(ctk_buf_t *b, size_t *len)
{
    char *p;

    if (!b->data && !b->failed)
        ctk_buf_append(b, "", 0);
    p = b->data;
    if (len)
        *len = b->len;
    memset(b, 0, sizeof *b);
    return p;
}

/* ---- string list ----------------------------------------------------------- */
void ctk_strlist_init(ctk_strlist_t *l)
{
    memset(l, 0, sizeof *l);
}

void ctk_strlist_fini(ctk_strlist_t *l)
{
    size_t i;

    if (!l)
        return;
    for (i = 0; i < l->len; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

bool ctk_strlist_take(ctk_strlist_t *l, char *s, ctk_error_t *err)
{
    if (!s) {
        ctk_error_nomem(err);
        return false;
    }
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        char **p = realloc(l->items, cap * sizeof *p);

        if (!p) {
            free(s);
            ctk_error_nomem(err);
            return false;
        }
        l->items = p;
        l->cap = cap;
    }
    l->items[l->len++] = s;
    return true;
}

bool ctk_strlist_push(ctk_strlist_t *l, const char *s, ctk_error_t *err)
{
    char *copy = ctk_strdup(s, err);

    return copy ? ctk_strlist_take(l, copy, err) : false;
}

bool ctk_strlist_pushf(ctk_strlist_t *l, ctk_error_t *err, const char *fmt, ...)
{
    char text[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return ctk_strlist_push(l, text, err);
}

bool ctk_strlist_contains(const ctk_strlist_t *l, const char *s)
{
    size_t i;

    for (i = 0; i < l->len; i++)
        if (strcmp(l->items[i], s) == 0)
            return true;
    return false;
}

bool ctk_strlist_split(ctk_strlist_t *l, const char *s, const char *seps, ctk_error_t *err)
{
    while (s && *s) {
        size_t n;
        char *word;

        s += strspn(s, seps);
        if (!(n = strcspn(s, seps)))
            break;
        if (!(word = ctk_strndup(s, n, err)) || !ctk_strlist_take(l, word, err))
            return false;
        s += n;
    }
    return true;
}

/* ---- files ------------------------------------------------------------------ */

/* Kernel file systems: their "regular" files are views of kernel state
 * (/proc/kmsg blocks, and reading it takes the messages from syslog). */
static bool kernel_fs(long type)
{
    static const unsigned long magic[] = {
        0x9fa0UL,     /* proc */
        0x62656572UL, /* sysfs */
        0x64626720UL, /* debugfs */
        0x74726163UL, /* tracefs */
        0x73636673UL, /* securityfs */
        0x62656570UL, /* configfs */
        0x27e0ebUL,   /* cgroup */
        0x63677270UL, /* cgroup2 */
        0xcafe4a11UL, /* bpf */
        0x6165676cUL, /* pstore */
        0xde5e81e4UL, /* efivarfs */
        0xf97cff8cUL, /* selinuxfs */
        0x65735543UL, /* fusectl */
        0x1cd1UL,     /* devpts */
    };
    size_t i;

    for (i = 0; i < sizeof magic / sizeof magic[0]; i++)
        if ((unsigned long)type == magic[i])
            return true;
    return false;
}

static const char *kind_of(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

static const char kernel_fs_text[] = "a file of /proc, /sys or another kernel file system";

static int refuse(const char *path, const char *kind, const char **what, ctk_error_t *err)
{
    if (what)
        *what = kind;
    ctk_error_set(err, CTK_E_IO, path, 0, 0, "not read: %s%s", kind,
                  kind == kernel_fs_text ? "" : ", not a regular file");
    return -1;
}

/* An O_PATH descriptor of path (with CTK_READ_NOFOLLOW, of the link
 * itself) and what fstat says of it, when it is a regular file, and
 * outside the kernel's file systems when flags ask; else -1.  It says
 * what the path is without opening it: the open of a device is itself an
 * act (a watchdog starts, a tape rewinds), and a FIFO's waits for a
 * writer. */
static int open_path_regular(const char *path, unsigned flags, struct stat *st, const char **what,
                             ctk_error_t *err)
{
    const ctk_seen_kind_t kind_asked = (flags & CTK_READ_NOFOLLOW) ? CTK_SEEN_LSTAT : CTK_SEEN_STAT;
    struct statfs sf;
    int pfd, e;

    pfd = open(path, O_PATH | O_CLOEXEC | ((flags & CTK_READ_NOFOLLOW) ? O_NOFOLLOW : 0));
    if (pfd < 0) {
        e = errno;
        ctk_seen_note(kind_asked, path, NULL, e);
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot open: %s", strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(pfd, st) != 0) {
        e = errno;
        ctk_seen_opaque();
        close(pfd);
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot stat: %s", strerror(e));
        errno = e;
        return -1;
    }
    /* what O_PATH opened is what stat (lstat) answers: the file's identity */
    ctk_seen_note(kind_asked, path, st, 0);
    if (!S_ISREG(st->st_mode)) {
        close(pfd);
        return refuse(path, kind_of(st->st_mode), what, err);
    }
    if ((flags & CTK_READ_NO_KERNEL_FS) && fstatfs(pfd, &sf) == 0 && kernel_fs((long)sf.f_type)) {
        close(pfd);
        return refuse(path, kernel_fs_text, what, err);
    }
    return pfd;
}

/* That very file, pfd, opened for reading through /proc's link to the
 * descriptor: whatever path names by now, this is what was checked.
 * Without /proc, path again, and the same inode, st, asked.  pfd is
 * closed. */
static int reopen_for_reading(int pfd, const char *path, unsigned flags, const struct stat *st, ctk_error_t *err)
{
    struct stat st2;
    char self[64];
    int fd, e;

    snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
    fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
                            ((flags & CTK_READ_NOFOLLOW) ? O_NOFOLLOW : 0));
    e = errno;
    close(pfd);
    if (fd < 0) {
        ctk_seen_opaque(); /* refused for a reason no identity shows */
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot open: %s", strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, &st2) != 0 || st2.st_dev != st->st_dev || st2.st_ino != st->st_ino || !S_ISREG(st2.st_mode)) {
        close(fd);
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "not read: it changed while it was opened");
        return -1;
    }
    return fd;
}

int ctk_file_open_regular(const char *path, unsigned flags, const char **what, ctk_error_t *err)
{
    struct stat st;
    int pfd, fd;

    if (what)
        *what = NULL;
    if (flags & CTK_READ_ANY_TYPE) {
        ctk_seen_opaque(); /* a read of anything: no identity stands for it */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
            ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot open: %s", strerror(errno));
        return fd;
    }
    if ((pfd = open_path_regular(path, flags, &st, what, err)) < 0)
        return -1;
    return reopen_for_reading(pfd, path, flags, &st, err);
}

char *ctk_file_read_fd(int fd, const char *path, size_t max_bytes, size_t *len, ctk_error_t *err)
{
    ctk_buf_t b;
    char chunk[8192];
    ssize_t n;

    ctk_buf_init(&b);
    for (;;) {
        n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot read: %s", strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        if (b.len + (size_t)n > max_bytes) {
            ctk_error_set(err, CTK_E_IO, path, 0, 0, "file is larger than %zu bytes", max_bytes);
            goto fail;
        }
        if (!ctk_buf_append(&b, chunk, (size_t)n)) {
            ctk_error_nomem(err);
            goto fail;
        }
    }
    if (!ctk_buf_append(&b, "", 0)) {
        ctk_error_nomem(err);
        goto fail;
    }
    return ctk_buf_take(&b, len);
fail:
    ctk_buf_fini(&b);
    return NULL;
}

char *ctk_file_read_ex(const char *path, size_t max_bytes, unsigned flags, size_t *len, const char **what,
                       ctk_error_t *err)
{
    int fd = ctk_file_open_regular(path, flags, what, err);
    char *text;

    if (fd < 0)
        return NULL;
    text = ctk_file_read_fd(fd, path, max_bytes, len, err);
    close(fd);
    return text;
}

char *ctk_file_read(const char *path, size_t max_bytes, size_t *len, ctk_error_t *err)
{
    return ctk_file_read_ex(path, max_bytes, 0, len, NULL, err);
}

static void seen_note_real(const char *path, const char *real, int errnum);

/* stat(path) into st, noted in the active record (ctk_seen_begin). */
static int stat_seen(const char *path, struct stat *st)
{
    int r = stat(path, st);

    ctk_seen_note(CTK_SEEN_STAT, path, r == 0 ? st : NULL, r == 0 ? 0 : errno);
    return r;
}

bool ctk_is_dir(const char *path)
{
    struct stat st;

    return stat_seen(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool ctk_is_file(const char *path)
{
    struct stat st;

    return stat_seen(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool ctk_is_executable(const char *path)
{
    int r;

    if (!ctk_is_file(path))
        return false;
    r = access(path, X_OK);
    ctk_seen_note(CTK_SEEN_EXEC, path, NULL, r == 0 ? 0 : errno);
    return r == 0;
}

char *ctk_realpath(const char *path)
{
    char *real = realpath(path, NULL);

    seen_note_real(path, real, real ? 0 : errno);
    return real;
}

bool ctk_same_file(const char *a, const char *b)
{
    struct stat sa, sb;

    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* FNV-1a, four bytes a turn (the same hash: only the loop is unrolled). */
uint64_t ctk_hash_update(uint64_t h, const void *data, size_t len)
{
    const uint64_t prime = 0x100000001b3ULL;
    const unsigned char *p = data, *end = p + len;

    for (; end - p >= 4; p += 4) {
        h = (h ^ p[0]) * prime;
        h = (h ^ p[1]) * prime;
        h = (h ^ p[2]) * prime;
        h = (h ^ p[3]) * prime;
    }
    for (; p < end; p++)
        h = (h ^ *p) * prime;
    return h;
}

uint64_t ctk_hash_size(uint64_t h, size_t n)
{
    uint64_t v = (uint64_t)n;

    return ctk_hash_update(h, &v, sizeof v);
}

uint64_t ctk_hash_mix(uint64_t h, const void *data, size_t len)
{
    const uint64_t k = 0x9e3779b97f4a7c15ULL;
    const unsigned char *p = data;
    uint64_t w = 0;

    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    w = 0;
    memcpy(&w, p, len);
    h = (h ^ w ^ ((uint64_t)len << 56)) * k;
    return h ^ (h >> 29);
}

/* spelt in hex without printf: every file generate writes is hashed */
void ctk_hash_fmt(uint64_t h, char out[17])
{
    static const char hex[] = "0123456789abcdef";
    int i;

    for (i = 15; i >= 0; i--, h >>= 4)
        out[i] = hex[h & 0xf];
    out[16] = '\0';
}

typedef struct {
    uint64_t h;
    bool ok;
    size_t seen; /* objects so far: the first is the program itself */
} self_hash_t;

/* The GNU build ID note in one PT_NOTE segment, fed to h; false if none. */
static bool hash_build_id(const char *seg, size_t len, uint64_t *h)
{
    size_t pos = 0;

    while (pos + sizeof(ElfW(Nhdr)) <= len) {
        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)(seg + pos);
        size_t name = (n->n_namesz + 3) & ~(size_t)3, desc = (n->n_descsz + 3) & ~(size_t)3;
        const char *p = seg + pos + sizeof *n;

        if (name > len || desc > len || pos + sizeof *n + name + desc > len)
            return false;
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(p, "GNU", 4) == 0 &&
            n->n_descsz > 0) {
            *h = ctk_hash_size(*h, n->n_descsz);
            *h = ctk_hash_update(*h, p + name, n->n_descsz);
            return true;
        }
        pos += sizeof *n + name + desc;
    }
    return false;
}

/* A file's identity, fed to h; false when it cannot be had. */
static bool hash_file_identity(const char *path, uint64_t *h)
{
    struct stat st;
    int64_t id[7];

    if (stat(path, &st) < 0)
        return false;
    id[0] = (int64_t)st.st_dev;
    id[1] = (int64_t)st.st_ino;
    id[2] = (int64_t)st.st_size;
    id[3] = (int64_t)st.st_mtim.tv_sec;
    id[4] = (int64_t)st.st_mtim.tv_nsec;
    id[5] = (int64_t)st.st_ctim.tv_sec;
    id[6] = (int64_t)st.st_ctim.tv_nsec;
    *h = ctk_hash_size(*h, strlen(path));
    *h = ctk_hash_update(*h, path, strlen(path));
    *h = ctk_hash_update(*h, id, sizeof id);
    return true;
}

static int hash_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    self_hash_t *sh = arg;
    const char *name = sh->seen++ == 0 ? "/proc/self/exe" : info->dlpi_name;
    ElfW(Half) i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_NOTE &&
            hash_build_id((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz, &sh->h))
            return 0;
    }
    /* an object loaded from no file (the vDSO) is the kernel's */
    if (!name || !strchr(name, '/'))
        return 0;
    if (!hash_file_identity(name, &sh->h))
        sh->ok = false;
    return 0;
}

bool ctk_hash_self(uint64_t *h)
{
    self_hash_t sh = { *h, true, 0 };

    dl_iterate_phdr(hash_object, &sh);
    *h = sh.h;
    return sh.ok;
}

bool ctk_strmap_init(ctk_strmap_t *m, size_t n, ctk_error_t *err)
{
    size_t cap = 16;

    while (cap < 2 * n + 2)
        cap *= 2;
    m->n = 0;
    m->mask = cap - 1;
    m->key = calloc(cap, sizeof *m->key);
    m->val = calloc(cap, sizeof *m->val);
    if (m->key && m->val)
        return true;
    ctk_strmap_fini(m);
    ctk_error_nomem(err);
    return false;
}

void ctk_strmap_fini(ctk_strmap_t *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t strmap_slot(const ctk_strmap_t *m, const char *key)
{
    size_t i = (size_t)ctk_hash_update(CTK_HASH_INIT, key, strlen(key)) & m->mask;

    while (m->key[i] && strcmp(m->key[i], key) != 0)
        i = (i + 1) & m->mask;
    return i;
}

const size_t *ctk_strmap_get(const ctk_strmap_t *m, const char *key)
{
    size_t i = strmap_slot(m, key);

    return m->key[i] ? &m->val[i] : NULL;
}

bool ctk_strmap_add(ctk_strmap_t *m, const char *key, size_t val)
{
    size_t i = strmap_slot(m, key);

    if (m->key[i])
        return false;
    m->key[i] = key;
    m->val[i] = val;
    m->n++;
    return true;
}

void ctk_hash_hex(const void *data, size_t len, char out[17])
{
    ctk_hash_fmt(ctk_hash_update(CTK_HASH_INIT, data, len), out);
}

bool ctk_write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        data += n;
        len -= (size_t)n;
    }
    return true;
}

void ctk_remove_tree(const char *path)
{
    struct stat st;
    DIR *d;
    struct dirent *e;

    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
        while ((e = readdir(d))) {
            char *sub;

            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if ((sub = ctk_path_join(path, e->d_name, NULL))) {
                ctk_remove_tree(sub);
                free(sub);
            }
        }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

size_t ctk_edit_distance(const char *a, const char *b)
{
    enum { MAXLEN = 63 };
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t d[MAXLEN + 1][MAXLEN + 1];

    if (la > MAXLEN || lb > MAXLEN)
        return SIZE_MAX;
    for (i = 0; i <= la; i++)
        d[i][0] = i;
    for (j = 0; j <= lb; j++)
        d[0][j] = j;
    for (i = 1; i <= la; i++) {
        for (j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1], best = d[i - 1][j - 1] + cost;

            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* ---- what a piece of work looked at ----------------------------------------- */
typedef struct {
    ctk_seen_kind_t kind;
    size_t path;     /* offset of the path in the record's paths */
    size_t len;
    uint64_t key;    /* hash of kind and path: the table's */
    uint64_t answer; /* hash of the answer, as first given */
} seen_q_t;

#define SEEN_RECENT 4

struct ctk_seen {
    seen_q_t *q;
    size_t n, cap;
    size_t recent[SEEN_RECENT]; /* the questions asked last: index + 1, 0 none */
    size_t next_recent;
    ctk_buf_t paths; /* every question's path, each after the last, NUL-ended */
    size_t *slot; /* [mask + 1]: index + 1 into q, 0 free */
    size_t mask;
    bool opaque, lost;
};

static _Thread_local ctk_seen_t *seen_now;

ctk_seen_t *ctk_seen_new(void)
{
    ctk_seen_t *s = calloc(1, sizeof(ctk_seen_t));

    if (s)
        ctk_buf_init(&s->paths);
    return s;
}

void ctk_seen_free(ctk_seen_t *s)
{
    if (!s)
        return;
    ctk_buf_fini(&s->paths);
    free(s->q);
    free(s->slot);
    free(s);
}

void ctk_seen_begin(ctk_seen_t *s)
{
    seen_now = s;
}

void ctk_seen_end(void)
{
    seen_now = NULL;
}

void ctk_seen_opaque(void)
{
    if (seen_now)
        seen_now->opaque = true;
}

bool ctk_seen_usable(const ctk_seen_t *s)
{
    return s && !s->opaque && !s->lost;
}

size_t ctk_seen_count(const ctk_seen_t *s)
{
    return s->n;
}

size_t ctk_seen_question_len(const ctk_seen_t *s, size_t i)
{
    return s->q[i].len;
}

const char *ctk_seen_question(const ctk_seen_t *s, size_t i, ctk_seen_kind_t *kind)
{
    *kind = s->q[i].kind;
    return s->paths.data + s->q[i].path;
}

static uint64_t seen_key(ctk_seen_kind_t kind, const char *path, size_t len)
{
    return ctk_hash_mix(CTK_HASH_INIT + (uint64_t)kind, path, len);
}

/* The answer to a stat-like question: the identity, or the errno. */
static uint64_t stat_answer(const struct stat *st, int errnum)
{
    uint64_t v[10];

    if (!st) {
        v[0] = 0;
        v[1] = (uint64_t)errnum;
        return ctk_hash_mix(CTK_HASH_INIT, v, 2 * sizeof *v);
    }
    v[0] = 1;
    v[1] = (uint64_t)st->st_dev;
    v[2] = (uint64_t)st->st_ino;
    v[3] = (uint64_t)st->st_mode | (uint64_t)st->st_uid << 32;
    v[4] = (uint64_t)st->st_gid;
    v[5] = (uint64_t)st->st_size;
    v[6] = (uint64_t)st->st_mtim.tv_sec;
    v[7] = (uint64_t)st->st_mtim.tv_nsec;
    v[8] = (uint64_t)st->st_ctim.tv_sec;
    v[9] = (uint64_t)st->st_ctim.tv_nsec;
    return ctk_hash_mix(CTK_HASH_INIT, v, sizeof v);
}

static uint64_t real_answer(const char *real, int errnum)
{
    uint64_t e = (uint64_t)errnum;

    return real ? ctk_hash_mix(CTK_HASH_INIT, real, strlen(real) + 1)
                : ctk_hash_mix(CTK_HASH_INIT, &e, sizeof e);
}

/* The question's index in s, added (answer 0) when new; SIZE_MAX when
 * memory runs out (s is then lost). */
static size_t seen_find_add(ctk_seen_t *s, ctk_seen_kind_t kind, const char *path, size_t len,
                            uint64_t key, bool *added)
{
    size_t i;

    *added = false;
    if (s->n * 2 >= s->mask) { /* the table at most half full */
        size_t nmask = s->mask ? s->mask * 2 + 1 : 127, *ns = calloc(nmask + 1, sizeof *ns);

        if (!ns) {
            s->lost = true;
            return SIZE_MAX;
        }
        for (i = 0; i < s->n; i++) {
            size_t j = (size_t)s->q[i].key & nmask;

            while (ns[j])
                j = (j + 1) & nmask;
            ns[j] = i + 1;
        }
        free(s->slot);
        s->slot = ns;
        s->mask = nmask;
    }
    for (i = (size_t)key & s->mask; s->slot[i]; i = (i + 1) & s->mask) {
        seen_q_t *q = &s->q[s->slot[i] - 1];

        if (q->key == key && q->kind == kind && q->len == len &&
            memcmp(s->paths.data + q->path, path, len) == 0)
            return s->slot[i] - 1;
    }
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 32;
        seen_q_t *nq = realloc(s->q, ncap * sizeof *nq);

        if (!nq) {
            s->lost = true;
            return SIZE_MAX;
        }
        s->q = nq;
        s->cap = ncap;
    }
    s->q[s->n].path = s->paths.len;
    s->q[s->n].len = len;
    if (!ctk_buf_append(&s->paths, path, len) || !ctk_buf_append(&s->paths, "", 1)) {
        s->lost = true;
        return SIZE_MAX;
    }
    s->q[s->n].kind = kind;
    s->q[s->n].key = key;
    s->q[s->n].answer = 0;
    s->slot[i] = s->n + 1;
    *added = true;
    return s->n++;
}

/* Record kind and path with the answer st/errnum (an access answer is its
 * errno alone; a realpath one the resolved path in real), worked out only
 * for a question not asked before. */
static void seen_record(ctk_seen_kind_t kind, const char *path, size_t len, const struct stat *st,
                        const char *real, int errnum)
{
    bool added;
    uint64_t key;
    size_t i;

    if (path[0] != '/') { /* its answer depends on the working directory too */
        seen_now->opaque = true;
        return;
    }
    /* a question asked a moment ago (a lib dir, for each library looked
       for in it) is found without the table */
    for (i = 0; i < SEEN_RECENT; i++) {
        size_t r = seen_now->recent[i];

        if (r && seen_now->q[r - 1].kind == kind && seen_now->q[r - 1].len == len &&
            memcmp(seen_now->paths.data + seen_now->q[r - 1].path, path, len) == 0)
            return;
    }
    key = seen_key(kind, path, len);
    i = seen_find_add(seen_now, kind, path, len, key, &added);
    if (i != SIZE_MAX)
        seen_now->recent[seen_now->next_recent++ % SEEN_RECENT] = i + 1;

    /* the first answer stands: if a later one differs, the tree changed
       while it was looked at, and a recheck will not match both */
    if (i != SIZE_MAX && added)
        seen_now->q[i].answer = kind == CTK_SEEN_REALPATH ? real_answer(real, errnum)
                                : stat_answer(kind == CTK_SEEN_EXEC ? NULL : st, errnum);
}

void ctk_seen_note(ctk_seen_kind_t kind, const char *path, const struct stat *st, int errnum)
{
    if (!seen_now)
        return;
    seen_record(kind, path, strlen(path), st, NULL, errnum);
}

void ctk_seen_note_at(ctk_seen_kind_t kind, const char *dir, const char *name,
                      const struct stat *st, int errnum)
{
    char path[PATH_MAX];
    size_t dl, nl;

    if (!seen_now)
        return;
    dl = strlen(dir);
    nl = strlen(name);
    if (dl + 1 + nl >= sizeof path) {
        seen_now->opaque = true;
        return;
    }
    memcpy(path, dir, dl);
    path[dl] = '/';
    memcpy(path + dl + 1, name, nl + 1);
    ctk_seen_note(kind, path, st, errnum);
}

static void seen_note_real(const char *path, const char *real, int errnum)
{
    if (seen_now)
        seen_record(CTK_SEEN_REALPATH, path, strlen(path), NULL, real, errnum);
}

bool ctk_seen_ask(ctk_seen_t *s, ctk_seen_kind_t kind, const char *path)
{
    bool added;

    if ((unsigned)kind >= CTK_SEEN_KINDS || path[0] != '/')
        return false;
    size_t len = strlen(path);

    return seen_find_add(s, kind, path, len, seen_key(kind, path, len), &added) != SIZE_MAX;
}

/* The hash of the answers a1..an, each beside its question. */
static uint64_t seen_fold(const ctk_seen_t *s, const uint64_t *answers)
{
    uint64_t h = ctk_hash_size(CTK_HASH_INIT, s->n);
    size_t i;

    for (i = 0; i < s->n; i++) {
        uint64_t v[2] = { s->q[i].key, answers ? answers[i] : s->q[i].answer };

        h = ctk_hash_mix(h, v, sizeof v);
    }
    return h;
}

uint64_t ctk_seen_hash(const ctk_seen_t *s)
{
    return seen_fold(s, NULL);
}

static uint64_t ask_now(ctk_seen_kind_t kind, const char *path)
{
    struct stat st;
    char *real;
    uint64_t a;
    int r;

    switch (kind) {
    case CTK_SEEN_STAT:
        r = stat(path, &st);
        return stat_answer(r == 0 ? &st : NULL, r == 0 ? 0 : errno);
    case CTK_SEEN_LSTAT:
        r = lstat(path, &st);
        return stat_answer(r == 0 ? &st : NULL, r == 0 ? 0 : errno);
    case CTK_SEEN_EXEC:
        r = access(path, X_OK);
        return stat_answer(NULL, r == 0 ? 0 : errno);
    case CTK_SEEN_REALPATH:
        real = realpath(path, NULL);
        a = real_answer(real, real ? 0 : errno);
        free(real);
        return a;
    case CTK_SEEN_KINDS:
        break;
    }
    return 0;
}

uint64_t ctk_seen_recheck(const ctk_seen_t *s)
{
    uint64_t *a = malloc((s->n ? s->n : 1) * sizeof *a), h;
    size_t i;

    if (!a)
        return ~ctk_seen_hash(s); /* cannot tell: as if changed */
    for (i = 0; i < s->n; i++)
        a[i] = ask_now(s->q[i].kind, s->paths.data + s->q[i].path);
    h = seen_fold(s, a);
    free(a);
    return h;
}

void ctk_seen_fold_init(ctk_seen_fold_t *f, size_t n)
{
    f->h = ctk_hash_size(CTK_HASH_INIT, n);
}

bool ctk_seen_fold_ask(ctk_seen_fold_t *f, ctk_seen_kind_t kind, const char *path)
{
    uint64_t v[2];

    if ((unsigned)kind >= CTK_SEEN_KINDS || path[0] != '/')
        return false;
    v[0] = seen_key(kind, path, strlen(path));
    v[1] = ask_now(kind, path);
    f->h = ctk_hash_mix(f->h, v, sizeof v);
    return true;
}

uint64_t ctk_seen_fold_end(const ctk_seen_fold_t *f)
{
    return f->h;
}

const char *ctk_tmp_base(void)
{
    const char *tmp = getenv("TMPDIR");

    return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

char *ctk_make_dtemp(const char *dir, const char *name, const char *what, ctk_error_t *err)
{
    char *path = ctk_printf(err, "%s/%s-XXXXXX", dir, name);

    if (path && !mkdtemp(path)) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot create a private %s: %s", what, strerror(errno));
        free(path);
        return NULL;
    }
    return path;
}
