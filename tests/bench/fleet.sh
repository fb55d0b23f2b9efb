#!/bin/sh
# tests/bench/fleet.sh - `kernodeck fleet` at scale (issues 19 and 30):
#   1. the matrix of 4,096 generated node files (system, compute with its
#      throughputs and libraries, env rows; a few outliers, slow nodes and a
#      variable set on some nodes only), built and printed by `kernodeck diff
#      FOLDER`: target < 1 s (and, for information, --format json, which
#      also holds every node's rows);
#   2. `kernodeck fleet` on three nodes of a private Slurm (tests/slurm-lib.sh)
#      against one node's checks (`kernodeck check --stage rebuild`, found up
#      to date, then `--stage system` and `--stage compute`): target <= 1.3x.
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
N=${KD_BENCH_NODES:-4096}
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
    gf = 40000.0 * (0.3 if i % 500 == 7 else 1.0 + (i % 13) / 100.0)
    out += ["  - id: compute.perf-matmul", "    status: info",
            "    observed: %.4g GFLOP/s on cuda:0, bfloat16 4096x4096 (median of 5 windows of 0.2 s)" % gf,
            "    expected: ''",
            "  - id: compute.perf-copy", "    status: info",
            "    observed: %.4g GB/s on cuda:0 (median of 5 windows of 0.2 s)" % (1500.0 + i % 11),
            "    expected: ''",
            "  - id: compute.libraries", "    status: info",
            "    observed: '214 shared objects: 40 from wheels, 170 Debian, 0 conda, 4 loose'",
            "    expected: ''"]
    for lib, path in (("libcudart", "nvidia/cuda_runtime/lib/libcudart.so.12 (wheel nvidia_cuda_runtime_cu12 12.4.127)"),
                      ("libcublas", "nvidia/cublas/lib/libcublas.so.12 (wheel nvidia_cublas_cu12 12.4.5.8)"),
                      ("libcudnn", "nvidia/cudnn/lib/libcudnn.so.9 (wheel nvidia_cudnn_cu12 9.1.0.70)"),
                      ("libnccl", "nvidia/nccl/lib/libnccl.so.2 (wheel nvidia_nccl_cu12 2.21.5)"),
                      ("libgomp", "torch/lib/libgomp-a34b3233.so.1 (wheel torch 2.5.1)")):
        out += ["  - id: compute.lib.%s" % lib, "    status: info",
                "    observed: /venv/lib/python3.11/site-packages/%s" % path, "    expected: ''"]
    out += ["- id: env", "  status: passed", "  rows:"]
    env = [("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"), ("HIP_VISIBLE_DEVICES", None),
           ("ROCR_VISIBLE_DEVICES", None), ("GPU_DEVICE_ORDINAL", None), ("ZE_AFFINITY_MASK", None),
           ("NVIDIA_VISIBLE_DEVICES", None), ("LD_LIBRARY_PATH", "/usr/local/cuda/lib64"),
           ("LD_PRELOAD", None), ("OMP_NUM_THREADS", "8"), ("NCCL_IB_DISABLE", "0")]
    if i % 1024 == 9:
        env.append(("NCCL_P2P_DISABLE", "1"))
    for k, v in env:
        if v is None:
            v = "unset"
        out += ["  - id: env.%s" % k, "    status: info", "    observed: '%s'" % v, "    expected: ''"]
    with open(os.path.join(folder, name + ".yaml"), "w") as f:
        f.write("\n".join(out) + "\n")
PYEOF
"$KD_BIN" diff "$F" --format json >"$KD_TMP/m.json"
ndiff=$(/usr/bin/python3 -c "import json,sys; t = json.load(open(sys.argv[1])); print(len(t['nodes']), len(t['differences']), t['differences'][0]['check'], len(t['differences'][0]['outliers']))" "$KD_TMP/m.json")
t=$(median "$KD_BIN" diff "$F")
tj=$(median "$KD_BIN" diff "$F" --format json)
met=$(awk -v t="$t" 'BEGIN { print (t < 1.0) ? "yes" : "no" }')
echo "| what | input | kernodeck | alternative | ratio (wall) | ratio (CPU) | target | met | load |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "| fleet matrix (kernodeck diff FOLDER) | $N node files, 42 checks | ${t} s | - | - | - | < 1 s | $met | $(load) |"
echo "| the same, --format json (every node's rows too: $(($(wc -c <"$KD_TMP/m.json") / 1048576)) MiB) | $N node files | ${tj} s | - | - | - | - | - | $(load) |"
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
# one node's checks: the same work as fleet's, on this machine alone (the
# rebuild's check, found up to date, then system and compute, timed as the
# fleet's node tasks time it: KD_PROBE_PERF)
one() { "$KD_BIN" check "$P" --stage rebuild && "$KD_BIN" check "$P" --stage system &&
	KD_PROBE_PERF=1 "$KD_BIN" check "$P" --stage compute; }
t1=$(median one)
t1f=$(median "$KD_BIN" fleet "$P" --nodes 1 --timeout 120)
t3=$(median "$KD_BIN" fleet "$P" --nodes 3 --timeout 120)
ratio=$(awk -v a="$t3" -v b="$t1" 'BEGIN { printf "%.2f", a / b }')
met=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.3) ? "yes" : "no" }')
echo "| fleet on 3 nodes (system, compute) | 3 slurmd on this host | ${t3} s | one node's checks ${t1} s | ${ratio} | - | <= 1.3x | $met | $(load) |"
r1=$(awk -v a="$t1f" -v b="$t1" 'BEGIN { printf "%.2f", a / b }')
echo "| fleet on 1 node (system, compute) | 1 slurmd | ${t1f} s | one node's checks ${t1} s | ${r1} | - | (the cost of srun and the matrix) | - | $(load) |"
echo "- the three nodes share this host's $(nproc) cores: their torch imports run side by side"
