/* policy.h - a site's lint policy: per-code severities and waivers, and the gate.
 * SPDX-License-Identifier: MIT
 *
 * A policy is a list of rules read from `ctkgen lint --policy FILE` or the
 * "lint" section of a site config (config.c parses both; docs/lint.md,
 * "Gating a module tree in CI").  Each rule names one finding code, an
 * optional glob for the files it covers, what to do (a new severity, or
 * waive) and the reason, which the report shows next to every finding the
 * rule touched.  Rules are applied in order and the last one that matches
 * a finding wins, so a later, narrower rule overrides an earlier, wider
 * one, and --policy (read after --config) overrides the site config.
 * A waived finding stays in the report, marked waived with its reason; it
 * counts neither as an error, a warning nor a note.
 *
 * Nothing here reads files or prints: everything is pure and tested in
 * tests/check_lint.c.
 */
#ifndef CTK_POLICY_H
#define CTK_POLICY_H

#include "diag.h"
#include "error.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    const char *code;         /* static: from ctk_diags */
    char *glob;               /* fnmatch(3) pattern, no flags ('*' crosses '/'); NULL: every file */
    bool waive;               /* waive the finding; else give it severity */
    ctk_severity_t severity;
    char *reason;             /* why, in the admin's words; never empty */
    char *at;                 /* where the rule is written: "policy.json:7" */
} ctk_policy_rule_t;

typedef struct {
    ctk_policy_rule_t *rules; /* in the order read */
    size_t n_rules;
    int error_on;             /* a ctk_severity_t that fails the gate; -1: not given */
    int strict;               /* 1 or 0; -1: not given */
} ctk_policy_t;

void ctk_policy_init(ctk_policy_t *p);
void ctk_policy_fini(ctk_policy_t *p);

/* "error" "warning" "note" give *waive false and that severity; "off" and
 * "waive" give *waive true.  false for anything else (outputs untouched). */
bool ctk_policy_parse_action(const char *s, bool *waive, ctk_severity_t *sev);

/* Append a rule (strings copied).  code must be in the diagnostics table
 * and reason non-empty (else CTK_E_CONFIG: config.c checks both first, with
 * the rule's position); glob NULL or non-empty; at may be NULL. */
bool ctk_policy_add(ctk_policy_t *p, const char *code, const char *glob, bool waive, ctk_severity_t sev,
                    const char *reason, const char *at, ctk_error_t *err);

/* The rule that decides a finding of code in the file path (as given or
 * found in the walk) whose path below the linted directory is rel (NULL:
 * the file was named itself): the last rule for that code whose glob is
 * absent or matches path or rel.  NULL: none. */
const ctk_policy_rule_t *ctk_policy_match(const ctk_policy_t *p, const char *code, const char *path,
                                          const char *rel);

/* Apply p to every finding of one file: a matched rule sets the finding's
 * severity or waives it, and copies its reason and place into the finding.
 * p may be NULL (nothing changes).  false only when out of memory; the
 * findings are then as far as it got. */
bool ctk_policy_apply(const ctk_policy_t *p, ctk_findings_t *f, const char *path, const char *rel,
                      ctk_error_t *err);

/* path below top ("mods/cray/x.lua" for "/a/mods/cray/x.lua" under "/a"),
 * pointing into path; NULL when path is top or not below it.  A trailing
 * '/' on top is allowed. */
const char *ctk_policy_relpath(const char *path, const char *top);

typedef enum {
    CTK_GATE_PASS,       /* nothing fails the gate, every file fully checked */
    CTK_GATE_FAIL,       /* a finding at or above error_on (or --strict and a file not fully checked) */
    CTK_GATE_INCOMPLETE  /* nothing failed, but some file was not fully checked */
} ctk_gate_t;

/* The verdict on a lint run from its counts (waived findings not among
 * them): errors always fail; warnings fail when error_on is
 * CTK_SEV_WARNING (notes never: error_on is warning or error); files not
 * fully checked fail with strict, else make the run incomplete. */
ctk_gate_t ctk_policy_gate(size_t n_error, size_t n_warning, size_t n_incomplete, ctk_severity_t error_on,
                           bool strict);

#endif
