#!/bin/sh
# device-slurm.sh - on a GPU machine with no Slurm: validate the modules for
# its CUDA toolkit through the test Slurm cluster, one partition backed by
# the machine's real GPU.  Needs root and .deps-device/ (build-aux/device-kit.sh:
# the ctkgen binary, Tcl, Environment Modules, Slurm and munge).
# SPDX-License-Identifier: MIT
#
# usage (in the repository root):  OUT=DIR sh build-aux/device-slurm.sh
#
# 1. tests/slurm-cluster.sh start, from the kit's Slurm (CTK_SLURM_PREFIX),
#    with gpu-h100-1's GPU the real one (CTK_SLURM_GPU_DEVICE=/dev/nvidiaN)
#    and gpu-a100-1's a stand-in whose jobs find no NVIDIA driver
#    (slurm-cluster.sh hides libcuda from them);
# 2. the carried ctkgen scans the toolkit (CUDA_ROOT, else the standard
#    places) and generates the modulefiles and .pc files;
# 3. three validate runs through Slurm, each NAME with NAME.json (--json),
#    NAME.html (--html), NAME.err (progress) and NAME.txt (the table, from a
#    second run with the same cache dir; its progress in NAME.txt.err):
#      gpu-h100          --partition gpu-h100 --require-launch
#                        expected: exit 0, every probe launched on the GPU
#      all-gpu           --partition all-gpu
#                        expected: exit 0, gpu-a100's launches skipped
#                        (CTK-SKIP-001: no driver there)
#      all-gpu-require   --partition all-gpu --require-launch
#                        expected: exit 1, CTK-GPU-005 for gpu-a100's cells
#    (when nothing could be hidden from gpu-a100-1, see cluster/hidden, its
#    probes reach the real GPU too, and the last two expect exit 0, no skip);
# 4. tests/slurm-cluster.sh stop; no process of the cluster may be left.
#
# $OUT (default ./device-out) gets summary.txt (what ran, what was expected,
# what came), commands.txt (every command, with its exit status), log.txt,
# the files above, cluster/ (slurm.conf, gres.conf, hidden, the daemons'
# logs) and, when the cluster did not come up, why.txt: slurm-cluster.sh's
# words and the daemons' logs.  Exit 0 when every run ended as expected.
#
# The modules, the staged probes and the caches go to a work dir that
# ctkgen trusts and user nobody can reach (as root, validate loads the
# modulefiles as nobody): below the checkout when every dir up to / is
# root's, writable by root alone and searchable by all, else below /var/lib,
# /opt or /srv, with a copy of the kit (ctkgen runs no Slurm command or
# tclsh that another user could change).  It is removed at the end, and so
# is the cluster's dir under /tmp.  A run that would start after 420 s is
# not run (the remote runner stops a command at 600 s).
#
# Environment: OUT; CUDA_ROOT (the toolkit to scan); CTK_DEVICE_GPU (the
# GPU behind gpu-h100; default: the first /dev/nvidiaN, /dev/nvidia0 on a
# one-GPU machine; for a trial elsewhere, any character device);
# CTK_SLURM_GPU_HIDE (see tests/slurm-cluster.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kit=$top/.deps-device
out=${OUT:-$top/device-out}
gpu=${CTK_DEVICE_GPU:-}
if [ -z "$gpu" ]; then
    for gpu in /dev/nvidia[0-9]*; do [ -c "$gpu" ] && break; done
    [ -c "$gpu" ] || gpu=/dev/nvidia0
fi
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
log=$out/log.txt
cmds=$out/commands.txt
: > "$log"
: > "$cmds"
C=
W=
started=0
status=0
t_start=$(date +%s)

say() { echo "device-slurm: $*" | tee -a "$log" >&2; }

# give_up TEXT [FILE...]: TEXT and each FILE into why.txt, then exit 1
give_up() {
    gu_text=$1
    shift
    {
        echo "$gu_text"
        for gu_f; do
            [ -f "$gu_f" ] || continue
            echo
            echo "---- $gu_f"
            cat "$gu_f"
        done
    } > "$out/why.txt"
    say "$gu_text (why.txt says more)"
    status=1
    exit 1
}

# q ARG: ARG quoted for a shell when it needs it
q() {
    case $1 in
        '' | *[!A-Za-z0-9_./:=@%+,-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
        *) printf '%s' "$1" ;;
    esac
}

# x OUTFILE ERRFILE CMD...: run CMD with its stdout and stderr there (one
# file when both are the same); the command line and its exit status go to
# commands.txt; xrc= the status
x() {
    x_o=$1 x_e=$2
    shift 2
    {
        printf '$'
        for x_a; do printf ' %s' "$(q "$x_a")"; done
        if [ "$x_o" = "$x_e" ]; then printf ' > %s 2>&1\n' "$(q "${x_o#"$out"/}")"
        else printf ' > %s 2> %s\n' "$(q "${x_o#"$out"/}")" "$(q "${x_e#"$out"/}")"; fi
    } >> "$cmds"
    xrc=0
    if [ "$x_o" = "$x_e" ]; then "$@" > "$x_o" 2>&1 || xrc=$?
    else "$@" > "$x_o" 2> "$x_e" || xrc=$?; fi
    echo "# exit status $xrc" >> "$cmds"
}

# The kit's ctkgen, its liblua through the loader: no LD_LIBRARY_PATH
# reaches what it runs.
ctkgen() { /lib64/ld-linux-x86-64.so.2 --library-path "$kit/lib" "$kit/bin/ctkgen" "$@"; }

# trusted DIR: DIR and each dir above it owned by root and writable by
# no one else (ctkgen runs no probe staged below anything less), and
# searchable by all (validate, as root, loads modulefiles as nobody)
trusted() {
    tr_p=$(readlink -f "$1") || return 1
    while :; do
        tr_st=$(stat -c '%u %a' "$tr_p") || return 1
        [ "${tr_st% *}" = 0 ] || return 1
        [ $((0${tr_st#* } & 022)) -eq 0 ] || return 1
        [ $((0${tr_st#* } & 01)) -eq 1 ] || return 1
        [ "$tr_p" = / ] && return 0
        tr_p=$(dirname "$tr_p")
    done
}

finish() {
    trap - EXIT INT TERM
    if [ "$started" -eq 1 ]; then
        x "$out/cluster-stop.txt" "$out/cluster-stop.txt" sh "$top/tests/slurm-cluster.sh" stop "$C"
        [ "$xrc" -eq 0 ] || { say "slurm-cluster.sh stop: exit $xrc (cluster-stop.txt)"; status=1; }
    fi
    if [ -n "$C" ] && [ -d "$C" ]; then
        mkdir -p "$out/cluster"
        for f in slurm.conf gres.conf hidden pids; do [ -f "$C/$f" ] && cp "$C/$f" "$out/cluster/"; done
        [ -d "$C/log" ] && cp -r "$C/log" "$out/cluster/"
        left=$(pgrep -af "$C/" 2>/dev/null || true)
        if [ -n "$left" ]; then
            say "processes of the cluster left: $left"
            status=1
        else
            echo "no process of the cluster is left" >> "$out/summary.txt"
        fi
        rm -rf "$C"
    fi
    [ -n "$W" ] && rm -rf "$W"
    echo "device-slurm: exit $status after $(( $(date +%s) - t_start )) s" | tee -a "$out/summary.txt" >&2
    exit "$status"
}
trap finish EXIT
trap 'status=130; exit 130' INT
trap 'status=143; exit 143' TERM

# ---- what this needs ------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || give_up "not root: the test cluster runs its daemons as root (SlurmUser=root)"
for f in bin/ctkgen bin/tclsh slurm/sbin/slurmd slurm/env.sh modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl; do
    [ -e "$kit/$f" ] || give_up "no $kit/$f: run build-aux/device-kit.sh on the build machine and carry .deps-device"
done
[ -c "$gpu" ] || give_up "$gpu: not a character device (CTK_DEVICE_GPU names the GPU to back gpu-h100 with)"

# ---- a work dir ctkgen trusts -----------------------------------------------------------
for b in "$top" /var/lib /opt /srv; do
    trusted "$b" || continue
    W=$(mktemp -d "$b/ctkgen-device-slurm.XXXXXX") || continue
    chmod 755 "$W"
    printf '#!/bin/sh\nexit 0\n' > "$W/x" && chmod 755 "$W/x" && "$W/x" 2>/dev/null && rm -f "$W/x" && break
    rm -rf "$W"   # noexec: the jobs could not run the probes staged there
    W=
done
[ -n "$W" ] || give_up "no work dir: none of $top /var/lib /opt /srv is owned by root, searchable by all, writable by root alone and executable"
# ctkgen runs no Slurm command, tclsh or modulecmd.tcl from a tree others
# could change: below an untrusted checkout, use a copy of the kit
case $W in
    "$top"/*) ;;
    *) cp -a "$kit" "$W/kit" || give_up "cannot copy the kit to $W/kit"; kit=$W/kit ;;
esac

eval "$(sh "$kit/slurm/env.sh")"
PATH=$kit/bin:$PATH
MODULES_CMD=$kit/modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl
export PATH MODULES_CMD
for v in $(env | sed -n 's/^\(S[A-Z]*_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case $v in SLURM_* | SBATCH_* | SALLOC_* | SRUN_* | SQUEUE_* | SINFO_* | SCANCEL_*) unset "$v" ;; esac
done

{
    # shellcheck source=/dev/null
    echo "# $(uname -srm); $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME-}")"
    echo "# GPU: $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | head -n 1)"
    echo "# $(cc --version 2>&1 | head -n 1)"
    echo "# Slurm from the kit: $(slurmd -V 2>&1); munge: $(munged -V 2>&1 | head -n 1)"
    echo "# CTK_SLURM_PREFIX=$CTK_SLURM_PREFIX"
    echo "# ctkgen = /lib64/ld-linux-x86-64.so.2 --library-path $kit/lib $kit/bin/ctkgen"
    echo "# MODULES_CMD=$MODULES_CMD"
} > "$out/summary.txt"
cat "$out/summary.txt" >> "$cmds"

C=$(mktemp -d /tmp/ctk-slurm.XXXXXX) || give_up "mktemp -d /tmp/ctk-slurm.XXXXXX failed"
echo "# work dir $W, kit $kit, cluster dir $C" >> "$out/summary.txt"

# ---- the cluster ------------------------------------------------------------------------
x "$out/cluster-start.txt" "$out/cluster-start.txt" env CTK_SLURM_GPU_DEVICE="$gpu" sh "$top/tests/slurm-cluster.sh" start "$C"
if [ "$xrc" -ne 0 ]; then
    # slurm-cluster.sh stopped what it had started; its logs stay in $C
    give_up "the test cluster did not come up (slurm-cluster.sh start: exit $xrc)" \
        "$out/cluster-start.txt" "$C"/log/slurmd-*.log "$C"/log/slurmd-*.out \
        "$C/log/slurmctld.log" "$C/log/slurmctld.out" "$C/log/munged.log" "$C/log/hide.err" "$C/hidden"
fi
started=1
# shellcheck source=/dev/null
. "$C/env.sh"
{
    echo "cluster up after $(( $(date +%s) - t_start )) s"
    sinfo -N -o '%N %P %G %t' 2>&1
    echo "gpu-a100-1: $(head -n 1 "$C/hidden" 2>/dev/null)"
    sed 1d "$C/hidden" 2>/dev/null | sed 's/^/    /'
} >> "$out/summary.txt"
hidden_ok=1
case $(head -n 1 "$C/hidden" 2>/dev/null) in none:*) hidden_ok=0 ;; esac

# ---- the toolkit's modules ---------------------------------------------------------------
# shellcheck disable=SC2086
x "$W/site.json" "$out/scan.err" ctkgen -q scan ${CUDA_ROOT:+"$CUDA_ROOT"}
[ "$xrc" -eq 0 ] || give_up "ctkgen scan ${CUDA_ROOT-}: exit $xrc" "$out/scan.err"
cp "$W/site.json" "$out/site.json"
x "$out/generate.txt" "$out/generate.txt" ctkgen -q generate -c "$W/site.json" -o "$W/modules"
[ "$xrc" -eq 0 ] || give_up "ctkgen generate: exit $xrc" "$out/generate.txt"

# ---- validate through Slurm --------------------------------------------------------------
# vrun NAME WANT_RC WANT_CODE ARGS...: two validate runs (JSON and HTML; the
# table) with ARGS; as expected when the first exits WANT_RC and its JSON
# names WANT_CODE (- for none)
vrun() {
    vr_n=$1 vr_rc=$2 vr_code=$3
    shift 3
    if [ $(( $(date +%s) - t_start )) -gt 420 ]; then
        echo "$vr_n: not run: 420 s have passed (the remote runner stops at 600)" >> "$out/summary.txt"
        status=1
        return
    fi
    x "$out/$vr_n.json" "$out/$vr_n.err" ctkgen validate -c "$W/site.json" -o "$W/modules" \
        --launcher slurm "$@" --queue-timeout 120 --run-timeout 240 --stage-dir "$W/stage" \
        --cache-dir "$W/cache-$vr_n" --json --html "$out/$vr_n.html"
    vr_got=$xrc
    x "$out/$vr_n.txt" "$out/$vr_n.txt.err" ctkgen validate -c "$W/site.json" -o "$W/modules" \
        --launcher slurm "$@" --queue-timeout 120 --run-timeout 240 --stage-dir "$W/stage" \
        --cache-dir "$W/cache-$vr_n"
    vr_want="exit $vr_rc, $vr_code"
    [ "$vr_code" != - ] || vr_want="exit $vr_rc, no launch skip"
    vr_verdict="as expected"
    [ "$vr_got" -eq "$vr_rc" ] || vr_verdict="NOT as expected"
    if [ "$vr_code" != - ]; then
        grep -q "\"$vr_code\"" "$out/$vr_n.json" || vr_verdict="NOT as expected"
    elif grep -q '"CTK-SKIP-00[12]"\|"CTK-GPU-005"' "$out/$vr_n.json"; then
        vr_verdict="NOT as expected"
    fi
    [ "$vr_verdict" = "as expected" ] || status=1
    {
        echo
        echo "$vr_n: exit $vr_got (expected: $vr_want): $vr_verdict"
        echo "    validate --launcher slurm $*"
        sed 's/^/    /' "$out/$vr_n.txt"
    } >> "$out/summary.txt"
}
vrun gpu-h100 0 - --partition gpu-h100 --require-launch
if [ "$hidden_ok" -eq 1 ]; then
    vrun all-gpu 0 CTK-SKIP-001 --partition all-gpu
    vrun all-gpu-require 1 CTK-GPU-005 --partition all-gpu --require-launch
else
    vrun all-gpu 0 - --partition all-gpu
    vrun all-gpu-require 0 - --partition all-gpu --require-launch
fi

# each cell: partition, artifact, verdict, skip or finding codes, the GPU
if command -v python3 >/dev/null 2>&1; then
    for n in gpu-h100 all-gpu all-gpu-require; do
        [ -s "$out/$n.json" ] || continue
        python3 - "$out/$n.json" >> "$out/summary.txt" 2>&1 <<'PY' || :
import json, sys
r = json.load(open(sys.argv[1]))
print("\n%s: partitions" % sys.argv[1].rsplit("/", 1)[-1])
for p in r.get("partitions", []):
    print("    %-10s %-16s node %-12s job %-5s CUDA_VISIBLE_DEVICES=%s" % (
        p.get("name"), p.get("state"), p.get("node"), p.get("job_id"), p.get("cuda_visible_devices")))
for c in r.get("matrix", []):
    probe = c.get("cuda_probe") or {}
    codes = [f.get("code") for f in c.get("findings") or []]
    skip = (c.get("skip") or {}).get("code")
    print("    %-18s %-10s %-5s %-5s launched=%-5s %s %s %s" % (
        c.get("module"), c.get("partition"), c.get("artifact"), c.get("verdict"), c.get("launched"),
        skip or "", " ".join(codes), probe.get("device") or probe.get("status") or ""))
PY
    done
fi
