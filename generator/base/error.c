/* error.c - ctk_error_t helpers.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Field by field: the 5 KB of the two strings past their terminators are
 * never read, and quoting and rendering start an error thousands of times
 * per run. */
void ctk_error_init(ctk_error_t *err)
{
    if (!err)
        return;
    err->code = CTK_E_OK;
    err->source[0] = '\0';
    err->line = 0;
    err->column = 0;
    err->text[0] = '\0';
}

bool ctk_error_is_set(const ctk_error_t *err)
{
    return err && err->code != CTK_E_OK;
}

void ctk_error_set(ctk_error_t *err, ctk_errcode_t code, const char *source,
                   int line, int column, const char *fmt, ...)
{
    va_list ap;

    if (!err || err->code != CTK_E_OK)
        return;
    err->code = code;
    snprintf(err->source, sizeof err->source, "%s", source ? source : "");
    err->line = line;
    err->column = column;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
}

void ctk_error_nomem(ctk_error_t *err)
{
    ctk_error_set(err, CTK_E_NOMEM, NULL, 0, 0, "out of memory");
}

void ctk_errlist_init(ctk_errlist_t *list, size_t max)
{
    memset(list, 0, sizeof *list);
    list->max = max ? max : CTK_ERRLIST_MAX;
}

void ctk_errlist_fini(ctk_errlist_t *list)
{
    size_t max;

    if (!list)
        return;
    max = list->max;
    free(list->items);
    ctk_errlist_init(list, max);
}

/* Whether a comes before b in the file; a line of 0 (unknown) sorts last. */
static bool errlist_before(const ctk_error_t *a, const ctk_error_t *b)
{
    if (a->line != b->line)
        return b->line == 0 || (a->line != 0 && a->line < b->line);
    return a->column < b->column;
}

bool ctk_errlist_add(ctk_errlist_t *list, const ctk_error_t *e)
{
    size_t at = list->n;

    /* after every kept error not past e: ties keep the order of adding */
    while (at > 0 && errlist_before(e, &list->items[at - 1]))
        at--;
    if (at == list->max) {
        list->dropped++;
        return true;
    }
    if (list->n == list->cap && list->n < list->max) {
        size_t cap = list->cap ? list->cap * 2 : 4;
        ctk_error_t *p;

        if (cap > list->max)
            cap = list->max;
        p = realloc(list->items, cap * sizeof *p);
        if (!p)
            return false;
        list->items = p;
        list->cap = cap;
    }
    if (list->n == list->max) { /* full: the last one falls off */
        list->n--;
        list->dropped++;
    }
    memmove(&list->items[at + 1], &list->items[at], (list->n - at) * sizeof *list->items);
    list->items[at] = *e;
    list->n++;
    return true;
}

ctk_exit_t ctk_error_exit_code(const ctk_error_t *err)
{
    if (!err)
        return CTK_EXIT_OK;
    switch (err->code) {
    case CTK_E_OK:
        return CTK_EXIT_OK;
    case CTK_E_USAGE:
        return CTK_EXIT_USAGE;
    case CTK_E_JSON:
    case CTK_E_CONFIG:
    case CTK_E_SDK:
    case CTK_E_VERSION:
    case CTK_E_QUOTE:
    case CTK_E_TEMPLATE:
    case CTK_E_LIMIT:
    case CTK_E_CONFLICT:
        return CTK_EXIT_INPUT;
    case CTK_E_IO:
    case CTK_E_LOCK:
    case CTK_E_ENV:
        return CTK_EXIT_ENV;
    case CTK_E_NOMEM:
    case CTK_E_INTERNAL:
        break;
    }
    return CTK_EXIT_INTERNAL;
}

const char *ctk_error_code_name(ctk_errcode_t code)
{
    static const char *const names[] = {
        [CTK_E_OK] = "ok",           [CTK_E_NOMEM] = "nomem",
        [CTK_E_IO] = "io",           [CTK_E_JSON] = "json",
        [CTK_E_CONFIG] = "config",   [CTK_E_SDK] = "sdk",
        [CTK_E_VERSION] = "version", [CTK_E_QUOTE] = "quote",
        [CTK_E_TEMPLATE] = "template", [CTK_E_LIMIT] = "limit",
        [CTK_E_CONFLICT] = "conflict", [CTK_E_LOCK] = "lock",
        [CTK_E_ENV] = "env",         [CTK_E_USAGE] = "usage",
        [CTK_E_INTERNAL] = "internal",
    };
    if ((size_t)code < sizeof names / sizeof names[0] && names[code])
        return names[code];
    return "unknown";
}
