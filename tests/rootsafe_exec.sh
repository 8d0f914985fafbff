#!/bin/sh
# rootsafe_exec.sh - root's ctkgen never runs a program another user controls.
# SPDX-License-Identifier: MIT
#
# A "toolkit" owned by uid 65534, whose bin/nvcc is a script that creates a
# marker file, and a Lua modulefile, a .pc and a Tcl modulefile that merely
# point at it (or at a modulecmd.tcl of that user's): `ctkgen lint`, run as
# root, must not run any of it (no marker), must say which check it did not
# run and why (CTK-TRUST-001), and must exit as docs/lint.md says.  The same
# trees owned by root, in a tree only root can write, are run (the marker
# appears): the rule is not "never run".  A group-writable directory above
# a root-owned nvcc, a root-owned link into the user's tree, and /tmp are
# refused as well.  scan and validate still run the toolkit the admin
# names, and warn (a stderr line; CTK-TRUST-002) without changing anything
# else.  The trusted trees live in the build tree (make_trusted_tmp): no
# program below a world-writable /tmp is ever run.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root: the attacker's files must belong to another user (chown 65534)"
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"

umask 022
make_trusted_tmp || { echo "FAIL: no directory ctkgen trusts for the root-owned trees"; exit 1; }
MARK=$T/MARKER                 # every fake program creates it when run
unset MODULES_CMD LMOD_CMD

# fake_toolkit DIR VERSIONED: a tree ctkgen takes for a CUDA 13.0 toolkit
# (include/cuda_runtime.h, lib64/libcudart.so, an executable bin/nvcc)
# whose nvcc is a script creating $MARK.  VERSIONED yes: CUDART_VERSION
# gives the release; no: only `nvcc --version` can.
fake_toolkit() {
    mkdir -p "$1/bin" "$1/include" "$1/lib64"
    printf '#!/bin/sh\ntouch "%s"\necho "Cuda compilation tools, release 13.0, V13.0.88"\n' "$MARK" > "$1/bin/nvcc"
    chmod 755 "$1/bin/nvcc"
    echo '#include "cuda_runtime_api.h"' > "$1/include/cuda_runtime.h"
    if [ "$2" = yes ]; then
        echo '#define CUDART_VERSION 13000'
    else
        echo '/* no CUDART_VERSION */'
    fi > "$1/include/cuda_runtime_api.h"
    : > "$1/lib64/libcudart.so"
}
# lua_module FILE ROOT / pc_file FILE ROOT: a module and a .pc pointing at ROOT
lua_module() {
    mkdir -p "$(dirname "$1")"
    printf 'family("cuda")\nsetenv("CUDA_HOME", "%s")\nprepend_path("PATH", "%s/bin")\n' "$2" "$2" > "$1"
}
pc_file() {
    mkdir -p "$(dirname "$1")"
    printf 'prefix=%s\nincludedir=${prefix}/include\nlibdir=${prefix}/lib64\n\nName: cudart\nDescription: CUDA runtime\nVersion: 13.0\nCflags: -I${includedir}\nLibs: -L${libdir} -lcudart\n' \
        "$2" > "$1"
}
# lint_json NAME ARGS...: ctkgen lint --json ARGS into $T/NAME.json, status in $T/NAME.rc
lint_json() {
    lj_n=$1; shift
    rm -f "$MARK"
    lj_rc=0
    "$CTKGEN" lint --json "$@" > "$T/$lj_n.json" 2> "$T/$lj_n.err" || lj_rc=$?
    echo "$lj_rc" > "$T/$lj_n.rc"
}
# trust_msg NAME: the messages of the CTK-TRUST-001 findings of lint run NAME
trust_msg() { jq -r '.files[].findings[] | select(.code == "CTK-TRUST-001") | .message' "$T/$1.json"; }
has_trust() { trust_msg "$1" | grep -qF -- "$2"; }
no_trust() { [ -s "$T/$1.json" ] && [ -z "$(trust_msg "$1")" ]; }
# status_as_documented NAME: docs/lint.md: 1 when a finding is an error, else 5
# when a file was not fully checked, else 0
status_as_documented() {
    sad_e=$(jq '.summary.error' "$T/$1.json") || return 1
    sad_i=$(jq '.summary.not_fully_checked' "$T/$1.json") || return 1
    if [ "$sad_e" -gt 0 ]; then sad_want=1; elif [ "$sad_i" -gt 0 ]; then sad_want=5; else sad_want=0; fi
    [ "$(cat "$T/$1.rc")" = "$sad_want" ] || { echo "# exit $(cat "$T/$1.rc"), $sad_e errors"; return 1; }
}
marker_absent() { [ ! -e "$MARK" ]; }
marker_present() { [ -e "$MARK" ]; }

# ---- the other user's toolkits -------------------------------------------------------
mkdir -p "$TT/home/u"
U=$TT/home/u
fake_toolkit "$U/cuda" yes
fake_toolkit "$U/cuda-nover" no
chown -R 65534:65534 "$U"
M=$T/files
lua_module "$M/user/lmod/cuda/13.0.lua" "$U/cuda-nover"
pc_file "$M/user/pc/cudart-13.0.pc" "$U/cuda"
owner_why="$U is owned by uid 65534"

# A Lua modulefile: the toolkit's release is only in `nvcc --version`
lint_json user-lua "$M/user/lmod/cuda/13.0.lua"
check "lint, Lua module -> user's toolkit: nvcc --version was not run (no marker)" marker_absent
check "lint, Lua module: CTK-TRUST-001 names the check not run" \
    has_trust user-lua "\`$U/cuda-nover/bin/nvcc --version\` was not run"
check "lint, Lua module: ... and why (the directory, its owner, its mode)" \
    has_trust user-lua "$owner_why (nobody), not root: mode 0755"
check "lint, Lua module: CTK-TRUST-001 is a warning" \
    [ "$(jq -r '[.files[].findings[] | select(.code == "CTK-TRUST-001") | .severity] | unique | join(",")' "$T/user-lua.json")" = warning ]
check "lint, Lua module: the toolkit stays unknown (CTK-SDK-001)" \
    sh -c "jq -r '.files[].findings[].code' '$T/user-lua.json' | grep -qx CTK-SDK-001"
check "lint, Lua module: exit status as documented (5: warnings only, the toolkit checks not run)" status_as_documented user-lua
check "lint, Lua module: exit 5, not fully checked" [ "$(cat "$T/user-lua.rc")" -eq 5 ]

# A .pc: the toolkit is known (CUDART_VERSION); nvcc -dryrun would judge the Libs
lint_json user-pc "$M/user/pc/cudart-13.0.pc"
check "lint, .pc -> user's toolkit: nvcc -dryrun was not run (no marker)" marker_absent
check "lint, .pc: the toolkit was found" [ "$(jq -r '.files[0].toolkit.root' "$T/user-pc.json")" = "$U/cuda" ]
check "lint, .pc: CTK-TRUST-001 names the check not run" \
    has_trust user-pc "nvcc's own check of the Libs (\`$U/cuda/bin/nvcc -dryrun probe.o"
check "lint, .pc: ... that the static rule stood in" has_trust user-pc "was not run; the static rule stands in"
check "lint, .pc: ... and why" has_trust user-pc "$owner_why (nobody), not root: mode 0755, on the way to $U/cuda/bin/nvcc"
check "lint, .pc: exit status as documented" status_as_documented user-pc

# the whole directory at once, human report: the finding on stdout, exit 0
rm -f "$MARK"
rc=0; "$CTKGEN" lint "$M/user" > "$T/user.out" 2> "$T/user.err" || rc=$?
check "lint, both files: no marker" marker_absent
check "lint, both files: exit 5 (warnings only; the Lua module's toolkit checks not run)" [ "$rc" -eq 5 ]
check "lint, both files: the summary counts one file not fully checked" grep -q '; 1 not fully checked; ' "$T/user.out"
check "lint, both files: the human report prints CTK-TRUST-001 twice" \
    [ "$(grep -c 'warning CTK-TRUST-001: ' "$T/user.out")" -eq 2 ]

# nvcc from ctkgen's own PATH (a .pc that leads to no toolkit)
pc_file "$M/nowhere/pc/mpi.pc" /nonexistent/mpi
rm -f "$MARK"
rc=0; PATH="$U/cuda/bin:/usr/bin:/bin" "$CTKGEN" lint --json "$M/nowhere/pc/mpi.pc" > "$T/path-pc.json" 2>/dev/null || rc=$?
echo "$rc" > "$T/path-pc.rc"
check "lint, nvcc on PATH owned by another user: not run (no marker)" marker_absent
check "lint, nvcc on PATH: CTK-TRUST-001 names it" has_trust path-pc "\`$U/cuda/bin/nvcc -dryrun"
check "lint, nvcc on PATH: exit status as documented" status_as_documented path-pc

# ---- the same trees, root's: run -------------------------------------------------------
R=$TT/opt
fake_toolkit "$R/cuda" yes
fake_toolkit "$R/cuda-nover" no
lua_module "$M/root/lmod/cuda/13.0.lua" "$R/cuda-nover"
pc_file "$M/root/pc/cudart-13.0.pc" "$R/cuda"
lint_json root-lua "$M/root/lmod/cuda/13.0.lua"
check "lint, Lua module -> root's toolkit in a 0755 tree: nvcc --version ran (marker)" marker_present
check "lint, Lua module -> root's toolkit: the release came from it (CUDA 13.0)" \
    [ "$(jq -r '.files[0].toolkit.version' "$T/root-lua.json")" = 13.0 ]
check "lint, Lua module -> root's toolkit: no CTK-TRUST-001" no_trust root-lua
lint_json root-pc "$M/root/pc/cudart-13.0.pc"
check "lint, .pc -> root's toolkit: nvcc -dryrun ran (marker)" marker_present
check "lint, .pc -> root's toolkit: no CTK-TRUST-001, exit 0" \
    sh -c "[ -z \"\$(jq -r '.files[].findings[] | select(.code == \"CTK-TRUST-001\") | .code' '$T/root-pc.json')\" ] && [ \$(cat '$T/root-pc.rc') -eq 0 ]"

# ---- root's nvcc, but a group-writable directory above it --------------------------------
G=$TT/grp
fake_toolkit "$G/apps/cuda" yes
chmod 775 "$G/apps"
pc_file "$M/grp/pc/cudart-13.0.pc" "$G/apps/cuda"
lint_json grp-pc "$M/grp/pc/cudart-13.0.pc"
check "lint, root's nvcc below a group-writable dir: not run (no marker)" marker_absent
check "lint, group-writable: the finding names the directory, its group and mode" \
    has_trust grp-pc "$G/apps is writable by its group gid 0 (root): mode 0775"

# ---- a root-owned link in a root-owned tree, into the user's toolkit ---------------------
ln -s "$U/cuda" "$R/cuda-link"
pc_file "$M/link/pc/cudart-13.0.pc" "$R/cuda-link"
lint_json link-pc "$M/link/pc/cudart-13.0.pc"
check "lint, a root-owned link into the user's tree: not run (no marker)" marker_absent
check "lint, link: the finding names the user's directory as reached through the link" \
    has_trust link-pc "$R/cuda-link/bin is owned by uid 65534 (nobody), not root: mode 0755, on the way to $R/cuda-link/bin/nvcc"

# ---- root's toolkit under $TMPDIR -----------------------------------------------------------
if trusted_dir "$T" >/dev/null; then
    echo "SKIP: $T is trusted (TMPDIR is not world-writable): the /tmp case cannot be made here (not counted)"
else
    fake_toolkit "$T/tk/cuda" yes
    pc_file "$M/tmp/pc/cudart-13.0.pc" "$T/tk/cuda"
    lint_json tmp-pc "$M/tmp/pc/cudart-13.0.pc"
    check "lint, root's nvcc below world-writable ${TMPDIR:-/tmp}: not run (no marker)" marker_absent
    check "lint, /tmp: the finding says which directory is writable by others" \
        has_trust tmp-pc "is writable by others: mode 1777"
fi

# ---- Tcl: a modulecmd.tcl of the other user's ------------------------------------------------
if TCLSH=$(command -v tclsh); then
    for who in user root; do
        case $who in user) d=$U/modules ;; root) d=$R/modules ;; esac
        mkdir -p "$d"
        printf 'close [open "%s" w]\nputs stderr "Modules Release 5.5.0 (2024-01-01)"\nexit 1\n' "$MARK" > "$d/modulecmd.tcl"
    done
    chown -R 65534:65534 "$U/modules"
    mkdir -p "$M/tcl/tcl/cuda"
    printf '#%%Module\nconflict cuda\nsetenv CUDA_HOME %s\n' "$R/cuda" > "$M/tcl/tcl/cuda/13.0"
    lint_json user-tcl --modulecmd "$U/modules/modulecmd.tcl" "$M/tcl"
    check "lint, Tcl with the other user's modulecmd.tcl: not run, not even for its version (no marker)" marker_absent
    check "lint, Tcl: an untrusted --modulecmd is no error (exit as documented)" status_as_documented user-tcl
    check "lint, Tcl: CTK-TRUST-001 says the file was not loaded, the command and why" \
        has_trust user-tcl "not loaded by Environment Modules, so none of its checks ran: \`$TCLSH $U/modules/modulecmd.tcl\` was not run: $owner_why"
    check "lint, Tcl: the report's tcl_skip says why" \
        sh -c "jq -r .tcl_skip '$T/user-tcl.json' | grep -qF '$owner_why'"
    lint_json root-tcl --modulecmd "$R/modules/modulecmd.tcl" "$M/tcl"
    check "lint, Tcl with root's modulecmd.tcl in a 0755 tree: it ran (marker)" marker_present
    check "lint, Tcl with root's modulecmd.tcl: no CTK-TRUST-001" no_trust root-tcl
else
    echo "SKIP: no tclsh: the modulecmd.tcl cases are not run (not counted)"
fi

# ---- scan: the admin's choice stands, with a warning ----------------------------------------
rm -f "$MARK"
rc=0; "$CTKGEN" scan "$U" > "$T/scan.json" 2> "$T/scan.err" || rc=$?
check "scan of the user's toolkits: exit 0, both in the config" \
    sh -c "[ $rc -eq 0 ] && grep -qF '\"base\": \"$U/cuda\"' '$T/scan.json' && grep -qF '\"base\": \"$U/cuda-nover\"' '$T/scan.json'"
check "scan: a warning line names the untrusted nvcc and why" \
    grep -qF "ctkgen: warning: untrusted $U/cuda/bin/nvcc: $owner_why (nobody), not root: mode 0755" "$T/scan.err"
check "scan: one warning per toolkit" [ "$(grep -c '^ctkgen: warning: untrusted ' "$T/scan.err")" -eq 2 ]
check "scan: it still ran the nvcc that alone knows the release (marker), and says so" \
    sh -c "[ -e '$MARK' ] && grep -F 'untrusted $U/cuda-nover/bin/nvcc' '$T/scan.err' | grep -qF 'the scan ran it for the release'"
check "scan: the warning is no problem in the summary" grep -q '^ctkgen: 2 toolkits, 0 runtime-only trees, 0 problems;' "$T/scan.err"
rc=0; "$CTKGEN" scan "$R/cuda" > /dev/null 2> "$T/scan-root.err" || rc=$?
check "scan of root's toolkit: exit 0, no warning" sh -c "[ $rc -eq 0 ] && ! grep -q warning '$T/scan-root.err'"
rc=0; "$CTKGEN" -q scan "$U" > /dev/null 2> "$T/scan-q.err" || rc=$?
check "scan -q: silent, warnings included" [ "$rc" -eq 0 -a ! -s "$T/scan-q.err" ]

# ---- validate: runs the SDK the admin configured, with CTK-TRUST-002 -----------------------------
if [ -n "$CTK_TEST_CUDA" ] && [ -x "$CTK_TEST_CUDA/bin/nvcc" ]; then
    # the real toolkit as a tree of links the other user owns, and a ccbin of theirs
    cp -as "$(readlink -f "$CTK_TEST_CUDA")/." "$U/view"
    mkdir -p "$U/bin"
    ln -s "$(readlink -f "$(command -v g++ || command -v c++)")" "$U/bin/g++"
    chown -h -R 65534:65534 "$U/view" "$U/bin"
    printf '{ "sdks": [ { "version": "13.0", "base": "%s", "host_compiler": { "ccbin": "%s" } } ] }\n' \
        "$U/view" "$U/bin/g++" > "$T/v.json"
    [ -f "$EM_CMD" ] && export MODULES_CMD="$EM_CMD"
    check "validate: generate for the user's toolkit" "$CTKGEN" -q generate -c "$T/v.json" -o "$T/vout"
    rc=0; "$CTKGEN" -q validate -c "$T/v.json" -o "$T/vout" --no-cache --json > "$T/v-out.json" 2> "$T/v.err" || rc=$?
    tmsg() { jq -r --arg k "$1" '.sdks[0].artifacts[] | select(.kind == $k) | .findings[] | select(.code == "CTK-TRUST-002") | .message' "$T/v-out.json"; }
    check "validate: the verdicts are unchanged (exit 0, nothing failed)" \
        sh -c "[ $rc -eq 0 ] && [ \"\$(jq .summary.fail '$T/v-out.json')\" = 0 ]"
    check "validate: CTK-TRUST-002 names the SDK's nvcc and why" \
        sh -c "jq -r '.sdks[0].artifacts[] | select(.kind == \"pc\") | .findings[] | select(.code == \"CTK-TRUST-002\") | .message' '$T/v-out.json' |
               grep -F 'validate runs $U/view/bin/nvcc (the SDK'\"'\"'s nvcc)' | grep -qF '$owner_why'"
    check "validate: CTK-TRUST-002 names host_compiler.ccbin and why" \
        sh -c "jq -r '.sdks[0].artifacts[] | select(.kind == \"pc\") | .findings[] | select(.code == \"CTK-TRUST-002\") | .message' '$T/v-out.json' |
               grep -F 'validate runs $U/bin/g++ (host_compiler.ccbin)' | grep -qF '$owner_why'"
    check "validate: CTK-TRUST-002 is a warning, once per program" \
        [ "$(jq -c '[.sdks[0].artifacts[].findings[] | select(.code == "CTK-TRUST-002") | .severity]' "$T/v-out.json")" = '["warning","warning"]' ]
    unset MODULES_CMD
else
    echo "SKIP: no CUDA toolkit: the validate case is not run (not counted)"
fi

finish
