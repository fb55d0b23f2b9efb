#!/bin/sh
# tests/bench/resume.sh - the resume check of stage 6 (issue 18): `kernodeck
# check DIR --stage sample` on the training demo (share/demo/training), whose
# entry point only copies a file, so that the stage is the resume check:
# the uninterrupted, interrupted and resumed runs, the checkpoint inventory,
# both metrics files reread and compared, the final checkpoints compared;
# against the three training commands run by hand (sh byhand.sh: the same
# argument vectors, fresh folders, nothing compared).  At 40 and 400 steps
# (interrupted half way).  Target: at most 1.05x their wall time.
#
# Usage: sh tests/bench/resume.sh   (KD_BIN, KD_BENCH_RUNS, KD_BENCH_QUICK:
# see lib.sh).  Needs hyperfine and Debian's python3-torch.
. "$(dirname "$0")/lib.sh"
bench_init resume
RUNS=${KD_BENCH_RUNS:-5}
[ "$QUICK" = 1 ] && RUNS=2
"$PY" -c 'import torch' 2>/dev/null || {
	echo "resume.sh: $PY cannot import torch (apt-get install python3-torch)" >&2
	exit 3
}

P="$W/proj"
cp -r "$KD_SRCDIR/share/demo/training" "$P"
mkdir -p "$P/kernodeck"
"$PY" -m venv --system-site-packages --without-pip "$P/.venv-rebuild"
VPY="$P/.venv-rebuild/bin/python"
cp "$P/reference/predictions.npy" "$P/pred.npy"

# ref STEPS: the reference, interrupted at STEPS/2
ref() {
	cat >"$P/kernodeck/reference.yaml" <<YEOF
schema: 1
goal: training-trajectory
code:
  entry_point: [python, -c, "import os, shutil; os.makedirs('outputs', exist_ok=True); shutil.copy('pred.npy', 'outputs')"]
result:
  format: npy
  outputs: outputs
  files: [pred.npy]
  rule: {kind: exact}
  example: {path: pred.npy}
resume:
  run: [python, train.py, --steps, "{steps}", --ckpt-every, "{step}", --out, "{out}"]
  resume: [python, train.py, --steps, "{steps}", --ckpt-every, "{step}", --out, "{out}", --resume, "{checkpoint}"]
  steps: $1
  interrupt_at: $(($1 / 2))
  interrupt: stop
  checkpoint: "{out}/ckpt-{step}.pt"
  metrics: "{out}/metrics.jsonl"
  compare: [loss, lr]
  rule: {kind: exact}
YEOF
	cat >"$W/byhand.sh" <<SEOF
set -e
cd "$P"
rm -rf "$W/a" "$W/b"
mkdir -p "$W/a" "$W/b"
"$VPY" train.py --steps $1 --ckpt-every $(($1 / 2)) --out "$W/a" >/dev/null
"$VPY" train.py --steps $(($1 / 2)) --ckpt-every $(($1 / 2)) --out "$W/b" >/dev/null
"$VPY" train.py --steps $1 --ckpt-every $(($1 / 2)) --out "$W/b" --resume "$W/b/ckpt-$(($1 / 2)).pt" >/dev/null
SEOF
}

bench_header "Resume check: kernodeck check --stage sample vs the three training runs by hand (tests/bench/resume.sh)"
for n in 40 400; do
	ref "$n"
	"$KD_BIN" check "$P" --stage sample >"$W/check$n.txt" 2>&1 || {
		echo "resume.sh: the sample stage does not pass here:" >&2
		cat "$W/check$n.txt" >&2
		exit 1
	}
	hf "$W/r$n.json" "$RUNS" 1 "sh $W/byhand.sh" "$KD_BIN check $P --stage sample --quiet"
	a=$(st "$W/r$n.json" 0 median); ac=$(st "$W/r$n.json" 0 cpu)
	k=$(st "$W/r$n.json" 1 median); kc=$(st "$W/r$n.json" 1 cpu)
	r=$(ratio "$k" "$a"); rc=$(ratio "$kc" "$ac")
	row "resume check vs the three runs by hand" "$n steps" "$(t "$k")" "$(t "$a")" "$r" "$rc" "<= 1.05" \
		"$(met "$r" '<=' 1.05 wall), $(met "$rc" '<=' 1.05 CPU)"
done
bench_footer
echo "- kernodeck runs two more interpreters than the runs by hand: the checkpoint inventory and the"
echo "  comparison of the final checkpoints (share/ckpt-inventory.py, each importing torch)."
