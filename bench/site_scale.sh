#!/bin/sh
# site_scale.sh - what `ctkgen generate` and the module commands cost on a
# site of N toolkits: wall times, instruction counts, system calls.
# SPDX-License-Identifier: MIT
#
# usage: bench/site_scale.sh [N]     (default 1000 toolkits)
#
# Environment:
#   CTKGEN          the ctkgen binary (default: ctkgen on PATH)
#   CTK_BENCH_CUDA  the real toolkit the trees point into (default /usr/local/cuda-13.0)
#   R               repetitions of each timed command (default 3)
#   M               `cp -al` copies for the symlink/hard-link comparison
#                   (default 100; 0 skips it)
#   S2M             toolkits for the sh_to_modulefile comparison (default
#                   100, at most N; 0 skips it)
#   SMALL           the smaller site for the linearity check (default N/10)
#   CALLGRIND=0     skip every callgrind run (minutes at N = 1000)
#   MODULES_CMD     Environment Modules' modulecmd.tcl
#                   (default .deps-local/environment-modules/usr/lib/modulecmd.tcl)
#   LMOD_CMD        Lmod's libexec/lmod (default /usr/share/lmod/lmod/libexec/lmod)
#   KEEP=1          keep the work directory
#   STEPS           the steps to run, of: generate interleaved rerun callgrind
#                   strace modules copies (default all; e.g. STEPS=modules: one
#                   untimed generate, then step 5 alone)
#   RI              rounds of the interleaved step (default 7): each times,
#                   after a `sync` each, a fresh generate, `cp -r` of its
#                   tree, and `cp -r` then `sync`
#   CTKGEN_BEFORE   another ctkgen (e.g. an older build): step 5 measures the
#                   tree it writes for the same site too
#
# The site: N toolkits t1..tN, each a directory tk/tI/cuda-X.Y whose
# entries are symbolic links to the real toolkit's (bin, include, lib,
# lib64, nvvm, ...), except version.json, a file of its own that says
# X.Y.(I-1) for "cuda" and "cuda_cudart": each is a toolkit of its own, with
# its own patch level.  (A patch of 1000 or more is read as a build date,
# so beyond N = 1000 toolkits have no X.Y.Z name.)  Building it costs
# seconds.  One site config names them all: version X.Y, names X.Y-t1..N.
#
# In one run, each figure the median of R runs (`date +%s.%N` around the
# whole process):
#   1. `ctkgen -q generate` into an empty OUT; `cp -r OUT` to a fresh
#      directory; a sed loop writing the same files from templates (one sed
#      per file, the modulerc files with printf): what a site's own script does;
#   2. generate again on the unchanged OUT, and whether any file or
#      directory of OUT (.ctkgen.lock included) got a new mtime;
#   3. callgrind's instruction count (Ir) of a fresh generate at SMALL and
#      N, and the top functions by inclusive Ir at N;
#   4. `strace -f -c` of a fresh generate at N: syscalls per toolkit;
#   5. `module avail` and `module load` with Lmod and Environment Modules
#      over OUT, over a copy whose .modulerc files keep the default only,
#      over the tree of the same site with "full_version_aliases": false
#      (when CTKGEN knows the key) and over CTKGEN_BEFORE's tree: wall
#      medians and callgrind Ir, each against the default-only copy;
#   6. with M > 0: generate over M `cp -al` copies of the toolkit (hard
#      links, a real tree each) against M of the symlinked ones;
#   7. with S2M > 0: Lmod's sh_to_modulefile over the first S2M toolkits
#      (default 100, at most N), a Lua and a Tcl modulefile each, from a
#      bash script exporting what ctkgen's module for the toolkit sets (its
#      prepend_path and setenv, nothing else: help, whatis, family,
#      conflicts and the .pc files have no counterpart there), against
#      generate of the same toolkits: what a site that writes its modules
#      that way pays.
# The script exits 1 if generate fails or writes other than the expected
# files (what one toolkit gets, N times, plus the two .modulerc files, the
# manifest and the lock), if a re-run changes anything, or if a module
# command fails or loads the wrong toolkit.
# SETUP arguments of rep are single-quoted for eval; ls counts the toolkit's entries
# shellcheck disable=SC2016,SC2012
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-1000}
case $N in '' | *[!0-9]* | 0) echo "usage: $0 [N]   (N >= 1)" >&2; exit 2 ;; esac
R=${R:-3}
M=${M:-100}
S2M=${S2M:-100}
SMALL=${SMALL:-$((N / 10))}
[ "$SMALL" -ge 1 ] || SMALL=1
CALLGRIND=${CALLGRIND:-1}
CUDA=${CTK_BENCH_CUDA:-/usr/local/cuda-13.0}
CTKGEN=${CTKGEN:-$(command -v ctkgen || :)}
MODULES_CMD=${MODULES_CMD:-$here/.deps-local/environment-modules/usr/lib/modulecmd.tcl}
LMOD_CMD=${LMOD_CMD:-/usr/share/lmod/lmod/libexec/lmod}

die() { echo "$0: $*" >&2; exit 1; }
STEPS=${STEPS:-generate interleaved rerun callgrind strace modules copies}
for s in $(echo "$STEPS" | tr , ' '); do
    case $s in generate | interleaved | rerun | callgrind | strace | modules | copies) ;; *) die "STEPS: no step '$s'" ;; esac
done
want() { case " $(echo "$STEPS" | tr , ' ') " in *" $1 "*) return 0 ;; esac; return 1; }
[ -z "${CTKGEN_BEFORE:-}" ] || [ -x "$CTKGEN_BEFORE" ] || die "CTKGEN_BEFORE=$CTKGEN_BEFORE: not executable"
case $R in '' | *[!0-9]* | 0) die "R must be a number >= 1" ;; esac
case $M in '' | *[!0-9]*) die "M must be a number" ;; esac
case $S2M in '' | *[!0-9]*) die "S2M must be a number" ;; esac
[ "$S2M" -le "$N" ] || S2M=$N
{ [ -n "$CTKGEN" ] && [ -x "$CTKGEN" ]; } || die "no ctkgen: set CTKGEN=/path/to/ctkgen"
CTKGEN=$(cd "$(dirname "$CTKGEN")" && pwd)/$(basename "$CTKGEN")
[ -x "$CUDA/bin/nvcc" ] || die "$CUDA: no bin/nvcc (set CTK_BENCH_CUDA)"
for t in date awk sed find strace tclsh; do
    command -v $t >/dev/null 2>&1 || die "$t not found"
done
if [ "$CALLGRIND" = 1 ]; then
    for t in valgrind callgrind_annotate; do
        command -v $t >/dev/null 2>&1 || die "$t not found (or CALLGRIND=0)"
    done
fi
HAVE_EM=0; [ -f "$MODULES_CMD" ] && HAVE_EM=1
HAVE_LMOD=0; [ -f "$LMOD_CMD" ] && HAVE_LMOD=1
LMOD_LUA=$(sed -n '1s/^#! *//p' "$LMOD_CMD" 2>/dev/null || :)
[ $HAVE_LMOD = 0 ] || [ -x "${LMOD_LUA%% *}" ] || HAVE_LMOD=0

W=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-sitebench-XXXXXX")
W=$(cd "$W" && pwd -P)
: >"$W/problems"
cleanup() {
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
# shellcheck disable=SC2034 # machine.sh reads it
NPROC=$(nproc)

. "$(dirname "$0")/machine.sh"
machine_header
echo "  ctkgen         $("$CTKGEN" --version)"
echo "  valgrind       $(valgrind --version 2>/dev/null || echo none)"
echo "  Lmod           $([ $HAVE_LMOD = 1 ] && "$LMOD_LUA" "$LMOD_CMD" bash --version 2>&1 | sed -n 's/.*Version \([0-9.]*\).*/\1/p' | head -n 1 || echo none)"
echo "  Env. Modules   $([ $HAVE_EM = 1 ] && tclsh "$MODULES_CMD" bash --version 2>&1 | head -n 1 || echo none)"
echo "  load           $(uptime | sed 's/.*load average/load average/')"
[ -z "${CTKGEN_BEFORE:-}" ] || echo "  ctkgen before  $("$CTKGEN_BEFORE" --version) ($CTKGEN_BEFORE)"
echo "  command        $0 $N  (R=$R M=$M SMALL=$SMALL CALLGRIND=$CALLGRIND STEPS=$STEPS)"
echo

# ---- helpers ----------------------------------------------------------------------
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }
median() { # numbers on stdin
    sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m }'
}
div() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (b == 0) print "-"; else printf f, a / b }'; }
problem() { echo "!! $*" | tee -a "$W/problems" >&2; }
# rep LABEL SETUP COMMAND...: median of R runs of COMMAND, each after SETUP
# (untimed, eval'd: callers quote it singly); prints seconds, logs the runs on stderr
rep() {
    rl=$1 rs=$2; shift 2
    : >"$W/times"
    rk=0
    while [ $rk -lt "$R" ]; do
        eval "$rs"
        t0=$(now)
        "$@" || problem "$rl: exited $?"
        t1=$(now)
        sub "$t0" "$t1" >>"$W/times"
        echo >>"$W/times"
        rk=$((rk + 1))
    done
    echo "  $rl: $(tr '\n' ' ' <"$W/times")" >&2
    median <"$W/times"
}
# ir OUTFILE [VAR=VALUE...] COMMAND...: callgrind's total Ir of COMMAND
# (its process only), run in a clean environment when VAR=VALUEs are given
# (none holding a space)
VALGRIND=$(command -v valgrind || :)
ir() {
    io=$1; shift
    ienv=
    case $1 in *=*) ienv="env -i PATH=/usr/bin:/bin HOME=$W/home LANG=C.UTF-8" ;; esac
    while :; do
        case $1 in *=*) ienv="$ienv $1"; shift ;; *) break ;; esac
    done
    # shellcheck disable=SC2086 # ienv: env and its words (no spaces in $W)
    $ienv "$VALGRIND" --tool=callgrind --trace-children=no --collect-atstart=yes \
        --callgrind-out-file="$io" "$@" >/dev/null 2>"$io.log" || problem "callgrind $*: exited $?"
    sed -n 's/^summary: *//p; s/^totals: *//p' "$io" | head -n 1
}

# ---- the site -------------------------------------------------------------------
mm=$("$CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$mm" ] || die "$CUDA/bin/nvcc: no release in --version"
# ver_json PATCH: a version.json saying X.Y.PATCH
ver_json() {
    printf '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "%s.%s"\n   },\n' "$mm" "$1"
    printf '   "cuda_cudart" : {\n      "name" : "CUDA Runtime (cudart)",\n      "version" : "%s.%s"\n   }\n}\n' "$mm" "$1"
}
# site FILE COUNT DIR PREFIX: a site config of COUNT toolkits DIR/PREFIXi/cuda-X.Y
site() {
    {
        printf '{\n  "module_name": "cudatoolkit",\n  "sdks": [\n'
        awk -v n="$2" -v d="$3" -v p="$4" -v mm="$mm" 'BEGIN {
            for (i = 1; i <= n; i++)
                printf "    { \"version\": \"%s\", \"name\": \"%s-t%d\", \"base\": \"%s/%s%d/cuda-%s\" }%s\n", mm, mm, i, d, p, i, mm, (i < n ? "," : "")
        }'
        printf '  ]\n}\n'
    } >"$1"
}
t0=$(now)
i=1
while [ $i -le "$N" ]; do
    d=$W/tk/t$i/cuda-$mm
    mkdir -p "$d"
    for e in "$CUDA"/*; do
        case ${e##*/} in version.json) continue ;; esac
        ln -s "$e" "$d/"
    done
    ver_json $((i - 1)) >"$d/version.json"
    i=$((i + 1))
done
t1=$(now)
BUILD_SYM=$(sub "$t0" "$t1")
site "$W/site.json" "$N" "$W/tk" t
site "$W/site-small.json" "$SMALL" "$W/tk" t
site "$W/site-1.json" 1 "$W/tk" t
echo "site: $N symlinked toolkits built in $BUILD_SYM s ($(ls "$CUDA" | wc -l) links and a version.json each)"

# what one toolkit gets: the files of a one-toolkit run, less the modulerc files
"$CTKGEN" -q generate -c "$W/site-1.json" -o "$W/one" || die "generate of one toolkit failed"
(cd "$W/one" && find lmod tcl pkgconfig -type f ! -name '.modulerc*' | sort) >"$W/one.files"
K=$(wc -l <"$W/one.files")
[ "$K" -ge 3 ] || die "one toolkit gave $K files"
EXPECT=$((K * N + 4)) # + .modulerc.lua, .modulerc, .ctkgen-manifest, .ctkgen.lock
echo "files: $K per toolkit ($(cut -d/ -f1 "$W/one.files" | sort | uniq -c | awk '{ printf "%s%s %s", s, $1, $2; s = ", " }')), $EXPECT in all at N = $N"

# check_out DIR COUNT LABEL: COUNT toolkits' files, every module present
check_out() {
    nf=$(find "$1" -type f | wc -l)
    want=$((K * $2 + 4))
    [ "$nf" -eq "$want" ] || problem "$3: $nf files in $1, expected $want"
    for f in "lmod/cudatoolkit/$mm-t$2.lua" "tcl/cudatoolkit/$mm-t$2" "pkgconfig/ctk-$mm-t$2.pc" \
        lmod/cudatoolkit/.modulerc.lua tcl/cudatoolkit/.modulerc .ctkgen-manifest .ctkgen.lock; do
        [ -f "$1/$f" ] || problem "$3: no $f in $1"
    done
}
gen() { # gen SITE OUT: one quiet generate, failing loudly
    "$CTKGEN" -q generate -c "$1" -o "$2" 2>"$W/gen.err" || { cat "$W/gen.err" >&2; die "generate -c $1 failed"; }
}

# the hand-written baseline's templates: the one-toolkit run's files, with
# the name, the toolkit directory, the patch and OUT made placeholders
mkdir -p "$W/tmpl"
while read -r f; do
    g=$(echo "$f" | sed "s/$mm-t1/@NAME@/g" | tr / :)
    sed -e "s|$W/one|@OUT@|g" -e "s|$W/tk/t1/|@TK@/|g" -e "s/$mm-t1/@NAME@/g" \
        -e "s/$mm\\.0\\([^0-9]\\)/@VER@\\1/g" -e "s/$mm\\.0\$/@VER@/" "$W/one/$f" >"$W/tmpl/$g"
    grep -q '@NAME@\|@TK@\|@VER@' "$W/tmpl/$g" || die "template $g: nothing of the toolkit's in it"
done <"$W/one.files"
# handwritten OUT: the sed loop
handwritten() {
    hw=$1
    rm -rf "$hw"
    mkdir -p "$hw/lmod/cudatoolkit" "$hw/tcl/cudatoolkit" "$hw/pkgconfig"
    i=1
    while [ $i -le "$N" ]; do
        for t in "$W"/tmpl/*; do
            dest=$(echo "${t##*/}" | sed "s/@NAME@/$mm-t$i/; s|:|/|g")
            sed -e "s|@OUT@|$hw|g" -e "s|@TK@|$W/tk/t$i|g" -e "s/@NAME@/$mm-t$i/g" \
                -e "s/@VER@/$mm.$((i - 1))/g" "$t" >"$hw/$dest"
        done
        i=$((i + 1))
    done
    {
        echo '-- -*- lua -*-'
        echo "module_version(\"cudatoolkit/$mm-t$N\", \"default\")"
        i=1
        while [ $i -le "$N" ]; do echo "module_version(\"cudatoolkit/$mm-t$i\", \"$mm.$((i - 1))\")"; i=$((i + 1)); done
    } >"$hw/lmod/cudatoolkit/.modulerc.lua"
    {
        echo '#%Module1.0'
        echo "module-version \"cudatoolkit/$mm-t$N\" default"
        i=1
        while [ $i -le "$N" ]; do echo "module-version \"cudatoolkit/$mm-t$i\" \"$mm.$((i - 1))\""; i=$((i + 1)); done
    } >"$hw/tcl/cudatoolkit/.modulerc"
    : >"$hw/.ctkgen-manifest"
    : >"$hw/.ctkgen.lock"
}

OUT=$W/out
# what generate learns of the toolkits, kept for this run alone
XDG_CACHE_HOME=$W/cache
export XDG_CACHE_HOME
TICKS0=$(cpu_ticks)
echo "# runs (seconds, in the order taken)" >&2

# ---- 1. fresh generate, cp -r, the sed loop -----------------------------------------
# (the steps skipped by STEPS keep their place: `if want` guards each, unindented)
if ! want generate; then gen "$W/site.json" "$OUT"; check_out "$OUT" "$N" "generate"; fi
if want generate; then
GEN=$(rep "generate, fresh" 'rm -rf "$OUT"' gen "$W/site.json" "$OUT")
check_out "$OUT" "$N" "generate"
CPR=$(rep "cp -r OUT" 'rm -rf "$W/cpcopy"' cp -r "$OUT" "$W/cpcopy")
rm -rf "$W/cpcopy"
SED=$(rep "sed loop" : handwritten "$W/hand")
check_out "$W/hand" "$N" "sed loop"
# the sed loop writes what generate writes (the modulerc and manifest aside)
for f in "lmod/cudatoolkit/$mm-t$N.lua" "tcl/cudatoolkit/$mm-t$N" "pkgconfig/ctk-$mm-t$N.pc"; do
    sed "s|$W/hand|$OUT|g" "$W/hand/$f" | cmp -s - "$OUT/$f" || problem "sed loop: $f differs from generate's"
done
rm -rf "$W/hand"
fi

# ---- 1b. fresh generate against cp -r, interleaved, a sync before each ---------------
# so that no command pays for the write-back another left behind, and a
# change in the machine's load falls on all three alike
if want interleaved; then
RI=${RI:-7}
: >"$W/il.gen"; : >"$W/il.cp"; : >"$W/il.cps"
ri=0
while [ $ri -lt "$RI" ]; do
    rm -rf "$OUT" "$W/cpcopy"; sync
    t0=$(now); gen "$W/site.json" "$OUT"; t1=$(now); sub "$t0" "$t1" >>"$W/il.gen"; echo >>"$W/il.gen"
    sync
    t0=$(now); cp -r "$OUT" "$W/cpcopy"; t1=$(now); sub "$t0" "$t1" >>"$W/il.cp"; echo >>"$W/il.cp"
    rm -rf "$W/cpcopy"; sync
    t0=$(now); cp -r "$OUT" "$W/cpcopy" && sync; t1=$(now); sub "$t0" "$t1" >>"$W/il.cps"; echo >>"$W/il.cps"
    ri=$((ri + 1))
done
rm -rf "$W/cpcopy"
check_out "$OUT" "$N" "generate, interleaved"
for f in gen cp cps; do echo "  interleaved $f: $(tr '\n' ' ' <"$W/il.$f")" >&2; done
IL_GEN=$(median <"$W/il.gen")
IL_CP=$(median <"$W/il.cp")
IL_CPS=$(median <"$W/il.cps")
# the ratio of each round, generate ÷ cp -r
IL_RATIOS=$(paste "$W/il.gen" "$W/il.cp" | awk '{ printf "%.2f ", $1 / $2 }')
fi

# ---- 2. unchanged re-run ----------------------------------------------------------------
if want rerun; then
find "$OUT" -printf '%P %T@ %i\n' | sort >"$W/mtimes.before"
touch "$W/stamp"
sleep 0.1
RERUN=$(rep "generate, unchanged re-run" : gen "$W/site.json" "$OUT")
NEWER=$(find "$OUT" -newer "$W/stamp" | wc -l)
find "$OUT" -printf '%P %T@ %i\n' | sort >"$W/mtimes.after"
CHANGED=$(diff "$W/mtimes.before" "$W/mtimes.after" | grep -c '^>' || :)
[ "$NEWER" -eq 0 ] || { problem "re-run: $NEWER paths newer than the stamp:"; find "$OUT" -newer "$W/stamp" | head -n 5 >&2; }
[ "$CHANGED" -eq 0 ] || problem "re-run: $CHANGED paths with a new mtime or inode"
fi

TICKS1=$(cpu_ticks)

# ---- 3. instruction counts ------------------------------------------------------------
if [ "$CALLGRIND" = 1 ] && want callgrind; then
    echo "callgrind: generate at $SMALL and $N toolkits ..." >&2
    rm -rf "$W/cg-out"
    IR_SMALL=$(ir "$W/cg.small" "$CTKGEN" -q generate -c "$W/site-small.json" -o "$W/cg-out")
    check_out "$W/cg-out" "$SMALL" "generate under callgrind"
    rm -rf "$W/cg-out"
    IR_N=$(ir "$W/cg.n" "$CTKGEN" -q generate -c "$W/site.json" -o "$W/cg-out")
    check_out "$W/cg-out" "$N" "generate under callgrind"
    rm -rf "$W/cg-out"
    # the re-run at SMALL, after a first run under callgrind too: a toolkit's
    # inputs include the libraries the process runs with, and valgrind
    # preloads its own
    ir "$W/cg.prime" "$CTKGEN" -q generate -c "$W/site-small.json" -o "$W/cg-out" >/dev/null
    IR_RERUN=$(ir "$W/cg.rerun" "$CTKGEN" -q generate -c "$W/site-small.json" -o "$W/cg-out")
    rm -rf "$W/cg-out"
    # top functions: named ones (liblua has no symbols: its internals are
    # ???:0x..., counted in the lua_* and ctk_* functions that call them),
    # less the frames every run passes through
    top() {
        callgrind_annotate "$@" 2>/dev/null |
            awk '/file:function/ { go = 1; next } go && /^ *[0-9,]+ \(/ {
                ir = $1; f = $0; sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "", f); sub(/ \[[^]]*\]$/, "", f)
                n = f; sub(/.*:/, "", n); sub(/'"'"'[0-9]+$/, "", n)
                if (f ~ /^\?\?\?:0x/ || n ~ /^(\(below main\)|__libc_start_main.*|main|ctk_cmd_generate|run|PROGRAM TOTALS)$/ || seen[n]++) next
                lib = $0; sub(/.*\[/, "", lib); sub(/\]$/, "", lib); sub(/.*\//, "", lib)
                print ir, n, lib }' | head -n "${TOPN:-12}"
    }
    top --inclusive=yes "$W/cg.n" >"$W/top"
    top --inclusive=no "$W/cg.n" >"$W/top.self"
    TOPN=100 top --inclusive=no "$W/cg.small" >"$W/top.self.small"
fi

# ---- 4. system calls --------------------------------------------------------------------
if want strace; then
rm -rf "$W/st-out"
strace -f -c -o "$W/strace" "$CTKGEN" -q generate -c "$W/site.json" -o "$W/st-out" || problem "strace generate failed"
check_out "$W/st-out" "$N" "generate under strace"
rm -rf "$W/st-out"
calls() { # calls NAME...: the sum of those syscalls' counts
    awk -v names=" $* " '$NF != "total" && index(names, " " $NF " ") { s += ($4 ~ /^[0-9]+$/ ? $4 : $3) }
        END { print s + 0 }' "$W/strace"
}
SYS_TOTAL=$(awk '$NF == "total" { print $4 }' "$W/strace")
fi

# ---- 5. module commands -----------------------------------------------------------------
if want modules; then
# the trimmed copy: the family's .modulerc files keep their default, no X.Y.Z names
cp -r "$OUT" "$W/trim"
sed -i '/^module_version(/{/"default")$/!d}' "$W/trim/lmod/cudatoolkit/.modulerc.lua"
sed -i '/^module-version /{/ default$/!d}' "$W/trim/tcl/cudatoolkit/.modulerc"
[ "$(grep -c '^module_version(' "$W/trim/lmod/cudatoolkit/.modulerc.lua")" -eq 1 ] || problem "trimmed .modulerc.lua: not one line"
[ "$(grep -c '^module-version ' "$W/trim/tcl/cudatoolkit/.modulerc")" -eq 1 ] || problem "trimmed .modulerc: not one line"
MTREES="out trim"
# the same site with the X.Y.Z names left out and asked for, when CTKGEN
# knows the key (a new tree without it: "out")
for fv in nofull:false full:true; do
    sed "2a\\  \"full_version_aliases\": ${fv#*:}," "$W/site.json" >"$W/site-${fv%%:*}.json"
    if "$CTKGEN" -q generate -c "$W/site-${fv%%:*}.json" -o "$W/${fv%%:*}" 2>"$W/gen.err"; then
        MTREES="$MTREES ${fv%%:*}"
    else
        echo "step 5: $CTKGEN does not take full_version_aliases; no ${fv%%:*} tree" >&2
        rm -rf "$W/${fv%%:*}"
    fi
done
if [ -n "${CTKGEN_BEFORE:-}" ]; then
    "$CTKGEN_BEFORE" -q generate -c "$W/site.json" -o "$W/before" 2>"$W/gen.err" ||
        { cat "$W/gen.err" >&2; die "CTKGEN_BEFORE: generate failed"; }
    MTREES="$MTREES before"
fi
# names: the symbolic versions in a tree's .modulerc (the default among them)
names() { grep -c '^module-version ' "$W/$1/tcl/cudatoolkit/.modulerc"; }
# Lmod writes a user cache of the tree (~/.lmod.d/.cache) after a command
# that took over LMOD_SHORT_TIME (2 s) to walk it, as one under callgrind
# does, and reads it in the next: LMOD_SHORT_TIME=86400 keeps every run
# cold, as the plain runs at this size are
LMOD_NOCACHE=LMOD_SHORT_TIME=86400
rm -rf "$W/home/.lmod.d"
mkdir -p "$W/home"
MID=$mm-t$(((N + 1) / 2))
# modcmd SYS TREE ACTION...: one module command in a clean environment
modcmd() {
    ms=$1 mt=$2; shift 2
    case $ms in
        lmod) set -- "$LMOD_LUA" "$LMOD_CMD" bash "$@"; mp=$mt/lmod ;;
        tcl) set -- tclsh "$MODULES_CMD" bash "$@"; mp=$mt/tcl ;;
    esac
    env -i PATH=/usr/bin:/bin HOME="$W/home" LANG=C.UTF-8 $LMOD_NOCACHE MODULEPATH="$mp" "$@" >"$W/mod.out" 2>"$W/mod.err"
}
# modcheck SYS TREE ACTION: the command did what it should
modcheck() {
    case $3 in
        avail) n=$(grep -o "$mm-t[0-9]*" "$W/mod.out" "$W/mod.err" | sed 's/.*://' | sort -u | wc -l)
               [ "$n" -eq "$N" ] || problem "$1 avail over $2: $n modules listed, not $N" ;;
        load) grep -q "CUDA_HOME=$W/tk/t$(((N + 1) / 2))/cuda-$mm;" "$W/mod.out" || problem "$1 load over $2: no CUDA_HOME of $MID" ;;
    esac
}
# where a tree names X.Y.Z, that name loads the toolkit it belongs to (untimed)
FULLMID=$mm.$(((N + 1) / 2 - 1))
: >"$W/modrows"
for sys in lmod tcl; do
    case $sys in lmod) [ $HAVE_LMOD = 1 ] || continue ;; tcl) [ $HAVE_EM = 1 ] || continue ;; esac
    for act in avail load; do
        case $act in avail) args=avail ;; load) args="load cudatoolkit/$MID" ;; esac
        for tree in $MTREES; do
            # shellcheck disable=SC2086 # args: the action and its module
            modcmd $sys "$W/$tree" $args || problem "$sys $args over $tree failed: $(tail -n 2 "$W/mod.err")"
            modcheck $sys "$tree" $act
            if [ $act = load ] && [ "$(names "$tree")" -gt 1 ]; then
                modcmd $sys "$W/$tree" load "cudatoolkit/$FULLMID" || problem "$sys load cudatoolkit/$FULLMID over $tree failed"
                modcheck $sys "$tree (by $FULLMID)" load
            fi
            # shellcheck disable=SC2086
            wall=$(rep "$sys $act, $tree" : modcmd $sys "$W/$tree" $args)
            irm=-
            if [ "$CALLGRIND" = 1 ]; then
                # shellcheck disable=SC2086 # args: the action and its module
                case $sys in
                    lmod) irm=$(ir "$W/cg.mod" $LMOD_NOCACHE MODULEPATH="$W/$tree/lmod" "$LMOD_LUA" "$LMOD_CMD" bash $args) ;;
                    tcl) irm=$(ir "$W/cg.mod" MODULEPATH="$W/$tree/tcl" "$(command -v tclsh)" "$MODULES_CMD" bash $args) ;;
                esac
            fi
            echo "$sys $act $tree $wall $irm" >>"$W/modrows"
        done
    done
done
[ ! -e "$W/home/.lmod.d/.cache" ] || problem "Lmod wrote a user cache: its figures mix cold and cached runs"
fi

# ---- 6. symlinked trees against hard-link copies ----------------------------------------
if [ "$M" -gt 0 ] && want copies; then
    t0=$(now)
    i=1
    while [ $i -le "$M" ]; do
        d=$W/hl/h$i/cuda-$mm
        mkdir -p "${d%/*}"
        cp -al "$CUDA" "$d" 2>/dev/null || { rm -rf "$d"; die "cp -al $CUDA: not on the file system of $W (set TMPDIR), or no permission"; }
        rm -f "$d/version.json" # a hard link: never write through it
        ver_json $((i - 1)) >"$d/version.json"
        i=$((i + 1))
    done
    t1=$(now)
    BUILD_HL=$(sub "$t0" "$t1")
    site "$W/site-hl.json" "$M" "$W/hl" h
    site "$W/site-sym.json" "$M" "$W/tk" t
    GEN_HL=$(rep "generate, $M hard-link copies" 'rm -rf "$W/hl-out"' gen "$W/site-hl.json" "$W/hl-out")
    check_out "$W/hl-out" "$M" "generate over hard-link copies"
    GEN_SYM=$(rep "generate, $M symlinked" 'rm -rf "$W/sym-out"' gen "$W/site-sym.json" "$W/sym-out")
    check_out "$W/sym-out" "$M" "generate over symlinked trees"
    IR_HL=- IR_SYM=-
    if [ "$CALLGRIND" = 1 ]; then
        rm -rf "$W/hl-out" "$W/sym-out"
        IR_HL=$(ir "$W/cg.hl" "$CTKGEN" -q generate -c "$W/site-hl.json" -o "$W/hl-out")
        IR_SYM=$(ir "$W/cg.sym" "$CTKGEN" -q generate -c "$W/site-sym.json" -o "$W/sym-out")
    fi
    rm -rf "$W/hl" "$W/hl-out" "$W/sym-out"
fi

# ---- 7. Lmod's sh_to_modulefile ---------------------------------------------------------
S2M_TOOL=$(dirname "$LMOD_CMD")/sh_to_modulefile
if [ "$S2M" -gt 0 ] && [ $HAVE_LMOD = 1 ] && [ -f "$S2M_TOOL" ]; then
    # the toolkit's environment as a script: each prepend_path and setenv of
    # ctkgen's Lua module for t1, the toolkit directory a placeholder
    sed -n -e 's/^prepend_path("\([A-Za-z_0-9]*\)", *"\([^"]*\)").*/export \1="\2${\1:+:$\1}"/p' \
        -e 's/^setenv("\([A-Za-z_0-9]*\)", *"\([^"]*\)").*/export \1="\2"/p' \
        "$W/one/lmod/cudatoolkit/$mm-t1.lua" | sed "s|$W/tk/t1/|@TK@/|g; s|$W/one|@OUT@|g" >"$W/env.tmpl"
    [ "$(wc -l <"$W/env.tmpl")" -ge 3 ] || problem "sh_to_modulefile: the module of t1 gave $(wc -l <"$W/env.tmpl") lines of environment"
    s2m_all() { # a Lua and a Tcl modulefile for each of the first S2M toolkits
        rm -rf "$W/s2m"
        mkdir -p "$W/s2m/lmod" "$W/s2m/tcl"
        i=1
        while [ $i -le "$S2M" ]; do
            sed "s|@TK@|$W/tk/t$i|g; s|@OUT@|$W/s2m|g" "$W/env.tmpl" >"$W/s2m/env.sh"
            env -i PATH=/usr/bin:/bin HOME="$W/home" "$LMOD_LUA" "$S2M_TOOL" --cleanEnv --to=Lua \
                -o "$W/s2m/lmod/$mm-t$i.lua" "$W/s2m/env.sh" || return 1
            env -i PATH=/usr/bin:/bin HOME="$W/home" "$LMOD_LUA" "$S2M_TOOL" --cleanEnv --to=TCL \
                -o "$W/s2m/tcl/$mm-t$i" "$W/s2m/env.sh" || return 1
            i=$((i + 1))
        done
    }
    site "$W/site-s2m.json" "$S2M" "$W/tk" t
    S2M_T=$(rep "sh_to_modulefile, $S2M toolkits" : s2m_all)
    grep -q "CUDA_HOME.*$W/tk/t$S2M/" "$W/s2m/lmod/$mm-t$S2M.lua" ||
        problem "sh_to_modulefile: no CUDA_HOME of t$S2M in its Lua module"
    S2M_GEN=$(rep "generate, $S2M toolkits" 'rm -rf "$W/s2m-out"' gen "$W/site-s2m.json" "$W/s2m-out")
    check_out "$W/s2m-out" "$S2M" "generate of the sh_to_modulefile toolkits"
    rm -rf "$W/s2m" "$W/s2m-out"
fi

# ---- the tables -----------------------------------------------------------------------
if want generate; then
echo
echo "# ctkgen generate, $N toolkits ($EXPECT files), medians of $R"
echo
echo "| run | median, s | per toolkit, ms | ÷ generate |"
echo "| --- | ---: | ---: | ---: |"
mrow() { awk -v l="$1" -v s="$2" -v n="$N" -v g="$GEN" 'BEGIN { printf "| %s | %.3f | %.2f | %.2f |\n", l, s, 1000 * s / n, s / g }'; }
mrow "generate, empty OUT" "$GEN"
mrow "cp -r of that OUT" "$CPR"
mrow "sed loop, one sed per file" "$SED"
fi
if want interleaved; then
echo
echo "# fresh generate against cp -r, interleaved, a sync before each, medians of $RI"
echo
echo "| run | median, s | ÷ cp -r |"
echo "| --- | ---: | ---: |"
awk -v g="$IL_GEN" -v c="$IL_CP" -v s="$IL_CPS" 'BEGIN {
    printf "| generate, empty OUT | %.3f | %.2f |\n", g, g / c
    printf "| cp -r of that OUT | %.3f | 1.00 |\n", c
    printf "| cp -r, then sync | %.3f | %.2f |\n", s, s / c
    printf "\nratios of the medians: generate ÷ cp -r %.2f, generate ÷ (cp -r, then sync) %.2f\n", g / c, g / s
}'
echo "each round's generate ÷ cp -r: $IL_RATIOS"
fi
if want generate && want rerun; then
mrow "generate, unchanged re-run" "$RERUN"
echo
echo "re-run: $NEWER paths newer than the stamp (find -newer), $CHANGED with another mtime or inode"
fi
if [ "$CALLGRIND" = 1 ] && want callgrind; then
    echo
    echo "# instructions (callgrind Ir, the ctkgen process)"
    echo
    awk -v s="$SMALL" -v a="$IR_SMALL" -v n="$N" -v b="$IR_N" -v r="$IR_RERUN" 'BEGIN {
        printf "| run | Ir | Ir per toolkit |\n| --- | ---: | ---: |\n"
        printf "| generate, %d toolkits | %.0f | %.0f |\n", s, a, a / s
        printf "| generate, %d toolkits | %.0f | %.0f |\n", n, b, b / n
        printf "| unchanged re-run, %d toolkits | %.0f | %.0f |\n", s, r, r / s
        printf "\nIr per toolkit at %d / at %d = %.3f (1 = linear)\n", n, s, (b / n) / (a / s)
    }'
    echo
    echo "top functions by inclusive Ir, generate at $N:"
    echo
    echo "| Ir (inclusive) | % | function | in |"
    echo "| ---: | ---: | --- | --- |"
    awk -v t="$IR_N" '{ v = $1; gsub(",", "", v); printf "| %s | %.1f | `%s` | %s |\n", $1, 100 * v / t, $2, $3 }' "$W/top"
    echo
    echo "top functions by their own (exclusive) Ir, generate at $N:"
    echo
    echo "(growth: the function's Ir at $N over its Ir at $SMALL, divided by $N / $SMALL; 1 = linear)"
    echo
    echo "| Ir (self) | % | function | in | growth |"
    echo "| ---: | ---: | --- | --- | ---: |"
    awk -v t="$IR_N" -v k="$N / $SMALL" 'BEGIN { split(k, kk, " / "); k = kk[1] / kk[2] }
        NR == FNR { v = $1; gsub(",", "", v); small[$2] = v; next }
        { v = $1; gsub(",", "", v); g = ($2 in small && small[$2] > 0) ? sprintf("%.2f", v / small[$2] / k) : "-"
          printf "| %s | %.1f | `%s` | %s | %s |\n", $1, 100 * v / t, $2, $3, g }' "$W/top.self.small" "$W/top.self"
fi
if want strace; then
echo
echo "# system calls, generate at $N (strace -f -c)"
echo
echo "| syscall | calls | per toolkit |"
echo "| --- | ---: | ---: |"
for s in "fsync fdatasync" "rename renameat renameat2" openat "readlink readlinkat" "newfstatat stat lstat fstat statx" "getdents64" "mkdir mkdirat" "unlink unlinkat" "flock fcntl"; do
    # shellcheck disable=SC2086 # s: several syscall names
    c=$(calls $s)
    awk -v l="$(echo "$s" | sed 's/ /, /g')" -v c="$c" -v n="$N" 'BEGIN { printf "| %s | %d | %.2f |\n", l, c, c / n }'
done
awk -v c="$SYS_TOTAL" -v n="$N" 'BEGIN { printf "| all | %d | %.1f |\n", c, c / n }'
fi
if want modules; then
echo
echo "# module commands over the $N-toolkit tree (load: cudatoolkit/$MID), medians of $R"
echo
echo "| system | command | .modulerc | wall, s | Ir |"
echo "| --- | --- | --- | ---: | ---: |"
while read -r sys act tree wall irm; do
    case $tree in
        out) tl="as written" ;;
        trim) tl="default only" ;;
        nofull) tl="as written, full_version_aliases false" ;;
        full) tl="as written, full_version_aliases true" ;;
        before) tl="as written by CTKGEN_BEFORE" ;;
    esac
    tl="$tl, $(names "$tree") in .modulerc"
    case $sys in lmod) sl=Lmod ;; tcl) sl="Environment Modules" ;; esac
    echo "| $sl | $act | $tl | $wall | $irm |"
done <"$W/modrows"
awk '$3 == "trim" { w[$1 " " $2] = $4; i[$1 " " $2] = $5 }
    { row[NR] = $0 }
    END { for (r = 1; r <= NR; r++) { split(row[r], f, " "); k = f[1] " " f[2]; if (f[3] == "trim") continue
          if (i[k] != "-" && f[5] != "-") printf "%s: %s / default-only .modulerc = %.2f (wall), %.3f (Ir)\n", k, f[3], f[4] / w[k], f[5] / i[k]
          else printf "%s: %s / default-only .modulerc = %.2f (wall)\n", k, f[3], f[4] / w[k] } }' "$W/modrows"
fi
if [ "$M" -gt 0 ] && want copies; then
    echo
    echo "# $M toolkits: symlinked trees against cp -al copies"
    echo
    echo "| trees | built in, s | generate, median s | Ir |"
    echo "| --- | ---: | ---: | ---: |"
    echo "| symlinked ($(ls "$CUDA" | wc -l) links each) | $(awk -v b="$BUILD_SYM" -v m="$M" -v n="$N" 'BEGIN { printf "%.2f", b * m / n }') (pro rata) | $GEN_SYM | $IR_SYM |"
    echo "| cp -al ($(find "$CUDA" | wc -l) entries each) | $BUILD_HL | $GEN_HL | $IR_HL |"
fi
if [ -n "${S2M_T:-}" ]; then
    echo
    echo "# Lmod's sh_to_modulefile against generate, $S2M toolkits, medians of $R"
    echo
    echo "| run | median, s | per toolkit, ms | ÷ generate |"
    echo "| --- | ---: | ---: | ---: |"
    awk -v n="$S2M" -v s="$S2M_T" -v g="$S2M_GEN" 'BEGIN {
        printf "| generate (Lua, Tcl, .pc files, .modulerc) | %.3f | %.2f | 1.00 |\n", g, 1000 * g / n
        printf "| sh_to_modulefile (a Lua and a Tcl modulefile) | %.3f | %.2f | %.2f |\n", s, 1000 * s / n, s / g }'
fi
echo
want generate && echo "$TICKS0 $TICKS1" | awk '{ t = $4 - $1; printf "CPU during the timed generate runs: %.0f%% idle, %.1f%% stolen by the hypervisor\n", 100 * ($5 - $2) / t, 100 * ($6 - $3) / t }'
echo "load at the end: $(uptime | sed 's/.*load average/load average/')"
if [ -s "$W/problems" ]; then
    echo "PROBLEMS: $(wc -l <"$W/problems") (listed above)"
    exit 1
fi
