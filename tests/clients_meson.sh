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
# evidence).  With the .pc alone, Meson is given the CUDA compiler from the
# .pc's cudaroot and, where the .pc names one, its host compiler (ccbin)
# as nvcc's -ccbin, in a native file (Meson 1.0 reads no variable for the
# CUDA compiler), as a job script without modules does (docs/variables.md).
# No known failure today (lib.sh: known) for a reason issue 15 records.
. "$(dirname "$0")/lib.sh"
command -v meson >/dev/null 2>&1 || skip "meson not installed (build-aux/deps.sh installs it)"
command -v ninja >/dev/null 2>&1 || skip "ninja not installed (build-aux/deps.sh installs ninja-build)"
. "$top_srcdir/tests/clients-lib.sh"
SRC=$top_srcdir/tests/clients/meson
echo "# meson $(meson --version)"

# why NAME SYS TARGET STEP: why STEP (build, link, run, version) fails
# today, or nothing: a known failure (lib.sh).  None today.
why() { :; }

for n in 13.0 11.8 13.5 13.0-hpcsdk25.9; do
    for sys in lmod tcl pc; do
        B=$T/meson-$sys-$n
        run=$(sys_env "$sys" "$n")
        native=
        if [ $sys = pc ]; then
            # Meson 1.0 reads no variable for the CUDA compiler: a native
            # file names it, with the .pc's host compiler where it has one
            cr=$(PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --variable=cudaroot "ctk-$n")
            ccbin=$(PKG_CONFIG_PATH=$OUT/pkgconfig pkg-config --variable=ccbin "ctk-$n")
            printf "[binaries]\ncuda = ['%s/bin/nvcc'%s]\n" "$cr" "${ccbin:+, '-ccbin=$ccbin'}" >"$B.ini"
            native="--native-file $B.ini"
        fi
        tag="meson: $sys: cudatoolkit/$n"
        built=yes
        # shellcheck disable=SC2086
        $run meson setup $native "$B" "$SRC" -Dctk="$n" >"$B.cfg" 2>&1 &&
            $run ninja -C "$B" >"$B.log" 2>&1 || built=no
        [ $built = yes ] || grep -h -m 3 -E 'ERROR|error' "$B.cfg" "$B.log" 2>/dev/null | sed 's/^/# /'
        claim "$tag: sets up and builds (CUDA language; dependency('ctk-$n'), dependency('ctk-cublas-$n'))" \
            "$(why "$n" "$sys" "" build)" [ $built = yes ]
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
                "$(why "$n" "$sys" $t link)" all_in_toolkit "$n" "$(libs_in_trace "$B.$t.trace")" "linked library"
            if [ $t = pc ]; then
                claim "$tag: $t: every CUDA library loaded at run time is the toolkit's (ldd)" \
                    "$(why "$n" "$sys" $t run)" all_in_toolkit "$n" "$(libs_at_run "$run" "$B/$t")" "loaded library"
            fi
            check_version "$tag: $t" "$n" "$run" "$B/$t" "$(why "$n" "$sys" $t version)"
        done
    done
done
finish
