#!/bin/sh
# tests/bench/run-all.sh - run every benchmark of issue 9 and print one
# Markdown table (the rows of all the scripts, same columns), then each
# script's notes.  Not part of make check: nothing there depends on timings.
#
# Usage: sh tests/bench/run-all.sh [OUTDIR]
#   OUTDIR          where each script's own output is kept (default: a new
#                   folder in /var/tmp, printed at the end)
#   KD_BENCH_ONLY   the scripts to run, by name (default: "system compute
#                   parse memory walkthrough install hash")
#   KD_BENCH_QUICK  1: a smoke run (smaller inputs, fewer runs; hash.sh
#                   with its sizes divided by 16)
#   KD_BIN, KD_BENCH_RUNS: see lib.sh (KD_BENCH_RUNS applies to every script)
# hash.sh needs about 13 GiB free in /var/tmp and as much free memory for
# the page cache; the whole set takes about an hour on 2 busy cores.
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
. "$BENCH_DIR/lib.sh"
set +e
ONLY=${KD_BENCH_ONLY:-system compute parse memory walkthrough install lock hash}
OUT=${1:-$(mktemp -d "${TMPDIR:-/var/tmp}/kd-bench-all.XXXXXX")}
mkdir -p "$OUT"
if [ -z "${KD_BIN:-}" ]; then
	if [ -x ./kernodeck ]; then KD_BIN=./kernodeck
	else KD_BIN=$(ls -t "$KD_SRCDIR"/build*/kernodeck 2>/dev/null | head -n 1); fi
fi
[ -n "${KD_BIN:-}" ] && [ -x "$KD_BIN" ] || { echo "run-all.sh: no kernodeck: set KD_BIN" >&2; exit 3; }
KD_BIN=$(cd "$(dirname "$KD_BIN")" && pwd)/$(basename "$KD_BIN")
export KD_BIN
[ "$QUICK" = 1 ] && export KD_BENCH_DIV=${KD_BENCH_DIV:-16}
# hash.sh: `kernodeck hash`, or the kd-hash helper of the same build folder
export KD_BUILDDIR=${KD_BUILDDIR:-$(dirname "$KD_BIN")}

start=$(date +%s)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
failed=""
for b in $ONLY; do
	echo "run-all.sh: $b ..." >&2
	sh "$BENCH_DIR/$b.sh" >"$OUT/$b.md" 2>"$OUT/$b.err"
	rc=$?
	echo "run-all.sh: $b: exit $rc ($(grep -c '^| ' "$OUT/$b.md") table lines)" >&2
	[ "$rc" -eq 0 ] || failed="$failed $b"
done

echo "# Kernodeck benchmarks"
echo
echo "- Machine: $(machine_line)."
echo "- kernodeck: $KD_BIN ($("$KD_BIN" --version 2>&1 | head -n 1)); finished $(date -u +%Y-%m-%dT%H:%MZ) after $(( ($(date +%s) - start) / 60 )) min; load average at start $load0, at the end $(cut -d' ' -f1-3 /proc/loadavg)."
[ "$QUICK" = 1 ] && echo "- A smoke run (KD_BENCH_QUICK=1): smaller inputs and fewer runs; not figures to quote."
[ -n "$failed" ] && echo "- Failed (see their .err in $OUT):$failed."
echo
echo "| what | input | kernodeck | alternative | ratio (wall) | ratio (CPU) | target | met | load |"
echo "|---|---|---|---|---|---|---|---|---|"
for b in $ONLY; do
	grep '^| ' "$OUT/$b.md" | grep -v '^| what |'
done
for b in $ONLY; do
	echo
	echo "### Notes: $b.sh"
	echo
	grep -v -e '^|' -e '^## ' -e '^$' "$OUT/$b.md" | sed 's/^\([^-]\)/- \1/'
done
echo
echo "(each script's own output: $OUT)"
[ -z "$failed" ]
