/* check_env.c - environments: set/get order, envp views, env -0 parsing, diffs, PATH search.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "env.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

START_TEST(test_env_set_replaces_in_place_and_unsets)
{
    ctk_env_t e;
    ctk_error_t err;
    const char *const *envp;

    ctk_env_init(&e);
    ctk_error_init(&err);
    ck_assert(ctk_env_set(&e, "A", "1", &err));
    ck_assert(ctk_env_set(&e, "B", "x=y", &err));
    ck_assert(ctk_env_set(&e, "C", "", &err));
    ck_assert(ctk_env_set(&e, "A", "2", &err));
    ck_assert_str_eq(ctk_env_get(&e, "A"), "2");
    ck_assert_str_eq(ctk_env_get(&e, "B"), "x=y");
    ck_assert_str_eq(ctk_env_get(&e, "C"), "");
    ck_assert_ptr_null(ctk_env_get(&e, "AB"));
    ck_assert_ptr_null(ctk_env_get(&e, ""));
    envp = ctk_env_envp(&e, &err);
    ck_assert_str_eq(envp[0], "A=2"); /* first appearance keeps its place */
    ck_assert_str_eq(envp[1], "B=x=y");
    ck_assert_str_eq(envp[2], "C=");
    ck_assert_ptr_null(envp[3]);
    ck_assert(ctk_env_set(&e, "A", NULL, &err));
    ck_assert(ctk_env_set(&e, "missing", NULL, &err));
    envp = ctk_env_envp(&e, &err);
    ck_assert_str_eq(envp[0], "B=x=y");
    ck_assert_str_eq(envp[1], "C=");
    ck_assert_ptr_null(envp[2]);
    ck_assert(!ctk_error_is_set(&err));
    ctk_env_fini(&e);
    ctk_env_fini(NULL);
}
END_TEST

START_TEST(test_env_rejects_bad_names)
{
    static const char *const bad[] = { "", "A=B", "=" };
    ctk_env_t e;
    ctk_error_t err;

    ctk_env_init(&e);
    ctk_error_init(&err);
    ck_assert(!ctk_env_set(&e, bad[_i], "v", &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ck_assert_uint_eq(e.kv.len, 0);
    ctk_env_fini(&e);
}
END_TEST

START_TEST(test_env_envp_of_empty_env_is_terminated)
{
    ctk_env_t e;
    const char *const *envp;

    ctk_env_init(&e);
    envp = ctk_env_envp(&e, NULL);
    ck_assert_ptr_nonnull(envp);
    ck_assert_ptr_null(envp[0]);
    ctk_env_fini(&e);
}
END_TEST

START_TEST(test_env_copy_is_deep_and_replaces)
{
    ctk_env_t a, b;

    ctk_env_init(&a);
    ctk_env_init(&b);
    ck_assert(ctk_env_set(&a, "X", "1", NULL));
    ck_assert(ctk_env_set(&b, "OLD", "1", NULL));
    ck_assert(ctk_env_copy(&b, &a, NULL));
    ck_assert_ptr_null(ctk_env_get(&b, "OLD"));
    ck_assert(ctk_env_set(&a, "X", "2", NULL));
    ck_assert_str_eq(ctk_env_get(&b, "X"), "1");
    ck_assert(ctk_env_copy(&b, &b, NULL));
    ck_assert_str_eq(ctk_env_get(&b, "X"), "1");
    ctk_env_fini(&a);
    ctk_env_fini(&b);
}
END_TEST

START_TEST(test_env_parse_nul_as_env_prints_it)
{
    static const char block[] = "A=1\0B=two words\nline\0noequals\0=anon\0C=\0A=3";
    ctk_env_t e;
    ctk_error_t err;
    const char *const *envp;

    ctk_env_init(&e);
    ctk_error_init(&err);
    ck_assert(ctk_env_set(&e, "STALE", "1", &err));
    /* no final NUL: the last entry still counts */
    ck_assert(ctk_env_parse_nul(&e, block, sizeof block - 1, &err));
    ck_assert_ptr_null(ctk_env_get(&e, "STALE"));
    ck_assert_uint_eq(e.kv.len, 3);
    envp = ctk_env_envp(&e, &err);
    ck_assert_str_eq(envp[0], "A=3");
    ck_assert_str_eq(envp[1], "B=two words\nline");
    ck_assert_str_eq(envp[2], "C=");
    ck_assert(ctk_env_parse_nul(&e, "", 0, &err));
    ck_assert_uint_eq(e.kv.len, 0);
    ck_assert(!ctk_error_is_set(&err));
    ctk_env_fini(&e);
}
END_TEST

START_TEST(test_env_diff_names_changed_added_and_removed_sorted)
{
    ctk_env_t a, b;
    ctk_strlist_t names;

    ctk_env_init(&a);
    ctk_env_init(&b);
    ctk_strlist_init(&names);
    ck_assert(ctk_env_set(&a, "SAME", "1", NULL) && ctk_env_set(&b, "SAME", "1", NULL));
    ck_assert(ctk_env_set(&a, "Z_CHANGED", "1", NULL) && ctk_env_set(&b, "Z_CHANGED", "2", NULL));
    ck_assert(ctk_env_set(&a, "ONLY_A", "1", NULL));
    ck_assert(ctk_env_set(&b, "B_ONLY", "", NULL));
    ck_assert(ctk_env_diff(&a, &b, &names, NULL));
    ck_assert_uint_eq(names.len, 3);
    ck_assert_str_eq(names.items[0], "B_ONLY");
    ck_assert_str_eq(names.items[1], "ONLY_A");
    ck_assert_str_eq(names.items[2], "Z_CHANGED");
    ctk_strlist_fini(&names);
    ck_assert(ctk_env_diff(&a, &a, &names, NULL));
    ck_assert_uint_eq(names.len, 0);
    ctk_strlist_fini(&names);
    ctk_env_fini(&a);
    ctk_env_fini(&b);
}
END_TEST

START_TEST(test_env_which_searches_the_envs_path)
{
    char *dir = tu_mkdtemp(), *d1 = tu_mkdirs(dir, "d1"), *d2 = tu_mkdirs(dir, "d2");
    char *noexec = tu_write(d1, "tool", "#!/bin/sh\n"), *yes = tu_write(d2, "tool", "#!/bin/sh\n");
    char *path = NULL, *w;
    ctk_env_t e;

    ck_assert_int_eq(chmod(yes, 0755), 0);
    ctk_env_init(&e);
    ck_assert(asprintf(&path, "/nonexistent-ctk:%s:%s", d1, d2) > 0);
    ck_assert(ctk_env_set(&e, "PATH", path, NULL));
    w = ctk_env_which(&e, "tool", NULL);
    ck_assert_str_eq(w, yes); /* skips the non-executable one, as execvp does */
    free(w);
    ck_assert_ptr_null(ctk_env_which(&e, "sh", NULL)); /* ours has it; e's does not */
    w = ctk_env_which(&e, yes, NULL);                 /* a path is taken as is */
    ck_assert_str_eq(w, yes);
    free(w);
    ck_assert_ptr_null(ctk_env_which(&e, noexec, NULL));
    ck_assert_ptr_null(ctk_env_which(&e, "", NULL));
    /* a directory named like the program is not it */
    ck_assert(ctk_env_set(&e, "PATH", dir, NULL));
    ck_assert_ptr_null(ctk_env_which(&e, "d1", NULL));
    /* no PATH at all: execvp's default list */
    ck_assert(ctk_env_set(&e, "PATH", NULL, NULL));
    w = ctk_env_which(&e, "sh", NULL);
    ck_assert_ptr_nonnull(w);
    ck_assert(strcmp(w, "/bin/sh") == 0 || strcmp(w, "/usr/bin/sh") == 0);
    free(w);
    ctk_env_fini(&e);
    free(path);
    free(noexec);
    free(yes);
    free(d1);
    free(d2);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_env_path_search_reports_why_and_honours_cwd)
{
    char *dir = tu_mkdtemp(), *prog = tu_write(dir, "rel/prog", "#!/bin/sh\n");
    char *plain = tu_write(dir, "plain/prog", "x\n"), *w;
    int why = -1;

    ck_assert_int_eq(chmod(prog, 0755), 0);
    /* relative elements and "" (the current directory) are taken from cwd */
    w = ctk_env_path_search("rel", "prog", dir, &why, NULL);
    ck_assert_str_eq(w, "rel/prog");
    ck_assert_int_eq(why, 0);
    free(w);
    w = ctk_env_path_search(":x", "rel/prog", dir, &why, NULL);
    ck_assert_str_eq(w, "rel/prog");
    free(w);
    ck_assert_ptr_null(ctk_env_path_search("rel", "prog", "/", &why, NULL));
    ck_assert_int_eq(why, ENOENT);
    ck_assert_ptr_null(ctk_env_path_search("plain", "prog", dir, &why, NULL));
    ck_assert_int_eq(why, EACCES);
    ck_assert_ptr_null(ctk_env_path_search("/usr/bin", "prog", "/nonexistent-ctk", &why, NULL));
    ck_assert_int_eq(why, ENOENT);
    free(prog);
    free(plain);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("env");
    TCase *tc = tcase_create("env");

    tcase_add_test(tc, test_env_set_replaces_in_place_and_unsets);
    tcase_add_loop_test(tc, test_env_rejects_bad_names, 0, 3);
    tcase_add_test(tc, test_env_envp_of_empty_env_is_terminated);
    tcase_add_test(tc, test_env_copy_is_deep_and_replaces);
    tcase_add_test(tc, test_env_parse_nul_as_env_prints_it);
    tcase_add_test(tc, test_env_diff_names_changed_added_and_removed_sorted);
    tcase_add_test(tc, test_env_which_searches_the_envs_path);
    tcase_add_test(tc, test_env_path_search_reports_why_and_honours_cwd);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
