#!/bin/sh
# probe_safety.sh - a probe that hangs or crashes is a finding, and an
# interrupted validate or lint leaves no process and no temp dir behind.
# SPDX-License-Identifier: MIT
#
# The toolkit here is a hard-link copy of the real one (tests/fixture-lib.sh's
# copy and put: no byte of the real toolkit is rewritten) whose bin/nvcc is
# replaced by a script that either hangs, with a grandchild of its own, or
# kills itself with SIGSEGV, or leaves grandchildren that moved to a process
# group (setpgid) or a session (setsid) of their own.  Every command line of those processes holds
# the copy's private path, so pgrep finds them and nothing else.  Each run
# gets an empty TMPDIR of its own, which must be empty again afterwards.
# The copy lives in the build tree (make_trusted_tmp): lint runs no nvcc
# another user could change, and nothing under a world-writable /tmp
# passes that rule, so the interrupted lint would have nothing to stop.
#
# Interrupts: a background job of a script starts with SIGINT ignored, and
# ctkgen leaves an ignored signal ignored (nohup keeps working), so the
# interrupted runs are started with the default action restored.
. "$(dirname "$0")/lib.sh"
. "$top_srcdir/tests/fixture-lib.sh"
need_cuda
command -v pgrep >/dev/null 2>&1 || skip "pgrep not installed: leftover processes could not be seen"
[ -r /proc/self/stat ] || skip "no /proc: leftover processes could not be seen"

EM=${CTK_TEST_MODULECMD:-$EM_CMD}
if [ -f "$EM" ]; then
    export MODULES_CMD="$EM"        # Tcl modulefiles are loaded too: more children
else
    unset MODULES_CMD
fi
unset LMOD_CMD

umask 022
make_trusted_tmp || { echo "FAIL: no directory ctkgen trusts for the toolkit copy"; exit 1; }
TK=$TT/tk
chmod 755 "$T"                      # as root, Tcl modulefiles load as nobody, who must reach them
VT=$T/vtmp
PAT="$TT/[t]k/"                     # [t]: the pattern never matches its own pgrep
mkdir -p "$VT"

# Whatever happens, no sleeper of ours survives the test.
leftovers() { pgrep -f "$PAT" 2>/dev/null || :; }
reap_leftovers() { for p in $(leftovers); do kill -KILL "$p" 2>/dev/null || :; done; }
# the copy's directories are its own (only files are hard links): they may
# be made writable for the removal without touching the real toolkit
trap 'reap_leftovers; [ -d "$TK" ] && find "$TK" -type d ! -perm -u+rwx -exec chmod u+rwx {} + 2>/dev/null; rm -rf "$T" "$TT"' EXIT

# no_process_left: nothing of the fake nvcc is running (waits up to 2 s
# for processes already sent SIGKILL to go)
no_process_left() {
    n=0
    until none_running "$PAT"; do
        n=$((n + 1))
        [ $n -lt 20 ] || { echo "# left behind:"; ps -o pid,pgid,args -p "$(leftovers | tr '\n' ',' | sed 's/,$//')"; return 1; }
        sleep 0.1
    done
}
vt_empty() { empty_dir "$VT"; }
# running PID: alive and not a zombie waiting for our wait
running() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
now() { date +%s.%N; }
elapsed_below() { awk -v a="$1" -v b="$(now)" -v lim="$2" 'BEGIN { exit !(b - a < lim) }'; }

# start_bg OUT ERR COMMAND...: COMMAND in the background with TMPDIR=$VT and
# SIGINT, SIGTERM and SIGHUP at their default actions; the subshell execs
# it, so $! is the command's own pid
start_bg() {
    (
        TMPDIR=$VT
        export TMPDIR
        o=$1 e=$2
        shift 2
        exec > "$o" 2> "$e"
        if env --default-signal=INT true 2>/dev/null; then
            exec env --default-signal=INT,TERM,HUP "$@"
        fi
        exec perl -e '$SIG{$_} = "DEFAULT" for qw(INT TERM HUP); exec { $ARGV[0] } @ARGV or die "exec: $!\n"' "$@"
    ) &
}

# ---- the toolkit copy and its fake compilers -----------------------------------
copy "$CTK_TEST_CUDA" "$TK"
[ -x "$TK/bin/nvcc" ] || { echo "cannot copy $CTK_TEST_CUDA"; exit 1; }
cp "$(command -v sleep)" "$TK/bin/nvcc-sleep"   # its path is the marker in ps
hanging_nvcc() {
    put "$TK/bin/nvcc" <<'EOF'
#!/bin/sh
# stands in for nvcc: never finishes, and neither does its own child
"$(dirname "$0")/nvcc-sleep" 1000 &
exec "$(dirname "$0")/nvcc-sleep" 1000
EOF
    chmod 755 "$TK/bin/nvcc"
}
crashing_nvcc() {
    put "$TK/bin/nvcc" <<'EOF'
#!/bin/sh
# stands in for nvcc: dies of a segmentation fault at once
kill -SEGV $$
EOF
    chmod 755 "$TK/bin/nvcc"
}

cat > "$T/site.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$TK" } ] }
JSON
OUT=$T/out
check "generate for the toolkit copy" "$CTKGEN" -q generate -c "$T/site.json" -o "$OUT"

# V ARGS...: validate with the private TMPDIR, no cache, JSON on stdout
V() { TMPDIR=$VT "$CTKGEN" -q validate -c "$T/site.json" -o "$OUT" --no-cache --json "$@"; }
messages() { jq -r '.sdks[].artifacts[].findings[] | "\(.code) \(.message)"' "$1"; }
verdicts() { jq -r '[.sdks[0].artifacts[] | "\(.kind)=\(.verdict)"] | sort | join(" ")' "$1"; }
have_jq=yes
command -v jq >/dev/null 2>&1 || have_jq=no

# ---- (i) a compiler that hangs ------------------------------------------------------
hanging_nvcc
t0=$(now)
rc=0; timeout -s KILL 60 sh -c 'TMPDIR=$1 "$2" -q validate -c "$3" -o "$4" --no-cache --json --timeout 1' sh \
    "$VT" "$CTKGEN" "$T/site.json" "$OUT" > "$T/hang.json" 2> "$T/hang.err" || rc=$?
check "hang: validate finishes within 30 s (1 s per step)" elapsed_below "$t0" 30
check "hang: a hang is a finding: exit 1 (got $rc)" [ "$rc" -eq 1 ]
if [ $have_jq = yes ]; then
    check "hang: every artifact that builds fails" \
        sh -c "[ \"\$(jq '[.sdks[0].artifacts[] | select(.verdict == \"fail\")] | length' '$T/hang.json')\" -ge 2 ]"
    check "hang: the findings say the step timed out after 1 s" \
        sh -c "jq -r '.sdks[].artifacts[].findings[].message' '$T/hang.json' | grep -q 'nvcc.*timed out after 1 s'"
else
    check "hang: the findings say the step timed out after 1 s" grep -q 'timed out after 1 s' "$T/hang.json"
fi
check "hang: no process left behind" no_process_left
check "hang: the temp dirs are gone" vt_empty

# ---- (ii) a compiler that crashes ---------------------------------------------------
crashing_nvcc
rc=0; timeout -s KILL 60 sh -c 'TMPDIR=$1 "$2" -q validate -c "$3" -o "$4" --no-cache --json --timeout 20' sh \
    "$VT" "$CTKGEN" "$T/site.json" "$OUT" > "$T/segv.json" 2> "$T/segv.err" || rc=$?
check "segv: a crash is a finding: exit 1 (got $rc)" [ "$rc" -eq 1 ]
check "segv: the finding names the signal" grep -q 'killed by signal 11 (SIGSEGV)' "$T/segv.json"
check "segv: nothing on stderr but findings' progress (no ctkgen error)" \
    sh -c "[ -s '$T/segv.json' ] && ! grep -q 'ctkgen: error' '$T/segv.err'"
check "segv: the temp dirs are gone" vt_empty

# ---- (iii) descendants that leave the process group ---------------------------------
# A grandchild that moves to a group of its own (setpgid, through perl's
# setpgrp) or a session of its own (setsid) is out of reach of the group
# kill; ctkgen is their subreaper and kills them all the same, at the
# deadline and when the compiler exits by itself.
if command -v perl >/dev/null 2>&1 && command -v setsid >/dev/null 2>&1; then
    escaping_nvcc() { # hang|exit
        put "$TK/bin/nvcc" <<EOF
#!/bin/sh
# stands in for nvcc: leaves a grandchild in a group of its own, and
# orphans in a group and a session of their own, then does: $1
d=\$(dirname "\$0")
perl -e 'setpgrp(0, 0) or die "setpgrp: \$!"; exec @ARGV or die' "\$d/nvcc-sleep" 1000 &
( setsid "\$d/nvcc-sleep" 1000 & )
( perl -e 'setpgrp(0, 0) or die "setpgrp: \$!"; exec @ARGV or die' "\$d/nvcc-sleep" 1000 & )
if [ $1 = hang ]; then exec "\$d/nvcc-sleep" 1000; fi
echo "nvcc fatal: stand-in" >&2
exit 1
EOF
        chmod 755 "$TK/bin/nvcc"
    }
    escaping_nvcc hang
    t0=$(now)
    rc=0; timeout -s KILL 60 sh -c 'TMPDIR=$1 "$2" -q validate -c "$3" -o "$4" --no-cache --json --timeout 1' sh \
        "$VT" "$CTKGEN" "$T/site.json" "$OUT" > "$T/esc-hang.json" 2> "$T/esc-hang.err" || rc=$?
    check "setpgid/setsid at the deadline: validate finishes within 30 s" elapsed_below "$t0" 30
    check "setpgid/setsid at the deadline: exit 1 (got $rc)" [ "$rc" -eq 1 ]
    check "setpgid/setsid at the deadline: the finding says timed out" grep -q 'timed out after 1 s' "$T/esc-hang.json"
    check "setpgid/setsid at the deadline: no process left behind" no_process_left
    check "setpgid/setsid at the deadline: the temp dirs are gone" vt_empty

    escaping_nvcc exit
    rc=0; timeout -s KILL 60 sh -c 'TMPDIR=$1 "$2" -q validate -c "$3" -o "$4" --no-cache --json --timeout 20' sh \
        "$VT" "$CTKGEN" "$T/site.json" "$OUT" > "$T/esc-exit.json" 2> "$T/esc-exit.err" || rc=$?
    check "setpgid/setsid, compiler exits: exit 1 (got $rc)" [ "$rc" -eq 1 ]
    check "setpgid/setsid, compiler exits: the finding quotes it" grep -q 'stand-in' "$T/esc-exit.json"
    check "setpgid/setsid, compiler exits: no process left behind" no_process_left
    check "setpgid/setsid, compiler exits: the temp dirs are gone" vt_empty
else
    echo "SKIP: no perl or setsid: the setpgid/setsid cases not run (not counted)"
fi

# ---- (iv) interrupts while a probe hangs ---------------------------------------------
hanging_nvcc
# signal_and_wait NAME SIGNAL PID: send SIGNAL to PID, wait for it to end;
# its exit status in $rc.  A watchdog: a ctkgen deaf to the signal fails
# the test rather than hangs it.
signal_and_wait() {
    kill -s "$2" "$3"
    n=0
    while running "$3" && [ $n -lt 150 ]; do n=$((n + 1)); sleep 0.1; done
    if running "$3"; then
        echo "# $1: still running 15 s after SIG$2"
        kill -KILL "$3"
    fi
    rc=0; wait "$3" || rc=$?
}

# interrupt NAME SIGNAL CMD...: start CMD (start_bg), wait until the fake
# nvcc runs, send SIGNAL, wait for the end; $T/NAME.rc gets the exit
# status, $T/NAME.out and $T/NAME.err the output
interrupt() {
    name=$1 sig=$2; shift 2
    start_bg "$T/$name.out" "$T/$name.err" "$@"
    pid=$!
    n=0
    until [ -n "$(leftovers)" ]; do
        n=$((n + 1))
        if [ $n -ge 200 ] || ! kill -0 $pid 2>/dev/null; then
            echo "# $name: the fake nvcc never started"
            break
        fi
        sleep 0.05
    done
    t0=$(now)
    signal_and_wait "$name" "$sig" $pid
    echo "$rc" > "$T/$name.rc"
    check "$name: ctkgen ends within 5 s of SIG$sig" elapsed_below "$t0" 5
}
expect_interrupted() { # NAME SIGNAL STATUS
    rc=$(cat "$T/$1.rc")
    check "$1: exit status $3 after SIG$2 (got $rc)" [ "$rc" -eq "$3" ]
    check "$1: stderr says what was stopped" grep -q "^ctkgen: interrupted by SIG$2; stopped 1 running probe and removed the temp dirs" "$T/$1.err"
    check "$1: no report on stdout" [ ! -s "$T/$1.out" ]
    check "$1: no process left behind" no_process_left
    check "$1: the temp dirs are gone" vt_empty
}

interrupt int INT "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --no-cache --timeout 60
expect_interrupted int INT 130
interrupt term TERM "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --no-cache --timeout 60
expect_interrupted term TERM 143
interrupt hup HUP "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --no-cache --timeout 60
expect_interrupted hup HUP 129
interrupt lint INT "$CTKGEN" lint --timeout 60 "$OUT/pkgconfig/ctk-13.0.pc"
expect_interrupted lint INT 130
interrupt genval INT "$CTKGEN" -q generate --validate -c "$T/site.json" -o "$T/out-gv" --no-cache
expect_interrupted genval INT 130
check "generate --validate: the tree was written before validation began" [ -f "$T/out-gv/pkgconfig/ctk-13.0.pc" ]

# nohup: a signal ignored at the start stays ignored
if env --ignore-signal=HUP true 2>/dev/null; then
    start_bg /dev/null "$T/nohup.err" env --ignore-signal=HUP "$CTKGEN" -q validate -c "$T/site.json" -o "$OUT" \
        --no-cache --timeout 60
    pid=$!
    n=0
    until [ -n "$(leftovers)" ] || [ $n -ge 200 ]; do n=$((n + 1)); sleep 0.05; done
    kill -HUP $pid
    sleep 0.5
    check "nohup: SIGHUP ignored at the start is still ignored" kill -0 $pid
    signal_and_wait nohup TERM $pid
    check "nohup: SIGTERM still stops it (143, got $rc)" [ "$rc" -eq 143 ]
    check "nohup: no process left behind" no_process_left
    check "nohup: the temp dirs are gone" vt_empty
else
    echo "SKIP: env has no --ignore-signal: the nohup case not run (not counted)"
fi

finish
