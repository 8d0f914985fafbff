#!/bin/sh
# perf_budget.sh - ctkgen's own CPU work against a recorded budget, counted
# in instructions (valgrind's callgrind), which a shared, noisy machine
# does not change: a regression fails the build without timing anything.
# SPDX-License-Identifier: MIT
#
# Counted (ctkgen's process only, not the programs it runs):
#   generate of N toolkits (tests/data/perf-budget: generate_50, generate_100),
#     each toolkit a directory of links into this machine's toolkit, as
#     bench/ makes them by the thousand;
#   the growth from 50 to 100 toolkits, which must stay linear (at most
#     2.2 times);
#   an unchanged re-run of the 100 (rerun_100), which probes, renders and
#     reads nothing and must cost at most 0.15 of the fresh run (at 1000
#     toolkits it is under 0.10: docs/benchmarks.md);
#   validate --no-cache of one toolkit (validate_1).
# The budgets are today's counts with a margin (the file says which); a
# change that makes ctkgen cheaper lowers them there, one that makes it
# dearer says why in the same commit.  docs/benchmarks.md has the figures.
. "$(dirname "$0")/lib.sh"
need_cuda
command -v valgrind >/dev/null 2>&1 || skip "valgrind not installed (build-aux/deps.sh installs it)"
if ldd "$CTKGEN" 2>/dev/null | grep -q 'libasan'; then
    skip "instruction counts are the plain build's (AddressSanitizer build: counted in the main suite)"
fi
B=$top_srcdir/tests/data/perf-budget
# what generate learns of the toolkits, kept for this test alone
XDG_CACHE_HOME=$T/cache
export XDG_CACHE_HOME
budget() { sed -n "s/^$1=\([0-9]*\).*/\1/p" "$B"; }

# toolkits: links into the real one, each its own directory
mk_site() { # mk_site N FILE
    ms_n=$1
    printf '{ "sdks": [' >"$2"
    i=1
    while [ "$i" -le "$ms_n" ]; do
        d=$T/tk/t$i
        if [ ! -d "$d" ]; then
            mkdir -p "$d"
            for e in "$CTK_TEST_CUDA"/*; do ln -s "$e" "$d/${e##*/}"; done
        fi
        [ "$i" -gt 1 ] && printf ',' >>"$2"
        printf '\n { "version": "13.0", "name": "13.0-t%d", "base": "%s" }' "$i" "$d" >>"$2"
        i=$((i + 1))
    done
    printf ' ] }\n' >>"$2"
}
# instructions COMMAND...: the instructions callgrind counted in the command's own process
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$@" >"$T/cg.log" 2>&1 ||
        { sed 's/^/# /' "$T/cg.log" | tail -n 5; echo 0; return; }
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/cg.log" | head -n 1
}
within() { # within NAME COUNT: COUNT is at most the budget NAME
    w_b=$(budget "$1")
    [ -n "$w_b" ] || { echo "# no budget named $1 in $B"; return 1; }
    echo "# $1: $2 instructions, budget $w_b ($(awk -v c="$2" -v b="$w_b" 'BEGIN { printf "%.0f%%", 100 * c / b }'))"
    [ "$2" -gt 0 ] && [ "$2" -le "$w_b" ]
}

mk_site 50 "$T/s50.json"
mk_site 100 "$T/s100.json"
g50=$(instructions "$CTKGEN" -q generate -c "$T/s50.json" -o "$T/o50")
g100=$(instructions "$CTKGEN" -q generate -c "$T/s100.json" -o "$T/o100")
check "generate wrote 100 Lmod modules" [ "$(ls "$T/o100/lmod/cudatoolkit" | wc -l)" -eq 100 ]
check "generate of 50 toolkits within its instruction budget" within generate_50 "$g50"
check "generate of 100 toolkits within its instruction budget" within generate_100 "$g100"
check "generate grows linearly: 100 toolkits cost at most 2.2 times 50 ($g100 / $g50)" \
    awk -v a="$g50" -v b="$g100" 'BEGIN { exit !(a > 0 && b <= 2.2 * a) }'
echo "# per toolkit at 100: $((g100 / 100)) instructions"
r100=$(instructions "$CTKGEN" -v generate -c "$T/s100.json" -o "$T/o100")
check "an unchanged re-run renders no toolkit" grep -q '100 of 100 toolkit(s) not rendered' "$T/cg.log"
check "an unchanged re-run of 100 toolkits within its instruction budget" within rerun_100 "$r100"
check "an unchanged re-run costs at most 0.15 of a fresh run ($r100 / $g100)" \
    awk -v a="$g100" -v b="$r100" 'BEGIN { exit !(a > 0 && b > 0 && b <= 0.15 * a) }'

mk_site 1 "$T/s1.json"
"$CTKGEN" -q generate -c "$T/s1.json" -o "$T/o1" || { echo "FAIL: generate of one toolkit"; exit 1; }
chmod 755 "$T"
v1=$(MODULES_CMD="$EM_CMD" instructions "$CTKGEN" -q validate -c "$T/s1.json" -o "$T/o1" --no-cache)
check "validate --no-cache of one toolkit within its instruction budget (ctkgen's process)" within validate_1 "$v1"
finish
