#!/bin/sh
# replay-lock.sh - replay installs the dossier's lock (issue 28 point 3):
# the demo, with two wheels from a find-links folder outside the project
# (alpha, and beta pulled in by it), checked and written as a dossier; the
# replay shows and runs pip install --require-hashes --no-deps on
# requirements-lock.txt and passes; alpha 1.0 rebuilt with other contents
# in that folder makes the locked replay fail naming alpha and both
# digests; --unlocked resolves the rebuild file again (and installs the new
# alpha); `kernodeck diff` of the two dossiers shows the other artefact.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python replay-lock "python3-torch is needed" torch
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
export HOME="$KD_TMP/home"
mkdir -p "$HOME"

DEMO="$KD_TMP/demo"
EXT="$KD_TMP/ext"
"$KD_BIN" demo "$DEMO" --create-only >/dev/null 2>&1
"$PY" "$MKW" "$EXT" alpha 1.0 --requires "beta==2.0" >/dev/null
"$PY" "$MKW" "$EXT" beta 2.0 >/dev/null
A_SHA=$(sha256sum "$EXT/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
printf -- '--no-index\n--find-links wheels\n--find-links %s\nkd-demo-tokenizer==1.0.0\nalpha==1.0\n' \
	"$EXT" >"$DEMO/requirements-rebuild.txt"
printf 'alpha==1.0\nbeta==2.0\n' >>"$DEMO/reference/freeze.txt"
git -C "$DEMO" commit -qam "alpha from a folder of wheels"
sed -i "s/^  commit: .*/  commit: $(git -C "$DEMO" rev-parse HEAD)/" "$DEMO/kernodeck/reference.yaml"
"$KD_BIN" check "$DEMO" --quiet >"$KD_TMP/check.out" 2>&1
r=$?
check "the demo with alpha checks (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || grep -v ' pass ' "$KD_TMP/check.out" | head -n 20 | sed 's/^/#   /'
D="$DEMO/kernodeck/dossier"
check "the dossier's lock pins alpha by its digest" \
	grep -qx "alpha==1.0 --hash=sha256:$A_SHA" "$D/requirements-lock.txt"

"$KD_BIN" replay "$D" --workdir "$KD_TMP/w1" --yes >"$KD_TMP/r1.out" 2>"$KD_TMP/r1.err"
r=$?
check "the locked replay passes (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 20 "$KD_TMP/r1.out" | sed 's/^/#   /'
check "its plan shows the locked install and the lock's lines" sh -c "
grep -q -- '--require-hashes --no-deps -r kernodeck/requirements-lock.txt\$' '$KD_TMP/r1.err' &&
grep -q '^        alpha==1.0 --hash=sha256:$A_SHA\$' '$KD_TMP/r1.err'"
check "it installed exactly the locked alpha" sh -c "
grep -q 'lock: kernodeck/requirements-lock.txt' '$KD_TMP/w1/kernodeck/rebuild.yaml' &&
grep -q 'sha256: $A_SHA' '$KD_TMP/w1/kernodeck/rebuild.yaml'"

# the same version with other contents in the find-links folder
"$PY" -c "
import zipfile; z = zipfile.ZipFile('$EXT/alpha-1.0-py3-none-any.whl', 'a')
z.writestr('alpha/changed.py', 'x = 1\n'); z.close()"
A2_SHA=$(sha256sum "$EXT/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w2" --yes >"$KD_TMP/r2.out" 2>"$KD_TMP/r2.err"
r=$?
check "a changed alpha 1.0: the locked replay fails (exit $r)" test "$r" -eq 1
check "the failure names alpha and both digests" sh -c "
grep -q 'requirement: alpha==1.0' '$KD_TMP/w2/kernodeck/rebuild.yaml' &&
grep -q 'alpha==1.0: SHA-256 $A2_SHA, the lock has $A_SHA' '$KD_TMP/w2/kernodeck/rebuild.yaml' &&
grep -q 'alpha==1.0' '$KD_TMP/r2.out'"
grep -i 'alpha' "$KD_TMP/r2.out" | head -n 3 | sed 's/^/# /'

"$KD_BIN" replay "$D" --workdir "$KD_TMP/w3" --yes --unlocked >"$KD_TMP/r3.out" 2>"$KD_TMP/r3.err"
r=$?
check "--unlocked resolves the rebuild file again (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 20 "$KD_TMP/r3.out" | sed 's/^/#   /'
check "--unlocked: the plan installs requirements-rebuild.txt" \
	grep -q -- '--report kernodeck/pip-report.part.json -r requirements-rebuild.txt$' "$KD_TMP/r3.err"
check "--unlocked: the new alpha was installed" grep -q "sha256: $A2_SHA" "$KD_TMP/w3/kernodeck/rebuild.yaml"

# diff: the same version from another artefact
"$KD_BIN" dossier "$KD_TMP/w3" >/dev/null 2>&1
"$KD_BIN" diff "$D" "$KD_TMP/w3/kernodeck/dossier" >"$KD_TMP/diff.out" 2>&1
r=$?
check "diff: the dossiers differ (exit $r)" test "$r" -eq 1
check "diff: alpha's other artefact is named with both digests" \
	grep -q "digest *alpha: 1.0 sha256:$A_SHA -> 1.0 sha256:$A2_SHA" "$KD_TMP/diff.out"
grep -i alpha "$KD_TMP/diff.out" | head -n 3 | sed 's/^/# /'
