/* check_proc.c - running programs: environment, output, deadlines, process groups.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "proc.h"
#include "testutil.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const std_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

/* Run argv with std_env (or envp) and a timeout; asserts ctkgen-side success. */
static void run(ctk_proc_result_t *r, const char *const *argv, const char *const *envp,
                double timeout_s, size_t max_output, const char *cwd)
{
    ctk_proc_spec_t spec = { argv, envp, cwd, timeout_s, max_output };
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

START_TEST(test_proc_reports_signal)
{
    ctk_proc_result_t r;
    char buf[128];

    sh(&r, "kill -SEGV $$", 10);
    ck_assert_int_eq(r.term_signal, SIGSEGV);
    ck_assert(!r.timed_out);
    ck_assert(!ctk_proc_ok(&r));
    ck_assert_msg(strncmp(ctk_proc_describe(&r, 10, buf, sizeof buf), "killed by signal 11", 19) == 0,
                  "%s", buf);
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
    char *dir = tu_mkdtemp(), *script = NULL, *gfile = NULL, *lfile = NULL;
    ctk_proc_result_t r;
    pid_t grandchild, leader;
    char buf[128];

    ck_assert(asprintf(&gfile, "%s/grandchild", dir) > 0);
    ck_assert(asprintf(&lfile, "%s/leader", dir) > 0);
    ck_assert(asprintf(&script, "echo $$ > '%s'; sleep 100 & echo $! > '%s'; sleep 100", lfile,
                       gfile) > 0);
    sh(&r, script, 0.5);
    ck_assert(r.timed_out);
    ck_assert_int_eq(r.term_signal, SIGKILL);
    ck_assert(r.seconds >= 0.45 && r.seconds < 5);
    ck_assert(!ctk_proc_ok(&r));
    ck_assert_str_eq(ctk_proc_describe(&r, 0.5, buf, sizeof buf), "timed out after 0.5 s");
    leader = read_pid(lfile);
    grandchild = read_pid(gfile);
    ck_assert_msg(leader != getpid() && getpgid(0) != leader, "the child must lead its own group");
    ck_assert_msg(dead(grandchild), "background sleep %d survived the timeout", (int)grandchild);
    ck_assert_msg(dead(leader), "the shell survived");
    ctk_proc_result_fini(&r);
    free(script);
    free(gfile);
    free(lfile);
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
    kill(escaped, SIGKILL);
    ctk_proc_result_fini(&r);
    free(script);
    free(gfile);
    tu_rmtree(dir);
    free(dir);
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
        ctk_proc_spec_t spec = { argv, std_env, NULL, 30, 0 };
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

START_TEST(test_proc_rejects_empty_argv)
{
    const char *argv[] = { NULL };
    ctk_proc_spec_t spec = { argv, NULL, NULL, 0, 0 };
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
    tcase_add_test(tc, test_proc_reports_signal);
    tcase_add_test(tc, test_proc_captures_stdout_and_stderr_apart);
    tcase_add_test(tc, test_proc_reads_both_streams_without_deadlock);
    tcase_add_test(tc, test_proc_caps_output_and_keeps_reading);
    tcase_add_test(tc, test_proc_timeout_kills_the_whole_group);
    tcase_add_test(tc, test_proc_returns_when_child_exits_though_grandchild_holds_pipes);
    tcase_add_test(tc, test_proc_does_not_wait_for_a_process_that_left_the_group);
    tcase_add_test(tc, test_proc_deadline_holds_when_child_closed_its_output);
    tcase_add_test(tc, test_proc_finds_argv0_in_the_given_path_not_ours);
    tcase_add_test(tc, test_proc_relative_path_entries_follow_cwd);
    tcase_add_test(tc, test_proc_cannot_run_is_a_result);
    tcase_add_test(tc, test_proc_environment_is_exactly_envp);
    tcase_add_test(tc, test_proc_runs_in_cwd_with_stdin_from_dev_null);
    tcase_add_test(tc, test_proc_resets_signal_dispositions_and_mask);
    tcase_add_test(tc, test_proc_runs_concurrently_from_threads);
    tcase_add_test(tc, test_proc_rejects_empty_argv);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
