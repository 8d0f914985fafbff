/* cli.h - option tables, --help text, messages and exit codes.
 * SPDX-License-Identifier: MIT
 *
 * Only cli.c and cmd_*.c print.  Results go to stdout; diagnostics go to
 * stderr as "ctkgen: error: ..." or "FILE:LINE:COL: error: ...".
 */
#ifndef CTK_CLI_H
#define CTK_CLI_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum { CTK_QUIET = 0, CTK_NORMAL = 1, CTK_VERBOSE = 2 } ctk_verbosity_t;
extern ctk_verbosity_t ctk_cli_verbosity;
/* The command being run ("generate"), for the "Try" line of a usage error
 * reported through ctk_cli_error(); NULL before dispatch. */
extern const char *ctk_cli_command;

/* One row of a command's option table; the table drives both getopt_long
 * and the --help text.  End with a row whose long_name is NULL. */
typedef struct {
    const char *long_name;
    int short_name;   /* 0: long only */
    const char *arg;  /* NULL: a flag; else the argument's name in help */
    int id;           /* returned by ctk_cli_next_opt() */
    const char *help;
} ctk_opt_t;

#define CTK_OPT_HELP_ID 'h'

typedef struct {
    const char *name;     /* "generate" */
    const char *synopsis; /* "[options]" */
    const char *summary;  /* one sentence; its line breaks are reflowed */
    const char *details;  /* paragraph(s) after the options; may be NULL */
    const ctk_opt_t *opts;
    /* the documents (docs/ names, "scan.md") --help points at besides
     * ctkgen(1); NULL-terminated; may be NULL */
    const char *const *docs;
} ctk_cmd_doc_t;

/* Iterate options: returns an option id, -1 at the end, or '?' after a
 * usage error was printed.  *arg gets the option's argument.  The global
 * -v/--verbose and -q/--quiet are taken here too, for every command, and
 * set ctk_cli_verbosity; they are never returned. */
int ctk_cli_next_opt(int argc, char **argv, const ctk_cmd_doc_t *doc, const char **arg);

/* A command's --help on stdout: usage, options, the global options it
 * takes, details, the exit statuses that command can return, and where
 * its documents are (ctk_cli_print_docs). */
void ctk_cli_print_help(const ctk_cmd_doc_t *doc);

/* How to read one of ctkgen's documents, for a message that points at it
 * (name: "ctkgen.1" or a docs/ name such as "site-config.md"): the
 * installed copy (CTK_DOCDIR, CTK_MANDIR/man1) when it exists, else the
 * copy in the source tree this binary was built from (CTK_SRCDOCDIR), as
 * a canonical path, "man -l PATH" for the man page.  With neither, the
 * name and where `make install` would put it.  Written into buf (size
 * CTK_ERROR_SOURCE_MAX + 128 holds any); returns buf.  Every message that points at
 * documentation goes through here, so each pointer is one that exists. */
const char *ctk_cli_doc_ref(const char *name, char *buf, size_t size);
/* "Documentation:" and, one a line, ctk_cli_doc_ref() of ctkgen.1 and of
 * each of names (NULL-terminated; may be NULL), on stdout. */
void ctk_cli_print_docs(const char *const *names);
/* One "  NAME  summary" line of the command list in `ctkgen --help`, the
 * summary reflowed and wrapped with a hanging indent. */
void ctk_cli_print_command(const char *name, const char *summary);
/* "Exit status:" and the statuses of cmd ("generate", "validate", "scan",
 * "lint"), or with cmd NULL of ctkgen as a whole, on stdout. */
void ctk_cli_print_exit_codes(const char *cmd);
/* "ctkgen: <cmd>: <text>" + "Try 'ctkgen <cmd> --help'." (cmd NULL:
 * "ctkgen: <text>" + "Try 'ctkgen --help'."); returns CTK_EXIT_USAGE. */
int ctk_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a --jobs value (a whole number from 1 to 4096) into *jobs.
 * Returns CTK_EXIT_OK, or CTK_EXIT_USAGE after printing the usage error. */
int ctk_cli_parse_jobs(const char *cmd, const char *arg, int *jobs);

/* Print an error record (with the offending config line and a caret when
 * the source is a readable file and the line is known); returns its exit
 * code.  A CTK_E_USAGE record is printed as ctk_cli_usage() would for
 * ctk_cli_command, "Try" line included. */
int ctk_cli_error(const ctk_error_t *err);

/* Every error of a checked file (ctk_config_load_all), each as
 * ctk_cli_error() prints one, in file order: all but the last are printed
 * here and the last goes to *err, for the caller to print on its way out
 * as it prints any error, so its exit code is what it was.  When the list
 * had to leave some out, the last is printed here too and *err says how
 * many more there were.  Nothing happens unless *err is a CTK_E_CONFIG
 * error and the list holds one. */
void ctk_cli_error_list(const ctk_errlist_t *list, ctk_error_t *err);

/* stderr notes: ctk_cli_info() and ctk_cli_warn() ("ctkgen: warning: ...")
 * unless quiet (-q prints errors only), ctk_cli_debug() when verbose. */
void ctk_cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ctk_cli_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ctk_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
