#!/bin/sh
# kd-test: long (started first: see tests/run-all.sh)
# Real trainers without wrappers in resume: (issue 25, point 3), on the
# toy trainer (tests/helpers/toy-trainer.py): a checkpoint without {step}
# is the one file the trainer overwrites (ckpt.pt): stop mode resumes after
# the step it records, also when the trainer saves only at its evaluation
# steps (step 4 of 7); kill mode waits until the file records a step of at
# least interrupt_at (read by the allow-list reader) and kills there; a
# trainer that prints its loss instead of writing JSON Lines is read
# through resume.metrics_pattern, and a divergence is found in those lines.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/integration/resume-lib.inc"

spec() { toy_spec "$1" 7 "$2" "{out}/ckpt.pt" "$3"; }
JSONL='metrics: "{out}/metrics.jsonl"'

toy_project
spec ', --ckpt, single, --every, "3"' stop "$JSONL"
run_sample single
check "one overwritten ckpt.pt, stop mode: exit 0" [ $? -eq 0 ]
check "single: the inventory reads the step it records" has single "^sample.resume.inventory pass | resume/interrupted/ckpt.pt: .*records step 7 (iter_num)"
check "single: the trajectory from step 8, exact" has single "^sample.resume.trajectory pass | steps 8-12: 10 values compared, 0 diverging"
check "single: the final checkpoints compared" has single "^sample.resume.final pass"

spec ', --ckpt, single, --every, "4", --eval-only' stop "$JSONL"
run_sample evalonly
check "saved at evaluation steps only (4 of 7): exit 0" [ $? -eq 0 ]
check "eval-only: resumed after the step the file records (4)" has evalonly "^sample.resume.trajectory pass | steps 5-12: 16 values compared, 0 diverging"
check "eval-only: the resumed metrics restart after step 4" has evalonly "^sample.resume.metrics pass | .*resumed: steps 1-12 (restarted after the checkpoint)"

spec ', --ckpt, single, --every, "1", --sleep, "0.4"' kill "$JSONL"
run_sample killsingle
check "kill mode on one overwritten file: exit 0" [ $? -eq 0 ]
check "kill: killed once the file recorded step 7 or later" has killsingle "^sample.resume.interrupted pass | killed by kernodeck (SIGKILL) once the checkpoint recorded step \([7-9]\|1[01]\)"
rec=$(sed -n 's/^sample.resume.inventory .*records step \([0-9]*\) (iter_num).*/\1/p' "$KD_TMP/killsingle.rows")
check "kill: the trajectory compared from the step after the one recorded (${rec:-?})" has killsingle "^sample.resume.trajectory pass | steps $((${rec:-0} + 1))-12"

spec ', --ckpt, single, --every, "3", --log, print' stop 'metrics_pattern: "iter {step}: loss {loss}, lr {lr}"'
run_sample printed
check "printed loss through metrics_pattern: exit 0" [ $? -eq 0 ]
check "printed: both trajectories read from the printed lines" has printed "^sample.resume.metrics pass | uninterrupted: steps 1-12; resumed: steps 1-12"
check "printed: exact from step 8" has printed "^sample.resume.trajectory pass | steps 8-12: 10 values compared"
check "printed: the records kernodeck saved" grep -q '^{"step": 12, "loss": ' "$P/kernodeck/resume/printed-uninterrupted.jsonl"

spec ', --ckpt, single, --every, "3", --log, print, --drop-rng' stop 'metrics_pattern: "iter {step}: loss {loss}, lr {lr}"'
run_sample printednorng
check "printed, RNG state dropped: exit 1" [ $? -eq 1 ]
check "printed, RNG dropped: the first divergence at step 8" has printednorng "^sample.resume.trajectory fail | .* | first divergence at step 8, loss"

spec ', --ckpt, single' stop 'metrics_pattern: "iter {step}: loss {loss}"'
run_sample badpat
check "a pattern without a compared key: a declaration error naming it" has badpat "^sample.resume fail | malformed | resume.metrics_pattern: {lr} is missing"
spec ', --ckpt, single' stop 'metrics: "{out}/m.jsonl"
  metrics_pattern: "iter {step}: loss {loss}, lr {lr}"'
run_sample both
check "metrics and metrics_pattern together: refused" has both "^sample.resume fail | malformed | resume: declare metrics (a JSON Lines file) or metrics_pattern"

# the README's example: the training demo's train.py with one overwritten
# ckpt.pt and its loss printed, declared as it is
rm -rf "$P"
cp -r "$KD_SRCDIR/share/demo/training" "$P"
$PY -m venv --system-site-packages --without-pip "$P/.venv-rebuild"
mkdir -p "$P/kernodeck"
sed -n '/^    resume:$/,/^      rule: {kind: exact}$/p' "$KD_SRCDIR/README.md" | sed 's/^    //' >"$KD_TMP/readme-resume.yaml"
sed -e '/^resume:/,$d' -e '/^  commit:/d' -e 's/^  sha256: .*/  sha256: null/' -e 's/^      sha256: .*/      sha256: null/' \
	"$KD_SRCDIR/share/demo/training.yaml" >"$P/kernodeck/reference.yaml"
cat "$KD_TMP/readme-resume.yaml" >>"$P/kernodeck/reference.yaml"
check "README: the example section is there" grep -q 'metrics_pattern: "step {step}: loss {loss} lr {lr}"' "$P/kernodeck/reference.yaml"
run_sample readme
check "README's example on the training demo: no resume row fails" sh -c "grep -q '^sample.resume.resumed pass' '$KD_TMP/readme.rows' && ! grep -q '^sample.resume[^ ]* fail' '$KD_TMP/readme.rows'"
check "README's example: the printed trajectory, exact from step 21" has readme "^sample.resume.trajectory pass | steps 21-40: 40 values compared, 0 diverging"
check "README's example: the one ckpt.pt records step 20" has readme "^sample.resume.inventory pass | resume/interrupted/ckpt.pt: 8 of 8 kinds of state (loader: zip, restricted); records step 20 (step)"
