/* main.c - ctkgen entry point. SPDX-License-Identifier: MIT */
#include <config.h>
int main(void) { return 0; }
