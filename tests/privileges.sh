#!/bin/sh
# privileges.sh - what generate creates has the modes an admin expects
# whatever the umask (0644 files, 0755 directories); every file system
# change it makes, traced with strace, lies inside the output directory or
# the runner's own cache dir (what it learned of the toolkits);
# a symlink planted in the output tree is refused, not followed; a hard
# link planted there is replaced, its other name left as it was.
# SPDX-License-Identifier: MIT
. "$top_srcdir/tests/lib.sh"
need_cuda
F=$(sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$T/fx") || skip "fixtures could not be built"
root="$F/standalone/cuda-13.0"
mkconfig() { # FILE HELP
    printf '{ "module_name": "cudatoolkit", "help": "%s",\n  "sdks": [ { "version": "13.0", "base": "%s" },\n    { "version": "13.0", "name": "13.0-b", "base": "%s" } ] }\n' \
        "$2" "$root" "$root" > "$1"
}
mkconfig "$T/a.json" "first"
mkconfig "$T/b.json" "second"
printf '{ "module_name": "cudatoolkit", "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$root" > "$T/c.json"

# ---- modes, whatever the umask ------------------------------------------------------
for u in 077 027 000 002; do
    rc=0
    (umask "$u" && "$CTKGEN" -q generate -c "$T/a.json" -o "$T/m$u") || rc=$?
    badf=$(find "$T/m$u" -type f ! -name .ctkgen.lock ! -perm 644 | head -3)
    badd=$(find "$T/m$u" -type d ! -perm 755 | head -3)
    nf=$(find "$T/m$u" -type f | wc -l)
    check "umask $u: every file 0644, every directory 0755 ($nf files)" \
        sh -c "[ $rc -eq 0 ] && [ -z '$badf$badd' ] && [ $nf -gt 10 ]"
    lock=$(stat -c %a "$T/m$u/.ctkgen.lock")
    check "umask $u: the lock file is not writable by others ($lock)" \
        sh -c "[ -n '$lock' ] && [ \$(( 0$lock & 022 )) -eq 0 ]"
done

# ---- every change inside OUT ---------------------------------------------------------
if command -v strace >/dev/null && strace -f -qq -o /dev/null true 2>/dev/null && command -v python3 >/dev/null; then
    CALLS=open,openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,chmod,fchmodat,chown,fchownat,lchown,truncate,mknod,mknodat,utimensat
    # inside.py OUT TRACE CACHE: each path a traced process changed outside OUT and CACHE,
    # then how many changes the trace holds (strace -f -y output)
    cat > "$T/inside.py" <<'EOF'
import re, sys
out, trace, cache = sys.argv[1], sys.argv[2], sys.argv[3]
fdarg = r'(?:AT_FDCWD(?:<[^>]*>)?|-?\d+<([^>]*)>)'
qstr = r'"((?:[^"\\]|\\.)*)"'
changes = 0
def join(d, p):
    return p if p.startswith('/') or not d else d.rstrip('/') + '/' + p
for line in open(trace):
    m = re.match(r'\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)', line)
    if not m or int(m.group(3)) < 0:
        continue
    call, args = m.group(1), m.group(2)
    if call in ('open', 'openat') and not re.search(r'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC', args):
        continue
    if call.endswith('at') or call == 'renameat2':
        paths = [join(d, p) for d, p in re.findall(fdarg + r',\s*' + qstr, args)]
    else:
        paths = re.findall(qstr, args)
        if call == 'symlink':
            paths = paths[1:]  # the link, not the text it points to
    if call == 'symlinkat':
        paths = paths[-1:]
    for p in paths:
        changes += 1
        if p != out and not p.startswith(out + '/') and p != cache and not p.startswith(cache + '/'):
            print('outside:', call, p)
print('changes', changes)
EOF
    # LeakSanitizer cannot run under ptrace (in a sanitized build it would
    # fail and write its report outside OUT); leaks are checked elsewhere
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    export ASAN_OPTIONS
    # a new tree, an update with removals (a -> c), and an update back
    P=$(cd "$T" && pwd -P)
    XDG_CACHE_HOME=$P/cache
    export XDG_CACHE_HOME
    for step in a c b; do
        strace -f -y -qq -o "$T/trace.$step" -e trace=$CALLS "$CTKGEN" -q generate -c "$T/$step.json" -o "$P/out" ||
            fail "traced generate $step"
    done
    cat "$T/trace.a" "$T/trace.c" "$T/trace.b" > "$T/trace"
    python3 "$T/inside.py" "$P/out" "$T/trace" "$P/cache" > "$T/outside"
    n=$(sed -n 's/^changes //p' "$T/outside")
    grep '^outside' "$T/outside" | head -5
    check "strace: $n file system changes over three runs, all inside OUT or the cache dir" \
        sh -c "[ '${n:-0}' -gt 30 ] && ! grep -q '^outside' '$T/outside'"
    check "  the cache dir's are what was learned of the toolkits, nothing else" \
        sh -c "[ -z \"\$(find '$P/cache' -type f ! -path '$P/cache/ctkgen/facts/*')\" ]"
    # an unchanged run changes nothing anywhere
    strace -f -y -qq -o "$T/trace.same" -e trace=$CALLS "$CTKGEN" -q generate -c "$T/b.json" -o "$P/out" ||
        fail "traced generate b again"
    python3 "$T/inside.py" /nowhere "$T/trace.same" /nowhere > "$T/outside.same"
    grep '^outside' "$T/outside.same" | head -5
    check "strace: an unchanged run changes nothing, in OUT or anywhere else (the lock file opened, not created)" \
        sh -c "[ \"\$(grep -c '^outside' '$T/outside.same')\" = 1 ] && grep -q '^outside: openat $P/out/.ctkgen.lock\$' '$T/outside.same'"
    # the same check sees a process that does change something elsewhere
    strace -f -y -qq -o "$T/trace.x" -e trace=$CALLS \
        sh -c "mkdir '$P/out/d' && touch '$P/x' && mv '$P/x' '$P/out/d/x' && rm -r '$P/out/d'"
    python3 "$T/inside.py" "$P/out" "$T/trace.x" "$P/cache" > "$T/outside.x"
    check "strace: a file made outside OUT is seen" grep -q "^outside: .* $P/x\$" "$T/outside.x"
else
    echo "SKIP: tracing generate: strace cannot trace here or python3 is missing"
fi

# ---- planted links -------------------------------------------------------------------
mkdir -p "$T/elsewhere"
"$CTKGEN" -q generate -c "$T/a.json" -o "$T/p1"
rm -rf "$T/p1/lmod"
ln -s "$T/elsewhere" "$T/p1/lmod"
rc=0
"$CTKGEN" -q generate -c "$T/b.json" -o "$T/p1" 2> "$T/p1.err" || rc=$?
check "a symlinked directory in OUT: refused (exit 1 or 3), naming it" \
    sh -c "[ $rc -ne 0 ] && grep -q 'symlink' '$T/p1.err' && grep -q 'p1/lmod' '$T/p1.err'"
check "a symlinked directory in OUT: nothing written through it" empty_dir "$T/elsewhere"

printf 'precious\n' > "$T/precious"
"$CTKGEN" -q generate -c "$T/a.json" -o "$T/p2"
rm "$T/p2/pkgconfig/ctk-13.0.pc"
ln -s "$T/precious" "$T/p2/pkgconfig/ctk-13.0.pc"
rc=0
"$CTKGEN" -q generate -c "$T/b.json" -o "$T/p2" 2> "$T/p2.err" || rc=$?
check "a symlinked file in OUT: refused, naming it" \
    sh -c "[ $rc -ne 0 ] && grep -q 'ctk-13.0.pc' '$T/p2.err'"
check "a symlinked file in OUT: its target untouched" sh -c "[ \"\$(cat '$T/precious')\" = precious ]"
rc=0
"$CTKGEN" -q generate -c "$T/b.json" -o "$T/p2" --force 2> "$T/p2f.err" || rc=$?
check "a symlinked file in OUT: --force refuses it too, target untouched" \
    sh -c "[ $rc -ne 0 ] && grep -q 'symlink' '$T/p2f.err' && [ \"\$(cat '$T/precious')\" = precious ]"

# a hard link to a file outside OUT, with ctkgen's own bytes, so the
# update goes ahead: the outside name keeps the old bytes
"$CTKGEN" -q generate -c "$T/a.json" -o "$T/p3"
cp "$T/p3/tcl/cudatoolkit/13.0" "$T/outside-copy"
ln -f "$T/outside-copy" "$T/p3/tcl/cudatoolkit/13.0"
cp "$T/outside-copy" "$T/outside-before"
rc=0
"$CTKGEN" -q generate -c "$T/b.json" -o "$T/p3" || rc=$?
check "a hard link in OUT: the update succeeds" sh -c "[ $rc -eq 0 ] && grep -q second '$T/p3/tcl/cudatoolkit/13.0'"
check "a hard link in OUT: the other name keeps its bytes" cmp -s "$T/outside-copy" "$T/outside-before"

# OUT itself may be a symlink the admin chose
mkdir -p "$T/real-out"
ln -s "$T/real-out" "$T/link-out"
rc=0
"$CTKGEN" -q generate -c "$T/a.json" -o "$T/link-out" || rc=$?
check "OUT named through a symlink: written into its target" \
    sh -c "[ $rc -eq 0 ] && [ -f '$T/real-out/tcl/cudatoolkit/13.0' ]"
finish
