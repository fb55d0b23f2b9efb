#!/bin/sh
# kd-test: serial (run alone: see tests/run-all.sh)
# run-containment.sh - no process outlives its run, through real stages:
#   - an entry point that leaves a daemon (setsid and a double fork) and
#     exits: the daemon is ended and the sample row says so;
#   - kernodeck killed by SIGKILL while each stage runs its program (pip
#     in the rebuild, with a build backend that daemonizes; the probe of
#     the compute stage; the entry point of the sample stage, with its
#     daemon): within a second nothing carrying its mark (KERNODECK_RUN=
#     PID.N, which every descendant inherits) is left alive;
#   - an entry point that floods 70 MB (more than the dossier's 64 MiB per
#     file): its log is capped, says how much was cut, and the next dossier
#     is written.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python run-containment "$PY with venv and pip is needed" venv pip

# the processes alive (not zombies) that carry the mark of kernodeck PID
marked() {
	grep -lsz "^KERNODECK_RUN=$1\." /proc/[0-9]*/environ 2>/dev/null | wc -l
}
# kill_during NAME PIDFILE CMD...: start CMD (kernodeck), wait until the
# program it runs wrote PIDFILE, kill kernodeck by SIGKILL, and check that
# a second later nothing of it is alive
kill_during() {
	name=$1 pidfile=$2
	shift 2
	rm -f "$pidfile"
	"$@" >"$KD_TMP/$name.out" 2>&1 &
	kd=$!
	i=0
	while [ ! -s "$pidfile" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
	before=$(marked "$kd")
	kill -9 "$kd"
	wait "$kd" 2>/dev/null
	sleep 1
	after=$(marked "$kd")
	# a process the kill reached may still be on its way out (under load, a
	# sanitizer build): it is left only if still there 3 s later
	j=0
	while :; do
		left=0
		for p in $(cat "$pidfile" 2>/dev/null); do
			if [ -d "/proc/$p" ] && ! grep -q '^State:.*[ZX]' "/proc/$p/status" 2>/dev/null; then
				left=$((left + 1))
			fi
		done
		[ "$left" -eq 0 ] || [ $j -ge 30 ] && break
		sleep 0.1
		j=$((j + 1))
	done
	check "SIGKILL during $name: its processes were running ($before carried the mark)" \
		test "$before" -ge 1
	check "SIGKILL during $name: nothing carrying the mark alive after 1 s ($after)" \
		test "$after" -eq 0
	check "SIGKILL during $name: the programs it ran are gone, daemons too ($left left)" \
		test "$left" -eq 0
	# where runs get a cgroup (run-cgroup.sh), the guard removed it
	cgl=$(ls -d "$CGB"/kernodeck-"$kd".* 2>/dev/null | wc -l)
	check "SIGKILL during $name: no cgroup folder of it is left ($cgl)" test "$cgl" -eq 0
}
# the cgroup2 folder kernodeck makes the runs' cgroups in (src/lib/cgroup.c)
CGB="$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)$(sed -n 's/^0:://p' /proc/self/cgroup)"
CGB=${CGB%/}

P="$KD_TMP/proj"
mkdir -p "$P/kernodeck" "$P/slowpkg"
export KD_PIDS="$KD_TMP/pids"
# a program that leaves a daemon: MODE daemon exits at once, daemon-wait
# waits; the daemon has left the session (setsid) through a double fork
cat >"$P/ep.py" <<'PYEOF'
import os, sys, time
mode = os.environ.get("KD_EP_MODE", "daemon")
if mode == "flood":
    line = b"x" * 999 + b"\n"
    out = sys.stdout.buffer
    for _ in range(70000):
        out.write(line)
    sys.exit(0)
def daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(os.environ["KD_PIDS"], "a") as f:
                f.write("%d\n" % os.getpid())
            os.close(1); os.close(2)
            time.sleep(120)
        os._exit(0)
    os.wait()
daemon()
with open(os.environ["KD_PIDS"], "a") as f:
    f.write("%d\n" % os.getpid())
if mode == "daemon-wait":
    time.sleep(120)
PYEOF
cat >"$P/slowpkg/pyproject.toml" <<'T'
[build-system]
requires = []
build-backend = "slow_backend"
backend-path = ["."]
T
cat >"$P/slowpkg/slow_backend.py" <<'T'
import os, time
def _hang():
    if os.fork() == 0:
        os.setsid()
        time.sleep(120)
        os._exit(0)
    with open(os.environ["KD_PIDS"], "a") as f:
        f.write("%d\n" % os.getpid())
    time.sleep(120)
def get_requires_for_build_wheel(config_settings=None):
    _hang()
    return []
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _hang()
T
printf -- '--no-index\n./slowpkg\n' >"$P/requirements-rebuild.txt"
{ cat <<'YEOF'
schema: 1
code:
  entry_point: [python, ep.py]
result:
  outputs: outputs
YEOF
ref_python_cpu; } >"$P/kernodeck/reference.yaml"

# the rebuild: pip runs the backend, which hangs and leaves a daemon
kill_during rebuild "$KD_PIDS" "$KD_BIN" check "$P" --stage rebuild --force --quiet

# the sample stage needs a venv: one without pip, over the system's
$PY -m venv --system-site-packages --without-pip "$P/.venv-rebuild"

# a daemon left by an entry point that exits: ended, and said in the row
rm -f "$KD_PIDS"
KD_EP_MODE=daemon "$KD_BIN" check "$P" --stage sample --force --quiet --format json >"$KD_TMP/daemon.json" 2>&1
d=$(head -n 1 "$KD_PIDS")
check "a daemon left by the entry point: it was started" test -n "$d"
check "a daemon left by the entry point: ended with the run" test ! -d "/proc/$d"
check "a daemon left by the entry point: the row says so" \
	grep -q "exit 0; left 1 process behind, ended" "$KD_TMP/daemon.json"

KD_EP_MODE=daemon-wait kill_during sample "$KD_PIDS" "$KD_BIN" check "$P" --stage sample --force --quiet

# the compute stage: the probe hangs in a step (tests/fixtures/probe/faketorch)
rm -f "$KD_PIDS"
(
	export PYTHONPATH="$KD_SRCDIR/tests/fixtures/probe/faketorch" KD_FAKE_TORCH=cuda-h100x8
	export KD_PROBE_FAULT=sync:hang
	"$KD_BIN" check "$P" --stage compute --force --quiet >"$KD_TMP/compute.out" 2>&1 &
	kd=$!
	i=0
	while [ "$(marked "$kd")" -lt 1 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.5
	echo "$(marked "$kd")" >"$KD_TMP/compute.before"
	kill -9 "$kd"
	wait "$kd" 2>/dev/null
	sleep 1
	echo "$(marked "$kd")" >"$KD_TMP/compute.after"
	ls -d "$CGB"/kernodeck-"$kd".* 2>/dev/null | wc -l >"$KD_TMP/compute.cg"
)
check "SIGKILL during compute: the probe was running" test "$(cat "$KD_TMP/compute.before")" -ge 1
check "SIGKILL during compute: nothing carrying the mark alive after 1 s" \
	test "$(cat "$KD_TMP/compute.after")" -eq 0
check "SIGKILL during compute: no cgroup folder of it is left" \
	test "$(cat "$KD_TMP/compute.cg")" -eq 0

# a flood of 70 MB: the log is capped, the dossier is written
KD_EP_MODE=flood "$KD_BIN" check "$P" --stage sample --force --quiet >/dev/null 2>&1
log=$(ls -t "$P"/kernodeck/logs/*-sample.log | head -n 1)
size=$(stat -c %s "$log")
check "a 70 MB flood: the log is capped at 16 MiB (and a few lines) ($size bytes)" \
	test "$size" -le $((16 * 1048576 + 4096))
check "a 70 MB flood: the log says how much was cut" \
	grep -q "^# kernodeck: 53222784 bytes of output cut here" "$log"
"$KD_BIN" dossier "$P" >"$KD_TMP/dossier.out" 2>&1
r=$?
check "a 70 MB flood: the next dossier is written (exit $r)" test "$r" -eq 0
sed 's/^/# /' "$KD_TMP/dossier.out" | head -n 5
