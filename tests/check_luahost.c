/* check_luahost.c - the Lua sandbox: whitelist, limits, read-only data.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "luahost.h"
#include "testutil.h"

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
    ctk_lua_limits_t lim = { 0, 1000000 };
    ctk_error_t err;

    ck_assert_ptr_null(run("while true do end", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.text, "instruction budget"));
    /* pcall cannot swallow the limit */
    ck_assert_ptr_null(run("while true do pcall(function() while true do end end) end",
                           NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
}
END_TEST

START_TEST(test_luahost_memory_cap_stops_bombs)
{
    ctk_lua_limits_t lim = { 4u << 20, 0 };
    ctk_error_t err;

    ck_assert_ptr_null(run("local s = string.rep('x', 64 * 1024 * 1024) emit(#s)", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_nonnull(strstr(err.text, "memory"));
    ck_assert_ptr_null(run("local t = {} for i = 1, 1e9 do t[i] = i end", NULL, &lim, &err));
    ck_assert_int_eq(err.code, CTK_E_LIMIT);
    ck_assert_ptr_null(run("local ok = pcall(string.rep, 'x', 1 << 30) emit(tostring(ok))", NULL,
                           &lim, &err));
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

int main(void)
{
    Suite *s = suite_create("luahost");
    TCase *tc = tcase_create("luahost");

    unlink("/tmp/ctkgen-pwned");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_luahost_emits_text_and_reads_data);
    tcase_add_loop_test(tc, test_luahost_blocks_escape, 0, sizeof escapes / sizeof escapes[0]);
    tcase_add_test(tc, test_luahost_instruction_budget_stops_loops);
    tcase_add_test(tc, test_luahost_memory_cap_stops_bombs);
    tcase_add_test(tc, test_luahost_deep_recursion_is_an_error);
    tcase_add_test(tc, test_luahost_reports_syntax_error_line);
    tcase_add_test(tc, test_luahost_refuses_binary_chunks);
    tcase_add_test(tc, test_luahost_comment_neutralises_line_breaks);
    tcase_add_test(tc, test_luahost_quote_failure_is_quote_error);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
