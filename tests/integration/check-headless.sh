#!/bin/sh
# kernodeck check / deviate headless: exit codes, formats, JUnit, lock,
# the advance rule and a deviation recorded without a terminal.
. "$KD_SRCDIR/tests/lib.sh"
P="$KD_TMP/proj"
mkdir -p "$P"
PY=/usr/bin/python3

expect_exit 2 "check: unknown option is bad usage" "$KD_BIN" check --bogus "$P"
expect_exit 2 "check: unknown stage is bad usage" "$KD_BIN" check "$P" --stage nowhere
expect_exit 2 "check: unknown format is bad usage" "$KD_BIN" check "$P" --format xml
expect_exit 2 "check: a missing folder is an input error" "$KD_BIN" check "$KD_TMP/none" --quiet

# a plain folder (no git repository, no kernodeck/) is not a project: check
# says so, names init, exits 2 and writes nothing, whatever the options
for opts in "" "--stage reference" "--format json" "--state-dir $KD_TMP/sd"; do
	# shellcheck disable=SC2086
	"$KD_BIN" check "$P" $opts >"$KD_TMP/plain.out" 2>"$KD_TMP/plain.err"
	rc=$?
	check "check on a plain folder${opts:+ ($opts)}: exit 2, nothing written" \
		[ "$rc" -eq 2 -a -z "$(ls -A "$P")" -a ! -e "$KD_TMP/sd" ]
done
check "check on a plain folder: says it is not a project and how to make it one" \
	grep -q "is not a project: no git repository.*nothing was written.*kernodeck init .*check --init" "$KD_TMP/plain.err"

# --init makes it one: an empty project, whose reference is incomplete, so
# stage 1 fails and check stops there
"$KD_BIN" check "$P" --init --quiet --format json >"$KD_TMP/r.json" 2>"$KD_TMP/r.err"
rc=$?
check "check: an empty project fails (exit 1)" [ "$rc" -eq 1 ]
check "check: says where it stopped and how to deviate" grep -q "stopped at stage 1 (reference).*kernodeck deviate" "$KD_TMP/r.err"
check "check: json report is valid and stops at stage 1" $PY -c "
import json,sys; r=json.load(open('$KD_TMP/r.json'))
assert [s['id'] for s in r['stages']]==['reference'], r['stages']
assert r['stages'][0]['status']=='failed'
assert any(x['status']=='fail' for x in r['stages'][0]['rows'])"
check "check: state.yaml saved with schema" grep -q '^schema: 2' "$P/kernodeck/state.yaml"
"$KD_BIN" check "$P" --quiet --stage reference >/dev/null 2>&1
check "check: once kernodeck/ is there, no --init is needed" [ $? -eq 1 ]

# --stage follows the walkthrough's advance rule: a later stage does not
# run while an earlier one fails, unless --force asks for it
"$KD_BIN" check "$P" --stage system >"$KD_TMP/g.out" 2>"$KD_TMP/g.err"
rc=$?
check "check --stage system after a failing stage 1: exit 1" [ "$rc" -eq 1 ]
check "check --stage system: names the blocking stage, a failing check and --force" \
	grep -q "stage 2 (system) was not run: stage 1 (reference): Reference has failing checks without a deviation: [a-z]*\..*--force" "$KD_TMP/g.err"
check "check --stage system: the system stage did not run" grep -Eq "^2 system +pending" "$KD_TMP/g.out"
"$KD_BIN" check "$P" --stage system --force --quiet --format json >"$KD_TMP/f.json" 2>"$KD_TMP/f.err"
check "check --stage system --force: runs it all the same, and says so" $PY -c "
import json,sys; r=json.load(open('$KD_TMP/f.json')); s=r['stages'][0]
assert s['id']=='system' and s['status']!='pending' and s['rows'], s
assert '--force: stage 2 (system) runs although stage 1 (reference)' in open('$KD_TMP/f.err').read()"

"$KD_BIN" check "$P" --quiet --format yaml >"$KD_TMP/r.yaml" 2>/dev/null
check "check: yaml report" grep -q 'reference_identity:' "$KD_TMP/r.yaml"

"$KD_BIN" check "$P" --quiet --junit "$KD_TMP/junit.xml" >/dev/null 2>&1
check "check: junit has testsuites/testsuite/testcase and failures" $PY -c "
import xml.etree.ElementTree as ET; t=ET.parse('$KD_TMP/junit.xml').getroot()
assert t.tag=='testsuites' and int(t.get('failures'))>0
s=t.find('testsuite'); assert s is not None and s.get('name')=='reference' and s.get('tests')
c=s.find('testcase'); assert c is not None and c.get('name') and c.get('classname')
assert s.find('testcase/failure') is not None"

# record a deviation for every failing check of stage 1, headless
ids=$($PY -c "
import json; r=json.load(open('$KD_TMP/r.json'))
print(' '.join(x['id'] for x in r['stages'][0]['rows'] if x['status']=='fail'))")
expect_exit 2 "deviate: an empty why is refused" "$KD_BIN" deviate "$P" --stage reference --check "${ids%% *}" --why ""
expect_exit 2 "deviate: an unknown check is refused" "$KD_BIN" deviate "$P" --stage reference --check no.such --why "x"
expect_exit 2 "deviate: missing --why is bad usage" "$KD_BIN" deviate "$P" --stage reference --check x
allok=0
for id in $ids; do
	"$KD_BIN" deviate "$P" --stage reference --check "$id" --why "test: reference left empty on purpose" >/dev/null || allok=1
done
check "deviate: recorded for each failing check" [ "$allok" -eq 0 ]
check "deviate: author and time saved" grep -q 'author:' "$P/kernodeck/state.yaml"
"$KD_BIN" check "$P" --stage reference --quiet --format json >"$KD_TMP/r2.json" 2>/dev/null
check "check --stage: stage 1 now deviation (the same failures are covered)" $PY -c "
import json; r=json.load(open('$KD_TMP/r2.json')); s=r['stages'][0]
assert s['status']=='deviation', s['status']"

# a malformed state: exit 2, file named with its line, file untouched
cp "$P/kernodeck/state.yaml" "$KD_TMP/good.yaml"
printf 'schema: 1\ncurrent: [\n' >"$P/kernodeck/state.yaml"
cp "$P/kernodeck/state.yaml" "$KD_TMP/bad.copy"
"$KD_BIN" check "$P" --quiet >/dev/null 2>"$KD_TMP/bad.err"
rc=$?
check "check: malformed state.yaml is exit 2" [ "$rc" -eq 2 ]
check "check: the error names the file and line" grep -q 'state.yaml:[0-9]' "$KD_TMP/bad.err"
check "check: the bad state is left as it was" cmp -s "$P/kernodeck/state.yaml" "$KD_TMP/bad.copy"
cp "$KD_TMP/good.yaml" "$P/kernodeck/state.yaml"

# another process holds the lock: check stops with exit 3 and names the holder
hold_lock "$P/kernodeck/lock"
"$KD_BIN" check "$P" --quiet >/dev/null 2>"$KD_TMP/lock.err"
rc=$?
release_lock "$P/kernodeck/lock"
check "check: a held lock stops check (exit 3)" [ "$rc" -eq 3 ]
check "check: says who holds the lock" grep -q "alice on elsewhere, process $holder" "$KD_TMP/lock.err"
"$KD_BIN" check "$P" --quiet --stage reference >/dev/null 2>&1
rc=$?
check "check: the lock of a dead process is free again" [ "$rc" -ne 3 ]

# the code moved away from the commit stage 1 saw: a later stage alone is
# not green (a CI job running --stage system after a new commit)
G="$KD_TMP/moved"
git_project "$G"
code_reference "$G" >"$G/kernodeck/reference.yaml"
"$KD_BIN" check "$G" --stage reference --quiet --format json >"$KD_TMP/m.json" 2>/dev/null
for id in $($PY -c "
import json; r=json.load(open('$KD_TMP/m.json'))
print(' '.join(x['id'] for x in r['stages'][0]['rows'] if x['status']=='fail'))"); do
	"$KD_BIN" deviate "$G" --stage reference --check "$id" --why "test: reference kept small" >/dev/null
done
"$KD_BIN" check "$G" --stage system --quiet >/dev/null 2>"$KD_TMP/m1.err"
check "moved: with stage 1's failures deviated, --stage system runs" sh -c "! grep -q 'was not run' '$KD_TMP/m1.err'"
echo "print('changed')" >"$G/main.py"
git -C "$G" commit -qam "moved on"
"$KD_BIN" check "$G" --stage system --format json >"$KD_TMP/m2.json" 2>"$KD_TMP/m2.err"
rc=$?
check "moved: a new commit makes --stage system exit 1" [ "$rc" -eq 1 ]
check "moved: names stage 1, stale, the commits and code.head" \
	grep -q "stage 1 (reference) is stale: the commit at HEAD moved to [0-9a-f]\{12\} since it was checked at [0-9a-f]\{12\} (code.head)" "$KD_TMP/m2.err"
check "moved: the report's status is stale, and so is the saved stage 1" $PY -c "
import json; r=json.load(open('$KD_TMP/m2.json'))
assert r['status']=='stale', r['status']
assert r['stages'][0]['id']=='reference' and r['stages'][0]['status']=='stale'" 
check "moved: state.yaml keeps the stale mark" grep -q "status: stale" "$G/kernodeck/state.yaml"
