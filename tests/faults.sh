#!/bin/sh
# faults.sh - a generate run that meets a full disk, a read-only file system
# or a directory it may not write stops with a clear error (exit 4) and
# leaves the old tree exactly as it was; once the fault is gone, a re-run
# completes the new tree.  The faults are real: a small tmpfs filled to a
# chosen number of free pages, the same tmpfs remounted read-only, and an
# unprivileged user (setpriv) facing directories it cannot write.
# SPDX-License-Identifier: MIT
#
# Mounting needs root; the test re-runs itself in a private mount namespace
# (unshare -m) so no mount outlives it.  Without root, mount or setpriv the
# parts that need them print a SKIP line.
if [ "$(id -u)" -eq 0 ] && [ -z "${CTK_FAULTS_NS:-}" ] && command -v unshare >/dev/null &&
    unshare -m true 2>/dev/null; then
    CTK_FAULTS_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$top_srcdir/tests/lib.sh"
need_cuda
trap 'umount "$T/m" 2>/dev/null; rm -rf "$T"' EXIT
F=$(sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$T/fx") || skip "fixtures could not be built"
root="$F/standalone/cuda-13.0"

# config A: SDKs s01..s08; config B: s03..s12 with other help text, so a
# run from A to B creates, updates and removes files in every directory.
series_config "$T/a.json" 1 8 "old tree" "$root"
series_config "$T/b.json" 3 12 "new tree" "$root"
"$CTKGEN" -q generate -c "$T/a.json" -o "$T/A" || { fail "generate A"; finish; exit 1; }
"$CTKGEN" -q generate -c "$T/b.json" -o "$T/B" || { fail "generate B"; finish; exit 1; }

# the files of a tree (manifest included, lock file not)
files() { (cd "$1" && find . ! -type d ! -name .ctkgen.lock | sort); }
files "$T/A" > "$T/A.list"
files "$T/B" > "$T/B.list"
same_tree() { # OUT WANT: the same files with the same bytes, nothing else
    files "$1" > "$T/got.list"
    cmp -s "$T/got.list" "$T/$2.list" || { diff "$T/$2.list" "$T/got.list" | head -5; return 1; }
    while read -r f; do cmp -s "$1/$f" "$T/$2/$f" || { echo "  $f differs"; return 1; }; done < "$T/$2.list"
    [ -z "$(cd "$1" && find . -type d -empty)" ] || { echo "  empty directories left"; return 1; }
}
is_tree() { same_tree "$@" > "$T/why" 2>&1 || { sed 's/^/    /' "$T/why"; return 1; }; }
# the directories of a tree
dirs() { (cd "$1" && find . -type d | sort); }

# ---- a full disk ------------------------------------------------------------------
can_mount=no
if [ "$(id -u)" -eq 0 ] && mkdir -p "$T/m" && mount -t tmpfs -o size=8m,mode=755 tmpfs "$T/m" 2>/dev/null; then
    umount "$T/m"
    can_mount=yes
fi
free_pages() { stat -f -c %a "$T/m"; }
page=$(stat -f -c %S "$T" 2>/dev/null || echo 4096)

if [ $can_mount = yes ]; then
    # how many pages the whole A -> B run needs at most: every file of B
    # written beside A, each at least one page
    need=$(( $(wc -l < "$T/B.list") + 8 ))
    tried=0 failed=0 good=0 bad=0
    k=0
    while [ "$k" -le "$need" ]; do
        mount -t tmpfs -o size=8m,mode=755 tmpfs "$T/m"
        cp -a "$T/A" "$T/m/out"
        avail=$(free_pages)
        if [ "$avail" -gt "$k" ]; then
            fallocate -l $(( (avail - k) * page )) "$T/m/filler" 2>/dev/null ||
                dd if=/dev/zero of="$T/m/filler" bs="$page" count=$((avail - k)) 2>/dev/null
        fi
        rc=0
        "$CTKGEN" -q generate -c "$T/b.json" -o "$T/m/out" > "$T/full.out" 2> "$T/full.err" || rc=$?
        tried=$((tried + 1))
        if [ $rc -eq 0 ]; then
            is_tree "$T/m/out" B || { bad=$((bad + 1)); echo "  $k free pages: success, but the tree is not B"; }
        else
            failed=$((failed + 1))
            if [ $rc -eq 4 ] && grep -q "No space left on device" "$T/full.err" && is_tree "$T/m/out" A; then
                good=$((good + 1))
            else
                bad=$((bad + 1))
                echo "  $k free pages: exit $rc: $(head -c 300 "$T/full.err")"
            fi
            # once there is room again, the same run completes the tree
            rm -f "$T/m/filler"
            "$CTKGEN" -q generate -c "$T/b.json" -o "$T/m/out" > /dev/null 2>&1 && is_tree "$T/m/out" B ||
                { bad=$((bad + 1)); echo "  $k free pages: the re-run did not give B"; }
        fi
        umount "$T/m"
        k=$((k + 3))
    done
    echo "  full disk: $tried runs, $failed stopped for want of space, $bad wrong"
    check "full disk: some runs met a full disk ($failed of $tried)" [ "$failed" -gt 3 ]
    check "full disk: some runs had room to finish" [ "$failed" -lt "$tried" ]
    check "full disk: each stopped run says so, exits 4 and leaves A; each re-run gives B" [ "$bad" -eq 0 ]
    grep -m1 "No space" "$T/full.err" | sed 's/^/    e.g. /' || true

    # a first run into an empty, full file system leaves nothing behind
    mount -t tmpfs -o size=8m,mode=755 tmpfs "$T/m"
    avail=$(free_pages)
    fallocate -l $(( (avail - 2) * page )) "$T/m/filler" 2>/dev/null ||
        dd if=/dev/zero of="$T/m/filler" bs="$page" count=$((avail - 2)) 2>/dev/null
    rc=0
    "$CTKGEN" -q generate -c "$T/b.json" -o "$T/m/new" 2> "$T/new.err" || rc=$?
    check "full disk, new tree: exit 4 naming the cause" sh -c "[ $rc -eq 4 ] && grep -q 'No space left on device' '$T/new.err'"
    check "full disk, new tree: no file left behind" sh -c "[ -z \"\$(find '$T/m/new' ! -type d ! -name .ctkgen.lock 2>/dev/null)\" ]"
    umount "$T/m"
else
    echo "SKIP: full disk and read-only file system: mounting a tmpfs needs root"
fi

# ---- a read-only file system ------------------------------------------------------
if [ $can_mount = yes ]; then
    mount -t tmpfs -o size=8m,mode=755 tmpfs "$T/m"
    cp -a "$T/A" "$T/m/out"
    mount -o remount,ro "$T/m"
    rc=0
    "$CTKGEN" -q generate -c "$T/b.json" -o "$T/m/out" > /dev/null 2> "$T/ro.err" || rc=$?
    check "read-only: exit 4" [ $rc -eq 4 ]
    check "read-only: the error names the cause" grep -q "Read-only file system" "$T/ro.err"
    check "read-only: the old tree is intact" is_tree "$T/m/out" A
    rc=0
    "$CTKGEN" -q generate -c "$T/a.json" -o "$T/m/out" --check > /dev/null 2>&1 || rc=$?
    check "read-only: --check of the tree's own config passes (exit 0)" [ $rc -eq 0 ]
    rc=0
    "$CTKGEN" -q generate -c "$T/b.json" -o "$T/m/out" --check > /dev/null 2>&1 || rc=$?
    check "read-only: --check of another config reports the change (exit 1)" [ $rc -eq 1 ]
    rc=0
    "$CTKGEN" -q generate -c "$T/b.json" -o "$T/m/out" --dry-run > "$T/ro.diff" 2>&1 || rc=$?
    check "read-only: --dry-run shows the diff" sh -c "[ $rc -eq 0 ] && grep -q '^+.*new tree' '$T/ro.diff'"
    umount "$T/m"
fi

# ---- permission denied --------------------------------------------------------------
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
    # that user must reach the binary, the fixture toolkit and the configs
    chmod 711 "$T"
    mkdir -p "$T/bin"
    cp "$CTKGEN" "$T/bin/ctkgen"
    chmod 755 "$T/bin" "$T/bin/ctkgen"
    chmod -R a+rX "$T/fx" "$T/a.json" "$T/b.json"
    if $NOBODY test -x "$T/bin/ctkgen" && $NOBODY test -r "$root/include/cuda_runtime.h"; then
        # the whole tree is root's
        cp -a "$T/A" "$T/p1"
        rc=0
        $NOBODY "$T/bin/ctkgen" -q generate -c "$T/b.json" -o "$T/p1" > /dev/null 2> "$T/p1.err" || rc=$?
        check "not the owner: exit 4 with the cause" sh -c "[ $rc -eq 4 ] && grep -q 'Permission denied' '$T/p1.err'"
        check "not the owner: the old tree is intact" is_tree "$T/p1" A

        # the user owns the tree but one directory, written late in the
        # run, is read-only: nothing may change anywhere else either
        for sub in tcl/cudatoolkit pkgconfig lmod/cudatoolkit; do
            p="$T/p-$(echo "$sub" | tr / -)"
            cp -a "$T/A" "$p"
            chown -R 65534:65534 "$p"
            chmod 555 "$p/$sub"
            rc=0
            $NOBODY "$T/bin/ctkgen" -q generate -c "$T/b.json" -o "$p" > /dev/null 2> "$p.err" || rc=$?
            check "read-only $sub: exit 4 naming the directory" sh -c "[ $rc -eq 4 ] && grep -q 'Permission denied' '$p.err' && grep -q '$sub' '$p.err'"
            check "read-only $sub: the old tree is intact" is_tree "$p" A
            chmod 755 "$p/$sub"
            rc=0
            $NOBODY "$T/bin/ctkgen" -q generate -c "$T/b.json" -o "$p" > /dev/null 2>&1 || rc=$?
            if [ $rc -eq 0 ] && is_tree "$p" B; then pass "read-only $sub: writable again, the re-run gives B"
            else fail "read-only $sub: writable again, the re-run gives B (exit $rc)"; fi
        done
        sed 's/^/    e.g. /' "$T/p-tcl-cudatoolkit.err"
    else
        echo "SKIP: permission denied: uid 65534 cannot run $T/bin/ctkgen or read the fixture"
    fi
else
    echo "SKIP: permission denied: running as root without setpriv, or not as root"
fi
finish
