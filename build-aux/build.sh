#!/bin/sh
# build.sh - install what is missing, then configure and build in place.
# SPDX-License-Identifier: MIT
#
# configure runs once; it runs again when the CUDA toolkit it recorded is
# gone, or when it recorded none (a toolkit installed, or nvcc put on PATH,
# since), so a first build on a machine without one never leaves the tests
# that need a toolkit unrun.  `configure --without-cuda` is kept as said.
set -eu
cd "$(dirname "$0")/.."
sh build-aux/deps.sh
[ -x configure ] || autoreconf -fi
if [ -f Makefile ]; then
    had=$(sed -n 's/^CUDA_ROOT = //p' Makefile)
    if [ "$(sed -n 's/^CUDA_SKIP_OK = //p' Makefile)" != yes ] && { [ -z "$had" ] || [ ! -x "$had/bin/nvcc" ]; }; then
        echo "build: configure found no CUDA toolkit${had:+ ($had is gone)} last time; running it again"
        ./config.status --recheck >/dev/null
        ./config.status >/dev/null
    fi
else
    ./configure -q
fi
make -s -j"$(nproc)"
