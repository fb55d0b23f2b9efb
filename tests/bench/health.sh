#!/bin/sh
# tests/bench/health.sh - `kernodeck health` on the demo (issue 30, point 6):
# the whole check of one node (stage 2's cheap facts, the probe in its
# smallest form, the run-changing variables) against `python -c "import
# torch"` in the same venv, the floor of any probe.  Target: every run under
# 10 s (health's default budget, what a HealthCheckProgram may take); the
# ratio is shown.
#
# Usage: sh tests/bench/health.sh   (KD_BIN: the built kernodeck; KD_BENCH_RUNS
# runs, default 5, the median and the slowest kept).  Prints the Markdown
# rows of tests/bench/lib.sh's table.  Needs Debian's python3-torch.
set -u
KD_SRCDIR=${KD_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ -z "${KD_BIN:-}" ]; then
	KD_BIN=$(ls -t "$KD_SRCDIR"/build*/kernodeck 2>/dev/null | head -n 1)
fi
export KD_BIN KD_SRCDIR
. "$KD_SRCDIR/tests/lib.sh"
RUNS=${KD_BENCH_RUNS:-5}
load() { cut -d' ' -f1 /proc/loadavg; }
# walls CMD...: RUNS wall times of CMD in seconds, one a line, sorted
walls() {
	_i=0
	: >"$KD_TMP/times"
	while [ "$_i" -lt "$RUNS" ]; do
		_t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		_t1=$(date +%s%N)
		echo $(((_t1 - _t0) / 1000)) >>"$KD_TMP/times"
		_i=$((_i + 1))
	done
	sort -n "$KD_TMP/times"
}
median() { awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] / 1e6 }'; }
slowest() { awk '{ v = $1 } END { printf "%.3f", v / 1e6 }'; }
P="$KD_TMP/demo"
"$KD_BIN" demo "$P" --create-only >"$KD_TMP/demo.txt" 2>&1 || {
	echo "health.sh: the demo cannot be made:" >&2
	cat "$KD_TMP/demo.txt" >&2
	exit 3
}
# the demo's stages make its venv (.venv-rebuild), as a user's check would
"$KD_BIN" check "$P" >"$KD_TMP/check.txt" 2>&1
VPY="$P/.venv-rebuild/bin/python"
[ -x "$VPY" ] || {
	echo "health.sh: the demo's check made no venv:" >&2
	tail -n 20 "$KD_TMP/check.txt" >&2
	exit 3
}
"$KD_BIN" health "$P" >"$KD_TMP/health.txt" 2>&1
rc=$?
walls "$VPY" -c "import torch" >"$KD_TMP/alt"
walls "$KD_BIN" health "$P" >"$KD_TMP/kd"
a=$(median <"$KD_TMP/alt")
k=$(median <"$KD_TMP/kd")
mx=$(slowest <"$KD_TMP/kd")
ratio=$(awk -v a="$k" -v b="$a" 'BEGIN { printf "%.2f", a / b }')
met=$(awk -v t="$mx" 'BEGIN { print (t < 10.0) ? "yes" : "no" }')
echo "| what | input | kernodeck | alternative | ratio (wall) | ratio (CPU) | target | met | load |"
echo "|---|---|---|---|---|---|---|---|---|"
echo "| node health check (kernodeck health) | the demo, no fleet | ${k} s (slowest ${mx} s) | import torch ${a} s | ${ratio} | - | < 10 s | $met | $(load) |"
echo "- kernodeck health on the demo exits $rc; its lines: $(tr '\n' ' ' <"$KD_TMP/health.txt")"
