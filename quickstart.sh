#!/bin/sh
# quickstart.sh - install what is missing, build ctkgen, and publish the CUDA
# toolkits installed in the standard places into ./ctkgen-out, then validate
# every artifact (Tcl modulefiles through the Environment Modules that
# build-aux/deps.sh unpacked, unless MODULES_CMD names another).
# SPDX-License-Identifier: MIT
set -eu
cd "$(dirname "$0")"
sh build-aux/build.sh
if [ -z "${MODULES_CMD:-}" ]; then
    # deps.sh unpacks Debian's environment-modules here; the file sits in
    # usr/lib/<multiarch>/, which differs by architecture
    em=$(pwd)/.deps-local/environment-modules
    MODULES_CMD=$(find "$em" -name modulecmd.tcl -type f 2>/dev/null | sort | head -n 1)
    if [ -z "$MODULES_CMD" ]; then
        echo "quickstart: no modulecmd.tcl under $em, where build-aux/deps.sh unpacks" >&2
        echo "quickstart: Environment Modules; run 'sh build-aux/deps.sh' again, or set" >&2
        echo "quickstart: MODULES_CMD to the modulecmd.tcl of an Environment Modules install" >&2
        exit 1
    fi
fi
export MODULES_CMD
./ctkgen generate -o ctkgen-out --validate "$@"
