#!/bin/sh
# kd-test: serial (run alone: see tests/run-all.sh)
# run-cgroup.sh - a cgroup per run where cgroups v2 are writable: an entry
# point leaves a daemon that left its session (setsid and a double fork),
# ignores SIGTERM, closed its output and cleared its environment (so that
# the KERNODECK_RUN mark is gone too): after the run nothing of it is
# alive, the log names the cgroup it ran in, and no cgroup folder is left.
# The same daemon with its environment (the mark) under KD_NO_CGROUP=1: the
# mark-based sweep ends it.  SIGKILL of kernodeck while the daemon runs: the
# guard empties and removes the run's cgroup within a second.  A stale
# folder of a kernodeck that is gone, with a process in it, is swept by the
# next run.  Without a writable cgroup2 the cgroup cases are skipped, with
# the reason.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python run-cgroup "$PY with venv is needed" venv

P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
export KD_PIDS="$KD_TMP/pids"
cat >"$P/ep.py" <<'PYEOF'
import os, signal, sys, time
pids = os.environ["KD_PIDS"]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # kept across exec
        with open(pids, "a") as f:
            f.write("%d\n" % os.getpid())
        fd = os.open(os.devnull, os.O_RDWR)
        for k in (0, 1, 2):
            os.dup2(fd, k)
        env = {} if os.environ.get("KD_EP_CLEAR") else dict(os.environ)
        os.execve("/bin/sleep", ["sleep", "120"], env)
    os._exit(0)
os.wait()
if os.environ.get("KD_EP_WAIT"):
    with open(pids, "a") as f:
        f.write("%d\n" % os.getpid())
    time.sleep(120)
PYEOF
{ cat <<'YEOF'
schema: 1
code:
  entry_point: [python, ep.py]
result:
  outputs: outputs
YEOF
ref_python_cpu; } >"$P/kernodeck/reference.yaml"
$PY -m venv --system-site-packages --without-pip "$P/.venv-rebuild"

# alive FILE: how many pids of FILE are alive (not zombies)
alive() {
	n=0
	for p in $(cat "$1" 2>/dev/null); do
		if [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null; then
			n=$((n + 1))
		fi
	done
	echo $n
}
# the cgroup2 folder kernodeck runs below (as src/lib/cgroup.c finds it)
cgbase() {
	mnt=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	[ -n "$mnt" ] && printf '%s%s\n' "$mnt" "${own%/}"
}
last_log() { ls -t "$P"/kernodeck/logs/*-sample.log 2>/dev/null | head -n 1; }
# the daemon's pid was written, and the log of the sample run
run_sample() {
	rm -f "$KD_PIDS"
	"$@" >"$KD_TMP/run.out" 2>&1
}

# 1. with the cgroup: the daemon has no mark, only the cgroup holds it
run_sample env KD_EP_CLEAR=1 "$KD_BIN" check "$P" --stage sample
log=$(last_log)
B=$(cgbase)
if grep -q "its processes ran in the cgroup" "$log" 2>/dev/null; then
	cg=$(sed -n 's/.*ran in the cgroup \([^,]*\),.*/\1/p' "$log")
	ok "the run used a cgroup of its own: $cg (path: cgroup)"
	check "the daemon that cleared its environment was started ($(wc -l <"$KD_PIDS"))" test -s "$KD_PIDS"
	check "nothing of it is alive after the run ($(alive "$KD_PIDS") left)" test "$(alive "$KD_PIDS")" -eq 0
	check "the run's cgroup folder is removed" test ! -e "$cg"
	# that kernodeck's folders only: other kernodecks of this machine may run
	check "no cgroup folder of that kernodeck is left below $B" \
		sh -c "! ls -d '${cg%.*}'.* >/dev/null 2>&1"
	check "the sample row says a process was left behind and ended" \
		grep -q "left 1 process behind" "$KD_TMP/run.out"
	HAVE_CG=1
else
	why="no writable cgroup2 folder here (${B:-no cgroup2 mount}), or KD_NO_CGROUP is set"
	skip "a cgroup per run" "$why"
	HAVE_CG=0
fi

# 2. without the cgroup: the mark-based sweep ends a daemon that kept its
# environment
run_sample env KD_NO_CGROUP=1 "$KD_BIN" check "$P" --stage sample
log=$(last_log)
check "KD_NO_CGROUP=1: no cgroup named in the log (path: the mark)" \
	sh -c "! grep -q 'ran in the cgroup' '$log'"
check "KD_NO_CGROUP=1: the daemon was started" test -s "$KD_PIDS"
check "KD_NO_CGROUP=1: the marked daemon is gone after the run ($(alive "$KD_PIDS") left)" \
	test "$(alive "$KD_PIDS")" -eq 0

if [ "$HAVE_CG" = 1 ]; then
	# 3. SIGKILL of kernodeck while the entry point waits, its daemon unmarked
	rm -f "$KD_PIDS"
	env KD_EP_CLEAR=1 KD_EP_WAIT=1 "$KD_BIN" check "$P" --stage sample >"$KD_TMP/k.out" 2>&1 &
	kd=$!
	i=0
	while [ "$(cat "$KD_PIDS" 2>/dev/null | wc -l)" -lt 2 ] && [ $i -lt 300 ]; do
		sleep 0.1; i=$((i + 1))
	done
	had=$(ls -d "$B"/kernodeck-"$kd".* 2>/dev/null | wc -l)
	kill -9 "$kd"
	wait "$kd" 2>/dev/null
	sleep 1
	check "SIGKILL: the run had its cgroup ($had)" test "$had" -ge 1
	check "SIGKILL: after 1 s the entry point and its unmarked daemon are gone ($(alive "$KD_PIDS") left)" \
		test "$(alive "$KD_PIDS")" -eq 0
	check "SIGKILL: the guard removed the run's cgroup" \
		sh -c "! ls -d '$B'/kernodeck-$kd.* >/dev/null 2>&1"

	# 4. a stale folder of a kernodeck that is gone, a process in it
	stale="$B/kernodeck-$(cat /proc/sys/kernel/pid_max).7"
	if mkdir "$stale" 2>/dev/null; then
		sleep 120 &
		sp=$!
		echo "$sp" >"$stale/cgroup.procs"
		run_sample env KD_EP_CLEAR=1 "$KD_BIN" check "$P" --stage sample
		sleep 0.2
		check "a stale cgroup folder is swept by the next run" test ! -e "$stale"
		check "the process left in it is ended" sh -c "! kill -0 $sp 2>/dev/null"
		kill "$sp" 2>/dev/null
		wait "$sp" 2>/dev/null
		rmdir "$stale" 2>/dev/null || :
	else
		skip "a stale cgroup folder is swept" "cannot make $stale"
	fi
fi
exit 0
