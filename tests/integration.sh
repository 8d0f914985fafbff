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
#  4. in the split layout, cuBLAS + CUPTI build from the artifacts alone, and
#     every per-library .pc builds, links and runs a program that calls its
#     library, with cc, c++ and nvcc;
#  5. `module unload` and `module purge` give back the environment from
#     before; whatis and help read the same in both systems; a host compiler
#     prerequisite is enforced; `module avail` marks aliases and the default;
#     `module load cudatoolkit` picks the same toolkit in both systems.
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

# The variables compared between the two systems: lib.sh's, plus the ones
# only modules set (<MODULE_NAME>_VERSION, CUDAHOSTCXX).
IVARS="$VARS CUDATOOLKIT_VERSION CUDAHOSTCXX"
print_ivars='for v in '"$IVARS"'; do eval "printf \"%s=%s\\n\" \$v \"\${$v-<unset>}\""; done'

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
    lenv=$(load_and_run lmod "$out/lmod" cudatoolkit/13.0 "$print_ivars" | sed '/^MANPATH=/s/::*/:/g')
    tenv=$(load_and_run tcl "$out/tcl" cudatoolkit/13.0 "$print_ivars" | sed '/^MANPATH=/s/::*/:/g')
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
        same_text "$(first_of "$lenv" PKG_CONFIG_PATH)" "$(cd "$out/pkgconfig" && pwd -P)"
    check "$L: no LDFLAGS, CFLAGS or CXXFLAGS" \
        sh -c "printf '%s\n' '$lenv' | grep -Eq '^(LDFLAGS|CFLAGS|CXXFLAGS)=<unset>\$' && \
               [ \$(printf '%s\n' '$lenv' | grep -Ec '^(LDFLAGS|CFLAGS|CXXFLAGS)=<unset>\$') -eq 3 ]"
    check "$L: no stubs dir on LD_LIBRARY_PATH" \
        sh -c "printf '%s\n' '$lenv' | grep -q '^LD_LIBRARY_PATH=/' && ! printf '%s\n' '$lenv' | grep '^LD_LIBRARY_PATH=' | grep -q stubs"
    check "$L: CUDA_HOME is the toolkit root" sh -c "printf '%s\n' '$lenv' | grep -qx 'CUDA_HOME=$base'"
    check "$L: CUDATOOLKIT_VERSION is the toolkit's 13.0 version" \
        sh -c "printf '%s\n' '$lenv' | grep -Eqx 'CUDATOOLKIT_VERSION=13\.0(\.[0-9]+)?'"

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
            sh -c "[ -n '$inc' ] && grep -q '$inc/cuda_runtime.h' '$w/deps'"
        # CUDA 13 keeps Thrust, CUB and libcu++ under include/cccl
        if [ -d "$inc/cccl/cuda" ]; then
            check "$L/$sys: c++ builds and runs a CCCL program with no -I" \
                load_and_run "$sys" "$out/$sys" cudatoolkit/13.0 \
                "cd '$w' && c++ '$top_srcdir/tests/data/integration/cccl.cpp' -o cccl && ./cccl | grep -q '^cccl '"
        fi
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
    if [ -d "$inc/cccl/cuda" ]; then
        check "$L: c++ builds and runs a CCCL program with ctk-13.0.pc's Cflags alone" \
            $CLEAN_ENV sh -c "cd '$w' && export $pcenv && \
                c++ '$top_srcdir/tests/data/integration/cccl.cpp' \$(pkgconf --cflags ctk-13.0) -o cccl && ./cccl | grep -q '^cccl '"
    fi
    check "$L: pkgconf validates ctk-13.0.pc" $CLEAN_ENV sh -c "$pcenv pkgconf --validate ctk-13.0"
    check "$L: pkg-config --modversion is 13.0.x" \
        sh -c "$CLEAN_ENV $pcenv pkgconf --modversion ctk-13.0 | grep -Eq '^13\.0(\.[0-9]+)?\$'"

done

# the default module, and the full-version alias of a toolkit with
# version.json, written on request ("full_version_aliases": true: 5d)
out=$T/out-standalone-full
sed 's/"default": "13.0",/"default": "13.0", "full_version_aliases": true,/' "$T/standalone.json" \
    >"$T/standalone-full.json"
check "standalone, \"full_version_aliases\": true: generate" \
    "$CTKGEN" -q generate -c "$T/standalone-full.json" -o "$out"
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
# cc exits 0 (it linked, with libraries from elsewhere) or 1 (a header or
# library not found); any other status (127: no cc) says nothing of the fixture
rc=0
$CLEAN_ENV sh -c "cd '$w' && cc '$top_srcdir/kernels/cublas_cupti.c' -I'$base/include' -L'$base/lib64' \
        -lcublas -lcupti -lcudart -o neg -Wl,--trace" > "$w/neg_trace" 2>&1 || rc=$?
check "split: base flags alone do not reach math_libs' cuBLAS (the fixture is split; cc exit $rc)" \
    sh -c "[ $rc -le 1 ] && ! grep -q '$HPC/math_libs' '$w/neg_trace'"
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

# every per-library .pc, alone, in a clean environment (no module, no
# LD_LIBRARY_PATH): a program calling that library builds with cc, c++ and
# nvcc from `pkgconf --cflags --libs ctk-<lib>-13.0`, runs, and ldd shows the
# library taken from where the split layout keeps it.  Whether or not the
# toolkit is in ld.so's cache here, a missing or wrong run path shows: as a
# library resolved from the cache, or as one not found.
libdir_of() {
    case $1 in
        cudart | nvrtc | nvjitlink) echo "$base/lib64" ;;
        cublas | cufft | curand | cusolver | cusparse) echo "$HPC/math_libs/13.0/lib64" ;;
        cupti) echo "$base/extras/CUPTI/lib64" ;;
        nccl) echo "$HPC/comm_libs/13.0/nccl/lib" ;;
    esac
}
soname_of() {
    case $1 in
        nvjitlink) echo libnvJitLink.so ;;
        *) echo "lib$1.so" ;;
    esac
}
PCLIBS="cudart cublas cufft curand cusolver cusparse nvrtc nvjitlink cupti nccl"
mod_ldlib=$(load_and_run lmod "$out/lmod" cudatoolkit/13.0 'printf %s "$LD_LIBRARY_PATH"')
check "split: the module puts base's lib64 on LD_LIBRARY_PATH ($mod_ldlib)" \
    sh -c "case ':$mod_ldlib:' in *':$base/lib64:'*) ;; *) exit 1 ;; esac"
for lib in $PCLIBS; do
    check "split: ctk-$lib-13.0.pc is written" [ -f "$out/pkgconfig/ctk-$lib-13.0.pc" ]
done
for pc in "$out"/pkgconfig/ctk-*-13.0.pc; do
    lib=${pc##*/ctk-}; lib=${lib%-13.0.pc}
    case " $PCLIBS " in
        *" $lib "*) ;;
        *) fail "split: ctk-$lib-13.0.pc has no test here (add it to PCLIBS and tests/data/integration/libcall.c)"; continue ;;
    esac
    dir=$(libdir_of "$lib")
    so=$(soname_of "$lib")
    def=LIB_$(echo "$lib" | tr a-z A-Z)
    w=$T/pclib/$lib
    mkdir -p "$w"
    # ccall links every -l it is given (--no-as-needed, the default of the
    # Red Hat family's toolchain; Debian's links only what is used)
    hows="cc cxx nvcc"
    case $lib in cusolver | cusparse) hows="$hows ccall" ;; esac
    for how in $hows; do
        case $how in
            cc) build="cc -x c" ;;
            ccall) build="cc -x c -Wl,--no-as-needed" ;;
            cxx) build="c++ -x c++" ;;
            nvcc) build="'$base/bin/nvcc' -x cu" ;;
        esac
        # libcusolver and libcusparse need libnvJitLink, which sits apart
        # from them here and which only a link that keeps every -l makes the
        # program's own (below); after an --as-needed link, as this
        # machine's compilers do by default, the module's LD_LIBRARY_PATH
        # finds it, never the linker cache
        runenv= with=
        case $lib:$how in
            cusolver:cc | cusolver:cxx | cusolver:nvcc | cusparse:cc | cusparse:cxx | cusparse:nvcc)
                runenv="LD_LIBRARY_PATH='$mod_ldlib'" with=", with the module's LD_LIBRARY_PATH" ;;
        esac
        if $CLEAN_ENV PKG_CONFIG_PATH="$out/pkgconfig" sh -c "cd '$w' && \
                $build -D$def '$top_srcdir/tests/data/integration/libcall.c' -o $how \
                    \$(pkgconf --cflags --libs ctk-$lib-13.0) && $runenv ./$how > run_$how && $runenv ldd ./$how > ldd_$how" \
                > "$w/log_$how" 2>&1 && grep -Eqx "$lib [0-9]+" "$w/run_$how"; then
            pass "split/$lib/$how: builds from ctk-$lib-13.0.pc alone and runs its call$with"
        else
            fail "split/$lib/$how: build or run from ctk-$lib-13.0.pc failed"; tail -n 20 "$w/log_$how"; cat "$w/run_$how" 2>/dev/null
        fi
        check "split/$lib/$how: ldd takes $so from $dir" grep -q "^[[:space:]]*$so[.0-9]* => $dir/$so" "$w/ldd_$how"
    done
    # Every CUDA library the program loads, its libraries' own dependencies
    # included, comes from this toolkit's trees.  libcusolver and libcusparse
    # (math_libs) need libnvJitLink (cuda/X.Y/lib64), which their own run
    # path ($ORIGIN) does not reach and the program's DT_RUNPATH does not
    # serve, so their .pc files link the program to it directly.  A linker
    # that drops unused -l (--as-needed) drops that too: there, only the
    # module's LD_LIBRARY_PATH finds it (docs/variables.md).
    last=cc
    case $lib in cusolver | cusparse) last=ccall ;; esac
    others=$(grep -E '^[[:space:]]*lib(cu|nv|nccl)[^ ]* => ' "$w/ldd_$last" 2>/dev/null | grep -v " => $HPC/" |
        awk '{ printf "%s%s => %s", (NR > 1 ? ", " : ""), $1, $3 }')
    check "split/$lib/$last: every CUDA library it loads comes from the split toolkit${others:+ (not: $others)}" \
        sh -c "grep -q ' => $HPC/' '$w/ldd_$last' && [ -z '$others' ]"
done

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
        *cudatoolkit/13.0*) pass "$sys: a second toolkit is refused or swapped in ($loaded)" ;;
        *) fail "$sys: a second toolkit is refused or swapped in: no toolkit loaded at all ('$loaded')" ;;
    esac
done


# ---- 5. module commands beyond load, in both systems ----------------------------
# One tree with two toolkits, each with man pages (symlink copies of the
# fixtures plus a doc/man), so MANPATH is changed too: the standalone layout
# with an alias and the default, and the HPC SDK split layout with a host
# compiler (a module prerequisite, and a ccbin that logs its calls), site and
# SDK help text full of characters Lua and Tcl quote differently, and env.
U=$T/u
mkdir -p "$U/std" "$U/hpc" "$U/ccbin" "$U/gcc-lmod/gcc" "$U/gcc-tcl/gcc"
cp -as "$FIX/standalone/cuda-13.0/." "$U/std/cuda" && mkdir -p "$U/std/cuda/doc/man/man1" &&
    printf '.TH NVCC 1\n' > "$U/std/cuda/doc/man/man1/nvcc.1"
cp -as "$HPC/." "$U/hpc" && mkdir -p "$U/hpc/cuda/13.0/doc/man/man1" &&
    printf '.TH NVCC 1\n' > "$U/hpc/cuda/13.0/doc/man/man1/nvcc.1"
printf '#!/bin/sh\necho "$*" >> "%s/ccbin.log"\nexec %s "$@"\n' "$U" "$(command -v g++)" > "$U/ccbin/g++"
chmod +x "$U/ccbin/g++"
printf 'setenv("FAKE_GCC", "13")\n' > "$U/gcc-lmod/gcc/13.lua"
printf '#%%Module1.0\nsetenv FAKE_GCC 13\n' > "$U/gcc-tcl/gcc/13"
sed "s|@U@|$U|g" > "$T/u.json" <<'JSON'
{ "module_name": "cudatoolkit", "default": "13.0",
  "help": "Site help: ask gpu@example.org.\n\tTabbed \"quoted\" $HOME [tcl] {brace} back\\slash ;semi 100% %s",
  "env": { "SITE_GPU_DOCS": "https://example.org/gpu" },
  "sdks": [
    { "version": "13.0", "base": "@U@/std/cuda", "aliases": ["13"] },
    { "version": "13.0", "name": "13.0-hpc", "base": "@U@/hpc/cuda/13.0",
      "math_libs": "@U@/hpc/math_libs/13.0", "comm_libs": { "nccl": "@U@/hpc/comm_libs/13.0/nccl" },
      "host_compiler": { "module": "gcc/13", "ccbin": "@U@/ccbin/g++" },
      "help": "HPC SDK split: $CUDA_HOME is cuda/13.0; [x] {y} \\n stays", "env": { "SITE_SDK": "hpc" } } ] }
JSON
check "u: generate" "$CTKGEN" -q generate -c "$T/u.json" -o "$U/out"
gcc_mp() { echo "$U/gcc-$1"; }

# -- 5a. unload and purge give back the environment from before the load.
# Compared: the whole environment but the module systems' own bookkeeping
# (MODSYS_OWN in lib.sh).  Before the load, either nothing but PATH is set
# ("bare") or every search path the modules touch holds a value ("preset").
# Not asserted (recorded here): a CUDA_HOME (or CUDA_PATH, ...) set before the
# load is unset after the unload in both Lmod and Environment Modules, not
# given back, because the modules use setenv, which remembers no old value.
PRESET="PATH=/opt/pre/bin:/usr/bin:/bin CPATH=/opt/pre/include LIBRARY_PATH=/opt/pre/lib \
LD_LIBRARY_PATH=/opt/pre/lib PKG_CONFIG_PATH=/opt/pre/pkgconfig MANPATH=/opt/pre/man"
# set_by_module PRE LOADED NAMES...: each NAME has another value in LOADED than
# in PRE (environment snapshots); prints the ones that do not
set_by_module() {
    sb_pre=$1 sb_loaded=$2; shift 2
    [ -s "$sb_pre" ] || { echo "no environment recorded before the load ($sb_pre)"; return 1; }
    sb_bad=
    for sb_v in "$@"; do
        [ "$(grep "^$sb_v=" "$sb_pre")" != "$(grep "^$sb_v=" "$sb_loaded")" ] &&
            grep -q "^$sb_v=." "$sb_loaded" || sb_bad="$sb_bad $sb_v"
    done
    [ -z "$sb_bad" ] || { echo "not changed by the load:$sb_bad"; return 1; }
}
MODVARS="PATH CPATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH MANPATH CUDA_HOME CUDA_PATH CUDAToolkit_ROOT CUDATOOLKIT_VERSION SITE_GPU_DOCS"
# kept MANPATH: it has an empty element, and /opt/pre/man as its one other entry
kept() { case :$1: in *::*) [ "$(printf %s "$1" | tr : '\n' | grep -v '^$')" = /opt/pre/man ] ;; *) return 1 ;; esac; }
for sys in lmod tcl; do
    for name in 13.0 13.0-hpc; do
        pre= vars=$MODVARS
        [ "$name" = 13.0-hpc ] && pre="module load gcc/13 &&" vars="$MODVARS CUDAHOSTCXX SITE_SDK"
        for state in bare preset; do
            w=$T/unload/$sys-$name-$state
            mkdir -p "$w"
            set --
            [ "$state" = preset ] && set -- $PRESET
            in_modules "$sys" "$U/out/$sys:$(gcc_mp $sys)" "cd '$w' && $snap_env > e_init && $pre
                $snap_env > e_pre && module load cudatoolkit/$name && $snap_env > e_loaded &&
                module unload cudatoolkit/$name && $snap_env > e_unloaded &&
                module load cudatoolkit/$name && module purge && $snap_env > e_purged" "$@" > "$w/log" 2>&1
            c="$sys/$name/$state"
            check "$c: the load sets or changes every variable of the module" set_by_module "$w/e_pre" "$w/e_loaded" $vars
            if [ -s "$w/e_pre" ] && cmp -s "$w/e_pre" "$w/e_unloaded"; then
                pass "$c: 'module unload' gives back the environment exactly"
            else
                fail "$c: 'module unload' left the environment changed"; cat "$w/log"; diff "$w/e_pre" "$w/e_unloaded"
            fi
            check "$c: CUDA_HOME, CUDA_PATH, CUDAToolkit_ROOT, CUDATOOLKIT_VERSION, CUDAHOSTCXX are unset after the unload" \
                sh -c "[ -s '$w/e_unloaded' ] && ! grep -Eq '^(CUDA_HOME|CUDA_PATH|CUDAToolkit_ROOT|CUDATOOLKIT_VERSION|CUDAHOSTCXX)=' '$w/e_unloaded'"
            if [ -s "$w/e_init" ] && cmp -s "$w/e_init" "$w/e_purged"; then
                pass "$c: 'module purge' gives back the environment exactly"
            else
                fail "$c: 'module purge' left the environment changed"; cat "$w/log"; diff "$w/e_init" "$w/e_purged"
            fi
        done
    done
    # A MANPATH with an empty element (man's "and the system's pages") keeps
    # it, and its other entries, through a load and unload.
    w=$T/unload/$sys-manpath
    mkdir -p "$w"
    v=$(in_modules "$sys" "$U/out/$sys" "module load cudatoolkit/13.0 && module unload cudatoolkit/13.0 &&
        printf %s \"\${MANPATH-<unset>}\"" MANPATH=/opt/pre/man: 2>"$w/log")
    # Lmod 8.6 cannot do both: without the modules' append_path("MANPATH",
    # "") a load into an unset MANPATH hides the system's pages; with it, an
    # unload also takes away an empty element the user had set himself
    # ("/opt/pre/man:" comes back as "/opt/pre/man").  The unset case is the
    # common one, so the line stays (docs/variables.md says so); what must
    # hold in Lmod is that the user's own entries come back.
    case $sys in
        lmod) check "$sys: MANPATH=/opt/pre/man: keeps its entries through load and unload (got '$v'; Lmod drops the empty element)" \
                  [ "$(printf %s "$v" | tr : '\n' | grep -v '^$')" = /opt/pre/man ] ;;
        *) check "$sys: MANPATH=/opt/pre/man: keeps its empty element through load and unload (got '$v')" kept "$v" ;;
    esac
done

# -- 5b. whatis and help read the same in both systems, framing aside: Lmod
# prefixes whatis lines with "name   : " and frames help with a dashed title
# line; Environment Modules prints a dashed modulepath header, indents
# whatis lines with "name: " and frames help with dashed lines and a
# "Module Specific Help for FILE:" title.  Blank lines at either end of the
# help are framing too.
norm_whatis() {
    sed -e '/^--*[[:space:]].*[[:space:]]--*$/d' -e '/^[[:space:]]*$/d' \
        -e 's|^[[:space:]]*cudatoolkit/[^[:space:]:]*[[:space:]]*: ||'
}
norm_help() {
    sed -e '/^--*$/d' -e '/^--* Module Specific Help for .* --*$/d' -e '/^Module Specific Help for .*:$/d' |
        awk 'NF { for (; blank > 0; blank--) print ""; started = 1; print; next } started { blank++ }'
}
printf '%s\n' 'Site help: ask gpu@example.org.' \
    '	Tabbed "quoted" $HOME [tcl] {brace} back\slash ;semi 100% %s' > "$T/help.expected"
printf '%s\n' 'HPC SDK split: $CUDA_HOME is cuda/13.0; [x] {y} \n stays' >> "$T/help.expected"
for name in 13.0 13.0-hpc; do
    for sys in lmod tcl; do
        in_modules "$sys" "$U/out/$sys" "module whatis cudatoolkit/$name" 2>&1 >/dev/null | norm_whatis > "$T/whatis.$sys"
        in_modules "$sys" "$U/out/$sys" "module help cudatoolkit/$name" 2>&1 >/dev/null | norm_help > "$T/help.$sys"
    done
    if [ -s "$T/whatis.lmod" ] && cmp -s "$T/whatis.lmod" "$T/whatis.tcl"; then
        pass "$name: 'module whatis' says the same in Lmod and Environment Modules"
    else
        fail "$name: 'module whatis' differs"; diff "$T/whatis.lmod" "$T/whatis.tcl"
    fi
    check "$name: whatis gives the toolkit's version" grep -qx 'Version: 13\.0\.0' "$T/whatis.lmod"
    if [ -s "$T/help.lmod" ] && cmp -s "$T/help.lmod" "$T/help.tcl"; then
        pass "$name: 'module help' says the same in Lmod and Environment Modules"
    else
        fail "$name: 'module help' differs"; diff "$T/help.lmod" "$T/help.tcl"
    fi
    n=2; [ "$name" = 13.0-hpc ] && n=3
    check "$name: the site (and SDK) help text comes through byte for byte" \
        sh -c "head -n $n '$T/help.expected' | while IFS= read -r line; do grep -Fqx -- \"\$line\" '$T/help.lmod' || exit 1; done"
done

# <MODULE_NAME>_VERSION follows module_name: "nv-cuda" sets NV_CUDA_VERSION,
# the same in both systems
printf '{ "module_name": "nv-cuda", "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$FIX/standalone/cuda-13.0" > "$T/nv.json"
check "nv-cuda: generate" "$CTKGEN" -q generate -c "$T/nv.json" -o "$T/nv"
for sys in lmod tcl; do
    v=$(load_and_run "$sys" "$T/nv/$sys" nv-cuda/13.0 'echo "${NV_CUDA_VERSION-<unset>}|${CUDATOOLKIT_VERSION-<unset>}"')
    check "nv-cuda/$sys: the module sets NV_CUDA_VERSION to the toolkit's version, and no CUDATOOLKIT_VERSION ($v)" \
        [ "$v" = "13.0.0|<unset>" ]
done

# -- 5c. the host compiler of 13.0-hpc: prereq("gcc/13") and CUDAHOSTCXX.
# docs/site-config.md: "loading the CUDA module without it loaded fails with
# a message that says which to load first".
printf '__global__ void k(void) {}\n' > "$T/k.cu"
# try_hpc SYS MODULEPATH [NAME=VALUE...]: try to load 13.0-hpc; print the
# load's exit status (STATUS=), LOADEDMODULES (LOADED=) and the module
# system's messages
try_hpc() {
    th_sys=$1 th_mp=$2; shift 2
    in_modules "$th_sys" "$th_mp" 'module load cudatoolkit/13.0-hpc; echo "STATUS=$?"; echo "LOADED=${LOADEDMODULES-}"' "$@" 2>&1
}
# no_cuda REPORT: the load failed and left no cudatoolkit loaded.  A refused
# load exits non-zero; a module system that could not run at all (its
# command missing) exits 0 having loaded nothing, and does not pass.
no_cuda() {
    printf '%s\n' "$1" | grep -q '^STATUS=[1-9]' && printf '%s\n' "$1" | grep -q '^LOADED=' &&
        ! printf '%s\n' "$1" | grep '^LOADED=' | grep -q cudatoolkit
}
loaded_of() { printf '%s\n' "$1" | sed -n 's/^LOADED=//p'; }
names_gcc() { printf '%s\n' "$1" | grep -v '^LOADED=' | grep -q 'gcc/13'; }
for sys in lmod tcl; do
    r=$(try_hpc "$sys" "$U/out/$sys")
    check "$sys: without gcc/13 anywhere, loading 13.0-hpc fails" no_cuda "$r"
    check "$sys: ... and the message names gcc/13" names_gcc "$r"
done
r=$(try_hpc lmod "$U/out/lmod:$U/gcc-lmod")
check "lmod: with gcc/13 available but not loaded, loading 13.0-hpc fails" no_cuda "$r"
check "lmod: ... and the message names gcc/13" names_gcc "$r"
r=$(try_hpc tcl "$U/out/tcl:$U/gcc-tcl" MODULES_AUTO_HANDLING=0)
check "tcl (auto_handling off): with gcc/13 available but not loaded, loading 13.0-hpc fails" no_cuda "$r"
check "tcl (auto_handling off): ... and the message says to load gcc/13 first" \
    names_gcc "$r"
# Environment Modules 5 loads a missing prereq itself when it can
# (auto_handling, on by default): then gcc/13 must be loaded before the CUDA
# module, never the CUDA module alone.  (docs/site-config.md says only
# "fails".)
r=$(try_hpc tcl "$U/out/tcl:$U/gcc-tcl")
l=$(loaded_of "$r")
# after_gcc LOADED REPORT: in LOADED 13.0-hpc comes after gcc/13, or it is
# absent and REPORT (try_hpc's) says the load was refused (no_cuda)
after_gcc() {
    case ":$1:" in
        *:gcc/13:*cudatoolkit/13.0-hpc:*) return 0 ;;
        *:cudatoolkit/*) return 1 ;;
    esac
    no_cuda "$2"
}
check "tcl (default config): 13.0-hpc is refused or comes after gcc/13 (loaded: '$l')" after_gcc "$l" "$r"
for sys in lmod tcl; do
    rm -f "$U/ccbin.log"
    v=$(in_modules "$sys" "$U/out/$sys:$(gcc_mp $sys)" "module load gcc/13 && module load cudatoolkit/13.0-hpc &&
        echo \"\$LOADEDMODULES|\${FAKE_GCC-}|\${CUDAHOSTCXX-<unset>}\" && cd '$T' && nvcc -c k.cu -o k_$sys.o" 2>"$T/ccbin.$sys.log")
    check "$sys: with gcc/13 loaded first, 13.0-hpc loads and sets CUDAHOSTCXX to host_compiler.ccbin" \
        [ "$v" = "gcc/13:cudatoolkit/13.0-hpc|13|$U/ccbin/g++" ]
    check "$sys: nvcc from the module compiles with the configured host compiler" sh -c "[ -s '$U/ccbin.log' ] && [ -s '$T/k_$sys.o' ]"
done

# -- 5d. `module load cudatoolkit` with no version loads the same toolkit in
# both systems.  The rule (one explicit default is always written): the
# configured default; else the highest toolkit version, ties going to the
# first SDK in the config.  Names are chosen so that neither system's own
# rule (the highest name) would give the right answer by luck.
V7=$T/v7
mkdir -p "$V7" && cp -as "$FIX/standalone/cuda-13.0/." "$V7/cuda" && rm "$V7/cuda/version.json" &&
    sed 's/"13\.0\.0"/"13.0.7"/g' "$FIX/standalone/cuda-13.0/version.json" > "$V7/cuda/version.json"
STD=$FIX/standalone/cuda-13.0
HB=$HPC/cuda/13.0
# def_config FILE DEFAULT SDK... where SDK is name=base[=aliases,comma-separated];
# DC_TOP: more top-level members ('"key": value, ...')
def_config() {
    dc_f=$1 dc_def=$2; shift 2
    {
        printf '{ "module_name": "cudatoolkit",%s' "${DC_TOP:+ $DC_TOP,}"
        [ -n "$dc_def" ] && printf ' "default": "%s",' "$dc_def"
        printf ' "sdks": ['
        dc_sep=
        for dc_s in "$@"; do
            dc_name=${dc_s%%=*}; dc_rest=${dc_s#*=}; dc_base=${dc_rest%%=*}; dc_al=
            [ "$dc_rest" != "$dc_base" ] && dc_al=$(printf ', "aliases": ["%s"]' "$(echo "${dc_rest#*=}" | sed 's/,/", "/g')")
            printf '%s\n  { "version": "13.0", "name": "%s", "base": "%s"%s }' "$dc_sep" "$dc_name" "$dc_base" "$dc_al"
            dc_sep=,
        done
        printf ' ] }\n'
    } > "$dc_f"
}
# default_is CASE EXPECTED: in both systems, `module load cudatoolkit` in the
# tree $T/CASE loads EXPECTED, and CUDA_HOME is its base
default_is() {
    for sys in lmod tcl; do
        got=$(in_modules "$sys" "$T/$1/$sys" 'module load cudatoolkit && echo "${LOADEDMODULES-}|${CUDA_HOME-}"' 2>/dev/null)
        eval "got_$sys=\$got"
        check "$1/$sys: 'module load cudatoolkit' loads $2 (got '${got%%|*}')" [ "${got%%|*}" = "cudatoolkit/$2" ]
    done
    check "$1: Lmod and Environment Modules load the same toolkit ('$got_lmod' / '$got_tcl')" \
        [ -n "$got_lmod" -a "$got_lmod" = "$got_tcl" ]
}
# highest version wins: 13.0-a holds 13.0.7, 13.0-z 13.0.0 (d-unset: the
# same, the full-version names left to the tree, which is new)
def_config "$T/d-unset.json" "" "13.0-z=$STD" "13.0-a=$V7/cuda"
DC_TOP='"full_version_aliases": true'
def_config "$T/d-high.json" "" "13.0-z=$STD" "13.0-a=$V7/cuda"
# a tie (both 13.0.0): the first in config order
def_config "$T/d-tie.json" "" "13.0-a=$STD" "13.0-b=$HB"
# a toolkit whose patch level is unknown (no version file: its version comes
# from CUDART_VERSION) ranks below 13.0.0, though it comes first
def_config "$T/d-nopatch.json" "" "13.0-z=$FIX/noversion/cuda-13.0" "13.0-a=$STD"
# the naming docs/site-config.md advises (a standalone 13.0 and the
# HPC SDK's copy as 13.0-hpc), a tie: left to themselves, Lmod picks 13.0 and
# Environment Modules 13.0-hpc
def_config "$T/d-names.json" "" "13.0=$STD" "13.0-hpc=$HB"
# the configured default, here through an alias
def_config "$T/d-conf.json" 13 "13.0-z=$STD" "13.0-a=$V7/cuda=latest" "13.0-m=$HB=13"
DC_TOP=
for c in d-unset d-high d-tie d-nopatch d-names d-conf; do
    check "$c: generate" "$CTKGEN" -q generate -c "$T/$c.json" -o "$T/$c"
done
default_is d-unset 13.0-a
default_is d-high 13.0-a
default_is d-tie 13.0-a
default_is d-nopatch 13.0-a
default_is d-names 13.0
default_is d-conf 13.0-m
# by default each full version loads its own toolkit, by the name under
# which it is listed, in both systems
for sys in lmod tcl; do
    for fb in "13.0.0|13.0-z|$STD" "13.0.7|13.0-a|$V7/cuda"; do
        fv=${fb%%|*} fr=${fb#*|}
        v=$(in_modules "$sys" "$T/d-high/$sys" "module load cudatoolkit/$fv && echo \"\${LOADEDMODULES-}|\$CUDA_HOME\"" 2>/dev/null)
        check "d-high/$sys: 'module load cudatoolkit/$fv' loads cudatoolkit/${fr%%|*} (got '$v')" \
            [ "$v" = "cudatoolkit/${fr%%|*}|${fr#*|}" ]
    done
    r=$(in_modules "$sys" "$T/d-high/$sys" 'module is-avail cudatoolkit/13.0.7; echo "STATUS=$?"' 2>/dev/null)
    check "d-high/$sys: 'module is-avail cudatoolkit/13.0.7' says yes ($r)" [ "$r" = STATUS=0 ]
done
# the key left out, on a new tree: no X.Y.Z name, each SDK by its own
for sys in lmod tcl; do
    for fv in 13.0.0 13.0.7; do
        r=$(in_modules "$sys" "$T/d-unset/$sys" "module load cudatoolkit/$fv; echo \"STATUS=\$?\"; echo \"LOADED=\${LOADEDMODULES-}\"" 2>/dev/null)
        check "d-unset/$sys: cudatoolkit/$fv is not a module (loaded: '$(loaded_of "$r")')" no_cuda "$r"
    done
    r=$(in_modules "$sys" "$T/d-unset/$sys" 'module is-avail cudatoolkit/13.0.7; echo "STATUS=$?"' 2>/dev/null)
    check "d-unset/$sys: 'module is-avail cudatoolkit/13.0.7' says no ($r)" [ "$r" = STATUS=1 ]
    v=$(in_modules "$sys" "$T/d-unset/$sys" 'module load cudatoolkit/13.0-z && echo "$CUDA_HOME"' 2>/dev/null)
    check "d-unset/$sys: cudatoolkit/13.0-z loads its toolkit (got '$v')" [ "$v" = "$STD" ]
done
# "full_version_aliases": false: the .modulerc files hold the default and
# the config's own aliases, nothing more; an X.Y.Z name is no module, while
# the default and every explicit alias load as before
DC_TOP='"full_version_aliases": false'
def_config "$T/d-nofull.json" 13 "13.0-z=$STD" "13.0-a=$V7/cuda=latest" "13.0-m=$HB=13"
DC_TOP=
check "d-nofull: generate" "$CTKGEN" -q generate -c "$T/d-nofull.json" -o "$T/d-nofull"
check "d-nofull: the .modulerc.lua holds the default and the two aliases alone" same_text \
    "$(grep '^module_version(' "$T/d-nofull/lmod/cudatoolkit/.modulerc.lua")" \
    "$(printf '%s\n' 'module_version("cudatoolkit/13.0-m", "default")' \
        'module_version("cudatoolkit/13.0-a", "latest")' 'module_version("cudatoolkit/13.0-m", "13")')"
check "d-nofull: the .modulerc holds the default and the two aliases alone" same_text \
    "$(grep '^module-version ' "$T/d-nofull/tcl/cudatoolkit/.modulerc")" \
    "$(printf '%s\n' 'module-version "cudatoolkit/13.0-m" default' \
        'module-version "cudatoolkit/13.0-a" "latest"' 'module-version "cudatoolkit/13.0-m" "13"')"
default_is d-nofull 13.0-m
for sys in lmod tcl; do
    for fv in 13.0.0 13.0.7; do
        r=$(in_modules "$sys" "$T/d-nofull/$sys" "module load cudatoolkit/$fv; echo \"STATUS=\$?\"; echo \"LOADED=\${LOADEDMODULES-}\"" 2>/dev/null)
        check "d-nofull/$sys: cudatoolkit/$fv is not a module (loaded: '$(loaded_of "$r")')" no_cuda "$r"
    done
    r=$(in_modules "$sys" "$T/d-nofull/$sys" 'module is-avail cudatoolkit/13.0.7; echo "STATUS=$?"' 2>/dev/null)
    check "d-nofull/$sys: 'module is-avail cudatoolkit/13.0.7' says no ($r)" [ "$r" = STATUS=1 ]
    for ab in "latest|$V7/cuda" "13|$HB"; do
        v=$(in_modules "$sys" "$T/d-nofull/$sys" "module load cudatoolkit/${ab%%|*} && echo \"\$CUDA_HOME\"" 2>/dev/null)
        check "d-nofull/$sys: the alias cudatoolkit/${ab%%|*} loads its toolkit (got '$v')" [ "$v" = "${ab#*|}" ]
    done
done
# two SDKs with the same full version: cudatoolkit/13.0.0 would be ambiguous,
# so neither system offers it, while each SDK loads by its own name
for sys in lmod tcl; do
    r=$(in_modules "$sys" "$T/d-tie/$sys" 'module load cudatoolkit/13.0.0; echo "STATUS=$?"; echo "LOADED=${LOADEDMODULES-}"' 2>/dev/null)
    check "d-tie/$sys: the shared full version 13.0.0 is not offered (loaded: '$(loaded_of "$r")')" no_cuda "$r"
    for nb in "13.0-a|$STD" "13.0-b|$HB"; do
        v=$(in_modules "$sys" "$T/d-tie/$sys" "module load cudatoolkit/${nb%%|*} && echo \"\$CUDA_HOME\"" 2>/dev/null)
        check "d-tie/$sys: cudatoolkit/${nb%%|*} loads its own toolkit" [ "$v" = "${nb#*|}" ]
    done
done

# -- 5e. `module avail` lists every toolkit, its aliases and the default.
# avail_marks SYS MODULEPATH MODULE: the marks `module avail` prints next to
# MODULE, one per line ("-" when listed bare), Lmod's D spelt "default";
# nothing when MODULE is not listed.  Lmod writes "name (13,D:x)", Environment
# Modules "name(13:default)".
avail_marks() {
    in_modules "$1" "$2" 'module avail' 2>&1 >/dev/null | sed 's/ (/(/g' | tr -s ' \t' '\n\n' |
        awk -v m="$3" '$0 == m { print "-" }
            index($0, m "(") == 1 { s = substr($0, length(m) + 2); sub(/\).*$/, "", s)
                n = split(s, a, /[,:]/); for (i = 1; i <= n; i++) print (a[i] == "D" ? "default" : a[i]) }'
}
# has_marks MARKS WANTED...: every WANTED is among MARKS; "!X": X is not
has_marks() {
    hm_m=$1; shift
    for hm_w in "$@"; do
        case $hm_w in
            !*) printf '%s\n' "$hm_m" | grep -qx -- "${hm_w#!}" && return 1 ;;
            *) printf '%s\n' "$hm_m" | grep -qx -- "$hm_w" || return 1 ;;
        esac
    done
    return 0
}
for sys in lmod tcl; do
    m=$(avail_marks "$sys" "$T/d-conf/$sys" cudatoolkit/13.0-m)
    check "d-conf/$sys: avail marks 13.0-m as the default, with its alias 13 ($(echo $m))" has_marks "$m" default 13
    m=$(avail_marks "$sys" "$T/d-conf/$sys" cudatoolkit/13.0-a)
    check "d-conf/$sys: avail lists 13.0-a with its aliases latest and 13.0.7, not as default ($(echo $m))" \
        has_marks "$m" latest 13.0.7 '!default'
    m=$(avail_marks "$sys" "$T/d-nofull/$sys" cudatoolkit/13.0-a)
    check "d-nofull/$sys: avail lists 13.0-a with its alias latest, without 13.0.7 ($(echo $m))" \
        has_marks "$m" latest '!13.0.7'
    m=$(avail_marks "$sys" "$T/d-conf/$sys" cudatoolkit/13.0-z)
    check "d-conf/$sys: avail lists 13.0-z, not as default ($(echo $m))" sh -c "[ -n '$m' ] && ! printf '%s\n' '$m' | grep -qx default"
    # the default ctkgen chose itself (none configured) is marked too
    m=$(avail_marks "$sys" "$T/d-names/$sys" cudatoolkit/13.0)
    check "d-names/$sys: avail marks 13.0 as the default ($(echo $m))" has_marks "$m" default
    m=$(avail_marks "$sys" "$T/d-names/$sys" cudatoolkit/13.0-hpc)
    check "d-names/$sys: avail lists 13.0-hpc, not as default ($(echo $m))" sh -c "[ -n '$m' ] && ! printf '%s\n' '$m' | grep -qx default"
    m=$(avail_marks "$sys" "$U/out/$sys" cudatoolkit/13.0)
    check "u/$sys: avail marks 13.0 as the default, with its alias 13 ($(echo $m))" has_marks "$m" default 13
    m=$(avail_marks "$sys" "$U/out/$sys" cudatoolkit/13.0-hpc)
    check "u/$sys: avail lists 13.0-hpc, not as default ($(echo $m))" sh -c "[ -n '$m' ] && ! printf '%s\n' '$m' | grep -qx default"
done

# ---- 6. properties: add_property in Lua, add-property in Tcl -------------------
# Lmod marks the module with them ((g) for arch=gpu, (E) for
# state=experimental), reading the Tcl file too (tcl2lua); Environment
# Modules loads it (add-property is its no-op); validate passes on both.
P=$T/props
cat > "$T/props.json" <<JSON
{ "module_name": "cudatoolkit", "properties": { "arch": "gpu", "state": "testing" },
  "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA", "properties": { "state": "experimental" } } ] }
JSON
check "props: generate exits 0" "$CTKGEN" -q generate -c "$T/props.json" -o "$P"
check "props: the Lua module has the site's property and the SDK's in its place" sh -c \
    "grep -A2 -x 'family(\"cuda\")' '$P/lmod/cudatoolkit/13.0.lua' | tail -n 2 | tr '\n' '|' |
     grep -qx 'add_property(\"arch\", \"gpu\")|add_property(\"state\", \"experimental\")|'"
check "props: the Tcl module has the same as add-property" sh -c \
    "grep -x 'add-property .*' '$P/tcl/cudatoolkit/13.0' | tr '\n' '|' |
     grep -qx 'add-property \"arch\" \"gpu\"|add-property \"state\" \"experimental\"|'"
for sys in lmod tcl; do
    v=$(in_modules "$sys" "$P/$sys" 'module load cudatoolkit/13.0 && printf "CUDA_HOME=%s\n" "$CUDA_HOME"' 2>&1)
    check "props/$sys: the module loads ($v)" same_text "$v" "CUDA_HOME=$CTK_TEST_CUDA"
    v=$(in_modules lmod "$P/$sys" 'module load cudatoolkit/13.0 && module list' 2>&1)
    check "props/$sys: Lmod lists the module with its properties ($(echo $v))" sh -c \
        "printf '%s\n' '$v' | grep -q 'cudatoolkit/13.0 (g,E)'"
done
chmod 755 "$T" # as root, validate loads the modulefiles as user nobody
mkdir -p "$T/vtmp"
rc=0; TMPDIR=$T/vtmp "$CTKGEN" -q validate -c "$T/props.json" -o "$P" --no-cache --cache-dir "$T/vcache" \
    --lmod-cmd "$LMOD_EXEC" --modulecmd "$EM_CMD" > "$T/props.validate" 2>&1 || rc=$?
check "props: validate (sandbox, real Lmod, Environment Modules) passes (exit $rc)" [ "$rc" -eq 0 ]
for f in "$P/lmod/cudatoolkit/13.0.lua" "$P/tcl/cudatoolkit/13.0"; do
    rc=0; "$CTKGEN" -q lint "$f" > "$T/props.lint" 2>&1 || rc=$?
    check "props: lint of ${f#"$P"/} finds nothing (exit $rc)" [ "$rc" -eq 0 ]
done

finish
