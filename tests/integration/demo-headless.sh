# kd-test: long (started first: see tests/run-all.sh)
# demo-headless.sh - the demo walked headless through all seven stages, its
# JUnit report checked against JUnit's required elements, its dossier
# verified, its procedure.sh run by hand with bash in a clean folder, and
# the dossier replayed in a new folder without writing outside it, and the
# replay's plan compared with what its runs' logs say ran.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
	skip "demo headless" "Debian's python3-torch is not installed (apt-get install python3-torch)"
	exit 0
fi
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"

expect_exit 0 "kernodeck demo DIR --create-only" "$KD_BIN" demo "$DEMO" --create-only
check "the demo is a git repository with one commit by kernodeck demo" \
	test "$(git -C "$DEMO" log --format=%an | sort -u)" = "kernodeck demo"
check "its tree is clean (kernodeck's folders kept out by .git/info/exclude)" \
	test -z "$(git -C "$DEMO" status --porcelain)"
check "no tracked file names kernodeck's folders" sh -c "! git -C '$DEMO' grep -q 'venv-rebuild' -- .gitignore"
check "the reference records that commit" \
	grep -q "commit: $(git -C "$DEMO" rev-parse HEAD)" "$DEMO/kernodeck/reference.yaml"
expect_exit 2 "a second demo into the same folder is refused" "$KD_BIN" demo "$DEMO" --create-only

"$KD_BIN" check "$DEMO" --junit "$KD_TMP/junit.xml" >"$KD_TMP/check1.txt" 2>"$KD_TMP/check1.err"
r=$?
check "kernodeck check DIR on the demo: exit 0 (all seven stages)" test "$r" -eq 0
if [ "$r" -ne 0 ]; then
	grep -E "^[0-9] |^  fail" "$KD_TMP/check1.txt" | head -20 | sed 's/^/# /'
	# so that the dossier, JUnit and replay parts still run: record the
	# failures as deviations (this is what a person would do on a machine
	# that differs), and check again
	"$KD_BIN" check "$DEMO" --format json >"$KD_TMP/c.json" 2>/dev/null
	"$PY" -c "
import json
t = json.load(open('$KD_TMP/c.json'))
for s in t['stages']:
    for r in s.get('rows', []):
        if r['status'] == 'fail': print(s['id'], r['id'])" | while read -r st id; do
		"$KD_BIN" deviate "$DEMO" --stage "$st" --check "$id" --why "differs on this test machine" >/dev/null
	done
	"$KD_BIN" check "$DEMO" --junit "$KD_TMP/junit.xml" >"$KD_TMP/check1.txt" 2>"$KD_TMP/check1.err"
	echo "# continued with deviations recorded: exit $?"
fi
for s in reference system rebuild contract compute sample dossier; do
	check "stage $s passed or deviated" grep -Eq "^[0-9] $s +(passed|deviation)" "$KD_TMP/check1.txt"
done
check "the comparison is real: the float32 output against the float64 reference" \
	grep -Eq "pass sample.compare +max abs error [0-9.e-]+" "$KD_TMP/check1.txt"
# every key the observation headers (include/kernodeck/obs-*.h) declare is
# where its stage wrote it, with its type
"$KD_BUILDDIR/tests/helpers/obs-keys" "$DEMO/kernodeck" >"$KD_TMP/obs-keys.txt" 2>&1
r=$?
sed 's/^/#   obs-keys: /' "$KD_TMP/obs-keys.txt"
check "the observation headers' keys are all in the demo's observations" test "$r" -eq 0

# JUnit: testsuites > testsuite (name, tests, failures) > testcase (name,
# classname), failures counted right
check "JUnit report has the required elements" "$PY" - "$KD_TMP/junit.xml" <<'PYEOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suites = root.findall("testsuite")
assert len(suites) == 7, len(suites)
for s in suites:
    for a in ("name", "tests", "failures"):
        assert a in s.attrib, (s.attrib, a)
    cases = s.findall("testcase")
    assert int(s.get("tests")) == len(cases), s.attrib
    assert int(s.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)
    for c in cases:
        assert c.get("name") and c.get("classname"), c.attrib
        f = c.find("failure")
        assert f is None or "message" in f.attrib
PYEOF

D="$DEMO/kernodeck/dossier"
check "the dossier is written" test -f "$D/README.md" -a -f "$D/procedure.sh" -a -f "$D/dossier.yaml"
check "sha256sum -c accepts its SHA256SUMS" sh -c "cd '$D' && sha256sum -c --quiet SHA256SUMS"
check "every file but SHA256SUMS is listed" test "$(cd "$D" && find . -type f ! -name SHA256SUMS | wc -l)" -eq "$(wc -l <"$D/SHA256SUMS")"
check "README: the five layers with this run's values" sh -c "grep -q '## The five layers' '$D/README.md' && grep -q '| Result |.*max abs error' '$D/README.md'"
check "README: the reference identity" grep -q "Reference identity: \`[0-9a-f]\{64\}\`" "$D/README.md"
check "procedure.sh: explicit interpreter, no activation" sh -c "grep -q '/usr/bin/python3' '$D/procedure.sh' && ! grep -Eq '(source|^\.) .*bin/activate' '$D/procedure.sh'"
check "dossier.yaml has a schema version" grep -q "^schema: 1" "$D/dossier.yaml"
check "the observed inventory is in the dossier" grep -q "^kd-demo-tokenizer==1.0.0" "$D/kernodeck/installed-after.txt"

# an existing dossier is moved aside, never rewritten
first=$(sha256sum "$D/SHA256SUMS" | cut -d' ' -f1)
"$KD_BIN" dossier "$DEMO" >/dev/null
aside=$(ls -d "$DEMO"/kernodeck/dossier.2* 2>/dev/null | head -1)
check "a second dossier moves the first aside" test -n "$aside"
check "the first dossier is intact where it went" sh -c "cd '$aside' && sha256sum -c --quiet SHA256SUMS && test \"\$(sha256sum SHA256SUMS | cut -d' ' -f1)\" = '$first'"

# procedure.sh by hand, in a clean folder
mkdir -p "$KD_TMP/byhand"
(cd "$KD_TMP/byhand" && bash "$D/procedure.sh" "$KD_TMP/byhand/work") >"$KD_TMP/proc.out" 2>&1
r=$?
check "procedure.sh run by hand with bash: exit 0" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -20 "$KD_TMP/proc.out" | sed 's/^/# /'
check "procedure.sh reread the output and compared it" grep -q "reread: the output agrees with the reference" "$KD_TMP/proc.out"

# replay in a new folder; nothing is written outside it
state_before=$(sha256sum "$DEMO/kernodeck/state.yaml" | cut -d' ' -f1)
export HOME="$KD_TMP/home-replay"
mkdir -p "$HOME"
# stage 2's queries run with the replay's environment, the one its plan
# shows: ninja, one of them, is a wrapper here that notes HOME and TMPDIR
# (outside the work folder) and runs the real one
mkdir -p "$KD_TMP/spy"
if command -v ninja >/dev/null 2>&1; then
	printf '#!/bin/sh
echo "HOME=$HOME TMPDIR=$TMPDIR" >>"%s"
exec %s "$@"
' \
		"$KD_TMP/spy-seen" "$(command -v ninja)" >"$KD_TMP/spy/ninja"
	chmod +x "$KD_TMP/spy/ninja"
fi
PATH="$KD_TMP/spy:$PATH" "$KD_BIN" replay "$D" --workdir "$KD_TMP/replay" --yes >"$KD_TMP/replay.out" 2>"$KD_TMP/replay.err"
r=$?
check "kernodeck replay DOSSIER --workdir NEW --yes: exit 0" test "$r" -eq 0
[ "$r" -eq 0 ] || { cat "$KD_TMP/replay.out"; tail -20 "$KD_TMP/replay.err"; } | sed 's/^/# /'
check "a verdict per stage and overall" sh -c "grep -c '^  [a-z]* *\(passed\|as recorded\)' '$KD_TMP/replay.out' | grep -qx 5 && grep -q '^overall: passed' '$KD_TMP/replay.out'"
check "replay: nothing written in HOME" test -z "$(ls -A "$HOME")"
check "replay: the dossier is unchanged" sh -c "cd '$D' && sha256sum -c --quiet SHA256SUMS"
check "replay: the project's state is unchanged" test "$(sha256sum "$DEMO/kernodeck/state.yaml" | cut -d' ' -f1)" = "$state_before"
check "replay: its own state is in the work folder" test -f "$KD_TMP/replay/kernodeck/state.yaml"
# the plan is what runs: every "$ ARGV" line of the plan, and the "# kernodeck:
# run ARGV" lines the runner wrote in the replay's logs, are the same vectors
plan_vs_logs "$KD_TMP/replay.err" "$KD_TMP/replay" 8
W="$KD_TMP/replay"
if [ -x "$KD_TMP/spy/ninja" ]; then
	check "replay: stage 2's queries ran with the plan's HOME and TMPDIR (the work folder's)" \
		grep -qx "HOME=$W/.home TMPDIR=$W/.tmp" "$KD_TMP/spy-seen"
	check "replay: the plan shows HOME and TMPDIR with those values" sh -c "
		grep -qx '    HOME=$W/.home' '$KD_TMP/replay.err' && grep -qx '    TMPDIR=$W/.tmp' '$KD_TMP/replay.err'"
else
	skip "replay: stage 2's queries ran with the plan's environment" "no ninja on PATH to wrap"
fi
check "replay: the plan's venv, install, probe and entry point are absolute, exact vectors" sh -c "
	grep -qx '/usr/bin/python3 -m venv --system-site-packages .venv-rebuild' '$KD_TMP/plan' &&
	grep -qx '$W/.venv-rebuild/bin/python -I -m pip install --timeout 15 --retries 1 --report kernodeck/pip-report.part.json --require-hashes --no-deps -r kernodeck/requirements-lock.txt' '$KD_TMP/plan' &&
	grep -q '^$W/.venv-rebuild/bin/python .*/probe.py --expect cpu\$' '$KD_TMP/plan' &&
	grep -qx '$W/.venv-rebuild/bin/python embed.py --out outputs' '$KD_TMP/plan'"

# --quiet and --strict on a stock machine (issue 32): a run that passes says
# nothing on stderr; what the machine adds (a PIP_* variable of the shell,
# PATH entries under $HOME, a pip check problem among system packages the
# rebuild did not install) warns; --strict fails on each warning until it is
# acknowledged like a deviation, and a PATH entry is no path a replay needs
export HOME="$KD_TMP/home"
mkdir -p "$HOME/bin"
PATH="$HOME/bin:$PATH" PIP_DEFAULT_TIMEOUT=180 "$KD_BIN" check "$DEMO" --quiet \
	>"$KD_TMP/q.out" 2>"$KD_TMP/q.err"
r=$?
check "check --quiet on the demo: exit 0 (warnings do not fail without --strict)" test "$r" -eq 0
check "check --quiet: nothing on stderr (no hashing, no progress)" test ! -s "$KD_TMP/q.err"
check "the shell's PIP_DEFAULT_TIMEOUT warns (rebuild.env)" grep -Eq "^  warn rebuild.env .*PIP_DEFAULT_TIMEOUT=180" "$KD_TMP/q.out"
check "the dossier records PATH with its entry under HOME" grep -q "PATH: $HOME/bin:" "$DEMO/kernodeck/dossier/dossier.yaml"
check "a PATH entry under HOME is not a path a replay needs (no dossier.home-paths warning)" \
	sh -c "grep -q '^7 dossier' '$KD_TMP/q.out' && ! grep -q 'dossier.home-paths' '$KD_TMP/q.out'"
PATH="$HOME/bin:$PATH" PIP_DEFAULT_TIMEOUT=180 "$KD_BIN" check "$DEMO" --quiet --strict \
	--format json --junit "$KD_TMP/strict.xml" >"$KD_TMP/s1.json" 2>"$KD_TMP/s1.err"
r=$?
check "check --strict with warnings: exit 1" test "$r" -eq 1
check "check --strict: names the warning and how to acknowledge it" \
	grep -q "^kernodeck: --strict: stage 3 (rebuild): rebuild.env (warnings without a deviation): acknowledge each with kernodeck deviate" "$KD_TMP/s1.err"
check "check --strict: the report's status is failed, JUnit counts the warning" "$PY" -c "
import json, xml.etree.ElementTree as ET
assert json.load(open('$KD_TMP/s1.json'))['status'] == 'failed'
t = ET.parse('$KD_TMP/strict.xml').getroot()
assert int(t.get('failures')) >= 1
assert t.find(\".//testcase[@name='rebuild.env']/failure\") is not None"
"$PY" -c "
import json
for s in json.load(open('$KD_TMP/s1.json'))['stages']:
    for r in s['rows']:
        if r['status'] == 'warn': print(s['id'], r['id'])" >"$KD_TMP/warns"
sed 's/^/# acknowledged: /' "$KD_TMP/warns"
while read -r st id; do
	"$KD_BIN" deviate "$DEMO" --stage "$st" --check "$id" \
		--why "this machine's, not the project's: reviewed" >/dev/null
done <"$KD_TMP/warns"
PATH="$HOME/bin:$PATH" PIP_DEFAULT_TIMEOUT=180 "$KD_BIN" check "$DEMO" --quiet --strict \
	>"$KD_TMP/s2.out" 2>"$KD_TMP/s2.err"
r=$?
check "every warning acknowledged: check --strict passes (exit 0, nothing on stderr)" \
	test "$r" -eq 0 -a ! -s "$KD_TMP/s2.err"
[ "$r" -eq 0 ] || sed 's/^/# /' "$KD_TMP/s2.err"
