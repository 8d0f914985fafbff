#!/bin/sh
# fixtures.sh - build real CUDA toolkit layouts from the toolkit on this machine.
# SPDX-License-Identifier: MIT
#
# usage: fixtures.sh CUDA_ROOT OUTDIR
#
# CUDA_ROOT is a real toolkit (the wheel-assembled tree: bin/, include/,
# lib/ with lib64 -> lib, nvvm/{bin,libdevice}, targets/<arch>/{include,lib}
# as links to ../../include and ../../lib).  Every layout below is a copy
# rearranged with mv: the small files (headers, nvcc, libcudart) copied,
# the large libraries symlinked to the source (fixture-lib.sh: copy), on
# any filesystem, a tmpfs or one apart from the toolkit's included, so
# building takes seconds and no byte of the toolkit is rewritten.  Files
# are only ever moved or replaced, never edited in place: an edit would
# write through a symlink into the real toolkit.
#
# OUTDIR/
#   standalone/cuda-X.Y          runfile layout: real targets/<arch>/{include,lib},
#                                include -> targets/<arch>/include, lib64 -> targets/<arch>/lib,
#                                nvvm/{bin,libdevice,lib64,include}, extras/CUPTI/{include,lib64},
#                                version.json
#   hpcsdk/Linux_<cpu>/25.9/cuda/X.Y            standalone minus the math libs and NCCL
#   hpcsdk/Linux_<cpu>/25.9/math_libs/X.Y/{include,lib64}   cuBLAS cuFFT cuRAND cuSOLVER cuSPARSE nvblas
#   hpcsdk/Linux_<cpu>/25.9/comm_libs/X.Y/nccl/{include,lib}
#   versiontxt/cuda-X.Y          standalone with version.txt instead of version.json
#   noversion/cuda-X.Y           the source tree as is: no version file (CUDART_VERSION only)
#
# X.Y comes from CUDART_VERSION in the source's cuda_runtime_api.h; the
# version files say X.Y.0.  Idempotent and safe to run concurrently: a lock
# (flock, else a mkdir lock) serialises builders, the tree is built in
# OUTDIR.tmp and renamed into place, and OUTDIR/.stamp (holding CUDA_ROOT and the format)
# marks a finished build.  Prints OUTDIR.
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
stamp_text="$src fixtures 2"
. "$here/fixture-lib.sh"
fixture_begin

# move every existing match of the patterns in directory $1 into $2
move() {
    from=$1
    to=$2
    shift 2
    mkdir -p "$to"
    inside "$to"
    for pat in "$@"; do
        for f in "$from"/$pat; do
            if [ -e "$f" ] || [ -L "$f" ]; then
                mv "$f" "$to"/
            fi
        done
    done
}


# ---- what the source is ---------------------------------------------------------
cpu=$(uname -m)
case $cpu in
    x86_64) arch=x86_64-linux; hpc=Linux_x86_64 ;;
    aarch64 | arm64) arch=sbsa-linux; hpc=Linux_aarch64 ;;
    *) arch=$cpu-linux; hpc=Linux_$cpu ;;
esac
srcinc=
for d in "$src/include" "$src/targets/$arch/include"; do
    if [ -f "$d/cuda_runtime_api.h" ]; then srcinc=$d; break; fi
done
[ -n "$srcinc" ] || { echo "$0: $src: no cuda_runtime_api.h" >&2; exit 1; }
srclib=
for d in "$src/lib" "$src/lib64" "$src/targets/$arch/lib"; do
    if [ -d "$d" ] && ls "$d"/libcudart.so* >/dev/null 2>&1; then srclib=$d; break; fi
done
[ -n "$srclib" ] || { echo "$0: $src: no libcudart.so" >&2; exit 1; }
cv=$(sed -n 's/^#define[ 	]*CUDART_VERSION[ 	]*\([0-9][0-9]*\).*/\1/p' "$srcinc/cuda_runtime_api.h" | head -n 1)
[ -n "$cv" ] || { echo "$0: $srcinc/cuda_runtime_api.h: no CUDART_VERSION" >&2; exit 1; }
mm=$((cv / 1000)).$((cv % 1000 / 10))
full=$mm.0

# ---- 1. standalone (runfile layout) ---------------------------------------------
st=$tmp/standalone/cuda-$mm
mkdir -p "$st/targets/$arch"
# physical paths: the source may keep include/lib behind symlinks, and the
# copies must be real directories
copy "$(cd "$srcinc" && pwd -P)" "$st/targets/$arch/include"
copy "$(cd "$srclib" && pwd -P)" "$st/targets/$arch/lib"
ln -s "targets/$arch/include" "$st/include"
ln -s "targets/$arch/lib" "$st/lib64"
copy "$src/bin" "$st/bin"
for d in nvvm extras share doc; do
    if [ -d "$src/$d" ]; then
        copy "$src/$d" "$st/$d"
    fi
done
tinc=$st/targets/$arch/include
tlib=$st/targets/$arch/lib
move "$tlib" "$st/nvvm/lib64" 'libnvvm.so*'
move "$tinc" "$st/nvvm/include" 'nvvm.h'
move "$tinc" "$st/extras/CUPTI/include" 'cupti*.h' 'nvperf*.h' Openacc Openmp
move "$tlib" "$st/extras/CUPTI/lib64" 'libcupti*' 'libnvperf*' 'libpcsamplingutil*' 'libcheckpoint*'
# the runfile's nvcc.profile: everything through $(TOP)/$(_TARGET_DIR_)
put "$st/bin/nvcc.profile" <<'EOF'

TOP              = $(_HERE_)/..

CICC_PATH        = $(TOP)/nvvm/bin
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice

LD_LIBRARY_PATH += $(TOP)/$(_TARGET_DIR_)/lib:
PATH            += $(CICC_PATH):$(_HERE_):

INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)
SYSTEM_INCLUDES +=  "-isystem" "$(TOP)/$(_TARGET_DIR_)/include/cccl" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)/stubs" "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
rm -f "$st/version.json" "$st/version.txt"
put "$st/version.json" <<EOF
{
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "$full"
   },
   "cuda_cudart" : {
      "name" : "CUDA Runtime (cudart)",
      "version" : "$full"
   },
   "cuda_nvcc" : {
      "name" : "CUDA NVCC",
      "version" : "$full"
   }
}
EOF

# ---- 2. HPC SDK split ---------------------------------------------------------------
rel=$tmp/hpcsdk/$hpc/25.9
hc=$rel/cuda/$mm
mkdir -p "$rel/cuda"
copy "$st" "$hc"
hinc=$hc/targets/$arch/include
hlib=$hc/targets/$arch/lib
ml=$rel/math_libs/$mm
move "$hinc" "$ml/include" 'cublas*.h' 'nvblas*.h' 'cufft*.h' 'cudalibxt.h' 'curand*.h' \
    'cusolver*.h' 'cusparse*.h'
move "$hlib" "$ml/lib64" 'libcublas*' 'libnvblas*' 'libcufft*' 'libcurand*' 'libcusolver*' \
    'libcusparse*'
nc=$rel/comm_libs/$mm/nccl
move "$hinc" "$nc/include" 'nccl.h' 'nccl_device.h' 'nccl_device' 'nccl_net.h'
move "$hlib" "$nc/lib" 'libnccl*'

# ---- 3. version.txt instead of version.json ----------------------------------------
vt=$tmp/versiontxt/cuda-$mm
mkdir -p "$tmp/versiontxt"
copy "$st" "$vt"
rm -f "$vt/version.json"
printf 'CUDA Version %s\n' "$full" | put "$vt/version.txt"

# ---- 4. no version file: the source tree as it is -----------------------------------
nv=$tmp/noversion/cuda-$mm
mkdir -p "$tmp/noversion"
copy "$src" "$nv"
rm -f "$nv/version.json" "$nv/version.txt"

fixture_finish
