#!/bin/sh
# test.sh - install what is missing, build ctkgen, and run the whole test
# suite (unit tests, shell tests, real Lmod / Environment Modules / pkgconf /
# nvcc integration), then the same suite on a sanitized build
# (build-aux/sanitize.sh), then every fuzz target for CTK_FUZZ_RUNS
# executions (default 100000; build-aux/fuzz.sh).  Fails if any part fails.
# SPDX-License-Identifier: MIT
set -eu
cd "$(dirname "$0")"
sh build-aux/build.sh
status=0
make -j"$(nproc)" check || status=$?
# show what failed, and the closing counts, where CI can see them
for log in tests/*.log; do
    [ -f "$log" ] || continue
    case "$(tail -n 1 "${log%.log}.trs" 2>/dev/null)" in *FAIL*|*ERROR*) echo "=== $log"; cat "$log";; esac
done
passed=$(grep -h '^:test-result: PASS' tests/*.trs | wc -l)
failed=$(grep -hE '^:test-result: (FAIL|ERROR|XPASS)' tests/*.trs | wc -l)
skipped=$(grep -h '^:test-result: SKIP' tests/*.trs | wc -l)
echo "$passed passed, $failed failed, $skipped skipped"

# the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer,
# failing on any report
sh build-aux/sanitize.sh || status=1
# each fuzz target for a fixed number of executions; a crash is saved under
# tests/fuzz/regress/ and fails the run
sh build-aux/fuzz.sh -r "${CTK_FUZZ_RUNS:-100000}" || status=1
exit "$status"
