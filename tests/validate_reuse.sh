#!/bin/sh
# validate_reuse.sh - one nvcc compile per toolkit where the modules'
# compilers see what the .pc's saw, and a module's own nvcc run where they
# do not.
# SPDX-License-Identifier: MIT
#
# One link too: the .pc's `c++ probe.o $(Libs)` stands for the modules'
# `c++ probe.o -lcudart`, and its program, run in a module's environment,
# for the module's, where the module's link would take the same files and
# its program load the same libraries.  A module whose LD_LIBRARY_PATH
# misses the toolkit, whose LIBRARY_PATH finds another libcudart first, or
# whose PATH brings its own ld gets its own link, and fails or passes on it.
#
# The nvcc runs are counted from the programs validate starts (strace -f
# -e trace=execve).  A generated module sets nothing nvcc reads beyond
# what the .pc's compile had (its PATH, CPATH and LD_LIBRARY_PATH name the
# toolkit's own dirs), so the modules run no nvcc of their own.  A module
# with NVCC_APPEND_FLAGS, or with a CPATH dir the .pc does not name, gets
# its own nvcc run, and fails or passes on it alone.
. "$(dirname "$0")/lib.sh"
need_cuda
need_em
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"
command -v strace >/dev/null 2>&1 || skip "strace not installed"
strace -f -qq -e trace=execve -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"

# LeakSanitizer cannot run under ptrace: in a sanitized build, leaks are
# checked by every other test instead (as in crash.sh).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS

# as root, validate loads the modulefiles as user nobody, who must reach them
chmod 755 "$T"
export MODULES_CMD="$EM_CMD"
unset LMOD_CMD

cat > "$T/site.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA" } ] }
JSON
OUT=$T/out
check "generate" "$CTKGEN" -q generate -c "$T/site.json" -o "$OUT"
L=lmod/cudatoolkit/13.0.lua
TC=tcl/cudatoolkit/13.0

# traced NAME TREE: validate TREE under strace; the report in $T/NAME.json,
# the programs started in $T/NAME.log; prints the exit status
traced() {
    rc=0
    strace -f -qq -s 4096 -e trace=execve -e signal=none -o "$T/$1.log" \
        "$CTKGEN" -q validate -c "$T/site.json" -o "$2" --no-cache --json -j1 > "$T/$1.json" || rc=$?
    echo "$rc"
}
# nvcc_runs NAME FLAG: how many times nvcc was started with FLAG first
nvcc_runs() { grep -c "execve(\"[^\"]*/nvcc\", \[\"[^\"]*nvcc\", \"$2\"" "$T/$1.log" || :; }
# runs NAME ERE: how many programs were started whose argv matches ERE
runs() { grep -cE "$2" "$T/$1.log" || :; }
MODLINK='execve\("[^"]*c\+\+", \["[^"]*c\+\+", "probe.o", "-lcudart"'
PCLINK='execve\("[^"]*c\+\+", \["[^"]*c\+\+", "probe.o", "-L'
field() { jq -r --arg k "$3" ".sdks[0].artifacts[] | select(.kind == \$k) | .$2" "$T/$1.json"; }
msgs() { jq -r --arg k "$2" '.sdks[0].artifacts[] | select(.kind == $k) | .findings[].message' "$T/$1.json"; }

# ---- 1. the generated tree: one compile stands for all three --------------
rc=$(traced good "$OUT")
check "good: validate exits 0" [ "$rc" -eq 0 ]
check "good: no artifact failed" [ "$(jq '.summary.fail' "$T/good.json")" -eq 0 ]
check "good: nvcc -c ran once" [ "$(nvcc_runs good -c)" -eq 1 ]
check "good: no module ran nvcc -E of its own" [ "$(nvcc_runs good -E)" -eq 0 ]
check "good: lmod's build is the .pc's" same_text "$(field good built_by lmod)" pc
check "good: tcl runs the probes built for lmod" same_text "$(field good built_by tcl)" lmod
check "good: the .pc built its own" same_text "$(field good built_by pc)" null
check "good: the .pc linked once" [ "$(runs good "$PCLINK")" -eq 1 ]
check "good: no module linked its own" [ "$(runs good "$MODLINK")" -eq 0 ]
check "good: lmod's program is the .pc's" same_text "$(field good linked_by lmod)" pc
check "good: so is tcl's" same_text "$(field good linked_by tcl)" pc
check "good: the .pc's program ran three times (no env, lmod's, tcl's)" \
    [ "$(runs good 'execve\("[^"]*/probe_pc"')" -eq 3 ]
check "good: the host probe is parsed in lmod's environment" \
    [ "$(runs good '"-fsyntax-only", "-MD", "-MF", "host_lmod.d", "host_probe.c"')" -eq 1 ]
check "good: ... and not built" [ "$(runs good '"host_probe.c", "-lcudart"')" -eq 0 ]
check "good: nvcc read the Libs in the compile: no nvcc -dryrun" [ "$(nvcc_runs good -dryrun)" -eq 0 ]
check "good: lmod's CUDA probe, in its environment, loaded the toolkit's libcudart" \
    same_text "$(readlink -f "$(field good cuda_probe.libcudart lmod)")" "$(readlink -f "$CTK_TEST_CUDA/lib64/libcudart.so.13")"

# ---- 2. NVCC_APPEND_FLAGS reaches nvcc: the modules build on their own -------
d=$T/append; rm -rf "$d"; cp -a "$OUT" "$d"
printf 'setenv("NVCC_APPEND_FLAGS", "--no-such-nvcc-option")\n' >> "$d/$L"
printf 'setenv NVCC_APPEND_FLAGS "--no-such-nvcc-option"\n' >> "$d/$TC"
rc=$(traced append "$d")
check "append: validate exits 1" [ "$rc" -eq 1 ]
check "append: lmod and tcl each ran nvcc -E" [ "$(nvcc_runs append -E)" -eq 2 ]
check "append: lmod fails" same_text "$(field append verdict lmod)" fail
check "append: tcl fails" same_text "$(field append verdict tcl)" fail
check "append: lmod's finding is its own nvcc run" sh -c "printf '%s\n' \"\$1\" | grep -q 'nvcc -E'" _ "$(msgs append lmod)"
check "append: lmod's build is its own" same_text "$(field append built_by lmod)" null
check "append: the .pc still passes on its own" differs "$(field append verdict pc)" fail

# ---- 3. a CPATH dir the .pc does not name: lmod's own nvcc run, and it passes
d=$T/cpath; rm -rf "$d"; cp -a "$OUT" "$d"
mkdir -p "$T/extra-include"
chmod 755 "$T/extra-include"
printf 'append_path("CPATH", "%s/extra-include")\n' "$T" >> "$d/$L"
printf 'append-path CPATH "%s/extra-include"\n' "$T" >> "$d/$TC"
rc=$(traced cpath "$d")
check "cpath: validate exits 0" [ "$rc" -eq 0 ]
check "cpath: nvcc -c ran once (the .pc's)" [ "$(nvcc_runs cpath -c)" -eq 1 ]
check "cpath: lmod ran nvcc -E of its own" [ "$(nvcc_runs cpath -E)" -eq 1 ]
check "cpath: lmod's build is its own" same_text "$(field cpath built_by lmod)" null
check "cpath: tcl, with the same environment, runs lmod's probes" same_text "$(field cpath built_by tcl)" lmod
check "cpath: no artifact failed" [ "$(jq '.summary.fail' "$T/cpath.json")" -eq 0 ]

# ---- 4. two SDKs on one nvcc: it is asked its release once -------------------
cat > "$T/two.json" <<JSON
{ "sdks": [ { "version": "13.0", "name": "13.0-a", "base": "$CTK_TEST_CUDA" },
            { "version": "13.0", "name": "13.0-b", "base": "$CTK_TEST_CUDA" } ] }
JSON
check "two: generate" "$CTKGEN" -q generate -c "$T/two.json" -o "$T/two"
rc=0
strace -f -qq -s 4096 -e trace=execve -e signal=none -o "$T/two.log" \
    "$CTKGEN" -q validate -c "$T/two.json" -o "$T/two" --no-cache --json -j2 > "$T/two.json.out" || rc=$?
check "two: validate exits 0" [ "$rc" -eq 0 ]
check "two: nvcc --version ran once for both" [ "$(nvcc_runs two --version)" -eq 1 ]
check "two: nvcc -c ran once per SDK" [ "$(nvcc_runs two -c)" -eq 2 ]
check "two: both SDKs report the release" \
    same_text "$(jq -r '[.sdks[].artifacts[] | select(.kind == "pc") | .nvcc_release] | join(" ")' "$T/two.json.out")" "13.0 13.0"

# ---- 5. LD_LIBRARY_PATH misses the toolkit: the .pc's rpath must not hide it --
# A view of the toolkit (a tree of links) that no loader cache knows: the
# .pc's program finds libcudart through its RUNPATH, $T/view/lib64; the
# module's own program, with no rpath, never loads it from there (it
# loads the one a cache names, or none: CTK-RUN-003).
cp -as "$CTK_TEST_CUDA/." "$T/view"
printf '{ "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$T/view" > "$T/view.json"
check "view: generate" "$CTKGEN" -q generate -c "$T/view.json" -o "$T/vout"
nd=$T/noldlp; rm -rf "$nd"; cp -a "$T/vout" "$nd"
sed -i '/"LD_LIBRARY_PATH"/d' "$nd/$L" "$nd/$TC"
check "noldlp: neither module sets LD_LIBRARY_PATH" sh -c '! grep -q "\"LD_LIBRARY_PATH\"" "$1" "$2"' _ "$nd/$L" "$nd/$TC"
rc=0
strace -f -qq -s 4096 -e trace=execve -e signal=none -o "$T/noldlp.log" \
    "$CTKGEN" -q validate -c "$T/view.json" -o "$nd" --no-cache --json -j1 > "$T/noldlp.json" || rc=$?
check "noldlp: lmod linked its own" [ "$(runs noldlp "$MODLINK")" -ge 1 ]
check "noldlp: lmod's program is its own" same_text "$(field noldlp linked_by lmod)" null
check "noldlp: tcl's too" same_text "$(field noldlp linked_by tcl)" null
check "noldlp: lmod's program did not load libcudart through the .pc's rpath" \
    sh -c 'case "$1" in "$2"/*) exit 1 ;; esac' _ "$(field noldlp cuda_probe.libcudart lmod)" "$T/view"
check "noldlp: the .pc's own program did" \
    sh -c 'case "$1" in "$2"/*) exit 0 ;; esac; exit 1' _ "$(field noldlp cuda_probe.libcudart pc)" "$T/view"

# ---- 6. a LIBRARY_PATH dir in front with its own libcudart -------------------
# (a copy in both dirs a compiler may search for the entry: the entry
# itself and its multilib sibling, which GCC searches first)
lib=$(readlink -f "$CTK_TEST_CUDA/lib64/libcudart.so")
mkdir -p "$T/other/lib64" "$T/other/lib"
cp "$lib" "$T/other/lib64/libcudart.so"
cp "$lib" "$T/other/lib/libcudart.so"
chmod -R a+rX "$T/other"
cp "$top_srcdir/kernels/host_probe.c" "$top_srcdir/kernels/probe_json.h" "$T/"
took=$(cd "$T" && CPATH="$CTK_TEST_CUDA/include" LIBRARY_PATH="$T/other/lib64:$CTK_TEST_CUDA/lib64" \
       cc host_probe.c -lcudart -Wl,--trace -o host_other 2>&1 | grep libcudart)
check "otherlp: a plain cc link with that LIBRARY_PATH takes the other copy ($took)" \
    sh -c 'case "$1" in "$2"/*) exit 0 ;; esac; exit 1' _ "$took" "$T/other"
d=$T/otherlp; rm -rf "$d"; cp -a "$OUT" "$d"
printf 'prepend_path("LIBRARY_PATH", "%s/other/lib64")\n' "$T" >> "$d/$L"
printf 'prepend-path LIBRARY_PATH "%s/other/lib64"\n' "$T" >> "$d/$TC"
rc=$(traced otherlp "$d")
check "otherlp: lmod linked its own" [ "$(runs otherlp "$MODLINK")" -ge 1 ]
check "otherlp: lmod's program is its own" same_text "$(field otherlp linked_by lmod)" null
check "otherlp: its link took the other libcudart (CTK-LINK-001)" \
    sh -c "printf '%s\n' \"\$1\" | grep -q '/other/'" _ "$(jq -r '.sdks[0].artifacts[] | select(.kind == "lmod") | .findings[] | select(.code == "CTK-LINK-001") | .message' "$T/otherlp.json")"
check "otherlp: the host probe was built and run, not parsed alone" \
    [ "$(runs otherlp '"host_probe.c", "-lcudart"')" -ge 1 ]

# ---- 7. a PATH dir in front with an ld of its own ----------------------------
mkdir -p "$T/toolbin"
ln -sf "$(command -v ld)" "$T/toolbin/ld"
chmod 755 "$T/toolbin"
d=$T/ownld; rm -rf "$d"; cp -a "$OUT" "$d"
printf 'prepend_path("PATH", "%s/toolbin")\n' "$T" >> "$d/$L"
printf 'prepend-path PATH "%s/toolbin"\n' "$T" >> "$d/$TC"
rc=$(traced ownld "$d")
check "ownld: validate exits 0" [ "$rc" -eq 0 ]
check "ownld: lmod linked its own" [ "$(runs ownld "$MODLINK")" -eq 1 ]
check "ownld: lmod's program is its own" same_text "$(field ownld linked_by lmod)" null
check "ownld: tcl, with the same environment, ran lmod's program" same_text "$(field ownld built_by tcl)" lmod

# ---- 7b. a cc that searches other dirs than c++: the host probe is built ------
# (gcc-11's search list names its own dirs: its C link could take other
# files than c++'s, so the .pc's link stands for the CUDA probe alone)
check "cc11: gcc-11 is installed (build-aux/deps.sh installs it)" command -v gcc-11
if command -v gcc-11 >/dev/null 2>&1; then
    rc=0
    strace -f -qq -s 4096 -e trace=execve -e signal=none -o "$T/cc11.log" \
        "$CTKGEN" -q validate -c "$T/site.json" -o "$OUT" --no-cache --json -j1 --cc "$(command -v gcc-11)" \
        > "$T/cc11.json" || rc=$?
    check "cc11: validate exits 0" [ "$rc" -eq 0 ]
    check "cc11: lmod's program is still the .pc's" same_text "$(field cc11 linked_by lmod)" pc
    check "cc11: the host probe was built and run by gcc-11" \
        [ "$(runs cc11 'gcc-11", "-MD", "-MF", "host_lmod.d", "host_probe.c", "-lcudart"')" -eq 1 ]
    check "cc11: ... and reported the toolkit's libcudart" \
        same_text "$(readlink -f "$(field cc11 host_probe.libcudart lmod)")" "$(readlink -f "$CTK_TEST_CUDA/lib64/libcudart.so.13")"
fi

# ---- 8. Libs nvcc cannot read: nvcc -dryrun says so (CTK-PC-001) -------------
d=$T/wl; rm -rf "$d"; cp -a "$OUT" "$d"
sed -i 's/-Xlinker -rpath=\${libdir}/-Wl,-rpath,${libdir}/' "$d/pkgconfig/ctk-13.0.pc"
rc=$(traced wl "$d")
check "wl: the .pc's Libs carry -Wl,-rpath" grep -q -- '-Wl,-rpath,' "$d/pkgconfig/ctk-13.0.pc"
check "wl: nvcc -dryrun ran" [ "$(nvcc_runs wl -dryrun)" -eq 1 ]
check "wl: the .pc fails with CTK-PC-001" \
    sh -c "jq -r '.sdks[0].artifacts[] | select(.kind == \"pc\") | .findings[].code' \"\$1\" | grep -qx CTK-PC-001" _ "$T/wl.json"
check "wl: nvcc -c ran once (the Libs never rode along)" [ "$(nvcc_runs wl -c)" -eq 1 ]

finish
