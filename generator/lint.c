/* lint.c - (being written). SPDX-License-Identifier: MIT */
#include <ctkconf.h>

#include "lint.h"

typedef int ctk_lint_placeholder_t;
