#!/bin/sh
# rootsafe_tree.sh - root's runs on a shared output tree (mode 3775: a
# group may write in OUT, the sticky bit keeps each member to their own
# files) cannot be steered or stalled by a user of that group (uid 65534,
# setpriv): a manifest or pending manifest it plants removes no admin's
# file, a temp file it plants is left alone, its lock file is refused, and
# it cannot open root's lock; an unchanged re-run writes nothing, the lock
# included; --wait-timeout bounds the wait for a lock; validate waits for a
# writer and refuses a symlink or a FIFO planted at an artifact's place.
# SPDX-License-Identifier: MIT
. "$top_srcdir/tests/lib.sh"
need_cuda
[ "$(id -u)" -eq 0 ] || skip "needs root: ctkgen runs as root and is attacked as uid 65534"
for tool in setpriv flock timeout python3 mkfifo; do
    command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed"
done
F=$(sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$T/fx") || skip "fixtures could not be built"
root="$F/standalone/cuda-13.0"
printf '{ "module_name": "cudatoolkit", "help": "one", "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' \
    "$root" > "$T/one.json"
printf '{ "module_name": "cudatoolkit", "help": "two", "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' \
    "$root" > "$T/two.json"

# the group that may write in OUT, and a member of it who is not root
GID=$(getent group users 2>/dev/null | cut -d: -f3)
GID=${GID:-100}
AS_USER="setpriv --reuid=65534 --regid=$GID --clear-groups --inh-caps=-all"
chmod 711 "$T"  # the user reaches OUT, nothing else of the test's
$AS_USER true || skip "setpriv cannot switch to uid 65534 here"

# shared_out DIR: an output directory as a site would share it
shared_out() {
    mkdir "$1" && chown "0:$GID" "$1" && chmod 3775 "$1"
}
# fnv FILE: the hash the manifest keeps for FILE's bytes (FNV-1a, 64 bits)
fnv() {
    python3 -c 'import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)' "$1"
}
# plant FILE FORMAT [ARG...]: FILE written by the other user, printf's output
plant() { pl_f=$1; shift; printf "$@" | $AS_USER sh -c "cat > '$pl_f'"; }
owner() { stat -c %u "$1"; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# ---- a planted pending manifest ------------------------------------------------------
OUT="$T/out"
shared_out "$OUT"
"$CTKGEN" -q generate -c "$T/one.json" -o "$OUT" || { fail "first generate"; finish; exit 1; }
mkdir -p "$OUT/lmod/gcc"
printf 'prepend_path("PATH", "/opt/gcc-12/bin")\n' > "$OUT/lmod/gcc/12.lua"
cp "$OUT/lmod/gcc/12.lua" "$T/gcc.lua"
plant "$OUT/.ctkgen-manifest.pending" '# ctkgen manifest v1\n%s lmod/gcc/12.lua\n' "$(fnv "$OUT/lmod/gcc/12.lua")"
check "uid 65534 can plant a pending manifest in OUT (the attack is possible)" \
    [ "$(owner "$OUT/.ctkgen-manifest.pending")" = 65534 ]
rc=0
timeout 60 "$CTKGEN" generate -c "$T/one.json" -o "$OUT" > /dev/null 2> "$T/p1.err" || rc=$?
check "planted pending manifest: root's generate succeeds (exit $rc)" [ "$rc" -eq 0 ]
check "... and does not delete the admin's lmod/gcc/12.lua it names" same_bytes "$T/gcc.lua" "$OUT/lmod/gcc/12.lua"
check "... and warns, naming it and its owner" \
    grep -q "warning: .*/\.ctkgen-manifest\.pending: ignored: owned by \(nobody\|uid 65534\)" "$T/p1.err"
# a run that changes the tree replaces the planted file with its own, then drops it
rc=0
timeout 60 "$CTKGEN" generate -c "$T/two.json" -o "$OUT" > /dev/null 2> "$T/p2.err" || rc=$?
check "planted pending manifest, a run that changes files: exit 0, admin's file kept" \
    sh -c "[ $rc -eq 0 ] && cmp -s '$T/gcc.lua' '$OUT/lmod/gcc/12.lua' && grep -q two '$OUT/lmod/cudatoolkit/13.0.lua'"
check "... and no pending manifest is left" [ ! -e "$OUT/.ctkgen-manifest.pending" ]

# ---- a planted manifest and temp file, before root's first run -------------------------
OUT2="$T/out2"
shared_out "$OUT2"
mkdir -p "$OUT2/lmod/gcc"
cp "$T/gcc.lua" "$OUT2/lmod/gcc/12.lua"
plant "$OUT2/.ctkgen-manifest" '# ctkgen manifest v1\n%s lmod/gcc/12.lua\n' "$(fnv "$T/gcc.lua")"
plant "$OUT2/.notes.ctkgen-tmp-Ab3dEf" 'mine'
rc=0
timeout 60 "$CTKGEN" generate -c "$T/one.json" -o "$OUT2" > /dev/null 2> "$T/m1.err" || rc=$?
check "planted manifest: root's generate succeeds (exit $rc)" [ "$rc" -eq 0 ]
check "... and does not delete the admin's file it names" same_bytes "$T/gcc.lua" "$OUT2/lmod/gcc/12.lua"
check "... and warns, naming it" grep -q "warning: .*/\.ctkgen-manifest: ignored: owned by" "$T/m1.err"
check "... root's own manifest took its place (owner root, mode 0644, the admin's file not in it)" \
    sh -c "[ \"\$(stat -c '%u %a' '$OUT2/.ctkgen-manifest')\" = '0 644' ] && ! grep -q gcc '$OUT2/.ctkgen-manifest'"
check "a planted temp file is left alone, with a warning" \
    sh -c "[ \"\$(cat '$OUT2/.notes.ctkgen-tmp-Ab3dEf')\" = mine ] && grep -q 'notes.ctkgen-tmp-Ab3dEf: left alone: owned by' '$T/m1.err'"
printf '# ctkgen manifest v1\n' > "$T/empty-manifest"
chmod 644 "$T/empty-manifest"
rc=0
$AS_USER sh -c "cat '$T/empty-manifest' > '$OUT2/.x' && mv -f '$OUT2/.x' '$OUT2/.ctkgen-manifest'" 2>/dev/null || rc=$?
check "root's manifest cannot be replaced by uid 65534 (sticky OUT)" \
    sh -c "[ $rc -ne 0 ] && [ \"\$(stat -c %u '$OUT2/.ctkgen-manifest')\" = 0 ]"
rm -f "$OUT2/.x"

# ---- the lock -------------------------------------------------------------------------
check "the lock file is root's, mode 0600" [ "$(stat -c '%u %a' "$OUT/.ctkgen.lock")" = "0 600" ]
rc=0
timeout 10 $AS_USER flock -n -s "$OUT/.ctkgen.lock" true 2> "$T/l1.err" || rc=$?
check "uid 65534 cannot open root's lock file to hold it (flock: exit $rc)" \
    sh -c "[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'Permission denied' '$T/l1.err'"
# a holder that tries anyway: root's run must finish
$AS_USER flock -o -s "$OUT/.ctkgen.lock" sleep 40 2>/dev/null &
holder=$!
sleep 0.5
start=$(date +%s%N)
rc=0
timeout 30 "$CTKGEN" -q generate -c "$T/one.json" -o "$OUT" 2>/dev/null || rc=$?
check "with uid 65534 trying to hold the lock, root's generate finishes in time (exit $rc, $(ms_since "$start") ms)" \
    [ "$rc" -eq 0 ]
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# a lock file planted before root's first run, held by its owner: refused at once
OUT3="$T/out3"
shared_out "$OUT3"
plant "$OUT3/.ctkgen.lock" ''
$AS_USER chmod 644 "$OUT3/.ctkgen.lock"
$AS_USER flock -o "$OUT3/.ctkgen.lock" sleep 40 &
holder=$!
sleep 0.5
rc=0
timeout 30 "$CTKGEN" -q generate -c "$T/one.json" -o "$OUT3" 2> "$T/l3.err" || rc=$?
check "a lock file uid 65534 planted and holds: root's generate refuses it at once (exit 3, got $rc)" [ "$rc" -eq 3 ]
check "... naming the file and its owner" grep -q "\.ctkgen\.lock: .*owned by \(nobody\|uid 65534\), not by root" "$T/l3.err"
check "... and writes nothing" sh -c "[ -z \"\$(ls -A '$OUT3' | grep -v '^\.ctkgen\.lock\$')\" ]"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# ---- an unchanged re-run writes nothing, the lock file included ---------------------
rm -f "$OUT/.ctkgen-manifest.pending"
"$CTKGEN" -q generate -c "$T/one.json" -o "$OUT" 2>/dev/null
touch -d '2001-01-01 00:00:00' "$OUT/.ctkgen.lock"
lock_before=$(stat -c '%Y %s' "$OUT/.ctkgen.lock")
cksum < "$OUT/.ctkgen.lock" > "$T/lock.sum"
touch "$T/marker"
sleep 1.1
rc=0
"$CTKGEN" -q generate -c "$T/one.json" -o "$OUT" || rc=$?
check "unchanged re-run: exit 0" [ "$rc" -eq 0 ]
check "unchanged re-run: the lock file's mtime and size are as they were ($lock_before)" \
    [ "$(stat -c '%Y %s' "$OUT/.ctkgen.lock")" = "$lock_before" ]
check "unchanged re-run: the lock file's bytes are as they were" sh -c "cksum < '$OUT/.ctkgen.lock' | cmp -s - '$T/lock.sum'"
check "unchanged re-run: no file in OUT was written" finds_none "$OUT" -newer "$T/marker"

# ---- --wait-timeout -------------------------------------------------------------------
flock -o "$OUT/.ctkgen.lock" sleep 15 &
holder=$!
sleep 0.5
start=$(date +%s%N)
rc=0
timeout 30 "$CTKGEN" generate --wait-timeout 2 -c "$T/two.json" -o "$OUT" > /dev/null 2> "$T/w1.err" || rc=$?
took=$(ms_since "$start")
check "--wait-timeout 2 against a lock root holds: exit 4 (got $rc)" [ "$rc" -eq 4 ]
check "... after about 2 s ($took ms)" sh -c "[ $took -ge 1900 ] && [ $took -lt 5000 ]"
check "... saying it gave up, and naming the holder" \
    grep -q "another process holds .*\.ctkgen\.lock: pid $holder (flock); gave up after waiting 2 s" "$T/w1.err"
check "... the tree is untouched" lacks -q two "$OUT/lmod/cudatoolkit/13.0.lua"

# validate while a writer holds the lock: with --wait-timeout it gives up...
MC=
[ -f "$EM_CMD" ] && MC="--modulecmd $EM_CMD"
start=$(date +%s%N)
rc=0
timeout 30 "$CTKGEN" validate --wait-timeout 1 --cache-dir "$T/cache" $MC -c "$T/one.json" -o "$OUT" \
    > /dev/null 2> "$T/v1.err" || rc=$?
took=$(ms_since "$start")
check "validate --wait-timeout 1 while a writer holds the lock: exit 4 after about 1 s (got $rc, $took ms)" \
    sh -c "[ $rc -eq 4 ] && [ $took -ge 900 ] && [ $took -lt 4000 ]"
check "... saying whom it waited for" grep -q "another process holds .*: pid $holder (flock); gave up" "$T/v1.err"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# ... and without it waits for the writer, then validates
flock -o "$OUT/.ctkgen.lock" sleep 3 &
holder=$!
sleep 0.5
start=$(date +%s%N)
rc=0
timeout 120 "$CTKGEN" validate --cache-dir "$T/cache" $MC -c "$T/one.json" -o "$OUT" > "$T/v2.out" 2> "$T/v2.err" || rc=$?
took=$(ms_since "$start")
check "validate while a writer holds the lock: waits for it ($took ms), then validates (exit $rc)" \
    sh -c "[ $rc -eq 0 ] && [ $took -ge 2000 ] && grep -q 'waiting for it to finish' '$T/v2.err' && grep -q 'cudatoolkit/13.0' '$T/v2.out'"
wait "$holder" 2>/dev/null

# ---- validate refuses what was planted at an artifact's place ------------------------
V="$T/v"
cp -a "$OUT" "$V"
mkfifo "$T/fifo"
rm "$V/pkgconfig/ctk-13.0.pc" "$V/tcl/cudatoolkit/13.0" "$V/lmod/cudatoolkit/.modulerc.lua"
ln -s /etc/shadow "$V/pkgconfig/ctk-13.0.pc"
ln -s "$T/fifo" "$V/tcl/cudatoolkit/13.0"
mkfifo "$V/lmod/cudatoolkit/.modulerc.lua"
rc=0
timeout 60 "$CTKGEN" validate --no-cache $MC -c "$T/one.json" -o "$V" > "$T/s.out" 2> "$T/s.err" || rc=$?
check "validate with a symlink to /etc/shadow, a symlink to a FIFO and a FIFO in OUT: exit 1, no hang (got $rc)" [ "$rc" -eq 1 ]
check "... the .pc symlink is refused, named (CTK-MOD-006)" \
    grep -q "error CTK-MOD-006: .*/v/pkgconfig/ctk-13.0.pc: is a symlink" "$T/s.err"
check "... the Tcl modulefile's symlink to a FIFO is refused, named" \
    grep -q "error CTK-MOD-006: .*/v/tcl/cudatoolkit/13.0: is a symlink" "$T/s.err"
check "... the FIFO at the Lua module's .modulerc.lua is refused, named" \
    grep -q "error CTK-MOD-006: .*/v/lmod/cudatoolkit/13.0.lua: .*/v/lmod/cudatoolkit/.modulerc.lua: is not a regular file" "$T/s.err"
check "... and nothing of /etc/shadow is in the report" lacks -q 'root:' "$T/s.err"
check "... the table counts three failures" grep -q ", 3 failed" "$T/s.out"
finish
