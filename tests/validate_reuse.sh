#!/bin/sh
# validate_reuse.sh - one nvcc compile per toolkit where the modules'
# compilers see what the .pc's saw, and a module's own nvcc run where they
# do not.
# SPDX-License-Identifier: MIT
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

finish
