# lib.sh - helpers shared by the shell tests (sourced, not run).
# SPDX-License-Identifier: MIT
#
# Environment from `make check`: CTKGEN, top_srcdir, top_builddir,
# CTK_TEST_CUDA.  A test that cannot run here exits 77 (SKIP) and says why.

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${CTKGEN:=$top_srcdir/ctkgen}"
: "${CTK_TEST_CUDA:=}"

LMOD_EXEC=${LMOD_EXEC:-/usr/share/lmod/lmod/libexec/lmod}
LMOD_SYNTAX=${LMOD_SYNTAX:-/usr/share/lmod/lmod/libexec/check_module_tree_syntax}
EM_CMD=${EM_CMD:-$top_srcdir/.deps-local/environment-modules/usr/lib/modulecmd.tcl}

fails=0
passes=0
T=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-sh-XXXXXX")
trap 'rm -rf "$T"' EXIT

skip() { echo "SKIP: $*"; exit 77; }
pass() { passes=$((passes + 1)); echo "ok - $*"; }
fail() { fails=$((fails + 1)); echo "not ok - $*"; }
check() { # check DESCRIPTION COMMAND... : pass if the command succeeds
    d=$1; shift
    if "$@"; then pass "$d"; else fail "$d"; fi
}
# none_running PATTERN: no process's command line matches PATTERN (pgrep -f).
# pgrep says "none" by exiting 1; any other status (no pgrep, a bad
# pattern) fails, so a missing tool can never read as "nothing left".
none_running() {
    command -v pgrep >/dev/null 2>&1 || { echo "# pgrep not installed (procps): cannot tell what is running"; return 1; }
    nr_rc=0
    pgrep -f "$1" >/dev/null || nr_rc=$?
    [ "$nr_rc" -eq 1 ]
}
# The helpers below make a check fail when what it looks at is not there:
# a negated grep, an empty `find` or `ls`, and two command outputs that
# agree all read as "fine" when a command is missing, fails, or inspects
# a file that was never written.
#
# lacks GREP-ARGS... FILE: FILE has content and grep finds no line in it
# (grep exits 1).  A missing or unreadable FILE (grep exits 2), no grep, or
# an empty FILE (an output never written) fails.  FILE may be a directory
# for grep -r.
lacks() {
    for lk_f; do :; done   # the last argument
    [ -d "$lk_f" ] || [ -s "$lk_f" ] || { echo "# $lk_f: missing or empty"; return 1; }
    lk_rc=0
    grep -q "$@" || lk_rc=$?
    [ "$lk_rc" -eq 1 ]
}
# finds_none FIND-ARGS...: find runs clean and prints nothing; a start path
# that is missing or unreadable fails rather than finding "nothing".
finds_none() {
    fn_out=$(find "$@") || { echo "# find $*: failed"; return 1; }
    [ -z "$fn_out" ] || { printf '# found: %s\n' "$(printf '%s\n' "$fn_out" | head -3 | tr '\n' ' ')"; return 1; }
}
# empty_dir DIR: DIR exists and holds nothing (ls of a missing DIR prints
# nothing too)
empty_dir() { [ -d "$1" ] && [ -z "$(ls -A "$1")" ]; }
# same_text A B: A and B, two commands' outputs, are equal and not empty
# (two commands that both failed print the same nothing)
same_text() { [ -n "$1" ] && [ "$1" = "$2" ]; }
# differs A B: A and B are both something, and not the same (an empty A,
# from a command that failed, is no evidence that A is not B)
differs() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]; }
# same_bytes FILE1 FILE2: FILE1 has content and FILE2 the same bytes (two
# empty outputs of failed runs compare equal)
same_bytes() { [ -s "$1" ] && cmp -s "$1" "$2"; }
# trusted_dir DIR: ctkgen's rule for running a program (generator/base/trust.h),
# for a directory: DIR and every directory above it, as spelled and as
# resolved, are owned by root or this user and writable by no group and no
# others (a link on the way: owned by root or this user).  Says why not.
trusted_dir() {
    td_me=$(id -u)
    for td_p in "$1" "$(readlink -f "$1")"; do
        case $td_p in /*) ;; *) td_p=$(pwd)/$td_p ;; esac
        while :; do
            td_st=$(stat -c '%u %a' "$td_p") || return 1
            td_uid=${td_st% *} td_mode=${td_st#* }
            if [ "$td_uid" != 0 ] && [ "$td_uid" != "$td_me" ]; then
                echo "# $td_p: owner uid $td_uid"; return 1
            fi
            if [ ! -L "$td_p" ] && [ $((0$td_mode & 022)) -ne 0 ]; then
                echo "# $td_p: mode $td_mode"; return 1
            fi
            [ "$td_p" = / ] && break
            td_p=$(dirname "$td_p")
        done
    done
}
# make_trusted_tmp: TT becomes a new empty directory (mode 0755) that
# ctkgen trusts, in the build tree, removed at exit with $T.  Trees of
# programs ctkgen must be willing to run go there: under $TMPDIR they never
# are (/tmp is world-writable).  Fails, saying why, when the build tree
# itself is not trusted.
make_trusted_tmp() {
    mtt_base=${top_builddir:-$top_srcdir}/tests
    [ -d "$mtt_base" ] || mtt_base=${top_builddir:-$top_srcdir}
    trusted_dir "$mtt_base" || { echo "# $mtt_base: ctkgen would run no program below it"; return 1; }
    TT=$(mktemp -d "$mtt_base/ctkgen-trusted-XXXXXX") || return 1
    chmod 755 "$TT"
    trap 'chmod -R u+rwx "$T" "$TT" 2>/dev/null; rm -rf "$T" "$TT"' EXIT
}
finish() {
    if [ "${knowns:-0}" -gt 0 ]; then
        echo "$passes passed, $fails failed, $knowns known failures (the # KNOWN lines)"
    else
        echo "$passes passed, $fails failed"
    fi
    [ "$fails" -eq 0 ]
}

# A missing toolkit is a skip only where configure was told --without-cuda;
# one configure did not find fails, so it never passes as a green suite.
need_cuda() {
    [ -n "$CTK_TEST_CUDA" ] && [ -x "$CTK_TEST_CUDA/bin/nvcc" ] && return 0
    [ "${CTK_TEST_CUDA_SKIP_OK:-no}" = yes ] && skip "no CUDA toolkit (configured --without-cuda)"
    echo "FAIL: no CUDA toolkit: configure found no nvcc (on PATH or in /usr/local/cuda*, /opt/cuda);"
    echo "FAIL: install one, or configure --with-cuda=DIR, or --without-cuda to skip these tests knowingly"
    exit 1
}
# site_fixture: the multi-toolkit site of tests/site-fixture.sh, built
# once into the cache; sets F (its directory).  Where it cannot be had
# here, a skip (77) that says why; where its script broke, a failure.
site_fixture() {
    sf_rc=0
    F=$(sh "$top_srcdir/tests/site-fixture.sh" "$CTK_TEST_CUDA" 2>"$T/fixture.err") || sf_rc=$?
    if [ "$sf_rc" -eq 3 ]; then
        skip "the multi-toolkit site fixture cannot be had here: $(tail -n 1 "$T/fixture.err")"
    elif [ "$sf_rc" -ne 0 ]; then
        cat "$T/fixture.err"
        echo "FAIL: tests/site-fixture.sh failed ($sf_rc)"
        exit 1
    fi
    echo "# fixture: $F"
}
need_lmod() { [ -f "$LMOD_EXEC" ] || skip "Lmod not installed ($LMOD_EXEC)"; }
need_em() { [ -f "$EM_CMD" ] || skip "Environment Modules not unpacked ($EM_CMD; run build-aux/deps.sh)"; }

# A clean environment: nothing from the caller's CUDA setup leaks in.
CLEAN_ENV="env -i HOME=$T/home PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR=${TMPDIR:-/tmp}"
mkdir -p "$T/home"

VARS="PATH CPATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH MANPATH CUDA_HOME CUDA_PATH CUDAToolkit_ROOT LDFLAGS CFLAGS CXXFLAGS"

# print_env_after MODULE_SYSTEM MODULEPATH MODULE [COMMAND]: run COMMAND (default:
# print the interesting variables) in a clean shell after loading MODULE.
load_and_run() {
    sys=$1 mp=$2 mod=$3; shift 3
    case $sys in
        lmod) loader="eval \"\$(MODULEPATH='$mp' '$LMOD_EXEC' bash load '$mod')\"" ;;
        tcl)  loader="eval \"\$(MODULEPATH='$mp' tclsh '$EM_CMD' bash load '$mod')\"" ;;
    esac
    $CLEAN_ENV sh -c "$loader && $*"
}

print_vars='for v in '"$VARS"'; do eval "printf \"%s=%s\\n\" \$v \"\${$v-<unset>}\""; done'

# module_fn SYS: shell code defining a `module` function for SYS (lmod or
# tcl) that reads MODULEPATH from the environment, so that one shell can
# load, unload and purge in turn, as a user's does.
module_fn() {
    case $1 in
        lmod) printf 'module() { eval "$('"'%s'"' bash "$@")"; }' "$LMOD_EXEC" ;;
        tcl) printf 'module() { eval "$(tclsh '"'%s'"' bash "$@")"; }' "$EM_CMD" ;;
    esac
}

# in_modules SYS MODULEPATH SCRIPT [NAME=VALUE...]: run SCRIPT in a clean sh
# where `module` is SYS's, with MODULEPATH and the NAME=VALUE pairs (which
# win over CLEAN_ENV's) in the environment.  Messages of the module system
# go to stderr, as in a user's shell.
in_modules() {
    im_sys=$1 im_mp=$2 im_script=$3; shift 3
    $CLEAN_ENV MODULEPATH="$im_mp" "$@" sh -c "$(module_fn "$im_sys"); $im_script"
}

# The variables a module system keeps for its own bookkeeping (Lmod's module
# table and reference counts, Environment Modules' __MODULES_*): left out
# when an environment is compared before and after a module command.
MODSYS_OWN='^(_ModuleTable[0-9]*_|_ModuleTable_Sz_|__LMOD_REF_COUNT_[A-Za-z0-9_]*|__MODULES_[A-Za-z0-9_]*)='
# snap_env: shell code printing the environment, sorted, without MODSYS_OWN
snap_env="env | grep -Ev '$MODSYS_OWN' | sort"

# series_config FILE FIRST LAST HELP TOOLKIT: a config of the SDKs
# 13.0-sFIRST .. 13.0-sLAST (two digits), all at TOOLKIT, with HELP as the
# site help text; pkgconfig_dir is fixed, so the tree does not depend on
# where it is written.
series_config() {
    {
        printf '{ "module_name": "cudatoolkit", "default": "13.0-s%02d", "help": "%s",\n  "pkgconfig_dir": "/apps/pkgconfig",\n  "sdks": [\n' "$2" "$4"
        i=$2
        while [ "$i" -le "$3" ]; do
            sep=,; [ "$i" -eq "$3" ] && sep=
            printf '    { "version": "13.0", "name": "13.0-s%02d", "base": "%s" }%s\n' "$i" "$5" "$sep"
            i=$((i + 1))
        done
        printf '  ]\n}\n'
    } > "$1"
}

# known DESCRIPTION COMMAND...: a check that fails today for a reason
# recorded in an issue (the way `check` would state it once fixed).  Its
# failure prints "# KNOWN: DESCRIPTION" and is counted apart, not as a
# failure; its success fails the test ("now passes"), as automake's XPASS
# does, so that whoever fixes it turns it into a check.
knowns=0
known() {
    d=$1; shift
    if "$@"; then
        fail "known failure now passes: $d (make it a check)"
    else
        knowns=$((knowns + 1)); echo "# KNOWN: $d"
    fi
}
