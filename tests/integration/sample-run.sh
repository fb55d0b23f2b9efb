#!/bin/sh
# Stage 6 end to end: the entry point runs in the project interpreter (a
# venv over /usr/bin/python3 and its numpy), its previous outputs are moved
# aside first, the outputs are reread and compared with the reference
# output under the declared rule.  One small application, driven by
# KD_SAMPLE_MODE: good outputs, NaN, a wrong shape, a missing identifier,
# values just inside and just outside the tolerance, a crash in a known
# step, a hang; then a rule changed after a comparison was seen.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python sample-run "numpy is not installed for /usr/bin/python3" numpy
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck" "$P/sample" "$P/reference"
$PY -m venv --system-site-packages --without-pip "$P/.venv-rebuild"
printf 's01\ns02\ns03\ns04\n' >"$P/sample/ids.txt"
cat >"$P/embed.py" <<'PYEOF'
import os, sys, time
import numpy as np
mode = os.environ.get("KD_SAMPLE_MODE", "good")
out = sys.argv[sys.argv.index("--out") + 1]
print("KD_STEP: data loading", flush=True)
ids = [l.strip() for l in open("sample/ids.txt")]
ref = np.arange(1, 13, dtype=np.float32).reshape(4, 3)
if mode == "crash-load":
    np.load("sample/no-such-file.npy")
print("KD_STEP: compute", flush=True)
emb = ref.copy()
atol, rtol = 1e-3, 1e-2
if mode == "inside":
    emb = (ref + 0.9 * (atol + rtol * np.abs(ref))).astype(np.float32)
if mode == "outside":
    emb[2, 1] = ref[2, 1] + 1.1 * (atol + rtol * abs(ref[2, 1]))
if mode == "nan":
    emb[1, 2] = np.nan
if mode == "shape":
    emb = emb[:, :2].copy()
if mode == "missing-id":
    emb, ids = emb[:3], ids[:3]
if mode == "set-order":
    emb, ids = emb[::-1].copy(), ids[::-1]
if mode == "crash-compute":
    raise RuntimeError("CUDA error: an illegal memory access was encountered")
if mode == "hang":
    time.sleep(600)
print("KD_STEP: writing", flush=True)
os.makedirs(out, exist_ok=True)
np.save(os.path.join(out, "embeddings.npy"), emb)
with open(os.path.join(out, "ids.txt"), "w") as f:
    f.write("\n".join(ids) + "\n")
PYEOF
$PY -c "import numpy as np; np.save('$P/reference/expected.npy', np.arange(1, 13, dtype=np.float32).reshape(4, 3))"

ref() { # rule kind extra (yaml lines of the rule)
	cat >"$P/kernodeck/reference.yaml" <<YEOF
schema: 1
code:
  entry_point: [python, embed.py, --out, outputs]
result:
  format: npy
  outputs: outputs
  files: [embeddings.npy]
  count: 1
  shape: [4, 3]
  dtype: float32
  finite: true
  ids:
    file: outputs/ids.txt
    reference: sample/ids.txt
    order: ${ORDER:-same}
  rule:
    kind: tolerance
    atol: ${ATOL:-1.0e-3}
    rtol: 1.0e-2
    nan_equal: false
    justification: float32 outputs; 1e-2 relative keeps the ranking
  example:
    path: reference/expected.npy
YEOF
}
rows() { $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))
for x in r['stages'][0]['rows']:
    print(x['id'], x['status'], '|', x.get('observed',''), '|', x.get('first_error',''))" "$1"; }
sample() { # mode -> $KD_TMP/MODE.json, $KD_TMP/MODE.rows; returns the exit status
	KD_SAMPLE_MODE=$1 "$KD_BIN" check "$P" --stage sample --quiet --format json >"$KD_TMP/$1.json" 2>"$KD_TMP/$1.err"
	r=$?
	rows "$KD_TMP/$1.json" >"$KD_TMP/$1.rows"
	return $r
}
has() { grep -q "$2" "$KD_TMP/$1.rows"; }

ref
sample good
check "good outputs: the stage passes (exit 0)" [ $? -eq 0 ]
check "good: entry point ran (exit 0)" has good "^sample.entry-point pass | exit 0"
check "good: one readable output" has good "^sample.outputs pass"
check "good: shape [4, 3]" has good "^sample.shape pass | \[4, 3\]"
check "good: dtype float32" has good "^sample.dtype pass | float32"
check "good: no NaN or inf" has good "^sample.finite pass | 0 NaN, 0 infinite"
check "good: identifiers in the same order" has good "^sample.ids pass"
check "good: the comparison passes" has good "^sample.compare pass | max abs error 0"
check "good: the rule digest is recorded in sample.yaml" grep -q "rule_digest: [0-9a-f]\{64\}" "$P/kernodeck/sample.yaml"
check "good: the run is logged" sh -c "grep -q 'KD_STEP: writing' '$P'/kernodeck/logs/*-sample.log"
check "good: --quiet prints nothing on stderr for a run that passes" test ! -s "$KD_TMP/good.err"
KD_SAMPLE_MODE=good "$KD_BIN" check "$P" --stage sample >/dev/null 2>"$KD_TMP/steps.err"
check "good: without --quiet, the steps it announced are shown as they come" grep -q "^  - compute" "$KD_TMP/steps.err"

# the previous outputs are moved aside: a crash leaves nothing stale to reread
sample crash-load
check "crash in data loading: the stage fails (exit 1)" [ $? -eq 1 ]
check "crash: the previous outputs were moved under kernodeck/old-outputs" \
	sh -c "ls -d '$P'/kernodeck/old-outputs/*-outputs/embeddings.npy >/dev/null"
check "crash: the old embeddings are not reread" has crash-load "^sample.outputs fail | 0 readable, 1 missing"
check "crash: the step is read from the traceback (numpy's load)" has crash-load "^sample.entry-point fail | exit 1 in step data loading"
check "crash: the first error line and its innermost frame" \
	has crash-load "FileNotFoundError: .*No such file or directory: 'sample/no-such-file.npy' (innermost frame: File \".*numpy/lib/npyio.py\""
sample crash-compute
check "crash in user code: the step comes from KD_STEP" has crash-compute "^sample.entry-point fail | exit 1 in step compute"
check "crash in user code: the exception line" has crash-compute "RuntimeError: CUDA error: an illegal memory access was encountered (innermost frame: File \".*embed.py\", line [0-9]*, in <module>: raise RuntimeError"

sample nan
check "NaN: the stage fails" [ $? -eq 1 ]
check "NaN: finite check fails with the count" has nan "^sample.finite fail | 1 NaN, 0 infinite"
check "NaN: the comparison fails on it (NaN is never equal)" has nan "^sample.compare fail | .*1 of 12 out of tolerance | worst element s02\[2\]: output nan, reference 6"

sample shape
check "wrong shape: shape fails" has shape "^sample.shape fail | \[4, 2\]"
check "wrong shape: not compared element by element" has shape "^sample.compare fail | not compared"

sample missing-id
check "missing identifier: ids fail and name it" has missing-id "^sample.ids fail | 3 output ids for 3 rows, 4 input ids; 1 missing.*| input id \"s04\" has no output"

sample inside
check "just inside the tolerance: passes" [ $? -eq 0 ]
check "just inside: 0 out of tolerance" has inside "^sample.compare pass | .*0 of 12 out of tolerance"
sample outside
check "just outside the tolerance: fails" [ $? -eq 1 ]
check "just outside: one element, named by its identifier" \
	has outside "^sample.compare fail | .*1 of 12 out of tolerance | worst element s03\[1\]: output 8.0891, reference 8"

# the same set in another order: refused for order same, accepted for order set
sample set-order
check "reversed rows with order same: ids fail" has set-order "^sample.ids fail .*out of order"
ORDER=set ref
sample set-order
check "reversed rows with order set: passes (rows matched by id)" [ $? -eq 0 ]

# a hang: the timeout kills the entry point
ORDER=set ref
start=$(date +%s)
KD_TIMEOUT_SAMPLE=2 sample hang
took=$(( $(date +%s) - start ))
check "hang: entry point timed out (took ${took}s)" sh -c "[ $took -lt 15 ] && grep -q '^sample.entry-point fail | timed out after 2 s' '$KD_TMP/hang.rows'"

# a rule changed after a comparison was seen: a deviation, automatically
ORDER=set ref
sample good
check "before the change: passes" [ $? -eq 0 ]
ORDER=set ATOL=0.5 ref
sample good
rc=$?
check "rule changed: the rule-changed row fails with before and after" \
	has good '^sample.rule-changed fail | changed after a comparison was seen: comparison rule {.*"atol":0.001.*} -> {.*"atol":0.5'
check "rule changed: a deviation was recorded automatically" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); s=r['stages'][0]
d=[x for x in s['deviations'] if x['check']=='sample.rule-changed']
assert d and '->' in d[0]['what'] and 'automatically' in d[0]['why'], s['deviations']
assert s['status']=='deviation', s['status']" "$KD_TMP/good.json"
check "rule changed: the stage is deviation, so check exits 0" [ "$rc" -eq 0 ]
# --strict: a deviation kernodeck recorded itself, to fix, acknowledges
# nothing: it fails until a person records their own for the check
ORDER=set ATOL=0.5 ref
KD_SAMPLE_MODE=good "$KD_BIN" check "$P" --stage sample --strict --quiet >/dev/null 2>"$KD_TMP/strict.err"
rc=$?
check "--strict: the automatic deviation (to fix) fails (exit 1)" [ "$rc" -eq 1 ]
check "--strict: names the check and how a person acknowledges it" \
	grep -q "sample.rule-changed.*kernodeck recorded itself.*kernodeck deviate DIR --stage sample" "$KD_TMP/strict.err"
expect_exit 0 "a person records the deviation" "$KD_BIN" deviate "$P" --stage sample \
	--check sample.rule-changed --why "atol widened on purpose: float16 outputs"
KD_SAMPLE_MODE=good "$KD_BIN" check "$P" --stage sample --strict --quiet >/dev/null 2>"$KD_TMP/strict2.err"
rc=$?
check "--strict: once a person recorded it, the stage passes (exit 0, nothing on stderr)" \
	[ "$rc" -eq 0 -a ! -s "$KD_TMP/strict2.err" ]
