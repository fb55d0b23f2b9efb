# tests/integration/messages.sh - what a new user reads (issue 17, points
# 12, 15 and 20): a failing entry point without a traceback shows its
# first error line, not only "exit 2"; a missing output names what was
# written instead; paths are shown normalised; progress never goes back
# and small inputs do not print "0 / 0 MiB"; old outputs go into the state
# folder even when it is on another file system.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
P=$KD_TMP/p
git_project "$P" >/dev/null 2>&1
mkdir -p "$P/sub" "$P/reference"
$PY -m venv --without-pip "$P/.venv-rebuild"
cat >"$P/train.py" <<'PYEOF'
import os, sys
mode = os.environ.get("KD_MODE", "args")
if mode == "args":
    print("usage: train.py [-h] --data DATA", file=sys.stderr)
    print("train.py: error: the following arguments are required: --data", file=sys.stderr)
    sys.exit(2)
os.makedirs("out", exist_ok=True)
open("out/losses.csv", "w").write("step,loss\n0,1.5\n")
PYEOF
printf 'step,loss\n0,1.5\n' >"$P/reference/loss.csv"
git -C "$P" add . >/dev/null 2>&1; git -C "$P" commit -qm train >/dev/null 2>&1
cat >"$P/kernodeck/reference.yaml" <<'YEOF'
schema: 1
code:
  entry_point: [python, train.py]
result:
  format: csv
  outputs: out
  files: [loss.csv]
  count: 1
  rule: {kind: exact}
  example: {path: reference/loss.csv}
YEOF
row() { $PY -c "
import json, sys
for s in json.load(open(sys.argv[1]))['stages']:
    for r in s['rows']:
        if r['id'] == sys.argv[2]:
            print(r.get('first_error') or '')" "$@"; }

KD_MODE=args "$KD_BIN" check "$P" --stage sample --force --format json >"$KD_TMP/a.json" 2>/dev/null
e=$(row "$KD_TMP/a.json" sample.entry-point)
case "$e" in *"train.py: error: the following arguments are required: --data"*) ok "a failing entry point shows its first error line";;
*) notok "a failing entry point shows its first error line (got: $e)";; esac
KD_MODE=write "$KD_BIN" check "$P" --stage sample --force --format json >"$KD_TMP/b.json" 2>/dev/null
e=$(row "$KD_TMP/b.json" sample.outputs)
case "$e" in *"loss.csv is missing; out holds losses.csv"*) ok "a missing output names what was written instead";;
*) notok "a missing output names what was written instead (got: $e)";; esac

# paths normalised
"$KD_BIN" check "$P/sub/.." --stage reference --format json >"$KD_TMP/c.json" 2>/dev/null
check "the project path is shown normalised (no /sub/..)" $PY -c "
import json, sys; p = json.load(open(sys.argv[1]))['project']
assert p == sys.argv[2], p" "$KD_TMP/c.json" "$P"

# progress: never backwards within a stage; no 0 / 0 MiB
"$KD_BIN" check "$P" --stage system --force >/dev/null 2>"$KD_TMP/sys.err"
check "progress never goes backwards (system stage)" $PY -c "
import re, sys
p = [float(x) for x in re.findall(r'\((\d+)%\)', open(sys.argv[1]).read())]
assert p and p == sorted(p), p" "$KD_TMP/sys.err"
printf 'x\n' >"$P/data.txt"
git -C "$P" add data.txt >/dev/null 2>&1; git -C "$P" commit -qm data >/dev/null 2>&1
printf 'data:\n  - {name: d, kind: data, path: data.txt, version: "1", provenance: t, access: public}\n' \
	>>"$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage reference >/dev/null 2>"$KD_TMP/ref.err"
check "a small input is not shown as 0 / 0 MiB" sh -c "! grep -q '0 / 0 MiB' '$KD_TMP/ref.err' && grep -q 'hashing: 1 / 1 KiB' '$KD_TMP/ref.err'"

# old outputs into a state folder on another file system
if [ -d /dev/shm ] && [ "$(stat -c %d /dev/shm)" != "$(stat -c %d "$KD_TMP")" ] && [ -w /dev/shm ]; then
	SD=$(mktemp -d /dev/shm/kd-state.XXXXXX)
	cp "$P/kernodeck/reference.yaml" "$SD/"
	KD_MODE=write "$KD_BIN" check "$P" --state-dir "$SD" --stage sample --force >/dev/null 2>&1
	KD_MODE=write "$KD_BIN" check "$P" --state-dir "$SD" --stage sample --force >/dev/null 2>&1
	check "old outputs moved into the state folder on another file system" \
		sh -c "ls '$SD/old-outputs' | grep -q 'out' && ! ls -d '$P'/out.old-* >/dev/null 2>&1 && test -f '$P/out/losses.csv'"
	rm -rf "$SD"
else
	skip "old outputs moved into the state folder on another file system" "no /dev/shm on another file system"
fi

# a subfolder of a repository is not made a project silently (point 13)
ex_before=$(cat "$P/.git/info/exclude" 2>/dev/null | sha256sum)
"$KD_BIN" check "$P/sub" --stage reference >"$KD_TMP/sub.out" 2>&1
r=$?
check "check in a subfolder of the project: names the project, exit 2 ($r)" \
	sh -c "[ $r -eq 2 ] && grep -q 'is a subfolder of the project $P: run kernodeck check $P' '$KD_TMP/sub.out'"
check "... and writes nothing (no sub/kernodeck, .git/info/exclude as it was)" \
	sh -c "[ ! -e '$P/sub/kernodeck' ] && [ \"\$(cat '$P/.git/info/exclude' 2>/dev/null | sha256sum)\" = '$ex_before' ]"
Q=$KD_TMP/q
mkdir -p "$Q/tools"
git -C "$Q" init -q
"$KD_BIN" check "$Q/tools" --stage reference >"$KD_TMP/q.out" 2>&1
r=$?
check "check in a subfolder of a repository that is no project: refused, nothing written ($r)" \
	sh -c "[ $r -eq 2 ] && grep -q 'not a project.*--init' '$KD_TMP/q.out' && [ ! -e '$Q/tools/kernodeck' ] && ! grep -q kernodeck '$Q/.git/info/exclude'"
"$KD_BIN" check "$Q/tools" --stage reference --init >/dev/null 2>&1
check "--init makes it a project" test -d "$Q/tools/kernodeck"
