#!/bin/sh
# validate.sh - `ctkgen validate` against real artifacts, good and broken.
# SPDX-License-Identifier: MIT
#
# Everything here is real: the toolkit on this machine (and copies of it in
# other layouts), Environment Modules evaluating the Tcl modulefiles, real
# Lmod for the cross-check, cc/c++/nvcc building the probes, and the probes
# running.  Without a GPU the launch is a skip, and this test asserts it is
# reported as a skip, never as a pass.  Each broken artifact must fail with
# the finding that names what is wrong.
. "$(dirname "$0")/lib.sh"
need_cuda
need_em
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"

FIX=${TMPDIR:-/tmp}/ctkgen-fixtures-$(id -u)
sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$FIX" >/dev/null || { echo "fixtures.sh failed"; exit 1; }
OTHER=$FIX/standalone/cuda-13.0     # a second toolkit tree: same release, other files

# as root, validate loads the modulefiles as user nobody, who must reach them
chmod 755 "$T"
VT=$T/vtmp                          # validate's TMPDIR: must be empty after every run
CACHE=$T/cache
mkdir -p "$VT"
export MODULES_CMD="$EM_CMD"
unset LMOD_CMD

if [ -e /proc/driver/nvidia/version ]; then GPU=yes; else GPU=no; fi
echo "# GPU driver here: $GPU"

# V ARGS...: validate quietly with a private TMPDIR and cache; JSON on stdout
V() { TMPDIR=$VT "$CTKGEN" -q validate --cache-dir "$CACHE" --json "$@"; }
# codes JSONFILE KIND: the finding codes of one artifact of the first SDK
codes() { jq -r --arg k "$2" '.sdks[0].artifacts[] | select(.kind == $k) | .findings[].code' "$1" | sort -u | tr '\n' ' '; }
verdict() { jq -r --arg k "$2" '.sdks[0].artifacts[] | select(.kind == $k) | .verdict' "$1"; }
has_code() { case " $(codes "$1" "$2")" in *" $3 "*) return 0 ;; esac; return 1; }
vt_empty() { empty_dir "$VT"; }

B=$CTK_TEST_CUDA
cat > "$T/site.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$B" } ] }
JSON
OUT=$T/out
check "generate" "$CTKGEN" -q generate -c "$T/site.json" -o "$OUT"

# ---- 1. the generated artifacts: nothing fails ---------------------------------
rc=0; V -c "$T/site.json" -o "$OUT" --no-cache > "$T/good.json" || rc=$?
check "validate of a generated tree exits 0" [ "$rc" -eq 0 ]
check "the JSON report parses" jq -e . "$T/good.json" >/dev/null
check "three artifacts checked" [ "$(jq '.sdks[0].artifacts | length' "$T/good.json")" -eq 3 ]
# the output tree named by a relative path: the module systems run in a
# directory of their own (as root, as user nobody), not in ours
rc=0; (cd "$T" && V -c site.json -o out --no-cache > "$T/rel.json") || rc=$?
check "validate -o RELATIVE exits 0 (the module systems find the tree)" [ "$rc" -eq 0 ]
check "no artifact failed" [ "$(jq '.summary.fail' "$T/good.json")" -eq 0 ]
if [ "$(id -u)" = 0 ]; then
    check "as root, the report says the modulefiles ran as user nobody" \
        same_text "$(jq -r .host.tcl_user "$T/good.json")" "nobody (uid 65534)"
fi
check "the summary splits the skips: launch skipped + not checked = skip" \
    [ "$(jq '.summary.skip_launch + .summary.skip_unchecked == .summary.skip' "$T/good.json")" = true ]
if [ $GPU = no ]; then
    check "no GPU: all three skipped the launch alone" \
        [ "$(jq '[.summary.skip_launch, .summary.skip_unchecked]' -c "$T/good.json")" = "[3,0]" ]
fi
errs=$(jq '[.sdks[].artifacts[].findings[] | select(.severity == "error")] | length' "$T/good.json")
check "no error findings" [ "$errs" -eq 0 ]
for k in lmod tcl pc; do
    v=$(verdict "$T/good.json" $k)
    launched=$(jq -r --arg k $k '.sdks[0].artifacts[] | select(.kind == $k) | .launched' "$T/good.json")
    if [ $GPU = no ]; then
        check "$k: no GPU here, so a skip, not a pass" [ "$v" = skip ]
        sc=$(jq -r --arg k $k '.sdks[0].artifacts[] | select(.kind == $k) | .skip.code' "$T/good.json")
        check "$k: the skip says why (no driver)" [ "$sc" = CTK-SKIP-001 ]
        check "$k: nothing launched" [ "$launched" = false ]
    else
        check "$k: pass on a GPU machine" [ "$v" = pass ]
        check "$k: the kernel ran and checked out" [ "$launched" = true ]
    fi
done
# the generated modules' CUDA probe is the .pc's program, run in each
# module's environment (tests/validate_reuse.sh checks when it may be)
for k in lmod tcl; do
    lib=$(jq -r --arg k $k '.sdks[0].artifacts[] | select(.kind == $k) | .cuda_probe.libcudart' "$T/good.json")
    check "$k: the CUDA probe, in the module's environment, loaded this toolkit's libcudart ($lib)" \
        [ "$(dirname "$(readlink -f "$lib")")" = "$(readlink -f "$B/lib64")" ]
    hdr=$(jq -r --arg k $k '.sdks[0].artifacts[] | select(.kind == $k) | .cuda_probe.cudart_header' "$T/good.json")
    check "$k: the CUDA probe saw CUDART_VERSION of 13.0" [ "$hdr" -ge 13000 -a "$hdr" -lt 13010 ]
done
lib=$(jq -r '.sdks[0].artifacts[] | select(.kind == "pc") | .cuda_probe.libcudart' "$T/good.json")
check "pc: the CUDA probe, run with no environment, loaded this toolkit's libcudart" \
    [ "$(dirname "$(readlink -f "$lib")")" = "$(readlink -f "$B/lib64")" ]
check "pc: Cflags resolved by libpkgconf as the CLI does" \
    same_text "$(jq -r '.sdks[0].artifacts[] | select(.kind == "pc") | .cflags | join(" ")' "$T/good.json")" \
      "$(PKG_CONFIG_PATH="$OUT/pkgconfig" PKG_CONFIG_LIBDIR= pkgconf --keep-system-cflags --cflags ctk-13.0 | sed 's/ *$//')"
check "the private temp dirs are gone" vt_empty

# ---- 1b. a toolkit that is a tree of symlinks (a view; a copy on another
# filesystem): the probe loads its libcudart through a path that resolves
# into the real toolkit, which is still this toolkit's own file
cp -as "$B/." "$T/view"
printf '{ "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$T/view" > "$T/view.json"
check "view: generate" "$CTKGEN" -q generate -c "$T/view.json" -o "$T/viewout"
rc=0; V -c "$T/view.json" -o "$T/viewout" --no-cache > "$T/view-report.json" || rc=$?
check "view: validate of a symlinked toolkit exits 0" [ "$rc" -eq 0 ]
check "view: no finding says the probe loaded another libcudart (CTK-RUN-002)" \
    sh -c "[ -s '$T/view-report.json' ] && jq -r '.sdks[].artifacts[].findings[].code' '$T/view-report.json' > '$T/view.codes' && ! grep -q CTK-RUN-002 '$T/view.codes'"
check "view: no error findings" \
    [ "$(jq '[.sdks[].artifacts[].findings[] | select(.severity == "error")] | length' "$T/view-report.json")" = 0 ]

# ---- 2. the sandbox and real Lmod give the same environment -----------------------
if [ -f "$LMOD_EXEC" ]; then
    rc=0; V -c "$T/site.json" -o "$OUT" --no-cache --lmod --lmod-cmd "$LMOD_EXEC" > "$T/lmod.json" || rc=$?
    check "validate --lmod exits 0" [ "$rc" -eq 0 ]
    check "--lmod: no CTK-ENV-002 (sandbox == real Lmod)" \
        sh -c "[ -s '$T/lmod.json' ] && jq -r '.sdks[].artifacts[].findings[].code' '$T/lmod.json' > '$T/lmod.codes' && ! grep -q CTK-ENV-002 '$T/lmod.codes'"
    real=$(load_and_run lmod "$OUT/lmod" cudatoolkit/13.0 "$print_vars" | grep -v '=<unset>$' | grep -v '^PATH=' | sort)
    sandbox=$(jq -r '.sdks[0].artifacts[] | select(.kind == "lmod") | .env | to_entries[] | "\(.key)=\(.value)"' "$T/good.json" |
        grep -E "^($(echo "$VARS" | tr ' ' '|'))=" | grep -v '^PATH=' | sort)
    if [ -n "$real" ] && [ "$real" = "$sandbox" ]; then
        pass "the sandbox's environment is what real Lmod sets"
    else
        fail "the sandbox and real Lmod differ"; printf 'lmod:\n%s\nsandbox:\n%s\n' "$real" "$sandbox"
    fi
else
    echo "SKIP: Lmod not installed: sandbox-vs-Lmod comparison not run (not counted)"
fi

# ---- 3. the cache ----------------------------------------------------------------
V -c "$T/site.json" -o "$OUT" > /dev/null
V -c "$T/site.json" -o "$OUT" > "$T/warm.json"
check "a re-run with nothing changed comes from the cache" \
    [ "$(jq '[.sdks[0].artifacts[] | select(.cached)] | length' "$T/warm.json")" -eq 3 ]
check "the cached verdicts are the same" \
    same_text "$(jq -c '[.sdks[0].artifacts[].verdict]' "$T/warm.json")" "$(jq -c '[.sdks[0].artifacts[].verdict]' "$T/good.json")"
printf '\n-- a local comment\n' >> "$OUT/lmod/cudatoolkit/13.0.lua"
V -c "$T/site.json" -o "$OUT" > "$T/edited.json"
check "editing an artifact invalidates the cache" \
    [ "$(jq '[.sdks[0].artifacts[] | select(.cached)] | length' "$T/edited.json")" -eq 0 ]
V -c "$T/site.json" -o "$OUT" --no-cache > "$T/nocache.json"
check "--no-cache does the work" [ "$(jq '[.sdks[0].artifacts[] | select(.cached)] | length' "$T/nocache.json")" -eq 0 ]

# ---- 4. broken artifacts ----------------------------------------------------------
# broken NAME: a fresh copy of the good tree in $T/NAME
broken() { rm -rf "$T/$1"; cp -a "$OUT" "$T/$1"; echo "$T/$1"; }
# expect NAME KIND CODE...: validate $T/NAME fails, and KIND has every CODE
expect() {
    n=$1 k=$2; shift 2
    rc=0; V -c "$T/site.json" -o "$T/$n" --no-cache > "$T/$n.json" || rc=$?
    check "$n: validate exits 1" [ "$rc" -eq 1 ]
    check "$n: $k fails" [ "$(verdict "$T/$n.json" "$k")" = fail ]
    for c in "$@"; do
        if has_code "$T/$n.json" "$k" "$c"; then pass "$n: $k reports $c"
        else fail "$n: $k reports $c (got: $(codes "$T/$n.json" "$k"))"; fi
    done
}
L=lmod/cudatoolkit/13.0.lua
TC=tcl/cudatoolkit/13.0
PC=pkgconfig/ctk-13.0.pc

# The CPATH case uses the runfile-style copy: where a compiler finds some
# cuda_runtime.h in its default dirs anyway (/usr/local/include), it is not
# this tree's, and the host compile must say so rather than pass by luck.
cat > "$T/other.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$OTHER" } ] }
JSON
check "generate for the runfile-style tree" "$CTKGEN" -q generate -c "$T/other.json" -o "$T/other"
rm -rf "$T/lua-no-cpath"; cp -a "$T/other" "$T/lua-no-cpath"
grep -v '"CPATH"' "$T/other/$L" > "$T/lua-no-cpath/$L"
rc=0; V -c "$T/other.json" -o "$T/lua-no-cpath" --no-cache > "$T/lua-no-cpath.json" || rc=$?
check "lua-no-cpath: validate exits 1" [ "$rc" -eq 1 ]
for c in CTK-CPATH-001 CTK-BUILD-001; do
    if has_code "$T/lua-no-cpath.json" lmod $c; then pass "lua-no-cpath: lmod reports $c"
    else fail "lua-no-cpath: lmod reports $c (got: $(codes "$T/lua-no-cpath.json" lmod))"; fi
done
check "lua-no-cpath: Lua and Tcl no longer agree (CTK-ENV-001 on tcl)" has_code "$T/lua-no-cpath.json" tcl CTK-ENV-001
check "lua-no-cpath: the .pc still passes on its own" differs "$(verdict "$T/lua-no-cpath.json" pc)" fail

d=$(broken tcl-other-13)
printf 'prepend-path LD_LIBRARY_PATH "%s"\n' "$OTHER/lib64" >> "$d/$TC"
expect tcl-other-13 tcl CTK-LDLIB-002 CTK-RUN-002

if CU12=$(sh "$top_srcdir/tests/wheel-cu12.sh" "${TMPDIR:-/tmp}/ctkgen-cu12-$(id -u)" 2>"$T/cu12.err"); then
    d=$(broken tcl-cu12)
    printf 'prepend-path LD_LIBRARY_PATH "%s"\n' "$CU12/lib" >> "$d/$TC"
    expect tcl-cu12 tcl CTK-LDLIB-002
    check "tcl-cu12: the finding names the CUDA 12 runtime's dir" \
        sh -c "jq -r '.sdks[0].artifacts[].findings[].message' '$T/tcl-cu12.json' | grep -qF '$CU12/lib'"
else
    echo "SKIP: nvidia-cuda-runtime-cu12 wheel unavailable: $(cat "$T/cu12.err") (not counted)"
fi

d=$(broken pc-wl)
sed 's|^Libs:.*|Libs: -Wl,--as-needed,-lcupti,-lcudart,--no-as-needed -lcuda|' "$OUT/$PC" > "$d/$PC"
expect pc-wl pc CTK-PC-001
check "pc-wl: the finding quotes nvcc's refusal" \
    sh -c "jq -r '.sdks[0].artifacts[] | select(.kind == \"pc\") | .findings[].message' '$T/pc-wl.json' | grep -q 'nvcc'"

d=$(broken pc-version)
sed 's|^Version:.*|Version: 12.4|' "$OUT/$PC" > "$d/$PC"
expect pc-version pc CTK-PC-002
check "pc-version: the finding points at the Version line" \
    same_text "$(jq -r '.sdks[0].artifacts[] | select(.kind == "pc") | .findings[] | select(.code == "CTK-PC-002") | .line' "$T/pc-version.json")" \
      "$(grep -n '^Version:' "$T/pc-version/$PC" | cut -d: -f1)"

d=$(broken lua-ldflags)
printf 'setenv("LDFLAGS", "-L%s/lib64")\n' "$B" >> "$d/$L"
expect lua-ldflags lmod CTK-ENV-003

stubs=
for s in "$B/lib64/stubs" "$B/lib/stubs" "$B/targets/x86_64-linux/lib/stubs"; do
    [ -f "$s/libcuda.so" ] && { stubs=$s; break; }
done
if [ -n "$stubs" ]; then
    d=$(broken lua-stubs)
    printf 'prepend_path("LD_LIBRARY_PATH", "%s")\n' "$stubs" >> "$d/$L"
    expect lua-stubs lmod CTK-LDLIB-001
else
    echo "SKIP: this toolkit has no stubs dir with libcuda.so (not counted)"
fi

d=$(broken missing-pc)
rm "$d/$PC"
expect missing-pc pc CTK-MOD-002

d=$(broken lua-error)
printf 'LmodError("this module is retired")\n' >> "$d/$L"
expect lua-error lmod CTK-MOD-001
check "vt is empty after the broken runs" vt_empty

# ---- 5. launch policy, timeouts, jobs --------------------------------------------
if [ $GPU = no ]; then
    rc=0; V -c "$T/site.json" -o "$OUT" --require-launch > "$T/req.json" || rc=$?
    check "--require-launch without a GPU exits 1" [ "$rc" -eq 1 ]
    check "--require-launch: CTK-GPU-005 on every artifact" \
        [ "$(jq '[.sdks[0].artifacts[] | select(.findings | map(.code) | index("CTK-GPU-005"))] | length' "$T/req.json")" -eq 3 ]
fi

rc=0; V -c "$T/site.json" -o "$OUT" --no-cache --timeout 0.2 > "$T/timeout.json" || rc=$?
check "a 200 ms step limit fails the nvcc builds" [ "$rc" -eq 1 ]
check "the findings say the step timed out" \
    sh -c "jq -r '.sdks[].artifacts[].findings[].message' '$T/timeout.json' | grep -q 'timed out'"
sleep 0.2
# the pattern's [v] keeps it from matching this check's own command line
pat=$(printf '%s' "$VT" | sed 's|/vtmp$|/[v]tmp|')
check "no probe or compiler outlives a timeout" none_running "$pat"
check "vt is empty after a timeout" vt_empty

cat > "$T/two.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$B" },
            { "version": "13.0", "name": "13.0-runfile", "base": "$OTHER" } ] }
JSON
check "generate two SDKs" "$CTKGEN" -q generate -c "$T/two.json" -o "$T/two"
rc=0; V -c "$T/two.json" -o "$T/two" --no-cache -j 2 > "$T/two-out.json" || rc=$?
check "-j 2 over two SDKs exits 0" [ "$rc" -eq 0 ]
check "-j 2: both SDKs reported, in config order" \
    [ "$(jq -r '[.sdks[].module] | join(",")' "$T/two-out.json")" = "cudatoolkit/13.0,cudatoolkit/13.0-runfile" ]
lib=$(jq -r '.sdks[1].artifacts[] | select(.kind == "lmod") | .cuda_probe.libcudart' "$T/two-out.json")
check "-j 2: the runfile SDK's module loads its own libcudart" \
    [ "$(dirname "$(readlink -f "$lib")")" = "$(readlink -f "$OTHER/lib64")" ]

# ---- 6. the human report and generate --validate -----------------------------------
rc=0; TMPDIR=$VT "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --cache-dir "$CACHE" > "$T/human.out" 2> "$T/human.err" || rc=$?
check "human report: exit 0" [ "$rc" -eq 0 ]
check "human report: one progress line per artifact on stderr" \
    [ "$(grep -cE 'cudatoolkit/13.0 +(lmod|tcl|pc) ' "$T/human.err")" -eq 3 ]
check "human report: a summary with counts on stdout" \
    grep -qE '^[0-9]+ passed, [0-9]+ passed with launch skipped \(no GPU\), [0-9]+ not checked, [0-9]+ failed \(artifacts\)$' "$T/human.out"
# without a GPU every artifact was checked but for the launch: NOLAUNCH, never
# the UNCHECKED of an artifact that was not evaluated at all
if [ $GPU = no ]; then mark=NOLAUNCH; else mark=PASS; fi
check "human report: each artifact of the row marked $mark" \
    grep -qE "^  cudatoolkit/13.0  $mark\*? +$mark\*? +$mark\*? +[0-9.]+ s$" "$T/human.out"
check "human report: the legend explains $mark" grep -qE "^  $mark +[a-z]" "$T/human.out"
check "human report: no legend line for marks the table does not use" \
    lacks -E '^  (UNCHECKED|FAIL) ' "$T/human.out"
if [ $GPU = no ]; then
    check "human report: the summary counts the launch skips" grep -q '^0 passed, 3 passed with launch skipped' "$T/human.out"
fi
rc=0; TMPDIR=$VT "$CTKGEN" generate --validate -c "$T/site.json" -o "$T/gv" > "$T/gv.out" 2>&1 || rc=$?
check "generate --validate writes and validates (exit 0)" [ "$rc" -eq 0 ]
check "generate --validate printed the summary" grep -qE '^[0-9]+ passed, [0-9]+ passed with launch skipped \(no GPU\), [0-9]+ not checked, [0-9]+ failed' "$T/gv.out"
rc=0; TMPDIR=$VT "$CTKGEN" validate -c "$T/site.json" -o "$T/nonexistent" > /dev/null 2>&1 || rc=$?
check "validate of a missing tree: exit 3" [ "$rc" -eq 3 ]
rc=0; TMPDIR=$VT "$CTKGEN" -q validate -c "$T/site.json" -o "$OUT" --modulecmd /nonexistent/modulecmd.tcl > /dev/null 2>&1 || rc=$?
check "--modulecmd naming nothing: exit 4" [ "$rc" -eq 4 ]
# modulecmd from the site config, with no MODULES_CMD in the environment
cat > "$T/em.json" <<JSON
{ "modulecmd": "$EM_CMD", "sdks": [ { "version": "13.0", "base": "$B" } ] }
JSON
rc=0; env -u MODULES_CMD TMPDIR="$VT" "$CTKGEN" -q validate -c "$T/em.json" -o "$OUT" --no-cache --json > "$T/em-out.json" || rc=$?
check "site config modulecmd: exit 0" [ "$rc" -eq 0 ]
check "site config modulecmd: the Tcl modulefile was loaded by it" \
    sh -c "jq -r '.host.tcl' '$T/em-out.json' | grep -qF '$EM_CMD'"
check "site config modulecmd: Tcl not skipped for want of a module system" \
    differs "$(jq -r '.sdks[0].artifacts[] | select(.kind == "tcl") | .skip.code' "$T/em-out.json")" CTK-SKIP-003
printf '{ "modulecmd": "/nonexistent/modulecmd.tcl", "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$B" > "$T/em-bad.json"
rc=0; env -u MODULES_CMD TMPDIR="$VT" "$CTKGEN" -q validate -c "$T/em-bad.json" -o "$OUT" > /dev/null 2>&1 || rc=$?
check "site config modulecmd naming nothing: exit 4" [ "$rc" -eq 4 ]
check "vt is empty at the end" vt_empty

finish
