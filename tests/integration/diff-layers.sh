# diff-layers.sh - kernodeck diff on two dossiers that differ in five known
# ways (a package version, a local label, the GPU, a sample metric, a
# deviation): each is reported in its layer, and nothing else.  Then the
# five layers of the dossier README (issue 17, point 4): code, data and
# weights, Python and packages, system and backend, result; numbers that
# print the same are no difference; times only with --all.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
A="$KD_SRCDIR/tests/fixtures/dossiers/reference-machine"
B="$KD_SRCDIR/tests/fixtures/dossiers/new-machine"

expect_exit 0 "a dossier against itself: no difference (exit 0)" "$KD_BIN" diff "$A" "$A/dossier.yaml"
"$KD_BIN" diff "$A" "$B" --format json >"$KD_TMP/d.json"
r=$?
check "two machines: exit 1" test "$r" -eq 1

# one assertion per layer, in Python for the JSON
layer() { "$PY" - "$KD_TMP/d.json" "$@" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
L = d["layers"]
what = sys.argv[2]
if what == "inventory":
    got = sorted((e["key"], e["change"], e["a"], e["b"]) for e in L["python"])
    want = [("numpy", "version", "1.24.2", "1.26.4"),
            ("torch", "local-label", "1.13.0a0+gitunknown", "1.13.0a0+cu117")]
    sys.exit(0 if got == want else "inventory: %s" % got)
if what == "system":
    keys = [e["key"] for e in L["system"] if not e["key"].startswith("probe.")]
    ok = keys and all("gpu" in k for k in keys) and \
        any(e["b"] == "NVIDIA GeForce RTX 3090" for e in L["system"]) and \
        any(e["key"] == "gpu_vendor" and e["b"] == "nvidia" for e in L["system"])
    sys.exit(0 if ok else "system: %s" % keys)
if what == "sample":
    got = [(e["key"], e["b"]) for e in L["result"]]
    sys.exit(0 if got == [("comparison.max_abs_error", 4.1e-07)] else "sample: %s" % got)
if what == "deviations":
    got = [(e["key"], e["change"]) for e in L["deviations"]]
    sys.exit(0 if got == [("compute/compute.backend", "added")] else "deviations: %s" % got)
if what == "probe":
    p = [e for e in L["system"] if e["key"].startswith("probe.")]
    sys.exit(0 if p == [] and L["code"] == [] and L["data"] == [] else "probe: %s" % p)
if what == "total":
    n = sum(len(v) for v in L.values())
    sys.exit(0 if n == d["differences"] else "total %d != %d" % (n, d["differences"]))
PYEOF
}
check "inventory: the version and the local label, nothing else" layer inventory
check "system: the GPU, nothing else" layer system
check "sample: the metric, nothing else" layer sample
check "deviations: the one recorded" layer deviations
check "probe, code, data: no difference" layer probe
check "the count is the sum of the layers" layer total

"$KD_BIN" diff "$A" "$B" >"$KD_TMP/d.txt"
check "text: the local label change is named" grep -q "local-label torch: 1.13.0a0+gitunknown -> 1.13.0a0+cu117" "$KD_TMP/d.txt"
check "text: layers without difference say so" grep -q "^code: no difference" "$KD_TMP/d.txt"
check "text: a changed number carries its relative difference" grep -q "max_abs_error: 9.28074e-08 -> 4.1e-07 (relative difference 3.42)" "$KD_TMP/d.txt"

# the five layers: a copy of A changed in each, and in what is no difference
"$PY" - "$A/dossier.yaml" "$KD_TMP/c" <<'PYEOF'
import os, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
os.makedirs(sys.argv[2] + "/a"); os.makedirs(sys.argv[2] + "/b")
st = {s["id"]: s for s in d["stages"]}
st["reference"]["observations"] = {"checked_at": "2026-11-29T10:00:00Z", "code": {
    "commit": d["code"]["commit"], "dirty": [], "remote": None},
    "files": {"weights": {"sha256": "a" * 64, "size": 1000}}}
d["data"] = {"data": [{"name": "weights", "path": "w.bin", "sha256": "a" * 64, "size": 1000,
                       "version": "v1"}]}
d["stages"][1]["observations"]["env"] = {"OMP_NUM_THREADS": "4"}
yaml.safe_dump(d, open(sys.argv[2] + "/a/dossier.yaml", "w"))
d["code"]["commit"] = "0" * 40
d["code"]["remote"] = "https://example.org/x.git"
st["reference"]["observations"]["checked_at"] = "2026-11-30T10:00:00Z"
st["reference"]["observations"]["code"]["dirty"] = ["train.py"]
st["reference"]["observations"]["code"]["commit"] = "0" * 40
d["stages"][1]["observations"]["observed_at"] = "2026-11-30 10:00:00+00:00"
st["reference"]["observations"]["files"]["weights"] = {"sha256": "b" * 64, "size": 1001}
d["data"]["data"][0]["version"] = "v2"
d["interpreter"] = "/opt/py/bin/python3"
d["stages"][1]["observations"]["env"] = {"OMP_NUM_THREADS": "8"}
c = st["sample"]["observations"]["comparison"]
c["max_abs_error"] = float("%.17g" % (c["max_abs_error"] * (1 + 1e-12)))
yaml.safe_dump(d, open(sys.argv[2] + "/b/dossier.yaml", "w"))
PYEOF
"$KD_BIN" diff "$KD_TMP/c/a" "$KD_TMP/c/b" --format json >"$KD_TMP/c.json"
"$KD_BIN" diff "$KD_TMP/c/a" "$KD_TMP/c/b" --format json --all >"$KD_TMP/call.json"
five() { "$PY" - "$KD_TMP/c.json" "$KD_TMP/call.json" "$1" <<'PYEOF'
import json, sys
L = json.load(open(sys.argv[1]))["layers"]
A = json.load(open(sys.argv[2]))["layers"]
k = lambda n: sorted(e["key"] for e in L[n])
want = {
 "code": ["commit", "observed.commit", "observed.dirty[0]", "remote"],
 "data": ["data[weights].version", "observed.files.weights.sha256", "observed.files.weights.size"],
 "python": ["interpreter"],
 "system": ["env.OMP_NUM_THREADS"],
 "result": [],
}
w = sys.argv[3]
if w == "all":
    ok = [e["key"] for e in A["system"] if "observed_at" in e["key"]] == ["observed_at"]
    sys.exit(0 if ok else "--all: no timestamp: %s" % {n: [e["key"] for e in A[n]] for n in A})
sys.exit(0 if k(w) == want[w] else "%s: %s, wanted %s" % (w, k(w), want[w]))
PYEOF
}
check "code layer: commit, remote, dirty files" five code
check "data layer: digest, size, version" five data
check "python layer: the interpreter" five python
check "system layer: an environment variable that changes the run" five system
check "result layer: a number that prints the same is no difference" five result
check "timestamps only with --all" five all

# a capture (no inventory of its own): the packages its contract stage
# observed are compared, not skipped
mkdir -p "$KD_TMP/cap/a" "$KD_TMP/cap/b"
"$PY" - "$A/dossier.yaml" "$KD_TMP/cap" <<'PYEOF'
import sys, yaml
for side, ver in (("a", "2.1.0"), ("b", "2.2.0")):
    d = yaml.safe_load(open(sys.argv[1]))
    pk = d.pop("inventory", {}).get("packages", [])
    for st in d["stages"]:
        if st["id"] == "contract":
            st.setdefault("observations", {})["inventory"] = {"packages": pk + [
                {"name": "kd-capture-probe", "canonical_name": "kd-capture-probe",
                 "version": ver}]}
    yaml.safe_dump(d, open("%s/%s/dossier.yaml" % (sys.argv[2], side), "w"))
PYEOF
"$KD_BIN" diff "$KD_TMP/cap/a" "$KD_TMP/cap/b" --format json >"$KD_TMP/cap.json"
check "a capture's packages (contract observations) are compared" "$PY" -c "
import json, sys
L = json.load(open(sys.argv[1]))['layers']['python']
sys.exit(0 if any('kd-capture-probe' in json.dumps(e) for e in L) else 'not found: %s' % L)" "$KD_TMP/cap.json"

# inputs that are not dossiers
printf 'a: [1\n' >"$KD_TMP/bad.yaml"
expect_exit 2 "malformed input: exit 2" "$KD_BIN" diff "$A" "$KD_TMP/bad.yaml"
expect_exit 2 "missing input: exit 2" "$KD_BIN" diff "$A" "$KD_TMP/none"
printf 'x: 1\n' >"$KD_TMP/other.yaml"
expect_exit 2 "a YAML file that is no dossier: exit 2" "$KD_BIN" diff "$KD_TMP/other.yaml" "$A"

# two real captures (`check --stage system --format yaml`), the second with
# a device-visibility variable and a ROCm one set: both are system rows
mkdir -p "$KD_TMP/envcap/kernodeck"
printf 'schema: 1\nsystem:\n  backend: cpu\n' >"$KD_TMP/envcap/kernodeck/reference.yaml"
env -u CUDA_VISIBLE_DEVICES -u HIP_LAUNCH_BLOCKING "$KD_BIN" check "$KD_TMP/envcap" --stage system --force \
	--format yaml >"$KD_TMP/envcap-a.yaml" 2>/dev/null
CUDA_VISIBLE_DEVICES=1 HIP_LAUNCH_BLOCKING=1 "$KD_BIN" check "$KD_TMP/envcap" --stage system --force \
	--format yaml >"$KD_TMP/envcap-b.yaml" 2>/dev/null
"$KD_BIN" diff "$KD_TMP/envcap-a.yaml" "$KD_TMP/envcap-b.yaml" --format json >"$KD_TMP/envcap.json"
r=$?
check "captures that differ in run-changing variables: exit 1 (got $r)" test "$r" -eq 1
check "captures: env.CUDA_VISIBLE_DEVICES and env.HIP_LAUNCH_BLOCKING, unset on one side" "$PY" -c "
import json, sys
L = json.load(open(sys.argv[1]))['layers']['system']
got = sorted((e['key'], e['a'], e['b']) for e in L if e['key'].startswith('env.'))
assert got == [('env.CUDA_VISIBLE_DEVICES', None, '1'), ('env.HIP_LAUNCH_BLOCKING', None, '1')], got" "$KD_TMP/envcap.json"
