#!/bin/sh
# wheel-cu12.sh - a second real CUDA runtime (12.4) for tests, from NVIDIA's PyPI wheels.
# SPDX-License-Identifier: MIT
#
# usage: wheel-cu12.sh OUTDIR
#
# Lays out, and prints the path of:
#   OUTDIR/cuda12rt/lib/libcudart.so.12   the real runtime (SONAME libcudart.so.12) from
#                                         nvidia-cuda-runtime-cu12 (nvidia/cuda_runtime/lib)
#   OUTDIR/cuda12rt/lib/libcudart.so      -> libcudart.so.12, the link-time name (the wheel,
#                                         like every wheel, ships only the SONAME file)
#   OUTDIR/cuda12rt/include/              the runtime headers (nvidia/cuda_runtime/include);
#                                         CUDART_VERSION 12040
#   OUTDIR/cuda12rt/include/crt/          from nvidia-cuda-nvcc-cu12 of the same release
#                                         (CUDA 12.4.1): cuda_runtime.h includes
#                                         crt/host_config.h, which the runtime wheel lacks;
#                                         without it a compile would silently pick up some
#                                         other toolkit's crt/ from the system include path
# Nothing else of the nvcc wheel (ptxas, libnvvm) is kept.
#
# The wheels are pinned by version and sha256 and kept in
# ${CTK_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ctkgen-wheels}, so only the first
# run needs the network.  Idempotent and safe to run concurrently, like fixtures.sh: a
# lock (flock, else a mkdir lock) serialises builders, the tree is built in OUTDIR.tmp
# and renamed into place, and OUTDIR/.stamp (naming the wheels) marks a finished build.
#
# Exit status: 0 done; 2 usage; 3 the wheels cannot be had here (no network or PyPI,
# no pip, not an x86_64 host): the reason is on stderr, and callers skip (77) and say
# so; 1 anything else, e.g. a wheel that does not hold what it should.
set -eu

RT_PKG=nvidia-cuda-runtime-cu12
RT_VER=12.4.127
RT_WHL=nvidia_cuda_runtime_cu12-12.4.127-py3-none-manylinux2014_x86_64.whl
RT_SHA=64403288fa2136ee8e467cdc9c9427e0434110899d07c779f25b5c068934faa5
NVCC_PKG=nvidia-cuda-nvcc-cu12
NVCC_VER=12.4.131
NVCC_WHL=nvidia_cuda_nvcc_cu12-12.4.131-py3-none-manylinux2014_x86_64.whl
NVCC_SHA=e4c9a35435c3b0e36c6397c5696334c9ea6650e524736cbd1c5d345ea099bb04
CUDART_WANT=12040

usage() { echo "usage: $0 OUTDIR" >&2; exit 2; }
[ $# -eq 1 ] || usage
out=$1
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
out=${out%/}
rt=$out/cuda12rt
stamp="$RT_PKG==$RT_VER sha256:$RT_SHA + $NVCC_PKG==$NVCC_VER sha256:$NVCC_SHA (include/crt)"

stamp_ok() { [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ]; }
cannot() { echo "$0: $*" >&2; exit 3; }

if stamp_ok; then
    echo "$rt"
    exit 0
fi

[ "$(uname -m)" = x86_64 ] || cannot "the pinned wheels are for x86_64; this is $(uname -m)"
command -v python3 >/dev/null 2>&1 || cannot "no python3 to run pip"
python3 -m pip --version >/dev/null 2>&1 || cannot "python3 has no pip module"

mkdir -p "$(dirname "$out")"
lockdir=
tmp=
# on any exit: a half-built OUTDIR.tmp goes (once renamed into place, tmp is
# empty), and so does the mkdir lock
cleanup() {
    if [ -n "$tmp" ]; then
        chmod -R u+rwx "$tmp" 2>/dev/null || :
        rm -rf "$tmp"
    fi
    if [ -n "$lockdir" ]; then
        rmdir "$lockdir" 2>/dev/null || :
    fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
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
    lockdir=$out.lock.d
fi

# another builder may have finished while we waited for the lock
if stamp_ok; then
    echo "$rt"
    exit 0
fi

tmp=$out.tmp
chmod -R u+rwx "$tmp" 2>/dev/null || :
rm -rf "$tmp"
mkdir -p "$tmp"

# ---- the wheel cache -------------------------------------------------------------
if [ -n "${CTK_WHEEL_CACHE:-}" ]; then
    cache=$CTK_WHEEL_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
    cache=$XDG_CACHE_HOME/ctkgen-wheels
elif [ -n "${HOME:-}" ]; then
    cache=$HOME/.cache/ctkgen-wheels
else
    cache=
fi
if [ -z "$cache" ] || ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
    echo "$0: warning: cannot use wheel cache '${cache:-(no HOME)}'; downloading for this run only" >&2
    cache=$tmp/.wheels
    mkdir -p "$cache"
fi

sha256() {
    python3 -c 'import hashlib, sys
h = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for b in iter(lambda: f.read(1 << 20), b""):
        h.update(b)
print(h.hexdigest())' "$1"
}

# fetch PKG VERSION FILE SHA256: print the path of the verified wheel in the cache.
# Downloads go to a private dir and are renamed in, so a concurrent or interrupted
# download never leaves a partial wheel under the final name.
fetch() {
    f=$cache/$3
    if [ -f "$f" ] && [ "$(sha256 "$f")" = "$4" ]; then
        echo "$f"
        return 0
    fi
    dl=$(mktemp -d "$cache/.dl-XXXXXX")
    if ! python3 -m pip download --no-deps --only-binary=:all: --python-version 3.11 \
        --platform manylinux2014_x86_64 --no-cache-dir --disable-pip-version-check --no-input \
        --timeout 15 --retries 1 -d "$dl" "$1==$2" >"$dl/pip.log" 2>&1; then
        echo "$0: cannot download $1==$2 from the package index (no network?); pip said:" >&2
        tail -n 4 "$dl/pip.log" | sed 's/^/  /' >&2
        rm -rf "$dl"
        exit 3
    fi
    if [ ! -f "$dl/$3" ]; then
        echo "$0: pip fetched something other than $3:" >&2
        ls "$dl" >&2
        rm -rf "$dl"
        exit 1
    fi
    got=$(sha256 "$dl/$3")
    if [ "$got" != "$4" ]; then
        echo "$0: $3: sha256 $got, pinned $4" >&2
        rm -rf "$dl"
        exit 1
    fi
    mv -f "$dl/$3" "$f"
    rm -rf "$dl"
    echo "$f"
}

# unpack WHEEL PREFIX DEST: the members under PREFIX (not the __init__.py files
# that make wheel dirs packages) into DEST, keeping their relative paths.
unpack() {
    python3 - "$@" <<'EOF'
import os, shutil, sys, zipfile
whl, prefix, dest = sys.argv[1:]
n = 0
with zipfile.ZipFile(whl) as z:
    for m in z.infolist():
        rel = m.filename[len(prefix):]
        if not m.filename.startswith(prefix) or m.is_dir() or not rel:
            continue
        if os.path.basename(rel) == "__init__.py":
            continue
        if rel.startswith("/") or ".." in rel.split("/"):
            sys.exit("%s: refusing member %s" % (whl, m.filename))
        path = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with z.open(m) as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        n += 1
if n == 0:
    sys.exit("%s: nothing under %s" % (whl, prefix))
EOF
}

rt_whl=$(fetch "$RT_PKG" "$RT_VER" "$RT_WHL" "$RT_SHA") || exit $?
nvcc_whl=$(fetch "$NVCC_PKG" "$NVCC_VER" "$NVCC_WHL" "$NVCC_SHA") || exit $?

# ---- lay out cuda12rt --------------------------------------------------------------
trt=$tmp/cuda12rt
unpack "$rt_whl" nvidia/cuda_runtime/lib/ "$trt/lib"
unpack "$rt_whl" nvidia/cuda_runtime/include/ "$trt/include"
unpack "$nvcc_whl" nvidia/cuda_nvcc/include/crt/ "$trt/include/crt"
chmod -R u=rwX,go=rX "$trt"
chmod 0755 "$trt/lib/libcudart.so.12"
ln -s libcudart.so.12 "$trt/lib/libcudart.so"

# ---- is it what we think it is? ----------------------------------------------------------
lib=$trt/lib/libcudart.so.12
[ "$(head -c 4 "$lib" | od -An -c | tr -d ' ')" = '177ELF' ] ||
    { echo "$0: $lib is not an ELF file" >&2; exit 1; }
if command -v objdump >/dev/null 2>&1; then
    soname=$(objdump -p "$lib" | sed -n 's/^ *SONAME *//p')
elif command -v readelf >/dev/null 2>&1; then
    soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
else
    soname=libcudart.so.12 # no binutils: the ELF check above has to do
fi
[ "$soname" = libcudart.so.12 ] || { echo "$0: $lib: SONAME '$soname'" >&2; exit 1; }
cv=$(sed -n 's/^#define[ 	]*CUDART_VERSION[ 	]*\([0-9][0-9]*\).*/\1/p' \
    "$trt/include/cuda_runtime_api.h" | head -n 1)
[ "$cv" = "$CUDART_WANT" ] ||
    { echo "$0: cuda_runtime_api.h says CUDART_VERSION ${cv:-none}, not $CUDART_WANT" >&2; exit 1; }
[ -f "$trt/include/crt/host_config.h" ] ||
    { echo "$0: no crt/host_config.h from $NVCC_WHL" >&2; exit 1; }

rm -rf "$tmp/.wheels"
printf '%s\n' "$stamp" >"$tmp/.stamp"
if [ -e "$out" ]; then
    chmod -R u+rwx "$out" 2>/dev/null || :
    rm -rf "$out.old"
    mv "$out" "$out.old"
    rm -rf "$out.old"
fi
mv "$tmp" "$out"
tmp=
echo "$rt"
