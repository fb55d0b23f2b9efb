#!/bin/sh
# kd-test: long (started first: see tests/run-all.sh)
# capture -> check -> replay on a project that is not the demo (issue 17,
# point 1): a small character-level language model trained for a few
# steps on the CPU (Debian's python3-torch through system site packages),
# its loss per step written as CSV.  The reference machine's interpreter
# and inventory are captured (kernodeck/reference/, which git ignores), the
# seven stages pass headless, and the dossier replays in a clean folder:
# everything the replay needs travels in the dossier.
. "$KD_SRCDIR/tests/lib.sh"
need_python "capture -> check -> replay" "python3-torch is needed" torch
PY=/usr/bin/python3
offline_pip

P=$KD_TMP/charlm
mkdir -p "$P/data" "$P/reference"
cat >"$P/train.py" <<'PYEOF'
"""A character-level language model, trained a few steps on the CPU."""
import csv, os, sys
import torch
torch.manual_seed(0)
torch.use_deterministic_algorithms(True)
torch.set_num_threads(1)
text = open("data/tiny.txt", encoding="utf-8").read()
chars = sorted(set(text))
ix = {c: i for i, c in enumerate(chars)}
data = torch.tensor([ix[c] for c in text], dtype=torch.long)
emb = torch.nn.Embedding(len(chars), 16)
head = torch.nn.Linear(16, len(chars))
opt = torch.optim.SGD(list(emb.parameters()) + list(head.parameters()), lr=0.5)
os.makedirs("out", exist_ok=True)
with open("out/loss.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["step", "loss"])
    for step in range(20):
        x, y = data[:-1], data[1:]
        loss = torch.nn.functional.cross_entropy(head(emb(x)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        w.writerow([step, "%.6f" % loss.item()])
print("trained 20 steps")
PYEOF
printf 'the quick brown fox jumps over the lazy dog\n%.0s' 1 2 3 4 >"$P/data/tiny.txt"
printf '# torch and numpy come from the system (python3-torch), through system site packages\n' \
	>"$P/requirements-rebuild.txt"
(cd "$P" && $PY train.py >/dev/null && cp out/loss.csv reference/loss.csv && rm -r out)
seq 0 19 >"$P/reference/steps.txt"
git -C "$P" init -q -b main
git -C "$P" add . && git -C "$P" commit -q -m "charlm"
mkdir -p "$P/kernodeck"
{ cat <<YEOF
# charlm: the loss curve of 20 training steps must come back
schema: 1
goal: close-values
code:
  repository: .
  commit: $(git -C "$P" rev-parse HEAD)
  branch: main
  remote: null
  entry_point: [python, train.py]
  params: []
data:
  - name: tiny corpus
    kind: data
    path: data/tiny.txt
    version: "1"
    provenance: written for this test
    access: public
python:
  interpreter: $PY
  install:
    procedure: $PY -m venv --system-site-packages .venv-rebuild && .venv-rebuild/bin/python -m pip install -r requirements-rebuild.txt
    system_site_packages: true
    sources: ["Debian 12 python3-torch, through system site packages"]
YEOF
result_loss_csv 20 data/tiny.txt
cat <<YEOF
not_applicable:
  code.remote: a local repository; the replay clones it from its folder
  code.params: train.py has no parameter file
YEOF
} >"$P/kernodeck/reference.yaml"

"$KD_BIN" capture "$P" >"$KD_TMP/capture.out" 2>&1
r=$?
check "capture on the reference machine (exit $r)" test "$r" -eq 0
check "capture recorded the inventory inside kernodeck/, which git ignores" \
	sh -c "grep -q 'inventory: kernodeck/reference/pip-freeze.txt' '$P/kernodeck/reference.yaml' && git -C '$P' check-ignore -q kernodeck/reference/pip-freeze.txt"
"$KD_BIN" check "$P" --quiet >"$KD_TMP/check.out" 2>&1
r=$?
check "check: the seven stages pass (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/#   /' "$KD_TMP/check.out" | grep -v ' pass ' | head -n 20
D=$P/kernodeck/dossier
check "the dossier holds the captured inventory" test -f "$D/project/kernodeck/reference/pip-freeze.txt"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/replay" --yes >"$KD_TMP/replay.out" 2>&1
r=$?
check "replay of the captured dossier in a clean folder (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/#   /' "$KD_TMP/replay.out" | tail -n 20
check "replay: the inventory came from the dossier" test -f "$KD_TMP/replay/kernodeck/reference/pip-freeze.txt"
check "replay: overall passed" grep -q "^overall: passed" "$KD_TMP/replay.out"
