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

typedef enum { CTK_QUIET = 0, CTK_NORMAL = 1, CTK_VERBOSE = 2 } ctk_verbosity_t;
extern ctk_verbosity_t ctk_cli_verbosity;

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
    const char *summary;  /* one line */
    const char *details;  /* paragraph(s) after the options; may be NULL */
    const ctk_opt_t *opts;
} ctk_cmd_doc_t;

/* Iterate options: returns an option id, -1 at the end, or '?' after a
 * usage error was printed.  *arg gets the option's argument. */
int ctk_cli_next_opt(int argc, char **argv, const ctk_cmd_doc_t *doc, const char **arg);

void ctk_cli_print_help(const ctk_cmd_doc_t *doc);
/* "ctkgen: <cmd>: <text>" + "Try 'ctkgen <cmd> --help'."; returns CTK_EXIT_USAGE. */
int ctk_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parse a --jobs value (a whole number from 1 to 4096) into *jobs.
 * Returns CTK_EXIT_OK, or CTK_EXIT_USAGE after printing the usage error. */
int ctk_cli_parse_jobs(const char *cmd, const char *arg, int *jobs);

/* Print an error record (with the offending config line and a caret when
 * the source is a readable file and the line is known); returns its exit
 * code. */
int ctk_cli_error(const ctk_error_t *err);

/* stderr notes: ctk_cli_info() unless quiet, ctk_cli_debug() when verbose. */
void ctk_cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ctk_cli_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ctk_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The exit-code table shared by every --help and the man page. */
extern const char ctk_cli_exit_codes_text[];

#endif
