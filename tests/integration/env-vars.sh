# tests/integration/env-vars.sh - environment variables that change a run
# (issue 17, point 5): recorded in the system observations (PIP_*, CUDA_*,
# ATEN_CPU_CAPABILITY, OMP_NUM_THREADS, MKL_*, PYTHONHASHSEED,
# CUBLAS_WORKSPACE_CONFIG, TORCH_*), a PIP_* of the shell warned about in
# the rebuild, and set (or named, for pip's) in procedure.sh.  diff shows
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
check "procedure.sh sets OMP_NUM_THREADS and PYTHONHASHSEED as recorded, unless set" \
	sh -c "grep -qF '[ -n \"\${OMP_NUM_THREADS+set}\" ] || OMP_NUM_THREADS=4; export OMP_NUM_THREADS' '$S' && grep -q 'PYTHONHASHSEED=' '$S'"
check "procedure.sh names PIP_FIND_LINKS without setting it" \
	sh -c "grep -q '^# PIP_FIND_LINKS=/opt/wheels was set in the shell' '$S' && ! grep -q '^[^#]*PIP_FIND_LINKS=' '$S'"
check "procedure.sh is valid bash" bash -n "$S"
