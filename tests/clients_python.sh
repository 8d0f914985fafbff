#!/bin/sh
# clients_python.sh - numba-cuda and CuPy over the multi-toolkit site,
# through real Lmod, real Environment Modules and the .pc files alone,
# from private venvs of pinned PyPI packages (tests/client-venv.sh, cached
# with the fixtures).  No GPU is needed.
# SPDX-License-Identifier: MIT
#
# numba-cuda (tests/clients/python/numba_probe.py): compile_ptx of a
# function that calls libdevice, for sm_75; the libnvvm it found and the
# one mapped in the process, and the libdevice, must be the toolkit's.
# numba-cuda 0.30 (venv 13; cuda.pathfinder: the venv's wheels, conda, the
# loader's search, then CUDA_PATH/CUDA_HOME) over CUDA 13.0, 12.4, 13.5
# (wheel tree) and the HPC SDK split; numba-cuda 0.18 (venv 12, the last
# release for CUDA 11, with its ctypes bindings: NUMBA_CUDA_USE_NVIDIA_BINDING=0,
# as no cuda-bindings 11.8 is installed) over 11.8, where it takes the
# toolkit from CUDA_HOME.
# CuPy 14 (tests/clients/python/cupy_probe.py): cupy.cuda.get_cuda_path()
# is derived from where NVRTC loads (cuda.pathfinder), get_nvcc_path()
# from PATH or CUDA_HOME: the NVRTC (as found and as mapped) and nvcc must
# be the toolkit's, the release NVRTC reports the toolkit's, and the path
# what CuPy computes from that NVRTC (links followed: for the HPC SDK
# fixture, whose large files link to CUDA_ROOT, that is CUDA_ROOT's).
# cupy-cuda13x (venv 13) over 13.0, 13.5 and the split; cupy-cuda12x
# (venv 12) over 12.4.
# With the .pc alone (pc), a job script sets what the module would, from
# the .pc: CUDA_HOME from cudaroot and LD_LIBRARY_PATH from
# ld_library_path (cuda.pathfinder asks the loader before CUDA_HOME);
# under Lmod, ld_library_path is checked to be the module's LD_LIBRARY_PATH.
. "$(dirname "$0")/lib.sh"
. "$top_srcdir/tests/clients-lib.sh"
# venv SET: the venv of tests/client-venv.sh SET, or skip
venv() {
    vrc=0
    vd=$(sh "$top_srcdir/tests/client-venv.sh" "$1" 2>"$T/venv.err") || vrc=$?
    if [ "$vrc" -eq 3 ]; then
        skip "the client venv $1 (numba-cuda, CuPy) cannot be had here: $(tail -n 1 "$T/venv.err")"
    elif [ "$vrc" -ne 0 ]; then
        sed 's/^/# /' "$T/venv.err"
        echo "FAIL: tests/client-venv.sh $1 failed ($vrc)"
        exit 1
    fi
    echo "# venv $1: $vd" >&2
    echo "$vd"
}
V13=$(venv 13) || exit $?
V12=$(venv 12) || exit $?
P=$top_srcdir/tests/clients/python

# pcv NAME VARIABLE: the .pc's variable, as a job script reads it
pcv() { PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --variable="$2" "ctk-$1"; }
# runner SYS NAME: the command prefix; for pc, what a job script sets from the .pc
runner() {
    if [ "$1" = pc ]; then
        echo "$(sys_env pc "$2") CUDA_HOME=$(pcv "$2" cudaroot) LD_LIBRARY_PATH=$(pcv "$2" ld_library_path)"
    else
        sys_env "$1" "$2"
    fi
}
# probe SYS NAME VENV SCRIPT [VAR=VALUE...]: the JSON SCRIPT prints ("" if it failed)
probe() {
    pr_run=$(runner "$1" "$2") pr_py=$3/bin/python pr_script=$P/$4; shift 4
    $pr_run env "$@" "$pr_py" "$pr_script" 2>"$T/probe.err" | tail -n 1 || :
    [ -s "$T/probe.err" ] && sed -n '$s/^/# /p' "$T/probe.err"
}
field() { printf '%s\n' "$1" | jq -r ".$2 // empty" 2>/dev/null; }
# all_of JSON FIELD: the array FIELD, one a line
all_of() { printf '%s\n' "$1" | jq -r ".$2[]?" 2>/dev/null; }
# release NAME: the toolkit's X.Y, from expect_rt's XXYY0
release() { r=$(expect_rt "$1"); echo "$((r / 1000)).$((r % 1000 / 10))"; }

# cuda.pathfinder 1.9 asks the loader for libnvrtc.so.13 before .so.12:
# where the loader's cache holds a CUDA 13 NVRTC, CuPy for CUDA 12 takes it
# whatever LD_LIBRARY_PATH names first (a run-time choice no module or .pc
# makes); where it holds none, the toolkit's .so.12 is found
if /sbin/ldconfig -p 2>/dev/null | grep -q 'libnvrtc\.so\.13 '; then
    WHY_NVRTC13="cuda.pathfinder (1.9) asks the loader for libnvrtc.so.13 before libnvrtc.so.12, and this machine's loader cache holds CUDA 13.0's: CuPy for CUDA 12 loads that NVRTC and derives its CUDA path from it"
else
    WHY_NVRTC13=
fi

numba() { # numba SYS NAME VENV [VAR=VALUE...]
    nb_sys=$1 nb_n=$2 nb_v=$3; shift 3
    tag="numba-cuda: $nb_sys: cudatoolkit/$nb_n"
    j=$(probe "$nb_sys" "$nb_n" "$nb_v" numba_probe.py "$@")
    check "$tag: compile_ptx (libdevice's pow, sm_75) gives PTX" same_text "$(field "$j" ptx)" true
    check "$tag: the libnvvm found is the toolkit's ($(field "$j" nvvm), by $(field "$j" nvvm_by))" \
        all_in_toolkit "$nb_n" "$(field "$j" nvvm)" libnvvm
    # the process maps files as resolved (the split fixture links its
    # large files to CUDA_ROOT): the one mapped is the one found, resolved
    check "$tag: the libnvvm mapped in the process is the one found ($(all_of "$j" nvvm_mapped | tr '\n' ' '))" \
        same_text "$(all_of "$j" nvvm_mapped)" "$(readlink -f "$(field "$j" nvvm)")"
    check "$tag: the libdevice used is the toolkit's ($(field "$j" libdevice), by $(field "$j" libdevice_by))" \
        all_in_toolkit "$nb_n" "$(field "$j" libdevice)" libdevice
}
cupy() { # cupy SYS NAME VENV WHY
    tag="cupy: $1: cudatoolkit/$2"
    j=$(probe "$1" "$2" "$3" cupy_probe.py)
    claim "$tag: the NVRTC CuPy loads is the toolkit's ($(field "$j" nvrtc), by $(field "$j" nvrtc_by))" \
        "$4" all_in_toolkit "$2" "$(field "$j" nvrtc)" libnvrtc
    check "$tag: the libnvrtc mapped in the process is the one found ($(all_of "$j" nvrtc_mapped | tr '\n' ' '))" \
        same_text "$(all_of "$j" nvrtc_mapped)" "$(readlink -f "$(field "$j" nvrtc)")"
    claim "$tag: CuPy's NVRTC reports the toolkit's release $(release "$2") ($(field "$j" nvrtc_release))" \
        "$4" same_text "$(field "$j" nvrtc_release)" "$(release "$2")"
    check "$tag: get_nvcc_path() is the toolkit's nvcc ($(field "$j" nvcc))" \
        all_in_toolkit "$2" "$(field "$j" nvcc)" nvcc
    check "$tag: get_cuda_path() is the root of that NVRTC ($(field "$j" cuda_path))" \
        same_text "$(field "$j" cuda_path)" "$(field "$j" nvrtc_root)"
}

for n in 13.0 12.4 11.8 13.5 13.0-hpcsdk25.9; do
    # shellcheck disable=SC2016
    mv=$($(sys_env lmod "$n") sh -c 'echo "$LD_LIBRARY_PATH"')
    check "lmod: cudatoolkit/$n: the .pc's ld_library_path is the module's LD_LIBRARY_PATH" \
        same_text "$(pcv "$n" ld_library_path)" "$mv"
done
for sys in lmod tcl pc; do
    for n in 13.0 12.4 13.5 13.0-hpcsdk25.9; do
        numba "$sys" "$n" "$V13"
    done
    numba "$sys" 11.8 "$V12" NUMBA_CUDA_USE_NVIDIA_BINDING=0
    for n in 13.0 13.5 13.0-hpcsdk25.9; do
        cupy "$sys" "$n" "$V13" ""
    done
    cupy "$sys" 12.4 "$V12" "$WHY_NVRTC13"
done
finish
