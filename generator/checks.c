/* checks.c - (being written). SPDX-License-Identifier: MIT */
#include <ctkconf.h>

#include "checks.h"

typedef int ctk_checks_placeholder_t;
