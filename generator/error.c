/* error.c - ctk_error_t helpers.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ctk_error_init(ctk_error_t *err)
{
    if (err)
        memset(err, 0, sizeof *err);
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
