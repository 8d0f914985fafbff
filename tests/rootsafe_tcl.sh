#!/bin/sh
# rootsafe_tcl.sh - a root ctkgen never runs another user's Tcl as root.
# SPDX-License-Identifier: MIT
#
# A #%Module file owned by uid 65534 whose Tcl runs `exec sh -c {...}`:
# it writes the uid it runs as, tries to create a file in a directory only
# root may write to, notes its HOME, and leaves a sleeper behind.  `ctkgen
# lint` as root must run it as user nobody (uid 65534), in a HOME of its
# own that is gone afterwards, with nothing left running, and say so.  A
# root-owned file nobody cannot read is not loaded at all (CTK-SKIP-004),
# unless --trust-tcl, which loads as root only files that only root can
# change.  A lint that does not run as root is as it was.  And the normal
# path keeps working as nobody: the modules ctkgen generates validate and
# lint clean as root.
. "$(dirname "$0")/lib.sh"
need_em
[ "$(id -u)" = 0 ] || skip "not root: the privilege drop is only made by a root ctkgen"
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"
command -v setpriv >/dev/null 2>&1 || skip "setpriv not installed (util-linux): cannot run lint as another user"
unset MODULES_CMD LMOD_CMD

chmod 755 "$T"                        # nobody reaches the files below, as users reach a module tree
LT=$T/lt                              # lint's and validate's TMPDIR: empty after every run
DROP=$T/drop                          # the one directory nobody may write to
ROOTONLY=$T/rootonly                  # root's, 0755: nobody cannot create files in it
mkdir -p "$LT" "$DROP" "$ROOTONLY"
chown 65534:65534 "$DROP"
SLEEPER="$T/[s]leeper"                # pattern for the process the Tcl leaves behind
reap_sleepers() { for p in $(pgrep -f "$SLEEPER" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || :; done; }
trap 'reap_sleepers; rm -rf "$T"' EXIT
cp "$(command -v sleep)" "$T/sleeper"

# hostile DIR OWNER: a modulefile DIR/evil/1.0 owned by OWNER that runs
# commands when loaded
hostile() {
    mkdir -p "$1/evil"
    cat > "$1/evil/1.0" <<EOF
#%Module
# loading this runs commands, as \`module load\` would
exec sh -c {id -u > $DROP/uid; touch $ROOTONLY/pwned 2>/dev/null; echo "\$HOME" > $DROP/home; true}
exec sh -c {$T/sleeper 1000 > /dev/null 2>&1 &}
conflict cudatoolkit
setenv CUDA_HOME /nonexistent
EOF
    chmod 644 "$1/evil/1.0"
    chown -R "$2" "$1"
}
reset_marks() { rm -f "$DROP/uid" "$DROP/home" "$ROOTONLY/pwned"; }
lt_empty() { empty_dir "$LT"; }
no_sleeper() {
    n=0
    until none_running "$SLEEPER"; do
        n=$((n + 1)); [ $n -lt 20 ] || return 1; sleep 0.1
    done
}
L() { TMPDIR=$LT "$CTKGEN" lint --modulecmd "$EM_CMD" "$@"; }

# ---- another user's file: run as nobody, and said so -----------------------------
USER_MP=$T/user-mods
hostile "$USER_MP" 65534:65534
F=$USER_MP/evil/1.0
reset_marks
rc=0; L --json "$F" > "$T/user.json" 2> "$T/user.err" || rc=$?
check "user's file: lint ran (exit $rc)" [ "$rc" -eq 0 ]
check "user's file: the Tcl ran as uid 65534, not root" same_text "$(cat "$DROP/uid" 2>/dev/null)" 65534
check "user's file: nothing appeared where only root can write" [ ! -e "$ROOTONLY/pwned" ]
check "user's file: the report says it was evaluated as user nobody" \
    same_text "$(jq -r '.files[0].evaluated_as' "$T/user.json")" "user nobody (uid 65534)"
check "user's file: and who loads Tcl files" same_text "$(jq -r .tcl_user "$T/user.json")" "nobody (uid 65534)"
check "user's file: loaded, not skipped (no CTK-SKIP-004, no CTK-MOD-001)" \
    sh -c "[ -s '$T/user.json' ] && ! jq -r '.files[0].findings[].code' '$T/user.json' | grep -q 'CTK-SKIP-004\|CTK-MOD-001'"
h=$(cat "$DROP/home" 2>/dev/null)
check "user's file: HOME was a private one under lint's TMPDIR ($h)" \
    sh -c "case '$h' in '$LT'/*) exit 0 ;; *) exit 1 ;; esac"
check "user's file: that HOME is gone" [ -n "$h" -a ! -e "$h" ]
check "user's file: lint's TMPDIR is empty" lt_empty
check "user's file: the sleeper it started is not left running" no_sleeper
rc=0; L "$F" > "$T/user.txt" 2>&1 || rc=$?
check "user's file: the human report says so too" grep -qF "evil/1.0 [evaluated as user nobody (uid 65534)]" "$T/user.txt"

reset_marks
rc=0; L --json --trust-tcl "$F" > "$T/user-trust.json" 2>/dev/null || rc=$?
check "user's file, --trust-tcl: still uid 65534 (the file is not root's)" same_text "$(cat "$DROP/uid" 2>/dev/null)" 65534
check "user's file, --trust-tcl: nothing where only root can write" [ ! -e "$ROOTONLY/pwned" ]
check "user's file, --trust-tcl: evaluated as user nobody" \
    same_text "$(jq -r '.files[0].evaluated_as' "$T/user-trust.json")" "user nobody (uid 65534)"
check "user's file, --trust-tcl: no sleeper left" no_sleeper

# ---- root's file nobody cannot read: not loaded, and why --------------------------
ROOT_MP=$T/root-mods
hostile "$ROOT_MP" 0:0
chmod 600 "$ROOT_MP/evil/1.0"
R=$ROOT_MP/evil/1.0
reset_marks
rc=0; L --json "$R" > "$T/closed.json" 2> "$T/closed.err" || rc=$?
check "closed file: lint exits 5 (a note, and the file not fully checked)" [ "$rc" -eq 5 ]
check "closed file: counted as not fully checked" same_text "$(jq -r '.summary.not_fully_checked' "$T/closed.json")" 1
check "closed file: not loaded: CTK-SKIP-004 alone" same_text "$(jq -r '[.files[0].findings[].code] | join(" ")' "$T/closed.json")" CTK-SKIP-004
check "closed file: the finding says nobody cannot read it, and its mode" \
    sh -c "jq -r '.files[0].findings[0].message' '$T/closed.json' | grep -q 'is mode 0600, owner root: user nobody (uid 65534) cannot read it'"
check "closed file: a warning on stderr" grep -q 'CTK-SKIP-004' "$T/closed.err"
check "closed file: nothing ran (no uid written)" [ ! -e "$DROP/uid" ]
check "closed file: evaluated by no one" same_text "$(jq -r '.files[0].evaluated_as' "$T/closed.json")" null

reset_marks
rc=0; L --json --trust-tcl "$R" > "$T/trusted.json" 2>/dev/null || rc=$?
check "root's file, --trust-tcl: loaded as root" same_text "$(cat "$DROP/uid" 2>/dev/null)" 0
check "root's file, --trust-tcl: the report says root" \
    sh -c "jq -r '.files[0].evaluated_as' '$T/trusted.json' | grep -q '^root (--trust-tcl'"
check "root's file, --trust-tcl: no sleeper left" no_sleeper
chmod 666 "$R"
reset_marks
rc=0; L --json --trust-tcl "$R" > "$T/writable.json" 2>/dev/null || rc=$?
check "root's file others can write, --trust-tcl: not root (uid 65534)" same_text "$(cat "$DROP/uid" 2>/dev/null)" 65534
chmod 600 "$R"

# ---- not root: as it was ------------------------------------------------------------
reset_marks
rc=0; setpriv --reuid=65534 --regid=65534 --clear-groups env TMPDIR="$DROP" "$CTKGEN" lint --json \
    --modulecmd "$EM_CMD" "$F" > "$T/nonroot.json" 2>/dev/null || rc=$?
check "lint as uid 65534: runs (exit $rc)" [ "$rc" -eq 0 ]
check "lint as uid 65534: the Tcl runs as its caller" same_text "$(cat "$DROP/uid" 2>/dev/null)" 65534
check "lint as uid 65534: no privilege to drop, nothing said about it" \
    same_text "$(jq -r '[.tcl_user, .files[0].evaluated_as] | map(tostring) | join(" ")' "$T/nonroot.json")" "null null"
check "lint as uid 65534: no sleeper left" no_sleeper

# ---- the normal path: generated modules validate and lint clean as root ------------------
need_cuda
cat > "$T/site.json" <<JSON
{ "sdks": [ { "version": "13.0", "base": "$CTK_TEST_CUDA" } ] }
JSON
OUT=$T/out
check "generate" "$CTKGEN" -q generate -c "$T/site.json" -o "$OUT"
V() { TMPDIR=$LT "$CTKGEN" -q validate -c "$T/site.json" -o "$OUT" --no-cache --modulecmd "$EM_CMD" "$@"; }
tcl_mark() { jq -r '.sdks[0].artifacts[] | select(.kind == "tcl") | "\(.verdict) \(.skip.code // "")"' "$1"; }
rc=0; V --json > "$T/valid.json" 2> "$T/valid.err" || rc=$?
check "validate as root: exit 0" [ "$rc" -eq 0 ]
check "validate as root: Tcl passes (PASS, or NOLAUNCH without a GPU) as nobody ($(tcl_mark "$T/valid.json"))" \
    sh -c "case '$(tcl_mark "$T/valid.json")' in 'pass '|'skip CTK-SKIP-001'|'skip CTK-SKIP-002') exit 0 ;; *) exit 1 ;; esac"
check "validate as root: the report says user nobody" same_text "$(jq -r .host.tcl_user "$T/valid.json")" "nobody (uid 65534)"
check "validate as root: no error finding" \
    [ "$(jq '[.sdks[].artifacts[].findings[] | select(.severity == "error")] | length' "$T/valid.json")" -eq 0 ]
check "validate as root: its TMPDIR is empty" lt_empty
rc=0; TMPDIR=$LT "$CTKGEN" validate -c "$T/site.json" -o "$OUT" --no-cache --modulecmd "$EM_CMD" > "$T/valid.txt" 2>/dev/null || rc=$?
check "validate as root: the table says the modulefiles ran as user nobody" \
    grep -q '^modulefiles were evaluated as user nobody (uid 65534), not as root$' "$T/valid.txt"
rc=0; L --json "$OUT" > "$T/own.json" 2>/dev/null || rc=$?
check "lint of the generated tree as root: exit 0" [ "$rc" -eq 0 ]
check "lint of the generated tree as root: no findings" [ "$(jq '[.files[].findings[]] | length' "$T/own.json")" -eq 0 ]
check "lint of the generated tree as root: its Tcl loaded as user nobody" \
    sh -c "[ \"\$(jq '[.files[] | select(.kind == \"tcl\")] | length' '$T/own.json')\" -gt 0 ] &&
           [ \"\$(jq '[.files[] | select(.kind == \"tcl\" and .evaluated_as != \"user nobody (uid 65534)\")] | length' '$T/own.json')\" -eq 0 ]"

# a generated Tcl file nobody cannot read: a skip, unless --trust-tcl (root's, and only root's)
TCLF=$OUT/tcl/cudatoolkit/13.0
chmod 600 "$TCLF"
rc=0; V --json > "$T/closed-v.json" 2>/dev/null || rc=$?
check "validate, Tcl closed to nobody: exit 0 (a skip is not a failure)" [ "$rc" -eq 0 ]
check "validate, Tcl closed to nobody: skipped with CTK-SKIP-004" same_text "$(tcl_mark "$T/closed-v.json")" "skip CTK-SKIP-004"
rc=0; V --json --trust-tcl > "$T/trust-v.json" 2>/dev/null || rc=$?
check "validate --trust-tcl: root's closed file loads as root and passes ($(tcl_mark "$T/trust-v.json"))" \
    sh -c "case '$(tcl_mark "$T/trust-v.json")' in 'pass '|'skip CTK-SKIP-001'|'skip CTK-SKIP-002') exit 0 ;; *) exit 1 ;; esac"
check "validate --trust-tcl: the report says so" same_text "$(jq -r .host.trust_tcl "$T/trust-v.json")" true
chmod 644 "$TCLF"
# the cache knows who could load what: a mode change is not served a stale pass
VC() { TMPDIR=$LT "$CTKGEN" -q validate -c "$T/site.json" -o "$OUT" --cache-dir "$T/cache" --modulecmd "$EM_CMD" --json; }
VC > "$T/cache1.json" 2>/dev/null || :
chmod 600 "$TCLF"
VC > "$T/cache2.json" 2>/dev/null || :
check "validate with a cache: made unreadable after a pass, the Tcl file is a CTK-SKIP-004 skip, not a cached pass" \
    same_text "$(tcl_mark "$T/cache2.json")" "skip CTK-SKIP-004"
chmod 644 "$TCLF"
check "validate: its TMPDIR is empty after all runs" lt_empty

finish
