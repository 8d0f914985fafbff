#!/bin/sh
# check-layers.sh - the rules of docs/architecture.md, checked.
# SPDX-License-Identifier: MIT
#
# usage: sh build-aux/check-layers.sh [SRCDIR [BUILDDIR]]
#   SRCDIR    the source tree (default: the one this script is in)
#   BUILDDIR  where the objects are (default SRCDIR); with objects there,
#             the calls between modules are checked too (nm)
#
# The layers of generator/, top to bottom (model and sandbox side by side):
#   cli > audit > prove > output > model | sandbox > base
# Rules:
#   1. a file includes headers of its own folder or of folders below it;
#   2. with objects: a module calls only functions of its own folder or of
#      folders below it, and every function it exports is named ctk_*;
#   3. only cli/ writes to stdout or stderr;
#   4. only sandbox/ includes Lua's headers (it owns every lua_State);
#   5. jansson.h only in base/jsonio.h and model/config.c;
#      libpkgconf only in prove/pc.c;
#   6. only base/proc.c starts or reaps a process;
#   7. with objects: no modules call each other in a loop, in one folder
#      or across folders;
#   8. no function is longer than 60 lines, from its first line to its
#      closing brace.
# Prints each breach as "FILE: rule: what" and exits 1 when there is one;
# 0 with one line of counts otherwise; 2 for bad usage or no such tree.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-$here}
build=${2:-$src}
G=$src/generator
[ -d "$G/base" ] || { echo "check-layers.sh: no $G/base: not a ctkgen source tree" >&2; exit 2; }
LAYERS="cli audit prove output model sandbox base"

rank() {
    case $1 in
        cli) echo 0 ;; audit) echo 1 ;; prove) echo 2 ;; output) echo 3 ;;
        model | sandbox) echo 4 ;; base) echo 5 ;; *) echo 9 ;;
    esac
}
# may FROM use TO? (same folder, or TO lower; model and sandbox never each other)
may_use() {
    [ "$1" = "$2" ] && return 0
    [ "$(rank "$1")" -lt "$(rank "$2")" ]
}

breaches=$(mktemp "${TMPDIR:-/tmp}/check-layers-XXXXXX")
trap 'rm -f "$breaches"' EXIT INT TERM
breach() { printf '%s: %s: %s\n' "$1" "$2" "$3" >>"$breaches"; }

# header -> folder, for every header of generator/
headers=$(for l in $LAYERS; do for h in "$G/$l"/*.h; do [ -e "$h" ] && echo "${h##*/} $l"; done; done)
folder_of_header() { printf '%s\n' "$headers" | awk -v h="$1" '$1 == h { print $2; exit }'; }

# code_of FILE: its lines with comments blanked (a comment's text is no
# call), one output line per input line so that numbers stay right
code_of() {
    awk '{
        out = ""; line = $0
        while (line != "") {
            if (incomment) {
                e = index(line, "*/"); if (!e) { line = ""; break }
                line = substr(line, e + 2); incomment = 0
            } else {
                s = index(line, "/*"); d = index(line, "//")
                if (d && (!s || d < s)) { out = out substr(line, 1, d - 1); line = ""; break }
                if (!s) { out = out line; line = ""; break }
                out = out substr(line, 1, s - 1); line = substr(line, s + 2); incomment = 1
            }
        }
        print out
    }' "$1"
}

nfiles=0 nincludes=0
for l in $LAYERS; do
    for f in "$G/$l"/*.c "$G/$l"/*.h; do
        [ -e "$f" ] || continue
        nfiles=$((nfiles + 1))
        rel=${f#"$src"/}
        # 1. includes point down
        for inc in $(sed -n 's/^#include "\([^"]*\.h\)".*/\1/p' "$f"); do
            to=$(folder_of_header "$inc")
            [ -n "$to" ] || continue # ctkconf.h, kernels' headers
            nincludes=$((nincludes + 1))
            may_use "$l" "$to" || breach "$rel" "include" "$inc is in $to/, above or beside $l/"
        done
        # 3. who prints: calls outside comments (a line starting / * or *)
        if [ "$l" != cli ] && [ "${f%.c}" != "$f" ]; then
            code_of "$f" | grep -nE '(^|[^A-Za-z0-9_])(printf|vprintf|puts|putchar|perror)[[:space:]]*\(|[(,[:space:]]std(out|err)[[:space:]]*[,)]|(^|[^A-Za-z0-9_])write[[:space:]]*\((1|2|STDOUT_FILENO|STDERR_FILENO)[[:space:]]*,' |
                while IFS=: read -r n _; do
                    breach "$rel:$n" "print" "only cli/ writes to stdout or stderr"
                done
        fi
        # 4. Lua's headers
        if [ "$l" != sandbox ] && grep -qE '^#include <(lua|lauxlib|lualib)\.h>' "$f"; then
            breach "$rel" "lua" "only sandbox/ includes Lua's headers"
        fi
        # 5. jansson and libpkgconf
        case $rel in generator/base/jsonio.h | generator/model/config.c) ;; *)
            grep -q '^#include <jansson.h>' "$f" && breach "$rel" "jansson" "only base/jsonio.h and model/config.c include jansson.h" ;;
        esac
        case $rel in generator/prove/pc.c) ;; *)
            grep -q '^#include <libpkgconf/' "$f" && breach "$rel" "libpkgconf" "only prove/pc.c includes libpkgconf" ;;
        esac
        # 8. function length: a body opens with "{" alone at the start of a
        # line; the function starts at the first line of its signature
        if [ "${f%.c}" != "$f" ]; then
            awk -v max=60 '
                /^[^ \t#\/*}]/ { if (!sig) { sig = NR; name = $0 } }
                /^$/ || /^[#\/*]/ || /;[ \t]*$/ { if ($0 !~ /^{/) sig = 0 }
                /^{$/ { start = sig ? sig : NR }
                /^}/ && start { if (NR - start + 1 > max) printf "%d:%d:%s\n", start, NR - start + 1, name; start = 0; sig = 0 }
            ' "$f" | while IFS=: read -r n len head; do
                fn=$(printf '%s\n' "$head" | sed -n 's/^[^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*(.*/\1/p')
                breach "$rel:$n" "length" "${fn:-a function} is $len lines, over 60: split it into steps"
            done
        fi
        # 6. processes
        case $rel in generator/base/proc.c) ;; *)
            code_of "$f" | grep -nE '(^|[^A-Za-z0-9_])(posix_spawnp?|fork|vfork|execve|execvp|execv|execl|execlp|popen|system|waitpid|wait4|waitid)[[:space:]]*\(' |
                while IFS=: read -r n _; do
                    breach "$rel:$n" "process" "only base/proc.c starts or reaps a process"
                done ;;
        esac
    done
done

# 2. calls, from the objects when they are built
ncalls=-
objs=$(for l in $LAYERS; do ls "$build/generator/$l"/*.o 2>/dev/null; done)
if [ -n "$objs" ] && command -v nm >/dev/null; then
    for o in $objs; do
        l=${o%/*}; l=${l##*/}; m=${o##*/}; m=${m%.o}
        nm "$o" | awk -v l="$l" -v m="$m" '$2 ~ /^[TDBR]$/ { print "D", $3, l, m } $1 == "U" { print "U", $2, l, m }'
    done | awk '
        $1 == "D" { def[$2] = $3 " " $4; if ($2 !~ /^ctk_/ && $2 !~ /^_/ && $2 != "main") print "export", $4, $3, $2 }
        $1 == "U" { use[++n] = $2 " " $3 " " $4 }
        END { for (i = 1; i <= n; i++) { split(use[i], u, " "); if (u[1] in def) { split(def[u[1]], d, " ")
              if (d[2] != u[3]) print "call", u[3], u[2], u[1], d[1], d[2] } } }' >"$breaches.calls"
    ncalls=0
    # 7. loops: every edge module -> module, then a depth-first walk
    awk '$1 == "call" { e = $3 "/" $2 " " $5 "/" $6; if (!(e in seen)) { seen[e] = 1; print e } }' "$breaches.calls" |
        awk '
            { n[$1]++; to[$1, n[$1]] = $2; node[$1] = 1; node[$2] = 1 }
            function visit(v,    i, w, k, path) {
                state[v] = 1; stack[++depth] = v
                for (i = 1; i <= n[v]; i++) {
                    w = to[v, i]
                    if (state[w] == 1) {
                        path = w
                        for (k = depth; k >= 1 && stack[k] != w; k--) path = stack[k] " -> " path
                        print w " -> " path
                    } else if (!state[w])
                        visit(w)
                }
                depth--; state[v] = 2
            }
            END { for (v in node) if (!state[v]) visit(v) }' |
        while read -r first rest; do
            breach "generator/$first.o" "loop" "modules call each other: $first $rest"
        done
    while read -r kind m l sym to tm; do
        case $kind in
            export) breach "generator/$l/$m.o" "export" "$sym is exported without the ctk_ prefix" ;;
            call)
                ncalls=$((ncalls + 1))
                may_use "$l" "$to" || breach "generator/$l/$m.o" "call" "$sym of $to/$tm, above or beside $l/" ;;
        esac
    done <"$breaches.calls"
    rm -f "$breaches.calls"
fi

if [ -s "$breaches" ]; then
    sort "$breaches"
    echo "check-layers.sh: $(wc -l <"$breaches") breach(es) of docs/architecture.md's rules" >&2
    exit 1
fi
if [ "$ncalls" = - ]; then
    calls="calls not checked (no objects under $build/generator)"
else
    calls="$ncalls calls between modules"
fi
echo "check-layers.sh: $nfiles files, $nincludes includes between modules, $calls: every rule holds"
