# tests/integration/deviate-withdraw.sh - deviations can be taken back, and
# one whose check passes now is no longer reported as current (issue 17,
# point 3); a check that can never be deviated is refused clearly; the
# JSON report carries an overall status and JUnit lists the stages that
# did not run as skipped (point 14).
. "$KD_SRCDIR/tests/lib.sh"
P=$KD_TMP/p
git_project "$P" >/dev/null 2>&1
code_reference "$P" >"$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage reference >/dev/null 2>&1
expect_exit 0 "deviate: a deviation on the failing goal is recorded" \
	sh -c "'$KD_BIN' deviate '$P' --stage reference --check goal --why 'decided later' >/dev/null"
# the goal is filled: its check passes, the deviation is no longer needed
printf 'goal: close-values\n' >>"$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage reference --format json >"$KD_TMP/r.json" 2>/dev/null
check "the deviation of a check that passes now is marked not needed" /usr/bin/python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['stages'][0]
d = [x for x in s['deviations'] if x['check'] == 'goal']
assert d and d[0]['needed'] is False, d" "$KD_TMP/r.json"
"$KD_BIN" check "$P" --stage reference >"$KD_TMP/r.txt" 2>/dev/null
check "text: said to be no longer needed, with how to take it back" \
	grep -q "deviation no longer needed (the check passes now; deviate --withdraw" "$KD_TMP/r.txt"
"$KD_BIN" dossier "$P" >/dev/null 2>&1
check "dossier README: not in the table of current deviations" \
	sh -c "! grep -q '^| reference | \`goal\`' '$P/kernodeck/dossier/README.md' && grep -q 'No longer needed.*reference/goal' '$P/kernodeck/dossier/README.md'"
check "dossier.yaml: needed: false" grep -q "needed: false" "$P/kernodeck/dossier/dossier.yaml"
"$KD_BIN" deviate "$P" --stage reference --check goal --withdraw >"$KD_TMP/w.out" 2>&1
r=$?
check "deviate --withdraw takes it back (exit $r)" sh -c "[ $r -eq 0 ] && grep -q 'deviation withdrawn: stage reference, check goal' '$KD_TMP/w.out'"
check "... and the state no longer holds it" sh -c "! grep -q 'why: decided later' '$P/kernodeck/state.yaml'"
expect_exit 2 "deviate --withdraw with no deviation there: exit 2" \
	sh -c "'$KD_BIN' deviate '$P' --stage reference --check goal --withdraw 2>/dev/null"
expect_exit 2 "deviate --withdraw with --why: usage, exit 2" \
	sh -c "'$KD_BIN' deviate '$P' --stage reference --check goal --withdraw --why x 2>/dev/null"
"$KD_BIN" deviate "$P" --stage dossier --check dossier.secret.1 --why "it is fine" >"$KD_TMP/s.out" 2>&1
r=$?
check "a credential check can never be deviated: refused (exit $r), said so, nothing recorded" \
	sh -c "[ $r -eq 2 ] && grep -q 'can never be deviated' '$KD_TMP/s.out' && ! grep -q 'deviation recorded' '$KD_TMP/s.out'"

# the report: an overall status; JUnit: the stages not run are skipped
"$KD_BIN" check "$P" --format json --junit "$KD_TMP/j.xml" >"$KD_TMP/all.json" 2>/dev/null
check "JSON report: an overall status (failed: stage 1 fails)" /usr/bin/python3 -c "
import json, sys; assert json.load(open(sys.argv[1]))['status'] == 'failed'" "$KD_TMP/all.json"
check "JUnit: the six stages that did not run are skipped, with why" /usr/bin/python3 -c "
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
sk = [s.get('name') for s in r.findall('testsuite') if s.get('skipped') == '1']
assert sk == ['system', 'rebuild', 'contract', 'compute', 'sample', 'dossier'], sk
assert r.get('skipped') == '6'
assert all(c.find('skipped').get('message').startswith('not run') for s in r.findall('testsuite')
           if s.get('name') in sk for c in s.findall('testcase'))" "$KD_TMP/j.xml"
