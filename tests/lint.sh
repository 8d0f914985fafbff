#!/bin/sh
# lint.sh - `ctkgen lint` over a corpus of hand-written modulefiles and .pc files.
# SPDX-License-Identifier: MIT
#
# The corpus (tests/data/lint) holds modulefiles and .pc files in the
# styles real sites ship (NVIDIA HPC SDK, HPE Cray PE, Spack, EasyBuild,
# OpenHPC, site-written), clean ones, and hostile Lua files.  Their paths
# are placeholders filled in here with real toolkit trees (tests/fixtures.sh
# builds them from the toolkit on this machine); expected.txt lists the
# exact finding codes of every file.  Everything is real: Environment
# Modules loads the Tcl files, libpkgconf reads the .pc files, nvcc judges
# the Libs, ctkgen generate writes what --fix-suggest proposes.
#
# Lint runs no program another user can change (CTK-TRUST-001), and no
# program below a world-writable /tmp is trusted, so the toolkit trees are
# built afresh in the build tree (make_trusted_tmp), not in the cache under
# $TMPDIR the other tests share; tests/rootsafe_exec.sh covers the rest.
. "$(dirname "$0")/lib.sh"
need_cuda
need_em
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"

umask 022
make_trusted_tmp || { echo "FAIL: no directory ctkgen trusts for the toolkit trees"; exit 1; }
FIX=$TT/fixtures
sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$FIX" >/dev/null || { echo "fixtures.sh failed"; exit 1; }
CUDA=$FIX/standalone/cuda-13.0
HPCSDK=$FIX/hpcsdk/Linux_x86_64/25.9
C=$T/corpus
# as root, lint loads Tcl files as user nobody, who must be able to reach them
chmod 755 "$T"
MARKER=$T/MARKER                     # hostile files try to create it
LT=$T/lt                             # lint's TMPDIR: must be empty after every run
mkdir -p "$LT"
unset MODULES_CMD LMOD_CMD

# ---- the corpus, placeholders filled in ------------------------------------
cp -R "$top_srcdir/tests/data/lint" "$C"
chmod -R u+w "$C"
find "$C" -type f | while read -r f; do
    sed -e "s|@CUDA@|$CUDA|g" -e "s|@HPCSDK@|$HPCSDK|g" -e "s|@SYS@|$CTK_TEST_CUDA|g" \
        -e "s|@CORPUS@|$C|g" -e "s|@MARKER@|$MARKER|g" "$f" > "$f.tmp" && mv "$f.tmp" "$f"
done
rm -f "$C/expected.txt"
EXP=$top_srcdir/tests/data/lint/expected.txt

L() { TMPDIR=$LT "$CTKGEN" -q lint "$@"; }
lt_empty() { empty_dir "$LT"; }
# codes JSON FILE: the sorted unique codes of one file
codes() { jq -r --arg f "$2" '.files[] | select(.file == $f) | [.findings[].code] | unique | join(" ")' "$1"; }

rc=0; L --json --modulecmd "$EM_CMD" "$C" > "$T/all.json" 2> "$T/all.err" || rc=$?
check "lint of the corpus exits 1 (it holds errors)" [ "$rc" -eq 1 ]
check "the JSON report parses" jq -e . "$T/all.json" >/dev/null
check "Tcl files were loaded by Environment Modules" sh -c "jq -r .tcl '$T/all.json' | grep -qF '$EM_CMD'"
if [ "$(id -u)" = 0 ]; then
    check "as root, every Tcl file was loaded as user nobody" \
        sh -c "[ \"\$(jq -r .tcl_user '$T/all.json')\" = 'nobody (uid 65534)' ] &&
               [ \"\$(jq '[.files[] | select(.kind == \"tcl\")] | length' '$T/all.json')\" -gt 0 ] &&
               [ \"\$(jq '[.files[] | select(.kind == \"tcl\" and .evaluated_as != \"user nobody (uid 65534)\")] | length' '$T/all.json')\" -eq 0 ]"
fi

# ---- every file: exactly the listed codes ---------------------------------------
n=0
grep -v '^#' "$EXP" | grep -v '^ *$' > "$T/exp"
while read -r rel want; do
    n=$((n + 1))
    [ "$want" = clean ] && want=
    want=$(printf '%s\n' $want | sort -u | tr '\n' ' ' | sed 's/ *$//')
    got=$(codes "$T/all.json" "$C/$rel")
    if [ "$(jq --arg f "$C/$rel" '[.files[] | select(.file == $f)] | length' "$T/all.json")" != 1 ]; then
        fail "$rel: linted once"
    elif [ "$got" = "$want" ]; then
        pass "$rel: ${want:-clean}"
    else
        fail "$rel: want '${want:-clean}', got '$got'"
    fi
done < "$T/exp"
check "the walk linted exactly the $n files expected.txt lists" \
    [ "$(jq '.files | length' "$T/all.json")" -eq "$n" ]
check "default and alias files are skipped, not linted" \
    sh -c "jq -r '.skipped[].file' '$T/all.json' | grep -q 'cudatoolkit/.modulerc.lua\$' &&
           jq -r '.skipped[].file' '$T/all.json' | grep -q 'cudatoolkit/.version\$'"
check "a README is skipped with a reason" \
    sh -c "jq -r '.skipped[] | select(.file | endswith(\"lmod/README\")) | .why' '$T/all.json' | grep -q 'not a modulefile'"
check "no hostile file ran a command (no marker)" [ ! -e "$MARKER" ]
check "every finding has its fix" [ "$(jq '[.files[].findings[] | select(.fix == null)] | length' "$T/all.json")" -eq 0 ]
check "lint's private temp dir is gone" lt_empty

# ---- what the findings say --------------------------------------------------------
f=$C/pc/site/ctk-12.4.pc
check "CTK-PC-002 points at the Version line" \
    same_text "$(jq -r --arg f "$f" '.files[] | select(.file == $f) | .findings[] | select(.code == "CTK-PC-002") | .line' "$T/all.json")" \
      "$(grep -n '^Version:' "$f" | cut -d: -f1)"
f=$C/lmod/cuda/13.0-stubs.lua
check "CTK-LDLIB-001 points at the line that adds the stubs dir" \
    same_text "$(jq -r --arg f "$f" '.files[] | select(.file == $f) | .findings[0].line' "$T/all.json")" \
      "$(grep -n 'lib64/stubs' "$f" | cut -d: -f1)"
f=$C/pc/cray/ctk-13.0.pc
check "CTK-PC-003 names the unused cu_math" \
    sh -c "jq -r --arg f '$f' '.files[] | select(.file == \$f) | .findings[] | select(.code == \"CTK-PC-003\") | .message' '$T/all.json' | grep -q cu_math"
check "CTK-PC-001 quotes nvcc's own refusal" \
    sh -c "jq -r --arg f '$f' '.files[] | select(.file == \$f) | .findings[] | select(.code == \"CTK-PC-001\") | .message' '$T/all.json' | grep -q 'nvcc fatal'"
check "the Cray cudatoolkit module's PE_PKGCONFIG_LIBS finding names ctk-13.0.pc" \
    sh -c "jq -r '.files[] | select(.file | endswith(\"tcl/cudatoolkit/13.0\")) | .findings[] | select(.code == \"CTK-PC-004\") | .message' '$T/all.json' | grep -q 'ctk-13.0.pc'"
f=$C/lmod/cudatoolkit/25.9_13.0.lua
check "a finding about what a Lua module never sets gets no line (not its comment's)" \
    same_text "$(jq -r --arg f "$f" '[.files[] | select(.file == $f) | .findings[] | select(.code == "CTK-CPATH-001") | (.line // 0)] | .[0]' "$T/all.json")" 0
check "the HPC SDK split was found: nvhpc's toolkit is cuda/13.0 by PATH" \
    [ "$(jq -r '.files[] | select(.file | endswith("lmod/nvhpc/25.9.lua")) | .toolkit.root' "$T/all.json")" = "$HPCSDK/cuda/13.0" ]
check "the hostile recursion is stopped by a limit" \
    sh -c "jq -r '.files[] | select(.file | endswith(\"recursion.lua\")) | .findings[0].message' '$T/all.json' | grep -qE 'limit|budget|overflow'"
check "the pcall-wrapped os.execute is reported though the module loads" \
    sh -c "jq -r '.files[] | select(.file | endswith(\"pcall-execute.lua\")) | .findings[0].message' '$T/all.json' | grep -q os.execute"

# ---- the Lmod function set: what the codes alone do not prove ----------------------
# fjson REL JQ-FILTER: the filter applied to one file's entry of the report
fjson() { jq -r --arg f "$C/$1" ".files[] | select(.file == \$f) | $2" "$T/all.json"; }
check "no file stops at a function the sandbox lacks (add_property and the rest)" \
    [ "$(jq '[.files[] | select(.file | test("/hostile/") | not) | .findings[].message | select(test("undefined global|nil value"))] | length' "$T/all.json")" -eq 0 ]
f=lmod/CUDA/13.0.0-GCC-13.2.0.lua
check "the EasyBuild bundle sets no toolkit path itself" lacks -E 'CPATH|CUDA_HOME|PATH"' "$C/$f"
check "the bundle's toolkit is CUDAcore's, reached by following its guarded load()" \
    sh -c "[ \"\$(jq -r --arg f '$C/$f' '.files[] | select(.file == \$f) | .toolkit.root' '$T/all.json')\" = '$CUDA' ]"
f=lmod/cuda-python/13.0.0.lua
check "depends_on() followed two levels (cuda-python -> CUDA -> GCCcore): toolkit found" \
    same_text "$(fjson "$f" '.toolkit.root')" "$CUDA"
f=lmod/UCX-CUDA/1.18.0-GCCcore-14.2.0-CUDA-13.0.0.lua
check "CTK-MOD-008 names each dependency not in the tree, at its line, as a note" \
    same_text "$(fjson "$f" '.findings[] | select(.code == "CTK-MOD-008") | "\(.severity) \(.line) \(.message | split(":")[0])"')" \
      "$(grep -n 'depends_on("GCCcore\|depends_on("UCX/' "$C/$f" | sed 's/^\([0-9]*\):\(.*\)$/note \1 \2/; s/"/'"'"'/g')"
check "the dependency that is in the tree is followed: its toolkit checks ran" \
    same_text "$(fjson "$f" '.toolkit.root')" "$CUDA"
f=lmod/spack/0.23.1.lua
check "CTK-MOD-007 names the execute{} call as written and its line, as a warning" \
    same_text "$(fjson "$f" '.findings[] | select(.code == "CTK-MOD-007") | "\(.severity) \(.line) \(.message)"')" \
      "warning $(grep -n '^execute{' "$C/$f" | cut -d: -f1) execute{cmd=\". /apps/spack/0.23.1/share/spack/setup-env.sh\"} was not run; what the module does with its output (or after it) was not checked"
f=lmod/cuda/13.0-arch.lua
check "CTK-MOD-007 names the capture() call and its line" \
    same_text "$(fjson "$f" '.findings[] | select(.code == "CTK-MOD-007") | "\(.line) \(.message | split(")")[0])"')" \
      "$(grep -n 'capture("' "$C/$f" | cut -d: -f1) capture(\"nvidia-smi --query-gpu=compute_cap --format=csv,noheader\""
check "the file is checked past the capture(): its toolkit was found and found clean" \
    same_text "$(fjson "$f" '"\(.toolkit.root) \([.findings[].code] | unique | join(" "))"')" "$CUDA CTK-MOD-007"
f=lmod-site/CUDA/13.0.0.lua
check "inherit() with nothing after the file's tree: CTK-MOD-008 names inherit" \
    sh -c "jq -r --arg f '$C/$f' '.files[] | select(.file == \$f) | .findings[] | select(.code == \"CTK-MOD-008\") | .message' '$T/all.json' | grep -q \"^inherit('CUDA/13.0.0')\""
# a relative path: the module system runs elsewhere (as root, as user nobody)
(cd "$C" && TMPDIR=$LT "$CTKGEN" -q lint --json --modulecmd "$EM_CMD" tcl/cuda/13.0 > "$T/rel.json" 2>/dev/null) || :
check "a Tcl file named by a relative path gets the codes it gets by its absolute one" \
    same_text "$(codes "$T/rel.json" tcl/cuda/13.0)." "$(codes "$T/all.json" "$C/tcl/cuda/13.0")."
rc=0; L --json --modulepath "$C/lmod" "$C/lmod-site" > "$T/inherit.json" 2>/dev/null || rc=$?
check "--modulepath: the overlay inherits lmod/CUDA/13.0.0.lua and lints clean (exit $rc)" \
    same_text "$rc $(jq -r '[.files[].findings[].code] | join(" ")' "$T/inherit.json") $(jq -r '.files[0].toolkit.root' "$T/inherit.json")" "0  $CUDA"
rc=0; L "$C/lmod/UCX-CUDA" "$C/lmod/cuda/13.0-arch.lua" > "$T/unchecked.out" 2>&1 || rc=$?
check "calls not run and dependencies not followed alone: exit 5 (not fully checked)" [ "$rc" -eq 5 ]
check "human report: CTK-MOD-007 as file:line: warning, naming the call" \
    grep -qE "^$C/lmod/cuda/13.0-arch.lua:[0-9]+: warning CTK-MOD-007: capture\(\"nvidia-smi" "$T/unchecked.out"
check "human report: CTK-MOD-008 as a note" \
    grep -qE "^$C/lmod/UCX-CUDA/[^:]*:[0-9]+: note CTK-MOD-008: depends_on\('GCCcore/14.2.0'\): not found" "$T/unchecked.out"
# ---- fixes that fit the file: what to change in it, not in a site config --------------
# fix JSON FILE CODE: the fixes of that file's findings of that code
fix() { jq -r --arg f "$2" --arg c "$3" '.files[] | select(.file == $f) | .findings[] | select(.code == $c) | .fix' "$1"; }
f=$C/lmod/cudatoolkit/12.4.lua
check "CTK-VER-001 of a hand-written Lua file: rename it, or point CUDA_HOME (its line) at a 12.4 toolkit" \
    same_text "$(fix "$T/all.json" "$f" CTK-VER-001)" \
      "rename the module file to cudatoolkit/13.0.lua, or point CUDA_HOME (line $(grep -n 'setenv("CUDA_HOME"' "$f" | cut -d: -f1)) at a CUDA 12.4 toolkit"
f=$C/lmod/cuda/13.0-stubs.lua
check "CTK-LDLIB-001 of a Lua file: remove the stubs dir at its line, LIBRARY_PATH instead" \
    sh -c "fx=\$(jq -r --arg f '$f' '.files[] | select(.file == \$f) | .findings[0].fix' '$T/all.json');
           echo \"\$fx\" | grep -qF 'remove $CUDA/lib64/stubs from LD_LIBRARY_PATH at line $(grep -n 'lib64/stubs' "$f" | cut -d: -f1)' &&
           echo \"\$fx\" | grep -qF 'prepend_path(\"LIBRARY_PATH\", \"$CUDA/lib64/stubs\")'"
f=$C/lmod/nvhpc/25.9.lua
check "CTK-LDLIB-003 of a Lua file: the prepend_path call to add, naming the dir" \
    sh -c "jq -r --arg f '$f' '.files[] | select(.file == \$f) | .findings[] | select(.code == \"CTK-LDLIB-003\") | .fix' '$T/all.json' |
           grep -q '^add prepend_path(\"L[A-Z_]*PATH\", \"$HPCSDK/[^\"]*\") to this file'"
f=$C/tcl/cudatoolkit/13.0
check "CTK-LDLIB-003 of a Tcl file: the prepend-path command to add" \
    sh -c "jq -r --arg f '$f' '.files[] | select(.file == \$f) | .findings[] | select(.code == \"CTK-LDLIB-003\") | .fix' '$T/all.json' |
           grep -q '^add prepend-path L[A-Z_]*PATH $HPCSDK/'"
f=$C/pc/nvidia/cudart-13.0.pc
check "CTK-LDLIB-003 of a .pc file: the -L to add to its Libs: field, at its line" \
    sh -c "jq -r --arg f '$f' '.files[] | select(.file == \$f) | .findings[] | select(.code == \"CTK-LDLIB-003\") | .fix' '$T/all.json' |
           grep -q '^add -L$CUDA/[^ ]* to the Libs: field at line $(grep -n '^Libs:' "$f" | cut -d: -f1) of this file'"
f=$C/pc/site/ctk-12.4.pc
check "CTK-PC-002 of a hand-written .pc: set its Version: field" \
    same_text "$(fix "$T/all.json" "$f" CTK-PC-002 | cut -c1-18)" "set 'Version: 13.0"
check "no fix of a hand-written file sends the admin to the site config or to regenerate" \
    [ "$(jq '[.files[].findings[].fix | select(test("site config|regenerate|ctkgen generate"))] | length' "$T/all.json")" -eq 0 ]

# ---- hostile Lua alone: contained, fast, nothing executed ---------------------------
start=$(date +%s)
rc=0; L "$C/hostile" > "$T/hostile.out" 2>&1 || rc=$?
check "hostile files: exit 1" [ "$rc" -eq 1 ]
check "hostile files: contained within 20 s" [ $(( $(date +%s) - start )) -lt 20 ]
check "hostile files: still no marker" [ ! -e "$MARKER" ]
nhostile=$(ls "$C/hostile/cuda" | wc -l)
check "hostile files: every one has a finding" \
    [ "$nhostile" -gt 0 -a "$(grep -cE 'error CTK-MOD-00[45]:|warning CTK-MOD-007:' "$T/hostile.out")" -ge "$nhostile" ]

# ---- exit codes and the human report --------------------------------------------------
rc=0; L "$C/lmod/cudatoolkit/13.0.lua" > /dev/null 2>&1 || rc=$?
check "a clean file: exit 0" [ "$rc" -eq 0 ]
rc=0; L "$C/lmod/cuda/13.0-nofamily.lua" > /dev/null 2>&1 || rc=$?
check "warnings only: exit 0" [ "$rc" -eq 0 ]
rc=0; L "$C/lmod/cuda/13.0-flags.lua" > /dev/null 2>&1 || rc=$?
check "an error finding: exit 1" [ "$rc" -eq 1 ]
rc=0; L "$T/nonexistent.lua" > /dev/null 2>&1 || rc=$?
check "a path that does not exist: exit 3" [ "$rc" -eq 3 ]
rc=0; "$CTKGEN" lint > /dev/null 2> "$T/usage.err" || rc=$?
check "no path: exit 2" [ "$rc" -eq 2 ]
check "usage error says how to get help" grep -q "Try 'ctkgen lint --help'" "$T/usage.err"
rc=0; "$CTKGEN" lint --bogus "$C" > /dev/null 2>&1 || rc=$?
check "an unknown option: exit 2" [ "$rc" -eq 2 ]
rc=0; "$CTKGEN" lint --timeout soon "$C" > /dev/null 2>&1 || rc=$?
check "a bad --timeout: exit 2" [ "$rc" -eq 2 ]
rc=0; L --modulecmd /nonexistent/modulecmd.tcl "$C/tcl" > /dev/null 2>&1 || rc=$?
check "--modulecmd naming nothing: exit 4" [ "$rc" -eq 4 ]
rc=0; "$CTKGEN" lint --help > "$T/help.out" || rc=$?
check "--help: exit 0, on stdout" [ "$rc" -eq 0 ]
for o in --json --fix-suggest --modulecmd --timeout --tcl-with; do
    check "--help lists $o" grep -q -- "$o" "$T/help.out"
done
rc=0; TMPDIR=$LT "$CTKGEN" lint --modulecmd "$EM_CMD" "$C/lmod/cuda/13.0-flags.lua" > "$T/human.out" 2>&1 || rc=$?
check "human report: file:line: severity CODE: message" \
    grep -qE "^$C/lmod/cuda/13.0-flags.lua:[0-9]+: error CTK-ENV-003: the module sets LDFLAGS=" "$T/human.out"
check "human report: the fix on the next line names the call and its line" \
    grep -qE '^  fix: remove the setenv\("LDFLAGS", \.\.\.\) call at line [0-9]+;' "$T/human.out"
check "human report: a summary" grep -qE '^1 file linted: 2 errors, 0 warnings, 0 notes' "$T/human.out"

# Tcl without Environment Modules: a visible note, never a silent pass
if [ -e /usr/share/modules/libexec/modulecmd.tcl ] || [ -e /usr/lib/x86_64-linux-gnu/modulecmd.tcl ] ||
   [ -e /usr/share/Modules/libexec/modulecmd.tcl ] || [ -e /usr/local/Modules/libexec/modulecmd.tcl ] ||
   [ -e /opt/modules/libexec/modulecmd.tcl ]; then
    echo "SKIP: Environment Modules installed in a standard place: the no-modulecmd case cannot be made here (not counted)"
else
    rc=0; L --json --tcl-with modules "$C/tcl/cudatoolkit/13.0-site" > "$T/notcl.json" 2>/dev/null || rc=$?
    check "no Environment Modules: the Tcl file gets CTK-SKIP-003" \
        [ "$(codes "$T/notcl.json" "$C/tcl/cudatoolkit/13.0-site")" = CTK-SKIP-003 ]
    check "no Environment Modules: the report says why" differs "$(jq -r .tcl_skip "$T/notcl.json")" null
    rc=0; TMPDIR=$LT "$CTKGEN" lint --tcl-with modules "$C/tcl/cudatoolkit/13.0-site" > /dev/null 2> "$T/notcl.err" || rc=$?
    check "no Environment Modules: a warning on stderr" grep -q 'CTK-SKIP-003' "$T/notcl.err"
fi
# Tcl through Lmod's tcl2lua: where Environment Modules is absent but Lmod is
# installed (--tcl-with lmod forces that case here, where both are), Tcl files
# are read as Lmod reads them, with the same findings as through Environment Modules
T2L=${LMOD_EXEC%/lmod}/tcl2lua.tcl
if [ ! -f "$T2L" ] || ! command -v tclsh >/dev/null 2>&1; then
    echo "SKIP: no Lmod tcl2lua.tcl ($T2L) or no tclsh: the tcl2lua path cannot be tested here (not counted)"
else
    rc=0; L --json --tcl-with lmod "$C/tcl" > "$T/t2l.json" 2> "$T/t2l.err" || rc=$?
    check "--tcl-with lmod: the report names Lmod's tcl2lua" sh -c "jq -r .tcl '$T/t2l.json' | grep -q \"tcl2lua ($T2L)\""
    check "--tcl-with lmod: no CTK-SKIP-003, nothing on stderr" \
        sh -c "[ \"\$(jq '[.files[].findings[] | select(.code == \"CTK-SKIP-003\")] | length' '$T/t2l.json')\" -eq 0 ] && [ ! -s '$T/t2l.err' ]"
    check "--tcl-with lmod: every Tcl file was evaluated through Lmod's tcl2lua" \
        [ "$(jq '[.files[] | select(.kind == "tcl" and (.evaluated_as | startswith("through Lmod'"'"'s tcl2lua") | not))] | length' "$T/t2l.json")" -eq 0 ]
    for rel in $(cd "$C" && find tcl -type f ! -name '.*' | sort); do
        check "through tcl2lua, $rel has the codes Environment Modules gave it" \
            same_text "$(codes "$T/t2l.json" "$C/$rel")." "$(codes "$T/all.json" "$C/$rel")."
    done
    if [ "$(id -u)" = 0 ]; then
        check "as root, tcl2lua runs each Tcl file as user nobody" \
            [ "$(jq '[.files[] | select(.kind == "tcl" and .evaluated_as != "through Lmod'"'"'s tcl2lua, as user nobody (uid 65534)")] | length' "$T/t2l.json")" -eq 0 ]
    fi
    rc=0; TMPDIR=$LT "$CTKGEN" lint --tcl-with lmod "$C/tcl/cudatoolkit/13.0-site" > "$T/t2l.out" 2>&1 || rc=$?
    check "--tcl-with lmod: the human report says how the file was evaluated" \
        grep -q "^$C/tcl/cudatoolkit/13.0-site: tcl cudatoolkit/13.0-site \[evaluated through Lmod's tcl2lua" "$T/t2l.out"
    mkdir -p "$T/t2lbad/cuda"
    printf '#%%Module\nsetenv CUDA_HOME [nosuchcommand]\n' > "$T/t2lbad/cuda/13.0"
    printf '#%%Module\nexec touch %s\nsetenv A 1\n' "$MARKER" > "$T/t2lbad/cuda/13.1"
    chmod -R a+rX "$T/t2lbad"
    rc=0; L --json --tcl-with lmod "$T/t2lbad" > "$T/t2lbad.json" 2>/dev/null || rc=$?
    check "--tcl-with lmod: a Tcl error is CTK-MOD-001 quoting tcl2lua" \
        sh -c "jq -r '.files[] | select(.file | endswith(\"cuda/13.0\")) | .findings[] | select(.code == \"CTK-MOD-001\") | .message' '$T/t2lbad.json' | grep -q nosuchcommand"
    if [ "$(id -u)" = 0 ]; then
        check "--tcl-with lmod as root: a Tcl exec ran as nobody, not root (no marker in a dir only root may write)" \
            [ ! -e "$MARKER" ]
    fi
    rm -f "$MARKER"
    rc=0; "$CTKGEN" lint --tcl-with lmod --modulecmd "$EM_CMD" "$C/tcl" > /dev/null 2>&1 || rc=$?
    check "--tcl-with lmod with --modulecmd: usage error" [ "$rc" -eq 2 ]
    rc=0; "$CTKGEN" lint --tcl-with tclsh "$C/tcl" > /dev/null 2>&1 || rc=$?
    check "--tcl-with of an unknown reader: usage error" [ "$rc" -eq 2 ]
fi
# MODULES_CMD is honoured as validate does
rc=0; MODULES_CMD=$EM_CMD L --json "$C/tcl/cudatoolkit/13.0-site" > "$T/mc.json" || rc=$?
check "\$MODULES_CMD: the Tcl file is loaded and clean" [ "$rc" -eq 0 -a "$(jq '.summary.note' "$T/mc.json")" -eq 0 ]

# ---- .pc Libs without nvcc: the static rule, and it says so --------------------------
mkdir -p "$T/nonvcc"
cat > "$T/nonvcc/mpiwrap.pc" <<'EOF'
Name: mpiwrap
Description: a wrapper library, not CUDA
Version: 1.0
Libs: -L/opt/mpiwrap/lib -Wl,--as-needed,-lmpiwrap,--no-as-needed -lm
EOF
rc=0; PATH=/usr/bin:/bin L --json "$T/nonvcc/mpiwrap.pc" > "$T/nonvcc.json" 2>/dev/null || rc=$?
if PATH=/usr/bin:/bin command -v nvcc >/dev/null 2>&1; then
    echo "SKIP: nvcc in /usr/bin: the no-nvcc fallback cannot be made here (not counted)"
else
    check "no nvcc: CTK-PC-001 by the static rule" \
        sh -c "jq -r '.files[0].findings[] | select(.code == \"CTK-PC-001\") | .message' '$T/nonvcc.json' | grep -q 'static rule'"
fi
rc=0; PATH=$CTK_TEST_CUDA/bin:/usr/bin:/bin L --json "$T/nonvcc/mpiwrap.pc" > "$T/withnvcc.json" 2>/dev/null || rc=$?
check "nvcc on PATH: CTK-PC-001 from nvcc itself" \
    sh -c "jq -r '.files[0].findings[] | select(.code == \"CTK-PC-001\") | .message' '$T/withnvcc.json' | grep -q 'nvcc fatal'"

# ---- --fix-suggest: generate what it proposes, and lint that ------------------------------
for rel in lmod/cuda/13.0.lua lmod/nvhpc/25.9.lua tcl/cudatoolkit/13.0 pc/cray/ctk-13.0.pc lmod/cudatoolkit/12.4.lua \
           lmod/cudatoolkit/13.0-cray.lua lmod/CUDA/13.0.0.lua; do
    tag=$(echo "$rel" | tr '/.' '__')
    rc=0; L --json --fix-suggest --modulecmd "$EM_CMD" "$C/$rel" > "$T/$tag.json" || rc=$?
    jq '.files[0].suggestion' "$T/$tag.json" > "$T/$tag.site.json"
    if [ "$(jq -r 'type' "$T/$tag.site.json")" != object ]; then
        fail "$rel: --fix-suggest gives a site config"; continue
    fi
    rm -rf "$T/$tag.out"
    if "$CTKGEN" -q generate -c "$T/$tag.site.json" -o "$T/$tag.out" > "$T/$tag.gen" 2>&1; then
        rc=0; L --json --modulecmd "$EM_CMD" "$T/$tag.out" > "$T/$tag.lint.json" || rc=$?
        nf=$(jq '[.files[].findings[]] | length' "$T/$tag.lint.json")
        check "$rel: the suggested entry generates modules that lint clean (exit $rc, $nf findings)" \
            [ "$rc" -eq 0 -a "$nf" -eq 0 ]
    else
        fail "$rel: ctkgen generate accepts the suggested entry: $(cat "$T/$tag.gen")"
    fi
done
check "nvhpc: the suggestion names math_libs and NCCL of the split layout" \
    sh -c "jq -e '.sdks[0].math_libs == \"$HPCSDK/math_libs/13.0\" and .sdks[0].comm_libs.nccl == \"$HPCSDK/comm_libs/13.0/nccl\"' '$T/lmod_nvhpc_25_9_lua.site.json' >/dev/null"
check "cudatoolkit/12.4 pointing at 13.0: the suggestion does not keep the wrong name" \
    [ "$(jq -r '.sdks[0] | objects | .name // "none"' "$T/lmod_cudatoolkit_12_4_lua.site.json")" = none ]
# what the file sets beyond the toolkit's paths is kept, or a note says why not
jqt() { jq -e "$@" > /dev/null; }
for tag in tcl_cudatoolkit_13_0 lmod_cudatoolkit_13_0-cray_lua; do
    check "$tag: the suggestion keeps CRAY_CUDATOOLKIT_VERSION and CRAY_CUDATOOLKIT_DIR in the SDK's env" \
        jqt '.sdks[0].env.CRAY_CUDATOOLKIT_VERSION == "13.0_25.9" and (.sdks[0].env.CRAY_CUDATOOLKIT_DIR | type) == "string"' \
        "$T/$tag.site.json"
    check "$tag: PE_PKGCONFIG_LIBS names the .pc generate writes" \
        jqt '.sdks[0].env.PE_PKGCONFIG_LIBS == "ctk-" + (.sdks[0].name // .sdks[0].version)' "$T/$tag.site.json"
    check "$tag: the toolkit's own paths are not in env" \
        jqt '[.sdks[0].env | keys[] | select(. == "CUDA_HOME" or . == "PATH" or . == "PKG_CONFIG_PATH")] | length == 0' "$T/$tag.site.json"
    check "$tag: a note says PE_PKGCONFIG_PRODUCTS is not kept, and why" \
        jqt '[.files[0].suggestion_notes[] | select(startswith("PE_PKGCONFIG_PRODUCTS=") and contains("not kept"))] | length == 1' "$T/$tag.json"
    check "$tag: the regenerated Tcl module sets CRAY_CUDATOOLKIT_VERSION" \
        grep -q 'CRAY_CUDATOOLKIT_VERSION.*13.0_25.9' "$T/$tag.out/tcl/cudatoolkit/$(jq -r '.sdks[0].name // .sdks[0].version' "$T/$tag.site.json")"
done
check "tcl/cudatoolkit/13.0: PE_CUDATOOLKIT_PKGCONFIG_LIBS is not kept, with a note" \
    jqt '[.files[0].suggestion_notes[] | select(startswith("PE_CUDATOOLKIT_PKGCONFIG_LIBS="))] | length == 1' "$T/tcl_cudatoolkit_13_0.json"
check "Cray Lua: the file's family is kept" jqt '.family == "cudatoolkit"' "$T/lmod_cudatoolkit_13_0-cray_lua.site.json"
check "Cray Lua: a note says PE_PKGCONFIG_LIBS was changed" \
    jqt '[.files[0].suggestion_notes[] | select(startswith("PE_PKGCONFIG_LIBS was \"cudatoolkit_13.0\""))] | length == 1' \
    "$T/lmod_cudatoolkit_13_0-cray_lua.json"
check "EasyBuild: add_property(\"arch\",\"gpu\") is kept in the SDK's properties" \
    jqt '.sdks[0].properties == {"arch": "gpu"}' "$T/lmod_CUDA_13_0_0_lua.site.json"
check "EasyBuild: no note about the property" \
    jqt '[.files[0].suggestion_notes[] | select(contains("add_property"))] | length == 0' "$T/lmod_CUDA_13_0_0_lua.json"
check "EasyBuild: the regenerated Lua module has add_property(\"arch\", \"gpu\")" \
    grep -qx 'add_property("arch", "gpu")' "$T/lmod_CUDA_13_0_0_lua.out/lmod/CUDA/13.0.0.lua"
check "EasyBuild: the regenerated Tcl module has add-property arch gpu" \
    grep -qx 'add-property "arch" "gpu"' "$T/lmod_CUDA_13_0_0_lua.out/tcl/CUDA/13.0.0"
check "human --fix-suggest prints the notes" \
    sh -c "TMPDIR='$LT' '$CTKGEN' lint --fix-suggest '$C/lmod/cudatoolkit/13.0-cray.lua' | grep -q '^  note: PE_PKGCONFIG_PRODUCTS='"
check "human --fix-suggest prints the entry" \
    sh -c "TMPDIR='$LT' '$CTKGEN' lint --fix-suggest '$C/lmod/cuda/13.0.lua' | grep -q 'suggested site config'"

# ---- ctkgen's own output lints clean ------------------------------------------------------
cat > "$T/own.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA" },
            { "version": "13.0", "name": "13.0-hpcsdk", "base": "$HPCSDK/cuda/13.0",
              "math_libs": "$HPCSDK/math_libs/13.0", "comm_libs": { "nccl": "$HPCSDK/comm_libs/13.0/nccl" } },
            { "version": "13.0", "name": "13.0-runfile", "base": "$CUDA" } ] }
JSON
check "generate three toolkits" "$CTKGEN" -q generate -c "$T/own.json" -o "$T/own"
rc=0; L --json --modulecmd "$EM_CMD" "$T/own" > "$T/own-lint.json" || rc=$?
check "lint of ctkgen's own tree: exit 0" [ "$rc" -eq 0 ]
check "lint of ctkgen's own tree: no findings at all" [ "$(jq '[.files[].findings[]] | length' "$T/own-lint.json")" -eq 0 ]
check "lint of ctkgen's own tree: Lua, Tcl and .pc files all linted" \
    [ "$(jq '[.files[].kind] | unique | length' "$T/own-lint.json")" -eq 3 ]

# ---- the staging workflow: pkgconfig_dir names where the tree will be deployed -----------
# generate writes OUT/pkgconfig; the modules name the final dir, not there yet.
# Lint of ctkgen's own tree takes OUT/pkgconfig as its staged copy (validate
# reads the .pc there too), so PE_PKGCONFIG_LIBS naming ctkgen's .pc is no
# CTK-PC-004; a hand-edited .pc is no longer ctkgen's, and the finding is back.
cat > "$T/stage.json" <<JSON
{ "pkgconfig_dir": "$T/deployed/pkgconfig",
  "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA", "env": { "PE_PKGCONFIG_LIBS": "ctk-13.0" } } ] }
JSON
rc=0; "$CTKGEN" generate -c "$T/stage.json" -o "$T/stage" > /dev/null 2> "$T/stage.err" || rc=$?
check "staging: generate with a pkgconfig_dir not there yet exits 0" [ "$rc" -eq 0 ]
check "staging: generate warns on one stderr line that pkgconfig_dir does not exist yet" \
    [ "$(grep -c "warning: pkgconfig_dir $T/deployed/pkgconfig does not exist yet" "$T/stage.err")" -eq 1 ]
check "staging: the modules name the final dir" grep -q "$T/deployed/pkgconfig" "$T/stage/lmod/cudatoolkit/13.0.lua"
rc=0; L --json --modulecmd "$EM_CMD" "$T/stage" > "$T/stage-lint.json" || rc=$?
check "staging: lint of ctkgen's own staged tree: exit 0, no CTK-PC-004" \
    [ "$rc" -eq 0 -a "$(jq '[.files[].findings[] | select(.code == "CTK-PC-004")] | length' "$T/stage-lint.json")" -eq 0 ]
mkdir -p "$T/deployed/pkgconfig"
rc=0; "$CTKGEN" generate -c "$T/stage.json" -o "$T/stage" > /dev/null 2> "$T/stage3.err" || rc=$?
check "staging: no warning once pkgconfig_dir exists" sh -c "! grep -q 'does not exist yet' '$T/stage3.err'"
rmdir "$T/deployed/pkgconfig"
echo '# edited' >> "$T/stage/pkgconfig/ctk-13.0.pc"
rc=0; L --json --modulecmd "$EM_CMD" "$T/stage" > "$T/stage-edited.json" || rc=$?
check "staging: a hand-edited .pc is not ctkgen's: CTK-PC-004 for both modules" \
    [ "$(jq '[.files[].findings[] | select(.code == "CTK-PC-004")] | length' "$T/stage-edited.json")" -eq 2 ]

check "lint's private temp dir is gone at the end" lt_empty

finish
