#!/bin/sh
# scan-fixtures.sh - one tree per toolkit layout `ctkgen scan` recognises, from the real toolkit.
# SPDX-License-Identifier: MIT
#
# usage: scan-fixtures.sh CUDA_ROOT OUTDIR
#
# Everything is made of hard links to the toolkit at CUDA_ROOT (through
# tests/fixtures.sh, whose standalone and HPC SDK trees are the starting
# point; symlinks across file systems), plus NVIDIA's real
# nvidia-cuda-runtime-cu12 wheel for the per-component wheel tree.
# Nothing under CUDA_ROOT is ever written: files are moved, linked or
# replaced (rm, then a new file), never edited in place.
#
# OUTDIR/
#   standalone/cuda-X.Y, standalone/cuda -> cuda-X.Y    runfile layout + a symlinked duplicate
#   runfile/apps/cuda/X.Y.0       a runfile --installpath prefix: extras/CUPTI, nvvm/,
#                                 version.txt instead of version.json
#   hpcsdk/Linux_<cpu>/25.7/{cuda/X.Y,math_libs/X.Y,comm_libs/X.Y/nccl}
#   hpcsdk/Linux_<cpu>/25.9/      the same, plus
#       cuda/12.9, math_libs/12.9   a second CUDA release in one HPC SDK release; see below
#       cuda/{bin,include,lib64}    links into cuda/X.Y (the unversioned default)
#       compilers/bin/nvcc          the HPC SDK compiler driver (not a toolkit of its own)
#   conda/envs/cudaenv            conda-meta/, targets/<arch>/{bin,include,lib}, bin/nvcc ->
#                                 ../targets/<arch>/bin/nvcc, lib/libcudart.so* -> targets, nvvm/
#   conda/envs/rtonly             conda-meta/ and the runtime in targets/<arch>, no nvcc
#   wheel/venv/lib/python3.11/site-packages/nvidia/cu13/{bin,include,lib,nvvm}
#                                 + nvidia_*.dist-info (the cu13 wheels' shared tree)
#   wheel12/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/{include,lib}
#                                 + its dist-info: the real nvidia-cuda-runtime-cu12 12.4.127
#                                 wheel (CUDA 12 per-component tree, no nvcc); absent when the
#                                 wheel cannot be had here, and wheel12.SKIP says why
#   debian/root/usr/              Debian's nvidia-cuda-toolkit: bin/nvcc (a wrapper script),
#                                 lib/nvidia-cuda-toolkit/{bin,libdevice}, include/,
#                                 lib/<multiarch>/, the lib/cuda shim (no nvcc)
#   spack/opt/spack/linux-debian12-<cpu>/gcc-12.2.0/cuda-X.Y.88-<hash>/
#                                 .spack/spec.json + runfile layout
#   deep/a/b/c/cuda-X.Y           a toolkit four levels below deep/ (depth limit)
#   wrapper/usr/local/            /usr/local as CI hosts have it: bin/nvcc a script that
#                                 execs cuda-X.Y/bin/nvcc (by its absolute path under
#                                 OUTDIR), include/ and lib64 links into cuda-X.Y, and
#                                 cuda -> cuda-X.Y; /usr/local itself is no toolkit
#   problems/dangling -> nowhere, problems/loop/a/b -> .., problems/selfloop -> selfloop,
#   problems/locked/ (mode 000, holding a toolkit), problems/cuda-X.Y (a toolkit)
#
# The second CUDA release of 25.9 (cuda/12.9) is a hard-link copy of the
# X.Y toolkit with a version.json that says 12.9.1: the only way to have a
# second release from one real toolkit.  The scanner takes the toolkit's
# own word (version.json first), as it would for a real 12.9.
#
# Every directory is readable and searchable by other users (the unreadable
# case is checked as an unprivileged user), except problems/locked.
# Cached like fixtures.sh: OUTDIR/.stamp (naming CUDA_ROOT) marks a finished
# build, a lock serialises builders, the tree is built in OUTDIR.tmp.
# Prints OUTDIR.
set -eu

usage() { echo "usage: $0 CUDA_ROOT OUTDIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
src=$1
out=$2
case $src in /*) ;; *) src=$(cd "$src" && pwd) ;; esac
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
src=${src%/}
out=${out%/}
here=$(cd "$(dirname "$0")" && pwd)
stamp_text="$src scan-fixtures 3"

. "$here/fixture-lib.sh"
fixture_begin

# the standalone and HPC SDK trees of fixtures.sh are the base of most layouts
base=$(sh "$here/fixtures.sh" "$src" "$out.base") || { echo "$0: fixtures.sh failed" >&2; exit 1; }

cpu=$(uname -m)
case $cpu in
    x86_64) arch=x86_64-linux; hpc=Linux_x86_64; multiarch=x86_64-linux-gnu ;;
    aarch64 | arm64) arch=sbsa-linux; hpc=Linux_aarch64; multiarch=aarch64-linux-gnu ;;
    *) arch=$cpu-linux; hpc=Linux_$cpu; multiarch=$cpu-linux-gnu ;;
esac
mm=$(basename "$(ls -d "$base"/standalone/cuda-* | head -n 1)")
mm=${mm#cuda-}
st=$base/standalone/cuda-$mm
hrel=$base/hpcsdk/$hpc/25.9
srcinc=$st/targets/$arch/include
srclib=$st/targets/$arch/lib

version_json() { # version_json FILE X.Y.Z
    put "$1" <<EOF
{
   "cuda" : { "name" : "CUDA SDK", "version" : "$2" },
   "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "$2" },
   "cuda_nvcc" : { "name" : "CUDA NVCC", "version" : "$2" }
}
EOF
}

# ---- standalone + a symlinked duplicate --------------------------------------------
mkdir -p "$tmp/standalone"
copy "$st" "$tmp/standalone/cuda-$mm"
ln -s "cuda-$mm" "$tmp/standalone/cuda"

# ---- a runfile --installpath prefix ----------------------------------------------------
rp=$tmp/runfile/apps/cuda/$mm.0
mkdir -p "$(dirname "$rp")"
copy "$st" "$rp"
inside "$rp"
rm -f "$rp/version.json"
printf 'CUDA Version %s.0\n' "$mm" | put "$rp/version.txt"

# ---- HPC SDK: two releases carrying X.Y; 25.9 also carries 12.9 ------------------------
for r in 25.7 25.9; do
    mkdir -p "$tmp/hpcsdk/$hpc"
    copy "$hrel" "$tmp/hpcsdk/$hpc/$r"
done
h9=$tmp/hpcsdk/$hpc/25.9
inside "$h9"
copy "$h9/cuda/$mm" "$h9/cuda/12.9"
version_json "$h9/cuda/12.9/version.json" 12.9.1
copy "$h9/math_libs/$mm" "$h9/math_libs/12.9"
for d in bin include lib64; do
    ln -s "$mm/$d" "$h9/cuda/$d"
done
mkdir -p "$h9/compilers/bin"
ln "$h9/cuda/$mm/bin/nvcc" "$h9/compilers/bin/nvcc" 2>/dev/null || cp -s "$h9/cuda/$mm/bin/nvcc" "$h9/compilers/bin/nvcc"

# ---- conda: an environment with cuda-nvcc, and one with the runtime only -----------------
ce=$tmp/conda/envs/cudaenv
mkdir -p "$ce/conda-meta" "$ce/targets/$arch" "$ce/bin" "$ce/lib" "$ce/include"
printf '{"name": "cuda-nvcc", "version": "%s.88"}\n' "$mm" | put "$ce/conda-meta/cuda-nvcc-$mm.88-0.json"
copy "$srcinc" "$ce/targets/$arch/include"
copy "$srclib" "$ce/targets/$arch/lib"
copy "$st/bin" "$ce/targets/$arch/bin"
copy "$st/nvvm" "$ce/nvvm"
ln -s lib "$ce/targets/$arch/lib64"
ln -s "../targets/$arch/bin/nvcc" "$ce/bin/nvcc"
for f in "$ce/targets/$arch/lib"/libcudart.so*; do
    ln -s "../targets/$arch/lib/$(basename "$f")" "$ce/lib/$(basename "$f")"
done
: | put "$ce/include/zlib.h" # the environment's own headers live in include/
rt=$tmp/conda/envs/rtonly
mkdir -p "$rt/conda-meta" "$rt/targets/$arch/include" "$rt/targets/$arch/lib" "$rt/lib"
printf '{"name": "cuda-cudart", "version": "%s.96"}\n' "$mm" | put "$rt/conda-meta/cuda-cudart-$mm.96-0.json"
for f in cuda_runtime.h cuda_runtime_api.h; do
    ln "$srcinc/$f" "$rt/targets/$arch/include/$f" 2>/dev/null || cp -s "$srcinc/$f" "$rt/targets/$arch/include/$f"
done
for f in "$srclib"/libcudart.so.*; do
    ln "$f" "$rt/targets/$arch/lib/" 2>/dev/null || cp -s "$f" "$rt/targets/$arch/lib/"
done

# ---- the cu13 wheels' shared tree -------------------------------------------------------------
sp=$tmp/wheel/venv/lib/python3.11/site-packages
w=$sp/nvidia/cu13
mkdir -p "$sp/nvidia"
mkdir -p "$w"
copy "$st/bin" "$w/bin"
copy "$srcinc" "$w/include"
copy "$srclib" "$w/lib"
copy "$st/nvvm" "$w/nvvm"
inside "$w"
# the wheels ship only lib*.so.N; the unversioned links and the stub are local additions
find "$w/lib" -maxdepth 1 -type l -name 'lib*.so' -exec rm -f {} +
rm -rf "$w/lib/stubs"
if [ -d "$src/dist-info" ]; then
    for d in "$src"/dist-info/*.dist-info; do
        [ -d "$d" ] && copy "$d" "$sp/$(basename "$d")"
    done
else
    mkdir -p "$sp/nvidia_cuda_nvcc-$mm.88.dist-info"
    printf 'Metadata-Version: 2.1\nName: nvidia-cuda-nvcc\nVersion: %s.88\n' "$mm" |
        put "$sp/nvidia_cuda_nvcc-$mm.88.dist-info/METADATA"
fi

# ---- the CUDA 12 per-component wheel tree (the real wheel) ----------------------------------
rm -f "$tmp/wheel12.SKIP"
wrc=0
wout=$(sh "$here/wheel-cu12.sh" "$out.wheel-cu12" 2>"$tmp/wheel12.err") || wrc=$?
if [ "$wrc" -eq 0 ]; then
    if [ -n "${CTK_WHEEL_CACHE:-}" ]; then cache=$CTK_WHEEL_CACHE
    elif [ -n "${XDG_CACHE_HOME:-}" ]; then cache=$XDG_CACHE_HOME/ctkgen-wheels
    else cache=${HOME:-/nonexistent}/.cache/ctkgen-wheels
    fi
    whl=$cache/nvidia_cuda_runtime_cu12-12.4.127-py3-none-manylinux2014_x86_64.whl
    sp12=$tmp/wheel12/venv/lib/python3.11/site-packages
    mkdir -p "$sp12"
    if [ -f "$whl" ]; then
        # the wheel as pip lays it out: nvidia/cuda_runtime/... and its dist-info
        python3 - "$whl" "$sp12" <<'EOF'
import os, sys, zipfile
whl, dest = sys.argv[1:]
with zipfile.ZipFile(whl) as z:
    for m in z.infolist():
        if m.is_dir():
            continue
        parts = m.filename.split("/")
        if m.filename.startswith("/") or ".." in parts:
            sys.exit("%s: refusing member %s" % (whl, m.filename))
        path = os.path.join(dest, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with z.open(m) as f, open(path, "wb") as g:
            g.write(f.read())
EOF
        chmod -R u=rwX,go=rX "$sp12"
    else
        echo "the wheel is not in the cache at $whl" >"$tmp/wheel12.SKIP"
        rm -rf "$tmp/wheel12"
    fi
elif [ "$wrc" -eq 3 ]; then
    { echo "nvidia-cuda-runtime-cu12 cannot be had here:"; cat "$tmp/wheel12.err"; } >"$tmp/wheel12.SKIP"
else
    cat "$tmp/wheel12.err" >&2
    echo "$0: wheel-cu12.sh failed ($wrc)" >&2
    exit 1
fi
rm -f "$tmp/wheel12.err"
: "${wout:=}"

# ---- Debian's nvidia-cuda-toolkit under a prefix ----------------------------------------------------
du=$tmp/debian/root/usr
nct=$du/lib/nvidia-cuda-toolkit
mkdir -p "$du/bin" "$du/lib" "$nct"
copy "$st/bin" "$nct/bin"
inside "$nct/bin"
for f in "$st/nvvm/bin"/*; do
    ln "$f" "$nct/bin/" 2>/dev/null || cp -s "$f" "$nct/bin/"
done
copy "$st/nvvm/libdevice" "$nct/libdevice"
copy "$srcinc" "$du/include"
copy "$srclib" "$du/lib/$multiarch"
inside "$du/lib/$multiarch"
for f in "$st/nvvm/lib64"/libnvvm.so* "$st/extras/CUPTI/lib64"/*; do
    [ -e "$f" ] || [ -L "$f" ] || continue
    copy "$f" "$du/lib/$multiarch/${f##*/}"
done
for f in "$st/nvvm/include"/* "$st/extras/CUPTI/include"/*; do
    [ -e "$f" ] || continue
    copy "$f" "$du/include/${f##*/}"
done
put "$nct/bin/nvcc.profile" <<'EOF'

TOP              = $(_HERE_)/../../..

NVVMIR_LIBRARY_DIR = $(TOP)/lib/nvidia-cuda-toolkit/libdevice

PATH            += $(TOP)/lib/nvidia-cuda-toolkit/bin:

INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/include/cccl" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib/x86_64-linux-gnu/stubs" "-L$(TOP)/lib/x86_64-linux-gnu"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
put "$du/bin/nvcc" <<'EOF'
#!/bin/sh
# Debian's /usr/bin/nvcc: hands over to the real driver
exec "$(dirname "$0")/../lib/nvidia-cuda-toolkit/bin/nvcc" "$@"
EOF
chmod 755 "$du/bin/nvcc"
# the clang-facing shim: no nvcc, never taken
mkdir -p "$du/lib/cuda/nvvm" "$du/lib/cuda/include"
ln -s ../../nvidia-cuda-toolkit/libdevice "$du/lib/cuda/nvvm/libdevice"
ln "$du/include/cuda.h" "$du/lib/cuda/include/cuda.h" 2>/dev/null || :

# ---- a Spack prefix --------------------------------------------------------------------------------
sroot=$tmp/spack/opt/spack/linux-debian12-$cpu/gcc-12.2.0
hash=q3xkbn7ayp2mwbgfjw5ijrrvbtdcxh6f
spre=$sroot/cuda-$mm.88-$hash
mkdir -p "$sroot"
copy "$st" "$spre"
inside "$spre"
mkdir -p "$spre/.spack"
put "$spre/.spack/spec.json" <<EOF
{"spec": {"_meta": {"version": 4}, "nodes": [{"name": "cuda", "version": "$mm.88",
 "arch": {"platform": "linux", "platform_os": "debian12", "target": "$cpu"},
 "compiler": {"name": "gcc", "version": "12.2.0"}, "hash": "$hash"}]}}
EOF

# ---- depth -------------------------------------------------------------------------------------------
mkdir -p "$tmp/deep/a/b/c"
copy "$st" "$tmp/deep/a/b/c/cuda-$mm"

# ---- /usr/local with a wrapper nvcc ----------------------------------------------------------------
wl=$tmp/wrapper/usr/local
mkdir -p "$wl/bin" "$wl/include"
copy "$st" "$wl/cuda-$mm"
ln -s "cuda-$mm" "$wl/cuda"
ln -s "cuda-$mm/lib64" "$wl/lib64"
for f in "$wl/cuda-$mm/include"/*; do
    ln -s "../cuda-$mm/include/${f##*/}" "$wl/include/${f##*/}"
done
put "$wl/bin/nvcc" <<EOF
#!/bin/sh
exec $out/wrapper/usr/local/cuda-$mm/bin/nvcc "\$@"
EOF
chmod 755 "$wl/bin/nvcc"

# ---- problems: a dangling link, loops, an unreadable directory --------------------------------------------
p=$tmp/problems
mkdir -p "$p/loop/a"
ln -s nowhere "$p/dangling"
ln -s .. "$p/loop/a/b"
ln -s selfloop "$p/selfloop"
copy "$st" "$p/cuda-$mm"
mkdir -p "$p/locked"
copy "$st" "$p/locked/cuda-$mm"
chmod 000 "$p/locked"

fixture_finish
