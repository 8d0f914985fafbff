#!/bin/sh
# deps.sh - install what ctkgen needs to build and test, on Debian (idempotent).
# SPDX-License-Identifier: MIT
#
# Debian packages come from apt; Environment Modules conflicts with Lmod as a
# package, so it is unpacked privately under .deps-local/ with dpkg -x.
# CTK_DEPS_EXTRA names more packages to install with them.  Not root and no
# sudo: it installs nothing, prints the apt-get line to run as root and,
# when something is missing, exits 1.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

# clang's sanitizer and libFuzzer runtimes (libclang-rt-dev) are only a
# recommendation of clang, so they are named; procps gives the tests pgrep
# and ps, which see processes left behind; Slurm's daemons and munge are for
# the test cluster tests/slurm-cluster.sh starts and stops by itself; xmllint
# checks the HTML page validate writes; gcc-11/g++-11 are the host compiler
# of CUDA 11.8 (its nvcc refuses gcc 12) in the multi-toolkit fixture
# (tests/site-fixture.sh), which also needs debian-archive-keyring to check
# the package lists it fetches; cmake, meson, ninja-build and python3-venv
# are the build tools the client tests (tests/clients_*.sh) run over it
# (autoconf and automake above build the tiny autotools project too)
pkgs="build-essential autoconf automake pkgconf libpkgconf-dev liblua5.4-dev
      libjansson-dev check lmod tcl8.6 lua5.4 jq strace python3-pip clang
      libclang-rt-dev valgrind procps slurmctld slurmd slurm-client munge
      libxml2-utils gcc-11 g++-11 debian-archive-keyring
      cmake meson ninja-build python3-venv
      ${CTK_DEPS_EXTRA:-}"
missing=
for p in $pkgs; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
        missing="$missing $p"
done
sudo=
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=sudo
    elif [ -n "$missing" ] || [ ! -d "$top/.deps-local/environment-modules" ]; then
        echo "deps: not root and no sudo here, so nothing can be installed." >&2
        [ -z "$missing" ] || {
            echo "deps: as root (su -), run:" >&2
            echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
        }
        echo "deps: then run this command again as yourself." >&2
        [ -z "$missing" ] || exit 1
    fi
fi
if [ -n "$missing" ]; then
    echo "deps: installing$missing"
    $sudo apt-get update -q
    # no service starts behind the admin's back (munge, slurmd): the test
    # cluster runs its own daemons; an existing policy-rc.d is left alone
    policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\n# deps.sh: no service starts while it installs\nexit 101\n' | $sudo tee "$policy" >/dev/null
        $sudo chmod 755 "$policy"
    fi
    rc=0
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing || rc=$?
    [ -z "$policy" ] || $sudo rm -f "$policy"
    [ "$rc" = 0 ] || exit "$rc"
fi

# modulecmd.tcl is in usr/lib/<multiarch>/ of the package: find it, whatever
# the architecture (quickstart.sh looks for it the same way)
em=$top/.deps-local/environment-modules
if [ -z "$(find "$em" -name modulecmd.tcl -type f 2>/dev/null | head -n 1)" ]; then
    echo "deps: unpacking environment-modules into $em"
    tmp=$(mktemp -d)
    ( cd "$tmp" && apt-get download environment-modules >/dev/null 2>&1 ) || {
        $sudo apt-get update -q
        ( cd "$tmp" && apt-get download environment-modules )
    }
    mkdir -p "$em"
    dpkg -x "$tmp"/environment-modules_*.deb "$em"
    rm -rf "$tmp"
    [ -n "$(find "$em" -name modulecmd.tcl -type f | head -n 1)" ] || {
        echo "deps: the environment-modules package holds no modulecmd.tcl (looked under $em)" >&2
        exit 1
    }
fi
echo "deps: ok"
