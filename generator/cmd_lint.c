/* cmd_lint.c - `ctkgen lint`: audit modulefiles and .pc files, whoever wrote them.
 * SPDX-License-Identifier: MIT
 *
 * Parses options, hands the paths to lint.c, prints one block per file
 * (or --json) on stdout.  Exit 1 when any error-level finding, so lint can
 * gate a deployment; 3 when a path does not exist or cannot be read.
 * SIGINT, SIGTERM and SIGHUP, wherever lint is (its walk, a .pc
 * resolution, a Lua evaluation, Environment Modules or nvcc running),
 * stop it, remove lint's temp dir and kill ctkgen with the same signal
 * (exit status 128 + its number), as validate does (cmd_validate.c).
 */
#include <ctkconf.h>

#include "cli.h"
#include "cmds.h"
#include "diag.h"
#include "lint.h"
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
    OPT_TCL_WITH,
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
    { "trust-tcl", 0, NULL, OPT_TRUST_TCL,
      "as root, load Tcl files only root can change as root (default: every Tcl file as user nobody)" },
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
    "(CTK-PC-005).  Findings carry a stable code (diagnostics.md); exit 1 when\n"
    "any is an error, so lint can gate a deployment.  An interrupt (SIGINT,\n"
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

static void print_file(const ctk_lint_file_t *f, bool suggest)
{
    put_safe(stdout, f->file);
    printf(": %s %s", ctk_lint_kind_name(f->kind), f->name);
    if (f->evaluated_as)
        printf(strncmp(f->evaluated_as, "through ", 8) == 0 ? " [evaluated %s]" : " [evaluated as %s]",
               f->evaluated_as);
    if (f->root) {
        printf(": CUDA %s at ", f->version);
        put_safe(stdout, f->root);
        printf(" (found by %s)", f->found_by);
    }
    printf("%s\n", f->findings.len ? "" : ": no findings");
    for (size_t i = 0; i < f->findings.len; i++) {
        const ctk_finding_t *x = &f->findings.items[i];
        put_safe(stdout, x->file ? x->file : f->file);
        if (x->line > 0)
            printf(":%d", x->line);
        printf(": %s %s: ", ctk_severity_name(x->severity), x->code);
        put_safe(stdout, x->text);
        printf("\n  fix: ");
        put_safe(stdout, ctk_finding_fix(x));
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

int ctk_cmd_lint(int argc, char **argv)
{
    ctk_lint_opts_t o;
    ctk_lint_report_t rep;
    ctk_error_t err;
    const char *arg;
    bool json = false, tcl_skipped = false, done;
    size_t n_unsafe = 0;
    char *text = NULL;
    int id, rc, sig;

    memset(&o, 0, sizeof o);
    optind = 1;
    while ((id = ctk_cli_next_opt(argc, argv, &ctk_cmd_lint_doc, &arg)) != -1) {
        switch (id) {
        case OPT_JSON: json = true; break;
        case OPT_FIX_SUGGEST: o.fix_suggest = true; break;
        case OPT_MODULECMD: o.modulecmd = arg; break;
        case OPT_TRUST_TCL: o.trust_tcl = true; break;
        case OPT_TCL_WITH:
            if (strcmp(arg, "auto") == 0)
                o.tcl_with = CTK_LINT_TCL_AUTO;
            else if (strcmp(arg, "modules") == 0)
                o.tcl_with = CTK_LINT_TCL_MODULES;
            else if (strcmp(arg, "lmod") == 0)
                o.tcl_with = CTK_LINT_TCL_LMOD;
            else
                return ctk_cli_usage("lint", "--tcl-with takes modules, lmod or auto, not '%s'", arg);
            break;
        case OPT_TIMEOUT:
            if (!parse_seconds(arg, &o.timeout_s))
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
    if (o.modulecmd && !*o.modulecmd)
        return ctk_cli_usage("lint", "--modulecmd needs a file");
    if (o.modulecmd && o.tcl_with == CTK_LINT_TCL_LMOD)
        return ctk_cli_usage("lint", "--modulecmd names Environment Modules, which --tcl-with lmod does not use");

    ctk_error_init(&err);
    ctk_lint_report_init(&rep);
    if (!ctk_proc_catch_interrupts(&err)) {
        rc = ctk_cli_error(&err);
        goto out;
    }
    done = ctk_lint((const char *const *)argv + optind, (size_t)(argc - optind), &o, &rep, &err);
    ctk_proc_release_interrupts();
    if ((sig = ctk_proc_interrupted())) {
        char what[128];

        /* ctk_lint removed its temp dir whichever way it returned */
        fprintf(stderr, "ctkgen: %s and removed the temp dirs\n",
                ctk_proc_describe_interrupt(what, sizeof what));
        ctk_lint_report_fini(&rep);
        ctk_proc_reraise(sig);
        return 128 + sig;
    }
    if (!done) {
        rc = ctk_cli_error(&err);
        goto out;
    }
    for (size_t i = 0; i < rep.n_files; i++) {
        tcl_skipped |= ctk_findings_has(&rep.files[i].findings, "CTK-SKIP-003");
        n_unsafe += ctk_findings_has(&rep.files[i].findings, "CTK-SKIP-004");
    }
    if (tcl_skipped && ctk_cli_verbosity >= CTK_NORMAL)
        ctk_cli_warn("Tcl modulefiles not loaded (CTK-SKIP-003): %s", rep.tcl_skip);
    if (n_unsafe && ctk_cli_verbosity >= CTK_NORMAL)
        ctk_cli_warn("%zu Tcl modulefile%s not loaded (CTK-SKIP-004): user %s cannot load %s, and lint loads "
                     "no Tcl others can change as root",
                     n_unsafe, n_unsafe == 1 ? "" : "s", rep.tcl_user ? rep.tcl_user : "nobody",
                     n_unsafe == 1 ? "it" : "them");
    if (json) {
        if (!(text = ctk_report_lint_json(&rep, &err))) {
            rc = ctk_cli_error(&err);
            goto out;
        }
        fputs(text, stdout);
    } else {
        for (size_t i = 0; i < rep.n_files; i++) {
            const ctk_lint_file_t *f = &rep.files[i];

            if (ctk_cli_verbosity < CTK_NORMAL && !f->findings.len && !o.fix_suggest)
                continue;
            print_file(f, o.fix_suggest);
        }
        if (ctk_cli_verbosity >= CTK_VERBOSE)
            for (size_t i = 0; i < rep.n_skipped; i++) {
                printf("skipped ");
                put_safe(stdout, rep.skipped[i].file);
                printf(": %s\n", rep.skipped[i].why);
            }
        if (ctk_cli_verbosity >= CTK_NORMAL)
            printf("%zu file%s linted: %zu error%s, %zu warning%s, %zu note%s; %zu skipped%s\n", rep.n_files,
                   rep.n_files == 1 ? "" : "s", rep.n_error, rep.n_error == 1 ? "" : "s", rep.n_warning,
                   rep.n_warning == 1 ? "" : "s", rep.n_note, rep.n_note == 1 ? "" : "s", rep.n_skipped,
                   rep.n_skipped && ctk_cli_verbosity < CTK_VERBOSE ? " (-v lists them)" : "");
    }
    rc = rep.n_error ? CTK_EXIT_CHECK : CTK_EXIT_OK;
out:
    free(text);
    ctk_lint_report_fini(&rep);
    return rc;
}
