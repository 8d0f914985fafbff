#!/bin/bash
# lmod_diff.sh - the sandbox against real Lmod, by difference, on a corpus.
# SPDX-License-Identifier: MIT
#
# Usage: tests/lmod_diff.sh [CASE...]   (default: every case)
# Every case of tests/data/lmod-diff/sessions (format in that file) runs
# with real Lmod and with the sandbox (tests/lmod_diff_lib.sh says how, and
# what is compared): the final environment, aliases, shell functions and
# each command's status must be identical.  A case marked `differs` (a
# documented limit of the sandbox) or `bug` (a sandbox bug recorded in
# docs/lmod-differences.md) must STILL differ: when a fix makes it agree, the test fails
# until the mark is removed, so nothing is excluded silently.
# Also checks that every Lmod function the corpus must cover (docs/lint.md,
# "How the sandbox is checked against real Lmod") appears in a corpus file.
# CTK_LMOD_DIFF_KEEP=DIR keeps each case's outputs in DIR/<case>/;
# CTK_LMOD_DIFF_DATA=DIR runs another corpus in the same layout.
# No Lmod: SKIP (77), never a silent pass.
. "$(dirname "$0")/lib.sh"
. "$top_srcdir/tests/lmod_diff_lib.sh"

ld_have_lmod || skip "real Lmod not found or not runnable at $LMOD_EXEC (apt-get install lmod)"
[ -x "$LD_DRIVER" ] || { echo "not ok - $LD_DRIVER not built (make check builds it)"; exit 1; }

# Lmod writes __LMOD_REF_COUNT_MODULEPATH on every command, module or not
# (its own record of MODULEPATH, docs/lmod-semantics.md §7 "always
# present"); the sandbox reports Lmod's variables for what a module changes.
# MODULEPATH itself is compared.
LD_EXCLUDE=__LMOD_REF_COUNT_MODULEPATH

# CTK_LMOD_DIFF_DATA: another corpus (a directory with sessions and mf/),
# e.g. a case tests/lmod_fuzz.sh saved
DATA=${CTK_LMOD_DIFF_DATA:-$top_srcdir/tests/data/lmod-diff}
SESSIONS=$DATA/sessions
OUT=${CTK_LMOD_DIFF_KEEP:-$T/cases}
mkdir -p "$OUT"

# ---- coverage: each function the issue and docs/lmod-semantics.md §2 list
# is called by at least one corpus modulefile
FUNCS="prepend_path append_path remove_path setenv unsetenv pushenv family
load try_load load_any always_load depends_on unload always_unload prereq
prereq_any conflict set_alias unset_alias set_shell_function
unset_shell_function add_property remove_property extensions whatis help
LmodMessage LmodWarning LmodBreak LmodError mode isloaded isAvail isDir isFile
myModuleName myModuleVersion myModuleFullName myModuleUsrName myFileName
myShellName myShellType userInGroups requireFullName hierarchyA pathJoin
split trim os.getenv os.date inherit Pkg execute capture subprocess source_sh
complete uncomplete atleast LmodVersion try_add"
nfuncs=0
[ -n "${CTK_LMOD_DIFF_DATA:-}" ] && FUNCS=
for f in $FUNCS; do
    pat=$f
    case $f in split|trim) pat=":$f(" ;; *) pat="$f" ;; esac
    if grep -rqF --include="*.lua" -- "$pat" "$DATA"; then
        nfuncs=$((nfuncs + 1))
    else
        fail "corpus covers $f"
    fi
done
[ -n "$FUNCS" ] && pass "corpus calls all $nfuncs functions it must cover"

# ---- the cases
want=" $* "
ncases=0 ncmds=0 nsame=0 nknown=0
ld_bad_line() { fail "sessions:$1: $2"; }
ld_case_hook() {
    name=$ld_name
    [ "$want" = "  " ] || case $want in *" $name "*) ;; *) return ;; esac
    ncases=$((ncases + 1))
    ncmds=$((ncmds + ${#ld_cmds[@]} / 2))
    rc=0
    ld_session "$OUT/$name" "${ld_words[@]}" -- "${ld_cmds[@]}" || rc=$?
    case $rc.$ld_mark in
        0.) nsame=$((nsame + 1)); pass "$name: same as Lmod" ;;
        1.differs|1.bug) nknown=$((nknown + 1)); pass "$name: still differs ($ld_mark: $ld_reason)" ;;
        0.differs|0.bug) fail "$name: marked '$ld_mark' ($ld_reason) but now agrees with Lmod: remove the mark"
            nsame=$((nsame + 1)) ;;
        1.) fail "$name: differs from Lmod"; sed 's/^/#   /' "$OUT/$name/diff"
            grep '^#why' "$OUT/$name/drv.out" | sed 's/^/#   /' ;;
        *) fail "$name: a side could not run (rc $rc)"
            cat "$OUT/$name/drv.err" "$OUT/$name/lmod.sh-out" 2>/dev/null | sed 's/^/#   /' ;;
    esac
}
ld_read_sessions "$SESSIONS" "$DATA" "$T/home"
[ "$ncases" -gt 0 ] || fail "no case ran"
echo "# lmod_diff: $ncases cases, $ncmds commands: $nsame same as Lmod, $nknown known to differ, $fails failures; $nfuncs functions covered"
[ "$fails" -eq 0 ]
