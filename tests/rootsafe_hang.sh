#!/bin/sh
# rootsafe_hang.sh - lint and validate end on their own, and on a signal.
# SPDX-License-Identifier: MIT
#
# ctkgen runs as root on trees others can write to.  What they plant there
# must not hold it: a FIFO, or a link to one or to /proc/kmsg, in a linted
# tree or named on the command line; a .pc diamond (c_i requiring c_{i+1}
# twice: 2^n visits for libpkgconf, hours at n=30); 200 000 Requires
# entries (minutes in libpkgconf's parser); a cycle; variables that name
# each other hundreds of times.  Each is a finding within seconds.  And
# SIGINT, SIGTERM and SIGHUP stop a lint (or validate) that is busy in
# process (a Lua modulefile comparing long strings in a loop, which costs
# the sandbox's CPU time limit and few budget steps) at once, with 128+N
# and no temp dir left.  The planted files are made by uid 65534
# (setpriv) too, when this runs as root.  Every run is bounded by timeout
# -s KILL, so a hang is a failure (exit 137), never a hung test.
. "$(dirname "$0")/lib.sh"

LT=$T/lt                             # lint's TMPDIR: must be empty after every run
mkdir -p "$LT"
unset MODULES_CMD LMOD_CMD
chmod 755 "$T"                       # uid 65534 reaches what it plants below

now() { date +%s.%N; }
# seconds_below T0 T1 LIMIT: T1 - T0 < LIMIT
seconds_below() { awk -v a="$1" -v b="$2" -v lim="$3" 'BEGIN { exit !(b - a < lim) }'; }
lt_empty() { empty_dir "$LT"; }

# L NAME LIMIT ARGS...: lint ARGS, killed after LIMIT seconds; $rc, $took,
# $T/NAME.out and $T/NAME.err
L() {
    l_name=$1 l_lim=$2; shift 2
    l_t0=$(now)
    rc=0
    TMPDIR=$LT timeout -s KILL "$l_lim" "$CTKGEN" lint "$@" > "$T/$l_name.out" 2> "$T/$l_name.err" || rc=$?
    took=$(awk -v a="$l_t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
}
# names FILE CODE PATH: FILE has a line for PATH with finding CODE
names() { grep -qF "$3: error $2: " "$1"; }

# pc NAME [LINES...]: a minimal .pc text with the given extra lines
pc() {
    printf 'Name: %s\nDescription: d\nVersion: 1\nCflags: -I/inc/%s\n' "$1" "$1"
    shift
    for l; do printf '%s\n' "$l"; done
}
# diamond DIR N: c0 .. cN in DIR, each requiring the next twice
diamond() {
    i=0
    while [ $i -le "$2" ]; do
        if [ $i -lt "$2" ]; then
            pc c$i "Requires: c$((i + 1)), c$((i + 1))" > "$1/c$i.pc"
        else
            pc c$i > "$1/c$i.pc"
        fi
        i=$((i + 1))
    done
}
# many_requires FILE: 200 000 Requires lines (over 64 KiB); amplified
# FILE: a variable of 12 000 entries used by eight Requires (under 64 KiB)
many_requires() {
    { pc many; awk 'BEGIN { for (i = 0; i < 200000; i++) print "Requires: leaf" }'; } > "$1"
}
amplified() {
    { pc amp; awk 'BEGIN { printf "x="; for (i = 0; i < 12000; i++) printf "leaf "; print ""
                           for (i = 0; i < 8; i++) print "Requires: ${x}" }'; } > "$1"
}
# exploding FILE: 16 variables, each naming the next 300 times
exploding() {
    { pc expl; awk 'BEGIN { for (i = 0; i < 15; i++) { printf "prefix%d=", i
                                                       for (k = 0; k < 300; k++) printf "${prefix%d}", i + 1
                                                       print "" }
                            print "prefix15="; print "prefix=${prefix0}" }'; } > "$1"
}
# busy_lua FILE: a modulefile that compares two 4 MB strings for ever
busy_lua() {
    cat > "$1" <<'EOF'
local a = string.rep("x", 4000000)
local b = string.rep("x", 4000000)
local n = 0
while true do
    if a == b then n = n + 1 end
end
EOF
}

# ---- 1. a tree with a FIFO, links to a FIFO and to /proc/kmsg -----------------
D=$T/tree
mkdir -p "$D/cuda" "$T/elsewhere"
printf 'setenv("X", "1")\nfamily("cuda")\n' > "$D/cuda/12.4.lua"
mkfifo "$D/cuda/13.0.lua" "$T/elsewhere/f.pc" "$T/arg.lua"
ln -s "$T/elsewhere/f.pc" "$D/cuda/f.pc"
ln -s 12.4.lua "$D/cuda/default"
KMSG=no
if [ -e /proc/kmsg ] && [ -r /proc/kmsg ]; then        # test -r opens nothing
    ln -s /proc/kmsg "$D/cuda/kmsg.lua"
    KMSG=yes
fi
L tree 10 "$D"
check "tree: lint ends by itself (${took} s, exit $rc), exit 1 for the errors" [ "$rc" -eq 1 ]
check "tree: the FIFO is a finding naming it" names "$T/tree.out" CTK-READ-001 "$D/cuda/13.0.lua"
check "tree: ... a FIFO, not read" grep -qF "$D/cuda/13.0.lua: error CTK-READ-001: a FIFO, not a regular file: not read" "$T/tree.out"
check "tree: the link to a FIFO is a finding naming it and its target" \
    grep -qF "$D/cuda/f.pc: error CTK-READ-001: a symbolic link to a FIFO ($T/elsewhere/f.pc): not followed" "$T/tree.out"
if [ $KMSG = yes ]; then
    check "tree: the link to /proc/kmsg is a finding naming it" \
        grep -qF "$D/cuda/kmsg.lua: error CTK-READ-001: a symbolic link to a file of /proc, /sys or another kernel file system (/proc/kmsg): not followed" "$T/tree.out"
else
    echo "# /proc/kmsg not readable here: the link to it not checked"
fi
check "tree: the regular module is linted" grep -qF "$D/cuda/12.4.lua: lua cuda/12.4" "$T/tree.out"
check "tree: the temp dir is gone" lt_empty

L arg 10 "$T/arg.lua"
check "arg: lint of a FIFO named on the command line ends by itself (${took} s, exit $rc): exit 1" [ "$rc" -eq 1 ]
check "arg: ... a finding naming it" names "$T/arg.out" CTK-READ-001 "$T/arg.lua"
if [ $KMSG = yes ]; then
    L kmsgarg 10 "$D/cuda/kmsg.lua"
    check "kmsg: a link to /proc/kmsg named on the command line: exit 1 (${took} s, exit $rc)" [ "$rc" -eq 1 ]
    check "kmsg: ... a kernel file, not read" \
        grep -qF "$D/cuda/kmsg.lua: error CTK-READ-001: a file of /proc, /sys or another kernel file system: not read" "$T/kmsgarg.out"
fi

# ---- 2. .pc files that cost libpkgconf hours, minutes or memory ---------------
P=$T/pc
mkdir -p "$P"
diamond "$P" 30
L diamond 10 "$P/c0.pc"
check "diamond: lint of a 30-level diamond ends within 10 s (${took} s, exit $rc): exit 1" [ "$rc" -eq 1 ]
check "diamond: CTK-PC-005 says how many visits it would take" \
    grep -qF "$P/c0.pc: error CTK-PC-005: Requires reach 31 packages by so many ways that libpkgconf's walk, which goes down each way again, would make 2147483648 visits" "$T/diamond.out"
pc leaf > "$P/leaf.pc"
many_requires "$P/many.pc"
L many 10 "$P/many.pc"
check "many: 200 000 Requires entries end within 10 s (${took} s, exit $rc): exit 1" [ "$rc" -eq 1 ]
check "many: CTK-PC-005, the file too large to read" grep -qF "$P/many.pc: error CTK-PC-005: $P/many.pc is larger than 65536 bytes" "$T/many.out"
amplified "$P/amp.pc"
L amp 10 "$P/amp.pc"
check "amp: 96 000 Requires entries from one variable end within 10 s (${took} s, exit $rc): exit 1" [ "$rc" -eq 1 ]
check "amp: CTK-PC-005, counted before the parse" grep -qF "come to more than 4096 entries" "$T/amp.out"
mkdir -p "$P/cyc"
pc a "Requires: b" > "$P/cyc/a.pc"
pc b "Requires.private: a" > "$P/cyc/b.pc"
L cycle 10 "$P/cyc/a.pc"
check "cycle: exit 1 (${took} s, exit $rc)" [ "$rc" -eq 1 ]
check "cycle: CTK-PC-006 names the way around" grep -qF "error CTK-PC-006: Requires form a cycle: a -> b -> a" "$T/cycle.out"
mkdir -p "$P/fifo"
mkfifo "$P/fifo/f.pc"
pc g "Requires: f" > "$P/fifo/g.pc"
L reqfifo 10 "$P/fifo/g.pc"
check "reqfifo: a Requires leading to a FIFO ends (${took} s, exit $rc): exit 1" [ "$rc" -eq 1 ]
check "reqfifo: CTK-READ-001 names the FIFO" grep -qF "$P/fifo/g.pc: error CTK-READ-001: $P/fifo/f.pc is a FIFO, not a regular file: not read" "$T/reqfifo.out"
exploding "$P/expl.pc"
L expl 10 "$P/expl.pc"
check "expl: variables naming each other 300 times over 16 levels end (${took} s, exit $rc): exit 0" [ "$rc" -eq 0 ]
check "pc: the temp dir is gone" lt_empty

# ---- 3. the same, planted by uid 65534 ------------------------------------------
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
    setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    N=$T/nobody
    mkdir -m 755 "$N"
    chown 65534:65534 "$N"
    nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    cat > "$T/plant.sh" <<'EOF'
# plant.sh DIR: what uid 65534 puts in a tree root lints
set -e
cd "$1"
pc() {
    printf 'Name: %s\nDescription: d\nVersion: 1\nCflags: -I/inc/%s\n' "$1" "$1"
    shift
    for l; do printf '%s\n' "$l"; done
}
mkdir -p cuda pc
mkfifo cuda/13.0.lua pc/f.pc
ln -s /proc/kmsg cuda/kmsg.lua
ln -s ../pc/f.pc cuda/f.pc
i=0
while [ $i -le 30 ]; do
    if [ $i -lt 30 ]; then pc c$i "Requires: c$((i + 1)), c$((i + 1))"; else pc c$i; fi > pc/c$i.pc
    i=$((i + 1))
done
pc g 'Requires: f' > pc/g.pc
EOF
    chmod 644 "$T/plant.sh"
    planted=yes
    nobody sh "$T/plant.sh" "$N" || planted=no
    check "nobody: the files were planted by uid 65534" \
        test "$planted" = yes -a "$(stat -c %u "$N/pc/c0.pc" 2>/dev/null)" = 65534
    L nobody 20 "$N"
    check "nobody: root's lint of the planted tree ends within 20 s (${took} s, exit $rc): exit 1" [ "$rc" -eq 1 ]
    check "nobody: the FIFO" names "$T/nobody.out" CTK-READ-001 "$N/cuda/13.0.lua"
    check "nobody: the link to a FIFO" names "$T/nobody.out" CTK-READ-001 "$N/cuda/f.pc"
    if [ $KMSG = yes ]; then
        check "nobody: the link to /proc/kmsg" names "$T/nobody.out" CTK-READ-001 "$N/cuda/kmsg.lua"
    fi
    check "nobody: the planted FIFO, met directly in the walk" names "$T/nobody.out" CTK-READ-001 "$N/pc/f.pc"
    check "nobody: the diamond" names "$T/nobody.out" CTK-PC-005 "$N/pc/c0.pc"
    check "nobody: a Requires leading to the FIFO" names "$T/nobody.out" CTK-READ-001 "$N/pc/g.pc"
    check "nobody: the temp dir is gone" lt_empty
else
    echo "# not root, or no setpriv: the files planted by uid 65534 not checked"
fi

# ---- 4. signals to a busy lint -------------------------------------------------------
# A background job of a script starts with SIGINT ignored, and ctkgen
# keeps an ignored signal ignored (nohup), so lint starts with the
# default actions restored.  It is signalled once it has used 0.3 s of
# CPU: then it is evaluating the Lua file (what comes before costs
# milliseconds), which would take 2 s more.
mkdir -p "$T/busy/cuda"
busy_lua "$T/busy/cuda/13.0.lua"
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }
running() { [ -r "/proc/$1/stat" ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
start_default() {
    if env --default-signal=INT true 2>/dev/null; then
        exec env --default-signal=INT,TERM,HUP "$@"
    fi
    exec perl -e '$SIG{$_} = "DEFAULT" for qw(INT TERM HUP); exec { $ARGV[0] } @ARGV or die "exec: $!\n"' "$@"
}
# busy_signal NAME SIGNAL STATUS TMPDIR COMMAND...: start COMMAND with
# TMPDIR, wait for 0.3 s of its CPU, send SIGNAL; it must end within 1 s
# with STATUS
busy_signal() {
    b_name=$1 b_sig=$2 b_status=$3 b_tmp=$4; shift 4
    ( TMPDIR=$b_tmp; export TMPDIR; exec > "$T/$b_name.out" 2> "$T/$b_name.err"; start_default "$@" ) &
    b_pid=$!
    n=0
    while running $b_pid && [ "$(cpu_ticks $b_pid)" -lt 30 ] && [ $n -lt 300 ]; do n=$((n + 1)); sleep 0.02; done
    if ! running $b_pid; then
        fail "$b_name: it ended before it was busy"
        wait $b_pid || :
        return
    fi
    b_t0=$(now)
    kill -s "$b_sig" $b_pid
    n=0
    while running $b_pid && [ $n -lt 150 ]; do n=$((n + 1)); sleep 0.02; done
    b_t1=$(now)
    if running $b_pid; then
        kill -KILL $b_pid
    fi
    rc=0; wait $b_pid || rc=$?
    check "$b_name: SIG$b_sig ends it within 1 s ($(awk -v a="$b_t0" -v b="$b_t1" 'BEGIN { printf "%.2f", b - a }') s)" \
        seconds_below "$b_t0" "$b_t1" 1
    check "$b_name: exit status $b_status (got $rc)" [ "$rc" -eq "$b_status" ]
    check "$b_name: stderr says it was interrupted" grep -q "^ctkgen: interrupted by SIG$b_sig" "$T/$b_name.err"
    check "$b_name: no report on stdout" [ ! -s "$T/$b_name.out" ]
}
if [ -r /proc/self/stat ]; then
    busy_signal lint-int INT 130 "$LT" "$CTKGEN" lint "$T/busy"
    check "lint-int: the temp dir is gone" lt_empty
    busy_signal lint-term TERM 143 "$LT" "$CTKGEN" lint "$T/busy"
    check "lint-term: the temp dir is gone" lt_empty
    busy_signal lint-hup HUP 129 "$LT" "$CTKGEN" lint "$T/busy"
    check "lint-hup: the temp dir is gone" lt_empty
else
    echo "# no /proc: a busy lint cannot be told, signals not checked"
fi

# ---- 5. validate: ctkgen's own tree, edited ------------------------------------------
# (with a toolkit) the generated .pc made to require a 30-level diamond
# is CTK-PC-005 within the run's time; a busy Lua modulefile in the tree
# (its .pc broken, so no probe is built first) stops at SIGTERM.
if [ -n "$CTK_TEST_CUDA" ] && [ -x "$CTK_TEST_CUDA/bin/nvcc" ]; then
    VT=$T/vt
    mkdir -p "$VT"
    printf '{ "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$CTK_TEST_CUDA" > "$T/site.json"
    OUT=$T/out
    check "validate: generate" "$CTKGEN" -q generate -c "$T/site.json" -o "$OUT"
    PCF=$OUT/pkgconfig/ctk-13.0.pc
    if [ -f "$PCF" ]; then
        diamond "$OUT/pkgconfig" 30
        printf 'Requires: c0\n' >> "$PCF"
        rc=0
        t0=$(now)
        TMPDIR=$VT timeout -s KILL 120 "$CTKGEN" -q validate -c "$T/site.json" -o "$OUT" --no-cache --json \
            > "$T/vdiamond.json" 2> "$T/vdiamond.err" || rc=$?
        check "validate: a .pc requiring a 30-level diamond ends (exit 1, got $rc)" [ "$rc" -eq 1 ]
        check "validate: ... with CTK-PC-005" grep -q 'CTK-PC-005' "$T/vdiamond.json"
        check "validate: the temp dirs are gone" empty_dir "$VT"
        # the .pc broken (no Version): the Lua module comes next, busy
        grep -v '^Version:' "$PCF" | grep -v '^Requires: c0' > "$PCF.tmp" && mv "$PCF.tmp" "$PCF"
        busy_lua "$OUT/lmod/cudatoolkit/13.0.lua"
        if [ -r /proc/self/stat ]; then
            busy_signal validate-term TERM 143 "$VT" "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --no-cache
            check "validate-term: the temp dirs are gone" empty_dir "$VT"
        fi
    else
        fail "validate: generate wrote no $PCF"
    fi
else
    echo "# no CUDA toolkit: validate's part not checked"
fi

finish
