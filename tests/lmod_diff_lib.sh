# lmod_diff_lib.sh - run one session of module commands with real Lmod and
# with the sandbox (tests/lmod_diff_driver), and compare what each leaves.
# SPDX-License-Identifier: MIT
# Sourced by tests/lmod_diff.sh and tests/lmod_fuzz.sh (bash, after lib.sh).
#
# A session: a starting environment (NAME=VALUE words) and a list of
# commands ("load NAME", "unload NAME").  Both sides start from exactly that
# environment in a clean `env -i` bash:
#   Lmod     each command is `lmod bash CMD NAME`, its stdout eval'ed in
#            the same shell before the next (docs/lmod-semantics.md,
#            Appendix A);
#   sandbox  lmod_diff_driver --shell evaluates the whole session and
#            prints the final state as bash code, which is eval'ed.
# Then the same shell builtins dump each side's state: `export -p`,
# `alias -p`, `declare -f`; and each command's status (ok, warned: Lmod's
# output ends in "false" and it exits 1, error: the whole command was
# refused).  Equal dumps and equal statuses: the sandbox did what Lmod did.
#
# Dropped from both dumps before comparing, and nothing else:
#   _ModuleTable*       Lmod's serialised module table (base64 Lua); the
#                       sandbox keeps module state in LOADEDMODULES,
#                       _LMFILES_ and the __LMOD_* variables instead.
#   PWD OLDPWD SHLVL    bash's own, not Lmod's.
#   $LD_EXCLUDE         extra names (none by default), for a caller that
#                       must justify each in its own comment.
# complete() output (`complete -p`) and what execute{} commands print are
# not compared: the sandbox records both as operations, not environment.

: "${LMOD_EXEC:=/usr/share/lmod/lmod/libexec/lmod}"
: "${LD_DRIVER:=${top_builddir:-$top_srcdir}/tests/lmod_diff_driver}"
: "${LD_EXCLUDE:=}"

# The state dump, run inside each side's shell after its evals: builtins
# only (PATH may be anything by then); unsets the shell's own variables.
ld_dump_code() {
    printf '%s\n' 'unset PWD OLDPWD SHLVL' \
        "for __ld_v in \${!_ModuleTable@} $LD_EXCLUDE; do unset \"\$__ld_v\"; done" \
        'unset __ld_v; export -p; echo "#--- aliases"; alias -p; echo "#--- functions"; declare -f'
}

# ld_session OUTDIR START_ENV_WORDS... -- CMD NAME [CMD NAME]...
# Runs both sides; leaves in OUTDIR: lmod.state lmod.status lmod.err
# (per command: "### CMD NAME (rc N)" and its stdout and stderr),
# drv.state drv.status drv.out drv.err.  Returns 0 if the two agree,
# 1 if they differ (OUTDIR/diff says how), 2 if a side could not run.
ld_session() {
    lds_out=$1; shift
    lds_env=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do lds_env+=("$1"); shift; done
    shift
    mkdir -p "$lds_out"
    : > "$lds_out/lmod.status"
    : > "$lds_out/lmod.err"
    # --- real Lmod
    lds_dump=$(ld_dump_code)
    env -i "${lds_env[@]}" /bin/bash --norc --noprofile -c '
        __ld_lmod=$1 __ld_out=$2 __ld_dump=$3; shift 3
        while [ $# -gt 0 ]; do
            __ld_o=$("$__ld_lmod" bash "$1" "$2" 2>"$__ld_out/lmod.err1"); __ld_rc=$?
            { echo "### $1 $2 (rc $__ld_rc)"; printf "%s\n" "$__ld_o"; echo "### stderr"; cat "$__ld_out/lmod.err1"; } >> "$__ld_out/lmod.err"
            if [ $__ld_rc -eq 0 ]; then __ld_s=ok
            elif [ "$(printf "%s" "$__ld_o" | tr -d "[:space:]")" = false ]; then __ld_s=error
            else __ld_s=warned; fi
            echo "#status $1 $2 $__ld_s" >> "$__ld_out/lmod.status"
            eval "$__ld_o" > /dev/null 2>&1
            shift 2
        done
        unset __ld_lmod __ld_o __ld_rc __ld_s
        __ld_state=$__ld_out/lmod.state; unset __ld_out
        eval "$__ld_dump" > "$__ld_state"
    ' ldlmod "$LMOD_EXEC" "$lds_out" "$lds_dump" "$@" > "$lds_out/lmod.sh-out" 2>&1 || return 2
    rm -f "$lds_out/lmod.err1"
    # --- the sandbox
    lds_e=()
    for lds_w in "${lds_env[@]}"; do lds_e+=(-e "$lds_w"); done
    "$LD_DRIVER" --shell "${lds_e[@]}" "$@" > "$lds_out/drv.out" 2> "$lds_out/drv.err" || return 2
    grep -E '^#(status|note) ' "$lds_out/drv.out" > "$lds_out/drv.status" || true
    env -i "${lds_env[@]}" /bin/bash --norc --noprofile -c '
        __ld_state=$2 __ld_dump=$3
        . "$1" > /dev/null 2>&1
        eval "$__ld_dump" > "$__ld_state"
    ' lddrv "$lds_out/drv.out" "$lds_out/drv.state" "$lds_dump" > "$lds_out/drv.sh-out" 2>&1 || return 2
    # --- compare
    {
        diff -u --label lmod --label sandbox "$lds_out/lmod.status" "$lds_out/drv.status"
        diff -u --label lmod --label sandbox "$lds_out/lmod.state" "$lds_out/drv.state"
    } > "$lds_out/diff"
    [ -s "$lds_out/diff" ] && return 1
    return 0
}

# ld_have_lmod: real Lmod can run here
ld_have_lmod() {
    [ -x "$LMOD_EXEC" ] && "$LMOD_EXEC" bash --version > /dev/null 2>&1
}

# ld_read_sessions FILE DATA HOMEROOT: reads a sessions file (format in
# tests/data/lmod-diff/sessions) and calls ld_case_hook once per case with
# these set: ld_name, ld_mark ("", differs, bug), ld_reason, ld_words (the
# starting environment: the defaults, then the case's env lines with
# @DATA@ -> DATA and @HOME@ -> HOMEROOT/NAME, each replacing a default of
# the same name) and ld_cmds (CMD NAME pairs).  A line it cannot read is
# reported through ld_bad_line LINENO TEXT.
ld_read_sessions() {
    lrs_file=$1 lrs_data=$2 lrs_homes=$3
    ld_name= ld_mark= ld_reason=
    lrs_env=() ld_cmds=()
    lrs_no=0
    while IFS= read -r lrs_line || [ -n "$lrs_line" ]; do
        lrs_no=$((lrs_no + 1))
        case $lrs_line in
            ''|'#'*) continue ;;
            'case '*) ld_name=${lrs_line#case }; ld_mark= ld_reason=; lrs_env=(); ld_cmds=() ;;
            'env '*) lrs_env+=("${lrs_line#env }") ;;
            'load '*|'unload '*) ld_cmds+=("${lrs_line%% *}" "${lrs_line#* }") ;;
            'differs '*) ld_mark=differs ld_reason=${lrs_line#differs } ;;
            'bug '*) ld_mark=bug ld_reason=${lrs_line#bug } ;;
            end)
                if [ -z "$ld_name" ]; then ld_bad_line "$lrs_no" "'end' outside a case"; continue; fi
                lrs_home=$lrs_homes/$ld_name
                mkdir -p "$lrs_home"
                ld_words=("HOME=$lrs_home" "PATH=/usr/bin:/bin" "MODULEPATH=$lrs_data/mf" "TERM=dumb")
                for lrs_w in "${lrs_env[@]}"; do
                    lrs_w=${lrs_w//@DATA@/$lrs_data}
                    lrs_w=${lrs_w//@HOME@/$lrs_home}
                    for lrs_i in "${!ld_words[@]}"; do
                        [ "${ld_words[$lrs_i]%%=*}" = "${lrs_w%%=*}" ] && unset 'ld_words[lrs_i]'
                    done
                    ld_words+=("$lrs_w")
                done
                ld_case_hook
                ld_name= ;;
            *) ld_bad_line "$lrs_no" "cannot read '$lrs_line'" ;;
        esac
    done < "$lrs_file"
    [ -z "$ld_name" ] || ld_bad_line "$lrs_no" "case $ld_name has no 'end'"
}
