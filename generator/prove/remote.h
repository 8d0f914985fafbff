/* remote.h - launch validate's probes on Slurm partitions: one job per partition.
 * SPDX-License-Identifier: MIT
 *
 * validate builds and checks everything where ctkgen runs; only the
 * launch needs a GPU.  With a stage dir (ctk_vopts_t.stage_dir) validate
 * copies each built probe there instead of launching the CUDA ones.  This
 * module then:
 *   1. (ctk_remote_prepare) asks Slurm for its partitions (slurm.h),
 *      resolves the requested ones ("all-gpu": every partition whose nodes
 *      advertise gpu GRES), refuses an unknown name or a partition without
 *      gpu GRES (unless its entry names its own gres), and makes a private
 *      run dir under the stage root, which the compute nodes must see at
 *      the same path;
 *   2. (ctk_remote_run) writes one job script per partition that runs every
 *      staged probe, each in its own environment (env -i) under
 *      `timeout`, and records the node, CUDA_VISIBLE_DEVICES and each
 *      probe's exit status, stdout and stderr in the run dir; submits them
 *      all (sbatch --export=NONE, one GPU by default); polls them all with
 *      one squeue call per interval, the interval growing from 0.5 s to
 *      10 s; cancels a job pending past the queue timeout (keeping Slurm's
 *      pending reason), and every job still queued or running at the run
 *      timeout or after an interrupt; then judges each probe's run as a
 *      local one is judged (ctk_validate_judge_run) into the report's
 *      cells: SDK x partition x artifact.
 * A cell starts as the artifact's local result (its findings, and a skip
 * when the artifact was never evaluated), then gets the partition's:
 *   job refused by sbatch       CTK-SLURM-001 (error)
 *   job ended without results   CTK-SLURM-002 (error)
 *   pending past the timeout,
 *   or cancelled by ctkgen      CTK-SKIP-005 (skip; --require-launch: CTK-GPU-005)
 *   ran                         each probe judged: a pass, a launch skip that
 *                               names the node, or the findings a local run gives.
 * Cache: what a partition's job recorded (the node file and each probe's
 * exit status, stdout and stderr) is kept when none of its cells failed,
 * keyed on ctkgen's version, the partition's name, its nodes, GRES and
 * features as sinfo shows them, the job's options, the probe timeout, each
 * SDK's local key (validate: artifacts, toolkit, probes, compilers) and the
 * staged probes' names and kinds.  A later run with the same key and an
 * entry younger than cache_ttl_s submits no job there and judges the
 * recorded runs afresh.  The key cannot see a node's driver or GPU change,
 * hence the age limit.
 * Progress (submitted, started, finished, still pending) goes to the
 * caller's callback, one line at a time, from the calling thread.
 */
#ifndef CTK_REMOTE_H
#define CTK_REMOTE_H

#include "config.h"
#include "error.h"
#include "sdk.h"
#include "validate.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const ctk_validation_conf_t *conf; /* the site config's section (may be empty) */
    const char *const *partitions;     /* from the command line: win over conf's list */
    size_t n_partitions;
    double queue_timeout_s;  /* <= 0: conf's, else 600 */
    double run_timeout_s;    /* <= 0: none (each job's own --time still holds) */
    const char *stage_root;  /* NULL: conf's stage_dir, else <cache dir>/stage */
    double probe_timeout_s;  /* each probe in the job; <= 0: 120 */
    bool require_launch;
    const char *cache_dir;   /* where a partition's probe runs are kept; NULL: none */
    double cache_ttl_s;      /* how long they may be reused; <= 0: 86400 */
    void (*progress)(const char *line, void *arg);
    void *progress_arg;
} ctk_remote_opts_t;

typedef struct ctk_remote ctk_remote_t;

/* Step 1.  NULL with CTK_E_ENV (no Slurm, controller silent, stage dir
 * unusable) or CTK_E_CONFIG (unknown partition, no gpu GRES, no partition
 * named at all). */
ctk_remote_t *ctk_remote_prepare(const ctk_remote_opts_t *o, ctk_error_t *err);

/* Where validate stages the probes (ctk_vopts_t.stage_dir). */
const char *ctk_remote_probe_dir(const ctk_remote_t *r);

/* The resolved partitions' names, in order. */
size_t ctk_remote_n_partitions(const ctk_remote_t *r);
const char *ctk_remote_partition_name(const ctk_remote_t *r, size_t i);

/* Step 2, after ctk_validate() filled rep (sdks[i] belongs to
 * rep->sdks[i]).  Fills rep's launcher, parts, cells and their counts.
 * false for ctkgen's own failures and after an interrupt (every job it
 * submitted cancelled first). */
bool ctk_remote_run(ctk_remote_t *r, ctk_sdk_t *const *sdks, ctk_vreport_t *rep, ctk_error_t *err);

/* Build "compute": the whole validation runs inside each job, by this
 * ctkgen (the same path must hold it on the compute nodes) with
 * `validate --launcher local --json`, and the node's report fills the
 * partition's cells.  Nothing is built or checked where ctkgen runs; rep
 * comes from ctk_vreport_prepare() and its own artifacts are marked not
 * checked here.  Otherwise as ctk_remote_run(); nothing is cached. */
typedef struct {
    const char *config;      /* absolute path of the site config; NULL: the node scans */
    const char *outdir;      /* absolute */
    const char *modulecmd;   /* NULL: the node finds its own */
    const char *modulepath;  /* ctk_vopts_t.modulepath; NULL: none */
    double timeout_s;        /* each build or probe step; <= 0: ctkgen's default */
    bool trust_tcl;
} ctk_remote_compute_t;
bool ctk_remote_run_compute(ctk_remote_t *r, const ctk_remote_compute_t *cc, ctk_vreport_t *rep,
                            ctk_error_t *err);

/* Removes the run dir; NULL is fine. */
void ctk_remote_free(ctk_remote_t *r);

#endif
