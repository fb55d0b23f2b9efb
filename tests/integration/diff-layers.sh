# diff-layers.sh - kernodeck diff on two dossiers that differ in five known
# ways (a package version, a local label, the GPU, a sample metric, a
# deviation): each is reported in its layer, and nothing else.
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
    got = sorted((e["key"], e["change"], e["a"], e["b"]) for e in L["inventory"])
    want = [("numpy", "version", "1.24.2", "1.26.4"),
            ("torch", "local-label", "1.13.0a0+gitunknown", "1.13.0a0+cu117")]
    sys.exit(0 if got == want else "inventory: %s" % got)
if what == "system":
    keys = [e["key"] for e in L["system"]]
    ok = keys and all("gpu" in k for k in keys) and \
        any(e["b"] == "NVIDIA GeForce RTX 3090" for e in L["system"]) and \
        any(e["key"] == "gpu_vendor" and e["b"] == "nvidia" for e in L["system"])
    sys.exit(0 if ok else "system: %s" % keys)
if what == "sample":
    got = [(e["key"], e["b"]) for e in L["sample"]]
    sys.exit(0 if got == [("comparison.max_abs_error", 4.1e-07)] else "sample: %s" % got)
if what == "deviations":
    got = [(e["key"], e["change"]) for e in L["deviations"]]
    sys.exit(0 if got == [("compute/compute.backend", "added")] else "deviations: %s" % got)
if what == "probe":
    sys.exit(0 if L["probe"] == [] else "probe: %s" % L["probe"])
if what == "total":
    n = sum(len(v) for v in L.values())
    sys.exit(0 if n == d["differences"] else "total %d != %d" % (n, d["differences"]))
PYEOF
}
check "inventory: the version and the local label, nothing else" layer inventory
check "system: the GPU, nothing else" layer system
check "sample: the metric, nothing else" layer sample
check "deviations: the one recorded" layer deviations
check "probe: no difference" layer probe
check "the count is the sum of the layers" layer total

"$KD_BIN" diff "$A" "$B" >"$KD_TMP/d.txt"
check "text: the local label change is named" grep -q "local-label torch: 1.13.0a0+gitunknown -> 1.13.0a0+cu117" "$KD_TMP/d.txt"
check "text: layers without difference say so" grep -q "^probe: no difference" "$KD_TMP/d.txt"

# inputs that are not dossiers
printf 'a: [1\n' >"$KD_TMP/bad.yaml"
expect_exit 2 "malformed input: exit 2" "$KD_BIN" diff "$A" "$KD_TMP/bad.yaml"
expect_exit 2 "missing input: exit 2" "$KD_BIN" diff "$A" "$KD_TMP/none"
printf 'x: 1\n' >"$KD_TMP/other.yaml"
expect_exit 2 "a YAML file that is no dossier: exit 2" "$KD_BIN" diff "$KD_TMP/other.yaml" "$A"
