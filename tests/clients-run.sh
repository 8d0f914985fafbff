#!/bin/sh
# clients-run.sh SYS OUT MODULE COMMAND...: run COMMAND in a clean
# environment after `module load MODULE` from OUT's tree for SYS (lmod:
# real Lmod, OUT/lmod; tcl: real Environment Modules, OUT/tcl), as a user's
# shell would.  The module system's messages go to stderr; a failed load
# exits 4.  For the client tests (tests/clients-lib.sh: sys_env).
# SPDX-License-Identifier: MIT
set -u
sys=$1 out=$2 mod=$3; shift 3
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
LMOD_EXEC=${LMOD_EXEC:-/usr/share/lmod/lmod/libexec/lmod}
EM_CMD=${EM_CMD:-$top_srcdir/.deps-local/environment-modules/usr/lib/modulecmd.tcl}
# the tclsh on the caller's PATH (the GPU machine's kit has its own),
# found before the clean environment takes PATH away
tclsh=$(command -v tclsh || echo tclsh)
case $sys in
    lmod) mp=$out/lmod; load="\"$LMOD_EXEC\" bash load \"$mod\"" ;;
    tcl) mp=$out/tcl; load="\"$tclsh\" \"$EM_CMD\" bash load \"$mod\"" ;;
    *) echo "clients-run.sh: unknown module system $sys" >&2; exit 2 ;;
esac
exec env -i HOME="${HOME:-/tmp}" PATH=/usr/bin:/bin LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}" \
    MODULEPATH="$mp" sh -c 'cl_code=$('"$load"') || exit 4; eval "$cl_code" || exit 4; exec "$@"' clients-run "$@"
