#!/bin/sh
# Stage 6 on the other output formats: CSV with an identifier column in
# another order than the input (order: set), JSON Lines with an embedding
# per line under a cosine-similarity metric, safetensors with a named
# tensor; and `kernodeck inspect npy|safetensors`.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck" "$P/sample" "$P/reference"
$PY -m venv --without-pip "$P/.venv-rebuild"
printf 'a\nb\nc\n' >"$P/sample/ids.txt"
cat >"$P/app.py" <<'PYEOF'
import json, os, struct, sys
mode = os.environ.get("KD_SAMPLE_MODE", "good")
os.makedirs("out", exist_ok=True)
with open("out/preds.csv", "w") as f:
    f.write("id,score,label\n")
    f.write("c,0.25,dog\nb,0.5,%s\na,0.125,cat\n" % ("cat" if mode == "good" else "bird"))
with open("out/emb.jsonl", "w") as f:
    for i, k in enumerate("abc"):
        v = [1.0 + i, 2.0, 3.0]
        if mode != "good" and k == "b":
            v = [-2.0, 2.0, 0.5]
        f.write(json.dumps({"id": k, "emb": v}) + "\n")
def st(path, name, rows):
    data = b"".join(struct.pack("<3f", *r) for r in rows)
    h = json.dumps({name: {"dtype": "F32", "shape": [len(rows), 3], "data_offsets": [0, len(data)]},
                    "__metadata__": {"format": "pt"}}).encode()
    open(path, "wb").write(struct.pack("<Q", len(h)) + h + data)
st("out/emb.safetensors", "emb", [[1, 2, 3], [4, 5, 6], [7, 8, 9 if mode == "good" else 10]])
PYEOF
cat >"$P/reference/expected.csv" <<'CSVEOF'
id,score,label
a,0.125,cat
b,0.5,cat
c,0.25,dog
CSVEOF
printf '{"id": "a", "emb": [1.0, 2.0, 3.0]}\n{"id": "b", "emb": [2.0, 2.0, 3.0]}\n{"id": "c", "emb": [3.0, 2.0, 3.0]}\n' \
	>"$P/reference/expected.jsonl"
(cd "$P" && KD_SAMPLE_MODE=good $PY app.py && cp out/emb.safetensors reference/expected.safetensors && rm -r out)

ref() { # format file idspec rule
	cat >"$P/kernodeck/reference.yaml" <<YEOF
schema: 1
code:
  entry_point: [python, app.py]
result:
  format: $1
  outputs: out
  files: [$2]
  count: 1
  ids:
    $3
    reference: sample/ids.txt
    order: set
  rule: $4
  example:
    path: reference/expected.${2#*.}
YEOF
}
rows() { $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))
for x in r['stages'][0]['rows']:
    print(x['id'], x['status'], '|', x.get('observed',''), '|', x.get('first_error',''))" "$1"; }
sample() { # name mode
	KD_SAMPLE_MODE=$2 "$KD_BIN" check "$P" --stage sample --quiet --format json >"$KD_TMP/$1.json" 2>/dev/null
	r=$?
	rows "$KD_TMP/$1.json" >"$KD_TMP/$1.rows"
	return $r
}
has() { grep -q "$2" "$KD_TMP/$1.rows"; }

ref csv preds.csv "column: id" "{kind: tolerance, atol: 1.0e-9, rtol: 0}"
sample csv-good good
check "CSV: rows matched by the id column in another order pass" [ $? -eq 0 ]
check "CSV: ids checked as a set" has csv-good "^sample.ids pass | 3 output ids for 3 rows, 3 input ids; 0 missing, 0 extra, 0 duplicated | "
check "CSV: shape counts value columns (the id column is apart)" has csv-good "^sample.shape warn | \[3, 2\]"
sample csv-bad bad
check "CSV: a changed category fails" [ $? -eq 1 ]
check "CSV: the worst element is named by id and column" has csv-bad "worst element b, label: output bird, reference cat"

ref jsonl emb.jsonl "key: id" "{kind: metric, metric: cosine-min, threshold: 0.98}"
sample jsonl-good good
check "JSON Lines: cosine similarity per row above the threshold" has jsonl-good "^sample.compare pass | metric 1 (worst row "
sample jsonl-bad bad
check "JSON Lines: a row turned away fails, named by its id" has jsonl-bad "^sample.compare fail | metric .*(worst row b)"

ref safetensors emb.safetensors "file: sample/ids.txt" "{kind: exact}"
sample st-good good
check "safetensors: exact equality passes" has st-good "^sample.compare pass"
sample st-bad bad
check "safetensors: one element differs" has st-bad "^sample.compare fail | .*1 of 9 out of tolerance | worst element c\[2\]: output 10, reference 9"

# the rule must be declared: no default tolerance
ref safetensors emb.safetensors "file: sample/ids.txt" "{kind: tolerance}"
sample st-norule good
check "a tolerance without atol/rtol is refused, not defaulted" has st-norule "^sample.compare fail | not compared | a tolerance rule needs atol and/or rtol: there is no default"

# inspect
if "$KD_BIN" inspect npy /dev/null 2>&1 | grep -q 'unknown kind'; then
	skip "inspect npy" "the inspect table does not list npy yet"
	skip "inspect safetensors" "the inspect table does not list safetensors yet"
else
	"$KD_BIN" inspect npy "$KD_SRCDIR/tests/fixtures/npy/f8-be-fortran.npy" --format json >"$KD_TMP/i.json"
	check "inspect npy: header and statistics" $PY -c "
import json,sys; o=json.load(open(sys.argv[1]))
assert o['header']['dtype']=='float64' and o['header']['byte_order']=='big' and o['header']['fortran_order']
assert o['stats']['count']==12 and o['stats']['max']==11 and o['stats']['nan']==0" "$KD_TMP/i.json"
	expect_exit 2 "inspect npy: a truncated file is an input error" \
		"$KD_BIN" inspect npy "$KD_SRCDIR/tests/fixtures/npy/bad-truncated.npy"
	"$KD_BIN" inspect safetensors "$P/reference/expected.safetensors" --format json >"$KD_TMP/s.json"
	check "inspect safetensors: tensors and metadata" $PY -c "
import json,sys; o=json.load(open(sys.argv[1])); t=o['tensors'][0]
assert t['name']=='emb' and t['shape']==[3,3] and t['stats']['max']==9 and o['metadata']['format']=='pt'" "$KD_TMP/s.json"
fi
