#!/bin/sh
# clients_meson.sh - Meson over the multi-toolkit site, through real Lmod,
# real Environment Modules and the .pc files alone (tests/clients/meson):
# project(..., 'cuda') and dependency('ctk-NAME'), dependency('ctk-cublas-NAME').
# SPDX-License-Identifier: MIT
#
# For each toolkit and way of loading it: meson setup and ninja; the CUDA
# libraries on the link lines (-Wl,--trace, -Xlinker --trace for nvcc)
# and, for the .pc program, those ldd finds at run time must be the
# toolkit's, and both programs must report its release (the CUDA-language
# program links nvcc's default, static, runtime, so its release is the
# evidence).  With the .pc alone, Meson is given what the module would
# give it, from the .pc's variables, as a job script without modules is
# told to (docs/variables.md): the CUDA compiler from cudaroot (a native
# file: Meson 1.0 reads no variable for it) and, where the .pc names one,
# the host compiler from ccbin (-Dcuda_ccbindir, Meson's own option, which
# its CUDA compiler check uses too).
. "$(dirname "$0")/lib.sh"
command -v meson >/dev/null 2>&1 || skip "meson not installed (build-aux/deps.sh installs it)"
command -v ninja >/dev/null 2>&1 || skip "ninja not installed (build-aux/deps.sh installs ninja-build)"
. "$top_srcdir/tests/clients-lib.sh"
SRC=$top_srcdir/tests/clients/meson
echo "# meson $(meson --version)"

# pcv NAME VARIABLE: the .pc's variable, as a job script reads it
pcv() { PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --variable="$2" "ctk-$1"; }

for n in 13.0 11.8 13.5 13.0-hpcsdk25.9; do
    for sys in lmod tcl pc; do
        B=$T/meson-$sys-$n
        run=$(sys_env "$sys" "$n")
        tag="meson: $sys: cudatoolkit/$n"
        set --
        if [ $sys = pc ]; then
            # Meson 1.0 reads no variable for the CUDA compiler: a native file names it
            printf "[binaries]\ncuda = '%s/bin/nvcc'\n" "$(pcv "$n" cudaroot)" >"$B.ini"
            ccbin=$(pcv "$n" ccbin)
            set -- --native-file "$B.ini" ${ccbin:+-Dcuda_ccbindir="$ccbin"}
            echo "# $tag: meson setup $*"
        fi
        built=yes
        $run meson setup "$@" "$B" "$SRC" -Dctk="$n" >"$B.cfg" 2>&1 &&
            $run ninja -C "$B" >"$B.log" 2>&1 || built=no
        [ $built = yes ] || grep -h -m 3 -E 'ERROR|error' "$B.cfg" "$B.log" 2>/dev/null | sed 's/^/# /'
        claim "$tag: sets up and builds (CUDA language; dependency('ctk-$n'), dependency('ctk-cublas-$n'))" "" \
            [ $built = yes ]
        if [ $built = no ]; then
            unchecked "$tag: the libraries linked and loaded" "the build failed"
            continue
        fi
        mnvcc=$(jq -r '[.[] | .target_sources[]? | select(.language == "cuda") | .compiler[0]][0]' "$B/meson-info/intro-targets.json")
        case $mnvcc in /*) ;; *) mnvcc=$($run sh -c "command -v '$mnvcc'") ;; esac
        claim "$tag: the CUDA compiler Meson found is the toolkit's nvcc ($mnvcc)" "" \
            in_toolkit "$n" "$mnvcc"
        for t in cu pc; do
            # the --trace lines of one target: those ninja printed after its link step
            awk -v t="$t" '/Linking target /{on = ($NF == t)} on' "$B.log" >"$B.$t.trace"
            claim "$tag: $t: every CUDA library the linker took is the toolkit's (--trace)" \
                "" all_in_toolkit "$n" "$(libs_in_trace "$B.$t.trace")" "linked library"
            if [ $t = pc ]; then
                claim "$tag: $t: every CUDA library loaded at run time is the toolkit's (ldd)" \
                    "" all_in_toolkit "$n" "$(libs_at_run "$run" "$B/$t")" "loaded library"
            fi
            check_version "$tag: $t" "$n" "$run" "$B/$t" ""
        done
    done
done
finish
