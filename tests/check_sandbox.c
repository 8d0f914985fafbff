/* check_sandbox.c - who evaluates others' code, in which private dirs, and may it.
 * SPDX-License-Identifier: MIT
 *
 * Most of this needs root (the sandbox only drops root's rights); each
 * such test says "SKIP:" and returns when not root.
 */
#include <ctkconf.h>

#include "sandbox.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEED_ROOT()                                                               \
    do {                                                                          \
        if (geteuid() != 0) {                                                     \
            printf("SKIP: %s: not root: nothing to drop\n", __func__);            \
            return;                                                               \
        }                                                                         \
    } while (0)

static void init(ctk_sandbox_t *sb, bool trust, const char *tmpdir)
{
    ctk_error_t err;

    ctk_error_init(&err);
    ck_assert_msg(ctk_sandbox_init(sb, trust, tmpdir, &err), "%s", err.text);
}

static struct stat stat_of(const char *path)
{
    struct stat st;

    ck_assert_msg(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
    return st;
}

/* A directory tree under a fresh temp dir that nobody can enter (0755). */
static char *open_dir(void)
{
    char *dir = tu_mkdtemp();

    ck_assert_ptr_nonnull(dir);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    return dir;
}

START_TEST(test_sandbox_drops_only_for_root)
{
    ctk_sandbox_t sb;
    char buf[96];

    init(&sb, false, NULL);
    if (geteuid() != 0) {
        ck_assert(!sb.drop);
        ck_assert_ptr_null(sb.base);
        ctk_sandbox_fini(&sb);
        return;
    }
    ck_assert(sb.drop);
    ck_assert_uint_ne(sb.uid, 0);
    ck_assert_uint_ne(sb.gid, 0);
    ck_assert_ptr_null(sb.why_not);
    ck_assert_ptr_nonnull(sb.base);
    {
        struct stat st = stat_of(sb.base);
        char *base = strdup(sb.base);

        ck_assert(S_ISDIR(st.st_mode));
        ck_assert_uint_eq(st.st_uid, 0);
        ck_assert_uint_eq(st.st_mode & 07777, 0711);
        ctk_sandbox_describe(&sb, buf, sizeof buf);
        ck_assert_msg(strstr(buf, "uid "), "%s", buf);
        ctk_sandbox_fini(&sb);
        ck_assert_msg(access(base, F_OK) != 0, "%s left behind", base);
        free(base);
    }
}
END_TEST

START_TEST(test_sandbox_base_goes_where_the_user_can_reach)
{
    ctk_sandbox_t sb;
    char *closed, *open;

    NEED_ROOT();
    closed = tu_mkdtemp(); /* 0700 root: nobody cannot reach a HOME in it */
    open = open_dir();
    init(&sb, false, closed);
    ck_assert_msg(strncmp(sb.base, closed, strlen(closed)) != 0, "base %s in a dir closed to the user", sb.base);
    ck_assert(strncmp(sb.base, "/tmp/", 5) == 0);
    ctk_sandbox_fini(&sb);
    init(&sb, false, open);
    ck_assert_msg(strncmp(sb.base, open, strlen(open)) == 0, "base %s not in $TMPDIR %s", sb.base, open);
    ctk_sandbox_fini(&sb);
    tu_rmtree(closed);
    tu_rmtree(open);
    free(closed);
    free(open);
}
END_TEST

START_TEST(test_sandbox_run_dirs_are_the_users_and_removed_without_following_links)
{
    ctk_sandbox_t sb;
    ctk_sandbox_run_t run;
    ctk_error_t err;
    char *outside, *victim, *dir, *cmd = NULL;
    struct stat st;

    NEED_ROOT();
    outside = tu_mkdtemp();
    victim = tu_write(outside, "keep/precious", "root's\n");
    init(&sb, false, NULL);
    ctk_error_init(&err);
    ck_assert_msg(ctk_sandbox_run_new(&sb, &run, &err), "%s", err.text);
    st = stat_of(run.home);
    ck_assert_uint_eq(st.st_uid, sb.uid);
    ck_assert_uint_eq(st.st_gid, sb.gid);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    st = stat_of(run.tmp);
    ck_assert_uint_eq(st.st_uid, sb.uid);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    st = stat_of(run.dir);
    ck_assert_uint_eq(st.st_uid, sb.uid);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    /* what a hostile run leaves: links out, a closed directory, a deep tree */
    ck_assert(asprintf(&cmd,
                       "cd '%s' && ln -s '%s/keep' dirlink && ln -s '%s' filelink && mkdir -p a/b/c/d && "
                       "touch a/b/c/d/f && mkdir shut && touch shut/x && chmod 000 shut && chown -R %u '%s'",
                       run.home, outside, victim, (unsigned)sb.uid, run.home) > 0);
    ck_assert_int_eq(tu_sh("%s", cmd), 0);
    dir = strdup(run.dir);
    ctk_sandbox_run_remove(&run);
    ck_assert_msg(access(dir, F_OK) != 0, "%s left behind", dir);
    ck_assert_msg(access(victim, R_OK) == 0, "a link was followed: %s is gone", victim);
    ctk_sandbox_fini(&sb);
    free(cmd);
    free(dir);
    free(victim);
    tu_rmtree(outside);
    free(outside);
}
END_TEST

START_TEST(test_sandbox_run_env_swaps_home_and_tmpdir_only)
{
    ctk_sandbox_run_t run = { "/x/run", "/x/run/home", "/x/run/tmp" };
    ctk_env_t base, out;

    ctk_env_init(&base);
    ck_assert(ctk_env_set(&base, "HOME", "/root", NULL));
    ck_assert(ctk_env_set(&base, "TMPDIR", "/tmp/ctk", NULL));
    ck_assert(ctk_env_set(&base, "PATH", "/usr/bin:/bin", NULL));
    ck_assert(ctk_sandbox_run_env(&run, &base, &out, NULL));
    ck_assert_str_eq(ctk_env_get(&out, "HOME"), "/x/run/home");
    ck_assert_str_eq(ctk_env_get(&out, "TMPDIR"), "/x/run/tmp");
    ck_assert_str_eq(ctk_env_get(&out, "PATH"), "/usr/bin:/bin");
    ck_assert_str_eq(ctk_env_get(&base, "HOME"), "/root");
    ctk_env_fini(&out);
    ctk_env_fini(&base);
}
END_TEST

START_TEST(test_sandbox_can_read_says_which_directory_or_file_is_closed)
{
    ctk_sandbox_t sb;
    char *closed, *open, *f1, *f2, *why = NULL, *want = NULL;

    NEED_ROOT();
    init(&sb, false, NULL);
    closed = tu_mkdtemp();
    open = open_dir();
    f1 = tu_write(closed, "cuda/13.0", "#%Module\n");
    f2 = tu_write(open, "cuda/13.0", "#%Module\n");
    ck_assert_int_eq(chmod(f1, 0644), 0);

    ck_assert(!ctk_sandbox_can_read(&sb, f1, &why, NULL));
    ck_assert(asprintf(&want, "%s is mode 0700, owner root: user ", closed) > 0);
    ck_assert_msg(why && strstr(why, want) && strstr(why, "cannot enter it"), "%s", why);
    free(why);
    free(want);

    ck_assert_int_eq(chmod(f2, 0600), 0);
    ck_assert(!ctk_sandbox_can_read(&sb, f2, &why, NULL));
    ck_assert(asprintf(&want, "%s is mode 0600, owner root: user ", f2) > 0);
    ck_assert_msg(why && strstr(why, want) && strstr(why, "cannot read it"), "%s", why);
    free(why);
    free(want);

    ck_assert_int_eq(chmod(f2, 0644), 0);
    ck_assert_msg(ctk_sandbox_can_read(&sb, f2, &why, NULL), "%s", why);
    ck_assert_ptr_null(why);
    /* the user's own file, closed to others, is readable */
    ck_assert_int_eq(chmod(f2, 0600), 0);
    ck_assert_int_eq(chown(f2, sb.uid, sb.gid), 0);
    ck_assert(ctk_sandbox_can_read(&sb, f2, &why, NULL));

    ctk_sandbox_fini(&sb);
    free(f1);
    free(f2);
    tu_rmtree(closed);
    tu_rmtree(open);
    free(closed);
    free(open);
}
END_TEST

START_TEST(test_sandbox_can_load_needs_the_module_dirs_listable)
{
    ctk_sandbox_t sb;
    char *open, *mp, *file, *why = NULL;

    NEED_ROOT();
    init(&sb, false, NULL);
    open = open_dir();
    file = tu_write(open, "mp/cuda/13.0", "#%Module\n");
    ck_assert_int_eq(chmod(file, 0644), 0);
    ck_assert(asprintf(&mp, "%s/mp", open) > 0);
    ck_assert_msg(ctk_sandbox_can_load(&sb, mp, file, &why, NULL), "%s", why);
    /* Environment Modules lists both; searchable alone is not enough */
    ck_assert_int_eq(chmod(mp, 0711), 0);
    ck_assert(!ctk_sandbox_can_load(&sb, mp, file, &why, NULL));
    ck_assert_msg(why && strstr(why, "mode 0711") && strstr(why, "cannot list it"), "%s", why);
    free(why);
    ck_assert_int_eq(chmod(mp, 0755), 0);
    {
        char *sub = NULL;

        ck_assert(asprintf(&sub, "%s/cuda", mp) > 0);
        ck_assert_int_eq(chmod(sub, 0711), 0);
        ck_assert(!ctk_sandbox_can_load(&sb, mp, file, &why, NULL));
        ck_assert_msg(why && strstr(why, sub) && strstr(why, "cannot list it"), "%s", why);
        free(why);
        free(sub);
    }
    ctk_sandbox_fini(&sb);
    free(mp);
    free(file);
    tu_rmtree(open);
    free(open);
}
END_TEST

START_TEST(test_sandbox_root_only_checks_file_dirs_and_rc_files)
{
    char *dir, *mp, *file, *rc, *why = NULL, *sub = NULL;

    NEED_ROOT();
    dir = tu_mkdtemp();
    file = tu_write(dir, "mp/cuda/13.0", "#%Module\n");
    ck_assert(asprintf(&mp, "%s/mp", dir) > 0);
    ck_assert(asprintf(&sub, "%s/cuda", mp) > 0);
    ck_assert_int_eq(chmod(file, 0644), 0);
    /* /tmp: root's and sticky; the rest root's and closed to others */
    ck_assert_msg(ctk_sandbox_root_only(mp, file, &why, NULL), "%s", why);

    ck_assert_int_eq(chown(file, 65534, 65534), 0);
    ck_assert(!ctk_sandbox_root_only(mp, file, &why, NULL));
    ck_assert_msg(why && strstr(why, "not root"), "%s", why);
    free(why);
    ck_assert_int_eq(chown(file, 0, 0), 0);

    ck_assert_int_eq(chmod(file, 0664), 0);
    ck_assert(!ctk_sandbox_root_only(mp, file, &why, NULL));
    ck_assert_msg(why && strstr(why, "mode 0664") && strstr(why, "others than root can change it"), "%s", why);
    free(why);
    ck_assert_int_eq(chmod(file, 0644), 0);

    /* the directory holding it: another user could swap the file */
    ck_assert_int_eq(chown(sub, 65534, 65534), 0);
    ck_assert(!ctk_sandbox_root_only(mp, file, &why, NULL));
    ck_assert_msg(why && strstr(why, sub), "%s", why);
    free(why);
    ck_assert_int_eq(chown(sub, 0, 0), 0);

    /* an rc file Environment Modules evaluates on the way */
    rc = tu_write(sub, ".modulerc", "#%Module\n");
    ck_assert_int_eq(chown(rc, 65534, 65534), 0);
    ck_assert(!ctk_sandbox_root_only(mp, file, &why, NULL));
    ck_assert_msg(why && strstr(why, ".modulerc"), "%s", why);
    free(why);
    ck_assert_int_eq(chown(rc, 0, 0), 0);
    ck_assert_msg(ctk_sandbox_root_only(mp, file, &why, NULL), "%s", why);

    free(rc);
    free(sub);
    free(mp);
    free(file);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_sandbox_pick_never_runs_others_code_as_root)
{
    ctk_sandbox_t sb, trusting;
    const ctk_sandbox_t *got;
    char *open, *mp, *file, *as = NULL, *why = NULL;
    ctk_error_t err;

    ctk_error_init(&err);
    open = open_dir();
    file = tu_write(open, "mp/cuda/13.0", "#%Module\n");
    ck_assert_int_eq(chmod(file, 0644), 0);
    ck_assert(asprintf(&mp, "%s/mp", open) > 0);
    init(&sb, false, NULL);
    init(&trusting, true, NULL);
    if (geteuid() != 0) {
        /* not root: ctkgen's own user, as ever */
        ck_assert(ctk_sandbox_pick(&sb, mp, file, &as, &why, &err) == &sb);
        ck_assert_ptr_null(as);
        goto done;
    }
    /* root, readable: the sandbox's user */
    got = ctk_sandbox_pick(&sb, mp, file, &as, &why, &err);
    ck_assert(got == &sb && got->drop);
    ck_assert_msg(as && strncmp(as, "user ", 5) == 0, "%s", as);
    free(as);
    /* root, --trust-tcl, only root can change it: root */
    got = ctk_sandbox_pick(&trusting, mp, file, &as, &why, &err);
    ck_assert(got && !got->drop);
    ck_assert_msg(as && strncmp(as, "root", 4) == 0, "%s", as);
    free(as);
    /* another user's file: never root, --trust-tcl or not */
    ck_assert_int_eq(chown(file, 65534, 65534), 0);
    got = ctk_sandbox_pick(&trusting, mp, file, &as, &why, &err);
    ck_assert(got == &trusting && got->drop);
    free(as);
    /* unreadable to the user: not loaded at all, and why */
    ck_assert_int_eq(chown(file, 0, 0), 0);
    ck_assert_int_eq(chmod(file, 0600), 0);
    got = ctk_sandbox_pick(&sb, mp, file, &as, &why, &err);
    ck_assert_ptr_null(got);
    ck_assert_ptr_null(as);
    ck_assert_msg(why && strstr(why, "cannot read it"), "%s", why);
    free(why);
    /* a sandbox that cannot run anything refuses every load */
    sb.why_not = strdup("no place for a private HOME");
    ck_assert_int_eq(chmod(file, 0644), 0);
    got = ctk_sandbox_pick(&sb, mp, file, &as, &why, &err);
    ck_assert_ptr_null(got);
    ck_assert_msg(why && strstr(why, "no place for a private HOME"), "%s", why);
    free(why);
done:
    ck_assert(!ctk_error_is_set(&err));
    ctk_sandbox_fini(&sb);
    ctk_sandbox_fini(&trusting);
    free(mp);
    free(file);
    tu_rmtree(open);
    free(open);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("sandbox");

    tcase_add_test(tc, test_sandbox_drops_only_for_root);
    tcase_add_test(tc, test_sandbox_base_goes_where_the_user_can_reach);
    tcase_add_test(tc, test_sandbox_run_dirs_are_the_users_and_removed_without_following_links);
    tcase_add_test(tc, test_sandbox_run_env_swaps_home_and_tmpdir_only);
    tcase_add_test(tc, test_sandbox_can_read_says_which_directory_or_file_is_closed);
    tcase_add_test(tc, test_sandbox_can_load_needs_the_module_dirs_listable);
    tcase_add_test(tc, test_sandbox_root_only_checks_file_dirs_and_rc_files);
    tcase_add_test(tc, test_sandbox_pick_never_runs_others_code_as_root);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
