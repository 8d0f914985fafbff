/* sdk.c - placeholder until implemented. SPDX-License-Identifier: MIT */
#include <config.h>
typedef int ctk_sdk_placeholder_t;
