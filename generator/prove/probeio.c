/* probeio.c - the probes' one-line reports parsed (probeio.h).
 * SPDX-License-Identifier: MIT
 */
#include <ctkconf.h>

#include "probeio.h"

#include "jsonio.h"

#include <stdlib.h>
#include <string.h>

void ctk_probe_report_init(ctk_probe_report_t *r)
{
    memset(r, 0, sizeof *r);
}

void ctk_probe_report_fini(ctk_probe_report_t *r)
{
    if (!r)
        return;
    free(r->status);
    free(r->device);
    free(r->libcudart);
    free(r->visible);
    ctk_probe_report_init(r);
}

/* "9.0" -> 9, 0: digits, one dot, digits. */
bool ctk_probe_parse_cc(const char *s, int *major, int *minor)
{
    long v[2] = { 0, 0 };
    int i;

    for (i = 0; i < 2; i++) {
        int digits = 0;

        while (*s >= '0' && *s <= '9' && digits < 4) {
            v[i] = v[i] * 10 + (*s++ - '0');
            digits++;
        }
        if (digits == 0 || *s != (i == 0 ? '.' : '\0'))
            return false;
        if (i == 0)
            s++;
    }
    *major = (int)v[0];
    *minor = (int)v[1];
    return true;
}

#define PROBE_SOURCE "probe output"

static bool probe_from_object(const json_t *o, const ctk_jread_t *rd, ctk_probe_report_t *r)
{
    const json_t *v;
    const char *kind;
    char *cc = NULL;
    bool ok = false;

    if (!(v = ctk_jread_get(rd, o, "probe")))
        goto out;
    if (!json_is_string(v)) {
        ctk_jread_type_error(rd, "probe", v, "\"host\" or \"cuda\"");
        goto out;
    }
    kind = json_string_value(v);
    if (strcmp(kind, "cuda") == 0) {
        r->is_cuda = true;
    } else if (strcmp(kind, "host") != 0) {
        ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0,
                      "%s: \"probe\" is neither \"host\" nor \"cuda\"", rd->what);
        goto out;
    }
    if (!ctk_jread_int(rd, o, "cudart_header", &r->cudart_header) ||
        !ctk_jread_int(rd, o, "runtime", &r->runtime) || !ctk_jread_int(rd, o, "driver", &r->driver) ||
        !ctk_jread_int(rd, o, "devices", &r->devices) ||
        !ctk_jread_str(rd, o, r->is_cuda ? "status" : "device_status", false, &r->status))
        goto out;
    if (r->is_cuda) {
        bool kernel_ok;

        if (!ctk_jread_str(rd, o, "device", false, &r->device) || !ctk_jread_str(rd, o, "cc", false, &cc) ||
            !ctk_jread_bool(rd, o, "kernel_ok", &kernel_ok))
            goto out;
        if (!ctk_probe_parse_cc(cc, &r->cc_major, &r->cc_minor)) {
            ctk_error_set(rd->err, CTK_E_JSON, rd->source, rd->line, 0,
                          "%s: \"cc\" is not \"major.minor\"", rd->what);
            goto out;
        }
        r->kernel_ok = kernel_ok ? 1 : 0;
    } else {
        if (!(r->device = ctk_strdup("", rd->err)))
            goto out;
        r->kernel_ok = -1;
    }
    if (!ctk_jread_str(rd, o, "libcudart", false, &r->libcudart))
        goto out;
    if (r->is_cuda && json_object_get(o, "visible") && !ctk_jread_str(rd, o, "visible", true, &r->visible))
        goto out;
    r->present = true;
    ok = true;
out:
    free(cc);
    return ok;
}

bool ctk_probe_report_parse(const char *out, ctk_probe_report_t *r, ctk_error_t *err)
{
    ctk_probe_report_t t;
    ctk_error_t first; /* the first line that looked like JSON but was not */
    const char *line, *end;
    json_t *root = NULL;
    int lineno = 0;
    bool ok = false;

    ctk_probe_report_init(&t);
    ctk_error_init(&first);
    for (line = out ? out : ""; *line; line = *end ? end + 1 : end) {
        const char *p;

        end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        lineno++;
        /* from the line's first brace: output a library printed without a
         * newline may come before the report on the same line */
        p = memchr(line, '{', (size_t)(end - line));
        if (!p)
            continue;
        root = ctk_json_load(p, (size_t)(end - p), PROBE_SOURCE, lineno, (int)(p - line),
                    "the probe's report", &first);
        if (first.code == CTK_E_NOMEM)
            break;
        if (json_is_object(root))
            break;
        json_decref(root);
        root = NULL;
    }
    if (!root) {
        if (ctk_error_is_set(&first)) {
            if (err && !ctk_error_is_set(err))
                *err = first;
        } else {
            ctk_error_set(err, CTK_E_JSON, PROBE_SOURCE, 0, 0,
                          "no line of the probe's output holds a JSON report");
        }
        goto out;
    }
    {
        ctk_jread_t rd = { PROBE_SOURCE, lineno, "the probe's report", err };

        ok = probe_from_object(root, &rd, &t);
    }
out:
    json_decref(root);
    ctk_probe_report_fini(r);
    if (ok)
        *r = t;
    else
        ctk_probe_report_fini(&t);
    return ok;
}
