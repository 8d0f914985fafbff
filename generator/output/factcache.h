/* factcache.h - what generate learned of each toolkit, kept between runs,
 * and the run that last wrote OUT.
 * SPDX-License-Identifier: MIT
 *
 * A file per output dir in the user's cache dir (cache.h:
 * $XDG_CACHE_HOME/ctkgen, else $HOME/.cache/ctkgen; then facts/<OUT's
 * absolute path hashed>) holds, for each SDK the last run loaded, its
 * probed record (sdkfacts.h) beside the record of what the probe looked at
 * (util.h, ctk_seen_t): each question asked of the filesystem and the hash
 * of the answers.  A later run takes the record back, without probing,
 * when the SDK's config entry and ctkgen's build are the same (the
 * entry's key) and every question, asked again, is answered as before: no
 * file, directory or link the probe looked at changed.  A probe that ran
 * a program, or was refused for a reason no identity shows, is not kept.
 * So a record taken back is the record probing would give.
 *
 * The file also names the run that last wrote OUT: a key of everything
 * the files rendered from (the caller's: ctk_factcache_run_same; 0 when
 * it could not be told), the hash of the manifest that run left and the
 * identity of the files it lists (write.h, ctk_plan_identity; 0 when it
 * could not be told).  Only a file whose manifest hash is that of OUT's
 * manifest now counts: OUT restored from a copy, or written by another
 * run meanwhile, has every toolkit probed, so that a run over a tree put
 * back makes the same calls every time.  When
 * the key and the manifest match, the manifest's files are what rendering
 * would give again; when their identity matches too, they are on disk as
 * the manifest records them, and need not be read.
 *
 * The file is a cache and nothing in OUT: written by a temp file and a
 * rename but never synced, only when its text changes (an unchanged run
 * writes nothing), under OUT's writer lock, never with --dry-run or
 * --check.  One that is missing, truncated, corrupt, of another form, not
 * a regular file, or one another user could have written (owned by
 * another user, or writable by its group or others) counts as empty:
 * every SDK is probed, as without it.  Without a cache dir (no HOME)
 * nothing is kept.
 *
 * Text (version 1):
 *   # ctkgen facts v1
 *   run <16 hex: run key> <16 hex: manifest> <16 hex: files' identity>
 *                                                       first
 *   sdk <16 hex: entry key> <16 hex: answers> <questions> <their bytes> <facts bytes>
 *   <kind digit> <absolute path>                        one per question
 *   <bytes of sdkfacts text>                            ending in '\n'
 *   sdk ...
 */
#ifndef CTK_FACTCACHE_H
#define CTK_FACTCACHE_H

#include "config.h"
#include "error.h"
#include "sdk.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct ctk_factcache ctk_factcache_t;

/* The cache of outdir (absolute), whose manifest now hashes to manifest
 * (write.h, ctk_records_hash); with manifest 0 (none, or --rerender), or
 * where the file is unusable or was left with another manifest, an empty
 * one (every SDK is probed, and what the probes find is kept).
 * NULL only when out of memory (CTK_E_NOMEM).  A NULL cache given to the
 * functions below keeps nothing. */
ctk_factcache_t *ctk_factcache_read(const char *outdir, uint64_t manifest, ctk_error_t *err);
void ctk_factcache_free(ctk_factcache_t *fc);

/* conf's SDK as ctk_sdk_load(conf, source) gives it: taken from fc when
 * its record still holds, else probed.  Either way the record goes into
 * the text fc will write, in call order.  *cached (may be NULL) says
 * which.  Errors as ctk_sdk_load's. */
ctk_sdk_t *ctk_factcache_load(ctk_factcache_t *fc, const ctk_sdk_conf_t *conf, const char *source,
                              bool *cached, ctk_error_t *err);

/* Whether every SDK loaded so far has a record (none failed, none was
 * opaque), and the hash of their records' texts in order: what the SDKs
 * are, for a run key. */
bool ctk_factcache_all_known(const ctk_factcache_t *fc, uint64_t *facts);

/* Whether the file says OUT was last written by a run of this key, which
 * left a manifest hashing to manifest; *files gets the identity of its
 * files as recorded (0: none). */
bool ctk_factcache_run_same(const ctk_factcache_t *fc, uint64_t run, uint64_t manifest,
                            uint64_t *files);
/* Record that this run (key run; 0: not known) left OUT with a manifest
 * hashing to manifest, its files' identity files (0: not known). */
void ctk_factcache_set_run(ctk_factcache_t *fc, uint64_t run, uint64_t manifest, uint64_t files);

/* Write the text when it differs from what was read (an unchanged run
 * writes nothing).  false with err (CTK_E_IO, CTK_E_NOMEM) when it cannot
 * be written: only time is lost. */
bool ctk_factcache_write(ctk_factcache_t *fc, ctk_error_t *err);

#endif
