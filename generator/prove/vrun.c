/* vrun.c - run a built probe, here or staged for a launcher, and judge how it ran.
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "vrun.h"

#include "diag.h"
#include "env.h"
#include "error.h"
#include "facts.h"
#include "probeio.h"
#include "proc.h"
#include "sdk.h"
#include "util.h"
#include "verdict.h"
#include "vjob.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How a probe's run ended, judged: a finding when it did not exit 0 with a
 * report, else the report parsed into rep.  false only for internal errors. */
static bool judge_run(const vjudge_t *jd, ctk_vart_t *a, const char *exe, const ctk_proc_result_t *r,
                      ctk_probe_report_t *rep)
{
    ctk_error_t perr;
    char desc[256], line[512];

    if (!ctk_proc_ok(r)) {
        ctk_vjob_first_error_line(r->err, line, sizeof line);
        if (strstr(r->err, "error while loading shared libraries") && strstr(r->err, "libcudart"))
            return ctk_vart_addf(a, "CTK-RUN-003", 0, jd->err, "%s: %s", exe, line);
        return ctk_vart_addf(a, "CTK-RUN-001", 0, jd->err, "%s: %s%s%s", exe,
                             ctk_proc_describe(r, jd->timeout, desc, sizeof desc), line[0] ? ": " : "", line);
    }
    ctk_error_init(&perr);
    if (!ctk_probe_report_parse(r->out, rep, &perr))
        return ctk_vart_addf(a, "CTK-RUN-001", 0, jd->err, "%s: no report: %s", exe, perr.text);
    return true;
}

static bool stage_probe(vjob_t *j, ctk_vart_t *a, const char *exe, ctk_env_t *env, ctk_probe_kind_t kind);
bool ctk_vrun_launch(vjob_t *j, ctk_vart_t *a, const char *exe, ctk_env_t *env,
                     ctk_probe_report_t *rep)
{
    const char *argv[] = {exe, NULL};
    ctk_proc_result_t r;
    bool ok = false;

    if (j->c->o->stage_dir) {
        ctk_probe_kind_t kind = rep == &a->host   ? CTK_PROBE_HOST
                                : rep == &a->cuda ? CTK_PROBE_CUDA
                                : rep == &a->sass ? CTK_PROBE_SASS
                                                  : CTK_PROBE_PTX;

        if (!stage_probe(j, a, exe, env, kind))
            return false;
        if (kind != CTK_PROBE_HOST)
            return true;
    }
    ctk_proc_result_init(&r);
    if (ctk_vjob_run_step(j, argv, env, &r))
        ok = judge_run(&j->jd, a, exe, &r, rep);
    ctk_proc_result_fini(&r);
    return ok;
}

bool ctk_vrun_judge_report(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p, const char *what)
{
    const ctk_sdk_t *s = jd->sdk;
    int ma = s->version.major, mi = s->version.minor;

    if (!p->present)
        return true;
    if (p->libcudart && p->libcudart[0] && !ctk_vjob_lib_in_dir(p->libcudart, s->libdir)) {
        char *real = ctk_realpath(p->libcudart);

        if (!ctk_vart_addf(a, "CTK-RUN-002", 0, jd->err, "%s loaded %s%s%s%s, not the libcudart in %s", what,
                           p->libcudart, real && strcmp(real, p->libcudart) ? " (" : "",
                           real && strcmp(real, p->libcudart) ? real : "",
                           real && strcmp(real, p->libcudart) ? ")" : "", s->libdir)) {
            free(real);
            return false;
        }
        free(real);
    }
    if (p->cudart_header / 1000 != ma || p->cudart_header % 1000 / 10 != mi)
        if (!ctk_vart_addf(a, "CTK-VER-001", 0, jd->err,
                           "%s was compiled against CUDART_VERSION %d (CUDA %d.%d), the toolkit is %d.%d", what,
                           p->cudart_header, p->cudart_header / 1000, p->cudart_header % 1000 / 10, ma, mi))
            return false;
    if (p->runtime && (p->runtime / 1000 != ma || p->runtime % 1000 / 10 != mi))
        if (!ctk_vart_addf(a, "CTK-VER-001", 0, jd->err, "%s runs on a CUDA %d.%d runtime (%s), the toolkit is %d.%d",
                           what, p->runtime / 1000, p->runtime % 1000 / 10, p->libcudart ? p->libcudart : "?",
                           ma, mi))
            return false;
    return true;
}

/* The driver cannot JIT this toolkit's PTX for p's GPU (CUDA minor-version
 * compatibility: an older driver runs SASS, not newer PTX). */
static bool ptx_too_new(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p, const char *code)
{
    const ctk_sdk_t *s = jd->sdk;
    const char *full = NULL, *compat = NULL;
    int sm = p->cc_major * 10 + p->cc_minor;

    ctk_facts_driver_min(s->version.major, s->version.minor, &full, &compat);
    return ctk_vart_addf(a, code, 0, jd->err,
                         "%s (compute capability %d.%d) %s: its driver supports CUDA %d.%d, older than this toolkit's "
                         "%d.%d, so it cannot JIT the toolkit's PTX (cudaErrorUnsupportedPtxVersion); code built with SASS "
                         "for it (-arch=sm_%d) runs, code that needs PTX (-arch=compute_XX, newer GPUs) does not; "
                         "update the driver%s%s%s",
                         p->device && p->device[0] ? p->device : "the GPU", p->cc_major, p->cc_minor, jd->where,
                         p->driver / 1000, p->driver % 1000 / 10, s->version.major, s->version.minor, sm,
                         full ? " to " : "", full ? full : "", full ? " or newer" : "");
}

static bool kernel_ran(const ctk_probe_report_t *p)
{
    return p->present && p->status && strcmp(p->status, "cudaSuccess") == 0 && p->kernel_ok == 1;
}

bool ctk_vrun_judge_arch(const vjudge_t *jd, ctk_vart_t *a)
{
    const ctk_probe_report_t *sass = &a->sass, *ptx = &a->ptx;

    if (!sass->present || !ptx->present || sass->driver == 0 || sass->devices == 0)
        return true; /* no GPU there: nothing learnt */
    if (!kernel_ran(sass) && sass->status && strcmp(sass->status, "cudaErrorNoKernelImageForDevice") == 0 &&
        !ctk_findings_has(&a->findings, "CTK-GPU-002"))
        return ctk_vart_addf(a, "CTK-GPU-002", 0, jd->err,
                             "%s (compute capability %d.%d) %s runs none of the SASS this toolkit builds for every "
                             "architecture it knows (cudaErrorNoKernelImageForDevice): not a target of this toolkit",
                             sass->device && sass->device[0] ? sass->device : "the GPU", sass->cc_major, sass->cc_minor,
                             jd->where);
    if (kernel_ran(sass) && ptx->status && strcmp(ptx->status, "cudaErrorUnsupportedPtxVersion") == 0 &&
        !ctk_findings_has(&a->findings, "CTK-GPU-006"))
        return ptx_too_new(jd, a, ptx, "CTK-GPU-007");
    return true;
}

bool ctk_vrun_judge_launch(const vjudge_t *jd, ctk_vart_t *a, const ctk_probe_report_t *p)
{
    const ctk_sdk_t *s = jd->sdk;
    const char *st = p->status ? p->status : "";
    const char *skip_code = NULL;
    char reason[256];

    if (!p->present || !p->is_cuda)
        return true;
    if (p->driver == 0) {
        skip_code = "CTK-SKIP-001";
        snprintf(reason, sizeof reason, "not launched: no NVIDIA driver %s (%s)", jd->where, st);
    } else if (strcmp(st, "cudaErrorNoDevice") == 0 || (strcmp(st, "cudaSuccess") == 0 && p->devices == 0)) {
        skip_code = "CTK-SKIP-002";
        snprintf(reason, sizeof reason, "not launched: no CUDA-capable GPU visible %s (%s)", jd->where, st);
    } else if (strcmp(st, "cudaErrorInsufficientDriver") == 0) {
        const char *full = NULL, *compat = NULL;

        ctk_facts_driver_min(s->version.major, s->version.minor, &full, &compat);
        return ctk_vart_addf(a, "CTK-GPU-003", 0, jd->err,
                             "the driver supports CUDA %d.%d, this runtime is %d.%d%s%s%s", p->driver / 1000,
                             p->driver % 1000 / 10, p->runtime / 1000, p->runtime % 1000 / 10,
                             full ? " (needs driver " : "", full ? full : "", full ? " or newer)" : "");
    } else if (strcmp(st, "cudaErrorUnsupportedPtxVersion") == 0) {
        return ptx_too_new(jd, a, p, "CTK-GPU-006");
    } else if (strcmp(st, "cudaErrorCallRequiresNewerDriver") == 0) {
        const char *full = NULL, *compat = NULL;

        ctk_facts_driver_min(s->version.major, s->version.minor, &full, &compat);
        return ctk_vart_addf(a, "CTK-GPU-003", 0, jd->err,
                             "the driver supports CUDA %d.%d; a call of this %d.%d runtime needs a newer one "
                             "(cudaErrorCallRequiresNewerDriver)%s%s%s",
                             p->driver / 1000, p->driver % 1000 / 10, s->version.major, s->version.minor,
                             full ? ": driver " : "", full ? full : "", full ? " or newer" : "");
    } else if (strcmp(st, "cudaErrorNoKernelImageForDevice") == 0 ||
               strcmp(st, "cudaErrorInvalidKernelImage") == 0) {
        int sup = ctk_facts_sm_supported(s->version.major, s->version.minor, p->cc_major, p->cc_minor);

        return ctk_vart_addf(a, "CTK-GPU-002", 0, jd->err, "%s (compute capability %d.%d) cannot run this kernel: %s%s",
                             p->device ? p->device : "GPU", p->cc_major, p->cc_minor, st,
                             sup == 0 ? "; that architecture is not a target of this toolkit" : "");
    } else if (strcmp(st, "cudaSuccess") != 0) {
        return ctk_vart_addf(a, "CTK-GPU-004", 0, jd->err, "CUDA error on %s: %s", p->device ? p->device : "GPU", st);
    } else if (p->kernel_ok != 1) {
        return ctk_vart_addf(a, "CTK-GPU-001", 0, jd->err, "the axpy kernel ran on %s but its result was wrong",
                             p->device ? p->device : "GPU");
    } else {
        a->launched = true;
        return true;
    }
    if (jd->require_launch)
        return ctk_vart_addf(a, "CTK-GPU-005", 0, jd->err, "%s", reason);
    if (!a->skip_code) {
        if (!(a->skip_code = ctk_strdup(skip_code, jd->err)) ||
            !(a->skip_reason = ctk_strdup(reason, jd->err)))
            return false;
    }
    return true;
}

/* ---- probes staged for a launcher elsewhere --------------------------------------------- */

/* Copy exe into the stage dir under a name of its own and list it. */
static bool stage_probe(vjob_t *j, ctk_vart_t *a, const char *exe, ctk_env_t *env, ctk_probe_kind_t kind)
{
    ctk_vreport_t *rep = j->c->rep;
    size_t idx = (size_t)(j->res - rep->sdks), len = 0;
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    ctk_vlaunch_t l = {0};
    char *data = NULL, name[96];
    bool ok = false;

    snprintf(name, sizeof name, "%zu-%s-%s", idx, ctk_art_name(a->kind), base);
    ctk_strlist_init(&l.env);
    l.sdk = idx;
    l.art = a->kind;
    l.probe = kind;
    if (!(data = ctk_file_read(exe, 256u << 20, &len, j->err)) ||
        !(l.exe = ctk_path_join(j->c->o->stage_dir, name, j->err)) || !(l.name = ctk_strdup(base, j->err)))
        goto out;
    if (!ctk_vjob_write_text(j->c->o->stage_dir, name, data, len, j->err) || chmod(l.exe, 0755) != 0) {
        if (j->err->code == CTK_E_OK)
            ctk_error_set(j->err, CTK_E_IO, l.exe, 0, 0, "cannot make it executable: %s", strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < env->kv.len; i++)
        if (!ctk_strlist_push(&l.env, env->kv.items[i], j->err))
            goto out;
    pthread_mutex_lock(&j->c->lock);
    {
        ctk_vlaunch_t *grown = realloc(rep->launches, (rep->n_launches + 1) * sizeof *grown);

        if (grown) {
            rep->launches = grown;
            grown[rep->n_launches++] = l;
            memset(&l, 0, sizeof l);
            ok = true;
        } else {
            ctk_error_nomem(j->err);
        }
    }
    pthread_mutex_unlock(&j->c->lock);
out:
    free(data);
    free(l.exe);
    free(l.name);
    ctk_strlist_fini(&l.env);
    return ok;
}

bool ctk_vrun_judge_staged(const ctk_sdk_t *sdk, const ctk_vlaunch_t *l, const ctk_proc_result_t *r, double timeout_s,
                           bool require_launch, const char *where, ctk_vart_t *cell, ctk_error_t *err)
{
    vjudge_t jd = {sdk, err, timeout_s, require_launch, where};
    ctk_probe_report_t *reps[] = {&cell->host, &cell->cuda, &cell->sass, &cell->ptx}, *rep = reps[l->probe];
    size_t before = cell->findings.len;

    if (!judge_run(&jd, cell, l->name, r, rep))
        return false;
    if (l->probe == CTK_PROBE_PTX)
        return ctk_vrun_judge_arch(&jd, cell);
    if (cell->findings.len > before || !rep->present || l->probe == CTK_PROBE_SASS)
        return true;
    if (!ctk_vrun_judge_report(&jd, cell, rep, l->name))
        return false;
    return l->probe != CTK_PROBE_CUDA || ctk_vrun_judge_launch(&jd, cell, rep);
}
