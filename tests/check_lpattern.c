/* check_lpattern.c - the metered pattern functions against Lua 5.4's own.
 * SPDX-License-Identifier: MIT
 *
 * One plain lua_State holds both sets: REAL (the string library's find,
 * match, gmatch and gsub, copied before anything is installed) and MINE
 * (ctk_lpat_install's).  Each case is a function name and a Lua argument
 * list; the same harness code calls both sets with it and describes the
 * outcome as text (every result with its type and exact value, or the
 * error message, which carries the harness's line), and the two texts
 * must be equal.  Then the meter: it hears every call, stops a pattern
 * bomb in well under a second, and does not over-charge linear work.
 */
#include <ctkconf.h>

#include "lpattern.h"
#include "fuzz/pattern_ser.h"
#include "testutil.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The harness.  Each function is called through a field (S.find), not a
 * variable or a tail call, so that an argument error names 'find' for both
 * sets.  A gmatch iterator is called until it returns nothing (200 at most). */
static const char harness[] =
    "local calls = {\n"
    "  find = function(S, a) local r = table.pack(S.find(table.unpack(a, 1, a.n))) return r end,\n"
    "  match = function(S, a) local r = table.pack(S.match(table.unpack(a, 1, a.n))) return r end,\n"
    "  gsub = function(S, a) local r = table.pack(S.gsub(table.unpack(a, 1, a.n))) return r end,\n"
    "  gmatch = function(S, a)\n"
    "    local it = S.gmatch(table.unpack(a, 1, a.n))\n"
    "    local out = {}\n"
    "    for i = 1, 200 do\n"
    "      local r = table.pack(it())\n"
    "      out[i] = r\n"
    "      if r.n == 0 then break end\n"
    "    end\n"
    "    return out\n"
    "  end,\n"
    "}\n"
    PATTERN_SER_LUA
    "function describe(S, name, ...)\n"
    "  local ok, r = pcall(calls[name], S, table.pack(...))\n"
    "  if not ok then return 'error ' .. tostring(r) end\n"
    "  if name ~= 'gmatch' then return packed(r) end\n"
    "  local parts = {}\n"
    "  for i, p in ipairs(r) do parts[i] = packed(p) end\n"
    "  return table.concat(parts, ' | ')\n"
    "end\n"
    "local t = {}\n"
    "for i = 0, 255 do t[#t + 1] = string.char(i) end\n"
    "ALL = table.concat(t)\n";

/* What the test meter saw; it raises once the total passes m_limit (0: never). */
static unsigned long m_total, m_calls, m_max, m_limit;

static void test_meter(lua_State *L, unsigned long steps)
{
    m_total += steps;
    m_calls++;
    if (steps > m_max)
        m_max = steps;
    if (m_limit && m_total > m_limit)
        luaL_error(L, "step budget exhausted");
}

static void meter_reset(unsigned long limit)
{
    m_total = m_calls = m_max = 0;
    m_limit = limit;
}

static lua_State *L;

static void setup(void)
{
    static const char *const names[] = { "find", "match", "gmatch", "gsub" };
    size_t i;

    L = luaL_newstate();
    ck_assert_ptr_nonnull(L);
    luaL_openlibs(L);
    lua_newtable(L);
    lua_getglobal(L, "string");
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        lua_getfield(L, -1, names[i]);
        lua_setfield(L, -3, names[i]);
    }
    lua_pop(L, 1);
    lua_setglobal(L, "REAL");
    lua_newtable(L);
    ctk_lpat_install(L, -1, test_meter);
    ck_assert_int_eq(lua_gettop(L), 1);
    lua_setglobal(L, "MINE");
    ck_assert_int_eq(luaL_loadbuffer(L, harness, sizeof harness - 1, "=harness"), LUA_OK);
    ck_assert_int_eq(lua_pcall(L, 0, 0, 0), LUA_OK);
    meter_reset(0);
}

static void teardown(void)
{
    lua_close(L);
    L = NULL;
    tu_free_kept();
}

/* Run a chunk that returns one string; returns it (kept until teardown).
 * Every chunk has the same name, so that errors raised in it read the same. */
static const char *eval(const char *src)
{
    const char *r;

    lua_settop(L, 0);
    if (luaL_loadbuffer(L, src, strlen(src), "=case") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK)
        ck_abort_msg("chunk failed: %s\n%s", lua_tostring(L, -1), src);
    r = lua_tostring(L, -1);
    ck_assert_msg(r != NULL, "chunk gave no string: %s", src);
    return tu_keep(strdup(r));
}

typedef struct {
    const char *fn;
    const char *args; /* a Lua expression list */
} pcase_t;

static const pcase_t cases[] = {
    /* find: plain, no specials, init */
    { "find", "'hello world', 'o w'" },
    { "find", "'hello world', 'o', 6" },
    { "find", "'hello', 'l', -2" },
    { "find", "'hello', 'l', -10" },
    { "find", "'hello', 'l', 0" },
    { "find", "'hello', '', 10" },
    { "find", "'hello', '', 6" },
    { "find", "'hello', '', 5" },
    { "find", "'hello', '', -1" },
    { "find", "'', ''" },
    { "find", "'', '', 2" },
    { "find", "'', 'a'" },
    { "find", "'hello', 'xyz'" },
    { "find", "'hello', 'hello world'" },
    { "find", "'a.b', '.', 1, true" },
    { "find", "'a.b', '.', 1, false" },
    { "find", "'a.b', '%.', 1, nil" },
    { "find", "'a+b', '+', 1, true" },
    { "find", "'a+b', 'a+b'" },
    { "find", "'a+b', 'a+b', 1, 1" },
    { "find", "'a]b', ']'" },
    { "find", "'ab', 'b', 3, true" },
    { "find", "'ab', '', 3, true" },
    { "find", "'abc', 'b', math.maxinteger" },
    { "find", "'abc', 'b', math.mininteger" },
    { "find", "'abc', 'c', -1" },
    { "find", "12345, 34" },
    { "find", "1.5, '%.'" },
    { "find", "12345, 3.0" },
    /* embedded zeros */
    { "find", "'a\\0b\\0c', '\\0'" },
    { "find", "'a\\0b\\0c', '\\0c'" },
    { "find", "'a\\0b', 'b', 1, true" },
    { "find", "'a\\0b\\0c', '%z'" },
    { "find", "'x\\0y', '[\\0]'" },
    { "find", "'x\\0y', '[^\\0]+', 2" },
    { "find", "'x\\0y', '%c'" },
    { "find", "'x\\0y\\0', '.%z'" },
    { "find", "'x\\0y', 'x.y'" },
    { "find", "'a\\0a\\0', '(a\\0)%1'" },
    { "match", "'ab\\0cd', '[%z]'" },
    { "match", "'ab\\0cd', '\\0*(.-)$'" },
    { "gsub", "'a\\0b\\0', '\\0', '<%0>'" },
    { "gsub", "'a\\0b', 'b', 'x\\0y'" },
    { "find", "'a\\0b', '%b\\0b'" },
    /* classes, each against all 256 bytes */
    { "gsub", "ALL, '%a', ''" },
    { "gsub", "ALL, '%A', ''" },
    { "gsub", "ALL, '%c', ''" },
    { "gsub", "ALL, '%C', ''" },
    { "gsub", "ALL, '%d', ''" },
    { "gsub", "ALL, '%D', ''" },
    { "gsub", "ALL, '%g', ''" },
    { "gsub", "ALL, '%G', ''" },
    { "gsub", "ALL, '%l', ''" },
    { "gsub", "ALL, '%L', ''" },
    { "gsub", "ALL, '%p', ''" },
    { "gsub", "ALL, '%P', ''" },
    { "gsub", "ALL, '%s', ''" },
    { "gsub", "ALL, '%S', ''" },
    { "gsub", "ALL, '%u', ''" },
    { "gsub", "ALL, '%U', ''" },
    { "gsub", "ALL, '%w', ''" },
    { "gsub", "ALL, '%W', ''" },
    { "gsub", "ALL, '%x', ''" },
    { "gsub", "ALL, '%X', ''" },
    { "gsub", "ALL, '%z', ''" },
    { "gsub", "ALL, '%Z', ''" },
    { "gsub", "ALL, '%.', ''" },
    { "gsub", "ALL, '%%', ''" },
    { "gsub", "ALL, '%]', ''" },
    { "gsub", "ALL, '%\\255', ''" },
    { "gsub", "ALL, '.', ''" },
    { "gsub", "ALL, '[%a%d]', ''" },
    { "gsub", "ALL, '[^%a%d]', ''" },
    { "gsub", "ALL, '[%A]', ''" },
    { "gsub", "ALL, '[\\128-\\255]', ''" },
    { "gsub", "ALL, '[^\\1-\\254]', ''" },
    /* sets */
    { "find", "'xabcx', '[a-c]+'" },
    { "find", "'abcxyz', '[^a-c]+'" },
    { "find", "'a]b', '[]]'" },
    { "find", "']]a', '[^]]'" },
    { "find", "'b]^a', '[]-a]+'" },
    { "find", "'x-a', '[a-]+'" },
    { "find", "'x-a', '[-a]+'" },
    { "find", "'q-z', '[%a-z]+'" },
    { "find", "'x]y', '[%]]'" },
    { "find", "'b-z', '[a%-z]+'" },
    { "find", "'a%b', '[a-%%]+'" },
    { "find", "'abc', '[z-a]'" },
    { "find", "'^a^', '[%^a]+'" },
    { "find", "'a-b', '[--a]+'" },
    { "find", "'%a', '[%%]'" },
    { "find", "'abc', '[a'" },
    { "find", "'abc', '['" },
    { "find", "'abc', '[^'" },
    { "find", "'abc', '[]'" },
    { "find", "'abc', '[^]'" },
    { "find", "'abc', '[a%]'" },
    { "find", "'abc', '[a%'" },
    { "find", "'abc', '[%'" },
    { "find", "'x', 'y['" },
    { "find", "'y', 'y['" },
    /* quantifiers */
    { "find", "'aaab', 'a*'" },
    { "find", "'aaab', 'a+'" },
    { "find", "'aaab', 'a-'" },
    { "find", "'aaab', 'a-b'" },
    { "find", "'aaab', 'a?'" },
    { "find", "'aaab', 'a?a?a?a?b'" },
    { "find", "'xyz', 'x?y'" },
    { "find", "'abcabcx', '.-c'" },
    { "find", "'abcabcx', '.*c'" },
    { "find", "'ababc', '[ab]*c'" },
    { "find", "'ababc', '[ab]+$'" },
    { "match", "'  trim me  ', '^%s*(.-)%s*$'" },
    { "match", "'key = value', '(%w+)%s*=%s*(%w+)'" },
    { "match", "'aaa', 'a-$'" },
    { "match", "'*+?', '%*%+%?'" },
    { "match", "'a*b', 'a*b'" },
    { "match", "'-', '-'" },
    { "match", "'--', '--'" },
    { "match", "'a-', 'a-'" },
    { "match", "'?', '?'" },
    { "match", "'+', '+'" },
    { "match", "'x*', '*'" },
    /* back-references */
    { "find", "'aa', '(a)%1'" },
    { "match", "'hello hello world', '(%a+) %1'" },
    { "match", "'say \"hi\" there', '([\"\\'])(.-)%1'" },
    { "match", "'xax', '(()a)%2'" },
    { "match", "'abab', '(ab)%1$'" },
    { "find", "'aa', '%0'" },
    { "find", "'aa', '(a)%2'" },
    { "find", "'aa', '(a%1)'" },
    { "find", "'aa', '%1'" },
    { "find", "'aa', 'b%1'" },
    { "find", "'aa', '(a)%9'" },
    /* %b */
    { "find", "'f(a(b)c) d', '%b()'" },
    { "match", "'f(a(b)c) d', '%b()'" },
    { "match", "'((', '%b()'" },
    { "match", "'[[x]]y]', '%b[]y'" },
    { "match", "'xx', '%bxx'" },
    { "match", "'xyxxyy', '%bxy'" },
    { "find", "'x', '%b'" },
    { "find", "'x', '%bx'" },
    { "find", "'', '%bx'" },
    { "gsub", "'a(b)c(d(e))', '%b()', '[]'" },
    /* %f */
    { "match", "'THE (quick) fox', '%f[%a]%a+'" },
    { "gsub", "'THE (quick) fox', '%f[%a]%a+', 'W'" },
    { "gsub", "'hello world', '%f[%w]', '<'" },
    { "gsub", "'hello world', '%f[%W]', '>'" },
    { "find", "'hello', '%f[\\0]'" },
    { "find", "'hello', '%f[%z]'" },
    { "find", "'hello', '%f[^\\0]'" },
    { "find", "'hello', '%f'" },
    { "find", "'hello', '%fa'" },
    { "find", "'hello', '%f[a'" },
    { "find", "'', '%f[a]'" },
    { "find", "'', '%f[^a]'" },
    /* captures */
    { "find", "'hello', '(h)(e)(l)'" },
    { "match", "'hello', '(h)(e)(l)'" },
    { "match", "'hello', '()ll()'" },
    { "find", "'hello', '()ll()'" },
    { "match", "'hello', '(h)(x?)'" },
    { "match", "'hello', '((e)(l+))'" },
    { "match", "'hello', '(()(l)())'" },
    { "find", "'hello', '('" },
    { "find", "'hello', '(()'" },
    { "find", "'hello', ')'" },
    { "find", "'hello', '(e'" },
    { "match", "'hello', 'e)'" },
    { "match", "'hello', '(()'" },
    { "find", "'a(b', '%('" },
    { "match", "('a'):rep(32), ('(a)'):rep(32)" },
    { "match", "('a'):rep(33), ('(a)'):rep(33)" },
    { "find", "('a'):rep(33), ('(a)'):rep(33)" },
    { "match", "'ab', ('()'):rep(33)" },
    { "match", "'b', 'a' .. ('(a)'):rep(33)" },
    /* anchors */
    { "find", "'hello', '^h'" },
    { "find", "'hello', '^e'" },
    { "find", "'hello', '^e', 2" },
    { "find", "'hello', '^'" },
    { "find", "'hello', '^', 3" },
    { "find", "'hello', 'o$'" },
    { "find", "'hello', 'h$'" },
    { "find", "'hello', '$'" },
    { "find", "'a$b', 'a$b'" },
    { "find", "'^^', '^^'" },
    { "match", "'hello', '^(h)(.*)$'" },
    { "match", "'hello', '^$'" },
    { "match", "'', '^$'" },
    { "match", "'$', '$$'" },
    { "match", "'x$', '.$$'" },
    /* malformed patterns */
    { "find", "'abc', '%'" },
    { "find", "'abc', 'c%'" },
    { "find", "'abc', 'x%'" },
    { "match", "'abc', '[a'" },
    { "match", "'abc', '%ba'" },
    { "match", "'abc', '(%0)'" },
    /* "pattern too complex": the same nesting as Lua's */
    { "find", "('a'):rep(300), ('a?'):rep(199)" },
    { "find", "('a'):rep(300), ('a?'):rep(200)" },
    { "find", "('a'):rep(300), ('a?'):rep(201)" },
    { "find", "('a'):rep(300), ('a*'):rep(199)" },
    { "find", "('a'):rep(300), ('a*'):rep(200)" },
    { "find", "('a'):rep(300), ('a-'):rep(200)" },
    { "find", "('a'):rep(300), ('a-'):rep(199)" },
    { "find", "('a'):rep(300), ('a-'):rep(201)" },
    { "find", "('ab'):rep(300), ('ab-'):rep(199) .. 'c'" },
    { "find", "('ab'):rep(300), ('ab+'):rep(199)" },
    { "find", "('ab'):rep(300), ('ab+'):rep(200)" },
    { "find", "('ab'):rep(300), ('ab+'):rep(201)" },
    { "find", "('a'):rep(300), ('a'):rep(300)" },
    { "find", "('a'):rep(300), ('.'):rep(300) .. '$'" },
    { "find", "('a'):rep(300), ('%a'):rep(300) .. '%f[%z]'" },
    { "find", "('ab'):rep(10), ('(a)b'):rep(10) .. ('a?'):rep(180)" },
    { "find", "('ab'):rep(10), ('(a)b'):rep(10) .. ('a?'):rep(170)" },
    { "find", "('a'):rep(300), ('()a?'):rep(32)" },
    { "match", "('a'):rep(300), ('(a)'):rep(20) .. ('a?'):rep(150)" },
    /* argument errors */
    { "find", "" },
    { "find", "'a'" },
    { "find", "nil, 'a'" },
    { "find", "'a', nil" },
    { "find", "{}, 'a'" },
    { "find", "'a', {}" },
    { "find", "'a', 'a', 'x'" },
    { "find", "'a', 'a', 1.5" },
    { "find", "'a', 'a', '2'" },
    { "find", "'a', 'a', {}" },
    { "match", "" },
    { "match", "'a', 'a', 'x'" },
    { "gmatch", "" },
    { "gmatch", "'a'" },
    { "gmatch", "'a', '.', 'x'" },
    { "gsub", "" },
    { "gsub", "'a', 'a'" },
    { "gsub", "'a', 'a', nil" },
    { "gsub", "'a', 'a', true" },
    { "gsub", "'a', 'a', {}, 'x'" },
    { "gsub", "'a', 'a', nil, 'x'" },
    { "gsub", "'a', 'a', 'b', 1.5" },
    { "gsub", "{}, 'a', 'b'" },
    /* match */
    { "match", "'hello', 'l+'" },
    { "match", "'hello', 'l+', 4" },
    { "match", "'hello', 'l+', -1" },
    { "match", "'hello', 'l+', 9" },
    { "match", "'hello', '', 6" },
    { "match", "'hello', '', 7" },
    { "match", "'hello', '()', 6" },
    { "match", "'hello', 'xyz'" },
    { "match", "'hello', 'hello world'" },
    { "match", "'2024-01-31', '(%d+)-(%d+)-(%d+)'" },
    /* gmatch: init, the empty-match rule, '^' is itself */
    { "gmatch", "'hello world from lua', '%a+'" },
    { "gmatch", "'abc', ''" },
    { "gmatch", "'abc', 'b*'" },
    { "gmatch", "'abc', 'x*'" },
    { "gmatch", "'aaa', 'a-'" },
    { "gmatch", "'abc', '.', 2" },
    { "gmatch", "'abc', '.', -1" },
    { "gmatch", "'abc', '.', -10" },
    { "gmatch", "'abc', '.', 0" },
    { "gmatch", "'abc', '.', 10" },
    { "gmatch", "'abc', '', 4" },
    { "gmatch", "'abc', '', 5" },
    { "gmatch", "'^a^b', '^.'" },
    { "gmatch", "'ab', '^'" },
    { "gmatch", "'aab', '^*a'" },
    { "gmatch", "'key=val, k2=v2', '(%w+)=(%w+)'" },
    { "gmatch", "'abc', '()'" },
    { "gmatch", "'abc', '()(.)'" },
    { "gmatch", "'abc', '%'" },
    { "gmatch", "'abc', 'c%'" },
    { "gmatch", "'abc', '(.'" },
    { "gmatch", "'a(b)(c', '%b()'" },
    { "gmatch", "'one two', '%f[%w]%w+'" },
    { "gmatch", "'a,b,,c', '([^,]*)'" },
    { "gmatch", "'a.b', '.$'" },
    { "gmatch", "'a\\0b', '%Z'" },
    { "gmatch", "12321, '2'" },
    /* gsub: string replacements */
    { "gsub", "'hello world', 'o', '0'" },
    { "gsub", "'hello', '', '-'" },
    { "gsub", "'abc', 'b*', '-'" },
    { "gsub", "'abc', 'x*', '-'" },
    { "gsub", "'hello world', '(%w+)', '<%1>'" },
    { "gsub", "'hello world', '%w+', '<%1>'" },
    { "gsub", "'hello world', '(%w+) (%w+)', '%2 %1'" },
    { "gsub", "'hello', 'l', '%%'" },
    { "gsub", "'hello', 'l', '%0%0'" },
    { "gsub", "'hello', 'l', '%2'" },
    { "gsub", "'hello', '(l)', '%2'" },
    { "gsub", "'hello', 'l', '%x'" },
    { "gsub", "'hello', 'l', 'x%'" },
    { "gsub", "'hello', 'z', '%x'" },
    { "gsub", "'hello', '()l', '%1'" },
    { "gsub", "'hello', '()l()', '%2-%1'" },
    { "gsub", "'hello', '(', 'x'" },
    { "gsub", "'hello', '(', '%1'" },
    { "gsub", "'hello', 'l', 5" },
    { "gsub", "'hello', 'l', 5.5" },
    { "gsub", "'hello', 'l', 2^63" },
    { "gsub", "'hello', 'l', 'L', 1" },
    { "gsub", "'hello', 'l', 'L', 0" },
    { "gsub", "'hello', 'l', 'L', -1" },
    { "gsub", "'hello', 'l', 'L', 1.0" },
    { "gsub", "'hello', 'l', 'L', '1'" },
    { "gsub", "'hello', '', 'L', 3" },
    { "gsub", "'hello', '^h', 'H'" },
    { "gsub", "'hello', '^l', 'L'" },
    { "gsub", "'hello', '^', '>'" },
    { "gsub", "'hello', '^.-', '>'" },
    { "gsub", "'hello', '$', '<'" },
    { "gsub", "'', '', 'x'" },
    { "gsub", "'', 'a', 'x'" },
    { "gsub", "'hello', '.', ''" },
    { "gsub", "12345, '3', 'x'" },
    { "gsub", "12345, '9', 'x'" },
    { "gsub", "'abc', '%w', '%0%0%0'" },
    { "gsub", "'a.b.c', '%.', '%%'" },
    /* gsub: tables */
    { "gsub", "'hello', 'l', {l = 'L'}" },
    { "gsub", "'hello', '.', {h = 1, e = false, o = 2.5}" },
    { "gsub", "'hello', '.', {h = true}" },
    { "gsub", "'hello', '.', {h = {}}" },
    { "gsub", "'hello', '(.)(.)', {he = 'X', h = 'Y'}" },
    { "gsub", "'hello', '()l', {[3] = 'three', [4] = 'four'}" },
    { "gsub", "'hello', '(', {}" },
    { "gsub", "'hello', '%w+', setmetatable({}, {__index = function(t, k) return k:upper() end})" },
    { "gsub", "'hello', 'l', {}" },
    /* gsub: functions */
    { "gsub", "'hello world', '%w+', function(w) return w:upper() end" },
    { "gsub", "'hello', 'l', function() return nil end" },
    { "gsub", "'hello', 'l', function() return false end" },
    { "gsub", "'hello', 'l', function() end" },
    { "gsub", "'hello', 'l', function() return 7 end" },
    { "gsub", "'hello', 'l', function() return {} end" },
    { "gsub", "'hello', 'l', function() return true end" },
    { "gsub", "'hello', '(h)(e)', function(a, b) return b .. a end" },
    { "gsub", "'hello', '()(l)()', function(a, b, c) return a .. b .. c end" },
    { "gsub", "'hello', 'l', function() error('boom') end" },
    { "gsub", "'hello', '(l', function(x) return 'x' end" },
    { "gsub", "'a,b', '[^,]+', function(s) return #s end" },
    { "gsub", "'abc', '', function() return '-' end" },
};
#define N_CASES (sizeof cases / sizeof cases[0])

START_TEST(test_lpattern_matches_lua_results_and_errors)
{
    const pcase_t *c = &cases[_i];
    const char *src, *want, *got;

    const char *sep = c->args[0] ? ", " : "";

    src = tu_str("return describe(REAL, '%s'%s%s)", c->fn, sep, c->args);
    want = eval(src);
    meter_reset(0);
    src = tu_str("return describe(MINE, '%s'%s%s)", c->fn, sep, c->args);
    got = eval(src);
    ck_assert_msg(strcmp(want, got) == 0, "%s(%s):\n  Lua:  %s\n  mine: %s", c->fn, c->args,
                  want, got);
}
END_TEST

/* A case that fails shows the test can see a difference at all: MINE is
 * not REAL, and the harness tells results apart by type and value. */
START_TEST(test_lpattern_harness_tells_outcomes_apart)
{
    ck_assert_str_eq(eval("return tostring(MINE.find ~= REAL.find and MINE.gsub ~= REAL.gsub)"),
                     "true");
    ck_assert_str_eq(eval("return describe(MINE, 'find', 'hello', 'l+')"),
                     "2: integer 3 integer 4");
    ck_assert_str_eq(eval("return describe(MINE, 'gsub', 'hello', 'l', 1)"),
                     "2: \"he11o\" integer 2");
    ck_assert_str_eq(eval("return describe(MINE, 'match', 'hello', '()e')"), "1: integer 2");
    ck_assert_str_eq(eval("return describe(MINE, 'gmatch', 'ab', '.')"),
                     "1: \"a\" | 1: \"b\" | 0:");
    ck_assert_str_eq(eval("return describe(MINE, 'find', 'a', '%')"),
                     "error harness:2: malformed pattern (ends with '%')");
    ck_assert_str_eq(eval("return describe(MINE, 'find')"),
                     "error harness:2: bad argument #1 to 'find' (string expected, got no value)");
    ck_assert_uint_gt(m_calls, 0);
}
END_TEST

START_TEST(test_lpattern_install_sets_four_fields_and_keeps_the_stack)
{
    lua_settop(L, 0);
    lua_pushinteger(L, 1);
    lua_newtable(L);
    lua_pushinteger(L, 2);
    ctk_lpat_install(L, -2, NULL);
    ck_assert_int_eq(lua_gettop(L), 3);
    ck_assert_int_eq(lua_getfield(L, 2, "find"), LUA_TFUNCTION);
    ck_assert_int_eq(lua_getfield(L, 2, "match"), LUA_TFUNCTION);
    ck_assert_int_eq(lua_getfield(L, 2, "gmatch"), LUA_TFUNCTION);
    ck_assert_int_eq(lua_getfield(L, 2, "gsub"), LUA_TFUNCTION);
    lua_setglobal(L, "NOMETER");
    lua_settop(L, 0);
    /* a NULL meter counts nothing and stops nothing */
    ck_assert_str_eq(eval("return (NOMETER('hello', 'l', 'L'))"), "heLLo");
    ck_assert_uint_eq(m_calls, 0);
}
END_TEST

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Each would run for hours in Lua's own matcher. */
static const char *const bombs[] = {
    "MINE.find(('a'):rep(40), '.-.-.-.-.-.-.-.-.-.-b')",
    "MINE.match(('a'):rep(40), '.*.*.*.*.*.*.*.*.*.*b')",
    "MINE.gsub(('a'):rep(40), '(.-)(.-)(.-)(.-)(.-)(.-)(.-)(.-)b', '')",
    "MINE.gsub(('a'):rep(40), '.-.-.-.-.-.-.-.-b', function() end)",
    "MINE.gsub(('a'):rep(40), '.-.-.-.-.-.-.-.-b', {})",
    "(function() for w in MINE.gmatch(('a'):rep(40), 'a*a*a*a*a*a*a*a*a*b') do end end)()",
    "MINE.find(('a'):rep(40), '(a?)(a?)(a?)(a?)(a?)(a?)(a?)(a?)(a?)(a?)(a?)(a?)' .. ('a'):rep(30) .. 'b')",
    "MINE.find(('(('):rep(20000) .. 'x', '%b()%b()%b()%b()x')",
};

START_TEST(test_lpattern_meter_stops_a_pattern_bomb)
{
    double t0;
    const char *src, *r;

    meter_reset(200000);
    t0 = now();
    src = tu_str("local ok, e = pcall(function() return %s end) return tostring(ok) .. ' ' .. tostring(e)",
                 bombs[_i]);
    r = eval(src);
    ck_assert_msg(strstr(r, "false") == r && strstr(r, "step budget exhausted"), "%s: %s",
                  bombs[_i], r);
    ck_assert_double_lt(now() - t0, 0.5);
    ck_assert_uint_gt(m_total, 200000);
    ck_assert_uint_le(m_max, CTK_LPAT_METER_EVERY);
}
END_TEST

START_TEST(test_lpattern_meter_hears_every_call)
{
    static const char *const calls[] = {
        "MINE.find('hello world', 'o w')",
        "MINE.find('hello world', 'o w', 1, true)",
        "MINE.find('hello world', 'l+')",
        "MINE.find('hello world', 'zz+')",
        "MINE.match('hello world', '(%w+) (%w+)')",
        "MINE.gsub('hello world', 'o', '0')",
        "MINE.gsub('hello world', 'o', {})",
        "MINE.gsub('hello world', 'o', function() end)",
        "MINE.gmatch('hello world', '%w+')()",
    };
    size_t i;

    for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        meter_reset(0);
        eval(tu_str("%s return ''", calls[i]));
        ck_assert_msg(m_calls == 1, "%s: %lu meter calls", calls[i], m_calls);
        ck_assert_msg(m_total > 0 && m_total < 200, "%s: %lu steps", calls[i], m_total);
    }
    /* each gmatch iteration reports, and so does the last, empty one */
    meter_reset(0);
    eval("for w in MINE.gmatch('one two three', '%a+') do end return ''");
    ck_assert_uint_eq(m_calls, 4);
    /* a long walk reports as it goes, never more than METER_EVERY at once */
    meter_reset(0);
    eval("MINE.find(('a'):rep(100000), '^(a*)b') return ''");
    ck_assert_uint_le(m_max, CTK_LPAT_METER_EVERY);
    ck_assert_uint_ge(m_calls, m_total / CTK_LPAT_METER_EVERY);
    ck_assert_uint_gt(m_total, 100000);
    /* an error does not make the work done before it free */
    meter_reset(0);
    eval("pcall(function() return MINE.find(('a'):rep(5000), 'a*%') end) return ''");
    ck_assert_uint_ge(m_total, 5000);
}
END_TEST

/* Steps for work linear in the subject stay within a small factor of its
 * length: ordinary use is not over-charged. */
static const struct {
    const char *call;
    double lo, hi; /* bounds on steps / #S */
} linear[] = {
    { "MINE.gsub(S, '[^:]+', 'x')", 1.0, 2.5 },
    { "MINE.gsub(S, '[^:]+', function(w) return w end)", 1.0, 2.5 },
    { "for w in MINE.gmatch(S, '%a+') do end", 1.0, 2.5 },
    { "MINE.find(S, 'z%d')", 1.0, 2.5 },
    { "MINE.find(S, '^.*$')", 1.0, 2.5 },
    { "MINE.match(S, '^(.-)z')", 1.0, 3.5 }, /* '.', ')' and 'z' at each byte */
    { "MINE.find(S, '%f[%d]')", 1.0, 2.5 },
    { "MINE.gsub(S, ':', '%%')", 1.0, 2.5 },
    { "MINE.find(S, 'zz', 1, true)", 1.0, 1.01 },
    { "MINE.find(S, 'zz')", 1.0, 1.01 },
};

START_TEST(test_lpattern_meter_charges_linear_work_linearly)
{
    const char *r;
    double ratio;

    eval("S = ('abc:'):rep(25000) return ''");
    meter_reset(0);
    r = eval(tu_str("%s return ''", linear[_i].call));
    (void)r;
    ratio = (double)m_total / 100000.0;
    ck_assert_msg(ratio >= linear[_i].lo && ratio <= linear[_i].hi, "%s: %lu steps for 100000 bytes",
                  linear[_i].call, m_total);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lpattern");
    TCase *tc = tcase_create("lpattern");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_lpattern_matches_lua_results_and_errors, 0, N_CASES);
    tcase_add_test(tc, test_lpattern_harness_tells_outcomes_apart);
    tcase_add_test(tc, test_lpattern_install_sets_four_fields_and_keeps_the_stack);
    tcase_add_loop_test(tc, test_lpattern_meter_stops_a_pattern_bomb, 0,
                        sizeof bombs / sizeof bombs[0]);
    tcase_add_test(tc, test_lpattern_meter_hears_every_call);
    tcase_add_loop_test(tc, test_lpattern_meter_charges_linear_work_linearly, 0,
                        sizeof linear / sizeof linear[0]);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
