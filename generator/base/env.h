/* env.h - an environment as an ordered set of NAME=VALUE strings.
 * SPDX-License-Identifier: MIT
 *
 * Probes never inherit ctkgen's own environment: validate builds each one
 * from a small clean base plus what an artifact sets, and hands the result
 * to proc.c as an envp.  Names are unique; set() replaces in place (order
 * of first appearance is kept, so envp output is deterministic).
 */
#ifndef CTK_ENV_H
#define CTK_ENV_H

#include "error.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    ctk_strlist_t kv; /* "NAME=VALUE"; kv.items[kv.len] is NULL when kv.len > 0
                       * only after ctk_env_envp() */
} ctk_env_t;

void ctk_env_init(ctk_env_t *e);
void ctk_env_fini(ctk_env_t *e);
/* value NULL: unset NAME.  Names must be non-empty and hold no '='
 * (else CTK_E_INTERNAL: callers validate names they take from input). */
bool ctk_env_set(ctk_env_t *e, const char *name, const char *value, ctk_error_t *err);
/* Borrowed value; NULL when unset. */
const char *ctk_env_get(const ctk_env_t *e, const char *name);
/* dst becomes a copy of src (dst's old contents are released). */
bool ctk_env_copy(ctk_env_t *dst, const ctk_env_t *src, ctk_error_t *err);
/* Replace e's contents with the entries of a NUL-separated block, as
 * `env -0` prints it.  Entries without '=' are skipped. */
bool ctk_env_parse_nul(ctk_env_t *e, const char *buf, size_t len, ctk_error_t *err);
/* A NULL-terminated envp view of e, valid until e next changes. */
const char *const *ctk_env_envp(ctk_env_t *e, ctk_error_t *err);
/* Names, sorted, whose values differ between a and b (set in one only
 * counts); pushed into *names.  For comparing two evaluations. */
bool ctk_env_diff(const ctk_env_t *a, const ctk_env_t *b, ctk_strlist_t *names, ctk_error_t *err);
/* Look a program up in e's PATH as execvp would (a name with '/' is
 * returned as is when executable).  Caller frees; NULL when not found. */
char *ctk_env_which(const ctk_env_t *e, const char *prog, ctk_error_t *err);
/* The search behind ctk_env_which (and proc.c's argv[0] lookup): `path`
 * is a ':'-separated list (NULL: execvp's default "/bin:/usr/bin"; an
 * empty element is the current directory); relative candidates are
 * checked against `cwd` when given (the directory the program will run
 * in), else ours, and returned relative.  Only executable regular files
 * match.  Caller frees; NULL when not found, and then *why (may be NULL)
 * is EACCES when some candidate existed but could not be run, else ENOENT
 * (or the errno of opening cwd; ENOMEM with err set on allocation failure). */
char *ctk_env_path_search(const char *path, const char *prog, const char *cwd, int *why,
                          ctk_error_t *err);

#endif
