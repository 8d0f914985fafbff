#!/bin/sh
# device-validate.sh - on a GPU machine: generate modules for its own CUDA
# toolkit and validate them with --require-launch, using .deps-device/
# (build-aux/device-kit.sh).  Writes the JSON report and the log to $OUT
# (or ./device-out).
# SPDX-License-Identifier: MIT
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
kit=$top/.deps-device
out=${OUT:-$top/device-out}
cuda=${CUDA_ROOT:-/usr/local/cuda-13.0}
mkdir -p "$out"
export PATH="$kit/bin:$PATH"
export LD_LIBRARY_PATH="$kit/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export MODULES_CMD="$kit/modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl"
work=$(mktemp -d)
ver=$("$cuda/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p')
printf '{ "sdks": [ { "version": "%s", "base": "%s" } ] }\n' "$ver" "$cuda" > "$work/site.json"
cp "$work/site.json" "$out/site.json"
{
    echo "# $(uname -srm); $(. /etc/os-release && echo "$PRETTY_NAME")"
    echo "# $(nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | head -n 1)"
    echo "# $(cc --version | head -n 1)"
    echo "$ ctkgen generate -c site.json -o modules"
    ctkgen generate -c "$work/site.json" -o "$work/modules"
    echo "$ ctkgen validate -c site.json -o modules --require-launch --no-cache --json > report.json"
} > "$out/log.txt" 2>&1
rc=0
ctkgen validate -c "$work/site.json" -o "$work/modules" --require-launch --no-cache --json \
    > "$out/report.json" 2>> "$out/log.txt" || rc=$?
echo "exit status: $rc" >> "$out/log.txt"
ctkgen validate -c "$work/site.json" -o "$work/modules" --require-launch --cache-dir "$work/cache" \
    > "$out/table.txt" 2>&1 || :
rm -rf "$work"
cat "$out/log.txt" "$out/table.txt"
exit "$rc"
