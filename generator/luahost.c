/* luahost.c - placeholder until implemented. SPDX-License-Identifier: MIT */
#include <config.h>
typedef int ctk_luahost_placeholder_t;
