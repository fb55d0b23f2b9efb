# tests/integration/adapting-trainer.sh - doc/adapting-a-trainer.md's
# examples run (issue 32, point 14): every block marked `example: FILE` is
# taken out of the guide into a project; the wrapper turns the unchanged
# trainer's printed loss into metrics.jsonl and its one overwritten
# checkpoint (saved only at evaluation steps) into ckpt-N.pt; its three runs
# (uninterrupted, interrupted, resumed) give the same trajectory; then the
# project, with the guide's resume: and data: sections, passes capture and
# check with the resume check of stage 6.
. "$KD_SRCDIR/tests/lib.sh"
need_python "the guide's examples" "python3-torch and python3-numpy are needed" torch numpy
PY=/usr/bin/python3
offline_pip
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
P=$KD_TMP/trainer
mkdir -p "$P"
$PY - "$KD_SRCDIR/doc/adapting-a-trainer.md" "$P" <<'PYEOF'
import os, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"<!-- example: (\S+) -->\n```[a-z]*\n(.*?)\n```\n", text, re.S)
for name, body in blocks:
    path = os.path.join(sys.argv[2], name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(body + "\n")
    print("# example:", name)
PYEOF
for f in data/prepare.py .gitignore train.py kd_train.py resume.yaml data.yaml; do
	check "the guide holds the example $f" test -s "$P/$f"
done
(cd "$P" && $PY data/prepare.py)
check "the data is in a folder git ignores" sh -c "cd '$P' && git init -q && git check-ignore -q data/train.bin"

# the wrapper's three runs, as the resume check makes them
(cd "$P" && $PY kd_train.py 20 "$KD_TMP/u" 10 >"$KD_TMP/u.out" 2>&1 &&
	$PY kd_train.py 10 "$KD_TMP/i" 10 >"$KD_TMP/i.out" 2>&1 &&
	$PY kd_train.py 20 "$KD_TMP/i" 10 "$KD_TMP/i/ckpt-10.pt" >"$KD_TMP/r.out" 2>&1)
r=$?
check "the wrapper runs the unchanged trainer three times (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 5 "$KD_TMP/u.out" "$KD_TMP/i.out" "$KD_TMP/r.out" | sed 's/^/#   /'
check "the trainer's printed loss passes through the wrapper" grep -q '^iter 20: loss ' "$KD_TMP/u.out"
check "the one overwritten checkpoint is kept per step (ckpt-10.pt, ckpt-20.pt)" \
	sh -c "test -f '$KD_TMP/i/ckpt-10.pt' && test -f '$KD_TMP/u/ckpt-20.pt' && test -f '$KD_TMP/i/ckpt-20.pt'"
check "metrics.jsonl: one line a step, the resumed run appended after the interrupted one" \
	$PY -c "
import json, sys
u = [json.loads(l) for l in open(sys.argv[1])]
i = [json.loads(l) for l in open(sys.argv[2])]
assert [d['step'] for d in u] == list(range(1, 21)), u
assert [d['step'] for d in i] == list(range(1, 21)), i
assert u == i, (u, i)" "$KD_TMP/u/metrics.jsonl" "$KD_TMP/i/metrics.jsonl"

# the project: the trainer's own run as the sample, the guide's data: and resume:
(cd "$P" && $PY kd_train.py 20 "$P/reference/run" 10 >/dev/null 2>&1 &&
	cp "$P/reference/run/metrics.jsonl" "$P/reference/metrics.jsonl" && rm -r "$P/reference/run")
seq 1 20 >"$P/reference/steps.txt"
printf '# torch and numpy come from the system (python3-torch)\n' >"$P/requirements-rebuild.txt"
git -C "$P" add -A && git -C "$P" commit -qm "the trainer, the wrapper"
mkdir -p "$P/kernodeck"
{ cat <<YEOF
schema: 1
goal: training-trajectory
code:
  commit: $(git -C "$P" rev-parse HEAD)
  entry_point: [python, kd_train.py, "20", out, "10"]
  params: []
YEOF
  cat "$P/data.yaml"
  cat <<YEOF
python:
  interpreter: $PY
  install:
    procedure: $PY -m venv --system-site-packages .venv-rebuild
    sources: ["Debian 12 python3-torch, through system site packages"]
result:
  format: jsonl
  outputs: out
  files: [metrics.jsonl]
  count: 1
  shape: [20, 1]
  dtype: number
  finite: true
  ids:
    key: step
    reference: reference/steps.txt
    order: same
  criterion: the same loss at every step
  rule:
    kind: exact
  sample:
    path: data/train.bin
  example:
    path: reference/metrics.jsonl
YEOF
  cat "$P/resume.yaml"
  printf 'not_applicable:\n  code.remote: a local repository\n  code.params: no parameter file\n'
} >"$P/kernodeck/reference.yaml"
"$KD_BIN" capture "$P" >"$KD_TMP/capture.out" 2>&1
r=$?
check "capture (exit $r)" test "$r" -eq 0
timeout 600 "$KD_BIN" check "$P" --quiet --format json >"$KD_TMP/check.json" 2>"$KD_TMP/check.err"
r=$?
check "check with the guide's resume: and data: (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || $PY -c "
import json, sys
for s in json.load(open(sys.argv[1]))['stages']:
    for r in s.get('rows', []):
        if r['status'] not in ('pass', 'info'): print('#  ', s['id'], r['id'], r['status'], r.get('observed'))" "$KD_TMP/check.json" | head -20
check "the resume check of stage 6 passed on the wrapped trainer" $PY -c "
import json, sys
rows = [r for s in json.load(open(sys.argv[1]))['stages'] for r in s.get('rows', [])]
r = [x for x in rows if x['id'] == 'sample.resume.trajectory']
assert r and r[0]['status'] == 'pass', r" "$KD_TMP/check.json"
