/* diff.c - placeholder until implemented. SPDX-License-Identifier: MIT */
#include <config.h>
typedef int ctk_diff_placeholder_t;
