/* remote.c - one Slurm job per partition runs every staged probe (remote.h).
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "remote.h"

#include "cache.h"
#include "proc.h"
#include "quote.h"
#include "verdict.h"
#include "slurm.h"
#include "trust.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_QUEUE_TIMEOUT 600.0
#define POLL_FIRST 0.5
#define POLL_MAX 10.0
#define PENDING_NOTE_EVERY 30.0
#define FORGOTTEN_AFTER 30.0 /* a job squeue never showed is taken as gone after this */

typedef enum { JOB_NONE, JOB_PENDING, JOB_RUNNING, JOB_DONE } job_phase_t;

typedef struct {
    char *name;
    const ctk_partition_conf_t *conf; /* its entry in the site config; NULL: none */
    const ctk_spart_t *sp;
    char *dir;                        /* <run>/p<k> */
    char *job_id;
    job_phase_t phase;
    ctk_part_state_t state;
    char *reason;
    char *last_state;                 /* squeue's last word on it */
    double t_submit, t_start, t_end, t_noted;
    bool seen;
    bool cached;                      /* its records came from the cache */
    double cache_age;
    char key[33];                     /* its cache key; "" when it has none */
} rpart_t;

struct ctk_remote {
    const ctk_remote_opts_t *o;
    ctk_slurm_t *slurm;
    rpart_t *parts;
    size_t n_parts;
    char *run_dir;                    /* private, under the stage root */
    char *probe_dir;                  /* <run>/probes */
    char *job_name;
    double queue_timeout, probe_timeout;
    unsigned submitted;
    const ctk_remote_compute_t *compute; /* build "compute": the job runs ctkgen */
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void say(const ctk_remote_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(const ctk_remote_t *r, const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    if (!r->o->progress)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    r->o->progress(line, r->o->progress_arg);
}

/* ---- which partitions -------------------------------------------------------------- */

static const ctk_partition_conf_t *conf_entry(const ctk_remote_t *r, const char *name)
{
    const ctk_validation_conf_t *v = r->o->conf;

    for (size_t i = 0; v && i < v->n_partitions; i++)
        if (strcmp(v->partitions[i].name, name) == 0)
            return &v->partitions[i];
    return NULL;
}

/* "a, b, c": every partition sinfo lists, for messages. */
static char *known_names(const ctk_remote_t *r, bool gpu_only, ctk_error_t *err)
{
    size_t n;
    const ctk_spart_t *sp = ctk_slurm_partitions(r->slurm, &n);
    ctk_buf_t b;

    ctk_buf_init(&b);
    for (size_t i = 0; i < n; i++)
        if (!gpu_only || sp[i].gpu)
            ctk_buf_printf(&b, "%s%s", b.len ? ", " : "", sp[i].name);
    if (!b.len)
        ctk_buf_puts(&b, "none");
    if (b.failed) {
        ctk_buf_fini(&b);
        ctk_error_nomem(err);
        return NULL;
    }
    return ctk_buf_take(&b, NULL);
}

static bool add_part(ctk_remote_t *r, const ctk_spart_t *sp, const ctk_partition_conf_t *entry,
                     ctk_error_t *err)
{
    rpart_t *grown;

    for (size_t i = 0; i < r->n_parts; i++)
        if (strcmp(r->parts[i].name, sp->name) == 0)
            return true;
    if (!(grown = realloc(r->parts, (r->n_parts + 1) * sizeof *grown))) {
        ctk_error_nomem(err);
        return false;
    }
    r->parts = grown;
    memset(&grown[r->n_parts], 0, sizeof *grown);
    grown[r->n_parts].sp = sp;
    grown[r->n_parts].conf = entry;
    if (!(grown[r->n_parts].name = ctk_strdup(sp->name, err)))
        return false;
    r->n_parts++;
    return true;
}

static bool add_all_gpu(ctk_remote_t *r, const ctk_partition_conf_t *entry, ctk_error_t *err)
{
    size_t n, added = 0;
    const ctk_spart_t *sp = ctk_slurm_partitions(r->slurm, &n);
    char *known;

    for (size_t i = 0; i < n; i++) {
        const ctk_partition_conf_t *own = conf_entry(r, sp[i].name);

        if (!sp[i].gpu)
            continue;
        if (!add_part(r, &sp[i], own ? own : entry, err))
            return false;
        added++;
    }
    if (added)
        return true;
    if ((known = known_names(r, false, err)))
        ctk_error_set(err, CTK_E_CONFIG, NULL, 0, 0,
                      "--partition all-gpu: no partition's nodes advertise gpu GRES (partitions: %s; "
                      "sinfo -o '%%R %%G' shows each one's GRES)",
                      known);
    free(known);
    return false;
}

static bool add_named(ctk_remote_t *r, const char *name, const ctk_partition_conf_t *entry, ctk_error_t *err)
{
    const ctk_spart_t *sp = ctk_slurm_partition(r->slurm, name);
    char *known = NULL;

    if (strcmp(name, "all-gpu") == 0)
        return add_all_gpu(r, entry, err);
    if (!sp) {
        if ((known = known_names(r, false, err)))
            ctk_error_set(err, CTK_E_CONFIG, NULL, 0, 0,
                          "partition '%s' is not known to Slurm (sinfo lists: %s)", name, known);
        free(known);
        return false;
    }
    if (!sp->gpu && !(entry && entry->gres)) {
        if ((known = known_names(r, true, err)))
            ctk_error_set(err, CTK_E_CONFIG, NULL, 0, 0,
                          "partition '%s': none of its nodes (%s) advertises gpu GRES (sinfo: %s), so a job "
                          "asking --gres=gpu:1 there is refused; name a GPU partition (%s), or give this one a "
                          "\"gres\" of its own in the site config's validation section",
                          name, sp->nodes ? sp->nodes : "none", sp->gres ? sp->gres : "no GRES", known);
        free(known);
        return false;
    }
    return add_part(r, sp, entry, err);
}

static bool resolve_partitions(ctk_remote_t *r, ctk_error_t *err)
{
    const ctk_validation_conf_t *v = r->o->conf;

    if (r->o->n_partitions) {
        for (size_t i = 0; i < r->o->n_partitions; i++)
            if (!add_named(r, r->o->partitions[i], conf_entry(r, r->o->partitions[i]), err))
                return false;
    } else if (v && v->n_partitions) {
        for (size_t i = 0; i < v->n_partitions; i++)
            if (!add_named(r, v->partitions[i].name, &v->partitions[i], err))
                return false;
    } else {
        ctk_error_set(err, CTK_E_CONFIG, NULL, 0, 0,
                      "--launcher slurm needs partitions: --partition NAME (again for more), "
                      "--partition all-gpu, or \"validation\": {\"partitions\": [...]} in the site config");
        return false;
    }
    for (size_t i = 0; i < r->n_parts; i++)
        if (!r->parts[i].sp->up)
            say(r, "partition %s is not up (sinfo): its job will wait", r->parts[i].name);
    return true;
}

/* ---- the run dir --------------------------------------------------------------------- */

static bool make_stage_root(const char *root, ctk_error_t *err)
{
    char *p = ctk_strdup(root, err);

    if (!p)
        return false;
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;

            *s = '\0';
            if (mkdir(p, 0700) != 0 && errno != EEXIST) {
                ctk_error_set(err, CTK_E_ENV, p, 0, 0, "stage dir: cannot create: %s", strerror(errno));
                free(p);
                return false;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    return true;
}

static bool make_run_dir(ctk_remote_t *r, ctk_error_t *err)
{
    const char *root = r->o->stage_root;
    char *dflt = NULL, *tmpl, why[512];
    bool ok = false;

    if (!root && r->o->conf)
        root = r->o->conf->stage_dir;
    if (!root) {
        char *cache = ctk_cache_default_dir(err);

        if (!cache)
            return false;
        dflt = ctk_path_join(cache, "stage", err);
        free(cache);
        if (!(root = dflt))
            return false;
    }
    if (root[0] != '/') {
        ctk_error_set(err, CTK_E_USAGE, root, 0, 0, "stage dir: must be an absolute path (compute nodes see it at the same path)");
        goto out;
    }
    if (!make_stage_root(root, err) || !(tmpl = ctk_printf(err, "%s/run-XXXXXX", root)))
        goto out;
    if (!mkdtemp(tmpl)) {
        ctk_error_set(err, CTK_E_ENV, root, 0, 0, "stage dir: cannot make a run dir in it: %s", strerror(errno));
        free(tmpl);
        goto out;
    }
    r->run_dir = tmpl;
    /* the jobs run what lies here with ctkgen's rights */
    if (!ctk_trust_exec(r->run_dir, why, sizeof why)) {
        ctk_error_set(err, CTK_E_ENV, root, 0, 0,
                      "stage dir: another user could change what the jobs run: %s; use --stage-dir with a "
                      "directory only you can write",
                      why);
        goto out;
    }
    if (!(r->probe_dir = ctk_path_join(r->run_dir, "probes", err)))
        goto out;
    if (mkdir(r->probe_dir, 0700) != 0) {
        ctk_error_set(err, CTK_E_IO, r->probe_dir, 0, 0, "cannot create: %s", strerror(errno));
        goto out;
    }
    ok = (r->job_name = ctk_printf(err, "ctkgen-validate-%s", strrchr(r->run_dir, '-') + 1)) != NULL;
out:
    free(dflt);
    return ok;
}

ctk_remote_t *ctk_remote_prepare(const ctk_remote_opts_t *o, ctk_error_t *err)
{
    ctk_remote_t *r = calloc(1, sizeof *r);

    if (!r) {
        ctk_error_nomem(err);
        return NULL;
    }
    r->o = o;
    r->queue_timeout = o->queue_timeout_s > 0                     ? o->queue_timeout_s
                       : o->conf && o->conf->queue_timeout_s > 0 ? o->conf->queue_timeout_s
                                                                 : DEFAULT_QUEUE_TIMEOUT;
    r->probe_timeout = o->probe_timeout_s > 0 ? o->probe_timeout_s : 120;
    if (!(r->slurm = ctk_slurm_open(60, err)) || !resolve_partitions(r, err) || !make_run_dir(r, err)) {
        ctk_remote_free(r);
        return NULL;
    }
    return r;
}

const char *ctk_remote_probe_dir(const ctk_remote_t *r)
{
    return r->probe_dir;
}

size_t ctk_remote_n_partitions(const ctk_remote_t *r)
{
    return r->n_parts;
}

const char *ctk_remote_partition_name(const ctk_remote_t *r, size_t i)
{
    return r->parts[i].name;
}

void ctk_remote_free(ctk_remote_t *r)
{
    if (!r)
        return;
    if (r->run_dir)
        ctk_remove_tree(r->run_dir);
    for (size_t i = 0; i < r->n_parts; i++) {
        free(r->parts[i].name);
        free(r->parts[i].dir);
        free(r->parts[i].job_id);
        free(r->parts[i].reason);
        free(r->parts[i].last_state);
    }
    free(r->parts);
    free(r->run_dir);
    free(r->probe_dir);
    free(r->job_name);
    ctk_slurm_close(r->slurm);
    free(r);
}

/* A new file only we can have made (O_EXCL, no symlink followed). */
static bool write_new(const char *path, const char *text, mode_t mode, ctk_error_t *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    bool ok;

    if (fd < 0) {
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot create: %s", strerror(errno));
        return false;
    }
    ok = ctk_write_all(fd, text, strlen(text));
    if (close(fd) != 0)
        ok = false;
    if (!ok)
        ctk_error_set(err, CTK_E_IO, path, 0, 0, "cannot write: %s", strerror(errno));
    return ok;
}

/* ---- the job scripts ------------------------------------------------------------------ */

static int launch_order(const void *a, const void *b)
{
    const ctk_vlaunch_t *x = a, *y = b;

    if (x->sdk != y->sdk)
        return x->sdk < y->sdk ? -1 : 1;
    if (x->art != y->art)
        return x->art < y->art ? -1 : 1;
    return (int)x->probe - (int)y->probe;
}

/* One line of the script: run probe i in its own environment. */
static bool script_step(ctk_buf_t *b, size_t i, const ctk_vlaunch_t *l, ctk_error_t *err)
{
    char *q;

    ctk_buf_printf(b, "p %zu env -i -- $gpus", i);
    for (size_t k = 0; k < l->env.len; k++) {
        if (!(q = ctk_quote_sh(l->env.items[k], "a probe's environment", err)))
            return false;
        ctk_buf_printf(b, " %s", q);
        free(q);
    }
    if (!(q = ctk_quote_sh(l->exe, "a staged probe's path", err)))
        return false;
    ctk_buf_printf(b, " %s\n", q);
    free(q);
    return true;
}

/* The job's step for build "compute": this ctkgen validates on the node. */
static bool script_compute(const ctk_remote_t *r, ctk_buf_t *b, ctk_error_t *err)
{
    const ctk_remote_compute_t *cc = r->compute;
    char self[4096], *q;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    const char *args[18];
    size_t k = 0;
    char timeout[32];

    if (n <= 0) {
        ctk_error_set(err, CTK_E_ENV, "/proc/self/exe", 0, 0, "cannot read: %s", strerror(errno));
        return false;
    }
    self[n] = '\0';
    args[k++] = self;
    args[k++] = "-q";
    args[k++] = "validate";
    if (cc->config) {
        args[k++] = "-c";
        args[k++] = cc->config;
    }
    args[k++] = "-o";
    args[k++] = cc->outdir;
    args[k++] = "--launcher=local";
    args[k++] = "--no-cache";
    args[k++] = "--json";
    if (cc->modulecmd) {
        args[k++] = "--modulecmd";
        args[k++] = cc->modulecmd;
    }
    if (cc->timeout_s > 0) {
        snprintf(timeout, sizeof timeout, "--timeout=%g", cc->timeout_s);
        args[k++] = timeout;
    }
    if (cc->trust_tcl)
        args[k++] = "--trust-tcl";
    if (cc->modulepath && *cc->modulepath) {
        args[k++] = "--modulepath";
        args[k++] = cc->modulepath;
    }
    ctk_buf_puts(b, "env -i \"HOME=${HOME:-/}\" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "
                    "LANG=C.UTF-8");
    for (size_t i = 0; i < k; i++) {
        if (!(q = ctk_quote_sh(args[i], "an argument of ctkgen on the node", err)))
            return false;
        ctk_buf_printf(b, " %s", q);
        free(q);
    }
    ctk_buf_puts(b, " >report.json 2>report.err </dev/null\necho $? >report.rc\n");
    return true;
}

static bool write_script(ctk_remote_t *r, rpart_t *p, const ctk_vreport_t *rep, char **path, ctk_error_t *err)
{
    ctk_buf_t b;
    char *qdir = NULL, *text = NULL;
    bool ok = false;

    ctk_buf_init(&b);
    if (!(qdir = ctk_quote_sh(p->dir, "the stage dir", err)))
        goto out;
    ctk_buf_printf(&b,
                   "#!/bin/sh\n"
                   "# ctkgen validate: %zu probes on partition %s (none staged: ctkgen itself when 0)\n"
                   "PATH=/usr/sbin:/usr/bin:/sbin:/bin\n"
                   "export PATH\n"
                   "cd %s 2>/dev/null || { echo \"ctkgen: %s is not visible on $(uname -n): the stage dir "
                   "must be on a file system the compute nodes share, at the same path (--stage-dir)\" >&2; exit 97; }\n"
                   "{ echo \"node=${SLURMD_NODENAME-}\"; echo \"host=$(uname -n)\"; "
                   "echo \"cvd_set=${CUDA_VISIBLE_DEVICES+1}\"; echo \"cvd=${CUDA_VISIBLE_DEVICES-}\"; "
                   "echo \"job=${SLURM_JOB_ID-}\"; "
                   "echo \"nvidia=$(sed -n 's/^NVRM version:.*  *\\([0-9][0-9]*\\.[0-9][0-9.]*\\)  *.*/\\1/p' "
                   "/proc/driver/nvidia/version 2>/dev/null)\"; "
                   "} >node.tmp && mv node.tmp node\n"
                   "# the GPU Slurm gave the job, as a user's program gets it\n"
                   "gpus=${CUDA_VISIBLE_DEVICES+CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES}\n"
                   "p() { n=$1; shift; timeout -k 5 %.0f \"$@\" >\"$n.out\" 2>\"$n.err\" </dev/null; "
                   "echo $? >\"$n.rc\"; }\n",
                   rep->n_launches, p->name, qdir, p->dir, ceil(r->probe_timeout));
    for (size_t i = 0; !r->compute && i < rep->n_launches; i++)
        if (!script_step(&b, i, &rep->launches[i], err))
            goto out;
    if (r->compute && !script_compute(r, &b, err))
        goto out;
    ctk_buf_puts(&b, ": >done\n");
    if (b.failed) {
        ctk_error_nomem(err);
        goto out;
    }
    if (!(*path = ctk_path_join(p->dir, "job.sh", err)))
        goto out;
    text = ctk_buf_take(&b, NULL);
    ok = text && write_new(*path, text, 0700, err);
out:
    free(text);
    free(qdir);
    ctk_buf_fini(&b);
    return ok;
}


/* ---- the partition cache ------------------------------------------------------------------ */

#define CACHE_MAGIC "ctkgen-partition-runs 1"

static char *part_file(const rpart_t *p, const char *name, size_t max, size_t *len);

/* p's key: see remote.h.  "" when some SDK has no key of its own. */
static void part_key(const ctk_remote_t *r, rpart_t *p, const ctk_vreport_t *rep)
{
    const ctk_partition_conf_t *c = p->conf;
    ctk_cache_key_t k;
    char num[32];

    p->key[0] = '\0';
    if (!r->o->cache_dir)
        return;
    ctk_cache_key_init(&k);
    ctk_cache_key_add_str(&k, "what", CACHE_MAGIC);
    ctk_cache_key_add_str(&k, "ctkgen", PACKAGE_VERSION);
    ctk_cache_key_add_str(&k, "partition", p->name);
    ctk_cache_key_add_str(&k, "nodes", p->sp->nodes);
    ctk_cache_key_add_str(&k, "gres", p->sp->gres);
    ctk_cache_key_add_str(&k, "features", p->sp->features);
    ctk_cache_key_add_str(&k, "gres_request", c && c->gres ? c->gres : "gpu:1");
    ctk_cache_key_add_str(&k, "account", c ? c->account : NULL);
    ctk_cache_key_add_str(&k, "qos", c ? c->qos : NULL);
    ctk_cache_key_add_str(&k, "time", c ? c->time : NULL);
    ctk_cache_key_add_str(&k, "constraint", c ? c->constraint : NULL);
    for (size_t i = 0; c && i < c->n_extra_args; i++)
        ctk_cache_key_add_str(&k, "extra", c->extra_args[i]);
    snprintf(num, sizeof num, "%.3f", r->probe_timeout);
    ctk_cache_key_add_str(&k, "timeout", num);
    for (size_t i = 0; i < rep->n_sdks; i++) {
        if (!rep->sdks[i].key[0])
            return;
        ctk_cache_key_add_str(&k, "sdk", rep->sdks[i].key);
    }
    for (size_t i = 0; i < rep->n_launches; i++) {
        const ctk_vlaunch_t *l = &rep->launches[i];

        snprintf(num, sizeof num, "%zu/%d/%d", l->sdk, (int)l->art, (int)l->probe);
        ctk_cache_key_add_str(&k, "launch", num);
        ctk_cache_key_add_str(&k, "name", l->name);
    }
    ctk_cache_key_hex(&k, p->key);
}

static void put_field(ctk_buf_t *b, const char *name, const char *text)
{
    ctk_buf_printf(b, "%s %zu\n", name, text ? strlen(text) : 0);
    if (text)
        ctk_buf_puts(b, text);
    ctk_buf_puts(b, "\n");
}

/* Keep what p's job recorded, once its cells are judged and none failed. */
static void cache_save(const ctk_remote_t *r, const rpart_t *p, const ctk_vreport_t *rep, size_t pi)
{
    ctk_buf_t b;
    ctk_error_t e;
    char name[48];

    if (!p->key[0] || p->cached || p->state != CTK_PART_RAN)
        return;
    for (size_t i = 0; i < rep->n_sdks; i++)
        for (int a = 0; a < CTK_ART__COUNT; a++)
            if (ctk_vreport_cell(rep, i, pi, (ctk_art_t)a)->verdict == CTK_VERDICT_FAIL)
                return;
    ctk_buf_init(&b);
    ctk_buf_printf(&b, "%s\nstored_at %lld\njob %s\nruns %zu\n", CACHE_MAGIC, (long long)time(NULL),
                   p->job_id ? p->job_id : "-", rep->n_launches);
    {
        char *node = part_file(p, "node", 1 << 16, NULL);

        put_field(&b, "node", node);
        free(node);
    }
    for (size_t i = 0; i < rep->n_launches; i++) {
        static const char *const ext[] = {"rc", "out", "err"};

        for (int x = 0; x < 3; x++) {
            char *text;

            snprintf(name, sizeof name, "%zu.%s", i, ext[x]);
            text = part_file(p, name, 1 << 20, NULL);
            put_field(&b, ext[x], text);
            free(text);
        }
    }
    ctk_error_init(&e);
    if (!b.failed && b.data && !ctk_cache_put(r->o->cache_dir, p->key, b.data, &e))
        say(r, "partition %s: its results could not be cached: %s", p->name, e.text);
    ctk_buf_fini(&b);
}

/* The next "NAME LEN\nBYTES\n" field at *pos; NULL when malformed. */
static char *get_field(const char *text, const char *name, size_t *pos)
{
    const char *p = text + *pos, *nl;
    size_t n = strlen(name), len;
    char *end, *v;

    if (strncmp(p, name, n) != 0 || p[n] != ' ')
        return NULL;
    len = strtoul(p + n + 1, &end, 10);
    if (*end != '\n' || strlen(end + 1) < len + 1 || end[1 + len] != '\n')
        return NULL;
    nl = end + 1;
    if (!(v = strndup(nl, len)))
        return NULL;
    *pos = (size_t)(nl + len + 1 - text);
    return v;
}

/* Write one recorded field back as the job had written it. */
static bool put_back(const rpart_t *p, const char *name, const char *text, ctk_error_t *err)
{
    char *path = ctk_path_join(p->dir, name, err);
    bool ok = path && write_new(path, text, 0600, err);

    free(path);
    return ok;
}

static bool restore_runs(rpart_t *p, const char *text, size_t pos, size_t n, ctk_error_t *err)
{
    char *node = get_field(text, "node", &pos);
    bool ok = node && put_back(p, "node", node, err);

    free(node);
    for (size_t i = 0; ok && i < n; i++) {
        static const char *const ext[] = {"rc", "out", "err"};

        for (int x = 0; ok && x < 3; x++) {
            char name[48], *v = get_field(text, ext[x], &pos);

            snprintf(name, sizeof name, "%zu.%s", i, ext[x]);
            ok = v && put_back(p, name, v, err);
            free(v);
        }
    }
    return ok && put_back(p, "done", "", err);
}

/* A fresh enough entry for p: its records go where the job would have put
 * them, and no job is submitted.  false on a miss (or a bad entry). */
static bool cache_try(ctk_remote_t *r, rpart_t *p, const ctk_vreport_t *rep, ctk_error_t *err)
{
    double ttl = r->o->cache_ttl_s > 0 ? r->o->cache_ttl_s : 86400;
    char *text, job[32] = "";
    long long stored = 0;
    size_t runs = 0, pos;
    int used = 0;
    bool ok = false;

    if (!p->key[0] || !(text = ctk_cache_get(r->o->cache_dir, p->key, NULL)))
        return false;
    if (sscanf(text, CACHE_MAGIC "\nstored_at %lld\njob %31s\nruns %zu\n%n", &stored, job, &runs, &used) != 3 ||
        used == 0 || runs != rep->n_launches || (double)(time(NULL) - stored) > ttl || time(NULL) < stored)
        goto out;
    pos = (size_t)used;
    if (!restore_runs(p, text, pos, runs, err)) {
        /* a bad entry is a miss: start the dir again for the real job */
        ctk_remove_tree(p->dir);
        if (mkdir(p->dir, 0700) != 0)
            ctk_error_set(err, CTK_E_IO, p->dir, 0, 0, "cannot create: %s", strerror(errno));
        goto out;
    }
    p->cached = true;
    p->cache_age = (double)(time(NULL) - stored);
    p->phase = JOB_DONE;
    p->state = CTK_PART_RAN;
    ok = (p->job_id = ctk_strdup(job, err)) != NULL;
    say(r, "partition %s: the runs of job %s from the cache (%.0f s old; --no-cache, or --cache-ttl, to run again)",
        p->name, job, p->cache_age);
out:
    free(text);
    return ok;
}

/* ---- submitting ------------------------------------------------------------------------ */

static bool push_opt(ctk_strlist_t *l, const char *opt, const char *value, ctk_error_t *err)
{
    char *s;
    bool ok;

    if (!value)
        return true;
    if (!(s = ctk_printf(err, "%s=%s", opt, value)))
        return false;
    ok = ctk_strlist_push(l, s, err);
    free(s);
    return ok;
}

static bool sbatch_args(const ctk_remote_t *r, const rpart_t *p, ctk_strlist_t *a, ctk_error_t *err)
{
    const ctk_partition_conf_t *c = p->conf;
    char *out = ctk_path_join(p->dir, "slurm-%j.out", err);
    bool ok = out && push_opt(a, "--job-name", r->job_name, err) && push_opt(a, "--partition", p->name, err) &&
              push_opt(a, "--gres", c && c->gres ? c->gres : "gpu:1", err) &&
              push_opt(a, "--output", out, err) && push_opt(a, "--chdir", p->dir, err) &&
              ctk_strlist_push(a, "--export=NONE", err) && ctk_strlist_push(a, "--nodes=1", err) &&
              ctk_strlist_push(a, "--ntasks=1", err);

    if (ok && c)
        ok = push_opt(a, "--account", c->account, err) && push_opt(a, "--qos", c->qos, err) &&
             push_opt(a, "--time", c->time, err) && push_opt(a, "--constraint", c->constraint, err);
    for (size_t i = 0; ok && c && i < c->n_extra_args; i++)
        ok = ctk_strlist_push(a, c->extra_args[i], err);
    free(out);
    return ok;
}

static bool submit(ctk_remote_t *r, rpart_t *p, const ctk_vreport_t *rep, ctk_error_t *err)
{
    ctk_strlist_t args;
    const char **argv = NULL;
    char *script = NULL, *msg = NULL;
    bool ok = false;

    ctk_strlist_init(&args);
    if (!(p->dir = ctk_printf(err, "%s/p%zu", r->run_dir, (size_t)(p - r->parts))))
        goto out;
    if (mkdir(p->dir, 0700) != 0) {
        ctk_error_set(err, CTK_E_IO, p->dir, 0, 0, "cannot create: %s", strerror(errno));
        goto out;
    }
    if (!r->compute)
        part_key(r, p, rep);
    if (cache_try(r, p, rep, err)) {
        ok = true;
        goto out;
    }
    if (err->code != CTK_E_OK || !write_script(r, p, rep, &script, err) || !sbatch_args(r, p, &args, err))
        goto out;
    if (!(argv = calloc(args.len + 1, sizeof *argv))) {
        ctk_error_nomem(err);
        goto out;
    }
    memcpy(argv, args.items, args.len * sizeof *argv);
    p->t_submit = now_s();
    if (!ctk_slurm_submit(r->slurm, argv, script, &p->job_id, &msg, err))
        goto out;
    if (p->job_id) {
        p->phase = JOB_PENDING;
        r->submitted++;
        if (r->compute)
            say(r, "partition %s: submitted job %s (ctkgen validates there)", p->name, p->job_id);
        else
            say(r, "partition %s: submitted job %s (%zu probes)", p->name, p->job_id, rep->n_launches);
    } else {
        p->phase = JOB_DONE;
        p->state = CTK_PART_NOT_SUBMITTED;
        p->reason = msg;
        msg = NULL;
        say(r, "partition %s: sbatch refused the job: %s", p->name, p->reason);
    }
    ok = true;
out:
    free(argv);
    free(msg);
    free(script);
    ctk_strlist_fini(&args);
    return ok;
}

/* ---- waiting ---------------------------------------------------------------------------- */

/* Sleep up to s seconds; false when an interrupt came. */
static bool nap(double s)
{
    double end = now_s() + s;

    while (now_s() < end) {
        struct timespec ts = {0, 50 * 1000 * 1000};

        if (ctk_proc_interrupted())
            return false;
        nanosleep(&ts, NULL);
    }
    return !ctk_proc_interrupted();
}

static const ctk_sjob_t *find_job(const ctk_sjob_t *jobs, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(jobs[i].id, id) == 0)
            return &jobs[i];
    return NULL;
}

static void finish(rpart_t *p, double t)
{
    p->phase = JOB_DONE;
    p->t_end = t;
    if (!p->t_start)
        p->t_start = t;
}

/* Cancel every job still queued or running, in one scancel; `state` says
 * what they become. */
static bool cancel_live(ctk_remote_t *r, ctk_part_state_t state, const char *why, ctk_error_t *err)
{
    const char **ids = calloc(r->n_parts ? r->n_parts : 1, sizeof *ids);
    size_t n = 0;
    bool ok = ids != NULL;

    if (!ids)
        ctk_error_nomem(err);
    for (size_t i = 0; ok && i < r->n_parts; i++) {
        rpart_t *p = &r->parts[i];

        if (p->phase != JOB_PENDING && p->phase != JOB_RUNNING)
            continue;
        ids[n++] = p->job_id;
        finish(p, now_s());
        p->state = state;
        if (!p->reason && !(p->reason = ctk_strdup(why, err)))
            ok = false;
    }
    if (n)
        ok &= ctk_slurm_cancel(r->slurm, ids, n, err);
    free(ids);
    return ok;
}

/* What one squeue line says about p. */
static bool observe(ctk_remote_t *r, rpart_t *p, const ctk_sjob_t *j, double t, ctk_error_t *err)
{
    if (!j) {
        /* forgotten by the controller (MinJobAge), or not listed yet */
        if (p->seen || t - p->t_submit > FORGOTTEN_AFTER) {
            finish(p, t);
            say(r, "partition %s: job %s is gone from the queue", p->name, p->job_id);
        }
        return true;
    }
    p->seen = true;
    free(p->last_state);
    if (!(p->last_state = ctk_strdup(j->state, err)))
        return false;
    if (ctk_slurm_state_done(j->state)) {
        if (p->phase == JOB_PENDING)
            p->t_start = t;
        finish(p, t);
        say(r, "partition %s: job %s ended (%s) after %.1f s", p->name, p->job_id, j->state, t - p->t_submit);
    } else if (strcmp(j->state, "PENDING") != 0 && p->phase == JOB_PENDING) {
        p->phase = JOB_RUNNING;
        p->t_start = t;
        say(r, "partition %s: job %s started on %s after %.1f s in the queue", p->name, p->job_id,
            j->node[0] ? j->node : "?", t - p->t_submit);
    } else if (p->phase == JOB_PENDING) {
        if (t - p->t_submit > r->queue_timeout) {
            const char *id = p->job_id;

            finish(p, t);
            p->state = CTK_PART_PENDING_TIMEOUT;
            free(p->reason);
            if (!(p->reason = ctk_printf(err, "job %s pending (%s) for %.0f s, past the queue timeout of %.0f s",
                                         id, j->reason, t - p->t_submit, r->queue_timeout)))
                return false;
            say(r, "partition %s: job %s still pending (%s) after %.0f s: cancelled", p->name, id, j->reason,
                t - p->t_submit);
            return ctk_slurm_cancel(r->slurm, &id, 1, err);
        }
        if (t - (p->t_noted ? p->t_noted : p->t_submit) >= PENDING_NOTE_EVERY) {
            p->t_noted = t;
            say(r, "partition %s: job %s pending (%s) for %.0f s", p->name, p->job_id, j->reason, t - p->t_submit);
        }
    }
    return true;
}

static bool wait_jobs(ctk_remote_t *r, ctk_error_t *err)
{
    double interval = POLL_FIRST, t0 = now_s();

    for (;;) {
        ctk_sjob_t *jobs = NULL;
        size_t n = 0, live = 0;
        double t;
        bool ok = true;

        for (size_t i = 0; i < r->n_parts; i++)
            live += r->parts[i].phase == JOB_PENDING || r->parts[i].phase == JOB_RUNNING;
        if (!live)
            return true;
        if (!nap(interval))
            break;
        interval = interval * 1.5 > POLL_MAX ? POLL_MAX : interval * 1.5;
        if (!ctk_slurm_poll(r->slurm, r->job_name, &jobs, &n, err))
            break;
        t = now_s();
        for (size_t i = 0; ok && i < r->n_parts; i++) {
            rpart_t *p = &r->parts[i];

            if (p->phase == JOB_PENDING || p->phase == JOB_RUNNING)
                ok = observe(r, p, find_job(jobs, n, p->job_id), t, err);
        }
        ctk_sjobs_free(jobs, n);
        if (!ok)
            break;
        if (r->o->run_timeout_s > 0 && t - t0 > r->o->run_timeout_s) {
            say(r, "the run timeout (%.0f s) passed: cancelling what is left", r->o->run_timeout_s);
            return cancel_live(r, CTK_PART_CANCELLED, "cancelled by ctkgen: --run-timeout passed", err);
        }
    }
    /* an interrupt, or Slurm stopped answering: nothing may stay queued */
    {
        ctk_error_t e2;

        ctk_error_init(&e2);
        if (cancel_live(r, CTK_PART_CANCELLED, "cancelled by ctkgen", &e2))
            say(r, "cancelled every job this run submitted");
        else
            say(r, "could not cancel every job: %s", e2.text);
    }
    if (err->code == CTK_E_OK)
        ctk_error_set(err, CTK_E_ENV, NULL, 0, 0, "interrupted while the jobs ran");
    return false;
}

/* ---- results --------------------------------------------------------------------------- */

/* KEY=VALUE from the job's node file; NULL when absent. */
static char *node_value(const char *text, const char *key, ctk_error_t *err)
{
    size_t k = strlen(key);

    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, key, k) == 0 && p[k] == '=') {
            char *v = strndup(p + k + 1, strcspn(p + k + 1, "\n"));

            if (!v)
                ctk_error_nomem(err);
            return v;
        }
    return NULL;
}

static char *part_file(const rpart_t *p, const char *name, size_t max, size_t *len)
{
    char *path = ctk_printf(NULL, "%s/%s", p->dir, name), *text;

    if (!path)
        return NULL;
    text = ctk_file_read(path, max, len, NULL);
    free(path);
    return text;
}

/* The job's own output file's last line: what Slurm or the script said. */
static char *job_output_line(const rpart_t *p, ctk_error_t *err)
{
    char name[64], *text, *last = NULL, *line;

    snprintf(name, sizeof name, "slurm-%s.out", p->job_id ? p->job_id : "?");
    if (!(text = part_file(p, name, 1 << 20, NULL)))
        return ctk_strdup("no output from the job (is the stage dir visible on the compute nodes?)", err);
    for (char *q = text; *q; q += strcspn(q, "\n") + (q[strcspn(q, "\n")] ? 1 : 0))
        if (q[0] != '\n')
            last = q;
    line = last ? strndup(last, strcspn(last, "\n")) : ctk_strdup("the job printed nothing", err);
    if (!line && last)
        ctk_error_nomem(err);
    free(text);
    return line;
}

static bool read_node(rpart_t *p, ctk_vpart_t *vp, ctk_error_t *err)
{
    char *text = part_file(p, "node", 1 << 16, NULL), *set;
    bool ok;

    if (!text)
        return true;
    set = node_value(text, "cvd_set", err);
    ok = (vp->node = node_value(text, "node", err)) != NULL && (vp->host = node_value(text, "host", err)) != NULL;
    if (ok && (vp->nvidia = node_value(text, "nvidia", err)) && !vp->nvidia[0]) {
        free(vp->nvidia);
        vp->nvidia = NULL;
    }
    if (ok && set && strcmp(set, "1") == 0)
        ok = (vp->cvd = node_value(text, "cvd", err)) != NULL;
    free(set);
    free(text);
    return ok;
}

/* How probe i ended, as a local run would have recorded it; false: it never ran. */
static bool probe_result(const rpart_t *p, size_t i, ctk_proc_result_t *res)
{
    char name[48], *rc;
    long v;

    snprintf(name, sizeof name, "%zu.rc", i);
    if (!(rc = part_file(p, name, 64, NULL)))
        return false;
    v = strtol(rc, NULL, 10);
    free(rc);
    snprintf(name, sizeof name, "%zu.out", i);
    res->out = part_file(p, name, 1 << 20, &res->out_len);
    snprintf(name, sizeof name, "%zu.err", i);
    res->err = part_file(p, name, 1 << 20, &res->err_len);
    if (!res->out && (res->out = strdup("")))
        res->out_len = 0;
    if (!res->err && (res->err = strdup("")))
        res->err_len = 0;
    if (v == 124)
        res->timed_out = true;
    else if (v > 128 && v < 160)
        res->term_signal = (int)(v - 128);
    else
        res->exit_status = (int)v;
    return res->out && res->err;
}

/* A cell starts as the artifact's local result. */
static bool seed_cell(ctk_vart_t *cell, const ctk_vart_t *local, ctk_error_t *err)
{
    cell->kind = local->kind;
    if (local->file && !(cell->file = ctk_strdup(local->file, err)))
        return false;
    if (!ctk_findings_extend(&cell->findings, &local->findings, err))
        return false;
    if (local->verdict == CTK_VERDICT_SKIP && local->skip_code &&
        (!(cell->skip_code = ctk_strdup(local->skip_code, err)) ||
         !(cell->skip_reason = ctk_strdup(local->skip_reason, err))))
        return false;
    return true;
}

/* The partition's word on a cell whose probes did not run there. */
static bool not_ran(const ctk_remote_t *r, const rpart_t *p, ctk_vart_t *cell, ctk_error_t *err)
{
    switch (p->state) {
    case CTK_PART_NOT_SUBMITTED:
        return ctk_findings_add(&cell->findings, "CTK-SLURM-001", cell->file, 0, err,
                                "partition %s: sbatch refused the job: %s", p->name, p->reason);
    case CTK_PART_LOST:
        return ctk_findings_add(&cell->findings, "CTK-SLURM-002", cell->file, 0, err,
                                "partition %s: %s", p->name, p->reason);
    default:
        break;
    }
    if (r->o->require_launch)
        return ctk_findings_add(&cell->findings, "CTK-GPU-005", cell->file, 0, err,
                                "partition %s: not launched: %s", p->name, p->reason);
    if (cell->skip_code)
        return true;
    cell->skip_code = ctk_strdup("CTK-SKIP-005", err);
    cell->skip_reason = ctk_printf(err, "not launched on partition %s: %s", p->name, p->reason);
    return cell->skip_code && cell->skip_reason;
}

static bool judge_partition(const ctk_remote_t *r, size_t pi, ctk_sdk_t *const *sdks, ctk_vreport_t *rep,
                            ctk_error_t *err)
{
    const rpart_t *p = &r->parts[pi];
    ctk_vpart_t *vp = &rep->parts[pi];
    char where[256];

    snprintf(where, sizeof where, "on node %s (partition %s)", vp->node && vp->node[0] ? vp->node : "?", p->name);
    for (size_t i = 0; i < rep->n_launches; i++) {
        const ctk_vlaunch_t *l = &rep->launches[i];
        ctk_vart_t *cell = ctk_vreport_cell(rep, l->sdk, pi, l->art);
        ctk_proc_result_t res;
        bool ok = true;

        if (p->state != CTK_PART_RAN) {
            /* once per cell: its first probe */
            if (i == 0 || rep->launches[i - 1].sdk != l->sdk || rep->launches[i - 1].art != l->art)
                ok = not_ran(r, p, cell, err);
            if (!ok)
                return false;
            continue;
        }
        ctk_proc_result_init(&res);
        if (probe_result(p, i, &res))
            ok = ctk_validate_judge_run(sdks[l->sdk], l, &res, r->probe_timeout, r->o->require_launch, where,
                                        cell, err);
        else
            ok = ctk_findings_add(&cell->findings, "CTK-SLURM-002", cell->file, 0, err,
                                  "partition %s: %s did not run: job %s ended before it", p->name, l->name,
                                  p->job_id);
        ctk_proc_result_fini(&res);
        if (!ok)
            return false;
        if (!vp->gpu && cell->cuda.present && cell->cuda.device && cell->cuda.device[0]) {
            if (!(vp->gpu = ctk_strdup(cell->cuda.device, err)))
                return false;
            vp->cc_major = cell->cuda.cc_major;
            vp->cc_minor = cell->cuda.cc_minor;
        }
        if (!vp->driver && cell->cuda.present)
            vp->driver = cell->cuda.driver;
    }
    return true;
}

/* The report's record of partition p, and how its job ended. */
static bool describe_partition(rpart_t *p, ctk_vpart_t *vp, ctk_error_t *err)
{
    char *done;

    if (!(vp->name = ctk_strdup(p->name, err)) ||
        !(vp->gres_request = ctk_strdup(p->conf && p->conf->gres ? p->conf->gres : "gpu:1", err)) ||
        (p->sp->gres && !(vp->gres = ctk_strdup(p->sp->gres, err))) ||
        (p->sp->features && !(vp->features = ctk_strdup(p->sp->features, err))) ||
        (p->job_id && !(vp->job_id = ctk_strdup(p->job_id, err))))
        return false;
    if (p->phase == JOB_DONE && p->job_id && p->state == CTK_PART_RAN) {
        /* it left the queue: did the script get to its end? */
        if (!read_node(p, vp, err))
            return false;
        if (!(done = part_file(p, "done", 16, NULL))) {
            p->state = CTK_PART_LOST;
            free(p->reason);
            if (!(p->reason = job_output_line(p, err)))
                return false;
            if (p->last_state) {
                char *r2 = ctk_printf(err, "job %s ended %s without finishing: %s", p->job_id, p->last_state,
                                      p->reason);

                free(p->reason);
                if (!(p->reason = r2))
                    return false;
            }
        }
        free(done);
    }
    vp->state = p->state;
    vp->cached = p->cached;
    vp->cache_age_s = p->cache_age;
    vp->queued_s = p->t_start > 0 ? p->t_start - p->t_submit : 0;
    vp->ran_s = p->t_end > p->t_start && p->t_start > 0 ? p->t_end - p->t_start : 0;
    return !p->reason || (vp->reason = ctk_strdup(p->reason, err)) != NULL;
}

static void count_cells(ctk_vreport_t *rep)
{
    size_t n = rep->n_sdks * rep->n_parts * CTK_ART__COUNT;

    rep->m_pass = rep->m_skip = rep->m_fail = 0;
    for (size_t i = 0; i < n; i++) {
        ctk_vart_settle(&rep->cells[i]);
        rep->m_pass += rep->cells[i].verdict == CTK_VERDICT_PASS;
        rep->m_skip += rep->cells[i].verdict == CTK_VERDICT_SKIP;
        rep->m_fail += rep->cells[i].verdict == CTK_VERDICT_FAIL;
    }
}

static bool make_cells(ctk_vreport_t *rep, ctk_error_t *err)
{
    size_t n = rep->n_sdks * rep->n_parts * CTK_ART__COUNT;

    if (!(rep->cells = calloc(n ? n : 1, sizeof *rep->cells))) {
        ctk_error_nomem(err);
        return false;
    }
    for (size_t i = 0; i < rep->n_sdks; i++)
        for (size_t p = 0; p < rep->n_parts; p++)
            for (int a = 0; a < CTK_ART__COUNT; a++) {
                ctk_vart_t *cell = ctk_vreport_cell(rep, i, p, (ctk_art_t)a);

                ctk_findings_init(&cell->findings);
                ctk_probe_report_init(&cell->host);
                ctk_probe_report_init(&cell->cuda);
                ctk_probe_report_init(&cell->sass);
                ctk_probe_report_init(&cell->ptx);
                if (!seed_cell(cell, &rep->sdks[i].art[a], err))
                    return false;
            }
    return true;
}

/* Submit a job to every partition and wait for them all. */
static bool run_jobs(ctk_remote_t *r, ctk_vreport_t *rep, ctk_error_t *err)
{
    if (!(rep->launcher = ctk_strdup("slurm", err)) ||
        !(rep->parts = calloc(r->n_parts ? r->n_parts : 1, sizeof *rep->parts))) {
        if (err->code == CTK_E_OK)
            ctk_error_nomem(err);
        return false;
    }
    rep->n_parts = r->n_parts;
    if (rep->n_launches == 0 && !r->compute) {
        say(r, "no probe was built: nothing to launch");
    } else {
        for (size_t i = 0; i < r->n_parts; i++)
            if (!submit(r, &r->parts[i], rep, err)) {
                ctk_error_t e2;

                ctk_error_init(&e2);
                cancel_live(r, CTK_PART_CANCELLED, "cancelled by ctkgen", &e2);
                return false;
            }
        if (!wait_jobs(r, err))
            return false;
    }
    rep->jobs_submitted = r->submitted;
    rep->scheduler_calls = ctk_slurm_calls(r->slurm);
    for (size_t i = 0; i < r->n_parts; i++)
        if (!describe_partition(&r->parts[i], &rep->parts[i], err))
            return false;
    return make_cells(rep, err);
}

bool ctk_remote_run(ctk_remote_t *r, ctk_sdk_t *const *sdks, ctk_vreport_t *rep, ctk_error_t *err)
{
    qsort(rep->launches, rep->n_launches, sizeof *rep->launches, launch_order);
    if (!run_jobs(r, rep, err))
        return false;
    for (size_t i = 0; i < r->n_parts; i++)
        if (rep->n_launches && !judge_partition(r, i, sdks, rep, err))
            return false;
    count_cells(rep);
    for (size_t i = 0; i < r->n_parts; i++)
        cache_save(r, &r->parts[i], rep, i);
    return true;
}

/* ---- build "compute": ctkgen itself in the job ------------------------------------------------ */

/* The node's report into partition pi's cells, or why there is none. */
static bool judge_compute(const ctk_remote_t *r, size_t pi, ctk_vreport_t *rep, ctk_error_t *err)
{
    const rpart_t *p = &r->parts[pi];
    ctk_vpart_t *vp = &rep->parts[pi];
    char *rc = NULL, *json = NULL, *why = NULL;
    ctk_error_t perr;
    bool ok = true;

    if (p->state == CTK_PART_RAN) {
        rc = part_file(p, "report.rc", 64, NULL);
        json = part_file(p, "report.json", 64u << 20, NULL);
        ctk_error_init(&perr);
        long status = rc ? strtol(rc, NULL, 10) : -1;

        if ((status == 0 || status == 1) && ctk_vreport_cells_from_json(json, rep, pi, &perr)) {
            for (size_t i = 0; i < rep->n_sdks && !vp->gpu; i++) {
                const ctk_vart_t *c = ctk_vreport_cell(rep, i, pi, CTK_ART_PC);

                if (c->cuda.present && c->cuda.device && c->cuda.device[0]) {
                    ok = (vp->gpu = ctk_strdup(c->cuda.device, err)) != NULL;
                    vp->cc_major = c->cuda.cc_major;
                    vp->cc_minor = c->cuda.cc_minor;
                }
                if (c->cuda.present && !vp->driver)
                    vp->driver = c->cuda.driver;
            }
            goto out;
        }
        {
            char *e = part_file(p, "report.err", 1 << 20, NULL), *last = e ? strrchr(e, '\n') : NULL;

            while (last && last > e && last[1] == '\0') {
                *last = '\0';
                last = strrchr(e, '\n');
            }
            why = ctk_printf(err, "ctkgen on node %s exited %s: %s", vp->node ? vp->node : "?", rc ? rc : "?",
                             e && *e ? (last ? last + 1 : e) : perr.text);
            free(e);
        }
        for (size_t i = 0; ok && why && i < rep->n_sdks; i++)
            for (int a = 0; ok && a < CTK_ART__COUNT; a++) {
                ctk_vart_t *cell = ctk_vreport_cell(rep, i, pi, (ctk_art_t)a);

                ok = ctk_findings_add(&cell->findings, "CTK-SLURM-002", cell->file, 0, err, "partition %s: %s",
                                      p->name, why);
            }
        ok = ok && why;
        goto out;
    }
    for (size_t i = 0; ok && i < rep->n_sdks; i++)
        for (int a = 0; ok && a < CTK_ART__COUNT; a++)
            ok = not_ran(r, p, ctk_vreport_cell(rep, i, pi, (ctk_art_t)a), err);
out:
    free(rc);
    free(json);
    free(why);
    return ok;
}

bool ctk_remote_run_compute(ctk_remote_t *r, const ctk_remote_compute_t *cc, ctk_vreport_t *rep,
                            ctk_error_t *err)
{
    r->compute = cc;
    rep->built_remotely = true;
    rep->n_skip = rep->n_skip_unchecked = rep->n_sdks * CTK_ART__COUNT;
    /* nothing was checked here: the report's own artifacts say so */
    for (size_t i = 0; i < rep->n_sdks; i++)
        for (int a = 0; a < CTK_ART__COUNT; a++) {
            ctk_vart_t *art = &rep->sdks[i].art[a];

            if (!(art->skip_reason = ctk_strdup("not checked here: build \"compute\" checks it in each job", err)))
                return false;
            art->verdict = CTK_VERDICT_SKIP;
        }
    if (!run_jobs(r, rep, err))
        return false;
    /* the cells start empty: the node's report is all there is */
    for (size_t i = 0; i < rep->n_sdks * rep->n_parts * CTK_ART__COUNT; i++) {
        ctk_vart_t *c = &rep->cells[i];

        free(c->skip_code);
        free(c->skip_reason);
        c->skip_code = c->skip_reason = NULL;
    }
    for (size_t i = 0; i < r->n_parts; i++)
        if (!judge_compute(r, i, rep, err))
            return false;
    count_cells(rep);
    return true;
}
