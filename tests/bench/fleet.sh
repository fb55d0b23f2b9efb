#!/bin/sh
# tests/bench/fleet.sh - `kernodeck fleet` at scale (issue 19):
#   1. the matrix of 1,000 generated node files (system and compute rows,
#      a few outliers), built by `kernodeck diff FOLDER`: target < 1 s;
#   2. `kernodeck fleet` on three nodes of a private Slurm (tests/slurm-lib.sh)
#      against one node's checks (`kernodeck check --stage system` and
#      `--stage compute` one after the other): target <= 1.3x.
# Usage: sh tests/bench/fleet.sh   (KD_BIN: the built kernodeck; KD_BENCH_RUNS
# runs per row, default 5, the median is kept).  Prints the Markdown rows of
# tests/bench/lib.sh's table.  Needs Slurm and Debian's python3-torch for row 2.
set -u
KD_SRCDIR=${KD_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ -z "${KD_BIN:-}" ]; then
	KD_BIN=$(ls -t "$KD_SRCDIR"/build*/kernodeck 2>/dev/null | head -n 1)
fi
export KD_BIN KD_SRCDIR
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/slurm-lib.sh"
RUNS=${KD_BENCH_RUNS:-5}
N=${KD_BENCH_NODES:-1000}
load() { cut -d' ' -f1 /proc/loadavg; }
# median CMD...: the median wall time of RUNS runs, in seconds
median() {
	_i=0
	: >"$KD_TMP/times"
	while [ "$_i" -lt "$RUNS" ]; do
		_t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		_t1=$(date +%s%N)
		echo $(((_t1 - _t0) / 1000)) >>"$KD_TMP/times"
		_i=$((_i + 1))
	done
	sort -n "$KD_TMP/times" | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] / 1e6 }'
}
F="$KD_TMP/fleet/1"
mkdir -p "$F"
/usr/bin/python3 - "$F" "$N" <<'PYEOF'
import os, sys
folder, n = sys.argv[1], int(sys.argv[2])
checks = [("system.os", "Debian GNU/Linux 12 (bookworm)"), ("system.arch", "x86_64"),
          ("system.gpu_vendor", "nvidia"), ("system.gpu_model", "NVIDIA H100 80GB HBM3"),
          ("system.gpu_count", "8"), ("system.driver", "550.54.15"), ("system.cuda", "12.4"),
          ("system.rocm", "none"), ("system.backend", "cuda"), ("system.python", "3.11"),
          ("system.interpreter", "/usr/bin/python3 3.11.2"), ("system.variant", "cu121"),
          ("system.devices", "9 nodes, 0 denied")]
compute = ["python", "import-torch", "precision", "backend", "device", "alloc", "h2d",
           "compute", "sync", "d2h", "agreement"]
for i in range(n):
    name = "gpu%04d" % i
    out = ["schema: 1", 'job: "1"', "run: r", "node: %s" % name, 'rank: "%d"' % i,
           "host: %s" % name, "status: passed", "stages:", "- id: system", "  status: passed", "  rows:"]
    for cid, val in checks:
        if cid == "system.driver" and i % 97 == 5:
            val = "535.104.05"
        out += ["  - id: %s" % cid, "    status: pass", "    observed: %s" % val, "    expected: %s" % val]
    out += ["- id: compute", "  status: passed", "  rows:"]
    for c in compute:
        out += ["  - id: compute.%s" % c, "    status: pass",
                "    observed: passed on cuda:0 in %.1f ms" % (0.1 + i % 7), "    expected: ''"]
    with open(os.path.join(folder, name + ".yaml"), "w") as f:
        f.write("\n".join(out) + "\n")
PYEOF
"$KD_BIN" diff "$F" --format json >"$KD_TMP/m.json"
ndiff=$(/usr/bin/python3 -c "import json,sys; t = json.load(open(sys.argv[1])); print(len(t['nodes']), len(t['differences']), t['differences'][0]['check'], len(t['differences'][0]['outliers']))" "$KD_TMP/m.json")
t=$(median "$KD_BIN" diff "$F" --format json)
met=$(awk -v t="$t" 'BEGIN { print (t < 1.0) ? "yes" : "no" }')
echo "| what | input | kernodeck | alternative | ratio (wall) | ratio (CPU) | target | met | load |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "| fleet matrix (kernodeck diff FOLDER) | $N node files, 24 checks | ${t} s | - | - | - | < 1 s | $met | $(load) |"
echo "- the matrix of $N nodes: nodes, differences, first difference, its outliers: $ndiff"

if ! command -v srun >/dev/null 2>&1 || ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
	echo "- fleet on three nodes: not measured (Slurm or python3-torch missing)"
	exit 0
fi
FX="$KD_SRCDIR/tests/fixtures"
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
cat >"$P/kernodeck/reference.yaml" <<EOF2
schema: 1
python:
  version: "$(/usr/bin/python3 -c 'import platform; print(platform.python_version())')"
  interpreter: /usr/bin/python3
  install: {system_site_packages: true, without_pip: true}
system: {os: Debian GNU/Linux 12 (bookworm), arch: $(uname -m), gpu_vendor: none, gpu_count: 0, backend: cpu}
EOF2
printf 'torch\n' >"$P/requirements-rebuild.txt"
export KD_SYSROOT="$FX/sysroot/cpu-only"
slurm_start 3 || exit 3
"$KD_BIN" check "$P" --stage rebuild >/dev/null 2>&1
one() { "$KD_BIN" check "$P" --stage system && "$KD_BIN" check "$P" --stage compute; }
t1=$(median one)
t1f=$(median "$KD_BIN" fleet "$P" --nodes 1 --timeout 120)
t3=$(median "$KD_BIN" fleet "$P" --nodes 3 --timeout 120)
ratio=$(awk -v a="$t3" -v b="$t1" 'BEGIN { printf "%.2f", a / b }')
met=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.3) ? "yes" : "no" }')
echo "| fleet on 3 nodes (system, compute) | 3 slurmd on this host | ${t3} s | one node's checks ${t1} s | ${ratio} | - | <= 1.3x | $met | $(load) |"
r1=$(awk -v a="$t1f" -v b="$t1" 'BEGIN { printf "%.2f", a / b }')
echo "| fleet on 1 node (system, compute) | 1 slurmd | ${t1f} s | one node's checks ${t1} s | ${r1} | - | (the cost of srun and the matrix) | - | $(load) |"
echo "- the three nodes share this host's $(nproc) cores: their torch imports run side by side"
