# kd-test: serial (run alone: see tests/run-all.sh)
# tests/integration/fleet-matrix.sh - `kernodeck fleet` against a real Slurm
# started here (munged, slurmctld, three slurmd on this host: slurm-lib.sh):
# three nodes that agree, one made to differ (a TaskProlog exports a fixture
# system root on n2 only), one node down (its slurmd stopped), srun missing,
# no controller; the node task without the lock; JUnit.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/slurm-lib.sh"
need_python "fleet matrix" "Debian's python3-torch is not installed" torch
need_slurm "fleet matrix"
FX="$KD_SRCDIR/tests/fixtures"
P="$KD_TMP/proj"
fleet_project "$P"

# --- srun missing: exit 3, and the message names it
PATH=/nonexistent "$KD_BIN" fleet "$P" --stage system >"$KD_TMP/nosrun.out" 2>"$KD_TMP/nosrun.err"
r=$?
check "srun not on PATH: exit 3 (got $r)" test "$r" -eq 3
check "srun not on PATH: the message says so" grep -q "srun is not on PATH" "$KD_TMP/nosrun.err"

# a TaskProlog that gives n2 another machine when $SL/differ exists
cat >"$KD_TMP/prolog" <<EOF
#!/bin/sh
[ -e "$KD_TMP/slurm/differ" ] && [ "\$SLURMD_NODENAME" = n2 ] && echo "export KD_SYSROOT=$FX/sysroot/nvidia-open"
[ -e "$KD_TMP/slurm/envdiffer" ] && [ "\$SLURMD_NODENAME" = n3 ] && echo "export CUDA_VISIBLE_DEVICES=1"
[ -e "$KD_TMP/slurm/envdiffer" ] && echo "export OMP_NUM_THREADS=1"
exit 0
EOF
chmod +x "$KD_TMP/prolog"
if ! slurm_start 3 "$KD_TMP/prolog"; then
	notok "a private Slurm with three nodes starts"
	exit 0
fi
ok "a private Slurm with three nodes starts"

# --- three nodes that agree, the default stages (system and compute): the
# rebuild is done once, before the nodes run
t0=$(date +%s)
"$KD_BIN" fleet "$P" --nodes 3 --slow 0.3 --timeout 120 --junit "$KD_TMP/agree.xml" >"$KD_TMP/agree.txt" 2>"$KD_TMP/agree.err"
r=$?
check "three nodes that agree: exit 0 (got $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/# /' "$KD_TMP/agree.err" | tail -20
check "the summary: 3 nodes, 0 differ" grep -q "fleet: 3 nodes, 0 differ$" "$KD_TMP/agree.txt"
check "agreeing rows are folded into one line" grep -Eq "^  pass system.os +all 3 nodes: Debian GNU/Linux 12" "$KD_TMP/agree.txt"
check "compute ran on every node (folded)" grep -Eq "^  pass compute.agreement +all 3 nodes:" "$KD_TMP/agree.txt"
check "no DIFF row" sh -c "! grep -q DIFF '$KD_TMP/agree.txt'"
job=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$KD_TMP/agree.txt")
check "a node file per node in kernodeck/fleet/$job/" test -f "$P/kernodeck/fleet/$job/n1.yaml" -a \
	-f "$P/kernodeck/fleet/$job/n2.yaml" -a -f "$P/kernodeck/fleet/$job/n3.yaml"
check "the rebuild ran once, in the project (one venv, its log once)" \
	test "$(grep -c "the rebuild, once" "$KD_TMP/agree.err")" -eq 1 -a -x "$P/.venv-rebuild/bin/python"
check "JUnit: a test case per node and stage, none failed" /usr/bin/python3 - "$KD_TMP/agree.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
cases = [(c.get("classname"), c.get("name")) for c in s.findall("testcase")]
assert sorted(cases) == sorted(("kernodeck.fleet.n%d" % i, st) for i in (1, 2, 3) for st in ("system", "compute", "env")), cases
assert s.get("failures") == "0" and s.get("tests") == "9", s.attrib
EOF

# --- inside an allocation (salloc): fleet runs a step of it, on all its nodes
salloc -N 3 --time=2 "$KD_BIN" fleet "$P" --stage system --timeout 60 --format json \
	>"$KD_TMP/alloc.json" 2>"$KD_TMP/alloc.err"
r=$?
check "inside an allocation: exit 0 (got $r)" test "$r" -eq 0
is "$KD_TMP/alloc.json" "[n['name'] for n in t['nodes']]" "['n1', 'n2', 'n3']" "inside an allocation: its three nodes"
check "inside an allocation: one job, the allocation's (no second one asked for)" \
	grep -q "Granted job allocation $(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['job'])" "$KD_TMP/alloc.json")" "$KD_TMP/alloc.err"

# --- a node task never takes the lock nor writes the state
sum0=$(sha256sum <"$P/kernodeck/state.yaml")
hold_lock "$P/kernodeck/lock"
SLURMD_NODENAME=solo SLURM_JOB_ID=77 "$KD_BIN" fleet "$P" --node-task --run r1 --stage system \
	>"$KD_TMP/task.out" 2>"$KD_TMP/task.err"
r=$?
release_lock "$P/kernodeck/lock"
check "a node task runs while another kernodeck holds the lock (exit $r)" test "$r" -eq 0
check "it wrote its node file" grep -q "^node: solo" "$P/kernodeck/fleet/77/solo.yaml"
check "it left state.yaml as it was" test "$(sha256sum <"$P/kernodeck/state.yaml")" = "$sum0"

# --- a variable a prolog sets on n3 only (CUDA_VISIBLE_DEVICES): a row of
# the matrix, n3 named, exit 1; one set on every node agrees
touch "$KD_TMP/slurm/envdiffer"
"$KD_BIN" fleet "$P" --nodes 3 --stage system --timeout 60 --format json >"$KD_TMP/env.json" 2>"$KD_TMP/env.err"
r=$?
"$KD_BIN" diff "$P/kernodeck/fleet/$(q "$KD_TMP/env.json" "t['job']")" >"$KD_TMP/env.txt" 2>&1
rm -f "$KD_TMP/slurm/envdiffer"
check "a variable set on one node only: exit 1 (got $r)" test "$r" -eq 1
is "$KD_TMP/env.json" "[(d['outliers'], d['values']) for d in t['differences'] if d['check'] == 'env.CUDA_VISIBLE_DEVICES']" \
	"[(['n3'], {'n1': 'unset', 'n2': 'unset', 'n3': '1'})]" "json: env.CUDA_VISIBLE_DEVICES differs, n3 named, unset elsewhere"
is "$KD_TMP/env.json" "[n['name'] for n in t['nodes'] if n['differs']]" "['n3']" "json: only n3 differs"
is "$KD_TMP/env.json" "[(a['value'], a['nodes']) for a in t['agree'] if a['check'] == 'env.OMP_NUM_THREADS']" \
	"[('1', 3)]" "json: a variable set alike on every node is a folded row"
check "text: n3 and the variable named against the majority" \
	grep -q "n3: 1 (info) where 2 nodes have unset (info)" "$KD_TMP/env.txt"

# --- n2 made to differ: exit 1, n2 and the check named
touch "$KD_TMP/slurm/differ"
"$KD_BIN" fleet "$P" --nodes 3 --stage system --timeout 60 --format json --junit "$KD_TMP/differ.xml" \
	>"$KD_TMP/differ.json" 2>"$KD_TMP/differ.err"
r=$?
"$KD_BIN" fleet "$P" --nodes 3 --stage system --timeout 60 >"$KD_TMP/differ.txt" 2>/dev/null
rm -f "$KD_TMP/slurm/differ"
check "one node differs: exit 1 (got $r)" test "$r" -eq 1
is "$KD_TMP/differ.json" "[n['name'] + ':' + n['status'] for n in t['nodes']]" \
	"['n1:passed', 'n2:failed', 'n3:passed']" "json: n2 failed against the reference, n1 and n3 passed"
is "$KD_TMP/differ.json" "[d['outliers'] for d in t['differences'] if d['check'] == 'system.os']" "[['n2']]" \
	"json: system.os differs, n2 the outlier"
is "$KD_TMP/differ.json" "sorted(next(d for d in t['differences'] if d['check'] == 'system.os')['values'])" \
	"['n1', 'n2', 'n3']" "json: the difference holds every node's value"
is "$KD_TMP/differ.json" "[d['check'] for d in t['differences'] if d['check'] == 'system.driver' and all(s == 'pass' for s in d['statuses'].values())]" \
	"['system.driver']" "nodes that differ are reported even when each passes (the driver)"
check "text: the outlier named against the majority" \
	grep -q "n2: Ubuntu 24.04.1 LTS (fail) where 2 nodes have Debian GNU/Linux 12 (bookworm) (pass)" "$KD_TMP/differ.txt"
check "text: agreeing rows still folded" grep -Eq "^  pass system.arch +all 3 nodes:" "$KD_TMP/differ.txt"
check "JUnit: n2's system case fails naming system.os" /usr/bin/python3 - "$KD_TMP/differ.xml" <<'EOF'
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
f = {c.get("classname"): c.find("failure") for c in s.findall("testcase") if c.get("name") == "system"}
assert f["kernodeck.fleet.n1"] is None and f["kernodeck.fleet.n3"] is None, f
assert "system.os differs" in f["kernodeck.fleet.n2"].get("message"), f["kernodeck.fleet.n2"].attrib
EOF

djob=$(sed -n 's/^job \([0-9]*\) .*/\1/p' "$KD_TMP/differ.txt")
"$KD_BIN" diff "$P/kernodeck/fleet/$djob" >"$KD_TMP/diff.txt" 2>&1
r=$?
check "kernodeck diff FLEET_FOLDER: exit 1 (got $r)" test "$r" -eq 1
check "kernodeck diff FLEET_FOLDER: the same matrix as fleet printed" cmp -s "$KD_TMP/differ.txt" "$KD_TMP/diff.txt"
"$KD_BIN" dossier "$P" --out "$KD_TMP/dossier" >/dev/null 2>&1
check "the dossier README has the fleet's tables" sh -c "grep -q '^## The fleet' '$KD_TMP/dossier/README.md' && grep -q '^| n2 | failed, differs |' '$KD_TMP/dossier/README.md' && grep -q '^| system.os | pass | 2 of 3 | Debian GNU/Linux 12 (bookworm) | n2: Ubuntu' '$KD_TMP/dossier/README.md'"
check "the dossier holds the node files, listed in SHA256SUMS" sh -c "grep -q ' kernodeck/fleet/$djob/n2.yaml\$' '$KD_TMP/dossier/SHA256SUMS' && cd '$KD_TMP/dossier' && sha256sum -c --quiet SHA256SUMS"

# --- n3 down (its slurmd stopped; the controller still counts it)
slurm_stop_node n3
t0=$(date +%s)
"$KD_BIN" fleet "$P" --nodes 3 --stage system --timeout 60 --format json >"$KD_TMP/down.json" 2>"$KD_TMP/down.err"
r=$?
t1=$(date +%s)
check "one node down: exit 1 (got $r)" test "$r" -eq 1
check "one node down: no hang ($((t1 - t0)) s, under 30 s)" test $((t1 - t0)) -lt 30
is "$KD_TMP/down.json" "[n['name'] + ':' + n['status'] for n in t['nodes']]" \
	"['n1:passed', 'n2:passed', 'n3:unreachable']" "json: n3 unreachable, the others passed"
is "$KD_TMP/down.json" "'did not answer' in t['nodes'][2]['reason']" True "json: n3's reason given"
is "$KD_TMP/down.json" "t['differences']" "[]" "an unreachable node is a column, not a difference"

# --- no controller: exit 3, what was tried named
pids=$SL_PIDS
slurm_stop
"$KD_BIN" fleet "$P" --nodes 3 --stage system --timeout 60 >/dev/null 2>"$KD_TMP/noctl.err"
r=$?
check "no controller answering: exit 3 (got $r)" test "$r" -eq 3
check "no controller answering: scontrol ping named" grep -q "no controller answers (\`scontrol ping\`" "$KD_TMP/noctl.err"
left=""
for p in $pids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
check "nothing of this Slurm is left running ($pids)" test -z "$left"
check "bad usage: exit 2" sh -c "'$KD_BIN' fleet '$P' --nodes zero 2>/dev/null; test \$? -eq 2"
