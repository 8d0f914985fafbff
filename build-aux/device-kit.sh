#!/bin/sh
# device-kit.sh - gather what `ctkgen validate` and the device scripts need
# on a GPU machine that has a CUDA toolkit and a compiler but no Lua, no
# Tcl, no module system and no package registry, into .deps-device/
# (ignored by git; carried next to the tree, which limits it to 64 MiB:
# it is about 31 MiB, Slurm 18 of them and Lmod 5).
# SPDX-License-Identifier: MIT
#
#   bin/ctkgen            the binary built here (glibc of this machine or older)
#   lib/liblua5.4.so.0    the one library it needs that such machines lack
#   tcl/                  tclsh 8.6 + libtcl8.6 unpacked from Debian packages
#   bin/tclsh             a wrapper that runs that tclsh with its own library
#   modules/              Environment Modules (modulecmd.tcl), as deps.sh unpacked it
#   pkgconf/              the pkgconf CLI and libpkgconf, unpacked from Debian packages
#   slurm/                Slurm (slurmctld, slurmd, slurmstepd, the clients, the
#                         plugins) and munge from Debian packages, with every
#                         library they need but glibc's; an install prefix that
#                         tests/slurm-cluster.sh takes as CTK_SLURM_PREFIX:
#     sbin/ bin/            wrappers: munged slurmctld slurmd slurmstepd; sinfo
#                           sbatch squeue scancel srun scontrol ... munge unmunge
#     libexec/              the binaries they run
#     lib/                  the libraries (libmunge, libhwloc, liblz4, ...)
#     lib/slurm/            libslurmfull.so and the plugins (PluginDir)
#     env.sh                prints CTK_SLURM_PREFIX and PATH for the kit:
#                           eval "$(sh .deps-device/slurm/env.sh)"
#     PACKAGES              the Debian packages it holds, with their versions
#   lmod/                 Lmod 8.6.19 (Debian's lmod) and the Lua 5.3 it runs on,
#                         from Debian packages, with every library they need but
#                         glibc's; no file outside the kit is read (see below):
#     bin/lmod              wrapper, for LMOD_EXEC: "$LMOD_EXEC" bash load MOD
#     bin/lua5.3            wrapper: the kit's lua5.3 with the kit's libraries
#                           (given to the loader) and Lua modules alone
#     lmod/                 Lmod's tree (libexec/lmod, tools, shells, messageDir,
#                           init, lib/tcl2lua.so), edited to take its Lua paths
#                           and its lua5.3 from the kit
#     libexec/lua5.3        the interpreter the wrappers run
#     share/lua/5.3/ lib/lua/5.3/   posix, lfs, term, json, lpeg
#     lib/                  libreadline, libtinfo, libcrypt, libtcl8.6, libz
#     PACKAGES              the Debian packages it holds, with their versions
#                         (Tcl modulefiles also take tcl/'s script library)
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

# carry_libs PREFIX LIBPATH FILE...: copy into PREFIX/lib every library that
# ldd resolves for FILE (LIBPATH searched first) outside PREFIX, but glibc's
# (the GPU machine's own serves, 2.36 or newer), taken from the Debian
# packages that hold them here; those packages' .deb files stay in
# $kit/debs for the caller's PACKAGES list.  ldd and dpkg -S need the
# libraries installed here (build-aux/deps.sh installs what the kit uses).
carry_libs() {
    cl_p=$1 cl_path=$2; shift 2
    # SONAME PATH of every library FILE loads but PREFIX's own
    cl_libs=$(for f; do LD_LIBRARY_PATH="$cl_path" ldd "$f" 2>/dev/null; done |
        awk -v kit="$cl_p/" '$2 == "=>" && index($3, kit) != 1 { print $1, $3 }' | sort -u)
    cl_missing=$(echo "$cl_libs" | awk '$2 == "not" { printf " %s", $1 }')
    [ -z "$cl_missing" ] || { echo "device-kit: not found here:$cl_missing (build-aux/deps.sh installs the packages the kit takes)" >&2; exit 1; }
    # SONAME PACKAGE, glibc's left out
    cl_owners=$(echo "$cl_libs" | while read -r so _; do
            echo "$so $(dpkg -S "*/x86_64-linux-gnu/$so" | sed -n '1s/:.*//p')"
        done | awk '$2 != "libc6"')
    mkdir -p "$kit/debs" "$kit/root" "$cl_p/lib"
    # shellcheck disable=SC2046
    ( cd "$kit/debs" && apt-get download $(echo "$cl_owners" | awk '{ print $2 }' | sort -u) >/dev/null 2>&1 )
    for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$kit/root"; done
    for so in $(echo "$cl_owners" | awk '{ print $1 }'); do
        f=$(find "$kit/root" -name "$so" | head -n 1)
        [ -n "$f" ] || { echo "device-kit: $so is in none of the packages fetched" >&2; exit 1; }
        cp -L "$f" "$cl_p/lib/$so"
    done
    rm -rf "$kit/root"
}

# Slurm and munge, for build-aux/device-slurm.sh.  Their libraries come from
# Debian packages too: every library that ldd resolves for a binary or a
# plugin here, but glibc's (the GPU machine's own serves, 2.36 or newer).
# ldd and dpkg -S need the Slurm packages installed here (build-aux/deps.sh).
s=$kit/slurm
multi=usr/lib/x86_64-linux-gnu
mkdir -p "$kit/debs" "$kit/root" "$s/bin" "$s/sbin" "$s/libexec" "$s/lib"
( cd "$kit/debs" && apt-get download slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2 >/dev/null 2>&1 )
for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$kit/root"; done
mv "$kit/root/$multi/slurm-wlm" "$s/lib/slurm"
cp -P "$kit/root/$multi"/libmunge.so.* "$s/lib/"
for b in slurmctld slurmd slurmstepd; do mv "$kit/root/usr/sbin/$b-wlm" "$s/libexec/$b"; done
mv "$kit/root/usr/sbin/munged" "$kit/root/usr/bin"/* "$s/libexec/"
mv "$kit/debs" "$kit/debs-slurm"
rm -rf "$kit/root"
carry_libs "$s" "$s/lib:$s/lib/slurm" "$s"/libexec/* "$s"/lib/slurm/*.so
# plain files only: each link becomes a copy of what it names
find "$s" -type l | while read -r l; do cp -L "$l" "$l.f" && mv -f "$l.f" "$l"; done
for d in "$kit"/debs-slurm/*.deb "$kit"/debs/*.deb; do dpkg-deb -f "$d" Package Version | sed "s/^[A-Za-z]*: //" | paste -sd ' '; done |
    sort > "$s/PACKAGES"
rm -rf "$kit/debs" "$kit/debs-slurm" "$kit/root"
# One wrapper per program.  The library dirs go to the dynamic loader as an
# option, as for tclsh: nothing these programs start (slurmd starts
# slurmstepd, slurmstepd the job, ctkgen's job its probes) inherits them,
# and the plugins they dlopen find their libraries through the same path.
# slurmd and slurmstepd also get HWLOC_PLUGINS_PATH, a dir with no plugin:
# libhwloc would otherwise load the host's hwloc plugins (hwloc_opencl
# opens the GPU driver); a job's environment is the one its submitter
# sent, so the variable goes no further.
mkdir -p "$s/lib/hwloc"
for b in "$s"/libexec/*; do
    n=${b##*/}
    case $n in munged | slurmctld | slurmd | slurmstepd) w=$s/sbin/$n ;; *) w=$s/bin/$n ;; esac
    # shellcheck disable=SC2016
    case $n in slurmd | slurmstepd) hw='HWLOC_PLUGINS_PATH=$k/lib/hwloc ' ;; *) hw= ;; esac
    cat > "$w" <<SH
#!/bin/sh
# $n from the kit (build-aux/device-kit.sh), with the kit's libraries
k=\$(CDPATH= cd "\$(dirname "\$0")/.." && pwd)
${hw}exec /lib64/ld-linux-x86-64.so.2 --library-path "\$k/lib:\$k/lib/slurm" "\$k/libexec/$n" "\$@"
SH
    chmod 755 "$w"
done
cat > "$s/env.sh" <<'SH'
#!/bin/sh
# env.sh - print what puts the kit's Slurm and munge first on PATH and names
# the kit as the prefix tests/slurm-cluster.sh runs from:
#   eval "$(sh .deps-device/slurm/env.sh)"
p=$(CDPATH= cd "$(dirname "$0")" && pwd)
printf "CTK_SLURM_PREFIX='%s'\nPATH='%s/bin:%s/sbin:%s'\nexport CTK_SLURM_PREFIX PATH\n" "$p" "$p" "$p" "$PATH"
SH

# Lmod, for the client tests under Lmod (build-aux/device-clients.sh sets
# LMOD_EXEC to lmod/bin/lmod).  Debian's lmod runs as `#!/usr/bin/lua5.3`
# and sets package.path and package.cpath to the system's Lua dirs itself,
# so LUA_PATH would not reach it; everything else it reads it finds from
# its own script's path (cmdDir(): messageDir, init/lmodrc.lua, tools,
# shells, computeHashSum, lib/tcl2lua.so), and /etc/lmod, absent there, is
# optional.  Two edits make the copy the kit's alone:
#   - every script's sys_lua_path and sys_lua_cpath become Lmod's own
#     "@...@" placeholders, for which it keeps the package.path and
#     package.cpath that the kit's lua5.3 was started with;
#   - findLuaProg (which runs computeHashSum, and spider to explain a
#     failed load) returns the kit's lua5.3, found from cmdDir(), not
#     /usr/bin/lua5.3.
# Not made the kit's: tcl2lua.tcl's lua5.3 and lmod paths (Tcl
# modulefiles calling is-avail), luac5.3 and tclsh (spider caches, and
# LMOD_FAST_TCL_INTERP=no), and the paths `module --config` prints.
l=$kit/lmod
mkdir -p "$kit/debs" "$kit/root" "$l/bin" "$l/libexec" "$l/share" "$l/lib"
( cd "$kit/debs" && apt-get download lmod lua5.3 lua-filesystem lua-json lua-lpeg lua-posix lua-term >/dev/null 2>&1 )
for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$kit/root"; done
lmodv=$(readlink "$kit/root/usr/share/lmod/lmod")    # lmod -> 8.6.19
rm "$kit/root/usr/share/lmod/$lmodv/lib"
mv "$kit/root/usr/share/lmod/$lmodv" "$l/lmod"
mv "$kit/root/usr/lib/lmod/$lmodv/lib" "$l/lmod/lib"
rm -rf "$l/lmod/share"                       # the man page
mv "$kit/root/usr/bin/lua5.3" "$l/libexec/lua5.3"
# Lua 5.3's dirs alone, as plain files: the C modules are links to the
# versioned libraries in $multi, the Lua files links into lua/5.1
mkdir -p "$l/share/lua" "$l/lib/lua"
cp -RL "$kit/root/usr/share/lua/5.3" "$l/share/lua/5.3"
cp -RL "$kit/root/$multi/lua/5.3" "$l/lib/lua/5.3"
mv "$kit/debs" "$kit/debs-lmod"
rm -rf "$kit/root"
# shellcheck disable=SC2046
carry_libs "$l" "$l/lib" "$l/libexec/lua5.3" $(find "$l/lib/lua" "$l/lmod/lib" -name '*.so*' -type f)
find "$l" -type l | while read -r f; do cp -L "$f" "$f.f" && mv -f "$f.f" "$f"; done
rm -f "$l/lmod/lib"/tcl2lua.so.*             # what require("tcl2lua") opens is tcl2lua.so
grep -rl '^local sys_lua_c\{0,1\}path *= *"/' "$l/lmod" | while read -r f; do
    sed -i -e 's|^\(local sys_lua_path *= *\)"[^"]*"|\1"@sys_lua_path@"|' \
        -e 's|^\(local sys_lua_cpath *= *\)"[^"]*"|\1"@sys_lua_cpath@"|' "$f"
done
sed -i 's|^\( *local luaprog, found = \)"/usr/bin/lua5\.3", false|\1pathJoin(cmdDir(), "../../bin/lua5.3"), false|' \
    "$l/lmod/libexec/utils.lua"
if grep -rq '"/usr/\(share\|lib/x86_64-linux-gnu\)/lua/5\.3' "$l/lmod" || grep -q '"/usr/bin/lua5\.3", false' "$l/lmod/libexec/utils.lua"; then
    echo "device-kit: $l/lmod still names the system's Lua (a new Lmod's layout?)" >&2; exit 1
fi
for d in "$kit"/debs-lmod/*.deb "$kit"/debs/*.deb; do dpkg-deb -f "$d" Package Version | sed "s/^[A-Za-z]*: //" | paste -sd ' '; done |
    sort > "$l/PACKAGES"
rm -rf "$kit/debs" "$kit/debs-lmod"
# lua5.3 runs with the kit's libraries (given to the loader, as for tclsh:
# Lmod builds a module's LD_LIBRARY_PATH on top of its own environment),
# with -E (no LUA_PATH, LUA_CPATH or LUA_INIT of the caller's) and the
# kit's Lua dirs alone as its package.path and package.cpath.
cat > "$l/bin/lua5.3" <<'SH'
#!/bin/sh
# lua5.3 from the kit (build-aux/device-kit.sh), with the kit's libraries and Lua modules
l=$(CDPATH= cd "$(dirname "$0")/.." && pwd)
exec /lib64/ld-linux-x86-64.so.2 --library-path "$l/lib" "$l/libexec/lua5.3" -E \
    -e "package.path = [==[$l/share/lua/5.3/?.lua;$l/share/lua/5.3/?/init.lua]==]; package.cpath = [==[$l/lib/lua/5.3/?.so]==]" "$@"
SH
# Lmod evaluates a Tcl modulefile in the Tcl of tcl2lua.so (libtcl8.6 in
# lmod/lib), whose script library is the one in the kit's tcl/; Lmod hands
# on only what modules change, so TCL_LIBRARY stays in its own process.
cat > "$l/bin/lmod" <<'SH'
#!/bin/sh
# Lmod from the kit (build-aux/device-kit.sh): LMOD_EXEC for the tests
l=$(CDPATH= cd "$(dirname "$0")/.." && pwd)
TCL_LIBRARY=${l%/*}/tcl/usr/share/tcltk/tcl8.6 exec "$l/bin/lua5.3" "$l/lmod/libexec/lmod" "$@"
SH
chmod 755 "$l/bin/lua5.3" "$l/bin/lmod"
du -sh "$kit"
