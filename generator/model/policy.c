/* policy.c - a site's lint policy: rules that re-grade or waive findings, and the gate.
 * SPDX-License-Identifier: MIT
 *
 * Globs are matched with fnmatch(3) and no flags, as a shell `case`
 * pattern: '*' crosses '/', so "/cray/" with a '*' on each side covers
 * every file with a directory named cray on its path, at any depth.
 */
#include <ctkconf.h>

#include "policy.h"
#include "util.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

void ctk_policy_init(ctk_policy_t *p)
{
    memset(p, 0, sizeof *p);
    p->error_on = -1;
    p->strict = -1;
}

static void rule_fini(ctk_policy_rule_t *r)
{
    free(r->glob);
    free(r->reason);
    free(r->at);
}

void ctk_policy_fini(ctk_policy_t *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n_rules; i++)
        rule_fini(&p->rules[i]);
    free(p->rules);
    ctk_policy_init(p);
}

bool ctk_policy_parse_action(const char *s, bool *waive, ctk_severity_t *sev)
{
    static const struct {
        const char *name;
        bool waive;
        ctk_severity_t sev;
    } actions[] = {
        { "error", false, CTK_SEV_ERROR }, { "warning", false, CTK_SEV_WARNING },
        { "note", false, CTK_SEV_NOTE },   { "off", true, CTK_SEV_NOTE },
        { "waive", true, CTK_SEV_NOTE },
    };

    for (size_t i = 0; s && i < sizeof actions / sizeof actions[0]; i++) {
        if (strcmp(s, actions[i].name) == 0) {
            *waive = actions[i].waive;
            if (!actions[i].waive)
                *sev = actions[i].sev;
            return true;
        }
    }
    return false;
}

bool ctk_policy_add(ctk_policy_t *p, const char *code, const char *glob, bool waive, ctk_severity_t sev,
                    const char *reason, const char *at, ctk_error_t *err)
{
    const ctk_diag_t *d = code ? ctk_diag_find(code) : NULL;
    ctk_policy_rule_t *rules, r;

    if (!d || !reason || !*reason || (glob && !*glob)) {
        ctk_error_set(err, CTK_E_CONFIG, at, 0, 0, "%s",
                      !d ? "a policy rule names no known finding code"
                         : glob && !*glob ? "a policy rule's glob is empty" : "a policy rule has no reason");
        return false;
    }
    memset(&r, 0, sizeof r);
    r.code = d->code;
    r.waive = waive;
    r.severity = waive ? d->severity : sev;
    if ((glob && !(r.glob = ctk_strdup(glob, err))) || !(r.reason = ctk_strdup(reason, err)) ||
        (at && !(r.at = ctk_strdup(at, err))))
        goto fail;
    if (!(rules = realloc(p->rules, (p->n_rules + 1) * sizeof *rules))) {
        ctk_error_nomem(err);
        goto fail;
    }
    p->rules = rules;
    p->rules[p->n_rules++] = r;
    return true;
fail:
    rule_fini(&r);
    return false;
}

static bool glob_matches(const char *glob, const char *path, const char *rel)
{
    return !glob || (path && fnmatch(glob, path, 0) == 0) || (rel && fnmatch(glob, rel, 0) == 0);
}

const ctk_policy_rule_t *ctk_policy_match(const ctk_policy_t *p, const char *code, const char *path,
                                          const char *rel)
{
    /* the last rule that matches wins: walk from the end */
    for (size_t i = p && code ? p->n_rules : 0; i-- > 0;) {
        const ctk_policy_rule_t *r = &p->rules[i];

        if (strcmp(r->code, code) == 0 && glob_matches(r->glob, path, rel))
            return r;
    }
    return NULL;
}

bool ctk_policy_apply(const ctk_policy_t *p, ctk_findings_t *f, const char *path, const char *rel,
                      ctk_error_t *err)
{
    for (size_t i = 0; p && f && i < f->len; i++) {
        ctk_finding_t *x = &f->items[i];
        const ctk_policy_rule_t *r = ctk_policy_match(p, x->code, path, rel);
        char *reason, *at = NULL;

        if (!r)
            continue;
        if (!(reason = ctk_strdup(r->reason, err)) || (r->at && !(at = ctk_strdup(r->at, err)))) {
            free(reason);
            return false;
        }
        free(x->reason);
        free(x->rule_at);
        x->reason = reason;
        x->rule_at = at;
        x->waived = r->waive;
        if (!r->waive)
            x->severity = r->severity;
    }
    return true;
}

const char *ctk_policy_relpath(const char *path, const char *top)
{
    size_t n;

    if (!path || !top)
        return NULL;
    n = strlen(top);
    while (n > 1 && top[n - 1] == '/')
        n--;
    if (strncmp(path, top, n) != 0)
        return NULL;
    if (n == 1 && top[0] == '/')
        return path[1] ? path + 1 : NULL;
    if (path[n] != '/')
        return NULL;
    path += n;
    while (*path == '/')
        path++;
    return *path ? path : NULL;
}

ctk_gate_t ctk_policy_gate(size_t n_error, size_t n_warning, size_t n_incomplete, ctk_severity_t error_on,
                           bool strict)
{
    if (n_error || (error_on <= CTK_SEV_WARNING && n_warning) || (strict && n_incomplete))
        return CTK_GATE_FAIL;
    return n_incomplete ? CTK_GATE_INCOMPLETE : CTK_GATE_PASS;
}
