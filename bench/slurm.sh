#!/bin/sh
# slurm.sh - time `ctkgen validate --launcher slurm` on the test cluster
# against the loop of one srun per toolkit and partition.
# SPDX-License-Identifier: MIT
#
# usage: bench/slurm.sh [N ...]         (SDK counts, default 1 4 16)
#
# Environment:
#   CTKGEN          the ctkgen binary (default: ctkgen on PATH)
#   CTK_BENCH_CUDA  the real toolkit every SDK names (default /usr/local/cuda-13.0)
#   CTK_BENCH_STAGE where the stage dir is made (default: the source tree);
#                   it and every directory above it must be owned by root
#                   or this user and writable by no one else, or ctkgen
#                   refuses it (/tmp is refused)
#   MODULES_CMD     Environment Modules' modulecmd.tcl (default: the copy
#                   build-aux/deps.sh unpacks under .deps-local/)
#   R               repetitions of each measurement (default 5)
#   KEEP=1          keep the work directory
#
# Needs root and the Slurm packages: it starts the test cluster of
# tests/slurm-cluster.sh (partitions gpu-a100 and gpu-h100 with one GPU
# each, backed by character devices, and cpu) in the work directory and
# stops it at the end.  There is no GPU, so every launch is a skip: what
# is measured is the cost of going through the scheduler.
#
# For each N: one site config names the real toolkit N times (version 13.0,
# names 13.0-b1..N; the config takes the same base for several SDKs, so no
# copies), `ctkgen -q generate` writes the tree, and R times, in turn:
#   ctkgen    ctkgen -q validate --launcher slurm --partition gpu-a100
#             --partition gpu-h100 --json --no-cache --stage-dir STAGE
#   loop      one `srun -p PART --gres=gpu:1 PROBE` per SDK x partition, in
#             series; PROBE is kernels/probe.cu built once with nvcc
#   loop/art  the same per SDK x partition x artifact (lmod, tcl, pc), as a
#             suite with one test per toolkit and artifact would submit
# Every figure is the median of its R runs, all taken in this one run.
# Each ctkgen report is checked (exit 0, two jobs that ran on their nodes,
# every cell a CTK-SKIP-001 skip without a GPU, the stage dir and the queue
# empty afterwards), and each srun must print the probe's report.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- 1 4 16
for n in "$@"; do
    case $n in '' | *[!0-9]* | 0) echo "usage: $0 [N ...]   (N >= 1)" >&2; exit 2 ;; esac
done
R=${R:-5}
CUDA=${CTK_BENCH_CUDA:-/usr/local/cuda-13.0}
CTKGEN=${CTKGEN:-$(command -v ctkgen || :)}
MODULES_CMD=${MODULES_CMD:-$here/.deps-local/environment-modules/usr/lib/modulecmd.tcl}
STAGE_PARENT=${CTK_BENCH_STAGE:-$here}
PARTS="gpu-a100 gpu-h100"
NPARTS=2
ARTS="lmod tcl pc"
NARTS=3

die() { echo "$0: $*" >&2; exit 1; }
{ [ -n "$CTKGEN" ] && [ -x "$CTKGEN" ]; } || die "no ctkgen: set CTKGEN=/path/to/ctkgen"
[ -x "$CUDA/bin/nvcc" ] || die "$CUDA: no bin/nvcc (set CTK_BENCH_CUDA)"
[ -f "$MODULES_CMD" ] || die "$MODULES_CMD: missing (run sh build-aux/deps.sh)"
[ "$(id -u)" -eq 0 ] || die "the test cluster runs its daemons as root (SlurmUser=root): run as root"
for t in slurmctld slurmd munged sinfo sbatch squeue scancel srun tclsh jq date awk; do
    command -v $t >/dev/null 2>&1 || die "$t not found (build-aux/deps.sh installs slurmctld slurmd slurm-client munge)"
done
export MODULES_CMD
# the caller's Slurm defaults would change what srun asks for
for v in $(env | sed -n 's/^\(S[A-Z]*_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in SLURM_* | SBATCH_* | SALLOC_* | SRUN_* | SQUEUE_* | SINFO_* | SCANCEL_*) unset "$v" ;; esac
done

W=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-bench-XXXXXX")
W=$(cd "$W" && pwd -P)
# validate, as root, loads the modulefiles as user nobody, who must reach them
chmod 755 "$W"
: >"$W/problems"
C=$W/c
STAGE=
cleanup() {
    [ ! -f "$C/pids" ] || sh "$here/tests/slurm-cluster.sh" stop "$C" >/dev/null 2>&1 || echo "$0: the test cluster in $C did not stop cleanly" >&2
    [ -z "$STAGE" ] || rm -rf "$STAGE"
    if [ "${KEEP:-0}" = 1 ] || [ -s "$W/problems" ]; then echo "kept $W" >&2; else chmod -R u+rwx "$W" 2>/dev/null || :; rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
NPROC=$(nproc)

sh "$here/tests/slurm-cluster.sh" start "$C" >/dev/null 2>"$W/cluster.err" ||
    { cat "$W/cluster.err" >&2; die "the test cluster did not start"; }
. "$C/env.sh"
STAGE=$(mktemp -d "$STAGE_PARENT/.bench-stage-XXXXXX")
chmod 700 "$STAGE"

# ---- the machine ------------------------------------------------------------------
. "$(dirname "$0")/machine.sh"
machine_header
echo "  Slurm          $(sinfo -V), $(munged --version 2>&1 | head -n 1)"
echo "  ctkgen         $("$CTKGEN" --version)"
echo "  NVIDIA driver  $GPU"
echo "  command        $0 $*  (R=$R)"
echo

# ---- the loop's probe: built once --------------------------------------------------------
mkdir -p "$W/probe"
(cd "$W/probe" && "$CUDA/bin/nvcc" "$here/kernels/probe.cu" -o probe) || die "nvcc kernels/probe.cu failed"
PROBE=$W/probe/probe

# ---- helpers ----------------------------------------------------------------------
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }
median() { # numbers on stdin
    sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m }'
}
col() { awk -v k="$2" '{ print $k }' "$1"; } # col FILE K: column K of FILE
# problems go to a file: the measurements run in $(...) subshells
problem() { echo "!! $*" | tee -a "$W/problems" >&2; }
queue_empty() { [ -z "$(squeue -h -o %i)" ]; }

# check_report FILE LABEL: what every run must show
check_report() {
    r=$(jq -r --arg gpu $GPU '
        "\(.launcher) \(.matrix | length) \(.matrix_summary.fail) \(.matrix_summary.jobs) " +
        "\([.partitions[] | select(.state == "ran" and .node == .name + "-1")] | length) " +
        "\([.matrix[] | select($gpu == "no" and (.verdict != "skip" or .skip.code != "CTK-SKIP-001"))] | length)"' "$1")
    # shellcheck disable=SC2086 # six words
    set -- "$1" "$2" $r
    if [ "$3" != slurm ] || [ "$4" -ne $((N * NPARTS * NARTS)) ] || [ "$5" -ne 0 ] || [ "$6" -ne $NPARTS ] ||
        [ "$7" -ne $NPARTS ] || [ "$8" -ne 0 ]; then
        bk=$(($(wc -l <"$W/problems") + 1))
        cp "$1" "$W/bad-$bk.json"
        problem "$2: launcher $3, $4 cells, $5 failed, $6 jobs, $7 partitions ran on their node, $8 not a CTK-SKIP-001 skip; report kept in $W/bad-$bk.json"
    fi
}
# timed_ctkgen: one validate through Slurm; prints "seconds jobs calls cells slurm-phase"
timed_ctkgen() {
    t0=$(now)
    rc=0
    "$CTKGEN" -q validate -c "$SITE" -o "$OUT" --launcher slurm --partition gpu-a100 --partition gpu-h100 \
        --json --no-cache --stage-dir "$STAGE" >"$W/rep.json" 2>"$W/rep.err" || rc=$?
    t1=$(now)
    if [ $rc -ne 0 ]; then
        problem "ctkgen N=$N: validate exited $rc: $(tail -n 3 "$W/rep.err")"
        echo "$(sub "$t0" "$t1") 0 0 0 0"
        return 0
    fi
    check_report "$W/rep.json" "ctkgen N=$N"
    [ -z "$(ls -A "$STAGE")" ] || problem "ctkgen N=$N: the stage dir is not empty afterwards"
    queue_empty || problem "ctkgen N=$N: jobs left in the queue"
    # the Slurm phase, by ctkgen's clock: from sbatch to the poll that saw
    # the last job end
    echo "$(sub "$t0" "$t1") $(jq -r '"\(.matrix_summary.jobs) \(.matrix_summary.scheduler_calls) \(.matrix | length) " +
        "\([.partitions[] | .queued_s + .ran_s] | max)"' "$W/rep.json" | awk '{ printf "%d %d %d %.3f", $1, $2, $3, $4 }')"
}
# loop ARTS...: one srun per SDK x partition (x each word of ARTS), in
# series; prints "seconds sruns"
loop() {
    t0=$(now)
    k=0
    for n in $NAMES; do
        for p in $PARTS; do
            for a in "$@"; do
                srun -p "$p" --gres=gpu:1 "$PROBE" >"$W/srun.out" 2>"$W/srun.err" ||
                    problem "srun $p ($n $a) failed: $(tail -n 2 "$W/srun.err")"
                line=
                read -r line <"$W/srun.out" || :
                case $line in *'"probe":"cuda"'*) ;; *) problem "srun $p ($n $a): no probe report: $line" ;; esac
                k=$((k + 1))
            done
        done
    done
    t1=$(now)
    echo "$(sub "$t0" "$t1") $k"
}

# ---- measurements ---------------------------------------------------------------------
TICKS0=$(cpu_ticks)
: >"$W/results"
echo "# runs (seconds, in the order taken)" >&2
for N in "$@"; do
    D=$W/n$N
    mkdir -p "$D"
    i=0
    {
        printf '{\n  "module_name": "cudatoolkit",\n  "sdks": [\n'
        while [ $i -lt "$N" ]; do
            i=$((i + 1))
            [ $i -eq 1 ] || printf ',\n'
            printf '    { "version": "13.0", "name": "13.0-b%d", "base": "%s" }' $i "$CUDA"
        done
        printf '\n  ]\n}\n'
    } >"$D/site.json"
    SITE=$D/site.json
    OUT=$D/out
    "$CTKGEN" -q generate -c "$SITE" -o "$OUT"
    NAMES=$(jq -r '.sdks[].name' "$SITE")
    # one of each, not counted: the page cache, and the cluster's first jobs
    timed_ctkgen >/dev/null
    loop one >/dev/null
    [ ! -s "$W/problems" ] || die "N=$N: the uncounted first runs failed (above); nothing measured"
    : >"$D/ctkgen"
    : >"$D/loop"
    : >"$D/loopart"
    rk=0
    while [ $rk -lt "$R" ]; do
        timed_ctkgen >>"$D/ctkgen"
        loop one >>"$D/loop"
        # shellcheck disable=SC2086 # one srun per artifact
        loop $ARTS >>"$D/loopart"
        rk=$((rk + 1))
    done
    echo "  N=$N ctkgen:   $(col "$D/ctkgen" 1 | tr '\n' ' ')" >&2
    echo "  N=$N loop:     $(col "$D/loop" 1 | tr '\n' ' ')" >&2
    echo "  N=$N loop/art: $(col "$D/loopart" 1 | tr '\n' ' ')" >&2
    echo "  N=$N ctkgen's Slurm phase: $(col "$D/ctkgen" 5 | tr '\n' ' ')" >&2
    echo "  N=$N ctkgen's scheduler calls: $(col "$D/ctkgen" 3 | tr '\n' ' ')" >&2
    calls_lo=$(col "$D/ctkgen" 3 | sort -n | head -n 1)
    calls_hi=$(col "$D/ctkgen" 3 | sort -n | tail -n 1)
    echo "$N $(col "$D/ctkgen" 4 | median) $(col "$D/ctkgen" 2 | median) $(col "$D/ctkgen" 3 | median) $calls_lo $calls_hi" \
        "$(col "$D/ctkgen" 1 | median) $(col "$D/ctkgen" 5 | median)" \
        "$(col "$D/loop" 2 | median) $(col "$D/loop" 1 | median) $(col "$D/loopart" 2 | median) $(col "$D/loopart" 1 | median)" \
        "$(awk '{ print $1 - $5 }' "$D/ctkgen" | median)" \
        >>"$W/results"
done
TICKS1=$(cpu_ticks)

# ---- the tables -------------------------------------------------------------------------
echo "# ctkgen validate through Slurm, 2 partitions, medians of $R runs"
echo
echo "| N | cells | jobs: ctkgen / loop / loop per artifact | scheduler calls: ctkgen / loop / loop per artifact | wall, s: ctkgen / loop / loop per artifact | ctkgen / loop | ctkgen / loop per artifact |"
echo "| ---: | ---: | --- | --- | --- | ---: | ---: |"
awk '{
    calls = ($5 == $6) ? sprintf("%d", $4) : sprintf("%d (%d-%d)", $4, $5, $6)
    printf "| %d | %d | %d / %d / %d | %s / %d / %d | %.3f / %.3f / %.3f | %.2f | %.2f |\n",
        $1, $2, $3, $9, $11, calls, $9, $11, $7, $10, $12, $7 / $10, $7 / $12
}' "$W/results"
echo
echo "| N | ctkgen wall, s | the Slurm phase, s | the rest (build and check here), s | loop, s per srun | loop per artifact, s per srun |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
awk '{ printf "| %d | %.2f | %.2f | %.2f | %.3f | %.3f |\n", $1, $7, $8, $13, $10 / $9, $12 / $11 }' "$W/results"
echo
echo "(scheduler calls: ctkgen's matrix_summary.scheduler_calls, i.e. sinfo + one sbatch per partition + the squeue polls;"
echo " the loops': one srun each.  The Slurm phase: from ctkgen's first sbatch to the poll that saw the last job end,"
echo " the largest queued_s + ran_s of the report's partitions.)"
echo "$TICKS0 $TICKS1" | awk '{ t = $4 - $1; printf "CPU during the timed runs: %.0f%% idle, %.1f%% stolen by the hypervisor\n", 100 * ($5 - $2) / t, 100 * ($6 - $3) / t }'
if [ -s "$W/problems" ]; then
    echo "PROBLEMS: $(wc -l <"$W/problems") (listed above; $W kept)"
    exit 1
fi
