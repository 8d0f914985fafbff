/* cmd_generate.c - `ctkgen generate`: site config -> modulefiles and .pc files.
 * SPDX-License-Identifier: MIT
 *
 * Order of work: load the config (or scan), verify every toolkit, render
 * every file in memory, plan against the output tree, then write.  Any
 * error before the write leaves the output tree exactly as it was.
 */
#include <ctkconf.h>

#include "advice.h"
#include "cli.h"
#include "cmd_common.h"
#include "cmds.h"
#include "config.h"
#include "factcache.h"
#include "render.h"
#include "sdk.h"
#include "util.h"
#include "write.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_OUTDIR "ctkgen-out"

enum {
    OPT_CONFIG = 'c',
    OPT_OUTPUT = 'o',
    OPT_TEMPLATES = 't',
    OPT_DRY_RUN = 'n',
    OPT_FORCE = 'f',
    OPT_CHECK = 0x100,
    OPT_NO_WAIT,
    OPT_WAIT_TIMEOUT,
    OPT_VALIDATE,
    OPT_JOBS,
    OPT_REQUIRE_LAUNCH,
    OPT_NO_CACHE,
    OPT_SCAN,
    OPT_MAX_DEPTH,
    OPT_KEEP_GOING,
    OPT_RERENDER,
};

static const ctk_opt_t generate_opts[] = {
    { "config", 'c', "FILE", OPT_CONFIG, "site config (JSON); default: scan the standard install places" },
    { "scan", 0, NULL, OPT_SCAN, "scan the DIRs given as arguments (none: the standard places) as 'ctkgen scan' does" },
    { "max-depth", 0, "N", OPT_MAX_DEPTH, "with --scan: look at most N levels below each DIR (default: 8)" },
    { "output", 'o', "DIR", OPT_OUTPUT, "output directory (default: ./" DEFAULT_OUTDIR ")" },
    { "template-dir", 't', "DIR", OPT_TEMPLATES, "use templates from DIR where present (default: built-in); any other file there is an error" },
    { "dry-run", 'n', NULL, OPT_DRY_RUN, "print a unified diff of what would change; write nothing" },
    { "check", 0, NULL, OPT_CHECK, "write nothing; exit 1 if the output tree would change" },
    { "force", 'f', NULL, OPT_FORCE, "overwrite or remove files edited by hand" },
    { "keep-going", 'k', NULL, OPT_KEEP_GOING, "write the SDKs that load, leave every file of those that do not (and the .modulerc files) as it was, then exit 3 or 4 naming them" },
    { "rerender", 0, NULL, OPT_RERENDER, "probe and render every toolkit, also one whose kept facts still hold or whose inputs hash as the manifest records (such a toolkit is otherwise not probed, and its files only checked on disk)" },
    { "no-wait", 0, NULL, OPT_NO_WAIT, "fail at once (exit 4) if another run holds the output lock" },
    { "wait-timeout", 0, "SECONDS", OPT_WAIT_TIMEOUT, "wait at most SECONDS for another run's output lock, then exit 4 (default: as long as it takes)" },
    { "validate", 0, NULL, OPT_VALIDATE, "then prove every artifact works, as 'ctkgen validate' does" },
    { "jobs", 'j', "N", OPT_JOBS, "with --validate: check N SDKs at once (default: the number of CPUs)" },
    { "require-launch", 0, NULL, OPT_REQUIRE_LAUNCH, "with --validate: fail when a probe cannot launch (no GPU)" },
    { "no-cache", 0, NULL, OPT_NO_CACHE, "with --validate: ignore cached results" },
    CTK_VOPT_ENTRIES,
    { "help", 'h', NULL, CTK_OPT_HELP_ID, "show this help" },
    { NULL, 0, NULL, 0, NULL },
};

static const char *const generate_docs[] = { "site-config.md", "variables.md", NULL };

const ctk_cmd_doc_t ctk_cmd_generate_doc = {
    "generate",
    "[-c FILE | --scan [DIR...]] [-o DIR] [options]",
    "Write Lmod and Tcl modulefiles and pkg-config files for every CUDA toolkit\n"
    "in a site config.",
    "Writes, under DIR:\n"
    "  lmod/<module_name>/<version>.lua   and lmod/<module_name>/.modulerc.lua\n"
    "  tcl/<module_name>/<version>        and tcl/<module_name>/.modulerc\n"
    "  pkgconfig/<pc_prefix>-<version>.pc and one .pc per library found\n"
    "Every toolkit is checked first (nvcc, cuda_runtime.h, libcudart, its own\n"
    "version against the declared one), all of them, and every error is printed;\n"
    "any error writes nothing, unless --keep-going: then the SDKs that load are\n"
    "written and the files of those that do not are left exactly as they were.\n"
    "A base that is a symbolic link (/usr/local/cuda) is resolved, with a\n"
    "warning, unless the SDK sets \"follow_link\": true.  Unchanged\n"
    "files are not rewritten; files from SDKs no longer configured are removed;\n"
    "a file edited by hand is never overwritten without --force.\n"
    "With --scan the config is what 'ctkgen scan DIR...' would write, and its\n"
    "decisions are printed on stderr as scan prints them.\n",
    generate_opts,
    generate_docs,
};

typedef struct {
    const char *config;
    bool scan;             /* --scan: the DIRs below, or the standard places */
    char **scan_dirs;
    size_t n_scan_dirs;
    int max_depth;
    const char *outdir;
    const char *template_dir;
    bool dry_run, check, force, no_wait;
    bool keep_going;       /* write the SDKs that load; keep the others' files */
    bool rerender;         /* render every SDK, whatever the manifest records */
    double wait_s;         /* --wait-timeout; CTK_LOCK_WAIT_FOREVER when not given */
    bool validate;
    ctk_validate_cli_t vopts;
} gen_opts_t;

/* OUT made absolute without requiring it to exist. */
static char *absolute_dir(const char *dir, ctk_error_t *err)
{
    char cwd[PATH_MAX];
    char *real = ctk_realpath(dir);

    if (real)
        return real;
    if (dir[0] == '/')
        return ctk_strdup(dir, err);
    if (!getcwd(cwd, sizeof cwd)) {
        ctk_error_set(err, CTK_E_IO, NULL, 0, 0, "cannot read the current directory");
        return NULL;
    }
    return ctk_path_join(cwd, dir, err);
}

/* "12.4 (/sdks/0), 13.0 (/sdks/2)": the SDKs that did not load.  Caller frees. */
static char *failed_names(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t *n,
                          ctk_error_t *err)
{
    ctk_buf_t b;
    size_t i;

    ctk_buf_init(&b);
    for (i = 0, *n = 0; i < cfg->n_sdks; i++) {
        const ctk_sdk_conf_t *c = &cfg->sdks[i];

        if (sdks[i])
            continue;
        ctk_buf_printf(&b, "%s%s/%s (%s)", (*n)++ ? ", " : "", cfg->module_name,
                       c->module_version ? c->module_version : c->version, c->jpath);
    }
    if (b.failed || !ctk_buf_append(&b, "", 0)) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return ctk_buf_take(&b, NULL);
}

/* The error that ends a run some SDKs of which did not load (rc: what
 * their errors said), naming them; what happened to OUT in words. */
static int failed_sdks(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, int rc, const char *what)
{
    ctk_error_t e;
    char *names;
    size_t n;

    ctk_error_init(&e);
    if (!(names = failed_names(cfg, sdks, &n, &e)))
        return ctk_cli_error(&e);
    ctk_error_set(&e, rc == CTK_EXIT_INPUT ? CTK_E_SDK : CTK_E_ENV, NULL, 0, 0,
                  "%zu of %zu SDKs did not load: %s; %s", n, cfg->n_sdks, names, what);
    free(names);
    ctk_cli_error(&e);
    return rc;
}

/* With --keep-going: a config of the SDKs that loaded (its sdks array is
 * the caller's to free, its strings borrowed from cfg) and their records
 * in good; keep gets every path of those that did not, and the shared
 * .modulerc files, whose default and aliases stay as they were. */
static bool select_loaded(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, ctk_config_t *sub,
                          ctk_sdk_t **good, ctk_strlist_t *keep, ctk_error_t *err)
{
    size_t i, n = 0;
    bool shared = false;

    *sub = *cfg;
    if (!(sub->sdks = calloc(cfg->n_sdks ? cfg->n_sdks : 1, sizeof *sub->sdks))) {
        ctk_error_nomem(err);
        return false;
    }
    for (i = 0; i < cfg->n_sdks; i++) {
        if (sdks[i]) {
            sub->sdks[n] = cfg->sdks[i];
            good[n++] = sdks[i];
        } else if (!ctk_render_sdk_paths(cfg, &cfg->sdks[i], !shared, keep, err)) {
            return false;
        } else {
            shared = true;
        }
    }
    sub->n_sdks = n;
    if (shared)
        sub->default_version = NULL; /* its .modulerc files are kept as they are */
    return true;
}

static const char *change_word(ctk_change_kind_t k)
{
    switch (k) {
    case CTK_CHANGE_CREATE: return "created";
    case CTK_CHANGE_UPDATE: return "updated";
    case CTK_CHANGE_REMOVE: return "removed";
    case CTK_CHANGE_SAME: break;
    }
    return "unchanged";
}

static void print_summary(const gen_opts_t *o, const ctk_config_t *cfg, ctk_sdk_t *const *sdks,
                          const ctk_plan_t *plan, const char *absout)
{
    size_t c, u, r, s, x, i;
    const char *first = ctk_render_default(cfg, sdks, cfg->n_sdks);

    if (ctk_cli_verbosity < CTK_NORMAL)
        return;
    ctk_plan_counts(plan, &c, &u, &r, &s, &x);
    for (i = 0; i < cfg->n_sdks; i++)
        printf("%s/%s: CUDA %s at %s (version from %s)\n", cfg->module_name,
               sdks[i]->module_version,
               sdks[i]->version_full ? sdks[i]->version_full : sdks[i]->version_mm,
               sdks[i]->root, ctk_version_source_name(sdks[i]->version.source));
    for (i = 0; i < plan->n; i++) {
        if (plan->items[i].kind == CTK_CHANGE_SAME && ctk_cli_verbosity < CTK_VERBOSE)
            continue;
        printf("  %-9s %s\n", change_word(plan->items[i].kind), plan->items[i].relpath);
    }
    printf("%s%s: %zu created, %zu updated, %zu removed, %zu unchanged\n", absout,
           o->check ? " would change" : "", c, u, r, s);
    if (o->check)
        return;
    printf("\nTo use them:\n"
           "  Lmod:                module use %s/lmod; module load %s/%s\n"
           "  Environment Modules: module use %s/tcl; module load %s/%s\n"
           "  pkg-config:          export PKG_CONFIG_PATH=%s/pkgconfig\n"
           "                       pkg-config --cflags --libs %s-%s\n",
           absout, cfg->module_name, first, absout, cfg->module_name, first, absout,
           cfg->pc_prefix, first);
}

/* ---- full-version names where the config does not say -------------------
 * Without "full_version_aliases" in the config, the .modulerc files give
 * each toolkit its X.Y.Z name only where the tree ctkgen wrote to OUT
 * before already does: an earlier ctkgen wrote them unless told not to,
 * and a site that upgrades must not lose a name its users load.  A new
 * tree gets none, so that every module load and avail of the family reads
 * the default and the SDKs' own aliases alone (docs/benchmarks.md,
 * "Module commands at site scale").  The evidence is a .modulerc that
 * ctkgen wrote, unchanged since (the manifest says so): its
 * "full_version_aliases" line, which lmod-rc.lua and tcl-rc.lua write;
 * in a file without one (an earlier ctkgen's, or the site's own
 * templates'), a line giving a module version a name of the form X.Y.Z
 * that no SDK's "aliases" holds, in the line's last quoted word. */

/* s[0..n) is D.D.D, each D one or more digits, as sdk.c writes a full version. */
static bool full_version_shape(const char *s, size_t n)
{
    size_t i, dots = 0;
    bool digit = false;

    for (i = 0; i < n; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            digit = true;
        } else if (s[i] == '.' && digit && dots < 2) {
            dots++;
            digit = false;
        } else {
            return false;
        }
    }
    return dots == 2 && digit;
}

static bool is_explicit_alias(const ctk_config_t *cfg, const char *s, size_t n)
{
    size_t i, k;

    for (i = 0; i < cfg->n_sdks; i++)
        for (k = 0; k < cfg->sdks[i].n_aliases; k++)
            if (strlen(cfg->sdks[i].aliases[k]) == n && memcmp(cfg->sdks[i].aliases[k], s, n) == 0)
                return true;
    return false;
}

/* Is line[0..end) the "full_version_aliases" line saying value? */
static bool rc_marks(const char *line, const char *end, const char *value)
{
    size_t n = (size_t)(end - line);

    while (n && (line[n - 1] == ' ' || line[n - 1] == '\r'))
        n--;
    if (n < 3 || (strncmp(line, "-- ", 3) != 0 && strncmp(line, "## ", 3) != 0))
        return false;
    line += 3;
    n -= 3;
    return n == 22 + strlen(value) && strncmp(line, "full_version_aliases: ", 22) == 0 &&
           strncmp(line + 22, value, n - 22) == 0;
}

/* Does a .modulerc(.lua)'s text give the full versions as names? */
static bool rc_gives_full_names(const ctk_config_t *cfg, const char *text)
{
    const char *line = text;
    bool shaped = false;

    while (*line) {
        const char *end = strchr(line, '\n'), *next, *q;

        if (!end)
            end = line + strlen(line);
        next = *end ? end + 1 : end;
        if (rc_marks(line, end, "true") || rc_marks(line, end, "false"))
            return rc_marks(line, end, "true");
        if (!shaped &&
            (strncmp(line, "module_version(", 15) == 0 || strncmp(line, "module-version ", 15) == 0)) {
            while (end > line && (end[-1] == ')' || end[-1] == ' ' || end[-1] == '\r'))
                end--;
            if (end - line > 1 && end[-1] == '"') {
                for (q = end - 1; q > line && q[-1] != '"'; q--)
                    ;
                shaped = q > line && full_version_shape(q, (size_t)(end - 1 - q)) &&
                         !is_explicit_alias(cfg, q, (size_t)(end - 1 - q));
            }
        }
        line = next;
    }
    return shaped;
}

/* Settle cfg->full_version_aliases when the config left it out (-1), from
 * the .modulerc files of OUT's tree (rec: its manifest; NULL: read it
 * here).  false only for want of memory. */
static bool full_names_of_tree(ctk_config_t *cfg, const char *absout, const ctk_records_t *rec,
                               ctk_error_t *err)
{
    ctk_records_t *own = NULL;
    bool ok = true, read = false;
    size_t i;

    cfg->full_version_aliases = 0;
    if (!rec && !(rec = own = ctk_write_records(absout, err)))
        return false;
    /* ctkgen writes both with the same names: the first as written decides */
    for (i = 0; ok && !read && i < 2; i++) {
        char *rel = i == 0 ? ctk_printf(err, "lmod/%s/.modulerc.lua", cfg->module_name)
                           : ctk_printf(err, "tcl/%s/.modulerc", cfg->module_name);
        char *text = NULL;
        size_t len;
        int r = rel ? ctk_records_read(rec, absout, rel, &text, &len, err) : -1;

        ok = r >= 0;
        read = r == 1;
        if (r == 1 && rc_gives_full_names(cfg, text))
            cfg->full_version_aliases = 1;
        free(text);
        free(rel);
    }
    ctk_records_free(own);
    if (ok && cfg->full_version_aliases == 1)
        ctk_cli_warn("%s: the .modulerc files in %s give toolkits their full X.Y.Z versions as "
                     "names, and the site config does not say whether to: kept, so that no name "
                     "users load goes away; \"full_version_aliases\": true in the site config "
                     "keeps them, false leaves them out (every module avail and module load of %s "
                     "reads them; a new tree gets none)", cfg->module_name, absout,
                     cfg->module_name);
    return ok;
}

/* What is valid but may not be what the admin meant (advice.h), and the
 * full-version aliases left out (render.h). */
static bool warn_advice(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, const char *absout,
                        ctk_error_t *err)
{
    ctk_strlist_t notes;
    size_t i;
    bool ok;

    ctk_strlist_init(&notes);
    ok = ctk_render_notes(cfg, sdks, cfg->n_sdks, &notes, err) &&
         ctk_advise(cfg, sdks, cfg->n_sdks, absout, &notes, err);
    for (i = 0; ok && i < notes.len; i++)
        ctk_cli_warn("%s", notes.items[i]);
    ctk_strlist_fini(&notes);
    return ok;
}

/* Render the SDKs into out (emptied first), reusing what rec allows
 * (NULL: nothing), less the files of keep. */
static bool render_into(const ctk_config_t *part, ctk_sdk_t *const *good,
                        const ctk_render_opts_t *ropts, const ctk_records_t *rec,
                        const ctk_strlist_t *keep, ctk_outset_t *out, ctk_error_t *err)
{
    ctk_render_opts_t r = *ropts;

    r.records = rec;
    ctk_outset_fini(out);
    ctk_outset_init(out);
    return ctk_render_all(part, good, part->n_sdks, &r, out, err) &&
           ctk_outset_drop(out, keep, err);
}

/* The plan of out against OUT.  Where a file that was not rendered (its
 * inputs hash as the manifest records) is not on disk as recorded, every
 * SDK is rendered and the plan made again. */
static ctk_plan_t *plan_out(const char *absout, const ctk_config_t *part, ctk_sdk_t *const *good,
                            const ctk_render_opts_t *ropts, const ctk_records_t *rec,
                            const ctk_strlist_t *keep, ctk_outset_t *out, ctk_error_t *err)
{
    ctk_plan_t *plan = ctk_write_plan_rec(absout, out, keep, rec, err);

    if (!plan || plan->stale == 0)
        return plan;
    ctk_cli_debug("%zu file(s) not on disk as the manifest records them: rendering every toolkit",
                 plan->stale);
    ctk_plan_free(plan);
    if (!render_into(part, good, ropts, NULL, keep, out, err))
        return NULL;
    return ctk_write_plan_rec(absout, out, keep, rec, err);
}

/* OUT as this run left it, for the next (factcache.h); a failure to keep
 * it costs the next run only time, and is said only with -v. */
static void keep_facts(ctk_factcache_t *fc, bool have_key, uint64_t key, const ctk_plan_t *plan,
                       const ctk_outset_t *out, uint64_t files_was)
{
    uint64_t files = 0;
    ctk_error_t e;

    ctk_error_init(&e);
    /* files proved as recorded were not read, and nothing was written */
    if (out->verified)
        files = files_was;
    else if (have_key && !ctk_plan_identity(plan, &files))
        files = 0;
    ctk_factcache_set_run(fc, have_key ? key : 0,
                          ctk_write_manifest_hash(plan->manifest, plan->manifest_len), files);
    if (!ctk_factcache_write(fc, &e))
        ctk_cli_debug("what was learned of each toolkit is not kept (the next run probes "
                      "every toolkit again): %s", e.text);
}

/* The key of everything this run's files render from, when it can be
 * told: ctkgen and the templates (ctk_render_seed), the config text and
 * where it was read, the output, .pc and link dirs, and every SDK's
 * record (factcache.h).  false when one of them is not known (a scan's
 * config, an SDK not loaded or probed opaquely); err only for a template
 * that cannot be read. */
static bool run_key(const ctk_config_t *cfg, const ctk_factcache_t *fc,
                    const ctk_render_opts_t *ropts, const char *absout, uint64_t *key,
                    ctk_error_t *err)
{
    const char *parts[] = { cfg->source, absout, ropts->pkgconfig_dir, ropts->link_dir,
                            ropts->template_dir ? ropts->template_dir : "" };
    char cwd[PATH_MAX];
    uint64_t h, facts;
    size_t i;

    if (!cfg->text_hash || !ctk_factcache_all_known(fc, &facts) || !getcwd(cwd, sizeof cwd) ||
        !ctk_render_seed(ropts, &h, err))
        return false;
    h = ctk_hash_mix(h, &cfg->text_hash, sizeof cfg->text_hash);
    h = ctk_hash_mix(h, &facts, sizeof facts);
    h = ctk_hash_size(h, cfg->n_sdks);
    h = ctk_hash_mix(h, cwd, strlen(cwd));
    for (i = 0; i < sizeof parts / sizeof *parts; i++)
        h = ctk_hash_mix(h, parts[i], strlen(parts[i]));
    *key = h;
    return true;
}

/* One generate run, from the config to the tree written. */
typedef struct {
    const gen_opts_t *o;
    ctk_error_t err;
    ctk_config_t *cfg;
    ctk_sdk_t **sdks;      /* cfg->n_sdks records, NULL for each that did not load */
    ctk_config_t part;     /* the SDKs that loaded: cfg itself unless --keep-going dropped some */
    ctk_sdk_t **good;      /* their records */
    ctk_strlist_t keep;    /* with --keep-going: paths of the SDKs that did not load */
    int lrc;               /* how loading went: CTK_EXIT_OK or the exit code of the worst */
    char *absout, *pcdir, *linkdir;
    ctk_records_t *rec;    /* OUT's manifest; NULL with --rerender */
    ctk_factcache_t *fc;
    ctk_render_opts_t ropts;
    size_t reused;         /* toolkits not rendered */
    bool have_key;         /* key: what every file renders from (run_key) */
    uint64_t key, files_was;
    bool as_recorded;      /* reused whole, and the files were as the last run left them */
    ctk_outset_t out;
    ctk_lock_t *lock;
    ctk_plan_t *plan;
} gen_t;

/* The config (or a scan), OUT's records, the SDKs loaded and those that
 * loaded picked out. */
static bool gen_load(gen_t *g)
{
    const gen_opts_t *o = g->o;
    ctk_config_t *cfg;
    size_t n;

    g->cfg = cfg = o->scan ? ctk_cmd_scan_config(o->scan_dirs, o->n_scan_dirs, o->max_depth, true, &g->err)
                           : ctk_cmd_load_config(o->config, &g->err);
    if (!cfg)
        return false;
    n = cfg->n_sdks ? cfg->n_sdks : 1;
    if (!(g->sdks = calloc(n, sizeof *g->sdks)) || !(g->good = calloc(n, sizeof *g->good))) {
        ctk_error_nomem(&g->err);
        return false;
    }
    g->absout = absolute_dir(o->outdir, &g->err);
    if (!g->absout || (!o->rerender && !(g->rec = ctk_write_records(g->absout, &g->err))) ||
        !(g->fc = ctk_factcache_read(g->absout, ctk_records_hash(g->rec), &g->err)))
        return false;
    if (cfg->full_version_aliases < 0 && !full_names_of_tree(cfg, g->absout, g->rec, &g->err))
        return false;
    return ctk_cmd_load_sdks(cfg, true, g->fc, g->sdks, &g->lrc, &g->err) &&
           select_loaded(cfg, g->sdks, &g->part, g->good, &g->keep, &g->err);
}

/* Where the .pc files and the link dir will be, into the render options. */
static bool gen_dirs(gen_t *g)
{
    const ctk_config_t *cfg = g->cfg;

    g->pcdir = cfg->pkgconfig_dir ? ctk_strdup(cfg->pkgconfig_dir, &g->err)
                                  : ctk_path_join(g->absout, "pkgconfig", &g->err);
    if (!g->pcdir)
        return false;
    /* OUT/lib sits beside OUT/pkgconfig wherever that is deployed */
    if (cfg->pkgconfig_dir) {
        char *slash = strrchr(g->pcdir, '/');

        g->linkdir = slash && slash != g->pcdir
                         ? ctk_printf(&g->err, "%.*s/lib", (int)(slash - g->pcdir), g->pcdir)
                         : ctk_strdup("/lib", &g->err);
    } else {
        g->linkdir = ctk_path_join(g->absout, "lib", &g->err);
    }
    if (!g->linkdir)
        return false;
    g->ropts.template_dir = g->o->template_dir;
    g->ropts.pkgconfig_dir = g->pcdir;
    g->ropts.link_dir = g->linkdir;
    g->ropts.reused = &g->reused;
    return true;
}

/* Every file into g->out: taken whole from the records when this run's key
 * is the last run's, else rendered (each toolkit whose inputs hash as
 * recorded reused); then the notes on the run. */
static bool gen_render(gen_t *g)
{
    if (g->lrc == CTK_EXIT_OK &&
        !(g->have_key = run_key(g->cfg, g->fc, &g->ropts, g->absout, &g->key, &g->err)) &&
        ctk_error_is_set(&g->err))
        return false;
    if (g->have_key && ctk_factcache_run_same(g->fc, g->key, ctk_records_hash(g->rec), &g->files_was)) {
        /* the files are what rendering would give: the plan checks them */
        if (!ctk_records_reuse_all(g->rec, &g->out, &g->err))
            return false;
        g->reused = g->part.n_sdks;
        g->as_recorded = g->files_was != 0;
    } else if (!render_into(&g->part, g->good, &g->ropts, g->rec, &g->keep, &g->out, &g->err)) {
        return false;
    }
    if (g->reused)
        ctk_cli_debug("%zu of %zu toolkit(s) not rendered: their inputs hash as the manifest "
                      "records", g->reused, g->part.n_sdks);
    return warn_advice(&g->part, g->good, g->absout, &g->err);
}

/* Under the lock, the plan against the tree on disk, its notes said. */
static bool gen_plan(gen_t *g)
{
    const gen_opts_t *o = g->o;
    uint64_t files_now = 0;
    size_t i;

    /* --dry-run and --check only read: they share the lock with each other,
       wait for a writer, and create nothing */
    if (!(g->lock = ctk_cmd_take_lock(g->absout, o->dry_run || o->check, o->wait_s, &g->err))) {
        if (!o->dry_run && !o->check)
            ctk_cmd_explain_denied(g->absout, true, "choose another with -o DIR", &g->err);
        return false;
    }
    /* under the lock: the files on disk as the last run left them need
       not be read (the plan takes this only for the manifest rec read) */
    g->out.verified = g->as_recorded && ctk_records_identity(g->absout, g->rec, &files_now) &&
                      files_now == g->files_was;
    if (!(g->plan = plan_out(g->absout, &g->part, g->good, &g->ropts, g->rec, &g->keep, &g->out, &g->err)))
        return false;
    for (i = 0; i < g->plan->notes.len; i++)
        ctk_cli_warn("%s", g->plan->notes.items[i]);
    return true;
}

/* What the plan is for: shown (--dry-run), judged (--check), or applied,
 * then summed up and, with --validate, proved.  The exit code. */
static int gen_finish(gen_t *g)
{
    const gen_opts_t *o = g->o;
    ctk_plan_t *plan = g->plan;
    char *diff;

    if (o->dry_run) {
        if (!(diff = ctk_plan_diff(plan, &g->err)))
            return ctk_cli_error(&g->err);
        fputs(diff, stdout);
        free(diff);
        /* a real run would stop at a file edited by hand: so does this */
        if (!ctk_plan_allowed(plan, o->force, &g->err))
            return ctk_cli_error(&g->err);
        if (!ctk_plan_has_changes(plan))
            ctk_cli_info("nothing would change in %s", g->absout);
        return CTK_EXIT_OK;
    }
    if (o->check) {
        if (!ctk_plan_allowed(plan, o->force, &g->err))
            return ctk_cli_error(&g->err);
        print_summary(o, &g->part, g->good, plan, g->absout);
        return ctk_plan_has_changes(plan) ? CTK_EXIT_CHECK : CTK_EXIT_OK;
    }
    if (!ctk_write_apply(plan, o->force, &g->err)) {
        ctk_cmd_explain_denied(g->absout, true, "choose another with -o DIR", &g->err);
        return ctk_cli_error(&g->err);
    }
    keep_facts(g->fc, g->have_key, g->key, plan, &g->out, g->files_was);
    print_summary(o, &g->part, g->good, plan, g->absout);
    if (o->validate) {
        /* the lock is ours until validation ends: nobody rewrites what we check */
        ctk_validate_cli_t v = o->vopts;

        v.v.outdir = g->absout;
        v.v.modulecmd = g->cfg->modulecmd;
        fflush(stdout);
        return ctk_validate_and_report(&g->part, g->good, &v);
    }
    return CTK_EXIT_OK;
}

static void gen_fini(gen_t *g)
{
    size_t i;

    ctk_strlist_fini(&g->keep);
    ctk_records_free(g->rec);
    ctk_factcache_free(g->fc);
    free(g->part.sdks);
    free(g->good);
    ctk_write_unlock(g->lock);
    ctk_plan_free(g->plan);
    ctk_outset_fini(&g->out);
    free(g->linkdir);
    free(g->pcdir);
    free(g->absout);
    if (g->sdks)
        for (i = 0; g->cfg && i < g->cfg->n_sdks; i++)
            ctk_sdk_free(g->sdks[i]);
    free(g->sdks);
    ctk_config_free(g->cfg);
}

static int run(const gen_opts_t *o)
{
    gen_t g;
    int rc;

    memset(&g, 0, sizeof g);
    g.o = o;
    g.lrc = CTK_EXIT_OK;
    ctk_error_init(&g.err);
    ctk_outset_init(&g.out);
    ctk_strlist_init(&g.keep);
    if (!gen_load(&g)) {
        rc = ctk_cli_error(&g.err);
    } else if (g.lrc != CTK_EXIT_OK && (!o->keep_going || g.part.n_sdks == 0)) {
        rc = failed_sdks(g.cfg, g.sdks, g.lrc, o->keep_going ? "none did: nothing was written"
                                                             : "nothing was written (--keep-going "
                                                               "writes the others)");
    } else if (!gen_dirs(&g) || !gen_render(&g) || !gen_plan(&g)) {
        rc = ctk_cli_error(&g.err);
    } else {
        rc = gen_finish(&g);
        /* --keep-going: the run did what it could; the SDKs left out decide the exit */
        if (g.lrc != CTK_EXIT_OK && rc != CTK_EXIT_INTERNAL && !ctk_error_is_set(&g.err))
            rc = failed_sdks(g.cfg, g.sdks, g.lrc, "their files were left as they were");
    }
    gen_fini(&g);
    return rc;
}

/* The options into o; -1 to go on, else the exit code (usage, --help). */
static int parse_options(int argc, char **argv, gen_opts_t *o)
{
    const char *arg;
    int id, rc;

    memset(o, 0, sizeof *o);
    o->outdir = DEFAULT_OUTDIR;
    o->max_depth = -1;
    o->wait_s = CTK_LOCK_WAIT_FOREVER;
    optind = 1;
    while ((id = ctk_cli_next_opt(argc, argv, &ctk_cmd_generate_doc, &arg)) != -1) {
        switch (id) {
        case OPT_CONFIG: o->config = arg; break;
        case OPT_OUTPUT: o->outdir = arg; break;
        case OPT_TEMPLATES: o->template_dir = arg; break;
        case OPT_DRY_RUN: o->dry_run = true; break;
        case OPT_CHECK: o->check = true; break;
        case OPT_FORCE: o->force = true; break;
        case OPT_KEEP_GOING: o->keep_going = true; break;
        case OPT_RERENDER: o->rerender = true; break;
        case OPT_NO_WAIT: o->no_wait = true; break;
        case OPT_WAIT_TIMEOUT:
            if (ctk_cmd_parse_wait("generate", arg, &o->wait_s) != CTK_EXIT_OK)
                return CTK_EXIT_USAGE;
            break;
        case OPT_VALIDATE: o->validate = true; break;
        case OPT_JOBS:
            if (ctk_cli_parse_jobs("generate", arg, &o->vopts.v.jobs) != CTK_EXIT_OK)
                return CTK_EXIT_USAGE;
            break;
        case OPT_REQUIRE_LAUNCH: o->vopts.v.require_launch = true; break;
        case OPT_NO_CACHE: o->vopts.v.no_cache = true; break;
        case OPT_SCAN: o->scan = true; break;
        case OPT_MAX_DEPTH:
            if (ctk_cmd_parse_depth("generate", arg, &o->max_depth) != CTK_EXIT_OK)
                return CTK_EXIT_USAGE;
            break;
        case CTK_OPT_HELP_ID:
            ctk_cli_print_help(&ctk_cmd_generate_doc);
            return CTK_EXIT_OK;
        default:
            rc = CTK_EXIT_USAGE;
            if (id < CTK_VOPT_LAUNCHER || !ctk_validate_cli_option(&o->vopts, "generate", id, arg, &rc) ||
                rc != CTK_EXIT_OK)
                return rc;
            break;
        }
    }
    return -1;
}

/* The options that go together, and the arguments: -1 to go on, else
 * CTK_EXIT_USAGE after the usage error. */
static int check_options(int argc, char **argv, gen_opts_t *o)
{
    if (o->scan && o->config)
        return ctk_cli_usage("generate", "-c and --scan cannot be combined: one config or one scan");
    if (o->max_depth >= 0 && !o->scan)
        return ctk_cli_usage("generate", "--max-depth goes with --scan");
    if (optind < argc && !o->scan)
        return ctk_cli_usage("generate", "unexpected argument '%s' (directories to scan go with --scan)",
                             argv[optind]);
    o->scan_dirs = argv + optind;
    o->n_scan_dirs = (size_t)(argc - optind);
    for (size_t i = 0; i < o->n_scan_dirs; i++)
        if (!*o->scan_dirs[i])
            return ctk_cli_usage("generate", "an empty directory name");
    if (o->no_wait && o->wait_s >= 0)
        return ctk_cli_usage("generate", "--no-wait and --wait-timeout cannot be combined "
                             "(--no-wait is --wait-timeout 0)");
    if (o->no_wait)
        o->wait_s = 0;
    if (o->dry_run && o->check)
        return ctk_cli_usage("generate", "--dry-run and --check cannot be combined");
    if (o->validate && (o->dry_run || o->check))
        return ctk_cli_usage("generate", "--validate checks a written tree: it cannot be combined with %s",
                             o->dry_run ? "--dry-run" : "--check");
    if (!o->validate && (o->vopts.v.jobs || o->vopts.v.require_launch || o->vopts.v.no_cache ||
                         ctk_validate_cli_launcher_given(&o->vopts) || o->vopts.html))
        return ctk_cli_usage("generate", "--jobs, --require-launch, --no-cache, --launcher, --partition, "
                                         "--queue-timeout, --run-timeout, --stage-dir and --html go with --validate");
    if (!*o->outdir)
        return ctk_cli_usage("generate", "--output needs a directory");
    if (o->config && !*o->config)
        return ctk_cli_usage("generate", "--config needs a file");
    if (o->template_dir && !ctk_is_dir(o->template_dir))
        return ctk_cli_usage("generate", "--template-dir %s: not a directory", o->template_dir);
    return -1;
}

int ctk_cmd_generate(int argc, char **argv)
{
    gen_opts_t o;
    int rc;

    if ((rc = parse_options(argc, argv, &o)) >= 0 || (rc = check_options(argc, argv, &o)) >= 0)
        return rc;
    return run(&o);
}
