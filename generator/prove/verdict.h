/* verdict.h - validate's results: per artifact, per SDK, per partition,
 * for the whole run; their names; and their JSON forms (the --json report,
 * the cache's form of one artifact, a compute node's report read back).
 * SPDX-License-Identifier: MIT
 *
 * validate.c fills these, report.c prints them for people, remote.c
 * fills a run's partitions from the reports its jobs print.  jansson stays
 * in verdict.c: every JSON form here is text.
 *
 * JSON report (verdicts and the summary's counts are explained in
 * docs/diagnostics.md):
 *   { "ctkgen": "<version>", "outdir": ..., "jobs": N, "seconds": S,
 *     "host": { "cc": ..., "cc_version": ..., "cxx": ..., "driver": ...|null,
 *               "tcl": ...|null, "lmod": ...|null },
 *     "summary": { "pass": n, "skip": n, "fail": n,
 *                  "skip_launch": n, "skip_unchecked": n },
 *     "sdks": [ { "module": ..., "pc": ..., "version": ..., "root": ...,
 *                 "verdict": "pass|skip|fail", "seconds": S,
 *                 "artifacts": [ { "kind": "lmod|tcl|pc", "file": ...,
 *                     "verdict": ..., "skip": {"code","reason"}|null,
 *                     "cached": bool, "seconds": S,
 *                     "env": {NAME: VALUE, ...}      (lmod, tcl)
 *                     "cflags": [...], "libs": [...], "pc_version": ... (pc)
 *                     "nvcc": ..., "nvcc_release": ...,
 *                     "host_probe": {...}|null, "cuda_probe": {...}|null,
 *                     "launched": bool,
 *                     "findings": [ {"code","severity","file","line","message","fix"} ] } ] } ] }
 * "skip_launch" and "skip_unchecked" split "skip" by ctk_vart_skip_kind():
 * launch skipped (CTK-SKIP-001, -002) and never evaluated (CTK-SKIP-003).
 * Probe objects carry the probe's own keys (cudart_header, runtime, driver,
 * devices, status, device, cc, kernel_ok, libcudart).
 * Conventions: absent strings are null; "cc" is null when 0.0 (no GPU),
 * "kernel_ok" null for the host probe, a finding's "line" null when
 * unknown; seconds are rounded to milliseconds.  Strings that are not
 * UTF-8 are written with U+FFFD for each byte that starts no valid
 * sequence, so the text is always valid JSON.
 */
#ifndef CTK_VERDICT_H
#define CTK_VERDICT_H

#include "diag.h"
#include "env.h"
#include "error.h"
#include "probeio.h"
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

/* FAIL with an error finding, else SKIP with a skip code, else PASS. */
void ctk_vart_settle(ctk_vart_t *a);
/* An empty result for an artifact of kind: no file, no finding, nothing
 * owned; ctk_vart_fini() frees what it gathers. */
void ctk_vart_init(ctk_vart_t *a, ctk_art_t kind);
/* Free everything a result owns and leave it zeroed with kind kept. */
void ctk_vart_fini(ctk_vart_t *a);

/* A finding of code (diag.h) on a's file at line (0: none), with text
 * from fmt cut at 2047 bytes; false only when out of memory. */
bool ctk_vart_addf(ctk_vart_t *a, const char *code, int line, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

void ctk_vreport_init(ctk_vreport_t *r);
void ctk_vreport_fini(ctk_vreport_t *r);

/* The whole report as JSON text (pretty, sorted as documented above);
 * caller frees. */
char *ctk_vreport_json(const ctk_vreport_t *r, ctk_error_t *err);

/* Cache form of one artifact result: the same object as in the JSON
 * report's "artifacts" array.  from_json fills an artifact record
 * (a->kind must already be set; other members are replaced) and marks it
 * cached; CTK_E_JSON when the text is not what to_json writes (another
 * kind, unknown keys, a code this ctkgen does not know), and then *a is
 * left as it was. */
char *ctk_vart_to_json(const ctk_vart_t *a, ctk_error_t *err);
bool ctk_vart_from_json(const char *text, ctk_vart_t *a, ctk_error_t *err);

/* The report a `ctkgen validate --json` printed on a compute node, into
 * partition part's cells of r (matched by module name).  false with
 * CTK_E_JSON naming what is missing. */
bool ctk_vreport_cells_from_json(const char *text, const ctk_vreport_t *r, size_t part, ctk_error_t *err);

#endif
