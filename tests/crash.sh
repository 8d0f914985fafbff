#!/bin/sh
# crash.sh - a generate run killed at any point leaves every file either as
# it was or as it is meant to be, and the next run finishes (or rolls back)
# the job; SIGINT and SIGTERM leave the whole tree old or new, never mixed,
# and no temp file.  The kills are real signals delivered by strace at the
# Nth call of one file-changing system call (openat, write, syncfs, fsync,
# renameat, unlinkat, mkdirat, ...), at points spread over each.
# SPDX-License-Identifier: MIT
. "$top_srcdir/tests/lib.sh"
need_cuda
command -v strace >/dev/null || skip "strace not installed (apt-get install strace)"
strace -f -qq -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
F=$(sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$T/fx") || skip "fixtures could not be built"
root="$F/standalone/cuda-13.0"

# config A: SDKs s01..s12; config B: s05..s16 with other help text, so a
# run from A to B updates 8, removes 4 and creates 4 toolkits' files.
series_config "$T/a.json" 1 12 "old tree" "$root"
series_config "$T/b.json" 5 16 "new tree" "$root"
"$CTKGEN" -q generate -c "$T/a.json" -o "$T/A" || { fail "generate A"; finish; exit 1; }
"$CTKGEN" -q generate -c "$T/b.json" -o "$T/B" || { fail "generate B"; finish; exit 1; }

# the files of a tree, without ctkgen's own bookkeeping
files() { (cd "$1" && find . -type f ! -name .ctkgen.lock ! -name '.ctkgen-manifest*' | sort); }
files "$T/A" > "$T/A.list"
files "$T/B" > "$T/B.list"
sort -u "$T/A.list" "$T/B.list" > "$T/all.list"
check "A and B differ in every way (created, updated, removed files)" sh -c \
    "[ \$(comm -23 '$T/A.list' '$T/B.list' | wc -l) -gt 0 ] && [ \$(comm -13 '$T/A.list' '$T/B.list' | wc -l) -gt 0 ]"

# every file is A's, B's or absent where that tree has none (a killed run
# leaves hidden temp files, which no module system reads; the next run
# sweeps them, and the checks after it make sure it did)
mixed_ok() { # OUT
    while read -r f; do
        if [ -f "$1/$f" ]; then
            cmp -s "$1/$f" "$T/A/$f" 2>/dev/null || cmp -s "$1/$f" "$T/B/$f" 2>/dev/null || {
                echo "  $f is neither the old nor the new file"; return 1; }
        elif grep -qxF "$f" "$T/A.list" && grep -qxF "$f" "$T/B.list"; then
            echo "  $f is missing, but both trees have it"; return 1
        fi
    done < "$T/all.list"
    extra=$(files "$1" | grep -v '\.ctkgen-tmp-......$' | comm -23 - "$T/all.list")
    [ -z "$extra" ] || { echo "  unexpected files: $extra"; return 1; }
}
same_tree() { # OUT WANT
    files "$1" > "$T/got.list"
    cmp -s "$T/got.list" "$2.list" || { diff "$2.list" "$T/got.list" | head -5; return 1; }
    while read -r f; do cmp -s "$1/$f" "$2/$f" || { echo "  $f differs"; return 1; }; done < "$2.list"
    [ ! -e "$1/.ctkgen-manifest.pending" ] || { echo "  pending manifest left"; return 1; }
    [ -z "$(find "$1" -name '*.ctkgen-tmp-*')" ] || { echo "  temp files left"; return 1; }
}
cmp_trees() { same_tree "$1" "$T/$2" > "$T/why" 2>&1; }

# LeakSanitizer cannot run under ptrace: in a sanitized build, leaks are
# checked by every other test instead.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

# each counted or killed run starts from an empty cache of what generate
# learned of the toolkits (factcache.h), so that it makes the same calls as
# the run that counted them, the cache's own writes included
XDG_CACHE_HOME=$T/cache
export XDG_CACHE_HOME

SYSCALLS=openat,write,fsync,fdatasync,syncfs,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir
# how many of each such call a full A -> B run makes.  strace counts each
# system call on its own: `inject=openat:...:when=N` stops the run at its
# Nth openat, whatever came between.
rm -rf "$T/out" "$T/cache" && cp -a "$T/A" "$T/out"
strace -f -qq -c -o "$T/count" -e trace=$SYSCALLS "$CTKGEN" -q generate -c "$T/b.json" -o "$T/out" >/dev/null 2>&1
awk '$NF != "total" && $NF != "syscall" && $4 ~ /^[0-9]+$/ { print $NF, $4 }' "$T/count" | sort > "$T/calls"
total=$(awk '{ t += $2 } END { print t + 0 }' "$T/calls")
check "the A -> B run was counted ($total calls: $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }' "$T/calls"))" \
    [ "$total" -gt 100 ]

# points WANTED: "SYSCALL N" lines, about WANTED in all, shared among the
# system calls by how often each is made, at least 6 each (or all of them),
# each one's first and last call
# always among them
points() {
    awk -v want="$1" -v total="$total" '{
        k = int(want * $2 / total + 0.5); if (k < 6) k = 6; if (k > $2) k = $2
        for (i = 0; i < k; i++) {
            n = k == 1 ? 1 : 1 + int(i * ($2 - 1) / (k - 1) + 0.5)
            print $1, n
        }
    }' "$T/calls" | sort -u
}

# run_to SIG SYSCALL N: the A -> B run, sent SIG at its Nth SYSCALL; rc is
# ctkgen's exit status (strace passes it on: 128 + the signal if it died of it)
# A signal ignored when the suite started (a run put in the background by a
# shell without job control ignores SIGINT) stays ignored in ctkgen, as it
# should: strace runs with the defaults back, so that the signal is sent to
# a process that heeds it.
DEFSIG=
env --default-signal=INT,TERM true 2>/dev/null && DEFSIG="env --default-signal=INT,TERM"
run_to() {
    rm -rf "$T/out" "$T/cache" && cp -a "$T/A" "$T/out"
    rc=0
    $DEFSIG strace -f -qq -o /dev/null -e trace=$SYSCALLS -e inject=$2:signal=$1:when=$3 \
        "$CTKGEN" -q generate -c "$T/b.json" -o "$T/out" >/dev/null 2>&1 || rc=$?
}

# SIGKILL at about 48 points; after each, re-run B to finish the job or A
# to roll it back
points 48 > "$T/kill-points"
kills=0 landed=0 bad=0 rerun_bad=0 back_bad=0
while read -r call n; do
    run_to KILL "$call" "$n"
    kills=$((kills + 1))
    [ $rc -eq 137 ] && landed=$((landed + 1))
    mixed_ok "$T/out" || { bad=$((bad + 1)); echo "  (killed at $call $n)"; }
    if [ $((kills % 2)) -eq 0 ]; then
        "$CTKGEN" -q generate -c "$T/b.json" -o "$T/out" >/dev/null 2>&1 && cmp_trees "$T/out" B ||
            { rerun_bad=$((rerun_bad + 1)); echo "  re-run after a kill at $call $n did not give B:"; cat "$T/why"; }
    else
        "$CTKGEN" -q generate -c "$T/a.json" -o "$T/out" >/dev/null 2>&1 && cmp_trees "$T/out" A ||
            { back_bad=$((back_bad + 1)); echo "  A after a kill at $call $n did not give A back"; }
    fi
done < "$T/kill-points"
check "SIGKILL: every one of $kills runs was killed ($landed)" [ "$kills" -gt 0 -a "$landed" -eq "$kills" ]
check "SIGKILL at $kills points: every file old or new each time" [ "$kills" -gt 0 -a "$bad" -eq 0 ]
check "SIGKILL: re-running the new config completes the tree, no temp files" [ "$kills" -gt 1 -a "$rerun_bad" -eq 0 ]
check "SIGKILL: running the old config again rolls the tree back" [ "$kills" -gt 0 -a "$back_bad" -eq 0 ]

# SIGINT / SIGTERM at about 24 points each: the whole tree is A or B, and
# ctkgen exits as the signal asks (130 / 143), or 0 if it came too late
points 24 > "$T/sig-points"
for sig in INT TERM; do
    case $sig in INT) want=130 ;; TERM) want=143 ;; esac
    runs=0 bad=0 saw_a=0 saw_b=0 stopped=0 badrc=0
    while read -r call n; do
        run_to "$sig" "$call" "$n"
        runs=$((runs + 1))
        case $rc in
            "$want") stopped=$((stopped + 1)) ;;
            0) ;;
            *) badrc=$((badrc + 1)); echo "  SIG$sig at $call $n: exit $rc" ;;
        esac
        if cmp_trees "$T/out" A; then saw_a=$((saw_a + 1))
        elif cmp_trees "$T/out" B; then saw_b=$((saw_b + 1))
        else bad=$((bad + 1)); echo "  SIG$sig at $call $n left a mixed tree"; same_tree "$T/out" "$T/B"
        fi
    done < "$T/sig-points"
    check "SIG$sig at $runs points: tree wholly old ($saw_a) or new ($saw_b), no temp files" [ "$runs" -gt 0 -a "$bad" -eq 0 ]
    check "SIG$sig: exit $want when stopped ($stopped of $runs), never another status" [ "$runs" -gt 0 -a "$badrc" -eq 0 ]
    check "SIG$sig: some signals landed while the tree was written (new tree seen)" [ "$saw_b" -gt 0 ]
    check "SIG$sig: some signals stopped the run before it changed anything (old tree seen)" [ "$saw_a" -gt 0 ]
done
finish
