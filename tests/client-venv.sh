#!/bin/sh
# client-venv.sh [SET] - the Python packages of the client tests
# (numba-cuda, CuPy) from PyPI into a private venv, cached outside the
# clone beside the other fixtures (docs/testing.md); prints the venv's
# directory.
# SPDX-License-Identifier: MIT
#
# SET picks the packages, one venv each (CuPy for CUDA 12 and for CUDA
# 13 are both the module `cupy`, so they cannot share one):
#   13 (the default)  numba-cuda 0.30 and CuPy for CUDA 13 (cupy-cuda13x),
#                     CACHE/venv-clients-<python X.Y>, about 0.6 GB
#   12                numba-cuda 0.18, the last with CUDA 11 support (its
#                     "cu11" extra; 0.19 on are CUDA 12 and 13 only), on
#                     numba 0.61, and CuPy for CUDA 12 (cupy-cuda12x),
#                     CACHE/venv-clients12-<python X.Y>
# CACHE is $CTK_FIXTURE_CACHE, else /var/cache/ctkgen-fixtures as root,
# else ${XDG_CACHE_HOME:-$HOME/.cache}/ctkgen-fixtures.  Every package is
# pinned, with what it depends on; no CUDA toolkit wheel is installed (the
# clients must find the toolkit a module or CUDA_HOME gives them).  Built
# under a lock and stamped when whole; a second run reuses it without
# network.
# Exit status: 0 ok; 3 it cannot be had here (no python3 venv, no network
# and nothing cached); anything else is a failure.
set -eu
case ${1:-13} in
    13) PKGS="numba-cuda==0.30.4 numba==0.68.1 llvmlite==0.50.0 numpy==2.4.6
              cuda-bindings==13.5.0 cuda-core==1.2.2 cuda-pathfinder==1.9.1
              cupy-cuda13x==14.2.0 packaging==26.4"
        name=venv-clients ;;
    12) PKGS="numba-cuda==0.18.1 numba==0.61.2 llvmlite==0.44.0 numpy==2.2.6
              cuda-pathfinder==1.9.1 cupy-cuda12x==14.2.0"
        name=venv-clients12 ;;
    *) echo "usage: $0 [13|12]" >&2; exit 2 ;;
esac
cannot() { echo "$0: $*" >&2; exit 3; }
command -v python3 >/dev/null 2>&1 || cannot "no python3"
pyv=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if [ -n "${CTK_FIXTURE_CACHE:-}" ]; then
    cache=$CTK_FIXTURE_CACHE
elif [ "$(id -u)" = 0 ]; then
    cache=/var/cache/ctkgen-fixtures
else
    cache=${XDG_CACHE_HOME:-${HOME:?}/.cache}/ctkgen-fixtures
fi
venv=$cache/$name-$pyv
stamp=$(echo "$PKGS" | tr -s ' \n' ' ')
if [ -f "$venv/.stamp" ] && [ "$(cat "$venv/.stamp")" = "$stamp" ]; then
    echo "$venv"; exit 0
fi
mkdir -p "$cache" || cannot "cannot make the cache $cache (set CTK_FIXTURE_CACHE)"
exec 9>"$cache/.venv-lock"
command -v flock >/dev/null 2>&1 && flock 9
if [ -f "$venv/.stamp" ] && [ "$(cat "$venv/.stamp")" = "$stamp" ]; then
    echo "$venv"; exit 0
fi
# built where it stays (a venv cannot be moved); the stamp, written
# last, says it is whole
rm -rf "$venv"
python3 -m venv "$venv" >&2 || { rm -rf "$venv"; cannot "python3 cannot make a venv (python3-venv missing)"; }
# shellcheck disable=SC2086
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps $PKGS >&2 ||
    { rm -rf "$venv"; cannot "pip could not install the pinned packages from PyPI (no network?)"; }
"$venv/bin/python" -m pip check >&2 || { rm -rf "$venv"; echo "$0: the pinned packages do not fit together" >&2; exit 1; }
echo "$stamp" >"$venv/.stamp"
echo "$venv"
