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

const char ctk_cli_exit_codes_text[] =
    "Exit status:\n"
    "  0   success\n"
    "  1   a check failed (--check: the output tree would change)\n"
    "  2   usage error\n"
    "  3   bad input: site config, toolkit tree, template, or a file edited by hand\n"
    "  4   environment: cannot write the output, output locked, missing tool\n"
    "  70  internal error\n";

#define MAX_OPTS 32

int ctk_cli_next_opt(int argc, char **argv, const ctk_cmd_doc_t *doc, const char **arg)
{
    struct option lopts[MAX_OPTS + 1];
    char shorts[3 * MAX_OPTS + 2];
    size_t n = 0, s = 0;
    const ctk_opt_t *o;
    int c, idx = -1;

    shorts[s++] = ':'; /* report a missing argument as ':' */
    for (o = doc->opts; o->long_name && n < MAX_OPTS; o++, n++) {
        lopts[n].name = o->long_name;
        lopts[n].has_arg = o->arg ? required_argument : no_argument;
        lopts[n].flag = NULL;
        lopts[n].val = 0x1000 + (int)n;
        if (o->short_name) {
            shorts[s++] = (char)o->short_name;
            if (o->arg)
                shorts[s++] = ':';
        }
    }
    memset(&lopts[n], 0, sizeof lopts[n]);
    shorts[s] = '\0';

    opterr = 0;
    c = getopt_long(argc, argv, shorts, lopts, &idx);
    *arg = optarg;
    if (c == -1)
        return -1;
    if (c >= 0x1000)
        return doc->opts[c - 0x1000].id;
    if (c == '?' || c == ':') {
        const char *bad = argv[optind - 1];

        if (c == ':')
            ctk_cli_usage(doc->name, "option '%s' needs an argument", bad);
        else if (optopt)
            ctk_cli_usage(doc->name, "unknown option '-%c'", optopt);
        else
            ctk_cli_usage(doc->name, "unknown option '%s'", bad);
        return '?';
    }
    for (o = doc->opts; o->long_name; o++)
        if (o->short_name == c)
            return o->id;
    return '?';
}

void ctk_cli_print_help(const ctk_cmd_doc_t *doc)
{
    const ctk_opt_t *o;

    printf("Usage: ctkgen [-v|-q] %s %s\n%s\n\nOptions:\n", doc->name, doc->synopsis, doc->summary);
    for (o = doc->opts; o->long_name; o++) {
        char left[64];

        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name,
                     o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->long_name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
        printf("  %-28s %s\n", left, o->help);
    }
    if (doc->details)
        printf("\n%s", doc->details);
    printf("\n%s", ctk_cli_exit_codes_text);
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
