#!/bin/sh
# device-clients.sh - on the GPU machine: the client test that needs a GPU
# (tests/clients_torch.sh: a PyTorch extension through the module), with
# .deps-device/ (build-aux/device-kit.sh) for ctkgen, tclsh, Environment
# Modules and Lmod: the test runs under both module systems where the kit
# has its Lmod (lmod/bin/lmod), under Environment Modules alone on an
# older kit.  Writes the log to $OUT (or ./device-out).
# SPDX-License-Identifier: MIT
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kit=$top/.deps-device
out=${OUT:-$top/device-out}
mkdir -p "$out"
export PATH="$kit/bin:$PATH"
export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CTKGEN="$kit/bin/ctkgen" top_srcdir="$top"
export EM_CMD="$kit/modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl"
[ -x "$kit/lmod/bin/lmod" ] && export LMOD_EXEC="$kit/lmod/bin/lmod"
export CTK_TEST_CUDA="${CUDA_ROOT:-/usr/local/cuda-13.0}"
rc=0
sh "$top/tests/clients_torch.sh" >"$out/clients_torch.log" 2>&1 || rc=$?
echo "exit status: $rc" >>"$out/clients_torch.log"
cat "$out/clients_torch.log"
exit "$rc"
