# kd-test: serial (run alone: see tests/run-all.sh)
# tests/integration/fleet-cancel.sh - `kernodeck fleet` when nodes are slow,
# on a private Slurm of three nodes (slurm-lib.sh): a node whose probe hangs
# (KD_PROBE_FAULT exported on n2 only by a TaskProlog) is unreachable once the
# budget is spent, the others answer; Ctrl-C during a run cancels the step
# and leaves nothing running on any node.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/slurm-lib.sh"
need_python "fleet cancel" "Debian's python3-torch is not installed" torch
need_slurm "fleet cancel"
P="$KD_TMP/proj"
fleet_project "$P"
# the probe hangs on n2 when $SL/slow exists, on every node when $SL/hang does
cat >"$KD_TMP/prolog" <<EOF2
#!/bin/sh
[ -e "$KD_TMP/slurm/slow" ] && [ "\$SLURMD_NODENAME" = n2 ] && echo "export KD_PROBE_FAULT=device:hang"
[ -e "$KD_TMP/slurm/hang" ] && echo "export KD_PROBE_FAULT=device:hang"
exit 0
EOF2
chmod +x "$KD_TMP/prolog"
if ! slurm_start 3 "$KD_TMP/prolog"; then
	notok "a private Slurm with three nodes starts"
	exit 0
fi
ok "a private Slurm with three nodes starts"
"$KD_BIN" check "$P" --stage rebuild >/dev/null 2>&1
# left: processes of this Slurm's jobs still running (their environment
# names this slurm.conf; the daemons themselves are left out)
left() {
	for _f in $(grep -lzxs "SLURM_CONF=$SL/slurm.conf" /proc/[0-9]*/environ); do
		_p=${_f#/proc/}; _p=${_p%/environ}
		case " $SL_PIDS " in *" $_p "*) continue ;; esac
		grep -qzs "^SLURM_JOB_ID=" "$_f" && echo "$_p"
	done
}

# --- n2 too slow: unreachable once the budget is spent, the others answer
touch "$KD_TMP/slurm/slow"
t0=$(date +%s)
"$KD_BIN" fleet "$P" --nodes 3 --stage compute --timeout 10 --format json >"$KD_TMP/slow.json" 2>"$KD_TMP/slow.err"
r=$?
t1=$(date +%s)
rm -f "$KD_TMP/slurm/slow"
check "a node too slow: exit 1 (got $r)" test "$r" -eq 1
check "a node too slow: ended in $((t1 - t0)) s (budget 10 s)" test $((t1 - t0)) -lt 40
is "$KD_TMP/slow.json" "[n['name'] + ':' + n['status'] for n in t['nodes']]" \
	"['n1:passed', 'n2:unreachable', 'n3:passed']" "n2 unreachable, n1 and n3 answered"
is "$KD_TMP/slow.json" "t['nodes'][1]['reason']" "did not answer within 16 s" "n2: did not answer within the budget"
sleep 1
check "nothing of the step left running ($(left | tr '\n' ' '))" test -z "$(left)"

# --- Ctrl-C while every node's probe hangs
touch "$KD_TMP/slurm/hang"
# (a script's `cmd &` ignores SIGINT: give it back its default, as a shell would)
/usr/bin/python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
	"$KD_BIN" fleet "$P" --nodes 3 --stage compute --timeout 120 >"$KD_TMP/int.out" 2>"$KD_TMP/int.err" &
kd=$!
i=0
while [ "$(left | wc -l)" -lt 3 ] && [ "$i" -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
check "the three node tasks run" test "$(left | wc -l)" -ge 3
sleep 1
t0=$(date +%s)
kill -INT "$kd"
wait "$kd"
r=$?
t1=$(date +%s)
rm -f "$KD_TMP/slurm/hang"
check "Ctrl-C: kernodeck ends by SIGINT (exit $r, 130)" test "$r" -eq 130
check "Ctrl-C: within 20 s ($((t1 - t0)) s)" test $((t1 - t0)) -lt 20
sleep 1
check "Ctrl-C: nothing left running on any node ($(left | tr '\n' ' '))" test -z "$(left)"
check "Ctrl-C: no job left in Slurm" test -z "$(squeue -h 2>&1)"
check "Ctrl-C: the matrix says the nodes did not answer" grep -q "unreachable" "$KD_TMP/int.out"
grep -q unreachable "$KD_TMP/int.out" || { sed "s/^/# /" "$KD_TMP/int.err" | tail -n 20; sed "s/^/# out: /" "$KD_TMP/int.out"; }
