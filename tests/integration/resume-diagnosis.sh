#!/bin/sh
# The resume check's diagnosis, ranked by evidence (issue 25, point 2), on
# the toy trainer: it saves its counter as iter_num and computes its rate
# from it, but drops its RNG state.  The trajectory row names the first
# diverging step and key, what the checkpoint holds and what train.py
# visibly uses, the torch RNG first among the possible causes (with the
# line that draws from it), and rules out the counter, the learning rate
# (it agrees at the first resumed step) and the generators train.py never
# uses.  The final checkpoints: model tensors first, RNG states compared
# as states (same or not), never as numbers.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/integration/resume-lib.inc"

spec() { toy_spec "$1" 6 stop "{out}/ckpt-{step}.pt" 'metrics: "{out}/metrics.jsonl"'; }
toy_project
spec ', --drop-rng'
run_sample norng
check "RNG state dropped: exit 1" [ $? -eq 1 ]
T=$(grep '^sample.resume.trajectory ' "$KD_TMP/norng.rows")
echo "# $T"
check "the first diverging step and key" has norng "^sample.resume.trajectory fail | .* | first divergence at step 7, loss: uninterrupted"
check "what the checkpoint holds: the model, the optimizer, a step counter" has norng "ckpt-6.pt holds the model, the optimizer, a step counter;"
check "what train.py visibly uses" has norng "train.py visibly uses [a-zA-Z ,']*the torch RNG"
check "the torch RNG first, with the line that draws from it" has norng "possible causes, most likely first: (1) no RNG state (torch CPU): dropout and shuffling restart from the seed (used at train.py:[0-9]*: "
check "the counter is not a cause (iter_num is held)" sh -c "! printf '%s' \"\$1\" | grep -q 'no step or epoch counter'" - "$T"
check "the learning rate is ruled out: it agrees at step 7" has norng "ruled out by the evidence: .*the learning rate restarting (it agrees at step 7)"
check "generators train.py never uses are ruled out, not listed as causes" has norng "ruled out by the evidence: .*NumPy's RNG (train.py never visibly uses it)"
check "the inventory row warns of the RNG only" has norng "^sample.resume.inventory warn | .* | ckpt-6.pt holds no RNG state (torch CPU): dropout and shuffling restart from the seed (used at train.py:[0-9]*: [^;]*$"
check "final checkpoints: the model's tensors first" has norng "^sample.resume.final fail | [0-9]* tensors compared, [0-9]* differ (model: 4 of 4 differ; optimizer: 4 of 4 differ); worst difference [0-9.e-]* (model\.[0-9.a-z]*) | tensor model\."

spec ''
run_sample good
check "RNG state saved: exit 0" [ $? -eq 0 ]
check "the good trainer's inventory passes (nothing it uses is missing)" has good "^sample.resume.inventory pass | resume/interrupted/ckpt-6.pt: 4 of 8 kinds of state"
check "final checkpoints: RNG states compared as states" has good "^sample.resume.final pass | 9 tensors compared, 0 differ (model: 0 of 4 differ; optimizer: 0 of 4 differ; RNG states: the same)"
# two checkpoints whose RNG states differ: a state line, no magnitude
"$PY" "$KD_SRCDIR/share/ckpt-inventory.py" compare "$P/kernodeck/resume/interrupted/ckpt-6.pt" \
	"$P/kernodeck/resume/interrupted/ckpt-12.pt" >"$KD_TMP/cmp.out" 2>&1
check "an RNG state that differs: same false, no numbers, listed after the model" "$PY" - "$KD_TMP/cmp.out" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rng = [r for r in rows if r.get("class") == "rng"]
assert rng and rng[0]["same"] is False and "max_abs" not in rng[0] and "first" not in rng[0], rng
order = [r.get("class") for r in rows if "tensor" in r]
assert order.index("rng") > order.index("model"), order
assert rows[-1]["worst"]["tensor"].startswith("model."), rows[-1]
PYEOF
