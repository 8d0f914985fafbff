#!/bin/sh
# suite-report.sh - what a `make check` run did, from its .trs and .log files.
# SPDX-License-Identifier: MIT
#
# Usage: build-aux/suite-report.sh TESTDIR
# Prints the log of every test that failed (its :test-result: lines, not
# the last line of the .trs, which automake fills with bookkeeping), every
# SKIP line with the test it came from (a whole test skipped, or a part of
# one), and one line of counts.  Exit 1 if a test failed or errored, or if
# CTK_STRICT_SKIPS=1 and something was skipped for a reason other than the
# absence of a GPU (or, in a sanitized build, of a replaceable malloc or
# of the plain build's instruction counts).
set -eu
dir=$1
status=0
failed_tests=$(grep -lE '^:test-result: (FAIL|ERROR|XPASS)' "$dir"/*.trs 2>/dev/null || :)
for trs in $failed_tests; do
    echo "=== ${trs%.trs}.log"
    cat "${trs%.trs}.log"
    status=1
done
passed=$(cat "$dir"/*.trs 2>/dev/null | grep -c '^:test-result: PASS' || :)
failed=$(cat "$dir"/*.trs 2>/dev/null | grep -cE '^:test-result: (FAIL|ERROR|XPASS)' || :)
skipped=$(cat "$dir"/*.trs 2>/dev/null | grep -c '^:test-result: SKIP' || :)
# SKIP lines, whole tests and parts of tests alike
# each skip's reason: the test's own "SKIP: why" lines, and automake's
# "SKIP test (exit status: 77)" line only for a log that gives no reason
skips=$(for f in "$dir"/*.log; do
            case $f in */test-suite.log) continue ;; esac
            if grep -q '^SKIP:' "$f" 2>/dev/null; then grep -H '^SKIP:' "$f"; else grep -H '^SKIP' "$f"; fi
        done 2>/dev/null | sed "s|^$dir/||" || :)
bad=0
if [ -n "$skips" ]; then
    echo "--- skipped, with the reason each gave:"
    printf '%s\n' "$skips" | sed 's/^/  /'
    # the reasons a machine set up by the README may give: no GPU, and
    # (sanitized builds only) no allocation-failure sweeps where
    # AddressSanitizer owns malloc, and no instruction budgets (counted on
    # the plain build); anything else is a missing install step
    bad=$(printf '%s\n' "$skips" |
        grep -cviE 'no GPU|no NVIDIA driver|no CUDA driver|malloc cannot be replaced in this build \(AddressSanitizer|instruction counts are the plain build.s \(AddressSanitizer' || :)
fi
echo "$passed passed, $failed failed, $skipped skipped (${bad} skip line(s) not for want of a GPU)"
if [ "${CTK_STRICT_SKIPS:-0}" = 1 ] && [ "$bad" -gt 0 ]; then
    echo "suite-report: CTK_STRICT_SKIPS=1: $bad skip(s) for a reason other than the absence of a GPU" >&2
    status=1
fi
exit "$status"
