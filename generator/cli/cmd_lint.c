/* cmd_lint.c - `ctkgen lint`: audit modulefiles and .pc files, whoever wrote them.
 * SPDX-License-Identifier: MIT
 *
 * Parses options, reads the lint policy (--config's "lint" section, then
 * --policy: config.c), hands the paths to lint.c, prints one block per file
 * (or --json) on stdout.  The exit status is the gate (policy.h): 1 when a
 * finding is at or above --error-on (default: error) after the policy, 5
 * when nothing failed but a file was not fully checked (1 with --strict),
 * 3 when a path does not exist or cannot be read, or the policy is bad.
 * SIGINT, SIGTERM and SIGHUP, wherever lint is (its walk, a .pc
 * resolution, a Lua evaluation, Environment Modules or nvcc running),
 * stop it, remove lint's temp dir and kill ctkgen with the same signal
 * (exit status 128 + its number), as validate does (cmd_validate.c).
 */
#include <ctkconf.h>

#include "cli.h"
#include "cmds.h"
#include "config.h"
#include "diag.h"
#include "lint.h"
#include "policy.h"
#include "proc.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
    OPT_JSON = 0x100,
    OPT_FIX_SUGGEST,
    OPT_MODULECMD,
    OPT_TIMEOUT,
    OPT_TRUST_TCL,
    OPT_POLICY,
    OPT_CONFIG,
    OPT_ERROR_ON,
    OPT_STRICT,
    OPT_TCL_WITH,
    OPT_MODULEPATH,
};

static const ctk_opt_t lint_opts[] = {
    { "json", 0, NULL, OPT_JSON, "print the report as JSON on stdout" },
    { "fix-suggest", 0, NULL, OPT_FIX_SUGGEST,
      "print, per file, the site config that makes 'ctkgen generate' write a correct module for the toolkit it points at" },
    { "modulecmd", 0, "FILE", OPT_MODULECMD,
      "Environment Modules' modulecmd.tcl for Tcl modulefiles (default: $MODULES_CMD, then the standard places)" },
    { "timeout", 0, "SECONDS", OPT_TIMEOUT, "limit for each Tcl module load and nvcc run (default: 30)" },
    { "tcl-with", 0, "WHICH", OPT_TCL_WITH,
      "what reads Tcl modulefiles: 'modules' (Environment Modules), 'lmod' (Lmod's tcl2lua), 'auto' (the first, "
      "else the second; the default)" },
    { "modulepath", 0, "DIRS", OPT_MODULEPATH,
      "':'-separated module trees searched, after the linted module's own tree, for the modules it loads, "
      "requires or inherits (default: its own tree only)" },
    { "trust-tcl", 0, NULL, OPT_TRUST_TCL,
      "as root, load Tcl files only root can change as root (default: every Tcl file as user nobody)" },
    { "config", 'c', "FILE", OPT_CONFIG, "site config whose \"lint\" section is the policy (nothing else of it is read)" },
    { "policy", 0, "FILE", OPT_POLICY,
      "lint policy (JSON): per-code severities and waivers, by file glob, each with a reason; "
      "its rules win over --config's" },
    { "error-on", 0, "LEVEL", OPT_ERROR_ON,
      "'error' (default) or 'warning': the least severity, after the policy, that makes lint exit 1" },
    { "strict", 0, NULL, OPT_STRICT, "a file not fully checked makes lint exit 1 (default: 5, if nothing else failed)" },
    { "help", 'h', NULL, CTK_OPT_HELP_ID, "show this help" },
    { NULL, 0, NULL, 0, NULL },
};

static const char *const lint_docs[] = { "lint.md", "diagnostics.md", NULL };

const ctk_cmd_doc_t ctk_cmd_lint_doc = {
    "lint",
    "[options] FILE|DIR...",
    "Audit existing modulefiles and .pc files, whoever wrote them.",
    "Directories are walked recursively.  *.lua files are Lua modulefiles,\n"
    "evaluated in the same sandbox validate uses (no commands, no files, no\n"
    "code loading; memory, instruction and stack limits).  Files starting with\n"
    "#%Module are Tcl modulefiles, loaded by the real Environment Modules in a\n"
    "private HOME with a clean environment and a timeout.  Tcl can run commands:\n"
    "as root, lint loads each Tcl file as user nobody (uid 65534 without one),\n"
    "with no groups and an empty HOME and TMPDIR of its own, and a file nobody\n"
    "cannot read is reported not loaded (CTK-SKIP-004), never loaded as root;\n"
    "--trust-tcl loads files only root can change as root.  Without Environment\n"
    "Modules (or with --tcl-with lmod), Tcl files are read as Lmod reads them:\n"
    "its tcl2lua.tcl turns them into Lua, under the same rules, and the Lua is\n"
    "evaluated and checked as a Lua modulefile.  *.pc files are\n"
    "resolved by libpkgconf.  Each file's toolkit is found from what it sets\n"
    "(CUDA_HOME, PATH, CPATH, LD_LIBRARY_PATH, a .pc's variables and -I/-L) and\n"
    "the file is checked against it.  Lint runs no program another user can\n"
    "change (the toolkit's nvcc, tclsh, modulecmd.tcl: owned by root or you,\n"
    "writable by no group or others, up to /); a check that needed one does not\n"
    "run and is reported as CTK-TRUST-001.  Only regular files are read: a\n"
    "FIFO, a device, or a link met in a walk that leads to one or into /proc or\n"
    "/sys, is a finding (CTK-READ-001), and .pc resolution is bounded\n"
    "(CTK-PC-005).  Findings carry a stable code (diagnostics.md).\n"
    "\n"
    "To gate a deployment: exit 1 when any finding is an error (with\n"
    "--error-on warning, a warning too), after the site's policy: --policy FILE\n"
    "or the \"lint\" section of the site config (--config FILE) changes a code's\n"
    "severity or waives it, for every file or those matching a glob, each rule\n"
    "with a reason the report shows.  A waived finding is still listed, marked\n"
    "waived, and counted apart.  A file lint could not fully check (a Tcl file\n"
    "not loaded, a check whose program was not run) never passes silently: the\n"
    "summary counts it and lint exits 5 when nothing else failed (1 with\n"
    "--strict).  An interrupt (SIGINT,\n"
    "SIGTERM, SIGHUP) stops lint wherever it is and ends it by that signal\n"
    "(exit status 128+N: 130 for SIGINT).\n",
    lint_opts,
    lint_docs,
};

static bool parse_seconds(const char *s, double *out)
{
    char *end;
    double d;

    errno = 0;
    d = strtod(s, &end);
    if (errno || end == s || *end || !(d >= 0.01) || d > 86400)
        return false;
    *out = d;
    return true;
}

/* Control bytes in file text shown as \xNN, so a hostile file cannot drive the terminal. */
static void put_safe(FILE *fp, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;

        if (ch < 0x20 || ch == 0x7f)
            fprintf(fp, "\\x%02x", ch);
        else
            fputc(ch, fp);
    }
}

/* "FILE:LINE: SEVERITY CODE: text", or "FILE:LINE: waived CODE (SEVERITY): text"
 * (so no grep for "error CTK-" counts a waived one); the policy's word
 * on it, then the fix. */
static void print_finding(const ctk_lint_file_t *f, const ctk_finding_t *x)
{
    const ctk_diag_t *d = ctk_diag_find(x->code);

    put_safe(stdout, x->file ? x->file : f->file);
    if (x->line > 0)
        printf(":%d", x->line);
    if (x->waived)
        printf(": waived %s (%s): ", x->code, ctk_severity_name(x->severity));
    else
        printf(": %s %s: ", ctk_severity_name(x->severity), x->code);
    put_safe(stdout, x->text);
    if (x->reason) {
        printf("\n  policy: ");
        if (x->waived)
            printf("waived");
        else if (d && d->severity != x->severity)
            printf("%s, was %s", ctk_severity_name(x->severity), ctk_severity_name(d->severity));
        else
            printf("%s", ctk_severity_name(x->severity));
        printf(" by %s: ", x->rule_at ? x->rule_at : "the policy");
        put_safe(stdout, x->reason);
    }
    printf("\n  fix: ");
    put_safe(stdout, ctk_finding_fix(x));
    putchar('\n');
}

static void print_file(const ctk_lint_file_t *f, bool suggest)
{
    put_safe(stdout, f->file);
    printf(": %s %s", ctk_lint_kind_name(f->kind), f->name);
    if (f->evaluated_as)
        printf(strncmp(f->evaluated_as, "through ", 8) == 0 ? " [evaluated %s]" : " [evaluated as %s]",
               f->evaluated_as);
    if (f->incomplete)
        printf(" [not fully checked]");
    if (f->root) {
        printf(": CUDA %s at ", f->version);
        put_safe(stdout, f->root);
        printf(" (found by %s)", f->found_by);
    }
    printf("%s\n", f->findings.len ? "" : ": no findings");
    for (size_t i = 0; i < f->findings.len; i++)
        print_finding(f, &f->findings.items[i]);
    for (size_t i = 0; i < f->unchecked.len; i++) {
        printf("  not fully checked: ");
        put_safe(stdout, f->unchecked.items[i]);
        putchar('\n');
    }
    if (suggest) {
        if (f->suggestion) {
            printf("  suggested site config (ctkgen generate -c FILE -o DIR):\n");
            for (const char *p = f->suggestion; *p;) {
                const char *eol = strchr(p, '\n');
                size_t n = eol ? (size_t)(eol - p) : strlen(p);

                printf("    %.*s\n", (int)n, p);
                p = eol ? eol + 1 : p + n;
            }
            for (size_t i = 0; i < f->suggestion_notes.len; i++) {
                printf("  note: ");
                put_safe(stdout, f->suggestion_notes.items[i]);
                putchar('\n');
            }
        } else {
            printf("  no suggestion: no toolkit found\n");
        }
    }
}

/* The policy from --config's "lint" section, then --policy's rules over
 * it; error_on and strict from the command line (>= 0) win over both. */
static bool load_policy(const char *config, const char *policy, ctk_policy_t *p, ctk_error_t *err)
{
    ctk_errlist_t errs;
    bool found = false, ok = false;

    /* every error of the file at once, as generate reports its config's */
    ctk_errlist_init(&errs, CTK_ERRLIST_MAX);
    if (config && !ctk_config_load_lint(config, true, p, &found, &errs, err))
        goto out;
    if (config && !found && ctk_cli_verbosity >= CTK_NORMAL)
        ctk_cli_warn("%s has no \"lint\" section: no policy from it", config);
    ok = !policy || ctk_config_load_lint(policy, false, p, NULL, &errs, err);
out:
    if (!ok)
        ctk_cli_error_list(&errs, err);
    ctk_errlist_fini(&errs);
    /* an unreadable policy is bad input (exit 3), as generate's config is */
    if (!ok && err->code == CTK_E_IO)
        err->code = CTK_E_CONFIG;
    return ok;
}

static void print_summary(const ctk_lint_report_t *r)
{
    printf("%zu file%s linted: %zu error%s, %zu warning%s, %zu note%s, %zu waived; %zu not fully checked; "
           "%zu skipped%s\n",
           r->n_files, r->n_files == 1 ? "" : "s", r->n_error, r->n_error == 1 ? "" : "s", r->n_warning,
           r->n_warning == 1 ? "" : "s", r->n_note, r->n_note == 1 ? "" : "s", r->n_waived, r->n_incomplete,
           r->n_skipped, r->n_skipped && ctk_cli_verbosity < CTK_VERBOSE ? " (-v lists them)" : "");
}

/* The exit status: the gate's verdict on the counts (waived findings are not among them). */
static int gate_status(const ctk_lint_report_t *r, const ctk_policy_t *p)
{
    ctk_severity_t on = p->error_on >= 0 ? (ctk_severity_t)p->error_on : CTK_SEV_ERROR;

    switch (ctk_policy_gate(r->n_error, r->n_warning, r->n_incomplete, on, p->strict > 0)) {
    case CTK_GATE_FAIL: return CTK_EXIT_CHECK;
    case CTK_GATE_INCOMPLETE:
        if (ctk_cli_verbosity >= CTK_NORMAL)
            ctk_cli_warn("%zu file%s not fully checked (exit status %d; --strict makes it a failure)",
                         r->n_incomplete, r->n_incomplete == 1 ? "" : "s", CTK_EXIT_INCOMPLETE);
        return CTK_EXIT_INCOMPLETE;
    case CTK_GATE_PASS: break;
    }
    return CTK_EXIT_OK;
}

/* What the command line asked for. */
typedef struct {
    ctk_lint_opts_t o;
    const char *config, *policy;
    bool json;
    int error_on, strict;  /* -1: not given */
} lint_args_t;

/* The options into a; -1 to go on, else the exit code (usage, --help). */
static int parse_args(int argc, char **argv, lint_args_t *a)
{
    ctk_lint_opts_t *o = &a->o;
    const char *arg;
    int id;

    memset(a, 0, sizeof *a);
    a->error_on = a->strict = -1;
    optind = 1;
    while ((id = ctk_cli_next_opt(argc, argv, &ctk_cmd_lint_doc, &arg)) != -1) {
        switch (id) {
        case OPT_JSON: a->json = true; break;
        case OPT_CONFIG: a->config = arg; break;
        case OPT_POLICY: a->policy = arg; break;
        case OPT_STRICT: a->strict = 1; break;
        case OPT_ERROR_ON:
            if (strcmp(arg, "error") != 0 && strcmp(arg, "warning") != 0)
                return ctk_cli_usage("lint", "--error-on needs 'error' or 'warning', not '%s'", arg);
            a->error_on = strcmp(arg, "warning") == 0 ? CTK_SEV_WARNING : CTK_SEV_ERROR;
            break;
        case OPT_FIX_SUGGEST: o->fix_suggest = true; break;
        case OPT_MODULECMD: o->modulecmd = arg; break;
        case OPT_TRUST_TCL: o->trust_tcl = true; break;
        case OPT_MODULEPATH: o->modulepath = arg; break;
        case OPT_TCL_WITH:
            if (strcmp(arg, "auto") == 0)
                o->tcl_with = CTK_LINT_TCL_AUTO;
            else if (strcmp(arg, "modules") == 0)
                o->tcl_with = CTK_LINT_TCL_MODULES;
            else if (strcmp(arg, "lmod") == 0)
                o->tcl_with = CTK_LINT_TCL_LMOD;
            else
                return ctk_cli_usage("lint", "--tcl-with takes modules, lmod or auto, not '%s'", arg);
            break;
        case OPT_TIMEOUT:
            if (!parse_seconds(arg, &o->timeout_s))
                return ctk_cli_usage("lint", "--timeout needs seconds from 0.01 to 86400, not '%s'", arg);
            break;
        case CTK_OPT_HELP_ID:
            ctk_cli_print_help(&ctk_cmd_lint_doc);
            return CTK_EXIT_OK;
        default:
            return CTK_EXIT_USAGE;
        }
    }
    if (optind >= argc)
        return ctk_cli_usage("lint", "name at least one file or directory");
    if (o->modulecmd && !*o->modulecmd)
        return ctk_cli_usage("lint", "--modulecmd needs a file");
    if ((a->config && !*a->config) || (a->policy && !*a->policy))
        return ctk_cli_usage("lint", "--%s needs a file", a->config && !*a->config ? "config" : "policy");
    if (o->modulecmd && o->tcl_with == CTK_LINT_TCL_LMOD)
        return ctk_cli_usage("lint", "--modulecmd names Environment Modules, which --tcl-with lmod does not use");
    return -1;
}

/* One warning each for the Tcl modulefiles not loaded, and why. */
static void warn_tcl_skipped(const ctk_lint_report_t *rep)
{
    bool tcl_skipped = false;
    size_t n_unsafe = 0;

    if (ctk_cli_verbosity < CTK_NORMAL)
        return;
    for (size_t i = 0; i < rep->n_files; i++) {
        tcl_skipped |= ctk_findings_has(&rep->files[i].findings, "CTK-SKIP-003");
        n_unsafe += ctk_findings_has(&rep->files[i].findings, "CTK-SKIP-004");
    }
    if (tcl_skipped)
        ctk_cli_warn("Tcl modulefiles not loaded (CTK-SKIP-003): %s", rep->tcl_skip);
    if (n_unsafe)
        ctk_cli_warn("%zu Tcl modulefile%s not loaded (CTK-SKIP-004): user %s cannot load %s, and lint loads "
                     "no Tcl others can change as root",
                     n_unsafe, n_unsafe == 1 ? "" : "s", rep->tcl_user ? rep->tcl_user : "nobody",
                     n_unsafe == 1 ? "it" : "them");
}

/* The report on stdout: JSON, or each file's findings (files without any
 * only at the normal level), the skipped files (-v) and the summary. */
static bool print_report(const ctk_lint_report_t *rep, const lint_args_t *a, ctk_error_t *err)
{
    char *text;

    if (a->json) {
        if (!(text = ctk_report_lint_json(rep, err)))
            return false;
        fputs(text, stdout);
        free(text);
        return true;
    }
    for (size_t i = 0; i < rep->n_files; i++) {
        const ctk_lint_file_t *f = &rep->files[i];

        if (ctk_cli_verbosity < CTK_NORMAL && !f->findings.len && !f->incomplete && !a->o.fix_suggest)
            continue;
        print_file(f, a->o.fix_suggest);
    }
    if (ctk_cli_verbosity >= CTK_VERBOSE)
        for (size_t i = 0; i < rep->n_skipped; i++) {
            printf("skipped ");
            put_safe(stdout, rep->skipped[i].file);
            printf(": %s\n", rep->skipped[i].why);
        }
    if (ctk_cli_verbosity >= CTK_NORMAL)
        print_summary(rep);
    return true;
}

int ctk_cmd_lint(int argc, char **argv)
{
    lint_args_t a;
    ctk_lint_report_t rep;
    ctk_policy_t pol;
    ctk_error_t err;
    bool done;
    int rc, sig;

    if ((rc = parse_args(argc, argv, &a)) >= 0)
        return rc;
    ctk_error_init(&err);
    ctk_lint_report_init(&rep);
    ctk_policy_init(&pol);
    if (!load_policy(a.config, a.policy, &pol, &err) || !ctk_proc_catch_interrupts(&err)) {
        rc = ctk_cli_error(&err);
        goto out;
    }
    if (a.error_on >= 0)
        pol.error_on = a.error_on;
    if (a.strict >= 0)
        pol.strict = a.strict;
    a.o.policy = &pol;
    done = ctk_lint((const char *const *)argv + optind, (size_t)(argc - optind), &a.o, &rep, &err);
    ctk_proc_release_interrupts();
    if ((sig = ctk_proc_interrupted())) {
        char what[128];

        /* ctk_lint removed its temp dir whichever way it returned */
        fprintf(stderr, "ctkgen: %s and removed the temp dirs\n",
                ctk_proc_describe_interrupt(what, sizeof what));
        ctk_lint_report_fini(&rep);
        ctk_policy_fini(&pol);
        ctk_proc_reraise(sig);
        return 128 + sig;
    }
    if (!done) {
        rc = ctk_cli_error(&err);
        goto out;
    }
    warn_tcl_skipped(&rep);
    if (!print_report(&rep, &a, &err)) {
        rc = ctk_cli_error(&err);
        goto out;
    }
    fflush(stdout);
    rc = gate_status(&rep, &pol);
out:
    ctk_lint_report_fini(&rep);
    ctk_policy_fini(&pol);
    return rc;
}
