#!/bin/sh
# generate_facts.sh - what generate learned of each toolkit is kept in the
# user's cache dir and taken back, unprobed, only while nothing the probe
# looked at changed; the tree is always what probing everything gives.
# SPDX-License-Identifier: MIT
#
# Whether a run probed toolkit tN is seen with strace: a probe opens
# tN/version.json (to read it); taking the kept record back only asks its
# identity (stat).  The reference for every tree is a run with --rerender,
# which probes and renders everything.
. "$(dirname "$0")/lib.sh"
need_cuda
command -v strace >/dev/null || skip "strace not installed (apt-get install strace)"
strace -f -qq -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace not permitted)"

# LeakSanitizer cannot run under ptrace: in a sanitized build, leaks are
# checked by every other test instead
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
XDG_CACHE_HOME=$T/cache
export XDG_CACHE_HOME
FACTS=$T/cache/ctkgen/facts

mm=$("$CTK_TEST_CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
[ -n "$mm" ] || { echo "FAIL: no release in nvcc --version"; exit 1; }
ver_json() { # ver_json PATCH
    printf '{ "cuda": { "name": "CUDA SDK", "version": "%s.%s" } }\n' "$mm" "$1"
}
mk_tk() { # mk_tk I: toolkit t<I>, a dir of links, patch level I
    d=$T/tk/t$1
    mkdir -p "$d"
    for e in "$CTK_TEST_CUDA"/*; do
        case ${e##*/} in version.json | lib64 | lib) continue ;; esac
        ln -s "$e" "$d/${e##*/}"
    done
    # a lib dir of its own, of links, so that entries can come and go
    lib=$(readlink -f "$CTK_TEST_CUDA/lib64")
    mkdir -p "$d/lib64"
    for e in "$lib"/*; do ln -s "$e" "$d/lib64/${e##*/}"; done
    ver_json "$1" >"$d/version.json"
}
for i in 1 2 3; do mk_tk $i; done
cat >"$T/site.json" <<EOF
{ "pkgconfig_dir": "/apps/ctk/pkgconfig", "sdks": [
  { "version": "$mm", "name": "$mm-t1", "base": "$T/tk/t1" },
  { "version": "$mm", "name": "$mm-t2", "base": "$T/tk/t2" },
  { "version": "$mm", "name": "$mm-t3", "base": "$T/tk/t3" } ] }
EOF
OUT=$T/out
REF=$T/ref
# gen ARGS...: generate into OUT under strace, the trace in $T/trace
gen() {
    strace -f -qq -o "$T/trace" -e trace=openat,open "$CTKGEN" -v generate -c "$T/site.json" -o "$OUT" \
        "$@" >"$T/gen.log" 2>&1
}
# probed I: the last run read tI's version.json
probed() { grep -q "tk/t$1/version.json\", O_" "$T/trace"; }
unprobed() { ! probed "$1"; }
# probes "ARGS" W1 W2 W3: gen ARGS succeeds, and toolkit I was probed
# exactly where WI is y
probes() {
    pa=$1
    shift
    # shellcheck disable=SC2086
    gen $pa || return 1
    pi=1
    for pw; do
        if [ "$pw" = y ]; then probed $pi || return 1; else unprobed $pi || return 1; fi
        pi=$((pi + 1))
    done
}
# agrees: OUT is what probing and rendering everything writes (with a
# cache of its own)
agrees() {
    rm -rf "$REF"
    XDG_CACHE_HOME=$T/refcache "$CTKGEN" -q generate --rerender -c "$T/site.json" -o "$REF" &&
        diff -r "$REF" "$OUT" >"$T/diff.log"
}
facts_file() { find "$FACTS" -type f ! -name '.*' 2>/dev/null; }
stamp() { stat -c '%i %Y %Z %s' "$(facts_file)"; }

check "a first run probes every toolkit" probes "" y y y
check "and keeps what it learned: one file in the cache dir" [ "$(facts_file | wc -l)" -eq 1 ]
check "the file is the user's and no one else may write it" \
    sh -c "[ \"\$(stat -c '%u %a' \"\$(find '$FACTS' -type f)\")\" = \"$(id -u) 644\" ] && [ \"\$(stat -c %a '$FACTS')\" = 700 ]"
check "nothing of it is in OUT" [ -z "$(find "$OUT" -name '*facts*')" ]
before=$(stamp)
check "an unchanged re-run probes no toolkit" probes "" n n n
check "  and renders none" grep -q 'ctkgen: 3 of 3 toolkit(s) not rendered' "$T/gen.log"
check "  and leaves the kept file as it was" [ "$(stamp)" = "$before" ]
check "  and the tree is what probing everything gives" agrees

# a version.json rewritten in place to the same size, its mtime put back:
# its ctime still moves
cp -p "$T/tk/t2/version.json" "$T/v2"
ver_json 7 >"$T/tk/t2/version.json"
touch -r "$T/v2" "$T/tk/t2/version.json"
check "a version.json rewritten (same size, same mtime): that toolkit alone is probed" \
    probes "" n y n
check "  and its modulefile says the new version" grep -q "$mm.7" "$OUT/lmod/cudatoolkit/$mm-t2.lua"
check "  and the tree is what probing everything gives" agrees
check "the next run probes nothing again" probes "" n n n

# a library appears in a lib dir the probe listed
lib=$(readlink -f "$CTK_TEST_CUDA/lib64")
cp -a "$T/tk/t3/lib64" "$T/t3lib"
rm -f "$T/tk/t3/lib64"/libcufft.so*
check "a library gone from a lib dir: that toolkit is probed" probes "" n n y
check "  and its cuFFT .pc is gone" [ ! -e "$OUT/pkgconfig/ctk-cufft-$mm-t3.pc" ]
check "  and the tree is what probing everything gives" agrees
for f in "$T/t3lib"/libcufft.so*; do cp -a "$f" "$T/tk/t3/lib64/"; done
check "the library back: that toolkit is probed" probes "" n n y
check "  and its .pc is back" [ -e "$OUT/pkgconfig/ctk-cufft-$mm-t3.pc" ]

# a link the probe followed now points elsewhere
rm "$T/tk/t1/include"
mkdir "$T/inc1"
for e in "$CTK_TEST_CUDA/include"/*; do ln -s "$e" "$T/inc1/${e##*/}"; done
ln -s "$T/inc1" "$T/tk/t1/include"
check "a link the probe followed, retargeted: that toolkit is probed" \
    probes "" y n n
check "  and the tree is what probing everything gives" agrees

# the config changed for one toolkit: its entry's key
sed -i "s|\"name\": \"$mm-t3\", \"base\"|\"name\": \"$mm-t3\", \"help\": \"more\", \"base\"|" "$T/site.json"
check "an SDK's config entry changed: that toolkit is probed" \
    probes "" n n y
check "  and the tree is what probing everything gives" agrees

check "--rerender probes every toolkit" probes "--rerender" y y y
before=$(stamp)
check "--dry-run probes nothing" probes "--dry-run" n n n
check "--check probes nothing" probes "--check" n n n
check "  and neither writes the kept file" [ "$(stamp)" = "$before" ]

# a kept file that is not ctkgen's, or that others could have written
f=$(facts_file)
cp "$f" "$T/good"
printf 'garbage\n' >"$f"
check "a corrupt kept file: every toolkit is probed" probes "" y y y
check "  and the file is written again as it was" cmp -s "$f" "$T/good"
check "  and the tree is what probing everything gives" agrees
chmod 666 "$f"
check "a kept file others may write is not relied on" probes "" y y y
check "  and is replaced by one that is the user's alone" [ "$(stat -c %a "$f")" = 644 ]
if [ "$(id -u)" = 0 ]; then
    chown 65534 "$f"
    check "a kept file another user owns is not relied on" probes "" y y y
    check "  and is replaced by the user's own" [ "$(stat -c %u "$f")" = 0 ]
else
    echo "# SKIP: a kept file another user owns (needs root to make one)"
fi
# a record whose lines were tampered with: the answers no longer match
sed -i '0,/version.json$/s|version.json$|version.jsox|' "$f"
check "a kept record whose questions changed: that toolkit is probed" probes "" y

# a toolkit whose release only nvcc tells is probed every time, and the
# others still are not
mk_tk 4
rm "$T/tk/t4/version.json"
rm -f "$T/tk/t4/include"
mkdir "$T/inc4"
for e in "$CTK_TEST_CUDA/include"/*; do
    case ${e##*/} in cuda_runtime_api.h) continue ;; esac
    ln -s "$e" "$T/inc4/${e##*/}"
done
sed "s|CUDART_VERSION|CUDART_VERSION_NOT|" "$CTK_TEST_CUDA/include/cuda_runtime_api.h" >"$T/inc4/cuda_runtime_api.h"
ln -s "$T/inc4" "$T/tk/t4/include"
sed -i "s|\"base\": \"$T/tk/t3\" }|\"base\": \"$T/tk/t3\" },\n  { \"version\": \"$mm\", \"name\": \"$mm-t4\", \"base\": \"$T/tk/t4\" }|" "$T/site.json"
gen
check "a toolkit whose release only nvcc tells loads" grep -q "t4 (version from nvcc --version)" "$T/gen.log"
check "  and is written" [ -e "$OUT/lmod/cudatoolkit/$mm-t4.lua" ]
strace -f -qq -o "$T/trace4" -e trace=openat,execve "$CTKGEN" -q generate -c "$T/site.json" -o "$OUT" >/dev/null 2>&1
check "  and is probed again on the next run (its header read again)" \
    grep -q "tk/t4/include/cuda_runtime_api.h\", O_" "$T/trace4"
check "  while the others are not" sh -c "! grep -q 'tk/t1/version.json\", O_' '$T/trace4'"
check "  and the tree is what probing everything gives" agrees

# no cache dir at all: generate works as before
rm -rf "$OUT"
check "without HOME or XDG_CACHE_HOME generate still writes the tree" \
    env -u XDG_CACHE_HOME -u HOME "$CTKGEN" -q generate -c "$T/site.json" -o "$OUT"
check "  the tree is what probing everything gives" agrees
finish
