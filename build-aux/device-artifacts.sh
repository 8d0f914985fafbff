#!/bin/sh
# device-artifacts.sh - on a GPU machine: generate the artifacts for its CUDA
# 13.0, then build and run the probes from them alone: a module loaded with
# Environment Modules and plain cc / c++ with no -I or -L; the pkgconf CLI
# and nvcc / c++ with no module, in a clean environment.  Needs .deps-device/
# from build-aux/device-kit.sh.
# SPDX-License-Identifier: MIT
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
kit=$top/.deps-device
cuda=/usr/local/cuda-13.0
w=$(mktemp -d)
printf '{ "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$cuda" > "$w/site.json"
LD_LIBRARY_PATH="$kit/lib" "$kit/bin/ctkgen" -q generate -c "$w/site.json" -o "$w/out" || exit 1
MC=$kit/modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl
cd "$w"
echo "== Environment Modules: load, then plain cc / c++ with no -I/-L"
env -i HOME="$w" PATH="$kit/bin:/usr/bin:/bin" sh -c "
  eval \"\$(tclsh $MC sh use $w/out/tcl)\" && eval \"\$(tclsh $MC sh load cudatoolkit/13.0)\" &&
  echo CPATH=\$CPATH && echo LD_LIBRARY_PATH=\$LD_LIBRARY_PATH &&
  cc $top/kernels/host_probe.c -lcudart -o hp && ./hp && echo &&
  c++ $top/tests/data/integration/cccl.cpp -o cc1 && ./cc1" ; echo "rc=$?"
echo "== pkgconf CLI alone (no module): nvcc --cflags, c++ and nvcc --libs, run"
PKGCONF="$kit/pkgconf/usr/bin/pkgconf"
env -i HOME="$w" PATH="/usr/bin:/bin" LD_LIBRARY_PATH="$kit/pkgconf/usr/lib/x86_64-linux-gnu" PKG_CONFIG_PATH="$w/out/pkgconfig" sh -c "
  cf=\$($PKGCONF --cflags ctk-13.0) && lf=\$($PKGCONF --libs ctk-13.0) && echo cflags=\$cf && echo libs=\$lf &&
  unset LD_LIBRARY_PATH &&
  $cuda/bin/nvcc -c $top/kernels/probe.cu -o p.o \$cf && c++ p.o -o p \$lf && ./p && echo &&
  $cuda/bin/nvcc p.o -o p2 \$lf && ./p2" ; echo "rc=$?"
rm -rf "$w"
