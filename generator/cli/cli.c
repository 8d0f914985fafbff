/* cli.c - option tables, --help text, messages and exit codes.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "cli.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ctk_verbosity_t ctk_cli_verbosity = CTK_NORMAL;
const char *ctk_cli_command;

/* --help lines are wrapped to fit this many columns. */
#define HELP_WIDTH 76

/* Who can return an exit status: the commands, and MAIN for the table of
 * `ctkgen --help`, which speaks for them all. */
enum { MAIN = 1, GEN = 2, VAL = 4, SCAN = 8, LINT = 16 };

/* One table for every --help and the man page's EXIT STATUS (keep them
 * equal): a command lists only what it can return.  Statuses follow
 * ctk_error_exit_code(); 128+N is for the commands that handle SIGINT,
 * SIGTERM and SIGHUP: validate and lint catch them for as long as they
 * run (ctk_proc_*: child processes, file reads, .pc resolution and Lua
 * evaluation all stop), clean up and re-raise; generate holds them while
 * it replaces files (write.c) and, with --validate, does what validate
 * does. */
static const struct {
    const char *status;
    unsigned who;
    const char *text;
} exit_rows[] = {
    { "0", MAIN | GEN | SCAN, "success" },
    { "0", VAL, "no artifact failed (a skip is not a failure)" },
    { "0", LINT, "every file fully checked and no finding at or above --error-on (default: no "
                 "error; warnings and notes allowed, waived findings never count)" },
    { "1", MAIN, "a check failed: generate --check (the output tree would change), "
                 "validate or generate --validate (an artifact failed), lint (a finding at or above "
                 "--error-on, or with --strict a file not fully checked)" },
    { "1", GEN, "--check: the output tree would change; --validate: an artifact failed" },
    { "1", VAL, "an artifact failed (with --require-launch, also one that could not launch)" },
    { "1", LINT, "a finding at or above --error-on (default: error), after the policy; with "
                 "--strict, also a file not fully checked" },
    { "2", MAIN | GEN | VAL | LINT, "usage error" },
    { "2", SCAN, "usage error, or --default naming none of the toolkits found (nothing is written)" },
    { "3", MAIN, "bad input: site config, toolkit tree, template, a file edited by hand, "
                 "a path lint cannot read, a lint policy" },
    { "3", GEN, "bad input: site config, toolkit tree, template, a file edited by hand, "
                "or a symlink or another user's lock file in DIR" },
    { "3", VAL, "bad input: site config, toolkit tree, no generated tree in DIR, or another "
                "user's lock file in DIR" },
    { "3", SCAN, "a toolkit's path that JSON cannot hold (not UTF-8)" },
    { "3", LINT, "a FILE or DIR that does not exist or cannot be read; a --policy or --config "
                 "file that cannot be read or holds a bad lint policy" },
    { "4", MAIN, "environment: no toolkit found, output cannot be written or is locked, "
                 "missing tool" },
    { "4", GEN, "environment: no toolkit found by a scan, output cannot be written or is "
                "locked (at once with --no-wait, after --wait-timeout); with --validate, a "
                "missing tool" },
    { "4", VAL, "environment: no toolkit found by a scan, no host compiler, --modulecmd or "
                "--lmod finds nothing usable, no temp dir, or a generate run held the output "
                "lock past --wait-timeout" },
    { "4", SCAN, "no toolkit found (nothing is written), or FILE cannot be written" },
    { "4", LINT, "environment: --modulecmd names no usable Environment Modules, no temp dir" },
    { "5", MAIN, "lint: nothing failed, but a file was not fully checked" },
    { "5", LINT, "nothing failed, but a file was not fully checked (a Tcl file not loaded, "
                 "a check whose program was not run): the summary counts them; --strict makes "
                 "this 1" },
    { "70", MAIN | GEN | VAL | SCAN | LINT, "internal error" },
    { "128+N", MAIN, "stopped by signal N (130 for SIGINT): generate finishes replacing "
                     "files first; validate, lint and generate --validate stop what they run "
                     "and remove their temp dirs" },
    { "128+N", GEN, "stopped by signal N (130 for SIGINT), after the files being replaced "
                    "are whole; --validate also stops its probes and removes their temp dirs" },
    { "128+N", VAL, "stopped by signal N (130 for SIGINT) wherever it was (a probe, a .pc "
                    "resolution, a Lua evaluation), probes stopped and temp dirs removed" },
    { "128+N", LINT, "stopped by signal N (130 for SIGINT) wherever it was (the walk, a .pc "
                     "resolution, a Lua evaluation, a module load or nvcc), children stopped and "
                     "lint's temp dir removed" },
};

/* Print text from column col (the caller printed that much) to the end of
 * the line, reflowed: line breaks and runs of blanks are single spaces,
 * lines wrap at HELP_WIDTH, and continuation lines start at column indent. */
static void put_wrapped(int col, int indent, const char *text)
{
    const char *p = text;
    bool first = true;

    while (*p) {
        size_t n;

        p += strspn(p, " \n");
        n = strcspn(p, " \n");
        if (n == 0)
            break;
        if (!first && col + 1 + (int)n > HELP_WIDTH) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            putchar(' ');
            col++;
        }
        printf("%.*s", (int)n, p);
        col += (int)n;
        p += n;
        first = false;
    }
    putchar('\n');
}

/* "  LEFT" padded to width, then text wrapped under itself; a LEFT too
 * wide for its column gets a line of its own. */
static void put_row(const char *left, int width, const char *text)
{
    int col = printf("  %s", left);

    if (col > width + 2) {
        printf("\n%*s", width + 4, "");
    } else {
        printf("%*s", width + 4 - col, "");
    }
    put_wrapped(width + 4, width + 4, text);
}

void ctk_cli_print_command(const char *name, const char *summary)
{
    put_row(name, 8, summary);
}

void ctk_cli_print_exit_codes(const char *cmd)
{
    unsigned who = MAIN;
    size_t i;

    if (cmd && !strcmp(cmd, "generate"))
        who = GEN;
    else if (cmd && !strcmp(cmd, "validate"))
        who = VAL;
    else if (cmd && !strcmp(cmd, "scan"))
        who = SCAN;
    else if (cmd && !strcmp(cmd, "lint"))
        who = LINT;
    printf("Exit status:\n");
    for (i = 0; i < sizeof exit_rows / sizeof exit_rows[0]; i++)
        if (exit_rows[i].who & who)
            put_row(exit_rows[i].status, 5, exit_rows[i].text);
}

#define MAX_OPTS 32

/* The global options every command also takes after its name: `ctkgen
 * generate -q` is `ctkgen -q generate` (main.c reads them before it).  The
 * last one given wins.  A command whose table has the same letter or name
 * keeps it for itself. */
static const ctk_opt_t global_opts[] = {
    { "verbose", 'v', NULL, CTK_VERBOSE, "say more (each file, each toolkit found)" },
    { "quiet", 'q', NULL, CTK_QUIET, "only errors: no notes, no warnings" },
    { NULL, 0, NULL, 0, NULL },
};

/* getopt_long values: a command's option n is OPT_CMD + n, global option
 * n is OPT_GLOBAL + n, so neither collides with a short option letter. */
enum { OPT_CMD = 0x1000, OPT_GLOBAL = 0x2000 };

static const ctk_opt_t *find_long(const ctk_opt_t *opts, const char *name, size_t len)
{
    for (; opts->long_name; opts++)
        if (strlen(opts->long_name) == len && !strncmp(opts->long_name, name, len))
            return opts;
    return NULL;
}

static bool has_short(const ctk_opt_t *opts, int c)
{
    for (; opts->long_name; opts++)
        if (opts->short_name == c)
            return true;
    return false;
}

/* A global option the command does not take over. */
static bool global_applies(const ctk_cmd_doc_t *doc, const ctk_opt_t *g)
{
    return !find_long(doc->opts, g->long_name, strlen(g->long_name));
}

/* The global option getopt_long's result c stands for, if any. */
static const ctk_opt_t *global_hit(const ctk_cmd_doc_t *doc, int c)
{
    const ctk_opt_t *g;

    if (c >= OPT_GLOBAL)
        return &global_opts[c - OPT_GLOBAL];
    if (c <= 0 || c >= OPT_CMD || has_short(doc->opts, c))
        return NULL;
    for (g = global_opts; g->long_name; g++)
        if (g->short_name == c && global_applies(doc, g))
            return g;
    return NULL;
}

/* The usage error for a long option getopt_long refused (bad: the word as
 * given, "--name" or "--name=value"): a flag given a value, an abbreviation
 * that fits several options, or a misspelling, with the option it most
 * likely meant when one is at most two edits away (as for config keys,
 * config.c) and closer than the length of what was typed. */
static void bad_long_option(const ctk_cmd_doc_t *doc, const char *bad)
{
    const ctk_opt_t *tables[2] = { doc->opts, global_opts }, *o, *best = NULL, *exact = NULL;
    const ctk_opt_t *prefix = NULL;
    const char *name = bad + 2;
    size_t len = strcspn(name, "="), best_d = 3, t, n_prefix = 0;
    char prefixed[256] = "";

    for (t = 0; t < 2; t++) {
        for (o = tables[t]; o->long_name; o++) {
            char word[64];
            size_t d;

            if (t == 1 && !global_applies(doc, o))
                continue;
            if (strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
                exact = o;
            if (len > 0 && !strncmp(o->long_name, name, len)) {
                size_t used = strlen(prefixed);

                snprintf(prefixed + used, sizeof prefixed - used, "%s--%s",
                         n_prefix ? ", " : "", o->long_name);
                prefix = o;
                n_prefix++;
            }
            if (len >= sizeof word)
                continue;
            memcpy(word, name, len);
            word[len] = '\0';
            d = ctk_edit_distance(word, o->long_name);
            if (d < best_d && d < len) {
                best_d = d;
                best = o;
            }
        }
    }
    /* getopt_long takes an exact name, or an abbreviation of one option
     * only, unless it is a flag given a value */
    if (exact || n_prefix == 1)
        ctk_cli_usage(doc->name, "option '--%s' takes no argument",
                      (exact ? exact : prefix)->long_name);
    else if (n_prefix > 1)
        ctk_cli_usage(doc->name, "option '--%.*s' is ambiguous (%s)", (int)len, name, prefixed);
    else if (best)
        ctk_cli_usage(doc->name, "unknown option '--%.*s'; did you mean '--%s'?", (int)len, name,
                      best->long_name);
    else if (len > 0)
        ctk_cli_usage(doc->name, "unknown option '--%.*s'", (int)len, name);
    else
        ctk_cli_usage(doc->name, "unknown option '%s'", bad);
}

int ctk_cli_next_opt(int argc, char **argv, const ctk_cmd_doc_t *doc, const char **arg)
{
    struct option lopts[MAX_OPTS + 3];
    char shorts[3 * MAX_OPTS + 6];
    size_t n = 0, s = 0, g;
    const ctk_opt_t *o, *go;
    int c, idx = -1;

    shorts[s++] = ':'; /* report a missing argument as ':' */
    for (o = doc->opts; o->long_name && n < MAX_OPTS; o++, n++) {
        lopts[n].name = o->long_name;
        lopts[n].has_arg = o->arg ? required_argument : no_argument;
        lopts[n].flag = NULL;
        lopts[n].val = OPT_CMD + (int)n;
        if (o->short_name) {
            shorts[s++] = (char)o->short_name;
            if (o->arg)
                shorts[s++] = ':';
        }
    }
    for (g = 0; global_opts[g].long_name; g++) {
        if (!global_applies(doc, &global_opts[g]))
            continue;
        lopts[n].name = global_opts[g].long_name;
        lopts[n].has_arg = no_argument;
        lopts[n].flag = NULL;
        lopts[n++].val = OPT_GLOBAL + (int)g;
        if (!has_short(doc->opts, global_opts[g].short_name))
            shorts[s++] = (char)global_opts[g].short_name;
    }
    memset(&lopts[n], 0, sizeof lopts[n]);
    shorts[s] = '\0';

    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, lopts, &idx)) != -1 && (go = global_hit(doc, c)))
        ctk_cli_verbosity = (ctk_verbosity_t)go->id;
    *arg = optarg;
    if (c == -1)
        return -1;
    if (c >= OPT_CMD)
        return doc->opts[c - OPT_CMD].id;
    if (c == '?' || c == ':') {
        const char *bad = argv[optind - 1];

        if (c == ':')
            ctk_cli_usage(doc->name, "option '%s' needs an argument", bad);
        else if (!strncmp(bad, "--", 2) && bad[2])
            bad_long_option(doc, bad);
        else
            ctk_cli_usage(doc->name, "unknown option '-%c'", optopt);
        return '?';
    }
    for (o = doc->opts; o->long_name; o++)
        if (o->short_name == c)
            return o->id;
    return '?';
}

/* Whether document name is a man page ("ctkgen.1"). */
static bool is_man(const char *name)
{
    size_t len = strlen(name);

    return len > 2 && !strcmp(name + len - 2, ".1");
}

/* Where document name is: the installed copy, else the source tree's,
 * canonical, into buf; NULL when neither exists. */
static const char *doc_path(const char *name, char *buf, size_t size)
{
    const char *dirs[2] = { NULL, NULL };
    char *real;
    size_t i;

#if defined CTK_MANDIR && defined CTK_DOCDIR
    dirs[0] = is_man(name) ? CTK_MANDIR "/man1" : CTK_DOCDIR;
#endif
#ifdef CTK_SRCDOCDIR
    dirs[1] = CTK_SRCDOCDIR;
#endif
    for (i = 0; i < 2; i++) {
        if (!dirs[i] || (size_t)snprintf(buf, size, "%s/%s", dirs[i], name) >= size ||
            !ctk_is_file(buf))
            continue;
        /* the source dir of a VPATH build reads "/b/sub/../../src" */
        if ((real = ctk_realpath(buf)) != NULL && strlen(real) < size)
            memcpy(buf, real, strlen(real) + 1);
        free(real);
        return buf;
    }
    return NULL;
}

const char *ctk_cli_doc_ref(const char *name, char *buf, size_t size)
{
    char path[CTK_ERROR_SOURCE_MAX];

    if (doc_path(name, path, sizeof path))
        snprintf(buf, size, "%s%s", is_man(name) ? "man -l " : "", path);
    else if (is_man(name))
        snprintf(buf, size, "ctkgen(1)");
    else
        snprintf(buf, size, "%s in ctkgen's documentation (PREFIX/share/doc/ctkgen)", name);
    return buf;
}

void ctk_cli_print_docs(const char *const *names)
{
    char ref[CTK_ERROR_SOURCE_MAX + 128];

    printf("\nDocumentation:\n  %s\n", ctk_cli_doc_ref("ctkgen.1", ref, sizeof ref));
    for (; names && *names; names++)
        printf("  %s\n", ctk_cli_doc_ref(*names, ref, sizeof ref));
}

/* "Global options (...)" of a command's --help: those it does not take over. */
static void print_global_opts(const ctk_cmd_doc_t *doc)
{
    const ctk_opt_t *o;

    printf("\nGlobal options (before or after '%s'):\n", doc->name);
    for (o = global_opts; o->long_name; o++) {
        char left[64];

        if (!global_applies(doc, o))
            continue;
        if (has_short(doc->opts, o->short_name))
            snprintf(left, sizeof left, "    --%s", o->long_name);
        else
            snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->long_name);
        put_row(left, 22, o->help);
    }
}

void ctk_cli_print_help(const ctk_cmd_doc_t *doc)
{
    const ctk_opt_t *o;

    printf("Usage: ctkgen [-v|-q] %s %s\n", doc->name, doc->synopsis);
    put_wrapped(0, 0, doc->summary);
    printf("\nOptions:\n");
    for (o = doc->opts; o->long_name; o++) {
        char left[64];

        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name,
                     o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->long_name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        put_row(left, 22, o->help);
    }
    print_global_opts(doc);
    if (doc->details)
        printf("\n%s", doc->details);
    putchar('\n');
    ctk_cli_print_exit_codes(doc->name);
    ctk_cli_print_docs(doc->docs);
}

int ctk_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "ctkgen: %s%s", cmd ? cmd : "", cmd ? ": " : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'ctkgen %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
    return CTK_EXIT_USAGE;
}

/* Print line `line` of the file and a caret under `column`. */
static void show_source_line(const char *path, int line, int column)
{
    size_t len = 0;
    ctk_error_t e;
    char *text;
    const char *p, *end;
    int l = 1, i;

    ctk_error_init(&e);
    text = ctk_file_read(path, 16u << 20, &len, &e);
    if (!text)
        return;
    for (p = text; *p && l < line; p++)
        if (*p == '\n')
            l++;
    if (l == line && *p) {
        end = strchr(p, '\n');
        if (!end)
            end = p + strlen(p);
        fprintf(stderr, "  %.*s\n", (int)(end - p), p);
        if (column > 0 && column <= end - p + 1) {
            fputs("  ", stderr);
            for (i = 1; i < column; i++)
                fputc(p[i - 1] == '\t' ? '\t' : ' ', stderr);
            fputs("^\n", stderr);
        }
    }
    free(text);
}

int ctk_cli_error(const ctk_error_t *err)
{
    if (!err || err->code == CTK_E_OK)
        return CTK_EXIT_OK;
    /* a usage error found after option parsing reads like any other */
    if (err->code == CTK_E_USAGE && !err->source[0])
        return ctk_cli_usage(ctk_cli_command, "%s", err->text);
    if (err->source[0] && err->line > 0 && err->column > 0)
        fprintf(stderr, "%s:%d:%d: error: %s\n", err->source, err->line, err->column, err->text);
    else if (err->source[0] && err->line > 0)
        fprintf(stderr, "%s:%d: error: %s\n", err->source, err->line, err->text);
    else if (err->source[0])
        fprintf(stderr, "%s: error: %s\n", err->source, err->text);
    else
        fprintf(stderr, "ctkgen: error: %s\n", err->text);
    if (err->source[0] && err->line > 0 &&
        (err->code == CTK_E_JSON || err->code == CTK_E_CONFIG || err->code == CTK_E_SDK ||
         err->code == CTK_E_VERSION || err->code == CTK_E_QUOTE) &&
        ctk_is_file(err->source))
        show_source_line(err->source, err->line, err->column);
    return ctk_error_exit_code(err);
}

void ctk_cli_error_list(const ctk_errlist_t *list, ctk_error_t *err)
{
    size_t i, last;
    char source[CTK_ERROR_SOURCE_MAX];

    if (err->code != CTK_E_CONFIG || list->n == 0)
        return;
    last = list->dropped ? list->n : list->n - 1;
    for (i = 0; i < last; i++)
        ctk_cli_error(&list->items[i]);
    snprintf(source, sizeof source, "%s", list->items[0].source);
    ctk_error_init(err);
    if (list->dropped)
        ctk_error_set(err, CTK_E_CONFIG, source, 0, 0, "too many errors: %zu more not shown",
                      list->dropped);
    else
        *err = list->items[last];
}

__attribute__((format(printf, 2, 0)))
static void vnote(const char *prefix, const char *fmt, va_list ap)
{
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void ctk_cli_info(const char *fmt, ...)
{
    va_list ap;

    if (ctk_cli_verbosity < CTK_NORMAL)
        return;
    va_start(ap, fmt);
    vnote("ctkgen: ", fmt, ap);
    va_end(ap);
}

void ctk_cli_debug(const char *fmt, ...)
{
    va_list ap;

    if (ctk_cli_verbosity < CTK_VERBOSE)
        return;
    va_start(ap, fmt);
    vnote("ctkgen: ", fmt, ap);
    va_end(ap);
}

void ctk_cli_warn(const char *fmt, ...)
{
    va_list ap;

    if (ctk_cli_verbosity < CTK_NORMAL)
        return;
    va_start(ap, fmt);
    vnote("ctkgen: warning: ", fmt, ap);
    va_end(ap);
}

int ctk_cli_parse_jobs(const char *cmd, const char *arg, int *jobs)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(arg, &end, 10);
    if (errno || end == arg || *end || n < 1 || n > 4096)
        return ctk_cli_usage(cmd, "--jobs needs a whole number from 1 to 4096, not '%s'", arg);
    *jobs = (int)n;
    return CTK_EXIT_OK;
}
