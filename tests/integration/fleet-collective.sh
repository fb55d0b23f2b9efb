# kd-test: serial (run alone: see tests/run-all.sh)
# tests/integration/fleet-collective.sh - `kernodeck fleet --collective` on a
# private Slurm of three nodes (slurm-lib.sh): Gloo on three ranks (the
# reference's backend is cpu), the sum checked and the bandwidth measured;
# then a rank that never joins (a TaskProlog keeps n3 out), named by the
# others within the timeout.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/slurm-lib.sh"
need_python "fleet collective" "Debian's python3-torch is not installed" torch
need_slurm "fleet collective"
P="$KD_TMP/proj"
fleet_project "$P"
export KD_TIMEOUT_COLLECTIVE=8
cat >"$KD_TMP/prolog" <<EOF2
#!/bin/sh
[ -e "$KD_TMP/slurm/absent" ] && [ "\$SLURMD_NODENAME" = n3 ] && echo "export KD_FAULT_COLLECTIVE_ABSENT=1"
exit 0
EOF2
chmod +x "$KD_TMP/prolog"
if ! slurm_start 3 "$KD_TMP/prolog"; then
	notok "a private Slurm with three nodes starts"
	exit 0
fi
ok "a private Slurm with three nodes starts"

# --slow 0.3: three ranks on shared cores differ; only a gross outlier is named
"$KD_BIN" fleet "$P" --nodes 3 --stage system --collective --slow 0.3 --timeout 120 --format json \
	>"$KD_TMP/gloo.json" 2>"$KD_TMP/gloo.err"
r=$?
check "gloo on three ranks: exit 0 (got $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 15 "$KD_TMP/gloo.err" | sed 's/^/# /'
is "$KD_TMP/gloo.json" "[n['status'] for n in t['nodes']]" "['passed', 'passed', 'passed']" "every node passed"
is "$KD_TMP/gloo.json" "sorted({r['id']: r['status'] for s in t['nodes'][0]['stages'] if s['id'] == 'collective' for r in s['rows']}.items())" \
	"[('collective.allreduce', 'pass'), ('collective.backend', 'pass'), ('collective.bandwidth', 'pass'), ('collective.join', 'pass'), ('collective.rank', 'pass')]" \
	"the collective's rows: join, backend, all-reduce, bandwidth, the rank's speed"
is "$KD_TMP/gloo.json" "sorted(len(s['report']['rank_rate']) for n in t['nodes'] for s in n['stages'] if s['id'] == 'collective')" "[3, 3, 3]" \
	"every rank has every rank's speed"
is "$KD_TMP/gloo.json" "sorted(set(s['report']['backend'] for n in t['nodes'] for s in n['stages'] if s['id'] == 'collective'))" "['gloo']" \
	"the backend is gloo, as the reference's cpu says"
is "$KD_TMP/gloo.json" "sorted(s['report']['rank'] for n in t['nodes'] for s in n['stages'] if s['id'] == 'collective')" "[0, 1, 2]" \
	"three ranks, 0 to 2, from SLURM_PROCID"
is "$KD_TMP/gloo.json" "all(z['sum_ok'] and z['ms'] > 0 and z['busbw_gbps'] > 0 for n in t['nodes'] for s in n['stages'] if s['id'] == 'collective' for z in s['report']['sizes'])" True \
	"every size: the sum is right, a time and a bus bandwidth per rank"
is "$KD_TMP/gloo.json" "t['differences']" "[]" "the bandwidth (a measurement) is not a difference"

touch "$KD_TMP/slurm/absent"
t0=$(date +%s)
"$KD_BIN" fleet "$P" --nodes 3 --stage system --collective --timeout 120 --format json \
	>"$KD_TMP/absent.json" 2>"$KD_TMP/absent.err"
r=$?
t1=$(date +%s)
check "a rank that never joins: exit 1 (got $r)" test "$r" -eq 1
check "a rank that never joins: ended in $((t1 - t0)) s (timeout 8 s)" test $((t1 - t0)) -lt 40
is "$KD_TMP/absent.json" "[r['observed'] for s in t['nodes'][0]['stages'] if s['id'] == 'collective' for r in s['rows'] if r['id'] == 'collective.join']" \
	"['rank 2 (n3) did not join within 8 s']" "n1 names the rank and node that did not join"
is "$KD_TMP/absent.json" "[d['outliers'] for d in t['differences'] if d['check'] == 'collective.join']" "[['n3']]" \
	"the matrix: collective.join differs, n3 the outlier"
