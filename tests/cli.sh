#!/bin/sh
# cli.sh - the command line: help, usage errors, exit codes, error format.
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/lib.sh"

run() { # run EXPECTED_RC CMD...: stdout in $T/out, stderr in $T/err
    want=$1; shift
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    [ "$got" -eq "$want" ] || { echo "  exit $got, wanted $want: $*"; sed 's/^/  err: /' "$T/err"; return 1; }
}

check "--help prints usage on stdout, exit 0" run 0 "$CTKGEN" --help
check "--help lists generate and the exit codes" sh -c "grep -q '^  generate' '$T/out' && grep -q '^  70' '$T/out'"
check "generate --help, exit 0" run 0 "$CTKGEN" generate --help
check "generate --help names every option" sh -c \
    "for o in --config --output --template-dir --dry-run --check --force --no-wait; do grep -q -- \"\$o\" '$T/out' || exit 1; done"
check "help generate equals generate --help" sh -c "'$CTKGEN' help generate > '$T/out-help' && [ -s '$T/out' ] && cmp -s '$T/out-help' '$T/out'"
check "validate --help, exit 0" run 0 "$CTKGEN" validate --help
check "validate --help names every option" sh -c \
    "for o in --config --output --jobs --json --require-launch --no-cache --cache-dir --timeout --modulecmd --lmod --lmod-cmd --cc --cxx; do grep -q -- \"\$o\" '$T/out' || exit 1; done"
check "help validate equals validate --help" sh -c "'$CTKGEN' help validate > '$T/out-help' && [ -s '$T/out' ] && cmp -s '$T/out-help' '$T/out'"
# every long option of every command is in the man page
for cmd in generate validate scan lint; do
    "$CTKGEN" $cmd --help > "$T/help-$cmd"
    opts=$(grep -o -- '--[a-z][a-z-]*' "$T/help-$cmd" | sort -u)
    [ -n "$opts" ] || fail "ctkgen.1 documents $cmd's options: $cmd --help lists none"
    for o in $opts; do
        esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
        if grep -q -- "$esc" "$top_srcdir/docs/ctkgen.1"; then pass "ctkgen.1 documents $cmd $o"
        else fail "ctkgen.1 documents $cmd $o"; fi
    done
done
# --help stays readable: the command list is indented under its heading
# (a summary that wraps does not fall back to column 0), nothing is wider
# than 80 columns
"$CTKGEN" --help > "$T/help-main"
check "--help: every line of the command list is indented" awk \
    '/^Commands:/ { c = 1; next } c && /^$/ { exit } c && !/^  / { bad = 1 } END { exit bad || !c }' "$T/help-main"
# (but for the paths under "Documentation:", which depend on where ctkgen is)
for cmd in main generate validate scan lint; do
    check "$cmd --help fits 80 columns" awk \
        '/^Documentation:/ { exit } length > 80 { bad = 1 } END { exit bad || !NR }' "$T/help-$cmd"
done
# every pointer to documentation names a file that exists: the installed
# copy, else the source tree's, as after the README's quick start, which
# builds in place and installs nothing
doc_paths() { # doc_paths FILE: the paths under "Documentation:", one a line
    awk '/^Documentation:/ { d = 1; next } d && /^  / { sub(/^  (man -l )?/, ""); print }' "$1"
}
for cmd in main generate validate scan lint; do
    n=0 bad=
    for p in $(doc_paths "$T/help-$cmd"); do
        n=$((n + 1))
        [ -f "$p" ] || bad="$bad $p"
    done
    check "$cmd --help: each of its $n documents exists" sh -c "[ $n -ge 2 ] && [ -z '$bad' ]"
    check "$cmd --help: the man page, to read with man -l" grep -Eq '^  man -l /.*/ctkgen\.1$' "$T/help-$cmd"
done
check "--help: site-config.md" grep -Eq '^  /.*/site-config\.md$' "$T/help-main"
check "scan --help: scan.md" grep -Eq '^  /.*/scan\.md$' "$T/help-scan"
check "lint --help: lint.md and diagnostics.md" sh -c \
    "grep -Eq '^  /.*/lint\.md$' '$T/help-lint' && grep -Eq '^  /.*/diagnostics\.md$' '$T/help-lint'"
check "validate --help: diagnostics.md" grep -Eq '^  /.*/diagnostics\.md$' "$T/help-validate"
mkdir "$T/empty"
see_doc() { sed -n 's/.*(see \(\/[^ )]*\))$/\1/p' "$T/err"; }
check "scan finding no toolkit: exit 4" run 4 "$CTKGEN" scan "$T/empty"
doc=$(see_doc)
check "scan finding no toolkit: points at a site-config.md that exists ($doc)" \
    sh -c "[ -f '$doc' ] && [ '${doc##*/}' = site-config.md ]"
check "generate --scan finding no toolkit: exit 4" run 4 "$CTKGEN" generate --scan "$T/empty" -o "$T/o0"
doc=$(see_doc)
check "generate --scan finding no toolkit: points at a site-config.md that exists ($doc)" \
    sh -c "[ -f '$doc' ] && [ '${doc##*/}' = site-config.md ]"
# each --help lists the exit statuses that command can return, and only those
exit_statuses() { # exit_statuses FILE: the statuses under "Exit status:", one line
    awk '/^Exit status:/ { e = 1; next } e && /^  [0-9]/ { printf "%s ", $1 } END { print "" }' "$1"
}
for want in "main:0 1 2 3 4 5 70 128+N" "generate:0 1 2 3 4 70 128+N" "validate:0 1 2 3 4 70 128+N" \
            "scan:0 2 3 4 70" "lint:0 1 2 3 4 5 70 128+N"; do
    cmd=${want%%:*}
    check "$cmd --help lists exit statuses ${want#*:}" [ "$(exit_statuses "$T/help-$cmd")" = "${want#*:} " ]
done
check "scan --help does not mention --check" lacks -- --check "$T/help-scan"
check "lint --help does not mention --check" lacks -- --check "$T/help-lint"
for s in 0 1 2 3 4 5 70 128+N; do
    check "ctkgen.1 documents exit status $s" grep -q "^\.B $s\$" "$top_srcdir/docs/ctkgen.1"
done
check "ctkgen.1 names .ctkgen-manifest and .ctkgen.lock" sh -c \
    "grep -q 'ctkgen\\\\-manifest' '$top_srcdir/docs/ctkgen.1' && grep -q 'ctkgen\\.lock' '$top_srcdir/docs/ctkgen.1'"

check "version" run 0 "$CTKGEN" version
check "version prints the package version" grep -Eq '^ctkgen [0-9]+\.[0-9]+' "$T/out"
check "version with an argument: exit 2" run 2 "$CTKGEN" version extra
check "version with an argument: says what to try" grep -q "^Try 'ctkgen --help'" "$T/err"
check "help generate with an extra argument: exit 2" run 2 "$CTKGEN" help generate extra
check "help with an extra argument: says what to try" grep -q "^Try 'ctkgen --help'" "$T/err"
check "help with an extra argument: prints no help" [ ! -s "$T/out" ]
check "help --help, exit 0" run 0 "$CTKGEN" help --help
check "help no-such-command: exit 2" run 2 "$CTKGEN" help frobnicate

check "no command: exit 2" run 2 "$CTKGEN"
check "unknown command: exit 2" run 2 "$CTKGEN" frobnicate
check "unknown command: says what to try" grep -q "Try 'ctkgen --help'" "$T/err"
check "unknown option: exit 2" run 2 "$CTKGEN" generate --bogus
# validate's shared options each reach their own check (none falls into another's)
for cmd in validate "generate --validate"; do
    for o in queue-timeout run-timeout cache-ttl; do
        # shellcheck disable=SC2086
        check "$cmd --$o x: exit 2, about --$o" run 2 "$CTKGEN" $cmd --$o x
        check "... says --$o needs seconds" grep -q -- "--$o needs seconds" "$T/err"
    done
    # shellcheck disable=SC2086
    check "$cmd --modulepath rel: exit 2, about --modulepath" run 2 "$CTKGEN" $cmd --modulepath rel
    check "... says it needs absolute directories" grep -q -- "--modulepath needs absolute directories" "$T/err"
done
check "unknown option: one line and a hint on stderr" sh -c \
    "[ \$(wc -l < '$T/err') -eq 2 ] && grep -q \"Try 'ctkgen generate --help'\" '$T/err' && [ ! -s '$T/out' ]"
# a misspelt long option names the one meant (at most two edits away),
# in the same one line + hint, for every command and the global options
for case in "generate:--chek:--check" "validate:--requre-launch:--require-launch" \
            "scan:--max-dpeth:--max-depth" "lint:--fix-sugest:--fix-suggest" \
            "generate:--quite:--quiet" "lint:--verbsoe:--verbose"; do
    cmd=${case%%:*} rest=${case#*:}
    typo=${rest%%:*} meant=${rest#*:}
    check "$cmd $typo: exit 2" run 2 "$CTKGEN" $cmd $typo
    check "$cmd $typo: did you mean '$meant'?" grep -qx -- \
        "ctkgen: $cmd: unknown option '$typo'; did you mean '$meant'?" "$T/err"
    check "$cmd $typo: one line and a hint" sh -c \
        "[ \$(wc -l < '$T/err') -eq 2 ] && grep -qx \"Try 'ctkgen $cmd --help'.\" '$T/err'"
done
check "--chek=1: exit 2" run 2 "$CTKGEN" generate --chek=1
check "--chek=1: names the option without its value" grep -qx -- \
    "ctkgen: generate: unknown option '--chek'; did you mean '--check'?" "$T/err"
check "an option far from every other: exit 2" run 2 "$CTKGEN" generate --bogus
check "an option far from every other: no suggestion" grep -qx -- "ctkgen: generate: unknown option '--bogus'" "$T/err"
check "an option of another command: no suggestion" sh -c \
    "'$CTKGEN' generate --lmod 2>&1 >/dev/null | grep -qx -- \"ctkgen: generate: unknown option '--lmod'\""
check "a flag given a value: exit 2" run 2 "$CTKGEN" generate --check=yes
check "a flag given a value: says it takes none" grep -qx -- "ctkgen: generate: option '--check' takes no argument" "$T/err"
check "an ambiguous abbreviation: exit 2" run 2 "$CTKGEN" generate --no
check "an ambiguous abbreviation: names what it could be" grep -qx -- \
    "ctkgen: generate: option '--no' is ambiguous (--no-wait, --no-cache)" "$T/err"
check "missing option argument: exit 2" run 2 "$CTKGEN" generate -c
check "stray argument: exit 2" run 2 "$CTKGEN" generate extra
check "--dry-run with --check: exit 2" run 2 "$CTKGEN" generate --dry-run --check -c /dev/null
check "--validate with --check: exit 2" run 2 "$CTKGEN" generate --validate --check -c /dev/null
check "-j without --validate: exit 2" run 2 "$CTKGEN" generate -j 2 -c /dev/null
check "validate -j 0: exit 2" run 2 "$CTKGEN" validate -j 0
check "validate -j abc: exit 2" run 2 "$CTKGEN" validate -j abc
check "validate --timeout -1: exit 2" run 2 "$CTKGEN" validate --timeout -1
check "validate: stray argument, exit 2" run 2 "$CTKGEN" validate extra

# bad input: exit 3, file:line:col, the line and a caret, nothing written
printf '{\n  "sdks": [\n    { "version": "12.4", "bsae": "/x" }\n  ]\n}\n' > "$T/bad.json"
check "unknown key: exit 3" run 3 "$CTKGEN" generate -c "$T/bad.json" -o "$T/o1"
check "unknown key: file:line:col and the JSON path" grep -q "^$T/bad.json:3:26: error: /sdks/0/bsae" "$T/err"
check "unknown key: shows the line and a caret" sh -c "grep -q '\"bsae\"' '$T/err' && grep -q '^ *\\^\$' '$T/err'"
check "bad input writes nothing" [ ! -e "$T/o1" ]

# every schema error of a config in one run: two SDKs and a top-level key,
# in file order, each with its line and caret; still exit 3, nothing written
cat > "$T/many.json" <<'EOF'
{ "sdks": [ { "version": "13.0", "base": "relative/path", "bogus": 1 },
            { "version": 12, "base": "/usr/local/cuda-13.0" },
            { "base": "/nonexistent" } ], "module_name": 5 }
EOF
cat > "$T/many.want" <<EOF
$T/many.json:1:42: error: /sdks/0/base: "relative/path" is not an absolute path
  { "sdks": [ { "version": "13.0", "base": "relative/path", "bogus": 1 },
                                           ^
$T/many.json:1:59: error: /sdks/0/bogus: unknown key
  { "sdks": [ { "version": "13.0", "base": "relative/path", "bogus": 1 },
                                                            ^
$T/many.json:2:26: error: /sdks/1/version: expected a string, got number; write "12" in quotes
              { "version": 12, "base": "/usr/local/cuda-13.0" },
                           ^
$T/many.json:3:13: error: /sdks/2: missing required key "version"
              { "base": "/nonexistent" } ], "module_name": 5 }
              ^
$T/many.json:3:58: error: /module_name: expected a string, got number; write "5" in quotes
              { "base": "/nonexistent" } ], "module_name": 5 }
                                                           ^
EOF
grep ': error: ' "$T/many.want" > "$T/many.want-lines"
check "errors in two SDKs and at the top level: exit 3" run 3 "$CTKGEN" generate -c "$T/many.json" -o "$T/o6"
check "errors in two SDKs and at the top level: every one, in file order, each with its line and caret" \
    cmp "$T/many.want" "$T/err"
check "errors in two SDKs and at the top level: nothing written" [ ! -e "$T/o6" ]
check "generate --check: exit 3 on the same config" run 3 "$CTKGEN" generate --check -c "$T/many.json" -o "$T/o6"
check "generate --check: every error" sh -c "grep ': error: ' '$T/err' | cmp -s - '$T/many.want-lines'"
check "validate -c: exit 3 on the same config" run 3 "$CTKGEN" validate -c "$T/many.json" -o "$T/o6"
check "validate -c: every error" sh -c "grep ': error: ' '$T/err' | cmp -s - '$T/many.want-lines'"
# lint --config reads the "lint" section only: every error in it
cat > "$T/many-lint.json" <<'EOF'
{ "sdks": 5, "lint": { "rules": [
  { "code": "CTK-CPAHT-001", "severity": "off", "reason": "a" },
  { "code": "CTK-PC-001", "severity": "sometimes", "reason": "b" } ], "strict": 1 } }
EOF
check "lint --config, errors in two rules and the policy: exit 3" run 3 "$CTKGEN" lint --config "$T/many-lint.json" "$T"
check "lint --config: every error of the section, in file order" sh -c \
    "grep ': error: ' '$T/err' | cut -d' ' -f1 | tr '\n' ' ' | grep -qx '$T/many-lint.json:2:13: $T/many-lint.json:3:39: $T/many-lint.json:3:81: '"
# more errors than are shown: the first 50, then how many more
{
    echo '{ "sdks": ['
    i=0
    while [ $i -lt 59 ]; do echo "{ \"version\": \"1.$i\", \"base\": \"x\" },"; i=$((i + 1)); done
    echo '{ "version": "1.59", "base": "x" } ] }'
} > "$T/sixty.json"
check "sixty errors: exit 3" run 3 "$CTKGEN" generate -c "$T/sixty.json" -o "$T/o7"
check "sixty errors: fifty shown, then how many more" sh -c \
    "[ \$(grep -c ': error: /sdks/' '$T/err') -eq 50 ] && tail -n 1 '$T/err' | grep -qx '$T/sixty.json: error: too many errors: 10 more not shown'"

printf '{ "sdks": [ { "version": "12.4", "base": "/x" ] }\n' > "$T/syntax.json"
check "malformed JSON: exit 3" run 3 "$CTKGEN" generate -c "$T/syntax.json" -o "$T/o2"
check "malformed JSON: names file:line:col" grep -Eq "^$T/syntax.json:1:[0-9]+: error:" "$T/err"

check "missing config file: exit 3" run 3 "$CTKGEN" generate -c "$T/none.json" -o "$T/o3"
check "missing config file: names it" grep -q "$T/none.json" "$T/err"

printf '{ "sdks": [ { "version": "12.4", "base": "%s/nowhere" } ] }\n' "$T" > "$T/nobase.json"
check "toolkit that does not exist: exit 3" run 3 "$CTKGEN" generate -c "$T/nobase.json" -o "$T/o4"
check "toolkit that does not exist: names the SDK field" grep -q "/sdks/0/base" "$T/err"

check "--template-dir that is not a dir: exit 2" run 2 "$CTKGEN" generate -t "$T/none" -c "$T/bad.json"
check "--template-dir that is not a dir: says what to try" grep -q "^Try 'ctkgen generate --help'" "$T/err"

# -q: errors only, no notes and no warnings
check "-q: an error still prints, exit 3" run 3 "$CTKGEN" -q generate -c "$T/none.json" -o "$T/o5"
check "-q: the error is on stderr" grep -q "error:" "$T/err"

# -v and -q (and --verbose, --quiet) also after the command name, for every
# command; the last one wins.  A stand-in toolkit (nvcc that only exists,
# the header, the library, version.json) is enough to generate, scan and
# lint without CUDA.
fake_toolkit() { # fake_toolkit DIR
    mkdir -p "$1/bin" "$1/include" "$1/lib64"
    printf '#!/bin/sh\nexit 1\n' > "$1/bin/nvcc"
    chmod 755 "$1/bin/nvcc"
    printf '#define CUDART_VERSION 13000\n' > "$1/include/cuda_runtime.h"
    : > "$1/lib64/libcudart.so"
    printf '{ "cuda": { "name": "CUDA SDK", "version": "13.0.48" } }\n' > "$1/version.json"
}
fake_toolkit "$T/fake"
printf '{ "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$T/fake" > "$T/fake.json"
check "generate -q (after the command): exit 0" run 0 "$CTKGEN" generate -q -c "$T/fake.json" -o "$T/gq"
check "generate -q: prints nothing" sh -c "[ ! -s '$T/out' ] && [ ! -s '$T/err' ]"
check "generate --quiet among the options: exit 0" run 0 "$CTKGEN" generate -c "$T/fake.json" --quiet -o "$T/gq"
check "generate --quiet among the options: prints nothing" sh -c "[ ! -s '$T/out' ] && [ ! -s '$T/err' ]"
check "generate -v (after the command): exit 0" run 0 "$CTKGEN" generate -c "$T/fake.json" -o "$T/gq" -v
check "generate -v: lists the unchanged files" grep -q '^  unchanged ' "$T/out"
check "-q before and -v after: the last wins" run 0 "$CTKGEN" -q generate -c "$T/fake.json" -o "$T/gq" -v
check "-q before and -v after: verbose" grep -q '^  unchanged ' "$T/out"
check "scan -q: exit 0" run 0 "$CTKGEN" scan -q "$T/fake"
check "scan -q: the config on stdout, nothing on stderr" sh -c "grep -q '\"13.0\"' '$T/out' && [ ! -s '$T/err' ]"
check "lint -q: exit 0" run 0 "$CTKGEN" lint -q "$T/gq/lmod"
check "lint -q: prints nothing (no findings)" sh -c "[ ! -s '$T/out' ] && [ ! -s '$T/err' ]"
check "lint --verbose: exit 0" run 0 "$CTKGEN" lint "$T/gq/lmod" --verbose
check "lint --verbose: lists the skipped file" grep -q '^skipped .*\.modulerc\.lua' "$T/out"

# more than 100 full-version names in the .modulerc files: generate says
# once what they cost and how to leave them out; at 100, or with the key
# false, nothing.  Toolkits 13.0.1 to 13.0.101, stand-ins as above.
# many_config FILE N [TOP-MEMBER]: a site of toolkits t1..tN
many_config() {
    {
        printf '{ %s"sdks": [\n' "${3:+$3, }"
        i=1
        while [ "$i" -le "$2" ]; do
            printf '  { "version": "13.0", "name": "13.0-t%s", "base": "%s/many/t%s" }%s\n' \
                "$i" "$T" "$i" "$([ "$i" -lt "$2" ] && echo ,)"
            i=$((i + 1))
        done
        printf '] }\n'
    } >"$1"
}
i=1
while [ "$i" -le 101 ]; do
    fake_toolkit "$T/many/t$i"
    printf '{ "cuda": { "name": "CUDA SDK", "version": "13.0.%s" } }\n' "$i" >"$T/many/t$i/version.json"
    i=$((i + 1))
done
many_config "$T/many100.json" 100 '"full_version_aliases": true'
many_config "$T/many101.json" 101 '"full_version_aliases": true'
many_config "$T/many101-unset.json" 101
many_config "$T/many101-off.json" 101 '"full_version_aliases": false'
costs() { grep -c 'full-version names' "$T/err"; }
check "generate of 100 toolkits: exit 0" run 0 "$CTKGEN" generate -c "$T/many100.json" -o "$T/m100"
check "  100 full-version names in the .modulerc" \
    [ "$(grep -c '^module-version .* "13\.0\.[0-9]*"$' "$T/m100/tcl/cudatoolkit/.modulerc")" -eq 100 ]
check "  and no note on what they cost" [ "$(costs)" -eq 0 ]
check "generate of 101 toolkits: exit 0" run 0 "$CTKGEN" generate -c "$T/many101.json" -o "$T/m101"
check "  one note on what they cost" [ "$(costs)" -eq 1 ]
check "  a warning on stderr, with the count and the way out" grep -q \
    '^ctkgen: warning: cudatoolkit: the \.modulerc files hold 101 full-version names (X\.Y\.Z), .*every module avail and module load .*"full_version_aliases": false in the site config leaves them out$' \
    "$T/err"
check "  nothing of it on stdout" lacks 'full-version names' "$T/out"
check "  with -q: nothing" run 0 "$CTKGEN" -q generate -c "$T/many101.json" -o "$T/m101"
check "  (stderr empty)" [ ! -s "$T/err" ]
check "101 toolkits with \"full_version_aliases\": false: exit 0" \
    run 0 "$CTKGEN" generate -c "$T/many101-off.json" -o "$T/m101-off"
check "  no note" [ "$(costs)" -eq 0 ]
check "  no full-version name in the .modulerc" lacks '"13\.0\.[0-9]*"$' "$T/m101-off/tcl/cudatoolkit/.modulerc"
check "101 toolkits, the key left out, a new tree: exit 0" \
    run 0 "$CTKGEN" generate -c "$T/many101-unset.json" -o "$T/m101-unset"
check "  no note" [ "$(costs)" -eq 0 ]
check "  no warning at all" sh -c '! grep -q warning "$1"' - "$T/err"
check "  no full-version name in the .modulerc" lacks '"13\.0\.[0-9]*"$' "$T/m101-unset/tcl/cudatoolkit/.modulerc"
check "  nor in the .modulerc.lua" lacks '"13\.0\.[0-9]*")$' "$T/m101-unset/lmod/cudatoolkit/.modulerc.lua"
check "validate -q: an error still prints, exit 3" run 3 "$CTKGEN" validate -q -c "$T/none.json"
check "validate -q: the error is on stderr" grep -q "error:" "$T/err"
for cmd in generate validate scan lint; do
    check "$cmd --help names the global -v and -q" sh -c \
        "grep -q '^Global options (before or after .$cmd.)' '$T/help-$cmd' && grep -q -- '-q, --quiet' '$T/help-$cmd' && grep -q -- '-v, --verbose' '$T/help-$cmd'"
done
check "--help says -v and -q may follow the command name" grep -q '^Global options (-v and -q may also follow the command name)' "$T/help-main"
check "ctkgen.1 says -v and -q may follow the command name" grep -q 'may come before or after the command name' "$top_srcdir/docs/ctkgen.1"

# An output place this user may not write to: the error names it, the user
# and the owner, and says what to do instead; exit 4 (environment).  Run as
# nobody (setpriv) on root's mode-0755 directories, in a mode-0755 temp dir
# nobody can reach, with a readable config and stand-in toolkit.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
    P=$(mktemp -d "${TMPDIR:-/tmp}/ctkgen-cli-XXXXXX")
    trap 'rm -rf "$T" "$P"' EXIT
    chmod 755 "$P"
    fake_toolkit "$P/fake"
    printf '{ "sdks": [ { "version": "13.0", "base": "%s" } ] }\n' "$P/fake" > "$P/site.json"
    chmod -R a+rX "$P"
    mkdir -m 755 "$P/ro"
    nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    nb=$(getent passwd 65534 | cut -d: -f1)
    [ -n "$nb" ] || nb="uid 65534"
    rt=$(getent passwd 0 | cut -d: -f1)
    if nobody "$CTKGEN" --version >/dev/null 2>&1 && nobody test -r "$P/site.json"; then
        check "generate into a directory nobody may not write: exit 4" \
            run 4 nobody "$CTKGEN" generate -c "$P/site.json" -o "$P/ro"
        check "... names the directory, the user, the owner, and -o DIR" grep -qxF \
            "ctkgen: error: cannot write to the output directory $P/ro (Permission denied): user $nb cannot write to it (owner $rt, mode 0755); choose another with -o DIR, or ask $rt to let $nb write there" "$T/err"
        check "... in one line, nothing on stdout" sh -c "[ \$(wc -l < '$T/err') -eq 1 ] && [ ! -s '$T/out' ]"
        check "... and writes nothing" empty_dir "$P/ro"
        check "generate creating a directory where nobody may not: exit 4" \
            run 4 nobody "$CTKGEN" generate -c "$P/site.json" -o "$P/ro/sub/out"
        check "... names the directory to create and the one in the way" grep -qxF \
            "ctkgen: error: cannot create the output directory $P/ro/sub/out (Permission denied): user $nb cannot write to $P/ro (owner $rt, mode 0755); choose another with -o DIR, or ask $rt to let $nb write there" "$T/err"
        check "generate --check only reads: exit 1 (the tree would change)" \
            run 1 nobody "$CTKGEN" generate -q -c "$P/site.json" -o "$P/ro" --check
        check "scan -o FILE where nobody may not write: exit 4" \
            run 4 nobody "$CTKGEN" -q scan -o "$P/ro/site.json" "$P/fake"
        check "... names the file, the user, the owner, and -o FILE" grep -qxF \
            "ctkgen: error: cannot write $P/ro/site.json (Permission denied): user $nb cannot write to $P/ro (owner $rt, mode 0755); write it elsewhere with -o FILE (or to stdout, without -o), or ask $rt to let $nb write there" "$T/err"
        check "... and writes nothing" empty_dir "$P/ro"
    else
        echo "# uid 65534 cannot run $CTKGEN or read $P: an unwritable output not checked"
    fi
else
    echo "# not root, or no setpriv: an unwritable output not checked"
fi

if [ -n "$CTK_TEST_CUDA" ] && [ -x "$CTK_TEST_CUDA/bin/nvcc" ]; then
    # a cache dir that cannot be made: validate warns "results not cached"
    "$CTKGEN" scan -o "$T/q.json" "$CTK_TEST_CUDA" 2>/dev/null
    check "-q: generate prints nothing" run 0 "$CTKGEN" -q generate -c "$T/q.json" -o "$T/q"
    check "-q: generate prints nothing (stdout, stderr)" sh -c "[ ! -s '$T/out' ] && [ ! -s '$T/err' ]"
    check "validate warns when it cannot cache" run 0 "$CTKGEN" validate -c "$T/q.json" -o "$T/q" --cache-dir /dev/null/x
    check "validate's warning is on stderr" grep -q "^ctkgen: warning: " "$T/err"
    check "-q validate: exit 0" run 0 "$CTKGEN" -q validate -c "$T/q.json" -o "$T/q" --cache-dir /dev/null/x
    check "-q validate: no warning" [ ! -s "$T/err" ]
else
    echo "# no CUDA toolkit (CTK_TEST_CUDA): -q with validate's warnings not checked"
fi
finish
