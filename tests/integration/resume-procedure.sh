#!/bin/sh
# procedure.sh's resume step (issue 25, point 5): rerun by hand, it checks
# the resumed trajectory under resume.rule and also the uninterrupted one
# against the reference machine's (resume.reference_metrics, under
# resume.reference_rule), as stage 6 does; a reference trajectory that
# differs stops it, naming the step; a trainer that prints its loss
# (resume.metrics_pattern) is compared from its printed lines.  The step is
# cut out of the dossier's procedure.sh and run in the project folder.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/integration/resume-lib.inc"

toy_project
(cd "$P" && $PY train.py --steps 12 --out "$KD_TMP/byhand" >/dev/null && cp "$KD_TMP/byhand/metrics.jsonl" ref-metrics.jsonl)
(cd "$P" && git init -q && git add -A . && git -c user.name=t -c user.email=t@t commit -qm toy) >/dev/null 2>&1
spec() { # METRICS_LINE RUN_EXTRA
	toy_spec "${2:-}" 6 stop "{out}/ckpt-{step}.pt" "$1" "  reference_metrics: ref-metrics.jsonl
  reference_rule: {kind: tolerance, atol: 1.0e-5, rtol: 0, justification: printed with six decimals}"
}
step7() { # NAME: the dossier's step 7, run in the project folder -> $KD_TMP/NAME.out
	rm -rf "$KD_TMP/dossier"
	"$KD_BIN" dossier "$P" --out "$KD_TMP/dossier" >/dev/null 2>&1
	{ printf 'set -euo pipefail\nstep() { printf "== %%s\\n" "$*"; }\nWORK="%s" DOSSIER="%s"\n' "$KD_TMP/w" "$KD_TMP/dossier"
	  sed -n '/^step "7\. the resume check/,/^KD_RESUME$/p' "$KD_TMP/dossier/procedure.sh"; } >"$KD_TMP/$1.sh"
	(cd "$P" && bash "$KD_TMP/$1.sh") >"$KD_TMP/$1.out" 2>&1
}

spec 'metrics: "{out}/metrics.jsonl"'
run_sample good
check "stage 6 passes, the reference trajectory too" has good "^sample.resume.reference pass"
step7 proc
check "procedure's step 7: exit 0" [ $? -eq 0 ]
check "procedure: the resumed trajectory agrees" grep -q "^resume: steps 7-12 agree under the rule" "$KD_TMP/proc.out"
check "procedure: the uninterrupted trajectory agrees with the reference machine's" grep -q "^reference: steps 1-12 agree under the rule" "$KD_TMP/proc.out"
$PY -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
rows[8]['loss'] += 0.01
open(sys.argv[1], 'w').write(''.join(json.dumps(r) + '\n' for r in rows))" "$P/ref-metrics.jsonl"
step7 procbad
check "a reference trajectory that differs: the step fails" [ $? -ne 0 ]
check "it names the reference's first divergence (step 9)" grep -q "^reference: first divergence at step 9, loss" "$KD_TMP/procbad.out"
cp "$KD_TMP/byhand/metrics.jsonl" "$P/ref-metrics.jsonl"

spec 'metrics_pattern: "iter {step}: loss {loss}, lr {lr}"' ', --log, print'
step7 printed
check "printed loss (metrics_pattern): step 7 exits 0" [ $? -eq 0 ]
check "printed loss: the resumed trajectory agrees, read from the printed lines" grep -q "^resume: steps 7-12 agree under the rule" "$KD_TMP/printed.out"
check "printed loss: against the reference under its tolerance" grep -q "^reference: steps 1-12 agree" "$KD_TMP/printed.out"
