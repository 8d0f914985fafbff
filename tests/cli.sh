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
check "help generate equals generate --help" sh -c "'$CTKGEN' help generate | cmp -s - '$T/out'"
check "validate --help, exit 0" run 0 "$CTKGEN" validate --help
check "validate --help names every option" sh -c \
    "for o in --config --output --jobs --json --require-launch --no-cache --cache-dir --timeout --modulecmd --lmod --lmod-cmd --cc --cxx; do grep -q -- \"\$o\" '$T/out' || exit 1; done"
check "help validate equals validate --help" sh -c "'$CTKGEN' help validate | cmp -s - '$T/out'"
# every long option of every command is in the man page
for cmd in generate validate scan lint; do
    "$CTKGEN" $cmd --help > "$T/help-$cmd"
    for o in $(grep -o -- '--[a-z][a-z-]*' "$T/help-$cmd" | sort -u); do
        esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
        if grep -q -- "$esc" "$top_srcdir/docs/ctkgen.1"; then pass "ctkgen.1 documents $cmd $o"
        else fail "ctkgen.1 documents $cmd $o"; fi
    done
done
check "version" run 0 "$CTKGEN" version
check "version prints the package version" grep -Eq '^ctkgen [0-9]+\.[0-9]+' "$T/out"

check "no command: exit 2" run 2 "$CTKGEN"
check "unknown command: exit 2" run 2 "$CTKGEN" frobnicate
check "unknown command: says what to try" grep -q "Try 'ctkgen --help'" "$T/err"
check "unknown option: exit 2" run 2 "$CTKGEN" generate --bogus
check "unknown option: one line and a hint on stderr" sh -c \
    "[ \$(wc -l < '$T/err') -eq 2 ] && grep -q \"Try 'ctkgen generate --help'\" '$T/err' && [ ! -s '$T/out' ]"
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

printf '{ "sdks": [ { "version": "12.4", "base": "/x" ] }\n' > "$T/syntax.json"
check "malformed JSON: exit 3" run 3 "$CTKGEN" generate -c "$T/syntax.json" -o "$T/o2"
check "malformed JSON: names file:line:col" grep -Eq "^$T/syntax.json:1:[0-9]+: error:" "$T/err"

check "missing config file: exit 3" run 3 "$CTKGEN" generate -c "$T/none.json" -o "$T/o3"
check "missing config file: names it" grep -q "$T/none.json" "$T/err"

printf '{ "sdks": [ { "version": "12.4", "base": "%s/nowhere" } ] }\n' "$T" > "$T/nobase.json"
check "toolkit that does not exist: exit 3" run 3 "$CTKGEN" generate -c "$T/nobase.json" -o "$T/o4"
check "toolkit that does not exist: names the SDK field" grep -q "/sdks/0/base" "$T/err"

check "--template-dir that is not a dir: exit 2" run 2 "$CTKGEN" generate -t "$T/none" -c "$T/bad.json"
finish
