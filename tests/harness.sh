#!/bin/sh
# harness.sh - the test harness itself: what test.sh and sanitize.sh report
# from a suite's results, how a missing toolkit is treated, and the fixture
# copy that must work on any filesystem.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/lib.sh"

REPORT=$top_srcdir/build-aux/suite-report.sh

# ---- suite-report.sh ----------------------------------------------------------------
# trs DIR NAME RESULT LOG: one test's .trs (automake's layout: the result
# first, the bookkeeping line last) and its .log
trs() {
    printf ':test-result: %s\n:global-test-result: %s\n:recheck: no\n:copy-in-global-log: yes\n' "$3" "$3" > "$1/$2.trs"
    printf '%s\n' "$4" > "$1/$2.log"
}
R=$T/r1
mkdir -p "$R"
trs "$R" a.sh PASS "ok - a"
trs "$R" b.sh FAIL "not ok - the one that broke"
trs "$R" c.sh PASS "ok - c
SKIP: part c2: no GPU on this machine"
rc=0; CTK_STRICT_SKIPS=0 sh "$REPORT" "$R" > "$T/r1.out" 2>&1 || rc=$?
check "a failed test fails the report (its .trs ends with :copy-in-global-log:)" [ "$rc" -eq 1 ]
check "  and its log is printed" grep -q 'not ok - the one that broke' "$T/r1.out"
check "  a passing test's log is not" sh -c "grep -q 'not ok - the one that broke' '$T/r1.out' && ! grep -q 'ok - a' '$T/r1.out'"
check "  the counts" grep -q '^2 passed, 1 failed, 0 skipped' "$T/r1.out"
check "  the skip line, with its test" grep -q 'c.sh.log:SKIP: part c2: no GPU' "$T/r1.out"

R=$T/r2
mkdir -p "$R"
trs "$R" a.sh PASS "ok - a
SKIP: part a2: no GPU on this machine"
trs "$R" d.sh SKIP "SKIP: Lmod not installed (/usr/share/lmod)"
rc=0; CTK_STRICT_SKIPS=0 sh "$REPORT" "$R" > "$T/r2.out" 2>&1 || rc=$?
check "skips alone pass by default" [ "$rc" -eq 0 ]
check "  and are listed" grep -q 'd.sh.log:SKIP: Lmod not installed' "$T/r2.out"
check "  one of them not for want of a GPU" grep -q '(1 skip line(s) not for want of a GPU)' "$T/r2.out"
rc=0; CTK_STRICT_SKIPS=1 sh "$REPORT" "$R" > "$T/r2s.out" 2>&1 || rc=$?
check "CTK_STRICT_SKIPS=1: a skip for a missing install step fails" [ "$rc" -eq 1 ]
R=$T/r3
mkdir -p "$R"
trs "$R" a.sh PASS "ok - a
SKIP: part a2: no GPU on this machine"
rc=0; CTK_STRICT_SKIPS=1 sh "$REPORT" "$R" > "$T/r3.out" 2>&1 || rc=$?
check "CTK_STRICT_SKIPS=1: a skip for want of a GPU does not" [ "$rc" -eq 0 ]

# ---- a missing toolkit -------------------------------------------------------------------
rc=0; out=$(CTK_TEST_CUDA= CTK_TEST_CUDA_SKIP_OK=no sh -c ". '$top_srcdir/tests/lib.sh'; need_cuda; echo ran") || rc=$?
check "no toolkit found by configure: a test that needs one fails (exit $rc)" [ "$rc" -eq 1 ]
check "  and says what to do" sh -c "printf '%s' '$out' | grep -q -- '--without-cuda'"
rc=0; CTK_TEST_CUDA= CTK_TEST_CUDA_SKIP_OK=yes sh -c ". '$top_srcdir/tests/lib.sh'; need_cuda; echo ran" >/dev/null || rc=$?
check "configured --without-cuda: it skips (exit $rc)" [ "$rc" -eq 77 ]

# ---- deps.sh without root or sudo ----------------------------------------------------------
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && ! command -v sudo >/dev/null 2>&1 &&
    ! dpkg-query -W -f='${Status}' hello 2>/dev/null | grep -q '^install ok installed'; then
    D=$T/deps
    mkdir -p "$D/build-aux" && cp "$top_srcdir/build-aux/deps.sh" "$D/build-aux/" && chmod -R a+rX "$T"
    rc=0
    setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME=/ CTK_DEPS_EXTRA=hello \
        sh "$D/build-aux/deps.sh" > "$T/deps.out" 2>&1 || rc=$?
    check "deps.sh as a user without sudo, a package missing: exit 1 (exit $rc)" [ "$rc" -eq 1 ]
    check "  and the one line to run as root names it" \
        grep -q 'apt-get update && apt-get install -y --no-install-recommends.* hello' "$T/deps.out"
    check "  and it never tried sudo or apt-get itself" lacks -E 'sudo: not found|Permission denied|E: ' "$T/deps.out"
else
    echo "SKIP: deps.sh without root: needs root, setpriv, no sudo and Debian's 'hello' not installed: not run"
fi

# ---- the fixtures' copy -------------------------------------------------------------------
S=$T/src
mkdir -p "$S/lib" "$S/include"
printf 'small\n' > "$S/include/cuda_runtime.h"
head -c 3000000 /dev/zero > "$S/lib/libbig.so.1"
printf 'tiny\n' > "$S/lib/libcudart.so.13"
ln -s libcudart.so.13 "$S/lib/libcudart.so"
ln -s lib "$S/lib64"
(
    tmp=$T/fx; tmp_phys=$T/fx; mkdir -p "$tmp"
    . "$top_srcdir/tests/fixture-lib.sh"
    CTK_FIXTURE_LINK_MIB=2 copy "$S" "$T/fx/copy"
)
C=$T/fx/copy
check "copy: a small file is a file of its own" sh -c "[ -f '$C/lib/libcudart.so.13' ] && [ ! -L '$C/lib/libcudart.so.13' ]"
ino() { stat -c '%d:%i' "$1"; }
check "  not the source's (device and inode differ)" differs "$(ino "$C/lib/libcudart.so.13")" "$(ino "$S/lib/libcudart.so.13")"
check "  a header too" sh -c "[ ! -L '$C/include/cuda_runtime.h' ] && cmp -s '$C/include/cuda_runtime.h' '$S/include/cuda_runtime.h'"
check "  a large file is a symlink to the source" [ "$(readlink "$C/lib/libbig.so.1")" = "$S/lib/libbig.so.1" ]
check "  relative symlinks stay relative" sh -c "[ \"\$(readlink '$C/lib/libcudart.so')\" = libcudart.so.13 ] && [ \"\$(readlink '$C/lib64')\" = lib ]"
# across filesystems: a tmpfs, where no hard link to the source can be made
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 &&
    unshare -m sh -c "mount -t tmpfs tmpfs '$T/fx'" 2>/dev/null; then
    check "copy onto a tmpfs: the same tree" unshare -m sh -c "mount -t tmpfs tmpfs '$T/fx' &&
        tmp='$T/fx' tmp_phys='$T/fx' && . '$top_srcdir/tests/fixture-lib.sh' &&
        CTK_FIXTURE_LINK_MIB=2 copy '$S' '$T/fx/t' &&
        [ ! -L '$T/fx/t/lib/libcudart.so.13' ] && [ -L '$T/fx/t/lib/libbig.so.1' ] &&
        cmp -s '$T/fx/t/lib/libcudart.so.13' '$S/lib/libcudart.so.13'"
else
    echo "SKIP: copy onto a tmpfs needs root and unshare -m (mount namespaces): not run"
fi

finish
