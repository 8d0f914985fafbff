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

# copy SRC DST: a copy that behaves as another toolkit on any filesystem.
# Every file under CTK_FIXTURE_LINK_MIB MiB (default 32: headers, nvcc,
# libcudart, version files) is copied, so a fixture's own files are its
# own: a check that a probe loaded this tree's libcudart or compiled this
# tree's cuda_runtime.h, not the source's, tells them apart by identity
# (device and inode), as validate does.  The few large libraries and
# compiler stages are symlinks to the source.  Symlinks are kept as they
# are (relative ones stay relative).  Hard links were used once: on a tmpfs
# or a read-only bind mount they cannot be made, and where they can, a
# fixture's libcudart is the source's own file.
# A directory reached through a symlink (/usr/local/nvvm -> cuda-X.Y/nvvm) is
# copied from its physical path: copying the link itself would let a later
# change write through it into the real toolkit.
copy() {
    from=$1
    if [ -L "$from" ] && [ -d "$from" ]; then
        from=$(cd "$from" && pwd -P)
    fi
    rm -rf "$2"
    copy_across "$from" "$2"
}

# copy_across SRC DST: small files copied, large ones symlinked (above)
copy_across() {
    if [ ! -d "$1" ]; then
        mib=$(( ($(wc -c <"$1") + 1048575) / 1048576 ))
        if [ -L "$1" ] || [ "$mib" -lt "${CTK_FIXTURE_LINK_MIB:-32}" ]; then cp -a "$1" "$2"; else ln -s "$1" "$2"; fi
        return 0
    fi
    mkdir -p "$2"
    # directories, symlinks and small files, with modes and times
    (cd "$1" && find . \( \( -type f -size -"${CTK_FIXTURE_LINK_MIB:-32}"M \) -o ! -type f \) -print0 |
        tar --null --no-recursion -T - -cf -) | (cd "$2" && tar -xpf -)
    (cd "$1" && find . -type f ! -size -"${CTK_FIXTURE_LINK_MIB:-32}"M -print) | while IFS= read -r f; do
        ln -s "$1/${f#./}" "$2/${f#./}"
    done
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
