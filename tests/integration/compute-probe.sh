#!/bin/sh
# Stage 5 with the real PyTorch of this machine (Debian's python3-torch,
# CPU only), in a venv built from /usr/bin/python3 with the system site
# packages: a reference expecting the CPU passes (with an extension
# imported and called); one expecting CUDA fails at the backend step and
# nothing is computed on the CPU in its place; a hanging probe is killed at
# the timeout; a missing venv fails with a hint.  Two torch imports in all.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python compute-probe "Debian's python3-torch is not installed for /usr/bin/python3" torch
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
$PY -m venv --system-site-packages --without-pip "$P/.venv-rebuild"
SP=$("$P/.venv-rebuild/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
printf 'def version():\n    return "kdext 1.0"\n' >"$SP/kdext.py"

ref() { # backend [min_gflops]
	printf 'schema: 1\nsystem:\n  backend: %s\ncompute:\n  extensions:\n    - module: kdext\n      call: version\n' \
		"$1" >"$P/kernodeck/reference.yaml"
	[ -z "${2:-}" ] || printf '  min_gflops: %s\n' "$2" >>"$P/kernodeck/reference.yaml"
}
# rows FILE: "id status" per row of the (only) stage in a JSON report
rows() { $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))
for x in r['stages'][0]['rows']: print(x['id'], x['status'])" "$1"; }
# steps FILE: the probe's step names from the observations
steps() { $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))
print(' '.join(s['step'] for s in r['stages'][0]['observations']['steps']))" "$1"; }

ref cpu
KD_PROBE_PERF=1 "$KD_BIN" check "$P" --stage compute --format json >"$KD_TMP/cpu.json" 2>"$KD_TMP/cpu.err"
rc=$?
check "cpu expected: the stage passes (exit 0)" [ "$rc" -eq 0 ]
rows "$KD_TMP/cpu.json" >"$KD_TMP/cpu.rows"
check "cpu expected: backend passes" grep -qx "compute.backend pass" "$KD_TMP/cpu.rows"
check "cpu expected: the product agrees with float64" grep -qx "compute.agreement pass" "$KD_TMP/cpu.rows"
check "cpu expected: no failing row" sh -c "! grep -q ' fail\$' '$KD_TMP/cpu.rows'"
check "cpu expected: the extension is imported and called" grep -qx "compute.ext.kdext pass" "$KD_TMP/cpu.rows"
check "cpu expected: precision settings as information" grep -qx "compute.precision info" "$KD_TMP/cpu.rows"
check "cpu expected: every step of the chain ran" [ "$(steps "$KD_TMP/cpu.json")" = \
	"python import_torch precision backend device alloc h2d compute sync d2h agree perf ext libs" ]
check "cpu expected: the product's throughput and the copy's bandwidth are rows" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); rows={x['id']: x for x in r['stages'][0]['rows']}
m, c = rows['compute.perf-matmul'], rows['compute.perf-copy']
assert m['status'] == 'info' and ' GFLOP/s on cpu, float32 256x256 (median of 5 windows' in m['observed'], m
assert float(m['observed'].split()[0]) > 0 and float(c['observed'].split()[0]) > 0, c
p = [s for s in r['stages'][0]['observations']['steps'] if s['step'] == 'perf'][0]
assert len(p['gflops_windows']) == 5 and sorted(p['gflops_windows'])[2] == p['gflops'], p" "$KD_TMP/cpu.json"
check "cpu expected: the libraries loaded, with their Debian packages" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); rows={x['id']: x for x in r['stages'][0]['rows']}
x = rows['compute.libraries']; assert x['status'] == 'info' and ' Debian' in x['observed'], x
g = rows['compute.lib.libgomp']['observed']
assert g.startswith('/usr/lib/') and '(deb libgomp1:' in g, g
libs = [s for s in r['stages'][0]['observations']['steps'] if s['step'] == 'libs'][0]
assert libs['lib_warnings'] == [], libs['lib_warnings']
assert any(l['owner'] == 'deb' and l['path'].endswith('/torch/_C.cpython-%d%d-%s.so' % (sys.version_info[0], sys.version_info[1], __import__('sysconfig').get_config_var('MULTIARCH'))) and l['package'] == 'python3-torch' for l in libs['libraries']), 'torch._C not owned by python3-torch'" "$KD_TMP/cpu.json"

# a copy of the OpenMP runtime torch loads, first on LD_LIBRARY_PATH: the
# probe names both copies (the one loaded and the one it shadows)
GOMP=$($PY -c "
import ctypes, torch
for l in open('/proc/self/maps'):
    if 'libgomp.so' in l: print(l.split()[-1]); break")
mkdir -p "$KD_TMP/shadow"
cp "$GOMP" "$KD_TMP/shadow/libgomp.so.1"
SHADOW=$(cd "$KD_TMP/shadow" && pwd -P)
# (the same run: a reference whose expected minimum no CPU reaches fails
# the timed product, without KD_PROBE_PERF)
ref cpu 1000000000
LD_LIBRARY_PATH="$KD_TMP/shadow" "$KD_BIN" check "$P" --stage compute --quiet --format json >"$KD_TMP/shadow.json" 2>/dev/null
rc=$?
ref cpu
check "compute.min_gflops above this machine: the stage fails (exit $rc) at compute.perf-matmul" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); rows={x['id']: x for x in r['stages'][0]['rows']}
x = rows['compute.perf-matmul']
assert x['status'] == 'fail' and x['expected'] == 'at least the reference\'s minimum', x
assert 'under the reference\'s minimum 1e+09' in x['first_error'], x
assert sys.argv[2] == '1'" "$KD_TMP/shadow.json" "$rc"
check "a library on LD_LIBRARY_PATH shadowing torch's: the libraries row warns, naming both copies" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); rows={x['id']: x for x in r['stages'][0]['rows']}
assert rows['compute.libraries']['status'] == 'warn', rows['compute.libraries']
x = rows['compute.libraries.shadow.libgomp']
assert x['status'] == 'warn' and x['observed'] == sys.argv[2] + '/libgomp.so.1 from LD_LIBRARY_PATH shadows ' + sys.argv[3], x
assert rows['compute.lib.libgomp']['observed'].startswith(sys.argv[2] + '/libgomp.so.1 (loose'), rows['compute.lib.libgomp']" \
	"$KD_TMP/shadow.json" "$SHADOW" "$GOMP"
check "cpu expected: the probe ran in the project interpreter" \
	grep -q "\"executable\": \"$P/.venv-rebuild/bin/python\"" "$KD_TMP/cpu.json"
check "cpu expected: compute.yaml written" grep -q '^expected: cpu' "$P/kernodeck/compute.yaml"
log=$(sed -n 's/^log: //p' "$P/kernodeck/compute.yaml")
check "cpu expected: the probe's output is logged" grep -q '"step": "agree", "ok": true' "$P/kernodeck/$log"
check "cpu expected: steps streamed to stderr as they ran" grep -q "probe: compute on cpu" "$KD_TMP/cpu.err"

ref cuda
"$KD_BIN" check "$P" --stage compute --quiet --format json >"$KD_TMP/cuda.json" 2>/dev/null
rc=$?
check "cuda expected on a CPU-only build: the stage fails (exit 1)" [ "$rc" -eq 1 ]
rows "$KD_TMP/cuda.json" >"$KD_TMP/cuda.rows"
check "cuda expected: the backend row fails" grep -qx "compute.backend fail" "$KD_TMP/cuda.rows"
check "cuda expected: the reason is read from the build" grep -q "CPU-only build (torch.version.cuda and torch.version.hip are None" "$KD_TMP/cuda.json"
check "cuda expected: nothing was computed on the CPU in its place" \
	[ "$(steps "$KD_TMP/cuda.json")" = "python import_torch precision backend ext libs" ]
check "cuda expected: the first error names its step" grep -q '"observed": "in step backend: StepFailed' "$KD_TMP/cuda.json"

# a hang (the fault switch, in the first step: no torch import) and the timeout
ref cpu
start=$(date +%s)
KD_PROBE_FAULT=python:hang KD_TIMEOUT_PROBE=2 "$KD_BIN" check "$P" --stage compute --quiet --format json \
	>"$KD_TMP/hang.json" 2>/dev/null
rc=$?
took=$(( $(date +%s) - start ))
check "hang: the stage fails (exit 1)" [ "$rc" -eq 1 ]
check "hang: killed at the timeout, not later (took ${took}s)" [ "$took" -lt 10 ]
check "hang: the step it hung in fails with the timeout" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); rows={x['id']: x for x in r['stages'][0]['rows']}
x=rows['compute.python']; assert x['status']=='fail' and 'timed out after 2 s' in x['observed'], x
assert 'hung' in x['hint']" "$KD_TMP/hang.json"
check "hang: no probe process left behind" sh -c "! ps -eo args | grep -v grep | grep -q '$P/.venv-rebuild/bin/python'"

# no venv: a hint to run stage 3, and the probe is not run
mv "$P/.venv-rebuild" "$P/venv-away"
"$KD_BIN" check "$P" --stage compute --quiet --format json >"$KD_TMP/novenv.json" 2>/dev/null
rc=$?
check "no venv: the stage fails (exit 1)" [ "$rc" -eq 1 ]
check "no venv: the interpreter row says to run stage 3" $PY -c "
import json,sys; r=json.load(open(sys.argv[1])); x=r['stages'][0]['rows'][0]
assert x['id']=='compute.interpreter' and x['status']=='fail' and 'stage 3' in x['hint'], x" "$KD_TMP/novenv.json"
