#!/bin/sh
# tests/bench/system.sh - the system chain (issue 9, row 1): `kernodeck check
# DIR --stage system` (headless) against `python -m torch.utils.collect_env`
# (Debian's python3-torch, /usr/bin/python3) on the same machine.
# Target: at most 1/20 of collect_env's wall time.
#
# Growth: the same stage on fixture machines (KD_SYSROOT trees and an
# nvidia-smi stand-in first on PATH, made here from the fixture
# tests/fixtures/sysroot/nvidia-prop) with 1, 8 and 32 NVIDIA GPUs.
# collect_env cannot read a fixture machine: those rows are compared with
# its time on this machine.
#
# Usage: sh tests/bench/system.sh   (KD_BIN, KD_BENCH_RUNS, KD_BENCH_QUICK:
# see lib.sh).  Needs hyperfine and Debian's python3-torch.
. "$(dirname "$0")/lib.sh"
bench_init system
RUNS=${KD_BENCH_RUNS:-10}
CE_RUNS=${KD_BENCH_RUNS:-5}
[ "$QUICK" = 1 ] && { RUNS=3; CE_RUNS=2; }
"$PY" -c 'import torch.utils.collect_env' 2>/dev/null || {
	echo "system.sh: $PY cannot import torch.utils.collect_env (apt-get install python3-torch)" >&2
	exit 3
}
FX="$KD_SRCDIR/tests/fixtures"

# The project: a CPU-only reference of this machine, and a CPU variant.
P="$W/proj"
mkdir -p "$P/kernodeck"
pyver=$("$PY" -c 'import platform; print(platform.python_version())')
os=$(. /etc/os-release && echo "$PRETTY_NAME")
cat >"$P/kernodeck/reference.yaml" <<EOF
schema: 1
python:
  version: "$pyver"
  interpreter: $PY
system:
  os: $os
  arch: $(uname -m)
  gpu_vendor: none
  gpu_model: null
  gpu_count: 0
  driver: null
  cuda: null
  rocm: null
  backend: cpu
not_applicable:
  system.gpu_model: CPU-only project
  system.driver: CPU-only project
  system.cuda: CPU-only project
  system.rocm: CPU-only project
EOF
printf -- '--index-url https://download.pytorch.org/whl/cpu\ntorch==2.1.0\n' >"$P/requirements-rebuild.txt"

# fixture_machine N: $W/sysN (a sysroot with N NVIDIA GPUs) and $W/binN
# (nvidia-smi printing them), from the two-GPU fixture.
fixture_machine() {
	n=$1 root="$W/sys$1" bin="$W/bin$1"
	mkdir -p "$root/dev" "$bin"
	cp -R "$FX/sysroot/nvidia-prop/etc" "$FX/sysroot/nvidia-prop/proc" "$root/"
	mkdir -p "$root/sys/module/nvidia" "$root/sys/bus/pci/devices"
	cp "$FX/sysroot/nvidia-prop/sys/module/nvidia/version" "$root/sys/module/nvidia/"
	: >"$root/dev/nvidiactl"; : >"$root/dev/nvidia-uvm"; : >"$root/dev/nvidia-modeset"
	sed -n '1,8p' "$FX/bin-nvidia-ok/table.txt" >"$bin/table.txt"
	: >"$bin/query.csv"
	i=0
	while [ "$i" -lt "$n" ]; do
		slot=$(printf '0000:%02x:00.0' $((i + 6)))
		d="$root/sys/bus/pci/devices/$slot"
		mkdir -p "$d"
		printf 'DRIVER=nvidia\nPCI_CLASS=030000\nPCI_ID=10DE:1EB1\nPCI_SLOT_NAME=%s\n' "$slot" >"$d/uevent"
		echo 0x030000 >"$d/class"; echo 0x10de >"$d/vendor"; echo 0x1eb1 >"$d/device"
		: >"$root/dev/nvidia$i"
		printf '%d, Quadro RTX 4000, GPU-c7b57be0-94ff-d352-a59b-%012x, 0000%s, 535.129.03, 7.5, 8192\n' \
			"$i" "$i" "$slot" >>"$bin/query.csv"
		printf '|   %d  Quadro RTX 4000                Off | 0000%s Off |                  N/A |\n' \
			"$i" "$slot" >>"$bin/table.txt"
		printf '| 30%%   25C    P8              10W / 125W |      1MiB /  8192MiB |      0%%      Default |\n' >>"$bin/table.txt"
		i=$((i + 1))
	done
	sed "s|^d=.*|d=$bin|" "$FX/bin-nvidia-ok/nvidia-smi" >"$bin/nvidia-smi"
	chmod +x "$bin/nvidia-smi"
}

bench_header "System chain: kernodeck check --stage system vs python -m torch.utils.collect_env (tests/bench/system.sh)"

# This machine.
"$KD_BIN" check "$P" --stage system >"$W/check.txt" 2>&1 || {
	echo "system.sh: the stage does not pass on this machine (the table still measures it):" >&2
	grep -E '^  (fail|warn)' "$W/check.txt" >&2 || true
}
hf "$W/ce.json" "$CE_RUNS" 1 "$PY -m torch.utils.collect_env"
ce=$(st "$W/ce.json" 0 median); cec=$(st "$W/ce.json" 0 cpu)
hf "$W/kd.json" "$RUNS" 2 -i "$KD_BIN check $P --stage system"
kd=$(st "$W/kd.json" 0 median); kdc=$(st "$W/kd.json" 0 cpu)
r=$(ratio "$kd" "$ce")
row "system chain, headless" "this machine (no GPU)" "$(t "$kd")" "$(t "$ce")" \
	"$r (1/$(calc "1/$r" | cut -d. -f1))" "$(ratio "$kdc" "$cec")" "<= 0.05" "$(met "$r" '<=' 0.05 wall)"

# Fixture machines with more GPUs (the stage reads sysfs, /dev, /proc and
# runs nvidia-smi twice).
for n in 1 8 32; do
	fixture_machine "$n"
	hf "$W/kd$n.json" "$RUNS" 2 -i \
		"env KD_SYSROOT=$W/sys$n KD_PCI_IDS=$FX/pci.ids PATH=$W/bin$n:/usr/bin:/bin $KD_BIN check $P --stage system"
	k=$(st "$W/kd$n.json" 0 median); kc=$(st "$W/kd$n.json" 0 cpu)
	r=$(ratio "$k" "$ce")
	row "system chain, fixture machine" "$n NVIDIA GPUs" "$(t "$k")" "$(t "$ce") (this machine)" \
		"$r" "$(ratio "$kc" "$cec")" "<= 0.05" "$(met "$r" '<=' 0.05 wall)"
done
echo
echo "- collect_env: $(t "$ce") wall, $(t "$cec") CPU per run: it imports torch, then runs \`python -mpip list\`, lsb_release, gcc, clang, cmake, nvcc, \`ldconfig -p\` and tries nvidia-smi and conda, each through \`sh -c\` (strace on Debian 12); kernodeck runs its tools in parallel, without a shell, and does not import torch."
echo "- The fixture rows run kernodeck through env(1), with a shell-script nvidia-smi stand-in (tests/fixtures/bin-nvidia-ok, extended to N GPUs)."
bench_footer
