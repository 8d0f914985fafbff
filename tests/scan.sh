#!/bin/sh
# scan.sh - `ctkgen scan` and `generate --scan` on every layout, built from the real toolkit.
# SPDX-License-Identifier: MIT
#
# The trees come from tests/scan-fixtures.sh (hard links to $CTK_TEST_CUDA,
# and NVIDIA's real cu12 runtime wheel).  For each layout the exact config
# scan writes is compared byte for byte, and what it writes must load with
# `generate -c`.  The unreadable-directory case runs as an unprivileged
# user (root reads a mode-000 directory); without setpriv it is a SKIP line.
. "$(dirname "$0")/lib.sh"
need_cuda

FIX=${TMPDIR:-/tmp}/ctkgen-scanfix-$(id -u)
sh "$top_srcdir/tests/scan-fixtures.sh" "$CTK_TEST_CUDA" "$FIX" >/dev/null || { echo "scan-fixtures.sh failed"; exit 1; }
FIX=$(cd "$FIX" && pwd -P)
MM=$(basename "$(ls -d "$FIX"/standalone/cuda-[0-9]* | head -n 1)")
MM=${MM#cuda-}
case $(uname -m) in
    x86_64) HPC=Linux_x86_64; MA=x86_64-linux-gnu ;;
    aarch64) HPC=Linux_aarch64; MA=aarch64-linux-gnu ;;
    *) HPC=Linux_$(uname -m); MA=$(uname -m)-linux-gnu ;;
esac
echo "# fixtures: $FIX (CUDA $MM)"

# S NAME ARGS...: scan into $T/NAME.json / .err / .rc
S() {
    n=$1; shift
    rc=0
    "$CTKGEN" scan "$@" >"$T/$n.json" 2>"$T/$n.err" || rc=$?
    echo "$rc" >"$T/$n.rc"
}
rc_is() { [ "$(cat "$T/$1.rc")" = "$2" ]; }
err_has() { grep -qxF "ctkgen: $2" "$T/$1.err"; }
err_count() { grep -c "^ctkgen: $2" "$T/$1.err" || :; }
same() { # same NAME: the scan's config is exactly $T/NAME.want
    if cmp -s "$T/$1.want" "$T/$1.json"; then return 0; fi
    diff -u "$T/$1.want" "$T/$1.json" | sed 's/^/#   /'
    return 1
}
loads() { "$CTKGEN" -q generate -c "$T/$1.json" -o "$T/out-$1"; }
one_sdk() { # one_sdk NAME BASE: the config of a lone toolkit (no "default": generate picks)
    cat >"$T/$1.want" <<EOF
{
  "sdks": [
    {
      "version": "$MM",
      "base": "$2"
    }
  ]
}
EOF
}

# ---- standalone, and its symlinked duplicate -------------------------------------------------
S st "$FIX/standalone"
one_sdk st "$FIX/standalone/cuda-$MM"
check "standalone: exit 0" rc_is st 0
check "standalone: the exact config" same st
check "standalone: version from version.json, layout named" \
    err_has st "found $FIX/standalone/cuda-$MM: CUDA $MM.0 (version.json), standalone"
check "standalone: the cuda -> cuda-$MM link is reported once, as a duplicate" \
    err_has st "duplicate $FIX/standalone/cuda: same toolkit as $FIX/standalone/cuda-$MM"
check "standalone: one toolkit found" [ "$(err_count st found)" -eq 1 ]
check "standalone: summary" grep -q "^ctkgen: 1 toolkit, 0 runtime-only trees, 0 problems; [0-9]* directories in [0-9.]* s$" "$T/st.err"
check "standalone: loads with generate -c" loads st
# the link given as the root itself: still the real directory's name
S stl "$FIX/standalone/cuda" "$FIX/standalone/cuda-$MM"
one_sdk stl "$FIX/standalone/cuda-$MM"
check "standalone: link and target as roots give one SDK under the real name" same stl

# ---- runfile --installpath prefix ---------------------------------------------------------------
RP=$FIX/runfile/apps/cuda/$MM.0
S rf "$FIX/runfile"
one_sdk rf "$RP"
check "runfile prefix: the exact config" same rf
check "runfile prefix: version from version.txt" \
    err_has rf "found $RP: CUDA $MM.0 (version.txt), standalone"
check "runfile prefix: loads with generate -c" loads rf
check "runfile prefix: CUPTI from extras/CUPTI on LD_LIBRARY_PATH" \
    grep -qF "prepend_path(\"LD_LIBRARY_PATH\", \"$RP/extras/CUPTI/lib64\")" "$T/out-rf/lmod/cudatoolkit/$MM.lua"
check "runfile prefix: libnvvm from nvvm/lib64 on LD_LIBRARY_PATH" \
    grep -qF "prepend_path(\"LD_LIBRARY_PATH\", \"$RP/nvvm/lib64\")" "$T/out-rf/lmod/cudatoolkit/$MM.lua"

# ---- HPC SDK: two releases with the same CUDA, one release with two ---------------------------------
H=$FIX/hpcsdk/$HPC
S hpc "$FIX/hpcsdk"
# the same CUDA in two releases: the newer release first, so that generate,
# with no "default" in the config, makes it the default (the first of equals)
cat >"$T/hpc.want" <<EOF
{
  "sdks": [
    {
      "version": "12.9",
      "base": "$H/25.9/cuda/12.9",
      "math_libs": "$H/25.9/math_libs/12.9"
    },
    {
      "version": "$MM",
      "name": "$MM-nvhpc-25.9",
      "base": "$H/25.9/cuda/$MM",
      "math_libs": "$H/25.9/math_libs/$MM",
      "comm_libs": {
        "nccl": "$H/25.9/comm_libs/$MM/nccl"
      }
    },
    {
      "version": "$MM",
      "name": "$MM-nvhpc-25.7",
      "base": "$H/25.7/cuda/$MM",
      "math_libs": "$H/25.7/math_libs/$MM",
      "comm_libs": {
        "nccl": "$H/25.7/comm_libs/$MM/nccl"
      }
    }
  ]
}
EOF
check "hpcsdk: exit 0" rc_is hpc 0
check "hpcsdk: the exact config (math_libs, comm_libs, names per release)" same hpc
check "hpcsdk: 12.9 is the toolkit's own word (version.json)" \
    err_has hpc "found $H/25.9/cuda/12.9: CUDA 12.9.1 (version.json), hpcsdk"
check "hpcsdk: the unversioned cuda/ is a duplicate of cuda/$MM" \
    err_has hpc "duplicate $H/25.9/cuda: same toolkit as $H/25.9/cuda/$MM"
check "hpcsdk: compilers/bin/nvcc is neither a toolkit nor a problem" \
    lacks compilers "$T/hpc.err"
check "hpcsdk: loads with generate -c" loads hpc
check "hpcsdk: the two releases' modules do not collide" \
    [ -f "$T/out-hpc/lmod/cudatoolkit/$MM-nvhpc-25.7.lua" -a -f "$T/out-hpc/lmod/cudatoolkit/$MM-nvhpc-25.9.lua" ]
check "hpcsdk: no \"default\" in the config, and generate makes the newer release's $MM it" \
    grep -qxF "module_version(\"cudatoolkit/$MM-nvhpc-25.9\", \"default\")" "$T/out-hpc/lmod/cudatoolkit/.modulerc.lua"
check "hpcsdk: Environment Modules gets the same default" \
    grep -qxF "module-version \"cudatoolkit/$MM-nvhpc-25.9\" default" "$T/out-hpc/tcl/cudatoolkit/.modulerc"
# the admin deletes the default's SDK from the scanned file: still a valid config
cat >"$T/hpc-cut.json" <<EOF
{
  "sdks": [
    { "version": "12.9", "base": "$H/25.9/cuda/12.9", "math_libs": "$H/25.9/math_libs/12.9" },
    { "version": "$MM", "name": "$MM-nvhpc-25.7", "base": "$H/25.7/cuda/$MM",
      "math_libs": "$H/25.7/math_libs/$MM", "comm_libs": { "nccl": "$H/25.7/comm_libs/$MM/nccl" } }
  ]
}
EOF
check "hpcsdk: the config with the default's SDK deleted still generates" \
    "$CTKGEN" -q generate -c "$T/hpc-cut.json" -o "$T/out-hpc-cut"
check "hpcsdk: ... and the remaining highest version is the default" \
    grep -qxF "module_version(\"cudatoolkit/$MM-nvhpc-25.7\", \"default\")" "$T/out-hpc-cut/lmod/cudatoolkit/.modulerc.lua"
# --default writes one, naming a module version found
S hpcd --default "$MM-nvhpc-25.7" "$FIX/hpcsdk"
check "--default: exit 0" rc_is hpcd 0
{ printf '{\n  "default": "%s",\n' "$MM-nvhpc-25.7"; tail -n +2 "$T/hpc.want"; } >"$T/hpcd.want"
check "--default: the config is the scan's with \"default\" first" same hpcd
check "--default: generate makes it the default" sh -c \
    "'$CTKGEN' -q generate -c '$T/hpcd.json' -o '$T/out-hpcd' && \
     grep -qxF 'module_version(\"cudatoolkit/$MM-nvhpc-25.7\", \"default\")' '$T/out-hpcd/lmod/cudatoolkit/.modulerc.lua'"
rc=0; "$CTKGEN" scan --default 11.8 -o "$T/hpc-bad.json" "$FIX/hpcsdk" >"$T/hpcbad.out" 2>"$T/hpcbad.err" || rc=$?
check "--default naming no toolkit found: exit 2" [ "$rc" -eq 2 ]
check "--default naming no toolkit found: the message names the choices" \
    grep -qxF "ctkgen: scan: --default 11.8 names no toolkit found; the choices: 12.9, $MM-nvhpc-25.9, $MM-nvhpc-25.7" "$T/hpcbad.err"
check "--default naming no toolkit found: the hint" grep -qxF "Try 'ctkgen scan --help'." "$T/hpcbad.err"
check "--default naming no toolkit found: nothing written" [ ! -e "$T/hpc-bad.json" -a ! -s "$T/hpcbad.out" ]
S hpcx --default "$MM" "$FIX/hpcsdk"
check "--default: the X.Y of toolkits named apart is no module version (exit 2)" rc_is hpcx 2

# ---- conda -------------------------------------------------------------------------------------------
S conda "$FIX/conda"
one_sdk conda "$FIX/conda/envs/cudaenv"
check "conda: the exact config (the env without nvcc left out)" same conda
check "conda: layout named" err_has conda "found $FIX/conda/envs/cudaenv: CUDA $MM (CUDART_VERSION), conda"
check "conda: the env without cuda-nvcc is runtime-only" \
    grep -q "^ctkgen: runtime-only $FIX/conda/envs/rtonly: CUDA $MM runtime" "$T/conda.err"
check "conda: loads with generate -c" loads conda
check "conda: headers from targets/<arch>/include" \
    grep -qF "prepend_path(\"CPATH\", \"$FIX/conda/envs/cudaenv/targets/" "$T/out-conda/lmod/cudatoolkit/$MM.lua"

# ---- wheels: cu13 tree, and the cu12 per-component tree ----------------------------------------------------
W=$FIX/wheel/venv/lib/python3.11/site-packages/nvidia/cu13
S wheel "$FIX/wheel"
one_sdk wheel "$W"
check "wheel cu13: the exact config" same wheel
check "wheel cu13: layout named, version from CUDART_VERSION (no version.json in wheels)" \
    err_has wheel "found $W: CUDA $MM (CUDART_VERSION), wheel"
check "wheel cu13: loads with generate -c" loads wheel
# the compiler and runtime wheels alone (no cuBLAS, cuFFT, ... nor CUPTI
# wheel): the modules' whatis names what is there and no more
NM=$T/nomath/venv/lib/python3.11/site-packages/nvidia/cu13
mkdir -p "$NM/lib"
for d in bin include nvvm; do cp -al "$W/$d" "$NM/" 2>/dev/null || cp -as "$W/$d" "$NM/"; done
for f in "$W"/lib/libcudart.so*; do ln "$f" "$NM/lib/" 2>/dev/null || cp -s "$f" "$NM/lib/"; done
S nomath "$T/nomath"
one_sdk nomath "$NM"
check "wheel cu13, compiler and runtime only: the exact config" same nomath
check "wheel cu13, compiler and runtime only: loads with generate -c" loads nomath
check "wheel cu13, compiler and runtime only: Lmod whatis says compiler and runtime, no math libraries" \
    grep -qxF "whatis(\"Description: CUDA $MM compiler (nvcc) and runtime from $NM\")" "$T/out-nomath/lmod/cudatoolkit/$MM.lua"
check "wheel cu13, compiler and runtime only: Tcl whatis says the same" \
    grep -qxF "module-whatis \"Description: CUDA $MM compiler (nvcc) and runtime from $NM\"" "$T/out-nomath/tcl/cudatoolkit/$MM"
check "wheel cu13, more wheels: whatis names the math libraries found" \
    grep -qF "math libraries (cuBLAS, cuFFT, cuRAND, cuSOLVER, cuSPARSE)" "$T/out-wheel/lmod/cudatoolkit/$MM.lua"
if [ -f "$FIX/wheel12.SKIP" ]; then
    echo "SKIP: cu12 per-component wheel tree: $(head -n 1 "$FIX/wheel12.SKIP")"
else
    N12=$FIX/wheel12/venv/lib/python3.11/site-packages/nvidia
    S w12 "$FIX/wheel12"
    check "wheel cu12: no toolkit invented: exit 4" rc_is w12 4
    check "wheel cu12: nothing on stdout" [ ! -s "$T/w12.json" ]
    check "wheel cu12: reported as runtime-only, 12.4 from CUDART_VERSION" \
        grep -q "^ctkgen: runtime-only $N12: CUDA 12.4 runtime (CUDART_VERSION in $N12/cuda_runtime/include/cuda_runtime_api.h) and no nvcc" "$T/w12.err"
    check "wheel cu12: counted in the summary" grep -q "^ctkgen: 0 toolkits, 1 runtime-only tree, 0 problems" "$T/w12.err"
    S w12b "$FIX/wheel12" "$FIX/wheel"
    one_sdk w12b "$W"
    check "wheel cu12 next to a toolkit: exit 0, config without it" same w12b
fi

# ---- Debian ------------------------------------------------------------------------------------------------
D=$FIX/debian/root/usr
S deb "$FIX/debian"
one_sdk deb "$D"
check "debian: the exact config (base PREFIX/usr)" same deb
check "debian: layout named" err_has deb "found $D: CUDA $MM (CUDART_VERSION), debian"
check "debian: the lib/cuda shim is not a toolkit" [ "$(err_count deb found)" -eq 1 ]
check "debian: loads with generate -c" loads deb
check "debian: libraries from lib/$MA" \
    grep -qF "prepend_path(\"LD_LIBRARY_PATH\", \"$D/lib/$MA\")" "$T/out-deb/lmod/cudatoolkit/$MM.lua"

# ---- Spack ----------------------------------------------------------------------------------------------------
SP=$(ls -d "$FIX"/spack/opt/spack/linux-*/gcc-*/cuda-*)
S spack "$FIX/spack"
one_sdk spack "$SP"
check "spack: the exact config" same spack
check "spack: layout named" err_has spack "found $SP: CUDA $MM.0 (version.json), spack"
check "spack: loads with generate -c" loads spack

# ---- /usr/local with a wrapper nvcc: the toolkit it runs, never /usr/local itself --------------------------------
WL=$FIX/wrapper/usr/local
S wr "$WL"
one_sdk wr "$WL/cuda-$MM"
check "wrapper: exit 0" rc_is wr 0
check "wrapper: the exact config (cuda-$MM, not the prefix)" same wr
check "wrapper: the wrapper is reported with the toolkit it runs" \
    grep -q "^ctkgen: wrapper $WL: bin/nvcc is a wrapper script of .*/wrapper/usr/local/cuda-$MM/bin/nvcc: .*/cuda-$MM is scanned, not $WL$" "$T/wr.err"
check "wrapper: no problem counted" grep -q "^ctkgen: 1 toolkit, 0 runtime-only trees, 0 problems;" "$T/wr.err"
check "wrapper: loads with generate -c" loads wr
check "wrapper: the module prepends cuda-$MM/bin, never the prefix's bin" \
    eval "grep -qF 'prepend_path(\"PATH\", \"$WL/cuda-$MM/bin\")' '$T/out-wr/lmod/cudatoolkit/$MM.lua' &&
          ! grep -qF '\"$WL/bin\"' '$T/out-wr/lmod/cudatoolkit/$MM.lua'"

# ---- everything at once: names distinct, generate -c and generate --scan agree ---------------------------------
S all "$FIX"
check "all: exit 0 despite the problems" rc_is all 0
nsdk=$(grep -c '"version"' "$T/all.json")
nfound=$(err_count all found)
check "all: one SDK per toolkit found ($nsdk)" [ "$nsdk" -eq "$nfound" -a "$nsdk" -ge 12 ]
names=$(sed -n 's/^      "name": "\(.*\)",$/\1/p' "$T/all.json")
plain=$(grep -c "\"version\": \"$MM\"" "$T/all.json")
check "all: every $MM SDK has a name of its own" [ "$plain" -gt 0 -a "$(echo "$names" | grep -c "^$MM-")" -eq "$plain" ]
check "all: the names are distinct" [ -n "$names" -a "$(echo "$names" | sort | uniq -d | wc -l)" -eq 0 ]
check "all: generate -c loads it" loads all
rc=0; "$CTKGEN" -q generate --scan --check -o "$T/out-all" "$FIX" 2>/dev/null || rc=$?
check "all: generate --scan --check on the tree generate -c wrote: nothing would change" [ "$rc" -eq 0 ]
rc=0; "$CTKGEN" -q generate --scan --check -o "$T/out-all" "$FIX/standalone" 2>/dev/null || rc=$?
check "all: (and --check does see a different scan: exit 1)" [ "$rc" -eq 1 ]
check "all: two problems' worth of loops and a dangling link reported" \
    [ "$(err_count all loop)" -eq 2 -a "$(err_count all dangling)" -eq 1 ]

# ---- problems: reported, skipped, never fatal -------------------------------------------------------------------
P=$FIX/problems
S prob "$P"
check "problems: exit 0" rc_is prob 0
check "problems: dangling link" err_has prob "dangling $P/dangling -> nowhere"
check "problems: a link back to an ancestor is a loop, not followed" \
    err_has prob "loop $P/loop/a/b: leads back to $P/loop"
check "problems: a self-referencing link" err_has prob "loop $P/selfloop -> selfloop: the links never end in a file"
check "problems: summary counts them" grep -q "^ctkgen: 2 toolkits, 0 runtime-only trees, 3 problems;" "$T/prob.err"
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
    NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
    # the build tree may sit in a private dir (a clone in mktemp -d): run
    # a copy of the binary from a dir that user can reach
    chmod 711 "$T"
    mkdir -p "$T/nobody-bin"
    chmod 755 "$T/nobody-bin"
    cp "$CTKGEN" "$T/nobody-bin/ctkgen"
    chmod 755 "$T/nobody-bin/ctkgen"
    if $NOBODY test -x "$T/nobody-bin/ctkgen" && $NOBODY test -r "$P"; then
        rc=0
        $NOBODY "$T/nobody-bin/ctkgen" scan "$P" >"$T/nobody.json" 2>"$T/nobody.err" || rc=$?
        check "unreadable (as uid 65534): exit 0" [ "$rc" -eq 0 ]
        check "unreadable (as uid 65534): reported" err_has nobody "unreadable $P/locked: Permission denied"
        check "unreadable (as uid 65534): the readable toolkit still found" \
            grep -qF "\"base\": \"$P/cuda-$MM\"" "$T/nobody.json"
        check "unreadable (as uid 65534): 4 problems" grep -q "^ctkgen: 1 toolkit, 0 runtime-only trees, 4 problems;" "$T/nobody.err"
    else
        echo "SKIP: unreadable directory: uid 65534 cannot run $T/nobody-bin/ctkgen or read $P"
    fi
elif [ "$(id -u)" -ne 0 ]; then
    rc=0
    "$CTKGEN" scan "$P" >/dev/null 2>"$T/user.err" || rc=$?
    check "unreadable: exit 0" [ "$rc" -eq 0 ]
    check "unreadable: reported" grep -qxF "ctkgen: unreadable $P/locked: Permission denied" "$T/user.err"
else
    echo "SKIP: unreadable directory: running as root and setpriv is not installed"
fi

# ---- depth limit ----------------------------------------------------------------------------------------------------
S d3 --max-depth 3 "$FIX/deep"
check "depth 3: the toolkit 4 levels down is not reached (exit 4)" rc_is d3 4
S d4 --max-depth 4 "$FIX/deep"
one_sdk d4 "$FIX/deep/a/b/c/cuda-$MM"
check "depth 4: it is" same d4
rc=0; "$CTKGEN" -v scan --max-depth 3 "$FIX/deep" >/dev/null 2>"$T/d3v.err" || rc=$?
check "depth 3 -v: the cut is reported" grep -q "^ctkgen: depth $FIX/deep/a/b/c: 1 entry below not looked at (depth limit 3 reached)$" "$T/d3v.err"
S d0 --max-depth 0 "$FIX/standalone/cuda-$MM"
check "depth 0: the root itself is still recognised" rc_is d0 0

# ---- output, quiet, exit codes --------------------------------------------------------------------------------
rc=0; "$CTKGEN" scan -o "$T/site.json" "$FIX/standalone" >"$T/o.out" 2>"$T/o.err" || rc=$?
check "-o: exit 0" [ "$rc" -eq 0 ]
check "-o: the file is what stdout would be" same_bytes "$T/site.json" "$T/st.json"
check "-o: nothing on stdout" [ ! -s "$T/o.out" ]
check "-o: no temporary file left" [ "$(ls -A "$T" | grep -c ctkgen-tmp)" -eq 0 ]
rc=0; "$CTKGEN" scan -o "$T/no/such/dir/site.json" "$FIX/standalone" >/dev/null 2>&1 || rc=$?
check "-o into a missing directory: exit 4" [ "$rc" -eq 4 ]
rc=0; "$CTKGEN" -q scan "$FIX/standalone" >/dev/null 2>"$T/q.err" || rc=$?
check "-q: exit 0 and silent" [ "$rc" -eq 0 -a ! -s "$T/q.err" ]
mkdir -p "$T/empty/sub"
S empty "$T/empty"
check "nothing found: exit 4" rc_is empty 4
check "nothing found: says where it looked" grep -q "^ctkgen: error: no CUDA toolkit found in $T/empty;" "$T/empty.err"
S missing "$T/does-not-exist"
check "a missing root: reported, exit 4" rc_is missing 4
check "a missing root: named" err_has missing "unreadable $T/does-not-exist: No such file or directory"
S bad --max-depth x "$FIX"
check "usage: --max-depth x is exit 2" rc_is bad 2
check "usage: the hint" grep -qxF "Try 'ctkgen scan --help'." "$T/bad.err"
S bad2 --max-depth 65 "$FIX"
check "usage: --max-depth over 64 is exit 2" rc_is bad2 2
S bad3 --bogus
check "usage: unknown option is exit 2" rc_is bad3 2
S bad4 --default= "$FIX/standalone"
check "usage: an empty --default is exit 2" rc_is bad4 2
rc=0; "$CTKGEN" generate -c "$T/site.json" --scan "$FIX" >/dev/null 2>&1 || rc=$?
check "usage: generate -c with --scan is exit 2" [ "$rc" -eq 2 ]
rc=0; "$CTKGEN" generate "$FIX" >/dev/null 2>&1 || rc=$?
check "usage: generate DIR without --scan is exit 2" [ "$rc" -eq 2 ]
rc=0; "$CTKGEN" generate --max-depth 2 -c "$T/site.json" >/dev/null 2>&1 || rc=$?
check "usage: generate --max-depth without --scan is exit 2" [ "$rc" -eq 2 ]
rc=0; "$CTKGEN" -q generate --scan -o "$T/out-empty" "$T/empty" >/dev/null 2>"$T/ge.err" || rc=$?
check "generate --scan finding nothing: exit 4, nothing written" [ "$rc" -eq 4 -a ! -e "$T/out-empty" ]
rc=0; "$CTKGEN" scan --help >"$T/help.out" 2>&1 || rc=$?
check "--help: exit 0, lists --max-depth, --output and --default" \
    sh -c "[ $rc -eq 0 ] && grep -q -- '--max-depth N' '$T/help.out' && grep -q -- '--output FILE' '$T/help.out' && \
           grep -q -- '--default VERSION' '$T/help.out'"

# ---- the real toolkit ----------------------------------------------------------------------------------------------
S real "$CTK_TEST_CUDA"
check "the real toolkit: found" grep -q "^ctkgen: found $CTK_TEST_CUDA: CUDA $MM" "$T/real.err"

finish
