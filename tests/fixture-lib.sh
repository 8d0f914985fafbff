# fixture-lib.sh - what tests/fixtures.sh and tests/scan-fixtures.sh share
# (sourced, not run).  SPDX-License-Identifier: MIT
#
# The caller sets src (absolute CUDA_ROOT), out (absolute OUTDIR) and
# stamp_text (what OUTDIR/.stamp holds once a build of that kind is done),
# then calls fixture_begin, builds under $tmp with copy/put/inside, and
# ends with fixture_finish.

fixture_stamp_ok() { [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp_text" ]; }

# Print OUTDIR and exit when a finished build is there; else take the
# builders' lock (flock, else a mkdir lock), look again, and make a fresh
# $tmp (OUTDIR.tmp, mode 0755) with $tmp_phys its physical path.
fixture_begin() {
    if fixture_stamp_ok; then
        echo "$out"
        exit 0
    fi
    [ -x "$src/bin/nvcc" ] || { echo "$0: $src: no bin/nvcc" >&2; exit 1; }
    mkdir -p "$(dirname "$out")"
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$out.lock"
        flock 9
    else
        n=0
        until mkdir "$out.lock.d" 2>/dev/null; do
            n=$((n + 1))
            [ $n -lt 600 ] || { echo "$0: $out.lock.d: lock held for 10 minutes" >&2; exit 1; }
            sleep 1
        done
        trap 'rmdir "$out.lock.d" 2>/dev/null || :' EXIT
        trap 'exit 1' HUP INT TERM
    fi
    # another builder may have finished while we waited for the lock
    if fixture_stamp_ok; then
        echo "$out"
        exit 0
    fi
    tmp=$out.tmp
    chmod -R u+rwx "$tmp" 2>/dev/null || :
    rm -rf "$tmp"
    mkdir -p "$tmp"
    chmod 755 "$tmp"
    tmp_phys=$(cd "$tmp" && pwd -P)
}

# Stamp $tmp, put it in place of OUTDIR, print OUTDIR.
fixture_finish() {
    printf '%s\n' "$stamp_text" >"$tmp/.stamp"
    if [ -e "$out" ]; then
        chmod -R u+rwx "$out" 2>/dev/null || :
        rm -rf "$out.old"
        mv "$out" "$out.old"
        rm -rf "$out.old"
    fi
    mv "$tmp" "$out"
    echo "$out"
}

# copy SRC DST: hard links, symlinks kept as they are (relative ones stay
# relative); falls back to a tree of symlinks across filesystems.
# A directory reached through a symlink (/usr/local/nvvm -> cuda-X.Y/nvvm) is
# copied from its physical path: copying the link itself would let a later
# change write through it into the real toolkit.
copy() {
    from=$1
    if [ -L "$from" ] && [ -d "$from" ]; then
        from=$(cd "$from" && pwd -P)
    fi
    if ! cp -al "$from" "$2" 2>/dev/null; then
        rm -rf "$2"
        cp -as "$from" "$2"
    fi
}

# replace (never edit) a file
put() {
    rm -f "$1"
    cat >"$1"
}

# refuse to touch anything outside the tree being built
inside() {
    case $(cd "$1" && pwd -P)/ in
        "$tmp_phys"/*) ;;
        *) echo "$0: $1 leads out of $tmp: refusing" >&2; exit 1 ;;
    esac
}
