# shellcheck shell=sh disable=SC2034,SC2154
# clients-lib.sh - what the client tests (tests/clients_*.sh) share: the
# multi-toolkit site, generated once into $OUT, and the checks that a
# library a client used came from the toolkit it was given.  Sourced after
# lib.sh.
# SPDX-License-Identifier: MIT
#
# A client runs in one of three ways (SYS):
#   lmod   in a clean shell after `module load cudatoolkit/NAME`, real Lmod
#   tcl    the same through real Environment Modules (modulecmd.tcl)
#   pc     no module: PKG_CONFIG_PATH=$OUT/pkgconfig alone, as in a batch
#          job or a container that has only the .pc files
# A library "comes from the toolkit" when its path, as the linker or the
# loader spelled it (links not followed: the HPC SDK fixture links its large
# files to CUDA_ROOT), lies under one of the SDK's directories in site.json
# (base, math_libs, cupti, nvvm, comm_libs), as spelled or resolved.

need_cuda
need_lmod
need_em
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"
command -v pkg-config >/dev/null 2>&1 || skip "pkg-config not installed (build-aux/deps.sh installs pkgconf)"

site_fixture
S=$F/site.json
OUT=$T/out
cl_rc=0; "$CTKGEN" generate -c "$S" -o "$OUT" >"$T/gen.out" 2>"$T/gen.err" || cl_rc=$?
if [ "$cl_rc" -ne 0 ]; then
    sed 's/^/# /' "$T/gen.err"
    echo "FAIL: ctkgen generate over the site failed ($cl_rc)"
    exit 1
fi
chmod 755 "$T"

# root_of NAME: the SDK's base
root_of() { jq -r --arg n "$1" '.sdks[] | select((.name // .version) == $n) | .base' "$S"; }
# dirs_of NAME: every directory of the SDK, one a line, as spelled and resolved
dirs_of() {
    jq -r --arg n "$1" '.sdks[] | select((.name // .version) == $n) |
        .base, .math_libs, .cupti, .nvvm, (.comm_libs // {} | .[]) | select(. != null)' "$S" |
        while read -r d; do echo "$d"; readlink -f "$d"; done | sort -u
}
# in_toolkit NAME PATH: PATH (normalised, links not followed) lies under
# one of NAME's directories
in_toolkit() {
    it_p=$(realpath -s -m "$2")
    # an ld input script of ctkgen's link dir (OUT/lib: a wheel tree's
    # unversioned names) stands for the toolkit file it names
    if [ -f "$it_p" ] && [ "$(wc -c < "$it_p")" -lt 4096 ] && grep -q '^INPUT("' "$it_p"; then
        it_p=$(sed -n 's/^INPUT("\(.*\)")$/\1/p' "$it_p" | head -n 1)
    fi
    for it_d in $(dirs_of "$1"); do
        case $it_p in "$it_d"/*) return 0 ;; esac
    done
    return 1
}
# all_in_toolkit NAME LIST WHAT: LIST (paths, one a line) is not empty and
# every path in it is NAME's; says which is not
all_in_toolkit() {
    [ -n "$2" ] || { echo "# $1: no $3 found"; return 1; }
    ait_ok=0
    for ait_p in $2; do
        in_toolkit "$1" "$ait_p" || { echo "# $1: $3 $ait_p is not the toolkit's"; ait_ok=1; }
    done
    return $ait_ok
}
# libs_in_trace FILE: the CUDA libraries a linker's --trace output took
# (full paths, one a line; "-lfoo (/path)" and bare paths alike)
CL_LIBS='lib(cudart|cudart_static|cublas|cublasLt|cupti|nvrtc|nvvm)[._]'
libs_in_trace() {
    grep -oE '(^|[ (])/[^ ()]*\.(so|a)[^ ()]*' "$1" | tr -d ' (' | grep -E "/$CL_LIBS" | sort -u
}
# libs_at_run ENVPREFIX PROG: the CUDA libraries the loader maps for PROG
# (ldd, in the environment ENVPREFIX sets up), full paths one a line; a
# library it cannot find is printed as "NOTFOUND:name"
libs_at_run() {
    $1 ldd "$2" 2>&1 | grep -E "$CL_LIBS" |
        sed -n 's/^[[:space:]]*\([^ ]*\) => not found.*/NOTFOUND:\1/p; s/^[[:space:]]*[^ ]* => \(\/[^ ]*\) .*/\1/p' | sort -u
}

# sys_env SYS NAME: a command prefix that runs a command in a clean
# environment with NAME loaded through SYS (for pc: PKG_CONFIG_PATH alone);
# `$(sys_env lmod 13.0) sh -c '...'`
sys_env() {
    case $1 in
        lmod|tcl) echo "env OUT=$OUT sh $top_srcdir/tests/clients-run.sh $1 $OUT cudatoolkit/$2" ;;
        pc) echo "$CLEAN_ENV PKG_CONFIG_PATH=$OUT/pkgconfig" ;;
    esac
}

# expect_rt NAME: what cudaRuntimeGetVersion says for NAME's libcudart
expect_rt() {
    case $1 in
        11.8) echo 11080 ;; 12.4) echo 12040 ;; 13.5) echo 13050 ;; 13.0|13.0-*) echo 13000 ;;
    esac
}
# claim DESCRIPTION WHY COMMAND...: a check; where WHY is not empty it is a
# known failure for that reason (lib.sh: known), else a plain check
claim() {
    cm_d=$1 cm_why=$2; shift 2
    if [ -n "$cm_why" ]; then known "$cm_d (today: $cm_why)" "$@"; else check "$cm_d" "$@"; fi
}
# unchecked DESCRIPTION REASON: a check that could not run because an
# earlier step failed (that failure is counted); said, never passed
unchecked() { echo "# not checked: $1 ($2)"; }

# check_version TAG NAME RUN PROG WHY: PROG, run through RUN, prints
# "cudart <cudaRuntimeGetVersion>" and that is NAME's release.  CUDA 11's
# runtime asks the driver even for its own version: where no driver is
# (no GPU here), its cudaErrorInsufficientDriver (35), or a program that
# then prints nothing, is said, not passed.
if [ -e /proc/driver/nvidia/version ]; then CL_GPU=yes; else CL_GPU=no; fi
check_version() {
    cv_got=$($3 "$4" 2>&1)
    case $CL_GPU:$2:$cv_got in
        no:11.*:*"error 35"*|no:11.*:*": 35"|no:11.*:)
            unchecked "$1: the program reports cudart $(expect_rt "$2")" "no GPU driver here: CUDA 11's cudaRuntimeGetVersion answers cudaErrorInsufficientDriver without one"
            return 0 ;;
    esac
    claim "$1: the program reports cudart $(expect_rt "$2") ($cv_got)" \
        "$5" same_text "$(echo "$cv_got" | awk '{print $2}')" "$(expect_rt "$2")"
}
