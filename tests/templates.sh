#!/bin/sh
# templates.sh - the templates as generate uses them, through the real binary:
#  a. the built-in templates need no templates/ dir anywhere: a run from a
#     cwd without one, with the source tree's templates/ hidden (a private
#     mount namespace), writes the same bytes as a normal run;
#  b. a --template-dir holding only lmod.lua changes only the Lua modulefiles;
#  c. a template that writes something broken (Lua that does not compile,
#     Tcl that is incomplete or lacks #%Module, a .pc without Version, ...)
#     exits 3 naming the template and the output, and leaves an existing
#     output tree byte- and mtime-identical; a template's own error is one
#     FILE:LINE: error: line;
#  d. an entry of the template dir that is no template (lmod.lau, README),
#     or a dir with no template at all, exits 3 naming it, with a
#     suggestion where one is near;
#  e. with no "default" in the config, Lmod and Environment Modules load
#     the same toolkit for `module load cudatoolkit`: the one ctkgen names.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/lib.sh"
need_cuda

FIX=${TMPDIR:-/tmp}/ctkgen-fixtures-$(id -u)
sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$FIX" >/dev/null || { echo "fixtures.sh failed"; exit 1; }
STD=$FIX/standalone/cuda-13.0

# two SDKs of one CUDA release: the real toolkit (its patch level unknown:
# CUDART_VERSION) and the runfile-style copy (version.json: 13.0.0).
# pkgconfig_dir is fixed, so the tree does not depend on where it is written.
# two_sdks FILE FIRST_BASE SECOND_BASE
two_sdks() {
    cat > "$1" <<JSON
{ "module_name": "cudatoolkit", "pkgconfig_dir": "/apps/pkgconfig",
  "sdks": [ { "version": "13.0", "base": "$2" },
            { "version": "13.0", "name": "13.0-hpc", "base": "$3" } ] }
JSON
}
cfg=$T/site.json
two_sdks "$cfg" "$CTK_TEST_CUDA" "$STD"

# every file's path, type, size, mode, mtime (ns) and checksum
snapshot() {
    (cd "$1" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
        find . -type f -exec cksum {} + | LC_ALL=C sort)
}
# same_tree A B: the same files with the same bytes (the lock file aside)
same_tree() { diff -r -x .ctkgen.lock "$1" "$2" >/dev/null; }

ref=$T/ref
check "a normal run writes the tree" "$CTKGEN" -q generate -c "$cfg" -o "$ref"

# ---- a. no templates/ anywhere ------------------------------------------------
mkdir -p "$T/nowhere" "$T/empty"
check "from a cwd without templates/: the same bytes" sh -c \
    "cd '$T/nowhere' && '$CTKGEN' -q generate -c '$cfg' -o '$T/a1' && [ ! -e templates ]"
check "  (same tree)" same_tree "$ref" "$T/a1"
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null 2>&1 &&
    unshare -m sh -c "mount --bind '$T/empty' '$top_srcdir/templates'" 2>/dev/null; then
    # the bind mount lives in a private namespace: nobody else sees it
    check "with \$top_srcdir/templates hidden by an empty dir: generate exits 0" \
        unshare -m sh -c "mount --bind '$T/empty' '$top_srcdir/templates' &&
            [ -z \"\$(ls -A '$top_srcdir/templates')\" ] &&
            cd '$T/nowhere' && '$CTKGEN' -q generate -c '$cfg' -o '$T/a2'"
    check "  and writes the same bytes as a normal run" same_tree "$ref" "$T/a2"
    check "  (the source tree's templates/ is untouched)" [ -f "$top_srcdir/templates/lmod.lua" ]
else
    echo "SKIP: a. hiding \$top_srcdir/templates needs root and unshare -m (mount namespaces): not run"
fi

# ---- b. a partial template dir --------------------------------------------------
mkdir -p "$T/tb"
{ cat "$top_srcdir/templates/lmod.lua"; echo 'emitln("-- site template")'; } > "$T/tb/lmod.lua"
check "a template dir with only lmod.lua: generate exits 0" \
    "$CTKGEN" -q generate -c "$cfg" -o "$T/b" -t "$T/tb"
changed=$(diff -rq -x .ctkgen.lock -x .ctkgen-manifest "$ref" "$T/b" | sed "s|^Files $ref/||; s| and .*||" | LC_ALL=C sort | tr '\n' ' ')
check "  changes the Lua modulefiles and nothing else" \
    [ "$changed" = "lmod/cudatoolkit/13.0-hpc.lua lmod/cudatoolkit/13.0.lua " ]
check "  with the site's line in them" grep -qx -- '-- site template' "$T/b/lmod/cudatoolkit/13.0.lua"

# ---- c. broken templates leave the tree alone -----------------------------------
keep=$T/keep
cp -a "$ref" "$keep"
before=$(snapshot "$keep")
n=0
# broken NAME OUTPUT WHY TEMPLATE-TEXT: exit 3, one message naming the
# template and the output, the tree as it was
broken() {
    n=$((n + 1))
    tdir=$T/tc$n
    mkdir -p "$tdir"
    printf '%s\n' "$4" > "$tdir/$1"
    "$CTKGEN" -q generate -c "$cfg" -o "$keep" -t "$tdir" > "$T/out" 2> "$T/err"
    rc=$?
    msg=$(cat "$T/err")
    if [ "$rc" -eq 3 ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
        printf '%s\n' "$msg" | grep -qF "$tdir/$1: error: wrote $2, which" &&
        printf '%s\n' "$msg" | grep -qF "$3"; then
        pass "$1 that writes $3: exit 3, names $1 and $2"
    else
        fail "$1 that writes $3: exit $rc: $msg"
    fi
    if same_text "$(snapshot "$keep")" "$before"; then
        pass "  the tree is byte- and mtime-identical"
    else
        fail "  the tree changed"
    fi
}
broken lmod.lua lmod/cudatoolkit/13.0.lua "Lua cannot load: line 2: ')' expected near" \
    'emitln("-- -*- lua -*-") emitln("setenv(\"CUDA_HOME\" \"/x\")")'
broken lmod-rc.lua lmod/cudatoolkit/.modulerc.lua "Lua cannot load" \
    'emitln("module_version(\"cudatoolkit/13.0\", \"default\"")'
broken tcl.lua tcl/cudatoolkit/13.0 "not a complete Tcl script: line 2: missing close-brace" \
    'emitln("#%Module1.0") emitln("proc ModulesHelp {} {") emitln("    puts stderr {help}")'
broken tcl.lua tcl/cudatoolkit/13.0 "not a complete Tcl script: line 2: missing close-quote" \
    'emitln("#%Module1.0") emitln("setenv CUDA_HOME \"/x")'
broken tcl.lua tcl/cudatoolkit/13.0 "Tcl cannot parse: line 2: extra characters after close-brace" \
    'emitln("#%Module1.0") emitln("setenv CUDA_HOME {/x}y")'
broken tcl.lua tcl/cudatoolkit/13.0 'does not start with "#%Module"' \
    'emitln("## a modulefile") emitln("setenv CUDA_HOME /x")'
broken tcl-rc.lua tcl/cudatoolkit/.modulerc "missing close-bracket" \
    'emitln("#%Module1.0") emitln("module-version [cudatoolkit/13.0 default")'
broken tcl-rc.lua tcl/cudatoolkit/.modulerc 'does not start with "#%Module"' \
    'emitln("module-version cudatoolkit/13.0 default")'
broken pc.lua pkgconfig/ctk-13.0.pc "no Version field" \
    'emitln("Name: ctk") emitln("Description: CUDA")'
broken pc.lua pkgconfig/ctk-13.0.pc 'line 4: ${libdir} names no variable defined above it' \
    'emitln("Name: ctk") emitln("Description: CUDA") emitln("Version: 13.0") emitln("Libs: -L${libdir}")'
broken pc-lib.lua pkgconfig/ctk-cudart-13.0.pc "line 4: neither a variable" \
    'emitln("Name: x") emitln("Description: y") emitln("Version: 1") emitln("-lcublas")'

# a template's own error: one line, the position once, no traceback
mkdir -p "$T/tr"
printf 'emit("x")\nlocal y = nil .. 1\n' > "$T/tr/tcl.lua"
"$CTKGEN" -q generate -c "$cfg" -o "$keep" -t "$T/tr" > "$T/out" 2> "$T/err"
rc=$?
if [ "$rc" -eq 3 ] && [ "$(cat "$T/err")" = "$T/tr/tcl.lua:2: error: attempt to concatenate a nil value" ]; then
    pass "a template that fails: exit 3 with one 'FILE:LINE: error: message' line"
else
    fail "a template that fails: exit $rc: $(cat "$T/err")"
fi
check "  the tree is byte- and mtime-identical" same_text "$(snapshot "$keep")" "$before"

# ---- d. the template dir holds templates only ------------------------------------
# refused DESC DIR WANT-STDERR
refused() {
    "$CTKGEN" -q generate -c "$cfg" -o "$keep" -t "$2" > "$T/out" 2> "$T/err"
    rc=$?
    if [ "$rc" -eq 3 ] && [ "$(cat "$T/err")" = "$3" ]; then
        pass "$1: exit 3: $3"
    else
        fail "$1: exit $rc: $(cat "$T/err")"
    fi
    check "  the tree is byte- and mtime-identical" same_text "$(snapshot "$keep")" "$before"
}
mkdir -p "$T/td1" "$T/td2" "$T/td3/.git"
cp "$top_srcdir/templates/lmod.lua" "$T/td1/lmod.lau"
refused "a misspelt template" "$T/td1" \
    "$T/td1/lmod.lau: error: not a template ctkgen knows; did you mean lmod.lua?"
cp "$top_srcdir/templates/lmod.lua" "$T/td2/lmod.lua"
echo "our templates" > "$T/td2/README"
refused "a file that is no template" "$T/td2" \
    "$T/td2/README: error: not a template ctkgen knows (it reads lmod.lua, lmod-rc.lua, tcl.lua, tcl-rc.lua, pc.lua and pc-lib.lua; names starting with '.' are left alone): move it out of the template dir"
refused "a dir with no template" "$T/td3" \
    "$T/td3: error: holds none of the templates ctkgen reads (lmod.lua, lmod-rc.lua, tcl.lua, tcl-rc.lua, pc.lua and pc-lib.lua), so it would change nothing"
cp "$top_srcdir/templates/lmod.lua" "$T/td3/lmod.lua"
echo x > "$T/td3/.lmod.lua.swp"
check "names starting with '.' are left alone" "$CTKGEN" -q generate -c "$cfg" -o "$T/d" -t "$T/td3"

# ---- e. one default for both module systems -----------------------------------------
if [ ! -f "$LMOD_EXEC" ] || [ ! -f "$EM_CMD" ]; then
    echo "SKIP: e. needs Lmod ($LMOD_EXEC) and Environment Modules ($EM_CMD): not run"
else
    # Left to themselves, Lmod loads 13.0 and Environment Modules 13.0-hpc.
    # The real toolkit's patch level is unknown, so the copy (13.0.0) is
    # the higher: first listed, then second.
    for order in real-first copy-first; do
        if [ "$order" = real-first ]; then
            two_sdks "$T/e.json" "$CTK_TEST_CUDA" "$STD"; want=13.0-hpc; root=$STD
        else
            two_sdks "$T/e.json" "$STD" "$CTK_TEST_CUDA"; want=13.0; root=$STD
        fi
        rm -rf "$T/e"
        "$CTKGEN" -q generate -c "$T/e.json" -o "$T/e" || fail "$order: generate"
        check "$order: .modulerc.lua names $want the default" \
            grep -qxF "module_version(\"cudatoolkit/$want\", \"default\")" "$T/e/lmod/cudatoolkit/.modulerc.lua"
        check "$order: .modulerc names $want the default" \
            grep -qxF "module-version \"cudatoolkit/$want\" default" "$T/e/tcl/cudatoolkit/.modulerc"
        lm=$(load_and_run lmod "$T/e/lmod" cudatoolkit 'echo "$LOADEDMODULES $CUDA_HOME"')
        em=$(load_and_run tcl "$T/e/tcl" cudatoolkit 'echo "$LOADEDMODULES $CUDA_HOME"')
        check "$order: Lmod loads cudatoolkit/$want ($lm)" [ "$lm" = "cudatoolkit/$want $root" ]
        check "$order: Environment Modules loads the same ($em)" same_text "$em" "$lm"
    done
fi

finish
