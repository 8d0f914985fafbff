#!/bin/sh
# durability.sh - what generate writes is durable before the tree says it
# is there, with sync calls that do not grow with the number of files.
# strace -f -y records the writes, syncs, renames, removals and directory
# changes inside OUT of a fresh run and of an update (files created,
# updated and removed), and a checker holds the trace to the order
# docs/reliability.md promises:
#  - every file renamed into place was synced (an fsync or fdatasync of
#    it, or a syncfs) after it was last written and before the rename;
#  - the pending manifest is renamed into place and OUT synced before any
#    file of the tree is renamed or removed;
#  - every directory changed (an entry renamed in, removed, made) is synced
#    after its last change and before the manifest is renamed into place;
#    each directory below OUT is fsynced at most once, OUT at most 4 times;
#  - the manifest is the last rename, OUT is synced after it, then the
#    pending manifest is removed and OUT synced again.
# Then a fresh run of 5 and one of 50 toolkits make the same number of
# sync calls (a count, not a timing).
# SPDX-License-Identifier: MIT
. "$top_srcdir/tests/lib.sh"
need_cuda
command -v strace >/dev/null || skip "strace not installed (apt-get install strace)"
strace -f -qq -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"
command -v python3 >/dev/null || skip "python3 not installed"
F=$(sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$T/fx") || skip "fixtures could not be built"
root="$F/standalone/cuda-13.0"

# LeakSanitizer cannot run under ptrace; leaks are checked by other tests
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

CALLS=openat,write,fsync,fdatasync,syncfs,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir

# order.py OUT TRACE: one line per broken rule ("bad: ..."), then
# "renames N", "syncs N" (fsync, fdatasync, syncfs) and "dirsyncs N"
cat > "$T/order.py" <<'EOF'
import os, re, sys
out, trace = sys.argv[1].rstrip('/'), sys.argv[2]
fd = r'(?:AT_FDCWD|-?\d+)(?:<([^>]*)>)?'
qs = r'"((?:[^"\\]|\\.)*)"'
TMP = '.ctkgen-tmp-'
MAN, PEND = out + '/.ctkgen-manifest', out + '/.ctkgen-manifest.pending'
ev = []   # (index, kind, path, extra)
for line in open(trace):
    m = re.match(r'\d+\s+(\w+)\((.*)\)\s+=\s+(-?\d+)', line)
    if not m or int(m.group(3)) < 0:
        continue
    call, args = m.group(1), m.group(2)
    def at(d, p):
        return p if p.startswith('/') or not d else d.rstrip('/') + '/' + p
    if call in ('write', 'fsync', 'fdatasync', 'syncfs'):
        p = re.match(fd, args).group(1) or ''
        ev.append((call if call != 'fdatasync' else 'fsync', p, None))
    elif call == 'openat' and 'O_CREAT' in args:
        d, p = re.match(fd + r',\s*' + qs, args).groups()
        ev.append(('write', at(d, p), None))
    elif call in ('renameat', 'renameat2'):
        (d1, p1), (d2, p2) = re.findall(fd + r',\s*' + qs, args)[:2]
        ev.append(('rename', at(d1, p1), at(d2, p2)))
    elif call == 'rename':
        p1, p2 = re.findall(qs, args)[:2]
        ev.append(('rename', p1, p2))
    elif call in ('unlinkat', 'mkdirat'):
        d, p = re.match(fd + r',\s*' + qs, args).groups()
        ev.append(('unlink' if call == 'unlinkat' else 'mkdir', at(d, p), None))
    elif call in ('unlink', 'rmdir', 'mkdir'):
        ev.append(('unlink' if call != 'mkdir' else 'mkdir', re.findall(qs, args)[0], None))
inside = lambda p: p.startswith(out + '/')
ev = [(i, k, p, x) for i, (k, p, x) in enumerate(ev) if inside(p) or p == out or k == 'syncfs']
bad = lambda why: print('bad:', why)
syncfs = [i for i, k, p, x in ev if k == 'syncfs']
fsyncs = {}
for i, k, p, x in ev:
    if k == 'fsync':
        fsyncs.setdefault(p, []).append(i)
def synced(path, after, before):
    """path (a file or directory) synced strictly between after and before"""
    return any(after < s < before for s in syncfs + fsyncs.get(path, []))
renames = [(i, p, x) for i, k, p, x in ev if k == 'rename']
man = [i for i, p, x in renames if x == MAN]
pend = [i for i, p, x in renames if x == PEND]
if not man or not pend:
    bad('no rename of the manifest or of the pending manifest')
    sys.exit(0)
# 1. data before rename
last_write = {}
for i, k, p, x in ev:
    if k == 'write':
        last_write[p] = i
    elif k == 'rename' and TMP in os.path.basename(p):
        w = last_write.get(p)
        if w is None:
            bad('%s renamed, never seen written' % x)
        elif not synced(p, w, i):
            bad('%s renamed into place before its bytes were synced' % x[len(out) + 1:])
# 2. pending first, then OUT synced, then the tree changes
tree = [i for i, k, p, x in ev if (k == 'rename' and x not in (PEND, MAN)) or
        (k == 'unlink' and TMP not in os.path.basename(p) and p not in (PEND, MAN))]
if tree and tree[0] < pend[0]:
    bad('a file of the tree changed before the pending manifest was in place')
if tree and not synced(out, pend[0], tree[0]):
    bad('the pending manifest was not synced before the tree changed')
# 3. each changed directory synced after its last change, before the manifest
last_change = {}
for i, k, p, x in ev:
    if i >= man[0] or k not in ('rename', 'unlink', 'mkdir') or p == out:
        continue
    for q in (p, x) if x else (p,):
        last_change[os.path.dirname(q)] = i
for d, i in sorted(last_change.items()):
    if not synced(d, i, man[0]):
        bad('%s: changed, not synced before the manifest was renamed into place' % (d[len(out):] or 'OUT'))
for d, s in sorted(fsyncs.items()):
    if TMP in os.path.basename(d):
        continue
    if len(s) > (4 if d == out else 1):
        bad('%s synced %d times' % (d[len(out):] or 'OUT', len(s)))
# 4. the manifest last, synced; then the pending one removed, synced
if renames[-1][0] != man[0]:
    bad('a rename came after the manifest\'s')
rm = [i for i, k, p, x in ev if k == 'unlink' and p == PEND and i > man[0]]
if not rm:
    bad('the pending manifest was not removed after the manifest was written')
else:
    if not synced(out, man[0], rm[0]):
        bad('the manifest was not synced before the pending manifest was removed')
    if not synced(out, rm[0], float('inf')):
        bad('OUT was not synced after the pending manifest was removed')
print('renames', len(renames))
print('syncs', len(syncfs) + sum(len(s) for s in fsyncs.values()))
print('dirsyncs', sum(len(s) for d, s in fsyncs.items() if TMP not in os.path.basename(d)))
EOF

P=$(cd "$T" && pwd -P)
# traced NAME CONFIG: a generate into $P/out under strace, checked
traced() {
    strace -f -y -qq -s 0 -o "$T/trace.$1" -e trace=$CALLS \
        "$CTKGEN" -q generate -c "$2" -o "$P/out" >/dev/null 2>&1 || { fail "$1: traced generate"; return; }
    python3 "$T/order.py" "$P/out" "$T/trace.$1" > "$T/order.$1"
    sed -n 's/^bad: /  /p' "$T/order.$1" | head -10
    check "$1: files synced before renamed, pending manifest first, each changed directory synced once before the manifest, manifest last ($(grep -v '^bad' "$T/order.$1" | tr '\n' ' '))" \
        sh -c "! grep -q '^bad' '$T/order.$1' && grep -q '^renames [1-9]' '$T/order.$1'"
}

# config A: SDKs s01..s08; B: s03..s12 with other help text: from A to B
# files are created, updated and removed
series_config "$T/a.json" 1 8 "old tree" "$root"
series_config "$T/b.json" 3 12 "new tree" "$root"
traced fresh "$T/a.json"
traced update "$T/b.json"
ls "$P/out/lmod/cudatoolkit/13.0-s12.lua" >/dev/null 2>&1 && [ ! -e "$P/out/lmod/cudatoolkit/13.0-s01.lua" ] ||
    fail "update: the tree is not B's"

# the check itself: a trace with a file renamed before any sync must fail
sed '/syncfs(/d; /fsync(.*\.ctkgen-tmp-/d' "$T/trace.fresh" > "$T/trace.nosync"
python3 "$T/order.py" "$P/out" "$T/trace.nosync" > "$T/order.nosync"
check "the checker catches a file renamed before its bytes were synced" \
    grep -q 'renamed into place before its bytes were synced' "$T/order.nosync"

# sync calls of a fresh run: 5 toolkits against 50
count_syncs() { # N
    series_config "$T/n$1.json" 1 "$1" "count" "$root"
    rm -rf "$P/n$1"
    strace -f -qq -c -o "$T/count.$1" -e trace=fsync,fdatasync,syncfs \
        "$CTKGEN" -q generate -c "$T/n$1.json" -o "$P/n$1" >/dev/null 2>&1 || { echo fail; return; }
    awk '$NF ~ /^(fsync|fdatasync|syncfs)$/ && $4 ~ /^[0-9]+$/ { n += $4 } END { print n + 0 }' "$T/count.$1"
}
s5=$(count_syncs 5)
s50=$(count_syncs 50)
files50=$(find "$P/n50" -type f 2>/dev/null | wc -l)
check "sync calls of a fresh run do not grow with files: $s5 at 5 toolkits, $s50 at 50 ($files50 files)" \
    sh -c "[ '$s5' != fail ] && [ '$s50' != fail ] && [ '$s5' -gt 0 ] && [ '$s50' -eq '$s5' ] && [ '$files50' -gt 600 ]"
finish
