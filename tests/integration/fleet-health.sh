# kd-test: serial (run alone: see tests/run-all.sh)
# tests/integration/fleet-health.sh - `kernodeck health` against a real
# Slurm started here (munged, slurmctld, three slurmd on this host:
# slurm-lib.sh): a fleet result in which n2 differs (a TaskProlog gives n2
# another machine), then health on each node as slurmd runs it (no HOME, no
# terminal, SLURMD_NODENAME set): the differing node drained with a
# kernodeck reason, the others left idle, a node someone else drained left
# with its reason, a healthy run resuming nothing; a node booted into
# another kernel than the fleet's; a budget the probe cannot finish in,
# kept with --drain; the run-changing variables against the fleet's rows;
# bad usage.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/slurm-lib.sh"
need_python "fleet health" "Debian's python3-torch is not installed" torch
need_slurm "fleet health"
FX="$KD_SRCDIR/tests/fixtures"
P="$KD_TMP/proj"
fleet_project "$P"
OTHER="$FX/sysroot/nvidia-open"

# --- bad usage: exit 2, before anything else
for a in "--timeout 0" "--timeout ten" "--format yaml" "--bogus" "$P $P"; do
	# shellcheck disable=SC2086
	"$KD_BIN" health $a >/dev/null 2>&1
	r=$?
	check "bad usage (health $a): exit 2 (got $r)" test "$r" -eq 2
done
"$KD_BIN" health "$KD_TMP/none" >/dev/null 2>"$KD_TMP/none.err"
r=$?
check "no project there: exit 2 (got $r)" test "$r" -eq 2
mkdir -p "$KD_TMP/noref/kernodeck"
"$KD_BIN" health "$KD_TMP/noref" >/dev/null 2>"$KD_TMP/noref.err"
r=$?
check "a project without a reference: exit 2 (got $r)" test "$r" -eq 2
check "a project without a reference: the file named" grep -q "noref/kernodeck/reference.yaml: no reference there" "$KD_TMP/noref.err"
printf 'schema: 1\nsystem: [\n' >"$KD_TMP/noref/kernodeck/reference.yaml"
"$KD_BIN" health "$KD_TMP/noref" >/dev/null 2>"$KD_TMP/noref.err"
r=$?
check "a malformed reference: exit 2 (got $r)" test "$r" -eq 2
check "a malformed reference: file and line named" grep -q "noref/kernodeck/reference.yaml:3: " "$KD_TMP/noref.err"

cat >"$KD_TMP/prolog" <<EOF
#!/bin/sh
[ "\$SLURMD_NODENAME" = n2 ] && echo "export KD_SYSROOT=$OTHER"
exit 0
EOF
chmod +x "$KD_TMP/prolog"
if ! slurm_start 3 "$KD_TMP/prolog"; then
	notok "a private Slurm with three nodes starts"
	exit 0
fi
ok "a private Slurm with three nodes starts"

# --- the fleet result: n2 differs (system and compute on every node)
"$KD_BIN" fleet "$P" --nodes 3 --timeout 120 >"$KD_TMP/fleet.txt" 2>"$KD_TMP/fleet.err"
r=$?
check "the fleet run: exit 1, n2 differs (got $r)" test "$r" -eq 1
check "the fleet run: n2 named" grep -q "n2: Ubuntu" "$KD_TMP/fleet.txt"
check "the fleet run: the kernel compared, n2's named" \
	grep -q "n2: 6.8.0-48-generic (info) where 2 nodes have 6.1.0-18-amd64 (info)" "$KD_TMP/fleet.txt"
[ "$r" -eq 1 ] || sed 's/^/# /' "$KD_TMP/fleet.err" | tail -20

# health as slurmd runs it: no HOME, no terminal, SLURMD_NODENAME set;
# health NODE [ENV...] -- ARGS
health() {
	_n=$1
	shift
	env -u HOME SLURMD_NODENAME="$_n" "$@" </dev/null
}
state() { sinfo -h -N -n "$1" -o '%N %T %E' 2>&1 | head -n 1; }
find "$P" -type f -not -path '*/kernodeck/logs/*' -exec sha256sum {} + | sort >"$KD_TMP/before"

# --- n1 agrees with the reference and the fleet: exit 0, quiet, stays idle
health n1 "$KD_BIN" health "$P" --timeout 60 --drain >"$KD_TMP/n1.out" 2>"$KD_TMP/n1.err"
r=$?
check "n1 healthy: exit 0 (got $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/# /' "$KD_TMP/n1.out" "$KD_TMP/n1.err" | head -20
check "n1 healthy: no ERROR line" sh -c "! grep -q ERROR '$KD_TMP/n1.out'"
check "n1 stays idle ($(state n1))" sh -c "sinfo -h -N -n n1 -o '%T' | grep -qx idle"

# --- a budget too short for the probe: a problem, said, not a hang
health n1 "$KD_BIN" health "$P" --timeout 1 >"$KD_TMP/short.out" 2>&1
r=$?
check "--timeout 1: exit 1 (got $r)" test "$r" -eq 1
check "--timeout 1: the probe named as not done within the budget" \
	grep -Eq "^ERROR:  kernodeck: (no time left for the probe within 1 s|.*timed out)" "$KD_TMP/short.out"
[ "$r" -eq 1 ] || sed 's/^/# /' "$KD_TMP/short.out"

# --- a system query that never answers (a wedged driver: the nvidia-smi
# stand-in of system-chain.sh, which sleeps; there is no NVIDIA driver here)
# on an NVIDIA machine's root: stopped within the budget, and what it did
# not check said
t0=$(date +%s%N)
health n1 KD_SYSROOT="$FX/sysroot/nvidia-prop" PATH="$FX/bin-nvidia-hang:$PATH" \
	"$KD_BIN" health "$P" --timeout 3 >"$KD_TMP/hang.out" 2>&1
r=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "nvidia-smi never answers, --timeout 3: exit 1 (got $r)" test "$r" -eq 1
check "nvidia-smi never answers, --timeout 3: ended within 3 s + 2 s (${ms} ms)" test "$ms" -le 5000
check "nvidia-smi never answers: said, with what was not checked" \
	grep -Eq "^ERROR:  kernodeck: nvidia-smi did not answer within the 3 s budget \(timed out after [0-9.]+ s\): the GPUs' names and count as it sees them not checked$" "$KD_TMP/hang.out"
[ "$r" -eq 1 ] || sed 's/^/# /' "$KD_TMP/hang.out"

# --- n2 differs (its machine, as its prolog gives it): exit 1, drained
health n2 KD_SYSROOT="$OTHER" "$KD_BIN" health "$P" --timeout 60 --drain >"$KD_TMP/n2.out" 2>"$KD_TMP/n2.err"
r=$?
check "n2 differs: exit 1 (got $r)" test "$r" -eq 1
check "n2: one ERROR line per problem, NHC's form, against the reference" \
	grep -q "^ERROR:  kernodeck: operating system Ubuntu 24.04.1 LTS differs from the reference's Debian GNU/Linux 12" "$KD_TMP/n2.out"
check "n2: against the fleet's majority, with its count" \
	grep -Eq "^ERROR:  kernodeck: operating system .* and from the fleet's Debian .*\(2 of 3 nodes\)$" "$KD_TMP/n2.out"
check "n2: its kernel against the fleet's majority (the reference records none)" \
	grep -q "^ERROR:  kernodeck: kernel 6.8.0-48-generic differs from the fleet's 6.1.0-18-amd64 (2 of 3 nodes)$" "$KD_TMP/n2.out"
sed 's/^/# n2: /' "$KD_TMP/n2.out"
check "n2: the drain is said" grep -q "^NOTE:  kernodeck: drained n2: kernodeck: " "$KD_TMP/n2.out"
s2=$(state n2)
check "sinfo: n2 drained with the kernodeck reason" \
	sh -c "sinfo -h -N -n n2 -o '%N %T %E' | grep -Eq '^n2 drain(ed|ing) kernodeck: operating system Ubuntu'"
check "the reason is short and one line (${#s2} bytes)" test "${#s2}" -le 140
check "n1 and n3 stay idle" sh -c "test \"\$(sinfo -h -N -n n1,n3 -o '%T' | sort -u)\" = idle"

# --- n2 healthy again: it is not resumed
health n2 "$KD_BIN" health "$P" --timeout 60 --drain >"$KD_TMP/n2b.out" 2>&1
r=$?
check "n2 healthy again: exit 0 (got $r)" test "$r" -eq 0
check "n2 healthy again: stays drained, kernodeck's reason ($(state n2))" \
	sh -c "sinfo -h -N -n n2 -o '%T %E' | grep -Eq '^drain(ed|ing) kernodeck:'"
check "n2 healthy again: how an admin resumes it is said" grep -q "State=RESUME" "$KD_TMP/n2b.out"

# --- n3 drained beforehand by someone else: left with its reason (json)
scontrol update NodeName=n3 State=DRAIN Reason=maint
health n3 KD_SYSROOT="$OTHER" "$KD_BIN" health "$P" --timeout 60 --drain --format json >"$KD_TMP/n3.json" 2>"$KD_TMP/n3.err"
r=$?
check "n3 differs: exit 1 (got $r)" test "$r" -eq 1
is "$KD_TMP/n3.json" "(t['node'], t['healthy'], t['fleet']['nodes'], t['drain']['drained'], t['drain']['left'][:5])" \
	"('n3', False, 3, False, 'maint')" "json: node, verdict, the fleet read, someone else's drain left"
is "$KD_TMP/n3.json" "[p['against'] for p in t['problems'] if p['check'] == 'system.os']" \
	"['reference and fleet']" "json: system.os one problem, against both"
is "$KD_TMP/n3.json" "[(p['against'], p['message']) for p in t['problems'] if p['check'] == 'system.kernel']" \
	"[('fleet', \"kernel 6.8.0-48-generic differs from the fleet's 6.1.0-18-amd64 (2 of 3 nodes)\")]" \
	"json: system.kernel against the fleet only"
check "n3 keeps its reason ($(state n3))" sh -c "sinfo -h -N -n n3 -o '%E' | grep -qx maint"

# --- n1 booted into another kernel.  Every slurmd here runs on this one
# host, so no node can run another kernel; what kernodeck reads as the
# kernel is /proc/sys/kernel/osrelease under KD_SYSROOT, the root these
# tests give each node (fleet_project: the cpu-only fixture, whose kernel
# is 6.1.0-18-amd64, on n1 and n3 in the fleet run above).  n1's root here
# is that fixture with its kernel release changed and nothing else: the
# fleet result is the real one, and the reference records no kernel, so
# the fleet's majority alone names it.
cp -R "$FX/sysroot/cpu-only" "$KD_TMP/kernel-root"
echo 6.1.0-99-amd64 >"$KD_TMP/kernel-root/proc/sys/kernel/osrelease"
health n1 KD_SYSROOT="$KD_TMP/kernel-root" "$KD_BIN" health "$P" --timeout 60 --drain >"$KD_TMP/kern.out" 2>"$KD_TMP/kern.err"
r=$?
check "n1 with another kernel: exit 1 (got $r)" test "$r" -eq 1
check "n1 with another kernel: one problem, the kernel against the fleet's majority" \
	test "$(grep '^ERROR' "$KD_TMP/kern.out")" = "ERROR:  kernodeck: kernel 6.1.0-99-amd64 differs from the fleet's 6.1.0-18-amd64 (2 of 3 nodes)"
[ "$r" -eq 1 ] || sed 's/^/# /' "$KD_TMP/kern.out" "$KD_TMP/kern.err" | head
check "sinfo: n1 drained, the kernel its reason ($(state n1))" \
	sh -c "sinfo -h -N -n n1 -o '%T %E' | grep -Eq '^drain(ed|ing) kernodeck: kernel 6.1.0-99-amd64 differs'"
# an admin resumes it (kernodeck never does)
scontrol update NodeName=n1 State=RESUME

# --- a budget the probe cannot finish in, --drain included: n1's checks
# run inside a CPU cgroup with a fifth of a core (slurm-lib.sh's, as for a
# throttled node), where importing torch alone takes longer than 3 s; the
# whole command, the drain's scontrol calls included, still ends within
# --timeout (measured with a margin of 2 s for starting and ending), and
# says what it did not check
if sl_cgroup health; then
	t0=$(date +%s%N)
	health n1 SL_CGP="$SL_CG_PROCS" sh -c 'echo $$ >"$SL_CGP" && exec "$@"' sh \
		"$KD_BIN" health "$P" --timeout 3 --drain >"$KD_TMP/slow.out" 2>&1
	r=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "--timeout 3 --drain, a fifth of a core: exit 1 (got $r)" test "$r" -eq 1
	check "--timeout 3 --drain, a fifth of a core: ended within 3 s + 2 s (${ms} ms)" test "$ms" -le 5000
	check "--timeout 3: what was not checked is said" \
		grep -Eq "^ERROR:  kernodeck: (the compute probe did not finish within the 3 s budget \(stopped after [0-9.]+ s\)|no time left for the probe within 3 s): Python, torch and the product against the CPU not checked$" "$KD_TMP/slow.out"
	check "--timeout 3: the drain done within it ($(state n1))" \
		sh -c "sinfo -h -N -n n1 -o '%T %E' | grep -Eq '^drain(ed|ing) kernodeck: (the compute probe|no time left)'"
	[ "$r" -eq 1 ] || sed 's/^/# /' "$KD_TMP/slow.out" | head
	scontrol update NodeName=n1 State=RESUME
else
	skip "a budget the probe cannot finish in" "no CPU cgroup can be made here"
fi

# --- a controller that does not answer (slurmctld stopped, SIGSTOP): the
# drain's scontrol calls end within the budget too, and the drain that was
# not done is said
if kill -STOP "$(cat "$SL/slurmctld.pid")" 2>/dev/null; then
	t0=$(date +%s%N)
	health n1 KD_SYSROOT="$KD_TMP/kernel-root" "$KD_BIN" health "$P" --timeout 4 --drain \
		>"$KD_TMP/noctl.out" 2>"$KD_TMP/noctl.err"
	r=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	kill -CONT "$(cat "$SL/slurmctld.pid")"
	check "a controller that does not answer: exit 1 (got $r)" test "$r" -eq 1
	check "a controller that does not answer: ended within 4 s + 2 s (${ms} ms)" test "$ms" -le 6000
	check "a controller that does not answer: not drained, scontrol named" \
		grep -q "^kernodeck health: n1 not drained: \`scontrol show node n1\` timed out" "$KD_TMP/noctl.err"
	[ "$r" -eq 1 ] || sed 's/^/# /' "$KD_TMP/noctl.out" "$KD_TMP/noctl.err" | head
	sed 's/^/# /' "$KD_TMP/noctl.err" | head -3
else
	skip "a controller that does not answer" "slurmctld's pid file cannot be read"
fi

# --- health wrote nothing in the project but its logs
find "$P" -type f -not -path '*/kernodeck/logs/*' -exec sha256sum {} + | sort >"$KD_TMP/after"
check "nothing in the project changed but kernodeck/logs/" cmp -s "$KD_TMP/before" "$KD_TMP/after"
check "one log per node, its last run only (logs: $(ls "$P/kernodeck/logs" | grep health | tr '\n' ' '))" \
	test "$(ls "$P/kernodeck/logs" | grep -c health)" -eq 3 -a -s "$P/kernodeck/logs/health-n2.log"

# --- as an unprivileged user (setpriv) that cannot write the project: the
# check runs and writes nothing, not even its log
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && nobody_bin; then
	chmod 755 "$KD_TMP"
	chmod -R a+rX "$P"
	nlogs=$(ls "$P/kernodeck/logs" | wc -l)
	health n1 setpriv --reuid=65534 --regid=65534 --clear-groups env "$KD_BIN" health "$P" --timeout 60 \
		>"$KD_TMP/nobody.out" 2>&1
	r=$?
	check "as nobody, the project read-only to it: exit 0 (got $r)" test "$r" -eq 0
	[ "$r" -eq 0 ] || sed 's/^/# /' "$KD_TMP/nobody.out" | head
	check "as nobody: no log written" test "$(ls "$P/kernodeck/logs" | wc -l)" -eq "$nlogs"
else
	skip "as nobody, the project read-only to it" "not root, or no setpriv"
fi

# --- the run-changing variables against the fleet's rows: a fleet folder
# whose node files carry env rows (n1..n3 with CUDA_VISIBLE_DEVICES=0)
job=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$KD_TMP/fleet.txt")
mkdir -p "$P/kernodeck/fleet/envtest"
/usr/bin/python3 - "$P/kernodeck/fleet/$job" "$P/kernodeck/fleet/envtest" <<'PYEOF'
import json, os, sys
dst = sys.argv[2]
for n in ("n1", "n2", "n3"):
    t = {"schema": 1, "job": "envtest", "run": "r", "node": n, "rank": "0", "host": "h",
         "started": "2026-01-01T00:00:00Z", "elapsed_s": 1.0, "status": "passed",
         "stages": [{"id": "system", "status": "passed", "rows": [
             {"id": "env.CUDA_VISIBLE_DEVICES", "status": "info", "observed": "0", "expected": ""}]}]}
    with open(os.path.join(dst, n + ".yaml"), "w") as f:
        json.dump(t, f)   # JSON is YAML
PYEOF
touch "$P/kernodeck/fleet/envtest"
health n1 CUDA_VISIBLE_DEVICES=1 "$KD_BIN" health "$P" --timeout 60 >"$KD_TMP/env.out" 2>&1
r=$?
check "a variable that differs from the fleet's: exit 1 (got $r)" test "$r" -eq 1
check "the variable named with both values" \
	grep -q "^ERROR:  kernodeck: CUDA_VISIBLE_DEVICES=1 differs from the fleet's 0 (3 of 3 nodes)$" "$KD_TMP/env.out"
health n1 CUDA_VISIBLE_DEVICES=0 "$KD_BIN" health "$P" --timeout 60 >"$KD_TMP/env0.out" 2>&1
r=$?
check "the fleet's value: exit 0 (got $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/# /' "$KD_TMP/env0.out" | head

# --- the venv's Python against the reference's python.version (major.minor)
sed -i 's/^  version: .*/  version: "3.1.0"/' "$P/kernodeck/reference.yaml"
health n1 CUDA_VISIBLE_DEVICES=0 "$KD_BIN" health "$P" --timeout 60 >"$KD_TMP/py.out" 2>&1
r=$?
check "a venv Python other than the reference's: exit 1 (got $r)" test "$r" -eq 1
check "a venv Python other than the reference's: both versions named" \
	grep -q "^ERROR:  kernodeck: Python $PYVER in the project's venv differs from the reference's 3.1.0$" "$KD_TMP/py.out"
