#!/bin/sh
# sandbox.sh - what the Lua sandbox's meters cost, and how fast it stops
# hostile chunks (bench/sandbox.c).
# SPDX-License-Identifier: MIT
#
# usage: bench/sandbox.sh BUILD_DIR [RUNS]     (RUNS default 7)
#
# BUILD_DIR is a configured and built ctkgen tree (it holds libctk.a and
# ctkconf.h).  The benchmark is compiled against it with -O2 and run once;
# it prints two Markdown tables: per workload the median wall time of RUNS
# runs in a plain lua_State and in the sandbox, and their ratio; per
# hostile chunk the median time the sandbox takes to stop it.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: bench/sandbox.sh BUILD_DIR [RUNS]}
R=${2:-7}
[ -f "$B/libctk.a" ] && [ -f "$B/ctkconf.h" ] || { echo "$0: $B: not a built ctkgen tree" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-sandboxbench-XXXXXX")
trap 'rm -rf "$W"' EXIT
# shellcheck disable=SC2046
${CC:-cc} -O2 -I"$B" -I"$here/generator" -o "$W/sandbox" "$here/bench/sandbox.c" "$B/libctk.a" \
    $(pkg-config --cflags --libs lua5.4 jansson libpkgconf)
"$W/sandbox" "$R"
