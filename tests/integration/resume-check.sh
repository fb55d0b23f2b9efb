#!/bin/sh
# The resume check of stage 6 on the training demo (share/demo/training,
# Debian's torch 1.13 through a venv with system site packages): the
# shipped script passes (exact trajectory, final checkpoints equal, the
# inventory finds every kind of state, the reference machine's trajectory
# agrees); variants built here fail with the first diverging step and the
# missing kind named: RNG state, sampler position, optimizer state not
# saved; a kill-mode run; a resume that crashes (its first error kept); a
# checkpoint that needs full unpickling (refused, never unpickled); a bad
# placeholder; a rule changed after a comparison (a deviation).
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python resume-check "Debian's python3-torch is not installed for /usr/bin/python3" torch numpy
SRC="$KD_SRCDIR/share/demo/training"
P="$KD_TMP/proj"

fresh() { # a clean copy of the training project, with its venv
	rm -rf "$P"
	cp -r "$SRC" "$P"
	$PY -m venv --system-site-packages --without-pip "$P/.venv-rebuild"
	mkdir -p "$P/kernodeck"
	cp "$KD_TMP/byhand/metrics.jsonl" "$P/ref-metrics.jsonl"
	cp "$KD_TMP/byhand/predictions.npy" "$P/pred-12.npy"
	ref
}
ref() { # from INTERRUPT, RULE (a YAML flow mapping) and PH (the run's {out})
	ph=${PH:-"{out}"}
	rule=${RULE:-"{kind: exact}"}
	cat >"$P/kernodeck/reference.yaml" <<YEOF
schema: 1
goal: training-trajectory
code:
  entry_point: [python, -c, "import os, shutil; os.makedirs('outputs', exist_ok=True); shutil.copy('pred-12.npy', 'outputs')"]
result:
  format: npy
  outputs: outputs
  files: [pred-12.npy]
  count: 1
  shape: [16, 4]
  dtype: float32
  finite: true
  rule: {kind: exact}
  example:
    path: pred-12.npy
resume:
  run: [python, train.py, --steps, "{steps}", --ckpt-every, "{step}", --out, "$ph"]
  resume: [python, train.py, --steps, "{steps}", --ckpt-every, "{step}", --out, "{out}", --resume, "{checkpoint}"]
  steps: 12
  interrupt_at: 6
  interrupt: ${INTERRUPT:-stop}
  checkpoint: "{out}/ckpt-{step}.pt"
  metrics: "{out}/metrics.jsonl"
  compare: [loss, lr]
  rule: $rule
  reference_metrics: ref-metrics.jsonl
  reference_rule: {kind: tolerance, atol: 1.0e-4, rtol: 1.0e-3, justification: float32 on another CPU}
YEOF
}
rows() { $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))
for x in r['stages'][0]['rows']:
    print(x['id'], x['status'], '|', x.get('observed',''), '|', x.get('first_error',''))" "$1"; }
run() { # NAME -> $KD_TMP/NAME.json, .rows; returns the exit status
	"$KD_BIN" check "$P" --stage sample --quiet --format json >"$KD_TMP/$1.json" 2>"$KD_TMP/$1.err"
	r=$?
	rows "$KD_TMP/$1.json" >"$KD_TMP/$1.rows"
	return $r
}
has() { # NAME PATTERN; a failure shows the row checked
	grep -q -- "$2" "$KD_TMP/$1.rows" && return 0
	id=$(printf '%s' "$2" | sed 's/^\^//; s/ .*//')
	grep -- "^$id " "$KD_TMP/$1.rows" | sed 's/^/# /'
	return 1
}
variant() { # drop the lines of train.py matching $1
	grep -v -- "$1" "$P/train.py" >"$P/train.py.new" && mv "$P/train.py.new" "$P/train.py"
}

# the reference machine's trajectory and output for 12 steps, by hand once
(cd "$SRC" && $PY train.py --steps 12 --ckpt-every 6 --out "$KD_TMP/byhand" >/dev/null)
fresh

run good
check "training demo: stage 6 passes with the resume check (exit 0)" [ $? -eq 0 ]
check "good: the three runs ran" sh -c "grep -q '^sample.resume.uninterrupted pass' '$KD_TMP/good.rows' && grep -q '^sample.resume.interrupted pass' '$KD_TMP/good.rows' && grep -q '^sample.resume.resumed pass' '$KD_TMP/good.rows'"
check "good: both metrics files reread" has good "^sample.resume.metrics pass | uninterrupted: steps 1-12; resumed: steps 1-12"
check "good: trajectory exact, steps 7-12, two keys" has good "^sample.resume.trajectory pass | steps 7-12: 12 values compared, 0 diverging; worst difference 0"
check "good: the final checkpoints agree tensor by tensor" has good "^sample.resume.final pass | [0-9]* tensors compared, 0 differ"
check "good: the inventory finds every kind (the zip read without torch)" has good "^sample.resume.inventory pass | resume/interrupted/ckpt-6.pt: 8 of 8 kinds of state (loader: zip, restricted)"
check "good: the reference machine's trajectory agrees under reference_rule" has good "^sample.resume.reference pass | steps 1-12: 24 values compared, 0 diverging"
check "good: the inventory rows: optimizer with its buffers, the data order's generator" $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))
info={x['id']:x['observed'] for x in r['stages'][0]['rows']}
assert 'with per-parameter buffers' in info['sample.resume.kind.optimizer'], info
assert info['sample.resume.kind.data_position'].startswith('present (data.generator'), info
assert info['sample.resume.kind.rng_torch'] == 'present (torch_rng)', info
assert 'parameters' in info['sample.resume.kind.model'], info" "$KD_TMP/good.json"
check "good: each run logged" sh -c "ls '$P'/kernodeck/logs/*-resume-uninterrupted.log '$P'/kernodeck/logs/*-resume-resumed.log >/dev/null"
check "good: the runs wrote into kernodeck's fresh folders" test -f "$P/kernodeck/resume/interrupted/ckpt-12.pt"

# each missing kind of state: the first diverging step and the kind named
fresh
variant '"torch_rng": torch.get_rng_state(),'
run no-rng
check "RNG state not saved: the stage fails (exit 1)" [ $? -eq 1 ]
check "RNG: first divergence at step 7, the RNG named" has no-rng "^sample.resume.trajectory fail | .* | first divergence at step 7, loss: uninterrupted [0-9.e-]*, resumed [0-9.e-]*; ckpt-6.pt holds .*; possible causes, most likely first: (1) no RNG state (torch CPU): dropout and shuffling restart from the seed"
check "RNG: the inventory warns" has no-rng "^sample.resume.inventory warn | .*7 of 8 kinds"

fresh
variant '"data": {"generator"'
run no-sampler
check "sampler position not saved: fails at step 7 naming the data position" has no-sampler "^sample.resume.trajectory fail | .* | first divergence at step 7, .*(1) no sampler or data-position state: the resumed run replays the data order"

fresh
variant '"optimizer": opt.state_dict(),'
run no-optim
# (step 7's loss is computed before its update, from the restored weights:
# without the momentum, the first loss that differs is step 8's)
check "optimizer state not saved: fails at step 8 naming the optimizer" has no-optim "^sample.resume.trajectory fail | .* | first divergence at step 8, loss: .*(1) no optimizer state: momentum"

# kill mode: the interrupted run is killed once ckpt-6.pt is complete
fresh
sed 's/^\( *\)metrics.flush()$/&\n\1__import__("time").sleep(0.25)/' "$P/train.py" >"$P/t.py" && mv "$P/t.py" "$P/train.py"
INTERRUPT=kill ref
run kill
check "kill mode: the interrupted run was killed by kernodeck" has kill "^sample.resume.interrupted pass | killed by kernodeck (SIGKILL) once the checkpoint recorded step 6"
check "kill mode: the resumed run follows the uninterrupted one" has kill "^sample.resume.trajectory pass"

# a resume that crashes: its first error and step kept
fresh
sed 's/^\( *\)ck = torch.load(args.resume, map_location="cpu")$/&\n\1raise RuntimeError("the checkpoint cannot be read back")/' "$P/train.py" >"$P/t.py" && mv "$P/t.py" "$P/train.py"
run crash
check "crashing resume: fails (exit 1)" [ $? -eq 1 ]
check "crashing resume: its step and first error" has crash "^sample.resume.resumed fail | exit 1 in step loading the checkpoint | RuntimeError: the checkpoint cannot be read back (innermost frame: File \".*train.py\""
check "crashing resume: the other runs pass" has crash "^sample.resume.uninterrupted pass"

# a checkpoint that needs full unpickling is refused, never unpickled
fresh
sed 's/^\( *\)"step": step,$/&\n\1"args": args,/' "$P/train.py" >"$P/t.py" && mv "$P/t.py" "$P/train.py"
run pickled
check "full unpickling needed: the inventory refuses it, naming the class" has pickled "^sample.resume.inventory warn | refused: needs full unpickling | the checkpoint needs the class argparse.Namespace"
check "full unpickling needed: the final checkpoints are not compared either" has pickled "^sample.resume.final warn | not compared"

# an unknown placeholder
PH='{seed}' ref
run placeholder
check "unknown placeholder: a declaration error naming it" has placeholder "^sample.resume fail | malformed | resume.run\[7\]: unknown placeholder {seed}: only {steps}, {out}, {checkpoint} and {step}"

# a rule changed after a comparison was seen: a deviation, automatically
fresh
run before
check "before the change: passes" [ $? -eq 0 ]
RULE='{kind: tolerance, atol: 1.0e-6, rtol: 0, justification: looser after all}' ref
run changed
rc=$?
check "rule changed: the resume rule-changed row fails with before and after" has changed '^sample.resume.rule-changed fail | changed after a comparison was seen: resume rules {.*exact.*} -> {.*tolerance'
check "rule changed: a deviation was recorded automatically" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); s=r['stages'][0]
d=[x for x in s['deviations'] if x['check']=='sample.resume.rule-changed']
assert d and 'automatically' in d[0]['why'], s['deviations']
assert s['status']=='deviation', s['status']" "$KD_TMP/changed.json"
check "rule changed: the stage is deviation, so check exits 0" [ "$rc" -eq 0 ]

# the inventory script itself, on checkpoints this machine's torch writes:
# the zip reader agrees with torch.load (a transposed view, bfloat16, a 0-d
# and an empty tensor); the legacy format goes through torch (1.13 refuses
# an optimizer with weights_only: the restricted unpickler serves it); a
# class outside the allow-list is refused in both formats
INV="$KD_SRCDIR/share/ckpt-inventory.py"
check "inventory script: the zip reader agrees with torch.load" $PY - "$INV" "$KD_TMP" <<'PYEOF'
import importlib.util, sys, torch, numpy as np
spec = importlib.util.spec_from_file_location("ci", sys.argv[1]); ci = importlib.util.module_from_spec(spec); spec.loader.exec_module(ci)
p = sys.argv[2] + "/views.pt"
x = torch.arange(24.).reshape(4, 6)
torch.save({"t": x.t()[1:], "b": torch.tensor([1.5, -2.25]).bfloat16(), "s": torch.tensor(3), "e": torch.zeros(0, 3),
            "opt": torch.optim.SGD(torch.nn.Linear(3, 2).parameters(), lr=0.1, momentum=0.9).state_dict()}, p)
m, r = ci.zip_load(p), torch.load(p)
assert np.array_equal(m["t"].a, r["t"].numpy()) and m["t"].shape == (5, 4)
assert list(m["b"].as_float64()) == [1.5, -2.25] and m["s"].a.shape == () and int(m["s"].a) == 3
assert m["e"].shape == (0, 3) and m["opt"]["param_groups"][0]["momentum"] == 0.9
PYEOF
$PY -c "
import torch, argparse, sys
m = torch.nn.Linear(3, 2); o = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
m(torch.ones(1, 3)).sum().backward(); o.step()
torch.save({'model': m.state_dict(), 'optimizer': o.state_dict(), 'step': 1}, sys.argv[1] + '/legacy.pt', _use_new_zipfile_serialization=False)
torch.save({'a': argparse.Namespace(x=1)}, sys.argv[1] + '/legacy-bad.pt', _use_new_zipfile_serialization=False)
torch.save({'a': argparse.Namespace(x=1)}, sys.argv[1] + '/zip-bad.pt')" "$KD_TMP"
$PY "$INV" inventory "$KD_TMP/legacy.pt" >"$KD_TMP/legacy.inv" 2>&1
check "inventory script: the legacy format through torch (restricted unpickler on 1.13)" sh -c "grep -q '\"loader\": \"torch, ' '$KD_TMP/legacy.inv' && grep -q '\"buffers\": true, \"kind\": \"optimizer\"' '$KD_TMP/legacy.inv'"
for f in legacy-bad zip-bad; do
	$PY "$INV" inventory "$KD_TMP/$f.pt" >"$KD_TMP/$f.inv" 2>&1
	check "inventory script: $f.pt refused, naming argparse.Namespace" grep -q '"refused": "argparse.Namespace"' "$KD_TMP/$f.inv"
done

# goal training-trajectory without resume: the stage fails, naming it
sed -i '/^resume:/,$d' "$P/kernodeck/reference.yaml"
run missing
check "training-trajectory without resume: fails (exit 1)" [ $? -eq 1 ]
check "training-trajectory without resume: the row says so" has missing "^sample.resume fail | not declared | goal training-trajectory needs the resume check"
