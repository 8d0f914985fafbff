#!/bin/sh
# fuzz.sh - fuzz ctkgen's input parsers with libFuzzer (clang).
# SPDX-License-Identifier: MIT
#
# Usage: build-aux/fuzz.sh [-r RUNS] [-t SECONDS] [TARGET...]
#   TARGET: config quote modeval probe pattern facts (default: all six)
#   -r RUNS     executions per target (default 20000)
#   -t SECONDS  per target instead of a run count (for long runs by hand)
# Builds the library with -fsanitize=fuzzer-no-link,address,undefined in
# $FUZZ_BUILD (default ./_build-fuzz, made afresh from a copy when the
# source tree is configured in place; delete it after changing configure),
# then runs each target from a copy of its seed corpus
# (tests/fuzz/corpus/<target>; the repository's corpus is never modified).
# A crash is saved under
# tests/fuzz/regress/<target>/ so `make check` replays it from then on.
# Prints one line per target: executions, seconds, crashes.  Exit 1 if
# any target crashed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
runs=20000 secs=
while getopts r:t: o; do
    case $o in
        r) runs=$OPTARG ;;
        t) secs=$OPTARG ;;
        *) echo "usage: $0 [-r RUNS] [-t SECONDS] [TARGET...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
targets=${*:-config quote modeval probe pattern facts}
B=${FUZZ_BUILD:-$top/_build-fuzz}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
CLANG=${CLANG:-clang}
command -v "$CLANG" >/dev/null || { echo "fuzz.sh: $CLANG not found (apt-get install clang)" >&2; exit 4; }
SAN=-fsanitize=address,undefined
mkdir -p "$B"
# a source tree configured in place cannot host another build: build from
# a fresh `make distdir` copy of it then
src=$top
if [ -f "$top/Makefile" ]; then
    src=$B/src
    rm -rf "$B"
    mkdir -p "$B"
    make -C "$top" -s distdir distdir="$src" top_distdir="$src" >/dev/null
fi
if [ ! -f "$B/Makefile" ]; then
    [ -x "$src/configure" ] || (cd "$src" && autoreconf -fi >/dev/null)
    (cd "$B" && "$src/configure" -q CC="$CLANG" \
        CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $SAN -fno-sanitize-recover=undefined" \
        LDFLAGS="$SAN" >/dev/null)
fi
make -C "$B" -s libctk.a >/dev/null
libs=$(pkg-config --libs lua5.4 jansson libpkgconf)
# generator/ is grouped by stage; each folder is on the include path
layers=
for l in cli audit prove output model sandbox base; do layers="$layers -I$top/generator/$l"; done
status=0
for t in $targets; do
    src="$top/tests/fuzz/fuzz_$t.c"
    [ -f "$src" ] || { echo "fuzz.sh: no target '$t'" >&2; exit 2; }
    "$CLANG" -O1 -g -fsanitize=fuzzer $SAN $layers -I"$B" $(pkg-config --cflags lua5.4 jansson libpkgconf) \
        -o "$B/fuzz_$t" "$src" "$B/libctk.a" $libs
    work=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-fuzz-$t-XXXXXX")
    cp "$top/tests/fuzz/corpus/$t/"* "$work/"
    mkdir -p "$work/crashes"
    if [ -n "$secs" ]; then limit="-max_total_time=$secs"; else limit="-runs=$runs"; fi
    set +e
    (cd "$work" && ASAN_OPTIONS=detect_leaks=1 "$B/fuzz_$t" $limit -timeout=10 -rss_limit_mb=2048 \
        -max_len=4096 -artifact_prefix="$work/crashes/" "$work" > "$work/log" 2>&1)
    rc=$?
    set -e
    execs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$work/log" | tail -1)
    crashes=$(find "$work/crashes" -type f | wc -l)
    if [ "$crashes" -gt 0 ] || [ "$rc" -ne 0 ]; then
        mkdir -p "$top/tests/fuzz/regress/$t"
        cp "$work/crashes/"* "$top/tests/fuzz/regress/$t/" 2>/dev/null || true
        tail -40 "$work/log" >&2
        status=1
    fi
    echo "fuzz $t: ${execs:-? ?} (executions seconds), crashes $crashes, exit $rc"
    rm -rf "$work"
done
exit $status
