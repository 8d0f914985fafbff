#!/bin/sh
# architecture.sh - build-aux/check-layers.sh holds on the tree, and finds
# each kind of breach planted in a copy of it (docs/architecture.md).
# SPDX-License-Identifier: MIT
. "$(dirname "$0")/lib.sh"

CHK=$top_srcdir/build-aux/check-layers.sh
B=${top_builddir:-$top_srcdir}
check "the tree keeps every rule (includes, and calls from the built objects)" \
    sh -c "sh '$CHK' '$top_srcdir' '$B' >'$T/ok.log' 2>&1"
check "  and says how much it looked at" grep -Eq '^check-layers.sh: [0-9]+ files, [0-9]+ includes between modules, [0-9]+ calls between modules: every rule holds$' "$T/ok.log"

# a copy of the sources, one breach at a time
S=$T/src
mkdir -p "$S/build-aux"
cp -r "$top_srcdir/generator" "$S/"
find "$S/generator" -name '*.o' -delete
cp "$CHK" "$S/build-aux/"
check "the copy keeps every rule" sh "$S/build-aux/check-layers.sh" "$S"
# plant FILE LINE: add LINE after the file's first #include, expect RULE
plant() {
    cp "$S/generator/$1" "$T/keep"
    awk -v add="$2" '{ print } !done && /^#include/ { print add; done = 1 }' "$T/keep" >"$S/generator/$1"
    sh "$S/build-aux/check-layers.sh" "$S" >"$T/out.log" 2>&1
    rc=$?
    cp "$T/keep" "$S/generator/$1"
    [ "$rc" -eq 1 ] && grep -q "^generator/$1[:0-9]*: $3: " "$T/out.log"
}
check "a model file including a cli header" plant model/sdk.c '#include "report.h"' include
check "a base file including an output header" plant base/util.c '#include "write.h"' include
check "model including sandbox (side by side, neither above)" plant model/config.c '#include "luahost.h"' include
check "a prove file writing to stderr" plant prove/pc.c 'static void f(void) { fprintf(stderr, "x"); }' print
check "an output file calling printf" plant output/render.c 'static void f(void) { printf("x"); }' print
cp "$S/generator/output/render.c" "$T/keep"
awk '{ print } !done && /^#include/ { print "/* printf(\"x\") named in a comment */"; done = 1 }' "$T/keep" >"$S/generator/output/render.c"
check "  but not one named in a comment" sh "$S/build-aux/check-layers.sh" "$S"
awk '{ print } !done && /^#include/ { print "static int streams[2]; /* stdout, stderr */"; done = 1 }' "$T/keep" >"$S/generator/output/render.c"
check "  nor stdout named in a comment after code" sh "$S/build-aux/check-layers.sh" "$S"
cp "$T/keep" "$S/generator/output/render.c"
check "  but a call after a comment on the same line is" \
    plant output/render.c 'static void f(void) { /* say it */ puts("x"); }' print
check "Lua's headers outside sandbox/" plant output/render.c '#include <lua.h>' lua
check "jansson outside its two files" plant model/sdk.c '#include <jansson.h>' jansson
check "libpkgconf outside prove/pc.c" plant audit/lint.c '#include <libpkgconf/libpkgconf.h>' libpkgconf
check "a process started outside base/proc.c" plant model/sdk.c 'static int f(void) { return system("x"); }' process
check "popen outside base/proc.c" plant prove/slurm.c 'static void *f(void) { return popen("x", "r"); }' process

# function length: a function of N lines appended to model/advice.c
long_fn() {
    cp "$S/generator/model/advice.c" "$T/keep"
    awk -v n="$1" 'END { print "static int ctk_long_one(int x,\n                        int y)\n{"
                         for (i = 1; i <= n - 5; i++) print "    x += " i ";"
                         print "    return x + y;\n}" }
                   { print }' "$T/keep" >"$S/generator/model/advice.c"
    rc=0
    sh "$S/build-aux/check-layers.sh" "$S" >"$T/out.log" 2>&1 || rc=$?
    cp "$T/keep" "$S/generator/model/advice.c"
}
long_fn 60
check "a function of 60 lines, signature to brace, is within the rule" [ "$rc" -eq 0 ]
long_fn 61
check "one of 61 lines is a breach (exit 1)" [ "$rc" -eq 1 ]
check "  named with its first line and its length" \
    grep -q '^generator/model/advice.c:[0-9]*: length: ctk_long_one is 61 lines, over 60: split it into steps$' "$T/out.log"

# the call rule, from objects: base/ calling cli/'s ctk_cli_warn
printf 'void ctk_cli_warn(const char *, ...);\nvoid ctk_up(void) { ctk_cli_warn("x"); }\n' >"$T/up.c"
printf 'void ctk_cli_warn(const char *f, ...) { (void)f; }\n' >"$T/cli.c"
mkdir -p "$T/b/generator/base" "$T/b/generator/cli"
cc -c -o "$T/b/generator/base/up.o" "$T/up.c" && cc -c -o "$T/b/generator/cli/cli.o" "$T/cli.c"
rc=0
sh "$S/build-aux/check-layers.sh" "$S" "$T/b" >"$T/out.log" 2>&1 || rc=$?
check "a base object calling cli/'s ctk_cli_warn (exit 1)" [ "$rc" -eq 1 ]
check "  named as a call breach" grep -q '^generator/base/up.o: call: ctk_cli_warn of cli/cli, above or beside base/$' "$T/out.log"
printf 'int helper(void) { return 1; }\n' >"$T/h.c"
cc -c -o "$T/b/generator/base/h.o" "$T/h.c"
sh "$S/build-aux/check-layers.sh" "$S" "$T/b" >"$T/out.log" 2>&1
check "  an export without ctk_ is named" grep -q '^generator/base/h.o: export: helper is exported without the ctk_ prefix$' "$T/out.log"

# the loop rule, from objects: two modules of one folder calling each other
mkdir -p "$T/l/generator/base"
printf 'void ctk_b(void);\nvoid ctk_a(void) { ctk_b(); }\n' >"$T/a.c"
printf 'void ctk_c(void);\nvoid ctk_b(void) { ctk_c(); }\n' >"$T/b.c"
printf 'void ctk_a(void);\nvoid ctk_c(void) { ctk_a(); }\n' >"$T/c.c"
for m in a b; do cc -c -o "$T/l/generator/base/$m.o" "$T/$m.c"; done
printf 'void ctk_c(void) { }\n' >"$T/c0.c"
cc -c -o "$T/l/generator/base/c.o" "$T/c0.c"
check "modules calling down a chain, a -> b -> c, keep the rule" sh "$S/build-aux/check-layers.sh" "$S" "$T/l"
cc -c -o "$T/l/generator/base/c.o" "$T/c.c"
rc=0
sh "$S/build-aux/check-layers.sh" "$S" "$T/l" >"$T/out.log" 2>&1 || rc=$?
check "c calling a back makes a loop (exit 1)" [ "$rc" -eq 1 ]
check "  named with the whole loop" grep -Eq '^generator/base/[abc].o: loop: modules call each other: base/([abc]) -> base/[abc] -> base/[abc] -> base/\1$' "$T/out.log"
check "  once" [ "$(grep -c ': loop: ' "$T/out.log")" -eq 1 ]
finish
