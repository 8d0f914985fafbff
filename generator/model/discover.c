/* discover.c - the scanner: walk directory trees, recognise CUDA toolkit layouts. SPDX-License-Identifier: MIT */
#include <ctkconf.h>

#include "discover.h"

#include "sdk.h"
#include "trust.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char ctk_scan_standard_text[] =
    "/usr/local/cuda, /usr/local/cuda-*, /opt/cuda, /opt/nvidia/hpc_sdk and /usr (Debian)";

/* The standard places: glob patterns, each with its depth (-1: the scan's). */
static const struct {
    const char *pattern;
    int depth;
} standard_roots[] = {
    {"/usr/local/cuda", -1},
    {"/usr/local/cuda-*", -1},
    {"/opt/cuda", -1},
    {"/opt/nvidia/hpc_sdk", -1},
    {"/usr", 0}, /* Debian's layout is /usr itself; never walk all of /usr */
};

#if defined(__aarch64__)
static const char *const target_dirs[] = {"targets/sbsa-linux", "targets/aarch64-linux"};
#else
static const char *const target_dirs[] = {"targets/x86_64-linux"};
#endif

/* ---- names ------------------------------------------------------------------ */

const char *ctk_layout_name(ctk_layout_t layout)
{
    switch (layout) {
    case CTK_LAYOUT_STANDALONE: return "standalone";
    case CTK_LAYOUT_HPCSDK: return "hpcsdk";
    case CTK_LAYOUT_CONDA: return "conda";
    case CTK_LAYOUT_WHEEL: return "wheel";
    case CTK_LAYOUT_DEBIAN: return "debian";
    case CTK_LAYOUT_SPACK: return "spack";
    }
    return "?";
}

const char *ctk_scan_event_name(ctk_scan_event_kind_t kind)
{
    switch (kind) {
    case CTK_SCAN_FOUND: return "found";
    case CTK_SCAN_DUPLICATE: return "duplicate";
    case CTK_SCAN_RUNTIME_ONLY: return "runtime-only";
    case CTK_SCAN_BROKEN: return "broken";
    case CTK_SCAN_UNREADABLE: return "unreadable";
    case CTK_SCAN_DANGLING: return "dangling";
    case CTK_SCAN_LOOP: return "loop";
    case CTK_SCAN_DEPTH: return "depth";
    case CTK_SCAN_WRAPPER: return "wrapper";
    }
    return "?";
}

bool ctk_scan_event_is_problem(ctk_scan_event_kind_t kind)
{
    return kind == CTK_SCAN_BROKEN || kind == CTK_SCAN_UNREADABLE || kind == CTK_SCAN_DANGLING ||
           kind == CTK_SCAN_LOOP;
}

/* Order of layouts within one release: which one a tie goes to. */
static int layout_rank(ctk_layout_t l)
{
    switch (l) {
    case CTK_LAYOUT_STANDALONE: return 0;
    case CTK_LAYOUT_SPACK: return 1;
    case CTK_LAYOUT_DEBIAN: return 2;
    case CTK_LAYOUT_CONDA: return 3;
    case CTK_LAYOUT_WHEEL: return 4;
    case CTK_LAYOUT_HPCSDK: return 5;
    }
    return 6;
}

/* ---- state -------------------------------------------------------------------- */

typedef struct {
    char *path;      /* as found */
    char *real;      /* realpath(path) */
    char *nvcc_real; /* realpath(path/bin/nvcc) */
    char *inc_real;  /* realpath(path/include); NULL when absent */
    int pref;        /* which spelling of a duplicate to keep: higher wins */
    bool skip;       /* a duplicate, or not a working toolkit */
    ctk_layout_t layout;
    char *release;   /* HPC SDK release ("24.11"); NULL for other layouts */
    char *math_libs, *nccl, *nvshmem; /* HPC SDK companions; NULL when absent */
    ctk_version_t v;
    char *name;      /* module version when not the plain X.Y; else NULL */
} cand_t;

typedef struct {
    cand_t *v;
    size_t n, cap;
} cands_t;

/* A directory walked, by (device, inode): open addressing, linear probing. */
enum { VIS_USED = 1, VIS_ON_STACK = 2, VIS_TOOLKIT = 4 };
typedef struct {
    dev_t dev;
    ino_t ino;
    unsigned flags;
    size_t cand;     /* VIS_TOOLKIT: the candidate first found there */
    char *path;      /* the spelling it was first walked under */
} vis_t;

typedef struct {
    ctk_scan_t *res;
    size_t ev_cap;
    cands_t cs;
    vis_t *vis;
    size_t vis_n, vis_cap; /* vis_cap: a power of two, or 0 */
    ctk_strlist_t wrapped; /* toolkits that wrappers run: scanned after the roots */
    ctk_error_t *err;
} scanner_t;

/* One directory's entries, read once. */
typedef struct {
    const char *name;
    unsigned char type; /* DT_* */
} ent_t;

typedef struct {
    ctk_buf_t names; /* NUL-separated */
    size_t *offs;
    unsigned char *types;
    ent_t *v;        /* sorted by name once reading is done */
    size_t n, cap;
} ents_t;

static void cands_fini(cands_t *cs)
{
    size_t i;

    for (i = 0; i < cs->n; i++) {
        cand_t *c = &cs->v[i];

        free(c->path);
        free(c->real);
        free(c->nvcc_real);
        free(c->inc_real);
        free(c->release);
        free(c->math_libs);
        free(c->nccl);
        free(c->nvshmem);
        free(c->name);
    }
    free(cs->v);
    memset(cs, 0, sizeof *cs);
}

static void scanner_fini(scanner_t *s)
{
    size_t i;

    cands_fini(&s->cs);
    ctk_strlist_fini(&s->wrapped);
    for (i = 0; i < s->vis_cap; i++)
        free(s->vis[i].path);
    free(s->vis);
}

/* ---- events ------------------------------------------------------------------- */

static ctk_scan_event_t *event(scanner_t *s, ctk_scan_event_kind_t kind, const char *path,
                               const char *other, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static ctk_scan_event_t *event(scanner_t *s, ctk_scan_event_kind_t kind, const char *path,
                               const char *other, const char *fmt, ...)
{
    ctk_scan_t *r = s->res;
    ctk_scan_event_t *ev;
    ctk_buf_t b;
    va_list ap;

    if (r->n_events == s->ev_cap) {
        size_t cap = s->ev_cap ? s->ev_cap * 2 : 16;
        ctk_scan_event_t *v = realloc(r->events, cap * sizeof *v);

        if (!v) {
            ctk_error_nomem(s->err);
            return NULL;
        }
        r->events = v;
        s->ev_cap = cap;
    }
    ev = &r->events[r->n_events];
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    ev->sdk = (size_t)-1;
    ev->version.patch = -1;
    ctk_buf_init(&b);
    ctk_buf_printf(&b, "%s %s", ctk_scan_event_name(kind), path);
    va_start(ap, fmt);
    {
        char line[2048];

        vsnprintf(line, sizeof line, fmt, ap);
        ctk_buf_puts(&b, line);
    }
    va_end(ap);
    ev->path = ctk_strdup(path, s->err);
    ev->other = other ? ctk_strdup(other, s->err) : NULL;
    ev->text = b.failed ? NULL : ctk_buf_take(&b, NULL);
    ctk_buf_fini(&b);
    r->n_events++; /* counted even when half filled, so ctk_scan_free frees it */
    if (!ev->path || (other && !ev->other) || !ev->text) {
        ctk_error_nomem(s->err);
        return NULL;
    }
    if (kind == CTK_SCAN_RUNTIME_ONLY)
        r->n_runtime_only++;
    if (ctk_scan_event_is_problem(kind))
        r->n_problems++;
    return ev;
}

/* ---- the visited set ------------------------------------------------------------ */

static size_t vis_hash(dev_t dev, ino_t ino)
{
    uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4full;

    return (size_t)(h ^ (h >> 29));
}

static vis_t *vis_find(scanner_t *s, dev_t dev, ino_t ino)
{
    size_t i;

    if (!s->vis_cap)
        return NULL;
    for (i = vis_hash(dev, ino) & (s->vis_cap - 1); s->vis[i].flags & VIS_USED;
         i = (i + 1) & (s->vis_cap - 1))
        if (s->vis[i].dev == dev && s->vis[i].ino == ino)
            return &s->vis[i];
    return NULL;
}

/* Insert (must be absent); takes path (freed even on failure). */
static vis_t *vis_add(scanner_t *s, dev_t dev, ino_t ino, char *path)
{
    size_t i;

    if ((s->vis_n + 1) * 2 > s->vis_cap) {
        size_t cap = s->vis_cap ? s->vis_cap * 2 : 1024, j;
        vis_t *nv = calloc(cap, sizeof *nv);

        if (!nv) {
            free(path);
            ctk_error_nomem(s->err);
            return NULL;
        }
        for (j = 0; j < s->vis_cap; j++) {
            if (!(s->vis[j].flags & VIS_USED))
                continue;
            for (i = vis_hash(s->vis[j].dev, s->vis[j].ino) & (cap - 1); nv[i].flags & VIS_USED;
                 i = (i + 1) & (cap - 1))
                ;
            nv[i] = s->vis[j];
        }
        free(s->vis);
        s->vis = nv;
        s->vis_cap = cap;
    }
    for (i = vis_hash(dev, ino) & (s->vis_cap - 1); s->vis[i].flags & VIS_USED;
         i = (i + 1) & (s->vis_cap - 1))
        ;
    s->vis[i].dev = dev;
    s->vis[i].ino = ino;
    s->vis[i].flags = VIS_USED;
    s->vis[i].cand = 0;
    s->vis[i].path = path;
    s->vis_n++;
    return &s->vis[i];
}

/* ---- small helpers -------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

/* "12.6" (no patch) */
static bool is_xy(const char *name)
{
    int patch;

    return ctk_version_parse(name, NULL, NULL, &patch) && patch < 0;
}

/* Is the component before path's last one equal to name? */
static bool parent_named(const char *path, const char *name)
{
    const char *b = base_name(path), *p;
    size_t n = strlen(name);

    if (b == path || b - 1 == path)
        return false;
    p = b - 1; /* the slash */
    return (size_t)(p - path) >= n && strncmp(p - n, name, n) == 0 &&
           (p - n == path || p[-(long)n - 1] == '/');
}

/* rel names a regular file under dirfd (after links) */
static bool at_file(int dfd, const char *rel)
{
    struct stat st;

    return fstatat(dfd, rel, &st, 0) == 0 && S_ISREG(st.st_mode);
}

static bool at_dir(int dfd, const char *rel)
{
    struct stat st;

    return fstatat(dfd, rel, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

static bool at_executable(int dfd, const char *rel)
{
    return at_file(dfd, rel) && faccessat(dfd, rel, X_OK, 0) == 0;
}

static const ent_t *ents_find(const ents_t *e, const char *name)
{
    size_t lo = 0, hi = e->n;

    while (lo < hi) { /* sorted by strcmp */
        size_t mid = lo + (hi - lo) / 2;
        int r = strcmp(e->v[mid].name, name);

        if (r == 0)
            return &e->v[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void ents_fini(ents_t *e)
{
    ctk_buf_fini(&e->names);
    free(e->offs);
    free(e->types);
    free(e->v);
    memset(e, 0, sizeof *e);
}

static int cmp_ent(const void *a, const void *b)
{
    return strcmp(((const ent_t *)a)->name, ((const ent_t *)b)->name);
}

/* Read every entry but . and .. of d.  Returns 0, an errno value when the
 * directory cannot be read, or -1 on allocation failure (err set). */
static int ents_read(ents_t *e, DIR *d, ctk_error_t *err)
{
    struct dirent *de;
    size_t i;

    for (;;) {
        errno = 0;
        de = readdir(d);
        if (!de) {
            if (errno)
                return errno;
            break;
        }
        if (de->d_name[0] == '.' && (de->d_name[1] == '\0' ||
                                     (de->d_name[1] == '.' && de->d_name[2] == '\0')))
            continue;
        if (e->n == e->cap) {
            size_t cap = e->cap ? e->cap * 2 : 32;
            size_t *o = realloc(e->offs, cap * sizeof *o);
            unsigned char *t;

            if (!o)
                goto nomem;
            e->offs = o;
            t = realloc(e->types, cap);
            if (!t)
                goto nomem;
            e->types = t;
            e->cap = cap;
        }
        e->offs[e->n] = e->names.len;
        e->types[e->n] = de->d_type;
        if (!ctk_buf_append(&e->names, de->d_name, strlen(de->d_name) + 1))
            goto nomem;
        e->n++;
    }
    e->v = malloc((e->n ? e->n : 1) * sizeof *e->v);
    if (!e->v)
        goto nomem;
    for (i = 0; i < e->n; i++) {
        e->v[i].name = e->names.data + e->offs[i];
        e->v[i].type = e->types[i];
    }
    qsort(e->v, e->n, sizeof *e->v, cmp_ent);
    return 0;
nomem:
    ctk_error_nomem(err);
    return -1;
}

/* ---- candidates --------------------------------------------------------------------- */

/* The real directory (not a symlink) beats an alias; a name carrying a
 * release ("cuda-13.0", "12.6") beats one that does not ("cuda"). */
static int preference(const char *path)
{
    const char *b = base_name(path), *p;
    struct stat st;
    int pref = 0;

    if (lstat(path, &st) == 0 && !S_ISLNK(st.st_mode))
        pref += 2;
    for (p = b; *p; p++) {
        if (p > b && *p == '.' && p[-1] >= '0' && p[-1] <= '9' && p[1] >= '0' && p[1] <= '9') {
            pref += 1;
            break;
        }
    }
    return pref;
}

/* Record a toolkit directory; *index gets its candidate number. */
static bool collect(scanner_t *s, const char *path, ctk_layout_t layout, size_t *index)
{
    cands_t *cs = &s->cs;
    cand_t *c;
    char *nvcc, *inc;
    size_t i;

    for (i = 0; i < cs->n; i++) {
        if (strcmp(cs->v[i].path, path) == 0) {
            *index = i;
            return true;
        }
    }
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 8;
        cand_t *v = realloc(cs->v, cap * sizeof *v);

        if (!v) {
            ctk_error_nomem(s->err);
            return false;
        }
        cs->v = v;
        cs->cap = cap;
    }
    c = &cs->v[cs->n];
    memset(c, 0, sizeof *c);
    c->layout = layout;
    c->v.patch = -1;
    if (!(c->path = ctk_strdup(path, s->err)))
        return false;
    *index = cs->n++;
    if (!(c->real = ctk_realpath(c->path))) {
        c->skip = true; /* vanished since the walk saw it */
        return true;
    }
    if (!(nvcc = ctk_path_join(c->path, "bin/nvcc", s->err)))
        return false;
    c->nvcc_real = ctk_realpath(nvcc);
    free(nvcc);
    if (!(inc = ctk_path_join(c->path, "include", s->err)))
        return false;
    c->inc_real = ctk_realpath(inc);
    free(inc);
    c->pref = preference(c->path);
    return true;
}

static char *child_path(const char *dir, const char *name, ctk_error_t *err);

/* ---- wrappers and system prefixes ------------------------------------------------------------ */

bool ctk_scan_is_system_prefix(const char *path)
{
    static const char *const prefixes[] = {"/", "/usr", "/usr/local", "/opt"};
    char *real = ctk_realpath(path);
    bool hit = false;
    size_t i;

    for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        hit = hit || strcmp(path, prefixes[i]) == 0 || (real && strcmp(real, prefixes[i]) == 0);
    free(real);
    return hit;
}

/* The first bytes of the regular file rel under dfd, NUL-terminated, when
 * it is a script ("#!"); NULL otherwise (or on allocation failure, err
 * set).  O_NONBLOCK: a FIFO planted as bin/nvcc never hangs the scan. */
static char *read_script(int dfd, const char *rel, ctk_error_t *err)
{
    enum { MAX = 16384 };
    int fd = openat(dfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    char *text = NULL;
    ssize_t n;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto out;
    if (!(text = malloc(MAX + 1))) {
        ctk_error_nomem(err);
        goto out;
    }
    n = read(fd, text, MAX);
    if (n < 2 || text[0] != '#' || text[1] != '!') {
        free(text);
        text = NULL;
        goto out;
    }
    text[n] = '\0';
out:
    close(fd);
    return text;
}

/* Does the executable nvcc lead to a file other than self_real? */
static bool other_nvcc(const char *nvcc, const char *self_real)
{
    char *real;
    bool other;

    if (!ctk_is_executable(nvcc) || !(real = ctk_realpath(nvcc)))
        return false;
    other = !self_real || strcmp(real, self_real) != 0;
    free(real);
    return other;
}

/* The root of the toolkit a wrapper script names: the first absolute path
 * ending in /bin/nvcc, as a word of its own, whose file is an executable
 * other than the wrapper (self_real); NULL when none (err set only for
 * memory). */
static char *named_root(const char *text, const char *self_real, ctk_error_t *err)
{
    static const char tail[] = "/bin/nvcc", stops[] = " \t\r\n\"'=(:;|&`";
    const char *p, *b, *end;

    for (p = strstr(text, tail); p; p = strstr(p + 1, tail)) {
        char *nvcc;
        bool ok;

        end = p + sizeof tail - 1;
        if (*end && !strchr(stops, *end))
            continue;
        for (b = p; b > text && !strchr(stops, b[-1]); b--)
            ;
        if (*b != '/' || !(nvcc = ctk_strndup(b, (size_t)(end - b), err)))
            continue;
        ok = other_nvcc(nvcc, self_real);
        free(nvcc);
        if (ok)
            return ctk_strndup(b, (size_t)(p - b), err);
    }
    return NULL;
}

/* A system prefix's bin/nvcc (spelled nvcc, resolving to real): a link
 * into a toolkit's bin/, or what a trusted nvcc names as its _HERE_.
 * *how says which; *why, when neither, why not. */
static char *prefix_root(const char *nvcc, const char *real, const char **how, char *why,
                         size_t why_len, ctk_error_t *err)
{
    char *here, *root = NULL;

    if (real && strcmp(real, nvcc) != 0 && strlen(real) > 9 &&
        strcmp(real + strlen(real) - 9, "/bin/nvcc") == 0) {
        *how = "is a link to";
        return ctk_strndup(real, strlen(real) - 9, err);
    }
    if (!ctk_trust_exec(nvcc, why, why_len))
        return NULL; /* another user's program: never run */
    snprintf(why, why_len, "`%s -dryrun` names no other toolkit", nvcc);
    if (!(here = ctk_sdk_nvcc_here(nvcc, err)))
        return NULL;
    *how = "says (its _HERE_ in `nvcc -dryrun`) it is";
    if (strcmp(base_name(here), "bin") == 0 && here != base_name(here))
        root = ctk_strndup(here, (size_t)(base_name(here) - here - 1), err);
    free(here);
    return root;
}

/* Is the directory path (dfd) a wrapper's, not a toolkit?  When its
 * bin/nvcc runs another toolkit's nvcc, that toolkit is queued for the
 * scan and a WRAPPER event says so; a system prefix is never a toolkit
 * (a BROKEN event when it leads nowhere).  False: take it as a toolkit
 * (or memory ran out: s->err is set). */
static bool follow_wrapper(scanner_t *s, int dfd, const char *path)
{
    bool sys = ctk_scan_is_system_prefix(path), taken = false;
    char *nvcc = child_path(path, "bin/nvcc", s->err), *real = NULL, *text = NULL, *root = NULL;
    const char *how = "is a wrapper script of";
    char why[1024] = "it is no wrapper script naming another nvcc";

    if (!nvcc)
        return false;
    real = ctk_realpath(nvcc);
    if ((text = read_script(dfd, "bin/nvcc", s->err)))
        root = named_root(text, real, s->err);
    if (!root && sys && !ctk_error_is_set(s->err))
        root = prefix_root(nvcc, real, &how, why, sizeof why, s->err);
    if (ctk_error_is_set(s->err))
        goto out;
    if (root) {
        taken = (ctk_strlist_contains(&s->wrapped, root) || ctk_strlist_push(&s->wrapped, root, s->err)) &&
                event(s, CTK_SCAN_WRAPPER, path, root, ": bin/nvcc %s %s/bin/nvcc: %s is scanned, not %s",
                      how, root, root, path) != NULL;
    } else if (sys) {
        taken = event(s, CTK_SCAN_BROKEN, path, NULL,
                      ": a system prefix, never a toolkit by itself, and its bin/nvcc leads to no "
                      "toolkit (%s)", why) != NULL;
    }
out:
    free(nvcc);
    free(real);
    free(text);
    free(root);
    return taken;
}

/* ---- recognising layouts ------------------------------------------------------------------ */

typedef enum {
    SEEN_NOTHING = 0, /* walk on below */
    SEEN_TOOLKIT,     /* a toolkit: stop here (HPC SDK cuda/: its X.Y children too) */
    SEEN_RUNTIME,     /* runtime-only, reported; walk on below */
    SEEN_LEAVE        /* nothing to report, and nothing below worth a look */
} seen_t;

/* What kind of toolkit the directory dfd (spelled path, entries e) is;
 * called only when it has an executable bin/nvcc. */
static ctk_layout_t toolkit_layout(int dfd, const char *path, const ents_t *e)
{
    const char *b = base_name(path);

    if (ents_find(e, "lib") && at_executable(dfd, "lib/nvidia-cuda-toolkit/bin/nvcc"))
        return CTK_LAYOUT_DEBIAN;
    if (ents_find(e, ".spack") && at_file(dfd, ".spack/spec.json"))
        return CTK_LAYOUT_SPACK;
    if (ents_find(e, "conda-meta") && at_dir(dfd, "conda-meta"))
        return CTK_LAYOUT_CONDA;
    if (parent_named(path, "nvidia") && b[0] == 'c' && b[1] == 'u' && b[2] >= '0' && b[2] <= '9')
        return CTK_LAYOUT_WHEEL;
    if (is_xy(b) && parent_named(path, "cuda"))
        return CTK_LAYOUT_HPCSDK;
    return CTK_LAYOUT_STANDALONE;
}

/* The runtime of a tree without nvcc: include dir relative to dfd, or NULL. */
static const char *runtime_include(int dfd, const char *path, const ents_t *e, const char **what)
{
    static char rel[64];
    size_t i;

    if (strcmp(base_name(path), "nvidia") == 0 && ents_find(e, "cuda_runtime") &&
        at_file(dfd, "cuda_runtime/include/cuda_runtime_api.h")) {
        *what = "NVIDIA's per-component wheels (nvidia/cuda_runtime)";
        return "cuda_runtime/include";
    }
    if (ents_find(e, "conda-meta") && ents_find(e, "targets")) {
        for (i = 0; i < sizeof target_dirs / sizeof target_dirs[0]; i++) {
            snprintf(rel, sizeof rel, "%s/include/cuda_runtime_api.h", target_dirs[i]);
            if (at_file(dfd, rel)) {
                snprintf(rel, sizeof rel, "%s/include", target_dirs[i]);
                *what = "a conda environment without cuda-nvcc";
                return rel;
            }
        }
    }
    return NULL;
}

static seen_t recognise(scanner_t *s, int dfd, const char *path, const ents_t *e, vis_t *vis)
{
    const char *rel, *what = NULL;

    if (ents_find(e, "bin") && at_executable(dfd, "bin/nvcc")) {
        ctk_layout_t layout = toolkit_layout(dfd, path, e);
        size_t idx;

        /* the NVIDIA HPC SDK's compiler driver: its CUDA is ../cuda */
        if (strcmp(base_name(path), "compilers") == 0 && at_dir(dfd, "../cuda"))
            return SEEN_LEAVE;
        /* Debian's bin/nvcc is a wrapper of its own lib/nvidia-cuda-toolkit */
        if (layout != CTK_LAYOUT_DEBIAN && follow_wrapper(s, dfd, path))
            return SEEN_NOTHING;
        if (!collect(s, path, layout, &idx))
            return SEEN_NOTHING;
        vis->flags |= VIS_TOOLKIT;
        vis->cand = idx;
        return SEEN_TOOLKIT;
    }
    rel = runtime_include(dfd, path, e, &what);
    if (rel) {
        char *inc = ctk_path_join(path, rel, s->err);
        ctk_version_t v;
        ctk_error_t verr;
        ctk_scan_event_t *ev;

        if (!inc)
            return SEEN_NOTHING;
        ctk_error_init(&verr);
        if (ctk_version_detect(NULL, inc, NULL, &v, &verr))
            ev = event(s, CTK_SCAN_RUNTIME_ONLY, path, NULL,
                       ": CUDA %d.%d runtime (CUDART_VERSION in %s/cuda_runtime_api.h) and no nvcc: "
                       "%s, not a toolkit",
                       v.major, v.minor, inc, what);
        else
            ev = event(s, CTK_SCAN_RUNTIME_ONLY, path, NULL,
                       ": a CUDA runtime of unknown release (no CUDART_VERSION in "
                       "%s/cuda_runtime_api.h) and no nvcc: %s, not a toolkit",
                       inc, what);
        free(inc);
        if (ev && v.major)
            ev->version = v;
        return SEEN_RUNTIME;
    }
    return SEEN_NOTHING;
}

/* ---- the walk ---------------------------------------------------------------------------- */

static char *child_path(const char *dir, const char *name, ctk_error_t *err)
{
    if (strcmp(dir, "/") == 0)
        return ctk_printf(err, "/%s", name);
    return ctk_printf(err, "%s/%s", dir, name);
}

/* A link's target for messages (static buffer: used at once). */
static const char *link_text(int dfd, const char *name)
{
    static char buf[4096];
    ssize_t n = readlinkat(dfd, name, buf, sizeof buf - 1);

    if (n < 0)
        n = 0;
    buf[n] = '\0';
    return buf;
}

static bool walk(scanner_t *s, int pfd, const char *name, char *path, int depth, int max_depth,
                 bool hpc_child);

/* A child entry that may be a directory: follow it when it is one. */
static bool visit_entry(scanner_t *s, int dfd, const char *dpath, const ent_t *en, int depth,
                        int max_depth, bool hpc_child)
{
    unsigned char type = en->type;
    struct stat st;
    char *path;

    if (type == DT_UNKNOWN) {
        if (fstatat(dfd, en->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return true;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
    }
    if (type != DT_DIR && type != DT_LNK)
        return true;
    if (!(path = child_path(dpath, en->name, s->err)))
        return false;
    if (type == DT_LNK) {
        if (fstatat(dfd, en->name, &st, 0) != 0) {
            int e = errno;
            bool ok = true;

            if (e == ENOENT)
                ok = event(s, CTK_SCAN_DANGLING, path, link_text(dfd, en->name), " -> %s",
                           link_text(dfd, en->name)) != NULL;
            else if (e == ELOOP)
                ok = event(s, CTK_SCAN_LOOP, path, NULL, " -> %s: the links never end in a file",
                           link_text(dfd, en->name)) != NULL;
            else
                ok = event(s, CTK_SCAN_UNREADABLE, path, NULL, ": %s", strerror(e)) != NULL;
            free(path);
            return ok;
        }
        if (!S_ISDIR(st.st_mode)) {
            free(path);
            return true;
        }
    }
    return walk(s, dfd, en->name, path, depth, max_depth, hpc_child);
}

/* The directory name under pfd, spelled path, opened: its fd and *st;
 * -1 when it cannot be (a loop, a dangling link, or unreadable: said as an
 * event, *ok false only when the event could not be kept). */
static int open_walk_dir(scanner_t *s, int pfd, const char *name, const char *path, int depth, struct stat *st,
                         bool *ok)
{
    int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC), er;

    *ok = true;
    if (fd >= 0 && fstat(fd, st) == 0)
        return fd;
    er = errno;
    if (fd >= 0) {
        close(fd);
        *ok = event(s, CTK_SCAN_UNREADABLE, path, NULL, ": %s", strerror(er)) != NULL;
    } else if (er == ELOOP) {
        *ok = event(s, CTK_SCAN_LOOP, path, NULL, ": %s", strerror(er)) != NULL;
    } else if (er == ENOENT && fstatat(pfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st->st_mode)) {
        *ok = event(s, CTK_SCAN_DANGLING, path, link_text(pfd, name), " -> %s", link_text(pfd, name)) != NULL;
    } else if (er != ENOTDIR || depth == 0) {
        *ok = event(s, CTK_SCAN_UNREADABLE, path, NULL, ": %s", strerror(er)) != NULL;
    }
    return -1;
}

/* A directory seen before, reached again by path: a loop when it is on
 * the walk's stack, another spelling of a toolkit (the duplicate check
 * picks one), or nothing more to do. */
static bool walk_seen(scanner_t *s, const char *path, const vis_t *vis)
{
    size_t idx;

    if (vis->flags & VIS_ON_STACK)
        return event(s, CTK_SCAN_LOOP, path, vis->path, ": leads back to %s", vis->path) != NULL;
    if (vis->flags & VIS_TOOLKIT)
        return collect(s, path, s->cs.v[vis->cand].layout, &idx);
    return true;
}

/* The entries e of the open directory d (path): a toolkit is collected (an
 * HPC SDK's unversioned cuda/ has toolkits for X.Y children too), else each
 * subdirectory is walked, up to max_depth, and what lies beyond said. */
static bool walk_entries(scanner_t *s, DIR *d, const char *path, ents_t *e, vis_t *vis, int depth, int max_depth,
                         bool hpc_child)
{
    seen_t seen = recognise(s, dirfd(d), path, e, vis);
    size_t i, subdirs = 0;
    bool ok = true;

    if (ctk_error_is_set(s->err))
        return false;
    if (seen == SEEN_TOOLKIT) {
        if (strcmp(base_name(path), "cuda") == 0 && !hpc_child)
            for (i = 0; ok && i < e->n; i++)
                if (is_xy(e->v[i].name))
                    ok = visit_entry(s, dirfd(d), path, &e->v[i], depth + 1, max_depth, true);
        return ok;
    }
    if (seen == SEEN_LEAVE || hpc_child)
        return true;
    for (i = 0; ok && i < e->n; i++) {
        if (e->v[i].name[0] == '.')
            continue;
        if (depth >= max_depth) {
            subdirs += e->v[i].type == DT_DIR || e->v[i].type == DT_LNK || e->v[i].type == DT_UNKNOWN;
            continue;
        }
        ok = visit_entry(s, dirfd(d), path, &e->v[i], depth + 1, max_depth, false);
    }
    if (ok && subdirs)
        ok = event(s, CTK_SCAN_DEPTH, path, NULL, ": %zu entr%s below not looked at (depth limit %d reached)",
                   subdirs, subdirs == 1 ? "y" : "ies", max_depth) != NULL;
    return ok;
}

/* Walk the directory name under pfd, spelled path (taken: freed here), at
 * depth.  Returns false only on allocation failure. */
static bool walk(scanner_t *s, int pfd, const char *name, char *path, int depth, int max_depth,
                 bool hpc_child)
{
    ents_t e;
    DIR *d = NULL;
    struct stat st;
    vis_t *vis;
    char *vp;
    size_t vi;
    bool ok = true;
    int fd, rc;

    memset(&e, 0, sizeof e);
    ctk_buf_init(&e.names);
    if ((fd = open_walk_dir(s, pfd, name, path, depth, &st, &ok)) < 0)
        goto out;
    if ((vis = vis_find(s, st.st_dev, st.st_ino))) {
        close(fd);
        ok = walk_seen(s, path, vis);
        goto out;
    }
    if (!(d = fdopendir(fd))) {
        ok = event(s, CTK_SCAN_UNREADABLE, path, NULL, ": %s", strerror(errno)) != NULL;
        close(fd);
        goto out;
    }
    if (!(vp = ctk_strdup(path, s->err)) || !(vis = vis_add(s, st.st_dev, st.st_ino, vp))) {
        ok = false;
        goto out;
    }
    vis->flags |= VIS_ON_STACK;
    vi = (size_t)(vis - s->vis); /* the table may move while we walk below */
    s->res->dirs_visited++;
    if ((rc = ents_read(&e, d, s->err)) != 0)
        ok = rc > 0 && event(s, CTK_SCAN_UNREADABLE, path, NULL, ": %s", strerror(rc)) != NULL;
    else
        ok = walk_entries(s, d, path, &e, vis, depth, max_depth, hpc_child);
    s->vis[vi].flags &= ~(unsigned)VIS_ON_STACK;
out:
    ents_fini(&e);
    if (d)
        closedir(d);
    free(path);
    return ok && !ctk_error_is_set(s->err);
}

/* ---- after the walk: duplicates, companions, verification, names ---------------------------- */

static bool same_str(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* One toolkit reached twice: the same directory, or a tree whose bin/nvcc
 * and include/ are links into another (an HPC SDK's unversioned cuda/).
 * Trees that only share files (hard or symbolic links to each file, or a
 * linked bin/ with headers of their own) are toolkits of their own. */
static bool same_toolkit(const cand_t *a, const cand_t *b)
{
    return same_str(a->real, b->real) ||
           (same_str(a->nvcc_real, b->nvcc_real) && same_str(a->inc_real, b->inc_real));
}

/* For each group of spellings of one toolkit keep the preferred one. */
static bool drop_duplicates(scanner_t *s)
{
    cands_t *cs = &s->cs;
    size_t i, j;

    for (i = 0; i < cs->n; i++) {
        cand_t *a = &cs->v[i];
        size_t best = i;

        if (!a->real)
            continue;
        for (j = 0; j < cs->n; j++) {
            cand_t *b = &cs->v[j];

            if (j == i || !b->real)
                continue;
            if (!same_toolkit(a, b))
                continue;
            if (b->pref > cs->v[best].pref || (b->pref == cs->v[best].pref && j < best))
                best = j;
        }
        if (best != i) {
            a->skip = true;
            if (!event(s, CTK_SCAN_DUPLICATE, a->path, cs->v[best].path, ": same toolkit as %s",
                       cs->v[best].path))
                return false;
        }
    }
    return true;
}

/* dir/<rel> when it holds <file>; NULL otherwise or on allocation failure
 * (then err is set). */
static char *companion(const char *reldir, const char *rel, const char *file, ctk_error_t *err)
{
    char *dir = ctk_path_join(reldir, rel, err), *f;

    if (!dir)
        return NULL;
    f = ctk_path_join(dir, file, err);
    if (f && ctk_is_file(f)) {
        free(f);
        return dir;
    }
    free(f);
    free(dir);
    return NULL;
}

/* .../<release>/cuda/X.Y: the release and its math_libs and comm_libs. */
static bool hpc_info(cand_t *c, ctk_error_t *err)
{
    const char *xy = base_name(c->path);
    char *cudadir = NULL, *reldir = NULL, *rel = NULL;
    bool ok = false;

    if (c->layout != CTK_LAYOUT_HPCSDK || !is_xy(xy) || xy == c->path)
        return true;
    if (!(cudadir = ctk_strndup(c->path, (size_t)(xy - c->path - 1), err)))
        goto out;
    if (strcmp(base_name(cudadir), "cuda") != 0 || base_name(cudadir) == cudadir) {
        ok = true;
        goto out;
    }
    if (!(reldir = ctk_strndup(cudadir, (size_t)(base_name(cudadir) - cudadir - 1), err)))
        goto out;
    if (!*reldir) {
        ok = true;
        goto out;
    }
    if (!(c->release = ctk_strdup(base_name(reldir), err)))
        goto out;
    if (!(rel = ctk_printf(err, "math_libs/%s", xy)))
        goto out;
    c->math_libs = companion(reldir, rel, "include/cublas_v2.h", err);
    free(rel);
    if (!c->math_libs && ctk_error_is_set(err))
        goto out;
    if (!(rel = ctk_printf(err, "comm_libs/%s/nccl", xy)))
        goto out;
    c->nccl = companion(reldir, rel, "include/nccl.h", err);
    free(rel);
    if (!c->nccl && !ctk_error_is_set(err))
        c->nccl = companion(reldir, "comm_libs/nccl", "include/nccl.h", err);
    if (!c->nccl && ctk_error_is_set(err))
        goto out;
    if (!(rel = ctk_printf(err, "comm_libs/%s/nvshmem", xy)))
        goto out;
    c->nvshmem = companion(reldir, rel, "include/nvshmem.h", err);
    free(rel);
    if (!c->nvshmem && !ctk_error_is_set(err))
        c->nvshmem = companion(reldir, "comm_libs/nvshmem", "include/nvshmem.h", err);
    if (!c->nvshmem && ctk_error_is_set(err))
        goto out;
    ok = true;
out:
    free(cudadir);
    free(reldir);
    return ok;
}

/* Load the toolkit as an SDK with nothing declared: verifies it and reads
 * its version.  A toolkit that does not load is skipped as broken. */
static bool verify(scanner_t *s, cand_t *c)
{
    ctk_sdk_conf_t conf;
    ctk_sdk_t *sdk;
    ctk_error_t e;

    memset(&conf, 0, sizeof conf);
    conf.base = c->path;
    conf.math_libs = c->math_libs;
    conf.nccl = c->nccl;
    conf.nvshmem = c->nvshmem;
    ctk_error_init(&e);
    sdk = ctk_sdk_load(&conf, "<scan>", &e);
    if (!sdk) {
        c->skip = true;
        if (e.code == CTK_E_NOMEM) {
            ctk_error_nomem(s->err);
            return false;
        }
        return event(s, CTK_SCAN_BROKEN, c->path, NULL, ": %s", e.text) != NULL;
    }
    c->v = sdk->version;
    ctk_sdk_free(sdk);
    return true;
}

/* "24.11" < "25.1" */
static int cmp_dotted(const char *a, const char *b)
{
    while (*a || *b) {
        unsigned long x = strtoul(a, (char **)&a, 10), y = strtoul(b, (char **)&b, 10);

        if (x != y)
            return x < y ? -1 : 1;
        if (*a != *b)
            return *a ? (*b ? (*a < *b ? -1 : 1) : 1) : -1;
        if (*a)
            a++, b++;
    }
    return 0;
}

static int cmp_version(const cand_t *a, const cand_t *b)
{
    if (a->v.major != b->v.major)
        return a->v.major < b->v.major ? -1 : 1;
    if (a->v.minor != b->v.minor)
        return a->v.minor < b->v.minor ? -1 : 1;
    if (a->v.patch != b->v.patch)
        return a->v.patch < b->v.patch ? -1 : 1;
    return 0;
}

/* X.Y order; within one X.Y by layout, then patch release, then HPC SDK
 * release newest first, then by path.  generate makes the highest version
 * the default of a config that names none, the first of equal ones: with
 * this order, among equal versions, the layout listed first, then the
 * newest HPC SDK release, so a scanned config needs no "default". */
static int cmp_cand(const void *pa, const void *pb)
{
    const cand_t *a = pa, *b = pb;
    int r;

    if (a->v.major != b->v.major)
        return a->v.major < b->v.major ? -1 : 1;
    if (a->v.minor != b->v.minor)
        return a->v.minor < b->v.minor ? -1 : 1;
    if (layout_rank(a->layout) != layout_rank(b->layout))
        return layout_rank(a->layout) < layout_rank(b->layout) ? -1 : 1;
    if ((r = cmp_version(a, b)) != 0)
        return r;
    if (a->release && b->release && (r = cmp_dotted(a->release, b->release)) != 0)
        return -r;
    return strcmp(a->path, b->path);
}

static const char *eff_name(const cand_t *c, char *xy, size_t n)
{
    if (c->name)
        return c->name;
    snprintf(xy, n, "%d.%d", c->v.major, c->v.minor);
    return xy;
}

/* Does an SDK before v[i] have v[i]'s module version? */
static bool name_taken(const cand_t *v, size_t i)
{
    char a[32], b[32];
    const char *ni = eff_name(&v[i], a, sizeof a);
    size_t j;

    for (j = 0; j < i; j++)
        if (strcmp(ni, eff_name(&v[j], b, sizeof b)) == 0)
            return true;
    return false;
}

/* "lib/python3.11/site-packages/nvidia/cu13" -> the environment's directory name */
static char *wheel_env(const char *path, ctk_error_t *err)
{
    char *p = ctk_strdup(path, err), *q;
    int up;

    if (!p)
        return NULL;
    /* drop nvidia/cuN, then site-packages, then lib/pythonX.Y when present */
    for (up = 0; up < 2 && (q = strrchr(p, '/')) && q != p; up++)
        *q = '\0';
    if (strcmp(base_name(p), "site-packages") == 0 && (q = strrchr(p, '/')) && q != p) {
        *q = '\0';
        if (strncmp(base_name(p), "python", 6) == 0 && (q = strrchr(p, '/')) && q != p) {
            *q = '\0';
            if (strcmp(base_name(p), "lib") == 0 && (q = strrchr(p, '/')) && q != p)
                *q = '\0';
        }
    }
    q = ctk_strdup(base_name(p), err);
    free(p);
    return q;
}

/* what tells SDKs of one release apart: see discover.h */
static char *label_of(const cand_t *c, ctk_error_t *err)
{
    const char *b = base_name(c->path), *dash;
    char *env, *s;

    switch (c->layout) {
    case CTK_LAYOUT_HPCSDK:
        if (c->release)
            return ctk_printf(err, "nvhpc-%s", c->release);
        break;
    case CTK_LAYOUT_CONDA:
        return ctk_printf(err, "conda-%s", b);
    case CTK_LAYOUT_WHEEL:
        if (!(env = wheel_env(c->path, err)))
            return NULL;
        s = ctk_printf(err, "wheel-%s", env);
        free(env);
        return s;
    case CTK_LAYOUT_DEBIAN:
        return ctk_strdup("debian", err);
    case CTK_LAYOUT_SPACK:
        /* Spack names prefixes <name>-<version>-<hash>: the hash tells them apart */
        dash = strrchr(b, '-');
        if (dash && dash[1])
            return ctk_printf(err, "spack-%.7s", dash + 1);
        return ctk_printf(err, "spack-%s", b);
    case CTK_LAYOUT_STANDALONE:
        /* a prefix named by its release (/apps/cuda/13.0.0): with its parent */
        if (b[0] >= '0' && b[0] <= '9' && b != c->path && b - 1 != c->path) {
            const char *e = b - 1, *pb = e;

            while (pb > c->path && pb[-1] != '/')
                pb--;
            return ctk_printf(err, "%.*s-%s", (int)(e - pb), pb, b);
        }
        break;
    }
    return ctk_strdup(b, err);
}

/* Module versions must be file names (site-config schema: [A-Za-z0-9._+-]). */
static void sanitise(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '+' || *s == '-'))
            *s = '_';
}

/* Give SDKs that share an X.Y distinct module versions. */
static bool name_all(cand_t *v, size_t n, ctk_error_t *err)
{
    size_t i, j;

    for (i = 0; i < n; i++) {
        size_t same = 0, standalone = 0;
        char *label;

        for (j = 0; j < n; j++) {
            if (v[j].v.major == v[i].v.major && v[j].v.minor == v[i].v.minor) {
                same++;
                standalone += v[j].layout == CTK_LAYOUT_STANDALONE;
            }
        }
        if (same == 1 || (v[i].layout == CTK_LAYOUT_STANDALONE && standalone == 1))
            continue;
        if (!(label = label_of(&v[i], err)))
            return false;
        v[i].name = ctk_printf(err, "%d.%d-%s", v[i].v.major, v[i].v.minor, label);
        free(label);
        if (!v[i].name)
            return false;
        sanitise(v[i].name);
    }
    /* whatever still collides gets -2, -3, ...; earlier entries are final,
     * so checking each against those before it makes all distinct */
    for (i = 1; i < n; i++) {
        char *stem = NULL;
        unsigned k = 2;

        while (name_taken(v, i)) {
            char buf[32], *nn;

            if (!stem && !(stem = ctk_strdup(eff_name(&v[i], buf, sizeof buf), err)))
                return false;
            if (!(nn = ctk_printf(err, "%s-%u", stem, k++))) {
                free(stem);
                return false;
            }
            free(v[i].name);
            v[i].name = nn;
        }
        free(stem);
    }
    return true;
}

static bool build_config(scanner_t *s)
{
    ctk_scan_t *res = s->res;
    ctk_config_t *cfg = res->cfg;
    cand_t *v = s->cs.v;
    size_t i, n = 0;

    /* compact the kept ones to the front, keeping the rest for cands_fini */
    for (i = 0; i < s->cs.n; i++) {
        if (!v[i].skip) {
            cand_t t = v[n];

            v[n] = v[i];
            v[i] = t;
            n++;
        }
    }
    if (n == 0)
        return true;
    qsort(v, n, sizeof *v, cmp_cand);
    if (!name_all(v, n, s->err))
        return false;
    if (!(res->sdks = calloc(n, sizeof *res->sdks))) {
        ctk_error_nomem(s->err);
        return false;
    }
    for (i = 0; i < n; i++) {
        ctk_sdk_conf_t *sc;
        ctk_scan_event_t *ev;
        char xy[32], full[48];

        snprintf(xy, sizeof xy, "%d.%d", v[i].v.major, v[i].v.minor);
        if (v[i].v.patch >= 0)
            snprintf(full, sizeof full, "%s.%d", xy, v[i].v.patch);
        else
            snprintf(full, sizeof full, "%s", xy);
        if (!(sc = ctk_config_add_sdk(cfg, xy, v[i].path, s->err)))
            return false;
        res->sdks[i].layout = v[i].layout;
        res->sdks[i].version = v[i].v;
        if (v[i].release && !(res->sdks[i].release = ctk_strdup(v[i].release, s->err)))
            return false;
        if (v[i].name && !(sc->module_version = ctk_strdup(v[i].name, s->err)))
            return false;
        if (v[i].math_libs && !(sc->math_libs = ctk_strdup(v[i].math_libs, s->err)))
            return false;
        if (v[i].nccl && !(sc->nccl = ctk_strdup(v[i].nccl, s->err)))
            return false;
        if (v[i].nvshmem && !(sc->nvshmem = ctk_strdup(v[i].nvshmem, s->err)))
            return false;
        ev = event(s, CTK_SCAN_FOUND, v[i].path, NULL, ": CUDA %s (%s), %s%s%s", full,
                   ctk_version_source_name(v[i].v.source), ctk_layout_name(v[i].layout),
                   v[i].name ? ", as " : "", v[i].name ? v[i].name : "");
        if (!ev)
            return false;
        ev->sdk = i;
        ev->version = v[i].v;
    }
    return true;
}

/* ---- entry points ------------------------------------------------------------------------------ */

typedef struct {
    const char *path;
    int depth;
} root_t;

/* path made absolute against the working directory, without resolving
 * links (a root given as a link keeps its spelling); no trailing slash,
 * no leading "./".  Caller frees. */
static char *absolute(const char *path, ctk_error_t *err)
{
    char cwd[4096];
    size_t len;
    char *p;

    while (path[0] == '.' && path[1] == '/')
        for (path += 2; *path == '/'; path++)
            ;
    len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    if (path[0] == '/')
        return ctk_strndup(path, len, err);
    if (!getcwd(cwd, sizeof cwd)) {
        ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "cannot read the current directory: %s",
                      strerror(errno));
        return NULL;
    }
    if (len == 0 || (len == 1 && path[0] == '.'))
        return ctk_strdup(cwd, err);
    p = ctk_printf(err, "%s%s%.*s", cwd, strcmp(cwd, "/") ? "/" : "", (int)len, path);
    return p;
}

static ctk_scan_t *scan_roots(const root_t *roots, size_t n, const ctk_scan_opts_t *opts,
                              ctk_error_t *err)
{
    scanner_t s;
    ctk_error_t e; /* always there, so helpers can tell "absent" from out of memory */
    int max_depth = opts && opts->max_depth >= 0 ? opts->max_depth : CTK_SCAN_DEFAULT_DEPTH;
    size_t i;
    bool ok = false;

    memset(&s, 0, sizeof s);
    ctk_strlist_init(&s.wrapped);
    ctk_error_init(&e);
    s.err = &e;
    if (max_depth > CTK_SCAN_MAX_DEPTH)
        max_depth = CTK_SCAN_MAX_DEPTH;
    if (!(s.res = calloc(1, sizeof *s.res))) {
        ctk_error_nomem(&e);
        goto out;
    }
    if (!(s.res->cfg = ctk_config_new("<scan>", &e)))
        goto out;
    for (i = 0; i < n; i++) {
        char *p = absolute(roots[i].path, &e);

        if (!p)
            goto out;
        if (!walk(&s, AT_FDCWD, p, p, 0, roots[i].depth >= 0 ? roots[i].depth : max_depth,
                  false))
            goto out;
    }
    /* the toolkits wrappers run, wherever they are (the list may grow) */
    for (i = 0; i < s.wrapped.len; i++) {
        char *p = ctk_strdup(s.wrapped.items[i], &e);

        if (!p || !walk(&s, AT_FDCWD, p, p, 0, 0, false))
            goto out;
    }
    if (!drop_duplicates(&s))
        goto out;
    for (i = 0; i < s.cs.n; i++) {
        if (s.cs.v[i].skip)
            continue;
        if (!hpc_info(&s.cs.v[i], &e) || !verify(&s, &s.cs.v[i]))
            goto out;
    }
    if (!build_config(&s))
        goto out;
    ok = true;
out:
    scanner_fini(&s);
    if (!ok) {
        ctk_scan_free(s.res);
        s.res = NULL;
        if (err && !ctk_error_is_set(err))
            *err = e;
    }
    return s.res;
}

ctk_scan_t *ctk_scan(const char *const *roots, size_t n_roots, const ctk_scan_opts_t *opts,
                     ctk_error_t *err)
{
    root_t *r = calloc(n_roots ? n_roots : 1, sizeof *r);
    ctk_scan_t *res;
    size_t i;

    if (!r) {
        ctk_error_nomem(err);
        return NULL;
    }
    for (i = 0; i < n_roots; i++) {
        r[i].path = roots[i];
        r[i].depth = -1;
    }
    res = scan_roots(r, n_roots, opts, err);
    free(r);
    return res;
}

/* Expand patterns (each with a depth) into roots; matches are kept in
 * *store, which the caller frees with globfree() for each entry. */
static ctk_scan_t *scan_patterns(const char *const *pats, const int *depths, size_t n,
                                 const ctk_scan_opts_t *opts, ctk_error_t *err)
{
    glob_t *g = calloc(n ? n : 1, sizeof *g);
    root_t *r = NULL;
    ctk_scan_t *res = NULL;
    size_t i, j, nr = 0, total = 0;

    if (!g) {
        ctk_error_nomem(err);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        int rc = glob(pats[i], 0, NULL, &g[i]);

        if (rc == GLOB_NOSPACE) {
            ctk_error_nomem(err);
            goto out;
        }
        if (rc == 0)
            total += g[i].gl_pathc;
    }
    if (!(r = calloc(total ? total : 1, sizeof *r))) {
        ctk_error_nomem(err);
        goto out;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < g[i].gl_pathc; j++) {
            r[nr].path = g[i].gl_pathv[j];
            r[nr].depth = depths ? depths[i] : -1;
            nr++;
        }
    }
    res = scan_roots(r, nr, opts, err);
out:
    for (i = 0; i < n; i++)
        globfree(&g[i]);
    free(g);
    free(r);
    return res;
}

ctk_scan_t *ctk_scan_standard(const ctk_scan_opts_t *opts, ctk_error_t *err)
{
    enum { N = sizeof standard_roots / sizeof standard_roots[0] };
    const char *pats[N];
    int depths[N];
    size_t i;

    for (i = 0; i < N; i++) {
        pats[i] = standard_roots[i].pattern;
        depths[i] = standard_roots[i].depth;
    }
    return scan_patterns(pats, depths, N, opts, err);
}

ctk_config_t *ctk_scan_take_config(ctk_scan_t *scan)
{
    ctk_config_t *cfg;
    size_t i;

    if (!scan)
        return NULL;
    cfg = scan->cfg;
    if (scan->sdks && cfg)
        for (i = 0; i < cfg->n_sdks; i++)
            free(scan->sdks[i].release);
    free(scan->sdks);
    scan->sdks = NULL;
    scan->cfg = NULL;
    return cfg;
}

void ctk_scan_free(ctk_scan_t *scan)
{
    size_t i;

    if (!scan)
        return;
    for (i = 0; i < scan->n_events; i++) {
        free(scan->events[i].path);
        free(scan->events[i].other);
        free(scan->events[i].text);
    }
    free(scan->events);
    if (scan->sdks && scan->cfg)
        for (i = 0; i < scan->cfg->n_sdks; i++)
            free(scan->sdks[i].release);
    free(scan->sdks);
    ctk_config_free(scan->cfg);
    free(scan);
}

char *ctk_scan_summary(const ctk_scan_t *scan, double seconds, ctk_error_t *err)
{
    size_t n = scan->cfg ? scan->cfg->n_sdks : 0, i;

    if (!scan->cfg)
        for (i = 0, n = 0; i < scan->n_events; i++)
            n += scan->events[i].kind == CTK_SCAN_FOUND;
    return ctk_printf(err, "%zu toolkit%s, %zu runtime-only tree%s, %zu problem%s; "
                      "%zu director%s in %.2f s",
                      n, n == 1 ? "" : "s", scan->n_runtime_only,
                      scan->n_runtime_only == 1 ? "" : "s", scan->n_problems,
                      scan->n_problems == 1 ? "" : "s", scan->dirs_visited,
                      scan->dirs_visited == 1 ? "y" : "ies", seconds);
}

bool ctk_scan_untrusted(const ctk_scan_t *scan, ctk_strlist_t *lines, ctk_error_t *err)
{
    for (size_t i = 0; scan->cfg && i < scan->cfg->n_sdks; i++) {
        char why[1024], *nvcc = ctk_path_join(scan->cfg->sdks[i].base, "bin/nvcc", err), *line;

        if (!nvcc)
            return false;
        if (ctk_trust_exec(nvcc, why, sizeof why)) {
            free(nvcc);
            continue;
        }
        line = ctk_printf(err, "untrusted %s: %s (another user can change it, yet %svalidate runs it, and the "
                               "module puts it on users' PATH)",
                          nvcc, why,
                          scan->sdks && scan->sdks[i].version.source == CTK_VSRC_NVCC
                              ? "the scan ran it for the release, " : "");
        free(nvcc);
        if (!line || !ctk_strlist_take(lines, line, err))
            return false;
    }
    return true;
}

ctk_config_t *ctk_discover_standard(const char *const *roots, size_t n_roots,
                                    ctk_strlist_t *notes, ctk_error_t *err)
{
    ctk_scan_t *res;
    ctk_config_t *cfg = NULL;
    size_t i;

    if (!roots || n_roots == 0)
        res = ctk_scan_standard(NULL, err);
    else
        res = scan_patterns(roots, NULL, n_roots, NULL, err);
    if (!res)
        return NULL;
    for (i = 0; notes && i < res->n_events; i++)
        if (res->events[i].kind != CTK_SCAN_DEPTH && !ctk_strlist_push(notes, res->events[i].text, err))
            goto out;
    cfg = ctk_scan_take_config(res);
out:
    ctk_scan_free(res);
    return cfg;
}
