#!/bin/bash
# lmod_fuzz.sh - differential fuzzing of the sandbox against real Lmod.
# SPDX-License-Identifier: MIT
#
# For each seed, tests/fuzz/gen_lmod writes 1-4 random modulefiles and a
# random session of 2-7 load/unload commands (its header gives the
# grammar); the session runs with real Lmod and with the sandbox
# (tests/lmod_diff_lib.sh) and the two must leave the same environment,
# aliases, shell functions and command statuses.
#
# Environment:
#   CTK_LMOD_DIFF_RUNS  number of seeds (default 150: about 30 s on
#                       two cores; make check and test.sh run the default)
#   CTK_LMOD_DIFF_SEED  first seed (default 1); seeds are consecutive, so
#                       a run is the same on every machine
#   CTK_LMOD_DIFF_SAVE  where a failing case is saved (default
#                       $top_builddir/tests/lmod-fuzz-failures)
# A difference is reduced (modulefile lines and commands dropped while the
# two still differ) and saved as DIR/seed-N/{original,reduced}, each a
# corpus that `CTK_LMOD_DIFF_DATA=DIR/seed-N/reduced tests/lmod_diff.sh`
# runs again; the seed is printed.  Seeds listed in
# tests/data/lmod-fuzz-known (known sandbox bugs, docs/lmod-differences.md) must still
# differ.  No Lmod: SKIP (77).
. "$(dirname "$0")/lib.sh"
. "$top_srcdir/tests/lmod_diff_lib.sh"

ld_have_lmod || skip "real Lmod not found or not runnable at $LMOD_EXEC (apt-get install lmod)"
GEN=${top_builddir:-$top_srcdir}/tests/fuzz/gen_lmod
for p in "$LD_DRIVER" "$GEN"; do
    [ -x "$p" ] || { echo "not ok - $p not built (make check builds it)"; exit 1; }
done
# as tests/lmod_diff.sh: Lmod writes it on every command
LD_EXCLUDE=__LMOD_REF_COUNT_MODULEPATH

runs=${CTK_LMOD_DIFF_RUNS:-150}
first=${CTK_LMOD_DIFF_SEED:-1}
save=${CTK_LMOD_DIFF_SAVE:-${top_builddir:-$top_srcdir}/tests/lmod-fuzz-failures}
known=$top_srcdir/tests/data/lmod-fuzz-known
case $runs$first in *[!0-9]*) echo "not ok - CTK_LMOD_DIFF_RUNS/SEED must be numbers"; exit 1 ;; esac

ld_bad_line() { echo "# sessions:$1: $2"; bad=1; }
# run_dir DIR: the one case of DIR/sessions; 0 same, 1 differ, 2 broken
run_dir() {
    rd_rc=2 bad=0
    ld_case_hook() {
        rd_rc=0
        ld_session "$T/out" "${ld_words[@]}" -- "${ld_cmds[@]}" || rd_rc=$?
    }
    ld_read_sessions "$1/sessions" "$1" "$T/home"
    [ "$bad" -eq 0 ] || rd_rc=2
    return $rd_rc
}

# reduce DIR: drop each statement line of each modulefile, then each
# command, while the case still differs
reduce() {
    for f in "$1"/mf/*/*.lua "$1/sessions"; do
        n=$(wc -l < "$f")
        i=$n
        while [ "$i" -ge 1 ]; do
            line=$(sed -n "${i}p" "$f")
            case $f:$line in
                *.lua:--*|*.lua:) i=$((i - 1)); continue ;;
                */sessions:load*|*/sessions:unload*) ;;
                */sessions:*) i=$((i - 1)); continue ;;
            esac
            cp "$f" "$T/keep"
            sed -i "${i}d" "$f"
            rc=0
            run_dir "$1" > /dev/null 2>&1 || rc=$?
            [ "$rc" -eq 1 ] || cp "$T/keep" "$f"
            i=$((i - 1))
        done
    done
}

nsame=0 nknown=0 ncmds=0 nfail=0
last=$((first + runs - 1))
for seed in $(seq "$first" "$last"); do
    d=$T/case
    rm -rf "$d" "$T/out" "$T/home"
    "$GEN" "$seed" "$d" || { fail "gen_lmod $seed"; continue; }
    ncmds=$((ncmds + $(grep -cE '^(load|unload) ' "$d/sessions")))
    rc=0
    run_dir "$d" || rc=$?
    reason=
    [ -f "$known" ] && reason=$(sed -n "s/^$seed //p" "$known")
    case $rc in
        0)
            if [ -n "$reason" ]; then
                fail "seed $seed: listed in $(basename "$known") ($reason) but now agrees with Lmod: remove it"
            else
                nsame=$((nsame + 1))
            fi ;;
        1)
            if [ -n "$reason" ]; then
                nknown=$((nknown + 1))
                pass "seed $seed: still differs (known: $reason)"
                continue
            fi
            nfail=$((nfail + 1))
            dest=$save/seed-$seed
            rm -rf "$dest"
            mkdir -p "$dest"
            cp -r "$d" "$dest/original"
            cp "$T/out/diff" "$dest/original.diff"
            cp -r "$d" "$dest/reduced"
            reduce "$dest/reduced"
            run_dir "$dest/reduced" > /dev/null 2>&1
            cp "$T/out/diff" "$dest/reduced.diff"
            fail "seed $seed: the sandbox differs from Lmod; saved in $dest (reduced case below)"
            for f in "$dest"/reduced/mf/*/*.lua; do
                echo "# == ${f#"$dest"/reduced/}"; sed 's/^/#   /' "$f"
            done
            echo "# == session"; grep -vE '^#' "$dest/reduced/sessions" | sed 's/^/#   /'
            echo "# == difference (lmod -, sandbox +)"; sed 's/^/#   /' "$dest/reduced.diff" ;;
        *) fail "seed $seed: a side could not run (rc $rc)"
            cat "$T/out/drv.err" "$T/out/lmod.sh-out" 2>/dev/null | sed 's/^/#   /' ;;
    esac
done
[ "$nfail" -eq 0 ] && pass "seeds $first-$last: the sandbox agrees with Lmod on $nsame, $nknown known to differ"
echo "# lmod_fuzz: seeds $first-$last ($runs sessions, $ncmds commands): $nsame same as Lmod, $nknown known to differ, $nfail new differences"
[ "$fails" -eq 0 ]
