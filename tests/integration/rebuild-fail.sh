#!/bin/sh
# Stage 3 failing: an unsatisfiable requirement fails fast and shows the
# first ERROR line and the requirement it names (not the last line); a
# credential in the rebuild file stops everything before pip runs; the lint
# findings of a file with a local path, an unpinned line and a partial set
# of hashes; strict mode; a missing rebuild file.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python rebuild-fail "$PY with venv and pip is needed" venv pip

# an unsatisfiable requirement
P="$KD_TMP/unsat"
venv_reference "$P"
"$PY" "$MKW" "$P/wheels" alpha 1.0 >/dev/null
printf -- '--no-index\n--find-links ./wheels\nalpha==1.0\ngamma==9.9\n' >"$P/requirements-rebuild.txt"
start=$(date +%s)
"$KD_BIN" check "$P" --stage rebuild --format yaml >"$KD_TMP/u.out" 2>"$KD_TMP/u.err"
rc=$?
took=$(( $(date +%s) - start ))
check "unsatisfiable: check exits 1" [ "$rc" -eq 1 ]
check "unsatisfiable: fails fast (under 60 s)" [ "$took" -lt 60 ]
check "unsatisfiable: the first ERROR line is shown" \
	grep -q "first_error: 'ERROR: Could not find a version that satisfies the requirement gamma==9.9" "$KD_TMP/u.out"
check "unsatisfiable: not the last ERROR line" \
	sh -c "! grep -q 'first_error:.*No matching distribution' '$KD_TMP/u.out'"
check "unsatisfiable: the requirement it names" grep -q "observed: failed, on gamma==9.9" "$KD_TMP/u.out"
check "unsatisfiable: no inventory is claimed" sh -c "! test -f '$P/kernodeck/installed-after.txt'"

# a credential: nothing runs
P="$KD_TMP/cred"
venv_reference "$P"
printf -- '--index-url https://alice:pa55word@pypi.example.org/simple\nalpha==1.0\n' >"$P/requirements-rebuild.txt"
"$KD_BIN" check "$P" --stage rebuild --format yaml >"$KD_TMP/c.out" 2>"$KD_TMP/c.err"
rc=$?
check "credential: check exits 1" [ "$rc" -eq 1 ]
check "credential: the lint row fails" sh -c "grep -A2 'id: rebuild.lint.credential' '$KD_TMP/c.out' | grep -q 'status: fail'"
check "credential: the screen says where it must come from" grep -q 'PIP_TOKEN' "$KD_TMP/c.out"
check "credential: no venv was made, pip did not run" sh -c "! test -e '$P/.venv-rebuild'"
check "credential: the value is in no file kernodeck wrote" sh -c "! grep -rq pa55word '$P/kernodeck'"

# lint: a local path, an unpinned line, a partial set of hashes
P="$KD_TMP/lint"
venv_reference "$P"
cat >"$P/requirements-rebuild.txt" <<'R'
--no-index
--find-links /opt/kd-wheels-that-do-not-exist
alpha==1.0 --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000
beta>=2
R
"$KD_BIN" inspect requirements "$P/requirements-rebuild.txt" --format json >"$KD_TMP/l.json" 2>"$KD_TMP/l.err"
rc=$?
check "inspect requirements: exits 0" [ "$rc" -eq 0 ]
check "inspect requirements: JSON with the issue's keys" "$PY" -c "
import json; d = json.load(open('$KD_TMP/l.json'))
for k in ('index_url', 'extra_index_urls', 'find_links', 'constraints', 'includes', 'hash_mode', 'requirements', 'findings'):
    assert k in d, k
assert d['hash_mode'] is True
r = d['requirements'][0]
assert r['name'] == 'alpha' and r['specifier'] == '==1.0' and r['hashes'] == ['sha256:' + '0' * 64]
codes = sorted(set(f['code'] for f in d['findings']))
assert codes == ['hashes', 'local-path', 'unpinned'], codes
assert all({'severity', 'line', 'message'} <= set(f) for f in d['findings'])"
"$KD_BIN" check "$P" --stage rebuild --format yaml >"$KD_TMP/l.out" 2>/dev/null
check "lint: local path warns" sh -c "grep -A2 'id: rebuild.lint.local-path' '$KD_TMP/l.out' | grep -q 'status: warn'"
check "lint: unpinned warns" sh -c "grep -A2 'id: rebuild.lint.unpinned' '$KD_TMP/l.out' | grep -q 'status: warn'"
check "lint: partial hashes fail" sh -c "grep -A2 'id: rebuild.lint.hashes' '$KD_TMP/l.out' | grep -q 'status: fail'"
"$KD_BIN" check "$P" --stage rebuild --strict --format yaml >"$KD_TMP/s.out" 2>/dev/null
check "strict: unpinned fails" sh -c "grep -A2 'id: rebuild.lint.unpinned' '$KD_TMP/s.out' | grep -q 'status: fail'"

# no rebuild file
P="$KD_TMP/none"
venv_reference "$P"
"$KD_BIN" check "$P" --stage rebuild --format yaml >"$KD_TMP/n.out" 2>/dev/null
rc=$?
check "no rebuild file: check exits 1" [ "$rc" -eq 1 ]
check "no rebuild file: says so" sh -c "grep -A4 'id: rebuild.requirements' '$KD_TMP/n.out' | grep -q 'observed: missing'"
