#!/bin/sh
# device-kit.sh - gather what `ctkgen validate` needs on a GPU machine that
# has a CUDA toolkit and a compiler but no Lua, no Tcl and no package
# registry, into .deps-device/ (ignored by git; carried next to the tree).
# SPDX-License-Identifier: MIT
#
#   bin/ctkgen            the binary built here (glibc of this machine or older)
#   lib/liblua5.4.so.0    the one library it needs that such machines lack
#   tcl/                  tclsh 8.6 + libtcl8.6 unpacked from Debian packages
#   bin/tclsh             a wrapper that runs that tclsh with its own library
#   modules/              Environment Modules (modulecmd.tcl), as deps.sh unpacked it
#   pkgconf/              the pkgconf CLI and libpkgconf, unpacked from Debian packages
#
# usage: build-aux/device-kit.sh BUILDDIR     (BUILDDIR holds a built ctkgen)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: device-kit.sh BUILDDIR}
kit=$top/.deps-device
rm -rf "$kit"
mkdir -p "$kit/bin" "$kit/lib" "$kit/tcl" "$kit/debs"
cp "$build/ctkgen" "$kit/bin/ctkgen"
cp -L "$(ldconfig -p | sed -n 's/.*liblua5\.4\.so\.0 (libc6,x86-64) => //p' | head -n 1)" "$kit/lib/liblua5.4.so.0"
( cd "$kit/debs" && apt-get download tcl8.6 libtcl8.6 >/dev/null 2>&1 )
for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$kit/tcl"; done
rm -rf "$kit/debs"
# the pkgconf CLI, for build-aux/device-artifacts.sh
mkdir -p "$kit/debs" "$kit/pkgconf"
( cd "$kit/debs" && apt-get download pkgconf-bin libpkgconf3 >/dev/null 2>&1 )
for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$kit/pkgconf"; done
rm -rf "$kit/debs"
# The library dir goes to the dynamic loader as an option, not through
# LD_LIBRARY_PATH: modulecmd.tcl builds the module's LD_LIBRARY_PATH on top
# of its own environment, so a variable set here would leak into the result.
cat > "$kit/bin/tclsh" <<'SH'
#!/bin/sh
kit=$(cd "$(dirname "$0")/.." && pwd)
TCL_LIBRARY=$kit/tcl/usr/share/tcltk/tcl8.6 \
exec /lib64/ld-linux-x86-64.so.2 --library-path "$kit/tcl/usr/lib/x86_64-linux-gnu" \
    "$kit/tcl/usr/bin/tclsh8.6" "$@"
SH
chmod +x "$kit/bin/tclsh"
cp -a "$top/.deps-local/environment-modules" "$kit/modules"
du -sh "$kit"
