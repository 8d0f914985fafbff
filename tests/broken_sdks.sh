#!/bin/sh
# broken_sdks.sh - a config with broken or unmounted toolkits: every error at
# once, --keep-going (the others written, the broken ones' files kept as they
# were), and moving links as base (pinned with a warning, or followed on request).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/lib.sh"
need_cuda

FIX=${TMPDIR:-/tmp}/ctkgen-fixtures-$(id -u)
sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$FIX" >/dev/null || { echo "fixtures.sh failed"; exit 1; }
STD=$FIX/standalone/cuda-13.0

# G NAME ARGS...: generate into $T/NAME.out / .err / .rc
G() {
    n=$1; shift
    rc=0
    "$CTKGEN" generate "$@" >"$T/$n.out" 2>"$T/$n.err" || rc=$?
    echo "$rc" >"$T/$n.rc"
}
rc_is() { [ "$(cat "$T/$1.rc")" = "$2" ]; }
err_has() { grep -qF -- "$2" "$T/$1.err"; }
# the state of a tree: every file's bytes and mtime, the manifest included
tree_state() { (cd "$1" && find . -type f ! -name .ctkgen.lock -exec stat -c '%n %Y %s' {} + | sort && cat .ctkgen-manifest); }

# ---- every error at once ----------------------------------------------------------------------
mkdir -p "$T/empty"
cat >"$T/two-broken.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$STD" },
            { "version": "12.4", "base": "$T/gone/cuda-12.4" },
            { "version": "12.6", "base": "$T/empty" } ] }
JSON
G tb -c "$T/two-broken.json" -o "$T/tb-out"
check "two broken SDKs: exit 3 (bad input)" rc_is tb 3
check "two broken SDKs: the first one's error" err_has tb "/sdks/1/base: SDK 12.4: $T/gone/cuda-12.4 does not exist"
check "two broken SDKs: and the second one's" err_has tb "/sdks/2/base: SDK 12.6: no executable bin/nvcc under $T/empty"
check "two broken SDKs: a last line names both" \
    err_has tb "ctkgen: error: 2 of 3 SDKs did not load: cudatoolkit/12.4 (/sdks/1), cudatoolkit/12.6 (/sdks/2); nothing was written (--keep-going writes the others)"
check "two broken SDKs: nothing written" [ ! -e "$T/tb-out" ]
check "two broken SDKs: that last line once, and no word of files left as they were" \
    eval "[ \"\$(grep -c 'SDKs did not load' '$T/tb.err')\" -eq 1 ] && ! grep -q 'left as they were' '$T/tb.err'"
rc=0; "$CTKGEN" validate -c "$T/two-broken.json" -o "$T/tb-out" >/dev/null 2>"$T/tbv.err" || rc=$?
check "validate: exit 3 and both errors" eval "[ $rc -eq 3 ] && grep -q '/sdks/1/base' '$T/tbv.err' && grep -q '/sdks/2/base' '$T/tbv.err'"

# ---- --keep-going: one toolkit on a file system that went away ----------------------------------
ln -s "$FIX/standalone" "$T/nfs"
site() { # site HELP: 13.0 (the toolkit), 13.0-nfs (through $T/nfs), with HELP on 13.0
    cat >"$T/kg.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA", "help": "$1" },
            { "version": "13.0", "name": "13.0-nfs", "base": "$T/nfs/cuda-13.0" } ] }
JSON
}
out=$T/kg-out
site "first"
G kg1 -c "$T/kg.json" -o "$out"
check "keep-going: the first run writes both" eval "rc_is kg1 0 && [ -f '$out/lmod/cudatoolkit/13.0-nfs.lua' ]"
nfs_files="lmod/cudatoolkit/13.0-nfs.lua tcl/cudatoolkit/13.0-nfs pkgconfig/ctk-13.0-nfs.pc pkgconfig/ctk-cudart-13.0-nfs.pc"
for f in $nfs_files lmod/cudatoolkit/.modulerc.lua tcl/cudatoolkit/.modulerc; do
    cp -p "$out/$f" "$T/kept.$(echo "$f" | tr / _)"
done
grep -- "-nfs" "$out/.ctkgen-manifest" >"$T/kept.manifest"
sleep 1 # so a rewrite would show in the mtime
rm "$T/nfs"
site "second"
before=$(tree_state "$out")
G kg2 -c "$T/kg.json" -o "$out"
check "unmounted, no --keep-going: exit 3, nothing changed" eval "rc_is kg2 3 && [ \"\$(tree_state '$out')\" = \"\$before\" ]"
G kg3 --keep-going -c "$T/kg.json" -o "$out"
check "--keep-going: exit 3" rc_is kg3 3
check "--keep-going: the error names the SDK left out" \
    err_has kg3 "ctkgen: error: 1 of 2 SDKs did not load: cudatoolkit/13.0-nfs (/sdks/1); their files were left as they were"
check "--keep-going: the SDK that loads is written" grep -q "second" "$out/lmod/cudatoolkit/13.0.lua"
for f in $nfs_files lmod/cudatoolkit/.modulerc.lua tcl/cudatoolkit/.modulerc; do
    k=$T/kept.$(echo "$f" | tr / _)
    check "--keep-going: $f kept, bytes and mtime" eval "cmp -s '$k' '$out/$f' && [ \$(stat -c %Y '$k') = \$(stat -c %Y '$out/$f') ]"
done
check "--keep-going: the manifest keeps the broken SDK's records" \
    eval "[ \"\$(grep -- -nfs '$out/.ctkgen-manifest')\" = \"\$(cat '$T/kept.manifest')\" ]"
G kg4 -k --check -c "$T/kg.json" -o "$out"
check "--keep-going --check: nothing more would change, exit 3 for the SDK left out" rc_is kg4 3
ln -s "$FIX/standalone" "$T/nfs"
G kg5 -c "$T/kg.json" -o "$out"
check "mounted again: exit 0" rc_is kg5 0
cat >"$T/kg.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA" } ] }
JSON
G kg6 -c "$T/kg.json" -o "$out"
check "the kept files are still ctkgen's: removed once the SDK leaves the config" \
    eval "rc_is kg6 0 && [ ! -e '$out/lmod/cudatoolkit/13.0-nfs.lua' ]"

# ---- a moving link as base -------------------------------------------------------------------------
mkdir -p "$T/local"
ln -s "$STD" "$T/local/cuda-13.0"
ln -s cuda-13.0 "$T/local/cuda"
cat >"$T/link.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$T/local/cuda" } ] }
JSON
G ln -c "$T/link.json" -o "$T/ln-out"
check "link as base: exit 0" rc_is ln 0
check "link as base: a warning says where the module points and how to follow the link" \
    err_has ln "ctkgen: warning: cudatoolkit/13.0: base $T/local/cuda is a symbolic link to $STD: the module points at $STD, and stays there when the link is repointed (regenerate then); to have it follow the link instead, set \"follow_link\": true in /sdks/0"
check "link as base: the module holds the resolved tree" grep -qF "\"$STD/bin\"" "$T/ln-out/lmod/cudatoolkit/13.0.lua"
check "link as base: and not the link" lacks -F "$T/local/cuda\"" "$T/ln-out/lmod/cudatoolkit/13.0.lua"
cat >"$T/follow.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$T/local/cuda", "follow_link": true } ] }
JSON
G fl -c "$T/follow.json" -o "$T/fl-out"
check "follow_link: exit 0, no warning" eval "rc_is fl 0 && ! grep -q 'symbolic link' '$T/fl.err'"
check "follow_link: the module follows the link" grep -qF "\"$T/local/cuda/bin\"" "$T/fl-out/lmod/cudatoolkit/13.0.lua"
cat >"$T/twice.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$T/local/cuda" },
            { "version": "13.0", "name": "13.0-b", "base": "$STD" } ] }
JSON
G tw -c "$T/twice.json" -o "$T/tw-out"
check "two SDKs, one toolkit: reported" \
    err_has tw "ctkgen: warning: cudatoolkit/13.0 (/sdks/0) and cudatoolkit/13.0-b (/sdks/1) are the same toolkit, $STD: two modules for one install"
finish
