#!/bin/sh
# site-fixture.sh - a multi-toolkit site (CUDA 13.0, 12.4, 11.8, a 13.5 wheel tree, an HPC SDK split) for tests.
# SPDX-License-Identifier: MIT
#
# usage: site-fixture.sh CUDA_ROOT
#
# CUDA_ROOT is this machine's CUDA 13.0 toolkit (configure's; in CI
# /usr/local/cuda-13.0).  The other toolkits are real ones, fetched once and
# kept in a cache outside the clone:
#
#   CACHE/debian-bookworm/cuda-11.8   Debian 12's non-free nvidia-cuda-toolkit 11.8.89
#   CACHE/debian-trixie/cuda-12.4     Debian 13's non-free nvidia-cuda-toolkit 12.4.131
#       fetched with a private apt configuration (CACHE/apt/SUITE: its own
#       sources.list for SUITE's main and non-free, lists, archives and an
#       empty dpkg status; signatures checked against the
#       debian-archive-keyring; Debug::NoLocking; the system's apt state is
#       never read or written), `apt-get download` of nvidia-cuda-toolkit,
#       nvidia-cuda-dev and the library packages a toolkit needs (cudart,
#       nvrtc, nvvm, cuBLAS, cuFFT, cuRAND, CUPTI, nvJitLink, NVTX and the
#       CCCL headers), unpacked with dpkg -x and assembled into a
#       relocatable runfile-style prefix:
#           bin/{nvcc,ptxas,fatbinary,nvlink,cudafe++,...,crt/}, bin/nvcc.profile
#           targets/<arch>/{include,lib}, include -> ..., lib64 -> ...
#           nvvm/{bin/cicc,libdevice,lib64/libnvvm.so*,include/nvvm.h}
#           extras/CUPTI/{include,lib64}
#           version.json      "cuda" X.Y.Z and "cuda_nvcc" from the package's version
#       Debian's own tree cannot be moved: /usr/bin/nvcc execs
#       /usr/lib/nvidia-cuda-toolkit/bin/nvcc, whose nvcc.profile
#       (-> /etc/nvcc.profile) names /usr/... paths.  The assembled
#       nvcc.profile is the runfile's: everything relative to $(_HERE_), so
#       nvcc finds cicc (nvvm/bin, put on its PATH), ptxas (its own dir),
#       libdevice, the headers and the libraries under the prefix.  Debian's
#       gcc/g++ wrappers (which pick a g++ the release accepts) are left out,
#       as a runfile install has none: 11.8 needs its host compiler named
#       (g++-11; its nvcc refuses gcc 12).  Static libraries other than
#       libcudart_static.a are dropped (3 GB of the 4 GB unpacked), and so are
#       links to libraries not fetched (cuSPARSE, cuSOLVER, NPP, nvJPEG).
#   CACHE/wheel-13.5/site-packages    NVIDIA's CUDA 13.5 wheels (nvidia-cuda-nvcc,
#       nvidia-nvvm, nvidia-cuda-runtime, nvidia-cuda-crt, nvidia-cuda-cccl,
#       nvidia-cublas, nvidia-cuda-cupti, nvidia-cuda-nvrtc), pinned by version
#       and sha256, installed by `pip install --no-deps --target` exactly as pip
#       lays them out: the toolkit is site-packages/nvidia/cu13, with only the
#       versioned libraries (libcudart.so.13, no libcudart.so) and *.dist-info.
#   CACHE/hpcsdk-<key>/hpcsdk/Linux_<cpu>/25.9/{cuda,math_libs,comm_libs}/13.0
#       tests/fixtures.sh over CUDA_ROOT (its HPC SDK split tree).
#   CACHE/site-<key>/site.json        the site config naming all five, with
#       their real paths (11.8 with host_compiler.ccbin /usr/bin/g++-11).
# <key> is a checksum of CUDA_ROOT.  Downloads stay in CACHE/debs/SUITE
# and CACHE/wheels, checked against the signed package lists' and the pinned
# sha256 sums, so a second run downloads nothing; a finished tree is
# stamped (.stamp) and is not touched again.  Each tree is verified before
# it is stamped: its nvcc compiles a small CUDA program, links it against
# the tree's own libcudart (the shared one for the Debian trees, nvcc's
# default static one for the wheel tree), and `nvcc --version` says the
# release.
#
# CACHE is $CTK_FIXTURE_CACHE, else /var/cache/ctkgen-fixtures as root,
# else ${XDG_CACHE_HOME:-$HOME/.cache}/ctkgen-fixtures.  About 3.3 GB of
# packages and wheels downloaded, 7.7 GB in the cache with the trees
# (docs/testing.md has the measurements).  Safe to run concurrently: one lock (flock, else a mkdir
# lock) on CACHE/.lock serialises builders, each tree is built in
# DIR.tmp and renamed into place.  CTK_FIXTURE_MIRROR is the Debian mirror
# (default http://deb.debian.org/debian).
#
# Prints the directory holding site.json.  Exit status: 0 done; 2 usage;
# 3 the fixture cannot be had here (no network and nothing cached, not an
# x86_64 host, no apt-get, dpkg, pip or g++-11): the reason is on stderr,
# and callers skip (77) and say so; 1 anything else.
set -eu

usage() { echo "usage: $0 CUDA_ROOT" >&2; exit 2; }
[ $# -eq 1 ] || usage
src=$1
case $src in /*) ;; *) src=$(cd "$src" && pwd) ;; esac
src=${src%/}
here=$(cd "$(dirname "$0")" && pwd)
umask 022

FORMAT=1
MIRROR=${CTK_FIXTURE_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
HCC_11=/usr/bin/g++-11

# the 13.5 wheels: package version file sha256
WHEELS='nvidia-cuda-nvcc 13.5.37 nvidia_cuda_nvcc-13.5.37-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl f5c4f7ead5d964fb4af42bbf1e6d3ec3c1e6e9d83b53749f691d387e7fcaa3a7
nvidia-nvvm 13.5.37 nvidia_nvvm-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl c41bfa362e407405163f103c2229f0765f8cc2ed7d148b754dc77f228bf7e070
nvidia-cuda-runtime 13.5.37 nvidia_cuda_runtime-13.5.37-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl df2b79a8852f10d1fef8c848489c49eebb5754051bf870202a862831412b179d
nvidia-cuda-crt 13.5.37 nvidia_cuda_crt-13.5.37-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl e898b7f73d3035fa89915a3f7bf3b54a73e90249746111aed295822c4729bb29
nvidia-cuda-cccl 13.3.5.0.6 nvidia_cuda_cccl-13.3.5.0.6-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl d5230098fa2df5021e1a00c0c4eee41797671a91119d31e892463e5ccf3ee326
nvidia-cublas 13.10.0.20 nvidia_cublas-13.10.0.20-py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.whl dcc6d63884c53d07e267ce7e6feac17b2538cebaafec5db865736c3e28e4dc84
nvidia-cuda-cupti 13.5.25 nvidia_cuda_cupti-13.5.25-py3-none-manylinux_2_25_x86_64.whl 9dcca41c12a734192b14e7128ae116bc9ce1b9da686e2ebf48ae7a4415f76650
nvidia-cuda-nvrtc 13.5.37 nvidia_cuda_nvrtc-13.5.37-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl 86b4d68058807988b7d9af5b44917a0601e9c337f35ccd657bfb3c759ff8d8bc'
WHEEL_MM=13.5

cannot() { echo "$0: $*" >&2; exit 3; }
die() { echo "$0: $*" >&2; exit 1; }
say() { echo "site-fixture: $*" >&2; }

# ---- the cache ---------------------------------------------------------------------
if [ -n "${CTK_FIXTURE_CACHE:-}" ]; then
    cache=$CTK_FIXTURE_CACHE
elif [ "$(id -u)" = 0 ]; then
    cache=/var/cache/ctkgen-fixtures
else
    cache=${XDG_CACHE_HOME:-${HOME:?}/.cache}/ctkgen-fixtures
fi
case $cache in /*) ;; *) cache=$(pwd)/$cache ;; esac
cache=${cache%/}
key=$(printf '%s' "$src" | cksum | cut -d' ' -f1)
site=$cache/site-$key
deb11=$cache/debian-bookworm
deb12=$cache/debian-trixie
whl=$cache/wheel-$WHEEL_MM
hpc=$cache/hpcsdk-$key
arch_cpu=$(uname -m)
arch=$arch_cpu-linux
multiarch=x86_64-linux-gnu

stamp_of() { cat "$1/.stamp" 2>/dev/null || :; }
deb_stamp() { echo "site-fixture $FORMAT debian $1"; }
whl_stamp="site-fixture $FORMAT wheels $(printf '%s\n' "$WHEELS" | awk '{print $1 "==" $2}' | tr '\n' ' ')"
site_stamp() {
    echo "site-fixture $FORMAT site $src | $(stamp_of "$deb11") | $(stamp_of "$deb12") | $(stamp_of "$whl") | $(stamp_of "$hpc")"
}
# all there: no lock, no network
all_done() {
    [ "$(stamp_of "$deb11" | cut -d' ' -f1-4)" = "$(deb_stamp bookworm)" ] &&
        [ "$(stamp_of "$deb12" | cut -d' ' -f1-4)" = "$(deb_stamp trixie)" ] &&
        [ "$(stamp_of "$whl")" = "$whl_stamp" ] &&
        [ "$(stamp_of "$hpc")" = "$src fixtures 2" ] &&
        [ "$(stamp_of "$site")" = "$(site_stamp)" ]
}
if all_done; then
    echo "$site"
    exit 0
fi

[ -x "$src/bin/nvcc" ] || die "$src: no bin/nvcc"
[ "$arch_cpu" = x86_64 ] || cannot "the Debian packages and wheels fetched are for x86_64; this is $arch_cpu"
for t in apt-get apt-cache dpkg dpkg-deb python3 sha256sum; do
    command -v "$t" >/dev/null 2>&1 || cannot "no $t here"
done
python3 -m pip --version >/dev/null 2>&1 || cannot "python3 has no pip module (python3-pip)"
[ -f "$KEYRING" ] || cannot "no $KEYRING (debian-archive-keyring) to check the package lists with"
[ -x "$HCC_11" ] || cannot "no $HCC_11, the host compiler CUDA 11.8 needs (build-aux/deps.sh installs g++-11)"

mkdir -p "$cache" || cannot "cannot make the cache $cache (set CTK_FIXTURE_CACHE)"
[ -w "$cache" ] || cannot "cannot write the cache $cache (set CTK_FIXTURE_CACHE)"
lockdir=
tmp=
cleanup() {
    if [ -n "$tmp" ]; then
        chmod -R u+rwx "$tmp" 2>/dev/null || :
        rm -rf "$tmp"
    fi
    if [ -n "$lockdir" ]; then
        rmdir "$lockdir" 2>/dev/null || :
    fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
if command -v flock >/dev/null 2>&1; then
    exec 9>"$cache/.lock"
    flock 9
else
    n=0
    until mkdir "$cache/.lock.d" 2>/dev/null; do
        n=$((n + 1))
        [ $n -lt 3600 ] || die "$cache/.lock.d: lock held for an hour"
        sleep 1
    done
    lockdir=$cache/.lock.d
fi
# another builder may have finished while we waited
if all_done; then
    echo "$site"
    exit 0
fi

# begin DIR: a fresh DIR.tmp in $tmp; finish DIR STAMP: stamp it and put it in place
begin() {
    tmp=$1.tmp
    chmod -R u+rwx "$tmp" 2>/dev/null || :
    rm -rf "$tmp"
    mkdir -p "$tmp"
}
finish() {
    printf '%s\n' "$2" >"$tmp/.stamp"
    if [ -e "$1" ]; then
        chmod -R u+rwx "$1" 2>/dev/null || :
        rm -rf "$1.old"
        mv "$1" "$1.old"
        rm -rf "$1.old"
    fi
    mv "$tmp" "$1"
    tmp=
}

is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# verify PREFIX NVCC_VERSION HOSTCXX LINK: nvcc compiles and links a small
# program; LINK "shared" also checks that the program's libcudart is the tree's
verify() {
    v=$tmp/.verify
    mkdir -p "$v"
    cat >"$v/t.cu" <<'EOF'
#include <cstdio>
#include <cuda_runtime.h>
__global__ void add(int *p) { *p += 1; }
int main() {
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    std::printf("%d\n", rt);
    add<<<1, 1>>>(nullptr);
    return 0;
}
EOF
    ccbin=
    [ -z "$3" ] || ccbin="-ccbin $3"
    "$1/bin/nvcc" --version >"$v/version" 2>&1 || { cat "$v/version" >&2; die "$1/bin/nvcc --version failed"; }
    grep -q "release .*, V$2\$" "$v/version" || { cat "$v/version" >&2; die "$1/bin/nvcc is not V$2"; }
    # shellcheck disable=SC2086
    "$1/bin/nvcc" $ccbin -c "$v/t.cu" -o "$v/t.o" >"$v/log" 2>&1 || { cat "$v/log" >&2; die "$1: nvcc -c failed"; }
    if [ "$4" = shared ]; then
        # shellcheck disable=SC2086
        "$1/bin/nvcc" $ccbin "$v/t.o" -o "$v/t" -cudart shared -Xlinker --trace >"$v/log" 2>&1 ||
            { cat "$v/log" >&2; die "$1: nvcc link failed"; }
        grep -q "$1/.*libcudart\.so" "$v/log" ||
            { cat "$v/log" >&2; die "$1: the link did not take the tree's libcudart"; }
        LD_LIBRARY_PATH=$1/lib64 ldd "$v/t" | grep -q "libcudart.* => $1/" ||
            die "$1: the program does not load the tree's libcudart"
    else
        # shellcheck disable=SC2086
        "$1/bin/nvcc" $ccbin "$v/t.o" -o "$v/t" >"$v/log" 2>&1 || { cat "$v/log" >&2; die "$1: nvcc link failed"; }
    fi
    rm -rf "$v"
}

# ---- Debian toolkits ---------------------------------------------------------------
# apt_q SUITE CMD ARGS...: apt-get or apt-cache with SUITE's private configuration
apt_q() {
    a=$cache/apt/$1
    c=$2
    shift 2
    "$c" -q -o Dir::Etc="$a/etc" -o Dir::Etc::SourceList="$a/etc/sources.list" \
        -o Dir::Etc::SourceParts="$a/etc/sources.list.d" -o Dir::Etc::Parts="$a/etc/apt.conf.d" \
        -o Dir::Etc::Preferences="$a/etc/preferences" -o Dir::Etc::PreferencesParts="$a/etc/preferences.d" \
        -o Dir::Etc::Trusted="$a/etc/trusted.gpg" -o Dir::Etc::TrustedParts="$a/etc/trusted.gpg.d" \
        -o Dir::State="$a/state" -o Dir::State::Lists="$a/state/lists" -o Dir::State::status="$a/state/status" \
        -o Dir::Cache="$a/cache" -o Dir::Cache::Archives="$a/cache/archives" \
        -o Dir::Log="$a/log" -o Debug::NoLocking=1 -o APT::Architecture=amd64 \
        -o APT::Architectures=amd64 -o APT::Sandbox::User=root -o Acquire::Retries=2 "$@"
}
apt_setup() {
    a=$cache/apt/$1
    mkdir -p "$a/etc/sources.list.d" "$a/etc/apt.conf.d" "$a/etc/preferences.d" "$a/etc/trusted.gpg.d" \
        "$a/state/lists/partial" "$a/cache/archives/partial" "$a/log"
    [ -f "$a/state/status" ] || : >"$a/state/status"
    printf 'deb [signed-by=%s] %s %s main non-free\n' "$KEYRING" "$MIRROR" "$1" >"$a/etc/sources.list.new"
    if ! cmp -s "$a/etc/sources.list.new" "$a/etc/sources.list"; then
        mv "$a/etc/sources.list.new" "$a/etc/sources.list"
        rm -f "$a/state/lists/"*_Packages* "$a/state/lists/"*Release*
    else
        rm -f "$a/etc/sources.list.new"
    fi
}
apt_update() {
    say "apt-get update ($1, private lists under $cache/apt/$1)"
    apt_q "$1" apt-get update >"$cache/apt/$1/log/update.log" 2>&1 || {
        sed 's/^/  /' "$cache/apt/$1/log/update.log" | tail -n 5 >&2
        cannot "cannot fetch Debian $1's package lists from $MIRROR (no network?)"
    }
    grep -qE 'Failed to fetch|Could not (connect|resolve)|Temporary failure|Unable to connect' "$cache/apt/$1/log/update.log" && {
        grep '^[WE]: ' "$cache/apt/$1/log/update.log" | head -n 3 >&2
        cannot "cannot fetch Debian $1's package lists from $MIRROR (no network?)"
    }
    grep -q '^[WE]: ' "$cache/apt/$1/log/update.log" && {
        grep '^[WE]: ' "$cache/apt/$1/log/update.log" >&2
        cannot "Debian $1's package lists from $MIRROR are incomplete or unsigned"
    }
    return 0
}
# pkg_set SUITE: the packages a toolkit needs, from the lists
pkg_set() {
    {
        echo nvidia-cuda-toolkit
        echo nvidia-cuda-dev
        apt_q "$1" apt-cache show --no-all-versions nvidia-cuda-dev libcupti-dev 2>/dev/null |
            sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
            grep -E '^(libcudart[0-9]|libnvrtc|libnvvm[0-9]|libcublas(lt)?[0-9]|libcufft[0-9]|libcurand[0-9]|libnvjitlink[0-9]|libnvtoolsext[0-9]|libcupti|libcu\+\+-dev$|libcub-dev$|libthrust-dev$)'
    } | sort -u
}
# fetch_debs SUITE: every package of pkg_set in CACHE/debs/SUITE, checked
# against the sha256 of the signed lists; prints the files
fetch_debs() {
    d=$cache/debs/$1
    mkdir -p "$d"
    apt_setup "$1"
    ls "$cache/apt/$1/state/lists/"*_Packages* >/dev/null 2>&1 || apt_update "$1"
    tries=0
    while :; do
        pkgs=$(pkg_set "$1")
        echo "$pkgs" | grep -qx nvidia-cuda-toolkit && echo "$pkgs" | grep -q '^libcudart' ||
            die "Debian $1's lists name no nvidia-cuda-toolkit/libcudart (is non-free in $MIRROR?)"
        want=
        need=
        for p in $pkgs; do
            info=$(apt_q "$1" apt-cache show --no-all-versions "$p") || die "$1: no package $p"
            f=$(echo "$info" | sed -n 's/^Filename: //p' | head -n 1)
            sum=$(echo "$info" | sed -n 's/^SHA256: //p' | head -n 1)
            [ -n "$f" ] && [ -n "$sum" ] || die "$1: $p has no Filename or SHA256 in the lists"
            f=$d/$(basename "$f")
            want="$want $f"
            if [ ! -f "$f" ] || [ "$(sha256sum <"$f" | cut -d' ' -f1)" != "$sum" ]; then
                need="$need $p"
            fi
        done
        [ -n "$need" ] || break
        say "apt-get download ($1):$need"
        dl=$(mktemp -d "$d/.dl-XXXXXX")
        if (cd "$dl" && apt_q "$1" apt-get download $need) >"$dl/log" 2>&1; then
            # apt-get download checks each file against the lists' sums
            for f in "$dl"/*.deb; do mv -f "$f" "$d/"; done
            rm -rf "$dl"
            continue
        fi
        tries=$((tries + 1))
        sed 's/^/  /' "$dl/log" | tail -n 5 >&2
        rm -rf "$dl"
        # a package the lists name may have been superseded on the mirror
        [ "$tries" -lt 2 ] || cannot "cannot download Debian $1's CUDA packages from $MIRROR (no network?)"
        apt_update "$1"
    done
    # downloads of older versions go
    for f in "$d"/*.deb; do
        case " $want " in *" $f "*) ;; *) rm -f "$f" ;; esac
    done
    echo "$want"
}

# debian_toolkit SUITE OUTDIR HOSTCXX: fetch, unpack and assemble
debian_toolkit() {
    debs=$(fetch_debs "$1")
    say "assembling Debian $1's toolkit in $2"
    begin "$2"
    x=$tmp/x
    mkdir -p "$x"
    for f in $debs; do dpkg -x "$f" "$x"; done
    tkver=$(dpkg-deb -f "$(echo "$debs" | tr ' ' '\n' | grep '/nvidia-cuda-toolkit_')" Version)
    # 11.8.89~11.8.0-5~deb12u1: nvcc 11.8.89 of CUDA 11.8.0
    nvccver=${tkver%%~*}
    full=${tkver#*~}
    full=${full%%-*}
    mm=$(echo "$full" | cut -d. -f1-2)
    p=$tmp/cuda-$mm
    t=$p/targets/$arch
    nct=$x/usr/lib/nvidia-cuda-toolkit
    mkdir -p "$p/bin" "$t" "$p/nvvm/bin" "$p/nvvm/lib64" "$p/nvvm/include" "$p/extras/CUPTI/include" \
        "$p/extras/CUPTI/lib64"
    mv "$x/usr/include" "$t/include"
    mv "$x/usr/lib/$multiarch" "$t/lib"
    ln -s "targets/$arch/include" "$p/include"
    ln -s "targets/$arch/lib" "$p/lib64"
    mv "$nct/bin/nvcc" "$nct/bin/crt" "$p/bin/"
    mv "$nct/bin/cicc" "$p/nvvm/bin/"
    mv "$nct/libdevice" "$p/nvvm/libdevice"
    for b in ptxas fatbinary nvlink cudafe++ bin2c cuobjdump nvdisasm nvprune cu++filt __nvcc_device_query; do
        if [ -f "$x/usr/bin/$b" ] && is_elf "$x/usr/bin/$b"; then mv "$x/usr/bin/$b" "$p/bin/"; fi
    done
    for b in nvcc ptxas fatbinary nvlink cudafe++; do
        [ -x "$p/bin/$b" ] || die "$1: no $b in the packages"
    done
    mv "$t/lib"/libnvvm.so* "$p/nvvm/lib64/"
    [ ! -f "$t/include/nvvm.h" ] || mv "$t/include/nvvm.h" "$p/nvvm/include/"
    for f in "$t/include"/cupti*.h "$t/include"/generated_*_meta.h "$t/include"/nvperf_*.h \
        "$t/include/Openacc" "$t/include/Openmp"; do
        if [ -e "$f" ]; then mv "$f" "$p/extras/CUPTI/include/"; fi
    done
    for f in "$t/lib"/libcupti* "$t/lib"/libnvperf* "$t/lib"/libpcsamplingutil* "$t/lib"/libcheckpoint*; do
        if [ -e "$f" ] || [ -L "$f" ]; then mv "$f" "$p/extras/CUPTI/lib64/"; fi
    done
    # static libraries but cudart's (nvcc's default), and what is not a toolkit's
    find "$t/lib" -maxdepth 1 -name 'lib*_static*.a' ! -name libcudart_static.a -exec rm -f {} +
    rm -rf "$t/lib/cmake" "$t/lib/pkgconfig"
    # links to libraries not fetched
    find "$p" -type l ! -exec test -e {} \; -exec rm -f {} +
    rm -rf "$x"
    cat >"$p/bin/nvcc.profile" <<'EOF'

TOP              = $(_HERE_)/..

NVVMIR_LIBRARY_DIR = $(TOP)/$(_NVVM_BRANCH_)/libdevice

LD_LIBRARY_PATH += $(TOP)/lib:
PATH            += $(TOP)/$(_NVVM_BRANCH_)/bin:$(_HERE_):

INCLUDES        +=  "-I$(TOP)/$(_TARGET_DIR_)/include" $(_SPACE_)

LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)/stubs" "-L$(TOP)/$(_TARGET_DIR_)/lib$(_TARGET_SIZE_)"

CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
    cat >"$p/version.json" <<EOF
{
   "cuda" : {
      "name" : "CUDA SDK",
      "version" : "$full"
   },
   "cuda_nvcc" : {
      "name" : "CUDA NVCC",
      "version" : "$nvccver"
   }
}
EOF
    chmod -R u+w,go-w "$tmp"
    # nvcc.profile names only paths relative to nvcc: verified here, the
    # tree works where it is renamed to
    verify "$p" "$nvccver" "$3" shared
    finish "$2" "$(deb_stamp "$1") nvidia-cuda-toolkit=$tkver"
}

if [ "$(stamp_of "$deb11" | cut -d' ' -f1-4)" != "$(deb_stamp bookworm)" ]; then
    debian_toolkit bookworm "$deb11" "$HCC_11"
fi
if [ "$(stamp_of "$deb12" | cut -d' ' -f1-4)" != "$(deb_stamp trixie)" ]; then
    debian_toolkit trixie "$deb12" ""
fi

# ---- the 13.5 wheel tree -------------------------------------------------------------
if [ "$(stamp_of "$whl")" != "$whl_stamp" ]; then
    wc=$cache/wheels
    mkdir -p "$wc"
    files=
    need=
    printf '%s\n' "$WHEELS" >"$cache/.wheels.list"
    while read -r pkg ver file sum; do
        files="$files $wc/$file"
        if [ ! -f "$wc/$file" ] || [ "$(sha256sum <"$wc/$file" | cut -d' ' -f1)" != "$sum" ]; then
            need="$need $pkg==$ver"
        fi
    done <"$cache/.wheels.list"
    if [ -n "$need" ]; then
        say "pip download:$need"
        dl=$(mktemp -d "$wc/.dl-XXXXXX")
        # shellcheck disable=SC2086
        if ! python3 -m pip download --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
            --platform manylinux_2_25_x86_64 --platform manylinux2014_x86_64 --platform manylinux2010_x86_64 \
            --platform manylinux1_x86_64 --python-version 3.11 --no-cache-dir --disable-pip-version-check \
            --no-input --timeout 30 --retries 2 -d "$dl" $need >"$dl/pip.log" 2>&1; then
            tail -n 4 "$dl/pip.log" | sed 's/^/  /' >&2
            rm -rf "$dl"
            cannot "cannot download the CUDA $WHEEL_MM wheels from the package index (no network?)"
        fi
        while read -r pkg ver file sum; do
            [ -f "$dl/$file" ] || continue
            got=$(sha256sum <"$dl/$file" | cut -d' ' -f1)
            [ "$got" = "$sum" ] || { rm -rf "$dl"; die "$file: sha256 $got, pinned $sum"; }
            mv -f "$dl/$file" "$wc/$file"
        done <"$cache/.wheels.list"
        rm -rf "$dl"
        for f in $files; do [ -f "$f" ] || die "pip did not fetch $(basename "$f")"; done
    fi
    rm -f "$cache/.wheels.list"
    say "installing the CUDA $WHEEL_MM wheels into $whl/site-packages"
    begin "$whl"
    # shellcheck disable=SC2086
    python3 -m pip install --no-deps --no-index --no-compile --no-cache-dir --disable-pip-version-check \
        --no-input --target "$tmp/site-packages" $files >"$tmp/pip.log" 2>&1 ||
        { tail -n 5 "$tmp/pip.log" >&2; die "pip install --target failed"; }
    rm -f "$tmp/pip.log"
    w=$tmp/site-packages/nvidia/cu13
    [ -x "$w/bin/nvcc" ] && [ -x "$w/nvvm/bin/cicc" ] && [ -f "$w/lib/libcudart.so.13" ] ||
        die "the wheels did not give nvidia/cu13/{bin/nvcc,nvvm/bin/cicc,lib/libcudart.so.13}"
    chmod -R u+w,go-w "$tmp"
    verify "$w" "$(printf '%s\n' "$WHEELS" | awk '$1 == "nvidia-cuda-nvcc" {print $2}')" "" static
    finish "$whl" "$whl_stamp"
fi

# ---- the HPC SDK split over CUDA_ROOT ----------------------------------------------------
sh "$here/fixtures.sh" "$src" "$hpc" >/dev/null || die "tests/fixtures.sh $src $hpc failed"
hroot=$(ls -d "$hpc"/hpcsdk/Linux_*/25.9)
hmm=$(basename "$(ls -d "$hroot"/cuda/*)")

# ---- the site config ------------------------------------------------------------------------
b11=$(ls -d "$deb11"/cuda-*)
b12=$(ls -d "$deb12"/cuda-*)
begin "$site"
cat >"$tmp/site.json" <<EOF
{
  "module_name": "cudatoolkit",
  "default": "$hmm",
  "help": "The multi-toolkit test site of ctkgen (tests/site-fixture.sh).",
  "sdks": [
    { "version": "$hmm", "base": "$src" },
    { "version": "${b12##*/cuda-}", "base": "$b12" },
    { "version": "${b11##*/cuda-}", "base": "$b11",
      "host_compiler": { "ccbin": "$HCC_11" } },
    { "version": "$WHEEL_MM", "base": "$whl/site-packages/nvidia/cu13" },
    { "version": "$hmm", "name": "$hmm-hpcsdk25.9", "base": "$hroot/cuda/$hmm",
      "math_libs": "$hroot/math_libs/$hmm", "nvvm": "$hroot/cuda/$hmm/nvvm",
      "cupti": "$hroot/cuda/$hmm/extras/CUPTI",
      "comm_libs": { "nccl": "$hroot/comm_libs/$hmm/nccl" } }
  ]
}
EOF
finish "$site" "$(site_stamp)"
echo "$site"
