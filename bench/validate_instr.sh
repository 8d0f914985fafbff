#!/bin/sh
# validate_instr.sh - the instructions a cold `ctkgen validate` of one
# toolkit costs, every program it starts included, against its floor (one
# `nvcc -c` of the CUDA probe), counted by valgrind's callgrind: the figure
# the machine's noise cannot move (docs/benchmarks.md, "ctkgen validate").
# SPDX-License-Identifier: MIT
#
#   CTKGEN=/path/to/ctkgen [CTKGEN_BASE=/path/to/older/ctkgen] sh bench/validate_instr.sh
#
# Environment:
#   CTKGEN          the ctkgen to count (default: ctkgen on PATH)
#   CTKGEN_BASE     an older ctkgen, counted the same way in the same run
#   CTK_BENCH_CUDA  the toolkit (default /usr/local/cuda-13.0)
#   MODULES_CMD     Environment Modules' modulecmd.tcl (default: the copy
#                   build-aux/deps.sh unpacks under .deps-local/)
#
# Counted apart, each under callgrind with --trace-children=yes:
#   floor     nvcc -c kernels/probe.cu
#   validate  ctkgen -q validate --no-cache -j1 of the toolkit with no
#             Environment Modules (MODULES_CMD unset): a traced modulecmd
#             would see valgrind's own variables in its environment and
#             judge the Tcl module apart from the Lua one
#   tcl load  what validate runs for the Tcl module: /bin/sh evaluating
#             `tclsh modulecmd.tcl sh load cudatoolkit/V`, then env -0
#   tcl ask   `tclsh modulecmd.tcl sh --version`, once per validate run
# plus, for the Tcl module, one more run of the CUDA probe in its
# environment (the Lua module's run, counted in validate, stands for it).
# Each program's count is its process's total (callgrind's "totals").
# Takes 5 to 10 minutes a ctkgen on a 2-core machine.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
CUDA=${CTK_BENCH_CUDA:-/usr/local/cuda-13.0}
CTKGEN=${CTKGEN:-$(command -v ctkgen || :)}
BASE=${CTKGEN_BASE:-}
MODULES_CMD=${MODULES_CMD:-$here/.deps-local/environment-modules/usr/lib/modulecmd.tcl}

die() { echo "$0: $*" >&2; exit 1; }
{ [ -n "$CTKGEN" ] && [ -x "$CTKGEN" ]; } || die "no ctkgen: set CTKGEN=/path/to/ctkgen"
[ -z "$BASE" ] || [ -x "$BASE" ] || die "CTKGEN_BASE=$BASE: not an executable"
[ -x "$CUDA/bin/nvcc" ] || die "$CUDA: no bin/nvcc (set CTK_BENCH_CUDA)"
[ -f "$MODULES_CMD" ] || die "$MODULES_CMD: missing (run sh build-aux/deps.sh)"
for t in valgrind tclsh jq awk; do
    command -v $t >/dev/null 2>&1 || die "$t not found"
done

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM
# validate loads modules as user nobody when run as root; callgrind's
# files go where any user may write
chmod 755 "$W"
ver=$("$CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\),.*/\1/p')
printf '{ "sdks": [ { "version": "%s", "base": "%s" } ] }\n' "$ver" "$CUDA" >"$W/site.json"
"$CTKGEN" -q generate -c "$W/site.json" -o "$W/out"
cp "$here/kernels/probe.cu" "$here/kernels/probe_json.h" "$W/"

# counted NAME CMD...: CMD under callgrind, a file per process in $W/cg.NAME
counted() {
    n=$1; shift
    mkdir -m 1777 "$W/cg.$n"
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$W/cg.$n/p.%p" -q "$@" \
        >/dev/null 2>"$W/err.$n" || { echo "# $n exited non-zero; its stderr:" >&2; tail -n 5 "$W/err.$n" >&2; }
}
# programs NAME: "instructions count program" per program name, then the total
programs() {
    for f in "$W/cg.$1"/p.*; do
        c=$(sed -n 's/^cmd: *\([^ ]*\).*/\1/p' "$f" | head -n 1)
        t=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
        echo "${t:-0} ${c##*/}"
    done | awk '{ s[$2] += $1; n[$2]++; T += $1 }
                END { for (k in s) printf "%.0f %d %s\n", s[k], n[k], k; printf "%.0f 0 TOTAL\n", T }' |
        sort -rn
}
total() { programs "$1" | awk '$3 == "TOTAL" { print $1 }'; }

(cd "$W" && counted floor "$CUDA/bin/nvcc" -c probe.cu -o floor.o)
counted new env -u MODULES_CMD -u LMOD_CMD "$CTKGEN" -q validate -c "$W/site.json" -o "$W/out" --no-cache -j1 \
    --timeout 600 --json
[ -z "$BASE" ] || counted base env -u MODULES_CMD -u LMOD_CMD "$BASE" -q validate -c "$W/site.json" -o "$W/out" \
    --no-cache -j1 --timeout 600 --json
counted tclload env -i PATH=/usr/bin:/bin HOME="$W" LC_ALL=C MODULEPATH="$W/out/tcl" M="$MODULES_CMD" V="$ver" \
    /bin/sh -c 'eval "$(tclsh "$M" sh load "cudatoolkit/$V")" && exec env -0'
counted tclask tclsh "$MODULES_CMD" sh --version
# the CUDA probe once more, in the Tcl module's environment (its own run)
(cd "$W" && "$CUDA/bin/nvcc" -c probe.cu -o probe.o -I"$CUDA/include" &&
    c++ probe.o -L"$CUDA/lib64" -lcudart -Xlinker -rpath="$CUDA/lib64" -o probe_pc)
counted tclrun env LD_LIBRARY_PATH="$CUDA/lib64" "$W/probe_pc"

F=$(total floor)
T=$(($(total tclload) + $(total tclrun)))
ASK=$(total tclask)
echo "# instructions (callgrind), one toolkit: $CUDA (nvcc $ver)"
echo "# floor, nvcc -c probe.cu: $F"
for b in new base; do
    [ -d "$W/cg.$b" ] || continue
    V=$(total "$b")
    echo "## $b ($( [ $b = new ] && echo "$CTKGEN" || echo "$BASE"))"
    programs "$b" | awk -v f="$F" '{ printf "  %-12s %3s %14.0f  %6.2f %% of the floor\n", $3, $2 == 0 ? "" : $2, $1, 100 * $1 / f }'
    awk -v v="$V" -v t="$T" -v a="$ASK" -v f="$F" 'BEGIN {
        printf "  Tcl module: load %.0f (with the probe run in its environment), tclsh --version %.0f a run\n", t, a
        printf "  ratio to the floor, one toolkit a run:   %.3f\n", (v + t + a) / f
        printf "  ratio to the floor, six toolkits a run:  %.3f\n", (v + t + a / 6) / f
    }'
done
