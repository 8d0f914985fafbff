/* cache.h - a small content-addressed store for validation results.
 * SPDX-License-Identifier: MIT
 *
 * Entries are files DIR/v1/<key>.json, written atomically (temp + rename),
 * mode 0600 in a 0700 dir; a key is 32 hex digits (ctk_cache_key_*).
 * Reads are lock-free (rename makes each entry all-or-nothing); a corrupt
 * or unreadable entry is a miss, never an error.
 */
#ifndef CTK_CACHE_H
#define CTK_CACHE_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

/* Incremental key: feed labelled parts, then finish into out[33]. */
typedef struct {
    unsigned long long h1, h2;
} ctk_cache_key_t;

void ctk_cache_key_init(ctk_cache_key_t *k);
void ctk_cache_key_add(ctk_cache_key_t *k, const char *label, const void *data, size_t len);
void ctk_cache_key_add_str(ctk_cache_key_t *k, const char *label, const char *s); /* NULL ok */
/* A file's identity without reading it: path, dev, ino, size, mtime (ns),
 * or "absent". */
void ctk_cache_key_add_stat(ctk_cache_key_t *k, const char *path);
/* A file's bytes (up to 16 MiB), or "absent". */
void ctk_cache_key_add_file(ctk_cache_key_t *k, const char *path);
void ctk_cache_key_hex(const ctk_cache_key_t *k, char out[33]);

/* The default dir: $XDG_CACHE_HOME/ctkgen, else $HOME/.cache/ctkgen.
 * Caller frees; NULL (no error) when neither is set. */
char *ctk_cache_default_dir(ctk_error_t *err);
/* mkdir -p dir, each directory it makes mode 0700. */
bool ctk_cache_mkdirs(const char *dir, ctk_error_t *err);
/* Caller frees the text; NULL on a miss. */
char *ctk_cache_get(const char *dir, const char *key, ctk_error_t *err);
/* false with err on failure to store; callers treat that as a warning. */
bool ctk_cache_put(const char *dir, const char *key, const char *text, ctk_error_t *err);

#endif
