# kd-test: long (started first: see tests/run-all.sh)
# diff-explain.sh - kernodeck diff without noise, and why a result differs
# (issue 29): two dossiers of the same project made in two folders on the
# same machine (one checked twice: digests from the cache, outputs moved
# aside) differ in nothing but --all fields; a second machine whose results
# moved in the last bits: the tensor compared element by element, the
# trajectory named at the step where it parts, counters without a relative
# difference, the element that names "worst" compared whole, and the other
# layers' differences ranked, a run-changing variable first.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_NO_INDEX PIP_CONFIG_FILE

"$KD_BIN" demo "$KD_TMP/src" --create-only >/dev/null 2>&1
for x in one two; do
	git clone -q "$KD_TMP/src" "$KD_TMP/$x"
	mkdir -p "$KD_TMP/$x/kernodeck"
	cp "$KD_TMP/src/kernodeck/reference.yaml" "$KD_TMP/$x/kernodeck/"
done
"$KD_BIN" check "$KD_TMP/one" --quiet >"$KD_TMP/one.out" 2>&1
r1=$?
"$KD_BIN" check "$KD_TMP/two" --quiet >"$KD_TMP/two.out" 2>&1
"$KD_BIN" check "$KD_TMP/two" --quiet >"$KD_TMP/two2.out" 2>&1
r2=$?
check "the same project checked in two folders (the second twice): both pass" \
	sh -c '[ "$1" -eq 0 ] && [ "$2" -eq 0 ]' sh "$r1" "$r2"
A="$KD_TMP/one/kernodeck/dossier"
B="$KD_TMP/two/kernodeck/dossier"
"$KD_BIN" diff "$A" "$B" >"$KD_TMP/same.txt"
r=$?
check "same project, two folders: no difference (exit 0)" [ "$r" -eq 0 ]
check "same project, two folders: no line of noise (cache, moved aside, times)" \
	sh -c '! grep -q "^  " "$1"' sh "$KD_TMP/same.txt"
sed 's/^/#   /' "$KD_TMP/same.txt" | grep '^#     ' || true
expect_exit 1 "same project, two folders: --all shows what only reflects the runs" \
	"$KD_BIN" diff "$A" "$B" --all

# "machine B": the same dossier with its results moved in the last bits,
# two run-changing variables set, a counter and the worst element changed
cp -a "$B" "$KD_TMP/mb"
"$PY" - "$KD_TMP/mb" "$A" <<'PYEOF'
import glob, json, os, sys, yaml, numpy as np
mb, a = sys.argv[1], sys.argv[2]
p = sorted(glob.glob(os.path.join(mb, "outputs/*.npy")))[0]
t = np.load(p); t.flat[3] += 2e-7; t.flat[7] += 5e-7; np.save(p, t)
steps = [{"step": s, "loss": 1.0 / s, "lr": 0.1} for s in range(1, 31)]
with open(os.path.join(a, "outputs/metrics.jsonl"), "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in steps)
for r in steps:
    if r["step"] >= 14:
        r["loss"] += 2.4e-7 * (1 if r["step"] < 25 else 3)
with open(os.path.join(mb, "outputs/metrics.jsonl"), "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in steps)
d = yaml.safe_load(open(os.path.join(mb, "dossier.yaml")))
for s in d["stages"]:
    o = s.get("observations") or {}
    if s["id"] == "system":
        o.setdefault("env", {})["ATEN_CPU_CAPABILITY"] = "default"
        o["env"]["MKL_NUM_THREADS"] = "3"
    if s["id"] == "sample":
        o["comparison"]["compared"] += 1
        w = o["comparison"].setdefault("worst", {"element": "h01[0]", "out": 0.5})
        w["element"] = "h02[1]"
        w["out"] = 0.25
yaml.safe_dump(d, open(os.path.join(mb, "dossier.yaml"), "w"))
PYEOF
"$KD_BIN" diff "$A" "$KD_TMP/mb" --format json >"$KD_TMP/mb.json"
check "machine B: exit 1" test $? -eq 1
"$KD_BIN" diff "$A" "$KD_TMP/mb" >"$KD_TMP/mb.txt"
sed 's/^/#   /' "$KD_TMP/mb.txt"
j() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); R=d["layers"]["result"]; sys.exit(0 if eval(sys.argv[2]) else 1)' "$KD_TMP/mb.json" "$1"; }
check "the tensor: 2 of its elements differ bit for bit, the largest named" \
	j 'any(e["change"]=="tensor" and e["differing"]==2 and e["largest_at"]==7 for e in R)'
check "the tensor: also compared under the declared rule (within it: passes)" \
	j 'any(e["change"]=="tensor" and e["rule"]=={"pass": True, "mismatched": 0, "max_abs": e["rule"]["max_abs"]} and e["rule"]["max_abs"] > 0 for e in R)'
check "text: the tensor's line says how many elements are outside the rule" \
	grep -q "elements differ bit for bit; largest difference .* under the declared rule: 0 outside it (passes)" "$KD_TMP/mb.txt"
check "the trajectory: parts at step 14 on loss, largest difference at step 25" \
	j 'any(e["change"]=="trajectory" and e["first_step"]==14 and e["first_key"]=="loss" and e["largest_step"]==25 for e in R)'
check "text: the trajectory's values printed with the digits that differ" \
	grep -q "parts at step 14 (loss: 0.0714286 -> 0.0714288); largest difference 7.2e-07 at step 25 (loss)" "$KD_TMP/mb.txt"
check "a counter changed has no relative difference" \
	j 'any(e["key"]=="comparison.compared" and "relative" not in e for e in R)'
check "the worst element compared whole (element and value together)" \
	j 'any(e["key"]=="comparison.worst" and e["b"]["element"]=="h02[1]" for e in R) and not any(e["key"].startswith("comparison.worst.") for e in R)'
check "explanation: the run-changing variables ranked first, with why" \
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["explanation"]["candidates"]; sys.exit(0 if [x["key"] for x in c[:2]]==["env.ATEN_CPU_CAPABILITY","env.MKL_NUM_THREADS"] and c[0]["rank"]==1 and "kernels" in c[0]["why"] else 1)' "$KD_TMP/mb.json"
check "text: the explanation says only one layer at a time can tell" \
	grep -q "only rerunning with one layer changed at a time can tell" "$KD_TMP/mb.txt"
expect_exit 0 "a dossier against itself: still no difference" "$KD_BIN" diff "$A" "$A"

# The training demo on "machine B": ATEN_CPU_CAPABILITY=default makes
# PyTorch use its plain CPU kernels, and the trained numbers move in the
# last bits where this CPU has vector units.
"$KD_BIN" demo "$KD_TMP/tsrc" --training --create-only >/dev/null 2>&1
for x in ta tb; do
	git clone -q "$KD_TMP/tsrc" "$KD_TMP/$x"
	mkdir -p "$KD_TMP/$x/kernodeck"
	cp "$KD_TMP/tsrc/kernodeck/reference.yaml" "$KD_TMP/$x/kernodeck/"
done
env -u ATEN_CPU_CAPABILITY "$KD_BIN" check "$KD_TMP/ta" --quiet >"$KD_TMP/ta.out" 2>&1
# and a second variable of the allow-list that changes nothing on the CPU
ATEN_CPU_CAPABILITY=default CUDA_VISIBLE_DEVICES= "$KD_BIN" check "$KD_TMP/tb" --quiet >"$KD_TMP/tb.out" 2>&1
"$KD_BIN" diff "$KD_TMP/ta/kernodeck/dossier" "$KD_TMP/tb/kernodeck/dossier" --format json >"$KD_TMP/t.json"
r=$?
"$KD_BIN" diff "$KD_TMP/ta/kernodeck/dossier" "$KD_TMP/tb/kernodeck/dossier" | sed 's/^/#   /'
if ! grep -q '"trajectory"' "$KD_TMP/t.json"; then
	skip "training demo, ATEN_CPU_CAPABILITY=default: the first diverging step named" \
		"this CPU gives the same bits with the plain kernels"
	skip "training demo: the variable ranked first" "same"
	skip "bisect: the one variable that differs named" "same"
	skip "bisect: of two variables, only the one that matters named" "same"
else
	check "training demo, ATEN_CPU_CAPABILITY=default: the first diverging step named" \
		"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any(e["change"]=="trajectory" and e["first_step"]>=1 and e["first_key"]=="loss" for e in d["layers"]["result"]) else 1)' "$KD_TMP/t.json"
	check "training demo: the variable ranked first" \
		"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["explanation"]["candidates"]; sys.exit(0 if c and c[0]["key"]=="env.ATEN_CPU_CAPABILITY" else 1)' "$KD_TMP/t.json"
fi
check "training demo: the resume check's plot points are no differences" \
	sh -c '! grep -q "resume.plot" "$1"' sh "$KD_TMP/t.json"

# kernodeck bisect (issue 29, point 4) on the same two runs: in project ta,
# the dossier of "machine B" (tb).  With CUDA_VISIBLE_DEVICES set as B has
# it, one variable differs and the env layer makes the difference vanish;
# without, two differ and halving names the one that matters.
TB="$KD_TMP/tb/kernodeck/dossier"
if grep -q '"trajectory"' "$KD_TMP/t.json"; then
	env -u ATEN_CPU_CAPABILITY CUDA_VISIBLE_DEVICES= "$KD_BIN" bisect "$TB" "$KD_TMP/ta" \
		--layers env,settings --format json >"$KD_TMP/b1.json" 2>"$KD_TMP/b1.err"
	r=$?
	sed 's/^/#   /' "$KD_TMP/b1.err" | head -20
	check "bisect, one variable differs: exit 0 (explained)" test "$r" -eq 0
	check "bisect: the one variable that differs named" "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); L={l["layer"]: l for l in d["layers"]}; sys.exit(0 if L["here"]["outcome"]=="differs" and L["env"]["outcome"]=="vanishes" and d["explained_by"]==[{"layer":"env","variables":["ATEN_CPU_CAPABILITY"]}] else 1)' "$KD_TMP/b1.json"
	check "bisect: the plan (the vector, the variable set) is shown before the first run" \
		"$PY" -c 'import sys; t=open(sys.argv[1]).read(); p=t.find("set ATEN_CPU_CAPABILITY=default"); r=t.find("run 01-here"); sys.exit(0 if 0 <= p < r and "train.py --steps 40 --out outputs" in t[:r] else 1)' "$KD_TMP/b1.err"
	check "bisect: the settings layer says why it did not run" "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); L={l["layer"]: l for l in d["layers"]}; sys.exit(0 if L["settings"]["outcome"]=="not run" and "settings" in L["settings"]["why"] else 1)' "$KD_TMP/b1.json"
	env -u ATEN_CPU_CAPABILITY -u CUDA_VISIBLE_DEVICES "$KD_BIN" bisect "$TB" "$KD_TMP/ta" \
		--layers env >"$KD_TMP/b2.txt" 2>"$KD_TMP/b2.err"
	r=$?
	sed 's/^/#   /' "$KD_TMP/b2.txt"
	check "bisect, two variables differ: exit 0" test "$r" -eq 0
	check "bisect: of two variables, only the one that matters named" \
		grep -qx "explained by env: ATEN_CPU_CAPABILITY" "$KD_TMP/b2.txt"
	check "bisect: each run in its own folder under kernodeck/bisect/, with a log" \
		sh -c '[ -d "$1/kernodeck/bisect/01-here/work/outputs" ] && [ -d "$1/kernodeck/bisect/02-env/work/outputs" ] && ls "$1"/kernodeck/logs/*-bisect.log >/dev/null' sh "$KD_TMP/ta"
	check "bisect: the report kept in kernodeck/bisect/bisect.yaml" \
		grep -q "ATEN_CPU_CAPABILITY" "$KD_TMP/ta/kernodeck/bisect/bisect.yaml"
	"$KD_BIN" dossier "$KD_TMP/ta" >/dev/null 2>&1
	check "the dossier includes bisect.yaml, not the runs' copies" \
		sh -c '[ -f "$1/kernodeck/bisect/bisect.yaml" ] && ! [ -e "$1/kernodeck/bisect/01-here" ]' sh "$KD_TMP/ta/kernodeck/dossier"
fi
