#!/bin/sh
# banned_calls.sh - unsafe C calls never appear in generator/ (STYLE.md).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/lib.sh"

# strip comments and string literals crudely: a call in a comment is fine.
# grep exits 1 when it finds nothing; 2 (no such file) must not read as clean.
grc=0
raw=$(grep -nE '(^|[^A-Za-z0-9_])(sprintf|vsprintf|strcpy|strcat|gets|system|atoi|atol|tmpnam|mktemp|strtok)[[:space:]]*\(' \
        "$top_srcdir"/generator/*/*.c "$top_srcdir"/generator/*/*.h) || grc=$?
hits=$(printf '%s\n' "$raw" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ "$grc" -gt 1 ]; then
    fail "banned calls: grep could not read generator/*/*.c and *.h (exit $grc)"
elif [ -z "$hits" ]; then
    pass "no sprintf, strcpy, strcat, gets, system, atoi, atol, tmpnam, mktemp, strtok in generator/ (validate runs threads: strtok_r)"
else
    fail "banned calls found:"
    printf '%s\n' "$hits"
fi
# the check itself must be able to fail
probe=$T/probe.c
printf 'int f(char *d, const char *s) { strcpy(d, s); return atoi(s); }\n' > "$probe"
if grep -qE '(^|[^A-Za-z0-9_])(strcpy|atoi)[[:space:]]*\(' "$probe"; then
    pass "the pattern catches a planted strcpy/atoi"
else
    fail "the pattern missed a planted call"
fi
finish
