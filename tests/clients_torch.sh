#!/bin/sh
# clients_torch.sh - a PyTorch C++/CUDA extension built with
# torch.utils.cpp_extension.load_inline through a generated module (Lmod
# where installed, Environment Modules), then run on the GPU: the
# workflow HPC users follow to build extensions for their environment.
# Needs a GPU and a Python with PyTorch (CTK_TORCH_PYTHON, else python3):
# on the GPU machine (build-aux/device-clients.sh); elsewhere it skips.
# SPDX-License-Identifier: MIT
#
# The site is this machine's toolkit alone (CTK_TEST_CUDA): the GPU
# machine has no fixture cache.  Checked: the extension builds, the nvcc
# its build.ninja runs and the -L it links with are the toolkit's,
# torch's CUDA_HOME is the module's, and the kernel gives the right answer.
. "$(dirname "$0")/lib.sh"
[ -e /proc/driver/nvidia/version ] || skip "no GPU driver here: the PyTorch extension test runs on the GPU machine (build-aux/device-clients.sh)"
PY=$(command -v "${CTK_TORCH_PYTHON:-python3}") || skip "no ${CTK_TORCH_PYTHON:-python3}"
"$PY" -c 'import torch' >/dev/null 2>&1 || skip "no PyTorch for $PY"
need_cuda
need_em
command -v jq >/dev/null 2>&1 || skip "jq not installed"
echo "# $("$PY" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda)')"
ver=$("$CTK_TEST_CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p')
printf '{ "sdks": [ { "version": "%s", "base": "%s" } ] }\n' "$ver" "$CTK_TEST_CUDA" >"$T/site.json"
OUT=$T/out
"$CTKGEN" -q generate -c "$T/site.json" -o "$OUT" || { echo "FAIL: generate"; exit 1; }
root=$(readlink -f "$CTK_TEST_CUDA")
under_root() { case $(realpath -s -m "$1") in "$CTK_TEST_CUDA"/*|"$root"/*) return 0 ;; esac; echo "# $1 is not under $CTK_TEST_CUDA"; return 1; }
# is_root DIR: DIR is the toolkit's root, as spelled or resolved
is_root() { [ "$(realpath -s -m "$1")" = "$CTK_TEST_CUDA" ] || [ "$(readlink -f "$1")" = "$root" ] || { echo "# $1 is not $CTK_TEST_CUDA"; return 1; }; }
pybin=$(dirname "$PY")
systems=tcl
[ -f "$LMOD_EXEC" ] && systems="lmod tcl"
for sys in $systems; do
    tag="torch: $sys: cudatoolkit/$ver"
    B=$T/ext-$sys
    mkdir -p "$B"
    # the user's Python (and the ninja beside it) after the module's PATH
    j=$(env HOME="$T/home" sh "$top_srcdir/tests/clients-run.sh" "$sys" "$OUT" "cudatoolkit/$ver" \
        sh -c 'PATH=$PATH:'"$pybin"' exec "$0" "$@"' "$PY" "$top_srcdir/tests/clients/torch/ext.py" "$B" 2>"$B.err" | tail -n 1)
    [ -n "$j" ] || sed -n '1,5s/^/# /p;$s/^/# /p' "$B.err"
    check "$tag: load_inline builds the extension and its kernel adds one on the GPU" \
        same_text "$(printf '%s' "$j" | jq -r .ok 2>/dev/null)" true
    check "$tag: torch's CUDA_HOME is the module's ($(printf '%s' "$j" | jq -r .cuda_home 2>/dev/null))" \
        is_root "$(printf '%s' "$j" | jq -r '.cuda_home // "none"' 2>/dev/null)"
    nv=$(sed -n 's/^nvcc = \([^ ]*\).*/\1/p' "$B/build.ninja" 2>/dev/null)
    check "$tag: the nvcc the extension's build ran is the toolkit's ($nv)" under_root "${nv:-none}"
    ld=$(sed -n 's/^ldflags = //p' "$B/build.ninja" 2>/dev/null | tr ' ' '\n' | sed -n 's/^-L\(.*\)/\1/p' | grep -i cuda | head -n 1)
    check "$tag: the extension links the toolkit's CUDA libraries (-L$ld)" under_root "${ld:-none}"
done
finish
