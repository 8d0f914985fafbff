#!/bin/sh
# slurm.sh - validate --launcher slurm on the real test cluster
# (tests/slurm-cluster.sh: partitions gpu-a100, gpu-h100 and cpu).
# SPDX-License-Identifier: MIT
#
# Everything up to the launch goes through real sinfo, sbatch, squeue and
# scancel; the nodes have no GPU, so each launch is a skip that names the
# node it ran on.  Checks: the matrix holds both partitions and the jobs
# really ran there, one job per partition, all-gpu, an unknown partition,
# a partition without GPUs, sbatch refusing a job, a partition filled by
# another job (the pending path and --require-launch), SBATCH_* in the
# caller's environment ignored, an interrupt leaving the queue empty, no
# Slurm (exit 4), and the HTML page.  Needs root (the daemons) and the
# Slurm packages; skips without them.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "the test cluster runs its daemons as root (SlurmUser=root)"
for b in slurmctld slurmd munged sinfo sbatch squeue scancel; do
    command -v $b >/dev/null 2>&1 || skip "$b not installed (build-aux/deps.sh installs slurmctld slurmd slurm-client munge)"
done
need_cuda
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"
make_trusted_tmp || { echo "FAIL: no trusted scratch dir"; exit 1; }

CLUSTER=$top_srcdir/tests/slurm-cluster.sh
C=$T/c
for v in $(env | sed -n 's/^\(S[A-Z]*_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in SLURM_* | SBATCH_* | SALLOC_* | SRUN_* | SQUEUE_* | SINFO_*) unset "$v" ;; esac
done
trap 'sh "$CLUSTER" stop "$C" >/dev/null 2>&1; chmod -R u+rwx "$T" "$TT" 2>/dev/null; rm -rf "$T" "$TT"' EXIT
if ! sh "$CLUSTER" start "$C" > "$T/start.out" 2> "$T/start.err"; then
    echo "FAIL: the test cluster did not start"
    sed 's/^/# /' "$T/start.err"
    exit 1
fi
. "$C/env.sh"

# as root, validate loads the modulefiles as user nobody, who must reach them
chmod 755 "$T"
OUT=$T/out
STAGE=$TT/stage
VT=$T/vtmp
mkdir -p "$VT"
export MODULES_CMD="${EM_CMD}"
"$CTKGEN" -q scan "$CTK_TEST_CUDA" > "$T/site.json" 2> "$T/scan.err" ||
    { echo "FAIL: scan $CTK_TEST_CUDA"; sed 's/^/# /' "$T/scan.err"; exit 1; }
"$CTKGEN" -q generate -c "$T/site.json" -o "$OUT" > "$T/gen.err" 2>&1 ||
    { echo "FAIL: generate"; sed 's/^/# /' "$T/gen.err"; exit 1; }
n_sdks=$(jq '.sdks | length' "$T/site.json")

# V ARGS...: validate with Slurm, JSON in $T/v.json, stderr in $T/v.err, status in $rc
V() {
    rc=0
    TMPDIR=$VT "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --no-cache --json --stage-dir "$STAGE" \
        --launcher slurm "$@" > "$T/v.json" 2> "$T/v.err" || rc=$?
}
queue_empty() { [ -z "$(squeue -h -o %i)" ]; }
staged_gone() { [ ! -d "$STAGE" ] || [ -z "$(ls -A "$STAGE")" ]; }
jqr() { jq -r "$@" "$T/v.json"; }

# ---- both GPU partitions -----------------------------------------------------------------
V --partition gpu-a100 --partition gpu-h100 --html "$T/page.html"
check "two partitions: exit 0 (launch skips are not failures)" [ "$rc" -eq 0 ]
check "the report's launcher is slurm" [ "$(jqr .launcher)" = slurm ]
check "the partitions are gpu-a100 and gpu-h100, in that order" \
    [ "$(jqr '[.partitions[].name] | join(" ")')" = "gpu-a100 gpu-h100" ]
check "each ran on its own node" \
    [ "$(jqr '[.partitions[] | .state + ":" + .node] | join(" ")')" = "ran:gpu-a100-1 ran:gpu-h100-1" ]
check "each had a job of its own, one per partition" \
    [ "$(jqr '[.partitions[].job_id] | unique | length')" -eq 2 ] && [ "$(jqr .matrix_summary.jobs)" -eq 2 ]
check "Slurm set CUDA_VISIBLE_DEVICES in each job" \
    [ "$(jqr '[.partitions[].cuda_visible_devices] | join(" ")')" = "0 0" ]
check "the matrix holds every module x partition x artifact" \
    [ "$(jqr '.matrix | length')" -eq $((n_sdks * 2 * 3)) ]
check "the CUDA probes launched there: lmod and pc skip for want of a driver, naming the node" \
    [ "$(jqr '[.matrix[] | select(.artifact != "tcl") | select(.skip.code == "CTK-SKIP-001") |
               select(.partition as $p | .skip.reason | contains("on node " + $p + "-1"))] | length')" \
      -eq $((n_sdks * 2 * 2)) ]
check "each CUDA probe ran with the GPU Slurm gave its job (CUDA_VISIBLE_DEVICES=0 in its own report)" \
    [ "$(jqr '[.matrix[] | select(.artifact != "tcl") | .cuda_probe.visible] | unique | join(" ")')" = 0 ]
check "the probes' reports came back from the nodes" \
    [ "$(jqr '[.matrix[] | select(.artifact == "lmod") | .cuda_probe.status] | unique | join(" ")')" = cudaErrorInsufficientDriver ]
check "no cell failed" [ "$(jqr .matrix_summary.fail)" -eq 0 ]
calls=$(jqr .matrix_summary.scheduler_calls)
check "scheduler calls: sinfo, 2 sbatch, squeue polls ($calls in all)" [ "$calls" -ge 4 ] && [ "$calls" -le 12 ]
check "progress named each submitted job" \
    [ "$(grep -c 'slurm: partition gpu-[ah]100: submitted job [0-9]*' "$T/v.err")" -eq 2 ]
check "nothing left in the queue" queue_empty
check "the stage dir holds nothing afterwards" staged_gone
check "validate's TMPDIR is empty afterwards" empty_dir "$VT"
check "the HTML page names both partitions and the module" \
    sh -c "grep -q gpu-a100 '$T/page.html' && grep -q gpu-h100 '$T/page.html' && grep -q '$(jq -r '.sdks[0].module' "$T/v.json")' '$T/page.html'"

# ---- the partition cache: no job where nothing changed, until it ages -------------------------
CACHE=$T/cache
VC() {
    rc=0
    TMPDIR=$VT "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --cache-dir "$CACHE" --json --stage-dir "$STAGE" \
        --launcher slurm --partition gpu-a100 --partition gpu-h100 "$@" > "$T/v.json" 2> "$T/v.err" || rc=$?
}
VC
first=$(jqr '[.matrix[] | .partition + .artifact + .verdict] | join(" ")')
check "with a cache dir: a first run submits 2 jobs" [ "$rc" -eq 0 ] && [ "$(jqr .matrix_summary.jobs)" -eq 2 ]
VC
check "a second run submits none: both partitions from the cache, sinfo alone" \
    [ "$rc" -eq 0 ] && [ "$(jqr .matrix_summary.jobs)" -eq 0 ] && [ "$(jqr .matrix_summary.scheduler_calls)" -eq 1 ] &&
    [ "$(jqr '[.partitions[].cached] | join(" ")')" = "true true" ]
check "... with the same verdicts, judged again" \
    [ "$(jqr '[.matrix[] | .partition + .artifact + .verdict] | join(" ")')" = "$first" ]
check "... and says so" grep -q 'from the cache' "$T/v.err"
sleep 2
VC --cache-ttl 1
check "an entry older than --cache-ttl is not reused" [ "$rc" -eq 0 ] && [ "$(jqr .matrix_summary.jobs)" -eq 2 ]
printf '\n' >> "$(ls "$OUT"/pkgconfig/ctk-*.pc | head -n 1)"
VC
check "an artifact changed: its SDK's key changes, both partitions run again" \
    [ "$rc" -eq 0 ] && [ "$(jqr .matrix_summary.jobs)" -eq 2 ]
"$CTKGEN" -q generate -c "$T/site.json" -o "$OUT" --force > /dev/null 2>&1

# ---- build "compute": ctkgen itself validates inside the job ----------------------------------
jq '. + {validation: {launcher: "slurm", build: "compute", partitions: ["gpu-a100", "gpu-h100"]}}' \
    "$T/site.json" > "$T/compute.json"
rc=0
TMPDIR=$VT "$CTKGEN" validate -c "$T/compute.json" -o "$OUT" --no-cache --json --stage-dir "$STAGE" \
    > "$T/v.json" 2> "$T/v.err" || rc=$?
check "build compute: exit 0, a job on each partition" \
    [ "$rc" -eq 0 ] && [ "$(jqr '[.partitions[] | .state + ":" + .node] | join(" ")')" = "ran:gpu-a100-1 ran:gpu-h100-1" ]
check "... the cells are the nodes' own reports: Tcl checked there, the launch skipped for want of a driver" \
    [ "$(jqr '[.matrix[] | .artifact + ":" + .verdict + ":" + (.skip.code // "-")] | unique | join(" ")')" = \
      "lmod:skip:CTK-SKIP-001 pc:skip:CTK-SKIP-001 tcl:skip:CTK-SKIP-001" ]
check "... the probes ran on the node: their reports are in the cells" \
    [ "$(jqr '[.matrix[] | .cuda_probe.status] | unique | join(" ")')" = cudaErrorInsufficientDriver ]
check "... nothing was checked here: the report's own artifacts say so" \
    [ "$(jqr '[.sdks[].artifacts[].verdict] | unique | join(" ")')" = skip ]
check "... and nothing is left in the stage dir" staged_gone

# ---- generate --validate takes the same options ------------------------------------------------
rc=0
TMPDIR=$VT "$CTKGEN" generate -c "$T/site.json" -o "$OUT" --validate --no-cache --launcher slurm \
    --partition gpu-h100 --stage-dir "$STAGE" > "$T/gen.out" 2> "$T/v.err" || rc=$?
check "generate --validate --launcher slurm: exit 0, a job on gpu-h100, the matrix printed" \
    [ "$rc" -eq 0 ] && grep -q 'slurm: partition gpu-h100: submitted job' "$T/v.err" &&
    grep -q 'launched through slurm' "$T/gen.out"
rc=0
"$CTKGEN" generate -c "$T/site.json" -o "$OUT" --launcher slurm > /dev/null 2> "$T/v.err" || rc=$?
check "generate --launcher without --validate: a usage error" [ "$rc" -eq 2 ] && grep -q 'go with --validate' "$T/v.err"

# ---- all-gpu: the GPU partitions, never cpu ---------------------------------------------
V --partition all-gpu
check "all-gpu: gpu-a100 and gpu-h100, not cpu" \
    [ "$rc" -eq 0 ] && [ "$(jqr '[.partitions[].name] | join(" ")')" = "gpu-a100 gpu-h100" ]

# ---- refusals before anything is submitted ------------------------------------------------
V --partition gpu-v100
check "an unknown partition: exit 3" [ "$rc" -eq 3 ]
check "... named in the error, with the partitions Slurm has" \
    grep -q "partition 'gpu-v100' is not known to Slurm (sinfo lists: .*gpu-a100.*gpu-h100" "$T/v.err"
V --partition cpu
check "a partition without gpu GRES: exit 3, explained" \
    [ "$rc" -eq 3 ] && grep -q "partition 'cpu': none of its nodes (cpu-1) advertises gpu GRES" "$T/v.err"
check "... and nothing was submitted" queue_empty
V
check "no partition named anywhere: exit 3, saying how to name one" \
    [ "$rc" -eq 3 ] && grep -q -- '--partition all-gpu' "$T/v.err"

# ---- sbatch refuses the job: its words, an error per cell -----------------------------------
jq '. + {validation: {partitions: [{name: "gpu-a100", gres: "gpu:a100:5"}]}}' "$T/site.json" > "$T/big.json"
rc=0
TMPDIR=$VT "$CTKGEN" validate -c "$T/big.json" -o "$OUT" --no-cache --json --stage-dir "$STAGE" \
    --launcher slurm > "$T/v.json" 2> "$T/v.err" || rc=$?
if [ "$(jq '.validation' "$T/big.json")" != null ] && [ "$rc" -ne 3 ]; then
    check "a job asking 5 GPUs of a 1-GPU node: exit 1" [ "$rc" -eq 1 ]
    check "... the partition was not submitted, with sbatch's words" \
        [ "$(jqr '.partitions[0].state')" = not_submitted ] &&
        jqr '.partitions[0].reason' | grep -q 'Requested node configuration is not available'
    check "... every launched cell fails with CTK-SLURM-001" \
        [ "$(jqr '[.matrix[] | select(.artifact != "tcl") | select(.findings[].code == "CTK-SLURM-001")] | length')" -eq $((n_sdks * 2)) ]
else
    fail "the site config's validation.partitions is read (exit $rc)"
    sed 's/^/# /' "$T/v.err"
fi

# ---- a partition another job fills: the pending path ------------------------------------------
blocker=$(sbatch --parsable -p gpu-h100 --gres=gpu:1 -o /dev/null --wrap 'sleep 600')
t0=$(date +%s)
while [ "$(squeue -h -j "$blocker" -o %T)" != RUNNING ] && [ $(($(date +%s) - t0)) -lt 30 ]; do sleep 0.2; done
V --partition gpu-a100 --partition gpu-h100 --queue-timeout 3
check "a partition busy past --queue-timeout: exit 0 (not run is not a failure)" [ "$rc" -eq 0 ]
check "... gpu-h100 is pending_timeout with Slurm's reason" \
    [ "$(jqr '.partitions[1].state')" = pending_timeout ] && jqr '.partitions[1].reason' | grep -q 'pending (Resources)'
check "... its launched cells are CTK-SKIP-005 skips, never passes" \
    [ "$(jqr '[.matrix[] | select(.partition == "gpu-h100" and .artifact != "tcl") | .skip.code] | unique | join(" ")')" = CTK-SKIP-005 ]
check "... while gpu-a100 ran" [ "$(jqr '.partitions[0].state')" = ran ]
check "... and its job was cancelled: only the blocker is queued" [ "$(squeue -h -o %i)" = "$blocker" ]
V --partition gpu-a100 --partition gpu-h100 --run-timeout 3
check "--run-timeout while gpu-h100 is busy: exit 0, gpu-h100 cancelled by ctkgen, gpu-a100 ran" \
    [ "$rc" -eq 0 ] && [ "$(jqr '[.partitions[].state] | join(" ")')" = "ran cancelled" ] &&
    jqr '.partitions[1].reason' | grep -q 'run-timeout'
check "... its job was cancelled: only the blocker is queued" [ "$(squeue -h -o %i)" = "$blocker" ]
V --partition gpu-h100 --queue-timeout 2 --require-launch
check "the same with --require-launch: exit 1, CTK-GPU-005" \
    [ "$rc" -eq 1 ] && [ "$(jqr '[.matrix[].findings[].code] | index("CTK-GPU-005") != null')" = true ]

# ---- SBATCH_* in the caller's environment changes nothing --------------------------------------
rc=0
SBATCH_HOLD=1 SBATCH_PARTITION=cpu SLURM_JOB_NAME=x TMPDIR=$VT "$CTKGEN" validate -c "$T/site.json" -o "$OUT" \
    --no-cache --json --stage-dir "$STAGE" --launcher slurm --partition gpu-a100 --queue-timeout 20 \
    > "$T/v.json" 2> "$T/v.err" || rc=$?
check "SBATCH_HOLD and SBATCH_PARTITION set: the job still ran on gpu-a100" \
    [ "$rc" -eq 0 ] && [ "$(jqr '.partitions[0].state + ":" + .partitions[0].node')" = ran:gpu-a100-1 ]

# ---- an interrupt: every job it submitted is cancelled ------------------------------------------
# (SIGINT reset to its default: a shell starts background commands with it ignored)
for sig in INT TERM; do
    : > "$T/int.err"
    python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
        env TMPDIR=$VT "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --no-cache --stage-dir "$STAGE" \
        --launcher slurm --partition gpu-h100 > /dev/null 2> "$T/int.err" &
    pid=$!
    t0=$(date +%s)
    until grep -q 'submitted job' "$T/int.err" || [ $(($(date +%s) - t0)) -gt 60 ]; do sleep 0.2; done
    submitted=$(sed -n 's/.*submitted job \([0-9]*\).*/\1/p' "$T/int.err")
    kill -$sig "$pid"
    rc=0
    wait "$pid" || rc=$?
    want=130
    [ $sig = INT ] || want=143
    check "SIG$sig while its job pends: exit $want" [ "$rc" -eq $want ]
    check "... its job $submitted is gone from the queue, the blocker alone is left" \
        [ -n "$submitted" ] && [ "$(squeue -h -o %i)" = "$blocker" ]
    check "... it said so" grep -q 'cancelled every job this run submitted' "$T/int.err"
    check "... and removed its stage dir" staged_gone
    [ "$fails" -eq 0 ] || sed 's/^/# /' "$T/int.err"
done
scancel "$blocker"

# ---- no Slurm: exit 4 ------------------------------------------------------------------------------
rc=0
PATH=/nonexistent "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --launcher slurm --partition gpu-a100 \
    > /dev/null 2> "$T/v.err" || rc=$?
check "no Slurm commands on PATH: exit 4, saying which" [ "$rc" -eq 4 ] && grep -q 'no sinfo on PATH' "$T/v.err"
sed "s/^SlurmctldPort=.*/SlurmctldPort=1/" "$SLURM_CONF" > "$T/dead.conf"
rc=0
SLURM_CONF=$T/dead.conf "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --launcher slurm --partition gpu-a100 \
    > /dev/null 2> "$T/v.err" || rc=$?
check "a controller that does not answer: exit 4, with sinfo's words" \
    [ "$rc" -eq 4 ] && grep -q 'did not answer sinfo' "$T/v.err"
[ "$fails" -eq 0 ] || sed 's/^/# last stderr: /' "$T/v.err"

finish
