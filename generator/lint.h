/* lint.h - (being written). SPDX-License-Identifier: MIT */
#ifndef CTK_LINT_H
#define CTK_LINT_H
#endif
