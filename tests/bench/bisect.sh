#!/bin/sh
# tests/bench/bisect.sh - one step of kernodeck bisect (issue 29, point 6)
# against one run of the entry point by hand.  The training demo is checked
# twice, the second time with ATEN_CPU_CAPABILITY=default ("machine B");
# then `kernodeck bisect B-DOSSIER A --layers env` makes two runs (as here,
# and with the env layer; one variable differs, so no halving) and is
# compared with the same two runs of `python train.py --steps 40 --out
# DIR` by hand, with and without the variable.  What bisect adds: the copy
# of the project (reflink or copy, without kernodeck's folder), the plan,
# the comparisons (tensors, the trajectory, the rule) and bisect.yaml.
# Target: at most 1.1x.
#
# Usage: sh tests/bench/bisect.sh   (KD_BIN, KD_BENCH_RUNS, KD_BENCH_QUICK:
# see lib.sh).  Needs hyperfine and Debian's python3-torch.
. "$(dirname "$0")/lib.sh"
bench_init bisect git
RUNS=${KD_BENCH_RUNS:-5}
[ "$QUICK" = 1 ] && RUNS=2
"$PY" -c 'import torch' 2>/dev/null || {
	echo "bisect.sh: $PY cannot import torch (apt-get install python3-torch)" >&2
	exit 3
}
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
unset ATEN_CPU_CAPABILITY

"$KD_BIN" demo "$W/src" --training --create-only >/dev/null 2>&1
for x in a b; do
	git clone -q "$W/src" "$W/$x"
	mkdir -p "$W/$x/kernodeck"
	cp "$W/src/kernodeck/reference.yaml" "$W/$x/kernodeck/"
done
"$KD_BIN" check "$W/a" --quiet >"$W/a.txt" 2>&1 || { cat "$W/a.txt" >&2; exit 1; }
ATEN_CPU_CAPABILITY=default "$KD_BIN" check "$W/b" --quiet >"$W/b.txt" 2>&1 ||
	{ cat "$W/b.txt" >&2; exit 1; }
VPY="$W/a/.venv-rebuild/bin/python"
cat >"$W/byhand.sh" <<SEOF
set -e
cd "$W/a"
rm -rf "$W/h1" "$W/h2"
"$VPY" train.py --steps 40 --out "$W/h1" >/dev/null
ATEN_CPU_CAPABILITY=default "$VPY" train.py --steps 40 --out "$W/h2" >/dev/null
SEOF

bench_header "Bisect: kernodeck bisect --layers env (2 runs) vs the same two runs by hand (tests/bench/bisect.sh)"
# bisect exits 0 when the layer explains the difference, 1 when this CPU
# gives the same bits either way: both are a measured run
hf "$W/r.json" "$RUNS" 1 -i "sh $W/byhand.sh" \
	"$KD_BIN bisect $W/b/kernodeck/dossier $W/a --layers env --format json"
a=$(st "$W/r.json" 0 median); ac=$(st "$W/r.json" 0 cpu)
k=$(st "$W/r.json" 1 median); kc=$(st "$W/r.json" 1 cpu)
r=$(ratio "$k" "$a"); rc=$(ratio "$kc" "$ac")
row "bisect, two runs (here, env)" "training demo, 40 steps" "$(t "$k")" "$(t "$a")" "$r" "$rc" \
	"<= 1.1" "$(met "$r" '<=' 1.1 wall), $(met "$rc" '<=' 1.1 CPU)"
bench_footer
echo "- A bisect step is the entry point's run plus a copy of the project (reflink or copy) and the"
echo "  comparison of its outputs with the dossier's (each .npy element by element, the metrics"
echo "  step by step, the main output under the rule)."
