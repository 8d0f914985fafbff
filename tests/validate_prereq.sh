#!/bin/sh
# validate_prereq.sh - validate loads the module a generated one requires
# (host_compiler.module, written as prereq) as its users must, from the
# site's MODULEPATH, and skips, never fails, when it cannot.
# SPDX-License-Identifier: MIT
#
# The toolkit is Debian's CUDA 11.8 from the multi-toolkit fixture
# (tests/site-fixture.sh), whose nvcc refuses this machine's gcc 12: its
# host compiler comes only from a gcc/11 module that puts g++-11 first on
# PATH.  So a pass proves the prerequisite's environment is the one the
# probes were built in, and a gcc/11 module that names gcc 12 must fail.
. "$(dirname "$0")/lib.sh"
need_cuda
need_em
need_lmod
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"
[ -x /usr/bin/g++-11 ] && [ -x /usr/bin/g++-12 ] || skip "g++-11 and g++-12 are needed (build-aux/deps.sh installs g++-11)"

site_fixture
B118=$(jq -r '.sdks[] | select(.version == "11.8") | .base' "$F/site.json")
echo "# CUDA 11.8: $B118"

# as root, validate loads modulefiles as user nobody, who must reach them
chmod 755 "$T"
export MODULES_CMD="$EM_CMD" LMOD_CMD="$LMOD_EXEC"
unset MODULEPATH

# compilers: one dir with GCC 11 as gcc/g++/cc/c++, one with GCC 12
for v in 11 12; do
    mkdir -p "$T/gcc$v/bin"
    for t in gcc g++; do ln -s "/usr/bin/$t-$v" "$T/gcc$v/bin/$t"; done
    ln -s "/usr/bin/gcc-$v" "$T/gcc$v/bin/cc"
    ln -s "/usr/bin/g++-$v" "$T/gcc$v/bin/c++"
done
# module trees a site might have
mkdir -p "$T/tcl/gcc" "$T/lua/gcc" "$T/wrong/gcc" "$T/broken/gcc" "$T/closed/gcc"
printf '#%%Module1.0\nprepend-path PATH %s/gcc11/bin\nsetenv SITE_GCC 11\n' "$T" >"$T/tcl/gcc/11"
printf 'prepend_path("PATH", "%s/gcc11/bin")\nsetenv("SITE_GCC", "11")\n' "$T" >"$T/lua/gcc/11.lua"
printf '#%%Module1.0\nprepend-path PATH %s/gcc12/bin\n' "$T" >"$T/wrong/gcc/11"
printf '#%%Module1.0\nerror "gcc 11 is not installed on this node"\n' >"$T/broken/gcc/11"
cp "$T/tcl/gcc/11" "$T/closed/gcc/11"
chmod -R a+rX "$T/tcl" "$T/lua" "$T/wrong" "$T/broken" "$T/gcc11" "$T/gcc12"
chmod 700 "$T/closed"

site() { # site FILE [VALIDATION-JSON]: 11.8 requiring gcc/11, and 13.0 requiring nothing
    jq -n --arg b "$B118" --arg c "$CTK_TEST_CUDA" --argjson v "${2:-null}" '
        {module_name: "cudatoolkit",
         sdks: [{version: "11.8", base: $b, host_compiler: {module: "gcc/11"}},
                {version: "13.0", base: $c}]}
        + (if $v then {validation: $v} else {} end)' >"$1"
}
site "$T/site.json"
OUT=$T/out
"$CTKGEN" -q generate -c "$T/site.json" -o "$OUT" >"$T/gen.log" 2>&1 ||
    { sed 's/^/# /' "$T/gen.log"; echo "FAIL: generate"; exit 1; }
check "the 11.8 modules require gcc/11 (Lmod prereq, Tcl prereq)" sh -c \
    "grep -qF 'prereq(\"gcc/11\")' '$OUT/lmod/cudatoolkit/11.8.lua' && grep -q '^prereq \"*gcc/11' '$OUT/tcl/cudatoolkit/11.8'"

# V NAME ARGS...: validate --json into $T/NAME.json (status in $T/NAME.rc)
V() {
    v_name=$1; shift
    v_rc=0
    "$CTKGEN" validate -o "$OUT" --no-cache --json "$@" >"$T/$v_name.json" 2>"$T/$v_name.err" || v_rc=$?
    echo "$v_rc" >"$T/$v_name.rc"
}
# verdicts NAME MODULE: "kind:verdict:skipcode" per artifact
verdicts() {
    jq -r --arg m "$2" '.sdks[] | select(.module == $m) | .artifacts[] |
        "\(.kind):\(.verdict):\(.skip.code // "")"' "$T/$1.json" 2>/dev/null | sort | tr '\n' ' '
}
# all_skip006 NAME: every 11.8 artifact skips with CTK-SKIP-006
all_skip006() { [ "$(verdicts "$1" cudatoolkit/11.8)" = "lmod:skip:CTK-SKIP-006 pc:skip:CTK-SKIP-006 tcl:skip:CTK-SKIP-006 " ]; }
# built NAME [KINDS]: the 11.8 artifacts built and ran their probes: a pass or a launch skip
built() {
    for k in ${2:-lmod tcl pc}; do
        jq -e --arg k "$k" '.sdks[] | select(.module == "cudatoolkit/11.8") | .artifacts[] | select(.kind == $k) |
            select(.verdict == "pass" or .skip.code == "CTK-SKIP-001" or .skip.code == "CTK-SKIP-002") |
            select(.cuda_probe.libcudart | startswith($b))' --arg b "$B118" "$T/$1.json" >/dev/null || return 1
    done
}
rc_is() { [ "$(cat "$T/$1.rc")" = "$2" ]; }
reason_has() { jq -r '.sdks[] | select(.module == "cudatoolkit/11.8") | .artifacts[] | .skip.reason // ""' "$T/$1.json" | grep -qF -- "$2"; }
findings_have() { jq -r '.sdks[] | select(.module == "cudatoolkit/11.8") | .artifacts[] | .findings[] | "\(.code) \(.message)"' "$T/$1.json" | grep -qF -- "$2"; }
show() { sed 's/^/# /' "$T/$1.err" | tail -n 15; }

# ---- no site MODULEPATH: a skip that says why, never a fail -------------------------------
V none -c "$T/site.json"
check "without a site MODULEPATH: validate exits 0" rc_is none 0
check "... every 11.8 artifact skips with CTK-SKIP-006" all_skip006 none || show none
check "... saying gcc/11 is not found and how to give a MODULEPATH" sh -c \
    "jq -r '.sdks[0].artifacts[] | .skip.reason' '$T/none.json' | grep -F 'gcc/11' | grep -qF -- '--modulepath'"
check "... and 13.0, which requires nothing, builds as before (a pass or a launch skip)" sh -c \
    "[ \"\$(jq -r '.sdks[] | select(.module == \"cudatoolkit/13.0\") | .artifacts[] | .skip.code // .verdict' '$T/none.json' | sort -u | tr '\n' ' ')\" = 'CTK-SKIP-001 ' ] ||
     [ \"\$(jq -r '.sdks[] | select(.module == \"cudatoolkit/13.0\") | .artifacts[] | .verdict' '$T/none.json' | sort -u)\" = pass ]"

# ---- --modulepath: the prerequisite's compiler is what builds --------------------------------
V tcl -c "$T/site.json" --modulepath "$T/tcl"
check "--modulepath with a Tcl gcc/11: exit 0" rc_is tcl 0
check "... Lua (through Lmod's tcl2lua), Tcl and .pc of 11.8 built with g++-11 and linked 11.8's libcudart" built tcl || show tcl
check "... the Lua module's environment has the prerequisite's PATH after the toolkit's" sh -c \
    "jq -r '.sdks[0].artifacts[] | select(.kind == \"lmod\") | .env.PATH' '$T/tcl.json' | grep -q '^$B118/bin:$T/gcc11/bin:'"
check "... and what the prerequisite set itself is not counted as the module's (SITE_GCC)" sh -c \
    "! jq -e '.sdks[0].artifacts[] | select(.kind != \"pc\") | .env.SITE_GCC' '$T/tcl.json' >/dev/null"

V wrong -c "$T/site.json" --modulepath "$T/wrong"
check "a gcc/11 module that puts gcc 12 first: 11.8 fails (exit 1), not skipped" rc_is wrong 1
check "... nvcc 11.8 refusing that host compiler is the finding (CTK-HOSTCC-001)" findings_have wrong "CTK-HOSTCC-001"

V lua -c "$T/site.json" --modulepath "$T/lua" --lmod
no_env002() { ! grep -q CTK-ENV-002 "$T/$1.json"; }
check "a Lua gcc/11 and --lmod: the Lua module and the .pc build" built lua "lmod pc"
check "... real Lmod agrees with the sandbox (no CTK-ENV-002)" no_env002 lua
check "... Environment Modules cannot read a Lua file: the Tcl module skips with CTK-SKIP-006" sh -c \
    "[ \"\$(jq -r '.sdks[0].artifacts[] | select(.kind == \"tcl\") | .skip.code' '$T/lua.json')\" = CTK-SKIP-006 ]"

V lmodtcl -c "$T/site.json" --modulepath "$T/tcl" --lmod
check "a Tcl gcc/11 and --lmod: the Lua module builds" built lmodtcl lmod
check "... real Lmod loads gcc/11 and 11.8 as the sandbox does (no CTK-ENV-002)" no_env002 lmodtcl

V broken -c "$T/site.json" --modulepath "$T/broken"
check "a gcc/11 that refuses to load: exit 0" rc_is broken 0
check "... every 11.8 artifact CTK-SKIP-006" all_skip006 broken
check "... with the module's own words" reason_has broken "gcc 11 is not installed on this node"

# ---- the other ways to give it ------------------------------------------------------------
site "$T/site-mp.json" "{\"modulepath\": [\"$T/tcl\"]}"
V conf -c "$T/site-mp.json"
check "the site config's validation.modulepath: exit 0" rc_is conf 0
check "... 11.8 builds" built conf
V inherit -c "$T/site.json" --inherit-modulepath
check "--inherit-modulepath with no MODULEPATH set: still CTK-SKIP-006" all_skip006 inherit
MODULEPATH=$T/tcl V inherit2 -c "$T/site.json" --inherit-modulepath
check "--inherit-modulepath with MODULEPATH=the Tcl tree: 11.8 builds" built inherit2
MODULEPATH=$T/tcl V noinherit -c "$T/site.json"
check "... and without the flag, the caller's MODULEPATH is not read" all_skip006 noinherit
rc=0; "$CTKGEN" generate -c "$T/site.json" -o "$OUT" --validate --modulepath "$T/tcl" >"$T/gv.out" 2>&1 || rc=$?
check "generate --validate --modulepath: exit 0, 11.8 not skipped" sh -c "[ $rc -eq 0 ] && ! grep -q CTK-SKIP-006 '$T/gv.out'"

# ---- bad input -------------------------------------------------------------------------------
rc=0; "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --modulepath rel/dir >"$T/u.out" 2>&1 || rc=$?
check "--modulepath with a relative dir: usage error (exit 2) naming it" sh -c "[ $rc -eq 2 ] && grep -qF rel/dir '$T/u.out'"
site "$T/site-bad.json" '{"modulepath": ["relative/mods"]}'
rc=0; "$CTKGEN" validate -c "$T/site-bad.json" -o "$OUT" >"$T/b.out" 2>&1 || rc=$?
check "validation.modulepath with a relative dir: a config error at its place" sh -c \
    "[ $rc -ne 0 ] && grep -qF '/validation/modulepath/0' '$T/b.out' && grep -qF 'not an absolute path' '$T/b.out'"

# ---- the cache keys the prerequisite ------------------------------------------------------------
cached11() { jq -r '.sdks[0].artifacts[] | .cached' "$T/$1.json" | sort -u | tr '\n' ' '; }
CD=$T/cache
"$CTKGEN" validate -c "$T/site.json" -o "$OUT" --cache-dir "$CD" --modulepath "$T/tcl" --json >"$T/c1.json" 2>/dev/null || :
"$CTKGEN" validate -c "$T/site.json" -o "$OUT" --cache-dir "$CD" --modulepath "$T/tcl" --json >"$T/c2.json" 2>/dev/null || :
check "cache: an unchanged re-run reuses 11.8's results" same_text "$(cached11 c2)" "true "
printf '#%%Module1.0\nprepend-path PATH %s/gcc12/bin\n' "$T" >"$T/tcl/gcc/11"
rc=0; "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --cache-dir "$CD" --modulepath "$T/tcl" --json >"$T/c3.json" 2>/dev/null || rc=$?
check "cache: a changed gcc/11 module is checked again (and now fails)" sh -c \
    "[ '$(cached11 c3)' = 'false ' ] && [ $rc -eq 1 ]"
printf '#%%Module1.0\nprepend-path PATH %s/gcc11/bin\nsetenv SITE_GCC 11\n' "$T" >"$T/tcl/gcc/11"

# ---- as root: the prerequisite never runs as root ---------------------------------------------
if [ "$(id -u)" = 0 ]; then
    V closed -c "$T/site.json" --modulepath "$T/closed"
    check "as root: a gcc/11 only root can read is not loaded (CTK-SKIP-006), never as root" all_skip006 closed
    mkdir -p "$T/who/gcc" "$T/whodir" && chmod 1777 "$T/whodir"
    printf '#%%Module1.0\nexec sh -c {id -u > %s/whodir/uid}\nprepend-path PATH %s/gcc11/bin\n' "$T" "$T" >"$T/who/gcc/11"
    chmod -R a+rX "$T/who"
    V who -c "$T/site.json" --modulepath "$T/who" --trust-tcl
    check "as root with --trust-tcl: the prerequisite ran as nobody, not root" sh -c \
        "[ -s '$T/whodir/uid' ] && ! grep -qx 0 '$T/whodir/uid'"
    check "... and 11.8 still built" built who tcl
else
    echo "# not root: the root-only checks are not run here (CI runs them as root)"
fi
finish
