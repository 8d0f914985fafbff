/* jsonio.h - JSON through jansson, for the modules that speak it: parsing
 * that tells running out of memory from bad JSON, typed readers that name
 * the key they fault, and writers that keep every string valid UTF-8.
 * SPDX-License-Identifier: MIT
 *
 * Included by the .c files that read or write JSON (verdict.c, probeio.c,
 * report.c, report_html.c) and by nothing else: no json_t crosses another
 * header (docs/architecture.md).
 */
#ifndef CTK_JSONIO_H
#define CTK_JSONIO_H

#include "diag.h"
#include "env.h"
#include "error.h"
#include "util.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* text[0..len) as JSON with duplicate keys refused; caller decrefs.  NULL
 * with CTK_E_NOMEM, or CTK_E_JSON "<what> is not valid JSON: ..." at
 * source:line (line > 0: that line, else jansson's; col0 added to its
 * column).  Safe from several threads at once. */
json_t *ctk_json_load(const char *text, size_t len, const char *source, int line, int col0, const char *what,
                      ctk_error_t *err);

/* As ctk_json_load(), for a caller that words a text that is not JSON
 * itself: NULL with *bad holding jansson's line, column and text and err
 * left as it was; NULL with CTK_E_NOMEM when memory ran out. */
json_t *ctk_json_try_load(const char *text, size_t len, json_error_t *bad, ctk_error_t *err);

/* ---- reading: typed getters that name the key on failure ------------------ */

/* Where errors while reading one object go: the source and line given to
 * ctk_error_set and a prefix naming the object ("the probe's report",
 * "/findings/0"). */
typedef struct {
    const char *source;
    int line;
    const char *what;
    ctk_error_t *err;
} ctk_jread_t;

/* "an object", "a string", ... for messages. */
const char *ctk_json_type_name(const json_t *v);
/* obj[key]; NULL with CTK_E_JSON "<what> has no "<key>" key". */
const json_t *ctk_jread_get(const ctk_jread_t *rd, const json_t *obj, const char *key);
/* CTK_E_JSON "<what>: "<key>" is <type of v>, expected <want>"; false. */
bool ctk_jread_type_error(const ctk_jread_t *rd, const char *key, const json_t *v, const char *want);
/* obj[key] as an int (in range), a bool, a number; false with err set. */
bool ctk_jread_int(const ctk_jread_t *rd, const json_t *obj, const char *key, int *out);
bool ctk_jread_bool(const ctk_jread_t *rd, const json_t *obj, const char *key, bool *out);
bool ctk_jread_number(const ctk_jread_t *rd, const json_t *obj, const char *key, double *out);
/* A string copied into *out (caller frees).  null_ok: null gives NULL. */
bool ctk_jread_str(const ctk_jread_t *rd, const json_t *obj, const char *key, bool null_ok, char **out);

/* ---- writing: NULL (or false) only when out of memory ---------------------- */

/* A JSON string for s (null for NULL), each byte that starts no valid
 * UTF-8 sequence written as U+FFFD. */
json_t *ctk_json_str(const char *s);
/* obj[key] = v, taking v; false when v is NULL or out of memory.  A key
 * that is not UTF-8 is fixed as ctk_json_str() does. */
bool ctk_json_set(json_t *obj, const char *key, json_t *v);
/* arr += v, taking v; false when v is NULL or out of memory. */
bool ctk_json_append(json_t *arr, json_t *v);
/* Seconds rounded to milliseconds; 0 for nonsense (json_real refuses NaN). */
json_t *ctk_json_secs(double s);
json_t *ctk_json_int(long long n);
/* root as pretty text with a final newline, in a buffer callers free()
 * whatever allocator jansson has. */
char *ctk_json_dump(const json_t *root, ctk_error_t *err);
/* An array of l's strings. */
json_t *ctk_json_strlist(const ctk_strlist_t *l);
/* An object of e's NAME=VALUE entries. */
json_t *ctk_json_env(const ctk_env_t *e);
/* An array of f's findings: code, severity, file, line, message, fix;
 * with policy also what a lint policy did to each (waived, reason,
 * policy, default_severity). */
json_t *ctk_json_findings(const ctk_findings_t *f, bool policy);

#endif
