#!/bin/sh
# tests/bench/hash.sh - hashing benchmarks (issue 9, rows 2-4), measured with
# hyperfine against the tools a user would otherwise run, in the same run.
#
#   1. one page-cached file (512 MiB, 1 GiB, 2 GiB): kernodeck vs sha256sum
#      and openssl dgst -sha256.  Targets: >= 3.5x sha256sum, within 5% of
#      openssl (at 2 GiB).
#   2. 2, 4, 8 files of 256 MiB: kernodeck on all cores vs kernodeck on one
#      worker (--threads 1), and sha256sum.  Target: >= 1.8x the one-worker
#      rate on 2 cores (at 8 files).
#   3. 2, 4, 8 files of 1 GiB: re-check with the digest cache vs the first
#      hash (fresh cache).  Target: >= 300x faster (at 8 files).
#
# Usage: sh tests/bench/hash.sh [WORKDIR]
#   KD_HASH   the hashing command (default: "$KD_BIN hash" when kernodeck has
#             the command, else the kd-hash helper of the build folder)
#   KD_BIN    the built kernodeck (default ./kernodeck)
#   KD_BENCH_DIV  divide every size by this (default 1; 16 for a smoke run)
#   KD_BENCH_RUNS hyperfine runs per command (default 5)
# Needs: hyperfine, sha256sum, openssl, /usr/bin/python3 (reads hyperfine's
# JSON), about 13 GiB free in WORKDIR (default: a new folder in /var/tmp)
# and as much free memory for the page cache.  Not part of make check:
# nothing there depends on timings.
# Prints a Markdown table (wall times, their ratio, the ratio of user+system
# CPU times, target, met) and the machine with its load average: on a busy
# machine the wall times are not comparable, the CPU times mostly are.

set -eu
DIV=${KD_BENCH_DIV:-1}
RUNS=${KD_BENCH_RUNS:-5}
KD_BIN=${KD_BIN:-./kernodeck}
W=${1:-$(mktemp -d "${TMPDIR:-/var/tmp}/kd-bench-hash.XXXXXX")}
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT INT TERM

for tool in hyperfine sha256sum openssl /usr/bin/python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "hash.sh: $tool is missing" >&2; exit 3; }
done

# The command under test: `kernodeck hash`, or the kd-hash helper.
: >"$W/empty"
if [ -z "${KD_HASH:-}" ]; then
	if "$KD_BIN" hash "$W/empty" 2>/dev/null | grep -q '^e3b0c442'; then
		KD_HASH="$KD_BIN hash"
	else
		for h in "${KD_BUILDDIR:-.}/tests/helpers/kd-hash" ./tests/helpers/kd-hash; do
			[ -x "$h" ] && { KD_HASH=$h; break; }
		done
	fi
fi
if [ -z "${KD_HASH:-}" ] || ! $KD_HASH "$W/empty" | grep -q '^e3b0c442'; then
	echo "hash.sh: no hashing command: build kernodeck (or 'make tests/helpers/kd-hash') or set KD_HASH" >&2
	exit 3
fi

# make_files PREFIX COUNT MIB: COUNT files of MIB MiB (random, so nothing
# can be skipped), then read once so they are in the page cache.
make_files() {
	i=1
	while [ "$i" -le "$2" ]; do
		head -c "$(( $3 * 1048576 / DIV ))" /dev/urandom >"$W/$1$i"
		i=$((i + 1))
	done
	cat "$W/$1"* >/dev/null
}
files() { i=1; out=""; while [ "$i" -le "$2" ]; do out="$out $W/$1$i"; i=$((i + 1)); done; echo "$out"; }

# mean JSON INDEX: mean wall time (s) of command INDEX in a hyperfine export.
mean() { /usr/bin/python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]["mean"])' "$1" "$2"; }
# cpu JSON INDEX: mean user+system CPU time (s), steadier than wall time on
# a shared machine (but blind to parallelism).
cpu() { /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]; print("%.4f" % (r["user"] + r["system"]))' "$1" "$2"; }
ratio() { /usr/bin/python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }
# met RATIO OP TARGET: "yes" or "no (by N%)"
met() { /usr/bin/python3 -c '
import sys
r, op, t = float(sys.argv[1]), sys.argv[2], float(sys.argv[3])
ok = r >= t if op == ">=" else r <= t
print("yes" if ok else "no (%.0f%% short)" % (abs(t - r) / t * 100))' "$1" "$2" "$3"; }
bench() { json=$1; shift; hyperfine -N --style none --runs "$RUNS" --warmup 1 --export-json "$json" "$@" >/dev/null 2>&1; }
# row: one table row, with the 1-minute load average when it was measured
# (the columns of tests/bench/lib.sh, so that run-all.sh merges the tables)
row() { printf '| %s | %s | %s s | %s s | %s | %s | %s | %s | %s |\n' "$@" "$(cut -d' ' -f1 /proc/loadavg)"; }

cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
echo "## Hashing benchmarks (tests/bench/hash.sh)"
echo
echo "Machine: $cpu, $(nproc) cores online, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "Command under test: \`$KD_HASH\`; $(openssl version | cut -d' ' -f1-2); $(sha256sum --version | head -n 1); sizes divided by $DIV; mean of $RUNS runs after one warm-up."
echo
echo "| what | input | kernodeck | alternative | ratio (wall) | ratio (CPU) | target | met (wall) | load |"
echo "|---|---|---|---|---|---|---|---|---|"

# 1. One page-cached file.
for mib in 512 1024 2048; do
	make_files one 1 "$mib"
	f="$W/one1"
	bench "$W/r1.json" "$KD_HASH --threads 1 $f" "sha256sum $f" "openssl dgst -sha256 $f"
	k=$(mean "$W/r1.json" 0); s=$(mean "$W/r1.json" 1); o=$(mean "$W/r1.json" 2)
	kc=$(cpu "$W/r1.json" 0); sc=$(cpu "$W/r1.json" 1); oc=$(cpu "$W/r1.json" 2)
	r=$(ratio "$s" "$k")
	row "one file vs sha256sum" "$((mib / DIV)) MiB" "$k" "$s" "${r}x faster" \
		"$(ratio "$sc" "$kc")x faster" ">= 3.5x" "$(met "$r" '>=' 3.5)"
	r=$(ratio "$k" "$o")
	row "one file vs openssl dgst" "$((mib / DIV)) MiB" "$k" "$o" "${r}x its time" \
		"$(ratio "$kc" "$oc")x its time" "<= 1.05x" "$(met "$r" '<=' 1.05)"
	rm -f "$W"/one*
done

# 2. Several files: all cores vs one worker.
make_files many 8 256
for n in 2 4 8; do
	set -- $(files many "$n")
	bench "$W/r2.json" "$KD_HASH --threads 1 $*" "$KD_HASH $*" "sha256sum $*"
	one=$(mean "$W/r2.json" 0); all=$(mean "$W/r2.json" 1); s=$(mean "$W/r2.json" 2)
	r=$(ratio "$one" "$all")
	row "files on all cores vs one worker" "$n x $((256 / DIV)) MiB" "$all" "$one" "${r}x the rate" \
		"-" ">= 1.8x" "$(met "$r" '>=' 1.8)"
	r=$(ratio "$s" "$all")
	row "files on all cores vs sha256sum" "$n x $((256 / DIV)) MiB" "$all" "$s" "${r}x faster" \
		"$(ratio "$(cpu "$W/r2.json" 2)" "$(cpu "$W/r2.json" 1)")x less" "-" "-"
done
rm -f "$W"/many*

# 3. Re-check with the digest cache vs the first hash.  The files are older
# than the cache's racy window (50 ms) by the time they are hashed.
make_files big 8 1024
for n in 2 4 8; do
	set -- $(files big "$n")
	c="$W/cache$n"
	hyperfine -N --style none --runs 3 --export-json "$W/r3a.json" \
		--prepare "rm -rf $c" "$KD_HASH --cache $c $*" >/dev/null 2>&1
	$KD_HASH --cache "$c" "$@" >/dev/null
	hyperfine -N --style none --runs 20 --warmup 2 --export-json "$W/r3b.json" \
		"$KD_HASH --cache $c $*" >/dev/null 2>&1
	first=$(mean "$W/r3a.json" 0); again=$(mean "$W/r3b.json" 0)
	r=$(ratio "$first" "$again")
	row "re-check (digest cache) vs first hash" "$n x $((1024 / DIV)) MiB" "$again" "$first" "${r}x faster" \
		"$(ratio "$(cpu "$W/r3a.json" 0)" "$(cpu "$W/r3b.json" 0)")x less" ">= 300x" "$(met "$r" '>=' 300)"
done
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (figures taken on a busy machine are not comparable)."
