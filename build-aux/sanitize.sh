#!/bin/sh
# sanitize.sh - run the whole test suite again on a build made with
# AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer.
# SPDX-License-Identifier: MIT
#
# Usage: build-aux/sanitize.sh   (after build-aux/build.sh: needs the
#                                 configured source tree for `make distdir`)
# The source tree is configured in place for the plain build, so the
# sanitized one is made out of tree from a `make distdir` copy in
# $SAN_BUILD (default ./_build-san), with .deps-local linked in so the
# Environment Modules checks run there too.  Every sanitizer report of every
# process the suite starts (ctkgen under the shell tests included) goes to
# $SAN_BUILD/reports/; the run fails if make check fails or if any report
# was written, even one from a process whose failure a test expected.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
S=${SAN_BUILD:-$top/_build-san}
case $S in /*) ;; *) S=$(pwd)/$S ;; esac
cd "$top"
[ -f Makefile ] || { echo "sanitize.sh: run build-aux/build.sh first" >&2; exit 2; }
rm -rf "$S"
mkdir -p "$S/build" "$S/reports"
echo "sanitize: copying the distribution into $S/src"
make -s distdir distdir="$S/src" top_distdir="$S/src" >/dev/null
[ -d .deps-local ] && ln -s "$top/.deps-local" "$S/src/.deps-local"
echo "sanitize: building with -fsanitize=address,undefined"
(cd "$S/build" && ../src/configure -q --enable-asan --enable-ubsan && make -s -j"$(nproc)") >"$S/build.log" 2>&1 ||
    { tail -40 "$S/build.log" >&2; exit 1; }
ASAN_OPTIONS="log_path=$S/reports/asan:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
UBSAN_OPTIONS="log_path=$S/reports/ubsan:print_stacktrace=1:halt_on_error=1"
export ASAN_OPTIONS UBSAN_OPTIONS
status=0
make -C "$S/build" -j"$(nproc)" check >"$S/check.out" 2>&1 || status=$?
grep -E '^(FAIL|ERROR|XPASS|# )' "$S/check.out" || true
# the logs of failing tests, the skips and the counts
sh "$top/build-aux/suite-report.sh" "$S/build/tests" || status=1
reports=$(find "$S/reports" -type f | wc -l)
if [ "$reports" -gt 0 ]; then
    for r in "$S"/reports/*; do echo "=== $r"; head -60 "$r"; done
    status=1
fi
echo "sanitize: make check exit $status, $reports sanitizer report(s)"
exit "$status"
