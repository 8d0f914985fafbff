#!/bin/sh
# quickstart.sh - install what is missing, build ctkgen, and publish the CUDA
# toolkits installed in the standard places into ./ctkgen-out.
# SPDX-License-Identifier: MIT
set -eu
cd "$(dirname "$0")"
sh build-aux/build.sh
./ctkgen generate -o ctkgen-out "$@"
