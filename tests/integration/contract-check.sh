#!/bin/sh
# kd-test: long (started first: see tests/run-all.sh)
# Stage 4 on a real venv: pip check and the rebuilt inventory against a
# reference inventory that differs only by a local label (+cu121 against
# +cpu, which pip's ==2.3.0 accepts both); marking the difference
# intentional (a variant), to fix, or clearing it; then a missing dependency
# and a version conflict made in the venv; problems of system packages
# shown apart.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python contract-check "$PY with venv and pip is needed" venv pip
need_driver contract-check
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
"$PY" "$MKW" "$P/wheels" alpha 1.0 --requires "beta>=2" >/dev/null
"$PY" "$MKW" "$P/wheels" beta 2.1 >/dev/null
"$PY" "$MKW" "$P/wheels" beta 1.0 >/dev/null
"$PY" "$MKW" "$P/wheels" tensorlib 2.3.0+cpu >/dev/null
printf -- '--no-index\n--find-links ./wheels\nalpha==1.0\nbeta==2.1\ntensorlib==2.3.0+cpu\n' \
	>"$P/requirements-rebuild.txt"
venv_reference "$P" "inventory: reference-freeze.txt"
"$KD_BIN" check "$P" --stage rebuild --force >/dev/null 2>&1
check "setup: the rebuild passed" [ -s "$P/kernodeck/installed-after.txt" ]
# the reference: the same inventory but built for CUDA 12.1
sed 's/^tensorlib==2.3.0+cpu$/tensorlib==2.3.0+cu121/' "$P/kernodeck/installed-after.txt" \
	>"$P/reference-freeze.txt"
check "setup: the inventories differ only by the local label" \
	sh -c "diff '$P/kernodeck/installed-after.txt' '$P/reference-freeze.txt' | grep -c '^[<>]' | grep -qx 2"
# the reference is edited: stage 4 alone records its observations anyway
"$KD_BIN" check "$P" --stage contract --force --format yaml >"$KD_TMP/a.out" 2>"$KD_TMP/a.err"
rc=$?
check "label: check exits 1 (an unmarked difference)" [ "$rc" -eq 1 ]
check "label: pip check ran and its raw output is saved" test -f "$P/kernodeck/pip-check.txt"
check "label: pip check passes or only warns (system packages apart)" \
	sh -c "grep -A2 'id: contract.pip_check$' '$KD_TMP/a.out' | grep -q 'status: \(pass\|warn\)'"
check "label: the local label change is the only difference" \
	sh -c "[ \$(grep -c 'id: contract.diff\.' '$KD_TMP/a.out') -eq 1 ] && grep -q 'id: contract.diff.tensorlib' '$KD_TMP/a.out'"
check "label: prominent, and says ==2.3.0 accepts both" \
	sh -c "grep -q 'LOCAL LABEL CHANGED: tensorlib 2.3.0+cu121 -> 2.3.0+cpu' '$P/kernodeck/state.yaml' && grep -q 'accepts both' '$KD_TMP/a.out'"
check "label: what a clean pip check does not prove" grep -q "not that the GPU driver" "$KD_TMP/a.out"
check "label: the observations are saved" grep -q "local_label_changed:" "$P/kernodeck/contract.yaml"

"$DRV" "$P" contract action i contract.diff.tensorlib >"$KD_TMP/i.out" 2>&1
rc=$?
check "intentional: the action succeeds" [ "$rc" -eq 0 ]
check "intentional: the stage passes without running pip again" grep -q "status: passed" "$KD_TMP/i.out"
check "intentional: the mark is stored under the canonical name" \
	sh -c "grep -A2 'marks:' '$P/kernodeck/state.yaml' | grep -q 'tensorlib: intentional'"
check "intentional: the run is a variant, named in the state" \
	sh -c "grep -q '^  variant: true' '$P/kernodeck/state.yaml' && grep -A1 'variant_differences:' '$P/kernodeck/state.yaml' | grep -q tensorlib"
"$KD_BIN" check "$P" --stage contract --force >/dev/null 2>&1
rc=$?
check "intentional: a new check passes" [ "$rc" -eq 0 ]
# a package of the system site packages the reference does not list: named
# in one informative row (the project did not install it), not failing
SYSPKG=$(grep -v -E '^(alpha|beta|tensorlib|pip|setuptools|wheel)==' "$P/reference-freeze.txt" | head -n 1)
if [ -n "$SYSPKG" ]; then
	cp "$P/reference-freeze.txt" "$KD_TMP/ref.bak"
	grep -v -x -F "$SYSPKG" "$KD_TMP/ref.bak" >"$P/reference-freeze.txt"
	"$KD_BIN" check "$P" --stage contract --force --format yaml >"$KD_TMP/sys.out" 2>/dev/null
	rc=$?
	cn=$(echo "$SYSPKG" | sed 's/==.*//' | tr 'A-Z_.' 'a-z--')
	check "system extra: named in the informative row, not failing" \
		sh -c "grep -A4 'id: contract.system-extras\$' '$KD_TMP/sys.out' | grep -q 'status: info' &&
		grep -A4 'id: contract.system-extras\$' '$KD_TMP/sys.out' | grep -q 'observed: $(echo "$SYSPKG" | sed 's/==.*//')' &&
		! grep -q 'id: contract.diff.$cn\$' '$KD_TMP/sys.out'"
	check "system extra: the stage still passes" [ "$rc" -eq 0 ]
	cp "$KD_TMP/ref.bak" "$P/reference-freeze.txt"
else
	skip "system extra" "no system package in the venv's inventory"
fi
"$DRV" "$P" contract action t contract.diff.tensorlib >"$KD_TMP/t.out" 2>&1
check "to fix: the stage fails" grep -q "status: failed" "$KD_TMP/t.out"
check "to fix: no longer a variant" grep -q '^  variant: false' "$P/kernodeck/state.yaml"
"$DRV" "$P" contract action x contract.diff.tensorlib >"$KD_TMP/x.out" 2>&1
check "clear: the mark is gone, the stage fails" \
	sh -c "grep -q 'status: failed' '$KD_TMP/x.out' && ! grep -q 'tensorlib: to-fix' '$P/kernodeck/state.yaml'"
"$DRV" "$P" contract action i contract.pip_check >"$KD_TMP/bad.out" 2>&1
rc=$?
check "marks: refused on a row that is not a difference" [ "$rc" -eq 2 ]

# a missing dependency, made in the venv
VPY="$P/.venv-rebuild/bin/python"
"$VPY" -m pip uninstall -y -q beta >/dev/null 2>&1
"$KD_BIN" check "$P" --stage contract --force --format yaml >"$KD_TMP/m.out" 2>/dev/null
rc=$?
check "missing: check exits 1" [ "$rc" -eq 1 ]
check "missing: pip check fails on the venv's problem" \
	sh -c "grep -A2 'id: contract.pip_check$' '$KD_TMP/m.out' | grep -q 'status: fail'"
check "missing: its first error is pip's line" \
	grep -q "first_error: alpha 1.0 requires beta, which is not installed." "$KD_TMP/m.out"
check "missing: parsed as kind missing" sh -c "grep -B6 -A6 'kind: missing' '$P/kernodeck/contract.yaml' | grep -q 'package: alpha'"
check "missing: the inventory difference too" grep -q "id: contract.diff.beta" "$KD_TMP/m.out"

# a version conflict
"$VPY" -m pip install -q --no-index --find-links "$P/wheels" --no-deps beta==1.0 >/dev/null 2>&1
"$KD_BIN" check "$P" --stage contract --force --format yaml >"$KD_TMP/c.out" 2>/dev/null
check "conflict: pip check fails" sh -c "grep -A2 'id: contract.pip_check$' '$KD_TMP/c.out' | grep -q 'status: fail'"
check "conflict: split into requirement and installed version" "$PY" -c "
import json, subprocess
out = subprocess.run(['$KD_BIN', 'inspect', 'pip-check', '$P/kernodeck/pip-check.txt', '--format', 'json'],
                     capture_output=True, text=True, check=True).stdout
p = [x for x in json.loads(out)['problems'] if x['kind'] == 'conflict']
assert p[0]['package'] == 'alpha' and p[0]['requirement'] == 'beta>=2', p
assert p[0]['dependency'] == 'beta' and p[0]['installed_version'] == '1.0', p"
check "conflict: version changed down, against the reference" \
	sh -c "grep -A12 'canonical_name: beta' '$P/kernodeck/contract.yaml' | grep -q 'direction: down'"

# problems of system packages: shown apart, never failing alone
if grep -q "system: true" "$P/kernodeck/contract.yaml" && \
   grep -B12 "system: true" "$P/kernodeck/contract.yaml" | grep -q "kind: "; then
	check "system: a system package's problem is labelled" grep -q "\[system, outside the venv\]" "$P/kernodeck/state.yaml"
else
	skip "system: labelled apart" "this machine's system packages have no pip check problem"
fi
check "system: packages from system site packages are labelled" \
	sh -c "grep -A3 'inventory:' '$P/kernodeck/contract.yaml' >/dev/null && grep -q 'system: true' '$P/kernodeck/contract.yaml'"
