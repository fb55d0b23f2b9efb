#!/bin/sh
# kd-test: serial (run alone: see tests/run-all.sh)
# Stage 5's failure paths, each through `kernodeck check --stage compute`:
# the probe's fault switch (KD_PROBE_FAULT) at every step, an abort and a
# hang inside a step, and every reason a GPU is unreachable.  The probe runs
# against tests/fixtures/probe/faketorch (a stand-in for PyTorch answering
# with documented GPU values: see the README there), so that each run takes
# milliseconds and GPU machines can be played on this one; the real
# PyTorch is exercised by compute-probe.sh.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
$PY -m venv --without-pip "$P/.venv-rebuild"
export PYTHONPATH="$KD_SRCDIR/tests/fixtures/probe/faketorch" PYTHONDONTWRITEBYTECODE=1
export KD_FAKE_TORCH=cuda-h100x8

ref() { # backend [extension module]
	printf 'schema: 1\nsystem:\n  backend: %s\n' "$1" >"$P/kernodeck/reference.yaml"
	[ -n "${2:-}" ] && printf 'compute:\n  extensions:\n    - module: %s\n' "$2" >>"$P/kernodeck/reference.yaml"
	return 0
}
# row FILE ID: "status<TAB>observed<TAB>first_error<TAB>hint" of one row
row() { $PY -c "
import json,sys; r=json.load(open(sys.argv[1]))
for x in r['stages'][0]['rows']:
    if x['id']==sys.argv[2]:
        print('\t'.join([x['status'], x.get('observed',''), x.get('first_error',''), x.get('hint','')]))" "$1" "$2"; }
# rowis FILE ID PATTERN: the row's tab-joined fields match a grep pattern
rowis() { row "$1" "$2" | grep -q "$3"; }
run() { # out.json
	"$KD_BIN" check "$P" --stage compute --quiet --format json >"$1" 2>/dev/null
}

ref cuda
run "$KD_TMP/ok.json"
check "8 CUDA devices (documented values): the stage passes" [ $? -eq 0 ]
check "8 CUDA devices: agreement on cuda:7" rowis "$KD_TMP/ok.json" compute.agreement.cuda7 '^pass'
ref rocm
KD_FAKE_TORCH=rocm-gfx906 run "$KD_TMP/rocm.json"
check "ROCm gfx906 (documented values): the stage passes" [ $? -eq 0 ]
check "ROCm: the backend is seen from torch.version.hip" rowis "$KD_TMP/rocm.json" compute.backend 'rocm build'

# the fault switch at every step: that step fails, with the injected error
ref cuda json
for s in python import_torch precision backend device alloc h2d compute sync d2h agree ext; do
	id=$(echo "$s" | sed 's/import_torch/import-torch/; s/^agree$/agreement/; s/^ext$/ext.json/')
	KD_PROBE_FAULT=$s run "$KD_TMP/f-$s.json"
	rc=$?
	r=$(row "$KD_TMP/f-$s.json" "compute.$id")
	case "$s" in
	precision) want=warn ;;   # settings could not be read: a warning, not a failure
	*) want=fail ;;
	esac
	case "$r" in
	"$want	"*"fault injected by KD_PROBE_FAULT at step $s"*) ok "fault at $s: row compute.$id is $want with the injected error" ;;
	*) notok "fault at $s: row compute.$id is \"$r\"" ;;
	esac
	if [ "$s" = precision ]; then
		check "fault at precision: the stage still passes" [ "$rc" -eq 0 ]
	else
		check "fault at $s: the stage fails (exit 1)" [ "$rc" -eq 1 ]
		check "fault at $s: the first error names the step" \
			grep -q "\"observed\": \"in step $s[ :]" "$KD_TMP/f-$s.json"
	fi
done

# a crash and a hang inside a step: that step is where it stopped
KD_PROBE_FAULT=compute:abort run "$KD_TMP/abort.json"
check "abort in compute: the stage fails" [ $? -eq 1 ]
check "abort in compute: the compute row says the probe was killed there" \
	rowis "$KD_TMP/abort.json" compute.compute '^fail	the probe stopped during this step: killed by SIGABRT'
check "abort in compute: the transfer before it passed" rowis "$KD_TMP/abort.json" compute.h2d '^pass'
KD_PROBE_FAULT=sync:hang KD_TIMEOUT_PROBE=1 run "$KD_TMP/hang.json"
check "hang in sync: the stage fails" [ $? -eq 1 ]
check "hang in sync: the sync row says it timed out there" \
	rowis "$KD_TMP/hang.json" compute.sync 'timed out after 1 s'

# Ctrl-C (SIGINT) on a headless check: the probe's group is ended, the
# stage saved as cancelled, and kernodeck ends by the same signal; without
# the handler the probe was left hanging with nobody to time it out
KD_PROBE_FAULT=sync:hang $PY - "$KD_BIN" check "$P" --stage compute --quiet >"$KD_TMP/int.out" 2>&1 <<'PYEOF'
import os, signal, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(0.2)
deadline = time.time() + 60
# wait until this project's probe is running
venv = sys.argv[3].encode() + b"/.venv-rebuild/bin/python"
while time.time() < deadline and not any(
        venv in open("/proc/%s/cmdline" % d, "rb").read()
        for d in os.listdir("/proc") if d.isdigit() and os.path.exists("/proc/%s/cmdline" % d)):
    time.sleep(0.1)
time.sleep(0.5)
p.send_signal(signal.SIGINT)
t = time.time()
rc = p.wait(timeout=30)
print("rc %d took %.1f" % (rc, time.time() - t))
left = 0
for d in os.listdir("/proc"):
    try:
        if d.isdigit() and venv in open("/proc/%s/cmdline" % d, "rb").read():
            left += 1
    except OSError:
        pass
print("left %d" % left)
PYEOF
check "Ctrl-C: kernodeck ends by SIGINT" grep -q "^rc -2 " "$KD_TMP/int.out"
check "Ctrl-C: ... within a few seconds" sh -c "awk '/^rc/ { exit !(\$4 < 10) }' '$KD_TMP/int.out'"
check "Ctrl-C: no probe is left running" grep -q "^left 0$" "$KD_TMP/int.out"
check "Ctrl-C: the stage is saved as cancelled" grep -q "^cancelled: true" "$P/kernodeck/compute.yaml"
check "Ctrl-C: state.yaml says cancelled, the README's word" \
	sh -c "grep -A1 '^  compute:' '$P/kernodeck/state.yaml' | grep -q 'status: cancelled'"
check "Ctrl-C: the rows the cancel left unjudged say so, not blaming the project" \
	sh -c "grep -q 'id: stage.cancelled' '$P/kernodeck/state.yaml' && grep -q 'not judged: the stage was cancelled' '$P/kernodeck/state.yaml'"

# every reason a GPU is unreachable, from the evidence; never computed on the CPU
reason() { # name scenario backend needle [VAR=value]
	n=$1; sc=$2; be=$3; needle=$4; shift 4
	ref "$be"
	env KD_FAKE_TORCH="$sc" "$@" "$KD_BIN" check "$P" --stage compute --quiet --format json \
		>"$KD_TMP/r-$n.json" 2>/dev/null
	rc=$?
	r=$(row "$KD_TMP/r-$n.json" compute.backend)
	case "$r" in
	"fail	"*"$needle"*) ok "$n: backend fails, read from the evidence" ;;
	*) notok "$n: backend row is \"$r\"" ;;
	esac
	check "$n: exit 1 and no device step ran" sh -c "[ $rc -eq 1 ] && ! grep -q '\"step\": \"compute\"' '$KD_TMP/r-$n.json'"
}
reason "CPU-only build (+cpu label)" cpu-label cuda "label +cpu"
reason "ROCm build where CUDA is expected" rocm-gfx906 cuda "is a ROCm build (torch.version.hip = 3.7.20315-077bcfa0), not CUDA"
reason "CUDA build where ROCm is expected" cuda-h100x8 rocm "is a CUDA build (torch.version.cuda = 12.4), not ROCm"
reason "CUDA_VISIBLE_DEVICES set to empty" cuda-h100x8 cuda "CUDA_VISIBLE_DEVICES is set to an empty value" CUDA_VISIBLE_DEVICES=
reason "no driver: no device visible" cuda-no-driver cuda "no CUDA device is visible"
reason "driver too old" cuda-driver-old cuda "The NVIDIA driver on your system is too old (found version 12080)"
reason "sm_90 not in the arch list" cuda-h100-arch cuda "capability 9.0 (sm_90), which is not in this build's arch list"
reason "gfx1101 not in the arch list" rocm-gfx1101-arch rocm "is gfx1101, which is not in this build's arch list"
