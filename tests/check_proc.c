/* check_proc.c - running programs: environment, output, deadlines, process groups.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "proc.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const std_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

/* Run argv with std_env (or envp) and a timeout; asserts ctkgen-side success. */
static void run(ctk_proc_result_t *r, const char *const *argv, const char *const *envp,
                double timeout_s, size_t max_output, const char *cwd)
{
    ctk_proc_spec_t spec = { .argv = argv, .envp = envp, .cwd = cwd, .timeout_s = timeout_s, .max_output = max_output };
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_proc_result_init(r);
    ck_assert_msg(ctk_proc_run(&spec, r, &err), "ctk_proc_run: %s", err.text);
    ck_assert(!ctk_error_is_set(&err));
    ck_assert_ptr_nonnull(r->out);
    ck_assert_ptr_nonnull(r->err);
}

static void sh(ctk_proc_result_t *r, const char *script, double timeout_s)
{
    const char *argv[] = { "sh", "-c", script, NULL };

    run(r, argv, std_env, timeout_s, 0, NULL);
}

/* pid has died: gone, or a zombie waiting for whoever inherited it. */
static bool dead(pid_t pid)
{
    int i;

    for (i = 0; i < 300; i++) {
        char path[64], *stat, *rp;

        if (kill(pid, 0) != 0 && errno == ESRCH)
            return true;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        stat = tu_read(path);
        if (stat) {
            rp = strrchr(stat, ')'); /* state follows "(comm) " */
            if (rp && (rp[2] == 'Z' || rp[2] == 'X')) {
                free(stat);
                return true;
            }
            free(stat);
        }
        usleep(10000);
    }
    return false;
}

/* pid is gone from /proc: dead and reaped, not a zombie anyone still owes a wait. */
static bool gone(pid_t pid)
{
    int i;

    for (i = 0; i < 300; i++) {
        if (kill(pid, 0) != 0 && errno == ESRCH)
            return true;
        usleep(10000);
    }
    return false;
}

static pid_t read_pid(const char *path)
{
    char *s = tu_read(path);
    long v;

    ck_assert_msg(s != NULL, "no pid file %s", path);
    v = strtol(s, NULL, 10);
    free(s);
    ck_assert_int_gt(v, 1);
    return (pid_t)v;
}

/* No live process is left in process group pgid (zombies waiting for
 * whoever inherited them count as gone); waits up to 3 s for the kernel. */
static bool group_gone(pid_t pgid)
{
    int i;

    for (i = 0; i < 300; i++) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        bool alive = false;

        ck_assert_ptr_nonnull(d);
        while (!alive && (e = readdir(d))) {
            char path[300], state;
            char *stat, *rp;
            int pgrp;

            if (e->d_name[0] < '0' || e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            if (!(stat = tu_read(path)))
                continue; /* exited meanwhile */
            /* "pid (comm) state ppid pgrp ..."; comm may hold anything */
            if ((rp = strrchr(stat, ')')) && sscanf(rp + 1, " %c %*d %d", &state, &pgrp) == 2 &&
                pgrp == (int)pgid && state != 'Z' && state != 'X')
                alive = true;
            free(stat);
        }
        closedir(d);
        if (!alive)
            return true;
        usleep(10000);
    }
    return false;
}

/* The script a hanging child runs: its own pid in dir/leader, a background
 * sleep (a grandchild) in dir/grandchild, then it sleeps too.  Caller frees. */
static char *hang_script(const char *dir, const char *prefix)
{
    char *script = NULL;

    ck_assert(asprintf(&script, "%secho $$ > '%s/leader'; sleep 1000 & echo $! > '%s/grandchild'; sleep 1000",
                       prefix, dir, dir) > 0);
    return script;
}

/* Both pid files exist: the child and its grandchild are running. */
static void wait_for_pids(const char *dir)
{
    char *g = NULL;
    int i;

    ck_assert(asprintf(&g, "%s/grandchild", dir) > 0);
    for (i = 0; i < 500; i++) {
        char *s = tu_read(g);
        bool there = s && s[0];

        free(s);
        if (there)
            break;
        usleep(10000);
    }
    free(g);
}

static pid_t pid_in(const char *dir, const char *name)
{
    char *p = NULL;
    pid_t pid;

    ck_assert(asprintf(&p, "%s/%s", dir, name) > 0);
    pid = read_pid(p);
    free(p);
    return pid;
}

START_TEST(test_proc_reports_exit_status)
{
    ctk_proc_result_t r;
    char buf[128];

    sh(&r, "exit 3", 10);
    ck_assert_int_eq(r.exit_status, 3);
    ck_assert_int_eq(r.term_signal, 0);
    ck_assert(!r.timed_out && r.spawn_errno == 0);
    ck_assert(!ctk_proc_ok(&r));
    ck_assert_str_eq(ctk_proc_describe(&r, 10, buf, sizeof buf), "exit status 3");
    ctk_proc_result_fini(&r);

    sh(&r, "exit 0", 10);
    ck_assert(ctk_proc_ok(&r));
    ck_assert(r.seconds >= 0 && r.seconds < 10);
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_reports_a_crash_with_its_signal)
{
    ctk_proc_result_t r;
    char buf[128];

    sh(&r, "echo before; kill -SEGV $$; echo after", 10);
    ck_assert_int_eq(r.term_signal, SIGSEGV);
    ck_assert_int_eq(r.exit_status, 0);
    ck_assert(!r.timed_out);
    ck_assert(!ctk_proc_ok(&r));
    ck_assert_str_eq(r.out, "before\n"); /* output up to the crash is kept */
    ck_assert_str_eq(ctk_proc_describe(&r, 10, buf, sizeof buf), "killed by signal 11 (SIGSEGV)");
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_captures_stdout_and_stderr_apart)
{
    ctk_proc_result_t r;

    sh(&r, "printf 'to out\\n'; printf 'to err' >&2; printf 'a\\000b'", 10);
    ck_assert_uint_eq(r.out_len, 10);
    ck_assert(memcmp(r.out, "to out\na\0b", 11) == 0); /* NUL kept, and terminated */
    ck_assert_str_eq(r.err, "to err");
    ck_assert_uint_eq(r.err_len, 6);
    ck_assert(!r.truncated);
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_reads_both_streams_without_deadlock)
{
    ctk_proc_result_t r;

    /* far more than a pipe holds, on both streams at once */
    sh(&r, "head -c 300000 /dev/zero | tr '\\000' e >&2 & head -c 400000 /dev/zero | tr '\\000' o; wait",
       30);
    ck_assert(ctk_proc_ok(&r));
    ck_assert_uint_eq(r.out_len, 400000);
    ck_assert_uint_eq(r.err_len, 300000);
    ck_assert(r.out[0] == 'o' && r.out[399999] == 'o' && r.err[299999] == 'e');
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_caps_output_and_keeps_reading)
{
    const char *argv[] = { "sh", "-c", "head -c 200000 /dev/zero | tr '\\000' x; echo tail >&2", NULL };
    ctk_proc_result_t r;

    run(&r, argv, std_env, 30, 10, NULL);
    /* the child was never blocked on a full pipe: it finished normally */
    ck_assert(ctk_proc_ok(&r));
    ck_assert(r.truncated);
    ck_assert_uint_eq(r.out_len, 10);
    ck_assert_str_eq(r.out, "xxxxxxxxxx");
    ck_assert_str_eq(r.err, "tail\n"); /* within the cap */
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_timeout_kills_the_whole_group)
{
    char *dir = tu_mkdtemp(), *script = hang_script(dir, "");
    ctk_proc_result_t r;
    pid_t grandchild, leader;
    char buf[128];

    sh(&r, script, 0.5);
    ck_assert(r.timed_out);
    ck_assert_int_eq(r.term_signal, SIGKILL);
    ck_assert(r.seconds >= 0.45 && r.seconds < 5);
    ck_assert(!ctk_proc_ok(&r));
    ck_assert_str_eq(ctk_proc_describe(&r, 0.5, buf, sizeof buf), "timed out after 0.5 s");
    leader = pid_in(dir, "leader");
    grandchild = pid_in(dir, "grandchild");
    ck_assert_msg(leader != getpid() && getpgid(0) != leader, "the child must lead its own group");
    ck_assert_msg(dead(grandchild), "background sleep %d survived the timeout", (int)grandchild);
    ck_assert_msg(dead(leader), "the shell survived");
    ck_assert_msg(group_gone(leader), "a process of group %d survived the timeout", (int)leader);
    ctk_proc_result_fini(&r);
    free(script);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_returns_when_child_exits_though_grandchild_holds_pipes)
{
    char *dir = tu_mkdtemp(), *script = NULL, *gfile = NULL;
    ctk_proc_result_t r;
    pid_t grandchild;

    ck_assert(asprintf(&gfile, "%s/grandchild", dir) > 0);
    ck_assert(asprintf(&script, "sleep 30 & echo $! > '%s'; echo done; echo note >&2", gfile) > 0);
    sh(&r, script, 60);
    ck_assert_msg(r.seconds < 5, "waited %.1f s for a grandchild", r.seconds);
    ck_assert(ctk_proc_ok(&r));
    ck_assert_str_eq(r.out, "done\n");
    ck_assert_str_eq(r.err, "note\n");
    grandchild = read_pid(gfile);
    ck_assert_msg(dead(grandchild), "straggler %d outlived the call", (int)grandchild);
    ctk_proc_result_fini(&r);
    free(script);
    free(gfile);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_does_not_wait_for_a_process_that_left_the_group)
{
    char *dir = tu_mkdtemp(), *script = NULL, *gfile = NULL;
    ctk_proc_result_t r;
    pid_t escaped;

    ck_assert(asprintf(&gfile, "%s/escaped", dir) > 0);
    /* setsid: a new session, out of reach of kill(-pgid); it keeps both pipes */
    ck_assert(asprintf(&script, "setsid sleep 30 & echo $! > '%s'; echo done", gfile) > 0);
    sh(&r, script, 60);
    ck_assert_msg(r.seconds < 5, "waited %.1f s for an escaped process", r.seconds);
    ck_assert(ctk_proc_ok(&r));
    ck_assert_str_eq(r.out, "done\n");
    escaped = read_pid(gfile);
    ck_assert_msg(gone(escaped), "the process that called setsid() (%d) outlived the call", (int)escaped);
    kill(escaped, SIGKILL);
    ctk_proc_result_fini(&r);
    free(script);
    free(gfile);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

/* perl's setpgrp(0, 0) is setpgid(0, 0): a group of its own, in the same session */
#define SETPGID_SLEEP "perl -e 'setpgrp(0, 0) or die \"setpgrp: $!\\n\"; exec @ARGV or die' sleep 1000"

START_TEST(test_proc_timeout_kills_a_grandchild_that_left_the_group)
{
    char *dir = tu_mkdtemp(), *script = NULL;
    ctk_proc_result_t r;
    pid_t leader, moved;

    if (tu_sh("command -v perl >/dev/null") != 0) {
        fprintf(stderr, "SKIP: no perl to call setpgid() (not counted)\n");
        goto out;
    }
    ck_assert(asprintf(&script, "echo $$ > '%s/leader'; " SETPGID_SLEEP " & echo $! > '%s/grandchild'; sleep 1000",
                       dir, dir) > 0);
    sh(&r, script, 1.0);
    ck_assert(r.timed_out);
    leader = pid_in(dir, "leader");
    moved = pid_in(dir, "grandchild");
    ck_assert_msg(getpgid(moved) != leader || kill(moved, 0) != 0, "the grandchild should have had a group of its own");
    ck_assert_msg(gone(moved), "a grandchild that called setpgid() (%d) outlived the timeout", (int)moved);
    ck_assert_msg(group_gone(leader), "a process of group %d survived the timeout", (int)leader);
    ctk_proc_result_fini(&r);
out:
    free(script);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_completion_kills_what_left_the_group_and_lost_its_parent)
{
    char *dir = tu_mkdtemp(), *script = NULL;
    ctk_proc_result_t r;
    pid_t moved, escaped;

    if (tu_sh("command -v perl >/dev/null && command -v setsid >/dev/null") != 0) {
        fprintf(stderr, "SKIP: no perl or setsid (not counted)\n");
        goto out;
    }
    /* each started from a subshell that exits at once: an orphan at once,
     * one in a group of its own, one in a session of its own */
    ck_assert(asprintf(&script,
                       "(" SETPGID_SLEEP " & echo $! > '%s/moved'); (setsid sleep 1000 & echo $! > '%s/escaped'); "
                       "echo done",
                       dir, dir) > 0);
    sh(&r, script, 60);
    ck_assert_msg(r.seconds < 5, "waited %.1f s", r.seconds);
    ck_assert(ctk_proc_ok(&r));
    ck_assert_str_eq(r.out, "done\n");
    moved = pid_in(dir, "moved");
    escaped = pid_in(dir, "escaped");
    ck_assert_msg(gone(moved), "an orphan that called setpgid() (%d) outlived the call", (int)moved);
    ck_assert_msg(gone(escaped), "an orphan that called setsid() (%d) outlived the call", (int)escaped);
    ctk_proc_result_fini(&r);
out:
    free(script);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

typedef struct {
    const char *script;
    ctk_proc_result_t r;
    bool ran;
} long_run_t;

static void *long_run(void *arg)
{
    long_run_t *l = arg;
    const char *argv[] = { "sh", "-c", l->script, NULL };
    ctk_proc_spec_t spec = { .argv = argv, .envp = std_env, .cwd = NULL, .timeout_s = 30, .max_output = 0 };

    ctk_proc_result_init(&l->r);
    l->ran = ctk_proc_run(&spec, &l->r, NULL);
    return NULL;
}

START_TEST(test_proc_cleanup_leaves_other_running_calls_alone)
{
    long_run_t l;
    pthread_t t;
    int i;

    if (tu_sh("command -v perl >/dev/null && command -v setsid >/dev/null") != 0) {
        fprintf(stderr, "SKIP: no perl or setsid (not counted)\n");
        return;
    }
    /* a call whose descendants moved to a group and a session of their
     * own, but still have their parent: they belong to that call */
    memset(&l, 0, sizeof l);
    l.script = "setsid sh -c 'sleep 1.5; echo session'; perl -e 'setpgrp(0, 0) or die; sleep 1; print \"group\\n\"'";
    ck_assert_int_eq(pthread_create(&t, NULL, long_run, &l), 0);
    for (i = 0; i < 30; i++) {
        ctk_proc_result_t r;

        sh(&r, "sleep 0.05 & exit 0", 10); /* each end scans for what is left */
        ctk_proc_result_fini(&r);
    }
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert(l.ran);
    ck_assert_msg(ctk_proc_ok(&l.r), "the long call was disturbed: %s", l.r.err);
    ck_assert_str_eq(l.r.out, "session\ngroup\n");
    ctk_proc_result_fini(&l.r);
}
END_TEST

/* ---- run_as ------------------------------------------------------------------------ */

static bool root_or_say(void)
{
    if (geteuid() == 0)
        return true;
    fprintf(stderr, "SKIP: not root: run_as cannot be tried (not counted)\n");
    return false;
}

static void run_as(ctk_proc_result_t *r, const char *script, const char *cwd)
{
    const char *argv[] = { "sh", "-c", script, NULL };
    ctk_proc_spec_t spec = { argv, std_env, cwd, 10, 0, true, 65534, 65534 };
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_proc_result_init(r);
    ck_assert_msg(ctk_proc_run(&spec, r, &err), "ctk_proc_run: %s", err.text);
}

START_TEST(test_proc_run_as_drops_uid_gid_and_groups)
{
    ctk_proc_result_t r;

    if (!root_or_say())
        return;
    run_as(&r, "id -u; id -g; id -G; sed -n 's/^NoNewPrivs:[[:space:]]*//p' /proc/self/status", NULL);
    ck_assert_msg(ctk_proc_ok(&r), "%s", r.err);
    ck_assert_str_eq(r.out, "65534\n65534\n65534\n1\n");
    ctk_proc_result_fini(&r);
    /* ctkgen itself is still root */
    ck_assert_int_eq(geteuid(), 0);
    ck_assert_int_eq(getegid(), 0);
}
END_TEST

START_TEST(test_proc_children_inherit_only_the_three_std_streams)
{
    ctk_proc_result_t r;
    /* no pipeline: the shell would hold the pipe's ends while ls looks */
    const char *script = "ls /proc/$$/fd";
    int leak = open("/dev/null", O_RDONLY); /* no O_CLOEXEC: a careless open elsewhere */

    ck_assert_int_ge(leak, 3);
    sh(&r, script, 10);
    ck_assert_str_eq(r.out, "0\n1\n2\n");
    ctk_proc_result_fini(&r);
    if (geteuid() == 0) {
        run_as(&r, script, NULL);
        ck_assert_str_eq(r.out, "0\n1\n2\n");
        ctk_proc_result_fini(&r);
    }
    close(leak);
}
END_TEST

START_TEST(test_proc_run_as_changes_dir_as_the_new_user)
{
    char *dir, *open_dir, *closed_dir, *script;
    ctk_proc_result_t r;

    if (!root_or_say())
        return;
    dir = tu_mkdtemp();
    ck_assert_int_eq(chmod(dir, 0755), 0);
    open_dir = tu_mkdirs(dir, "open");
    closed_dir = tu_mkdirs(dir, "closed");
    ck_assert_int_eq(chmod(open_dir, 0755), 0);
    ck_assert_int_eq(chmod(closed_dir, 0700), 0);
    script = tu_write(dir, "closed.sh", "#!/bin/sh\necho ran\n");
    ck_assert_int_eq(chmod(script, 0700), 0);

    run_as(&r, "pwd", open_dir);
    ck_assert(ctk_proc_ok(&r));
    ctk_proc_result_fini(&r);
    /* root could enter it; the new user cannot, and nothing runs */
    run_as(&r, "echo ran", closed_dir);
    ck_assert_int_eq(r.spawn_errno, EACCES);
    ck_assert_str_eq(r.out, "");
    ctk_proc_result_fini(&r);
    {
        const char *argv[] = { script, NULL };
        ctk_proc_spec_t spec = { argv, std_env, NULL, 10, 0, true, 65534, 65534 };
        ctk_error_t err;

        ctk_error_init(&err);
        ctk_proc_result_init(&r);
        ck_assert(ctk_proc_run(&spec, &r, &err));
        ck_assert_int_eq(r.spawn_errno, EACCES);
        ctk_proc_result_fini(&r);
    }
    free(script);
    free(open_dir);
    free(closed_dir);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_run_as_times_out_and_kills_like_any_run)
{
    char *dir, *script;
    ctk_proc_result_t r;
    pid_t leader, grandchild;

    if (!root_or_say())
        return;
    dir = tu_mkdtemp();
    ck_assert_int_eq(chown(dir, 65534, 65534), 0);
    script = hang_script(dir, "");
    {
        const char *argv[] = { "sh", "-c", script, NULL };
        ctk_proc_spec_t spec = { argv, std_env, NULL, 0.5, 0, true, 65534, 65534 };
        ctk_error_t err;

        ctk_error_init(&err);
        ctk_proc_result_init(&r);
        ck_assert(ctk_proc_run(&spec, &r, &err));
    }
    ck_assert(r.timed_out);
    leader = pid_in(dir, "leader");
    grandchild = pid_in(dir, "grandchild");
    ck_assert_msg(gone(grandchild), "the grandchild survived");
    ck_assert_msg(gone(leader), "the child survived");
    ctk_proc_result_fini(&r);
    free(script);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_run_as_without_root_is_an_error)
{
    const char *argv[] = { "true", NULL };
    ctk_proc_spec_t spec = { argv, std_env, NULL, 10, 0, true, 65534, 65534 };
    ctk_proc_result_t r;
    ctk_error_t err;

    /* as root, become another unprivileged user first (this test runs in a
     * process of its own, Check's fork): then the drop is refused too */
    if (geteuid() == 0) {
        ck_assert_str_eq(getenv("CK_FORK") ? getenv("CK_FORK") : "yes", "yes");
        ck_assert_int_eq(setgroups(0, NULL), 0);
        ck_assert_int_eq(setgid(65533), 0);
        ck_assert_int_eq(setuid(65533), 0);
    }
    ctk_error_init(&err);
    ctk_proc_result_init(&r);
    ck_assert(!ctk_proc_run(&spec, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_ENV);
    ck_assert_msg(strstr(err.text, "as uid 65534"), "%s", err.text);
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_deadline_holds_when_child_closed_its_output)
{
    ctk_proc_result_t r;

    sh(&r, "exec >&- 2>&-; sleep 100", 0.3);
    ck_assert(r.timed_out);
    ck_assert(r.seconds < 5);
    ck_assert_uint_eq(r.out_len, 0);
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_finds_argv0_in_the_given_path_not_ours)
{
    char *dir = tu_mkdtemp(), *bin = tu_mkdirs(dir, "bin"), *path = NULL, *prog;
    const char *hello[] = { "ctk-test-hello", "arg", NULL };
    const char *shargv[] = { "sh", "-c", "exit 0", NULL };
    const char *env[] = { NULL, NULL };
    const char *nopath[] = { "PATH=/nonexistent-ctk", NULL };
    ctk_proc_result_t r;

    prog = tu_write(bin, "ctk-test-hello", "#!/bin/sh\necho \"hi $1\"\n");
    ck_assert_int_eq(chmod(prog, 0755), 0);
    ck_assert(asprintf(&path, "PATH=/nonexistent-ctk::%s", bin) > 0);
    env[0] = path;
    run(&r, hello, env, 10, 0, "/");
    ck_assert_int_eq(r.spawn_errno, 0);
    ck_assert_str_eq(r.out, "hi arg\n");
    ctk_proc_result_fini(&r);

    /* sh is on our PATH, but not on the child's */
    run(&r, shargv, nopath, 10, 0, NULL);
    ck_assert_int_eq(r.spawn_errno, ENOENT);
    ctk_proc_result_fini(&r);

    /* and the program's directory is not on ours */
    run(&r, hello, std_env, 10, 0, NULL);
    ck_assert_int_eq(r.spawn_errno, ENOENT);
    ctk_proc_result_fini(&r);
    free(prog);
    free(path);
    free(bin);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_relative_path_entries_follow_cwd)
{
    char *dir = tu_mkdtemp(), *prog;
    const char *argv[] = { "ctk-test-rel", NULL };
    const char *env[] = { "PATH=tools", NULL };
    ctk_proc_result_t r;

    prog = tu_write(dir, "tools/ctk-test-rel", "#!/bin/sh\necho rel\n");
    ck_assert_int_eq(chmod(prog, 0755), 0);
    run(&r, argv, env, 10, 0, dir);
    ck_assert_int_eq(r.spawn_errno, 0);
    ck_assert_str_eq(r.out, "rel\n");
    ctk_proc_result_fini(&r);
    free(prog);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_cannot_run_is_a_result)
{
    char *dir = tu_mkdtemp(), *plain = tu_write(dir, "plain", "echo no\n"), *path = NULL;
    const char *missing[] = { "/nonexistent-ctk/prog", NULL };
    const char *byname[] = { "plain", NULL };
    const char *env[] = { NULL, NULL };
    ctk_proc_result_t r;
    char buf[128];

    run(&r, missing, std_env, 10, 0, NULL);
    ck_assert_int_eq(r.spawn_errno, ENOENT);
    ck_assert(!ctk_proc_ok(&r));
    ck_assert_str_eq(r.out, "");
    ck_assert_str_eq(ctk_proc_describe(&r, 10, buf, sizeof buf),
                     "cannot run: No such file or directory");
    ctk_proc_result_fini(&r);

    /* found but not executable: EACCES, as execvp reports it */
    ck_assert(asprintf(&path, "PATH=%s", dir) > 0);
    env[0] = path;
    run(&r, byname, env, 10, 0, NULL);
    ck_assert_int_eq(r.spawn_errno, EACCES);
    ctk_proc_result_fini(&r);
    free(path);
    free(plain);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_environment_is_exactly_envp)
{
    const char *argv[] = { "/usr/bin/env", NULL };
    const char *one[] = { "CTK_ONLY=1", NULL };
    ctk_proc_result_t r;

    setenv("CTK_SHOULD_NOT_LEAK", "x", 1);
    run(&r, argv, NULL, 10, 0, NULL);
    ck_assert(ctk_proc_ok(&r));
    ck_assert_str_eq(r.out, "");
    ctk_proc_result_fini(&r);

    run(&r, argv, one, 10, 0, NULL);
    ck_assert_str_eq(r.out, "CTK_ONLY=1\n");
    ctk_proc_result_fini(&r);
}
END_TEST

START_TEST(test_proc_runs_in_cwd_with_stdin_from_dev_null)
{
    char *dir = tu_mkdtemp(), *real = realpath(dir, NULL), *want = NULL;
    const char *pwd[] = { "/bin/pwd", "-P", NULL };
    const char *cat[] = { "cat", NULL };
    ctk_proc_result_t r;

    ck_assert(asprintf(&want, "%s\n", real) > 0);
    run(&r, pwd, std_env, 10, 0, dir);
    ck_assert_str_eq(r.out, want);
    ctk_proc_result_fini(&r);

    /* cat would hang on a terminal or an inherited pipe */
    run(&r, cat, std_env, 10, 0, NULL);
    ck_assert(ctk_proc_ok(&r));
    ck_assert_str_eq(r.out, "");
    ck_assert(r.seconds < 5);
    ctk_proc_result_fini(&r);
    free(want);
    free(real);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_resets_signal_dispositions_and_mask)
{
    ctk_proc_result_t r;
    unsigned long long blocked = 1, ignored = 1;
    sigset_t block;

    /* SIG_IGN and the mask survive exec; the child must not get either */
    signal(SIGINT, SIG_IGN);
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    sigaddset(&block, SIGTERM);
    ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &block, NULL), 0);

    sh(&r, "sed -n 's/^SigBlk:\t//p; s/^SigIgn:\t//p' /proc/self/status", 10);
    ck_assert_int_eq(sscanf(r.out, "%llx %llx", &blocked, &ignored), 2);
    ck_assert_msg(blocked == 0, "blocked in the child: %llx", blocked);
    /* signals 1-31 at their defaults; glibc's posix_spawn itself leaves its
     * two internal signals (32, 33), which glibc programs never see, ignored */
    ck_assert_msg((ignored & 0x7fffffffULL) == 0, "ignored in the child: %llx", ignored);
    ctk_proc_result_fini(&r);

    sh(&r, "kill -INT $$; echo survived", 10);
    ck_assert_int_eq(r.term_signal, SIGINT);
    ck_assert_str_eq(r.out, "");
    ctk_proc_result_fini(&r);
    signal(SIGINT, SIG_DFL);
    ck_assert_int_eq(pthread_sigmask(SIG_UNBLOCK, &block, NULL), 0);
}
END_TEST

#define THREADS 8
#define RUNS 15

typedef struct {
    int id;
    int bad;
    double slowest;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    int i;

    for (i = 0; i < RUNS; i++) {
        char want[64], id[16];
        const char *argv[] = { "sh", "-c", "printf '%s-%s' \"$1\" \"$2\"; printf e >&2", "sh", id, NULL,
                               NULL };
        char n[16];
        ctk_proc_spec_t spec = { .argv = argv, .envp = std_env, .cwd = NULL, .timeout_s = 30, .max_output = 0 };
        ctk_proc_result_t r;

        snprintf(id, sizeof id, "%d", w->id);
        snprintf(n, sizeof n, "%d", i);
        argv[5] = n;
        snprintf(want, sizeof want, "%d-%d", w->id, i);
        ctk_proc_result_init(&r);
        if (!ctk_proc_run(&spec, &r, NULL) || !ctk_proc_ok(&r) || strcmp(r.out, want) != 0 ||
            strcmp(r.err, "e") != 0)
            w->bad++;
        if (r.seconds > w->slowest)
            w->slowest = r.seconds;
        ctk_proc_result_fini(&r);
    }
    return NULL;
}

START_TEST(test_proc_runs_concurrently_from_threads)
{
    pthread_t t[THREADS];
    worker_t w[THREADS];
    ctk_proc_result_t r;
    int i;

    memset(w, 0, sizeof w);
    for (i = 0; i < THREADS; i++) {
        w[i].id = i;
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &w[i]), 0);
    }
    /* a long run alongside: its pipes must not leak into the others' children */
    sh(&r, "sleep 2; echo slow", 30);
    ck_assert_str_eq(r.out, "slow\n");
    ctk_proc_result_fini(&r);
    for (i = 0; i < THREADS; i++) {
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        ck_assert_msg(w[i].bad == 0, "thread %d: %d bad runs", i, w[i].bad);
        ck_assert_msg(w[i].slowest < 10, "thread %d: a run took %.1f s", i, w[i].slowest);
    }
}
END_TEST

/* ---- interrupts ------------------------------------------------------------------- */

typedef struct {
    int signo;
    unsigned delay_ms;
} sender_t;

/* Sends signo to this whole process (any thread may take it) after a delay. */
static void *send_later(void *arg)
{
    const sender_t *snd = arg;

    usleep(snd->delay_ms * 1000);
    kill(getpid(), snd->signo);
    return NULL;
}

static double mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Run script (sh -c) with a long timeout while another thread sends signo;
 * the run must end with an error.  Returns how long it took. */
static double run_interrupted(const char *script, int signo, ctk_error_t *err)
{
    const char *argv[] = { "sh", "-c", script, NULL };
    ctk_proc_spec_t spec = { .argv = argv, .envp = std_env, .cwd = NULL, .timeout_s = 60, .max_output = 0 };
    sender_t snd = { signo, 300 };
    ctk_proc_result_t r;
    pthread_t t;
    double t0 = mono();

    ctk_error_init(err);
    ctk_proc_result_init(&r);
    ck_assert_int_eq(pthread_create(&t, NULL, send_later, &snd), 0);
    ck_assert_msg(!ctk_proc_run(&spec, &r, err), "an interrupted run must not report a result");
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_ptr_null(r.out);
    ctk_proc_result_fini(&r);
    return mono() - t0;
}

static void sigaction_of(int signo, struct sigaction *sa)
{
    ck_assert_int_eq(sigaction(signo, NULL, sa), 0);
}

/* Forget the interrupt a test caused, for the tests after it when Check
 * runs them all in one process (CK_FORK=no, as under valgrind). */
static void clear_interrupt(void)
{
    ck_assert(ctk_proc_catch_interrupts(NULL));
    ctk_proc_release_interrupts();
    ck_assert_int_eq(ctk_proc_interrupted(), 0);
}

/* Each test runs in a process forked by Check, which may have left its own
 * handlers for SIGINT and SIGTERM there: start from the defaults. */
static void default_signals(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}

START_TEST(test_proc_interrupt_stops_the_group_and_starts_nothing_more)
{
    char *dir = tu_mkdtemp(), *script = hang_script(dir, ""), *marker = NULL, *touch = NULL;
    ctk_error_t err;
    ctk_proc_result_t r;
    struct sigaction sa;
    pid_t leader, grandchild;
    double took;
    char buf[128];

    default_signals();
    ck_assert(ctk_proc_catch_interrupts(NULL));
    ck_assert_int_eq(ctk_proc_interrupted(), 0);
    took = run_interrupted(script, SIGINT, &err);
    ck_assert_msg(took < 3, "stopping took %.1f s", took);
    ck_assert_int_eq(err.code, CTK_E_ENV);
    ck_assert_msg(strstr(err.text, "interrupted by SIGINT"), "%s", err.text);
    ck_assert_int_eq(ctk_proc_interrupted(), SIGINT);
    ck_assert_uint_eq(ctk_proc_stopped_count(), 1);
    ck_assert_str_eq(ctk_proc_describe_interrupt(buf, sizeof buf), "interrupted by SIGINT; stopped 1 running probe");
    leader = pid_in(dir, "leader");
    grandchild = pid_in(dir, "grandchild");
    ck_assert_msg(dead(grandchild), "the grandchild %d outlived the interrupt", (int)grandchild);
    ck_assert_msg(group_gone(leader), "a process of group %d outlived the interrupt", (int)leader);

    /* from now on nothing starts */
    ck_assert(asprintf(&marker, "%s/started", dir) > 0);
    ck_assert(asprintf(&touch, "touch '%s'", marker) > 0);
    {
        const char *argv[] = { "sh", "-c", touch, NULL };
        ctk_proc_spec_t spec = { .argv = argv, .envp = std_env, .cwd = NULL, .timeout_s = 10, .max_output = 0 };

        ctk_error_init(&err);
        ctk_proc_result_init(&r);
        ck_assert(!ctk_proc_run(&spec, &r, &err));
        ck_assert_msg(strstr(err.text, "interrupted"), "%s", err.text);
        ctk_proc_result_fini(&r);
    }
    usleep(100000);
    ck_assert_msg(access(marker, F_OK) != 0, "a child started after the interrupt");

    /* a second signal changes nothing: the first one is reported */
    kill(getpid(), SIGTERM);
    ck_assert_int_eq(ctk_proc_interrupted(), SIGINT);
    ctk_proc_release_interrupts();
    sigaction_of(SIGINT, &sa);
    ck_assert(sa.sa_handler == SIG_DFL);
    ck_assert_int_eq(ctk_proc_interrupted(), SIGINT); /* still there for the caller */
    clear_interrupt();
    free(touch);
    free(marker);
    free(script);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

START_TEST(test_proc_interrupt_kills_a_group_that_ignores_sigterm)
{
    char *dir = tu_mkdtemp(), *script = hang_script(dir, "trap '' TERM; ");
    ctk_error_t err;
    double took;

    default_signals();
    ck_assert(ctk_proc_catch_interrupts(NULL));
    took = run_interrupted(script, SIGTERM, &err);
    /* 0.3 s to the signal, then the one-second grace, then SIGKILL */
    ck_assert_msg(took >= 1.2 && took < 5, "took %.2f s", took);
    ck_assert_msg(strstr(err.text, "interrupted by SIGTERM"), "%s", err.text);
    ck_assert(dead(pid_in(dir, "grandchild")));
    ck_assert(group_gone(pid_in(dir, "leader")));
    ctk_proc_release_interrupts();
    clear_interrupt();
    free(script);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

typedef struct {
    char *dir;
    bool returned_error;
    double took;
} hanger_t;

static void *hang_in_thread(void *arg)
{
    hanger_t *h = arg;
    char *script = hang_script(h->dir, "");
    const char *argv[] = { "sh", "-c", script, NULL };
    ctk_proc_spec_t spec = { .argv = argv, .envp = std_env, .cwd = NULL, .timeout_s = 60, .max_output = 0 };
    ctk_proc_result_t r;
    double t0 = mono();

    ctk_proc_result_init(&r);
    h->returned_error = !ctk_proc_run(&spec, &r, NULL);
    h->took = mono() - t0;
    ctk_proc_result_fini(&r);
    free(script);
    return NULL;
}

START_TEST(test_proc_interrupt_wakes_every_thread)
{
    enum { N = 4 };
    pthread_t t[N];
    hanger_t h[N];
    int i;

    default_signals();
    ck_assert(ctk_proc_catch_interrupts(NULL));
    for (i = 0; i < N; i++) {
        h[i].dir = tu_mkdtemp();
        ck_assert_int_eq(pthread_create(&t[i], NULL, hang_in_thread, &h[i]), 0);
    }
    for (i = 0; i < N; i++)
        wait_for_pids(h[i].dir);
    kill(getpid(), SIGHUP);
    for (i = 0; i < N; i++) {
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        ck_assert_msg(h[i].returned_error, "thread %d: the run was not stopped", i);
        ck_assert_msg(h[i].took < 5, "thread %d: %.1f s", i, h[i].took);
        ck_assert(group_gone(pid_in(h[i].dir, "leader")));
        ck_assert(dead(pid_in(h[i].dir, "grandchild")));
        tu_rmtree(h[i].dir);
        free(h[i].dir);
    }
    ck_assert_int_eq(ctk_proc_interrupted(), SIGHUP);
    ck_assert_uint_eq(ctk_proc_stopped_count(), N);
    ctk_proc_release_interrupts();
    clear_interrupt();
}
END_TEST

START_TEST(test_proc_catch_leaves_ignored_signals_ignored)
{
    struct sigaction sa;
    ctk_proc_result_t r;

    default_signals();
    signal(SIGHUP, SIG_IGN); /* as under nohup */
    ck_assert(ctk_proc_catch_interrupts(NULL));
    sigaction_of(SIGHUP, &sa);
    ck_assert(sa.sa_handler == SIG_IGN);
    sigaction_of(SIGINT, &sa);
    ck_assert(sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
    kill(getpid(), SIGHUP);
    ck_assert_int_eq(ctk_proc_interrupted(), 0);
    sh(&r, "exit 0", 10);
    ck_assert(ctk_proc_ok(&r));
    ctk_proc_result_fini(&r);
    ctk_proc_release_interrupts();
    sigaction_of(SIGHUP, &sa);
    ck_assert(sa.sa_handler == SIG_IGN);
    sigaction_of(SIGINT, &sa);
    ck_assert(sa.sa_handler == SIG_DFL);
    signal(SIGHUP, SIG_DFL);
}
END_TEST

START_TEST(test_proc_catch_keeps_exit_status_when_sigchld_was_ignored)
{
    struct sigaction sa;
    ctk_proc_result_t r;

    /* a parent may start us with SIGCHLD ignored: children are then reaped
     * by the kernel and their status is lost */
    signal(SIGCHLD, SIG_IGN);
    ck_assert(ctk_proc_catch_interrupts(NULL));
    sh(&r, "exit 3", 10);
    ck_assert_int_eq(r.exit_status, 3);
    ctk_proc_result_fini(&r);
    ctk_proc_release_interrupts();
    sigaction_of(SIGCHLD, &sa);
    ck_assert(sa.sa_handler == SIG_IGN);
    signal(SIGCHLD, SIG_DFL);
}
END_TEST

START_TEST(test_proc_reraise_dies_of_the_signal)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    size_t i;

    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        pid_t pid = fork();
        int status = 0;

        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            default_signals();
            if (!ctk_proc_catch_interrupts(NULL))
                _exit(2);
            raise(sigs[i]); /* caught: only recorded */
            if (ctk_proc_interrupted() != sigs[i])
                _exit(3);
            ctk_proc_release_interrupts();
            ctk_proc_reraise(ctk_proc_interrupted());
            _exit(4);
        }
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i], "signal %d: status %#x", sigs[i],
                      status);
    }
}
END_TEST

START_TEST(test_proc_rejects_empty_argv)
{
    const char *argv[] = { NULL };
    ctk_proc_spec_t spec = { .argv = argv, .envp = NULL, .cwd = NULL, .timeout_s = 0, .max_output = 0 };
    ctk_proc_result_t r;
    ctk_error_t err;

    ctk_error_init(&err);
    ctk_proc_result_init(&r);
    ck_assert(!ctk_proc_run(&spec, &r, &err));
    ck_assert_int_eq(err.code, CTK_E_INTERNAL);
    ck_assert_ptr_null(r.out);
    ctk_proc_result_fini(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("proc");
    TCase *tc = tcase_create("proc");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_proc_reports_exit_status);
    tcase_add_test(tc, test_proc_reports_a_crash_with_its_signal);
    tcase_add_test(tc, test_proc_captures_stdout_and_stderr_apart);
    tcase_add_test(tc, test_proc_reads_both_streams_without_deadlock);
    tcase_add_test(tc, test_proc_caps_output_and_keeps_reading);
    tcase_add_test(tc, test_proc_timeout_kills_the_whole_group);
    tcase_add_test(tc, test_proc_returns_when_child_exits_though_grandchild_holds_pipes);
    tcase_add_test(tc, test_proc_does_not_wait_for_a_process_that_left_the_group);
    tcase_add_test(tc, test_proc_deadline_holds_when_child_closed_its_output);
    tcase_add_test(tc, test_proc_timeout_kills_a_grandchild_that_left_the_group);
    tcase_add_test(tc, test_proc_completion_kills_what_left_the_group_and_lost_its_parent);
    tcase_add_test(tc, test_proc_cleanup_leaves_other_running_calls_alone);
    tcase_add_test(tc, test_proc_run_as_drops_uid_gid_and_groups);
    tcase_add_test(tc, test_proc_children_inherit_only_the_three_std_streams);
    tcase_add_test(tc, test_proc_run_as_changes_dir_as_the_new_user);
    tcase_add_test(tc, test_proc_run_as_times_out_and_kills_like_any_run);
    tcase_add_test(tc, test_proc_run_as_without_root_is_an_error);
    tcase_add_test(tc, test_proc_finds_argv0_in_the_given_path_not_ours);
    tcase_add_test(tc, test_proc_relative_path_entries_follow_cwd);
    tcase_add_test(tc, test_proc_cannot_run_is_a_result);
    tcase_add_test(tc, test_proc_environment_is_exactly_envp);
    tcase_add_test(tc, test_proc_runs_in_cwd_with_stdin_from_dev_null);
    tcase_add_test(tc, test_proc_resets_signal_dispositions_and_mask);
    tcase_add_test(tc, test_proc_runs_concurrently_from_threads);
    tcase_add_test(tc, test_proc_interrupt_stops_the_group_and_starts_nothing_more);
    tcase_add_test(tc, test_proc_interrupt_kills_a_group_that_ignores_sigterm);
    tcase_add_test(tc, test_proc_interrupt_wakes_every_thread);
    tcase_add_test(tc, test_proc_catch_leaves_ignored_signals_ignored);
    tcase_add_test(tc, test_proc_catch_keeps_exit_status_when_sigchld_was_ignored);
    tcase_add_test(tc, test_proc_reraise_dies_of_the_signal);
    tcase_add_test(tc, test_proc_rejects_empty_argv);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
