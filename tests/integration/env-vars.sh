# tests/integration/env-vars.sh - environment variables that change a run
# (issue 17, point 5): recorded in the system observations (PIP_*, CUDA_*,
# ATEN_CPU_CAPABILITY, OMP_NUM_THREADS, MKL_*, PYTHONHASHSEED,
# CUBLAS_WORKSPACE_CONFIG, TORCH_*), a PIP_* of the shell warned about in
# the rebuild; only those of kernodeck's list (runenv.h) go into the
# dossier, and procedure.sh prints them before it sets them.  diff shows
# them in the system layer (diff-layers.sh).
. "$KD_SRCDIR/tests/lib.sh"
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
P=$KD_TMP/p
git_project "$P" >/dev/null 2>&1
code_reference "$P" >"$P/kernodeck/reference.yaml"
printf 'six==1.16.0\n' >"$P/requirements-rebuild.txt"
env PIP_FIND_LINKS=/opt/wheels CUDA_LAUNCH_BLOCKING=1 ATEN_CPU_CAPABILITY=avx2 OMP_NUM_THREADS=4 \
	MKL_THREADING_LAYER=GNU PYTHONHASHSEED=0 CUBLAS_WORKSPACE_CONFIG=:4096:8 \
	TORCH_DETERMINISTIC=1 "$KD_BIN" check "$P" --stage system --force >/dev/null 2>&1
check "the system observations record the variables that change the run" /usr/bin/python3 -c "
import sys, yaml
e = yaml.safe_load(open(sys.argv[1]))['env']
want = {'PIP_FIND_LINKS': '/opt/wheels', 'CUDA_LAUNCH_BLOCKING': '1', 'ATEN_CPU_CAPABILITY': 'avx2',
        'OMP_NUM_THREADS': '4', 'MKL_THREADING_LAYER': 'GNU', 'PYTHONHASHSEED': '0',
        'CUBLAS_WORKSPACE_CONFIG': ':4096:8', 'TORCH_DETERMINISTIC': '1'}
bad = {k: e.get(k) for k in want if e.get(k) != want[k]}
assert not bad, bad" "$P/kernodeck/system.yaml"
# the rebuild: a PIP_* from the shell is warned about (lint fails fast:
# a requirement that cannot be installed offline is enough to stop it)
PIP_FIND_LINKS=/opt/wheels PIP_NO_INDEX=1 timeout 120 "$KD_BIN" check "$P" --stage rebuild --force --format json >"$KD_TMP/r.json" 2>/dev/null
check "rebuild: a PIP_* of the shell is warned about, named" /usr/bin/python3 -c "
import json, sys
rows = [r for s in json.load(open(sys.argv[1]))['stages'] for r in s['rows'] if r['id'] == 'rebuild.env']
assert rows and rows[0]['status'] == 'warn' and 'PIP_FIND_LINKS=/opt/wheels' in rows[0]['observed'], rows" "$KD_TMP/r.json"
PIP_NO_INDEX= timeout 120 env -u PIP_NO_INDEX "$KD_BIN" check "$P" --stage rebuild --force --format json >"$KD_TMP/r2.json" 2>/dev/null
check "rebuild: without PIP_* in the shell, nothing to warn" /usr/bin/python3 -c "
import json, sys
rows = [r for s in json.load(open(sys.argv[1]))['stages'] for r in s['rows'] if r['id'] == 'rebuild.env']
assert rows and rows[0]['status'] == 'pass', rows" "$KD_TMP/r2.json"
"$KD_BIN" dossier "$P" >/dev/null 2>&1
S=$P/kernodeck/dossier/procedure.sh
check "dossier.yaml's environment: the variables of kernodeck's list only (no PIP_*, no TORCH_DETERMINISTIC)" /usr/bin/python3 -c "
import sys, yaml
e = yaml.safe_load(open(sys.argv[1]))['environment']
assert e.get('OMP_NUM_THREADS') == '4' and e.get('PYTHONHASHSEED') == '0', e
assert 'PIP_FIND_LINKS' not in e and 'TORCH_DETERMINISTIC' not in e, e" "$P/kernodeck/dossier/dossier.yaml"
check "procedure.sh neither sets nor names PIP_FIND_LINKS" sh -c "! grep -q PIP_FIND_LINKS '$S'"
check "procedure.sh is valid bash" bash -n "$S"
# run by hand (the clone fails: no repository there): what it sets is
# printed before anything runs, a variable of the shell kept
env -u OMP_NUM_THREADS -u PYTHONHASHSEED REPO="$KD_TMP/none" bash "$S" "$KD_TMP/w1" >"$KD_TMP/s1.out" 2>&1
check "procedure.sh prints OMP_NUM_THREADS=4 and PYTHONHASHSEED=0 before the clone" /usr/bin/python3 -c "
import sys
t = open(sys.argv[1]).read()
c = t.index('== 1.')
assert 0 <= t.index('  OMP_NUM_THREADS=4\n') < c and 0 <= t.index('  PYTHONHASHSEED=0\n') < c, t" "$KD_TMP/s1.out"
env OMP_NUM_THREADS=8 REPO="$KD_TMP/none" bash "$S" "$KD_TMP/w2" >"$KD_TMP/s2.out" 2>&1
check "procedure.sh keeps OMP_NUM_THREADS as the shell sets it" grep -q '^  OMP_NUM_THREADS: kept as your shell sets it' "$KD_TMP/s2.out"
