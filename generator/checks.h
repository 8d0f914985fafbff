/* checks.h - (being written). SPDX-License-Identifier: MIT */
#ifndef CTK_CHECKS_H
#define CTK_CHECKS_H
#endif
