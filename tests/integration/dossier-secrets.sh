# dossier-secrets.sh - the dossier's secret scan on the corpus of
# tests/fixtures/secrets: 42 planted credentials of every kind, spread over
# the rebuild file, the reference inventory, git remotes, logs and
# configuration, block the write and are named (file, line, kind; never the
# value); none reaches a written file, redacted or left out; no deviation
# lets one through; the look-alikes are written unchanged.
. "$KD_SRCDIR/tests/lib.sh"
C="$KD_SRCDIR/tests/fixtures/secrets"

# A small project: a git repository with one commit and a reference.
mkproject() {
	git_project "$1"
	mkdir -p "$1/kernodeck/logs" "$1/kernodeck/config" "$1/inventory"
	{
		code_reference "$1"
		printf '  inventory: inventory/installed-after.txt\ngoal: close-values\n'
	} >"$1/kernodeck/reference.yaml"
}
# Where each corpus file goes in a project, and its path in the dossier.
place() {
	case "$1" in
	requirements-rebuild.txt) echo "requirements-rebuild.txt project/requirements-rebuild.txt" ;;
	installed-after.txt) echo "inventory/installed-after.txt project/inventory/installed-after.txt" ;;
	*.log|remotes.txt) echo "kernodeck/logs/$1 kernodeck/logs/$1" ;;
	*) echo "kernodeck/config/$1 kernodeck/config/$1" ;;
	esac
}

P="$KD_TMP/planted"
mkproject "$P"
for f in "$C"/planted/* "$C"/planted/.[!.]*; do
	n=$(basename "$f")
	set -- $(place "$n")
	cp "$f" "$P/$1"
done
# the dossier holds the logs an observation names (issue 17, point 7): the
# planted logs are named, as the logs of a stage's runs are
{
	echo "logs:"
	for f in "$P"/kernodeck/logs/*; do echo "- logs/$(basename "$f")"; done
	echo "..."
} >"$P/kernodeck/compute.yaml"

"$KD_BIN" dossier "$P" >"$KD_TMP/out1" 2>"$KD_TMP/err1"
r=$?
check "planted secrets: the write is refused (exit 1)" test "$r" -eq 1
check "planted secrets: no dossier folder" test ! -e "$P/kernodeck/dossier"
check "planted secrets: no temporary folder left" sh -c "! ls -d '$P'/kernodeck/dossier.tmp.* 2>/dev/null | grep -q ."

# every planted secret named with its dossier file, line and kind
missing=0 rows=0
while IFS="$(printf '\t')" read -r file line kind value; do
	case "$file" in '#'*) continue ;; esac
	rows=$((rows + 1))
	set -- $(place "$file")
	if ! grep -qF "  $2:$line: $kind" "$KD_TMP/err1"; then
		echo "# not named: $2:$line: $kind"
		missing=$((missing + 1))
	fi
done <"$C/planted.tsv"
check "each of the $rows planted secrets is named (file, line, kind)" test "$missing" -eq 0
check "at least 30 planted secrets" test "$rows" -ge 30

# never the value
leaked=0
while IFS="$(printf '\t')" read -r file line kind value; do
	case "$file" in '#'*) continue ;; esac
	if grep -qF -- "$value" "$KD_TMP/out1" "$KD_TMP/err1"; then
		echo "# value printed for $file:$line"
		leaked=$((leaked + 1))
	fi
done <"$C/planted.tsv"
check "no value is printed" test "$leaked" -eq 0

# the stage: one failing row per credential, and a deviation does not help
"$KD_BIN" check "$P" --stage dossier --format json >"$KD_TMP/c1.json" 2>/dev/null
check "stage 7 alone fails with one row per credential" /usr/bin/python3 -c "
import json, sys
t = json.load(open('$KD_TMP/c1.json'))
s = [x for x in t['stages'] if x['id'] == 'dossier'][0]
n = len([r for r in s['rows'] if r['id'].startswith('dossier.secret.') and r['status'] == 'fail'])
sys.exit(0 if s['status'] == 'failed' and n >= $rows else 'status %s, %d rows' % (s['status'], n))"
"$KD_BIN" deviate "$P" --stage dossier --check dossier.secret.1 --why "let it through" >/dev/null 2>&1
"$KD_BIN" deviate "$P" --stage dossier --check dossier.written --why "let it through" >/dev/null 2>&1
expect_exit 1 "after deviations on the credential rows: still failing (exit 1)" \
	"$KD_BIN" check "$P" --stage dossier
check "after deviations: still no dossier" test ! -e "$P/kernodeck/dossier"

# redact (values become ${NAME} in the sources) and leave out the files
# that are credentials by their very name
"$KD_BIN" dossier "$P" --redact --leave-out "$P/kernodeck/config/.netrc" \
	--leave-out "$P/kernodeck/config/.pypirc" >"$KD_TMP/out2" 2>"$KD_TMP/err2"
r=$?
check "redacted and left out: the dossier is written (exit 0)" test "$r" -eq 0
[ "$r" -eq 0 ] || cat "$KD_TMP/err2"
check "the rebuild file now asks the environment" grep -q '\${CREDENTIALS}@pypi.internal.example.com' "$P/requirements-rebuild.txt"
check "an assignment keeps its name" grep -q '^HF_TOKEN=\${HF_TOKEN}$' "$P/kernodeck/config/.env"
check "the files left out are not in the dossier" test ! -e "$P/kernodeck/dossier/kernodeck/config/.netrc"
leaked=0
while IFS="$(printf '\t')" read -r file line kind value; do
	case "$file" in '#'*) continue ;; esac
	if grep -rqF -- "$value" "$P/kernodeck/dossier"; then
		echo "# $file:$line reached the dossier"
		leaked=$((leaked + 1))
	fi
done <"$C/planted.tsv"
check "no planted secret reaches a written file" test "$leaked" -eq 0
# nor any file kernodeck wrote or rewrote (the two left out stay as the user has them)
leaked=0
while IFS="$(printf '\t')" read -r file line kind value; do
	case "$file" in '#'*|.netrc|.pypirc) continue ;; esac
	if grep -rqF --exclude-dir=.git -- "$value" "$P"; then
		echo "# $file:$line is still somewhere in the project"
		leaked=$((leaked + 1))
	fi
done <"$C/planted.tsv"
check "no planted secret left in the project's files (state, observations, logs)" test "$leaked" -eq 0
check "the dossier verifies with sha256sum -c" sh -c "cd '$P/kernodeck/dossier' && sha256sum -c --quiet SHA256SUMS"

# the look-alikes: written as they are
Q="$KD_TMP/lookalike"
mkproject "$Q"
for f in "$C"/lookalike/* "$C"/lookalike/.[!.]*; do
	cp "$f" "$Q/kernodeck/config/"
done
cp "$C/lookalike/requirements-rebuild.txt" "$Q/requirements-rebuild.txt"
expect_exit 0 "look-alikes: the dossier is written at once" "$KD_BIN" dossier "$Q"
same=0 total=0
for f in "$C"/lookalike/* "$C"/lookalike/.[!.]*; do
	total=$((total + 1))
	cmp -s "$f" "$Q/kernodeck/dossier/kernodeck/config/$(basename "$f")" && same=$((same + 1))
done
check "look-alikes: all $total files unchanged in the dossier" test "$same" -eq "$total"
check "look-alikes: the rebuild file unchanged" cmp -s "$C/lookalike/requirements-rebuild.txt" "$Q/kernodeck/dossier/project/requirements-rebuild.txt"
