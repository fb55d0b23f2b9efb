# diff-paste.sh - kernodeck diff with a colleague's paste on either side: two
# real collect_env reports that differ in PyTorch and CUDA, a paste against a
# dossier, a pip freeze against a dossier, a paste against this machine (the
# project's last observations, or stage 2 observed now), and what is not a
# paste.  A value is compared only when both sides hold it; a partial list of
# packages (collect_env's) says nothing of what it does not name.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
CE="$KD_SRCDIR/tests/fixtures/collect_env"
SMI="$KD_SRCDIR/tests/fixtures/nvidia_smi"
DOS="$KD_SRCDIR/tests/fixtures/dossiers"

# json FILE EXPR: the Python expression (d is the JSON) is true
json() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$@"; }
keys() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(e["key"] for l in d["layers"].values() for e in l))' "$1"; }

# 1. two real collect_env pastes: PyTorch and the CUDA it was built with
"$KD_BIN" diff "$CE/real-07.txt" "$CE/real-20.txt" --format json >"$KD_TMP/ce.json"
check "two collect_env pastes that differ: exit 1" test $? -eq 1
check "the PyTorch versions named (2.6.0+cu124 -> 2.0.1+cu117)" json "$KD_TMP/ce.json" \
	'any(e["key"]=="torch" and e["a"]=="2.6.0+cu124" and e["b"]=="2.0.1+cu117" for e in d["layers"]["backend"])'
check "the CUDA builds named (12.4 -> 11.7)" json "$KD_TMP/ce.json" \
	'any(e["key"]=="torch_cuda" and e["a"]=="12.4" and e["b"]=="11.7" for e in d["layers"]["backend"])'
check "the GPUs and the driver named in the system layer" json "$KD_TMP/ce.json" \
	'{"gpu_count","driver"} <= {e["key"] for e in d["layers"]["system"]}'
"$KD_BIN" diff "$CE/real-07.txt" "$CE/real-20.txt" >"$KD_TMP/ce.txt"
check "text: one line per difference, the layers not compared said" \
	sh -c 'grep -q "^  torch: 2.6.0+cu124 -> 2.0.1+cu117$" "$1" && grep -q "^not compared:" "$1" && grep -q "cuda_driver (not said by both)" "$1"' sh "$KD_TMP/ce.txt"
expect_exit 0 "a paste against itself: no difference (exit 0)" "$KD_BIN" diff "$CE/real-07.txt" "$CE/real-07.txt"

# 2. an nvidia-smi paste against a dossier: only the system layer compared
"$KD_BIN" diff "$SMI/rtx4070-550.txt" "$DOS/new-machine" --format json >"$KD_TMP/smi.json"
check "nvidia-smi paste vs dossier: exit 1" test $? -eq 1
check "the GPU named (RTX 4070 -> RTX 3090)" json "$KD_TMP/smi.json" \
	'd["layers"]["system"]==[{"key":"gpus","a":["NVIDIA GeForce RTX 4070"],"b":["NVIDIA GeForce RTX 3090"]}]'
check "backend and python said not compared (only the dossier holds them)" json "$KD_TMP/smi.json" \
	'"backend: only b holds it" in d["not_compared"] and "python: only b holds it" in d["not_compared"] and set(d["layers"])=={"system"}'
sed 's/NVIDIA GeForce \.\.\.  Off/NVIDIA GeForce RTX 4080  Off/' "$SMI/real-01-470-processes.txt" >"$KD_TMP/full.txt"
check "a name nvidia-smi cut (\"NVIDIA GeForce ...\") agrees with the whole name" \
	sh -c '"$1" diff "$2" "$3" >/dev/null' sh "$KD_BIN" "$SMI/real-01-470-processes.txt" "$KD_TMP/full.txt"
sed 's/NVIDIA GeForce \.\.\.  Off/Quadro RTX 5000  Off/' "$SMI/real-01-470-processes.txt" >"$KD_TMP/other.txt"
check "and not with another GPU" sh -c '"$1" diff "$2" "$3" | grep -q "^  gpus: "' sh "$KD_BIN" "$SMI/real-01-470-processes.txt" "$KD_TMP/other.txt"

# 3. collect_env's partial package list against a dossier's whole inventory
"$KD_BIN" diff "$DOS/reference-machine" "$CE/real-01.txt" --format json >"$KD_TMP/part.json"
k=$(keys "$KD_TMP/part.json")
check "collect_env's own packages compared (numpy, torch)" \
	sh -c 'case " $1 " in *" packages.numpy "*) ;; *) exit 1;; esac; case " $1 " in *" packages.torch "*) exit 0;; esac; exit 1' sh "$k"
check "packages collect_env does not name are not called missing" \
	sh -c 'case " $1 " in *" packages.argcomplete "*) exit 1;; esac; exit 0' sh "$k"

# 4. a pip freeze paste is a whole inventory
cat >"$KD_TMP/freeze.txt" <<'FZ'
$ pip freeze
numpy==1.24.2
torch==1.13.0a0+gitunknown
kd-only-here==2.31.0
FZ
"$KD_BIN" diff "$KD_TMP/freeze.txt" "$DOS/reference-machine" --format json >"$KD_TMP/fz.json"
check "freeze vs dossier: an extra package on the paste's side named" json "$KD_TMP/fz.json" \
	'any(e["key"]=="packages.kd-only-here" and e["a"]=="2.31.0" and e["b"] is None for e in d["layers"]["python"])'
check "freeze vs dossier: equal versions are no difference, the system not compared" json "$KD_TMP/fz.json" \
	'not any(e["key"] in ("packages.numpy","packages.torch") for e in d["layers"]["python"]) and "system: only b holds it" in d["not_compared"]'

# a capture (`kernodeck check --format yaml`): no kind, the packages in the
# contract stage's observations, as diff-layers builds one
"$PY" - "$DOS/reference-machine/dossier.yaml" "$KD_TMP/capture.yaml" <<'PYEOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
pk = d.pop("inventory", {}).get("packages", [])
d.pop("kind", None)
for st in d["stages"]:
    if st["id"] == "contract":
        st.setdefault("observations", {})["inventory"] = {"packages": pk}
yaml.safe_dump(d, open(sys.argv[2], "w"))
PYEOF
"$KD_BIN" diff "$KD_TMP/freeze.txt" "$KD_TMP/capture.yaml" --format json >"$KD_TMP/cap.json"
check "freeze vs a capture: read as a capture, its contract's packages compared" json "$KD_TMP/cap.json" \
	'd["b_kind"]=="capture" and any(e["key"]=="packages.kd-only-here" for e in d["layers"]["python"]) and not any(e["key"]=="packages.numpy" for e in d["layers"]["python"])'

# 5. one argument: the paste against this machine
mkdir -p "$KD_TMP/empty" "$KD_TMP/proj/kernodeck"
(cd "$KD_TMP/empty" && "$KD_BIN" diff "$SMI/rtx4070-550.txt" --format json) >"$KD_TMP/now.json"
r=$?
if [ -e /dev/nvidia0 ]; then
	skip "this machine observed now: it has an NVIDIA device" "$KD_TMP/now.json"
else
	check "paste vs this machine, observed now (no GPU here): exit 1, the GPU count named" \
		sh -c '[ "$1" -eq 1 ] && "$2" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"b\"]==\"this machine (observed now)\" and any(e[\"key\"]==\"gpu_count\" and e[\"b\"]==0 for e in d[\"layers\"][\"system\"]) else 1)" "$3"' \
		sh "$r" "$PY" "$KD_TMP/now.json"
fi
"$PY" - "$DOS/new-machine/dossier.yaml" "$KD_TMP/proj/kernodeck/system.yaml" <<'PYEOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
st = d["stages"]
s = st["system"] if isinstance(st, dict) else [x for x in st if x.get("id") == "system"][0]
yaml.safe_dump(s["observations"], open(sys.argv[2], "w"))
PYEOF
(cd "$KD_TMP/proj" && "$KD_BIN" diff "$SMI/rtx4070-550.txt" --format json) >"$KD_TMP/proj.json"
check "paste vs the project's last system.yaml: named as such, its GPU compared" json "$KD_TMP/proj.json" \
	'd["b"]=="this machine (kernodeck/system.yaml)" and d["layers"]["system"][0]["b"]==["NVIDIA GeForce RTX 3090"]'

# 6. what is not a paste
printf 'hello\nworld\n' >"$KD_TMP/hello.txt"
"$KD_BIN" diff "$KD_TMP/hello.txt" "$DOS/new-machine" 2>"$KD_TMP/err"
check "a text that is no paste: exit 2, the file and the kinds named" \
	sh -c '[ "$1" -eq 2 ] && grep -q "hello.txt.*neither a dossier, a capture, a collect_env report, an nvidia-smi output nor a pip freeze" "$2"' sh $? "$KD_TMP/err"
printf 'stages: [\n' >"$KD_TMP/bad.yaml"
expect_exit 2 "a broken YAML is reported as a dossier's error, not read as a paste" \
	"$KD_BIN" diff "$KD_TMP/bad.yaml" "$DOS/new-machine"

