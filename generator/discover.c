/* discover.c - find installed CUDA toolkits in the standard places. SPDX-License-Identifier: MIT */
#include <ctkconf.h>

#include "discover.h"

#include "sdk.h"

#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const standard_roots[] = {
    "/usr/local/cuda",
    "/usr/local/cuda-*",
    "/opt/nvidia/hpc_sdk/Linux_*/*/cuda/*",
};

/* Where toolkits sit below a root that is not one itself.  Entries from
 * index FIRST_HPC on are HPC SDK forms: their last component must be X.Y. */
static const char *const below[] = {
    "cuda", "cuda-*", "cuda/*", "*/cuda/*", "Linux_*/*/cuda/*", "hpc_sdk/Linux_*/*/cuda/*",
};
#define FIRST_HPC 2

typedef struct {
    char *path;      /* as found */
    char *real;      /* realpath(path) */
    char *nvcc_real; /* realpath(path/bin/nvcc) */
    char *inc_real;  /* realpath(path/include); NULL when absent */
    int pref;        /* which spelling of a duplicate to keep: higher wins */
    bool skip;       /* a duplicate, or not a working toolkit */
    char *release;   /* HPC SDK release ("24.11"); NULL for a standalone toolkit */
    char *math_libs, *nccl, *nvshmem; /* HPC SDK companions; NULL when absent */
    ctk_version_t v;
    char *name;      /* module version when not the plain X.Y; else NULL */
} cand_t;

typedef struct {
    cand_t *v;
    size_t n, cap;
} cands_t;

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

static bool note(ctk_strlist_t *notes, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool note(ctk_strlist_t *notes, ctk_error_t *err, const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    if (!notes)
        return true;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "bad format string");
        return false;
    }
    s = malloc((size_t)n + 1);
    if (!s) {
        ctk_error_nomem(err);
        return false;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return ctk_strlist_take(notes, s, err);
}

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

/* false when it is not, or on allocation failure (then err is set) */
static bool is_toolkit(const char *dir, ctk_error_t *err)
{
    char *nvcc = ctk_path_join(dir, "bin/nvcc", err);
    bool ok = nvcc && ctk_is_executable(nvcc);

    free(nvcc);
    return ok;
}

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

/* Record a toolkit directory (once per spelling). */
static bool collect(cands_t *cs, const char *path, ctk_error_t *err)
{
    cand_t *c;
    char *nvcc, *inc;
    size_t i, len = strlen(path);

    while (len > 1 && path[len - 1] == '/')
        len--;
    for (i = 0; i < cs->n; i++)
        if (strlen(cs->v[i].path) == len && strncmp(cs->v[i].path, path, len) == 0)
            return true;
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 8;
        cand_t *v = realloc(cs->v, cap * sizeof *v);

        if (!v) {
            ctk_error_nomem(err);
            return false;
        }
        cs->v = v;
        cs->cap = cap;
    }
    c = &cs->v[cs->n];
    memset(c, 0, sizeof *c);
    if (!(c->path = ctk_strndup(path, len, err)))
        return false;
    cs->n++;
    if (!(c->real = ctk_realpath(c->path))) {
        c->skip = true; /* vanished since glob saw it */
        return true;
    }
    if (!(nvcc = ctk_path_join(c->path, "bin/nvcc", err)))
        return false;
    c->nvcc_real = ctk_realpath(nvcc);
    free(nvcc);
    if (!(inc = ctk_path_join(c->path, "include", err)))
        return false;
    c->inc_real = ctk_realpath(inc);
    free(inc);
    c->pref = preference(c->path);
    return true;
}

/* Run one glob pattern; calls back with each match. */
static bool glob_each(const char *pattern, bool (*fn)(cands_t *, const char *, bool, ctk_error_t *),
                      cands_t *cs, bool hpc_only, ctk_error_t *err)
{
    glob_t g;
    size_t i;
    bool ok = true;
    int rc;

    memset(&g, 0, sizeof g);
    rc = glob(pattern, 0, NULL, &g);
    if (rc == GLOB_NOSPACE) {
        globfree(&g);
        ctk_error_nomem(err);
        return false;
    }
    if (rc == 0)
        for (i = 0; ok && i < g.gl_pathc; i++)
            ok = fn(cs, g.gl_pathv[i], hpc_only, err);
    globfree(&g);
    return ok;
}

static bool take_below(cands_t *cs, const char *path, bool hpc_only, ctk_error_t *err)
{
    if (!is_toolkit(path, err))
        return !ctk_error_is_set(err);
    if (hpc_only && !is_xy(base_name(path)))
        return true;
    return collect(cs, path, err);
}

static bool take_root(cands_t *cs, const char *path, bool hpc_only, ctk_error_t *err)
{
    size_t k;
    bool ok = true;

    if (is_toolkit(path, err))
        return collect(cs, path, err);
    if (ctk_error_is_set(err))
        return false;
    if (!ctk_is_dir(path))
        return true;
    for (k = 0; ok && k < sizeof below / sizeof below[0]; k++) {
        char *pat = ctk_path_join(path, below[k], err);

        if (!pat)
            return false;
        ok = glob_each(pat, take_below, cs, k >= FIRST_HPC, err);
        free(pat);
    }
    return ok;
}

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
static bool drop_duplicates(cands_t *cs, ctk_strlist_t *notes, ctk_error_t *err)
{
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
            if (!note(notes, err, "skipped %s: same toolkit as %s", a->path, cs->v[best].path))
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

    if (!is_xy(xy) || xy == c->path)
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
 * its version.  A toolkit that does not load is skipped with a note. */
static bool verify(cand_t *c, ctk_strlist_t *notes, ctk_error_t *err)
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
            ctk_error_nomem(err);
            return false;
        }
        return note(notes, err, "skipped %s: %s", c->path, e.text);
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

/* release order; within one release a standalone toolkit first, then HPC
 * SDK releases oldest first */
static int cmp_cand(const void *pa, const void *pb)
{
    const cand_t *a = pa, *b = pb;
    int r = cmp_version(a, b);

    if (r)
        return r;
    if (!a->release != !b->release)
        return a->release ? 1 : -1;
    if (a->release && (r = cmp_dotted(a->release, b->release)) != 0)
        return r;
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

/* Give SDKs that share an X.Y distinct module versions. */
static bool name_all(cand_t *v, size_t n, ctk_error_t *err)
{
    size_t i, j;

    for (i = 0; i < n; i++) {
        size_t same = 0, standalone = 0;

        for (j = 0; j < n; j++) {
            if (v[j].v.major == v[i].v.major && v[j].v.minor == v[i].v.minor) {
                same++;
                standalone += v[j].release == NULL;
            }
        }
        if (same == 1 || (!v[i].release && standalone == 1))
            continue;
        if (v[i].release)
            v[i].name = ctk_printf(err, "%d.%d-nvhpc-%s", v[i].v.major, v[i].v.minor, v[i].release);
        else
            v[i].name = ctk_printf(err, "%d.%d-%s", v[i].v.major, v[i].v.minor, base_name(v[i].path));
        if (!v[i].name)
            return false;
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

/* newest release; a standalone toolkit beats an HPC SDK one of the same
 * release, and a newer HPC SDK release beats an older one */
static size_t newest(const cand_t *v, size_t n)
{
    size_t i, best = 0;

    for (i = 1; i < n; i++) {
        int r = cmp_version(&v[i], &v[best]);

        if (r > 0 || (r == 0 && v[best].release &&
                      (!v[i].release || cmp_dotted(v[i].release, v[best].release) > 0)))
            best = i;
    }
    return best;
}

static bool build_config(ctk_config_t *cfg, cands_t *cs, ctk_strlist_t *notes, ctk_error_t *err)
{
    cand_t *v = cs->v;
    size_t i, n = 0, best;

    /* compact the kept ones to the front, keeping the rest for cands_fini */
    for (i = 0; i < cs->n; i++) {
        if (!cs->v[i].skip) {
            cand_t t = v[n];

            v[n] = v[i];
            v[i] = t;
            n++;
        }
    }
    if (n == 0)
        return true;
    qsort(v, n, sizeof *v, cmp_cand);
    if (!name_all(v, n, err))
        return false;
    for (i = 0; i < n; i++) {
        ctk_sdk_conf_t *sc;
        char xy[32], full[48];

        snprintf(xy, sizeof xy, "%d.%d", v[i].v.major, v[i].v.minor);
        if (v[i].v.patch >= 0)
            snprintf(full, sizeof full, "%s.%d", xy, v[i].v.patch);
        else
            snprintf(full, sizeof full, "%s", xy);
        if (!note(notes, err, "found %s: CUDA %s (%s)%s%s", v[i].path, full,
                  ctk_version_source_name(v[i].v.source), v[i].name ? " as " : "",
                  v[i].name ? v[i].name : ""))
            return false;
        if (!(sc = ctk_config_add_sdk(cfg, xy, v[i].path, err)))
            return false;
        if (v[i].name && !(sc->module_version = ctk_strdup(v[i].name, err)))
            return false;
        if (v[i].math_libs && !(sc->math_libs = ctk_strdup(v[i].math_libs, err)))
            return false;
        if (v[i].nccl && !(sc->nccl = ctk_strdup(v[i].nccl, err)))
            return false;
        if (v[i].nvshmem && !(sc->nvshmem = ctk_strdup(v[i].nvshmem, err)))
            return false;
    }
    best = newest(v, n);
    {
        char xy[32];
        char *d = ctk_strdup(eff_name(&v[best], xy, sizeof xy), err);

        if (!d)
            return false;
        free(cfg->default_version);
        cfg->default_version = d;
    }
    return true;
}

ctk_config_t *ctk_discover_standard(const char *const *roots, size_t n_roots,
                                    ctk_strlist_t *notes, ctk_error_t *err)
{
    ctk_config_t *cfg = NULL;
    cands_t cs;
    ctk_error_t e; /* always there, so helpers can tell "absent" from out of memory */
    size_t i;
    bool ok = false;

    memset(&cs, 0, sizeof cs);
    ctk_error_init(&e);
    if (!roots || n_roots == 0) {
        roots = standard_roots;
        n_roots = sizeof standard_roots / sizeof standard_roots[0];
    }
    for (i = 0; i < n_roots; i++)
        if (roots[i] && !glob_each(roots[i], take_root, &cs, false, &e))
            goto out;
    if (!drop_duplicates(&cs, notes, &e))
        goto out;
    for (i = 0; i < cs.n; i++) {
        if (cs.v[i].skip)
            continue;
        if (!hpc_info(&cs.v[i], &e) || !verify(&cs.v[i], notes, &e))
            goto out;
    }
    if (!(cfg = ctk_config_new("<scan>", &e)))
        goto out;
    if (!build_config(cfg, &cs, notes, &e))
        goto out;
    ok = true;
out:
    cands_fini(&cs);
    if (!ok) {
        ctk_config_free(cfg);
        cfg = NULL;
        if (err && !ctk_error_is_set(err))
            *err = e;
    }
    return cfg;
}
