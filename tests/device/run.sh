#!/bin/bash
# tests/device/run.sh - kernodeck on a real GPU machine (issue 16), and its
# dry run on a machine without one.
#
#   tests/device/run.sh [--pack-only DIR | --use-pack DIR] [--dry-run]
#
# The GPU machine has no package manager and no network: kernodeck goes
# there packed, with the shared libraries ldd names (and libcurl, which it
# opens with dlopen; KD_LIBCURL names the packed one), the probe and the
# demo (KD_SHARE_DIR).  There the pack is run with LD_LIBRARY_PATH naming
# only the libraries that machine lacks (so that the programs kernodeck
# runs keep the machine's own), else, when its C library is too old for
# the pack, through the packed dynamic loader with --library-path (which
# does not reach the children either).
#
# On a machine with an NVIDIA GPU (nvidia-smi lists one) it runs, each step
# under a timeout, the whole well under 8 minutes:
#   1. kernodeck check --stage system on the demo;
#   2. kernodeck capture with the machine's python3 (PyTorch with CUDA): a
#      reference expecting backend cuda, its venv as python.install.base and
#      the demo's entry point on --device cuda;
#   3. the rebuild on that base, the contract, the compute stage;
#   4. the sample on cuda, compared with the CPU reference output under the
#      demo's tolerance;
#   5. compute and sample again with CUDA_VISIBLE_DEVICES="": both must fail,
#      with nothing computed on the CPU in the GPU's place;
# and collects into $OUT: nvidia-smi -q, the CSV query kernodeck makes, the
# nvidia-smi table, /proc/driver/nvidia/version, the sysfs and /proc files
# the system stage reads (as a KD_SYSROOT tree), the probe's JSON lines,
# system.yaml, compute.yaml and the other observations, and summary.txt
# (each step: status, exit code, seconds).
# Without a GPU (or with --dry-run) it says so, skips those steps, and still
# packs kernodeck and runs the pack from a temporary folder (--version and
# check --stage system).  Exit 0 when every step run passed, 1 otherwise.
#
# Environment: KD_BIN (default build/kernodeck), OUT (default
# ./device-out), KD_DEVICE_PYTHON (default: python3 on PATH),
# KD_DEVICE_BUDGET_S (default 450: no step runs past it; with the packing
# and the copies the run stays under 8 minutes).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
KD_BIN=${KD_BIN:-$SRC/build/kernodeck}
OUT=${OUT:-$PWD/device-out}
PACK_ONLY="" USE_PACK="" DRY=0
while [ $# -gt 0 ]; do
	case $1 in
	--pack-only) PACK_ONLY=$2; shift 2 ;;
	--use-pack) USE_PACK=$2; shift 2 ;;
	--dry-run) DRY=1; shift ;;
	*) echo "usage: $0 [--pack-only DIR | --use-pack DIR] [--dry-run]" >&2; exit 2 ;;
	esac
done
START=$(date +%s)
# the whole run stays under 8 minutes: no step runs past this
DEADLINE=$((START + ${KD_DEVICE_BUDGET_S:-450}))
mkdir -p "$OUT" || exit 3
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
FAILED=0
say() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }

# step NAME SECONDS WANT CMD...: run CMD under a timeout (its output in
# $OUT/steps/NAME.log), cut to what is left of the budget; WANT is the
# exit status wanted ("0", "1", "0|1").
step() {
	local name=$1 secs=$2 want=$3 t0 rc dt left
	shift 3
	mkdir -p "$OUT/steps"
	left=$((DEADLINE - $(date +%s)))
	if [ "$left" -lt 5 ]; then
		FAILED=1
		say "FAIL $name (not run: the run's time budget is spent)"
		return 0
	fi
	[ "$secs" -gt "$left" ] && secs=$left
	t0=$(date +%s.%N)
	timeout -k 5 "$secs" "$@" >"$OUT/steps/$name.log" 2>&1
	rc=$?
	dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	if [[ "|$want|" == *"|$rc|"* ]]; then
		say "ok   $name (exit $rc, ${dt} s)"
	else
		FAILED=1
		say "FAIL $name (exit $rc, wanted $want, ${dt} s$([ "$rc" -eq 124 ] && echo ", timed out after $secs s"))"
		tail -n 5 "$OUT/steps/$name.log" | sed 's/^/     | /' | tee -a "$SUMMARY"
	fi
	return 0
}

# ---- the pack ----
GLIBC_RE='^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^ ]*)\.so'
libcurl_path() {
	local p
	for p in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /lib64 /usr/lib64 /usr/lib; do
		[ -e "$p/libcurl.so.4" ] && { echo "$p/libcurl.so.4"; return; }
	done
	ldconfig -p 2>/dev/null | awk '/libcurl\.so\.4 / { print $NF; exit }'
}
make_pack() { # DIR
	local d=$1 f lib
	rm -rf "$d" && mkdir -p "$d/bin" "$d/lib" "$d/glibc" "$d/share" || return 1
	cp "$KD_BIN" "$d/bin/kernodeck" || return 1
	lib=$(libcurl_path)
	[ -n "$lib" ] && cp -L "$lib" "$d/lib/libcurl.so.4"
	for f in $( { ldd "$KD_BIN"; [ -n "$lib" ] && ldd "$lib"; } | awk '
		/=> \// { print $3 } /^[ \t]*\/[^ ]*ld-linux/ { print $1 }' | sort -u); do
		case $(basename "$f") in
		libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libresolv.so*|ld-linux*)
			cp -L "$f" "$d/glibc/" ;;
		*) cp -L "$f" "$d/lib/" ;;
		esac
	done
	cp "$SRC/share/probe.py" "$d/share/" && cp -r "$SRC/share/demo" "$d/share/" || return 1
	cat >"$d/kd" <<'KDEOF'
#!/bin/sh
# the packed kernodeck: KD_PACK_MODE need (LD_LIBRARY_PATH names the
# libraries this machine lacks, in need/), full (all the packed ones but the
# C library) or ldso (the packed loader and C library, --library-path)
P=$(cd "$(dirname "$0")" && pwd)
export KD_SHARE_DIR="$P/share" KD_LIBCURL="$P/lib/libcurl.so.4"
case ${KD_PACK_MODE:-need} in
need) LD_LIBRARY_PATH="$P/need" exec "$P/bin/kernodeck" "$@" ;;
full) LD_LIBRARY_PATH="$P/lib" exec "$P/bin/kernodeck" "$@" ;;
ldso) exec "$(ls "$P"/glibc/ld-linux* | head -n 1)" --library-path "$P/lib:$P/glibc" "$P/bin/kernodeck" "$@" ;;
esac
echo "kd: KD_PACK_MODE is need, full or ldso" >&2
exit 2
KDEOF
	chmod +x "$d/kd"
	echo "kernodeck $("$KD_BIN" --version 2>/dev/null | head -1) packed from $(uname -n) on $(date -u +%FT%TZ)" >"$d/PACKED"
}

# The libraries this machine lacks go into need/; LD_LIBRARY_PATH names
# only them.  When the pack does not start so, the packed loader runs it.
choose_mode() {
	local f
	rm -rf "$PACK/need" && mkdir -p "$PACK/need"
	for f in $( { ldd "$PACK/bin/kernodeck"; ldd "$PACK/lib/libcurl.so.4"; } 2>/dev/null |
		    awk '/not found/ { print $1 }' | sort -u); do
		[ -e "$PACK/lib/$f" ] && ln -sf "../lib/$f" "$PACK/need/$f"
	done
	[ -e "$PACK/need/libcurl.so.4" ] || ln -sf ../lib/libcurl.so.4 "$PACK/need/libcurl.so.4"
	export KD_PACK_MODE=need
	timeout 30 "$PACK/kd" --version >/dev/null 2>&1 && return 0
	export KD_PACK_MODE=ldso
	timeout 30 "$PACK/kd" --version >/dev/null 2>&1 && return 0
	return 1
}

if [ -n "$USE_PACK" ]; then
	PACK=$(cd "$USE_PACK" && pwd)
else
	[ -x "$KD_BIN" ] || { echo "$KD_BIN is not built" >&2; exit 3; }
	PACK=${PACK_ONLY:-$(mktemp -d "${TMPDIR:-/tmp}/kdpack.XXXXXX")/kernodeck}
	make_pack "$PACK" || { echo "packing into $PACK failed" >&2; exit 3; }
	if [ -n "$PACK_ONLY" ]; then
		echo "packed into $PACK ($(du -sh "$PACK" | cut -f1),"\
			"$(ls "$PACK/lib" "$PACK/glibc" | grep -c '\.so') libraries)"
		exit 0
	fi
	[ -z "${PACK_ONLY}" ] && CLEAN_PACK=$(dirname "$PACK")
fi
KD="$PACK/kd"
export NO_COLOR=1 LANG=C.UTF-8 LC_ALL=C.UTF-8
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_NO_INDEX=1
W=$(mktemp -d "${TMPDIR:-/tmp}/kddevice.XXXXXX")
trap 'rm -rf "$W" ${CLEAN_PACK:+"$CLEAN_PACK"}' EXIT
say "pack: $PACK ($(cat "$PACK/PACKED" 2>/dev/null))"
if ! choose_mode; then
	say "FAIL the pack does not start here: $(KD_PACK_MODE=need "$KD" --version 2>&1 | head -n 2)"
	exit 1
fi
if [ "$KD_PACK_MODE" = need ]; then
	say "pack: runs with LD_LIBRARY_PATH=$PACK/need ($(ls "$PACK/need" | wc -l) libraries this machine lacks)"
else
	say "pack: runs through the packed loader (--library-path $PACK/lib)"
fi

# ---- the pack, run from a temporary folder ----
cd "$W" || exit 3
LD_LIBRARY_PATH="$PACK/lib" ldd "$PACK/bin/kernodeck" >"$OUT/pack-ldd.txt" 2>&1
if grep -q "not found" "$OUT/pack-ldd.txt"; then
	FAILED=1
	say "FAIL pack-ldd: missing from the pack: $(grep 'not found' "$OUT/pack-ldd.txt" | head -n 3 | tr '\n' ' ')"
elif awk '/=> \// && $3 !~ "^'"$PACK"'/lib/" && $1 !~ /'"${GLIBC_RE#^}"'/ { bad = 1 } END { exit !bad }' "$OUT/pack-ldd.txt"; then
	FAILED=1
	say "FAIL pack-ldd: with LD_LIBRARY_PATH=$PACK/lib a library still comes from elsewhere"
else
	say "ok   pack-ldd (with LD_LIBRARY_PATH=$PACK/lib every library but the C library's comes from the pack)"
fi
step pack-version 30 0 "$KD" --version
step pack-version-full 30 0 env KD_PACK_MODE=full "$KD" --version
if ldd "$PACK/bin/kernodeck" | grep -q 'libasan\|libtsan'; then
	say "skip pack-version-ldso: a sanitizer build is not run through the packed loader"
else
	step pack-version-ldso 30 0 env KD_PACK_MODE=ldso "$KD" --version
fi
step demo-create 60 0 "$KD" demo "$W/demo" --create-only
step check-system 120 "0|1" "$KD" check "$W/demo" --stage system --format yaml
step check-system-full 120 "0|1" env KD_PACK_MODE=full "$KD" check "$W/demo" --stage system --format yaml
cp "$W/demo/kernodeck/system.yaml" "$OUT/system.yaml" 2>/dev/null

# ---- is there a GPU? ----
GPU=0 WHY=""
if [ "$DRY" -eq 1 ]; then
	WHY="--dry-run"
elif ! command -v nvidia-smi >/dev/null 2>&1; then
	WHY="no nvidia-smi on PATH"
elif ! timeout 30 nvidia-smi -L >"$OUT/nvidia-smi-L.txt" 2>&1 || ! grep -q '^GPU ' "$OUT/nvidia-smi-L.txt"; then
	WHY="nvidia-smi lists no GPU: $(head -n 1 "$OUT/nvidia-smi-L.txt")"
else
	GPU=1
fi
if [ "$GPU" -eq 0 ]; then
	say "skip the GPU steps (capture, rebuild on the machine's PyTorch, compute and sample on cuda, CUDA_VISIBLE_DEVICES=\"\"): $WHY"
	say "$([ "$FAILED" -eq 0 ] && echo "device run: PASS (dry run: the pack only)" || echo "device run: FAIL")"
	exit "$FAILED"
fi

# ---- what the system stage reads, collected ----
collect() {
	local d f
	timeout 30 nvidia-smi -q >"$OUT/nvidia-smi-q.txt" 2>&1
	timeout 30 nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
	timeout 30 nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,compute_cap,memory.total \
		--format=csv,noheader,nounits >"$OUT/nvidia-smi-query.csv" 2>&1
	mkdir -p "$OUT/sysroot"
	for f in /proc/driver/nvidia/version /sys/module/nvidia/version /proc/version \
		 /proc/sys/kernel/osrelease /proc/1/cgroup /etc/os-release /usr/lib/os-release; do
		[ -r "$f" ] && mkdir -p "$OUT/sysroot$(dirname "$f")" && cp -L "$f" "$OUT/sysroot$f" 2>/dev/null
	done
	for d in /sys/bus/pci/devices/*; do
		case $(cat "$d/class" 2>/dev/null) in 0x03*|0x12*) ;; *) continue ;; esac
		mkdir -p "$OUT/sysroot$d"
		for f in class vendor device subsystem_vendor subsystem_device uevent numa_node \
			 current_link_speed current_link_width mem_info_vram_total; do
			[ -r "$d/$f" ] && cp "$d/$f" "$OUT/sysroot$d/$f" 2>/dev/null
		done
		[ -L "$d/driver" ] && readlink "$d/driver" >"$OUT/sysroot$d/driver.link"
	done
	ls -l /dev/nvidia* /dev/dri >"$OUT/dev-nodes.txt" 2>&1
}
collect
say "collected: nvidia-smi -q, the CSV query, /proc/driver/nvidia/version, sysfs (sysroot/)"

# ---- the machine's PyTorch as the base environment ----
PY=${KD_DEVICE_PYTHON:-$(command -v python3)}
BASE=$PY
[ -f "$(dirname "$(dirname "$PY")")/pyvenv.cfg" ] && BASE=$(dirname "$(dirname "$PY")")
timeout 90 "$PY" -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.device_count(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-")' \
	>"$OUT/torch.txt" 2>&1
say "python: $PY, base $BASE; torch: $(tail -n 1 "$OUT/torch.txt")"
D="$W/demo"
# the entry point on cuda, the base environment, no system site packages
sed -i -e 's/^  entry_point: \[python, embed.py, --out, outputs\]$/  entry_point: [python, embed.py, --out, outputs, --device, cuda]/' \
       -e "s|^    system_site_packages: true\$|    system_site_packages: false\n    base: $BASE|" \
       "$D/kernodeck/reference.yaml"
step capture 180 0 "$KD" capture "$D" --python "$PY"
cp "$D/kernodeck/reference.yaml" "$OUT/reference.yaml" 2>/dev/null
step reference-expects-cuda 5 0 grep -Eq '^ +backend: cuda$' "$D/kernodeck/reference.yaml"
step system 120 "0|1" "$KD" check "$D" --stage system --format yaml
step rebuild 300 0 "$KD" check "$D" --stage rebuild --format yaml
step contract 120 "0|1" "$KD" check "$D" --stage contract --format yaml
step compute 180 0 "$KD" check "$D" --stage compute --format yaml
for f in system rebuild contract compute; do cp "$D/kernodeck/$f.yaml" "$OUT/$f.yaml" 2>/dev/null; done
step sample 180 0 "$KD" check "$D" --stage sample --format yaml
cp "$D/kernodeck/sample.yaml" "$OUT/sample.yaml" 2>/dev/null
newest() { ls -t "$D"/kernodeck/logs/*-"$1".log 2>/dev/null | head -n 1; }
step sample-ran-on-cuda 5 0 grep -q 'on cuda' "$(newest sample)"
mkdir -p "$OUT/logs" && cp "$(newest probe)" "$(newest sample)" "$OUT/logs/" 2>/dev/null
cp -r "$D/kernodeck/reference" "$OUT/reference-capture" 2>/dev/null
# no GPU visible: both must fail, and nothing runs on the CPU in its place
step compute-no-gpu 180 1 env CUDA_VISIBLE_DEVICES= "$KD" check "$D" --stage compute --format yaml
cp "$D/kernodeck/compute.yaml" "$OUT/compute-no-gpu.yaml" 2>/dev/null
# exit 1 wanted: no computation step ran (nothing on the CPU in the GPU's place)
step no-cpu-fallback 5 1 grep -q '^- step: compute$' "$OUT/compute-no-gpu.yaml"
mkdir -p "$OUT/logs-no-gpu" && cp "$(newest probe)" "$OUT/logs-no-gpu/" 2>/dev/null
step sample-no-gpu 180 1 env CUDA_VISIBLE_DEVICES= "$KD" check "$D" --stage sample --format yaml
cp "$D/kernodeck/sample.yaml" "$OUT/sample-no-gpu.yaml" 2>/dev/null
cp "$(newest sample)" "$OUT/logs-no-gpu/" 2>/dev/null
say "total: $(( $(date +%s) - START )) s"
say "$([ "$FAILED" -eq 0 ] && echo "device run: PASS" || echo "device run: FAIL")"
exit "$FAILED"
