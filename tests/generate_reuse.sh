#!/bin/sh
# generate_reuse.sh - an unchanged re-run renders nothing and writes
# nothing; whatever changed an SDK's inputs, or its files on disk, is
# rendered again, and the tree is always what a full render gives.
# SPDX-License-Identifier: MIT
#
# Toolkits: directories of links into this machine's toolkit, each with a
# version.json of its own (so each has its own patch level).  A full
# render (--rerender into a second tree) is the reference the reused tree
# must equal, byte for byte, manifest included.
. "$(dirname "$0")/lib.sh"
need_cuda

mm=$("$CTK_TEST_CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$mm" ] || { echo "FAIL: no release in nvcc --version"; exit 1; }
ver_json() { # ver_json PATCH
    printf '{ "cuda": { "name": "CUDA SDK", "version": "%s.%s" },\n' "$mm" "$1"
    printf '  "cuda_cudart": { "name": "CUDA Runtime (cudart)", "version": "%s.%s" } }\n' "$mm" "$1"
}
mk_tk() { # mk_tk I: toolkit t<I>, patch level I
    d=$T/tk/t$1
    mkdir -p "$d"
    for e in "$CTK_TEST_CUDA"/*; do
        case ${e##*/} in version.json) continue ;; esac
        ln -s "$e" "$d/${e##*/}"
    done
    ver_json "$1" >"$d/version.json"
}
# site FILE BASE1 BASE2 BASE3 [EXTRA-JSON-OF-t2]
site() {
    printf '{ "pkgconfig_dir": "/apps/ctk/pkgconfig", "sdks": [\n { "version": "%s", "name": "%s-t1", "base": "%s" },\n' "$mm" "$mm" "$2" >"$1"
    printf ' { "version": "%s", "name": "%s-t2", "base": "%s"%s },\n' "$mm" "$mm" "$3" "${5:-}" >>"$1"
    printf ' { "version": "%s", "name": "%s-t3", "base": "%s" } ] }\n' "$mm" "$mm" "$4" >>"$1"
}
for i in 1 2 3 4; do mk_tk $i; done
site "$T/site.json" "$T/tk/t1" "$T/tk/t2" "$T/tk/t3"
OUT=$T/out
REF=$T/ref
gen() { "$CTKGEN" -v generate -o "$OUT" "$@" >"$T/gen.log" 2>&1; }
# reused N: the last run said N toolkits were not rendered
reused() { grep -q "ctkgen: $1 of 3 toolkit(s) not rendered" "$T/gen.log"; }
none_reused() { lacks 'not rendered' "$T/gen.log"; }
# agrees: OUT is what a full render of CONFIG writes (into a fresh tree)
agrees() {
    rm -rf "$REF"
    "${2:-$CTKGEN}" -q generate --rerender -c "$1" -o "$REF" && diff -r "$REF" "$OUT" >"$T/diff.log"
}
stamps() { find "$OUT" -exec stat -c '%n %y %i' {} + | sort; }

check "a first generate writes the tree" gen -c "$T/site.json"
check "and renders every toolkit" none_reused
check "the manifest is version 2" grep -qx '# ctkgen manifest v2' "$OUT/.ctkgen-manifest"
check "each toolkit's modulefile is recorded with its inputs" \
    grep -Eq "^[0-9a-f]{16} [0-9a-f]{16} lmod/cudatoolkit/$mm-t2\\.lua\$" "$OUT/.ctkgen-manifest"
check "each .pc is recorded with its inputs" \
    grep -Eq "^[0-9a-f]{16} [0-9a-f]{16} pkgconfig/ctk-$mm-t2\\.pc\$" "$OUT/.ctkgen-manifest"
check "the .modulerc files are recorded without (always rendered)" \
    grep -Eq "^[0-9a-f]{16} -{16} lmod/cudatoolkit/\\.modulerc\\.lua\$" "$OUT/.ctkgen-manifest"
t2in() { sed -n "s|^[0-9a-f]* \\([0-9a-f]*\\) lmod/cudatoolkit/$mm-t2\\.lua\$|\\1|p" "$OUT/.ctkgen-manifest"; }
t2pc() { sed -n "s|^[0-9a-f]* \\([0-9a-f]*\\) pkgconfig/ctk-$mm-t2\\.pc\$|\\1|p" "$OUT/.ctkgen-manifest"; }
check "one toolkit's files share one inputs hash" same_text "$(t2in)" "$(t2pc)"
t1in=$(sed -n "s|^[0-9a-f]* \\([0-9a-f]*\\) lmod/cudatoolkit/$mm-t1\\.lua\$|\\1|p" "$OUT/.ctkgen-manifest")
check "two toolkits' inputs hash apart" differs "$t1in" "$(t2in)"

# ---- unchanged: nothing rendered, nothing written -------------------------------
before=$(stamps)
sleep 1
check "an unchanged re-run succeeds" gen -c "$T/site.json"
check "and renders no toolkit" reused 3
check "and writes nothing (no mtime or inode changed, the lock and manifest included)" \
    same_text "$before" "$(stamps)"
check "the tree is what a full render writes" agrees "$T/site.json"
check "--check of the unchanged tree exits 0" "$CTKGEN" -q generate --check -c "$T/site.json" -o "$OUT"
check "--rerender renders every toolkit" gen --rerender -c "$T/site.json"
check "  (none reused)" none_reused
check "  and still writes nothing" same_text "$before" "$(stamps)"

# ---- one toolkit's facts change: that one is rendered ---------------------------
was=$(t2in)
ver_json 42 >"$T/tk/t2/version.json"
check "a re-run after t2's version.json changed" gen -c "$T/site.json"
check "renders t2 alone" reused 2
check "t2's modulefile says the new patch level" grep -q "$mm\\.42" "$OUT/lmod/cudatoolkit/$mm-t2.lua"
check "the tree is what a full render writes" agrees "$T/site.json"
check "t2's inputs hash changed" differs "$was" "$(t2in)"

# ---- one SDK's config entry changes ------------------------------------------------
site "$T/site2.json" "$T/tk/t1" "$T/tk/t4" "$T/tk/t3"
check "a re-run with t2's base moved" gen -c "$T/site2.json"
check "renders t2 alone" reused 2
check "t2's modulefile names the new base" grep -q "$T/tk/t4" "$OUT/lmod/cudatoolkit/$mm-t2.lua"
check "the tree is what a full render writes" agrees "$T/site2.json"
site "$T/site3.json" "$T/tk/t1" "$T/tk/t4" "$T/tk/t3" ', "env": { "CTK_SITE_NOTE": "x" }'
check "a re-run with an env entry added to t2" gen -c "$T/site3.json"
check "renders t2 alone" reused 2
check "t2's modulefile sets it" grep -q CTK_SITE_NOTE "$OUT/lmod/cudatoolkit/$mm-t2.lua"
check "the tree is what a full render writes" agrees "$T/site3.json"

# ---- the site's "full_version_aliases" ----------------------------------------------
# it decides only the .modulerc files, which are always rendered: no
# toolkit's own files depend on it, so every toolkit is reused.  Left out,
# a new tree gets no X.Y.Z name and a tree whose .modulerc files have them
# keeps them, with a warning (cmd_generate.c, full_names_of_tree)
rc_full() { grep -q "module_version(\"cudatoolkit/$mm-t2\", \"$mm\.4\")" "$OUT/lmod/cudatoolkit/.modulerc.lua" &&
    grep -q "^module-version \"cudatoolkit/$mm-t2\" \"$mm\.4\"\$" "$OUT/tcl/cudatoolkit/.modulerc"; }
rc_nofull() { lacks "\"$mm\.[0-9]*\")" "$OUT/lmod/cudatoolkit/.modulerc.lua" &&
    lacks "\"$mm\.[0-9]*\"\$" "$OUT/tcl/cudatoolkit/.modulerc"; }
undecided() { grep -q 'the site config does not say whether to: kept' "$T/gen.log"; }
rc_updated() {
    grep -q '^  updated *lmod/cudatoolkit/\.modulerc\.lua$' "$T/gen.log" &&
        grep -q '^  updated *tcl/cudatoolkit/\.modulerc$' "$T/gen.log"
}
check "left out, the new tree's .modulerc files name no full version" rc_nofull
sed 's/^{ /{ "full_version_aliases": true, /' "$T/site3.json" >"$T/site5.json"
check "a re-run with \"full_version_aliases\": true" gen -c "$T/site5.json"
check "  renders no toolkit" reused 3
check "  rewrites both .modulerc files" rc_updated
check "  which name t2's full version" rc_full
check "  the tree is what a full render writes" agrees "$T/site5.json"
check "  and no warning of an undecided key" lacks 'does not say whether' "$T/gen.log"
before=$(stamps)
check "the key left out again, over a tree that has the names" gen -c "$T/site3.json"
check "  keeps them" rc_full
check "  writes nothing" same_text "$before" "$(stamps)"
check "  warns that the config does not say, naming both values" \
    grep -q "ctkgen: warning: cudatoolkit: the .modulerc files in $OUT give toolkits their full X.Y.Z versions as names, .*\"full_version_aliases\": true in the site config keeps them, false leaves them out" "$T/gen.log"
check "  --rerender keeps them too" gen --rerender -c "$T/site3.json"
check "    (still nothing written)" same_text "$before" "$(stamps)"
sed 's/^{ /{ "full_version_aliases": false, /' "$T/site3.json" >"$T/site4.json"
check "a re-run with \"full_version_aliases\": false" gen -c "$T/site4.json"
check "  renders no toolkit" reused 3
check "  rewrites both .modulerc files" rc_updated
check "  which name no full version" rc_nofull
check "  the tree is what a full render writes" agrees "$T/site4.json"
before=$(stamps)
check "the key left out again, over a tree without the names" gen -c "$T/site3.json"
check "  adds none" rc_nofull
check "  writes nothing" same_text "$before" "$(stamps)"
check "  and does not warn" lacks 'does not say whether' "$T/gen.log"
check "  the tree is what a full render writes" agrees "$T/site3.json"
# a name of the X.Y.Z form the config gives itself is no sign of the
# full-version names: a second run must not add them
site "$T/site6.json" "$T/tk/t1" "$T/tk/t4" "$T/tk/t3" ', "env": { "CTK_SITE_NOTE": "x" }, "aliases": ["'"$mm"'.77"]'
check "an explicit alias $mm.77 of the X.Y.Z form, key left out" gen -c "$T/site6.json"
check "  is written" grep -q "module_version(\"cudatoolkit/$mm-t2\", \"$mm\.77\")" "$OUT/lmod/cudatoolkit/.modulerc.lua"
check "  a second run" gen -c "$T/site6.json"
check "  still names no full version" lacks "\"$mm\.4\")" "$OUT/lmod/cudatoolkit/.modulerc.lua"
check "  and does not warn" lacks 'does not say whether' "$T/gen.log"
check "  the tree is what a full render writes" agrees "$T/site6.json"
check "the explicit alias dropped again" gen -c "$T/site3.json"
check "  still names no full version" lacks "\"$mm\.4\")" "$OUT/lmod/cudatoolkit/.modulerc.lua"
check "  (the files say so)" grep -qx -- '-- full_version_aliases: false' "$OUT/lmod/cudatoolkit/.modulerc.lua"
check "  and does not warn" lacks 'does not say whether' "$T/gen.log"
# a tree an earlier ctkgen wrote: .modulerc files without the
# "full_version_aliases" line (templates of their own stand for that
# ctkgen), with the names: a full-version name is the sign
mkdir -p "$T/oldtpl"
for f in lmod-rc.lua tcl-rc.lua; do
    grep -v 'full_version_aliases: ' "$top_srcdir/templates/$f" >"$T/oldtpl/$f"
done
check "a tree from .modulerc templates without the line, names on" gen -c "$T/site5.json" -t "$T/oldtpl"
check "  (its files lack the line)" lacks 'full_version_aliases: ' "$OUT/lmod/cudatoolkit/.modulerc.lua"
check "  the key left out, built-in templates" gen -c "$T/site3.json"
check "    keeps the names" rc_full
check "    warns that the config does not say" undecided
check "    and records the line" grep -qx -- '-- full_version_aliases: true' "$OUT/lmod/cudatoolkit/.modulerc.lua"
check "a tree from those templates, names off" gen -c "$T/site4.json" -t "$T/oldtpl"
check "  the key left out, built-in templates" gen -c "$T/site3.json"
check "    adds none" rc_nofull
check "    and does not warn" lacks 'does not say whether' "$T/gen.log"
# a full-version line edited into a .modulerc by hand proves nothing: only
# what the manifest records as ctkgen's counts
check "a tree from those templates, names off, again" gen -c "$T/site4.json" -t "$T/oldtpl"
printf '%s\n' "module_version(\"cudatoolkit/$mm-t2\", \"$mm.4\")" >>"$OUT/lmod/cudatoolkit/.modulerc.lua"
"$CTKGEN" -v generate -o "$OUT" -c "$T/site3.json" >"$T/gen.log" 2>&1
check "  a full-version line added by hand is refused as an edit (exit 3)" [ $? -eq 3 ]
check "  and not taken as the tree's names" lacks 'does not say whether' "$T/gen.log"
check "  --force" gen --force -c "$T/site3.json"
check "    writes no name" rc_nofull
check "    the tree is what a full render writes" agrees "$T/site3.json"

# ---- files on disk that are not as recorded ----------------------------------------
rm "$OUT/tcl/cudatoolkit/$mm-t3"
check "a re-run after t3's Tcl module was removed" gen -c "$T/site3.json"
check "says the file is not as recorded" grep -q 'not on disk as the manifest records' "$T/gen.log"
check "recreates it" grep -q '^  created *tcl/cudatoolkit/'"$mm"'-t3$' "$T/gen.log"
check "the tree is what a full render writes" agrees "$T/site3.json"
printf '%s\n' '-- a hand edit' >>"$OUT/lmod/cudatoolkit/$mm-t1.lua"
"$CTKGEN" -q generate -c "$T/site3.json" -o "$OUT" 2>"$T/err.log"
check "a hand-edited file of a toolkit not rendered is still refused (exit 3)" [ $? -eq 3 ]
check "  naming the file" grep -q "$mm-t1.lua was edited by hand" "$T/err.log"
check "  and left as edited" grep -q 'a hand edit' "$OUT/lmod/cudatoolkit/$mm-t1.lua"
check "--force puts back what a full render writes" gen --force -c "$T/site3.json"
check "  (agrees)" agrees "$T/site3.json"

# ---- what ctkgen renders with ------------------------------------------------------
mkdir "$T/tpl"
cp "$top_srcdir/templates/pc.lua" "$T/tpl/pc.lua"
check "the built-in templates' text from a dir" gen -c "$T/site3.json" -t "$T/tpl"
check "  reuses every toolkit (the text is the input, not where it came from)" reused 3
printf '%s\n' '-- edited' >>"$T/tpl/pc.lua"
check "an edited template renders every toolkit" gen -c "$T/site3.json" -t "$T/tpl"
check "  (none reused)" none_reused
check "back to the built-in templates" gen -c "$T/site3.json"
check "  every toolkit rendered" none_reused
cp "$OUT/.ctkgen-manifest" "$T/good0"
cp "$CTKGEN" "$T/ctkgen-copy"
check "a copy of the same ctkgen build" \
    sh -c '"$1" -v generate -c "$2" -o "$3" >"$4" 2>&1' _ "$T/ctkgen-copy" "$T/site3.json" "$OUT" "$T/gen.log"
check "  reuses every toolkit (the build ID is the same)" reused 3
check "  and leaves the manifest as it was" same_bytes "$T/good0" "$OUT/.ctkgen-manifest"
if command -v objcopy >/dev/null 2>&1 && objcopy --remove-section .note.gnu.build-id "$CTKGEN" "$T/ctkgen-other"; then
    check "a ctkgen of another build (no build ID: its file is its identity)" \
        sh -c '"$1" -v generate -c "$2" -o "$3" >"$4" 2>&1' _ "$T/ctkgen-other" "$T/site3.json" "$OUT" "$T/gen.log"
    check "  renders every toolkit" none_reused
    check "  and writes what a full render by it writes" agrees "$T/site3.json" "$T/ctkgen-other"
    check "  the same files as the other build's" \
        same_text "$(cut -d' ' -f1,3 "$REF/.ctkgen-manifest")" "$(cut -d' ' -f1,3 "$T/good0")"
    check "  under inputs hashes of its own" \
        differs "$(cut -d' ' -f2 "$REF/.ctkgen-manifest")" "$(cut -d' ' -f2 "$T/good0")"
    check "  which it reuses the next time" \
        sh -c '"$1" -v generate -c "$2" -o "$3" >"$4" 2>&1' _ "$T/ctkgen-other" "$T/site3.json" "$OUT" "$T/gen.log"
    check "  (all reused)" reused 3
else
    echo "# SKIP: another build of ctkgen: no objcopy (binutils) to make one"
fi

# ---- the manifest ------------------------------------------------------------------
sed -e '1s/v2/v1/' -e 's/^\([0-9a-f]\{16\}\) [0-9a-f-]\{16\} /\1 /' "$OUT/.ctkgen-manifest" >"$T/m1"
cp "$T/m1" "$OUT/.ctkgen-manifest"
check "a version 1 manifest is read" gen -c "$T/site3.json"
check "  every toolkit rendered (it records no inputs)" none_reused
check "  nothing counted as edited by hand, nothing rewritten but the manifest" \
    lacks -E '^  (created|updated|removed) ' "$T/gen.log"
check "  and the manifest is version 2 again" grep -qx '# ctkgen manifest v2' "$OUT/.ctkgen-manifest"
printf '# ctkgen manifest v2\n0123456789abcdef 0123456789abcdeZ lmod/x.lua\n' >"$T/bad"
cp "$OUT/.ctkgen-manifest" "$T/good"
cp "$T/bad" "$OUT/.ctkgen-manifest"
"$CTKGEN" -q generate -c "$T/site3.json" -o "$OUT" 2>"$T/err.log"
check "a corrupt inputs column is an error (exit 4)" [ $? -eq 4 ]
check "  at its line" grep -q '\.ctkgen-manifest:2:.*<16 hex digits or 16 '"'"'-'"'"'>' "$T/err.log"
cp "$T/good" "$OUT/.ctkgen-manifest"
if [ "$(id -u)" -eq 0 ]; then
    chown 65534 "$OUT/.ctkgen-manifest"
    check "a manifest another user owns is not relied on" gen -c "$T/site3.json"
    check "  (none reused)" none_reused
    chown 0 "$OUT/.ctkgen-manifest"
else
    echo "# SKIP: a manifest another user owns needs root to chown"
fi
finish
