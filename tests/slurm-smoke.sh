#!/bin/sh
# slurm-smoke.sh - the test Slurm cluster (tests/slurm-cluster.sh) comes up,
# runs jobs on its GPU partitions, cancels, refuses, and stops clean.
# SPDX-License-Identifier: MIT
#
# Needs root and Debian's slurmctld, slurmd, slurm-client and munge; skips
# (77) without them.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "the test cluster runs its daemons as root (SlurmUser=root)"
for b in slurmctld slurmd munged sinfo srun sbatch squeue scancel; do
    command -v $b >/dev/null 2>&1 || skip "$b not installed (apt-get install slurmctld slurmd slurm-client munge)"
done

CLUSTER=$top_srcdir/tests/slurm-cluster.sh
C=$T/c
# nothing of a surrounding Slurm job or site configuration reaches the clients
for v in $(env | sed -n 's/^\(SLURM_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
trap 'sh "$CLUSTER" stop "$C" >/dev/null 2>&1; rm -rf "$T"' EXIT
cd "$T" || exit 1

t0=$(date +%s)
if sh "$CLUSTER" start "$C" > "$T/start.out" 2> "$T/start.err"; then
    pass "slurm-cluster.sh start: every node idle after $(( $(date +%s) - t0 )) s"
else
    fail "slurm-cluster.sh start"
    sed 's/^/# /' "$T/start.err"
    finish
    exit 1
fi
check "start prints the SLURM_CONF line" grep -qx "SLURM_CONF=$C/slurm.conf" "$T/start.out"
check "env.sh sets SLURM_CONF" sh -c ". '$C/env.sh' && [ \"\$SLURM_CONF\" = '$C/slurm.conf' ]"
. "$C/env.sh"

# q CMD...: a client command, bounded, stdout in $T/out and stderr in $T/err
q() { timeout 60 "$@" > "$T/out" 2> "$T/err"; }

# partitions and their GRES
q sinfo -h -o '%P %G'
cp "$T/out" "$T/sinfo"
check "sinfo lists gpu-a100 with gpu:a100:1" grep -qx 'gpu-a100 gpu:a100:1' "$T/sinfo"
check "sinfo lists gpu-h100 with gpu:h100:1" grep -qx 'gpu-h100 gpu:h100:1' "$T/sinfo"
check "sinfo lists cpu, the default, with no GRES" grep -qx 'cpu\* (null)' "$T/sinfo"
[ "$fails" -eq 0 ] || sed 's/^/# sinfo: /' "$T/sinfo"

# a job on each GPU partition: srun prints the node's name and the GPU Slurm gave it
for g in a100 h100; do
    if q srun -p gpu-$g --gres=gpu:1 sh -c 'echo "$SLURMD_NODENAME ${CUDA_VISIBLE_DEVICES-unset}"' &&
        grep -Eqx "gpu-$g-1 [0-9]+" "$T/out"; then
        pass "srun -p gpu-$g --gres=gpu:1: runs on gpu-$g-1 with CUDA_VISIBLE_DEVICES=$(cut -d' ' -f2 "$T/out")"
    else
        fail "srun -p gpu-$g --gres=gpu:1"
        sed 's/^/# /' "$T/out" "$T/err"
    fi
done

# sbatch --wait: the job's exit status and output come back
check "sbatch --wait on gpu-a100 returns when the job is done" \
    q sbatch --wait -p gpu-a100 --gres=gpu:1 -o "$T/batch.out" --wrap 'echo "$SLURMD_NODENAME $SLURM_JOB_GPUS"'
check "the batch job ran on gpu-a100-1 with a GPU" grep -Eqx 'gpu-a100-1 [0-9]+' "$T/batch.out"
check "sbatch --wait exits with the job's status (3)" sh -c \
    "timeout 60 sbatch --wait -p gpu-a100 -o /dev/null --wrap 'exit 3' >/dev/null 2>&1; [ \$? -eq 3 ]"

# scancel: a sleeping job, once running, is cancelled and leaves the queue
marker=ctkgen-smoke-$$
job=
q sbatch --parsable -p gpu-h100 --gres=gpu:1 -o /dev/null --wrap "sh -c 'sleep 300; : $marker'" && job=$(cat "$T/out")
case $job in
    [0-9]*) pass "sbatch queues a sleeping job ($job)" ;;
    *) fail "sbatch queues a sleeping job"; sed 's/^/# /' "$T/err"; job=none ;;
esac
running() { i=0; while [ $i -lt 60 ]; do
        [ "$(timeout 10 squeue -h -j "$job" -o %T 2>/dev/null)" = RUNNING ] && pgrep -f "$marker" >/dev/null && return 0
        sleep 0.5; i=$((i + 1)); done; return 1; }
check "the job runs within 30 s" running
check "scancel $job" q scancel "$job"
gone() { i=0; while [ $i -lt 60 ]; do
        [ -z "$(timeout 10 squeue -h -o %i)" ] && none_running "$marker" && return 0
        sleep 0.5; i=$((i + 1)); done; return 1; }
check "the queue is empty and the job's processes gone within 30 s" gone

# a GPU asked of the cpu partition: Slurm refuses, and says why
if q srun -p cpu --gres=gpu:1 true; then
    fail "srun -p cpu --gres=gpu:1 is refused (it ran)"
elif grep -q 'Requested node configuration is not available' "$T/err"; then
    pass "srun -p cpu --gres=gpu:1 is refused: $(head -n 1 "$T/err")"
else
    fail "srun -p cpu --gres=gpu:1 is refused with Slurm's message"
    sed 's/^/# /' "$T/err"
fi
check "srun on cpu without a GPU runs on cpu-1" sh -c "timeout 60 srun -p cpu hostname >/dev/null && timeout 60 srun -p cpu sh -c 'echo \$SLURMD_NODENAME' | grep -qx cpu-1"

# stop: every daemon it started is gone, nothing names the cluster
pids=$(awk '{print $2}' "$C/pids")
check "pids holds munged, slurmctld and three slurmd" sh -c "[ \$(wc -l < '$C/pids') -eq 5 ]"
t0=$(date +%s)
check "slurm-cluster.sh stop" sh "$CLUSTER" stop "$C"
echo "# stop took $(( $(date +%s) - t0 )) s"
dead() { for p in $pids; do
        [ -r "/proc/$p/stat" ] && [ "$(sed 's/.*) \(.\).*/\1/' "/proc/$p/stat")" != Z ] && return 1
    done; return 0; }
check "no daemon it started is alive" dead
check "no process names the cluster's directory" none_running "$C/"
check "stop removed nothing" test -f "$C/slurm.conf" -a -f "$C/log/slurmctld.log"
check "a second stop finds nothing to stop and succeeds" sh "$CLUSTER" stop "$C"

finish
