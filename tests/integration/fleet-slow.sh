# kd-test: serial (run alone: see tests/run-all.sh)
# tests/integration/fleet-slow.sh - the slow node, on a private Slurm of
# three nodes (slurm-lib.sh) whose n3 runs inside a CPU cgroup with a fifth
# of a core (SL_SLOW_NODE): the compute probe's timed product names n3 below
# the fleet's median (--slow), and with --collective --pairs the slow rank
# and the node common to the slow pairs is n3.  Nothing here depends on a
# timing beyond the outlier factor: with three nodes the median is the
# slower of the two free ones, so only n3 can fall below 0.8 of it, and a
# fifth of a core is far below.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/slurm-lib.sh"
need_python "fleet slow" "Debian's python3-torch is not installed" torch
need_slurm "fleet slow"
P="$KD_TMP/proj"
fleet_project "$P"
# one thread per node task: the nodes share this machine's cores
export OMP_NUM_THREADS=1 KD_TIMEOUT_COLLECTIVE=240
SL_SLOW_NODE=n3
if ! slurm_start 3; then
	notok "a private Slurm with three nodes starts"
	exit 0
fi
ok "a private Slurm with three nodes starts"
if ! slurm_throttled; then
	skip "fleet slow" "no CPU cgroup can be made here (neither v1 cpu.cfs_quota_us nor v2 cpu.max)"
	exit 0
fi
ok "n3's slurmd runs in a cgroup with a fifth of a core ($SL_CG)"

"$KD_BIN" fleet "$P" --nodes 3 --stage compute --collective --pairs --timeout 500 \
	--format json >"$KD_TMP/slow.json" 2>"$KD_TMP/slow.err"
r=$?
check "a slow node: exit 1 (got $r)" test "$r" -eq 1
[ "$r" -eq 1 ] || tail -n 15 "$KD_TMP/slow.err" | sed 's/^/# /'
is "$KD_TMP/slow.json" "[n['name'] + ':' + n['status'] for n in t['nodes']]" \
	"['n1:passed', 'n2:passed', 'n3:passed']" "every node computes right (slow is not failed)"
is "$KD_TMP/slow.json" "[d['outliers'] for d in t['differences'] if d['check'] == 'compute.perf-matmul']" "[['n3']]" \
	"compute.perf-matmul: n3 named slow"
is "$KD_TMP/slow.json" "[(d['slow_fraction'], round(d['median'], 6) == round(sorted(float(v.split()[0]) for v in d['values'].values())[1], 6)) for d in t['differences'] if d['check'] == 'compute.perf-matmul']" \
	"[(0.8, True)]" "its difference carries the fraction and the fleet's median"
check "the text names n3's value and the median" /usr/bin/python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))
d = [d for d in t['differences'] if d['check'] == 'compute.perf-matmul'][0]
assert d['text'].startswith('n3: ' + d['values']['n3'] + ' (info), below 0.8 of the fleet') and ' median %.6g;' % d['median'] in d['text'], d['text']" "$KD_TMP/slow.json"
is "$KD_TMP/slow.json" "[d['outliers'] for d in t['differences'] if d['check'] == 'collective.rank']" "[['n3']]" \
	"collective.rank: n3 the slow rank"
is "$KD_TMP/slow.json" "[d['outliers'] for d in t['differences'] if d['check'] == 'collective.link']" "[['n3']]" \
	"collective.link: n3 the node common to the slow pairs"
is "$KD_TMP/slow.json" "sorted((p['a'], p['b']) for s in t['nodes'][0]['stages'] if s['id'] == 'collective' for p in s['report']['pairs'])" \
	"[(0, 1), (0, 2), (1, 2)]" "--pairs: every pair of the three ranks measured"
check "n3's link row names the slow pairs n1-n3 and n2-n3" /usr/bin/python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))
o = [r['observed'] for n in t['nodes'] if n['name'] == 'n3' for s in n['stages'] if s['id'] == 'collective' for r in s['rows'] if r['id'] == 'collective.link'][0]
assert o.startswith('rank 2 (n3) is in every slow pair: ') and 'n1-n3 ' in o and 'n2-n3 ' in o and 'n1-n2 ' not in o, o" "$KD_TMP/slow.json"
check "bad usage: --pairs without --collective, --slow 0 (exit 2)" sh -c "
	'$KD_BIN' fleet '$P' --pairs 2>/dev/null; a=\$?; '$KD_BIN' fleet '$P' --slow 0 2>/dev/null; test \$a -eq 2 -a \$? -eq 2"
