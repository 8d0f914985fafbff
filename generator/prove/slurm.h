/* slurm.h - the Slurm client that validate launches probes through.
 * SPDX-License-Identifier: MIT
 *
 * Runs the Slurm commands on PATH: sinfo (partitions, their GRES and node
 * features), sbatch (submit), squeue (one call per poll for every job of a
 * run, found by the run's job name) and scancel.  No sacct: sites without
 * accounting have none.  Each command:
 *   - is found on the caller's PATH and must pass ctk_trust_exec() (as
 *     root, a Slurm command another user could replace is never run);
 *   - runs with the caller's environment minus every SLURM_*, SBATCH_*,
 *     SALLOC_*, SRUN_*, SQUEUE_*, SINFO_* and SCANCEL_* variable (they would
 *     change the request or the output format), SLURM_CONF kept;
 *   - has a timeout (the controller may not answer).
 * ctk_slurm_cancel() runs even after an interrupt (proc.h: cleanup), so
 * jobs submitted before SIGINT are cancelled by id.
 */
#ifndef CTK_SLURM_H
#define CTK_SLURM_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

/* A partition as sinfo describes it, its node groups merged. */
typedef struct {
    char *name;
    char *gres;     /* what its nodes advertise, "gpu:a100:4(S:0-1),gpu:h100:8";
                     * NULL: none */
    char *features; /* the nodes' features, comma-joined; NULL: none */
    char *nodes;    /* node lists, comma-joined */
    bool up;        /* sinfo's availability is "up" */
    bool gpu;       /* some node advertises a GRES named gpu */
} ctk_spart_t;

/* A job as one squeue call saw it. */
typedef struct {
    char *id;
    char *state;    /* "PENDING", "RUNNING", "COMPLETED", ... */
    char *reason;   /* the pending reason ("Resources", "Priority"); "None" when none */
    char *node;     /* where it runs; "" while pending */
} ctk_sjob_t;

typedef struct ctk_slurm ctk_slurm_t;

/* Find sinfo, sbatch, squeue and scancel on PATH and ask the controller
 * for its partitions.  NULL with CTK_E_ENV when a command is missing or
 * refused by the trust rule, or the controller does not answer (sinfo's
 * own message quoted); CTK_E_NOMEM. */
ctk_slurm_t *ctk_slurm_open(double timeout_s, ctk_error_t *err);
void ctk_slurm_close(ctk_slurm_t *s);

/* The partitions sinfo listed at open, in its order; borrowed. */
const ctk_spart_t *ctk_slurm_partitions(const ctk_slurm_t *s, size_t *n);
const ctk_spart_t *ctk_slurm_partition(const ctk_slurm_t *s, const char *name);

/* `sbatch --parsable ARGS... SCRIPT`.  On success *job_id is the id.  When
 * sbatch refuses the job, *job_id is NULL and *message holds sbatch's own
 * words (its last "error:" line); true either way.  false only for
 * ctkgen's failures (no memory, sbatch not started, an interrupt). */
bool ctk_slurm_submit(ctk_slurm_t *s, const char *const *args, const char *script, char **job_id,
                      char **message, ctk_error_t *err);

/* One `squeue -h -t all -n JOB_NAME -o ...` call: every job of that name
 * the controller still knows.  Jobs it has forgotten (MinJobAge) are
 * absent.  Free with ctk_sjobs_free(). */
bool ctk_slurm_poll(ctk_slurm_t *s, const char *job_name, ctk_sjob_t **jobs, size_t *n, ctk_error_t *err);
void ctk_sjobs_free(ctk_sjob_t *jobs, size_t n);

/* `scancel ID...`; runs even after an interrupt.  false with err set when
 * scancel could not run or failed. */
bool ctk_slurm_cancel(ctk_slurm_t *s, const char *const *ids, size_t n, ctk_error_t *err);

/* Calls to Slurm's commands so far, for the benchmarks and the report. */
unsigned ctk_slurm_calls(const ctk_slurm_t *s);

/* A terminal state: the job will not run (any more). */
bool ctk_slurm_state_done(const char *state);

/* Does a GRES list ("gpu:a100:4(S:0-1),nic:1") hold a GRES named gpu? */
bool ctk_slurm_gres_has_gpu(const char *gres);

#endif
