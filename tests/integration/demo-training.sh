#!/bin/sh
# kd-test: serial (run alone: see tests/run-all.sh)
# demo-training.sh - `kernodeck demo DIR --training`: the resumable training
# demo walked headless through all seven stages, offline, in under a minute;
# the resume rows in every headless format (text, YAML, JSON, JUnit); the
# dossier's README tables of the trajectories and the checkpoint inventory;
# procedure.sh's step 7 rerunning the exercise by hand and comparing;
# every installed distribution with its origin and digest (or, provided by
# the system, its provider) in rebuild.yaml and the dossier's pylock.toml.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python demo-training "Debian's python3-torch (and yaml, tomllib) is not there for /usr/bin/python3" \
	torch numpy yaml tomllib
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"

expect_exit 0 "kernodeck demo DIR --training --create-only" "$KD_BIN" demo "$DEMO" --training --create-only
check "the training demo is committed by kernodeck demo, its tree clean" \
	sh -c "test \"\$(git -C '$DEMO' log --format=%an | sort -u)\" = 'kernodeck demo' && test -z \"\$(git -C '$DEMO' status --porcelain)\""
check "its reference is goal training-trajectory with a resume: section" \
	sh -c "grep -q '^goal: training-trajectory' '$DEMO/kernodeck/reference.yaml' && grep -q '^resume:' '$DEMO/kernodeck/reference.yaml'"

start=$(date +%s)
"$KD_BIN" check "$DEMO" --junit "$KD_TMP/junit.xml" >"$KD_TMP/check.txt" 2>"$KD_TMP/check.err"
r=$?
took=$(( $(date +%s) - start ))
check "kernodeck check on the training demo: exit 0 (all seven stages)" test "$r" -eq 0
[ "$r" -eq 0 ] || grep -E "^[0-9] |^  fail|error:" "$KD_TMP/check.txt" | head -20 | sed 's/^/# /'
check "in under a minute (took ${took} s)" test "$took" -lt 60
for s in reference system rebuild contract compute sample dossier; do
	check "stage $s passed" grep -Eq "^[0-9] $s +passed" "$KD_TMP/check.txt"
done
check "text: the resume rows" sh -c "grep -q 'pass sample.resume.trajectory *steps 21-40: 40 values compared, 0 diverging' '$KD_TMP/check.txt' && grep -q 'pass sample.resume.final' '$KD_TMP/check.txt' && grep -q 'pass sample.resume.reference' '$KD_TMP/check.txt' && grep -q 'pass sample.resume.inventory .*8 of 8 kinds' '$KD_TMP/check.txt'"
check "stage 1 judged the resume: section" grep -q "pass resume .*40 steps, interrupted at 20 (stop)" "$KD_TMP/check.txt"
# every key the observation headers declare is where its stage wrote it,
# the resume keys of sample.yaml (KD_OBS_OPT in the demo without training) too
"$KD_BUILDDIR/tests/helpers/obs-keys" "$DEMO/kernodeck" >"$KD_TMP/obs-keys.txt" 2>&1
r=$?
sed 's/^/#   obs-keys: /' "$KD_TMP/obs-keys.txt"
check "the observation headers' keys are all in the training demo's observations" test "$r" -eq 0
check "the training demo's sample.yaml has the resume check's runs, inventory, trajectory and final" \
	sh -c "grep -q '^resume:' '$DEMO/kernodeck/sample.yaml' && grep -q '^  runs:' '$DEMO/kernodeck/sample.yaml' && grep -q '^  trajectory:' '$DEMO/kernodeck/sample.yaml' && grep -q '^  final:' '$DEMO/kernodeck/sample.yaml'"
"$KD_BIN" check "$DEMO" --stage sample --format json >"$KD_TMP/c.json" 2>/dev/null
"$KD_BIN" check "$DEMO" --stage sample --format yaml >"$KD_TMP/c.yaml" 2>/dev/null
check "JSON: the resume rows and one row per kind of state" "$PY" -c "
import json,sys; r=json.load(open(sys.argv[1]))
ids={x['id']:x for x in r['stages'][0]['rows']}
assert ids['sample.resume.trajectory']['status']=='pass', ids
for k in ('model','optimizer','scheduler','rng_torch','rng_numpy','rng_python','counter','data_position'):
    assert ids['sample.resume.kind.'+k]['observed'].startswith('present'), (k, ids)" "$KD_TMP/c.json"
check "YAML: the resume rows" grep -q "id: sample.resume.trajectory" "$KD_TMP/c.yaml"
check "JUnit: a testcase per resume row" "$PY" -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
names = [c.get('name') for c in root.iter('testcase')]
assert 'sample.resume.trajectory' in names and 'sample.resume.final' in names, names" "$KD_TMP/junit.xml"

D="$DEMO/kernodeck/dossier"
check "README: the resume check's rows" grep -q "^| sample.resume.trajectory | pass |" "$D/README.md"
check "README: the trajectories table, interruption marked" sh -c "grep -q '^| step | loss, uninterrupted | loss, interrupted then resumed |' '$D/README.md' && grep -q '^| 20 | .* | interrupted here |' '$D/README.md'"
check "README: the checkpoint inventory table" sh -c "grep -q '^| kind | held | where |' '$D/README.md' && grep -q '^| data_position | yes | data.generator' '$D/README.md'"
check "procedure.sh: step 7, the resume check by hand" grep -q '^step "7. the resume check' "$D/procedure.sh"
"$PY" - "$DEMO/kernodeck" >"$KD_TMP/origins.out" 2>&1 <<'PYEOF'
# issue 28, "done when": every installed distribution of the training demo
# has an origin and a digest (what pip installed) or its provider (what the
# system provides), in rebuild.yaml and in the dossier's pylock.toml
import re, sys, tomllib, yaml
k = sys.argv[1]
canon = lambda n: re.sub(r"[-_.]+", "-", n).lower()
pk = {p["canonical_name"]: p for p in yaml.safe_load(open(k + "/rebuild.yaml"))["origins"]["packages"]}
frz = {canon(re.split(r"==| @ ", l.strip())[0]) for l in open(k + "/installed-after.txt")
       if l.strip() and not l.startswith("#")}
assert frz and frz <= set(pk), "no origin: %s" % sorted(frz - set(pk))
for n, p in pk.items():
    o = p.get("origin")
    if o in ("index", "find-links", "url"):
        assert re.fullmatch(r"[0-9a-f]{64}", p.get("sha256") or ""), ("no digest", n, p)
    elif o == "vcs":
        assert re.fullmatch(r"[0-9a-f]{40}", p.get("commit") or ""), ("no commit", n, p)
    else:
        assert o in ("directory", "system", "base", "venv"), ("no origin", n, p)
        assert o == "directory" or (p.get("provider") or {}).get("kind"), ("no provider", n, p)
t = pk["torch"]["provider"]
assert t["kind"] == "debian" and t["package"] == "python3-torch" and t["version"], t
d = tomllib.load(open(k + "/dossier/pylock.toml", "rb"))
locked = {p["name"]: p for p in d["packages"]}
provided = {p["name"]: p for p in d["tool"]["kernodeck"]["provided"]}
assert set(locked) | set(provided) == set(pk), sorted(set(pk) ^ (set(locked) | set(provided)))
for n, p in locked.items():
    arts = p.get("wheels", []) + [p[x] for x in ("sdist", "archive") if x in p]
    assert arts and all(a["hashes"].get("sha256") for a in arts) or "vcs" in p or "directory" in p, (n, p)
for n, p in provided.items():
    assert p.get("provider") and p.get("origin"), (n, p)
print("origins ok: %d installed by pip, %d provided" % (len(locked), len(provided)))
PYEOF
check "every installed distribution: its origin and digest, or its provider (rebuild.yaml, pylock.toml)" \
	grep -q "^origins ok" "$KD_TMP/origins.out"
sed 's/^/# /' "$KD_TMP/origins.out" | tail -n 3
(cd "$KD_TMP" && bash "$D/procedure.sh" "$KD_TMP/byhand") >"$KD_TMP/proc.out" 2>&1
r=$?
check "procedure.sh by hand: exit 0" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -5 "$KD_TMP/proc.out" | sed 's/^/# /'
check "procedure.sh by hand: the resumed trajectory agrees" grep -q "^resume: steps 21-40 agree under the rule" "$KD_TMP/proc.out"
check "procedure.sh by hand: the trajectory agrees with the reference machine's" grep -q "^reference: steps 1-40 agree under the rule" "$KD_TMP/proc.out"

# replay: the plan shows the resume check's five programs (placeholders
# substituted, the checkpoint reader too), and they are what runs
"$KD_BIN" replay "$D" --workdir "$KD_TMP/replay" --yes >"$KD_TMP/replay.out" 2>"$KD_TMP/replay.err"
r=$?
check "kernodeck replay of the training dossier: exit 0" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -20 "$KD_TMP/replay.err" | sed 's/^/# /'
plan_vs_logs "$KD_TMP/replay.err" "$KD_TMP/replay" 13
W="$KD_TMP/replay"
check "replay: the plan's resume runs with {steps}, {out} and the checkpoint substituted" sh -c "
	grep -q '^$W/.venv-rebuild/bin/python .*40.*$W/kernodeck/resume/uninterrupted' '$KD_TMP/plan' &&
	grep -q '^$W/.venv-rebuild/bin/python .*20.*$W/kernodeck/resume/interrupted' '$KD_TMP/plan' &&
	grep -q '^$W/.venv-rebuild/bin/python .*/ckpt-inventory.py inventory $W/kernodeck/resume/interrupted/' '$KD_TMP/plan' &&
	grep -q '^$W/.venv-rebuild/bin/python .*/ckpt-inventory.py compare ' '$KD_TMP/plan' &&
	! grep -q '{steps}\\|{out}\\|{checkpoint}\\|{step}' '$KD_TMP/plan'"
