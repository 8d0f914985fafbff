#!/bin/sh
# concurrency.sh - generate runs at once on one output dir take turns on
# the lock and the result is what a single run writes; --no-wait fails fast
# with a clear message; a lock left by a killed run is no obstacle.
# SPDX-License-Identifier: MIT
. "$top_srcdir/tests/lib.sh"
need_cuda
F=$(sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$T/fx") || skip "fixtures could not be built"
root="$F/standalone/cuda-13.0"
mkconfig() { # FILE HELP
    printf '{ "module_name": "cudatoolkit", "help": "%s", "pkgconfig_dir": "/apps/pkgconfig",\n  "sdks": [\n' "$2" > "$1"
    for i in 1 2 3 4 5 6 7 8; do
        sep=,; [ "$i" -eq 8 ] && sep=
        printf '    { "version": "13.0", "name": "13.0-s%d", "base": "%s" }%s\n' "$i" "$root" "$sep" >> "$1"
    done
    printf '  ]\n}\n' >> "$1"
}
mkconfig "$T/a.json" "tree a"
mkconfig "$T/b.json" "tree b"
"$CTKGEN" -q generate -c "$T/a.json" -o "$T/A" && "$CTKGEN" -q generate -c "$T/b.json" -o "$T/B" ||
    { fail "single runs"; finish; exit 1; }
same() { diff -r -x .ctkgen.lock "$1" "$2" >/dev/null && [ -z "$(find "$1" -name '*.ctkgen-tmp-*' -o -name '*.pending')" ]; }

# 8 runs of one config at once: all succeed, the tree is the single run's
pids=
for i in 1 2 3 4 5 6 7 8; do
    "$CTKGEN" -q generate -c "$T/a.json" -o "$T/out1" 2> "$T/err1.$i" &
    pids="$pids $!"
done
bad=0
for p in $pids; do wait "$p" || bad=$((bad + 1)); done
check "8 concurrent runs of one config all succeed" [ "$bad" -eq 0 ]
check "... and the tree equals a single run's" same "$T/out1" "$T/A"

# 4 + 4 runs of two configs at once: the tree is wholly one of them
pids=
for i in 1 2 3 4; do
    "$CTKGEN" -q generate -c "$T/a.json" -o "$T/out2" 2>/dev/null &
    pids="$pids $!"
    "$CTKGEN" -q generate -c "$T/b.json" -o "$T/out2" 2>/dev/null &
    pids="$pids $!"
done
bad=0
for p in $pids; do wait "$p" || bad=$((bad + 1)); done
check "8 concurrent runs of two configs all succeed" [ "$bad" -eq 0 ]
check "... and the tree is wholly A's or wholly B's" sh -c "$(command -v diff) -r -x .ctkgen.lock '$T/out2' '$T/A' >/dev/null || $(command -v diff) -r -x .ctkgen.lock '$T/out2' '$T/B' >/dev/null"

# --no-wait while another process holds the lock
if command -v flock >/dev/null; then
    cp -a "$T/A" "$T/out3"
    flock "$T/out3/.ctkgen.lock" sleep 5 &
    holder=$!
    sleep 0.5
    start=$(date +%s%N)
    "$CTKGEN" generate --no-wait -c "$T/b.json" -o "$T/out3" > /dev/null 2> "$T/err3"
    rc=$? end=$(date +%s%N)
    check "--no-wait while locked: exit 4" [ "$rc" -eq 4 ]
    check "--no-wait: fails at once (under 2 s)" [ $(((end - start) / 1000000)) -lt 2000 ]
    check "--no-wait: says another process holds the lock, naming it" grep -q "another process holds .*/.ctkgen.lock: pid [0-9]* (flock)" "$T/err3"
    check "--no-wait: the tree is untouched" same "$T/out3" "$T/A"
    # a reader (--check, --dry-run) does not read a tree a writer is changing
    "$CTKGEN" generate --check --no-wait -c "$T/b.json" -o "$T/out3" > /dev/null 2> "$T/err3c"
    check "--check --no-wait while a writer holds the lock: exit 4" [ $? -eq 4 ]
    "$CTKGEN" generate --dry-run --no-wait -c "$T/b.json" -o "$T/out3" > /dev/null 2> "$T/err3n"
    check "--dry-run --no-wait while a writer holds the lock: exit 4" [ $? -eq 4 ]
    # without --no-wait it says it waits for the holder, then writes
    start=$(date +%s%N)
    "$CTKGEN" generate -c "$T/b.json" -o "$T/out3" > /dev/null 2> "$T/err4"
    rc=$? end=$(date +%s%N)
    check "a waiting run succeeds once the holder is gone" [ "$rc" -eq 0 ]
    check "... it did wait (over 2 s)" [ $(((end - start) / 1000000)) -gt 2000 ]
    check "... saying whom it waits for" grep -q "another process holds .*: pid [0-9]* (flock); waiting for it to finish" "$T/err4"
    check "... and wrote B" same "$T/out3" "$T/B"
    kill "$holder" 2>/dev/null
    wait "$holder" 2>/dev/null
    # readers share the lock: one holding it does not stop another
    flock -s "$T/out3/.ctkgen.lock" sleep 3 &
    holder=$!
    sleep 0.5
    check "--check --no-wait beside another reader: runs (exit 0, nothing would change)" \
        "$CTKGEN" -q generate --check --no-wait -c "$T/b.json" -o "$T/out3"
    check "--dry-run --no-wait beside another reader: runs" \
        "$CTKGEN" -q generate --dry-run --no-wait -c "$T/b.json" -o "$T/out3"
    "$CTKGEN" -q generate --no-wait -c "$T/a.json" -o "$T/out3" 2>/dev/null
    check "... while a writer still waits for the readers (--no-wait: exit 4)" [ $? -eq 4 ]
    kill "$holder" 2>/dev/null
    wait "$holder" 2>/dev/null
else
    echo "SKIP: flock(1) not installed: the --no-wait checks did not run"
fi

# a reader creates nothing: not the tree, not a lock file
"$CTKGEN" -q generate --check -c "$T/b.json" -o "$T/none" >/dev/null
rc=$?
check "--check on a missing tree: exit 1, and the tree is still missing" sh -c "[ $rc -eq 1 ] && [ ! -e '$T/none' ]"
rm -f "$T/out1/.ctkgen.lock"
"$CTKGEN" -q generate --dry-run -c "$T/a.json" -o "$T/out1" >/dev/null
rc=$?
check "--dry-run on a tree with no lock file creates none" sh -c "[ $rc -eq 0 ] && [ ! -e '$T/out1/.ctkgen.lock' ]"

# a lock file left by a run that was killed: the kernel dropped the lock
cp -a "$T/A" "$T/out4"
echo 999999 > "$T/out4/.ctkgen.lock"
check "a stale lock file (dead pid) does not block --no-wait" \
    "$CTKGEN" -q generate --no-wait -c "$T/b.json" -o "$T/out4"
check "... and the run completed" same "$T/out4" "$T/B"
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null; then
    cp -a "$T/A" "$T/out5"
    strace -f -qq -o /dev/null -e trace=rename,renameat,renameat2 -e inject=rename,renameat,renameat2:signal=KILL:when=3 \
        "$CTKGEN" -q generate -c "$T/b.json" -o "$T/out5" >/dev/null 2>&1
    check "after a run killed while holding the lock, --no-wait proceeds" \
        "$CTKGEN" -q generate --no-wait -c "$T/b.json" -o "$T/out5"
    check "... and the tree is B's" same "$T/out5" "$T/B"
fi
finish
