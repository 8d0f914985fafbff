/* error.h - ctk_error_t: one error record, first error wins.
 * SPDX-License-Identifier: MIT
 *
 * Fallible functions take `ctk_error_t *err` last; err may be NULL.  The
 * first ctk_error_set() on a record wins, later ones are ignored, so the
 * innermost cause is what the user sees.  A checker that reports every
 * error of a file at once collects them in a ctk_errlist_t beside its
 * record.  Only cli.c prints errors.
 */
#ifndef CTK_ERROR_H
#define CTK_ERROR_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    CTK_E_OK = 0,
    CTK_E_NOMEM,     /* allocation failed */
    CTK_E_IO,        /* reading or writing a file failed */
    CTK_E_JSON,      /* config is not well-formed JSON */
    CTK_E_CONFIG,    /* config is JSON but breaks the schema */
    CTK_E_SDK,       /* a toolkit tree does not hold what it should */
    CTK_E_VERSION,   /* declared version disagrees with the toolkit */
    CTK_E_QUOTE,     /* a string a format cannot express (e.g. a newline) */
    CTK_E_TEMPLATE,  /* a template failed to load or run */
    CTK_E_LIMIT,     /* sandbox memory or instruction budget exhausted */
    CTK_E_CONFLICT,  /* output file edited by hand, or not ours */
    CTK_E_LOCK,      /* output dir is locked by another run */
    CTK_E_ENV,       /* environment: missing tool or system facility */
    CTK_E_USAGE,     /* bad command-line use */
    CTK_E_INTERNAL
} ctk_errcode_t;

#define CTK_ERROR_SOURCE_MAX 4096
#define CTK_ERROR_TEXT_MAX 1024

typedef struct {
    ctk_errcode_t code;
    char source[CTK_ERROR_SOURCE_MAX]; /* file path or template name; "" if none */
    int line;                          /* 1-based; 0 if unknown */
    int column;                        /* 1-based; 0 if unknown */
    char text[CTK_ERROR_TEXT_MAX];
} ctk_error_t;

/* Every error a checker found in one file, for a checker that goes on
 * after an error (config.c: every schema error of a site config at once).
 * Kept in the file's order: by line, then column (errors with no line
 * after the others), errors at one place in the order they were added.
 * At most `max` are kept: the ones that fall off the end are only counted
 * in `dropped`.  Initialise with ctk_errlist_init(), release with
 * ctk_errlist_fini(); the items belong to the list. */
typedef struct {
    ctk_error_t *items; /* n of them, in the file's order */
    size_t n;
    size_t cap;         /* room in items; at most max */
    size_t max;
    size_t dropped;     /* errors added beyond max, not kept */
} ctk_errlist_t;

/* How many errors a command shows of one config file. */
#define CTK_ERRLIST_MAX 50

/* max 0 means CTK_ERRLIST_MAX. */
void ctk_errlist_init(ctk_errlist_t *list, size_t max);
/* Frees the items and empties the list; accepts NULL. */
void ctk_errlist_fini(ctk_errlist_t *list);
/* Add a copy of e in its place (or count it as dropped).  false, the list
 * unchanged, when out of memory. */
bool ctk_errlist_add(ctk_errlist_t *list, const ctk_error_t *e);

/* Exit codes (STYLE.md); listed in --help and ctkgen(1). */
typedef enum {
    CTK_EXIT_OK = 0,
    CTK_EXIT_CHECK = 1,    /* a check failed / tree would change (--check) */
    CTK_EXIT_USAGE = 2,
    CTK_EXIT_INPUT = 3,    /* bad input or config */
    CTK_EXIT_ENV = 4,      /* environment: no nvcc, no module system, lock */
    CTK_EXIT_INCOMPLETE = 5, /* lint: nothing failed, but a file was not fully checked */
    CTK_EXIT_INTERNAL = 70
} ctk_exit_t;

void ctk_error_init(ctk_error_t *err);
bool ctk_error_is_set(const ctk_error_t *err);

/* Record an error unless one is already recorded.  source may be NULL.
 * Text is formatted printf-style and truncated to fit. */
void ctk_error_set(ctk_error_t *err, ctk_errcode_t code, const char *source,
                   int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Shorthand for an allocation failure. */
void ctk_error_nomem(ctk_error_t *err);

/* Map an error code onto the process exit status. */
ctk_exit_t ctk_error_exit_code(const ctk_error_t *err);

/* Short name of a code, e.g. "config". Never NULL. */
const char *ctk_error_code_name(ctk_errcode_t code);

#endif
