/* validate.h - prove each generated artifact lets a user build and run CUDA code.
 * SPDX-License-Identifier: MIT
 *
 * For every SDK and every artifact in OUT (the Lua modulefile, the Tcl
 * modulefile, the ctk-<version>.pc):
 *   1. the environment it really produces: Lua in the modeval sandbox
 *      (and real Lmod when asked), Tcl by real Environment Modules, the .pc
 *      by libpkgconf; Lua and Tcl must agree;
 *   2. modules: host `cc host_probe.c -lcudart` and `nvcc probe.cu` with
 *      nothing but the module's environment (no -I/-L);
 *   3. .pc: `nvcc -c probe.cu $(cflags)`, then `c++ probe.o $(libs)` and
 *      `nvcc probe.o $(libs)` (Libs must work verbatim for both), in an
 *      environment with no CPATH/LIBRARY_PATH/LD_LIBRARY_PATH;
 *   4. launch each built probe and check its report: the libcudart really
 *      loaded, versions (module name, .pc Version, nvcc, CUDART_VERSION,
 *      loaded runtime), the kernel's result, the GPU, the driver;
 *   5. host compiler limits (facts.h) and nvcc's own refusal.
 * Modulefiles are code: as root, Environment Modules (and real Lmod) run
 * them as an unprivileged user (sandbox.h); a Tcl file that user cannot
 * read is a CTK-SKIP-004 skip, never a load as root, unless trust_tcl and
 * only root can change it.
 * Verdicts: FAIL when any error-level finding; else SKIP when a part could
 * not run here (no driver or GPU for the launch, no Environment Modules for
 * Tcl, a Tcl file the unprivileged user cannot read); else PASS.  A skip is never a pass; --require-launch makes a launch
 * skip a failure.  Skips differ in what they leave unknown
 * (ctk_vart_skip_kind): a launch skip follows a checked environment, build
 * and link; a Tcl modulefile that was never evaluated was not checked at all.
 *
 * Probes are built in private temp dirs (mkdtemp under $TMPDIR, mode 0700),
 * removed afterwards; every step runs in a clean environment with a
 * timeout, and its process group is killed at the deadline: a probe that
 * hangs or crashes is a finding.  SDKs run in parallel (opts->jobs threads).
 * After an interrupt (proc.h: the caller catches the signals) the running
 * steps are stopped, no SDK is started, the temp dirs are removed and
 * ctk_validate() returns false; nothing is cached from that run.
 * Results that are not failures are cached (cache.h), keyed on every input
 * that could change them.
 * The SDK's nvcc and host_compiler.ccbin come from the admin's site config
 * and are run whoever owns them, but one that ctk_trust_exec() (trust.h)
 * refuses gets the warning CTK-TRUST-002 (judged on every run, never from
 * the cache); no verdict changes.
 */
#ifndef CTK_VALIDATE_H
#define CTK_VALIDATE_H

#include "config.h"
#include "diag.h"
#include "env.h"
#include "error.h"
#include "probeio.h"
#include "proc.h"
#include "sdk.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum { CTK_ART_LMOD, CTK_ART_TCL, CTK_ART_PC, CTK_ART__COUNT } ctk_art_t;
typedef enum { CTK_VERDICT_PASS, CTK_VERDICT_SKIP, CTK_VERDICT_FAIL } ctk_verdict_t;

const char *ctk_art_name(ctk_art_t a);          /* "lmod" "tcl" "pc" */
const char *ctk_verdict_name(ctk_verdict_t v);  /* "pass" "skip" "fail" */

/* What a SKIP left unchecked. */
typedef enum {
    CTK_SKIP_NONE,      /* not a skip */
    CTK_SKIP_LAUNCH,    /* CTK-SKIP-001, -002, -005: environment, build and link
                         * were checked; only the kernel launch did not happen
                         * (no driver or GPU there, or the partition's job did
                         * not run) */
    CTK_SKIP_UNCHECKED  /* CTK-SKIP-003, or a skip with a code this ctkgen does
                         * not class: the artifact was never evaluated, nothing
                         * about it is known */
} ctk_skip_kind_t;

typedef struct {
    ctk_art_t kind;
    char *file;               /* the artifact's path */
    ctk_verdict_t verdict;
    char *skip_code;          /* SKIP: "CTK-SKIP-001"...; NULL otherwise */
    char *skip_reason;        /* SKIP: one line */
    bool cached;              /* verdict read from the cache */
    double seconds;
    ctk_findings_t findings;
    ctk_env_t env;            /* lmod/tcl: every variable the module sets, as set
                               * (unset ones absent); pc: empty */
    ctk_strlist_t cflags;     /* pc: as libpkgconf resolves them */
    ctk_strlist_t libs;
    char *pc_version;         /* pc: Version:; NULL otherwise */
    char *nvcc;               /* the nvcc used (module's PATH / the .pc's sdk) */
    char *nvcc_release;       /* "13.0" from its --version; NULL if unknown */
    char *built_by;           /* lmod/tcl: "pc" when the .pc's compile stands for
                               * this module's own nvcc run (the environment nvcc
                               * sees is provably the same), "lmod" when the Tcl
                               * module runs the probes built for the Lua one;
                               * NULL when it ran its own */
    char *linked_by;          /* lmod/tcl: "pc" when the CUDA program this module's
                               * check ran is the .pc's, whose link provably took
                               * the files the module's own would take and whose
                               * program loads, in the module's environment, the
                               * libraries the module's own would load; NULL when
                               * it was linked for the module */
    ctk_probe_report_t host;  /* lmod/tcl: the host C probe */
    ctk_probe_report_t cuda;  /* the .cu probe */
    ctk_probe_report_t sass;  /* pc, where a GPU may run it: probe.cu with SASS for
                               * every architecture the toolkit knows, no PTX */
    ctk_probe_report_t ptx;   /* ... and with PTX of its oldest architecture alone */
    bool launched;            /* a kernel ran on a GPU and its result was checked */
} ctk_vart_t;

/* The kind of a's skip, from its verdict and skip code. */
ctk_skip_kind_t ctk_vart_skip_kind(const ctk_vart_t *a);

typedef struct {
    char *module;             /* "cudatoolkit/13.0" */
    char *pc_name;            /* "ctk-13.0" */
    char *version;            /* the toolkit's own: "13.0.0" or "13.0" */
    char *root;
    char key[33];             /* with a stage dir: the hash of every input of its
                               * local checks (artifacts, toolkit, probes,
                               * compilers), for a launcher's own cache; "" when
                               * an artifact was refused */
    ctk_vart_t art[CTK_ART__COUNT];
    ctk_verdict_t verdict;    /* worst of the artifacts: FAIL > SKIP > PASS */
    double seconds;
} ctk_vsdk_t;

/* A probe built here and staged for a launcher to run elsewhere
 * (ctk_vopts_t.stage_dir): the Slurm launcher (remote.h) runs it on each
 * partition's node and judges the run with ctk_validate_judge_run(). */
typedef enum { CTK_PROBE_HOST, CTK_PROBE_CUDA, CTK_PROBE_SASS, CTK_PROBE_PTX } ctk_probe_kind_t;
typedef struct {
    size_t sdk;               /* index into the report's sdks */
    ctk_art_t art;
    ctk_probe_kind_t probe;
    char *name;               /* what findings call it: "probe_lmod" */
    char *exe;                /* the staged copy (absolute) */
    ctk_strlist_t env;        /* NAME=VALUE, the whole environment it runs in */
} ctk_vlaunch_t;

/* How one partition's job went (the Slurm launcher fills these). */
typedef enum {
    CTK_PART_RAN,            /* the job ran; its probes' results are in the cells */
    CTK_PART_NOT_SUBMITTED,  /* sbatch refused it: reason holds sbatch's words */
    CTK_PART_PENDING_TIMEOUT,/* pending past the queue timeout, then cancelled: reason is Slurm's pending reason */
    CTK_PART_LOST,           /* it ended without results (node failure, time limit, stage dir not visible) */
    CTK_PART_CANCELLED       /* cancelled by ctkgen (run timeout) before it finished */
} ctk_part_state_t;

const char *ctk_part_state_name(ctk_part_state_t s); /* "ran", "not_submitted", ... */

typedef struct {
    char *name;
    char *gres_request;       /* what the job asked: "gpu:1" */
    char *gres;               /* what sinfo says its nodes advertise; NULL: none */
    char *features;
    char *job_id;             /* NULL: never submitted */
    ctk_part_state_t state;
    char *reason;             /* why not ran; NULL when ran */
    char *node;               /* SLURMD_NODENAME in the job */
    char *host;               /* uname -n in the job */
    char *cvd;                /* CUDA_VISIBLE_DEVICES in the job; NULL: unset */
    char *gpu;                /* from the first CUDA probe that reported one */
    int cc_major, cc_minor;
    int driver;               /* CUDA version the driver supports (12040); 0: none */
    char *nvidia;             /* the node's /proc/driver/nvidia/version after "NVRM version: "; NULL: none */
    double queued_s, ran_s;
    bool cached;              /* its job's records came from the cache */
    double cache_age_s;       /* ... stored this long ago */
} ctk_vpart_t;

typedef struct {
    char *outdir;
    ctk_vsdk_t *sdks;
    size_t n_sdks;
    char *cc, *cxx;           /* host compilers used (absolute) */
    char *cc_version;         /* `cc -dumpfullversion` */
    char *driver;             /* /proc/driver/nvidia/version first line; NULL: none */
    char *tcl_modsys;         /* "Environment Modules 5.2.0 (path)"; NULL: none */
    char *tcl_skip;           /* why Tcl modulefiles were not checked; NULL: they were */
    char *tcl_user;           /* ctkgen is root: who ran the modulefiles ("nobody (uid 65534)"); NULL: not root */
    bool trust_tcl;           /* and Tcl files only root can change ran as root */
    char *cache_warning;      /* results could not be cached: why; NULL: fine */
    char *lmod;               /* "Lmod 8.6.19 (path)" when cross-checking; else NULL */
    int jobs;
    double seconds;
    size_t n_pass, n_skip, n_fail;  /* artifacts */
    size_t n_skip_launch, n_skip_unchecked; /* n_skip by ctk_vart_skip_kind(); they add up to it */
    ctk_vlaunch_t *launches;  /* stage_dir: the probes staged, in no fixed order */
    size_t n_launches;
    /* filled by a launcher elsewhere (remote.h); n_parts 0 for a local run */
    char *launcher;           /* "slurm"; NULL: local */
    bool built_remotely;      /* build "compute": nothing was checked here */
    ctk_vpart_t *parts;
    size_t n_parts;
    ctk_vart_t *cells;        /* [sdk][part][art]: ctk_vreport_cell() */
    size_t m_pass, m_skip, m_fail; /* cells */
    unsigned scheduler_calls, jobs_submitted;
} ctk_vreport_t;

/* The cell of SDK i, partition p, artifact a. */
ctk_vart_t *ctk_vreport_cell(const ctk_vreport_t *r, size_t i, size_t p, ctk_art_t a);

typedef struct {
    const char *outdir;       /* the generated tree */
    const char *modulecmd;    /* modulecmd.tcl; NULL: find it (modenv.h) */
    bool lmod_check;          /* also evaluate Lua with real Lmod; finding if it differs */
    const char *lmod_cmd;     /* libexec/lmod; NULL: find it */
    const char *cc;           /* host C compiler; NULL: "cc" on PATH */
    const char *cxx;          /* host C++ compiler; NULL: "c++" on PATH */
    int jobs;                 /* <= 0: the number of online CPUs */
    double timeout_s;         /* per build or run step; <= 0: 120 */
    bool require_launch;
    bool trust_tcl;           /* as root: a Tcl modulefile only root can change is loaded as root */
    bool no_cache;
    const char *stage_dir;    /* non-NULL: copy every built probe here and list
                               * it in the report's launches; the CUDA probes
                               * are not run here.  Nothing is cached. */
    const char *cache_dir;    /* NULL: $XDG_CACHE_HOME/ctkgen, else ~/.cache/ctkgen */
    /* Where the modules an SDK's module requires (host_compiler.module:
     * prereq) are found, ':'-joined, in search order; NULL or "": nowhere.
     * Such a module is loaded first, as its users must: the sandbox
     * evaluates it, the module systems load it in the same command, and
     * the .pc is built in its environment.  One that cannot be found or
     * loaded makes the SDK's artifacts a CTK-SKIP-006 skip, never a fail. */
    const char *modulepath;
    /* called once per artifact as results arrive (from worker threads,
     * serialised by validate: never concurrently); may be NULL */
    void (*progress)(const ctk_vsdk_t *sdk, ctk_art_t art, void *arg);
    void *progress_arg;
} ctk_vopts_t;

/* Validate the artifacts of every SDK.  sdks[i] belongs to cfg->sdks[i].
 * Returns false only for ctkgen's own failures (no temp dir, no memory,
 * no host compiler); findings never make it fail.  *out is filled either
 * way as far as it got; free with ctk_vreport_fini(). */
bool ctk_validate(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks,
                  const ctk_vopts_t *opts, ctk_vreport_t *out, ctk_error_t *err);
/* Judge a staged probe's run elsewhere as validate judges a local one:
 * how it ended (r: exit status or signal, timed_out, out, err), its
 * report (into cell->host or cell->cuda), the libcudart and versions, and
 * for the CUDA probe the launch (pass, a skip that names `where`, or a GPU
 * finding).  Findings go to cell; its verdict is not settled (call
 * ctk_vart_settle() once every probe of the cell is judged).  false only
 * for internal errors. */
bool ctk_validate_judge_run(const ctk_sdk_t *sdk, const ctk_vlaunch_t *l, const ctk_proc_result_t *r,
                            double timeout_s, bool require_launch, const char *where, ctk_vart_t *cell,
                            ctk_error_t *err);

/* FAIL with an error finding, else SKIP with a skip code, else PASS. */
void ctk_vart_settle(ctk_vart_t *a);

/* The report's SDKs and artifacts named, nothing checked: for a launcher
 * that runs the whole validation elsewhere (remote.h, build "compute"). */
bool ctk_vreport_prepare(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks, const char *outdir,
                         ctk_vreport_t *out, ctk_error_t *err);

void ctk_vreport_init(ctk_vreport_t *r);
void ctk_vreport_fini(ctk_vreport_t *r);

#endif
