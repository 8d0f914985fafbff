#!/bin/sh
# lint_policy.sh - `ctkgen lint` as a deployment gate: site policy, --error-on, not fully checked.
# SPDX-License-Identifier: MIT
#
# The case an admin meets first: HPE/Cray vendor files that are right for
# their platform.  The Cray PE cudatoolkit module leaves CPATH and the
# library paths empty by design (Cray's compiler wrappers take -I/-L from
# CRAY_CUDATOOLKIT_INCLUDE_OPTS and CRAY_CUDATOOLKIT_POST_LINK_OPTS), and
# the HPE .pc is written for those wrappers.  A policy waives exactly those
# codes for */cray/* with a reason; every other check still runs and still
# fails the gate.  Everything is real: the corpus of tests/lint.sh, the
# toolkit trees of tests/fixtures.sh, Environment Modules, libpkgconf, nvcc.
. "$(dirname "$0")/lib.sh"
need_cuda
need_em
command -v jq >/dev/null 2>&1 || skip "jq not installed (build-aux/deps.sh installs it)"

umask 022
make_trusted_tmp || { echo "FAIL: no directory ctkgen trusts for the toolkit trees"; exit 1; }
FIX=$TT/fixtures
sh "$top_srcdir/tests/fixtures.sh" "$CTK_TEST_CUDA" "$FIX" >/dev/null || { echo "fixtures.sh failed"; exit 1; }
CUDA=$FIX/standalone/cuda-13.0
HPCSDK=$FIX/hpcsdk/Linux_x86_64/25.9
chmod 755 "$T"                       # as root, Tcl files load as nobody
LT=$T/lt
mkdir -p "$LT"
unset MODULES_CMD LMOD_CMD
D=$top_srcdir/tests/data/lint

# fill FROM TO: a corpus file with its placeholders filled in
fill() {
    mkdir -p "$(dirname "$2")"
    sed -e "s|@CUDA@|$CUDA|g" -e "s|@HPCSDK@|$HPCSDK|g" -e "s|@SYS@|$CTK_TEST_CUDA|g" "$D/$1" > "$2"
}
M=$T/mods
fill tcl/cudatoolkit/13.0 "$M/cray/cudatoolkit/13.0"   # CPATH-001 CPATH-002 LDLIB-003 PC-004
fill pc/cray/ctk-13.0.pc "$M/cray/pc/ctk-13.0.pc"      # CPATH-002 LDLIB-003 PC-001 PC-003
fill lmod/cuda/13.0.lua "$M/site/cuda/13.0.lua"        # CPATH-001 CPATH-002 LDLIB-003
fill pc/site/ctk-13.0.pc "$M/site/pc/ctk-13.0.pc"      # clean
TCL=$M/cray/cudatoolkit/13.0
PC=$M/cray/pc/ctk-13.0.pc
LUA=$M/site/cuda/13.0.lua

# L NAME ARGS...: lint ARGS; stdout in $T/NAME.out, stderr in $T/NAME.err, status in $rc
L() {
    l_n=$1; shift
    rc=0; TMPDIR=$LT "$CTKGEN" lint --modulecmd "$EM_CMD" "$@" > "$T/$l_n.out" 2> "$T/$l_n.err" || rc=$?
}
# J NAME FILE FILTER: jq FILTER on the findings of FILE in $T/NAME.out
J() { jq -r --arg f "$2" ".files[] | select(.file == \$f) | $3" "$T/$1.out"; }
# finding NAME FILE CODE FIELD: FIELD of FILE's findings of CODE, the distinct values joined by ","
finding() { J "$1" "$2" "[.findings[] | select(.code == \"$3\") | .$4 | tostring] | unique | join(\",\")"; }
# count NAME JQ-CONDITION: how many findings of all files meet it
count() { jq "[.files[].findings[] | select($2)] | length" "$T/$1.out"; }
sum() { jq -r ".summary.$2" "$T/$1.out"; }

CRAY_WHY="Cray's compiler wrappers take -I/-L from CRAY_CUDATOOLKIT_INCLUDE_OPTS and CRAY_CUDATOOLKIT_POST_LINK_OPTS"
PC_WHY="read by the Cray wrappers (cc, CC), which pass -Wl, words to the linker"
cat > "$T/cray.json" <<JSON
{
  "rules": [
    { "code": ["CTK-CPATH-001", "CTK-CPATH-002", "CTK-LDLIB-003"], "files": "*/cray/*",
      "severity": "off", "reason": "$CRAY_WHY" },
    { "code": "CTK-PC-001", "files": "*/cray/pc/*.pc", "severity": "waive",
      "reason": "$PC_WHY" }
  ]
}
JSON

# ---- without a policy: the vendor files fail the gate ----------------------------------
L base --json "$M/cray"
check "no policy: the Cray files fail (exit $rc)" [ "$rc" -eq 1 ]
check "no policy: CTK-CPATH-001 on the Cray module is an error, not waived" \
    same_text "$(finding base "$TCL" CTK-CPATH-001 severity)/$(finding base "$TCL" CTK-CPATH-001 waived)" error/false
check "no policy: nothing waived, no reason" \
    same_text "$(sum base waived)/$(finding base "$TCL" CTK-CPATH-001 reason)" 0/null
# what the Cray policy below must waive, and what it must leave
N_WAIVE=$(count base '.code | IN("CTK-CPATH-001", "CTK-CPATH-002", "CTK-LDLIB-003", "CTK-PC-001")')
N_PC004=$(count base '.code == "CTK-PC-004"')
check "no policy: the Cray files have findings of the codes to waive ($N_WAIVE) and CTK-PC-004 ($N_PC004)" \
    [ "$N_WAIVE" -gt 4 -a "$N_PC004" -gt 0 ]

# ---- the Cray policy: those codes waived, the rest still checked ------------------------
L cray --json --policy "$T/cray.json" "$M/cray"
check "Cray policy: PC-004 on the same module still fails the gate (exit $rc)" [ "$rc" -eq 1 ]
check "Cray policy: CTK-PC-004 is still an error, not waived" \
    same_text "$(finding cray "$TCL" CTK-PC-004 severity)/$(finding cray "$TCL" CTK-PC-004 waived)" error/false
check "Cray policy: CTK-CPATH-001 is still listed, waived" same_text "$(finding cray "$TCL" CTK-CPATH-001 waived)" true
check "Cray policy: ... with the rule's reason" same_text "$(finding cray "$TCL" CTK-CPATH-001 reason)" "$CRAY_WHY"
check "Cray policy: ... and where the rule is written" same_text "$(finding cray "$TCL" CTK-CPATH-001 policy)" "$T/cray.json:3"
check "Cray policy: ... and its table severity" same_text "$(finding cray "$TCL" CTK-CPATH-001 default_severity)" error
check "Cray policy: the .pc's CTK-PC-001 waived with its own reason" \
    same_text "$(finding cray "$PC" CTK-PC-001 waived)/$(finding cray "$PC" CTK-PC-001 reason)" "true/$PC_WHY"
check "Cray policy: the .pc's CTK-PC-003 is still a warning" \
    same_text "$(finding cray "$PC" CTK-PC-003 severity)/$(finding cray "$PC" CTK-PC-003 waived)" warning/false
check "Cray policy: every finding of those codes waived, counted apart from the errors (PC-004) and the warning (PC-003)" \
    same_text "$(sum cray waived) $(sum cray error) $(sum cray warning)" "$N_WAIVE $N_PC004 1"
check "Cray policy: the waived count is the findings marked waived" same_text "$(count cray .waived)" "$N_WAIVE"

L cray-txt --policy "$T/cray.json" "$M/cray"
check "text: a waived finding says so, not 'error CTK-'" \
    grep -qF "$TCL: waived CTK-CPATH-001 (error): " "$T/cray-txt.out"
check "text: no waived code is printed as an error" lacks "error CTK-CPATH-001" "$T/cray-txt.out"
check "text: the reason under the waived finding" \
    grep -qF "  policy: waived by $T/cray.json:3: $CRAY_WHY" "$T/cray-txt.out"
check "text: the error the policy left is printed as one" grep -qE "^$TCL:[0-9]+: error CTK-PC-004: " "$T/cray-txt.out"
check "text: the summary counts the waived apart" \
    grep -qE "^2 files linted: $N_PC004 errors?, 1 warning, 0 notes, $N_WAIVE waived; 0 not fully checked; 0 skipped" "$T/cray-txt.out"

# the glob is the limit: a site module with the same findings is untouched
L mixed --json --policy "$T/cray.json" "$M"
check "glob: the site module's CTK-CPATH-001 is not waived" \
    same_text "$(finding mixed "$LUA" CTK-CPATH-001 severity)/$(finding mixed "$LUA" CTK-CPATH-001 waived)" error/false
check "glob: the site module fails the gate (exit $rc)" [ "$rc" -eq 1 ]

# ---- --error-on ----------------------------------------------------------------------
L pc-err --policy "$T/cray.json" "$PC"
check "--error-on default (error): a warning left passes (exit $rc)" [ "$rc" -eq 0 ]
L pc-warn --policy "$T/cray.json" --error-on warning "$PC"
check "--error-on warning: the warning fails the gate (exit $rc)" [ "$rc" -eq 1 ]
L pc-error --policy "$T/cray.json" --error-on error "$PC"
check "--error-on error: exit 0 (exit $rc)" [ "$rc" -eq 0 ]
jq '. + {"error_on": "warning"}' "$T/cray.json" > "$T/cray-warn.json"
L pc-pwarn --policy "$T/cray-warn.json" "$PC"
check "policy error_on warning: the warning fails (exit $rc)" [ "$rc" -eq 1 ]
L pc-pwarn-cli --policy "$T/cray-warn.json" --error-on error "$PC"
check "--error-on error on the command line wins over the policy's (exit $rc)" [ "$rc" -eq 0 ]
jq '.rules += [{"code": "CTK-PC-003", "files": "*/cray/*", "severity": "off", "reason": "r"}]' "$T/cray.json" > "$T/cray-all.json"
L pc-allwaived --policy "$T/cray-all.json" --error-on warning "$PC"
check "--error-on warning: a waived warning does not fail (exit $rc)" [ "$rc" -eq 0 ]
L bad-level --error-on notice "$PC"
check "--error-on notice: usage error (exit $rc)" [ "$rc" -eq 2 ]
check "--error-on notice: says what it takes" grep -qF "'error' or 'warning'" "$T/bad-level.err"

# ---- severity changes ----------------------------------------------------------------
jq '.rules += [{"code": "CTK-PC-003", "severity": "error", "reason": "unused variables hide typos"}]' \
    "$T/cray.json" > "$T/up.json"
L up --json --policy "$T/up.json" "$PC"
check "raise: warning CTK-PC-003 made an error fails the gate (exit $rc)" [ "$rc" -eq 1 ]
check "raise: severity error, default_severity warning, the reason" \
    same_text "$(finding up "$PC" CTK-PC-003 severity)/$(finding up "$PC" CTK-PC-003 default_severity)/$(finding up "$PC" CTK-PC-003 reason)" \
    "error/warning/unused variables hide typos"
L up-txt --policy "$T/up.json" "$PC"
check "raise, text: 'error, was warning' and the reason" \
    grep -qE "^  policy: error, was warning by $T/up.json:[0-9]+: unused variables hide typos\$" "$T/up-txt.out"
jq '.rules += [{"code": "CTK-PC-004", "severity": "note", "reason": "the .pc comes with the PE, not this module"}]' \
    "$T/cray.json" > "$T/down.json"
L down --json --policy "$T/down.json" "$TCL"
check "lower: CTK-PC-004 as a note passes the gate (exit $rc)" [ "$rc" -eq 0 ]
check "lower: counted as notes" same_text "$(sum down note)/$(sum down error)" "$N_PC004/0"
# the last rule that matches wins
jq '.rules += [{"code": "CTK-CPATH-001", "files": "*/cudatoolkit/*", "severity": "error", "reason": "later"}]' \
    "$T/cray.json" > "$T/last.json"
L last --json --policy "$T/last.json" "$TCL"
check "the later rule wins: CTK-CPATH-001 an error again, its reason" \
    same_text "$(finding last "$TCL" CTK-CPATH-001 waived)/$(finding last "$TCL" CTK-CPATH-001 reason)" false/later

# globs also match the path below the directory named
cat > "$T/rel.json" <<'JSON'
{ "rules": [ { "code": "CTK-PC-003", "files": "cray/pc/*", "severity": "off", "reason": "relative" } ] }
JSON
L rel-dir --json --policy "$T/rel.json" "$M"
check "relative glob: matches below the linted directory" same_text "$(finding rel-dir "$PC" CTK-PC-003 waived)" true
L rel-file --json --policy "$T/rel.json" "$PC"
check "relative glob: a file named itself has no relative path" same_text "$(finding rel-file "$PC" CTK-PC-003 waived)" false

# ---- the site config's "lint" section ------------------------------------------------
jq --arg b "$CUDA" '{"sdks": [{"version": "13.0", "base": $b}], "lint": .}' "$T/cray.json" > "$T/site.json"
L site --json --config "$T/site.json" "$M/cray"
check "--config: the lint section waives as --policy does" \
    same_text "$(finding site "$TCL" CTK-CPATH-001 waived)/$(sum site waived)/$rc" "true/$N_WAIVE/1"
at=$(finding site "$TCL" CTK-CPATH-001 policy)
check "--config: the finding names the rule's line in the site config ($at)" \
    sh -c "case '$at' in '$T/site.json:'[0-9]*) exit 0 ;; *) exit 1 ;; esac"
jq '{"sdks": "not looked at", "lint": .}' "$T/cray.json" > "$T/site-only-lint.json"
L site-only --config "$T/site-only-lint.json" "$PC"
check "--config reads only the lint section (exit $rc)" [ "$rc" -eq 0 ]
echo '{"sdks": []}' > "$T/site-nolint.json"
L site-none --config "$T/site-nolint.json" "$PC"
check "--config without a lint section: no policy, said on stderr" grep -q 'has no "lint" section' "$T/site-none.err"
check "--config without a lint section: the .pc's CTK-PC-001 fails (exit $rc)" [ "$rc" -eq 1 ]
L both --json --config "$T/site.json" --policy "$T/up.json" "$PC"
check "--policy's rules win over --config's" same_text "$(finding both "$PC" CTK-PC-003 severity)" error
rc=0; "$CTKGEN" generate -c "$T/site.json" -o "$T/gen" --dry-run > /dev/null 2>&1 || rc=$?
check "generate accepts a site config with a lint section (exit $rc)" [ "$rc" -eq 0 ]
jq '.lint.rules[0].severity = "loud"' "$T/site.json" > "$T/site-bad.json"
rc=0; "$CTKGEN" generate -c "$T/site-bad.json" -o "$T/gen" --dry-run > /dev/null 2> "$T/gen-bad.err" || rc=$?
check "generate checks the lint section too (exit $rc)" [ "$rc" -eq 3 ]
check "... at its place" grep -qF "/lint/rules/0/severity" "$T/gen-bad.err"

# ---- bad policies: exit 3, file:line:col and what is wrong ---------------------------
# bad NAME 'JSON' 'MESSAGE': --policy with that file is refused with MESSAGE
bad() {
    printf '%s\n' "$2" > "$T/$1.json"
    L "$1" --policy "$T/$1.json" "$PC"
    check "bad policy $1: exit 3 (exit $rc)" [ "$rc" -eq 3 ]
    check "bad policy $1: $3" grep -qF -- "$3" "$T/$1.err"
    check "bad policy $1: no report" [ ! -s "$T/$1.out" ]
}
bad unknown-code '{ "rules": [
  { "code": "CTK-CPAHT-001", "severity": "off", "reason": "r" } ] }' \
    "unknown-code.json:2:13: error: /rules/0/code: unknown finding code \"CTK-CPAHT-001\" (did you mean \"CTK-CPATH-001\"?)"
bad unknown-in-list '{ "rules": [ { "code": ["CTK-PC-001", "NOPE"], "severity": "off", "reason": "r" } ] }' \
    '/rules/0/code/1: unknown finding code "NOPE"'
bad severity '{ "rules": [ { "code": "CTK-PC-001", "severity": "fatal", "reason": "r" } ] }' \
    '/rules/0/severity: severity "fatal" is not "error", "warning", "note", "off" or "waive"'
bad no-reason '{ "rules": [
    { "code": "CTK-PC-001", "severity": "off" } ] }' \
    'no-reason.json:2:5: error: /rules/0: missing required key "reason"'
bad empty-reason '{ "rules": [ { "code": "CTK-PC-001", "severity": "off", "reason": "" } ] }' \
    '/rules/0/reason: expected a non-empty string'
bad no-severity '{ "rules": [ { "code": "CTK-PC-001", "reason": "r" } ] }' \
    'missing required key "severity"'
bad json '{ "rules": [
  { "code": "CTK-PC-001", "severity": "off", "reason": "r" },
  } ] }' \
    'json.json:3:'
bad not-object '[ "CTK-PC-001" ]' 'expected an object, got array'
bad unknown-key '{ "rule": [] }' '/rule: unknown key (did you mean "rules"?)'
bad site-as-policy '{ "sdks": [], "lint": {} }' 'is a site config key, not a lint policy'"'"'s'
bad error-on '{ "error_on": "eror" }' '/error_on: error_on "eror" is not "warning" or "error" (did you mean "error"?)'
bad empty-glob '{ "rules": [ { "code": "CTK-PC-001", "files": "", "severity": "off", "reason": "r" } ] }' \
    '/rules/0/files: expected a non-empty string'
rc=0; "$CTKGEN" lint --policy "$T/nonexistent.json" "$PC" > /dev/null 2> "$T/missing.err" || rc=$?
check "missing policy file: exit 3 (exit $rc)" [ "$rc" -eq 3 ]
check "missing policy file: named" grep -qF "$T/nonexistent.json" "$T/missing.err"

# ---- not fully checked ---------------------------------------------------------------
# A Lua module that runs a program when loaded: the sandbox does not run it
# (CTK-MOD-007), so the file is not fully checked, on every machine.
UT=$T/unchecked/cuda/13.0.lua
mkdir -p "$(dirname "$UT")"
printf 'family("cuda")\nexecute{cmd="/opt/site/bin/log-load cuda", modeA={"load"}}\n' > "$UT"
U() { u_n=$1; shift; L "$u_n" "$@"; }
U inc "$UT"
check "not fully checked (CTK-MOD-007): exit 5 (exit $rc)" [ "$rc" -eq 5 ]
check "not fully checked: the summary counts it" grep -qE '; 1 not fully checked; ' "$T/inc.out"
check "not fully checked: the file is marked" grep -qF "$UT: lua cuda/13.0 [not fully checked]" "$T/inc.out"
check "not fully checked: and says what was not checked" \
    grep -qF '  not fully checked: line 2: execute{cmd="/opt/site/bin/log-load cuda"} was not run' "$T/inc.out"
check "not fully checked: stderr says so, and the exit status" grep -qF "1 file not fully checked (exit status 5" "$T/inc.err"
U inc-q -q "$UT"
check "not fully checked, -q: still listed" grep -qF "[not fully checked]" "$T/inc-q.out"
U inc-json --json "$UT"
check "not fully checked, --json: summary and file say so" \
    same_text "$(sum inc-json not_fully_checked)/$(J inc-json "$UT" .not_fully_checked)/$(J inc-json "$UT" '.unchecked | length')" 1/true/1
U inc-strict --strict "$UT"
check "--strict: a file not fully checked fails the gate (exit $rc)" [ "$rc" -eq 1 ]
U inc-err "$UT" "$LUA"
check "not fully checked and an error: exit 1 (exit $rc)" [ "$rc" -eq 1 ]
printf '{ "rules": [ { "code": "CTK-MOD-007", "severity": "off", "reason": "the load logger is audited apart" } ] }\n' \
    > "$T/skip-off.json"
U inc-waived --json --policy "$T/skip-off.json" "$UT"
check "waiving CTK-MOD-007 hides the warning but not the fact: exit 5 (exit $rc)" [ "$rc" -eq 5 ]
check "... the warning listed as waived, the file still not fully checked" \
    same_text "$(sum inc-waived waived)/$(sum inc-waived not_fully_checked)" 1/1
# A Tcl file left unloaded counts the same: with no Environment Modules
# (and --tcl-with modules, so Lmod's tcl2lua is not used) CTK-SKIP-003.
NOEM=yes
for p in /usr/share/modules/libexec/modulecmd.tcl /usr/lib/x86_64-linux-gnu/modulecmd.tcl \
         /usr/share/Modules/libexec/modulecmd.tcl /usr/local/Modules/libexec/modulecmd.tcl \
         /opt/modules/libexec/modulecmd.tcl; do
    [ -e "$p" ] && NOEM=no
done
if [ "$NOEM" = yes ]; then
    rc=0; TMPDIR=$LT "$CTKGEN" lint --tcl-with modules "$TCL" > "$T/tcl-inc.out" 2> "$T/tcl-inc.err" || rc=$?
    check "a Tcl file not loaded (CTK-SKIP-003): exit 5 (exit $rc)" [ "$rc" -eq 5 ]
    check "... and says so" grep -qF "  not fully checked: not loaded (CTK-SKIP-003): none of its checks ran" "$T/tcl-inc.out"
else
    echo "SKIP: Environment Modules is installed in a standard place: no Tcl file is left unloaded here (not counted)"
fi
L clean-strict --strict --error-on warning "$M/site/pc/ctk-13.0.pc"
check "--strict --error-on warning: a clean, fully checked file passes (exit $rc)" [ "$rc" -eq 0 ]
check "clean: 0 not fully checked" grep -qE '; 0 not fully checked; ' "$T/clean-strict.out"

check "lint's TMPDIR is empty" empty_dir "$LT"
finish
