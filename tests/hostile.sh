#!/bin/sh
# hostile.sh - hostile strings in a site config come back exactly through
# real Lmod, real Environment Modules and the pkgconf CLI, and none runs.
# SPDX-License-Identifier: MIT
#
# The corpus is tests/data/hostile/strings.txt (see the README there) plus
# strings made here: tabs, newlines, control characters, values of 5000 and
# 40000 bytes and a path of about 2500 bytes.
#  1. values: every string is a site-wide `env` value, an SDK `env` value and
#     a line of both `help` texts of one config; after `module load` in a
#     clean shell (LANG=C.UTF-8 and LANG=C) each variable holds exactly the
#     string (cmp), and `module help` shows both help texts exactly;
#  2. paths: every line that can name a directory names a toolkit tree
#     (links into CTK_TEST_CUDA), separate math_libs, cupti and nvvm trees
#     and a ccbin; after `module load`, CUDA_HOME, PATH, CPATH,
#     LD_LIBRARY_PATH, LIBRARY_PATH and CUDAHOSTCXX are exactly what the paths
#     give, `module help` and `module whatis` name the path, and pkgconf
#     gives the paths back from --variable, --cflags and --libs, split the
#     way pkgconf escapes (never through eval: pkgconf leaves $(...) bare);
#  3. what a format cannot hold is refused by generate, naming the SDK and
#     the field, and nothing is written: control characters, ':' and "${"
#     in toolkit paths, a blank ending one, a newline in an env value (both
#     module systems hand it to the shell bare), '~' where the shell would
#     expand it in an Environment Modules value, a run path longer than
#     pkgconf keeps of one argument;
#  4. nothing runs: after every generate, load, help, show/display, whatis
#     and pkgconf call, no marker file exists.
# Strings travel in files and are compared with cmp; none is given to eval.
. "$(dirname "$0")/lib.sh"
[ -n "${CTK_TEST_MODULECMD:-}" ] && EM_CMD=$CTK_TEST_MODULECMD
need_cuda
need_lmod
need_em
command -v tclsh >/dev/null 2>&1 || skip "tclsh not installed (Environment Modules needs it)"
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"
command -v pkg-config >/dev/null 2>&1 || skip "pkg-config (pkgconf) not installed"

CORPUS=$top_srcdir/tests/data/hostile/strings.txt
CUDA=$CTK_TEST_CUDA
MARK=$T/PWNED
CWD=$T/cwd  # every client runs here: a relative `touch PWNED` would land here
S=$T/s      # S/<i>: string i, byte for byte
FX=$T/f     # the trees at hostile paths, whose names hold "PWNED" too
mkdir -p "$CWD" "$S" "$FX"
start=$(date +%s)

in_cwd() { (cd "$CWD" && "$@"); }

lmod() { # MODULEPATH ARGS...
    mp=$1; shift
    in_cwd $CLEAN_ENV MODULEPATH="$mp" "$LMOD_EXEC" bash "$@"
}
em() { # MODULEPATH ARGS...
    mp=$1; shift
    in_cwd $CLEAN_ENV MODULEPATH="$mp" tclsh "$EM_CMD" bash "$@"
}
pc() { # PKG_CONFIG_PATH ARGS...
    pcp=$1; shift
    in_cwd env -i PATH=/usr/bin:/bin LANG=C.UTF-8 PKG_CONFIG_PATH="$pcp" pkg-config "$@"
}

# dump.sh DIR NAME...: each variable's value, byte for byte, to DIR/NAME;
# no file when it is unset.  Only the names pass through eval.
cat >"$T/dump.sh" <<'EOF'
d=$1; shift
for v; do
    eval "if [ -n \"\${$v+x}\" ]; then printf '%s' \"\${$v}\" >\"\$d/$v\"; fi"
done
EOF

# the whole of a file as a shell string in $_s (command substitution alone
# would drop trailing newlines)
slurp() { _s=$(cat "$1"; echo x); _s=${_s%x}; }

# contains FILE NEEDLE-FILE: FILE holds NEEDLE-FILE's bytes somewhere (an
# empty needle, never written, is found anywhere: it fails)
contains() {
    [ -s "$2" ] || { echo "# $2: missing or empty"; return 1; }
    slurp "$1"; hay=$_s
    slurp "$2"
    case $hay in *"$_s"*) return 0 ;; esac
    return 1
}

# same EXPECTED-FILE ACTUAL-FILE WHAT: cmp, showing both on a difference
same() {
    if [ -f "$2" ] && cmp -s "$1" "$2"; then
        return 0
    fi
    echo "# $3: expected $(od -An -c "$1" | tr -s ' \n' ' ' | cut -c1-400)"
    if [ -f "$2" ]; then
        echo "# $3: got      $(od -An -c "$2" | tr -s ' \n' ' ' | cut -c1-400)"
    else
        echo "# $3: not set"
    fi
    return 1
}

# split_pc < pkgconf output: one argument per line, split and unescaped the
# way pkgconf escapes (a backslash takes the next byte, an unescaped blank
# ends an argument)
split_pc() {
    LC_ALL=C awk 'BEGIN { RS = "\001" }
    {
        n = length($0); arg = ""; inarg = 0
        for (i = 1; i <= n; i++) {
            c = substr($0, i, 1)
            if (c == " " || c == "\n" || c == "\t") {
                if (inarg) print arg
                arg = ""; inarg = 0; continue
            }
            if (c == "\\" && i < n) { i++; c = substr($0, i, 1) }
            arg = arg c; inarg = 1
        }
        if (inarg) print arg
    }'
}

marker_check() { # WHEN
    if finds_none "$T" -path "$FX" -prune -o -name PWNED -print && empty_dir "$CWD" && [ ! -e "$MARK" ]; then
        pass "nothing ran: no marker after $1"
    else
        fail "something ran: marker after $1: $(ls -A "$CWD")"
    fi
}

# where the needed files are in the source toolkit
first_with() { # PATTERN DIR...: the first DIR holding a match of PATTERN
    pat=$1; shift
    for d; do
        for f in "$d"/$pat; do
            [ -e "$f" ] && { echo "$d"; return 0; }
        done
    done
    return 1
}
src_inc=$(first_with cuda_runtime_api.h "$CUDA/include" "$CUDA"/targets/*/include) ||
    skip "$CUDA: no cuda_runtime_api.h"
src_lib=$(first_with 'libcudart.so*' "$CUDA/lib64" "$CUDA/lib" "$CUDA"/targets/*/lib) ||
    skip "$CUDA: no libcudart.so"
math_inc=$(first_with cublas_v2.h "$src_inc") && math_lib=$(first_with 'libcublas.so*' "$src_lib") ||
    math_inc=
cupti_inc=$(first_with cupti.h "$CUDA/extras/CUPTI/include" "$src_inc") &&
    cupti_lib=$(first_with 'libcupti.so*' "$CUDA/extras/CUPTI/lib64" "$src_lib") || cupti_inc=

# ---- the strings -----------------------------------------------------------------
n=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    while :; do
        case $line in
            *@MARK@*) line=${line%%@MARK@*}$MARK${line#*@MARK@} ;;
            *) break ;;
        esac
    done
    printf '%s' "$line" >"$S/$n"
done <"$CORPUS"
ncorpus=$n
[ "$ncorpus" -ge 100 ] || { echo "corpus too small: $ncorpus strings"; exit 1; }

add() { n=$((n + 1)); printf "$@" >"$S/$n"; }
# values a line cannot hold
add 'a\tb'
add '\tleading tab'
add 'trailing tab\t'
add '\t'
unit=$(printf '$(touch %s)`touch %s`[exec touch %s]]]]=]"\\%s%%s#;|&\047 \303\251\344\270\255\360\237\232\200 ' \
    "$MARK" "$MARK" "$MARK" '\')
long=$unit
while [ ${#long} -lt 5000 ]; do long=$long$unit; done
add '%s' "$long"
while [ ${#long} -lt 40000 ]; do long=$long$long; done
add '%s' "$long"
ngen=$n
# help text only: the environment cannot carry a newline (part 3)
add 'line one\nline two'
add 'ends in a newline\n'
add '\n$(touch %s)\n`touch %s`\n[exec touch %s]\n' "$MARK" "$MARK" "$MARK"
add 'x\\\n]]\n]=]\n--[[\n'
nhelp=$n

# Which strings are env values: all but those Environment Modules would
# hand to the shell with a '~' to expand (refused, part 3).
values=
tilde=
i=1
while [ $i -le $ngen ]; do
    slurp "$S/$i"
    case $_s in
        '~'* | *':~'*) tilde="$tilde $i" ;;
        *) values="$values $i" ;;
    esac
    i=$((i + 1))
done
nvalues=$(echo $values | wc -w)

# every string as JSON, for jq: strings.json[i-1] is string i
: >"$T/strings.json"
i=1
while [ $i -le $nhelp ]; do
    jq -Rs . <"$S/$i" >>"$T/strings.json" || { echo "jq cannot read string $i"; exit 1; }
    i=$((i + 1))
done
echo "# $ncorpus corpus lines, $((nhelp - ncorpus)) made here; $nvalues env values"

# ---- 1. values -------------------------------------------------------------------
V=$T/values
PCD=$FX/pcd/'$(touch PWNED) ${X} `touch PWNED` [exec touch PWNED] "]] %s \ #'
# no blank: the module hands ccbin to nvcc as one word of NVCC_PREPEND_FLAGS
CCV=$FX/ccv/'$HOME:a:b$(id)`id`[pwd]]=]"'"'"
mkdir -p "$(dirname "$CCV")"
ln -s /bin/true "$CCV"
jq -n --slurpfile h "$T/strings.json" --argjson vi "[$(echo $values | tr ' ' ,)]" \
    --arg base "$CUDA" --arg pcd "$PCD" --arg cc "$CCV" '
  def envs($p): [$vi[] as $i | {key: "\($p)\($i)", value: $h[$i - 1]}] | from_entries;
  { module_name: "hostile", pkgconfig_dir: $pcd, help: ($h | join("\n")), env: envs("HS_"),
    sdks: [ { version: "13.0", name: "values", base: $base, host_compiler: { ccbin: $cc },
              help: ($h | reverse | join("\n")), env: envs("HK_") } ] }' >"$T/values.json" ||
    { echo "jq failed"; exit 1; }
jq -j .help "$T/values.json" >"$T/help-site"
jq -j '.sdks[0].help' "$T/values.json" >"$T/help-sdk"

rc=0
in_cwd "$CTKGEN" -q generate -c "$T/values.json" -o "$V" >"$T/values-gen.out" 2>&1 || rc=$?
check "values: generate accepts $nvalues hostile env values and $nhelp help lines (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$T/values-gen.out"

names="CUDAHOSTCXX PKG_CONFIG_PATH"
for i in $values; do names="$names HS_$i HK_$i"; done
printf '%s' "$PCD" >"$T/exp-pcd"
printf '%s' "$CCV" >"$T/exp-ccv"

# in a UTF-8 locale and in the C locale, where Tcl reads bytes as Latin-1
for run in lmod tcl lmod/C tcl/C; do
    sys=${run%/*}
    loc=C.UTF-8
    [ "$sys" = "$run" ] || loc=C
    D=$T/got-values-$sys-$loc
    mkdir -p "$D"
    (
        CLEAN_ENV="env -i HOME=$T/home PATH=/usr/bin:/bin LANG=$loc TMPDIR=${TMPDIR:-/tmp}"
        in_cwd load_and_run $sys "$V/$sys" hostile/values "sh '$T/dump.sh' '$D' $names"
    ) >"$D.out" 2>&1 || { echo "# $sys: load failed:"; head -c 2000 "$D.out"; }
    bad=
    for i in $values; do
        for p in HS HK; do
            same "$S/$i" "$D/${p}_$i" "$sys ${p}_$i" || bad="$bad ${p}_$i"
        done
    done
    if [ -z "$bad" ]; then
        pass "$sys, LANG=$loc: $((2 * nvalues)) env values read back exactly"
    else
        fail "$sys, LANG=$loc: env values differ:$bad"
    fi
    check "$sys, LANG=$loc: a hostile pkgconfig_dir is PKG_CONFIG_PATH exactly" \
        same "$T/exp-pcd" "$D/PKG_CONFIG_PATH" "$sys PKG_CONFIG_PATH"
    check "$sys, LANG=$loc: a hostile ccbin is CUDAHOSTCXX exactly" \
        same "$T/exp-ccv" "$D/CUDAHOSTCXX" "$sys CUDAHOSTCXX"
done

lmod "$V/lmod" help hostile/values >/dev/null 2>"$T/help-lmod"
em "$V/tcl" help hostile/values >/dev/null 2>"$T/help-tcl"
for sys in lmod tcl; do
    check "$sys: module help shows the site help text exactly" contains "$T/help-$sys" "$T/help-site"
    check "$sys: module help shows the SDK help text exactly" contains "$T/help-$sys" "$T/help-sdk"
    bad=
    i=1
    while [ $i -le $ncorpus ]; do
        grep -Fxq -f "$S/$i" "$T/help-$sys" || bad="$bad $i"
        i=$((i + 1))
    done
    check "$sys: each corpus line is a line of module help${bad:+ (missing:$bad)}" [ -z "$bad" ]
done
lmod "$V/lmod" show hostile/values >/dev/null 2>&1
em "$V/tcl" display hostile/values >/dev/null 2>&1
lmod "$V/lmod" whatis hostile/values >/dev/null 2>&1
em "$V/tcl" whatis hostile/values >/dev/null 2>&1
marker_check "values: generate, load, help, show, whatis"

# ---- 2. paths --------------------------------------------------------------------
# links DIR FILE...: hard links (symlinks as they are), or symlinks to the
# files when DIR is on another filesystem
links() {
    d=$1; shift
    mkdir -p "$d" && { cp -Pl "$@" "$d/" 2>/dev/null || cp -Ps "$@" "$d/"; }
}

# fixture I BASE MATH CUPTI NVVM CCBIN: the trees for SDK I (MATH, CUPTI empty
# when the source toolkit lacks them; NVVM holds libdevice/, as a real one does)
fixture() {
    links "$2/bin" "$CUDA/bin/nvcc" &&
        links "$2/include" "$src_inc/cuda_runtime.h" "$src_inc/cuda_runtime_api.h" &&
        links "$2/lib" "$src_lib"/libcudart.so* &&
        { [ -z "$3" ] || { links "$3/include" "$math_inc/cublas_v2.h" &&
                           links "$3/lib" "$math_lib"/libcublas.so*; }; } &&
        { [ -z "$4" ] || { links "$4/include" "$cupti_inc/cupti.h" &&
                           links "$4/lib" "$cupti_lib"/libcupti.so*; }; } &&
        mkdir -p "$5/bin" "$5/libdevice" "$(dirname "$6")" && ln -sf /bin/true "$6"
}

# a path of about 2500 bytes: 12 levels, each a hostile name of 200 bytes
unit=$(printf '$(touch PWNED)`touch PWNED`[exec touch PWNED] ]] ]=] "\047\\ %%s # ; | & \303\251\344\270\255\360\237\232\200 ')
comp=$unit
while [ ${#comp} -lt 200 ]; do comp=$comp$unit; done
comp=$(printf '%s' "$comp" | head -c 200)
longpath=
k=0
while [ $k -lt 12 ]; do longpath=$longpath/$comp; k=$((k + 1)); done
n=$((nhelp + 1))
printf '%s' "$longpath" >"$S/$n"

# sdks.tsv: I BASE MATH CUPTI NVVM CCBIN, "-" for a tree left out (a tab is
# a blank to `read`: two in a row would join); the string I names each tree
: >"$T/sdks.tsv"
pathsdks=
refused_paths=
trailing=
i=1
while [ $i -le $n ]; do
    slurp "$S/$i"
    s=$_s
    i0=$i
    i=$((i + 1))
    [ $i0 -le $ncorpus ] || [ $i0 -eq $n ] || continue
    case $s in
        *:* | *'${'*) refused_paths="$refused_paths $i0"; continue ;;
    esac
    # a path is one string: no level may be empty, "." or ".."
    rel=$s
    while :; do case $rel in /*) rel=${rel#/} ;; *) break ;; esac; done
    while :; do case $rel in */) rel=${rel%/} ;; *) break ;; esac; done
    case /$rel/ in
        *//* | */./* | */../*) echo "# string $i0 is no path: skipped"; continue ;;
    esac
    # a blank cannot end a path in a .pc file: inside one it is fine
    tail=
    case $rel in *' ') tail=/x; trailing="$trailing $i0" ;; esac
    b=$FX/p/$i0/$rel$tail
    m=; c=
    # the long path alone: three of them make a run path pkgconf cuts (part 3)
    [ -z "$math_inc" ] || [ $i0 -eq $n ] || m=$FX/m/$i0/$rel
    [ -z "$cupti_inc" ] || [ $i0 -eq $n ] || c=$FX/c/$i0/$rel
    v=$FX/v/$i0/$rel
    # no blank in a ccbin (one word of NVCC_PREPEND_FLAGS; refused below)
    cc=$FX/cc/$i0/$(printf '%s' "$rel$tail" | tr -d ' \t')/g++
    fixture $i0 "$b" "$m" "$c" "$v" "$cc" || { fail "string $i0: cannot build its fixture"; continue; }
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' $i0 "$b" "${m:--}" "${c:--}" "$v" "$cc" >>"$T/sdks.tsv"
    pathsdks="$pathsdks $i0"
done
npaths=$(echo $pathsdks | wc -w)

P=$T/paths
jq -Rn '[inputs | split("\t") |
         {version: "13.0", name: "p\(.[0])", base: .[1], nvvm: .[4], host_compiler: {ccbin: .[5]}}
         + (if .[2] != "-" then {math_libs: .[2]} else {} end)
         + (if .[3] != "-" then {cupti: .[3]} else {} end)]
        | {module_name: "hostile", sdks: .}' <"$T/sdks.tsv" >"$T/paths.json" || { echo "jq failed"; exit 1; }
rc=0
in_cwd "$CTKGEN" -q generate -c "$T/paths.json" -o "$P" >"$T/paths-gen.out" 2>&1 || rc=$?
check "paths: generate accepts $npaths toolkits at hostile paths (exit $rc)" [ $rc -eq 0 ]
[ $rc -eq 0 ] || head -c 3000 "$T/paths-gen.out"

pcp=$P/pkgconfig
vars="CUDA_HOME PATH CPATH LD_LIBRARY_PATH LIBRARY_PATH CUDAHOSTCXX"
bad_lmod= bad_tcl= bad_pc= bad_help=
mods=
tab=$(printf '\t')
while IFS=$tab read -r i b m c v cc; do
    [ "$m" != - ] || m=
    [ "$c" != - ] || c=
    mods="$mods hostile/p$i"
    E=$T/exp-p$i
    mkdir -p "$E"
    printf '%s' "$b" >"$E/CUDA_HOME"
    printf '%s' "$b/bin:/usr/bin:/bin" >"$E/PATH"
    printf '%s' "$b/include${m:+:$m/include}${c:+:$c/include}" >"$E/CPATH"
    printf '%s' "$b/lib${m:+:$m/lib}${c:+:$c/lib}" >"$E/LD_LIBRARY_PATH"
    cp "$E/LD_LIBRARY_PATH" "$E/LIBRARY_PATH"
    printf '%s' "$cc" >"$E/CUDAHOSTCXX"
    for sys in lmod tcl; do
        D=$T/got-p$i-$sys
        mkdir -p "$D"
        in_cwd load_and_run $sys "$P/$sys" hostile/p$i "sh '$T/dump.sh' '$D' $vars" \
            >"$D.out" 2>&1 || { echo "# $sys: load of p$i failed:"; head -c 1000 "$D.out"; }
        for var in $vars; do
            if ! same "$E/$var" "$D/$var" "$sys p$i $var"; then
                eval "bad_$sys=\"\$bad_$sys p$i/$var\""
            fi
        done
    done

    # pkgconf: --variable values and --cflags --libs arguments, unescaped
    printf '%s\n' "$b" >"$E/pc-root"
    pc "$pcp" --variable=cudaroot ctk-p$i | split_pc >"$E/got-root"
    same "$E/pc-root" "$E/got-root" "pkgconf p$i cudaroot" || bad_pc="$bad_pc p$i/cudaroot"
    printf '%s\n' "$b/include" >"$E/pc-inc"
    pc "$pcp" --variable=includedir ctk-p$i | split_pc >"$E/got-inc"
    same "$E/pc-inc" "$E/got-inc" "pkgconf p$i includedir" || bad_pc="$bad_pc p$i/includedir"
    {
        printf '%s\n' "-I$b/include"
        [ -z "$m" ] || printf '%s\n' "-I$m/include"
        [ -z "$c" ] || printf '%s\n' "-I$c/include"
        printf '%s\n' "-L$b/lib"
        [ -z "$m" ] || printf '%s\n' "-L$m/lib"
        [ -z "$c" ] || printf '%s\n' "-L$c/lib"
        printf '%s\n' -lcudart -Xlinker "-rpath=$b/lib${m:+:$m/lib}${c:+:$c/lib}"
    } >"$E/pc-flags"
    pc "$pcp" --cflags --libs ctk-p$i | split_pc >"$E/got-flags"
    same "$E/pc-flags" "$E/got-flags" "pkgconf p$i --cflags --libs" || bad_pc="$bad_pc p$i/flags"
    if [ -n "$m" ]; then
        printf '%s\n' "$m/include" >"$E/pc-minc"
        pc "$pcp" --variable=math_includedir ctk-p$i | split_pc >"$E/got-minc"
        same "$E/pc-minc" "$E/got-minc" "pkgconf p$i math_includedir" || bad_pc="$bad_pc p$i/math_includedir"
        pc "$pcp" --libs ctk-cublas-p$i | split_pc >"$E/got-cublas"
        grep -Fxq -e "-L$m/lib" "$E/got-cublas" && grep -Fxq -e -lcublas "$E/got-cublas" ||
            { bad_pc="$bad_pc p$i/cublas"; echo "# pkgconf p$i ctk-cublas: $(cat "$E/got-cublas")"; }
    fi
done <"$T/sdks.tsv"
check "lmod: $npaths toolkits at hostile paths: CUDA_HOME, PATH, CPATH, LD_LIBRARY_PATH, LIBRARY_PATH, CUDAHOSTCXX exact${bad_lmod:+ (differ:$bad_lmod)}" [ "$npaths" -gt 0 -a -z "$bad_lmod" ]
check "tcl: $npaths toolkits at hostile paths: CUDA_HOME, PATH, CPATH, LD_LIBRARY_PATH, LIBRARY_PATH, CUDAHOSTCXX exact${bad_tcl:+ (differ:$bad_tcl)}" [ "$npaths" -gt 0 -a -z "$bad_tcl" ]
check "pkgconf: $npaths hostile paths come back from --variable, --cflags and --libs${bad_pc:+ (differ:$bad_pc)}" [ "$npaths" -gt 0 -a -z "$bad_pc" ]

# help names each toolkit's path on a line of its own
lmod "$P/lmod" help $mods >/dev/null 2>"$T/paths-help-lmod"
em "$P/tcl" help $mods >/dev/null 2>"$T/paths-help-tcl"
for sys in lmod tcl; do
    bad=
    while IFS=$tab read -r i b m c v cc; do
        grep -Fxq -e "NVIDIA CUDA Toolkit 13.0, installed at $b." "$T/paths-help-$sys" || bad="$bad p$i"
    done <"$T/sdks.tsv"
    check "$sys: module help names each hostile path exactly${bad:+ (missing:$bad)}" [ "$npaths" -gt 0 -a -z "$bad" ]
done
lmod "$P/lmod" show $mods >/dev/null 2>&1
em "$P/tcl" display $mods >/dev/null 2>&1
lmod "$P/lmod" whatis $mods >"$T/paths-whatis-lmod" 2>&1
em "$P/tcl" whatis $mods >"$T/paths-whatis-tcl" 2>&1
for sys in lmod tcl; do
    bad=
    while IFS=$tab read -r i b m c v cc; do
        # what the toolkit holds depends on the trees' libraries (render.c)
        grep -F -e " from $b" "$T/paths-whatis-$sys" | grep -q "Description: CUDA 13\.0 compiler (nvcc)" ||
            bad="$bad p$i"
    done <"$T/sdks.tsv"
    check "$sys: module whatis names each hostile path exactly${bad:+ (missing:$bad)}" [ "$npaths" -gt 0 -a -z "$bad" ]
done
marker_check "paths: generate, load, help, show, whatis, pkgconf"

# ---- 3. refusals -----------------------------------------------------------------
# refused NAME JSON-FILE NEEDLE...: generate fails with exit 3, stderr holds
# every NEEDLE, and the output directory was never made
nref=0
refused() {
    name=$1 cfg=$2; shift 2
    out=$T/refused-$name
    rc=0
    in_cwd "$CTKGEN" -q generate -c "$cfg" -o "$out" >"$out.stdout" 2>"$out.stderr" || rc=$?
    missing=
    for needle; do
        grep -Fq -e "$needle" "$out.stderr" || missing="$missing '$needle'"
    done
    nref=$((nref + 1))
    if [ $rc -eq 3 ] && [ -z "$missing" ] && [ ! -e "$out" ]; then
        return 0
    fi
    echo "# refused $name: exit $rc, missing from stderr:$missing; output dir $([ -e "$out" ] && echo made || echo absent)"
    sed 's/^/#   /' "$out.stderr" | head -5
    return 1
}

# config KEY-PATH JSON-STRING-FILE: a config of one toolkit at $CUDA with the
# string set at KEY-PATH (a jq path, as JSON)
config() {
    jq -n --arg base "$CUDA" --slurpfile v "$2" --argjson p "$1" \
        '{sdks: [{version: "13.0", name: "r", base: $base}]} | setpath($p; $v[0])'
}

# a path the config cannot hold, made on disk so that only the refusal
# stops generate
bad_path() { # NAME FIELD NEEDLE PATH
    jq -Rs . <"$T/bp" >"$T/bp.json"
    fixture 0 "$4" "" "" "$FX/v0" "$FX/cc0/g++" 2>/dev/null
    config "[\"sdks\",0,\"$2\"]" "$T/bp.json" >"$T/bad-$1.json"
    check "refused: $1 as $2" refused "$1" "$T/bad-$1.json" "/sdks/0/$2" "$3"
}

for i in $refused_paths; do
    slurp "$S/$i"
    printf '%s' "$FX/r/$i/$_s" >"$T/bp"
    case $_s in *'${'*) needle='${' ;; *) needle="':'" ;; esac
    bad_path "string-$i" base "$needle" "$FX/r/$i/$_s"
done
for i in $trailing; do
    slurp "$S/$i"
    printf '%s' "$FX/r/$i/$_s" >"$T/bp"
    jq -Rs . <"$T/bp" >"$T/bp.json"
    fixture 0 "$FX/r/$i/$_s" "" "" "$FX/v0" "$FX/cc0/g++"
    config '["sdks",0,"base"]' "$T/bp.json" >"$T/trail-$i.json"
    check "refused: string $i (ends in a blank) as base" \
        refused "trail-$i" "$T/trail-$i.json" "SDK r" "base" "blank at the end"
done
for c in 'newline:\n:newline' 'tab:\t:0x09' 'soh:\001:0x01' 'esc:\033:0x1b' 'del:\177:0x7f' 'cr:\r:0x0d'; do
    name=${c%%:*} rest=${c#*:}
    byte=${rest%%:*} needle=${rest#*:}
    printf "$FX/r/ctl-$name/a${byte}b" >"$T/bp"
    slurp "$T/bp"
    bad_path "$name" base "$needle" "$_s"
done
printf '%s' "$FX/r/colon/math:libs" >"$T/bp"
bad_path colon-math math_libs "':'" "$FX/r/colon/math:libs"
printf '%s' "$FX/r/ref/cupti\${pcfiledir}" >"$T/bp"
bad_path ref-cupti cupti '${' "$FX/r/ref/cupti\${pcfiledir}"
printf "$FX/r/nl/nv\nvm" >"$T/bp"
slurp "$T/bp"
bad_path newline-nvvm nvvm newline "$_s"

# text: control characters other than newline and tab, anywhere
for c in 'env:"env","HS":\001:0x01' 'sdkenv:"sdks",0,"env","HK":\033:0x1b' 'help:"help":\177:0x7f' \
         'sdkhelp:"sdks",0,"help":\r:0x0d' 'pkgconfig_dir:"pkgconfig_dir":\n:newline'; do
    name=${c%%:*} rest=${c#*:}
    key=${rest%%:*} rest=${rest#*:}
    byte=${rest%%:*} needle=${rest#*:}
    printf "/abs/text with a ${byte} in it" | jq -Rs . >"$T/t.json"
    config "[$key]" "$T/t.json" >"$T/text-$name.json"
    ptr=/$(printf '%s' "$key" | tr -d '"' | tr , /)
    check "refused: a $needle in $name" refused "text-$name" "$T/text-$name.json" "$ptr" "$needle"
done
printf '%s' "/abs/pc:dir" | jq -Rs . >"$T/t.json"
config '["pkgconfig_dir"]' "$T/t.json" >"$T/pcd-colon.json"
check "refused: ':' in pkgconfig_dir" refused pcd-colon "$T/pcd-colon.json" /pkgconfig_dir "':'"
printf '%s' "$FX/cc/new
line" | jq -Rs . >"$T/t.json"
jq -n --arg base "$CUDA" --slurpfile v "$T/t.json" \
    '{sdks: [{version: "13.0", name: "r", base: $base, host_compiler: {ccbin: $v[0]}}]}' >"$T/cc-nl.json"
check "refused: a newline in ccbin" refused cc-nl "$T/cc-nl.json" /sdks/0/host_compiler/ccbin newline
mkdir -p "$FX/cc blank" && cp /bin/true "$FX/cc blank/g++"
jq -n --arg base "$CUDA" --arg cc "$FX/cc blank/g++" \
    '{sdks: [{version: "13.0", name: "r", base: $base, host_compiler: {ccbin: $cc}}]}' >"$T/cc-blank.json"
check "refused: a blank in ccbin (it would split in NVCC_PREPEND_FLAGS)" refused cc-blank "$T/cc-blank.json" "SDK r" host_compiler/ccbin blank

# values the shell would read back wrong through the module systems
for var in HS HK; do
    for what in 'inner:x\n$(touch %s)' 'trailing:x\n'; do
        printf "${what#*:}" "$MARK" | jq -Rs . >"$T/t.json"
        case $var in
            HS) key='"env","HS"' ptr=/env/HS ;;
            HK) key='"sdks",0,"env","HK"' ptr=/sdks/0/env/HK ;;
        esac
        config "[$key]" "$T/t.json" >"$T/nl.json"
        check "refused: a ${what%%:*} newline in env $var" \
            refused "nl-$var-${what%%:*}" "$T/nl.json" "$ptr" newline
    done
done
for i in $tilde; do
    jq -Rs . <"$S/$i" >"$T/t.json"
    config '["env","HS"]' "$T/t.json" >"$T/tilde.json"
    check "refused: string $i ('~' the shell would expand) in env" refused "tilde-$i" "$T/tilde.json" /env/HS "'~'"
done
printf '%s' "a:~/x" | jq -Rs . >"$T/t.json"
config '["sdks",0,"env","HK"]' "$T/t.json" >"$T/tilde2.json"
check "refused: ':~' in an SDK env value" refused tilde-colon "$T/tilde2.json" /sdks/0/env/HK "'~'"
mkdir -p "$FX/cct:~"
ln -sf /bin/true "$FX/cct:~/g++"
jq -n --arg base "$CUDA" --arg cc "$FX/cct:~/g++" \
    '{sdks: [{version: "13.0", name: "r", base: $base, host_compiler: {ccbin: $cc}}]}' >"$T/cc-tilde.json"
check "refused: ':~' in ccbin" refused cc-tilde "$T/cc-tilde.json" "SDK r" host_compiler/ccbin "'~'"
# Three long trees: their run path is longer than pkgconf keeps of one
# argument, so it is refused; without a run path the rest fits.
if [ -n "$math_inc" ] && [ -n "$cupti_inc" ]; then
    lb=$FX/long/base$longpath lm=$FX/long/math$longpath lc=$FX/long/cupti$longpath
    fixture L "$lb" "$lm" "$lc" "$FX/long/nvvm" "$FX/long/g++"
    for rp in true false; do
        jq -n --arg b "$lb" --arg m "$lm" --arg c "$lc" --argjson rp $rp \
            '{pc_rpath: $rp, sdks: [{version: "13.0", name: "r", base: $b, math_libs: $m, cupti: $c}]}' \
            >"$T/long-$rp.json"
    done
    check "refused: a run path of three ${#longpath}-byte paths, too long for pkgconf" \
        refused long-rpath "$T/long-true.json" "SDK r" "run path of base, math_libs, cupti" pc_rpath "5121 bytes"
    rc=0
    in_cwd "$CTKGEN" -q generate -c "$T/long-false.json" -o "$T/long" >"$T/long.out" 2>&1 || rc=$?
    printf '%s\n' "-I$lb/include" "-I$lm/include" "-I$lc/include" "-L$lb/lib" "-L$lm/lib" "-L$lc/lib" \
        -lcudart >"$T/long-exp"
    pc "$T/long/pkgconfig" --cflags --libs ctk-r | split_pc >"$T/long-got"
    check "pkgconf: three ${#longpath}-byte paths without a run path come back exactly (generate exit $rc)" \
        same "$T/long-exp" "$T/long-got" "pkgconf long paths"
fi
marker_check "refusals"

echo "# $nhelp strings and a long path; $npaths toolkits at hostile paths; $nref refusals; $(($(date +%s) - start)) s"
finish
