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
# SONAME PATH of every library the binaries and plugins load but the kit's own
libs=$(for f in "$s"/libexec/* "$s"/lib/slurm/*.so; do
        LD_LIBRARY_PATH="$s/lib:$s/lib/slurm" ldd "$f" 2>/dev/null
    done | awk -v kit="$s/" '$2 == "=>" && index($3, kit) != 1 { print $1, $3 }' | sort -u)
missing=$(echo "$libs" | awk '$2 == "not" { printf " %s", $1 }')
[ -z "$missing" ] || { echo "device-kit: not found here:$missing (build-aux/deps.sh installs the Slurm packages)" >&2; exit 1; }
# SONAME PACKAGE, glibc's left out
owners=$(echo "$libs" | while read -r so _; do
        echo "$so $(dpkg -S "*/x86_64-linux-gnu/$so" | sed -n '1s/:.*//p')"
    done | awk '$2 != "libc6"')
mkdir -p "$kit/debs" "$kit/root"
# shellcheck disable=SC2046
( cd "$kit/debs" && apt-get download $(echo "$owners" | awk '{ print $2 }' | sort -u) >/dev/null 2>&1 )
for d in "$kit"/debs/*.deb; do dpkg -x "$d" "$kit/root"; done
for so in $(echo "$owners" | awk '{ print $1 }'); do
    f=$(find "$kit/root" -name "$so" | head -n 1)
    [ -n "$f" ] || { echo "device-kit: $so is in none of the packages fetched" >&2; exit 1; }
    cp -L "$f" "$s/lib/$so"
done
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
du -sh "$kit"
