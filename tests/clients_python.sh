#!/bin/sh
# clients_python.sh - numba-cuda and CuPy under the multi-toolkit site's
# modules, through real Lmod and real Environment Modules, from a private
# venv of pinned PyPI packages (tests/client-venv.sh, cached with the
# fixtures).  No GPU is needed.
# SPDX-License-Identifier: MIT
#
# numba-cuda 0.30 (tests/clients/python/numba_probe.py): compile_ptx of a
# function that calls libdevice, for sm_75; the libnvvm it loaded
# (cuda.pathfinder: the venv's wheels, conda, the loader's search with the
# module's LD_LIBRARY_PATH, then CUDA_PATH/CUDA_HOME) and the libdevice
# (CUDA_HOME) must be the toolkit's.  CUDA 13.0, 12.4, 13.5 (wheel tree)
# and the HPC SDK split; 11.8 is older than numba-cuda 0.30 supports.
# CuPy 14 for CUDA 13 (cupy-cuda13x; tests/clients/python/cupy_probe.py):
# cupy.cuda.get_cuda_path() is derived from where NVRTC loads
# (cuda.pathfinder), get_nvcc_path() from PATH: the NVRTC and nvcc must be
# the toolkit's, and the path what CuPy computes from that NVRTC (links
# followed: for the HPC SDK fixture, whose large files link to CUDA_ROOT,
# that is CUDA_ROOT's).  CUDA 13.0, 13.5 and the split; a CUDA 12 toolkit
# needs cupy-cuda12x.  Neither client reads pkg-config: there is no .pc
# column for them (docs/clients.md).
. "$(dirname "$0")/lib.sh"
. "$top_srcdir/tests/clients-lib.sh"
vrc=0
V=$(sh "$top_srcdir/tests/client-venv.sh" 2>"$T/venv.err") || vrc=$?
if [ "$vrc" -eq 3 ]; then
    skip "the client venv (numba-cuda, CuPy) cannot be had here: $(tail -n 1 "$T/venv.err")"
elif [ "$vrc" -ne 0 ]; then
    sed 's/^/# /' "$T/venv.err"
    echo "FAIL: tests/client-venv.sh failed ($vrc)"
    exit 1
fi
PY=$V/bin/python
P=$top_srcdir/tests/clients/python
echo "# venv: $V"

# probe SYS NAME SCRIPT: the JSON SCRIPT prints under NAME through SYS ("" if it failed)
probe() {
    $(sys_env "$1" "$2") "$PY" "$P/$3" 2>"$T/probe.err" | tail -n 1 || :
    [ -s "$T/probe.err" ] && sed -n '$s/^/# /p' "$T/probe.err"
}
field() { printf '%s\n' "$1" | jq -r ".$2 // empty" 2>/dev/null; }

for sys in lmod tcl; do
    for n in 13.0 12.4 13.5 13.0-hpcsdk25.9; do
        tag="numba-cuda: $sys: cudatoolkit/$n"
        j=$(probe "$sys" "$n" numba_probe.py)
        check "$tag: compile_ptx (libdevice's pow, sm_75) gives PTX" same_text "$(field "$j" ptx)" true
        check "$tag: the libnvvm loaded is the toolkit's ($(field "$j" nvvm), by $(field "$j" nvvm_by))" \
            all_in_toolkit "$n" "$(field "$j" nvvm)" libnvvm
        check "$tag: the libdevice used is the toolkit's ($(field "$j" libdevice), by $(field "$j" libdevice_by))" \
            all_in_toolkit "$n" "$(field "$j" libdevice)" libdevice
    done
    for n in 13.0 13.5 13.0-hpcsdk25.9; do
        tag="cupy: $sys: cudatoolkit/$n"
        j=$(probe "$sys" "$n" cupy_probe.py)
        check "$tag: the NVRTC CuPy loads is the toolkit's ($(field "$j" nvrtc), by $(field "$j" nvrtc_by))" \
            all_in_toolkit "$n" "$(field "$j" nvrtc)" libnvrtc
        check "$tag: get_nvcc_path() is the toolkit's nvcc ($(field "$j" nvcc))" \
            all_in_toolkit "$n" "$(field "$j" nvcc)" nvcc
        check "$tag: get_cuda_path() is the root of that NVRTC ($(field "$j" cuda_path))" \
            same_text "$(field "$j" cuda_path)" "$(field "$j" nvrtc_root)"
    done
done
finish
