/* cmd_validate.c - `ctkgen validate`: prove every artifact in OUT works.
 * SPDX-License-Identifier: MIT
 *
 * Loads the site config (or scans, as generate does), verifies every
 * toolkit, takes the output lock shared (as generate --check does), then
 * hands the SDKs to validate.c.  Progress lines go to stderr
 * as results arrive; the summary table (or --json) goes to stdout.  Exit 1
 * when any artifact failed; a skip is not a failure unless
 * --require-launch made it one.
 *
 * SIGINT, SIGTERM and SIGHUP are caught while validation runs (here, for
 * validate and generate --validate alike; generate's own writing keeps its
 * signals blocked instead; before, their default action ends ctkgen, which
 * has nothing to clean up yet).  An interrupt stops the running probes, a
 * .pc resolution or a Lua evaluation in progress, removes the temp dirs,
 * says so on stderr, and ctkgen then dies of the same signal: the shell
 * sees 128 + its number (130 for SIGINT), and a script that ran ctkgen
 * stops too, as it would for any interrupted command.
 */
#include <ctkconf.h>

#include "cli.h"
#include "cmd_common.h"
#include "cmds.h"
#include "config.h"
#include "discover.h"
#include "proc.h"
#include "cache.h"
#include "remote.h"
#include "report_html.h"
#include "report.h"
#include "sdk.h"
#include "util.h"
#include "validate.h"
#include "write.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_OUTDIR "ctkgen-out"

enum {
    OPT_CONFIG = 'c',
    OPT_OUTPUT = 'o',
    OPT_JOBS = 'j',
    OPT_JSON = 0x100,
    OPT_REQUIRE_LAUNCH,
    OPT_NO_CACHE,
    OPT_CACHE_DIR,
    OPT_TIMEOUT,
    OPT_MODULECMD,
    OPT_LMOD,
    OPT_LMOD_CMD,
    OPT_CC,
    OPT_CXX,
    OPT_WAIT_TIMEOUT,
    OPT_TRUST_TCL,
};

static const ctk_opt_t validate_opts[] = {
    { "config", 'c', "FILE", OPT_CONFIG, "site config (JSON); default: scan the standard install places" },
    { "output", 'o', "DIR", OPT_OUTPUT, "the generated tree to check (default: ./" DEFAULT_OUTDIR ")" },
    { "jobs", 'j', "N", OPT_JOBS, "check N SDKs at once (default: the number of CPUs)" },
    { "json", 0, NULL, OPT_JSON, "print the report as JSON on stdout (progress still goes to stderr)" },
    { "require-launch", 0, NULL, OPT_REQUIRE_LAUNCH, "fail when a probe cannot launch (no driver or GPU): for GPU nodes" },
    { "no-cache", 0, NULL, OPT_NO_CACHE, "do all the work even when nothing changed since the last pass" },
    { "cache-dir", 0, "DIR", OPT_CACHE_DIR, "keep results in DIR (default: $XDG_CACHE_HOME/ctkgen or ~/.cache/ctkgen)" },
    { "timeout", 0, "SECONDS", OPT_TIMEOUT, "limit for each build or probe run (default: 120)" },
    { "modulecmd", 0, "FILE", OPT_MODULECMD, "Environment Modules' modulecmd.tcl (default: $MODULES_CMD, then the standard places)" },
    { "trust-tcl", 0, NULL, OPT_TRUST_TCL,
      "as root, load Tcl modulefiles only root can change as root (default: as user nobody)" },
    { "lmod", 0, NULL, OPT_LMOD, "also load each Lua modulefile with the real Lmod and compare" },
    { "lmod-cmd", 0, "FILE", OPT_LMOD_CMD, "Lmod's libexec/lmod (default: $LMOD_CMD, then the standard places); implies --lmod" },
    { "cc", 0, "CC", OPT_CC, "host C compiler for the probes (default: cc on PATH)" },
    { "cxx", 0, "CXX", OPT_CXX, "host C++ compiler that links the CUDA probe (default: c++ on PATH)" },
    { "wait-timeout", 0, "SECONDS", OPT_WAIT_TIMEOUT, "wait at most SECONDS for a generate run that holds the output lock, then exit 4 (0: not at all; default: as long as it takes)" },
    CTK_VOPT_ENTRIES,
    { "help", 'h', NULL, CTK_OPT_HELP_ID, "show this help" },
    { NULL, 0, NULL, 0, NULL },
};

static const char *const validate_docs[] = { "diagnostics.md", "site-config.md", "slurm.md", NULL };

const ctk_cmd_doc_t ctk_cmd_validate_doc = {
    "validate",
    "[-c FILE] [-o DIR] [options]",
    "Prove that every generated modulefile and .pc file lets a user build and\n"
    "run CUDA code.",
    "For each SDK and each artifact in DIR:\n"
    "  lmod, tcl  load the module (Lua: built-in Lmod-compatible sandbox; Tcl:\n"
    "             the real Environment Modules), compile host_probe.c with the\n"
    "             host cc and no -I/-L, link the CUDA probe with -lcudart alone,\n"
    "             and run both in the module's environment;\n"
    "  pc         nvcc -c probe.cu $(pkg-config --cflags), link with c++ and with\n"
    "             nvcc using $(pkg-config --libs), and run with no environment.\n"
    "Each probe reports the libcudart it loaded, the runtime and driver\n"
    "versions, the GPU and whether its kernel's result was right.  Verdicts:\n"
    "pass; fail with findings (codes in diagnostics.md); skip when a part\n"
    "cannot run here (no driver or GPU, no Environment Modules, a module the\n"
    "generated one requires not found: give --modulepath), never counted\n"
    "as a pass.  As root, modulefiles are loaded as user nobody (uid 65534\n"
    "without one) with an empty HOME and TMPDIR of their own, never as root;\n"
    "a Tcl file nobody cannot read is a skip (CTK-SKIP-004), and --trust-tcl\n"
    "loads Tcl files only root can change as root.  Results that did not fail\n"
    "are cached; a re-run with nothing changed costs milliseconds.  Exit 1 when\n"
    "anything failed.  The output lock is held shared, as generate --check\n"
    "holds it, so a generate run never changes the tree while it is read;\n"
    "nothing in DIR is read through a symlink (CTK-MOD-006).  SIGINT, SIGTERM\n"
    "or SIGHUP stops validate wherever it is (a probe, a .pc resolution, a Lua\n"
    "evaluation) and removes its temp dirs; ctkgen then ends by that signal\n"
    "(exit status 128+N: 130 for SIGINT).\n"
    "With --launcher slurm (or \"launcher\": \"slurm\" in the site config's\n"
    "validation section) everything but the CUDA probes' launch happens here;\n"
    "the probes are staged in a dir the compute nodes share and one job per\n"
    "partition (sbatch, one GPU) runs them all.  The jobs are followed with one\n"
    "squeue call per poll; a job pending past --queue-timeout is cancelled and\n"
    "reported not run, with Slurm's reason; an interrupt cancels every job.\n"
    "The result is a matrix: SDK x partition x artifact.  A partition whose\n"
    "job's records are cached under the same key gets no job (--cache-ttl).\n"
    "With \"build\": \"compute\" in the site config, each job runs this ctkgen's\n"
    "validate on its node instead.  No Slurm, or a controller that does not\n"
    "answer: exit 4.\n",
    validate_opts,
    validate_docs,
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool use_color(FILE *fp)
{
    const char *nc = getenv("NO_COLOR");

    return isatty(fileno(fp)) && !(nc && nc[0]);
}

/* Parse a --timeout value; false on junk. */
static bool parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    double d;

    errno = 0;
    d = strtod(s, &end);
    if (errno || end == s || *end || d < lo || d > hi)
        return false;
    *out = d;
    return true;
}

static void on_progress(const ctk_vsdk_t *sdk, ctk_art_t art, void *arg)
{
    (void)arg;
    if (ctk_cli_verbosity >= CTK_NORMAL) {
        ctk_report_progress(stderr, sdk, art, use_color(stderr));
        fflush(stderr);
    }
}

static void on_remote(const char *line, void *arg)
{
    (void)arg;
    if (ctk_cli_verbosity >= CTK_NORMAL) {
        fprintf(stderr, "ctkgen: slurm: %s\n", line);
        fflush(stderr);
    }
}

/* The launcher: the command line's, else the site config's, else local. */
static bool use_slurm(const ctk_config_t *cfg, const ctk_validate_cli_t *o, ctk_error_t *err)
{
    const char *l = o->launcher ? o->launcher : cfg->validation.launcher;
    bool slurm = l && strcmp(l, "slurm") == 0;

    if (!slurm && (o->n_partitions || o->queue_timeout_s > 0 || o->run_timeout_s > 0 || o->stage_dir ||
                   o->cache_ttl_s > 0)) {
        ctk_error_set(err, CTK_E_USAGE, NULL, 0, 0,
                      "--partition, --queue-timeout, --run-timeout, --stage-dir and --cache-ttl go with --launcher slurm");
        return false;
    }
    return slurm;
}

static ctk_remote_t *prepare_remote(const ctk_config_t *cfg, const ctk_validate_cli_t *o, ctk_remote_opts_t *ro,
                                    char **cache_dir, ctk_error_t *err)
{
    memset(ro, 0, sizeof *ro);
    *cache_dir = NULL;
    if (!o->v.no_cache) {
        *cache_dir = o->v.cache_dir ? ctk_strdup(o->v.cache_dir, err) : ctk_cache_default_dir(err);
        if (!*cache_dir && err->code != CTK_E_OK)
            return NULL;
    }
    ro->cache_dir = *cache_dir;
    ro->cache_ttl_s = o->cache_ttl_s;
    ro->conf = &cfg->validation;
    ro->partitions = o->partitions;
    ro->n_partitions = o->n_partitions;
    ro->queue_timeout_s = o->queue_timeout_s;
    ro->run_timeout_s = o->run_timeout_s;
    ro->stage_root = o->stage_dir;
    ro->probe_timeout_s = o->v.timeout_s;
    ro->require_launch = o->v.require_launch;
    ro->progress = on_remote;
    return ctk_remote_prepare(ro, err);
}

/* Build "compute": nothing is checked here; ctkgen validates on each node. */
static bool run_compute(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, const ctk_validate_cli_t *o,
                        ctk_remote_t *remote, ctk_vreport_t *rep, ctk_error_t *err)
{
    ctk_remote_compute_t cc;
    char *config = NULL;
    bool ok;

    memset(&cc, 0, sizeof cc);
    if (strcmp(cfg->source, "<scan>") != 0 && !(config = ctk_realpath(cfg->source))) {
        ctk_error_set(err, CTK_E_IO, cfg->source, 0, 0, "cannot resolve: %s", strerror(errno));
        return false;
    }
    ok = ctk_vreport_prepare(cfg, sdks, cfg->n_sdks, o->v.outdir, rep, err);
    cc.config = config;
    cc.outdir = rep->outdir;
    /* the job's environment is empty: the module system this run would use goes along */
    cc.modulecmd = o->v.modulecmd ? o->v.modulecmd : getenv("MODULES_CMD");
    cc.timeout_s = o->v.timeout_s;
    cc.trust_tcl = o->v.trust_tcl;
    cc.modulepath = o->v.modulepath;
    ok = ok && ctk_remote_run_compute(remote, &cc, rep, err);
    free(config);
    return ok;
}

static bool write_html(const char *path, const char *json, ctk_error_t *err)
{
    char *page = ctk_report_html(json, err);
    FILE *f;
    bool ok;

    if (!page)
        return false;
    if (!(f = fopen(path, "w"))) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot create: %s", strerror(errno));
        free(page);
        return false;
    }
    ok = fputs(page, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot write: %s", strerror(errno));
    free(page);
    return ok;
}

static int print_report(const ctk_vreport_t *rep, const ctk_validate_cli_t *o, ctk_error_t *err)
{
    char *json = NULL;
    int rc = CTK_EXIT_OK;

    if (rep->tcl_skip)
        ctk_cli_warn("Tcl modulefiles not checked: %s", rep->tcl_skip);
    if (rep->cache_warning)
        ctk_cli_warn("%s", rep->cache_warning);
    if ((o->json || o->html) && !(json = ctk_vreport_json(rep, err)))
        return ctk_cli_error(err);
    if (o->html && !write_html(o->html, json, err)) {
        free(json);
        return ctk_cli_error(err);
    }
    if (o->json) {
        fputs(json, stdout);
        fputc('\n', stdout);
    } else if (ctk_cli_verbosity >= CTK_NORMAL) {
        if (!rep->built_remotely)
            ctk_report_table(stdout, rep, use_color(stdout));
        if (rep->n_parts)
            ctk_report_matrix(stdout, rep, use_color(stdout));
    }
    free(json);
    if (rep->n_fail || rep->m_fail)
        rc = CTK_EXIT_CHECK;
    return rc;
}

/* Absolute directories joined by ':' (empty entries allowed, as in MODULEPATH). */
static bool modulepath_ok(const char *dirs)
{
    const char *p = dirs;

    if (!*dirs)
        return false;
    for (;;) {
        if (*p != ':' && *p && *p != '/')
            return false;
        if (!(p = strchr(p, ':')))
            return true;
        p++;
    }
}

/* Where validate finds the modules a generated one requires: --modulepath,
 * the site config's validation.modulepath, then (--inherit-modulepath) the
 * caller's MODULEPATH.  NULL with err set: no memory; "" when none. */
static char *site_modulepath(const ctk_config_t *cfg, const ctk_validate_cli_t *o, ctk_error_t *err)
{
    const char *inherited = o->inherit_modulepath ? getenv("MODULEPATH") : NULL;
    ctk_buf_t b;
    char *s;

    ctk_buf_init(&b);
    if (o->modulepath)
        ctk_buf_puts(&b, o->modulepath);
    for (size_t i = 0; i < cfg->validation.n_modulepath; i++)
        ctk_buf_printf(&b, "%s%s", b.len ? ":" : "", cfg->validation.modulepath[i]);
    if (inherited && *inherited)
        ctk_buf_printf(&b, "%s%s", b.len ? ":" : "", inherited);
    ctk_buf_puts(&b, "");
    if (!(s = ctk_buf_take(&b, NULL)))
        ctk_error_nomem(err);
    ctk_buf_fini(&b);
    return s;
}

/* The validation itself: here, or with Slurm (slurm) the probes built here
 * and launched on the partitions, or (compute) the whole of it run on each
 * partition's node.  rep->seconds is the whole run's, from t0, the jobs'
 * included.  false with err (or after an interrupt). */
static bool run_validation(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, const ctk_validate_cli_t *o,
                           ctk_vopts_t *v, bool slurm, bool compute, double t0, ctk_vreport_t *rep,
                           ctk_error_t *err)
{
    ctk_remote_opts_t ro;
    ctk_remote_t *remote = NULL;
    char *cache_dir = NULL;
    bool done = false;
    size_t np;

    if (slurm) {
        if (!(remote = prepare_remote(cfg, o, &ro, &cache_dir, err)))
            goto out;
        v->stage_dir = ctk_remote_probe_dir(remote);
        np = ctk_remote_n_partitions(remote);
        if (ctk_cli_verbosity >= CTK_NORMAL && compute)
            ctk_cli_info("build \"compute\": each partition's job runs this ctkgen's validate on its node (%zu "
                         "partition%s)", np, np == 1 ? "" : "s");
        else if (ctk_cli_verbosity >= CTK_NORMAL)
            ctk_cli_info("building and checking here (the marks below are for that), then the CUDA probes launch "
                         "through Slurm on %zu partition%s", np, np == 1 ? "" : "s");
    }
    if (ctk_cli_verbosity >= CTK_NORMAL)
        ctk_cli_info("validating %zu SDK%s in %s", cfg->n_sdks, cfg->n_sdks == 1 ? "" : "s", v->outdir);
    if (remote && compute)
        done = run_compute(cfg, sdks, o, remote, rep, err);
    else
        done = ctk_validate(cfg, sdks, cfg->n_sdks, v, rep, err) &&
               (!remote || ctk_proc_interrupted() || ctk_remote_run(remote, sdks, rep, err));
    if (remote)
        rep->seconds = now_s() - t0;
out:
    ctk_remote_free(remote);
    free(cache_dir);
    return done;
}

int ctk_validate_and_report(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, const ctk_validate_cli_t *given)
{
    ctk_validate_cli_t oc = *given;
    char *modulepath;
    ctk_vreport_t rep;
    ctk_vopts_t v;
    ctk_error_t err;
    bool done, slurm, compute;
    double t0 = now_s();
    int rc, sig;

    ctk_error_init(&err);
    if (!(modulepath = site_modulepath(cfg, given, &err)))
        return ctk_cli_error(&err);
    oc.v.modulepath = modulepath;
    v = oc.v;
    ctk_vreport_init(&rep);
    v.progress = on_progress;
    slurm = use_slurm(cfg, &oc, &err);
    compute = slurm && cfg->validation.build && strcmp(cfg->validation.build, "compute") == 0;
    if (err.code != CTK_E_OK || !ctk_proc_catch_interrupts(&err)) {
        rc = ctk_cli_error(&err);
        goto out;
    }
    done = run_validation(cfg, sdks, &oc, &v, slurm, compute, t0, &rep, &err);
    ctk_proc_release_interrupts();
    if ((sig = ctk_proc_interrupted())) {
        char what[128];

        /* validate removed its temp dirs whichever way it returned */
        fprintf(stderr, "ctkgen: %s and removed the temp dirs\n",
                ctk_proc_describe_interrupt(what, sizeof what));
        ctk_vreport_fini(&rep);
        free(modulepath);
        ctk_proc_reraise(sig);
        return 128 + sig;
    }
    if (!done) {
        if (err.code == CTK_E_OK)
            ctk_error_set(&err, CTK_E_INTERNAL, NULL, 0, 0, "validation stopped without saying why");
        rc = ctk_cli_error(&err);
        goto out;
    }
    rc = print_report(&rep, &oc, &err);
out:
    free(modulepath);
    ctk_vreport_fini(&rep);
    return rc;
}

/* --queue-timeout, --run-timeout and --cache-ttl: seconds, up to a week. */
static void seconds_option(ctk_validate_cli_t *o, const char *cmd, int id, const char *arg, int *rc)
{
    double d;

    if (!parse_number(arg, 1, 604800, &d))
        *rc = ctk_cli_usage(cmd, "--%s needs seconds from 1 to 604800, not '%s'",
                            id == CTK_VOPT_QUEUE_TIMEOUT ? "queue-timeout"
                            : id == CTK_VOPT_RUN_TIMEOUT ? "run-timeout"
                                                         : "cache-ttl",
                            arg);
    else if (id == CTK_VOPT_QUEUE_TIMEOUT)
        o->queue_timeout_s = d;
    else if (id == CTK_VOPT_RUN_TIMEOUT)
        o->run_timeout_s = d;
    else
        o->cache_ttl_s = d;
}

/* The options validate shares with generate --validate (cmds.h): where
 * the probes launch, how long they may wait, and the HTML page. */
static bool launch_option(ctk_validate_cli_t *o, const char *cmd, int id, const char *arg, int *rc)
{
    switch (id) {
    case CTK_VOPT_LAUNCHER:
        if (strcmp(arg, "local") != 0 && strcmp(arg, "slurm") != 0)
            *rc = ctk_cli_usage(cmd, "--launcher is local or slurm, not '%s'", arg);
        o->launcher = arg;
        return true;
    case CTK_VOPT_PARTITION:
        if (!*arg)
            *rc = ctk_cli_usage(cmd, "--partition needs a name");
        else if (o->n_partitions == CTK_MAX_PARTITIONS)
            *rc = ctk_cli_usage(cmd, "at most %d --partition options", CTK_MAX_PARTITIONS);
        else
            o->partitions[o->n_partitions++] = arg;
        return true;
    case CTK_VOPT_MODULEPATH:
        if (!modulepath_ok(arg))
            *rc = ctk_cli_usage(cmd, "--modulepath needs absolute directories joined by ':', not '%s'", arg);
        o->modulepath = arg;
        return true;
    case CTK_VOPT_INHERIT_MODULEPATH:
        o->inherit_modulepath = true;
        return true;
    case CTK_VOPT_QUEUE_TIMEOUT:
    case CTK_VOPT_RUN_TIMEOUT:
    case CTK_VOPT_CACHE_TTL:
        seconds_option(o, cmd, id, arg, rc);
        return true;
    case CTK_VOPT_STAGE_DIR:
        if (arg[0] != '/')
            *rc = ctk_cli_usage(cmd, "--stage-dir needs an absolute path (the compute nodes see it at the same path), not '%s'", arg);
        o->stage_dir = arg;
        return true;
    case CTK_VOPT_HTML:
        if (!*arg)
            *rc = ctk_cli_usage(cmd, "--html needs a file");
        o->html = arg;
        return true;
    }
    return false;
}

/* validate's own options: how each artifact is checked, and the JSON
 * report. */
static bool check_option(ctk_validate_cli_t *o, const char *cmd, int id, const char *arg, int *rc)
{
    double d;

    switch (id) {
    case OPT_JOBS:
        *rc = ctk_cli_parse_jobs(cmd, arg, &o->v.jobs);
        return true;
    case OPT_JSON: o->json = true; return true;
    case OPT_REQUIRE_LAUNCH: o->v.require_launch = true; return true;
    case OPT_NO_CACHE: o->v.no_cache = true; return true;
    case OPT_CACHE_DIR: o->v.cache_dir = arg; return true;
    case OPT_TIMEOUT:
        if (!parse_number(arg, 0.01, 86400, &d))
            *rc = ctk_cli_usage(cmd, "--timeout needs seconds from 0.01 to 86400, not '%s'", arg);
        else
            o->v.timeout_s = d;
        return true;
    case OPT_MODULECMD: o->v.modulecmd = arg; return true;
    case OPT_TRUST_TCL: o->v.trust_tcl = true; return true;
    case OPT_LMOD: o->v.lmod_check = true; return true;
    case OPT_LMOD_CMD: o->v.lmod_cmd = arg; o->v.lmod_check = true; return true;
    case OPT_CC: o->v.cc = arg; return true;
    case OPT_CXX: o->v.cxx = arg; return true;
    }
    return false;
}

bool ctk_validate_cli_option(ctk_validate_cli_t *o, const char *cmd, int id, const char *arg, int *rc)
{
    *rc = CTK_EXIT_OK;
    return launch_option(o, cmd, id, arg, rc) || check_option(o, cmd, id, arg, rc);
}

bool ctk_validate_cli_launcher_given(const ctk_validate_cli_t *o)
{
    return o->launcher || o->n_partitions || o->queue_timeout_s > 0 || o->run_timeout_s > 0 || o->stage_dir ||
           o->cache_ttl_s > 0;
}

/* The options into o, *config and *wait_s; -1 to go on, else the exit
 * code (usage, --help). */
static int parse_options(int argc, char **argv, ctk_validate_cli_t *o, const char **config, double *wait_s)
{
    const char *arg;
    int id, rc = CTK_EXIT_OK;

    memset(o, 0, sizeof *o);
    o->v.outdir = DEFAULT_OUTDIR;
    *config = NULL;
    *wait_s = CTK_LOCK_WAIT_FOREVER;
    optind = 1;
    while ((id = ctk_cli_next_opt(argc, argv, &ctk_cmd_validate_doc, &arg)) != -1) {
        switch (id) {
        case OPT_CONFIG: *config = arg; break;
        case OPT_OUTPUT: o->v.outdir = arg; break;
        case OPT_WAIT_TIMEOUT:
            if (ctk_cmd_parse_wait("validate", arg, wait_s) != CTK_EXIT_OK)
                return CTK_EXIT_USAGE;
            break;
        case CTK_OPT_HELP_ID:
            ctk_cli_print_help(&ctk_cmd_validate_doc);
            return CTK_EXIT_OK;
        default:
            if (!ctk_validate_cli_option(o, "validate", id, arg, &rc))
                return CTK_EXIT_USAGE;
            if (rc != CTK_EXIT_OK)
                return rc;
        }
    }
    if (optind < argc)
        return ctk_cli_usage("validate", "unexpected argument '%s'", argv[optind]);
    if (!*o->v.outdir)
        return ctk_cli_usage("validate", "--output needs a directory");
    return -1;
}

int ctk_cmd_validate(int argc, char **argv)
{
    ctk_validate_cli_t o;
    const char *config;
    ctk_error_t err;
    ctk_config_t *cfg = NULL;
    ctk_sdk_t **sdks = NULL;
    ctk_lock_t *lock = NULL;
    double wait_s;
    int rc = CTK_EXIT_OK;
    size_t i;

    if ((rc = parse_options(argc, argv, &o, &config, &wait_s)) >= 0)
        return rc;
    rc = CTK_EXIT_OK;
    ctk_error_init(&err);
    if (!(cfg = ctk_cmd_load_config(config, &err)))
        goto fail;
    if (!(sdks = calloc(cfg->n_sdks ? cfg->n_sdks : 1, sizeof *sdks))) {
        ctk_error_nomem(&err);
        goto fail;
    }
    /* every SDK's error at once; links pinned as generate pins them */
    if (!ctk_cmd_load_sdks(cfg, false, NULL, sdks, &rc, &err))
        goto fail;
    if (rc != CTK_EXIT_OK)
        goto done;
    if (!ctk_is_dir(o.v.outdir)) {
        ctk_error_set(&err, CTK_E_CONFIG, o.v.outdir, 0, 0,
                      "no such directory; write it first with: ctkgen generate -o %s", o.v.outdir);
        goto fail;
    }
    if (!o.v.modulecmd)
        o.v.modulecmd = cfg->modulecmd; /* the command line wins over the site config */
    /* shared, as generate --check takes it: no generate run changes the
     * tree while it is read, and readers run side by side */
    if (!(lock = ctk_cmd_take_lock(o.v.outdir, true, wait_s, &err)))
        goto fail;
    rc = ctk_validate_and_report(cfg, sdks, &o);
    goto done;
fail:
    rc = ctk_cli_error(&err);
done:
    ctk_write_unlock(lock);
    if (sdks)
        for (i = 0; cfg && i < cfg->n_sdks; i++)
            ctk_sdk_free(sdks[i]);
    free(sdks);
    ctk_config_free(cfg);
    return rc;
}
