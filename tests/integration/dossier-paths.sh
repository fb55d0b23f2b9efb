# dossier-paths.sh - absolute paths under $HOME are shown by stage 7 and can
# be made relative to the project (kernodeck dossier --relative, the
# stage's m); procedure.sh then finds the project from its own place.
. "$KD_SRCDIR/tests/lib.sh"
export HOME="$KD_TMP"
P="$KD_TMP/project"
git_project "$P"
code_reference "$P" >"$P/kernodeck/reference.yaml"

"$KD_BIN" check "$P" --stage dossier --format json >"$KD_TMP/c.json" 2>/dev/null
check "stage 7 shows the absolute paths under HOME (a warning)" /usr/bin/python3 -c "
import json, sys
st = [s for s in json.load(open('$KD_TMP/c.json'))['stages'] if s['id'] == 'dossier'][0]
r = [r for r in st['rows'] if r['id'] == 'dossier.home-paths']
sys.exit(0 if r and r[0]['status'] == 'warn' and '$P' in r[0]['observed'] else 'rows: %s' % st['rows'])"
check "as written, the dossier names the project folder" grep -qF "$P" "$P/kernodeck/dossier/README.md"

expect_exit 0 "kernodeck dossier --relative" "$KD_BIN" dossier "$P" --relative
D="$P/kernodeck/dossier"
check "no file of the relative dossier holds the project's absolute path" \
	sh -c "! grep -rqF '$P' '$D'"
check "procedure.sh finds the project from the dossier's place" \
	grep -qF 'REPO=${REPO:-"$DOSSIER/../.."}' "$D/procedure.sh"
check "the relative dossier verifies" sh -c "cd '$D' && sha256sum -c --quiet SHA256SUMS"
check "the previous dossier was moved aside, not rewritten" \
	sh -c "ls -d '$P'/kernodeck/dossier.2* >/dev/null && cd \"\$(ls -d '$P'/kernodeck/dossier.2* | head -1)\" && sha256sum -c --quiet SHA256SUMS"
