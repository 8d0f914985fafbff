/* quote.h - quoting strings for Lua, Tcl and pkg-config files.
 * SPDX-License-Identifier: MIT
 *
 * Each function returns a fresh string (caller frees) that the target
 * format reads back as exactly the input, or NULL with CTK_E_QUOTE when the
 * format cannot express it (a newline or other control byte anywhere; in
 * .pc files also "${", which pkg-config always expands, a blank at the
 * end, which it trims, and more than CTK_QUOTE_PC_ARG_MAX bytes).  what
 * names the value in the error ("path of /sdks/0/base").
 */
#ifndef CTK_QUOTE_H
#define CTK_QUOTE_H

#include "error.h"

#include <limits.h>
#include <stddef.h>

#ifdef PATH_MAX
#define CTK_PATH_MAX PATH_MAX
#else
#define CTK_PATH_MAX 4096
#endif

/* A complete Lua string literal, with its double quotes. */
char *ctk_quote_lua(const char *s, const char *what, ctk_error_t *err);
/* A complete Tcl word in double quotes, with \ " $ [ ] { } escaped. */
char *ctk_quote_tcl(const char *s, const char *what, ctk_error_t *err);
/* The longest argument pkgconf keeps whole: it copies what follows an
 * argument's first two characters ("-I", "-L", "-r" of -rpath=) into a
 * buffer of PATH_MAX + 1024 bytes (PKGCONF_ITEM_SIZE, pkgconf 1.8) and
 * silently drops the rest. */
#define CTK_QUOTE_PC_ARG_MAX ((size_t)CTK_PATH_MAX + 1024 - 1 + 2)

/* A pkg-config value fragment: space, tab, quotes, backslash and # escaped
 * with a backslash, so pkgconf splits it back as one argument.  Anything
 * this quotes ends up inside one Cflags or Libs argument, so a fragment
 * longer than CTK_QUOTE_PC_ARG_MAX is refused; a template checks a whole
 * argument the same way by quoting it (and dropping the result). */
char *ctk_quote_pc(const char *s, const char *what, ctk_error_t *err);

/* The same three, written into the caller's room as snprintf() writes:
 * *need is the quoted text's length (without its NUL); dst, of cap bytes
 * (0 allowed, dst then NULL), holds as much of it as fits, NUL-terminated.
 * false with CTK_E_QUOTE where the plain function refuses (nothing
 * written then); they allocate nothing, so memory cannot run out. */
typedef bool (*ctk_quote_into_t)(const char *s, const char *what, char *dst, size_t cap,
                                 size_t *need, ctk_error_t *err);
bool ctk_quote_lua_into(const char *s, const char *what, char *dst, size_t cap, size_t *need,
                        ctk_error_t *err);
bool ctk_quote_tcl_into(const char *s, const char *what, char *dst, size_t cap, size_t *need,
                        ctk_error_t *err);
bool ctk_quote_pc_into(const char *s, const char *what, char *dst, size_t cap, size_t *need,
                       ctk_error_t *err);

/* One POSIX shell word in single quotes (' as '\''), for job scripts. */
char *ctk_quote_sh(const char *s, const char *what, ctk_error_t *err);

/* Whether s can go on a colon-separated path variable (no ':' or control
 * bytes).  Sets CTK_E_QUOTE otherwise. */
bool ctk_quote_check_pathvar(const char *s, const char *what, ctk_error_t *err);

#endif
