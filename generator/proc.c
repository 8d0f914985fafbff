/* proc.c - run one program with a given environment, a deadline and captured output.
 * SPDX-License-Identifier: MIT
 *
 * posix_spawn (no fork: safe from threads, cheap with a large heap) puts
 * the child in its own process group with default signal dispositions and
 * an empty mask.  The parent polls the two output pipes and, where the
 * kernel has it, a pidfd that becomes readable when the child exits; else
 * it re-checks the child on a short back-off.  The child is noticed with
 * waitid(WNOWAIT) and reaped only after its group has been sent SIGKILL:
 * an unreaped zombie keeps its pid, so the pgid cannot have been reused by
 * an unrelated process when we signal it.  Grandchildren that left the
 * group and still hold the pipes are not waited for: what they already
 * wrote is drained without blocking, then the pipes are closed.
 *
 * Interrupts use a pipe that nobody reads: the handler writes a byte, and
 * from then on the read end is readable for good, so every thread's poll
 * wakes, whether it was already waiting or polls only later.  The handler
 * touches nothing but a lock-free atomic and write(2), both
 * async-signal-safe.
 */
#include <ctkconf.h>

#include "proc.h"

#include "env.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MAX_OUTPUT ((size_t)1 << 20)
/* Bytes read per read(2); on the stack of possibly many threads. */
#define CHUNK 16384
/* Reads per stream per wake-up, so one chatty stream cannot starve the
 * other or the deadline check. */
#define READS_PER_WAKE 16
/* Upper bound on the final non-blocking drain: a pipe holds at most
 * 1 MiB (pipe-max-size), this only stops a writer outside the group
 * from keeping us here. */
#define DRAIN_READS 256
/* Back-off when there is no pidfd to wake us on exit (milliseconds). */
#define POLL_MIN_MS 1
#define POLL_MAX_MS 50
/* After an interrupt: how long a child's group has between SIGTERM and
 * SIGKILL (seconds).  Long enough for nvcc to remove its temp files. */
#define STOP_GRACE_S 1.0

static const int intr_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_INTR (sizeof intr_signals / sizeof intr_signals[0])

static atomic_int intr_signo;           /* the first signal caught; 0: none */
static atomic_uint intr_stopped;        /* children stopped by it */
static int intr_pipe[2] = { -1, -1 };   /* made once, kept open; never read but to clear */
static bool intr_catching;              /* main thread only */
static bool intr_replaced[N_INTR];
static struct sigaction intr_saved[N_INTR];
static bool chld_replaced;
static struct sigaction chld_saved;

typedef struct {
    int fd;         /* read end; -1 once at EOF and closed */
    ctk_buf_t buf;
    size_t cap;     /* bytes kept; the rest is read and dropped */
    bool truncated;
} stream_t;

void ctk_proc_result_init(ctk_proc_result_t *r)
{
    memset(r, 0, sizeof *r);
}

void ctk_proc_result_fini(ctk_proc_result_t *r)
{
    if (!r)
        return;
    free(r->out);
    free(r->err);
    ctk_proc_result_init(r);
}

bool ctk_proc_ok(const ctk_proc_result_t *r)
{
    return r->spawn_errno == 0 && !r->timed_out && r->term_signal == 0 && r->exit_status == 0;
}

const char *ctk_proc_signal_name(int signo, char *buf, size_t bufsz)
{
    const char *abbrev = NULL;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    abbrev = sigabbrev_np(signo);
#else
    switch (signo) {
    case SIGHUP: abbrev = "HUP"; break;
    case SIGINT: abbrev = "INT"; break;
    case SIGKILL: abbrev = "KILL"; break;
    case SIGSEGV: abbrev = "SEGV"; break;
    case SIGTERM: abbrev = "TERM"; break;
    }
#endif
    if (abbrev)
        snprintf(buf, bufsz, "SIG%s", abbrev);
    else
        snprintf(buf, bufsz, "signal %d", signo);
    return buf;
}

const char *ctk_proc_describe(const ctk_proc_result_t *r, double timeout_s, char *buf, size_t bufsz)
{
    if (r->spawn_errno)
        snprintf(buf, bufsz, "cannot run: %s", strerror(r->spawn_errno));
    else if (r->timed_out)
        snprintf(buf, bufsz, "timed out after %g s", timeout_s);
    else if (r->term_signal) {
        char name[32];

        if (ctk_proc_signal_name(r->term_signal, name, sizeof name)[0] == 'S')
            snprintf(buf, bufsz, "killed by signal %d (%s)", r->term_signal, name);
        else
            snprintf(buf, bufsz, "killed by signal %d", r->term_signal);
    } else if (r->exit_status)
        snprintf(buf, bufsz, "exit status %d", r->exit_status);
    else
        snprintf(buf, bufsz, "exit status 0");
    return buf;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Move fd to a number >= 3 so the child's dup2 onto 0..2 never lands on a
 * pipe end (possible when ctkgen itself runs with a std stream closed). */
static int lift_fd(int fd)
{
    int nfd;

    if (fd >= 3)
        return fd;
    nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    return nfd;
}

/* A close-on-exec pipe whose read end (ours) does not block. */
static bool make_pipe(int p[2])
{
    int tmp[2];

    if (pipe2(tmp, O_CLOEXEC) != 0)
        return false;
    p[0] = lift_fd(tmp[0]);
    p[1] = lift_fd(tmp[1]);
    if (p[0] < 0 || p[1] < 0)
        return false;
    return fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK) == 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Read what is there, up to max_reads reads; closes the stream at EOF. */
static void pump(stream_t *s, int max_reads)
{
    char chunk[CHUNK];
    int i;

    for (i = 0; i < max_reads && s->fd >= 0; i++) {
        ssize_t n = read(s->fd, chunk, sizeof chunk);

        if (n > 0) {
            size_t room = s->cap - (s->buf.len < s->cap ? s->buf.len : s->cap);
            size_t keep = (size_t)n < room ? (size_t)n : room;

            if (keep)
                ctk_buf_append(&s->buf, chunk, keep); /* failure is kept in buf.failed */
            if (keep < (size_t)n)
                s->truncated = true;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            close_fd(&s->fd); /* EOF, or an error that ends the stream */
        }
    }
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0); /* always close-on-exec */
#else
    (void)pid;
    return -1;
#endif
}

/* Has the child exited?  Leaves it a zombie (WNOWAIT) so its pid, and the
 * pgid we are about to signal, stay reserved until we reap it. */
static bool child_exited(pid_t pid)
{
    siginfo_t si;

    memset(&si, 0, sizeof si);
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        if (errno != EINTR)
            return true; /* ECHILD: nothing left to wait for */
    return si.si_pid == pid;
}

/* Reap the child; false when it was not ours to reap (SIGCHLD ignored, or
 * someone's waitpid(-1) took it), so its status is lost. */
static bool reap(pid_t pid, int *status)
{
    pid_t got;

    *status = 0;
    while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR)
        ;
    return got == pid;
}

/* Milliseconds until deadline (0 when passed); -1 when there is none. */
static int ms_until(double deadline)
{
    double left;

    if (deadline <= 0)
        return -1;
    left = (deadline - now_s()) * 1000.0;
    if (left <= 0)
        return 0;
    if (left >= (double)INT_MAX)
        return INT_MAX;
    return (int)left + 1;
}

/* Errors of posix_spawn that are ours (resources), not the program's. */
static bool spawn_machinery_errno(int e)
{
    return e == EAGAIN || e == ENOMEM || e == EMFILE || e == ENFILE;
}

/* ---- interrupts ---------------------------------------------------------------- */

static void on_interrupt(int signo)
{
    int saved_errno = errno, none = 0;

    atomic_compare_exchange_strong(&intr_signo, &none, signo);
    if (intr_pipe[1] >= 0 && write(intr_pipe[1], "!", 1) < 0) {
        /* EAGAIN: the pipe is full, so it is readable already */
    }
    errno = saved_errno;
}

bool ctk_proc_catch_interrupts(ctk_error_t *err)
{
    struct sigaction sa, old;
    char drain[256];
    size_t i;

    if (intr_catching)
        return true;
    if (intr_pipe[0] < 0) {
        int p[2];

        if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "cannot create a pipe: %s", strerror(errno));
            return false;
        }
        /* both ends above 2: a closed std stream must not become our pipe */
        p[0] = lift_fd(p[0]);
        p[1] = lift_fd(p[1]);
        if (p[0] < 0 || p[1] < 0) {
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "cannot create a pipe: %s", strerror(errno));
            close_fd(&p[0]);
            close_fd(&p[1]);
            return false;
        }
        intr_pipe[0] = p[0];
        intr_pipe[1] = p[1];
    }
    while (read(intr_pipe[0], drain, sizeof drain) > 0)
        ;
    atomic_store(&intr_signo, 0);
    atomic_store(&intr_stopped, 0);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* poll() is never restarted; the pipe wakes the others */
    for (i = 0; i < N_INTR; i++) {
        intr_replaced[i] = false;
        if (sigaction(intr_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* ignored on entry (nohup): the user's choice */
        intr_replaced[i] = sigaction(intr_signals[i], &sa, &intr_saved[i]) == 0;
    }
    /* an ignored SIGCHLD (inherited from a careless parent) makes the
     * kernel reap children itself, and every exit status would be lost */
    chld_replaced = false;
    if (sigaction(SIGCHLD, NULL, &old) == 0 &&
        (old.sa_handler == SIG_IGN || (old.sa_flags & SA_NOCLDWAIT))) {
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigemptyset(&sa.sa_mask);
        chld_replaced = sigaction(SIGCHLD, &sa, &chld_saved) == 0;
    }
    intr_catching = true;
    return true;
}

int ctk_proc_interrupted(void)
{
    return atomic_load(&intr_signo);
}

unsigned ctk_proc_stopped_count(void)
{
    return atomic_load(&intr_stopped);
}

void ctk_proc_release_interrupts(void)
{
    size_t i;

    if (!intr_catching)
        return;
    for (i = 0; i < N_INTR; i++)
        if (intr_replaced[i])
            sigaction(intr_signals[i], &intr_saved[i], NULL);
    if (chld_replaced)
        sigaction(SIGCHLD, &chld_saved, NULL);
    intr_catching = false;
}

void ctk_proc_reraise(int signo)
{
    struct sigaction sa;
    sigset_t set;

    fflush(NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(signo, &sa, NULL);
    sigemptyset(&set);
    sigaddset(&set, signo);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(signo);
}

const char *ctk_proc_describe_interrupt(char *buf, size_t bufsz)
{
    unsigned n = ctk_proc_stopped_count();
    char name[32];

    snprintf(buf, bufsz, "interrupted by %s; stopped %u running probe%s",
             ctk_proc_signal_name(ctk_proc_interrupted(), name, sizeof name), n, n == 1 ? "" : "s");
    return buf;
}

static void set_interrupted(ctk_error_t *err, const char *prog, bool started)
{
    char name[32];

    ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "%s %s: interrupted by %s", prog, started ? "stopped" : "not run",
                  ctk_proc_signal_name(ctk_proc_interrupted(), name, sizeof name));
}

/* ---- running one program --------------------------------------------------------- */

bool ctk_proc_run(const ctk_proc_spec_t *spec, ctk_proc_result_t *r, ctk_error_t *err)
{
    static const char *const no_env[] = { NULL };
    const char *const *envp = spec->envp ? spec->envp : no_env;
    const char *prog, *path_var = NULL;
    char *found = NULL;
    int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, pidfd = -1, rc, status, why = 0;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    bool fa_ok = false, attr_ok = false, ok = false;
    stream_t s[2];
    sigset_t sigs;
    pid_t pid = -1;
    double t0 = now_s(), deadline = 0;
    int backoff = POLL_MIN_MS;
    bool stopping = false;    /* interrupted: the group has had SIGTERM */
    size_t i;

    ctk_proc_result_fini(r);
    memset(s, 0, sizeof s);
    for (i = 0; i < 2; i++) {
        s[i].fd = -1;
        ctk_buf_init(&s[i].buf);
        s[i].cap = spec->max_output ? spec->max_output : DEFAULT_MAX_OUTPUT;
    }
    if (!spec->argv || !spec->argv[0]) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "ctk_proc_run: empty argv");
        goto out;
    }
    if (ctk_proc_interrupted()) {
        set_interrupted(err, spec->argv[0], false); /* nothing new starts */
        goto out;
    }

    /* argv[0] is found in the child's PATH, not ours (execvp would use
     * ours).  A path is checked here too: where posix_spawn cannot report
     * a failed exec (older libcs, valgrind) the child would just exit 127. */
    prog = spec->argv[0];
    for (i = 0; envp[i]; i++)
        if (strncmp(envp[i], "PATH=", 5) == 0)
            path_var = envp[i] + 5;
    found = ctk_env_path_search(path_var, prog, spec->cwd, &why, err);
    if (!found) {
        if (why == ENOMEM)
            goto out;
        r->spawn_errno = why ? why : ENOENT;
        goto done;
    }
    prog = found;

    if (!make_pipe(outp) || !make_pipe(errp)) {
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    /* the streams own the read ends from here on */
    s[0].fd = outp[0];
    s[1].fd = errp[0];
    outp[0] = errp[0] = -1;

    if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
        goto spawn_setup_failed;
    fa_ok = true;
    if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, outp[1], 1)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, errp[1], 2)) != 0)
        goto spawn_setup_failed;
    if (spec->cwd && (rc = posix_spawn_file_actions_addchdir_np(&fa, spec->cwd)) != 0)
        goto spawn_setup_failed;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* descriptors someone opened without O_CLOEXEC stay out of the child */
    if ((rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) != 0)
        goto spawn_setup_failed;
#endif
    if ((rc = posix_spawnattr_init(&attr)) != 0)
        goto spawn_setup_failed;
    attr_ok = true;
    sigfillset(&sigs);
    sigdelset(&sigs, SIGKILL);
    sigdelset(&sigs, SIGSTOP);
    if ((rc = posix_spawnattr_setsigdefault(&attr, &sigs)) != 0)
        goto spawn_setup_failed;
    sigemptyset(&sigs);
    if ((rc = posix_spawnattr_setsigmask(&attr, &sigs)) != 0 ||
        (rc = posix_spawnattr_setpgroup(&attr, 0)) != 0 ||
        (rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
                                                  POSIX_SPAWN_SETSIGMASK)) != 0)
        goto spawn_setup_failed;

    rc = posix_spawn(&pid, prog, &fa, &attr, (char *const *)spec->argv, (char *const *)envp);
    close_fd(&outp[1]);
    close_fd(&errp[1]);
    if (rc != 0) {
        pid = -1;
        if (spawn_machinery_errno(rc)) {
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "cannot start %s: %s", spec->argv[0],
                          strerror(rc));
            goto out;
        }
        r->spawn_errno = rc;
        goto done;
    }
    /* glibc's posix_spawn returns after the exec, so the group exists now */
    pidfd = open_pidfd(pid);
    if (spec->timeout_s > 0)
        deadline = t0 + spec->timeout_s;

    for (;;) {
        struct pollfd pfd[4];
        nfds_t n = 0;
        int timeout = ms_until(deadline), got;

        for (i = 0; i < 2; i++) {
            if (s[i].fd >= 0) {
                pfd[n].fd = s[i].fd;
                pfd[n].events = POLLIN;
                pfd[n].revents = 0;
                n++;
            }
        }
        if (pidfd >= 0) {
            pfd[n].fd = pidfd;
            pfd[n].events = POLLIN;
            pfd[n].revents = 0;
            n++;
        } else if (timeout < 0 || timeout > backoff) {
            timeout = backoff;
            backoff = backoff * 2 > POLL_MAX_MS ? POLL_MAX_MS : backoff * 2;
        }
        if (intr_pipe[0] >= 0 && !stopping) {
            pfd[n].fd = intr_pipe[0];
            pfd[n].events = POLLIN;
            pfd[n].revents = 0;
            n++;
        }
        got = poll(pfd, n, timeout);
        if (got < 0 && errno != EINTR) {
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "poll: %s", strerror(errno));
            goto out;
        }
        for (i = 0; i < 2; i++)
            if (s[i].fd >= 0)
                pump(&s[i], READS_PER_WAKE);
        if (child_exited(pid))
            break;
        if (!stopping && ctk_proc_interrupted()) {
            /* a chance to clean up, then the deadline below ends it;
             * SIGCONT: a stopped process acts on SIGTERM only once resumed */
            stopping = true;
            kill(-pid, SIGTERM);
            kill(-pid, SIGCONT);
            deadline = now_s() + STOP_GRACE_S;
            continue;
        }
        if (deadline > 0 && now_s() >= deadline) {
            r->timed_out = !stopping;
            break;
        }
    }

    /* At the deadline: the whole group.  After a normal exit: stragglers.
     * The child is unreaped until here, so -pid is still its group. */
    kill(-pid, SIGKILL);
    if (!reap(pid, &status)) {
        pid = -1;
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "lost the exit status of %s: %s", spec->argv[0],
                      strerror(errno));
        goto out;
    }
    pid = -1;
    if (stopping) {
        atomic_fetch_add(&intr_stopped, 1);
        set_interrupted(err, spec->argv[0], true);
        goto out;
    }
    for (i = 0; i < 2; i++)
        pump(&s[i], DRAIN_READS);
    if (WIFEXITED(status)) {
        r->exit_status = WEXITSTATUS(status);
        r->timed_out = false; /* it exited by itself just as time ran out */
    } else if (WIFSIGNALED(status)) {
        r->term_signal = WTERMSIG(status);
    }

done:
    for (i = 0; i < 2; i++) {
        if (s[i].buf.failed) {
            ctk_error_nomem(err);
            goto out;
        }
        if (!ctk_buf_append(&s[i].buf, "", 0)) {
            ctk_error_nomem(err);
            goto out;
        }
    }
    r->truncated = s[0].truncated || s[1].truncated;
    r->out = ctk_buf_take(&s[0].buf, &r->out_len);
    r->err = ctk_buf_take(&s[1].buf, &r->err_len);
    r->seconds = now_s() - t0;
    ok = true;
    goto out;

spawn_setup_failed:
    ctk_error_set(err, rc == ENOMEM ? CTK_E_NOMEM : CTK_E_ENV, NULL, 0, 0,
                  "cannot set up process spawning: %s", strerror(rc));
out:
    if (pid > 0) {
        /* an error after a successful spawn: nothing may outlive the call */
        kill(-pid, SIGKILL);
        reap(pid, &status);
    }
    if (pidfd >= 0)
        close(pidfd);
    if (attr_ok)
        posix_spawnattr_destroy(&attr);
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    for (i = 0; i < 2; i++) {
        close_fd(&s[i].fd);
        ctk_buf_fini(&s[i].buf);
    }
    free(found);
    if (!ok)
        ctk_proc_result_fini(r);
    return ok;
}
