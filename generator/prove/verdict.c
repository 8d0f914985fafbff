/* verdict.c - validate's results: names, settling, freeing, and their
 * JSON forms (verdict.h).
 * SPDX-License-Identifier: MIT
 *
 * Validate caches the three artifacts of an SDK as one entry, so what it
 * compares across them stays consistent when a string that is not UTF-8
 * reads back with U+FFFD in it (jsonio.c).
 */
#include <ctkconf.h>

#include "verdict.h"

#include "jsonio.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ctk_art_name(ctk_art_t a)
{
    switch (a) {
    case CTK_ART_LMOD: return "lmod";
    case CTK_ART_TCL: return "tcl";
    case CTK_ART_PC: return "pc";
    case CTK_ART__COUNT: break;
    }
    return "?";
}

const char *ctk_verdict_name(ctk_verdict_t v)
{
    switch (v) {
    case CTK_VERDICT_PASS: return "pass";
    case CTK_VERDICT_SKIP: return "skip";
    case CTK_VERDICT_FAIL: return "fail";
    }
    return "?";
}

ctk_skip_kind_t ctk_vart_skip_kind(const ctk_vart_t *a)
{
    if (a->verdict != CTK_VERDICT_SKIP)
        return CTK_SKIP_NONE;
    /* judge_launch() sets these two only after the probes were built,
     * linked and run against the artifact's environment */
    if (a->skip_code &&
        (strcmp(a->skip_code, "CTK-SKIP-001") == 0 || strcmp(a->skip_code, "CTK-SKIP-002") == 0 ||
         strcmp(a->skip_code, "CTK-SKIP-005") == 0))
        return CTK_SKIP_LAUNCH;
    return CTK_SKIP_UNCHECKED;
}

ctk_vart_t *ctk_vreport_cell(const ctk_vreport_t *r, size_t i, size_t p, ctk_art_t a)
{
    return &r->cells[(i * r->n_parts + p) * CTK_ART__COUNT + (size_t)a];
}

const char *ctk_part_state_name(ctk_part_state_t s)
{
    switch (s) {
    case CTK_PART_RAN: return "ran";
    case CTK_PART_NOT_SUBMITTED: return "not_submitted";
    case CTK_PART_PENDING_TIMEOUT: return "pending_timeout";
    case CTK_PART_LOST: return "lost";
    case CTK_PART_CANCELLED: return "cancelled";
    }
    return "?";
}

void ctk_vart_settle(ctk_vart_t *a)
{
    if (ctk_findings_count(&a->findings, CTK_SEV_ERROR) > 0)
        a->verdict = CTK_VERDICT_FAIL;
    else if (a->skip_code)
        a->verdict = CTK_VERDICT_SKIP;
    else
        a->verdict = CTK_VERDICT_PASS;
}

void ctk_vreport_init(ctk_vreport_t *r)
{
    memset(r, 0, sizeof *r);
}

void ctk_vreport_fini(ctk_vreport_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; r->sdks && i < r->n_sdks; i++) {
        ctk_vsdk_t *s = &r->sdks[i];

        for (int a = 0; a < CTK_ART__COUNT; a++) {
            ctk_vart_fini(&s->art[a]);
            free(s->art[a].file);
        }
        free(s->module);
        free(s->pc_name);
        free(s->version);
        free(s->root);
    }
    free(r->sdks);
    for (size_t i = 0; i < r->n_launches; i++) {
        free(r->launches[i].name);
        free(r->launches[i].exe);
        ctk_strlist_fini(&r->launches[i].env);
    }
    free(r->launches);
    for (size_t i = 0; r->cells && i < r->n_sdks * r->n_parts * CTK_ART__COUNT; i++) {
        ctk_vart_fini(&r->cells[i]);
        free(r->cells[i].file);
    }
    free(r->cells);
    for (size_t i = 0; i < r->n_parts; i++) {
        ctk_vpart_t *p = &r->parts[i];

        free(p->name);
        free(p->gres_request);
        free(p->gres);
        free(p->features);
        free(p->job_id);
        free(p->reason);
        free(p->node);
        free(p->host);
        free(p->cvd);
        free(p->gpu);
        free(p->nvidia);
    }
    free(r->parts);
    free(r->launcher);
    free(r->outdir);
    free(r->cc);
    free(r->cxx);
    free(r->cc_version);
    free(r->driver);
    free(r->tcl_modsys);
    free(r->tcl_skip);
    free(r->tcl_user);
    free(r->cache_warning);
    free(r->lmod);
    memset(r, 0, sizeof *r);
}

void ctk_vart_init(ctk_vart_t *a, ctk_art_t kind)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    ctk_findings_init(&a->findings);
    ctk_env_init(&a->env);
    ctk_strlist_init(&a->cflags);
    ctk_strlist_init(&a->libs);
    ctk_probe_report_init(&a->host);
    ctk_probe_report_init(&a->cuda);
    ctk_probe_report_init(&a->sass);
    ctk_probe_report_init(&a->ptx);
}

void ctk_vart_fini(ctk_vart_t *a)
{
    if (!a)
        return;
    free(a->file);
    free(a->skip_code);
    free(a->skip_reason);
    ctk_findings_fini(&a->findings);
    ctk_env_fini(&a->env);
    ctk_strlist_fini(&a->cflags);
    ctk_strlist_fini(&a->libs);
    free(a->pc_version);
    free(a->nvcc);
    free(a->nvcc_release);
    free(a->built_by);
    free(a->linked_by);
    ctk_probe_report_fini(&a->host);
    ctk_probe_report_fini(&a->cuda);
    ctk_probe_report_fini(&a->sass);
    ctk_probe_report_fini(&a->ptx);
    ctk_vart_init(a, a->kind);
}

bool ctk_vart_addf(ctk_vart_t *a, const char *code, int line, ctk_error_t *err, const char *fmt, ...)
{
    char text[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return ctk_findings_add(&a->findings, code, a->file, line, err, "%s", text);
}

static json_t *probe_json(const ctk_probe_report_t *p)
{
    json_t *o;
    char cc[32];

    if (!p->present)
        return json_null();
    o = json_object();
    if (p->cc_major || p->cc_minor)
        snprintf(cc, sizeof cc, "%d.%d", p->cc_major, p->cc_minor);
    if (!o || !ctk_json_set(o, "cudart_header", ctk_json_int(p->cudart_header)) ||
        !ctk_json_set(o, "runtime", ctk_json_int(p->runtime)) || !ctk_json_set(o, "driver", ctk_json_int(p->driver)) ||
        !ctk_json_set(o, "devices", ctk_json_int(p->devices)) || !ctk_json_set(o, "status", ctk_json_str(p->status)) ||
        !ctk_json_set(o, "device", ctk_json_str(p->device)) ||
        !ctk_json_set(o, "cc", (p->cc_major || p->cc_minor) ? ctk_json_str(cc) : json_null()) ||
        !ctk_json_set(o, "kernel_ok", p->kernel_ok < 0 ? json_null() : json_boolean(p->kernel_ok)) ||
        !ctk_json_set(o, "libcudart", ctk_json_str(p->libcudart)) || !ctk_json_set(o, "visible", ctk_json_str(p->visible))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *findings_json(const ctk_findings_t *f)
{
    return ctk_json_findings(f, false);
}

static json_t *art_json(const ctk_vart_t *a)
{
    json_t *o = json_object(), *skip = json_null();
    bool ok;

    if (!o)
        return NULL;
    if (a->verdict == CTK_VERDICT_SKIP || a->skip_code || a->skip_reason) {
        skip = json_object();
        if (!skip || !ctk_json_set(skip, "code", ctk_json_str(a->skip_code)) ||
            !ctk_json_set(skip, "reason", ctk_json_str(a->skip_reason))) {
            json_decref(skip);
            skip = NULL;
        }
    }
    ok = ctk_json_set(o, "kind", ctk_json_str(ctk_art_name(a->kind))) && ctk_json_set(o, "file", ctk_json_str(a->file)) &&
         ctk_json_set(o, "verdict", ctk_json_str(ctk_verdict_name(a->verdict)));
    if (ok)
        ok = ctk_json_set(o, "skip", skip); /* takes skip */
    else
        json_decref(skip);
    ok = ok && ctk_json_set(o, "cached", json_boolean(a->cached)) && ctk_json_set(o, "seconds", ctk_json_secs(a->seconds));
    if (ok && a->kind == CTK_ART_PC)
        ok = ctk_json_set(o, "cflags", ctk_json_strlist(&a->cflags)) &&
             ctk_json_set(o, "libs", ctk_json_strlist(&a->libs)) &&
             ctk_json_set(o, "pc_version", ctk_json_str(a->pc_version));
    else if (ok)
        ok = ctk_json_set(o, "env", ctk_json_env(&a->env));
    ok = ok && ctk_json_set(o, "nvcc", ctk_json_str(a->nvcc)) && ctk_json_set(o, "nvcc_release", ctk_json_str(a->nvcc_release)) &&
         ctk_json_set(o, "built_by", ctk_json_str(a->built_by)) && ctk_json_set(o, "linked_by", ctk_json_str(a->linked_by)) &&
         ctk_json_set(o, "host_probe", probe_json(&a->host)) &&
         ctk_json_set(o, "cuda_probe", probe_json(&a->cuda)) && ctk_json_set(o, "sass_probe", probe_json(&a->sass)) &&
         ctk_json_set(o, "ptx_probe", probe_json(&a->ptx)) &&
         ctk_json_set(o, "launched", json_boolean(a->launched)) &&
         ctk_json_set(o, "findings", findings_json(&a->findings));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *sdk_json(const ctk_vsdk_t *s)
{
    json_t *o = json_object(), *arts = NULL;
    bool ok;
    int k;

    ok = o && ctk_json_set(o, "module", ctk_json_str(s->module)) && ctk_json_set(o, "pc", ctk_json_str(s->pc_name)) &&
         ctk_json_set(o, "version", ctk_json_str(s->version)) && ctk_json_set(o, "root", ctk_json_str(s->root)) &&
         ctk_json_set(o, "verdict", ctk_json_str(ctk_verdict_name(s->verdict))) &&
         ctk_json_set(o, "seconds", ctk_json_secs(s->seconds)) && (arts = json_array()) != NULL;
    for (k = 0; ok && k < CTK_ART__COUNT; k++)
        ok = ctk_json_append(arts, art_json(&s->art[k]));
    if (ok)
        ok = ctk_json_set(o, "artifacts", arts); /* takes arts */
    else
        json_decref(arts);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *part_json(const ctk_vpart_t *p)
{
    json_t *o = json_object();
    char cc[16], drv[16];

    snprintf(cc, sizeof cc, "%d.%d", p->cc_major, p->cc_minor);
    snprintf(drv, sizeof drv, "%d.%d", p->driver / 1000, p->driver % 1000 / 10);
    if (!o || !ctk_json_set(o, "name", ctk_json_str(p->name)) || !ctk_json_set(o, "gres_request", ctk_json_str(p->gres_request)) ||
        !ctk_json_set(o, "gres", ctk_json_str(p->gres)) || !ctk_json_set(o, "features", ctk_json_str(p->features)) ||
        !ctk_json_set(o, "job_id", ctk_json_str(p->job_id)) || !ctk_json_set(o, "state", ctk_json_str(ctk_part_state_name(p->state))) ||
        !ctk_json_set(o, "reason", ctk_json_str(p->reason)) || !ctk_json_set(o, "node", ctk_json_str(p->node)) ||
        !ctk_json_set(o, "host", ctk_json_str(p->host)) || !ctk_json_set(o, "cuda_visible_devices", ctk_json_str(p->cvd)) ||
        !ctk_json_set(o, "gpu", ctk_json_str(p->gpu)) || !ctk_json_set(o, "cc", p->gpu ? ctk_json_str(cc) : json_null()) ||
        !ctk_json_set(o, "driver", p->driver ? ctk_json_str(drv) : json_null()) || !ctk_json_set(o, "nvidia_driver", ctk_json_str(p->nvidia)) ||
        !ctk_json_set(o, "queued_s", ctk_json_secs(p->queued_s)) ||
        !ctk_json_set(o, "ran_s", ctk_json_secs(p->ran_s)) || !ctk_json_set(o, "cached", json_boolean(p->cached)) ||
        !ctk_json_set(o, "cache_age_s", ctk_json_secs(p->cache_age_s))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *cell_json(const ctk_vreport_t *r, size_t i, size_t p, ctk_art_t k)
{
    const ctk_vart_t *c = ctk_vreport_cell(r, i, p, k);
    json_t *o = json_object(), *skip = json_null();

    if (c->verdict == CTK_VERDICT_SKIP) {
        if (!(skip = json_object()) || !ctk_json_set(skip, "code", ctk_json_str(c->skip_code)) ||
            !ctk_json_set(skip, "reason", ctk_json_str(c->skip_reason))) {
            json_decref(skip);
            skip = NULL;
        }
    }
    if (!o || !skip || !ctk_json_set(o, "module", ctk_json_str(r->sdks[i].module)) || !ctk_json_set(o, "partition", ctk_json_str(r->parts[p].name)) ||
        !ctk_json_set(o, "artifact", ctk_json_str(ctk_art_name(k))) || !ctk_json_set(o, "verdict", ctk_json_str(ctk_verdict_name(c->verdict))) ||
        !ctk_json_set(o, "skip", json_incref(skip)) || !ctk_json_set(o, "launched", json_boolean(c->launched)) ||
        !ctk_json_set(o, "host_probe", probe_json(&c->host)) || !ctk_json_set(o, "cuda_probe", probe_json(&c->cuda)) ||
        !ctk_json_set(o, "sass_probe", probe_json(&c->sass)) || !ctk_json_set(o, "ptx_probe", probe_json(&c->ptx)) ||
        !ctk_json_set(o, "findings", findings_json(&c->findings))) {
        json_decref(skip);
        json_decref(o);
        return NULL;
    }
    json_decref(skip);
    return o;
}

/* launcher, partitions, matrix and matrix_summary, into root. */
static bool matrix_json(json_t *root, const ctk_vreport_t *r)
{
    json_t *parts = json_array(), *cells = json_array(), *sum = json_object();
    bool ok = parts && cells && sum;

    for (size_t p = 0; ok && p < r->n_parts; p++)
        ok = ctk_json_append(parts, part_json(&r->parts[p]));
    for (size_t i = 0; ok && i < r->n_sdks; i++)
        for (size_t p = 0; ok && p < r->n_parts; p++)
            for (int k = 0; ok && k < CTK_ART__COUNT; k++)
                ok = ctk_json_append(cells, cell_json(r, i, p, (ctk_art_t)k));
    ok = ok && ctk_json_set(sum, "pass", ctk_json_int((long long)r->m_pass)) && ctk_json_set(sum, "skip", ctk_json_int((long long)r->m_skip)) &&
         ctk_json_set(sum, "fail", ctk_json_int((long long)r->m_fail)) && ctk_json_set(sum, "jobs", ctk_json_int(r->jobs_submitted)) &&
         ctk_json_set(sum, "scheduler_calls", ctk_json_int(r->scheduler_calls));
    ok = ok && ctk_json_set(root, "launcher", ctk_json_str(r->launcher)) && json_object_set(root, "partitions", parts) == 0 &&
         json_object_set(root, "matrix", cells) == 0 && json_object_set(root, "matrix_summary", sum) == 0;
    json_decref(parts);
    json_decref(cells);
    json_decref(sum);
    return ok;
}

char *ctk_vreport_json(const ctk_vreport_t *r, ctk_error_t *err)
{
    json_t *root = NULL, *host = NULL, *sum = NULL, *sdks = NULL;
    char *text = NULL;
    size_t i;
    bool ok;

    /* children are filled first and attached with json_object_set (which
     * adds a reference), so every path ends with the same four decrefs */
    ok = (root = json_object()) && (host = json_object()) && (sum = json_object()) &&
         (sdks = json_array());
    ok = ok && ctk_json_set(host, "cc", ctk_json_str(r->cc)) && ctk_json_set(host, "cc_version", ctk_json_str(r->cc_version)) &&
         ctk_json_set(host, "cxx", ctk_json_str(r->cxx)) && ctk_json_set(host, "driver", ctk_json_str(r->driver)) &&
         ctk_json_set(host, "tcl", ctk_json_str(r->tcl_modsys)) && ctk_json_set(host, "lmod", ctk_json_str(r->lmod)) &&
         ctk_json_set(host, "tcl_user", ctk_json_str(r->tcl_user)) && ctk_json_set(host, "trust_tcl", json_boolean(r->trust_tcl));
    ok = ok && ctk_json_set(sum, "pass", ctk_json_int((long long)r->n_pass)) &&
         ctk_json_set(sum, "skip", ctk_json_int((long long)r->n_skip)) &&
         ctk_json_set(sum, "fail", ctk_json_int((long long)r->n_fail)) &&
         ctk_json_set(sum, "skip_launch", ctk_json_int((long long)r->n_skip_launch)) &&
         ctk_json_set(sum, "skip_unchecked", ctk_json_int((long long)r->n_skip_unchecked));
    for (i = 0; ok && i < r->n_sdks; i++)
        ok = ctk_json_append(sdks, sdk_json(&r->sdks[i]));
    ok = ok && ctk_json_set(root, "ctkgen", ctk_json_str(PACKAGE_VERSION)) &&
         ctk_json_set(root, "outdir", ctk_json_str(r->outdir)) && ctk_json_set(root, "jobs", ctk_json_int(r->jobs)) &&
         ctk_json_set(root, "seconds", ctk_json_secs(r->seconds)) && json_object_set(root, "host", host) == 0 &&
         json_object_set(root, "summary", sum) == 0 && json_object_set(root, "sdks", sdks) == 0;
    ok = ok && (!r->launcher || matrix_json(root, r));
    if (ok)
        text = ctk_json_dump(root, err);
    else
        ctk_error_nomem(err);
    json_decref(sdks);
    json_decref(sum);
    json_decref(host);
    json_decref(root);
    return text;
}

char *ctk_vart_to_json(const ctk_vart_t *a, ctk_error_t *err)
{
    json_t *o = art_json(a);
    char *text;

    if (!o) {
        ctk_error_nomem(err);
        return NULL;
    }
    text = ctk_json_dump(o, err);
    json_decref(o);
    return text;
}

#define CACHE_SOURCE "cache entry"

/* Each reader counts the keys it consumed so that unknown keys are caught:
 * an entry is accepted only if it is exactly what art_json writes. */
static bool exact_keys(const ctk_jread_t *rd, const json_t *o, size_t n)
{
    if (json_object_size(o) == n)
        return true;
    ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "%s has keys ctkgen does not write",
                  rd->what);
    return false;
}

static bool probe_from_cache(const ctk_jread_t *rd0, const json_t *o, const char *key, bool is_cuda,
                             ctk_probe_report_t *p)
{
    const json_t *v = ctk_jread_get(rd0, o, key), *x;
    char what[64];
    ctk_jread_t rd = *rd0;
    char *cc = NULL;
    bool ok = false;

    if (!v)
        return false;
    if (json_is_null(v))
        return true;
    if (!json_is_object(v))
        return ctk_jread_type_error(rd0, key, v, "an object or null");
    snprintf(what, sizeof what, "/%s", key);
    rd.what = what;
    p->is_cuda = is_cuda;
    if (!ctk_jread_int(&rd, v, "cudart_header", &p->cudart_header) ||
        !ctk_jread_int(&rd, v, "runtime", &p->runtime) || !ctk_jread_int(&rd, v, "driver", &p->driver) ||
        !ctk_jread_int(&rd, v, "devices", &p->devices) || !ctk_jread_str(&rd, v, "status", true, &p->status) ||
        !ctk_jread_str(&rd, v, "device", true, &p->device) || !ctk_jread_str(&rd, v, "cc", true, &cc) ||
        !(x = ctk_jread_get(&rd, v, "kernel_ok")) ||
        !ctk_jread_str(&rd, v, "libcudart", true, &p->libcudart) || !ctk_jread_str(&rd, v, "visible", true, &p->visible) ||
        !exact_keys(&rd, v, 10))
        goto out;
    if (cc && !ctk_probe_parse_cc(cc, &p->cc_major, &p->cc_minor)) {
        ctk_error_set(rd.err, CTK_E_JSON, rd.source, 0, 0, "%s: \"cc\" is not \"major.minor\"",
                      what);
        goto out;
    }
    if (json_is_null(x)) {
        p->kernel_ok = -1;
    } else if (json_is_boolean(x)) {
        p->kernel_ok = json_is_true(x) ? 1 : 0;
    } else {
        ctk_jread_type_error(&rd, "kernel_ok", x, "true, false or null");
        goto out;
    }
    p->present = true;
    ok = true;
out:
    free(cc);
    return ok;
}

static bool strlist_from_cache(const ctk_jread_t *rd, const json_t *o, const char *key,
                               ctk_strlist_t *l)
{
    const json_t *v = ctk_jread_get(rd, o, key);
    size_t i;

    if (!v)
        return false;
    if (!json_is_array(v))
        return ctk_jread_type_error(rd, key, v, "an array of strings");
    for (i = 0; i < json_array_size(v); i++) {
        const json_t *s = json_array_get(v, i);

        if (!json_is_string(s)) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "/%s/%zu is %s, expected a string",
                          key, i, ctk_json_type_name(s));
            return false;
        }
        if (!ctk_strlist_push(l, json_string_value(s), rd->err))
            return false;
    }
    return true;
}

static bool env_from_cache(const ctk_jread_t *rd, const json_t *o, ctk_env_t *e)
{
    const json_t *v = ctk_jread_get(rd, o, "env"), *val;
    const char *name;

    if (!v)
        return false;
    if (!json_is_object(v))
        return ctk_jread_type_error(rd, "env", v, "an object");
    json_object_foreach((json_t *)v, name, val) {
        if (!json_is_string(val)) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "/env/%s is %s, expected a string",
                          name, ctk_json_type_name(val));
            return false;
        }
        if (name[0] == '\0' || strchr(name, '=')) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0,
                          "/env: \"%s\" is not a variable name", name);
            return false;
        }
        if (!ctk_env_set(e, name, json_string_value(val), rd->err))
            return false;
    }
    return true;
}

static bool findings_from_cache(const ctk_jread_t *rd0, const json_t *o, ctk_findings_t *f)
{
    const json_t *v = ctk_jread_get(rd0, o, "findings");
    size_t i;

    if (!v)
        return false;
    if (!json_is_array(v))
        return ctk_jread_type_error(rd0, "findings", v, "an array");
    for (i = 0; i < json_array_size(v); i++) {
        const json_t *x = json_array_get(v, i), *line_v;
        const ctk_diag_t *d;
        char what[64], *code = NULL, *sev = NULL, *file = NULL, *msg = NULL, *fix = NULL;
        ctk_jread_t rd = *rd0;
        int line = 0;
        bool ok = false;

        snprintf(what, sizeof what, "/findings/%zu", i);
        rd.what = what;
        if (!json_is_object(x)) {
            ctk_error_set(rd.err, CTK_E_JSON, rd.source, 0, 0, "%s is %s, expected an object",
                          what, ctk_json_type_name(x));
            return false;
        }
        if (!ctk_jread_str(&rd, x, "code", false, &code) || !ctk_jread_str(&rd, x, "severity", false, &sev) ||
            !ctk_jread_str(&rd, x, "file", true, &file) || !(line_v = ctk_jread_get(&rd, x, "line")) ||
            !ctk_jread_str(&rd, x, "message", false, &msg) || !ctk_jread_str(&rd, x, "fix", true, &fix) ||
            !exact_keys(&rd, x, 6))
            goto next;
        if (json_is_integer(line_v) && json_integer_value(line_v) > 0 &&
            json_integer_value(line_v) <= INT_MAX) {
            line = (int)json_integer_value(line_v);
        } else if (!json_is_null(line_v)) {
            ctk_jread_type_error(&rd, "line", line_v, "a positive integer or null");
            goto next;
        }
        /* a code this ctkgen does not know, or whose severity changed,
         * comes from another version: the entry is stale */
        d = ctk_diag_find(code);
        if (!d || strcmp(sev, ctk_severity_name(d->severity)) != 0) {
            ctk_error_set(rd.err, CTK_E_JSON, rd.source, 0, 0,
                          "%s: \"%s\" is not a %s code of this ctkgen", what, code, sev);
            goto next;
        }
        ok = ctk_findings_add(f, code, file, line, rd.err, "%s", msg) &&
             (!fix || strcmp(fix, d->fix) == 0 || ctk_findings_set_fix(f, f->len - 1, rd.err, "%s", fix));
    next:
        free(code);
        free(sev);
        free(file);
        free(msg);
        free(fix);
        if (!ok)
            return false;
    }
    return true;
}

static bool verdict_from_name(const char *s, ctk_verdict_t *v)
{
    static const ctk_verdict_t all[] = { CTK_VERDICT_PASS, CTK_VERDICT_SKIP, CTK_VERDICT_FAIL };
    size_t i;

    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(s, ctk_verdict_name(all[i])) == 0) {
            *v = all[i];
            return true;
        }
    }
    return false;
}

/* "skip": null, or the code and reason of a skip. */
static bool skip_from_object(const ctk_jread_t *rd, const json_t *o, ctk_vart_t *t)
{
    const json_t *skip;
    ctk_jread_t sk = *rd;

    if (!(skip = ctk_jread_get(rd, o, "skip")))
        return false;
    if (json_is_null(skip))
        return true;
    if (!json_is_object(skip)) {
        ctk_jread_type_error(rd, "skip", skip, "an object or null");
        return false;
    }
    sk.what = "/skip";
    return ctk_jread_str(&sk, skip, "code", true, &t->skip_code) &&
           ctk_jread_str(&sk, skip, "reason", true, &t->skip_reason) && exact_keys(&sk, skip, 2);
}

/* "kind", which must be t's, then "file", "verdict" and "skip". */
static bool verdict_from_object(const ctk_jread_t *rd, const json_t *o, ctk_vart_t *t)
{
    char *kind = NULL, *verdict = NULL;
    bool ok = false;

    if (!ctk_jread_str(rd, o, "kind", false, &kind))
        goto out;
    if (strcmp(kind, ctk_art_name(t->kind)) != 0) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0,
                      "%s is for a %s artifact, not %s", rd->what, kind, ctk_art_name(t->kind));
        goto out;
    }
    if (!ctk_jread_str(rd, o, "file", true, &t->file) || !ctk_jread_str(rd, o, "verdict", false, &verdict))
        goto out;
    if (!verdict_from_name(verdict, &t->verdict)) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0,
                      "%s: \"verdict\" is not pass, skip or fail", rd->what);
        goto out;
    }
    ok = skip_from_object(rd, o, t);
out:
    free(kind);
    free(verdict);
    return ok;
}

static bool art_from_object(const ctk_jread_t *rd, const json_t *o, ctk_vart_t *t)
{
    bool cached;
    size_t n_keys;

    if (!json_is_object(o)) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "%s is %s, expected an object",
                      rd->what, ctk_json_type_name(o));
        return false;
    }
    if (!verdict_from_object(rd, o, t) || !ctk_jread_bool(rd, o, "cached", &cached) ||
        !ctk_jread_number(rd, o, "seconds", &t->seconds))
        return false;
    if (t->kind == CTK_ART_PC) {
        if (!strlist_from_cache(rd, o, "cflags", &t->cflags) ||
            !strlist_from_cache(rd, o, "libs", &t->libs) ||
            !ctk_jread_str(rd, o, "pc_version", true, &t->pc_version))
            return false;
        n_keys = 19;
    } else {
        if (!env_from_cache(rd, o, &t->env))
            return false;
        n_keys = 17;
    }
    if (!ctk_jread_str(rd, o, "nvcc", true, &t->nvcc) ||
        !ctk_jread_str(rd, o, "nvcc_release", true, &t->nvcc_release) ||
        !ctk_jread_str(rd, o, "built_by", true, &t->built_by) ||
        !ctk_jread_str(rd, o, "linked_by", true, &t->linked_by) ||
        !probe_from_cache(rd, o, "host_probe", false, &t->host) ||
        !probe_from_cache(rd, o, "cuda_probe", true, &t->cuda) ||
        !probe_from_cache(rd, o, "sass_probe", true, &t->sass) ||
        !probe_from_cache(rd, o, "ptx_probe", true, &t->ptx) ||
        !ctk_jread_bool(rd, o, "launched", &t->launched) || !findings_from_cache(rd, o, &t->findings) ||
        !exact_keys(rd, o, n_keys))
        return false;
    t->cached = true;
    return true;
}

/* One artifact object of a node's own report into a matrix cell. */
static bool cell_from_sdk(const ctk_jread_t *rd, const json_t *sdk, ctk_vart_t *cell)
{
    const json_t *arts = json_object_get(sdk, "artifacts");
    size_t i;

    for (i = 0; json_is_array(arts) && i < json_array_size(arts); i++) {
        const json_t *a = json_array_get(arts, i);
        const json_t *kind = json_object_get(a, "kind");
        ctk_vart_t t;

        if (!json_is_string(kind) || strcmp(json_string_value(kind), ctk_art_name(cell->kind)) != 0)
            continue;
        ctk_vart_init(&t, cell->kind);
        if (!art_from_object(rd, a, &t)) {
            ctk_vart_fini(&t);
            return false;
        }
        t.cached = false;
        ctk_vart_fini(cell);
        *cell = t;
        return true;
    }
    ctk_error_set(rd->err, CTK_E_JSON, rd->source, 0, 0, "%s has no %s artifact", rd->what,
                  ctk_art_name(cell->kind));
    return false;
}

bool ctk_vreport_cells_from_json(const char *text, const ctk_vreport_t *r, size_t part, ctk_error_t *err)
{
    ctk_jread_t rd = { "the node's report", 0, "the node's report", err };
    json_t *root = text ? ctk_json_load(text, strlen(text), rd.source, 0, 0, rd.what, err) : NULL;
    const json_t *sdks = root ? json_object_get(root, "sdks") : NULL;
    bool ok = root != NULL;

    if (!text)
        ctk_error_set(err, CTK_E_JSON, rd.source, 0, 0, "the node printed no report");
    for (size_t i = 0; ok && i < r->n_sdks; i++) {
        const json_t *match = NULL;

        for (size_t k = 0; json_is_array(sdks) && k < json_array_size(sdks); k++) {
            const json_t *m = json_object_get(json_array_get(sdks, k), "module");

            if (json_is_string(m) && r->sdks[i].module && strcmp(json_string_value(m), r->sdks[i].module) == 0)
                match = json_array_get(sdks, k);
        }
        if (!match) {
            ctk_error_set(err, CTK_E_JSON, rd.source, 0, 0, "the node's report has no %s", r->sdks[i].module);
            ok = false;
        }
        for (int a = 0; ok && a < CTK_ART__COUNT; a++)
            ok = cell_from_sdk(&rd, match, ctk_vreport_cell(r, i, part, (ctk_art_t)a));
    }
    json_decref(root);
    return ok;
}

bool ctk_vart_from_json(const char *text, ctk_vart_t *a, ctk_error_t *err)
{
    ctk_jread_t rd = { CACHE_SOURCE, 0, "the cache entry", err };
    ctk_vart_t t;
    json_t *root;
    bool ok = false;

    if (!text) {
        ctk_error_set(err, CTK_E_JSON, CACHE_SOURCE, 0, 0, "the cache entry is empty");
        return false;
    }
    ctk_vart_init(&t, a->kind);
    root = ctk_json_load(text, strlen(text), CACHE_SOURCE, 0, 0, "the cache entry", err);
    if (root)
        ok = art_from_object(&rd, root, &t);
    json_decref(root);
    if (!ok) {
        ctk_vart_fini(&t);
        return false;
    }
    ctk_vart_fini(a);
    *a = t;
    return true;
}
