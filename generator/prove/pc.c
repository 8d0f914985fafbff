/* pc.c - resolve .pc files in-process with libpkgconf, as the pkgconf CLI would.
 * SPDX-License-Identifier: MIT
 *
 * The only file that includes libpkgconf.  Written against libpkgconf 1.8.1;
 * the steps mirror cli/main.c of pkgconf 1.8.1 (validate the queue, then
 * --cflags with SEARCH_PRIVATE, then --libs without), minus everything the
 * CLI takes from the environment.  We compile the queue into a "world"
 * package ourselves instead of calling pkgconf_queue_apply(), because that
 * leaks the world's dependency list when resolution fails.
 *
 * libpkgconf is never let near the file system or an unbounded graph.
 * Before it walks anything, find_pkg() and scan_providers() look every
 * package up as pkgconf_pkg_find() and the Provides scan of pkg.c would,
 * load_file() reads each .pc once (a regular file, bounded in size and in
 * what its values expand to, parsed by libpkgconf from memory), verify()
 * checks each dependency's version and sets its `match`, and dfs() checks
 * Conflicts, the depth, cycles and the number of visits of libpkgconf's
 * walk, which re-walks every path (c_i requiring c_{i+1} twice is 2^n
 * visits; counted here by memo in linear time).  libpkgconf then finds
 * every dependency matched (pkgconf_pkg_verify_dependency returns the
 * match), so it opens nothing; its walk calls our collectors, which watch
 * the clock and SIGINT and friends, and can cut the walk short by marking
 * every package SEEN.
 *
 * libpkgconf reports through two callbacks: errors (resolution failures,
 * one message per call) and warnings (problems in .pc files, with the file
 * name and often the line).  Both are collected into a diag_t and turned
 * into one ctk_error_t after each step; our own resolution failures are
 * worded as libpkgconf words them and go through the same path.
 */
#include <ctkconf.h>

#include "pc.h"
#include "proc.h"

#include <libpkgconf/libpkgconf.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The defaults of ctk_pc_limits_t (pc.h). */
#define DEF_DEPTH 64u
#define DEF_PACKAGES 2048u
#define DEF_ENTRIES 4096u
#define DEF_FILE_BYTES ((size_t)64 << 10)
#define DEF_BYTES ((size_t)32 << 20)
#define DEF_VISITS 100000UL
#define DEF_WORDS 8192u
#define DEF_MS 5000u
#define MAX_DEPTH_LIMIT 100000u /* what any depth setting is clamped to: it becomes an int */

#define WARNING_SEP ": warning: "

typedef struct {
    ctk_error_t broken;  /* first warning that makes a .pc broken (CTK_E_CONFIG) */
    ctk_buf_t messages;  /* error messages of the failing step, "; "-joined */
    char *missing;       /* first package reported not found */
    char *required_by;   /* and the id of the package requiring it */
    char *required_by_file; /* and that package's file; NULL for the world */
    bool nomem;          /* an allocation inside a callback failed */
} diag_t;

enum step { STEP_VERSIONS, STEP_CFLAGS, STEP_LIBS };

void ctk_pc_result_init(ctk_pc_result_t *r)
{
    if (!r)
        return;
    r->stop = CTK_PC_STOP_NONE;
    r->version = NULL;
    r->ccbin = NULL;
    ctk_strlist_init(&r->versions);
    ctk_strlist_init(&r->cflags);
    ctk_strlist_init(&r->libs);
}

const char *ctk_pc_stop_finding(ctk_pc_stop_t stop)
{
    switch (stop) {
    case CTK_PC_STOP_LIMIT: return "CTK-PC-005";
    case CTK_PC_STOP_CYCLE: return "CTK-PC-006";
    case CTK_PC_STOP_NOT_REGULAR: return "CTK-READ-001";
    case CTK_PC_STOP_NONE:
    case CTK_PC_STOP_INTERRUPTED: break;
    }
    return "CTK-MOD-001";
}

void ctk_pc_result_fini(ctk_pc_result_t *r)
{
    if (!r)
        return;
    free(r->version);
    free(r->ccbin);
    ctk_strlist_fini(&r->versions);
    ctk_strlist_fini(&r->cflags);
    ctk_strlist_fini(&r->libs);
    ctk_pc_result_init(r);
}

static void diag_init(diag_t *d)
{
    ctk_error_init(&d->broken);
    ctk_buf_init(&d->messages);
    d->missing = NULL;
    d->required_by = NULL;
    d->required_by_file = NULL;
    d->nomem = false;
}

static void diag_fini(diag_t *d)
{
    ctk_buf_fini(&d->messages);
    free(d->missing);
    free(d->required_by);
    free(d->required_by_file);
}

/* Length of msg without its trailing newlines. */
static size_t trimmed_len(const char *msg)
{
    size_t n = strlen(msg);

    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
        n--;
    return n;
}

/* Warnings libpkgconf gives for files it reads correctly anyway. */
static bool warning_is_harmless(const char *msg)
{
    return strstr(msg, "whitespace encountered") != NULL;
}

/* "path:12: warning: text" or "path: warning: text" or "warning: text".
 * Paths may hold ':' themselves, so the line is only the digits between the
 * last ':' and the warning separator. */
static bool on_warn(const char *msg, const pkgconf_client_t *client, const void *data)
{
    diag_t *d = (diag_t *)data; /* our own diag_t, handed to libpkgconf as void * */
    const char *sep, *text = msg, *end, *p;
    char *source = NULL;
    long line = 0;

    (void)client;
    if (warning_is_harmless(msg) || ctk_error_is_set(&d->broken))
        return true;
    sep = strstr(msg, WARNING_SEP);
    if (sep) {
        text = sep + strlen(WARNING_SEP);
        end = sep;
        for (p = end; p > msg && p[-1] >= '0' && p[-1] <= '9'; p--)
            ;
        if (p < end && p > msg && p[-1] == ':') {
            errno = 0;
            line = strtol(p, NULL, 10);
            if (errno != 0 || line > 1000000000L)
                line = 0;
            end = p - 1;
        }
        source = ctk_strndup(msg, (size_t)(end - msg), NULL);
        if (!source) {
            d->nomem = true;
            return true;
        }
    } else if (strncmp(msg, "warning: ", 9) == 0) {
        text = msg + 9;
    }
    ctk_error_set(&d->broken, CTK_E_CONFIG, source, (int)line, 0, "%.*s",
                  (int)trimmed_len(text), text);
    free(source);
    return true;
}

/* "Package 'X', required by 'Y', not found" (SIMPLIFY_ERRORS form). */
static void note_not_found(diag_t *d, const char *msg)
{
    static const char head[] = "Package '", mid[] = "', required by '", tail[] = "', not found";
    const char *a, *b, *c;

    if (d->missing || strncmp(msg, head, sizeof head - 1) != 0)
        return;
    a = msg + sizeof head - 1;
    b = strstr(a, mid);
    if (!b)
        return;
    c = strstr(b + sizeof mid - 1, tail);
    if (!c)
        return;
    d->missing = ctk_strndup(a, (size_t)(b - a), NULL);
    d->required_by = ctk_strndup(b + sizeof mid - 1, (size_t)(c - (b + sizeof mid - 1)), NULL);
    if (!d->missing || !d->required_by)
        d->nomem = true;
}

static bool on_error(const char *msg, const pkgconf_client_t *client, const void *data)
{
    diag_t *d = (diag_t *)data; /* our own diag_t, handed to libpkgconf as void * */
    size_t n = trimmed_len(msg);

    (void)client;
    /* the CLI's advice about its environment variables means nothing here */
    if (strncmp(msg, "It may be possible", 18) == 0 || strncmp(msg, "PKG_CONFIG_", 11) == 0 || n == 0)
        return true;
    note_not_found(d, msg);
    if (d->messages.len > 0)
        ctk_buf_puts(&d->messages, "; ");
    ctk_buf_append(&d->messages, msg, n);
    if (d->messages.failed)
        d->nomem = true;
    return true;
}

/* dirs as a PKG_CONFIG_PATH-style list for messages; caller frees. */
static char *dirs_text(const char *const *dirs, size_t n_dirs, ctk_error_t *err)
{
    ctk_buf_t b;
    size_t i;

    ctk_buf_init(&b);
    if (n_dirs == 0)
        ctk_buf_puts(&b, "an empty search path");
    for (i = 0; i < n_dirs; i++) {
        if (i > 0)
            ctk_buf_puts(&b, ":");
        ctk_buf_puts(&b, dirs[i]);
    }
    if (b.failed) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return ctk_buf_take(&b, NULL);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Whether the broken file is the one libpkgconf would have used for pkg. */
static bool broken_file_is(const diag_t *d, const char *pkg)
{
    const char *src = d->broken.source, *base = base_name(src);
    size_t n = strlen(pkg);

    if (strcmp(src, pkg) == 0)
        return true;
    if (strncmp(base, pkg, n) != 0)
        return false;
    return strcmp(base + n, ".pc") == 0 || strcmp(base + n, "-uninstalled.pc") == 0;
}

static void copy_error(const ctk_error_t *from, ctk_error_t *err)
{
    ctk_error_set(err, from->code, from->source[0] ? from->source : NULL, from->line, from->column,
                  "%s", from->text);
}

/* Turn a failed step (eflags from libpkgconf) into err. */
static void report_failure(const diag_t *d, unsigned int eflags, const char *const *dirs, size_t n_dirs,
                           const char *package, ctk_error_t *err)
{
    char *where = NULL;

    if (d->nomem) {
        ctk_error_nomem(err);
        return;
    }
    /* A broken .pc explains the failure unless the failure is a package
     * not found and the broken file is some other package's, read only
     * while libpkgconf scanned the dirs for a Provides: line. */
    if (ctk_error_is_set(&d->broken) &&
        (!(eflags & PKGCONF_PKG_ERRF_PACKAGE_NOT_FOUND) || !d->missing || broken_file_is(d, d->missing))) {
        copy_error(&d->broken, err);
        return;
    }
    if (eflags & PKGCONF_PKG_ERRF_PACKAGE_NOT_FOUND) {
        where = dirs_text(dirs, n_dirs, err);
        if (!where)
            return;
        if (!d->missing) {
            ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "%s (searched %s)",
                          d->messages.len ? d->messages.data : "package not found", where);
        } else if (!d->required_by || strcmp(d->required_by, "virtual:world") == 0) {
            ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "package '%s' not found in %s", d->missing, where);
        } else {
            ctk_error_set(err, CTK_E_IO, d->required_by_file, 0, 0, "package '%s', required by '%s', not found in %s",
                          d->missing, d->required_by, where);
        }
        free(where);
        return;
    }
    if (eflags & (PKGCONF_PKG_ERRF_PACKAGE_VER_MISMATCH | PKGCONF_PKG_ERRF_PACKAGE_CONFLICT)) {
        ctk_error_set(err, CTK_E_VERSION, NULL, 0, 0, "%s",
                      d->messages.len ? d->messages.data : "version requirement not satisfied");
        return;
    }
    if (eflags & PKGCONF_PKG_ERRF_DEPGRAPH_BREAK) {
        ctk_error_set(err, CTK_E_USAGE, NULL, 0, 0, "no package named in '%s'", package);
        return;
    }
    ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "libpkgconf failed on '%s' (flags 0x%x)%s%s",
                  package, eflags, d->messages.len ? ": " : "", d->messages.len ? d->messages.data : "");
}

/* The CLI's --keep-system-cflags/--keep-system-libs filter: keep all. */
static bool keep_all(const pkgconf_client_t *client, const pkgconf_fragment_t *frag, void *data)
{
    (void)client;
    (void)frag;
    (void)data;
    return true;
}

/* One argument per shell word of what the CLI prints.  The CLI escapes every
 * blank and shell metacharacter with a backslash, except the blanks that join
 * a merged pair ("-isystem /x", "-framework Foo"): those it prints bare, so the
 * shell sees separate words. */
static bool frags_to_args(const pkgconf_list_t *frags, ctk_strlist_t *args, ctk_error_t *err)
{
    const pkgconf_node_t *node;
    const char *p, *blank;
    char *word;

    PKGCONF_FOREACH_LIST_ENTRY(frags->head, node) {
        const pkgconf_fragment_t *frag = node->data;
        const char *data = frag->data ? frag->data : "";
        char *full;

        if (frag->type)
            full = ctk_printf(err, "-%c%s", frag->type, data);
        else
            full = ctk_strdup(data, err);
        if (!full)
            return false;
        if (!frag->merged) {
            if (!ctk_strlist_take(args, full, err))
                return false;
            continue;
        }
        for (p = full; *p; p = *blank ? blank + 1 : blank) {
            blank = strchr(p, ' ');
            if (!blank)
                blank = p + strlen(p);
            if (blank == p)
                continue;
            word = ctk_strndup(p, (size_t)(blank - p), err);
            if (!word || !ctk_strlist_take(args, word, err)) {
                free(full);
                return false;
            }
        }
        free(full);
    }
    return true;
}

static bool collect_versions(const pkgconf_pkg_t *world, ctk_pc_result_t *out, ctk_error_t *err)
{
    const pkgconf_node_t *node;

    PKGCONF_FOREACH_LIST_ENTRY(world->required.head, node) {
        const pkgconf_dependency_t *dep = node->data;

        if (!dep->match || !dep->match->version)
            continue;
        if (!ctk_strlist_push(&out->versions, dep->match->version, err))
            return false;
    }
    if (world->required.head) {
        const pkgconf_dependency_t *first = world->required.head->data;

        if (first->match && first->match->version) {
            out->version = ctk_strdup(first->match->version, err);
            if (!out->version)
                return false;
        }
        /* the package's variables are stored expanded */
        if (first->match) {
            PKGCONF_FOREACH_LIST_ENTRY(first->match->vars.head, node) {
                const pkgconf_tuple_t *t = node->data;

                if (t->key && t->value && strcmp(t->key, "ccbin") == 0) {
                    free(out->ccbin);
                    if (!(out->ccbin = ctk_strdup(t->value, err)))
                        return false;
                }
            }
        }
    }
    return true;
}


/* ---- a small hash map: string keys (copied) or pointer keys -------------------------- */

typedef struct {
    void *key;   /* NULL: free slot */
    intptr_t val;
} slot_t;

typedef struct {
    slot_t *slots;
    size_t cap, len;  /* cap: 0 or a power of two */
    bool strings;
} map_t;

static void map_init(map_t *m, bool strings)
{
    memset(m, 0, sizeof *m);
    m->strings = strings;
}

static void map_fini(map_t *m)
{
    if (m->strings)
        for (size_t i = 0; i < m->cap; i++)
            free(m->slots[i].key);
    free(m->slots);
    map_init(m, m->strings);
}

static size_t map_hash(const map_t *m, const void *key)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    if (m->strings) {
        for (const unsigned char *p = key; *p; p++) {
            h ^= *p;
            h *= 0x100000001b3ULL;
        }
    } else {
        h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ULL;
        h ^= h >> 29;
    }
    return (size_t)h & (m->cap - 1);
}

static slot_t *map_slot(const map_t *m, const void *key)
{
    size_t i;

    if (!m->cap)
        return NULL;
    for (i = map_hash(m, key); m->slots[i].key; i = (i + 1) & (m->cap - 1))
        if (m->strings ? strcmp(m->slots[i].key, key) == 0 : m->slots[i].key == key)
            return &m->slots[i];
    return &m->slots[i];
}

static bool map_get(const map_t *m, const void *key, intptr_t *val)
{
    slot_t *sl = map_slot(m, key);

    if (!sl || !sl->key)
        return false;
    *val = sl->val;
    return true;
}

static bool map_put(map_t *m, const void *key, intptr_t val)
{
    slot_t *sl;

    if ((m->len + 1) * 2 > m->cap) {
        map_t bigger = *m;
        size_t cap = m->cap ? m->cap * 2 : 64;

        if (!(bigger.slots = calloc(cap, sizeof *bigger.slots)))
            return false;
        bigger.cap = cap;
        bigger.len = m->len;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].key)
                *map_slot(&bigger, m->slots[i].key) = m->slots[i];
        free(m->slots);
        *m = bigger;
    }
    sl = map_slot(m, key);
    if (!sl->key) {
        void *k = m->strings ? strdup(key) : (void *)key;

        if (!k)
            return false;
        sl->key = k;
        m->len++;
    }
    sl->val = val;
    return true;
}

/* ---- the resolution ----------------------------------------------------------------- */

/* what load_file() and find_pkg() answer besides a node index */
#define ABSENT ((intptr_t)-1)  /* no such file, or one libpkgconf could not open either */
#define BROKEN ((intptr_t)-2)  /* opened, but libpkgconf skipped it (warned) */
#define STOPPED ((intptr_t)-3) /* the resolution stops: r->stop says why */
#define REFUSED ((intptr_t)-4) /* not a regular file: never opened */

/* A package in the graph: a .pc read here, a builtin, or the world. */
typedef struct {
    pkgconf_pkg_t *pkg;
    bool owned;              /* read here: ours to release */
    bool conflicts_checked;
    bool conflicted;         /* a Conflicts rule holds: not walked further */
    unsigned char color[2];  /* per phase: 0 not met, 1 on the way, 2 done */
    unsigned long visits[2]; /* per phase: visits libpkgconf's walk makes from here */
} node_t;

typedef struct {
    pkgconf_client_t *client;
    diag_t *d;
    ctk_pc_limits_t lim;
    struct timespec t0;
    node_t *nodes;
    size_t n_nodes, cap_nodes;
    map_t files;             /* path -> node index, ABSENT or BROKEN */
    map_t cache;             /* id -> node index: libpkgconf's cache of found packages */
    map_t by_pkg;            /* pkgconf_pkg_t * -> node index */
    map_t dirs;              /* dir -> index into dir_lists: its *.pc files, as read */
    ctk_strlist_t *dir_lists;
    size_t n_dir_lists;
    size_t *path;            /* dfs: the nodes on the way */
    size_t n_path;
    size_t n_read;           /* .pc files read */
    size_t bytes;            /* what they expanded to */
    unsigned long walked;    /* visits of libpkgconf's walk in this step */
    unsigned int eflags;     /* failures met in the phase being checked */
    ctk_pc_stop_t stop;
    ctk_error_t *err;        /* where the stop is told */
} rctx_t;

static bool stopf(rctx_t *r, ctk_pc_stop_t why, ctk_errcode_t code, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Stop the resolution (the first reason wins); false, for returning. */
static bool stopf(rctx_t *r, ctk_pc_stop_t why, ctk_errcode_t code, const char *source, const char *fmt, ...)
{
    char text[CTK_ERROR_TEXT_MAX];
    va_list ap;

    if (r->stop != CTK_PC_STOP_NONE)
        return false;
    r->stop = why;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    ctk_error_set(r->err, code, source, 0, 0, "%s", text);
    return false;
}

static bool nomem(rctx_t *r)
{
    /* stops the resolution like a limit; told as CTK_E_NOMEM, with no stop reason */
    r->d->nomem = true;
    return stopf(r, CTK_PC_STOP_LIMIT, CTK_E_NOMEM, NULL, "out of memory");
}

static unsigned long ms_since(const struct timespec *t0)
{
    struct timespec now;
    long long ms;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (long long)(now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
    return ms < 0 ? 0 : (unsigned long)ms;
}

/* Between files and at each visit: an interrupt or the deadline stops it. */
static bool on_time(rctx_t *r)
{
    int sig;

    if (r->stop != CTK_PC_STOP_NONE)
        return false;
    if ((sig = ctk_proc_interrupted()) != 0) {
        char name[32];

        return stopf(r, CTK_PC_STOP_INTERRUPTED, CTK_E_ENV, NULL, "interrupted by %s",
                     ctk_proc_signal_name(sig, name, sizeof name));
    }
    if (ms_since(&r->t0) > r->lim.ms)
        return stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, NULL,
                     "resolving took longer than %u ms: stopped (a .pc graph that large is not a toolkit's)",
                     r->lim.ms);
    return true;
}

static intptr_t add_node(rctx_t *r, pkgconf_pkg_t *pkg, bool owned)
{
    node_t *n;

    if (r->n_nodes == r->cap_nodes) {
        size_t cap = r->cap_nodes ? r->cap_nodes * 2 : 32;

        if (!(n = realloc(r->nodes, cap * sizeof *n))) {
            if (owned)
                pkgconf_pkg_unref(r->client, pkg);
            return nomem(r), STOPPED;
        }
        r->nodes = n;
        r->cap_nodes = cap;
    }
    n = &r->nodes[r->n_nodes];
    memset(n, 0, sizeof *n);
    n->pkg = pkg;
    n->owned = owned;
    if (!map_put(&r->by_pkg, pkg, (intptr_t)r->n_nodes)) {
        if (owned)
            pkgconf_pkg_unref(r->client, pkg);
        return nomem(r), STOPPED;
    }
    return (intptr_t)r->n_nodes++;
}

/* ---- reading one .pc --------------------------------------------------------------- */

/* What a .pc's values cost libpkgconf's parser, read with libpkgconf's own
 * line splitter and variable expansion before the real parse: variables,
 * dependency entries and Cflags/Libs words (entries), and the bytes the
 * values expand to.  The parser's list insertions are quadratic in the
 * entries of one field, and a variable that doubles another makes values
 * of 64 KiB each, so neither can be left to the parse to find out. */
typedef struct {
    pkgconf_client_t *client;
    pkgconf_list_t vars;
    size_t entries, bytes, max_entries, max_bytes;
    bool over;
} cost_t;

static size_t count_words(const char *s, const char *seps)
{
    size_t n = 0;
    bool in = false;

    for (; *s; s++) {
        bool sep = strchr(seps, *s) != NULL;

        if (!sep && !in)
            n++;
        in = !sep;
    }
    return n;
}

static void cost_add(cost_t *c, size_t entries, size_t bytes)
{
    c->entries += entries;
    c->bytes += bytes;
    if (c->entries > c->max_entries || c->bytes > c->max_bytes)
        c->over = true;
}

static void cost_var(void *data, const size_t lineno, const char *key, const char *value)
{
    cost_t *c = data;
    pkgconf_tuple_t *t;

    (void)lineno;
    if (c->over)
        return;
    t = pkgconf_tuple_add(c->client, &c->vars, key, value, true);
    cost_add(c, 1, t && t->value ? strlen(t->value) : 0);
}

static void cost_field(void *data, const size_t lineno, const char *key, const char *value)
{
    static const char *const deps[] = {"Requires", "Requires.private", "Requires.internal", "Conflicts", "Provides",
                                       NULL};
    static const char *const frags[] = {"Cflags", "Cflags.private", "Libs", "Libs.private", NULL};
    static const char *const text[] = {"Name", "Description", "Version", NULL};
    cost_t *c = data;
    int kind = 0;
    char *v;

    (void)lineno;
    if (c->over)
        return;
    for (size_t i = 0; !kind && deps[i]; i++)
        if (strcasecmp(key, deps[i]) == 0)
            kind = 1;
    for (size_t i = 0; !kind && frags[i]; i++)
        if (strcasecmp(key, frags[i]) == 0)
            kind = 2;
    for (size_t i = 0; !kind && text[i]; i++)
        if (strcasecmp(key, text[i]) == 0)
            kind = 3;
    if (!kind)
        return; /* libpkgconf ignores other keywords */
    if (!(v = pkgconf_tuple_parse(c->client, &c->vars, value))) {
        c->over = true;
        return;
    }
    cost_add(c, kind == 1 ? count_words(v, " \t\n,") : kind == 2 ? count_words(v, " \t\n") : 0, strlen(v));
    free(v);
}

static void cost_warn(void *data, const char *fmt, ...)
{
    (void)data;
    (void)fmt;
}

static bool quiet(const char *msg, const pkgconf_client_t *client, const void *data)
{
    (void)msg;
    (void)client;
    (void)data;
    return true;
}

/* Is text within the bounds?  (libpkgconf's warnings are silenced: the
 * real parse repeats them.) */
static bool cost_ok(rctx_t *r, const char *path, const char *text, size_t len, size_t *bytes)
{
    static const pkgconf_parser_operand_func_t ops[256] = {[':'] = cost_field, ['='] = cost_var};
    pkgconf_error_handler_func_t warn = pkgconf_client_get_warn_handler(r->client);
    void *warn_data = r->client->warn_handler_data;
    cost_t c;
    FILE *f;
    char *dir, *slash;

    memset(&c, 0, sizeof c);
    c.client = r->client;
    c.max_entries = r->lim.entries;
    /* the file's own bytes count too: r->bytes never passes the bound */
    c.max_bytes = r->bytes + len < r->lim.bytes ? r->lim.bytes - r->bytes - len : 0;
    if (!(f = fmemopen((void *)(len ? text : "\n"), len ? len : 1, "r")) || !(dir = strdup(path))) {
        if (f)
            fclose(f);
        return nomem(r);
    }
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    pkgconf_client_set_warn_handler(r->client, quiet, NULL);
    pkgconf_tuple_add(r->client, &c.vars, "pcfiledir", slash ? dir : ".", true);
    pkgconf_parser_parse(f, &c, ops, cost_warn, path); /* closes f */
    pkgconf_tuple_free(&c.vars);
    pkgconf_client_set_warn_handler(r->client, warn, warn_data);
    free(dir);
    *bytes = c.bytes;
    if (c.entries > c.max_entries)
        return stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, path,
                     "%s: its variables, Requires, Conflicts, Provides, Cflags and Libs come to more than %zu "
                     "entries (libpkgconf's parser takes time quadratic in them): not resolved",
                     path, r->lim.entries);
    if (c.over)
        return stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, path,
                     "%s: its values expand to more than %zu bytes, with the .pc files read before it: not resolved",
                     path, r->lim.bytes);
    return true;
}

/* Read and parse the .pc at path, once per resolution.  A node index, or
 * ABSENT (as fopen() failing for libpkgconf: the next place is tried),
 * BROKEN (libpkgconf warned and skipped it) or STOPPED: a FIFO, a device
 * or a file of /proc or /sys is never opened, and one over the bounds
 * never parsed. */
static intptr_t refused(rctx_t *r, const char *path, const char *what)
{
    return stopf(r, CTK_PC_STOP_NOT_REGULAR, CTK_E_IO, path, "%s is %s%s: not read", path, what,
                 strstr(what, "kernel") || strstr(what, "regular") ? "" : ", not a regular file"), STOPPED;
}

/* What a path that could not be opened as a regular file gives: ABSENT
 * for a missing file or a directory (libpkgconf's fopen() opens one and
 * reads nothing), else refused as the file's kind, which a Provides scan
 * passes over. */
static intptr_t not_opened(rctx_t *r, const char *path, const char *what, bool scanning)
{
    if (what && strcmp(what, "a directory") != 0) {
        if (!map_put(&r->files, path, REFUSED))
            return nomem(r), STOPPED;
        return scanning ? ABSENT : refused(r, path, what);
    }
    return map_put(&r->files, path, ABSENT) ? ABSENT : (nomem(r), STOPPED);
}

/* The text of path, open as fd, in *len bytes, within the resolution's
 * bounds on files, bytes and cost; NULL when the resolution stopped.  fd
 * is closed. */
static char *read_within(rctx_t *r, int fd, const char *path, size_t *len)
{
    struct stat st;
    ctk_error_t e;
    size_t bytes = 0;
    char *text;

    if (++r->n_read > r->lim.packages) {
        close(fd);
        stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, path, "more than %zu .pc files to read (the last %s): not resolved",
              r->lim.packages, path);
        return NULL;
    }
    if (fstat(fd, &st) == 0 && (uintmax_t)st.st_size > (uintmax_t)r->lim.file_bytes) {
        close(fd);
        stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, path, "%s is larger than %zu bytes: not read", path,
              r->lim.file_bytes);
        return NULL;
    }
    ctk_error_init(&e);
    text = ctk_file_read_fd(fd, path, r->lim.file_bytes, len, &e);
    close(fd);
    if (!text) {
        if (e.code == CTK_E_NOMEM)
            nomem(r);
        else
            stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, path, "%s", e.text);
        return NULL;
    }
    if (!cost_ok(r, path, text, *len, &bytes)) {
        free(text);
        return NULL;
    }
    r->bytes += bytes + *len;
    return text;
}

/* A file a Provides scan meets that is not a regular file is passed over
 * (it is nobody's answer); one looked up by name stops the resolution. */
static intptr_t load_file(rctx_t *r, const char *path, bool scanning)
{
    const char *what = NULL;
    ctk_error_t e;
    intptr_t idx;
    size_t len = 0;
    char *text;
    FILE *f;
    pkgconf_pkg_t *pkg;
    int fd;

    if (map_get(&r->files, path, &idx)) {
        if (idx == REFUSED && !scanning)
            return refused(r, path, "not a regular file");
        return idx == REFUSED ? ABSENT : idx;
    }
    if (!on_time(r))
        return STOPPED;
    ctk_error_init(&e);
    fd = ctk_file_open_regular(path, CTK_READ_NO_KERNEL_FS, &what, &e);
    if (fd < 0)
        return not_opened(r, path, what, scanning);
    if (!(text = read_within(r, fd, path, &len)))
        return STOPPED;
    /* from memory: libpkgconf closes f when it is done */
    if (!(f = fmemopen(len ? text : (char *)"\n", len ? len : 1, "r"))) {
        free(text);
        return nomem(r), STOPPED;
    }
    pkg = pkgconf_pkg_new_from_file(r->client, path, f);
    free(text);
    idx = pkg ? add_node(r, pkg, true) : BROKEN;
    if (idx == STOPPED)
        return STOPPED;
    return map_put(&r->files, path, idx) ? idx : (nomem(r), STOPPED);
}

/* ---- finding packages as pkg.c does ---------------------------------------------- */

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* pkgconf_pkg_find(): a path ending in .pc; the builtins; the cache (what
 * was found in the dirs before, by id); NAME-uninstalled.pc, else
 * NAME.pc, in each dir in order.  A node index, ABSENT or STOPPED. */
static intptr_t find_pkg(rctx_t *r, const char *name)
{
    pkgconf_node_t *n;
    pkgconf_pkg_t *builtin;
    intptr_t idx = ABSENT;

    if (has_suffix(name, ".pc")) {
        idx = load_file(r, name, false);
        if (idx == STOPPED)
            return STOPPED;
        if (idx >= 0) {
            pkgconf_path_add(r->nodes[idx].pkg->pc_filedir, &r->client->dir_list, true);
            return idx;
        }
    }
    if ((builtin = pkgconf_builtin_pkg_get(name)) != NULL) {
        if (map_get(&r->by_pkg, builtin, &idx))
            return idx;
        return add_node(r, builtin, false);
    }
    if (map_get(&r->cache, name, &idx))
        return idx;
    PKGCONF_FOREACH_LIST_ENTRY(r->client->dir_list.head, n) {
        const pkgconf_path_t *dir = n->data;
        char *path = ctk_printf(NULL, "%s/%s-uninstalled.pc", dir->path, name);

        if (!path)
            return nomem(r), STOPPED;
        idx = load_file(r, path, false);
        free(path);
        if (idx == STOPPED)
            return STOPPED;
        if (idx >= 0) {
            r->nodes[idx].pkg->flags |= PKGCONF_PKG_PROPF_UNINSTALLED;
            break;
        }
        if (idx == BROKEN)
            continue; /* an uninstalled file that opens is the dir's answer */
        if (!(path = ctk_printf(NULL, "%s/%s.pc", dir->path, name)))
            return nomem(r), STOPPED;
        idx = load_file(r, path, false);
        free(path);
        if (idx == STOPPED)
            return STOPPED;
        if (idx >= 0)
            break;
    }
    if (idx < 0)
        return ABSENT;
    return map_put(&r->cache, r->nodes[idx].pkg->id, idx) ? idx : (nomem(r), STOPPED);
}

/* The *.pc files of dir, in readdir() order, as pkg.c scans them. */
static const ctk_strlist_t *dir_pcs(rctx_t *r, const char *dir)
{
    ctk_strlist_t *lists, *l;
    struct dirent *e;
    intptr_t idx;
    DIR *d;
    size_t n = 0;

    if (map_get(&r->dirs, dir, &idx))
        return &r->dir_lists[idx];
    if (!(lists = realloc(r->dir_lists, (r->n_dir_lists + 1) * sizeof *lists)))
        return nomem(r), NULL;
    r->dir_lists = lists;
    l = &lists[r->n_dir_lists];
    ctk_strlist_init(l);
    if (!map_put(&r->dirs, dir, (intptr_t)r->n_dir_lists))
        return nomem(r), NULL;
    r->n_dir_lists++;
    if (!(d = opendir(dir)))
        return l;
    while ((e = readdir(d))) {
        char *path;

        if ((++n & 1023) == 0 && !on_time(r))
            break;
        if (!has_suffix(e->d_name, ".pc"))
            continue;
        if (!(path = ctk_printf(NULL, "%s/%s", dir, e->d_name)) || !ctk_strlist_take(l, path, NULL)) {
            closedir(d);
            return nomem(r), NULL;
        }
    }
    closedir(d);
    return r->stop == CTK_PC_STOP_NONE ? l : NULL;
}

/* ---- versions, as pkg.c compares them ---------------------------------------------- */

typedef bool (*vercmp_t)(const char *a, const char *b);

static bool cmp_lt(const char *a, const char *b) { return pkgconf_compare_version(a, b) < 0; }
static bool cmp_gt(const char *a, const char *b) { return pkgconf_compare_version(a, b) > 0; }
static bool cmp_lte(const char *a, const char *b) { return pkgconf_compare_version(a, b) <= 0; }
static bool cmp_gte(const char *a, const char *b) { return pkgconf_compare_version(a, b) >= 0; }
static bool cmp_eq(const char *a, const char *b) { return pkgconf_compare_version(a, b) == 0; }
static bool cmp_ne(const char *a, const char *b) { return pkgconf_compare_version(a, b) != 0; }
static bool cmp_none(const char *a, const char *b) { (void)a; (void)b; return false; }

/* pkgconf_pkg_comparator_impls */
static bool version_ok(const pkgconf_dependency_t *dep, const char *version)
{
    switch (dep->compare) {
    case PKGCONF_CMP_LESS_THAN: return cmp_lt(version, dep->version);
    case PKGCONF_CMP_GREATER_THAN: return cmp_gt(version, dep->version);
    case PKGCONF_CMP_LESS_THAN_EQUAL: return cmp_lte(version, dep->version);
    case PKGCONF_CMP_GREATER_THAN_EQUAL: return cmp_gte(version, dep->version);
    case PKGCONF_CMP_EQUAL: return cmp_eq(version, dep->version);
    case PKGCONF_CMP_NOT_EQUAL: return cmp_ne(version, dep->version);
    case PKGCONF_CMP_ANY: break;
    }
    return true;
}

/* pkgconf_pkg_provides_vermatch_rules of pkg.c, unchanged */
typedef struct {
    vercmp_t rulecmp[PKGCONF_CMP_COUNT];
    vercmp_t depcmp[PKGCONF_CMP_COUNT];
} vermatch_t;

static const vermatch_t vermatch_rules[] = {
    [PKGCONF_CMP_ANY] = {
        .rulecmp = {[PKGCONF_CMP_ANY] = cmp_none},
        .depcmp = {[PKGCONF_CMP_ANY] = cmp_none},
    },
    [PKGCONF_CMP_LESS_THAN] = {
        .rulecmp = {[PKGCONF_CMP_ANY] = cmp_none, [PKGCONF_CMP_LESS_THAN] = cmp_lt,
                    [PKGCONF_CMP_GREATER_THAN] = cmp_gt, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_lte,
                    [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_gte},
        .depcmp = {[PKGCONF_CMP_GREATER_THAN] = cmp_lt, [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_lt,
                   [PKGCONF_CMP_EQUAL] = cmp_lt, [PKGCONF_CMP_NOT_EQUAL] = cmp_gte},
    },
    [PKGCONF_CMP_GREATER_THAN] = {
        .rulecmp = {[PKGCONF_CMP_ANY] = cmp_none, [PKGCONF_CMP_LESS_THAN] = cmp_lt,
                    [PKGCONF_CMP_GREATER_THAN] = cmp_gt, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_lte,
                    [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_gte},
        .depcmp = {[PKGCONF_CMP_LESS_THAN] = cmp_gt, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_gt,
                   [PKGCONF_CMP_EQUAL] = cmp_gt, [PKGCONF_CMP_NOT_EQUAL] = cmp_lte},
    },
    [PKGCONF_CMP_LESS_THAN_EQUAL] = {
        .rulecmp = {[PKGCONF_CMP_ANY] = cmp_none, [PKGCONF_CMP_LESS_THAN] = cmp_lt,
                    [PKGCONF_CMP_GREATER_THAN] = cmp_gt, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_lte,
                    [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_gte},
        .depcmp = {[PKGCONF_CMP_GREATER_THAN] = cmp_lte, [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_lte,
                   [PKGCONF_CMP_EQUAL] = cmp_lte, [PKGCONF_CMP_NOT_EQUAL] = cmp_gt},
    },
    [PKGCONF_CMP_GREATER_THAN_EQUAL] = {
        .rulecmp = {[PKGCONF_CMP_ANY] = cmp_none, [PKGCONF_CMP_LESS_THAN] = cmp_lt,
                    [PKGCONF_CMP_GREATER_THAN] = cmp_gt, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_lte,
                    [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_gte},
        .depcmp = {[PKGCONF_CMP_LESS_THAN] = cmp_gte, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_gte,
                   [PKGCONF_CMP_EQUAL] = cmp_gte, [PKGCONF_CMP_NOT_EQUAL] = cmp_lt},
    },
    [PKGCONF_CMP_EQUAL] = {
        .rulecmp = {[PKGCONF_CMP_ANY] = cmp_none, [PKGCONF_CMP_LESS_THAN] = cmp_lt,
                    [PKGCONF_CMP_GREATER_THAN] = cmp_gt, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_lte,
                    [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_gte, [PKGCONF_CMP_EQUAL] = cmp_eq,
                    [PKGCONF_CMP_NOT_EQUAL] = cmp_ne},
        .depcmp = {[PKGCONF_CMP_ANY] = cmp_none},
    },
    [PKGCONF_CMP_NOT_EQUAL] = {
        .rulecmp = {[PKGCONF_CMP_ANY] = cmp_none, [PKGCONF_CMP_LESS_THAN] = cmp_gte,
                    [PKGCONF_CMP_GREATER_THAN] = cmp_lte, [PKGCONF_CMP_LESS_THAN_EQUAL] = cmp_gt,
                    [PKGCONF_CMP_GREATER_THAN_EQUAL] = cmp_lt, [PKGCONF_CMP_EQUAL] = cmp_ne,
                    [PKGCONF_CMP_NOT_EQUAL] = cmp_eq},
        .depcmp = {[PKGCONF_CMP_ANY] = cmp_none},
    },
};

/* pkgconf_pkg_scan_provides_entry(): the first Provides of the same name decides */
static bool provides(const pkgconf_pkg_t *pkg, const pkgconf_dependency_t *dep)
{
    const pkgconf_node_t *n;

    PKGCONF_FOREACH_LIST_ENTRY(pkg->provides.head, n) {
        const pkgconf_dependency_t *p = n->data;
        const vermatch_t *rule;

        if (strcmp(p->package, dep->package) != 0)
            continue;
        if ((unsigned)dep->compare >= PKGCONF_CMP_COUNT || (unsigned)p->compare >= PKGCONF_CMP_COUNT)
            return false;
        rule = &vermatch_rules[dep->compare];
        if (rule->depcmp[p->compare] && !rule->depcmp[p->compare](p->version, dep->version))
            return false;
        if (rule->rulecmp[p->compare] && !rule->rulecmp[p->compare](dep->version, p->version))
            return false;
        return true;
    }
    return false;
}

/* pkgconf_pkg_scan_providers(): the first .pc of the dirs that provides
 * dep.  A node index, ABSENT or STOPPED. */
static intptr_t scan_providers(rctx_t *r, const pkgconf_dependency_t *dep)
{
    pkgconf_node_t *n;

    PKGCONF_FOREACH_LIST_ENTRY(r->client->dir_list.head, n) {
        const pkgconf_path_t *dir = n->data;
        const ctk_strlist_t *l = dir_pcs(r, dir->path);

        if (!l)
            return STOPPED;
        for (size_t i = 0; i < l->len; i++) {
            intptr_t idx = load_file(r, l->items[i], true);

            if (idx == STOPPED)
                return STOPPED;
            if (idx >= 0 && provides(r->nodes[idx].pkg, dep))
                return idx;
        }
    }
    return ABSENT;
}

/* ---- the graph --------------------------------------------------------------------- */

static void failure(rctx_t *r, unsigned int eflags, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A resolution failure, told as libpkgconf tells it (on_error). */
static void failure(rctx_t *r, unsigned int eflags, const char *fmt, ...)
{
    char msg[CTK_ERROR_TEXT_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->eflags |= eflags;
    on_error(msg, r->client, r->d);
}

/* pkgconf_pkg_verify_dependency() for dep of parent: the node it matches
 * (dep->match set, as libpkgconf sets it), ABSENT after a failure (told),
 * or STOPPED. */
static intptr_t verify(rctx_t *r, pkgconf_dependency_t *dep, size_t parent_at)
{
    /* parent's package, not its node: finding packages adds nodes, and
     * the array moves */
    const pkgconf_pkg_t *parent = r->nodes[parent_at].pkg;
    intptr_t idx;
    pkgconf_pkg_t *pkg;

    if (dep->match) {
        if (map_get(&r->by_pkg, dep->match, &idx))
            return idx;
        return stopf(r, CTK_PC_STOP_LIMIT, CTK_E_INTERNAL, NULL, "a dependency matched outside the graph"), STOPPED;
    }
    idx = find_pkg(r, dep->package);
    if (idx == STOPPED)
        return STOPPED;
    if (idx < 0) {
        idx = scan_providers(r, dep);
        if (idx == STOPPED)
            return STOPPED;
        if (idx < 0) {
            bool first = !r->d->missing;

            failure(r, PKGCONF_PKG_ERRF_PACKAGE_NOT_FOUND, "Package '%s', required by '%s', not found\n",
                    dep->package, parent->id);
            if (first && r->d->missing && parent->filename &&
                !(r->d->required_by_file = strdup(parent->filename)))
                r->d->nomem = true;
            return ABSENT;
        }
        dep->match = pkgconf_pkg_ref(r->client, r->nodes[idx].pkg);
        return idx;
    }
    pkg = r->nodes[idx].pkg;
    if (!version_ok(dep, pkg->version)) {
        failure(r, PKGCONF_PKG_ERRF_PACKAGE_VER_MISMATCH,
                "Package dependency requirement '%s %s %s' could not be satisfied.\n", dep->package,
                pkgconf_pkg_get_comparator(dep), dep->version ? dep->version : "");
        failure(r, PKGCONF_PKG_ERRF_PACKAGE_VER_MISMATCH,
                "Package '%s' has version '%s', required version is '%s %s'\n", dep->package,
                pkg->version ? pkg->version : "", pkgconf_pkg_get_comparator(dep), dep->version ? dep->version : "");
        return ABSENT;
    }
    dep->match = pkgconf_pkg_ref(r->client, pkg);
    return idx;
}

/* pkgconf_pkg_walk_conflicts_list(): a Conflicts entry naming one of the
 * package's Requires, which a package satisfies.  true: no conflict. */
static bool no_conflict(rctx_t *r, size_t at)
{
    pkgconf_pkg_t *pkg = r->nodes[at].pkg;
    const pkgconf_node_t *cn, *rn;

    r->nodes[at].conflicts_checked = true;
    PKGCONF_FOREACH_LIST_ENTRY(pkg->conflicts.head, cn) {
        const pkgconf_dependency_t *c = cn->data;

        if (!*c->package)
            continue;
        PKGCONF_FOREACH_LIST_ENTRY(pkg->required.head, rn) {
            const pkgconf_dependency_t *q = rn->data;
            const pkgconf_pkg_t *hit = NULL;
            intptr_t idx;

            if (!*q->package || strcmp(q->package, c->package) != 0)
                continue;
            idx = find_pkg(r, c->package);
            if (idx >= 0 && version_ok(c, r->nodes[idx].pkg->version))
                hit = r->nodes[idx].pkg;
            else if (idx == ABSENT && (idx = scan_providers(r, c)) >= 0)
                hit = r->nodes[idx].pkg;
            if (idx == STOPPED)
                return false;
            if (!hit)
                continue;
            failure(r, PKGCONF_PKG_ERRF_PACKAGE_CONFLICT,
                    "Version '%s' of '%s' conflicts with '%s' due to satisfying conflict rule '%s %s%s%s'.\n",
                    hit->version ? hit->version : "", hit->realname ? hit->realname : hit->id,
                    pkg->realname ? pkg->realname : pkg->id, c->package, pkgconf_pkg_get_comparator(c),
                    c->version ? " " : "", c->version ? c->version : "");
            r->nodes[at].conflicted = true;
            return true;
        }
    }
    return true;
}

/* "a -> b -> c -> a": the way from the package at on_path to the one
 * that requires it again. */
static void cycle_text(const rctx_t *r, size_t from, const node_t *again, char *buf, size_t n)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = from; i < r->n_path && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s -> ", r->nodes[r->path[i]].pkg->id);
    if (used < n)
        snprintf(buf + used, n - used, "%s", again->pkg->id);
}

static unsigned long add_visits(unsigned long a, unsigned long b)
{
    return a > ULONG_MAX - b ? ULONG_MAX : a + b;
}

/* Check the graph below node for one step of libpkgconf's walk: phase 0
 * follows Requires (the versions and --libs steps), phase 1 Requires and
 * Requires.private but not Requires.internal (--cflags).  Every
 * dependency met is verified; Conflicts are checked once per package;
 * depth, cycles and the visits libpkgconf will make are counted. */
static bool dfs(rctx_t *r, size_t at, int phase, unsigned depth)
{
    const pkgconf_list_t *lists[2];
    unsigned long visits = 1;
    size_t nlists = 1;

    if (!on_time(r))
        return false;
    if (depth > r->lim.depth + 1)
        return stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, r->nodes[at].pkg->filename,
                     "Requires nested more than %u deep (down to %s): not resolved", r->lim.depth,
                     r->nodes[at].pkg->id);
    r->nodes[at].color[phase] = 1;
    r->path[r->n_path++] = at;
    if (!r->nodes[at].conflicts_checked && !no_conflict(r, at))
        return false;
    lists[0] = &r->nodes[at].pkg->required;
    if (phase == 1)
        lists[nlists++] = &r->nodes[at].pkg->requires_private;
    for (size_t l = 0; l < nlists && !r->nodes[at].conflicted; l++) {
        const pkgconf_node_t *n;

        PKGCONF_FOREACH_LIST_ENTRY(lists[l]->head, n) {
            pkgconf_dependency_t *dep = n->data;
            intptr_t child;

            if (!*dep->package)
                continue;
            child = verify(r, dep, at);
            if (child == STOPPED)
                return false;
            if (child < 0)
                continue; /* told; libpkgconf does not go down a failed dependency either */
            if (phase == 1 && (dep->flags & PKGCONF_PKG_DEPF_INTERNAL))
                continue; /* verified, not walked: --cflags skips Requires.internal */
            if (r->nodes[child].color[phase] == 1) {
                char way[CTK_ERROR_TEXT_MAX / 2];
                size_t from = 0;

                while (from < r->n_path && r->path[from] != (size_t)child)
                    from++;
                cycle_text(r, from, &r->nodes[child], way, sizeof way);
                return stopf(r, CTK_PC_STOP_CYCLE, CTK_E_LIMIT, r->nodes[child].pkg->filename,
                             "Requires form a cycle: %s: not resolved", way);
            }
            if (r->nodes[child].color[phase] == 0 && !dfs(r, (size_t)child, phase, depth + 1))
                return false;
            visits = add_visits(visits, r->nodes[child].visits[phase]);
        }
    }
    r->nodes[at].visits[phase] = visits;
    r->nodes[at].color[phase] = 2;
    r->n_path--;
    return true;
}

/* ---- libpkgconf's walk --------------------------------------------------------------- */

typedef struct {
    rctx_t *r;
    pkgconf_list_t *list;
} walk_t;

/* Cut libpkgconf's walk short: every package marked SEEN, it goes down
 * nothing more and returns. */
static void cut_walk(rctx_t *r)
{
    for (size_t i = 0; i < r->n_nodes; i++)
        r->nodes[i].pkg->flags |= PKGCONF_PKG_PROPF_SEEN;
}

/* Inside a visit (a package's fragments copied one by one, each copy
 * looking the list through): still on time? */
static bool still(rctx_t *r)
{
    if (on_time(r))
        return true;
    cut_walk(r);
    return false;
}

/* At each visit: still on time, and within the visits counted before? */
static bool visit(rctx_t *r)
{
    if (++r->walked > r->lim.visits) {
        stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, NULL, "libpkgconf's walk passed %lu visits: stopped",
              r->lim.visits);
        cut_walk(r);
        return false;
    }
    return still(r);
}

static void visit_only(pkgconf_client_t *client, pkgconf_pkg_t *pkg, void *data)
{
    (void)client;
    (void)pkg;
    visit(((walk_t *)data)->r);
}

/* pkg.c's pkgconf_pkg_cflags_collect() */
static void collect_cflags(pkgconf_client_t *client, pkgconf_pkg_t *pkg, void *data)
{
    walk_t *w = data;
    pkgconf_node_t *n;

    size_t i = 0;

    if (!visit(w->r))
        return;
    PKGCONF_FOREACH_LIST_ENTRY(pkg->cflags.head, n) {
        if ((++i & 63) == 0 && !still(w->r))
            return;
        pkgconf_fragment_copy(client, w->list, n->data, false);
    }
}

/* pkg.c's pkgconf_pkg_libs_collect() */
static void collect_libs(pkgconf_client_t *client, pkgconf_pkg_t *pkg, void *data)
{
    walk_t *w = data;
    pkgconf_node_t *n;

    size_t i = 0;

    if (!visit(w->r))
        return;
    PKGCONF_FOREACH_LIST_ENTRY(pkg->libs.head, n) {
        if ((++i & 63) == 0 && !still(w->r))
            return;
        pkgconf_fragment_copy(client, w->list, n->data,
                              (pkgconf_client_get_flags(client) & PKGCONF_PKG_PKGF_ITER_PKG_IS_PRIVATE) != 0);
    }
}

static bool words_within(rctx_t *r, const pkgconf_list_t *frags, const char *what)
{
    const pkgconf_node_t *n;
    size_t words = 0;

    PKGCONF_FOREACH_LIST_ENTRY(frags->head, n)
        words++;
    if (words <= r->lim.words)
        return true;
    return stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, NULL, "the %s come to more than %zu words: not resolved", what,
                 r->lim.words);
}

/* One step, as pkgconf_pkg_verify_graph(), pkgconf_pkg_cflags() and
 * pkgconf_pkg_libs() run it, with our collectors. */
static bool run_step(rctx_t *r, pkgconf_pkg_t *world, enum step step, const char *const *dirs, size_t n_dirs,
                     const char *package, ctk_pc_result_t *out, ctk_error_t *err)
{
    pkgconf_list_t frags = PKGCONF_LIST_INITIALIZER, all = PKGCONF_LIST_INITIALIZER,
                   kept = PKGCONF_LIST_INITIALIZER;
    walk_t w = {r, &frags};
    int maxdepth = (int)r->lim.depth + 3;
    unsigned int eflags;
    bool ok = false;

    r->walked = 0;
    pkgconf_client_set_flags(r->client, PKGCONF_PKG_PKGF_SIMPLIFY_ERRORS | PKGCONF_PKG_PKGF_SKIP_CONFLICTS |
                                            (step == STEP_CFLAGS ? PKGCONF_PKG_PKGF_SEARCH_PRIVATE : 0));
    if (step == STEP_VERSIONS) {
        eflags = pkgconf_pkg_traverse(r->client, world, visit_only, &w, maxdepth, 0);
    } else if (step == STEP_CFLAGS) {
        eflags = pkgconf_pkg_traverse(r->client, world, collect_cflags, &w, maxdepth, PKGCONF_PKG_DEPF_INTERNAL);
        /* copy_list looks each word up in the list: not with a list too long */
        if (eflags == PKGCONF_PKG_ERRF_OK && r->stop == CTK_PC_STOP_NONE && words_within(r, &frags, "Cflags"))
            pkgconf_fragment_copy_list(r->client, &all, &frags);
    } else {
        w.list = &all;
        eflags = pkgconf_pkg_traverse(r->client, world, collect_libs, &w, maxdepth, 0);
    }
    if (r->stop != CTK_PC_STOP_NONE)
        goto out;
    if (eflags != PKGCONF_PKG_ERRF_OK || r->d->nomem) {
        report_failure(r->d, eflags, dirs, n_dirs, package, err);
        goto out;
    }
    if (step == STEP_VERSIONS) {
        if (!collect_versions(world, out, err))
            goto out;
    } else {
        if (!words_within(r, &all, step == STEP_CFLAGS ? "Cflags" : "Libs"))
            goto out;
        pkgconf_fragment_filter(r->client, &kept, &all, keep_all, NULL);
        if (!frags_to_args(&kept, step == STEP_CFLAGS ? &out->cflags : &out->libs, err))
            goto out;
    }
    ok = true;
out:
    pkgconf_fragment_free(&kept);
    pkgconf_fragment_free(&all);
    pkgconf_fragment_free(&frags);
    return ok;
}

static void limits_init(ctk_pc_limits_t *lim, const ctk_pc_limits_t *given)
{
    memset(lim, 0, sizeof *lim);
    if (given)
        *lim = *given;
    if (!lim->depth)
        lim->depth = DEF_DEPTH;
    if (lim->depth > MAX_DEPTH_LIMIT)
        lim->depth = MAX_DEPTH_LIMIT;
    if (!lim->packages)
        lim->packages = DEF_PACKAGES;
    if (!lim->entries)
        lim->entries = DEF_ENTRIES;
    if (!lim->file_bytes)
        lim->file_bytes = DEF_FILE_BYTES;
    if (!lim->bytes)
        lim->bytes = DEF_BYTES;
    if (!lim->visits)
        lim->visits = DEF_VISITS;
    if (!lim->words)
        lim->words = DEF_WORDS;
    if (!lim->ms)
        lim->ms = DEF_MS;
}

/* Release the graph: the matches first, which hold packages in cycles
 * (libpkgconf frees a package when its count drops to 0, and a cycle's
 * never does), then our own references.  The builtins are libpkgconf's
 * static objects: their SEEN mark must not outlive this resolution. */
static void rctx_fini(rctx_t *r)
{
    static const size_t lists[] = {offsetof(pkgconf_pkg_t, required), offsetof(pkgconf_pkg_t, requires_private),
                                   offsetof(pkgconf_pkg_t, conflicts), offsetof(pkgconf_pkg_t, provides)};

    for (size_t i = 0; i < r->n_nodes; i++) {
        if (!r->nodes[i].owned)
            continue;
        for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
            pkgconf_list_t *list = (pkgconf_list_t *)((char *)r->nodes[i].pkg + lists[l]);
            pkgconf_node_t *n;

            PKGCONF_FOREACH_LIST_ENTRY(list->head, n) {
                pkgconf_dependency_t *dep = n->data;
                pkgconf_pkg_t *m = dep->match;

                dep->match = NULL;
                if (m)
                    pkgconf_pkg_unref(r->client, m);
            }
        }
    }
    for (size_t i = 0; i < r->n_nodes; i++)
        r->nodes[i].pkg->flags &= ~PKGCONF_PKG_PROPF_SEEN;
    for (size_t i = 0; i < r->n_nodes; i++)
        if (r->nodes[i].owned)
            pkgconf_pkg_unref(r->client, r->nodes[i].pkg);
    free(r->nodes);
    free(r->path);
    for (size_t i = 0; i < r->n_dir_lists; i++)
        ctk_strlist_fini(&r->dir_lists[i]);
    free(r->dir_lists);
    map_fini(&r->files);
    map_fini(&r->cache);
    map_fini(&r->by_pkg);
    map_fini(&r->dirs);
}

bool ctk_pc_resolve(const char *const *dirs, size_t n_dirs, const char *package,
                    ctk_pc_result_t *out, ctk_error_t *err)
{
    return ctk_pc_resolve_limited(dirs, n_dirs, package, NULL, out, err);
}

/* A client with an empty personality: no default dirs, no system-dir
 * filters, no sysroot.  pkgconf_client_init() still reads the filter
 * lists from CPATH, LIBRARY_PATH and friends; we keep system dirs, so drop
 * them to keep even pkgconf_fragment_has_system_dir() independent of the
 * environment.  We never call pkgconf_client_dir_list_build(), which is
 * what reads PKG_CONFIG_PATH and PKG_CONFIG_LIBDIR: the search list is
 * dirs alone. */
static void client_open(pkgconf_client_t *client, pkgconf_cross_personality_t *personality, diag_t *d,
                        const char *const *dirs, size_t n_dirs)
{
    size_t i;

    memset(personality, 0, sizeof *personality);
    memset(client, 0, sizeof *client);
    pkgconf_client_init(client, on_error, d, personality);
    pkgconf_path_free(&client->filter_libdirs);
    pkgconf_path_free(&client->filter_includedirs);
    memset(&client->filter_libdirs, 0, sizeof client->filter_libdirs);
    memset(&client->filter_includedirs, 0, sizeof client->filter_includedirs);
    pkgconf_client_set_warn_handler(client, on_warn, d);
    for (i = 0; i < n_dirs; i++)
        pkgconf_path_add(dirs[i], &client->dir_list, true);
}

/* The graph from node w first, step by step as libpkgconf will walk it,
 * so that a failure is told as the step that meets it first would tell
 * it; and refused when libpkgconf's walk, which goes down each way again,
 * would make more visits than the limit. */
static bool graph_walkable(rctx_t *r, size_t w, const char *const *dirs, size_t n_dirs, const char *package)
{
    for (int phase = 0; phase < 2; phase++) {
        r->n_path = 0;
        r->eflags = PKGCONF_PKG_ERRF_OK;
        if (!dfs(r, w, phase, 0))
            return false;
        if (r->eflags != PKGCONF_PKG_ERRF_OK || r->d->nomem) {
            report_failure(r->d, r->eflags, dirs, n_dirs, package, r->err);
            return false;
        }
        if (r->nodes[w].visits[phase] > r->lim.visits) {
            stopf(r, CTK_PC_STOP_LIMIT, CTK_E_LIMIT, NULL,
                  "Requires reach %zu packages by so many ways that libpkgconf's walk, which goes down each "
                  "way again, would make %s%lu visits (at most %lu): not resolved",
                  r->n_nodes - 1, r->nodes[w].visits[phase] == ULONG_MAX ? "over " : "", r->nodes[w].visits[phase],
                  r->lim.visits);
            return false;
        }
    }
    return true;
}

/* There is a result to fill, emptied, and package names at least one
 * package. */
static bool request_ok(const char *package, ctk_pc_result_t *out, ctk_error_t *err)
{
    if (!out) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "ctk_pc_resolve: no result to fill");
        return false;
    }
    ctk_pc_result_fini(out);
    if (!package || package[strspn(package, " \t\n,")] == '\0') {
        ctk_error_set(err, CTK_E_USAGE, NULL, 0, 0, "no package named in '%s'", package ? package : "");
        return false;
    }
    return true;
}

/* r set to resolve over client within limits, its clock started. */
static bool rctx_start(rctx_t *r, pkgconf_client_t *client, diag_t *d, const ctk_pc_limits_t *limits,
                       ctk_error_t *err)
{
    r->client = client;
    r->d = d;
    r->err = err;
    limits_init(&r->lim, limits);
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    if (!(r->path = calloc((size_t)r->lim.depth + 3, sizeof *r->path))) {
        ctk_error_nomem(err);
        return false;
    }
    return true;
}

/* The package list as libpkgconf's virtual world package: compiled from
 * the queue, walked for failures and limits, then resolved for versions,
 * cflags and libs in turn; a file libpkgconf worked around fails it. */
static bool resolve_world(rctx_t *r, pkgconf_pkg_t *world, pkgconf_list_t *queue, const char *const *dirs,
                          size_t n_dirs, const char *package, ctk_pc_result_t *out)
{
    static const enum step steps[] = {STEP_VERSIONS, STEP_CFLAGS, STEP_LIBS};
    intptr_t w;

    pkgconf_queue_push(queue, package);
    if (!pkgconf_queue_compile(r->client, world, queue)) {
        report_failure(r->d, PKGCONF_PKG_ERRF_DEPGRAPH_BREAK, dirs, n_dirs, package, r->err);
        return false;
    }
    if ((w = add_node(r, world, false)) == STOPPED)
        return false;
    if (!graph_walkable(r, (size_t)w, dirs, n_dirs, package))
        return false;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (!run_step(r, world, steps[i], dirs, n_dirs, package, out, r->err))
            return false;
    }
    if (ctk_error_is_set(&r->d->broken)) {
        copy_error(&r->d->broken, r->err);
        return false;
    }
    return true;
}

bool ctk_pc_resolve_limited(const char *const *dirs, size_t n_dirs, const char *package,
                            const ctk_pc_limits_t *limits, ctk_pc_result_t *out, ctk_error_t *err)
{
    static char world_id[] = "virtual:world", world_name[] = "virtual world package";
    pkgconf_cross_personality_t personality;
    pkgconf_client_t client;
    pkgconf_list_t queue = PKGCONF_LIST_INITIALIZER;
    pkgconf_pkg_t world;
    bool client_up = false, world_up = false, ok = false;
    ctk_pc_stop_t stop;
    rctx_t r;
    diag_t d;

    diag_init(&d);
    memset(&r, 0, sizeof r);
    map_init(&r.files, true);
    map_init(&r.cache, true);
    map_init(&r.by_pkg, false);
    map_init(&r.dirs, true);
    if (request_ok(package, out, err)) {
        client_open(&client, &personality, &d, dirs, n_dirs);
        client_up = true;
        if (rctx_start(&r, &client, &d, limits, err)) {
            memset(&world, 0, sizeof world);
            world.id = world_id;
            world.realname = world_name;
            world.flags = PKGCONF_PKG_PROPF_STATIC | PKGCONF_PKG_PROPF_VIRTUAL;
            world_up = true;
            ok = resolve_world(&r, &world, &queue, dirs, n_dirs, package, out);
        }
    }
    stop = r.stop;
    if (stop != CTK_PC_STOP_NONE && d.nomem)
        stop = CTK_PC_STOP_NONE;
    /* the world's dependencies hold references too: gone before the graph */
    if (world_up)
        pkgconf_pkg_free(&client, &world);
    if (client_up)
        rctx_fini(&r);
    else
        free(r.path);
    pkgconf_queue_free(&queue);
    if (client_up)
        pkgconf_client_deinit(&client);
    diag_fini(&d);
    if (!ok && out) {
        ctk_pc_result_fini(out);
        out->stop = stop;
    }
    return ok;
}
