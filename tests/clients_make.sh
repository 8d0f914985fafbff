#!/bin/sh
# clients_make.sh - a plain Makefile with $(shell pkg-config ...) and an
# autotools project with PKG_CHECK_MODULES (tests/clients/make,
# tests/clients/autotools) over every toolkit of the multi-toolkit site,
# through real Lmod, real Environment Modules and the .pc files alone.
# SPDX-License-Identifier: MIT
#
# Each build must take the toolkit's libcudart, libcublas and libcublasLt
# at link time (-Wl,--trace) and at run time (ldd in the same
# environment), and the program must report the toolkit's release
# (cudaRuntimeGetVersion needs no GPU).  With the module loaded, the
# module's PKG_CONFIG_PATH finds the .pc; with none, PKG_CONFIG_PATH names
# OUT/pkgconfig.  Known failure (issue 15): the 13.5 wheel tree has only
# versioned libraries, so -lcudart -lcublas link another toolkit's copies.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null 2>&1 || skip "make not installed"
command -v cc >/dev/null 2>&1 || skip "no C compiler (cc)"
. "$top_srcdir/tests/clients-lib.sh"
have_autotools=yes
for t in autoreconf autoconf automake; do
    command -v $t >/dev/null 2>&1 || have_autotools=no
done
[ -f /usr/share/aclocal/pkg.m4 ] || [ -f "$(aclocal --print-ac-dir 2>/dev/null)/pkg.m4" ] || have_autotools=no

AT=$T/autotools-src
if [ $have_autotools = yes ]; then
    mkdir -p "$AT" && cp -L "$top_srcdir"/tests/clients/autotools/* "$AT/"
    ( cd "$AT" && autoreconf -fi ) >"$T/autoreconf.log" 2>&1 ||
        { sed 's/^/# /' "$T/autoreconf.log"; fail "autotools: autoreconf -fi of the tiny project"; have_autotools=no; }
else
    echo "# SKIP: autotools: autoreconf, automake or pkg.m4 missing (build-aux/deps.sh installs them)"
fi

# why NAME STEP: why STEP (link, run, version) fails today, or nothing
why() {
    case $1:$2 in
    esac
}
# checks CLIENT NAME SYS RUN BUILDLOG PROG: the link, run and version checks
checks() {
    ck_tag="$1: $3: cudatoolkit/$2"
    claim "$ck_tag: every CUDA library the linker took is the toolkit's (-Wl,--trace)" \
        "$(why "$2" link)" all_in_toolkit "$2" "$(libs_in_trace "$5")" "linked library"
    claim "$ck_tag: every CUDA library loaded at run time is the toolkit's (ldd)" \
        "$(why "$2" run)" all_in_toolkit "$2" "$(libs_at_run "$4" "$6")" "loaded library"
    check_version "$ck_tag" "$2" "$4" "$6" "$(why "$2" version)"
}

for n in 13.0 12.4 11.8 13.5 13.0-hpcsdk25.9; do
    for sys in lmod tcl pc; do
        run=$(sys_env "$sys" "$n")
        # the plain Makefile
        B=$T/make-$sys-$n
        mkdir -p "$B" && cp "$top_srcdir"/tests/clients/make/Makefile "$top_srcdir"/tests/clients/make/prog.c "$B/"
        if $run make -C "$B" CTK="$n" LDFLAGS=-Wl,--trace >"$B.log" 2>&1; then
            pass "make: $sys: cudatoolkit/$n: \$(shell pkg-config --cflags/--libs ctk-$n ctk-cublas-$n) builds"
            checks make "$n" "$sys" "$run" "$B.log" "$B/prog"
        else
            sed -n '1,5s/^/# /p' "$B.log"
            fail "make: $sys: cudatoolkit/$n: \$(shell pkg-config --cflags/--libs ctk-$n ctk-cublas-$n) builds"
        fi
        # autotools, built out of tree
        [ $have_autotools = yes ] || continue
        B=$T/at-$sys-$n
        mkdir -p "$B"
        if (cd "$B" && $run "$AT/configure" CTK_NAME="$n" LDFLAGS=-Wl,--trace) >"$B.cfg" 2>&1 &&
                $run make -C "$B" >"$B.log" 2>&1; then
            pass "autotools: $sys: cudatoolkit/$n: PKG_CHECK_MODULES([CTK], [ctk-$n ctk-cublas-$n]) configures and builds"
            checks autotools "$n" "$sys" "$run" "$B.log" "$B/prog"
        else
            tail -n 5 "$B.cfg" "$B.log" 2>/dev/null | sed 's/^/# /'
            fail "autotools: $sys: cudatoolkit/$n: PKG_CHECK_MODULES([CTK], [ctk-$n ctk-cublas-$n]) configures and builds"
        fi
    done
done
finish
