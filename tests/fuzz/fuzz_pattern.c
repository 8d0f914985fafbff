/* fuzz_pattern.c - fuzz target: the metered pattern functions against Lua's.
 * SPDX-License-Identifier: MIT
 *
 * Input, byte by byte:
 *   0  the call: 'f' find, 'p' find with plain = true, 'm' match,
 *      'g' gmatch (iterated to the end, 5000 results at most), 's' gsub
 *      with the replacement string, 't' gsub with a table, 'l' gsub with a
 *      Lua function, 'n' gsub with a number; any other byte picks one of
 *      these by its value modulo 8
 *   1  init (find, match, gmatch) and
 *   2  n (gsub): '_' leaves it out, '~' passes a table (an argument
 *      error), any other byte b passes the integer b - '0' ('/' is -1,
 *      ' ' is -16)
 *   3  a separator byte; the rest is PATTERN sep SUBJECT sep REPLACEMENT
 *      (the replacement runs to the end, separators and all; a missing
 *      field is empty).  Fields may hold any byte, NUL included.
 * E.g. "s_2|(%w+)|hello world|<%1>" is gsub("hello world", "(%w+)", "<%1>", 2).
 *
 * The call runs first in a state where ctk_lpat_install's functions are
 * installed, under a meter that raises after STEP_LIMIT steps.  If the meter
 * stopped it, that is the end: Lua's own matcher might run for hours on
 * the same input.  Otherwise the same call runs in a second state with
 * Lua's own string library, and both outcomes, described as text (each
 * result's type and exact value, or the error message), must be the same.
 * The table and the function replacements are the same in both states. */
#include <ctkconf.h>

#include "fuzz.h"
#include "lpattern.h"
#include "pattern_ser.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdbool.h>
#include <string.h>

#define STEP_LIMIT 200000UL

static const char harness[] =
    "local function F(...)\n"
    "  local n = select('#', ...)\n"
    "  local a = ...\n"
    "  if a == '!' then return {} end\n"
    "  local k = (n + #tostring(a)) % 5\n"
    "  if k == 0 then return nil elseif k == 1 then return false\n"
    "  elseif k == 2 then return table.concat({...}, ',')\n"
    "  elseif k == 3 then return n * 10 end\n"
    "  return '<' .. tostring(a) .. '>'\n"
    "end\n"
    PATTERN_SER_LUA
    "local calls = {\n"
    "  f = function(p, s, init) local r = table.pack(S.find(s, p, init)) return packed(r) end,\n"
    "  p = function(p, s, init) local r = table.pack(S.find(s, p, init, true)) return packed(r) end,\n"
    "  m = function(p, s, init) local r = table.pack(S.match(s, p, init)) return packed(r) end,\n"
    "  g = function(p, s, init)\n"
    "    local it = S.gmatch(s, p, init)\n"
    "    local out = {}\n"
    "    for i = 1, 5000 do\n"
    "      local r = table.pack(it())\n"
    "      out[i] = packed(r)\n"
    "      if r.n == 0 then break end\n"
    "    end\n"
    "    return table.concat(out, ' | ')\n"
    "  end,\n"
    "  s = function(p, s, init, n, repl) local r = table.pack(S.gsub(s, p, repl, n)) return packed(r) end,\n"
    "  t = function(p, s, init, n, repl)\n"
    "    local t = { a = '<A>', b = false, c = true, d = 1.5, e = 7, x = {}, [1] = 'one',\n"
    "                [2] = 2.0, [''] = 'empty' }\n"
    "    if repl ~= '' then t[repl] = repl end\n"
    "    local r = table.pack(S.gsub(s, p, t, n)) return packed(r)\n"
    "  end,\n"
    "  l = function(p, s, init, n, repl) local r = table.pack(S.gsub(s, p, F, n)) return packed(r) end,\n"
    "  n = function(p, s, init, n, repl) local r = table.pack(S.gsub(s, p, init or 42, n)) return packed(r) end,\n"
    "}\n"
    "function run(sel, p, s, init, n, repl)\n"
    "  local ok, r = pcall(calls[sel], p, s, init, n, repl)\n"
    "  return ok and r or 'error ' .. tostring(r)\n"
    "end\n";

typedef struct {
    char sel;
    int init_kind, n_kind; /* 0 left out, 1 integer, 2 a table */
    lua_Integer init, n;
    const char *pat, *subj, *repl;
    size_t lpat, lsubj, lrepl;
} input_t;

static unsigned long steps;
static bool stopped;

static void budget(lua_State *L, unsigned long n)
{
    steps += n;
    if (steps > STEP_LIMIT) {
        stopped = true;
        luaL_error(L, "step budget exhausted");
    }
}

static lua_State *new_state(bool mine)
{
    lua_State *L = luaL_newstate();

    FUZZ_ASSERT(L != NULL);
    luaL_openlibs(L);
    if (mine) {
        lua_newtable(L);
        ctk_lpat_install(L, -1, budget);
    } else {
        lua_getglobal(L, "string");
    }
    lua_setglobal(L, "S");
    FUZZ_ASSERT(luaL_loadbuffer(L, harness, sizeof harness - 1, "=fuzz") == LUA_OK);
    FUZZ_ASSERT(lua_pcall(L, 0, 0, 0) == LUA_OK);
    return L;
}

static void decode_int(uint8_t b, int *kind, lua_Integer *v)
{
    *kind = b == '_' ? 0 : b == '~' ? 2 : 1;
    *v = (lua_Integer)b - '0';
}

/* The next field of [*p, end): up to sep, or to the end when last. */
static const char *field(const char **p, const char *end, char sep, bool last, size_t *len)
{
    const char *start = *p, *q;

    q = last ? NULL : memchr(start, sep, (size_t)(end - start));
    if (!q)
        q = end;
    *len = (size_t)(q - start);
    *p = q < end ? q + 1 : end;
    return start;
}

static void push_int_arg(lua_State *L, int kind, lua_Integer v)
{
    if (kind == 0)
        lua_pushnil(L);
    else if (kind == 1)
        lua_pushinteger(L, v);
    else
        lua_newtable(L);
}

/* Run the input in L; leaves the description on the stack and returns it. */
static const char *describe(lua_State *L, const input_t *in, size_t *len)
{
    char sel[1] = { in->sel };

    lua_settop(L, 0);
    lua_getglobal(L, "run");
    lua_pushlstring(L, sel, 1);
    lua_pushlstring(L, in->pat, in->lpat);
    lua_pushlstring(L, in->subj, in->lsubj);
    push_int_arg(L, in->init_kind, in->init);
    push_int_arg(L, in->n_kind, in->n);
    lua_pushlstring(L, in->repl, in->lrepl);
    if (lua_pcall(L, 6, 1, 0) != LUA_OK)
        lua_pushfstring(L, "harness failed: %s", lua_tostring(L, -1));
    return lua_tolstring(L, -1, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char sels[] = "fpmgstln";
    static lua_State *mine, *real;
    const char *p, *end, *got, *want;
    size_t lgot, lwant;
    input_t in;
    char sep;
    bool same;

    if (size < 4)
        return 0;
    if (!mine) {
        mine = new_state(true);
        real = new_state(false);
    }
    in.sel = data[0] && strchr(sels, data[0]) ? (char)data[0] : sels[data[0] % 8];
    decode_int(data[1], &in.init_kind, &in.init);
    decode_int(data[2], &in.n_kind, &in.n);
    sep = (char)data[3];
    p = (const char *)data + 4;
    end = (const char *)data + size;
    in.pat = field(&p, end, sep, false, &in.lpat);
    in.subj = field(&p, end, sep, false, &in.lsubj);
    in.repl = field(&p, end, sep, true, &in.lrepl);

    steps = 0;
    stopped = false;
    got = describe(mine, &in, &lgot);
    if (stopped) {
        lua_settop(mine, 0);
        return 0;
    }
    want = describe(real, &in, &lwant);
    same = lgot == lwant && memcmp(got, want, lgot) == 0;
    if (!same)
        fprintf(stderr, "Lua:  %.*s\nmine: %.*s\n", (int)(lwant > 2000 ? 2000 : lwant), want,
                (int)(lgot > 2000 ? 2000 : lgot), got);
    FUZZ_ASSERT(same);
    lua_settop(mine, 0);
    lua_settop(real, 0);
    return 0;
}
