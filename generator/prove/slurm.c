/* slurm.c - sinfo, sbatch, squeue and scancel, run the way slurm.h says.
 * SPDX-License-Identifier: MIT
 */
#include "slurm.h"

#include "proc.h"
#include "trust.h"
#include "util.h"
#include "env.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

enum { CMD_SINFO, CMD_SBATCH, CMD_SQUEUE, CMD_SCANCEL, CMD__COUNT };
static const char *const cmd_names[CMD__COUNT] = {"sinfo", "sbatch", "squeue", "scancel"};

struct ctk_slurm {
    char *cmd[CMD__COUNT];  /* absolute paths */
    ctk_env_t env;          /* the caller's, minus what would change a request */
    double timeout;
    ctk_spart_t *parts;
    size_t n_parts;
    unsigned calls;
};

/* Variables Slurm's commands read as defaults for their options. */
static bool slurm_input_var(const char *kv)
{
    static const char *const prefixes[] = {"SLURM_", "SBATCH_", "SALLOC_", "SRUN_",
                                           "SQUEUE_", "SINFO_", "SCANCEL_", NULL};

    if (strncmp(kv, "SLURM_CONF=", 11) == 0)
        return false;
    for (int i = 0; prefixes[i]; i++)
        if (strncmp(kv, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

static bool make_env(ctk_slurm_t *s, ctk_error_t *err)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        char *name;
        bool ok;

        if (!eq || eq == *e || slurm_input_var(*e))
            continue;
        if (!(name = strndup(*e, (size_t)(eq - *e)))) {
            ctk_error_nomem(err);
            return false;
        }
        ok = ctk_env_set(&s->env, name, eq + 1, err);
        free(name);
        if (!ok)
            return false;
    }
    return true;
}

static bool find_commands(ctk_slurm_t *s, ctk_error_t *err)
{
    const char *path = ctk_env_get(&s->env, "PATH");
    char why[512];
    int e;

    for (int i = 0; i < CMD__COUNT; i++) {
        s->cmd[i] = ctk_env_path_search(path ? path : "", cmd_names[i], NULL, &e, err);
        if (!s->cmd[i]) {
            if (e == ENOMEM)
                return false;
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0,
                          "--launcher slurm: no %s on PATH; run ctkgen where Slurm's client commands "
                          "are installed (slurm-client), or use --launcher local",
                          cmd_names[i]);
            return false;
        }
        if (!ctk_trust_exec(s->cmd[i], why, sizeof why)) {
            ctk_error_set(err, CTK_E_ENV, s->cmd[i], 0, 0, "not run: another user could change it: %s",
                          why);
            return false;
        }
    }
    return true;
}

/* Run a Slurm command; r filled.  false: not started, interrupted, no memory. */
static bool run(ctk_slurm_t *s, const char *const *argv, bool cleanup, ctk_proc_result_t *r,
                ctk_error_t *err)
{
    ctk_proc_spec_t spec = {0};

    if (!(spec.envp = ctk_env_envp(&s->env, err)))
        return false;
    spec.argv = argv;
    spec.timeout_s = s->timeout;
    spec.cleanup = cleanup;
    s->calls++;
    if (!ctk_proc_run(&spec, r, err))
        return false;
    if (r->spawn_errno) {
        ctk_error_set(err, CTK_E_ENV, argv[0], 0, 0, "cannot run: %s", strerror(r->spawn_errno));
        return false;
    }
    return true;
}

/* The last line of the output holding "error", else its last non-empty
 * line, else how the command ended. */
static char *last_message(const ctk_proc_result_t *r, double timeout, ctk_error_t *err)
{
    const char *text = r->err && r->err[0] ? r->err : r->out ? r->out : "";
    const char *best = NULL, *last = NULL, *p = text;
    char desc[128], *line;

    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *e = strstr(p, "error");

        if (n) {
            last = p;
            if (e && e < p + n)
                best = p;
        }
        p += n + (p[n] ? 1 : 0);
    }
    if (!best)
        best = last;
    if (!best)
        return ctk_strdup(ctk_proc_describe(r, timeout, desc, sizeof desc), err);
    if (!(line = strndup(best, strcspn(best, "\n"))))
        ctk_error_nomem(err);
    return line;
}

/* ---- partitions ------------------------------------------------------------------ */

/* Append item to a comma-joined list unless it is already there. */
static bool add_unique(char **list, const char *item, ctk_error_t *err)
{
    char *joined;
    size_t n = strlen(item);

    if (!item[0] || strcmp(item, "(null)") == 0)
        return true;
    if (*list) {
        for (const char *p = *list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
            if (strncmp(p, item, n) == 0 && (p[n] == ',' || p[n] == '\0'))
                return true;
        joined = ctk_printf(err, "%s,%s", *list, item);
    } else {
        joined = ctk_strdup(item, err);
    }
    if (!joined)
        return false;
    free(*list);
    *list = joined;
    return true;
}

bool ctk_slurm_gres_has_gpu(const char *gres)
{
    int depth = 0;
    const char *p = gres, *start = gres;

    if (!gres)
        return false;
    for (;; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && depth > 0)
            depth--;
        else if ((*p == ',' && depth == 0) || *p == '\0') {
            if (strncmp(start, "gpu", 3) == 0 && (start[3] == ':' || start[3] == ',' || start[3] == '\0' ||
                                                   start[3] == '('))
                return true;
            if (!*p)
                return false;
            start = p + 1;
        }
    }
}

static ctk_spart_t *part_for(ctk_slurm_t *s, const char *name, ctk_error_t *err)
{
    ctk_spart_t *grown;

    for (size_t i = 0; i < s->n_parts; i++)
        if (strcmp(s->parts[i].name, name) == 0)
            return &s->parts[i];
    if (!(grown = realloc(s->parts, (s->n_parts + 1) * sizeof *grown))) {
        ctk_error_nomem(err);
        return NULL;
    }
    s->parts = grown;
    memset(&grown[s->n_parts], 0, sizeof *grown);
    if (!(grown[s->n_parts].name = ctk_strdup(name, err)))
        return NULL;
    return &s->parts[s->n_parts++];
}

/* One sinfo line: "NAME|GRES|FEATURES|AVAIL|NODES". */
static bool parse_part_line(ctk_slurm_t *s, char *line, ctk_error_t *err)
{
    char *f[5], *save = NULL;
    ctk_spart_t *p;
    int n = 0;

    for (char *t = strtok_r(line, "|", &save); t && n < 5; t = strtok_r(NULL, "|", &save))
        f[n++] = t;
    if (n < 5)
        return true; /* not ours: ignore */
    if (!(p = part_for(s, f[0], err)))
        return false;
    if (!add_unique(&p->gres, f[1], err) || !add_unique(&p->features, f[2], err) ||
        !add_unique(&p->nodes, f[4], err))
        return false;
    p->up |= strcmp(f[3], "up") == 0;
    p->gpu = ctk_slurm_gres_has_gpu(p->gres);
    return true;
}

static bool load_partitions(ctk_slurm_t *s, ctk_error_t *err)
{
    const char *argv[] = {s->cmd[CMD_SINFO], "-h", "-a", "-o", "%R|%G|%f|%a|%N", NULL};
    ctk_proc_result_t r;
    bool ok = false;
    char *msg = NULL, *save = NULL;

    ctk_proc_result_init(&r);
    if (!run(s, argv, false, &r, err))
        goto out;
    if (!ctk_proc_ok(&r)) {
        if ((msg = last_message(&r, s->timeout, err)))
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0,
                          "--launcher slurm: the Slurm controller did not answer sinfo: %s", msg);
        goto out;
    }
    for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        if (!parse_part_line(s, l, err))
            goto out;
    if (!s->n_parts) {
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "--launcher slurm: sinfo lists no partition");
        goto out;
    }
    ok = true;
out:
    free(msg);
    ctk_proc_result_fini(&r);
    return ok;
}

ctk_slurm_t *ctk_slurm_open(double timeout_s, ctk_error_t *err)
{
    ctk_slurm_t *s = calloc(1, sizeof *s);

    if (!s) {
        ctk_error_nomem(err);
        return NULL;
    }
    ctk_env_init(&s->env);
    s->timeout = timeout_s > 0 ? timeout_s : 60;
    if (!make_env(s, err) || !find_commands(s, err) || !load_partitions(s, err)) {
        ctk_slurm_close(s);
        return NULL;
    }
    return s;
}

void ctk_slurm_close(ctk_slurm_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < CMD__COUNT; i++)
        free(s->cmd[i]);
    for (size_t i = 0; i < s->n_parts; i++) {
        free(s->parts[i].name);
        free(s->parts[i].gres);
        free(s->parts[i].features);
        free(s->parts[i].nodes);
    }
    free(s->parts);
    ctk_env_fini(&s->env);
    free(s);
}

const ctk_spart_t *ctk_slurm_partitions(const ctk_slurm_t *s, size_t *n)
{
    *n = s->n_parts;
    return s->parts;
}

const ctk_spart_t *ctk_slurm_partition(const ctk_slurm_t *s, const char *name)
{
    for (size_t i = 0; i < s->n_parts; i++)
        if (strcmp(s->parts[i].name, name) == 0)
            return &s->parts[i];
    return NULL;
}

unsigned ctk_slurm_calls(const ctk_slurm_t *s)
{
    return s->calls;
}

/* ---- jobs ------------------------------------------------------------------------ */

bool ctk_slurm_submit(ctk_slurm_t *s, const char *const *args, const char *script, char **job_id,
                      char **message, ctk_error_t *err)
{
    size_t n = 0, i;
    const char **argv;
    ctk_proc_result_t r;
    bool ok = false;

    *job_id = *message = NULL;
    while (args[n])
        n++;
    if (!(argv = calloc(n + 4, sizeof *argv))) {
        ctk_error_nomem(err);
        return false;
    }
    argv[0] = s->cmd[CMD_SBATCH];
    argv[1] = "--parsable";
    for (i = 0; i < n; i++)
        argv[2 + i] = args[i];
    argv[2 + n] = script;
    ctk_proc_result_init(&r);
    if (!run(s, argv, false, &r, err))
        goto out;
    if (ctk_proc_ok(&r) && r.out[0] >= '0' && r.out[0] <= '9') {
        /* "123" or "123;cluster" */
        if (!(*job_id = strndup(r.out, strspn(r.out, "0123456789")))) {
            ctk_error_nomem(err);
            goto out;
        }
    } else if (!(*message = last_message(&r, s->timeout, err))) {
        goto out;
    }
    ok = true;
out:
    ctk_proc_result_fini(&r);
    free(argv);
    return ok;
}

static bool parse_job_line(char *line, ctk_sjob_t *j, ctk_error_t *err)
{
    char *f[4] = {"", "", "", ""}, *p = line;

    for (int n = 0; n < 4 && p; n++) {
        char *bar = n < 3 ? strchr(p, '|') : NULL;

        f[n] = p;
        if (bar)
            *bar = '\0';
        p = bar ? bar + 1 : NULL;
    }
    if (!(j->id = ctk_strdup(f[0], err)) || !(j->state = ctk_strdup(f[1], err)) ||
        !(j->reason = ctk_strdup(f[2], err)) || !(j->node = ctk_strdup(f[3], err)))
        return false;
    return true;
}

bool ctk_slurm_poll(ctk_slurm_t *s, const char *job_name, ctk_sjob_t **jobs, size_t *n, ctk_error_t *err)
{
    const char *argv[] = {s->cmd[CMD_SQUEUE], "-h", "-t", "all", "-n", job_name, "-o", "%i|%T|%r|%N", NULL};
    ctk_proc_result_t r;
    char *save = NULL, *msg;
    bool ok = false;

    *jobs = NULL;
    *n = 0;
    ctk_proc_result_init(&r);
    if (!run(s, argv, false, &r, err))
        goto out;
    if (!ctk_proc_ok(&r)) {
        if ((msg = last_message(&r, s->timeout, err))) {
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "squeue failed: %s", msg);
            free(msg);
        }
        goto out;
    }
    for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        ctk_sjob_t *grown = realloc(*jobs, (*n + 1) * sizeof *grown);

        if (!grown) {
            ctk_error_nomem(err);
            goto out;
        }
        *jobs = grown;
        memset(&grown[*n], 0, sizeof *grown);
        (*n)++;
        if (!parse_job_line(l, &grown[*n - 1], err))
            goto out;
    }
    ok = true;
out:
    if (!ok) {
        ctk_sjobs_free(*jobs, *n);
        *jobs = NULL;
        *n = 0;
    }
    ctk_proc_result_fini(&r);
    return ok;
}

void ctk_sjobs_free(ctk_sjob_t *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(jobs[i].id);
        free(jobs[i].state);
        free(jobs[i].reason);
        free(jobs[i].node);
    }
    free(jobs);
}

bool ctk_slurm_cancel(ctk_slurm_t *s, const char *const *ids, size_t n, ctk_error_t *err)
{
    const char **argv;
    ctk_proc_result_t r;
    bool ok = false;
    char *msg;

    if (!n)
        return true;
    if (!(argv = calloc(n + 2, sizeof *argv))) {
        ctk_error_nomem(err);
        return false;
    }
    argv[0] = s->cmd[CMD_SCANCEL];
    memcpy(argv + 1, ids, n * sizeof *ids);
    ctk_proc_result_init(&r);
    if (run(s, argv, true, &r, err)) {
        ok = ctk_proc_ok(&r);
        if (!ok && (msg = last_message(&r, s->timeout, err))) {
            ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "scancel failed: %s", msg);
            free(msg);
        }
    }
    ctk_proc_result_fini(&r);
    free(argv);
    return ok;
}

bool ctk_slurm_state_done(const char *state)
{
    static const char *const live[] = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED",
                                       "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SUSPENDED",
                                       "STOPPED", "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD", NULL};

    for (int i = 0; live[i]; i++)
        if (strcmp(state, live[i]) == 0)
            return false;
    return true;
}
