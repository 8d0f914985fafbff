/* discover.h - find installed CUDA toolkits when no site config is given.
 * SPDX-License-Identifier: MIT
 *
 * ctk_discover_standard() looks in the standard install places and returns a
 * config holding one SDK per toolkit found, each verified by ctk_sdk_load()
 * and named by the release the toolkit itself reports (ctk_version_detect).
 */
#ifndef CTK_DISCOVER_H
#define CTK_DISCOVER_H

#include "config.h"
#include "error.h"
#include "util.h"

#include <stddef.h>

/* Scan roots for CUDA toolkits.
 *
 * roots are glob(3) patterns; NULL (or n_roots 0) means the standard list
 *   /usr/local/cuda, /usr/local/cuda-<any>,
 *   /opt/nvidia/hpc_sdk/Linux_<cpu>/<release>/cuda/<any>
 * (written with glob stars in discover.c).  A match that is a toolkit (an
 * executable bin/nvcc) is taken; a match that is another directory is
 * searched for toolkits below it: cuda, cuda-<any>, and the NVIDIA HPC SDK
 * forms cuda/X.Y, <release>/cuda/X.Y, Linux_<cpu>/<release>/cuda/X.Y and
 * hpc_sdk/Linux_<cpu>/<release>/cuda/X.Y.  Debian's /usr/lib/cuda shim
 * holds no nvcc and is never taken.
 *
 * - Toolkits reached twice (one directory by resolved path, e.g. the
 *   symlink /usr/local/cuda -> cuda-13.0, or a tree whose bin/nvcc and
 *   include/ both resolve into another) are reported once, under the real,
 *   versioned directory name.
 * - An HPC SDK toolkit .../REL/cuda/X.Y gets REL/math_libs/X.Y as math_libs
 *   when that holds cublas_v2.h, and REL/comm_libs/X.Y/nccl (else
 *   REL/comm_libs/nccl) as nccl, likewise nvshmem, when they hold their
 *   headers.
 * - Each SDK's version is "X.Y" as the toolkit reports it; SDKs sharing an
 *   X.Y get distinct module versions ("12.6-nvhpc-24.11" for HPC SDK
 *   toolkits, "12.6-<dirname>" for others) so nothing collides; a lone
 *   standalone toolkit keeps the plain "X.Y".
 * - SDKs come in release order; cfg->default_version is the newest one's
 *   module version (a standalone toolkit wins a tie with an HPC SDK one).
 * - Toolkits that fail ctk_sdk_load() are skipped.
 *
 * notes (may be NULL) gets one human line per decision, e.g.
 *   "found /usr/local/cuda-13.0: CUDA 13.0.0 (version.json)"
 *   "skipped /usr/local/cuda: same toolkit as /usr/local/cuda-13.0"
 * Finding nothing is not an error: the config then holds no SDK.
 * Returns NULL only on allocation failure (err set).  Caller frees with
 * ctk_config_free(); cfg->source is "<scan>". */
ctk_config_t *ctk_discover_standard(const char *const *roots, size_t n_roots,
                                    ctk_strlist_t *notes, ctk_error_t *err);

#endif
