#!/bin/sh
# clients_cmake.sh - CMake over the multi-toolkit site, through real Lmod,
# real Environment Modules and the .pc files alone (tests/clients/cmake):
# project(... LANGUAGES CXX CUDA), find_package(CUDAToolkit) with
# CUDA::cudart CUDA::cublas CUDA::cupti CUDA::nvrtc, and
# pkg_check_modules(... IMPORTED_TARGET ctk-NAME ctk-cublas-NAME).
# SPDX-License-Identifier: MIT
#
# For each toolkit and way of loading it: configure and build; the files
# CMake resolved (IMPORTED_LOCATION of the CUDA:: targets, the .pc
# target's libraries) and those the linker took (-Wl,--trace) are the
# toolkit's; at run time (ldd in the same environment) so are the
# libraries the programs load, and cudaRuntimeGetVersion says the
# toolkit's release.  With the .pc alone, CMake is given what the module
# would give it, from the .pc, as a job script without modules does
# (docs/variables.md, "CMake with the .pc alone"): the CUDA
# compiler (cudaroot), the library and header dirs (CMAKE_LIBRARY_PATH and
# CMAKE_INCLUDE_PATH, so FindCUDAToolkit takes a split's math_libs and a
# wheel tree's link dir over the system's), the host compiler (ccbin), and
# the .pc's -L and run path for every program.  No known failure today
# (lib.sh: known) for a reason issue 15 records.
. "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null 2>&1 || skip "cmake not installed (build-aux/deps.sh installs it)"
. "$top_srcdir/tests/clients-lib.sh"
SRC=$top_srcdir/tests/clients/cmake
echo "# $(cmake --version | head -n 1)"

# why NAME SYS TARGET STEP: why STEP (build, resolved, link, run, version)
# of TARGET (fp, cu, pc; "" for the project) fails today, or nothing: a
# known failure (lib.sh).  None today.
why() { :; }

pcq() { PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config "$@"; }
# pc_dirs OPTION FLAG PC...: the dirs of pkg-config OPTION as a CMake list
pc_dirs() {
    pd_opt=$1 pd_flag=$2
    shift 2
    pcq "$pd_opt" "$@" | tr ' ' '\n' | sed -n "s/^$pd_flag//p" | paste -sd ';'
}

for n in 13.0 11.8 13.5 13.0-hpcsdk25.9; do
    for sys in lmod tcl pc; do
        B=$T/cmake-$sys-$n
        run=$(sys_env "$sys" "$n")
        extra= ldf= inc=
        if [ "$sys" = pc ]; then
            # the .pc way for CMake (docs/variables.md), as a job script
            # without modules does: the toolkit's nvcc, its library and
            # header dirs ahead of the system's, and its host compiler
            cr=$(pcq --variable=cudaroot "ctk-$n")
            ccbin=$(pcq --variable=ccbin "ctk-$n")
            extra="-DCMAKE_CUDA_COMPILER=$cr/bin/nvcc -DCUDAToolkit_ROOT=$cr"
            extra="$extra -DCMAKE_LIBRARY_PATH=$(pc_dirs --libs-only-L -L "ctk-$n" "ctk-cublas-$n")"
            extra="$extra -DCMAKE_INCLUDE_PATH=$(pc_dirs --cflags-only-I -I "ctk-$n" "ctk-cublas-$n")"
            [ -n "$ccbin" ] && extra="$extra -DCMAKE_CUDA_HOST_COMPILER=$ccbin"
            # every program compiled with the .pc's -I (FindCUDAToolkit's
            # targets name the toolkit's include dir, not a split's
            # math_libs), and linked with its -L and run path
            inc=$(pcq --cflags-only-I "ctk-$n" "ctk-cublas-$n")
            ldf=$(pcq --libs-only-L --libs-only-other "ctk-$n")
        fi
        tag="cmake: $sys: cudatoolkit/$n"
        built=yes
        # shellcheck disable=SC2086
        if ! $run cmake -S "$SRC" -B "$B" -DCTK_PC="ctk-$n" -DCTK_NAME="$n" \
                -DCMAKE_CUDA_ARCHITECTURES=75 $extra ${ldf:+"-DCMAKE_EXE_LINKER_FLAGS=$ldf"} \
                ${inc:+"-DCMAKE_CXX_FLAGS=$inc"} ${inc:+"-DCMAKE_CUDA_FLAGS=$inc"} >"$B.cfg" 2>&1; then
            built=no
        else
            for t in fp cu pc; do
                $run cmake --build "$B" --target "$t" >"$B.$t.log" 2>&1 || built=no
            done
        fi
        if [ $built = no ]; then
            grep -m 3 -E 'error|Error' "$B.cfg" "$B".*.log 2>/dev/null | sed 's/^/# /'
        fi
        bwhy=$(why "$n" "$sys" "" build)
        claim "$tag: configures and builds (CUDA language, CUDA:: targets, pkg_check_modules)" \
            "$bwhy" [ $built = yes ]
        if [ $built = no ]; then
            unchecked "$tag: the libraries resolved, linked and loaded" "the build failed"
            continue
        fi
        resolved=$(sed -n 's/^CUDA::[A-Za-z]* //p; s/^PkgConfig::CTK //p' "$B/resolved.txt" | tr ' ' '\n' | grep /)
        claim "$tag: CMake resolved the CUDA:: targets and the .pc's libraries to the toolkit's files" \
            "$(why "$n" "$sys" "" resolved)" all_in_toolkit "$n" "$resolved" "resolved library"
        claim "$tag: the CUDA compiler CMake found is the toolkit's nvcc" "" \
            in_toolkit "$n" "$(sed -n 's/^CMAKE_CUDA_COMPILER //p' "$B/resolved.txt")"
        # the compiler's own record of the headers it read (CMake's depfile)
        hdr=$(tr ' \\' '\n\n' <"$B/CMakeFiles/fp.dir/fp.cpp.o.d" 2>/dev/null | grep '/cublas_v2\.h$' | head -n 1)
        claim "$tag: fp: the cuBLAS header compiled is the toolkit's (${hdr:-none})" "" in_toolkit "$n" "${hdr:-none}"
        for t in fp cu pc; do
            claim "$tag: $t: every CUDA library the linker took is the toolkit's (-Wl,--trace)" \
                "$(why "$n" "$sys" $t link)" all_in_toolkit "$n" "$(libs_in_trace "$B.$t.log")" "linked library"
            claim "$tag: $t: every CUDA library loaded at run time is the toolkit's (ldd)" \
                "$(why "$n" "$sys" $t run)" all_in_toolkit "$n" "$(libs_at_run "$run" "$B/$t")" "loaded library"
            check_version "$tag: $t" "$n" "$run" "$B/$t" "$(why "$n" "$sys" $t version)"
        done
    done
done
finish
