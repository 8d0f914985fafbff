#!/bin/sh
# integration.sh - what ctkgen writes, loaded and used by the real clients:
# Lmod, Environment Modules, the pkgconf CLI, cc, c++ and nvcc.
# SPDX-License-Identifier: MIT
#
# For each real layout (the toolkit on this machine, a runfile-style tree and
# an HPC SDK split tree built from it by hard links):
#  1. both modulefiles give the same PATH, CPATH, LIBRARY_PATH,
#     LD_LIBRARY_PATH, PKG_CONFIG_PATH, and never LDFLAGS/CFLAGS or stubs;
#  2. in each module's environment, plain `cc` with no -I/-L builds a C
#     program that includes cuda_runtime.h, from the module's include dir,
#     and it runs against the module's libcudart;
#  3. with no module loaded, nvcc + pkg-config --cflags compiles a .cu,
#     c++ + pkg-config --libs links it, and it runs against that toolkit;
#  4. in the split layout, cuBLAS + CUPTI build from the artifacts alone.
. "$(dirname "$0")/lib.sh"
need_cuda
need_lmod
need_em

FIX=${TMPDIR:-/tmp}/ctkgen-fixtures-$(id -u)
sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$FIX" >/dev/null || { echo "fixtures.sh failed"; exit 1; }
HPC=$FIX/hpcsdk/Linux_x86_64/25.9

# layout NAME BASE [EXTRA JSON MEMBERS]
layouts="wheel standalone hpcsdk"
base_of() {
    case $1 in
        wheel) echo "$CTK_TEST_CUDA" ;;
        standalone) echo "$FIX/standalone/cuda-13.0" ;;
        hpcsdk) echo "$HPC/cuda/13.0" ;;
    esac
}
extra_of() {
    case $1 in
        hpcsdk) printf ', "math_libs": "%s", "comm_libs": {"nccl": "%s"}' \
                    "$HPC/math_libs/13.0" "$HPC/comm_libs/13.0/nccl" ;;
    esac
}

first_of() { printf '%s\n' "$1" | sed -n "s/^$2=//p" | cut -d: -f1; }

for L in $layouts; do
    base=$(base_of "$L")
    out=$T/out-$L
    cat > "$T/$L.json" <<JSON
{ "module_name": "cudatoolkit", "default": "13.0",
  "sdks": [ { "version": "13.0", "base": "$base" $(extra_of "$L") } ] }
JSON
    check "$L: generate" "$CTKGEN" -q generate -c "$T/$L.json" -o "$out"

    # Lmod and Environment Modules spell a trailing empty MANPATH element
    # as "::" and ":" respectively; fold runs of ':' before comparing
    lenv=$(load_and_run lmod "$out/lmod" cudatoolkit/13.0 "$print_vars" | sed '/^MANPATH=/s/::*/:/g')
    tenv=$(load_and_run tcl "$out/tcl" cudatoolkit/13.0 "$print_vars" | sed '/^MANPATH=/s/::*/:/g')
    if [ -n "$lenv" ] && [ "$lenv" = "$tenv" ]; then
        pass "$L: Lmod and Environment Modules give the same environment"
    else
        fail "$L: Lmod and Environment Modules differ"
        printf 'lmod:\n%s\ntcl:\n%s\n' "$lenv" "$tenv"
    fi
    check "$L: PATH starts with the toolkit's bin" [ "$(first_of "$lenv" PATH)" = "$base/bin" ]
    inc=$(first_of "$lenv" CPATH)
    check "$L: first CPATH entry holds cuda_runtime.h" [ -f "$inc/cuda_runtime.h" ]
    check "$L: PKG_CONFIG_PATH names the generated pkgconfig dir" \
        [ "$(first_of "$lenv" PKG_CONFIG_PATH)" = "$(cd "$out/pkgconfig" && pwd -P)" ]
    check "$L: no LDFLAGS, CFLAGS or CXXFLAGS" \
        sh -c "printf '%s\n' '$lenv' | grep -Eq '^(LDFLAGS|CFLAGS|CXXFLAGS)=<unset>\$' && \
               [ \$(printf '%s\n' '$lenv' | grep -Ec '^(LDFLAGS|CFLAGS|CXXFLAGS)=<unset>\$') -eq 3 ]"
    check "$L: no stubs dir on LD_LIBRARY_PATH" \
        sh -c "! printf '%s\n' '$lenv' | grep '^LD_LIBRARY_PATH=' | grep -q stubs"
    check "$L: CUDA_HOME is the toolkit root" sh -c "printf '%s\n' '$lenv' | grep -qx 'CUDA_HOME=$base'"

    # 2. host compile through the module alone, under each module system
    lib=$(first_of "$lenv" LD_LIBRARY_PATH)
    for sys in lmod tcl; do
        w=$T/$L-$sys
        mkdir -p "$w"
        if load_and_run "$sys" "$out/$sys" cudatoolkit/13.0 \
            "cd '$w' && cc -M '$top_srcdir/kernels/host_probe.c' > deps && \
             cc '$top_srcdir/kernels/host_probe.c' -lcudart -o host_probe && ./host_probe > report" \
            >"$w/log" 2>&1; then
            pass "$L/$sys: cc builds and runs host_probe.c with no -I/-L"
        else
            fail "$L/$sys: cc could not build or run host_probe.c"; cat "$w/log"
        fi
        check "$L/$sys: cuda_runtime.h came from the module's include dir" \
            grep -q "$inc/cuda_runtime.h" "$w/deps"
        check "$L/$sys: the probe loaded the module's libcudart" \
            grep -q "\"libcudart\":\"$lib/libcudart.so" "$w/report"
    done

    # 3. nvcc with pkg-config flags alone, no module, clean environment
    w=$T/$L-pc
    mkdir -p "$w"
    pcenv="PKG_CONFIG_PATH=$out/pkgconfig"
    if $CLEAN_ENV sh -c "cd '$w' && export $pcenv && \
        '$base/bin/nvcc' -c '$top_srcdir/kernels/probe.cu' -o probe.o \$(pkgconf --cflags ctk-13.0) && \
        c++ probe.o -o probe \$(pkgconf --libs ctk-13.0) && \
        '$base/bin/nvcc' probe.o -o probe_nvcc_linked \$(pkgconf --libs ctk-13.0) && \
        ./probe > report && ./probe_nvcc_linked > report2" >"$w/log" 2>&1; then
        pass "$L: nvcc --cflags, c++ and nvcc --libs from ctk-13.0.pc build probe.cu"
    else
        fail "$L: building probe.cu from ctk-13.0.pc failed"; cat "$w/log"
    fi
    check "$L: probe built from the .pc runs against the toolkit's libcudart without a module" \
        grep -q "\"libcudart\":\"$lib/libcudart.so" "$w/report"
    check "$L: pkgconf validates ctk-13.0.pc" $CLEAN_ENV sh -c "$pcenv pkgconf --validate ctk-13.0"
    check "$L: pkg-config --modversion is 13.0.x" \
        sh -c "$CLEAN_ENV $pcenv pkgconf --modversion ctk-13.0 | grep -Eq '^13\.0(\.[0-9]+)?\$'"

done

# the default module, and the full-version alias of a toolkit with version.json
out=$T/out-standalone
for sys in lmod tcl; do
    v=$(load_and_run "$sys" "$out/$sys" cudatoolkit 'echo "$CUDA_HOME"' 2>/dev/null)
    check "$sys: 'module load cudatoolkit' loads the default" [ "$v" = "$FIX/standalone/cuda-13.0" ]
    v=$(load_and_run "$sys" "$out/$sys" cudatoolkit/13.0.0 'echo "$CUDA_HOME"' 2>/dev/null)
    check "$sys: 'module load cudatoolkit/13.0.0' loads the full-version alias" \
        [ "$v" = "$FIX/standalone/cuda-13.0" ]
done

# split layout: cuBLAS and CUPTI live outside base
w=$T/split
mkdir -p "$w"
out=$T/out-hpcsdk
base=$HPC/cuda/13.0
# This machine may have the toolkit in the linker's default dirs too (e.g.
# /usr/local/lib64), so each build below records, with --trace and -M, which
# libcublas and cublas_v2.h it really used.
$CLEAN_ENV sh -c "cd '$w' && cc '$top_srcdir/kernels/cublas_cupti.c' -I'$base/include' -L'$base/lib64' \
        -lcublas -lcupti -lcudart -o neg -Wl,--trace" > "$w/neg_trace" 2>&1
check "split: base flags alone do not reach math_libs' cuBLAS (the fixture is split)" \
    sh -c "! grep -q '$HPC/math_libs' '$w/neg_trace'"
for sys in lmod tcl; do
    if load_and_run "$sys" "$out/$sys" cudatoolkit/13.0 \
        "cd '$w' && cc -M '$top_srcdir/kernels/cublas_cupti.c' > deps_$sys && \
         cc '$top_srcdir/kernels/cublas_cupti.c' -lcublas -lcupti -o m_$sys -Wl,--trace > trace_$sys && \
         ./m_$sys && ldd ./m_$sys > ldd_$sys" \
        >"$w/log_$sys" 2>&1; then
        pass "split/$sys: cuBLAS + CUPTI program builds and runs through the module alone"
    else
        fail "split/$sys: cuBLAS + CUPTI program failed through the module"; cat "$w/log_$sys"
    fi
    check "split/$sys: cublas_v2.h comes from math_libs" grep -q "$HPC/math_libs/13.0/include/cublas_v2.h" "$w/deps_$sys"
    check "split/$sys: cupti.h comes from extras/CUPTI" grep -q "$base/extras/CUPTI/include/cupti.h" "$w/deps_$sys"
    check "split/$sys: the linker takes libcublas from math_libs" grep -q "$HPC/math_libs/13.0/lib64/libcublas.so" "$w/trace_$sys"
    check "split/$sys: libcublas is loaded from math_libs" grep -q "libcublas.so.* => $HPC/math_libs/13.0/" "$w/ldd_$sys"
done
if $CLEAN_ENV sh -c "cd '$w' && export PKG_CONFIG_PATH='$out/pkgconfig' && \
        cc '$top_srcdir/kernels/cublas_cupti.c' \$(pkgconf --cflags --libs ctk-cublas-13.0 ctk-cupti-13.0) -o p -Wl,--trace > trace_pc && \
        ./p && ldd ./p > ldd_pc" \
        >"$w/log_pc" 2>&1; then
    pass "split: cuBLAS + CUPTI program builds and runs from ctk-cublas/ctk-cupti .pc alone"
else
    fail "split: cuBLAS + CUPTI program failed from the .pc files"; cat "$w/log_pc"
fi
check "split: from the .pc, the linker takes libcublas from math_libs" grep -q "$HPC/math_libs/13.0/lib64/libcublas.so" "$w/trace_pc"
check "split: without a module the .pc's run path finds math_libs' libcublas" \
    grep -q "libcublas.so.* => $HPC/math_libs/13.0/" "$w/ldd_pc"

# MANPATH only where the toolkit has man pages, the same in both systems
man=$T/withman
mkdir -p "$man" && cp -as "$FIX/standalone/cuda-13.0/." "$man/cuda" && mkdir -p "$man/cuda/doc/man/man1" &&
    printf '.TH NVCC 1\n.SH NAME\nnvcc\n' > "$man/cuda/doc/man/man1/nvcc.1"
printf '{ "sdks": [ { "version": "13.0", "base": "%s/cuda" } ] }\n' "$man" > "$T/man.json"
check "man: generate" "$CTKGEN" -q generate -c "$T/man.json" -o "$T/manout"
for sys in lmod tcl; do
    v=$(load_and_run "$sys" "$T/manout/$sys" cudatoolkit/13.0 'printf %s "${MANPATH-}"')
    check "man/$sys: MANPATH starts with the toolkit's doc/man" sh -c "case '$v' in '$man/cuda/doc/man:'*) ;; *) exit 1;; esac"
    check "man/$sys: MANPATH keeps an empty element, so man still finds the system's pages" \
        sh -c "case '$v' in *:) ;; *) exit 1;; esac"
    v=$(load_and_run "$sys" "$T/manout/$sys" cudatoolkit/13.0 'man -w ls >/dev/null 2>&1 && echo found')
    if [ -e /usr/share/man/man1/ls.1.gz ] && command -v man >/dev/null 2>&1; then
        check "man/$sys: 'man -w ls' still finds the system page with the module loaded" [ "$v" = found ]
    fi
done
v=$(load_and_run lmod "$T/out-standalone/lmod" cudatoolkit/13.0 'printf %s "${MANPATH-<unset>}"')
check "man: a toolkit without man pages leaves MANPATH alone" [ "$v" = "<unset>" ]

# two toolkits in one tree are never loaded together
cat > "$T/two.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA" },
            { "version": "13.0", "name": "13.0-runfile", "base": "$FIX/standalone/cuda-13.0" } ] }
JSON
check "two: generate" "$CTKGEN" -q generate -c "$T/two.json" -o "$T/two"
for sys in lmod tcl; do
    case $sys in
        lmod) second="eval \"\$(MODULEPATH='$T/two/lmod' '$LMOD_EXEC' bash load cudatoolkit/13.0-runfile)\"" ;;
        tcl) second="eval \"\$(MODULEPATH='$T/two/tcl' tclsh '$EM_CMD' bash load cudatoolkit/13.0-runfile)\"" ;;
    esac
    loaded=$(load_and_run "$sys" "$T/two/$sys" cudatoolkit/13.0 "$second 2>/dev/null; echo \"\$LOADEDMODULES\"")
    case $loaded in
        *cudatoolkit/13.0:*cudatoolkit/13.0-runfile*|*cudatoolkit/13.0-runfile:*cudatoolkit/13.0) fail "$sys: two toolkits loaded at once ($loaded)" ;;
        *) pass "$sys: a second toolkit is refused or swapped in ($loaded)" ;;
    esac
done

finish
