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
# toolkit's release.  With the .pc alone, CMake is given the CUDA
# compiler from the .pc's cudaroot, as a job script without modules would.
# What fails today for a reason issue 15 records is a known failure
# (lib.sh: known): the 13.5 wheel tree's versioned-only libraries, 11.8's
# NVCC_CCBIN, and FindCUDAToolkit taking a system cuBLAS over an HPC SDK
# split's math_libs.
. "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null 2>&1 || skip "cmake not installed (build-aux/deps.sh installs it)"
. "$top_srcdir/tests/clients-lib.sh"
SRC=$top_srcdir/tests/clients/cmake
echo "# $(cmake --version | head -n 1)"

# why NAME SYS TARGET STEP: why STEP (build, resolved, link, run, version)
# of TARGET (fp, cu, pc; "" for the project) fails today, or nothing
why() {
    case $1:$2:$3:$4 in
        11.8:pc:*) echo "$WHY_CCBIN_PC" ;;
        13.5:pc::resolved|13.5:pc:fp:link|13.5:pc:cu:link) echo "$WHY_WHEEL_PC" ;;
        13.5:pc:fp:*) echo "$WHY_WHEEL_PC (with no LD_LIBRARY_PATH, CMake's run path leads there too)" ;;
        13.0-hpcsdk*:pc::resolved|13.0-hpcsdk*:pc:fp:link) echo "$WHY_SPLIT (with no module, nothing sets CMAKE_LIBRARY_PATH)" ;;
        13.0-hpcsdk*:pc:fp:run) echo "$WHY_SPLIT (with no LD_LIBRARY_PATH, CMake's run path leads there too; and CUDA::cupti, with no module's CUPTI dir)" ;;
    esac
}

for n in 13.0 11.8 13.5 13.0-hpcsdk25.9; do
    for sys in lmod tcl pc; do
        B=$T/cmake-$sys-$n
        run=$(sys_env "$sys" "$n")
        extra=
        if [ "$sys" = pc ]; then
            cr=$(PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --variable=cudaroot "ctk-$n")
            extra="-DCMAKE_CUDA_COMPILER=$cr/bin/nvcc"
        fi
        tag="cmake: $sys: cudatoolkit/$n"
        built=yes
        # shellcheck disable=SC2086
        if ! $run cmake -S "$SRC" -B "$B" -DCTK_PC="ctk-$n" -DCTK_NAME="$n" \
                -DCMAKE_CUDA_ARCHITECTURES=75 $extra >"$B.cfg" 2>&1; then
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
        # with the .pc alone, FindCUDAToolkit takes what else the machine
        # has for a wheel tree's or a split's libraries: where nothing else
        # is (a clean root), the configure itself fails for the same reason
        if [ $built = no ] && [ "$sys" = pc ] && [ -z "$bwhy" ]; then
            case $n in
                13.5) bwhy="$WHY_WHEEL_PC; with no other CUDA here for it to take, the configure fails" ;;
                13.0-hpcsdk*) bwhy="$WHY_SPLIT (with no module, nothing sets CMAKE_LIBRARY_PATH); with no other cuBLAS here for it to take, the configure fails" ;;
            esac
        fi
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
        for t in fp cu pc; do
            claim "$tag: $t: every CUDA library the linker took is the toolkit's (-Wl,--trace)" \
                "$(why "$n" "$sys" $t link)" all_in_toolkit "$n" "$(libs_in_trace "$B.$t.log")" "linked library"
            if [ $sys = pc ] && [ $t = cu ]; then
                unchecked "$tag: cu: the libcudart loaded at run time, and the release it reports" "CMake links the CUDA language's runtime from nvcc's own library directory and gives it no run path: with no module loaded, the loader's cache decides, which no .pc can change"
            else
                claim "$tag: $t: every CUDA library loaded at run time is the toolkit's (ldd)" \
                    "$(why "$n" "$sys" $t run)" all_in_toolkit "$n" "$(libs_at_run "$run" "$B/$t")" "loaded library"
            fi
            [ $sys = pc ] && [ $t = cu ] && continue
            check_version "$tag: $t" "$n" "$run" "$B/$t" "$(why "$n" "$sys" $t version)"
        done
    done
done
finish
