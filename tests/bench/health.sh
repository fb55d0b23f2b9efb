#!/bin/sh
# tests/bench/health.sh - `kernodeck health` on the demo (issue 30, point 6):
# the whole check of one node (stage 2's cheap facts, the probe in its
# smallest form, the run-changing variables) against the wall time of
# `python -c "import torch"` in the same venv, the floor of any probe.
# Target: under 10 s (health's default budget, what a HealthCheckProgram
# may take), and the ratio shown.
#
# Usage: sh tests/bench/health.sh   (KD_BIN, KD_BENCH_RUNS, KD_BENCH_QUICK:
# see lib.sh).  Needs hyperfine and Debian's python3-torch.
. "$(dirname "$0")/lib.sh"
bench_init health
RUNS=${KD_BENCH_RUNS:-10}
[ "$QUICK" = 1 ] && RUNS=3
P="$W/demo"
"$KD_BIN" demo "$P" --create-only >"$W/demo.txt" 2>&1 || {
	echo "health.sh: the demo cannot be made:" >&2
	cat "$W/demo.txt" >&2
	exit 1
}
# the demo's stages up to compute make its venv (.venv-rebuild)
"$KD_BIN" check "$P" >"$W/check.txt" 2>&1
VPY="$P/.venv-rebuild/bin/python"
[ -x "$VPY" ] || {
	echo "health.sh: the demo's rebuild made no venv:" >&2
	tail -n 20 "$W/check.txt" >&2
	exit 1
}
"$KD_BIN" health "$P" >"$W/health.txt" 2>&1
echo "health.sh: kernodeck health on the demo exits $? (the runs below ignore it)" >&2
bench_header "Node health check: kernodeck health on the demo vs python -c \"import torch\" (tests/bench/health.sh)"
hf "$W/h.json" "$RUNS" 1 -i "$VPY -c 'import torch'" "$KD_BIN health $P"
a=$(st "$W/h.json" 0 median); ac=$(st "$W/h.json" 0 cpu)
k=$(st "$W/h.json" 1 median); kc=$(st "$W/h.json" 1 cpu)
mx=$(st "$W/h.json" 1 max)
row "health on the demo vs import torch" "demo, no fleet" "$(t "$k")" "$(t "$a")" \
	"$(ratio "$k" "$a")" "$(ratio "$kc" "$ac")" "< 10 s" "$(met "$mx" '<=' 10 'slowest run')"
bench_footer
