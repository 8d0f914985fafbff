/* proc.c - run one program with a given environment, a deadline and captured output.
 * SPDX-License-Identifier: MIT
 *
 * posix_spawn (no fork: safe from threads, cheap with a large heap) puts
 * the child in a session of its own with default signal dispositions and
 * an empty mask.  A child that must run as another user is started with
 * fork and exec instead (posix_spawn cannot change the identity); between
 * the two it makes only async-signal-safe calls.  The parent polls the two output pipes and, where the
 * kernel has it, a pidfd that becomes readable when the child exits; else
 * it re-checks the child on a short back-off.  The child is noticed with
 * waitid(WNOWAIT) and reaped only after its group has been sent SIGKILL:
 * an unreaped zombie keeps its pid, so the pgid cannot have been reused by
 * an unrelated process when we signal it.  Then every other process of
 * the run is found in /proc and killed (kill_descendants), so the pipes
 * reach EOF and are drained without blocking.
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
#include <dirent.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
    /* No SA_RESTART: a call that blocks returns EINTR, so no read or open
     * can outwait the signal; poll() is woken through the pipe, and the
     * long loops (lint's walk, .pc resolution, the Lua hook) ask
     * ctk_proc_interrupted() */
    sa.sa_flags = 0;
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

/* ---- every descendant ---------------------------------------------------------------- */

/* ctkgen is a child subreaper (set once, at the first run): a process
 * whose parent exits is re-parented to ctkgen, not to init, so nothing a
 * child starts can leave ctkgen's tree, whatever it does with setsid() or
 * setpgid().  When a run ends, kill_descendants() walks /proc and kills
 * what belongs to it: its session (the child leads one, and setpgid()
 * cannot leave a session), its process group, whatever has the child
 * among its ancestors, and orphans re-parented to ctkgen that belong to
 * no other run still going (a process that called setsid() and lost its
 * parent: an escape).  Zombies re-parented to ctkgen are reaped.
 *
 * Runs in other threads are told apart by their children, kept in `kids`
 * from spawn to reap.  A spawn holds spawn_lock for reading from before
 * the fork to the registration; a cleanup holds it for writing, so it
 * never sees a fresh child of ours that is not registered yet and takes
 * it for an orphan.  A run's child is reaped before it is unregistered,
 * so no other cleanup reaps it from under us. */

static pthread_once_t subreaper_once = PTHREAD_ONCE_INIT;
static pthread_rwlock_t spawn_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t kids_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t *kids;          /* children of running calls; a multiset */
static size_t n_kids, cap_kids;

static void become_subreaper(void)
{
    /* no subreaper (before Linux 3.4): orphans go to init, and only those
     * still in the session or group, or still under the child, are found */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Room for one more child, so that registering it after the spawn cannot fail. */
static bool kids_reserve(void)
{
    bool ok = true;

    pthread_mutex_lock(&kids_lock);
    if (n_kids == cap_kids) {
        size_t cap = cap_kids ? cap_kids * 2 : 16;
        pid_t *p = realloc(kids, cap * sizeof *p);

        if (p) {
            kids = p;
            cap_kids = cap;
        } else {
            ok = false;
        }
    }
    pthread_mutex_unlock(&kids_lock);
    return ok;
}

static void kids_add(pid_t pid)
{
    pthread_mutex_lock(&kids_lock);
    if (n_kids < cap_kids) /* reserved by the caller */
        kids[n_kids++] = pid;
    pthread_mutex_unlock(&kids_lock);
}

static void kids_remove(pid_t pid)
{
    pthread_mutex_lock(&kids_lock);
    for (size_t i = 0; i < n_kids; i++) {
        if (kids[i] == pid) {
            kids[i] = kids[--n_kids];
            break;
        }
    }
    pthread_mutex_unlock(&kids_lock);
}

/* Caller holds spawn_lock for writing (kids cannot grow). */
static bool is_kid(pid_t pid)
{
    bool found = false;

    pthread_mutex_lock(&kids_lock);
    for (size_t i = 0; i < n_kids && !found; i++)
        found = kids[i] == pid;
    pthread_mutex_unlock(&kids_lock);
    return found;
}

typedef struct {
    pid_t pid, ppid, pgrp, sid;
    char state;
    unsigned long long start;   /* start time in clock ticks: with pid, who it is */
} pinfo_t;

/* One process's /proc/PID/stat; false when it is gone. */
static bool read_pinfo(pid_t pid, pinfo_t *p)
{
    char path[64], buf[2048], *rp;
    ssize_t n;
    int fd, ppid, pgrp, sid;
    unsigned long long start;
    char state;

    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return false;
    while ((n = read(fd, buf, sizeof buf - 1)) < 0 && errno == EINTR)
        ;
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt
     * cminflt majflt cmajflt utime stime cutime cstime priority nice
     * num_threads itrealvalue starttime ..."; comm may hold anything */
    if (!(rp = strrchr(buf, ')')) ||
        sscanf(rp + 1, " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &state,
               &ppid, &pgrp, &sid, &start) != 5)
        return false;
    p->pid = pid;
    p->ppid = ppid;
    p->pgrp = pgrp;
    p->sid = sid;
    p->state = state;
    p->start = start;
    return true;
}

static int cmp_pinfo(const void *a, const void *b)
{
    pid_t x = ((const pinfo_t *)a)->pid, y = ((const pinfo_t *)b)->pid;

    return x < y ? -1 : x > y;
}

/* Every process in /proc, sorted by pid; *n 0 when /proc cannot be read. */
static pinfo_t *scan_procs(size_t *n)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pinfo_t *tab = NULL;
    size_t cap = 0;

    *n = 0;
    if (!d)
        return NULL;
    while ((e = readdir(d))) {
        char *end;
        long v = strtol(e->d_name, &end, 10);

        if (e->d_name[0] < '1' || e->d_name[0] > '9' || *end || v <= 0 || v > INT_MAX)
            continue;
        if (*n == cap) {
            size_t ncap = cap ? cap * 2 : 512;
            pinfo_t *p = realloc(tab, ncap * sizeof *p);

            if (!p)
                break; /* what was read is still worth a round */
            tab = p;
            cap = ncap;
        }
        if (read_pinfo((pid_t)v, &tab[*n]))
            (*n)++;
    }
    closedir(d);
    if (*n)
        qsort(tab, *n, sizeof *tab, cmp_pinfo);
    return tab;
}

static const pinfo_t *find_pinfo(const pinfo_t *tab, size_t n, pid_t pid)
{
    pinfo_t key;

    key.pid = pid;
    return n ? bsearch(&key, tab, n, sizeof *tab, cmp_pinfo) : NULL;
}

/* Does p belong to the run whose child is leader?  (Caller holds
 * spawn_lock for writing.) */
static bool belongs_to(const pinfo_t *tab, size_t n, const pinfo_t *p, pid_t self, pid_t leader)
{
    const pinfo_t *cur = p;
    size_t steps;

    if (p->sid == leader || p->pgrp == leader)
        return true;
    for (steps = 0; steps <= n; steps++) {
        if (cur->ppid == leader)
            return true;
        if (cur->ppid == self) {
            /* under a child of ours: another run's, or an orphan we adopted */
            if (is_kid(cur->pid))
                return false;
            /* an orphan that kept the session or group of a run still
             * going is that run's to clean up; any other left its run */
            return !is_kid(p->sid) && !is_kid(p->pgrp);
        }
        if (cur->ppid <= 1 || !(cur = find_pinfo(tab, n, cur->ppid)))
            return false; /* not ours; or its parent just went (the next round sees it) */
    }
    return false;
}

/* SIGKILL to the process p describes, and not to one that took its pid
 * since: through a pidfd checked against p's start time, where the
 * kernel has them. */
static void kill_exact(const pinfo_t *p)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    int fd = open_pidfd(p->pid);
    pinfo_t now;

    if (fd >= 0) {
        if (read_pinfo(p->pid, &now) && now.start == p->start)
            (void)syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
        close(fd);
        return;
    }
    if (errno == ESRCH)
        return; /* gone: its pid may be someone else's already */
#endif
    kill(p->pid, SIGKILL);
}

/* Rounds of scan-and-kill after a run, and the pause after a round that
 * found something (milliseconds, doubling): killed processes need a moment
 * to die and be re-parented to us. */
#define KILL_ROUNDS 60
#define KILL_PAUSE_MIN_MS 1
#define KILL_PAUSE_MAX_MS 50

/* Kill and reap whatever is left of the run whose child is leader; the
 * child itself is unreaped (its pid, session and group stay reserved) and
 * left to the caller.  Bounded: a process stuck in the kernel that
 * survives SIGKILL for seconds is given up on. */
static void kill_descendants(pid_t leader)
{
    pid_t self = getpid();
    int pause_ms = KILL_PAUSE_MIN_MS, round;

    pthread_rwlock_wrlock(&spawn_lock);
    for (round = 0; round < KILL_ROUNDS; round++) {
        size_t n, i, found = 0;
        pinfo_t *tab = scan_procs(&n);

        for (i = 0; i < n; i++) {
            const pinfo_t *p = &tab[i];

            if (p->pid == self || p->pid == leader)
                continue;
            if (p->state == 'Z' || p->state == 'X') {
                /* an adopted orphan that died: ours to reap, whoever's it
                 * was; one of the run's whose parent is still dying comes
                 * to us next */
                if (p->ppid == self && !is_kid(p->pid))
                    (void)waitpid(p->pid, NULL, WNOHANG);
                else if (p->ppid != self && belongs_to(tab, n, p, self, leader))
                    found++;
                continue;
            }
            if (belongs_to(tab, n, p, self, leader)) {
                kill_exact(p);
                found++;
            }
        }
        free(tab);
        if (!found)
            break;
        {
            struct timespec ts = { 0, (long)pause_ms * 1000000L };

            nanosleep(&ts, NULL);
        }
        pause_ms = pause_ms * 2 > KILL_PAUSE_MAX_MS ? KILL_PAUSE_MAX_MS : pause_ms * 2;
    }
    pthread_rwlock_unlock(&spawn_lock);
}

/* SIGKILL to the child's group and, once the child has died (it stays
 * unreaped, so its pid, group and session cannot be reused), to whatever
 * else is left of the run. */
static void end_child(pid_t pid)
{
    siginfo_t si;

    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    memset(&si, 0, sizeof si);
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0 && errno == EINTR)
        ;
    kill_descendants(pid);
}

/* ---- starting the child --------------------------------------------------------------- */

/* posix_spawn: the child leads a new session (so a process group of its
 * own, which it keeps after setpgid() calls of its descendants), stdin
 * from /dev/null, stdout and stderr onto the pipes, nothing else open,
 * signals at their defaults.  0 and *pid set, or the errno of the failed
 * spawn (*pid untouched). */
static int spawn_posix(const ctk_proc_spec_t *spec, const char *prog, const char *const *envp, int out_w,
                       int err_w, pid_t *pid, bool *setup_failed)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    bool fa_ok = false, attr_ok = false;
    sigset_t sigs;
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    int rc;

    *setup_failed = true;
    if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
        goto out;
    fa_ok = true;
    if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, out_w, 1)) != 0 ||
        (rc = posix_spawn_file_actions_adddup2(&fa, err_w, 2)) != 0)
        goto out;
    if (spec->cwd && (rc = posix_spawn_file_actions_addchdir_np(&fa, spec->cwd)) != 0)
        goto out;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    /* descriptors someone opened without O_CLOEXEC stay out of the child */
    if ((rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3)) != 0)
        goto out;
#endif
    if ((rc = posix_spawnattr_init(&attr)) != 0)
        goto out;
    attr_ok = true;
    sigfillset(&sigs);
    sigdelset(&sigs, SIGKILL);
    sigdelset(&sigs, SIGSTOP);
    if ((rc = posix_spawnattr_setsigdefault(&attr, &sigs)) != 0)
        goto out;
    sigemptyset(&sigs);
#ifdef POSIX_SPAWN_SETSID
    flags |= POSIX_SPAWN_SETSID;
#else
    flags |= POSIX_SPAWN_SETPGROUP;
    if ((rc = posix_spawnattr_setpgroup(&attr, 0)) != 0)
        goto out;
#endif
    if ((rc = posix_spawnattr_setsigmask(&attr, &sigs)) != 0 || (rc = posix_spawnattr_setflags(&attr, flags)) != 0)
        goto out;
    *setup_failed = false;
    rc = posix_spawn(pid, prog, &fa, &attr, (char *const *)spec->argv, (char *const *)envp);
out:
    if (attr_ok)
        posix_spawnattr_destroy(&attr);
    if (fa_ok)
        posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/* What the child of spawn_fork() reports through its status pipe when it
 * cannot exec; nothing (EOF at the exec) when it could. */
enum { STEP_SETUP = 1, STEP_IDENTITY, STEP_CWD, STEP_EXEC };
typedef struct {
    int step;
    int err;
} child_fail_t;

static void close_from(int lo, int hi)
{
    if (lo > hi)
        return;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0) == 0)
        return;
#endif
    {
        struct rlimit rl;
        long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;

        if (max > 1048576)
            max = 1048576;
        for (long fd = lo; fd <= hi && fd < max; fd++)
            close((int)fd);
    }
}

static void __attribute__((noreturn)) child_fail(int status_w, int step)
{
    child_fail_t f;
    ssize_t n;

    f.step = step;
    f.err = errno;
    do
        n = write(status_w, &f, sizeof f);
    while (n < 0 && errno == EINTR);
    _exit(127);
}

/* The child of spawn_fork(), between fork and exec: async-signal-safe
 * calls only (the parent may have other threads, whose locks are frozen
 * here).  The order matters: the identity is dropped before chdir, so the
 * child can only stand in a directory its new user may enter. */
static void __attribute__((noreturn)) child_exec(const ctk_proc_spec_t *spec, const char *prog,
                                                 const char *const *envp, int out_w, int err_w, int status_w)
{
    struct sigaction dfl;
    sigset_t none;
    int s, null_fd;

    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            (void)sigaction(s, &dfl, NULL); /* glibc's own two signals refuse: they are not ours */
    if (setsid() < 0)
        child_fail(status_w, STEP_SETUP);
    if ((null_fd = open("/dev/null", O_RDONLY)) < 0 || (null_fd != 0 && dup2(null_fd, 0) < 0) ||
        dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        child_fail(status_w, STEP_SETUP);
    /* status_w (close-on-exec) stays until the exec; nothing else beyond 2 */
    close_from(3, status_w - 1);
    close_from(status_w + 1, INT_MAX);
    if (spec->run_as) {
        if (setgroups(0, NULL) != 0 || setgid(spec->run_as_gid) != 0 || setuid(spec->run_as_uid) != 0)
            child_fail(status_w, STEP_IDENTITY);
        /* no way back, and no set-user-ID program gives root back either */
        if (getuid() != spec->run_as_uid || geteuid() != spec->run_as_uid || getgid() != spec->run_as_gid ||
            getegid() != spec->run_as_gid || (spec->run_as_uid != 0 && setuid(0) == 0)) {
            errno = EPERM;
            child_fail(status_w, STEP_IDENTITY);
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
            child_fail(status_w, STEP_IDENTITY);
    }
    if (spec->cwd && chdir(spec->cwd) != 0)
        child_fail(status_w, STEP_CWD);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(prog, (char *const *)spec->argv, (char *const *)envp);
    child_fail(status_w, STEP_EXEC);
}

/* fork + exec, for what posix_spawn cannot do (a new identity).  0 and
 * *pid set when the child exec'd; else the errno, with *fail_step saying
 * which step failed (the child is reaped). */
static int spawn_fork(const ctk_proc_spec_t *spec, const char *prog, const char *const *envp, int out_w, int err_w,
                      pid_t *pid, int *fail_step)
{
    int status[2] = { -1, -1 }, rc = 0, st;
    sigset_t all, old;
    child_fail_t f;
    ssize_t n;
    pid_t child;

    *fail_step = STEP_SETUP;
    if (!make_pipe(status))
        return errno ? errno : EMFILE;
    /* the child must not run our handlers before it has reset them */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    child = fork();
    if (child == 0)
        child_exec(spec, prog, envp, out_w, err_w, status[1]);
    rc = child < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close_fd(&status[1]);
    if (child < 0) {
        close_fd(&status[0]);
        return rc;
    }
    /* the read end is non-blocking (make_pipe): wait for EOF or a report */
    for (;;) {
        struct pollfd p = { status[0], POLLIN, 0 };

        n = read(status[0], &f, sizeof f);
        if (n >= 0 || (errno != EAGAIN && errno != EINTR))
            break;
        (void)poll(&p, 1, -1);
    }
    close_fd(&status[0]);
    if (n == (ssize_t)sizeof f) {
        while (waitpid(child, &st, 0) < 0 && errno == EINTR)
            ;
        *fail_step = f.step;
        return f.err ? f.err : EPERM;
    }
    *pid = child;
    return 0;
}

/* ---- running one program --------------------------------------------------------- */

/* One run of ctk_proc_run(), from the spec's checks to the result. */
typedef struct {
    const ctk_proc_spec_t *spec;
    ctk_proc_result_t *r;
    ctk_error_t *err;
    const char *const *envp;  /* spec->envp, or an empty one */
    char *found;              /* argv[0] as found in the child's PATH */
    int outp[2], errp[2];     /* the pipes; the streams own the read ends */
    stream_t s[2];            /* stdout, stderr */
    pid_t pid;                /* the child, until it is reaped; -1 */
    int pidfd;
    bool registered;          /* pid is in the kids table */
    bool stopping;            /* interrupted: the group has had SIGTERM */
    double t0, deadline;      /* deadline 0: none */
} run_t;

static void run_init(run_t *run, const ctk_proc_spec_t *spec, ctk_proc_result_t *r, ctk_error_t *err)
{
    static const char *const no_env[] = { NULL };
    size_t i;

    memset(run, 0, sizeof *run);
    run->spec = spec;
    run->r = r;
    run->err = err;
    run->envp = spec->envp ? spec->envp : no_env;
    run->outp[0] = run->outp[1] = run->errp[0] = run->errp[1] = -1;
    run->pid = -1;
    run->pidfd = -1;
    run->t0 = now_s();
    for (i = 0; i < 2; i++) {
        run->s[i].fd = -1;
        ctk_buf_init(&run->s[i].buf);
        run->s[i].cap = spec->max_output ? spec->max_output : DEFAULT_MAX_OUTPUT;
    }
}

/* A spec that can run now: an argv, a timeout for a cleanup step, and no
 * interrupt (after one, only cleanup steps start). */
static bool may_start(const ctk_proc_spec_t *spec, ctk_error_t *err)
{
    if (!spec->argv || !spec->argv[0]) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "ctk_proc_run: empty argv");
        return false;
    }
    if (spec->cleanup && spec->timeout_s <= 0) {
        ctk_error_set(err, CTK_E_INTERNAL, NULL, 0, 0, "ctk_proc_run: a cleanup step needs a timeout");
        return false;
    }
    if (ctk_proc_interrupted() && !spec->cleanup) {
        set_interrupted(err, spec->argv[0], false); /* nothing new starts */
        return false;
    }
    return true;
}

/* argv[0] is found in the child's PATH, not ours (execvp would use ours).
 * A path is checked here too: where posix_spawn cannot report a failed
 * exec (older libcs, valgrind) the child would just exit 127.  With
 * run_as the search is ctkgen's (root's): a program only the new user may
 * not run is an exec error (EACCES), reported as a result.  1 found, 0 not
 * (r->spawn_errno says why), -1 error. */
static int find_program(run_t *run)
{
    const char *path_var = NULL;
    int why = 0;
    size_t i;

    for (i = 0; run->envp[i]; i++)
        if (strncmp(run->envp[i], "PATH=", 5) == 0)
            path_var = run->envp[i] + 5;
    run->found = ctk_env_path_search(path_var, run->spec->argv[0], run->spec->cwd, &why, run->err);
    if (run->found)
        return 1;
    if (why == ENOMEM)
        return -1;
    run->r->spawn_errno = why ? why : ENOENT;
    return 0;
}

static bool open_streams(run_t *run)
{
    if (!make_pipe(run->outp) || !make_pipe(run->errp)) {
        ctk_error_set(run->err, CTK_E_ENV, NULL, 0, 0, "cannot create a pipe: %s", strerror(errno));
        return false;
    }
    /* the streams own the read ends from here on */
    run->s[0].fd = run->outp[0];
    run->s[1].fd = run->errp[0];
    run->outp[0] = run->errp[0] = -1;
    if (!kids_reserve()) {
        ctk_error_nomem(run->err);
        return false;
    }
    return true;
}

/* What a failed spawn (rc, the errno) means: 0 a result (r->spawn_errno:
 * the program could not be started), -1 ctkgen's own failure (err). */
static int spawn_failed(run_t *run, int rc, int step, bool setup_failed)
{
    const ctk_proc_spec_t *spec = run->spec;

    if (spec->run_as) {
        if (step == STEP_EXEC || step == STEP_CWD) {
            run->r->spawn_errno = rc; /* as posix_spawn reports them */
            return 0;
        }
        if (step == STEP_IDENTITY)
            ctk_error_set(run->err, CTK_E_ENV, NULL, 0, 0, "cannot run %s as uid %u gid %u: %s", spec->argv[0],
                          (unsigned)spec->run_as_uid, (unsigned)spec->run_as_gid, strerror(rc));
        else
            ctk_error_set(run->err, rc == ENOMEM ? CTK_E_NOMEM : CTK_E_ENV, NULL, 0, 0, "cannot start %s: %s",
                          spec->argv[0], strerror(rc));
        return -1;
    }
    if (setup_failed) {
        ctk_error_set(run->err, rc == ENOMEM ? CTK_E_NOMEM : CTK_E_ENV, NULL, 0, 0,
                      "cannot set up process spawning: %s", strerror(rc));
        return -1;
    }
    if (spawn_machinery_errno(rc)) {
        ctk_error_set(run->err, CTK_E_ENV, NULL, 0, 0, "cannot start %s: %s", spec->argv[0], strerror(rc));
        return -1;
    }
    run->r->spawn_errno = rc;
    return 0;
}

/* Spawn the child (as another user with run_as) and register it.  1
 * started, 0 could not be started (a result), -1 error. */
static int start_child(run_t *run)
{
    const ctk_proc_spec_t *spec = run->spec;
    bool setup_failed = false;
    int rc, step = 0;

    pthread_rwlock_rdlock(&spawn_lock);
    if (spec->run_as)
        rc = spawn_fork(spec, run->found, run->envp, run->outp[1], run->errp[1], &run->pid, &step);
    else
        rc = spawn_posix(spec, run->found, run->envp, run->outp[1], run->errp[1], &run->pid, &setup_failed);
    if (rc == 0) {
        kids_add(run->pid);
        run->registered = true;
    }
    pthread_rwlock_unlock(&spawn_lock);
    close_fd(&run->outp[1]);
    close_fd(&run->errp[1]);
    if (rc != 0) {
        run->pid = -1;
        return spawn_failed(run, rc, step, setup_failed);
    }
    /* both spawns return after the exec, so the session and group exist now */
    run->pidfd = open_pidfd(run->pid);
    if (spec->timeout_s > 0)
        run->deadline = run->t0 + spec->timeout_s;
    return 1;
}

/* The poll set of one wait: the open streams, the pidfd (or, without one,
 * a timeout that backs off) and the interrupt pipe until the child is
 * being stopped.  Returns how many entries; *timeout in ms for poll. */
static nfds_t poll_set(run_t *run, struct pollfd pfd[4], int *timeout, int *backoff)
{
    nfds_t n = 0;
    size_t i;

    *timeout = ms_until(run->deadline);
    for (i = 0; i < 2; i++) {
        if (run->s[i].fd >= 0) {
            pfd[n].fd = run->s[i].fd;
            pfd[n].events = POLLIN;
            pfd[n].revents = 0;
            n++;
        }
    }
    if (run->pidfd >= 0) {
        pfd[n].fd = run->pidfd;
        pfd[n].events = POLLIN;
        pfd[n].revents = 0;
        n++;
    } else if (*timeout < 0 || *timeout > *backoff) {
        *timeout = *backoff;
        *backoff = *backoff * 2 > POLL_MAX_MS ? POLL_MAX_MS : *backoff * 2;
    }
    if (intr_pipe[0] >= 0 && !run->stopping) {
        pfd[n].fd = intr_pipe[0];
        pfd[n].events = POLLIN;
        pfd[n].revents = 0;
        n++;
    }
    return n;
}

/* Read its output until the child exits, the deadline passes (timed_out)
 * or an interrupt's grace ends.  false only for a failed poll. */
static bool watch_child(run_t *run)
{
    int backoff = POLL_MIN_MS;

    for (;;) {
        struct pollfd pfd[4];
        int timeout;
        nfds_t n = poll_set(run, pfd, &timeout, &backoff);
        size_t i;

        if (poll(pfd, n, timeout) < 0 && errno != EINTR) {
            ctk_error_set(run->err, CTK_E_ENV, NULL, 0, 0, "poll: %s", strerror(errno));
            return false;
        }
        for (i = 0; i < 2; i++)
            if (run->s[i].fd >= 0)
                pump(&run->s[i], READS_PER_WAKE);
        if (child_exited(run->pid))
            return true;
        if (!run->stopping && !run->spec->cleanup && ctk_proc_interrupted()) {
            /* a chance to clean up, then the deadline below ends it;
             * SIGCONT: a stopped process acts on SIGTERM only once resumed */
            run->stopping = true;
            kill(-run->pid, SIGTERM);
            kill(-run->pid, SIGCONT);
            run->deadline = now_s() + STOP_GRACE_S;
            continue;
        }
        if (run->deadline > 0 && now_s() >= run->deadline) {
            run->r->timed_out = !run->stopping;
            return true;
        }
    }
}

/* At the deadline: the whole group, then every other descendant.  After a
 * normal exit: stragglers.  The child is unreaped until here, so -pid is
 * still its group and its session.  Then the rest of its output and how it
 * ended.  false: its status was lost, or an interrupt stopped it. */
static bool settle_child(run_t *run)
{
    int status;
    size_t i;

    end_child(run->pid);
    if (!reap(run->pid, &status)) {
        kids_remove(run->pid);
        run->registered = false;
        run->pid = -1;
        ctk_error_set(run->err, CTK_E_ENV, NULL, 0, 0, "lost the exit status of %s: %s", run->spec->argv[0],
                      strerror(errno));
        return false;
    }
    kids_remove(run->pid);
    run->registered = false;
    run->pid = -1;
    if (run->stopping) {
        atomic_fetch_add(&intr_stopped, 1);
        set_interrupted(run->err, run->spec->argv[0], true);
        return false;
    }
    /* every writer is gone: what is left in the pipes ends in EOF */
    for (i = 0; i < 2; i++)
        pump(&run->s[i], DRAIN_READS);
    if (WIFEXITED(status)) {
        run->r->exit_status = WEXITSTATUS(status);
        run->r->timed_out = false; /* it exited by itself just as time ran out */
    } else if (WIFSIGNALED(status)) {
        run->r->term_signal = WTERMSIG(status);
    }
    return true;
}

/* The captured streams into the result, NUL-terminated. */
static bool take_output(run_t *run)
{
    ctk_proc_result_t *r = run->r;
    size_t i;

    for (i = 0; i < 2; i++) {
        if (run->s[i].buf.failed || !ctk_buf_append(&run->s[i].buf, "", 0)) {
            ctk_error_nomem(run->err);
            return false;
        }
    }
    r->truncated = run->s[0].truncated || run->s[1].truncated;
    r->out = ctk_buf_take(&run->s[0].buf, &r->out_len);
    r->err = ctk_buf_take(&run->s[1].buf, &r->err_len);
    r->seconds = now_s() - run->t0;
    return true;
}

static void run_fini(run_t *run)
{
    int status;
    size_t i;

    if (run->pid > 0) {
        /* an error after a successful spawn: nothing may outlive the call */
        end_child(run->pid);
        reap(run->pid, &status);
        if (run->registered)
            kids_remove(run->pid);
    }
    if (run->pidfd >= 0)
        close(run->pidfd);
    close_fd(&run->outp[0]);
    close_fd(&run->outp[1]);
    close_fd(&run->errp[0]);
    close_fd(&run->errp[1]);
    for (i = 0; i < 2; i++) {
        close_fd(&run->s[i].fd);
        ctk_buf_fini(&run->s[i].buf);
    }
    free(run->found);
}

bool ctk_proc_run(const ctk_proc_spec_t *spec, ctk_proc_result_t *r, ctk_error_t *err)
{
    run_t run;
    bool ok = false;
    int got;

    ctk_proc_result_fini(r);
    run_init(&run, spec, r, err);
    if (!may_start(spec, err))
        goto out;
    pthread_once(&subreaper_once, become_subreaper);
    /* not found, or not started: a result with spawn_errno, no output */
    if ((got = find_program(&run)) < 0)
        goto out;
    if (got && (!open_streams(&run) || (got = start_child(&run)) < 0))
        goto out;
    if (got && (!watch_child(&run) || !settle_child(&run)))
        goto out;
    ok = take_output(&run);
out:
    run_fini(&run);
    if (!ok)
        ctk_proc_result_fini(r);
    return ok;
}
