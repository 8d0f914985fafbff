/* cmd_generate.c - placeholder until implemented. SPDX-License-Identifier: MIT */
#include <config.h>
typedef int ctk_cmd_generate_placeholder_t;
