#!/bin/sh
# quickstart.sh - install what is missing, build ctkgen, and publish the CUDA
# toolkits installed in the standard places into ./ctkgen-out, then validate
# every artifact (Tcl modulefiles through the Environment Modules that
# build-aux/deps.sh unpacked, unless MODULES_CMD names another).
# SPDX-License-Identifier: MIT
set -eu
cd "$(dirname "$0")"
sh build-aux/build.sh
: "${MODULES_CMD:=$(pwd)/.deps-local/environment-modules/usr/lib/x86_64-linux-gnu/modulecmd.tcl}"
export MODULES_CMD
./ctkgen generate -o ctkgen-out --validate "$@"
