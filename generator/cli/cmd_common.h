/* cmd_common.h - what the commands share, one floor below them: loading
 * the site config (or a scan) and the SDKs, the output lock, explaining a
 * denied write, --wait-timeout.  Every command uses these; none of them
 * uses a command.
 * SPDX-License-Identifier: MIT
 */
#ifndef CTK_CMD_COMMON_H
#define CTK_CMD_COMMON_H

#include "config.h"
#include "discover.h"
#include "error.h"
#include "factcache.h"
#include "sdk.h"
#include "write.h"

#include <stdbool.h>
#include <stddef.h>

/* The site config at path, or (path NULL) the toolkits found in the
 * standard install places.  An unreadable file is bad input (CTK_E_CONFIG);
 * finding no toolkit is CTK_E_ENV.  A config with schema errors has every
 * one printed but the last, which is left in err for the caller to print
 * (ctk_cli_error_list). */
ctk_config_t *ctk_cmd_load_config(const char *path, ctk_error_t *err);

/* Scan dirs (n of them; none: the standard places), at most max_depth
 * deep (-1: the default), and say what it decided: at the normal level
 * with loud, as `scan` prints it, else only with -v; a toolkit another
 * user can change is a warning either way.  NULL with err. */
ctk_scan_t *ctk_cmd_run_scan(char *const *dirs, size_t n, int max_depth, bool loud, ctk_error_t *err);
/* err becomes CTK_E_ENV "no CUDA toolkit found in <dirs>; <hint> (see
 * site-config.md)". */
void ctk_cmd_no_toolkit(char *const *dirs, size_t n, const char *hint, ctk_error_t *err);
/* ctk_cmd_run_scan() into a config; finding no toolkit is CTK_E_ENV. */
ctk_config_t *ctk_cmd_scan_config(char *const *dirs, size_t n, int max_depth, bool loud,
                                  ctk_error_t *err);
/* Parse --max-depth (0 to CTK_SCAN_MAX_DEPTH) into *out: CTK_EXIT_OK, or
 * CTK_EXIT_USAGE after the usage error for cmd was printed. */
int ctk_cmd_parse_depth(const char *cmd, const char *arg, int *out);

/* Load every SDK of cfg into sdks (cfg->n_sdks entries, NULL for each
 * that does not load).  A base that is a moving link is pinned first
 * (ctk_sdk_conf_pin_base, sdk.h; with notes each pin is a warning).
 * Every SDK is tried and every error printed as it comes, so one broken or
 * unmounted toolkit hides no other; two SDKs that are one toolkit get a
 * warning.  With fc (not NULL), a toolkit whose facts it keeps and that
 * still hold is not probed again (factcache.h).  *rc: CTK_EXIT_OK when all loaded, else CTK_EXIT_INPUT when any
 * error is bad input, else CTK_EXIT_ENV.  False only when memory runs out
 * (err set); sdks may then hold records for the caller to free. */
bool ctk_cmd_load_sdks(ctk_config_t *cfg, bool notes, ctk_factcache_t *fc, ctk_sdk_t **sdks,
                       int *rc, ctk_error_t *err);

/* After err from writing what the user named with -o (named: a directory
 * to write in when is_dir, else a file to write): when the cause is that
 * this user may not write there (ctk_write_denied), err becomes a CTK_E_ENV
 * that says so plainly: which directory, this user, its owner and mode,
 * then hint (what to use instead) and asking the owner.  Other errors are
 * left as they are. */
void ctk_cmd_explain_denied(const char *named, bool is_dir, const char *hint, ctk_error_t *err);

/* The output lock of outdir (write.h), shared for a run that only reads.
 * When another run holds it, says so on stderr and waits wait_s seconds
 * (CTK_LOCK_WAIT_FOREVER: as long as it takes; 0: not at all), then fails
 * with CTK_E_LOCK (exit 4).  A reader that may not open the lock is told,
 * in a warning, that it reads without it.  Caller unlocks. */
ctk_lock_t *ctk_cmd_take_lock(const char *outdir, bool shared, double wait_s, ctk_error_t *err);

/* Parse a --wait-timeout value (seconds, 0 to CTK_WAIT_TIMEOUT_MAX,
 * fractions allowed) into *wait_s.  Returns CTK_EXIT_OK, or CTK_EXIT_USAGE
 * after printing the usage error. */
#define CTK_WAIT_TIMEOUT_MAX 604800
int ctk_cmd_parse_wait(const char *cmd, const char *arg, double *wait_s);

#endif
