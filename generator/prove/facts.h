/* facts.h - what each CUDA release accepts and needs, compiled in.
 * SPDX-License-Identifier: MIT
 *
 * Tables transcribed from ../shared/research/cuda-facts.json (each row's
 * source is kept in a comment in facts.c): the newest GCC major each CUDA
 * X.Y accepts without -allow-unsupported-compiler, the real SM
 * architectures its nvcc can target, and the minimum Linux x86_64 driver
 * its runtime needs.  Releases not in the table answer "unknown".
 */
#ifndef CTK_FACTS_H
#define CTK_FACTS_H

#include <stdbool.h>

/* Newest GCC major accepted by CUDA major.minor; 0 when unknown. */
int ctk_facts_gcc_max(int major, int minor);
/* Oldest GCC major accepted; 0 when unknown or no floor known. */
int ctk_facts_gcc_min(int major, int minor);
/* 1: compute capability cc_major.cc_minor (e.g. 9.0 -> sm_90) is a real
 * target of CUDA major.minor; 0: it is not; -1: unknown release. */
int ctk_facts_sm_supported(int major, int minor, int cc_major, int cc_minor);
/* Oldest and newest sm number (e.g. 50, 120) CUDA major.minor targets;
 * false when unknown. */
bool ctk_facts_sm_range(int major, int minor, int *lo, int *hi);
/* Minimum driver (e.g. "580.65.06") for the runtime of CUDA major.minor
 * with full features, and the floor under minor-version compatibility
 * (NULL when the release has none); false when unknown. */
bool ctk_facts_driver_min(int major, int minor, const char **full, const char **minor_compat);

#endif
