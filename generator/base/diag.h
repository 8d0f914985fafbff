/* diag.h - findings: what validate (and lint) report about an artifact.
 * SPDX-License-Identifier: MIT
 *
 * A finding is not an error (error.h): it is a result, with a stable code
 * from the table in diag.c, a severity, the file and line where known, a
 * specific message and a one-line fix.  Every code is documented in
 * docs/diagnostics.md (a test keeps the two in step).
 */
#ifndef CTK_DIAG_H
#define CTK_DIAG_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum { CTK_SEV_NOTE, CTK_SEV_WARNING, CTK_SEV_ERROR } ctk_severity_t;

typedef struct {
    const char *code;      /* "CTK-CPATH-001" */
    ctk_severity_t severity;
    const char *summary;   /* one line: what is wrong */
    const char *fix;       /* one line: what to do */
} ctk_diag_t;

/* The table, terminated by an entry with code NULL. */
extern const ctk_diag_t ctk_diags[];
/* NULL for an unknown code. */
const ctk_diag_t *ctk_diag_find(const char *code);
const char *ctk_severity_name(ctk_severity_t s); /* "note" "warning" "error" */

typedef struct {
    const char *code;      /* static: from ctk_diags */
    ctk_severity_t severity;
    char *file;            /* NULL if none */
    int line;              /* 0 if unknown */
    char *text;            /* the specific message */
    /* set by a lint policy (policy.h) that matched it; NULL/false otherwise */
    bool waived;           /* listed, but counted as no error, warning or note */
    char *reason;          /* the rule's reason */
    char *rule_at;         /* where the rule is written: "policy.json:7" */
    char *fix;             /* a fix of its own (lint's, for a file ctkgen did not
                            * write); NULL: the table's */
} ctk_finding_t;

typedef struct {
    ctk_finding_t *items;
    size_t len, cap;
} ctk_findings_t;

void ctk_findings_init(ctk_findings_t *f);
void ctk_findings_fini(ctk_findings_t *f);
/* Add a finding for `code` (must be in the table: an unknown code is
 * CTK_E_INTERNAL) with its table severity.  file may be NULL. */
bool ctk_findings_add(ctk_findings_t *f, const char *code, const char *file, int line,
                      ctk_error_t *err, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Append copies of every finding of src (policy fields included). */
bool ctk_findings_extend(ctk_findings_t *dst, const ctk_findings_t *src, ctk_error_t *err);
/* Remove every finding of `code`, keeping the others in order. */
void ctk_findings_drop(ctk_findings_t *f, const char *code);
/* Give finding i of f a fix of its own in place of the table's (i < f->len). */
bool ctk_findings_set_fix(ctk_findings_t *f, size_t i, ctk_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The fix to show for x: its own, else its code's from the table ("" for
 * an unknown code).  Borrowed. */
const char *ctk_finding_fix(const ctk_finding_t *x);
bool ctk_findings_has(const ctk_findings_t *f, const char *code);
/* Findings of that severity, waived ones not counted. */
size_t ctk_findings_count(const ctk_findings_t *f, ctk_severity_t sev);
size_t ctk_findings_count_waived(const ctk_findings_t *f);

#endif
