/* proc.h - run one program with a given environment, a deadline and captured output.
 * SPDX-License-Identifier: MIT
 *
 * Used for every probe step (cc, nvcc, c++, the probes, tclsh modulecmd.tcl).
 * Contract:
 *   - the child gets exactly spec->envp (no inheritance), stdin from
 *     /dev/null, stdout and stderr captured through pipes (O_CLOEXEC, so
 *     concurrent runs from other threads never hold each other's pipes);
 *   - argv[0] without a '/' is looked up in the PATH of spec->envp (not
 *     ctkgen's own PATH; execvp's "/bin:/usr/bin" when envp has none;
 *     relative entries count from spec->cwd); not found is a result
 *     (spawn_errno = ENOENT, or EACCES when only non-executable files
 *     matched), not an error;
 *   - the child leads its own session, so its own process group; at the
 *     deadline the whole group gets SIGKILL (nvcc's cicc/ptxas too);
 *   - every descendant: ctkgen makes itself a child subreaper at the first
 *     run, so an orphan is re-parented to ctkgen, never to init.  When the
 *     child has exited or been killed, whatever is left of the run is
 *     killed and reaped before the call returns: its session and group
 *     (setpgid() cannot leave a session), anything with the child among
 *     its ancestors, and orphans re-parented to ctkgen that kept no other
 *     running call's session or group (a setsid() escape).  Zombies
 *     re-parented to ctkgen are reaped.  So no process of a run outlives
 *     the call, whatever it does with setsid() or setpgid(); a process
 *     that survives SIGKILL for seconds (stuck in the kernel) is given up;
 *   - descriptors: the child has 0, 1 and 2 only;
 *   - run_as: the child drops to run_as_uid/run_as_gid with no
 *     supplementary groups (setgroups, setgid, setuid, in the child, never
 *     in ctkgen) and no way back (PR_SET_NO_NEW_PRIVS: no set-user-ID
 *     program gives root back) before it changes to cwd and execs; a
 *     child that cannot drop is never exec'd (CTK_E_ENV).  Needs ctkgen to
 *     run as root.  cwd must be a directory the new user may enter (else
 *     spawn_errno); argv[0] is searched for as ctkgen, and one the new
 *     user may not run is spawn_errno EACCES;
 *   - safe to call from several threads at once (posix_spawn; the only
 *     shared state, the children of running calls, is under locks); signal dispositions and mask are reset to defaults in the
 *     child (glibc itself leaves its two internal signals, 32 and 33,
 *     ignored; glibc programs never see those);
 *   - a descendant that still holds the pipes when the child exits is
 *     killed, not waited for: what it wrote until then is kept;
 *   - SIGCHLD must not be ignored (the exit status would be lost);
 *     ctk_proc_catch_interrupts() sees to that for the commands that run
 *     children;
 *   - ctkgen must start no child by other means while a call runs in
 *     another thread: a child of ctkgen that no call started reads as an
 *     adopted orphan, and is killed.
 * Errors (false returned) are ctkgen's own failures only: pipe/spawn
 * machinery (CTK_E_ENV), allocation (CTK_E_NOMEM), an interrupt (CTK_E_ENV,
 * with ctk_proc_interrupted() != 0).
 *
 * Interrupts.  A command that runs children calls
 * ctk_proc_catch_interrupts() before it makes its temp dirs.  From then on
 * SIGINT, SIGTERM and SIGHUP only set a flag (no SA_RESTART: a blocking
 * call they hit returns EINTR) and wake every ctk_proc_run() in every
 * thread: each sends its child's group SIGTERM (and SIGCONT, for a
 * stopped child), SIGKILL after a grace of one second, reaps the child
 * and returns false; later calls start nothing.  The work done in
 * process asks the flag too: lint's walk before each entry, .pc
 * resolution (pc.c) before each file and at each visit, a Lua run
 * (luahost.c) at each hook and metered call; each then fails with
 * CTK_E_ENV.  The caller unwinds as for
 * any error (temp dirs removed), then calls ctk_proc_release_interrupts()
 * and ctk_proc_reraise(), so ctkgen dies of the signal it got and the
 * shell sees 128 + its number (130 for SIGINT).  A signal that was ignored
 * when ctkgen started stays ignored (nohup keeps working).
 */
#ifndef CTK_PROC_H
#define CTK_PROC_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    const char *const *argv;  /* NULL-terminated */
    const char *const *envp;  /* NULL-terminated; NULL: empty environment */
    const char *cwd;          /* NULL: ctkgen's cwd */
    double timeout_s;         /* <= 0: no deadline */
    size_t max_output;        /* per stream; 0: 1 MiB.  Excess is read and dropped */
    bool run_as;              /* run the child as run_as_uid:run_as_gid (see above) */
    uid_t run_as_uid;
    gid_t run_as_gid;
    bool cleanup;             /* undoes what an interrupted run started (scancel
                               * of the jobs it submitted): runs even after an
                               * interrupt, to its timeout, which must be set */
} ctk_proc_spec_t;

typedef struct {
    int spawn_errno;    /* != 0: the program could not be started (ENOENT, EACCES...) */
    int exit_status;    /* when it exited */
    int term_signal;    /* != 0: killed by this signal */
    bool timed_out;     /* we killed it at the deadline */
    bool truncated;     /* some output was dropped */
    char *out;          /* stdout, NUL-terminated (never NULL after success) */
    size_t out_len;
    char *err;          /* stderr, same */
    size_t err_len;
    double seconds;     /* wall time */
} ctk_proc_result_t;

void ctk_proc_result_init(ctk_proc_result_t *r);
void ctk_proc_result_fini(ctk_proc_result_t *r);
/* true: ran (whatever its outcome) and *r filled; r must be initialised. */
bool ctk_proc_run(const ctk_proc_spec_t *spec, ctk_proc_result_t *r, ctk_error_t *err);
/* Ran to completion with exit status 0. */
bool ctk_proc_ok(const ctk_proc_result_t *r);
/* One line describing a failed run, for findings: "exit status 1",
 * "killed by signal 11", "timed out after 30 s", "cannot run: No such
 * file or directory".  Static or r-owned storage: copy it. */
const char *ctk_proc_describe(const ctk_proc_result_t *r, double timeout_s, char *buf, size_t bufsz);

/* Catch SIGINT, SIGTERM and SIGHUP (those not ignored) and let SIGCHLD
 * have its default action; clears an earlier interrupt.  Call from the
 * main thread before any worker thread starts.  false: no pipe (CTK_E_ENV). */
bool ctk_proc_catch_interrupts(ctk_error_t *err);
/* The first signal caught since ctk_proc_catch_interrupts(); 0: none.
 * Safe from any thread; stays set after ctk_proc_release_interrupts(). */
int ctk_proc_interrupted(void);
/* How many running children an interrupt stopped. */
unsigned ctk_proc_stopped_count(void);
/* Put back the dispositions ctk_proc_catch_interrupts() replaced.  Call
 * once every thread that runs children has finished. */
void ctk_proc_release_interrupts(void);
/* Flush stdio and die of signo with its default action; returns only if
 * that did not kill the process (the caller then exits 128 + signo). */
void ctk_proc_reraise(int signo);
/* "SIGINT" for 2; "signal N" when the name is unknown. */
const char *ctk_proc_signal_name(int signo, char *buf, size_t bufsz);
/* "interrupted by SIGINT; stopped 2 running probes": the signal caught
 * and ctk_proc_stopped_count(), for the command's last message. */
const char *ctk_proc_describe_interrupt(char *buf, size_t bufsz);

#endif
