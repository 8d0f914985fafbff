/* check_trust.c - which programs ctkgen may run: owners and modes up to /, links, #! interpreters.
 * SPDX-License-Identifier: MIT
 *
 * The trees are made in a scratch dir under the build tree, not $TMPDIR:
 * /tmp is world-writable, so nothing below it is ever trusted, and the
 * cases that must pass need a tree only root (or this user) can write.
 * The scratch dir itself must pass (the build tree is this user's); when
 * it does not, those cases are reported and not run.
 */
#include <ctkconf.h>

#include "testutil.h"
#include "trust.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_basedir[4096]; /* a trusted dir the scratch dirs go in, made by main */
static char *g_dir;          /* this test's scratch dir, mode 0755 */

static void setup(void)
{
    char *d = NULL;

    ck_assert(asprintf(&d, "%s/check_trust-XXXXXX", g_basedir) > 0);
    ck_assert_msg(mkdtemp(d) != NULL, "mkdtemp %s: %s", d, strerror(errno));
    ck_assert_int_eq(chmod(d, 0755), 0);
    g_dir = d;
}

static void teardown(void)
{
    tu_free_kept();
    if (g_dir) {
        tu_sh("chmod -R u+rwx '%s' 2>/dev/null", g_dir);
        ctk_remove_tree(g_dir);
    }
    free(g_dir);
    g_dir = NULL;
}

/* A file under the scratch dir with this mode (parent dirs 0755); its path. */
static char *mkfile(const char *rel, const char *text, mode_t mode)
{
    char *p = tu_keep(tu_write(g_dir, rel, text));

    ck_assert_int_eq(chmod(p, mode), 0);
    return p;
}

static char *sub(const char *rel)
{
    return tu_str("%s/%s", g_dir, rel);
}

/* ctk_trust_exec(path) is want; the reason is "" when trusted, else holds every needle. */
static void expect(const char *path, bool want, const char *needle1, const char *needle2)
{
    char why[1024] = "unset";
    bool got = ctk_trust_exec(path, why, sizeof why);

    ck_assert_msg(got == want, "%s: want %s, got %s: %s", path, want ? "trusted" : "untrusted",
                  got ? "trusted" : "untrusted", why);
    if (want) {
        ck_assert_str_eq(why, "");
        return;
    }
    ck_assert_msg(why[0], "%s: no reason given", path);
    ck_assert_msg(!needle1 || strstr(why, needle1), "%s: reason '%s' lacks '%s'", path, why, needle1);
    ck_assert_msg(!needle2 || strstr(why, needle2), "%s: reason '%s' lacks '%s'", path, why, needle2);
}

START_TEST(test_trust_system_shell_is_trusted)
{
    expect("/bin/sh", true, NULL, NULL);
    ck_assert(ctk_trust_exec("/bin/sh", NULL, 0)); /* why may be NULL */
}
END_TEST

START_TEST(test_trust_a_program_in_a_tree_only_root_writes)
{
    char *p = mkfile("cuda/bin/nvcc", "\177ELF", 0755);

    expect(p, true, NULL, NULL);
    /* spellings with "//", "." and a trailing "/" on a directory mean the same */
    expect(tu_str("%s//cuda/./bin/nvcc", g_dir), true, NULL, NULL);
    expect(tu_str("%s/cuda/bin/", g_dir), true, NULL, NULL);
}
END_TEST

START_TEST(test_trust_refuses_a_world_writable_sticky_dir_above)
{
    char *p = mkfile("tmp/cuda/bin/nvcc", "\177ELF", 0755);

    ck_assert_int_eq(chmod(sub("tmp"), 01777), 0);
    expect(p, false, tu_str("%s is writable by others", sub("tmp")), "mode 1777");
}
END_TEST

START_TEST(test_trust_refuses_a_group_writable_dir_above)
{
    char *p = mkfile("grp/cuda/bin/nvcc", "\177ELF", 0755);

    ck_assert_int_eq(chmod(sub("grp/cuda"), 02775), 0);
    expect(p, false, tu_str("%s is writable by its group gid", sub("grp/cuda")), "mode 2775");
}
END_TEST

START_TEST(test_trust_refuses_a_writable_program)
{
    expect(mkfile("g/nvcc", "\177ELF", 0775), false, "is writable by its group", "mode 0775");
    expect(mkfile("o/nvcc", "\177ELF", 0757), false, tu_str("%s is writable by others", sub("o/nvcc")),
           "mode 0757");
}
END_TEST

START_TEST(test_trust_refuses_what_another_user_owns)
{
    char *p = mkfile("home/u/fake/bin/nvcc", "\177ELF", 0755);

    if (geteuid() != 0) {
        fprintf(stderr, "SKIP: test_trust_refuses_what_another_user_owns needs root (chown)\n");
        return;
    }
    /* the program itself */
    ck_assert_int_eq(chown(p, 65534, 65534), 0);
    expect(p, false, tu_str("%s is owned by uid 65534", p), "not root: mode 0755");
    /* a directory above it, the program root's */
    ck_assert_int_eq(chown(p, 0, 0), 0);
    ck_assert_int_eq(chown(sub("home/u"), 65534, 65534), 0);
    expect(p, false, tu_str("%s is owned by uid 65534", sub("home/u")), "mode 0755");
}
END_TEST

START_TEST(test_trust_checks_where_a_link_leads)
{
    char *target = mkfile("user/nvcc", "\177ELF", 0755), *link = sub("cuda/bin/nvcc");

    tu_keep(tu_mkdirs(g_dir, "cuda/bin"));
    ck_assert_int_eq(symlink(target, link), 0);
    expect(link, true, NULL, NULL);
    /* the spelling is root's and fine, the target's dir is not */
    ck_assert_int_eq(chmod(sub("user"), 0777), 0);
    expect(link, false, tu_str("%s is writable by others", sub("user")), tu_str("(where %s leads)", link));
    /* a link to a directory in the middle of the path */
    ck_assert_int_eq(chmod(sub("user"), 0755), 0);
    ck_assert_int_eq(symlink(sub("user"), sub("view")), 0);
    expect(sub("view/nvcc"), true, NULL, NULL);
    ck_assert_int_eq(chmod(sub("user"), 0775), 0);
    expect(sub("view/nvcc"), false, tu_str("%s is writable by its group", sub("user")), "leads");
}
END_TEST

START_TEST(test_trust_refuses_a_link_another_user_owns)
{
    char *target = mkfile("real/nvcc", "\177ELF", 0755), *link = sub("nvcc");

    if (geteuid() != 0) {
        fprintf(stderr, "SKIP: test_trust_refuses_a_link_another_user_owns needs root (lchown)\n");
        return;
    }
    ck_assert_int_eq(symlink(target, link), 0);
    ck_assert_int_eq(lchown(link, 65534, 65534), 0);
    expect(link, false, tu_str("%s is a symbolic link owned by uid 65534", link), NULL);
}
END_TEST

START_TEST(test_trust_checks_a_scripts_interpreter)
{
    char *interp = mkfile("bad/sh", "\177ELF", 0755), *script;

    ck_assert_int_eq(chmod(sub("bad"), 0777), 0);
    script = mkfile("cuda/bin/nvcc", tu_str("#! %s -e\necho hi\n", interp), 0755);
    expect(script, false, tu_str("%s is writable by others", sub("bad")),
           tu_str("(the #! interpreter of %s)", script));
    script = mkfile("cuda/bin/ok", "#!/bin/sh\necho hi\n", 0755);
    expect(script, true, NULL, NULL);
    /* a #! chain longer than the kernel follows */
    mkfile("c/1", "#!/bin/sh\n", 0755);
    for (int i = 2; i <= 6; i++)
        mkfile(tu_str("c/%d", i), tu_str("#!%s\n", sub(tu_str("c/%d", i - 1))), 0755);
    expect(sub("c/6"), false, "#! interpreters in a row", NULL);
}
END_TEST

START_TEST(test_trust_relative_paths_count_from_the_working_directory)
{
    char cwd[4096];

    mkfile("cuda/bin/nvcc", "\177ELF", 0755);
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(g_dir), 0);
    expect("cuda/bin/nvcc", true, NULL, NULL);
    ck_assert_int_eq(chmod("cuda", 0777), 0);
    expect("cuda/bin/nvcc", false, tu_str("%s/cuda is writable by others", g_dir), NULL);
    ck_assert_int_eq(chdir(cwd), 0);
}
END_TEST

START_TEST(test_trust_refuses_what_it_cannot_check)
{
    expect("/nonexistent/ctkgen/bin/nvcc", false, "cannot check /nonexistent:", "No such file");
    expect("", false, "no program", NULL);
    expect(NULL, false, "no program", NULL);
}
END_TEST

START_TEST(test_trust_a_short_buffer_is_cut_not_overrun)
{
    char *p = mkfile("tmp/nvcc", "\177ELF", 0755);
    char why[16];

    memset(why, 'x', sizeof why);
    ck_assert_int_eq(chmod(sub("tmp"), 01777), 0);
    ck_assert(!ctk_trust_exec(p, why, 8));
    ck_assert_uint_eq(strlen(why), 7);
    ck_assert_int_eq(why[8], 'x');
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trust");
    TCase *sys = tcase_create("system"), *tc = tcase_create("trees");
    char *cwd, why[1024];
    int rc;

    /* the scratch trees get exactly the modes each case sets */
    umask(022);
    suite_add_tcase(s, sys);
    tcase_add_test(sys, test_trust_system_shell_is_trusted);
    tcase_add_test(sys, test_trust_refuses_what_it_cannot_check);
    /* one dir for every case, removed at the end whatever failed (a
     * failing case exits before its teardown) */
    cwd = getcwd(NULL, 0);
    snprintf(g_basedir, sizeof g_basedir, "%s%s/check_trust-XXXXXX", cwd ? cwd : "",
             cwd && ctk_is_dir("tests") ? "/tests" : "");
    free(cwd);
    if (!mkdtemp(g_basedir)) {
        fprintf(stderr, "cannot make %s: %s\n", g_basedir, strerror(errno));
        return 1;
    }
    if (ctk_trust_exec(g_basedir, why, sizeof why)) {
        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_trust_a_program_in_a_tree_only_root_writes);
        tcase_add_test(tc, test_trust_refuses_a_world_writable_sticky_dir_above);
        tcase_add_test(tc, test_trust_refuses_a_group_writable_dir_above);
        tcase_add_test(tc, test_trust_refuses_a_writable_program);
        tcase_add_test(tc, test_trust_refuses_what_another_user_owns);
        tcase_add_test(tc, test_trust_checks_where_a_link_leads);
        tcase_add_test(tc, test_trust_refuses_a_link_another_user_owns);
        tcase_add_test(tc, test_trust_checks_a_scripts_interpreter);
        tcase_add_test(tc, test_trust_relative_paths_count_from_the_working_directory);
        tcase_add_test(tc, test_trust_a_short_buffer_is_cut_not_overrun);
        suite_add_tcase(s, tc);
    } else {
        fprintf(stderr, "SKIP: the build tree is not trusted (%s): the tree cases are not run, not counted\n", why);
    }
    rc = tu_run(s);
    tu_sh("chmod -R u+rwx '%s' 2>/dev/null", g_basedir);
    ctk_remove_tree(g_basedir);
    return rc;
}
