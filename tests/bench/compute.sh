#!/bin/sh
# tests/bench/compute.sh - the compute probe (issue 9, row 5): `kernodeck
# check DIR --stage compute` on a project whose reference says backend cpu
# (share/probe.py run by the venv's interpreter: import, backend, device,
# allocation, transfers, a 64x64 product checked against float64,
# extensions) against `python -c "import torch"` with the same interpreter.
# Target: at most 1.3x its wall time.
#
# The venv is made with /usr/bin/python3 -m venv --system-site-packages
# --without-pip, so torch is Debian's python3-torch (CPU).
# Growth: 0, 4 and 16 extensions named in the reference (the most the stage
# takes), each a small module imported and called; the alternative then
# imports and calls the same modules after torch.
#
# Usage: sh tests/bench/compute.sh   (KD_BIN, KD_BENCH_RUNS, KD_BENCH_QUICK:
# see lib.sh).  Needs hyperfine and Debian's python3-torch.
. "$(dirname "$0")/lib.sh"
bench_init compute
RUNS=${KD_BENCH_RUNS:-10}
[ "$QUICK" = 1 ] && RUNS=3
"$PY" -c 'import torch' 2>/dev/null || {
	echo "compute.sh: $PY cannot import torch (apt-get install python3-torch)" >&2
	exit 3
}

P="$W/proj"
mkdir -p "$P/kernodeck"
"$PY" -m venv --system-site-packages --without-pip "$P/.venv-rebuild"
VPY="$P/.venv-rebuild/bin/python"
SP=$("$VPY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
i=0
while [ "$i" -lt 16 ]; do
	printf 'import math\n\n\ndef version():\n    return "kdext%d 1.0 %%.3f" %% math.pi\n' "$i" >"$SP/kdext$i.py"
	i=$((i + 1))
done
# ref N: a CPU reference naming N extensions.  alt N: the same by hand.
ref() {
	{
		printf 'schema: 1\nsystem:\n  backend: cpu\n'
		if [ "$1" -gt 0 ]; then
			printf 'compute:\n  extensions:\n'
			i=0
			while [ "$i" -lt "$1" ]; do
				printf '    - module: kdext%d\n      call: version\n' "$i"
				i=$((i + 1))
			done
		fi
	} >"$P/kernodeck/reference.yaml"
}
alt() {
	s="import torch"
	i=0
	while [ "$i" -lt "$1" ]; do
		s="$s; import kdext$i; kdext$i.version()"
		i=$((i + 1))
	done
	echo "$s"
}

bench_header "Compute probe: kernodeck check --stage compute vs python -c \"import torch\" (tests/bench/compute.sh)"
for n in 0 4 16; do
	ref "$n"
	"$KD_BIN" check "$P" --stage compute >"$W/check$n.txt" 2>&1 || {
		echo "compute.sh: the compute stage does not pass here:" >&2
		cat "$W/check$n.txt" >&2
		exit 1
	}
	hf "$W/c$n.json" "$RUNS" 2 "$VPY -c '$(alt "$n")'" "$KD_BIN check $P --stage compute"
	a=$(st "$W/c$n.json" 0 median); ac=$(st "$W/c$n.json" 0 cpu)
	k=$(st "$W/c$n.json" 1 median); kc=$(st "$W/c$n.json" 1 cpu)
	r=$(ratio "$k" "$a"); rc=$(ratio "$kc" "$ac")
	what="compute probe vs import torch"
	[ "$n" -gt 0 ] && what="compute probe vs import torch + the extensions"
	row "$what" "$n extensions" "$(t "$k")" "$(t "$a")" "$r" "$rc" "<= 1.3" \
		"$(met "$r" '<=' 1.3 wall), $(met "$rc" '<=' 1.3 CPU)"
done
echo
echo "- The alternative at 4 extensions: \`python -c '$(alt 4)'\`."
echo "- The probe's own step times (ms) of the last run: $("$PY" -c '
import re, sys
t = open(sys.argv[1]).read()
print(", ".join("%s %s" % m for m in re.findall(r"\"step\": \"(\w+)\", \"ok\": true, \"ms\": ([0-9.]+)", t)))' \
	"$(ls -t "$P"/kernodeck/logs/*probe* 2>/dev/null | head -n 1)" 2>/dev/null || echo "not found")."
bench_footer
