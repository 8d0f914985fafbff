#!/bin/sh
# device-validate.sh - on a GPU machine: generate modules for its own CUDA
# toolkit (as installed, and again requiring a gcc module) and validate
# them with --require-launch, using .deps-device/
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
# Lmod's tcl2lua (the kit's), through which the sandbox reads a Tcl module
# the generated one requires
[ -f "$kit/lmod/lmod/libexec/tcl2lua.tcl" ] && export LMOD_CMD="$kit/lmod/lmod/libexec/lmod"
work=$(mktemp -d)
# as root, validate loads the modulefiles as user nobody, who must reach them
chmod 755 "$work"
ver=$("$cuda/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p')
# the toolkit twice: as installed, and as NAME-gcc requiring a gcc module
# (host_compiler.module) that puts this machine's gcc first on PATH, loaded
# from the site's module dir (--modulepath) before the probes build and launch
gcc=$(command -v gcc-12 || command -v gcc)
gxx=$(command -v g++-12 || command -v g++)
mkdir -p "$work/gcc/bin" "$work/site-modules/gcc"
ln -s "$gcc" "$work/gcc/bin/gcc" && ln -s "$gcc" "$work/gcc/bin/cc"
ln -s "$gxx" "$work/gcc/bin/g++" && ln -s "$gxx" "$work/gcc/bin/c++"
printf '#%%Module1.0\nprepend-path PATH %s/gcc/bin\n' "$work" > "$work/site-modules/gcc/site"
chmod -R a+rX "$work/gcc" "$work/site-modules"
printf '{ "sdks": [ { "version": "%s", "base": "%s" },\n  { "version": "%s", "name": "%s-gcc", "base": "%s", "host_compiler": { "module": "gcc/site" } } ],\n  "validation": { "modulepath": ["%s/site-modules"] } }\n' \
    "$ver" "$cuda" "$ver" "$ver" "$cuda" "$work" > "$work/site.json"
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
