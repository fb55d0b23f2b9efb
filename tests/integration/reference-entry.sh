#!/bin/sh
# Stage 1 checks that the entry point's script (the first path-like
# argument after python) is a file of the recorded commit (issue 32, point
# 11): a script that is only in the work tree, not committed, fails at
# stage 1 instead of at stage 6 after the rebuild, or in a replay that
# clones the commit.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
P=$KD_TMP/p
mkdir -p "$P/sub/tools"
git_project "$P" >/dev/null
echo "print('tool')" >"$P/sub/tools/run.py"
git -C "$P" add sub/tools/run.py && git -C "$P" commit -qm tool
C=$(git -C "$P" rev-parse HEAD)
R=$P/kernodeck/reference.yaml

# row EP: the code.entry-script row (status, observed) of a check with
# entry point EP (a flow sequence's items), or "none"
row() {
	printf 'schema: 1\ncode:\n  commit: %s\n  entry_point: [%s]\n' "$C" "$1" >"$R"
	"$KD_BIN" check "$P" --stage reference --quiet --format json >"$KD_TMP/r.json" 2>/dev/null
	$PY -c "
import json; r=json.load(open('$KD_TMP/r.json'))
x=[x for x in r['stages'][0]['rows'] if x['id']=='code.entry-script']
print('%s %s' % (x[0]['status'], x[0]['observed']) if x else 'none')"
}


check "a committed script passes" test "$(row 'python, main.py' | cut -d' ' -f1-2)" = "pass main.py"
check "options before the script are skipped; a path in a folder is found" \
	test "$(row 'python3, -u, -X, dev, sub/tools/run.py, --lr, "0.1"' | cut -d' ' -f1-2)" = "pass sub/tools/run.py"
echo "print('new')" >"$P/train.py"
out=$(row 'python, train.py, --steps, "3"')
check "a script only in the work tree fails at stage 1 ($out)" test "$out" = "fail absent"
check "the failure names the script, the commit and what to do" $PY -c "
import json; r=json.load(open('$KD_TMP/r.json'))
x=[x for x in r['stages'][0]['rows'] if x['id']=='code.entry-script'][0]
assert 'train.py is not a file of commit $(printf %.12s "$C")' in x['first_error'], x
assert 'commit the script' in x['hint'], x"
git -C "$P" add train.py && git -C "$P" commit -qm train
C=$(git -C "$P" rev-parse HEAD)
check "once committed and recorded, it passes" test "$(row 'python, train.py' | cut -d' ' -f1-2)" = "pass train.py"
check "python -m: no script, no row" test "$(row 'python, -m, pkg.train')" = "none"
check "not a Python entry point: no row" test "$(row '/bin/sh, run.sh')" = "none"
# the project in a subfolder of the repository: the script is looked up
# from the project's folder
S=$P/sub
mkdir -p "$S/kernodeck"
printf 'schema: 1\ncode:\n  repository: ..\n  commit: %s\n  entry_point: [python, tools/run.py]\n' "$C" >"$S/kernodeck/reference.yaml"
"$KD_BIN" check "$S" --stage reference --quiet --format json >"$KD_TMP/s.json" 2>/dev/null
check "a project in a subfolder: its script is found in the commit" $PY -c "
import json; r=json.load(open('$KD_TMP/s.json'))
x=[x for x in r['stages'][0]['rows'] if x['id']=='code.entry-script']
assert x and x[0]['status']=='pass', r['stages'][0]['rows']"
