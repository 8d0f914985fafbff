#!/bin/sh
# validate.sh - time `ctkgen validate` on N SDK trees against the loop an
# admin would write by hand.
# SPDX-License-Identifier: MIT
#
# usage: bench/validate.sh [N]          (N SDKs, default 10)
#
# Environment:
#   CTKGEN        the ctkgen binary (default: ctkgen on PATH)
#   CTKGEN_BASE   another ctkgen (an earlier build) whose cold runs are taken
#                 in the same run, each repetition next to CTKGEN's; optional
#   CTK_BENCH_CUDA  the real toolkit the trees are made from (default /usr/local/cuda-13.0)
#   MODULES_CMD   Environment Modules' modulecmd.tcl (default: the copy
#                 build-aux/deps.sh unpacks under .deps-local/)
#   LMOD_CMD      Lmod's libexec/lmod (default /usr/share/lmod/lmod/libexec/lmod;
#                 the Lmod naive loop is left out when it is missing)
#   R_SLOW R_WARM repetitions of the cold and naive runs (3) and warm runs (10)
#   KEEP=1        keep the work directory
#
# The trees: the toolkit itself, the four layouts tests/fixtures.sh makes
# from it (standalone, HPC SDK split, version.txt, no version file), then
# `cp -al` copies of the standalone one at distinct paths until there are N.
# One site config names them all, as version 13.0 with names 13.0-b1..N.
#
# The floor: one `nvcc -c probe.cu` per SDK, the N compiles run nproc at
# a time (against cold -j nproc) and one at a time (against cold -j1).
# Each repetition takes every cold variant and the floors in turn, so that
# the machine's load falls on all of them alike.  Where strace is
# installed, one SDK is validated under it and the programs ctkgen started
# are listed with their share of that SDK's time.
#
# Every figure is the median of its repetitions, all taken in this one run.
# Each validate report is checked: nothing may fail, and on a machine
# without a GPU every artifact must be a skip with CTK-SKIP-001.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10}
case $N in '' | *[!0-9]* | 0) echo "usage: $0 [N]   (N >= 1)" >&2; exit 2 ;; esac
R_SLOW=${R_SLOW:-3}
R_WARM=${R_WARM:-10}
CUDA=${CTK_BENCH_CUDA:-/usr/local/cuda-13.0}
CTKGEN=${CTKGEN:-$(command -v ctkgen || :)}
MODULES_CMD=${MODULES_CMD:-$here/.deps-local/environment-modules/usr/lib/modulecmd.tcl}
LMOD_CMD=${LMOD_CMD:-/usr/share/lmod/lmod/libexec/lmod}
PROBE=$here/kernels/probe.cu

die() { echo "$0: $*" >&2; exit 1; }
{ [ -n "$CTKGEN" ] && [ -x "$CTKGEN" ]; } || die "no ctkgen: set CTKGEN=/path/to/ctkgen"
BASE=${CTKGEN_BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || die "CTKGEN_BASE=$BASE: not an executable"
[ -x "$CUDA/bin/nvcc" ] || die "$CUDA: no bin/nvcc (set CTK_BENCH_CUDA)"
[ -f "$MODULES_CMD" ] || die "$MODULES_CMD: missing (run sh build-aux/deps.sh)"
for t in tclsh jq date awk; do
    command -v $t >/dev/null 2>&1 || die "$t not found"
done
export MODULES_CMD
unset LMOD_CMD_USED
if [ -f "$LMOD_CMD" ]; then LMOD_CMD_USED=$LMOD_CMD; fi

W=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-bench-XXXXXX")
# as root, validate loads the modulefiles as user nobody, who must reach them
chmod 755 "$W"
W=$(cd "$W" && pwd -P)
: >"$W/problems"
cleanup() {
    if [ "${KEEP:-0}" = 1 ] || [ -s "$W/problems" ]; then echo "kept $W" >&2; else chmod -R u+rwx "$W" 2>/dev/null || :; rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
NPROC=$(nproc)

# ---- the machine ------------------------------------------------------------------
. "$(dirname "$0")/machine.sh"
machine_header
echo "  ctkgen         $("$CTKGEN" --version)"
[ -z "$BASE" ] || echo "  base ctkgen    $BASE ($("$BASE" --version))"
echo "  NVIDIA driver  $GPU"
echo "  command        $0 $N  (R_SLOW=$R_SLOW R_WARM=$R_WARM)"
echo

# ---- the SDK trees and the site config ----------------------------------------------
FIX=$W/fix
sh "$here/tests/fixtures.sh" "$CUDA" "$FIX" >/dev/null
mm=13.0
hpc=$(ls -d "$FIX"/hpcsdk/Linux_*/25.9)
st=$FIX/standalone/cuda-$mm
i=0
: >"$W/sdks"
add() { # add NAME-SUFFIX JSON-FIELDS
    i=$((i + 1))
    [ $i -le "$N" ] || return 0
    [ $i -eq 1 ] || printf ',\n' >>"$W/sdks"
    printf '    { "version": "%s", "name": "%s-b%d", %s }' "$mm" "$mm" $i "$1" >>"$W/sdks"
}
add "\"base\": \"$CUDA\""
add "\"base\": \"$st\""
add "\"base\": \"$hpc/cuda/$mm\", \"math_libs\": \"$hpc/math_libs/$mm\", \"comm_libs\": { \"nccl\": \"$hpc/comm_libs/$mm/nccl\" }"
add "\"base\": \"$FIX/versiontxt/cuda-$mm\""
add "\"base\": \"$FIX/noversion/cuda-$mm\""
while [ $i -lt "$N" ]; do
    d=$W/extra/b$((i + 1))/cuda-$mm
    mkdir -p "$(dirname "$d")"
    cp -al "$st" "$d" 2>/dev/null || { rm -rf "$d"; cp -as "$st" "$d"; }
    add "\"base\": \"$d\""
done
{
    printf '{\n  "module_name": "cudatoolkit",\n  "sdks": [\n'
    cat "$W/sdks"
    printf '\n  ]\n}\n'
} >"$W/site.json"
SITE=$W/site.json
OUT=$W/out
CACHE=$W/cache
"$CTKGEN" -q generate -c "$SITE" -o "$OUT"
NAMES=$(jq -r '.sdks[].name' "$SITE")

# ---- helpers ----------------------------------------------------------------------
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }
median() { # numbers on stdin
    sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m }'
}
# problems go to a file: the measurements run in $(...) subshells
problem() { echo "!! $*" | tee -a "$W/problems" >&2; }
# check_report FILE LABEL: nothing failed; without a GPU, all skips are CTK-SKIP-001
check_report() {
    r=$(jq -r --arg gpu $GPU '
        [.sdks[].artifacts[]] as $a
        | "\($a | length) \([$a[] | select(.verdict == "fail")] | length) " +
          "\([$a[] | select($gpu == "no" and (.verdict != "skip" or .skip.code != "CTK-SKIP-001"))] | length)"' "$1")
    # shellcheck disable=SC2086 # three numbers
    set -- "$1" "$2" $r
    if [ "$3" -ne $((3 * N)) ] || [ "$4" -ne 0 ] || [ "$5" -ne 0 ]; then
        bk=$(($(wc -l <"$W/problems") + 1))
        cp "$1" "$W/bad-$bk.json"
        problem "$2: $3 artifacts, $4 failed, $5 not a CTK-SKIP-001 skip; report kept in $W/bad-$bk.json"
    fi
}
# cpu_of FILE: append the CPU seconds (user + system, of the command and
# every process it waited for) that GNU time wrote to $W/cpu to FILE
cpu_of() { awk 'END { printf "%.4f\n", $1 + $2 }' "$W/cpu" >>"$1"; }
# timed_validate LABEL ARGS...: one timed validate by $VBIN (default
# $CTKGEN); prints seconds; with CPUF set, appends its CPU time to $W/u.$CPUF
timed_validate() {
    tl=$1; shift
    t0=$(now)
    rc=0; /usr/bin/time -o "$W/cpu" -f "%U %S" "${VBIN:-$CTKGEN}" -q validate -c "$SITE" -o "$OUT" --json "$@" >"$W/rep.json" || rc=$?
    t1=$(now)
    [ -z "${CPUF:-}" ] || cpu_of "$W/u.$CPUF"
    [ $rc -eq 0 ] || problem "$tl: validate exited $rc"
    check_report "$W/rep.json" "$tl"
    case $tl in
        warm) jq '[.sdks[].artifacts[] | select(.cached != true)] | length' "$W/rep.json" >>"$W/uncached" ;;
        cold1) cp "$W/rep.json" "$W/cold.json" ;;
    esac
    sub "$t0" "$t1"
}
# naive SYSTEM: the admin's loop, serially over every SDK; prints seconds
naive() {
    sys=$1
    case $sys in
        tcl) mp=$OUT/tcl; load="tclsh \"\$MODULES_CMD\" sh load" ;;
        lmod) mp=$OUT/lmod; load="\"\$LMOD_CMD\" sh load" ;;
    esac
    rm -rf "$W/naive"
    mkdir -p "$W/naive" "$W/home"
    t0=$(now)
    for n in $NAMES; do
        mkdir "$W/naive/$n"
        env -i PATH=/usr/bin:/bin HOME="$W/home" LANG=C.UTF-8 MODULEPATH="$mp" \
            MODULES_CMD="$MODULES_CMD" LMOD_CMD="${LMOD_CMD_USED:-}" P="$PROBE" D="$W/naive/$n" \
            sh -c "eval \"\$($load cudatoolkit/$n)\"; cd \"\$D\" && nvcc \"\$P\" -o a.out && ./a.out" \
            >"$W/naive/$n.log" 2>&1 || problem "naive $sys $n failed: $(tail -n 3 "$W/naive/$n.log")"
    done
    t1=$(now)
    sub "$t0" "$t1"
}
# rep LABEL COUNT COMMAND...: median of COUNT runs of a command printing seconds
rep() {
    rl=$1 rn=$2; shift 2
    : >"$W/times"
    rk=0
    while [ $rk -lt "$rn" ]; do
        "$@" >>"$W/times"
        echo >>"$W/times"
        rk=$((rk + 1))
    done
    echo "  $rl: $(tr '\n' ' ' <"$W/times")" >&2
    median <"$W/times"
}

# ---- measurements ---------------------------------------------------------------------
# CPU time the hypervisor gave to others (steal), and idle, over the measurements
TICKS0=$(cpu_ticks)
echo "# runs (seconds, in the order taken)" >&2
# floor P: N `nvcc -c probe.cu`, P at a time; prints seconds
mkdir -p "$W/floor"
floor() {
    t0=$(now)
    i=0
    while [ $i -lt "$N" ]; do i=$((i + 1)); echo $i; done |
        /usr/bin/time -o "$W/cpu" -f "%U %S" xargs -P "$1" -I{} "$CUDA/bin/nvcc" -c "$PROBE" -o "$W/floor/{}.o" ||
        problem "floor -P$1: nvcc failed"
    t1=$(now)
    [ -z "${CPUF:-}" ] || cpu_of "$W/u.$CPUF"
    sub "$t0" "$t1"
}
# the cold runs and the floors, one of each per repetition
COLD_SET="coldP cold1 floorP floor1"
[ -z "$BASE" ] || COLD_SET="coldP bcoldP cold1 bcold1 floorP floor1"
for f in $COLD_SET; do : >"$W/t.$f"; : >"$W/u.$f"; done
rk=0
while [ $rk -lt "$R_SLOW" ]; do
    for f in $COLD_SET; do
        VBIN=$CTKGEN CPUF=$f
        case $f in b*) VBIN=$BASE ;; esac
        case $f in
            coldP | bcoldP) t=$(timed_validate "$f -j$NPROC" --cache-dir "$CACHE" --no-cache) ;;
            cold1 | bcold1) t=$(timed_validate "$f -j1" --cache-dir "$CACHE" --no-cache -j1) ;;
            floorP) t=$(floor "$NPROC") ;;
            floor1) t=$(floor 1) ;;
        esac
        echo "$t" >>"$W/t.$f"
    done
    VBIN= CPUF=
    rk=$((rk + 1))
done
for f in $COLD_SET; do echo "  $f: $(tr '\n' ' ' <"$W/t.$f")  CPU: $(tr '\n' ' ' <"$W/u.$f")" >&2; done
COLD=$(median <"$W/t.coldP")
COLD1=$(median <"$W/t.cold1")
FLOOR=$(median <"$W/t.floorP")
FLOOR1=$(median <"$W/t.floor1")
UCOLD=$(median <"$W/u.cold1")
UFLOOR=$(median <"$W/u.floor1")
if [ -n "$BASE" ]; then
    BCOLD=$(median <"$W/t.bcoldP")
    BCOLD1=$(median <"$W/t.bcold1")
    UBCOLD=$(median <"$W/u.bcold1")
fi
rm -rf "$CACHE"
# prime the cache; a failed artifact is not cached, so prime again (the
# failure is kept as a problem all the same)
pk=0
while [ $pk -lt 3 ]; do
    timed_validate prime --cache-dir "$CACHE" >/dev/null
    [ "$(jq '.summary.fail' "$W/rep.json")" -ne 0 ] || break
    pk=$((pk + 1))
done
: >"$W/uncached"
WARM=$(rep "warm" "$R_WARM" timed_validate warm --cache-dir "$CACHE")
# every warm run must take every artifact from the cache
nc=$(awk '{ s += $1 } END { print s + 0 }' "$W/uncached")
NAIVE=$(rep "naive Tcl" "$R_SLOW" naive tcl)
if [ -n "${LMOD_CMD_USED:-}" ]; then
    NAIVE_L=$(rep "naive Lmod" "$R_SLOW" naive lmod)
fi

TICKS1=$(cpu_ticks)

# peak RSS: GNU time's %M is the largest of ctkgen and its children (nvcc's
# cicc dominates a cold run); VmHWM sampled from /proc is ctkgen's own.
rss_self() { # ARGS...: run validate in the background, print ctkgen's VmHWM (kB)
    "$CTKGEN" -q validate -c "$SITE" -o "$OUT" "$@" >/dev/null &
    p=$!
    hwm=0
    # VmHWM only grows: the last reading before exit is the peak, give or
    # take what is allocated after it.  Builtins only, so sampling is fast.
    while [ -r /proc/$p/status ]; do
        h=
        while read -r key val _; do
            case $key in VmHWM:) h=$val; break ;; esac
        done </proc/$p/status 2>/dev/null || :
        [ -n "$h" ] || break
        [ "$h" -le "$hwm" ] || hwm=$h
    done
    wait $p || :
    echo "$hwm"
}
RSS_COLD_TREE=$( { /usr/bin/time -f %M "$CTKGEN" -q validate -c "$SITE" -o "$OUT" --cache-dir "$CACHE" --no-cache >/dev/null; } 2>&1 | tail -n 1)
RSS_COLD_SELF=$(rss_self --cache-dir "$CACHE" --no-cache)
RSS_WARM_SELF=$(rss_self --cache-dir "$CACHE")
RSS_WARM_TREE=$( { /usr/bin/time -f %M "$CTKGEN" -q validate -c "$SITE" -o "$OUT" --cache-dir "$CACHE" >/dev/null; } 2>&1 | tail -n 1)

# where a cold SDK's time goes: one SDK, one job, -v gives each artifact's time
jq '.sdks |= .[:1]' "$SITE" >"$W/one.json"
"$CTKGEN" -v validate -c "$W/one.json" -o "$OUT" --cache-dir "$CACHE" --no-cache -j1 2>&1 >/dev/null |
    awk '$2 ~ /^(lmod|tcl|pc)$/ && $NF == "s" { printf "%s %s s  ", $2, $(NF - 1) }' >"$W/steps"
mkdir -p "$W/nvcc"
nvcc_c() { t0=$(now); (cd "$W/nvcc" && "$CUDA/bin/nvcc" -c "$PROBE" -o probe.o); t1=$(now); sub "$t0" "$t1"; }
NVCC_C=$(rep "nvcc -c probe.cu" "$R_SLOW" nvcc_c)

# where the rest goes: one SDK, -j1, under strace (a file per process);
# each program ctkgen started itself, what that one ran in turn folded in,
# with its share of the run's time
: >"$W/programs"
mkdir -p "$W/strace"
if command -v strace >/dev/null 2>&1 &&
    strace -ff -qq -s 256 -ttt -e trace=execve,exit_group,clone,clone3,fork,vfork -e signal=none \
        -o "$W/strace/p" "$CTKGEN" -q validate -c "$W/one.json" -o "$OUT" --cache-dir "$CACHE" --no-cache -j1 \
        >/dev/null 2>&1; then
    # "TIME call(...) = RESULT" in file p.PID
    awk -v me="$CTKGEN" '
        FNR == 1 { pid = FILENAME; sub(/.*\./, "", pid) }
        $2 ~ /^(clone|clone3|fork|vfork)\(/ && $NF ~ /^[0-9]+$/ {
            if ($0 ~ /CLONE_THREAD/) thread[$NF] = pid; else parent[$NF] = pid
        }
        $2 ~ /^execve\(/ && $NF == "0" && !(pid in prog) {
            split($0, q, "\""); p = q[2]; if (p == me) root = pid
            sub(/.*\//, "", p); prog[pid] = p; t0[pid] = $1
        }
        $2 ~ /^exit_group\(/ { t1[pid] = $1 }
        END {
            for (t in thread) if (thread[t] == root) mine[t] = 1
            mine[root] = 1
            total = t1[root] - t0[root]
            for (p in prog) if ((p in parent) && (parent[p] in mine) && (p in t1)) {
                n[prog[p]]++; s[prog[p]] += t1[p] - t0[p]
            }
            for (k in n) printf "%s x%d %.0f%%\n", k, n[k], 100 * s[k] / total
        }' "$W"/strace/p.* | sort -t' ' -k3 -rn >"$W/programs"
fi

# ---- the table --------------------------------------------------------------------------
row() { awk -v l="$1" -v s="$2" -v n="$N" 'BEGIN { printf "| %-36s | %9.3f | %8.3f |\n", l, s, s / n }'; }
echo "# ctkgen validate, $N SDKs (3 artifacts each), medians"
echo
echo "| run                                  | median, s | per SDK, s |"
echo "| ------------------------------------ | --------: | -------: |"
row "cold, -j$NPROC (--no-cache)" "$COLD"
row "cold, -j1 (--no-cache)" "$COLD1"
if [ -n "$BASE" ]; then
    row "base: cold, -j$NPROC (--no-cache)" "$BCOLD"
    row "base: cold, -j1 (--no-cache)" "$BCOLD1"
fi
row "floor: nvcc -c, $NPROC at a time" "$FLOOR"
row "floor: nvcc -c, one at a time" "$FLOOR1"
row "warm (all from the cache)" "$WARM"
row "naive loop, Tcl (serial)" "$NAIVE"
[ -z "${NAIVE_L:-}" ] || row "naive loop, Lmod (serial)" "$NAIVE_L"
echo
awk -v c="$COLD" -v c1="$COLD1" -v w="$WARM" -v nv="$NAIVE" -v p="$NPROC" -v n="$N" 'BEGIN {
    r = c / (nv / p)
    printf "cold(-j%d) / (naive / %d)  = %.2f   target <= 1: %s\n", p, p, r, (r <= 1 ? "met" : sprintf("missed (%.0f%% slower)", (r - 1) * 100))
    printf "cold(-j1) / naive         = %.2f\n", c1 / nv
    ms = w * 1000
    if (n < 10) v = "not judged (fewer than 10 SDKs)"
    else if (ms < 50) v = "met"
    else if (n == 10) v = sprintf("missed by %.1f ms", ms - 50)
    else v = "missed with more than 10 SDKs (rerun with N=10)"
    printf "warm, %d SDKs              = %.1f ms   target < 50 ms for 10 SDKs: %s\n", n, ms, v
}'
awk -v c="$COLD" -v c1="$COLD1" -v f="$FLOOR" -v f1="$FLOOR1" -v b="${BCOLD:-}" -v b1="${BCOLD1:-}" -v p="$NPROC" \
    -v uc="$UCOLD" -v uf="$UFLOOR" -v ub="${UBCOLD:-}" 'BEGIN {
    r = c / f
    printf "cold(-j%d) / floor(%d at a time)   = %.2f   target <= 1.15: %s\n", p, p, r, (r <= 1.15 ? "met" : "missed")
    printf "cold(-j1) / floor(one at a time)  = %.2f\n", c1 / f1
    printf "CPU, cold -j1 / CPU, floor        = %.2f   (user + system of all processes: %.3f s / %.3f s)\n", uc / uf, uc, uf
    if (b != "") {
        printf "base: cold(-j%d) / floor          = %.2f\n", p, b / f
        printf "base: cold(-j1) / floor           = %.2f\n", b1 / f1
        printf "base: CPU, cold -j1 / CPU, floor  = %.2f   (%.3f s)\n", ub / uf, ub
    }
}'
echo "artifacts not from the cache, over all $R_WARM warm runs: $nc"
echo "peak RSS, cold: ctkgen itself $RSS_COLD_SELF kB (VmHWM sampled), with its children $RSS_COLD_TREE kB (GNU time %M)"
echo "peak RSS, warm: ctkgen itself $RSS_WARM_SELF kB (VmHWM sampled), with its children $RSS_WARM_TREE kB (GNU time %M)"
echo "one SDK, -j1, per artifact (ctkgen -v): $(cat "$W/steps")"
# shellcheck disable=SC2016 # jq's own $m
echo "module artifacts of a cold -j1 run whose build another's stood for: $(jq -r '
    [.sdks[].artifacts[] | select(.kind != "pc")] as $m
    | "built_by \([$m[] | select(.built_by != null)] | length), linked_by \([$m[] | select(.linked_by != null)] | length), of \($m | length)"' "$W/cold.json")"
echo "nvcc -c probe.cu alone: $NVCC_C s"
[ ! -s "$W/programs" ] || echo "programs ctkgen started, one SDK, -j1, under strace (count, share of its time): $(tr '\n' ',' <"$W/programs" | sed 's/,$//; s/,/, /g')"
echo "$TICKS0 $TICKS1" | awk '{ t = $4 - $1; printf "CPU during the timed runs: %.0f%% idle, %.1f%% stolen by the hypervisor\n", 100 * ($5 - $2) / t, 100 * ($6 - $3) / t }'
if [ -s "$W/problems" ]; then
    echo "PROBLEMS: $(wc -l <"$W/problems") (listed above; $W kept)"
    exit 1
fi
