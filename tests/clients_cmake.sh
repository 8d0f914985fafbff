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
# would give it, from the .pc's variables, as a job script without
# modules is told to (docs/variables.md): the CUDA compiler and
# CUDAToolkit_ROOT from cudaroot, CMAKE_LIBRARY_PATH, CMAKE_INCLUDE_PATH
# and CMAKE_BUILD_RPATH from cmake_library_path, cmake_include_path and
# cmake_build_rpath, the host compiler from ccbin and, for a wheel tree,
# ctkgen's link dir (ctk_linkdir) on CMAKE_EXE_LINKER_FLAGS, and the
# .pc's -I on CMAKE_CXX_FLAGS and CMAKE_CUDA_FLAGS (a split's cublas_v2.h
# is in math_libs: without them fp compiles against /usr/local/include's,
# or fails where there is none; fp's depfile is checked).  Under Lmod,
# the .pc's CMake lists are checked to be the module's CMAKE_LIBRARY_PATH
# and CMAKE_INCLUDE_PATH.
. "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null 2>&1 || skip "cmake not installed (build-aux/deps.sh installs it)"
. "$top_srcdir/tests/clients-lib.sh"
SRC=$top_srcdir/tests/clients/cmake
echo "# $(cmake --version | head -n 1)"

# pcv NAME VARIABLE: the .pc's variable, as a job script reads it
pcv() { PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --variable="$2" "ctk-$1"; }

for n in 13.0 11.8 13.5 13.0-hpcsdk25.9; do
    for sys in lmod tcl pc; do
        B=$T/cmake-$sys-$n
        run=$(sys_env "$sys" "$n")
        tag="cmake: $sys: cudatoolkit/$n"
        set --
        if [ "$sys" = pc ]; then
            # what a job script with the .pc alone passes (docs/variables.md)
            cr=$(pcv "$n" cudaroot) ccbin=$(pcv "$n" ccbin) linkdir=$(pcv "$n" ctk_linkdir)
            # the .pc's -I for every compile: FindCUDAToolkit's targets name
            # the toolkit's include dir, not a split's math_libs
            inc=$(PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --cflags-only-I "ctk-$n" "ctk-cublas-$n")
            set -- -DCUDAToolkit_ROOT="$cr" -DCMAKE_CUDA_COMPILER="$cr/bin/nvcc" \
                -DCMAKE_CXX_FLAGS="$inc" -DCMAKE_CUDA_FLAGS="$inc" \
                -DCMAKE_LIBRARY_PATH="$(pcv "$n" cmake_library_path)" \
                -DCMAKE_INCLUDE_PATH="$(pcv "$n" cmake_include_path)" \
                -DCMAKE_BUILD_RPATH="$(pcv "$n" cmake_build_rpath)" \
                ${ccbin:+-DCMAKE_CUDA_HOST_COMPILER="$ccbin"} \
                ${linkdir:+-DCMAKE_EXE_LINKER_FLAGS="-L$linkdir"}
            echo "# $tag: cmake $*"
        elif [ "$sys" = lmod ]; then
            # the .pc's CMake lists are what the module sets (';' for ':')
            for v in CMAKE_LIBRARY_PATH:cmake_library_path CMAKE_INCLUDE_PATH:cmake_include_path; do
                mv=$($run sh -c "echo \"\$${v%%:*}\"")
                claim "$tag: the .pc's ${v#*:} is the module's ${v%%:*}" "" \
                    same_text "$(pcv "$n" "${v#*:}" | tr ';' ':')" "$mv"
            done
        fi
        built=yes
        if ! $run cmake -S "$SRC" -B "$B" -DCTK_PC="ctk-$n" -DCTK_NAME="$n" \
                -DCMAKE_CUDA_ARCHITECTURES=75 "$@" >"$B.cfg" 2>&1; then
            built=no
        else
            for t in fp cu pc; do
                $run cmake --build "$B" --target "$t" >"$B.$t.log" 2>&1 || built=no
            done
        fi
        if [ $built = no ]; then
            grep -m 3 -E 'error|Error' "$B.cfg" "$B".*.log 2>/dev/null | sed 's/^/# /'
        fi
        claim "$tag: configures and builds (CUDA language, CUDA:: targets, pkg_check_modules)" "" [ $built = yes ]
        if [ $built = no ]; then
            unchecked "$tag: the libraries resolved, linked and loaded" "the build failed"
            continue
        fi
        resolved=$(sed -n 's/^CUDA::[A-Za-z]* //p; s/^PkgConfig::CTK //p' "$B/resolved.txt" | tr ' ' '\n' | grep /)
        claim "$tag: CMake resolved the CUDA:: targets and the .pc's libraries to the toolkit's files" \
            "" all_in_toolkit "$n" "$resolved" "resolved library"
        claim "$tag: the CUDA compiler CMake found is the toolkit's nvcc" "" \
            in_toolkit "$n" "$(sed -n 's/^CMAKE_CUDA_COMPILER //p' "$B/resolved.txt")"
        # the compiler's own record of the headers it read (CMake's depfile)
        hdr=$(tr ' \\' '\n\n' <"$B/CMakeFiles/fp.dir/fp.cpp.o.d" 2>/dev/null | grep '/cublas_v2\.h$' | head -n 1)
        claim "$tag: fp: the cuBLAS header compiled is the toolkit's (${hdr:-none})" "" in_toolkit "$n" "${hdr:-none}"
        for t in fp cu pc; do
            claim "$tag: $t: every CUDA library the linker took is the toolkit's (-Wl,--trace)" "" \
                all_in_toolkit "$n" "$(libs_in_trace "$B.$t.log")" "linked library"
            # with the .pc alone, the CUDA language's libcudart (from nvcc's
            # own lib dir, an implicit link dir CMake gives no run path) is
            # found through CMAKE_BUILD_RPATH
            claim "$tag: $t: every CUDA library loaded at run time is the toolkit's (ldd)" "" \
                all_in_toolkit "$n" "$(libs_at_run "$run" "$B/$t")" "loaded library"
            check_version "$tag: $t" "$n" "$run" "$B/$t" ""
        done
    done
done
finish
