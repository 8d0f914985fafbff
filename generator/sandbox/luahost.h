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
#include <stdint.h>

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
/* h fed with the whole tree (util.h: ctk_hash_mix): kinds, values, map
 * keys and order.  Two trees give the same stream only when a template
 * sees the same data in both. */
uint64_t ctk_lval_hash(uint64_t h, const ctk_lval_t *v);

/* A run stops (CTK_E_LIMIT) at the first limit it passes, and (CTK_E_ENV,
 * "interrupted by SIGINT") at the first hook or metered call after a
 * signal caught by the command (proc.h: ctk_proc_interrupted()).  Budget steps
 * are VM instructions plus the work done in C for the chunk, in the same
 * units: library calls by what they are given and do, pattern matching by
 * its steps, allocation by its bytes (32 a step), host functions by their
 * arguments and what they report.  The memory cap counts Lua's blocks,
 * emitted output and what host functions keep. */
typedef struct {
    size_t mem_limit;            /* bytes; 0: default (64 MiB) */
    unsigned long instr_limit;   /* budget steps; 0: default (50 million) */
    unsigned long time_limit_ms; /* CPU milliseconds; 0: default (5000) */
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
 * Errors carry chunkname as source and the line where known (from Lua's
 * message, else the innermost line of the chunk on the stack); err->text
 * is Lua's message without that position and without a traceback, so
 * that cli.c prints one "chunkname:LINE: error: message".  The sandbox's
 * memory cap or instruction budget running out is CTK_E_LIMIT; the system
 * allocator failing below the cap is CTK_E_NOMEM, even where Lua got over
 * it (an emergency collection): the run is failed either way. */
char *ctk_lua_render(const char *chunkname, const char *src, size_t len, const ctk_lval_t *data,
                     const ctk_lua_limits_t *limits, size_t *outlen, ctk_error_t *err);

/* The same, many times over: one sandbox state for every render, the
 * libraries opened once and each template compiled once (by chunkname;
 * a changed source is compiled again), the data pushed once per
 * ctk_lua_renderer_data().  Each render still gets a fresh environment,
 * its own output, budget and clock, and its own memory cap on top of what
 * the state holds; the data is read-only, so one render cannot reach the
 * next.  After a failed render the state is closed and the next one
 * starts afresh.  The environment offers the same names as
 * ctk_lua_render()'s, each put in it on first use (a library table is
 * copied then): rawget(_ENV, name) and pairs(_ENV) see only those used so
 * far.  Errors as ctk_lua_render(), which is one render of a renderer of
 * its own. */
typedef struct ctk_lua_renderer ctk_lua_renderer_t;
ctk_lua_renderer_t *ctk_lua_renderer_new(const ctk_lua_limits_t *limits, ctk_error_t *err);
/* The data tree the next renders see as `ctk`; it must stay unchanged and
 * alive until the next call or ctk_lua_renderer_free(). */
void ctk_lua_renderer_data(ctk_lua_renderer_t *r, const ctk_lval_t *data);
/* The next renders see ctk[key] = v as well (v NULL: no such field), a
 * map data's top-level field added without pushing the data again; v
 * must stay unchanged and alive until the next call, and
 * ctk_lua_renderer_data() drops it.  key is a static string. */
void ctk_lua_renderer_field(ctk_lua_renderer_t *r, const char *key, const ctk_lval_t *v);
char *ctk_lua_renderer_run(ctk_lua_renderer_t *r, const char *chunkname, const char *src, size_t len,
                           size_t *outlen, ctk_error_t *err);
/* ctk_lua_check_syntax() in r's state (the chunk is compiled, never run,
 * and not kept). */
bool ctk_lua_renderer_check_syntax(ctk_lua_renderer_t *r, const char *chunkname, const char *src, size_t len,
                                   ctk_error_t *err);
void ctk_lua_renderer_free(ctk_lua_renderer_t *r);

/* Whether src is, by its grammar alone, a Lua chunk that loads: only
 * blanks, "--" line comments and calls of a name (not a keyword) with no
 * argument or string literals as ctk_quote_lua() writes them, each "..."
 * with \\ \" \n \t \r or \ddd escapes (at most 255).  false says only
 * that it is not of that shape (a compiler must judge it).
 * ctk_lua_renderer_check_syntax() answers such a chunk without compiling. */
bool ctk_lua_plain_calls(const char *src, size_t len);

/* Compile src as a Lua chunk (text only) in a fresh state, without
 * running it: whether Lua, and so Lmod, can load it.  A syntax error is
 * CTK_E_TEMPLATE with source chunkname, the line, and Lua's message
 * without its position; CTK_E_LIMIT past the default memory cap;
 * CTK_E_NOMEM. */
bool ctk_lua_check_syntax(const char *chunkname, const char *src, size_t len, ctk_error_t *err);

/* ---- running a chunk against host functions ------------------------------
 * ctk_lua_run() runs a chunk in the same sandbox (whitelisted globals,
 * limits, poison-proof pcall; no emit/quote helpers, no `ctk` table) with
 * extra globals implemented in C.  A host function sees its call through
 * ctk_lua_call_t, an opaque view valid only while it runs; the accessors
 * never allocate and never raise, so a host function may hold resources
 * across them.  String pointers they give are borrowed and valid until the
 * host function returns. */
typedef struct ctk_lua_call ctk_lua_call_t;
typedef struct ctk_lua_ret ctk_lua_ret_t;

typedef enum {
    CTK_LUA_NIL,      /* also: past the last argument, or a missing field */
    CTK_LUA_BOOL,
    CTK_LUA_NUMBER,
    CTK_LUA_STRING,
    CTK_LUA_TABLE,
    CTK_LUA_OTHER     /* function, userdata, thread */
} ctk_lua_type_t;

typedef struct {
    ctk_lua_type_t type;
    const char *str;  /* STRING: its bytes; NUMBER: as Lua's tostring() writes it; else NULL */
    size_t len;       /* of str */
    double num;       /* NUMBER, or a STRING Lua converts to a number */
    bool is_num;      /* num is meaningful */
    bool truthy;      /* Lua truth: not nil and not false */
    char numbuf[48];  /* storage for str of a NUMBER */
} ctk_lua_val_t;

size_t ctk_lua_call_nargs(const ctk_lua_call_t *c);
/* Charge budget steps for work the host function does beyond reading its
 * arguments (which is charged already); the run stops when the function
 * returns if the budget is spent. */
void ctk_lua_call_charge(const ctk_lua_call_t *c, unsigned long steps);
/* Line of the chunk the call was made from; 0 if unknown. */
int ctk_lua_call_line(const ctk_lua_call_t *c);
/* The registered name the chunk called ("os.getenv"). */
const char *ctk_lua_call_name(const ctk_lua_call_t *c);
/* Argument i (1-based). */
void ctk_lua_call_arg(const ctk_lua_call_t *c, size_t i, ctk_lua_val_t *out);
/* For a table argument i: its element [k] (k 1-based) / its field [key],
 * read raw (no metamethods).  NIL when argument i is not a table. */
void ctk_lua_call_elem(const ctk_lua_call_t *c, size_t i, size_t k, ctk_lua_val_t *out);
void ctk_lua_call_field(const ctk_lua_call_t *c, size_t i, const char *key, ctk_lua_val_t *out);
/* Length of the sequence part of table argument i (0 if not a table). */
size_t ctk_lua_call_len(const ctk_lua_call_t *c, size_t i);

/* What the host function returns to Lua; nothing unless one is called. */
bool ctk_lua_ret_str(ctk_lua_ret_t *r, const char *s, size_t len); /* copies; false: no memory */
void ctk_lua_ret_bool(ctk_lua_ret_t *r, bool b);
void ctk_lua_ret_nil(ctk_lua_ret_t *r);

/* Return false with err set to raise an error in the chunk at the call.
 * Host errors are fatal: the sandbox's pcall cannot catch them, and
 * ctk_lua_run() reports err's code and text with source = chunkname and
 * the call's line (unless the host function set a line itself).  err is
 * never NULL here. */
typedef bool (*ctk_lua_fn_t)(void *ud, const ctk_lua_call_t *call, ctk_lua_ret_t *ret,
                             ctk_error_t *err);

/* name is a global ("setenv") or one table level deep ("os.getenv"; the
 * table is created in the chunk's environment if absent). */
typedef struct {
    const char *name;
    ctk_lua_fn_t fn;
} ctk_lua_reg_t;

/* Let the chunk create and assign globals of its own (they live in its
 * private environment), as Lmod lets modulefiles do.  Reading an undefined
 * global is still an error. */
#define CTK_LUA_ALLOW_GLOBALS 0x1u

/* Run src with the functions fns (ending with {NULL, NULL}) added to the
 * sandbox, passing ud to each.  Errors: CTK_E_LIMIT (memory or instruction
 * budget; not catchable), the code a host function set, CTK_E_TEMPLATE for
 * anything else the chunk does wrong (syntax, runtime error, calling
 * something absent); source is chunkname, line where known.  CTK_E_NOMEM
 * if the host itself runs out of memory. */
bool ctk_lua_run(const char *chunkname, const char *src, size_t len, const ctk_lua_reg_t *fns,
                 void *ud, unsigned flags, const ctk_lua_limits_t *limits, ctk_error_t *err);

/* ctk_lua_run() after a prelude: trusted Lua source run first in the same
 * environment and under the same limits, given the real string table (the
 * one string values index, so `("x"):name()` finds what it adds) as its
 * one argument.  Globals it defines are the chunk's.  Host calls made from
 * prelude functions report the line of the chunk's caller. */
bool ctk_lua_run_prelude(const char *chunkname, const char *prelude, size_t prelude_len,
                         const char *src, size_t len, const ctk_lua_reg_t *fns, void *ud,
                         unsigned flags, const ctk_lua_limits_t *limits, ctk_error_t *err);

#endif
