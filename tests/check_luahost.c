/* check_luahost.c - the Lua sandbox: whitelist, limits, read-only data.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "failmalloc.h"
#include "luahost.h"
#include "quote.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *run(const char *src, const ctk_lval_t *data, const ctk_lua_limits_t *lim,
                 ctk_error_t *err)
{
    size_t len;

    ctk_error_init(err);
    return ctk_lua_render("t.lua", src, strlen(src), data, lim, &len, err);
}

/* r's render of src under the name name (the output, or NULL with err set) */
static char *rrun(ctk_lua_renderer_t *r, const char *name, const char *src, ctk_error_t *err)
{
    size_t len;

    ctk_error_init(err);
    return ctk_lua_renderer_run(r, name, src, strlen(src), &len, err);
}

/* One renderer, many renders: nothing one render does reaches the next. */
START_TEST(test_luahost_renderer_renders_do_not_meet)
{
    ctk_lval_t *d1 = ctk_lval_map(), *d2 = ctk_lval_map();
    ctk_lua_renderer_t *r;
    ctk_error_t err;
    char *out;

    ck_assert(ctk_lval_set(d1, "name", ctk_lval_str("one")));
    ck_assert(ctk_lval_set(d2, "name", ctk_lval_str("two")));
    ctk_error_init(&err);
    ck_assert_ptr_nonnull(r = ctk_lua_renderer_new(NULL, &err));
    ctk_lua_renderer_data(r, d1);
    /* a render that spoils its own library tables */
    out = rrun(r, "a.lua", "string.upper = nil; table.concat = nil; math.pi = 3; emit(ctk.name)", &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "one");
    free(out);
    out = rrun(r, "b.lua", "emit(string.upper(ctk.name), table.concat({'x', 'y'}), ' ', tostring(math.pi > 3.14))", &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "ONExy true");
    free(out);
    /* globals stay refused, and the data stays read-only */
    ck_assert_ptr_null(rrun(r, "c.lua", "x = 1", &err));
    ck_assert_ptr_nonnull(strstr(err.text, "assignment to global 'x'"));
    ck_assert_ptr_null(rrun(r, "c.lua", "ctk.name = 'z'", &err));
    ck_assert_ptr_nonnull(strstr(err.text, "read-only"));
    /* after a failed render the next one works, with the data it was given */
    out = rrun(r, "b.lua", "emit(ctk.name)", &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "one");
    free(out);
    /* new data is what the next render sees */
    ctk_lua_renderer_data(r, d2);
    out = rrun(r, "b.lua", "emit(ctk.name)", &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "two");
    free(out);
    ctk_lua_renderer_free(r);
    ctk_lval_free(d1);
    ctk_lval_free(d2);
}
END_TEST

/* A field beside the data: seen by the renders after it, replaced by the
 * next, gone with new data, and never writable by a template. */
START_TEST(test_luahost_renderer_field)
{
    ctk_lval_t *d = ctk_lval_map(), *l1 = ctk_lval_map(), *l2 = ctk_lval_map();
    ctk_lua_renderer_t *r;
    ctk_error_t err;
    char *out;
    const char *src = "emit(ctk.name, ':', ctk.lib and ctk.lib.name or 'none')";

    ck_assert(ctk_lval_set(d, "name", ctk_lval_str("sdk")));
    ck_assert(ctk_lval_set(l1, "name", ctk_lval_str("cublas")));
    ck_assert(ctk_lval_set(l2, "name", ctk_lval_str("cufft")));
    ctk_error_init(&err);
    ck_assert_ptr_nonnull(r = ctk_lua_renderer_new(NULL, &err));
    ctk_lua_renderer_data(r, d);
    out = rrun(r, "f.lua", src, &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "sdk:none");
    free(out);
    ctk_lua_renderer_field(r, "lib", l1);
    out = rrun(r, "f.lua", src, &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "sdk:cublas");
    free(out);
    ck_assert_ptr_null(rrun(r, "w.lua", "ctk.lib.name = 'x'", &err));
    ck_assert_ptr_nonnull(strstr(err.text, "read-only"));
    /* after that failure (a fresh state), the field is still there */
    ctk_lua_renderer_field(r, "lib", l2);
    out = rrun(r, "f.lua", src, &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "sdk:cufft");
    free(out);
    ctk_lua_renderer_data(r, d);
    out = rrun(r, "f.lua", src, &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "sdk:none");
    free(out);
    ctk_lua_renderer_free(r);
    ctk_lval_free(d);
    ctk_lval_free(l1);
    ctk_lval_free(l2);
}
END_TEST

/* Data of another shape after data, in one state (the second data's
 * tables take the first's proxies): each render sees its own data alone,
 * in full, read-only, and the fields of the data before are gone. */
START_TEST(test_luahost_renderer_new_data_of_another_shape)
{
    static const char *const src =
        "local keys = {}\n"
        "for k in pairs(ctk) do keys[#keys + 1] = k end\n"
        "table.sort(keys)\n"
        "emit(table.concat(keys, ','), ';')\n"
        "for _, k in ipairs(keys) do\n"
        "  local v = ctk[k]\n"
        "  emit(k, '=', #v, ':')\n"
        "  local sub = {}\n"
        "  for sk, sv in pairs(v) do sub[#sub + 1] = tostring(sk) .. '>' .. sv end\n"
        "  table.sort(sub)\n"
        "  emit(table.concat(sub, ' '), ';')\n"
        "end\n"
        "local ok = pcall(function() ctk[keys[1]].w = 'x' end)\n"
        "emit(ok and 'writable' or 'read-only')\n";
    ctk_lval_t *d1 = ctk_lval_map(), *a1 = ctk_lval_map(), *b1 = ctk_lval_list();
    ctk_lval_t *d2 = ctk_lval_map(), *a2 = ctk_lval_map(), *c2 = ctk_lval_list();
    ctk_lua_renderer_t *r;
    ctk_error_t err;
    char *out;

    ck_assert(ctk_lval_set(a1, "x", ctk_lval_str("1")) && ctk_lval_set(a1, "y", ctk_lval_str("2")));
    ck_assert(ctk_lval_push(b1, ctk_lval_str("p")) && ctk_lval_push(b1, ctk_lval_str("q")) &&
              ctk_lval_push(b1, ctk_lval_str("r")));
    ck_assert(ctk_lval_set(d1, "a", a1) && ctk_lval_set(d1, "b", b1));
    ck_assert(ctk_lval_set(a2, "z", ctk_lval_str("3")));
    ck_assert(ctk_lval_push(c2, ctk_lval_str("s")));
    ck_assert(ctk_lval_set(d2, "c", c2) && ctk_lval_set(d2, "a", a2));
    ctk_error_init(&err);
    ck_assert_ptr_nonnull(r = ctk_lua_renderer_new(NULL, &err));
    ctk_lua_renderer_data(r, d1);
    out = rrun(r, "s.lua", src, &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "a,b;a=0:x>1 y>2;b=3:1>p 2>q 3>r;read-only");
    free(out);
    ctk_lua_renderer_data(r, d2);
    out = rrun(r, "s.lua", src, &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "a,c;a=0:z>3;c=1:1>s;read-only");
    free(out);
    ctk_lua_renderer_data(r, d1);
    out = rrun(r, "s.lua", src, &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "a,b;a=0:x>1 y>2;b=3:1>p 2>q 3>r;read-only");
    free(out);
    ctk_lua_renderer_free(r);
    ctk_lval_free(d1);
    ctk_lval_free(d2);
}
END_TEST

/* A chunk kept by name is compiled again when its source changes. */
START_TEST(test_luahost_renderer_recompiles_changed_source)
{
    ctk_lua_renderer_t *r;
    ctk_error_t err;
    char *out;

    ctk_error_init(&err);
    ck_assert_ptr_nonnull(r = ctk_lua_renderer_new(NULL, &err));
    ctk_lua_renderer_data(r, NULL);
    out = rrun(r, "t.lua", "emit('first')", &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "first");
    free(out);
    out = rrun(r, "t.lua", "emit('second')", &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "second");
    free(out);
    ck_assert_ptr_null(rrun(r, "t.lua", "emit(", &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    out = rrun(r, "t.lua", "emit('first')", &err);
    ck_assert_msg(out, "%s", err.text);
    ck_assert_str_eq(out, "first");
    free(out);
    ctk_lua_renderer_free(r);
}
END_TEST

/* Budget and memory cap are each render's own: renders that each use
 * most of them pass however many run, and one past them still fails. */
START_TEST(test_luahost_renderer_limits_are_per_render)
{
    ctk_lua_limits_t lim = { (size_t)4 << 20, 2000000, 0 };
    ctk_lua_renderer_t *r;
    ctk_error_t err;
    char *out;
    int i;

    ctk_error_init(&err);
    ck_assert_ptr_nonnull(r = ctk_lua_renderer_new(&lim, &err));
    ctk_lua_renderer_data(r, NULL);
    for (i = 0; i < 12; i++) {
        /* about 1.5 MiB kept until the render ends, and most of the budget */
        out = rrun(r, "big.lua",
                   "local t = {} for i = 1, 12000 do t[i] = string.rep('x', 100) .. i end "
                   "local n = 0 for j = 1, 30000 do n = n + j end emit(#t)",
                   &err);
        ck_assert_msg(out, "render %d: %s", i, err.text);
        ck_assert_str_eq(out, "12000");
        free(out);
    }
    ck_assert_ptr_null(rrun(r, "loop.lua", "while true do end", &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_null(rrun(r, "bomb.lua", "local t = {} for i = 1, 1e7 do t[i] = i end", &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.text, "memory limit exhausted"));
    out = rrun(r, "ok.lua", "emit('fine')", &err);
    ck_assert_msg(out, "%s", err.text);
    free(out);
    ctk_lua_renderer_free(r);
}
END_TEST

START_TEST(test_luahost_emits_text_and_reads_data)
{
    ctk_lval_t *d = ctk_lval_map(), *l = ctk_lval_list();
    ctk_error_t err;
    char *out;

    ck_assert(ctk_lval_push(l, ctk_lval_str("a")));
    ck_assert(ctk_lval_push(l, ctk_lval_str("b")));
    ck_assert(ctk_lval_set(d, "name", ctk_lval_str("cuda")));
    ck_assert(ctk_lval_set(d, "n", ctk_lval_int(7)));
    ck_assert(ctk_lval_set(d, "flag", ctk_lval_bool(true)));
    ck_assert(ctk_lval_set(d, "list", l));
    out = run("local t = {} for i, v in ipairs(ctk.list) do t[#t+1] = v end "
              "local keys = 0 for k in pairs(ctk) do keys = keys + 1 end "
              "emit(ctk.name, ':', ctk.n, ':', tostring(ctk.flag), ':', table.concat(t, ','), "
              "':', #ctk.list, ':', keys)",
              d, NULL, &err);
    ck_assert_msg(out != NULL, "%s", err.text);
    ck_assert_str_eq(out, "cuda:7:true:a,b:2:4");
    free(out);
    ctk_lval_free(d);
}
END_TEST

/* Each escape attempt must fail with a template error, not run. */
static const char *const escapes[] = {
    "os.execute('touch /tmp/ctkgen-pwned')",
    "io.open('/etc/passwd')",
    "require('os')",
    "load('return 1')()",
    "loadfile('/etc/passwd')",
    "dofile('/etc/passwd')",
    "string.dump(function() end)",
    "(''):dump()",
    "debug.getinfo(1)",
    "package.loadlib('libc.so.6', 'system')",
    "collectgarbage('stop')",
    "setmetatable({}, {})",
    "getmetatable('').__index.rep('x', 2)",
    "print('x')",
    "rawset(_ENV, 'x', 1)",
    "x = 1",
    "ctk.name = 'evil'",
    "emit({})",
    "coroutine.wrap(function() while true do end end)()",
    "_G.os = 1",
    "getmetatable('').__gc = 1",
    "local t = setmetatable({}, {__gc = function() os.execute('touch /tmp/ctkgen-pwned') end})",
    "error(setmetatable({}, {__tostring = function() while true do end end}))",
    "string.format('%099999999d', 1)",
};

START_TEST(test_luahost_blocks_escape)
{
    ctk_lval_t *d = ctk_lval_map();
    ctk_error_t err;
    char *out;

    ck_assert(ctk_lval_set(d, "name", ctk_lval_str("cuda")));
    out = run(escapes[_i], d, NULL, &err);
    ck_assert_msg(out == NULL, "escape ran: %s", escapes[_i]);
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_str_eq(err.source, "t.lua");
    ck_assert_int_eq(err.line, 1);
    ck_assert_int_ne(access("/tmp/ctkgen-pwned", F_OK), 0);
    ctk_lval_free(d);
}
END_TEST

START_TEST(test_luahost_instruction_budget_stops_loops)
{
    ctk_lua_limits_t lim = { .mem_limit = 0, .instr_limit = 1000000 };
    ctk_error_t err;

    ck_assert_ptr_null(run("while true do end", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.text, "instruction budget"));
    /* pcall cannot swallow the limit */
    ck_assert_ptr_null(run("while true do pcall(function() while true do end end) end",
                           NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    /* nor a loop inside a callback from C */
    ck_assert_ptr_null(run("string.gsub('aaa', 'a', function() while true do end end)", NULL,
                           &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_null(run("table.sort({3, 2, 1}, function() while true do end end)", NULL, &lim,
                           &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
}
END_TEST

/* Work done inside one C call or one instruction, where the count hook
 * never fires: each of these ran for hours (or ate the machine's memory)
 * before the library functions were metered and the time limit added. */
static const struct {
    const char *src;
    const char *text; /* in err.text */
} unseen_work[] = {
    /* one call looping without output */
    { "table.move({}, 1, math.maxinteger - 1, 2)", "instruction budget" },
    /* one call backtracking for hours, as a function and as a method */
    { "local i = string.find(('a'):rep(40), '.-.-.-.-.-.-.-b')", "instruction budget" },
    { "local s, n = (('a'):rep(2000)):gsub('a-a-a-a-b', '')", "instruction budget" },
    { "for w in (('a'):rep(60)):gmatch('a-a-a-a-a-a-a-$b') do end", "instruction budget" },
    /* calls whose work the hook counts as one instruction each */
    { "local s = ('x'):rep(1 << 20) for i = 1, 1e9 do local u = s:upper() end", "instruction budget" },
    { "local s = ('x'):rep(1 << 20) for i = 1, 1e9 do local n = utf8.len(s) end", "instruction budget" },
    { "local s = ('x'):rep(1 << 20) for i = 1, 1e9 do local n = tonumber(s) end", "instruction budget" },
    { "local t = {} for i = 1, 1e5 do t[i] = i end\n"
      "for i = 1, 1e9 do local n = select('#', table.unpack(t)) end", "instruction budget" },
    { "local t = {} for i = 1, 1e5 do t[i] = i end\n"
      "for i = 1, 1e9 do table.insert(t, 1, 0) table.remove(t, 1) end", "instruction budget" },
    { "local t = {} for i = 1, 1e5 do t[i] = 'x' end\n"
      "for i = 1, 1e9 do local s = table.concat(t) end", "instruction budget" },
    { "local s = ('x'):rep(1 << 20) for i = 1, 1e9 do local t = s .. i end", "instruction budget" },
    { "local s = ('x'):rep(1 << 20) for i = 1, 1e9 do local q = tcl_q(s) end", "instruction budget" },
    /* one instruction comparing two long strings: only the clock sees it */
    { "local a, b = ('x'):rep(2 << 20), ('x'):rep(2 << 20)\n"
      "local n = 0 for i = 1, 1e12 do if a == b then n = n + 1 end end", "time limit" },
    /* emitted output counts against the memory cap */
    { "local s = ('x'):rep(1 << 20) for i = 1, 1e4 do emit(s) end", "memory limit" },
};

START_TEST(test_luahost_work_the_hook_cannot_see_is_bounded)
{
    /* the default budget: without the meters, each of these runs for
     * minutes.  A metered case must be stopped by its meter, so its clock
     * is far away (a sanitized build on a busy machine is slow: 1.5 s was
     * seen to come first); only the case no meter sees keeps a near one. */
    bool clock_case = strcmp(unseen_work[_i].text, "time limit") == 0;
    ctk_lua_limits_t lim = { 8u << 20, 0, clock_case ? 1500 : 40000 };
    ctk_error_t err;
    char *out = run(unseen_work[_i].src, NULL, &lim, &err);

    ck_assert_msg(out == NULL, "ran to the end: %s", unseen_work[_i].src);
    ck_assert_msg(err.code == CTK_E_LIMIT, "%s: code %d: %s", unseen_work[_i].src, err.code, err.text);
    ck_assert_msg(strstr(err.text, unseen_work[_i].text) != NULL, "%s: %s", unseen_work[_i].src,
                  err.text);
    ck_assert_msg(strstr(err.text, clock_case ? "1500 ms" : "40000 ms") != NULL, "%s", err.text);
}
END_TEST

/* The metered functions give what Lua's give, errors included, and
 * ordinary use stays far inside the budget. */
START_TEST(test_luahost_metered_functions_behave_as_lua)
{
    ctk_lua_limits_t lim = { 0, 200000, 0 };
    ctk_error_t err;
    char *out;

    out = run("local t = {3, 1, 2} table.sort(t) table.insert(t, 1, 0) table.insert(t, 9)\n"
              "local r = table.remove(t, 1) table.move(t, 1, 2, 3)\n"
              "emit(table.concat(t, ','), '|', r, '|', #(''):rep(1 << 40), '|', ('ab'):rep(3, '-'),\n"
              "     '|', select('#', table.unpack(t)), '|', tostring(nil), '|', tonumber('0x10'),\n"
              "     '|', utf8.len('h\\u{e9}'), '|', ('x'):upper(), '|', tostring(rawequal('a', 'a')))",
              NULL, &lim, &err);
    ck_assert_msg(out != NULL, "%s", err.text);
    ck_assert_str_eq(out, "1,2,1,2|0|0|ab-ab-ab|4|nil|16|2|X|true");
    free(out);
    /* a library function's own argument error still names it */
    ck_assert_ptr_null(run("table.insert(nil, 1)", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_ptr_nonnull(strstr(err.text, "bad argument #1 to 'insert'"));
    ck_assert_ptr_null(run("local s = string.rep('x', 2, {})", NULL, &lim, &err));
    ck_assert_ptr_nonnull(strstr(err.text, "bad argument #3 to 'rep'"));
    ck_assert_ptr_null(run("table.move({}, -1, math.maxinteger, 2)", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_ptr_nonnull(strstr(err.text, "too many elements to move"));
}
END_TEST

START_TEST(test_luahost_memory_cap_stops_bombs)
{
    ctk_lua_limits_t lim = { .mem_limit = 4u << 20, .instr_limit = 0 };
    ctk_error_t err;

    ck_assert_ptr_null(run("local s = string.rep('x', 64 * 1024 * 1024) emit(#s)", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.text, "memory"));
    ck_assert_ptr_null(run("local t = {} for i = 1, 1e9 do t[i] = i end", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_null(run("local ok = pcall(string.rep, 'x', 1 << 30) emit(tostring(ok))", NULL,
                           &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_null(run("emit(string.rep('ab', 1e7, ','))", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_null(run("local s = ('x'):rep(1e6) emit(#(s .. s .. s .. s .. s))", NULL, &lim,
                           &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    /* an error message is no way around the cap either */
    ck_assert_ptr_null(run("error(string.rep('x', 3e6) .. string.rep('y', 3e6))", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
}
END_TEST

START_TEST(test_luahost_deep_recursion_is_an_error)
{
    ctk_error_t err;

    ck_assert_ptr_null(run("local function f(n) return 1 + f(n + 1) end f(1)", NULL, NULL, &err));
    ck_assert(err.code == CTK_E_TEMPLATE || err.code == CTK_E_LIMIT);
}
END_TEST

START_TEST(test_luahost_reports_syntax_error_line)
{
    ctk_error_t err;

    ck_assert_ptr_null(run("emit('a')\nemit('b'\n", NULL, NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
    ck_assert_str_eq(err.source, "t.lua");
    ck_assert_int_eq(err.line, 3);
    ck_assert_ptr_null(run("emit('a')\n\nlocal x = nil + 1\n", NULL, NULL, &err));
    ck_assert_int_eq(err.line, 3);
    ck_assert_ptr_nonnull(strstr(err.text, "arithmetic"));
}
END_TEST

START_TEST(test_luahost_refuses_binary_chunks)
{
    const char bin[] = "\x1bLua\x54\x00";
    size_t len;
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_lua_render("b", bin, sizeof bin - 1, NULL, NULL, &len, &err));
    ck_assert_int_eq(err.code, CTK_E_TEMPLATE);
}
END_TEST

START_TEST(test_luahost_comment_neutralises_line_breaks)
{
    ctk_error_t err;
    char *out = run("emitln(comment('a\\nb\\\\'), 'x')", NULL, NULL, &err);

    ck_assert_msg(out != NULL, "%s", err.text);
    ck_assert_str_eq(out, "a?b?x\n");
    free(out);
}
END_TEST

START_TEST(test_luahost_quote_failure_is_quote_error)
{
    ctk_error_t err;

    ck_assert_ptr_null(run("emit(pc_q('/a\\nb', '/sdks/0/base'))", NULL, NULL, &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_ptr_nonnull(strstr(err.text, "/sdks/0/base"));
}
END_TEST

/* ---- out of memory ---------------------------------------------------------
 * The sandbox's cap is the chunk's limit (CTK_E_LIMIT); the system
 * allocator failing below it is the host's (CTK_E_NOMEM).  Each sweep
 * (tests/failmalloc.c) fails every allocation of one whole run in turn:
 * the state's creation, the sandbox, loading, running, closing. */
static const char sweep_chunk[] =
    "local parts = {}\n"
    "for i, v in ipairs(ctk.list) do parts[#parts + 1] = v:upper() end\n"
    "local ok = pcall(error, 'caught')\n"
    "emitln(comment('name\\n' .. ctk.name))\n"
    "emitln('setenv(\"X\", ', lua_q(ctk.name, 'name'), ')')\n"
    "emitln('setenv X ', tcl_q(ctk.name, 'name'))\n"
    "emitln('prefix=', pc_q('/opt/' .. ctk.name, 'prefix'))\n"
    "emit(table.concat(parts, ':'), ' ', tostring(ok), ' ', string.format('%d', #ctk.list), "
    "' ', ctk.n * 2, '\\n')\n";
static const char sweep_want[] =
    "name?cuda toolkit\n"
    "setenv(\"X\", \"cuda toolkit\")\n"
    "setenv X \"cuda toolkit\"\n"
    "prefix=/opt/cuda\\ toolkit\n"
    "A:BB:CCC false 3 42\n";

static ctk_lval_t *sweep_data(void)
{
    ctk_lval_t *d = ctk_lval_map(), *l = ctk_lval_list();

    ck_assert(ctk_lval_push(l, ctk_lval_str("a")));
    ck_assert(ctk_lval_push(l, ctk_lval_str("bb")));
    ck_assert(ctk_lval_push(l, ctk_lval_str("ccc")));
    ck_assert(ctk_lval_set(d, "name", ctk_lval_str("cuda toolkit")));
    ck_assert(ctk_lval_set(d, "n", ctk_lval_int(21)));
    ck_assert(ctk_lval_set(d, "list", l));
    return d;
}

START_TEST(test_luahost_memory_cap_is_a_limit_not_nomem)
{
    ctk_lua_limits_t lim = { .mem_limit = 4u << 20, .instr_limit = 0 };
    ctk_lua_limits_t tiny = { .mem_limit = 2048, .instr_limit = 0 };
    ctk_lval_t *d = sweep_data();
    ctk_error_t err;
    char *out;

    /* the cap met while running, while building the sandbox and while
     * creating the state */
    ck_assert_ptr_null(run("local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(64) .. i end",
                           d, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.text, "memory limit exhausted"));
    ck_assert_str_eq(err.source, "t.lua");
    lim.mem_limit = 12u << 10;
    ck_assert_ptr_null(run(sweep_chunk, d, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_str_eq(err.text, "memory limit exhausted while preparing the sandbox");
    ck_assert_ptr_null(run(sweep_chunk, d, &tiny, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_str_eq(err.text, "memory limit exhausted while creating the sandbox");
    /* and under a cap it does not reach, the chunk runs */
    lim.mem_limit = 4u << 20;
    out = run(sweep_chunk, d, &lim, &err);
    ck_assert_msg(out != NULL, "%s", err.text);
    ck_assert_str_eq(out, sweep_want);
    free(out);
    ctk_lval_free(d);
}
END_TEST

#ifdef TU_HAVE_FAILING_MALLOC
static ctk_lval_t *sweep_tree;

static void *op_render(ctk_error_t *err)
{
    ctk_lua_limits_t lim = { .mem_limit = 4u << 20, .instr_limit = 0 };
    size_t len;

    return ctk_lua_render("sweep.lua", sweep_chunk, strlen(sweep_chunk), sweep_tree, &lim, &len,
                          err);
}

static void release_render(void *p)
{
    ck_assert_str_eq(p, sweep_want);
    free(p);
}

/* building a tree: the builders' own failures, reported by the caller */
static void *op_lval(ctk_error_t *err)
{
    ctk_lval_t *d = ctk_lval_map(), *l = ctk_lval_list();
    bool ok = true;
    int i;

    for (i = 0; i < 12; i++)
        ok = ctk_lval_push(l, ctk_lval_int(i)) && ok;
    ok = ctk_lval_set(d, "list", l) && ok;
    ok = ctk_lval_set(d, "name", ctk_lval_str("cuda")) && ok;
    ok = ctk_lval_set(d, "on", ctk_lval_bool(true)) && ok;
    ok = ctk_lval_set(d, "none", ctk_lval_str(NULL)) && ok;
    if (!ok || !d) {
        ctk_lval_free(d);
        ctk_error_nomem(err);
        return NULL;
    }
    return d;
}

static void release_lval(void *p)
{
    ctk_lval_free(p);
}

/* host functions: a string returned to Lua, a value passed out of it */
static bool host_get(void *ud, const ctk_lua_call_t *call, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    ctk_lua_val_t v;

    (void)ud;
    ctk_lua_call_arg(call, 1, &v);
    if (v.type != CTK_LUA_STRING) {
        ctk_error_set(err, CTK_E_TEMPLATE, NULL, 0, 0, "get: want a string");
        return false;
    }
    if (!ctk_lua_ret_str(ret, "/opt/cuda/bin", 13)) {
        ctk_error_nomem(err);
        return false;
    }
    return true;
}

static bool host_put(void *ud, const ctk_lua_call_t *call, ctk_lua_ret_t *ret, ctk_error_t *err)
{
    ctk_lua_val_t v;

    (void)ret;
    (void)err;
    ctk_lua_call_arg(call, 1, &v);
    *(double *)ud = v.is_num ? v.num : -1;
    return true;
}

static double put_seen;

static void *op_run(ctk_error_t *err)
{
    static const ctk_lua_reg_t fns[] = {
        { "os.getenv", host_get }, { "put", host_put }, { NULL, NULL }
    };
    static const char src[] =
        "total = 0\n"
        "for w in os.getenv('PATH'):gmatch('[^/]+') do total = total + #w end\n"
        "local ok = pcall(put, total * 10)\n"
        "put(ok and total or -2)\n";

    put_seen = 0;
    return ctk_lua_run("sweep.lua", src, strlen(src), fns, &put_seen, CTK_LUA_ALLOW_GLOBALS, NULL,
                       err)
               ? &put_seen
               : NULL;
}

static void release_run(void *p)
{
    ck_assert(*(double *)p == 10.0); /* opt + cuda + bin */
}
#endif

START_TEST(test_luahost_out_of_memory_is_nomem_and_leaks_nothing)
{
#ifdef TU_HAVE_FAILING_MALLOC
    long n;

    sweep_tree = sweep_data();
    n = tu_alloc_sweep("ctk_lua_render", op_render, release_render);
    fprintf(stderr, "check_luahost: ctk_lua_render: %ld allocations, each failed in turn\n", n);
    ck_assert_int_gt(n, 200);
    ctk_lval_free(sweep_tree);
    n = tu_alloc_sweep("ctk_lua_run", op_run, release_run);
    fprintf(stderr, "check_luahost: ctk_lua_run: %ld allocations, each failed in turn\n", n);
    ck_assert_int_gt(n, 200);
    n = tu_alloc_sweep("ctk_lval_*", op_lval, release_lval);
    fprintf(stderr, "check_luahost: ctk_lval_*: %ld allocations, each failed in turn\n", n);
    ck_assert_int_gt(n, 10);
#endif
}
END_TEST

/* The chunks ctk_lua_plain_calls() accepts without a compiler: each one
 * it accepts, Lua loads; what it refuses is left to the compiler, which
 * still answers (the renderer's check of a module gives the same verdict
 * either way). */
static const struct {
    const char *src;
    bool plain; /* accepted by its grammar alone */
    bool loads; /* what Lua says */
} plain_cases[] = {
    { "-- -*- lua -*-\nwhatis(\"Name: x\")\nhelp(\"a\\nb\\\\c\\\"d\\t\\r\\009\\255\")\n", true, true },
    { "prepend_path(\"PATH\", \"/opt/x\")\nappend_path(\"MANPATH\", \"\")\n", true, true },
    { "family ( \"cuda\" ) f()\n\n\t-- end\n", true, true },
    { "", true, true },
    { "x = 1\n", false, true },                     /* not a call: the compiler's */
    { "--[[ long\ncomment ]]\nf(\"a\")\n", false, true },
    { "f('single')\n", false, true },
    { "f(\"\\x41\")\n", false, true },
    { "end(\"x\")\n", false, false },               /* a keyword is no name */
    { "f(\"a\\256\")\n", false, false },            /* decimal escape too large */
    { "f(\"a\\q\")\n", false, false },              /* invalid escape */
    { "f(\"open\n\")\n", false, false },            /* line break in a string */
    { "f(\"a\" \"b\")\n", false, false },
    { "f(\"a\",)\n", false, false },
    { "f(\"a\"\n", false, false },
    { "f(\"a\") )\n", false, false },
    { "#!/bin/lua\nf()\n", false, false },
    { "f(\"caf\xc3\xa9\")\n\xc3\xa9()\n", false, false }, /* not an ASCII name */
};

START_TEST(test_luahost_plain_calls_only_where_lua_loads)
{
    const char *src = plain_cases[_i].src;
    ctk_error_t err;
    bool loads;

    ctk_error_init(&err);
    loads = ctk_lua_check_syntax("case", src, strlen(src), &err);
    ck_assert_msg(loads == plain_cases[_i].loads, "case %d: Lua says %d (%s)", _i, loads, err.text);
    ck_assert_msg(ctk_lua_plain_calls(src, strlen(src)) == plain_cases[_i].plain, "case %d", _i);
    if (plain_cases[_i].plain)
        ck_assert(loads);
}
END_TEST

/* A module of calls whose arguments are any bytes ctk_quote_lua() quotes
 * is plain, and loads. */
START_TEST(test_luahost_plain_calls_take_every_quoted_byte)
{
    char raw[256], *q, *src;
    ctk_error_t err;
    int c;

    for (c = 1; c < 256; c++)
        raw[c - 1] = (char)c;
    raw[255] = '\0';
    ctk_error_init(&err);
    q = ctk_quote_lua(raw, "bytes", &err);
    ck_assert_ptr_nonnull(q);
    ck_assert_int_gt(asprintf(&src, "-- all bytes\nsetenv(\"X\", %s)\n", q), 0);
    ck_assert(ctk_lua_plain_calls(src, strlen(src)));
    ck_assert(ctk_lua_check_syntax("bytes", src, strlen(src), &err));
    free(src);
    free(q);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("luahost");
    TCase *tc = tcase_create("luahost");

    unlink("/tmp/ctkgen-pwned");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_luahost_emits_text_and_reads_data);
    tcase_add_test(tc, test_luahost_renderer_renders_do_not_meet);
    tcase_add_test(tc, test_luahost_renderer_recompiles_changed_source);
    tcase_add_test(tc, test_luahost_renderer_field);
    tcase_add_test(tc, test_luahost_renderer_new_data_of_another_shape);
    tcase_add_test(tc, test_luahost_renderer_limits_are_per_render);
    tcase_add_loop_test(tc, test_luahost_blocks_escape, 0, sizeof escapes / sizeof escapes[0]);
    tcase_add_test(tc, test_luahost_instruction_budget_stops_loops);
    tcase_add_test(tc, test_luahost_memory_cap_stops_bombs);
    tcase_add_loop_test(tc, test_luahost_work_the_hook_cannot_see_is_bounded, 0,
                        sizeof unseen_work / sizeof unseen_work[0]);
    tcase_add_test(tc, test_luahost_metered_functions_behave_as_lua);
    tcase_add_test(tc, test_luahost_deep_recursion_is_an_error);
    tcase_add_test(tc, test_luahost_reports_syntax_error_line);
    tcase_add_test(tc, test_luahost_refuses_binary_chunks);
    tcase_add_loop_test(tc, test_luahost_plain_calls_only_where_lua_loads, 0,
                        (int)(sizeof plain_cases / sizeof plain_cases[0]));
    tcase_add_test(tc, test_luahost_plain_calls_take_every_quoted_byte);
    tcase_add_test(tc, test_luahost_comment_neutralises_line_breaks);
    tcase_add_test(tc, test_luahost_quote_failure_is_quote_error);
    tcase_add_test(tc, test_luahost_memory_cap_is_a_limit_not_nomem);
    if (tu_alloc_sweeps_possible("check_luahost"))
        tcase_add_test(tc, test_luahost_out_of_memory_is_nomem_and_leaks_nothing);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
