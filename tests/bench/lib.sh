# tests/bench/lib.sh - shared by the benchmark scripts (sourced; not a test).
#
# Each script measures kernodeck against the tool a user would otherwise
# run, in the same run, with hyperfine, and prints a Markdown table whose
# columns are the same everywhere, so that run-all.sh can merge them:
#
#   | what | input | kernodeck | alternative | ratio (wall) | ratio (CPU) |
#   | target | met | load |
#
# "wall" is hyperfine's median wall time; "CPU" is its mean user+system time
# (of the command and every child it waited for), which a busy machine
# disturbs much less than wall time.  "load" is the 1-minute load average
# read when the row was measured.  Lines starting with "- " are notes;
# run-all.sh keeps them.
#
# Environment (every script):
#   KD_BIN         the built kernodeck (default: ./kernodeck, then the
#                  newest build-*/kernodeck of the source tree)
#   KD_BENCH_RUNS  hyperfine runs per command (default: per script)
#   KD_BENCH_QUICK 1: smaller sizes and fewer runs (a smoke run)
#   TMPDIR         where the work folder goes (default /var/tmp)

set -eu
export LANG=C.UTF-8 LC_ALL=C.UTF-8 NO_COLOR=1
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
KD_SRCDIR=${KD_SRCDIR:-$(cd "$BENCH_DIR/../.." && pwd)}
PY=/usr/bin/python3
QUICK=${KD_BENCH_QUICK:-0}

# bench_init NAME TOOL...: check the tools, find kernodeck, make the work
# folder $W (removed at exit unless KD_BENCH_KEEP=1).
bench_init() {
	_name=$1
	shift
	for tool in hyperfine "$PY" "$@"; do
		command -v "$tool" >/dev/null 2>&1 || {
			echo "$_name: $tool is missing (hyperfine: apt-get install hyperfine)" >&2
			exit 3
		}
	done
	if [ -z "${KD_BIN:-}" ]; then
		if [ -x ./kernodeck ]; then
			KD_BIN=./kernodeck
		else
			KD_BIN=$(ls -t "$KD_SRCDIR"/build*/kernodeck 2>/dev/null | head -n 1 || true)
		fi
	fi
	if [ -z "${KD_BIN:-}" ] || ! "$KD_BIN" --version >/dev/null 2>&1; then
		echo "$_name: no kernodeck to measure: build it, or set KD_BIN" >&2
		exit 3
	fi
	KD_BIN=$(cd "$(dirname "$KD_BIN")" && pwd)/$(basename "$KD_BIN")
	export KD_BIN
	export KD_SHARE_DIR="${KD_SHARE_DIR:-$KD_SRCDIR/share}"
	W=$(mktemp -d "${TMPDIR:-/var/tmp}/kd-bench-$_name.XXXXXX")
	if [ "${KD_BENCH_KEEP:-0}" = 1 ]; then
		echo "$_name: work folder kept: $W" >&2
	else
		trap 'rm -rf "$W"' EXIT
		trap 'rm -rf "$W"; exit 130' INT TERM
	fi
	# the git identity of the repositories the scripts make
	export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.org
	export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.org
}

load1() { cut -d' ' -f1 /proc/loadavg; }

# bench_header TITLE [HOW]: the title, the machine, how the figures are
# taken (default: hyperfine) and the table header.
bench_header() {
	echo "## $1"
	echo
	echo "- Machine: $(machine_line); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "- kernodeck: $KD_BIN ($("$KD_BIN" --version 2>&1 | head -n 1)); ${2:-wall: hyperfine median; CPU: hyperfine mean user+system, children included}."
	echo
	echo "| what | input | kernodeck | alternative | ratio (wall) | ratio (CPU) | target | met | load |"
	echo "|---|---|---|---|---|---|---|---|---|"
}

bench_footer() {
	echo
	echo "- Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
}

machine_line() {
	cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
	os=$(. /etc/os-release && echo "$PRETTY_NAME")
	echo "$cpu, $(nproc) cores online, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, $os (Debian $(cat /etc/debian_version)), kernel $(uname -r)"
}

# hf JSON RUNS WARMUP ARGS...: hyperfine, no shell, quiet, exported as JSON.
hf() {
	_json=$1 _runs=$2 _warm=$3
	shift 3
	hyperfine -N --style none --runs "$_runs" --warmup "$_warm" --export-json "$_json" \
		"$@" >"$_json.out" 2>&1 || {
		echo "hyperfine failed (a command exited non-zero? add -i):" >&2
		cat "$_json.out" >&2
		return 1
	}
}

# st JSON INDEX WHAT: a figure of command INDEX in seconds; WHAT is median,
# mean, min, max, stddev or cpu (mean user+system).
st() {
	"$PY" - "$@" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]
w = sys.argv[3]
v = r["user"] + r["system"] if w == "cpu" else r[w]
print("%.6f" % v)
EOF
}

# calc EXPR: a float expression (ratios of the figures above).
calc() { "$PY" -c "import sys; print('%.6f' % eval(sys.argv[1]))" "$1"; }
ratio() { "$PY" -c "import sys; print('%.3f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
# t SECONDS: "12.3 ms" or "1.23 s"
t() {
	"$PY" -c "
import sys; s = float(sys.argv[1])
print('%.2f s' % s if s >= 1 else ('%.1f ms' % (s * 1e3) if s >= 0.01 else '%.2f ms' % (s * 1e3)))" "$1"
}
# met VALUE OP TARGET [BASIS]: "yes", or "no (N% over)" / "no (N% short)"
met() {
	"$PY" - "$@" <<'EOF'
import sys
v, op, t = float(sys.argv[1]), sys.argv[2], float(sys.argv[3])
basis = " (%s)" % sys.argv[4] if len(sys.argv) > 4 else ""
def pct(x):
    return ("%.1f" if x < 10 else "%.0f") % x
if op == "<=":
    print(("yes" if v <= t else "no (%s%% over)" % pct((v - t) / t * 100)) + basis)
else:
    print(("yes" if v >= t else "no (%s%% short)" % pct((t - v) / t * 100)) + basis)
EOF
}
# row WHAT INPUT KD ALT RWALL RCPU TARGET MET: one table row, load appended.
row() {
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@" "$(load1)"
}
