/* check_util.c - strings, buffers, lists and file helpers.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "testutil.h"
#include "util.h"

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(test_util_path_join_normalises_slashes)
{
    static const char *const cases[][3] = {
        { "/a", "b", "/a/b" },       { "/a/", "b", "/a/b" },   { "/a//", "/b", "/a/b" },
        { "/", "b", "/b" },          { "/a", "", "/a" },       { "rel", "x/y", "rel/x/y" },
    };
    char *p = ctk_path_join(cases[_i][0], cases[_i][1], NULL);

    ck_assert_str_eq(p, cases[_i][2]);
    free(p);
}
END_TEST

START_TEST(test_util_buf_grows_and_takes)
{
    ctk_buf_t b;
    char *s;
    size_t len, i;

    ctk_buf_init(&b);
    for (i = 0; i < 1000; i++)
        ck_assert(ctk_buf_printf(&b, "%zu,", i));
    s = ctk_buf_take(&b, &len);
    ck_assert_uint_eq(len, strlen(s));
    ck_assert(strncmp(s, "0,1,2,", 6) == 0);
    ck_assert_ptr_nonnull(strstr(s, "999,"));
    ck_assert_ptr_null(b.data);
    free(s);
}
END_TEST

START_TEST(test_util_edit_distance)
{
    ck_assert_uint_eq(ctk_edit_distance("base", "base"), 0);
    ck_assert_uint_eq(ctk_edit_distance("bsae", "base"), 1);      /* a swap is one edit */
    ck_assert_uint_eq(ctk_edit_distance("lmod.lau", "lmod.lua"), 1);
    ck_assert_uint_eq(ctk_edit_distance("mathlibs", "math_libs"), 1);
    ck_assert_uint_eq(ctk_edit_distance("", "abc"), 3);
    ck_assert_uint_eq(ctk_edit_distance("kitten", "sitting"), 3);
    ck_assert_uint_eq(ctk_edit_distance(
        "a123456789012345678901234567890123456789012345678901234567890123", "a"), SIZE_MAX);
}
END_TEST

START_TEST(test_util_strlist_push_and_contains)
{
    ctk_strlist_t l;

    ctk_strlist_init(&l);
    ck_assert(ctk_strlist_push(&l, "a", NULL));
    ck_assert(ctk_strlist_take(&l, strdup("b"), NULL));
    ck_assert_uint_eq(l.len, 2);
    ck_assert(ctk_strlist_contains(&l, "b"));
    ck_assert(!ctk_strlist_contains(&l, "c"));
    ctk_strlist_fini(&l);
    ctk_strlist_fini(NULL);
}
END_TEST

START_TEST(test_util_file_read_limits_and_errors)
{
    char *dir = tu_mkdtemp(), *path = tu_write(dir, "f", "hello"), *missing = NULL;
    ctk_error_t err;
    size_t len = 0;
    char *s;

    ctk_error_init(&err);
    s = ctk_file_read(path, 100, &len, &err);
    ck_assert_str_eq(s, "hello");
    ck_assert_uint_eq(len, 5);
    free(s);
    ck_assert_ptr_null(ctk_file_read(path, 3, &len, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert_str_eq(err.source, path);
    ctk_error_init(&err);
    ck_assert(asprintf(&missing, "%s/none", dir) > 0);
    ck_assert_ptr_null(ctk_file_read(missing, 100, &len, &err));
    ck_assert_int_eq(err.code, CTK_E_IO);
    ck_assert(ctk_is_dir(dir) && !ctk_is_dir(path) && ctk_is_file(path) && !ctk_is_executable(path));
    free(missing);
    free(path);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_util_first_error_wins)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_error_set(&err, CTK_E_CONFIG, "a.json", 3, 4, "first %d", 1);
    ctk_error_set(&err, CTK_E_IO, "b", 1, 1, "second");
    ck_assert_int_eq(err.code, CTK_E_CONFIG);
    ck_assert_str_eq(err.text, "first 1");
    ck_assert_int_eq(ctk_error_exit_code(&err), CTK_EXIT_INPUT);
    ctk_error_set(NULL, CTK_E_IO, NULL, 0, 0, "ignored");
}
END_TEST

START_TEST(test_util_same_file_is_identity_not_spelling)
{
    char *dir = tu_scratch();
    char *a = tu_keep(tu_write(dir, "a/lib.so", "x")), *copy = tu_keep(tu_write(dir, "c/lib.so", "x"));
    char *sym = tu_str("%s/s/lib.so", dir), *hard = tu_str("%s/h/lib.so", dir), *chain = tu_str("%s/s2", dir);

    tu_keep(tu_mkdirs(dir, "s"));
    tu_keep(tu_mkdirs(dir, "h"));
    ck_assert_int_eq(symlink(a, sym), 0);
    ck_assert_int_eq(link(a, hard), 0);
    ck_assert_int_eq(symlink("s/lib.so", chain), 0);
    ck_assert(ctk_same_file(a, a));
    ck_assert(ctk_same_file(sym, a));        /* a tree of symlinks: the same library */
    ck_assert(ctk_same_file(a, hard));       /* a hard-link copy: the same library */
    ck_assert(ctk_same_file(chain, hard));
    ck_assert(!ctk_same_file(a, copy));      /* equal bytes, another file */
    ck_assert(!ctk_same_file(a, tu_str("%s/missing", dir)));
    ck_assert(!ctk_same_file(tu_str("%s/missing", dir), tu_str("%s/missing", dir)));
    tu_scratch_end(&dir);
}
END_TEST

START_TEST(test_util_hash_is_stable)
{
    char h1[17], h2[17], h3[17];

    ctk_hash_hex("abc", 3, h1);
    ctk_hash_hex("abc", 3, h2);
    ctk_hash_hex("abd", 3, h3);
    ck_assert_str_eq(h1, h2);
    ck_assert_str_ne(h1, h3);
    ck_assert_str_eq(h1, "e71fa2190541574b"); /* FNV-1a 64 of "abc" */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");

    tcase_add_loop_test(tc, test_util_path_join_normalises_slashes, 0, 6);
    tcase_add_test(tc, test_util_buf_grows_and_takes);
    tcase_add_test(tc, test_util_strlist_push_and_contains);
    tcase_add_test(tc, test_util_edit_distance);
    tcase_add_test(tc, test_util_file_read_limits_and_errors);
    tcase_add_test(tc, test_util_first_error_wins);
    tcase_add_test(tc, test_util_hash_is_stable);
    tcase_add_test(tc, test_util_same_file_is_identity_not_spelling);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
