/* cli.c - placeholder until implemented. SPDX-License-Identifier: MIT */
#include <config.h>
typedef int ctk_cli_placeholder_t;
