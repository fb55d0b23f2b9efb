#!/bin/sh
# The resume check's rows depend on one another (issue 25, point 1): no
# verdict passes without an interruption that happened and a resumed run
# that ran.  A kill-mode trainer that never writes its checkpoint: the
# interrupted row fails (not killed), the checkpoint row fails, and the
# resumed run, the metrics, the trajectory and the final checkpoints are
# "not run" (failed); a deviation on the checkpoint row alone leaves the
# stage failed (exit 1); only when each is deviated does it pass, and the
# dossier says the resume was not checked.  A stop-mode run whose trainer
# crashes before its checkpoint: the same.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/integration/resume-lib.inc"

toy_project
(cd "$P" && git init -q && git add -A . && git -c user.name=t -c user.email=t@t commit -qm toy) >/dev/null 2>&1
toy_spec ', --ckpt, none, --sleep, "0.05"' 4 kill "{out}/ckpt-{step}.pt" 'metrics: "{out}/metrics.jsonl"'
run_sample nockpt
check "kill mode, no checkpoint ever written: exit 1" [ $? -eq 1 ]
check "the interrupted row fails: not killed" has nockpt "^sample.resume.interrupted fail | not killed: exit 0 | the interrupted run was not killed: it never wrote the checkpoint"
check "the checkpoint row fails" has nockpt "^sample.resume.checkpoint fail | resume/interrupted/ckpt-4.pt does not exist"
for id in resumed metrics trajectory final; do
	check "the $id row is not run (failed), never pass" has nockpt "^sample.resume.$id fail | not run: the interrupted run was not killed"
done
check "no resumed run was started" sh -c "! ls '$P'/kernodeck/logs/*-resume-resumed.log 2>/dev/null"
check "no resume row passes but the uninterrupted run" sh -c "! grep '^sample.resume' '$KD_TMP/nockpt.rows' | grep ' pass ' | grep -v '^sample.resume.uninterrupted \|^sample.resume.rule-changed '"

"$KD_BIN" deviate "$P" --stage sample --check sample.resume.checkpoint --why "the trainer saves elsewhere" >/dev/null 2>&1
run_sample onedev
check "a deviation on the checkpoint row alone: still exit 1" [ $? -eq 1 ]
check "the rows that depend on it still fail" has onedev "^sample.resume.trajectory fail | not run"
for id in interrupted resumed metrics trajectory final; do
	"$KD_BIN" deviate "$P" --stage sample --check "sample.resume.$id" --why "accepted for the test" >/dev/null 2>&1
done
run_sample alldev
check "each failing row deviated, one by one: exit 0" [ $? -eq 0 ]
check "the stage is deviation, not passed" $PY -c "
import json,sys; s=json.load(open(sys.argv[1]))['stages'][0]
assert s['status']=='deviation', s['status']
assert {d['check'] for d in s['deviations']} >= {'sample.resume.'+x for x in ('checkpoint','interrupted','resumed','metrics','trajectory','final')}, s['deviations']" "$KD_TMP/alldev.json"
"$KD_BIN" dossier "$P" --out "$KD_TMP/dossier" >"$KD_TMP/dossier.out" 2>&1
R="$KD_TMP/dossier/README.md"
check "the dossier is written" test -f "$R"
check "the dossier says the interruption and the resume were not checked" grep -q "the interruption at step 4 (kill) and the resume were not checked: the interrupted run was not killed" "$R"
check "the dossier never says it was interrupted then resumed" sh -c "! grep -q 'then resumed from its checkpoint' '$R'"
check "the dossier has no trajectory table" sh -c "! grep -q '^| step | loss, uninterrupted' '$R'"
check "the dossier lists the rows not run" grep -q "^| sample.resume.trajectory | fail | not run" "$R"

# stop mode: a trainer that fails before its checkpoint
toy_project
toy_spec ', --every, "100", --ckpt, step, --resume, /nonexistent' 4 stop "{out}/ckpt-{step}.pt" 'metrics: "{out}/metrics.jsonl"'
run_sample crash
check "stop mode, the runs crash: exit 1" [ $? -eq 1 ]
check "stop mode: the interrupted run fails" has crash "^sample.resume.interrupted fail"
check "stop mode: the trajectory is not run" has crash "^sample.resume.trajectory fail | not run: the interrupted run failed"
check "stop mode: the final checkpoints are not run" has crash "^sample.resume.final fail | not run: the interrupted run failed"
