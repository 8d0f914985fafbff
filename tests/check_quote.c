/* check_quote.c - quoting for Lua, Tcl and pkg-config reads back exactly.
 * SPDX-License-Identifier: MIT
 *
 * Each hostile string is quoted, then read back by the real reader: the
 * embedded Lua 5.4, tclsh, and the pkgconf CLI (through sh's eval, as a
 * Makefile's $(shell) user would see it).
 */
#include <ctkconf.h>

#include "luahost.h"
#include "quote.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const hostile[] = {
    "/usr/local/cuda-12.4",
    "/opt/with space/cuda",
    "/opt/quote\"d/cuda",
    "/opt/single'q/cuda",
    "/opt/dollar$HOME/cuda",
    "/opt/sub$(touch /tmp/ctkgen-pwned)/cuda",
    "/opt/back`touch /tmp/ctkgen-pwned`tick",
    "/opt/brackets[exec touch /tmp/ctkgen-pwned]/x",
    "/opt/braces{a}b}/x{",
    "/opt/back\\slash\\",
    "/opt/lua]]long[[string]=]",
    "/opt/x\"); os.execute(\"touch /tmp/ctkgen-pwned\") --",
    "/opt/percent%s%d/x",
    "/opt/hash#not-a-comment",
    "/opt/unicod\xc3\xa9/\xe6\x97\xa5\xe6\x9c\xac",
    "/opt/semi;colon&amp|pipe<>",
};
#define N_HOSTILE (sizeof hostile / sizeof hostile[0])

START_TEST(test_quote_lua_reads_back_exactly)
{
    const char *s = hostile[_i];
    ctk_error_t err;
    char *q, *chunk, *out;
    size_t len = 0;

    ctk_error_init(&err);
    q = ctk_quote_lua(s, "test", &err);
    ck_assert_ptr_nonnull(q);
    ck_assert_int_eq(asprintf(&chunk, "emit(%s)", q), (int)strlen(q) + 6);
    out = ctk_lua_render("quote", chunk, strlen(chunk), NULL, NULL, &len, &err);
    ck_assert_msg(out != NULL, "%s", err.text);
    ck_assert_uint_eq(len, strlen(s));
    ck_assert_str_eq(out, s);
    free(out);
    free(chunk);
    free(q);
}
END_TEST

START_TEST(test_quote_lua_escapes_newline_and_controls)
{
    ctk_error_t err;
    char *q, *chunk = NULL, *out;
    const char *s = "line1\nline2\ttab\001x9";
    size_t len = 0;

    ctk_error_init(&err);
    q = ctk_quote_lua(s, NULL, &err);
    ck_assert_ptr_nonnull(q);
    ck_assert_ptr_null(strchr(q, '\n'));
    ck_assert(asprintf(&chunk, "emit(%s)", q) > 0);
    out = ctk_lua_render("quote", chunk, strlen(chunk), NULL, NULL, &len, &err);
    ck_assert_msg(out != NULL, "%s", err.text);
    ck_assert_str_eq(out, s);
    free(out);
    free(chunk);
    free(q);
}
END_TEST

START_TEST(test_quote_tcl_reads_back_exactly)
{
    const char *s = hostile[_i];
    ctk_error_t err;
    char *q, *dir = tu_mkdtemp(), *script, *cmd = NULL, *outpath, *out;
    FILE *f;

    ctk_error_init(&err);
    q = ctk_quote_tcl(s, "test", &err);
    ck_assert_ptr_nonnull(q);
    ck_assert(asprintf(&script, "%s/t.tcl", dir) > 0);
    ck_assert(asprintf(&outpath, "%s/out", dir) > 0);
    f = fopen(script, "wb");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "fconfigure stdout -translation binary -encoding binary\n"
               "set v %s\nputs -nonewline [encoding convertto utf-8 $v]\n", q);
    fclose(f);
    ck_assert_int_eq(tu_sh("tclsh -encoding utf-8 '%s' > '%s'", script, outpath), 0);
    out = tu_read(outpath);
    ck_assert_str_eq(out, s);
    ck_assert_int_ne(access("/tmp/ctkgen-pwned", F_OK), 0);
    free(out);
    free(cmd);
    free(outpath);
    free(script);
    free(q);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* Split pkgconf's output the way pkgconf escapes it: arguments end at an
 * unescaped blank, a backslash takes the next byte literally. */
static int split_pkgconf(const char *out, char args[][4096], int max)
{
    int n = 0;
    size_t k = 0;
    bool in_arg = false;
    const char *p;

    for (p = out; *p; p++) {
        if (*p == ' ' || *p == '\n' || *p == '\t') {
            if (in_arg && n < max)
                args[n++][k] = '\0';
            in_arg = false;
            k = 0;
            continue;
        }
        if (*p == '\\' && p[1])
            p++;
        if (n < max && k < 4095)
            args[n][k++] = *p;
        in_arg = true;
    }
    if (in_arg && n < max)
        args[n++][k] = '\0';
    return n;
}

/* What `pkgconf --cflags` prints for a .pc file in a fresh directory whose
 * Cflags are -I${dir}, with dir set to the quoted value q (caller frees). */
static char *pkgconf_cflags_of(const char *q)
{
    char *dir = tu_mkdtemp(), *pc, *text = NULL, *outpath = NULL, *out;

    ck_assert(asprintf(&text, "dir=%s\nName: t\nDescription: t\nVersion: 1\nCflags: -I${dir}\n", q) > 0);
    pc = tu_write(dir, "t.pc", text);
    ck_assert(asprintf(&outpath, "%s/out", dir) > 0);
    ck_assert_int_eq(tu_sh("cd '%s' && PKG_CONFIG_PATH=. pkgconf --cflags t > '%s'", dir, outpath), 0);
    out = tu_read(outpath);
    ck_assert_ptr_nonnull(out);
    free(outpath);
    free(pc);
    free(text);
    tu_rmtree(dir);
    free(dir);
    return out;
}

START_TEST(test_quote_pc_reads_back_through_pkgconf)
{
    static char args[4][4096];
    const char *s = hostile[_i];
    ctk_error_t err;
    char *q, *out;

    ctk_error_init(&err);
    q = ctk_quote_pc(s, "test", &err);
    ck_assert_msg(q != NULL, "%s", err.text);
    out = pkgconf_cflags_of(q);
    ck_assert_int_eq(split_pkgconf(out, args, 4), 1);
    ck_assert_str_eq(args[0] + 2, s);
    ck_assert_int_ne(access("/tmp/ctkgen-pwned", F_OK), 0);
    free(out);
    free(q);
}
END_TEST

START_TEST(test_quote_refuses_what_formats_cannot_express)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_quote_pc("/opt/a\nb", "/sdks/0/base", &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_ptr_nonnull(strstr(err.text, "/sdks/0/base"));
    ck_assert_ptr_nonnull(strstr(err.text, "newline"));

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_quote_pc("/opt/${prefix}/x", "p", &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_ptr_nonnull(strstr(err.text, "${"));

    /* found by tests/fuzz/fuzz_quote.c: pkgconf trims a final blank */
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_quote_pc("/opt/cuda ", "p", &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_ptr_nonnull(strstr(err.text, "blank at the end"));

    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_quote_tcl("/opt/a\001b", "p", &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);

    ctk_error_init(&err);
    ck_assert(!ctk_quote_check_pathvar("/opt/a:b", "CPATH entry", &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_ptr_nonnull(strstr(err.text, "':'"));

    ctk_error_init(&err);
    ck_assert(!ctk_quote_check_pathvar("/opt/a\nb", "x", &err));
    ck_assert(ctk_quote_check_pathvar("/opt/a b$[x]", "x", NULL));
}
END_TEST

/* Found by tests/hostile.sh: pkgconf 1.8 keeps PATH_MAX + 1024 - 1 bytes
 * after an argument's first two characters and drops the rest without a
 * word, which cut the run path of three long toolkit paths.  An argument
 * of CTK_QUOTE_PC_ARG_MAX bytes comes back whole; one more byte is
 * refused. */
START_TEST(test_quote_pc_refuses_what_pkgconf_would_cut)
{
    const size_t max = CTK_QUOTE_PC_ARG_MAX;
    ctk_error_t err;
    char *s = malloc(max + 2), *q, *out;
    size_t n;

    ck_assert_ptr_nonnull(s);
    memset(s, 'a', max + 1);
    s[0] = '/';
    s[max + 1] = '\0';
    ctk_error_init(&err);
    ck_assert_ptr_null(ctk_quote_pc(s, "SDK x: the run path", &err));
    ck_assert_int_eq(err.code, CTK_E_QUOTE);
    ck_assert_ptr_nonnull(strstr(err.text, "SDK x: the run path"));
    ck_assert_ptr_nonnull(strstr(err.text, "bytes"));

    /* "-I" and max - 2 bytes: exactly max, read back by pkgconf */
    s[max - 2] = '\0';
    ctk_error_init(&err);
    q = ctk_quote_pc(s, "p", &err);
    ck_assert_msg(q != NULL, "%s", err.text);
    out = pkgconf_cflags_of(q);
    n = strlen(out);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = '\0';
    ck_assert_uint_eq(n, max);
    ck_assert(strncmp(out, "-I", 2) == 0);
    ck_assert_str_eq(out + 2, s);
    free(out);
    free(q);
    free(s);
}
END_TEST

/* The _into forms write what the plain ones return, as snprintf() does:
 * the whole length is told even where the room cuts the text short, and
 * the room always ends in a NUL; a refusal writes nothing. */
START_TEST(test_quote_into_writes_as_snprintf)
{
    static const ctk_quote_into_t into[] = { ctk_quote_lua_into, ctk_quote_tcl_into,
                                             ctk_quote_pc_into };
    static char *(*const plain[])(const char *, const char *, ctk_error_t *) = {
        ctk_quote_lua, ctk_quote_tcl, ctk_quote_pc };
    const char *s = hostile[_i];
    size_t k;

    for (k = 0; k < 3; k++) {
        ctk_error_t err;
        char *want, room[8], full[512];
        size_t need = 0, need_small = 0;

        ctk_error_init(&err);
        want = plain[k](s, "v", &err);
        ck_assert_msg(want != NULL, "%s", err.text);
        ck_assert(into[k](s, "v", full, sizeof full, &need, &err));
        ck_assert_uint_eq(need, strlen(want));
        ck_assert_str_eq(full, want);
        memset(room, 'x', sizeof room);
        ck_assert(into[k](s, "v", room, sizeof room, &need_small, &err));
        ck_assert_uint_eq(need_small, need);
        ck_assert_int_eq(room[sizeof room - 1], '\0');
        ck_assert(strncmp(room, want, sizeof room - 1) == 0);
        ck_assert(into[k](s, "v", NULL, 0, &need_small, &err));
        ck_assert_uint_eq(need_small, need);
        free(want);
    }
    {
        ctk_error_t err;
        char room[64] = "untouched";
        size_t need = 7;

        ctk_error_init(&err);
        ck_assert(!ctk_quote_tcl_into("/opt/a\x01b", "v", room, sizeof room, &need, &err));
        ck_assert_int_eq(err.code, CTK_E_QUOTE);
        ck_assert_str_eq(room, "untouched");
        ck_assert_uint_eq(need, 7);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("quote");
    TCase *tc = tcase_create("quote");

    unlink("/tmp/ctkgen-pwned");
    tcase_add_loop_test(tc, test_quote_lua_reads_back_exactly, 0, N_HOSTILE);
    tcase_add_test(tc, test_quote_lua_escapes_newline_and_controls);
    tcase_add_loop_test(tc, test_quote_tcl_reads_back_exactly, 0, N_HOSTILE);
    tcase_add_loop_test(tc, test_quote_pc_reads_back_through_pkgconf, 0, N_HOSTILE);
    tcase_add_test(tc, test_quote_refuses_what_formats_cannot_express);
    tcase_add_test(tc, test_quote_pc_refuses_what_pkgconf_would_cut);
    tcase_add_loop_test(tc, test_quote_into_writes_as_snprintf, 0, N_HOSTILE);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
