/* luahost.h - the one place that owns a lua_State: a sandboxed Lua 5.4.
 * SPDX-License-Identifier: MIT
 *
 * Every state gets a byte-capped allocator, only the base, string, table,
 * math and utf8 libraries, a whitelisted global environment (no load,
 * loadfile, dofile, require, string.dump, collectgarbage, rawset, ...),
 * an error on reading or writing an undefined global, text-mode chunks only,
 * an instruction budget enforced by a count hook, and is closed on every
 * path.  Data passes in as a ctk_lval_t tree, seen by Lua as read-only
 * tables; lua_State never leaves luahost.c.
 */
#ifndef CTK_LUAHOST_H
#define CTK_LUAHOST_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

/* ---- a small value tree handed to Lua ------------------------------------ */
typedef struct ctk_lval ctk_lval_t;

ctk_lval_t *ctk_lval_str(const char *s);  /* NULL s gives nil */
ctk_lval_t *ctk_lval_bool(bool b);
ctk_lval_t *ctk_lval_int(long long i);
ctk_lval_t *ctk_lval_list(void);          /* a sequence 1..n */
ctk_lval_t *ctk_lval_map(void);           /* string keys, kept in insertion order */
/* Add to a list / map; the value is taken even on failure.  A NULL value
 * (allocation failed earlier) makes the call fail. */
bool ctk_lval_push(ctk_lval_t *list, ctk_lval_t *v);
bool ctk_lval_set(ctk_lval_t *map, const char *key, ctk_lval_t *v);
void ctk_lval_free(ctk_lval_t *v);

typedef struct {
    size_t mem_limit;           /* bytes; 0: default (64 MiB) */
    unsigned long instr_limit;  /* VM instructions; 0: default (50 million) */
} ctk_lua_limits_t;

/* Run a template chunk and return what it emitted (caller frees).  The
 * chunk sees the whitelisted globals plus:
 *   ctk             the data tree, read-only
 *   emit(...)       append strings (numbers converted) to the output
 *   emitln(...)     the same, then a newline
 *   comment(s)      s with control bytes and backslashes shown as '?',
 *                   safe on a comment line of any of the formats
 *   lua_q(s[,what]) tcl_q(s[,what]) pc_q(s[,what])   quote.h, raising
 *                   an error (reported as CTK_E_QUOTE) when impossible
 * Errors carry chunkname, line and a traceback in err->text. */
char *ctk_lua_render(const char *chunkname, const char *src, size_t len, const ctk_lval_t *data,
                     const ctk_lua_limits_t *limits, size_t *outlen, ctk_error_t *err);

#endif
