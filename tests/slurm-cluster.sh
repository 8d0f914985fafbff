#!/bin/sh
# slurm-cluster.sh - a real single-node Slurm cluster in a directory, for tests.
# SPDX-License-Identifier: MIT
#
# usage: slurm-cluster.sh start DIR
#        slurm-cluster.sh stop DIR
#
# start: DIR is a fresh directory (created if missing, refused if it holds
# a cluster already).  Everything lives under it; nothing under /etc, /run
# or /var is read or written, so it runs as root in a chroot without
# systemd or cgroups, beside any site Slurm or munge:
#
# DIR/
#   munge/munge.key      a private key (1 KiB from /dev/urandom, mode 0400,
#                        owned by the user running this)
#   munge.socket         munged's socket (slurm.conf: AuthInfo=socket=...)
#   slurm.conf           ClusterName=ctkgen-test, SlurmctldHost=<hostname>(127.0.0.1),
#                        SlurmUser=root, auth/munge, proctrack/linuxproc,
#                        task/none, select/cons_tres (CR_Core), GresTypes=gpu,
#                        ReturnToService=2, no accounting, ports free when started
#   gres.conf            one GPU per GPU node, File= a character device
#   dev/nvidia0 nvidia1  character devices 1,3 (/dev/null's numbers): slurmd
#                        refuses a regular file as a GPU
#   state/ spool/<node>/ log/ run/   Slurm's state, spool, logs, pid files
#   pids                 "NAME PID" of every daemon started, one a line
#   env.sh               SLURM_CONF=DIR/slurm.conf, exported; source it
#
# Nodes, each its own slurmd on this host (slurmd -N NODE), CPUs=1:
#   gpu-a100-1  Gres=gpu:a100:1 (DIR/dev/nvidia0)   partition gpu-a100
#   gpu-h100-1  Gres=gpu:h100:1 (DIR/dev/nvidia1)   partition gpu-h100
#   cpu-1       no GRES                             partition cpu (default)
#
# Every daemon runs in the foreground of a background job (munged -F,
# slurmctld -D, slurmd -D) so that its pid is the one recorded.  start
# returns once sinfo shows every node idle (at most SLURM_CLUSTER_WAIT
# seconds, 60 by default; on failure it prints the logs' tails, stops what
# it started and exits 1) and prints SLURM_CONF=DIR/slurm.conf.
#
# stop: cancels the jobs left in the queue, sends TERM to every pid in
# DIR/pids, KILL to any alive 10 s later, and fails unless no process names
# DIR/slurm.conf or DIR/munge.socket any more.  It removes nothing.
#
# Environment (start reads it; stop finds the prefix in DIR/prefix):
#   CTK_SLURM_PREFIX=P     Slurm from the install prefix P, not from PATH:
#                          P/sbin/slurmctld, P/sbin/slurmd (run with
#                          -d P/sbin/slurmstepd), P/bin/sinfo, squeue and
#                          scancel, munged from P/sbin when it is there;
#                          slurm.conf gets PluginDir=P/lib/slurm and
#                          PlugStackConfig=DIR/plugstack.conf (empty), so
#                          nothing of a site Slurm is read, and DIR/cgroup.conf
#                          names cgroup/v1 (loaded, never used: it needs no
#                          systemd on a cgroup v2 host); DIR/env.sh also puts
#                          P/bin and P/sbin first on PATH.
#                          build-aux/device-kit.sh lays out .deps-device/slurm so.
#   CTK_SLURM_GPU_DEVICE=F gpu-h100-1's GPU is the character device F (a real
#                          one: /dev/nvidia0), still gpu:h100:1 whatever the
#                          card.  gpu-a100-1 keeps its stand-in, and its slurmd
#                          runs in a mount namespace of its own where the files
#                          in CTK_SLURM_GPU_HIDE (by default every libcuda.so*
#                          that `ldconfig -p` lists) read as an empty file: its
#                          jobs find no NVIDIA driver, as on a node without a
#                          GPU.  (task/none confines no device, and a probe
#                          run under env -i ignores CUDA_VISIBLE_DEVICES, so
#                          without this its jobs would reach the real GPU.)
#                          DIR/hidden says what was hidden, or why nothing
#                          could be (no unshare, mount refused): start then
#                          goes on and says so on stderr.
set -eu

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$2
case $dir in /*) ;; *) dir=$(pwd)/$dir ;; esac
dir=${dir%/}
conf=$dir/slurm.conf
sock=$dir/munge.socket
export SLURM_CONF="$conf"
wait_s=${SLURM_CLUSTER_WAIT:-60}
nodes="gpu-a100-1 gpu-h100-1 cpu-1"
prefix=${CTK_SLURM_PREFIX:-}
gpu_dev=${CTK_SLURM_GPU_DEVICE:-}
hidden=

say() { echo "slurm-cluster: $*" >&2; }
die() { say "$*"; exit 1; }

# alive PID: the process exists and is not a zombie
alive() {
    [ -r "/proc/$1/stat" ] || return 1
    al_st=$(sed 's/.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 1
    [ "$al_st" != Z ]
}

# port_used N: something on this host has TCP port N open (any state)
port_used() {
    pu_hex=$(printf '%04X' "$1")
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p="$pu_hex" '{ n = split($2, a, ":"); if (a[n] == p) f = 1 } END { exit !f }'
}

# pick_ports: PORT0..PORT3, four free consecutive TCP ports from a base
# that depends on the pid and time, so that two clusters seldom collide
pick_ports() {
    pp_try=0
    while [ $pp_try -lt 50 ]; do
        pp_base=$(( 20000 + ( $$ * 7919 + $(date +%s) * 31 + pp_try * 104729 ) % 40000 ))
        pp_ok=1
        for pp_i in 0 1 2 3; do
            if port_used $((pp_base + pp_i)); then pp_ok=0; break; fi
        done
        if [ $pp_ok -eq 1 ]; then
            PORT0=$pp_base PORT1=$((pp_base + 1)) PORT2=$((pp_base + 2)) PORT3=$((pp_base + 3))
            return 0
        fi
        pp_try=$((pp_try + 1))
    done
    die "no four free TCP ports found"
}

# record NAME PID
record() { echo "$1 $2" >> "$dir/pids"; }

logs_tail() {
    for lt_f in "$dir"/log/*.log; do
        [ -f "$lt_f" ] || continue
        echo "---- $lt_f (last 15 lines)" >&2
        tail -n 15 "$lt_f" >&2
    done
}

stop_cluster() {
    [ -f "$dir/pids" ] || die "$dir/pids: no cluster was started here"
    if [ -f "$dir/prefix" ]; then
        prefix=$(cat "$dir/prefix")
        PATH=$prefix/bin:$prefix/sbin:$PATH
    fi
    # jobs still queued or running would leave slurmstepd behind
    st_ctld=$(awk '$1 == "slurmctld" {print $2}' "$dir/pids")
    if [ -n "$st_ctld" ] && alive "$st_ctld" && command -v squeue >/dev/null 2>&1; then
        st_jobs=$(timeout 10 squeue -h -o %i 2>/dev/null || true)
        if [ -n "$st_jobs" ]; then
            # shellcheck disable=SC2086
            timeout 10 scancel $st_jobs 2>/dev/null || true
            st_i=0
            while [ $st_i -lt 20 ] && [ -n "$(timeout 10 squeue -h -o %i 2>/dev/null || true)" ]; do
                sleep 0.5; st_i=$((st_i + 1))
            done
        fi
    fi
    # slurmd first, then slurmctld, munged last (the lines in reverse)
    st_pids=$(awk '{print $2}' "$dir/pids" | sed -n '1!G;h;$p')
    for st_p in $st_pids; do
        if alive "$st_p"; then kill -TERM "$st_p" 2>/dev/null || true; fi
    done
    st_i=0
    while [ $st_i -lt 100 ]; do
        st_left=
        for st_p in $st_pids; do alive "$st_p" && st_left="$st_left $st_p"; done
        [ -z "$st_left" ] && break
        sleep 0.1; st_i=$((st_i + 1))
    done
    for st_p in $st_pids; do
        if alive "$st_p"; then say "pid $st_p ignored TERM for 10 s: KILL"; kill -KILL "$st_p" 2>/dev/null || true; fi
    done
    st_i=0
    while [ $st_i -lt 50 ]; do
        st_left=
        for st_p in $st_pids; do alive "$st_p" && st_left="$st_left $st_p"; done
        [ -z "$st_left" ] && break
        sleep 0.1; st_i=$((st_i + 1))
    done
    [ -z "$st_left" ] || die "still alive after KILL:$st_left"
    # nothing else names this cluster's conf or socket
    if command -v pgrep >/dev/null 2>&1; then
        st_rc=0
        pgrep -f "$conf|$sock" >/dev/null || st_rc=$?
        [ $st_rc -eq 1 ] || die "processes left: $(pgrep -af "$conf|$sock" | tr '\n' ';')"
    fi
}

# In a mount namespace of its own: bind $0 over each argument up to --,
# then run what follows.
# shellcheck disable=SC2016
bind_script='e=$0; while [ "$1" != -- ]; do mount --bind "$e" "$1" || exit 1; shift; done; shift; exec "$@"'

# hide_driver: hidden= the files that gpu-a100-1's jobs will find empty
# (CTK_SLURM_GPU_DEVICE), once a trial namespace could hide them all; empty
# when none are or can be.  DIR/hidden says which, or why none.
hide_driver() {
    : > "$dir/dev/nodriver"
    chmod 444 "$dir/dev/nodriver"
    if [ "${CTK_SLURM_GPU_HIDE+set}" = set ]; then
        hd_files=$CTK_SLURM_GPU_HIDE
    else
        hd_files=$( (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null) |
            sed -n 's/^[[:space:]]*libcuda\.so[^ ]* (.*) => //p' |
            while read -r hd_f; do readlink -f "$hd_f"; done | sort -u)
    fi
    # shellcheck disable=SC2086
    if [ -z "$hd_files" ]; then
        echo "none: no libcuda.so* in the dynamic loader's cache: no NVIDIA driver to hide" > "$dir/hidden"
    elif ! command -v unshare >/dev/null 2>&1; then
        echo "none: no unshare (util-linux): jobs on gpu-a100-1 reach the real GPU" > "$dir/hidden"
    elif unshare --mount --propagation private sh -c "$bind_script" "$dir/dev/nodriver" $hd_files -- true \
            > "$dir/log/hide.err" 2>&1; then
        hidden=$hd_files
        { echo "hidden from gpu-a100-1's jobs (read as an empty file):"; echo "$hd_files"; } > "$dir/hidden"
    else
        echo "none: a mount namespace could not hide" $hd_files \
            "($(tr '\n' ' ' < "$dir/log/hide.err")): jobs on gpu-a100-1 reach the real GPU" > "$dir/hidden"
    fi
    case $(head -n 1 "$dir/hidden") in none:*) say "$(cat "$dir/hidden")" ;; esac
}

start_cluster() {
    if [ -n "$prefix" ]; then
        case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
        prefix=${prefix%/}
        for st_b in sbin/slurmctld sbin/slurmd sbin/slurmstepd bin/sinfo bin/squeue bin/scancel; do
            [ -x "$prefix/$st_b" ] || die "CTK_SLURM_PREFIX=$prefix: no $st_b"
        done
        PATH=$prefix/bin:$prefix/sbin:$PATH
    fi
    if [ -n "$gpu_dev" ] && [ ! -c "$gpu_dev" ]; then
        die "CTK_SLURM_GPU_DEVICE=$gpu_dev: not a character device"
    fi
    for st_b in munged slurmctld slurmd sinfo; do
        command -v $st_b >/dev/null 2>&1 || die "$st_b not installed"
    done
    mkdir -p "$dir"
    [ ! -e "$dir/pids" ] || die "$dir already holds a cluster (stop it, or use a fresh directory)"
    chmod 711 "$dir"   # munged: its socket's directory must be searchable by all
    mkdir -p "$dir/munge" "$dir/dev" "$dir/state" "$dir/log" "$dir/run"
    for st_n in $nodes; do mkdir -p "$dir/spool/$st_n"; done
    chmod 700 "$dir/munge"
    : > "$dir/pids"
    if [ -n "$prefix" ]; then echo "$prefix" > "$dir/prefix"; fi
    # any failure from here on stops what was started
    trap 'st_rc=$?; trap - EXIT; if [ $st_rc -ne 0 ]; then logs_tail; (stop_cluster) || true; fi; exit $st_rc' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    # munge
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 400 "$dir/munge/munge.key"
    chown "$(id -u):$(id -g)" "$dir/munge/munge.key"
    munged -F --force --socket="$sock" --key-file="$dir/munge/munge.key" \
        --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munge/munged.seed" </dev/null >>"$dir/log/munged.log" 2>&1 &
    record munged $!
    st_i=0
    while [ ! -S "$sock" ]; do
        alive "$(awk '$1 == "munged" {print $2}' "$dir/pids")" || die "munged exited"
        [ $st_i -lt 100 ] || die "munged made no socket in 10 s"
        sleep 0.1; st_i=$((st_i + 1))
    done

    # devices
    mknod "$dir/dev/nvidia0" c 1 3
    if [ -n "$gpu_dev" ]; then
        h100_dev=$gpu_dev
        hide_driver
    else
        h100_dev=$dir/dev/nvidia1
        mknod "$h100_dev" c 1 3
    fi

    pick_ports
    host=$(hostname -s 2>/dev/null || hostname)
    cat > "$conf" <<EOF
# slurm.conf - written by tests/slurm-cluster.sh for a test cluster in $dir
ClusterName=ctkgen-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT0
SlurmdPort=$PORT1
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=2
MinJobAge=2
EOF
    if [ -n "$prefix" ]; then
        : > "$dir/plugstack.conf"
        cat >> "$conf" <<EOF
PluginDir=$prefix/lib/slurm
PlugStackConfig=$dir/plugstack.conf
EOF
        # slurmd and slurmstepd load a cgroup plugin whatever the other
        # plugins are.  On a host with cgroup v2 alone the one they detect,
        # cgroup/v2, sets up a scope through systemd's D-Bus in its init()
        # and slurmd dies where there is none (a container); cgroup/v1's
        # init() touches nothing, and no plugin here asks it for more.
        cat > "$dir/cgroup.conf" <<EOF
# cgroup.conf - written by tests/slurm-cluster.sh
CgroupPlugin=cgroup/v1
EOF
    fi
    cat >> "$conf" <<EOF
NodeName=gpu-a100-1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$PORT1 CPUs=1 RealMemory=256 Gres=gpu:a100:1 State=UNKNOWN
NodeName=gpu-h100-1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$PORT2 CPUs=1 RealMemory=256 Gres=gpu:h100:1 State=UNKNOWN
NodeName=cpu-1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$PORT3 CPUs=1 RealMemory=256 State=UNKNOWN
PartitionName=gpu-a100 Nodes=gpu-a100-1 MaxTime=10 State=UP
PartitionName=gpu-h100 Nodes=gpu-h100-1 MaxTime=10 State=UP
PartitionName=cpu Nodes=cpu-1 Default=YES MaxTime=10 State=UP
EOF
    cat > "$dir/gres.conf" <<EOF
# gres.conf - written by tests/slurm-cluster.sh
AutoDetect=off
NodeName=gpu-a100-1 Name=gpu Type=a100 File=$dir/dev/nvidia0
NodeName=gpu-h100-1 Name=gpu Type=h100 File=$h100_dev
EOF
    cat > "$dir/env.sh" <<EOF
SLURM_CONF='$conf'
export SLURM_CONF
EOF
    if [ -n "$prefix" ]; then
        cat >> "$dir/env.sh" <<EOF
PATH='$prefix/bin:$prefix/sbin':\$PATH
export PATH
EOF
    fi

    slurmctld -D -f "$conf" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
    record slurmctld $!
    for st_n in $nodes; do
        set -- slurmd -D -N "$st_n" -f "$conf"
        if [ -n "$prefix" ]; then set -- "$@" -d "$prefix/sbin/slurmstepd"; fi
        if [ "$st_n" = gpu-a100-1 ] && [ -n "$hidden" ]; then
            # shellcheck disable=SC2086
            set -- unshare --mount --propagation private sh -c "$bind_script" "$dir/dev/nodriver" $hidden -- "$@"
        fi
        "$@" </dev/null >>"$dir/log/slurmd-$st_n.out" 2>&1 &
        record "slurmd-$st_n" $!
    done

    # every node idle, every daemon alive
    st_i=0
    # shellcheck disable=SC2086
    st_want=$(set -- $nodes; echo $#)
    while :; do
        while read -r st_name st_pid; do
            alive "$st_pid" || die "$st_name (pid $st_pid) exited"
        done < "$dir/pids"
        st_idle=$(timeout 10 sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | sort -u | wc -l) || st_idle=0
        [ "$st_idle" -eq "$st_want" ] && break
        [ $st_i -lt $((wait_s * 2)) ] || {
            say "nodes not idle after $wait_s s:"
            timeout 10 sinfo -N >&2 || true
            die "cluster did not come up"
        }
        sleep 0.5; st_i=$((st_i + 1))
    done
    trap - EXIT INT TERM
    echo "SLURM_CONF=$conf"
}

case $cmd in
    start) start_cluster ;;
    stop) stop_cluster ;;
    *) usage ;;
esac
