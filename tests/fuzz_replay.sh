#!/bin/sh
# fuzz_replay.sh - every fuzz target over its seed corpus and every saved
# crash (tests/fuzz/regress/<target>/), built without libFuzzer.
# SPDX-License-Identifier: MIT
. "$top_srcdir/tests/lib.sh"

for t in config quote modeval probe pattern facts; do
    bin="$top_builddir/tests/fuzz/fuzz_${t}_replay"
    dirs="$top_srcdir/tests/fuzz/corpus/$t"
    n=$(find "$top_srcdir/tests/fuzz/regress/$t" -type f ! -name '.*' 2>/dev/null | wc -l)
    [ "$n" -gt 0 ] && dirs="$dirs $top_srcdir/tests/fuzz/regress/$t"
    # shellcheck disable=SC2086
    check "fuzz target $t: seed corpus and $n saved crashes run clean" sh -c "'$bin' $dirs > '$T/out-$t' 2>&1"
    check "fuzz target $t: ran at least one input" grep -Eq '^replayed [1-9]' "$T/out-$t"
done
finish
