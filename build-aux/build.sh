#!/bin/sh
# build.sh - install what is missing, then configure (once) and build in place.
# SPDX-License-Identifier: MIT
set -eu
cd "$(dirname "$0")/.."
sh build-aux/deps.sh
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure -q
make -s -j"$(nproc)"
