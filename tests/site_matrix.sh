#!/bin/sh
# site_matrix.sh - generate and validate a site of five real toolkits (tests/site-fixture.sh).
# SPDX-License-Identifier: MIT
#
# The site: this machine's CUDA 13.0, Debian's 12.4 and 11.8 assembled into
# runfile-style prefixes, NVIDIA's 13.5 wheels as pip installs them, and an
# HPC SDK split of 13.0.  The fixture is built once into a cache outside
# the clone (docs/testing.md); without network and without that cache this
# test skips (77) and says why, never passes.
#
# What works today is checked; what fails today for a reason issue 15
# records is a known failure (lib.sh: known), printed as "# KNOWN: ..." and
# not counted as a failure, until it passes:
#   - 13.5 wheel tree: only libcudart.so.13, no libcudart.so: -lcudart from
#     the .pc does not take the tree's library at link time (a system
#     copy, or nothing), and validate does not notice
. "$(dirname "$0")/lib.sh"
need_cuda
need_em
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"
command -v pkg-config >/dev/null 2>&1 || skip "pkg-config not installed (build-aux/deps.sh installs pkgconf)"

rc=0
F=$(sh "$top_srcdir/tests/site-fixture.sh" "$CTK_TEST_CUDA" 2>"$T/fixture.err") || rc=$?
if [ "$rc" -eq 3 ]; then
    skip "the multi-toolkit site fixture cannot be had here: $(tail -n 1 "$T/fixture.err")"
elif [ "$rc" -ne 0 ]; then
    cat "$T/fixture.err"
    echo "FAIL: tests/site-fixture.sh failed ($rc)"
    exit 1
fi
S=$F/site.json
echo "# fixture: $F"

# as root, validate loads the modulefiles as user nobody, who must reach them
chmod 755 "$T"
VT=$T/vtmp
mkdir -p "$VT"
export MODULES_CMD="$EM_CMD"
unset LMOD_CMD
if [ -e /proc/driver/nvidia/version ]; then GPU=yes; else GPU=no; fi
echo "# GPU driver here: $GPU"

# the SDKs: name, version generate must report, where that version comes from
SDKS="13.0 13.0 CUDART_VERSION
12.4 12.4.1 version.json
11.8 11.8.0 version.json
13.5 13.5 CUDART_VERSION
13.0-hpcsdk25.9 13.0.0 version.json"
root_of() { jq -r --arg n "$1" '.sdks[] | select((.name // .version) == $n) | .base' "$S"; }

# ---- generate ------------------------------------------------------------------------
OUT=$T/out
rc=0; "$CTKGEN" generate -c "$S" -o "$OUT" >"$T/gen.out" 2>"$T/gen.err" || rc=$?
check "generate of the five toolkits exits 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/gen.err"
printf '%s\n' "$SDKS" >"$T/sdks"
while read -r n v from; do
    check "generate: cudatoolkit/$n is CUDA $v, from $from" \
        grep -qF "cudatoolkit/$n: CUDA $v at $(root_of "$n") (version from $from)" "$T/gen.out"
    check "generate: cudatoolkit/$n has an Lmod module, a Tcl module and ctk-$n.pc" \
        test -s "$OUT/lmod/cudatoolkit/$n.lua" -a -s "$OUT/tcl/cudatoolkit/$n" -a -s "$OUT/pkgconfig/ctk-$n.pc"
done <"$T/sdks"
check "11.8's modules hand nvcc its host compiler in NVCC_PREPEND_FLAGS (host_compiler.ccbin)" sh -c \
    "grep -qF 'prepend_path(\"NVCC_PREPEND_FLAGS\", \"-ccbin=/usr/bin/g++-11\", \" \")' '$OUT/lmod/cudatoolkit/11.8.lua' &&
     grep -qF 'prepend-path -d \" \" \"NVCC_PREPEND_FLAGS\" \"-ccbin=/usr/bin/g++-11\"' '$OUT/tcl/cudatoolkit/11.8'"
check "11.8's .pc carries its host compiler (ccbin=/usr/bin/g++-11)" \
    same_text "$(PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --variable=ccbin ctk-11.8)" /usr/bin/g++-11

# ---- validate ------------------------------------------------------------------------
rc=0
TMPDIR=$VT "$CTKGEN" -q validate -c "$S" -o "$OUT" --no-cache --json >"$T/val.json" 2>"$T/val.err" || rc=$?
check "validate wrote a JSON report" jq -e .summary "$T/val.json" >/dev/null
echo "# validate exit $rc; summary $(jq -c .summary "$T/val.json" 2>/dev/null)"
# verdicts NAME: "kind:verdict" for each artifact of NAME, sorted
verdicts() {
    jq -r --arg m "cudatoolkit/$1" '.sdks[] | select(.module == $m) | .artifacts[] | .kind + ":" + .verdict' \
        "$T/val.json" | sort | tr '\n' ' '
}
# fine NAME: every artifact passed (GPU) or skipped the launch alone (no GPU)
fine() {
    if [ $GPU = yes ]; then want="lmod:pass pc:pass tcl:pass "; else want="lmod:skip pc:skip tcl:skip "; fi
    [ "$(verdicts "$1")" = "$want" ] || { echo "# $1: $(verdicts "$1")"; return 1; }
    [ $GPU = yes ] || [ "$(jq -r --arg m "cudatoolkit/$1" '[.sdks[] | select(.module == $m) | .artifacts[].skip.code] | unique | join(" ")' "$T/val.json")" = CTK-SKIP-001 ]
}
# own_cudart NAME: every probe of NAME loaded a libcudart under NAME's root
own_cudart() {
    r=$(readlink -f "$(root_of "$1")")
    libs=$(jq -r --arg m "cudatoolkit/$1" '.sdks[] | select(.module == $m) | .artifacts[] | (.host_probe.libcudart // empty), (.cuda_probe.libcudart // empty)' "$T/val.json")
    [ -n "$libs" ] || return 1
    for l in $libs; do
        case $(readlink -f "$l") in "$r"/*) ;; *) echo "# $1: a probe loaded $l"; return 1 ;; esac
    done
}
for n in 13.0 12.4 13.5 13.0-hpcsdk25.9; do
    check "validate: cudatoolkit/$n: lmod, tcl and pc all fine ($( [ $GPU = yes ] && echo pass || echo 'skip: no GPU'))" fine "$n"
    check "validate: cudatoolkit/$n: the probes loaded the toolkit's own libcudart" own_cudart "$n"
done
check "validate: cudatoolkit/11.8: lmod, tcl and pc all fine ($( [ $GPU = yes ] && echo pass || echo 'skip: no GPU'))" fine 11.8
check "validate: cudatoolkit/11.8: the probes loaded the toolkit's own libcudart" own_cudart 11.8

# ---- the modules as users load them -------------------------------------------------
cat >"$T/t.cu" <<'EOF'
#include <cuda_runtime.h>
__global__ void k(int *p) { *p = 1; }
int main() { k<<<1, 1>>>(nullptr); return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1; }
EOF
cat >"$T/p.c" <<'EOF'
#include <cuda_runtime.h>
int main(void) { int v = 0; return cudaRuntimeGetVersion(&v) == cudaSuccess ? 0 : 1; }
EOF
# under_lmod NAME COMMAND: COMMAND in a clean shell (gcc 12 is the cc and
# c++ on PATH) after `module load cudatoolkit/NAME` through real Lmod
under_lmod() { n=$1; shift; load_and_run lmod "$OUT/lmod" "cudatoolkit/$n" "cd '$T' && $*"; }
# nvcc_is NAME RELEASE: the nvcc the module puts on PATH is RELEASE and lives under NAME's root
nvcc_is() {
    got=$(under_lmod "$1" 'command -v nvcc && nvcc --version' 2>"$T/nv.err") || { sed 's/^/# /' "$T/nv.err"; return 1; }
    case $(readlink -f "$(echo "$got" | head -n 1)") in "$(readlink -f "$(root_of "$1")")"/*) ;; *) echo "# $1: nvcc is $(echo "$got" | head -n 1)"; return 1 ;; esac
    echo "$got" | grep -q "release $2, "
}
# builds NAME: nvcc -c and link of a CUDA program under the module, nothing else given
builds() { under_lmod "$1" "nvcc -c t.cu -o t-$1.o && nvcc t-$1.o -o t-$1" >"$T/b.log" 2>&1 || { sed -n '1,3s/^/# /p' "$T/b.log"; return 1; }; }
for n in 13.0 12.4 11.8 13.5 13.0-hpcsdk25.9; do
    rel=$(grep "^$n " "$T/sdks" | cut -d' ' -f2 | cut -d. -f1-2)
    check "lmod: cudatoolkit/$n: the nvcc on PATH is its own, release $rel" nvcc_is "$n" "$rel"
done
for n in 13.0 12.4 11.8 13.5 13.0-hpcsdk25.9; do
    check "lmod: cudatoolkit/$n: plain nvcc compiles and links a CUDA program" builds "$n"
done
# honours_ccbin NAME: with NVCC_CCBIN=/usr/bin/g++-11, NAME's nvcc runs g++-11
honours_ccbin() {
    under_lmod "$1" "unset NVCC_PREPEND_FLAGS; NVCC_CCBIN=/usr/bin/g++-11 nvcc -dryrun -c t.cu" 2>&1 | grep -q 'g++-11'
}
# why the modules name the host compiler in NVCC_PREPEND_FLAGS, not NVCC_CCBIN
check "cudatoolkit/13.0's nvcc honours NVCC_CCBIN" honours_ccbin 13.0
ignores_ccbin() { ! honours_ccbin "$1"; }
check "cudatoolkit/12.4's nvcc ignores NVCC_CCBIN (runs gcc from PATH)" ignores_ccbin 12.4
check "cudatoolkit/11.8's nvcc ignores NVCC_CCBIN (runs gcc from PATH)" ignores_ccbin 11.8
# runs_gxx11 SYS: under SYS's module 11.8, plain nvcc runs g++-11 (nvcc -dryrun)
runs_gxx11() {
    load_and_run "$1" "$OUT/$1" cudatoolkit/11.8 "cd '$T' && nvcc -dryrun -c t.cu" 2>&1 | grep -q '"/usr/bin"/g++-11 .*-E -x c++'
}
check "lmod: cudatoolkit/11.8: plain nvcc runs g++-11 (host_compiler.ccbin)" runs_gxx11 lmod
check "tcl: cudatoolkit/11.8: plain nvcc runs g++-11 (host_compiler.ccbin)" runs_gxx11 tcl
check "tcl: cudatoolkit/11.8: plain nvcc compiles and links a CUDA program" \
    load_and_run tcl "$OUT/tcl" cudatoolkit/11.8 "cd '$T' && nvcc t.cu -o t-11.8-tcl"

# keeps_user_flags SYS: a user's own NVCC_PREPEND_FLAGS (with a -ccbin of
# theirs) survives load and comes back exactly on unload; the module's
# -ccbin word goes first, so the user's, later, still wins
keeps_user_flags() {
    mine='-O2 -ccbin=/usr/bin/g++-12 -lineinfo'
    got=$(in_modules "$1" "$OUT/$1" 'printf "%s|" "$NVCC_PREPEND_FLAGS"; module load cudatoolkit/11.8; printf "%s|%s|" "$NVCC_PREPEND_FLAGS" "$CUDAHOSTCXX"; module unload cudatoolkit/11.8; printf "%s|%s" "${NVCC_PREPEND_FLAGS-unset}" "${CUDAHOSTCXX-unset}"' NVCC_PREPEND_FLAGS="$mine" 2>"$T/keep.err")
    same_text "$got" "$mine|-ccbin=/usr/bin/g++-11 $mine|/usr/bin/g++-11|$mine|unset" || { echo "# $1: $got"; sed 's/^/# /' "$T/keep.err"; return 1; }
}
# leaves_none SYS: with no NVCC_PREPEND_FLAGS before, none after the unload
leaves_none() {
    got=$(in_modules "$1" "$OUT/$1" 'module load cudatoolkit/11.8; printf "%s|" "$NVCC_PREPEND_FLAGS"; module unload cudatoolkit/11.8; printf "%s" "${NVCC_PREPEND_FLAGS-unset}"' 2>/dev/null)
    same_text "$got" "-ccbin=/usr/bin/g++-11|unset" || { echo "# $1: $got"; return 1; }
}
for sys in lmod tcl; do
    check "$sys: cudatoolkit/11.8: unload restores the user's own NVCC_PREPEND_FLAGS exactly" keeps_user_flags $sys
    check "$sys: cudatoolkit/11.8: unload leaves no NVCC_PREPEND_FLAGS where the user had none" leaves_none $sys
done

# ---- CMake's CUDA language under the module (CUDAHOSTCXX) ---------------------------
if command -v cmake >/dev/null 2>&1; then
    mkdir -p "$T/cm"
    cp "$T/t.cu" "$T/cm/t.cu"
    printf 'cmake_minimum_required(VERSION 3.18)\nproject(t LANGUAGES CXX CUDA)\nadd_executable(t t.cu)\n' >"$T/cm/CMakeLists.txt"
    # cmake_cuda SYS NAME: configure and build the CUDA project under SYS's module NAME
    cmake_cuda() {
        load_and_run "$1" "$OUT/$1" "cudatoolkit/$2" "cmake -S '$T/cm' -B '$T/cm/b-$1-$2' >'$T/cm/$1-$2.log' 2>&1 && cmake --build '$T/cm/b-$1-$2' >>'$T/cm/$1-$2.log' 2>&1 && grep -q 'set(CMAKE_CUDA_HOST_COMPILER \"/usr/bin/g++-11\")' '$T/cm/b-$1-$2'/CMakeFiles/*/CMakeCUDACompiler.cmake" ||
            { grep -m 3 -E 'error|Error|unsupported' "$T/cm/$1-$2.log" | sed 's/^/# /'; return 1; }
    }
    for sys in lmod tcl; do
        check "$sys: cudatoolkit/11.8: CMake's CUDA language builds, with g++-11 as host compiler (CUDAHOSTCXX)" cmake_cuda $sys 11.8
    done
else
    echo "# cmake not installed: CMake's CUDA language not tried"
fi

# ---- the .pc alone: which libcudart the linker takes --------------------------------
# pc_links_own NAME: cc with `pkg-config --cflags --libs ctk-NAME` links,
# and the linker took libcudart from NAME's tree (-Wl,--trace)
pc_links_own() {
    flags=$(PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --cflags --libs "ctk-$1") || return 1
    # shellcheck disable=SC2086
    $CLEAN_ENV cc -o "$T/p-$1" "$T/p.c" $flags -Wl,--trace >"$T/l.log" 2>&1 || { sed -n '1,3s/^/# /p' "$T/l.log"; return 1; }
    lib=$(grep -o '[^ (]*libcudart[^ )]*' "$T/l.log" | head -n 1)
    case $(readlink -f "$lib") in "$(readlink -f "$(root_of "$1")")"/*) ;; *) echo "# $1: the linker took ${lib:-no libcudart}"; return 1 ;; esac
}
for n in 13.0 12.4 11.8 13.0-hpcsdk25.9; do
    check "pc: ctk-$n links the toolkit's own libcudart" pc_links_own "$n"
done
# the .pc user's nvcc line: -ccbin from the ccbin variable
check "pc: nvcc 11.8 -ccbin \$(pkg-config --variable=ccbin ctk-11.8) compiles with the .pc's flags" sh -c \
    "cd '$T' && $CLEAN_ENV '$(root_of 11.8)/bin/nvcc' -ccbin \"\$(PKG_CONFIG_PATH='$OUT/pkgconfig' pkg-config --variable=ccbin ctk-11.8)\" \$(PKG_CONFIG_PATH='$OUT/pkgconfig' pkg-config --cflags ctk-11.8) -c t.cu -o t-pc-11.8.o"
known "pc: ctk-13.5 links the toolkit's own libcudart (today the wheel tree has only libcudart.so.13, so -lcudart takes another copy or none)" \
    pc_links_own 13.5

finish
