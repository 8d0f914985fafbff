/* validate.h - prove each generated artifact lets a user build and run CUDA code.
 * SPDX-License-Identifier: MIT
 *
 * For every SDK and every artifact in OUT (the Lua modulefile, the Tcl
 * modulefile, the ctk-<version>.pc):
 *   1. the environment it really produces: Lua in the modeval sandbox
 *      (and real Lmod when asked), Tcl by real Environment Modules, the .pc
 *      by libpkgconf; Lua and Tcl must agree;
 *   2. modules: host `cc host_probe.c -lcudart` and `nvcc probe.cu` with
 *      nothing but the module's environment (no -I/-L);
 *   3. .pc: `nvcc -c probe.cu $(cflags)`, then `c++ probe.o $(libs)` and
 *      `nvcc probe.o $(libs)` (Libs must work verbatim for both), in an
 *      environment with no CPATH/LIBRARY_PATH/LD_LIBRARY_PATH;
 *   4. launch each built probe and check its report: the libcudart really
 *      loaded, versions (module name, .pc Version, nvcc, CUDART_VERSION,
 *      loaded runtime), the kernel's result, the GPU, the driver;
 *   5. host compiler limits (facts.h) and nvcc's own refusal.
 * Modulefiles are code: as root, Environment Modules (and real Lmod) run
 * them as an unprivileged user (sandbox.h); a Tcl file that user cannot
 * read is a CTK-SKIP-004 skip, never a load as root, unless trust_tcl and
 * only root can change it.
 * Verdicts: FAIL when any error-level finding; else SKIP when a part could
 * not run here (no driver or GPU for the launch, no Environment Modules for
 * Tcl, a Tcl file the unprivileged user cannot read); else PASS.  A skip is never a pass; --require-launch makes a launch
 * skip a failure.  Skips differ in what they leave unknown
 * (ctk_vart_skip_kind): a launch skip follows a checked environment, build
 * and link; a Tcl modulefile that was never evaluated was not checked at all.
 *
 * Probes are built in private temp dirs (mkdtemp under $TMPDIR, mode 0700),
 * removed afterwards; every step runs in a clean environment with a
 * timeout, and its process group is killed at the deadline: a probe that
 * hangs or crashes is a finding.  SDKs run in parallel (opts->jobs threads).
 * After an interrupt (proc.h: the caller catches the signals) the running
 * steps are stopped, no SDK is started, the temp dirs are removed and
 * ctk_validate() returns false; nothing is cached from that run.
 * Results that are not failures are cached (cache.h), keyed on every input
 * that could change them.
 * The SDK's nvcc and host_compiler.ccbin come from the admin's site config
 * and are run whoever owns them, but one that ctk_trust_exec() (trust.h)
 * refuses gets the warning CTK-TRUST-002 (judged on every run, never from
 * the cache); no verdict changes.
 */
#ifndef CTK_VALIDATE_H
#define CTK_VALIDATE_H

#include "config.h"
#include "error.h"
#include "proc.h"
#include "sdk.h"
#include "util.h"
#include "verdict.h"
#include "vopts.h"

#include <stdbool.h>
#include <stddef.h>

/* Validate the artifacts of every SDK.  sdks[i] belongs to cfg->sdks[i].
 * Returns false only for ctkgen's own failures (no temp dir, no memory,
 * no host compiler); findings never make it fail.  *out is filled either
 * way as far as it got; free with ctk_vreport_fini(). */
bool ctk_validate(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks,
                  const ctk_vopts_t *opts, ctk_vreport_t *out, ctk_error_t *err);
/* Judge a staged probe's run elsewhere as validate judges a local one:
 * how it ended (r: exit status or signal, timed_out, out, err), its
 * report (into cell->host or cell->cuda), the libcudart and versions, and
 * for the CUDA probe the launch (pass, a skip that names `where`, or a GPU
 * finding).  Findings go to cell; its verdict is not settled (call
 * ctk_vart_settle() once every probe of the cell is judged).  false only
 * for internal errors. */
bool ctk_validate_judge_run(const ctk_sdk_t *sdk, const ctk_vlaunch_t *l, const ctk_proc_result_t *r,
                            double timeout_s, bool require_launch, const char *where, ctk_vart_t *cell,
                            ctk_error_t *err);

/* The report's SDKs and artifacts named, nothing checked: for a launcher
 * that runs the whole validation elsewhere (remote.h, build "compute"). */
bool ctk_vreport_prepare(const ctk_config_t *cfg, ctk_sdk_t *const *sdks, size_t n_sdks, const char *outdir,
                         ctk_vreport_t *out, ctk_error_t *err);


#endif
