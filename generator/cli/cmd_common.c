/* cmd_common.c - what the commands share: the site config or a scan
 * loaded, the SDKs loaded, the output lock taken, a denied write
 * explained, --wait-timeout parsed.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "cmd_common.h"
#include "cli.h"
#include "discover.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Print a scan's events (DEPTH only when verbose; the rest at the level
 * given) and its summary. */
static bool report_scan(const ctk_scan_t *res, double seconds, bool loud, ctk_error_t *err)
{
    ctk_strlist_t untrusted;
    char *summary;
    size_t i;
    bool good;

    for (i = 0; i < res->n_events; i++) {
        if (loud && res->events[i].kind != CTK_SCAN_DEPTH)
            ctk_cli_info("%s", res->events[i].text);
        else
            ctk_cli_debug("%s", res->events[i].text);
    }
    /* a toolkit another user can change is worth a warning however quiet
     * the scan's own decisions are */
    ctk_strlist_init(&untrusted);
    good = ctk_scan_untrusted(res, &untrusted, err);
    for (i = 0; good && i < untrusted.len; i++)
        ctk_cli_warn("%s", untrusted.items[i]);
    ctk_strlist_fini(&untrusted);
    if (!good)
        return false;
    if (!(summary = ctk_scan_summary(res, seconds, err)))
        return false;
    if (loud)
        ctk_cli_info("%s", summary);
    else
        ctk_cli_debug("%s", summary);
    free(summary);
    return true;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

ctk_scan_t *ctk_cmd_run_scan(char *const *dirs, size_t n, int max_depth, bool loud, ctk_error_t *err)
{
    ctk_scan_opts_t so;
    ctk_scan_t *res;
    double t0 = now_s();

    so.max_depth = max_depth;
    res = n ? ctk_scan((const char *const *)dirs, n, &so, err) : ctk_scan_standard(&so, err);
    if (res && !report_scan(res, now_s() - t0, loud, err)) {
        ctk_scan_free(res);
        return NULL;
    }
    return res;
}

void ctk_cmd_no_toolkit(char *const *dirs, size_t n, const char *hint, ctk_error_t *err)
{
    char doc[CTK_ERROR_SOURCE_MAX + 128];
    ctk_buf_t where;
    size_t i;

    ctk_buf_init(&where);
    if (n == 0)
        ctk_buf_puts(&where, ctk_scan_standard_text);
    for (i = 0; i < n; i++)
        ctk_buf_printf(&where, "%s%s", i ? ", " : "", dirs[i]);
    if (where.failed)
        ctk_error_nomem(err);
    else
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "no CUDA toolkit found in %s; %s (see %s)",
                      where.data ? where.data : "", hint, ctk_cli_doc_ref("site-config.md", doc, sizeof doc));
    ctk_buf_fini(&where);
}

ctk_config_t *ctk_cmd_scan_config(char *const *dirs, size_t n, int max_depth, bool loud,
                                  ctk_error_t *err)
{
    ctk_scan_t *res = ctk_cmd_run_scan(dirs, n, max_depth, loud, err);
    ctk_config_t *cfg = NULL;

    if (res && res->cfg->n_sdks == 0)
        ctk_cmd_no_toolkit(dirs, n, "describe yours in a site config and pass it with -c", err);
    else if (res)
        cfg = ctk_scan_take_config(res);
    ctk_scan_free(res);
    return cfg;
}

int ctk_cmd_parse_depth(const char *cmd, const char *arg, int *out)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(arg, &end, 10);
    if (errno || end == arg || *end || n < 0 || n > CTK_SCAN_MAX_DEPTH)
        return ctk_cli_usage(cmd, "--max-depth needs a whole number from 0 to %d, not '%s'",
                             CTK_SCAN_MAX_DEPTH, arg);
    *out = (int)n;
    return CTK_EXIT_OK;
}

ctk_config_t *ctk_cmd_load_config(const char *path, ctk_error_t *err)
{
    ctk_config_t *cfg;
    ctk_errlist_t errs;

    if (path) {
        ctk_errlist_init(&errs, CTK_ERRLIST_MAX);
        cfg = ctk_config_load_all(path, &errs, err);
        /* every error of the file at once, not one per run */
        if (!cfg && err)
            ctk_cli_error_list(&errs, err);
        ctk_errlist_fini(&errs);
        /* an unreadable config is bad input (exit 3), not a broken system */
        if (!cfg && err && err->code == CTK_E_IO)
            err->code = CTK_E_CONFIG;
        return cfg;
    }
    ctk_cli_info("no config given: scanning the standard install places");
    return ctk_cmd_scan_config(NULL, 0, -1, false, err);
}

/* Two SDKs whose bases are one directory: two modules for one install.
 * The SDKs are sorted by their base's identity (device and inode, after
 * links; then by position), so equal bases lie side by side and a site of
 * thousands is not compared pairwise; the warnings come in config order
 * all the same, each naming the directory resolved. */
typedef struct {
    dev_t dev;
    ino_t ino;
    size_t i;
} base_t;

static int base_cmp(const void *x, const void *y)
{
    const base_t *a = x, *b = y;

    if (a->dev != b->dev)
        return (a->dev > b->dev) - (a->dev < b->dev);
    if (a->ino != b->ino)
        return (a->ino > b->ino) - (a->ino < b->ino);
    return (a->i > b->i) - (a->i < b->i);
}

static int pair_cmp(const void *x, const void *y)
{
    const size_t *a = x, *b = y;

    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static void warn_pair(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t i, size_t j)
{
    char *real = ctk_realpath(sdks[i]->root);

    ctk_cli_warn("%s/%s (%s) and %s/%s (%s) are the same toolkit, %s: two modules "
                 "for one install; drop one, or list its name in the other's "
                 "\"aliases\"",
                 cfg->module_name, sdks[i]->module_version, cfg->sdks[i].jpath,
                 cfg->module_name, sdks[j]->module_version, cfg->sdks[j].jpath,
                 real ? real : sdks[i]->root);
    free(real);
}

static bool warn_same_toolkit(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, ctk_error_t *err)
{
    base_t *by = calloc(cfg->n_sdks ? cfg->n_sdks : 1, sizeof *by);
    size_t *pairs = NULL, n = 0, n_pairs = 0, cap = 0, i, j, k;
    struct stat st;
    bool ok = false;

    if (!by)
        goto nomem;
    for (i = 0; i < cfg->n_sdks; i++)
        if (sdks[i] && stat(sdks[i]->root, &st) == 0)
            by[n++] = (base_t){ st.st_dev, st.st_ino, i };
    qsort(by, n, sizeof *by, base_cmp);
    for (i = 0; i < n; i = j) {
        for (j = i + 1; j < n && by[j].dev == by[i].dev && by[j].ino == by[i].ino; j++)
            ;
        for (k = i; k + 1 < j; k++) {
            for (size_t l = k + 1; l < j; l++) {
                if (n_pairs == cap) {
                    size_t *p = realloc(pairs, (cap = cap ? 2 * cap : 16) * 2 * sizeof *p);

                    if (!p)
                        goto nomem;
                    pairs = p;
                }
                pairs[2 * n_pairs] = by[k].i;
                pairs[2 * n_pairs++ + 1] = by[l].i;
            }
        }
    }
    if (n_pairs > 1)
        qsort(pairs, n_pairs, 2 * sizeof *pairs, pair_cmp);
    for (k = 0; k < n_pairs; k++)
        warn_pair(cfg, sdks, pairs[2 * k], pairs[2 * k + 1]);
    ok = true;
    goto out;
nomem:
    ctk_error_nomem(err);
out:
    free(by);
    free(pairs);
    return ok;
}

/* Load SDK i (through fc when not NULL: factcache.h), printing its
 * error; *rc is raised to what the error says. */
static bool load_one(ctk_config_t *cfg, size_t i, bool notes, ctk_factcache_t *fc, ctk_sdk_t **sdk,
                     int *rc, size_t *kept, ctk_error_t *err)
{
    bool cached = false;
    ctk_error_t e;
    char *note = NULL;
    int code;

    ctk_error_init(&e);
    if (!ctk_sdk_conf_pin_base(&cfg->sdks[i], cfg->module_name, &note, err))
        return false;
    if (note && notes)
        ctk_cli_warn("%s", note);
    free(note);
    if ((*sdk = ctk_factcache_load(fc, &cfg->sdks[i], cfg->source, &cached, &e))) {
        *kept += cached;
        ctk_cli_debug("%s: CUDA %s at %s", (*sdk)->module_version, (*sdk)->version_mm,
                      (*sdk)->root);
        return true;
    }
    if (e.code == CTK_E_NOMEM || e.code == CTK_E_INTERNAL) {
        *err = e;
        return false;
    }
    code = ctk_cli_error(&e);
    /* bad input (3) wins over the environment (4): the config is to fix */
    if (*rc == CTK_EXIT_OK || code == CTK_EXIT_INPUT)
        *rc = code;
    return true;
}

bool ctk_cmd_load_sdks(ctk_config_t *cfg, bool notes, ctk_factcache_t *fc, ctk_sdk_t **sdks,
                       int *rc, ctk_error_t *err)
{
    size_t i, kept = 0;

    *rc = CTK_EXIT_OK;
    for (i = 0; i < cfg->n_sdks; i++)
        if (!load_one(cfg, i, notes, fc, &sdks[i], rc, &kept, err))
            return false;
    if (fc)
        ctk_cli_debug("%zu of %zu toolkit(s) not probed: what was kept of them still holds", kept,
                      cfg->n_sdks);
    return !notes || warn_same_toolkit(cfg, sdks, err);
}

void ctk_cmd_explain_denied(const char *named, bool is_dir, const char *hint, ctk_error_t *err)
{
    ctk_denied_t d;
    char lead[CTK_ERROR_SOURCE_MAX + 64], where[CTK_ERROR_SOURCE_MAX + 8];

    if (!err || err->code != CTK_E_IO ||
        !ctk_write_denied(err->source[0] ? err->source : named, &d))
        return;
    if (!is_dir)
        snprintf(lead, sizeof lead, "cannot write %s", named);
    else if (ctk_is_dir(named))
        snprintf(lead, sizeof lead, "cannot write to the output directory %s", named);
    else
        snprintf(lead, sizeof lead, "cannot create the output directory %s", named);
    snprintf(where, sizeof where, "%s", is_dir && !strcmp(d.dir, named) ? "it" : d.dir);
    ctk_error_init(err);
    if (d.why == EROFS)
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "%s (%s): %s is on a file system mounted "
                      "read-only; %s", lead, strerror(d.why), where, hint);
    else if (d.uid == d.owner_uid)
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "%s (%s): user %s cannot write to %s (owner %s, "
                      "mode %04o); %s, or make it writable: chmod u+w %s", lead, strerror(d.why),
                      d.user, where, d.owner, d.mode, hint, d.dir);
    else
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "%s (%s): user %s cannot write to %s (owner %s, "
                      "mode %04o); %s, or ask %s to let %s write there", lead, strerror(d.why),
                      d.user, where, d.owner, d.mode, hint, d.owner, d.user);
}

ctk_lock_t *ctk_cmd_take_lock(const char *outdir, bool shared, double wait_s, ctk_error_t *err)
{
    ctk_lock_t *lock = shared ? ctk_write_lock_shared(outdir, 0, err)
                              : ctk_write_lock(outdir, 0, err);

    if (!lock && wait_s != 0 && err->code == CTK_E_LOCK) {
        if (wait_s > 0)
            ctk_cli_info("%s; waiting up to %g s for it to finish", err->text, wait_s);
        else
            ctk_cli_info("%s; waiting for it to finish", err->text);
        ctk_error_init(err);
        lock = shared ? ctk_write_lock_shared(outdir, wait_s, err)
                      : ctk_write_lock(outdir, wait_s, err);
    }
    if (lock && ctk_write_lock_note(lock))
        ctk_cli_warn("%s", ctk_write_lock_note(lock));
    return lock;
}

int ctk_cmd_parse_wait(const char *cmd, const char *arg, double *wait_s)
{
    char *end;
    double d;

    errno = 0;
    d = strtod(arg, &end);
    /* written so that NaN fails too */
    if (errno || end == arg || *end || !(d >= 0 && d <= CTK_WAIT_TIMEOUT_MAX))
        return ctk_cli_usage(cmd, "--wait-timeout needs seconds from 0 to %d, not '%s'",
                             CTK_WAIT_TIMEOUT_MAX, arg);
    *wait_s = d;
    return CTK_EXIT_OK;
}
