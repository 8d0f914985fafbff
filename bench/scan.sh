#!/bin/sh
# scan.sh - time `ctkgen scan` over a tree of thousands of directories.
# SPDX-License-Identifier: MIT
#
# usage: bench/scan.sh [DIRS [TOOLKITS]]     (default 10000 directories, 40 toolkits)
#
# Environment:
#   CTKGEN          the ctkgen binary (default: ctkgen on PATH)
#   CTK_BENCH_CUDA  the real toolkit the trees are made from (default /usr/local/cuda-13.0)
#   R               repetitions (default 7)
#   KEEP=1          keep the work directory
#
# The tree: DIRS plain directories, 10 per parent, 4 levels deep (site/gN/
# sN/pN/leafN), some of them holding files; TOOLKITS `cp -al` copies of the
# real toolkit (hard links: no bytes copied) spread among them at depth 3
# and 4 (site/gN/sN/cuda-13.0-kN), every fifth with a cuda -> link beside
# it (a duplicate), plus a dangling link and a loop per 1000 directories.
# The scan is timed with `date +%s.%N` as a whole process, R times; the
# median is printed with the scan's own summary line.  The script checks
# the scan found exactly TOOLKITS toolkits and reported the problems.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
DIRS=${1:-10000}
NTK=${2:-40}
R=${R:-7}
CUDA=${CTK_BENCH_CUDA:-/usr/local/cuda-13.0}
CTKGEN=${CTKGEN:-$(command -v ctkgen || :)}

die() { echo "$0: $*" >&2; exit 1; }
case $DIRS in '' | *[!0-9]*) die "DIRS must be a number" ;; esac
case $NTK in '' | *[!0-9]*) die "TOOLKITS must be a number" ;; esac
{ [ -n "$CTKGEN" ] && [ -x "$CTKGEN" ]; } || die "no ctkgen: set CTKGEN=/path/to/ctkgen"
[ -x "$CUDA/bin/nvcc" ] || die "$CUDA: no bin/nvcc (set CTK_BENCH_CUDA)"

W=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-scanbench-XXXXXX")
W=$(cd "$W" && pwd -P)
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

# the standalone layout from the test fixtures: one real toolkit tree to link
FIX=$(sh "$here/tests/fixtures.sh" "$CUDA" "$W/fix") || die "fixtures.sh failed"
TK=$(ls -d "$FIX"/standalone/cuda-* | head -n 1)

echo "building $DIRS directories and $NTK toolkits under $W/site ..."
python3 - "$W/site" "$DIRS" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(root, exist_ok=True)
made = 0
i = 0
while made < n:
    g, s, p, l = i // 1000, (i // 100) % 10, (i // 10) % 10, i % 10
    d = os.path.join(root, "g%d" % g, "s%d" % s, "p%d" % p, "leaf%d" % l)
    for k in range(4):
        part = os.path.join(root, *d[len(root) + 1:].split("/")[:k + 1])
        if not os.path.isdir(part):
            os.mkdir(part)
            made += 1
    if i % 7 == 0:
        open(os.path.join(d, "data.txt"), "w").close()
    if i % 1000 == 0:
        os.symlink("nowhere", os.path.join(d, "dangling"))
        os.symlink("..", os.path.join(d, "loop"))
    i += 1
EOF
k=0
while [ $k -lt "$NTK" ]; do
    g=$((k % 10)); s=$((k / 10 % 10))
    parent=$W/site/g$g/s$s
    [ -d "$parent" ] || parent=$W/site
    if [ $((k % 2)) -eq 1 ] && [ -d "$parent/p$k" ]; then parent=$parent/p$k; fi
    cp -al "$TK" "$parent/cuda-13.0-k$k"
    if [ $((k % 5)) -eq 0 ]; then ln -s "cuda-13.0-k$k" "$parent/cuda-k$k"; fi
    k=$((k + 1))
done
ndirs=$(find "$W/site" -type d | wc -l)
echo "tree: $ndirs directories in all (toolkit interiors included)"

# one run to check what it finds
"$CTKGEN" scan "$W/site" >"$W/site.json" 2>"$W/scan.err" || die "scan failed: $(tail -n 3 "$W/scan.err")"
found=$(grep -c '^ctkgen: found ' "$W/scan.err" || :)
dups=$(grep -c '^ctkgen: duplicate ' "$W/scan.err" || :)
[ "$found" -eq "$NTK" ] || die "found $found toolkits, not $NTK"
[ "$dups" -eq $(( (NTK + 4) / 5 )) ] || die "$dups duplicates, not $(( (NTK + 4) / 5 ))"
summary=$(tail -n 1 "$W/scan.err")

times=
r=0
while [ $r -lt "$R" ]; do
    t0=$(date +%s.%N)
    "$CTKGEN" -q scan "$W/site" >/dev/null
    t1=$(date +%s.%N)
    times="$times $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
    r=$((r + 1))
done
median=$(printf '%s\n' $times | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
echo "scan summary: ${summary#ctkgen: }"
echo "runs (s):$times"
echo "median: $median s over $R runs ($NTK toolkits, $DIRS directories outside them)"
