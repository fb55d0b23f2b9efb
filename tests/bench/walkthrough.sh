#!/bin/sh
# tests/bench/walkthrough.sh - the walkthrough's start (issue 9, row 7): time
# from `kernodeck DIR` to its first full frame on a saved 7-stage state, and
# its peak RSS, against an empty program linked with the same libraries
# (tests/bench/empty.c, built here with the same pkg-config flags).
# Targets: first frame under 50 ms; peak RSS at most 1.5x the empty
# program's.
#
# The walkthrough has no "exit after the first frame" switch, so the time
# is read from a pseudo-terminal (tests/bench/firstframe.py): from the fork
# to the moment the frame's first and last lines ("Dossier" in the stage
# list, "quit" in the key bar) have been written; then "q" is sent.  The
# empty program's own frame ("empty frame": initscr, two lines, refresh) is
# timed the same way, as the floor of any curses program here.  Peak RSS:
# /usr/bin/time -v.
#
# A start reads the reference identity from kernodeck/cache/ when
# reference.yaml has not changed since it was last computed (src/engine/ctx.c); the
# first start after an edit computes it (a SHA-256: OpenSSL starts, +2 MB).
# Both are measured: "unchanged reference" (the cache written by a first
# start that is not counted), and "reference.yaml just edited" (its times
# set to now before every start: firstframe.py --touch).
#
# The states: `kernodeck demo --create-only`, walked headless through all
# seven stages (failures from this machine's extra system packages recorded
# as deviations), with 0, 1,000 and 5,000 more packages in the reference
# inventory and the venv (dist-info folders written into it), so that the
# inventories, pip inspect and the contract's observations grow.
#
# Usage: sh tests/bench/walkthrough.sh   (KD_BIN, KD_BENCH_RUNS,
# KD_BENCH_QUICK: see lib.sh).  Needs Debian's python3-torch (the demo runs
# on it), pkg-config and the -dev packages kernodeck builds with.
. "$(dirname "$0")/lib.sh"
bench_init walkthrough pkg-config cc git
RUNS=${KD_BENCH_RUNS:-15}
SIZES="0 1000 5000"
[ "$QUICK" = 1 ] && { RUNS=5; SIZES="0 1000"; }
FF="$PY $BENCH_DIR/firstframe.py"
export HOME="$W/home"
mkdir -p "$HOME"

# The empty program.
LIBS="ncursesw yaml-0.1 jansson libgit2 libcrypto"   # not libcurl: kernodeck opens it when a URL is checked
# shellcheck disable=SC2046
cc -O2 -o "$W/empty" "$BENCH_DIR/empty.c" $(pkg-config --cflags --libs $LIBS) -pthread -lm || {
	echo "walkthrough.sh: cannot build empty.c (the -dev packages of: $LIBS)" >&2
	exit 3
}
nk=$(ldd "$KD_BIN" | wc -l); ne=$(ldd "$W/empty" | wc -l)

# state N: a demo project walked through the seven stages with N more
# packages; its folder in $W/demoN.
state() {
	n=$1 d="$W/demo$1"
	"$KD_BIN" demo "$d" --create-only >/dev/null
	if [ "$n" -gt 0 ]; then
		"$PY" - "$d/reference/freeze.txt" "$n" <<'EOF'
import sys
with open(sys.argv[1], "a") as f:
    for i in range(int(sys.argv[2])):
        f.write("kdbench-pkg%05d==1.%d.0\n" % (i, i % 50))
EOF
		old=$(git -C "$d" rev-parse HEAD)
		git -C "$d" commit -q -am "bench: $n more packages"
		sed -i "s/$old/$(git -C "$d" rev-parse HEAD)/" "$d/kernodeck/reference.yaml"
		"$KD_BIN" check "$d" --stage rebuild >/dev/null 2>&1 || true
		sp=$("$d/.venv-rebuild/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
		"$PY" - "$sp" "$n" <<'EOF'
import os, sys
for i in range(int(sys.argv[2])):
    name, ver = "kdbench-pkg%05d" % i, "1.%d.0" % (i % 50)
    info = os.path.join(sys.argv[1], "kdbench_pkg%05d-%s.dist-info" % (i, ver))
    os.mkdir(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, ver))
    with open(os.path.join(info, "INSTALLER"), "w") as f:
        f.write("pip\n")
    open(os.path.join(info, "RECORD"), "w").close()
EOF
	fi
	for _ in 1 2 3; do
		"$KD_BIN" check "$d" --format json >"$W/c.json" 2>/dev/null && break
		# record the failures this machine causes as deviations, as a
		# person would, then check again
		"$PY" -c "
import json
t = json.load(open('$W/c.json'))
for s in t['stages']:
    for r in s.get('rows', []):
        if r['status'] == 'fail': print(s['id'], r['id'])" | while read -r sid cid; do
			"$KD_BIN" deviate "$d" --stage "$sid" --check "$cid" \
				--why "differs on the benchmark machine" >/dev/null
		done
	done
	"$KD_BIN" check "$d" >"$W/check$n.txt" 2>&1 || {
		echo "walkthrough.sh: the demo with $n more packages does not pass all seven stages:" >&2
		grep -E '^[0-9] ' "$W/check$n.txt" >&2
		exit 1
	}
}

bench_header "Walkthrough start to first full frame, and peak RSS (tests/bench/walkthrough.sh)" \
	"wall: median time to the first full frame on a pseudo-terminal (firstframe.py); CPU: median CPU time used by then; RSS: /usr/bin/time -v, median of 3"
$FF --runs "$RUNS" --timev 3 --marker Dossier --marker quit -- "$W/empty" frame >"$W/ef.json"
/usr/bin/time -v -o "$W/tv.txt" "$W/empty"
erss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$W/tv.txt")
jf() { "$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
ef=$(jf "$W/ef.json" median_frame_ms); ec=$(jf "$W/ef.json" median_frame_cpu_ms)
efrss=$(jf "$W/ef.json" median_timev_maxrss_kb)
row "empty program, exit at once (peak RSS)" "-" "-" "$erss KiB" "-" "-" "-" "-"
row "empty program, one curses frame" "-" "-" "$(t "$(calc "$ef/1000")") (CPU $(t "$(calc "$ec/1000")")), $(calc "$efrss" | cut -d. -f1) KiB" \
	"-" "-" "-" "-"

for n in $SIZES; do
	state "$n"
	d="$W/demo$n"
	# the YAML of the kernodeck folder: state, reference, observations
	st_kib=$(cat "$d"/kernodeck/*.yaml | wc -c | awk '{printf "%.0f", $1 / 1024}')
	# one start not counted: it computes and caches the reference identity
	$FF --runs 1 --marker Dossier --marker quit -- "$KD_BIN" "$d" >/dev/null
	$FF --runs "$RUNS" --timev 3 --marker Dossier --marker quit -- "$KD_BIN" "$d" >"$W/kf$n.json"
	$FF --runs "$RUNS" --timev 3 --touch "$d/kernodeck/reference.yaml" --marker Dossier \
		--marker quit -- "$KD_BIN" "$d" >"$W/kt$n.json"
	for v in kf kt; do
		kf=$(jf "$W/$v$n.json" median_frame_ms); kc=$(jf "$W/$v$n.json" median_frame_cpu_ms)
		kq=$(jf "$W/$v$n.json" median_cpu_ms)
		krss=$(jf "$W/$v$n.json" median_timev_maxrss_kb)
		in="demo + $n packages (kernodeck/*.yaml: $st_kib KiB)"
		case $v in
		kf) in="$in, unchanged reference";;
		kt) in="$in, reference.yaml just edited";;
		esac
		row "first full frame" "$in" "$(t "$(calc "$kf/1000")") (CPU $(t "$(calc "$kc/1000")"); to quit $(t "$(calc "$kq/1000")"))" \
			"empty frame $(t "$(calc "$ef/1000")") (CPU $(t "$(calc "$ec/1000")"))" "$(ratio "$kf" "$ef")" \
			"$(ratio "$kc" "$ec")" "< 50 ms" "$(met "$kf" '<=' 50 wall), $(met "$kc" '<=' 50 CPU)"
		r=$(ratio "$krss" "$erss")
		row "peak RSS (/usr/bin/time -v)" "$in" "$(calc "$krss" | cut -d. -f1) KiB" "empty $erss KiB" "$r" "-" \
			"<= 1.5x" "$(met "$r" '<=' 1.5)"
	done
done
echo
echo "- Times are medians of $RUNS starts on an 80x24 pseudo-terminal (TERM=xterm-256color, colours on); wall times include the fork from Python and the reading of the terminal output.  CPU: what the program had used when its frame was complete (/proc/PID/task/*/schedstat); \"to quit\": user+system of the whole session, start to exit after \"q\" (nothing changed, so the state is not saved again).  \"kernodeck/*.yaml\": the state, the reference and every observation file; a start reads state.yaml, reference.yaml and the shown stage's observations (the others when asked for)."
echo "- Libraries: kernodeck needs $nk shared objects (ldd), the empty program $ne; RSS of the empty program drawing a frame: $(calc "$efrss" | cut -d. -f1) KiB."
bench_footer
