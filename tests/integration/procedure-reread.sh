#!/bin/sh
# procedure.sh rereads and compares the output by hand, without kernodeck
# (issue 17, point 2): for NPY, safetensors, CSV and JSON Lines outputs,
# the dossier's procedure.sh step 6 (its own Python, no kernodeck, no
# numpy) passes on an output that agrees with the reference and exits
# non-zero, naming the difference, on one that does not.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck" "$P/sample" "$P/reference"
git_project "$P" >/dev/null 2>&1
$PY -m venv --without-pip "$P/.venv-rebuild"
printf 'a\nb\nc\n' >"$P/sample/ids.txt"
cat >"$P/app.py" <<'PYEOF'
import json, os, struct, sys
bad = os.environ.get("KD_SAMPLE_MODE", "good") != "good"
os.makedirs("out", exist_ok=True)
with open("out/preds.csv", "w") as f:
    f.write("id,score,label\n")
    f.write("c,0.25,dog\nb,%s,cat\na,0.125,cat\n" % ("0.5001" if bad else "0.5"))
with open("out/emb.jsonl", "w") as f:
    for i, k in enumerate("abc"):
        v = [-2.0, 2.0, 0.5] if bad and k == "b" else [1.0 + i, 2.0, 3.0]
        f.write(json.dumps({"id": k, "emb": v}) + "\n")
rows = [[1, 2, 3], [4, 5, 6], [7, 8, 10 if bad else 9]]
data = b"".join(struct.pack("<3f", *r) for r in rows)
h = json.dumps({"emb": {"dtype": "F32", "shape": [3, 3], "data_offsets": [0, len(data)]},
                "__metadata__": {"format": "pt"}}).encode()
open("out/emb.safetensors", "wb").write(struct.pack("<Q", len(h)) + h + data)
hd = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }"
hd += " " * (118 - len(hd)) + "\n"
vals = [x + (1e-3 if bad and n == 4 else 0) for n, x in enumerate(v for r in rows for v in r)]
open("out/emb.npy", "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hd)) +
                                hd.encode() + struct.pack("<9d", *vals))
PYEOF
(cd "$P" && $PY app.py && cp out/emb.safetensors reference/expected.safetensors &&
	cp out/emb.npy reference/expected.npy && rm -r out)
printf 'id,score,label\na,0.125,cat\nb,0.5,cat\nc,0.25,dog\n' >"$P/reference/expected.csv"
printf '{"id": "a", "emb": [1.0, 2.0, 3.0]}\n{"id": "b", "emb": [2.0, 2.0, 3.0]}\n{"id": "c", "emb": [3.0, 2.0, 3.0]}\n' \
	>"$P/reference/expected.jsonl"

ref() { # format file idspec rule shape dtype
	cat >"$P/kernodeck/reference.yaml" <<YEOF
schema: 1
code:
  entry_point: [python, app.py]
result:
  format: $1
  outputs: out
  files: [$2]
  count: 1
  shape: $5
  dtype: $6
  finite: true
  ids:
    $3
    reference: sample/ids.txt
    order: set
  rule: $4
  example:
    path: reference/expected.${2#*.}
YEOF
}
# reread NAME MODE: write the outputs, then run procedure.sh's step 6 alone
reread() {
	rm -rf "$P/out" "$P/kernodeck/dossier"
	"$KD_BIN" dossier "$P" >"$KD_TMP/$1.dossier" 2>&1
	if ! [ -f "$P/kernodeck/dossier/procedure.sh" ]; then
		echo "# no procedure.sh:"; sed 's/^/#   /' "$KD_TMP/$1.dossier" | head -n 5
		return 99
	fi
	(cd "$P" && KD_SAMPLE_MODE=$2 $PY app.py)
	{
		echo 'set -euo pipefail; step() { printf "\n== %s\n" "$*"; }'
		sed -n '/^step "6\./,/^KD_REREAD$/p' "$P/kernodeck/dossier/procedure.sh"
	} >"$KD_TMP/$1.sh"
	(cd "$P" && PATH=/usr/bin:/bin bash "$KD_TMP/$1.sh") >"$KD_TMP/$1.out" 2>&1
}
for f in npy safetensors csv jsonl; do
	case $f in
	npy) ref npy emb.npy "file: sample/ids.txt" "{kind: tolerance, atol: 1.0e-6, rtol: 0}" "[3, 3]" float64
		want="2 values out of tolerance" ;;
	safetensors) ref safetensors emb.safetensors "file: sample/ids.txt" "{kind: exact}" "[null, 3]" float32
		want="1 values differ" ;;
	csv) ref csv preds.csv "column: id" "{kind: tolerance, atol: 1.0e-9, rtol: 0}" "[3, 2]" mixed
		want="1 values out of tolerance" ;;
	jsonl) ref jsonl emb.jsonl "key: id" "{kind: metric, metric: cosine-min, threshold: 0.98}" "[3, 3]" float64
		want="smallest cosine similarity .* below the threshold 0.98" ;;
	esac
	reread "$f-good" good
	r=$?
	if [ $r -eq 0 ] && grep -q "reread: the output agrees with the reference" "$KD_TMP/$f-good.out"; then
		ok "procedure.sh rereads $f by hand: the agreeing output passes"
	else
		notok "procedure.sh rereads $f by hand: the agreeing output passes (exit $r)"
		sed 's/^/#   /' "$KD_TMP/$f-good.out" | tail -n 5
	fi
	reread "$f-bad" bad
	r=$?
	if [ $r -ne 0 ] && [ $r -ne 99 ] && grep -q "reread: .*$want" "$KD_TMP/$f-bad.out"; then
		ok "procedure.sh rereads $f by hand: a difference exits $r, named"
	else
		notok "procedure.sh rereads $f by hand: a difference exits non-zero, named (exit $r)"
		sed 's/^/#   /' "$KD_TMP/$f-bad.out" | tail -n 5
	fi
	check "procedure.sh does not run kernodeck for $f" sh -c "! grep -q 'kernodeck check' '$P/kernodeck/dossier/procedure.sh'"
done

# the file the reference names is missing: the folder's files are named
ref csv loss.csv "column: id" "{kind: exact}" "[3, 2]" mixed
reread missing good
check "a missing output names what was written instead" grep -q "reread: .*out/loss.csv is missing (the folder holds: emb.jsonl, emb.npy, emb.safetensors, preds.csv)" "$KD_TMP/missing.out"
