#!/bin/sh
# test.sh - install what is missing, build ctkgen, and run the whole test
# suite (unit tests, shell tests, real Lmod / Environment Modules / pkgconf /
# nvcc integration), then the same suite on a sanitized build
# (build-aux/sanitize.sh), then every fuzz target for CTK_FUZZ_RUNS
# executions (default 100000; build-aux/fuzz.sh).  Fails if any part fails.
# SPDX-License-Identifier: MIT
#
# Ends with one line giving each stage's result.  Every skip is listed with
# its reason; with CTK_STRICT_SKIPS=1 (CI) a skip for any reason but the
# absence of a GPU fails the run, since on a machine set up by the README's
# commands it means an install step is missing.
set -eu
cd "$(dirname "$0")"
sh build-aux/build.sh
suite=pass
make -j"$(nproc)" check || suite=fail
sh build-aux/suite-report.sh tests || suite=fail

# the whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer,
# failing on any report
san=pass
sh build-aux/sanitize.sh || san=fail
# each fuzz target for a fixed number of executions; a crash is saved under
# tests/fuzz/regress/ and fails the run
fuzz=pass
sh build-aux/fuzz.sh -r "${CTK_FUZZ_RUNS:-100000}" || fuzz=fail
echo "test.sh: suite $suite, sanitized suite $san, fuzzing $fuzz"
[ "$suite$san$fuzz" = passpasspass ]
