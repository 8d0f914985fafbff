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
 * libpkgconf reports through two callbacks: errors (resolution failures,
 * one message per call) and warnings (problems in .pc files, with the file
 * name and often the line).  Both are collected into a diag_t and turned
 * into one ctk_error_t after each step.
 */
#include <ctkconf.h>

#include "pc.h"

#include <libpkgconf/libpkgconf.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The CLI's default --maximum-traverse-depth. */
#define MAX_DEPTH 2000

#define WARNING_SEP ": warning: "

typedef struct {
    ctk_error_t broken;  /* first warning that makes a .pc broken (CTK_E_CONFIG) */
    ctk_buf_t messages;  /* error messages of the failing step, "; "-joined */
    char *missing;       /* first package reported not found */
    char *required_by;   /* and the id of the package requiring it */
    bool nomem;          /* an allocation inside a callback failed */
} diag_t;

enum step { STEP_VERSIONS, STEP_CFLAGS, STEP_LIBS };

void ctk_pc_result_init(ctk_pc_result_t *r)
{
    if (!r)
        return;
    r->version = NULL;
    ctk_strlist_init(&r->versions);
    ctk_strlist_init(&r->cflags);
    ctk_strlist_init(&r->libs);
}

void ctk_pc_result_fini(ctk_pc_result_t *r)
{
    if (!r)
        return;
    free(r->version);
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
    d->nomem = false;
}

static void diag_fini(diag_t *d)
{
    ctk_buf_fini(&d->messages);
    free(d->missing);
    free(d->required_by);
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
static void report_failure(pkgconf_client_t *client, const diag_t *d, unsigned int eflags,
                           const char *const *dirs, size_t n_dirs, const char *package,
                           ctk_error_t *err)
{
    char *where = NULL;
    pkgconf_pkg_t *parent;

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
            parent = pkgconf_cache_lookup(client, d->required_by);
            ctk_error_set(err, CTK_E_IO, parent && parent->filename ? parent->filename : NULL, 0, 0,
                          "package '%s', required by '%s', not found in %s",
                          d->missing, d->required_by, where);
            if (parent)
                pkgconf_pkg_unref(client, parent);
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
    }
    return true;
}

static bool run_step(pkgconf_client_t *client, pkgconf_list_t *queue, enum step step,
                     const char *const *dirs, size_t n_dirs, const char *package,
                     diag_t *d, ctk_pc_result_t *out, ctk_error_t *err)
{
    static char world_id[] = "virtual:world", world_name[] = "virtual world package";
    pkgconf_list_t frags = PKGCONF_LIST_INITIALIZER, kept = PKGCONF_LIST_INITIALIZER;
    pkgconf_pkg_t world;
    unsigned int eflags;
    bool ok = false;

    memset(&world, 0, sizeof world);
    world.id = world_id;
    world.realname = world_name;
    world.flags = PKGCONF_PKG_PROPF_STATIC | PKGCONF_PKG_PROPF_VIRTUAL;

    pkgconf_client_set_flags(client, PKGCONF_PKG_PKGF_SIMPLIFY_ERRORS |
                                         (step == STEP_CFLAGS ? PKGCONF_PKG_PKGF_SEARCH_PRIVATE : 0));
    if (!pkgconf_queue_compile(client, &world, queue))
        eflags = PKGCONF_PKG_ERRF_DEPGRAPH_BREAK;
    else
        eflags = pkgconf_pkg_verify_graph(client, &world, MAX_DEPTH);
    if (eflags == PKGCONF_PKG_ERRF_OK) {
        if (step == STEP_CFLAGS)
            eflags = pkgconf_pkg_cflags(client, &world, &frags, MAX_DEPTH);
        else if (step == STEP_LIBS)
            eflags = pkgconf_pkg_libs(client, &world, &frags, MAX_DEPTH);
    }
    if (eflags != PKGCONF_PKG_ERRF_OK || d->nomem) {
        report_failure(client, d, eflags, dirs, n_dirs, package, err);
        goto out;
    }

    if (step == STEP_VERSIONS) {
        if (!collect_versions(&world, out, err))
            goto out;
    } else {
        pkgconf_fragment_filter(client, &kept, &frags, keep_all, NULL);
        if (!frags_to_args(&kept, step == STEP_CFLAGS ? &out->cflags : &out->libs, err))
            goto out;
    }
    ok = true;
out:
    pkgconf_fragment_free(&kept);
    pkgconf_fragment_free(&frags);
    pkgconf_pkg_free(client, &world);
    return ok;
}

bool ctk_pc_resolve(const char *const *dirs, size_t n_dirs, const char *package,
                    ctk_pc_result_t *out, ctk_error_t *err)
{
    static const enum step steps[] = {STEP_VERSIONS, STEP_CFLAGS, STEP_LIBS};
    pkgconf_cross_personality_t personality;
    pkgconf_client_t client;
    pkgconf_list_t queue = PKGCONF_LIST_INITIALIZER;
    bool client_up = false, ok = false;
    diag_t d;
    size_t i;

    diag_init(&d);
    if (!out) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "ctk_pc_resolve: no result to fill");
        goto out;
    }
    ctk_pc_result_fini(out);
    if (!package || package[strspn(package, " \t\n,")] == '\0') {
        ctk_error_set(err, CTK_E_USAGE, NULL, 0, 0, "no package named in '%s'", package ? package : "");
        goto out;
    }

    /* An empty personality: no default dirs, no system-dir filters, no
     * sysroot.  pkgconf_client_init() still reads the filter lists from
     * CPATH, LIBRARY_PATH and friends; we keep system dirs, so drop them to
     * keep even pkgconf_fragment_has_system_dir() independent of the
     * environment.  We never call pkgconf_client_dir_list_build(), which is
     * what reads PKG_CONFIG_PATH and PKG_CONFIG_LIBDIR. */
    memset(&personality, 0, sizeof personality);
    memset(&client, 0, sizeof client);
    pkgconf_client_init(&client, on_error, &d, &personality);
    client_up = true;
    pkgconf_path_free(&client.filter_libdirs);
    pkgconf_path_free(&client.filter_includedirs);
    memset(&client.filter_libdirs, 0, sizeof client.filter_libdirs);
    memset(&client.filter_includedirs, 0, sizeof client.filter_includedirs);
    pkgconf_client_set_warn_handler(&client, on_warn, &d);
    for (i = 0; i < n_dirs; i++)
        pkgconf_path_add(dirs[i], &client.dir_list, true);

    pkgconf_queue_push(&queue, package);
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        if (!run_step(&client, &queue, steps[i], dirs, n_dirs, package, &d, out, err))
            goto out;
    }
    /* Resolution worked around a broken file: we do not. */
    if (ctk_error_is_set(&d.broken)) {
        copy_error(&d.broken, err);
        goto out;
    }
    ok = true;
out:
    pkgconf_queue_free(&queue);
    if (client_up)
        pkgconf_client_deinit(&client);
    diag_fini(&d);
    if (!ok)
        ctk_pc_result_fini(out);
    return ok;
}
