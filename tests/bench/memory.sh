#!/bin/sh
# tests/bench/memory.sh - time and peak memory of the text parsers against
# the size of their input (issue 17, point 19): `kernodeck inspect
# requirements|freeze|pip-check FILE`, which print as they parse
# (src/lib/treeout.c), on inputs of short lines (1, 10 and 30 MB: about 34,000
# to 1,000,000 lines; the 30 MB file is the issue's, which took 4.1 GB and
# 12 s) and of long lines (30 MB in 1,000 lines of 30 KB).  The alternative
# is the same command printing the whole tree at once (KD_INSPECT_TREE=1,
# the path before), on what it accepts: up to KD_CAP_INPUT_LINES (50,000)
# lines, so the 1 MB input and the long lines.
#
# Each figure is one run under /usr/bin/time -v: wall, CPU (user+system)
# and the peak RSS; the program's own peak (the same command on a one-line
# input) is subtracted for the ratio to the input.  Target: peak RSS at
# most a small multiple (4x) of the input, and time linear in it.
#
# Usage: sh tests/bench/memory.sh   (KD_BIN, KD_BENCH_QUICK: see lib.sh; a
# quick run stops at 10 MB).
. "$(dirname "$0")/lib.sh"
bench_init memory /usr/bin/time
SIZES="1 10 30"
[ "$QUICK" = 1 ] && SIZES="1 10"
GEN="$PY $BENCH_DIR/gen-inputs.py"

# tv OUT CMD...: one run; sets wall, cpu (seconds) and kb (peak RSS)
tv() {
	_o=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$_o" "$@" >/dev/null 2>"$_o.err"
	read -r wall _u _s kb <<EOF
$(tail -n 1 "$_o")
EOF
	cpu=$(calc "$_u + $_s")
}

# the inputs: freeze-shaped lines serve requirements too (name==V, name @
# URL, -e PATH: all lines pip reads in a requirements file)
for mb in $SIZES; do
	n=$((mb * 33500))
	$GEN freeze "$n" "$W/f$mb.txt"
	$GEN pip-check "$((mb * 13400))" "$W/c$mb.txt"
done
"$PY" - "$W" <<'EOF'
import random, sys
w, r = sys.argv[1], random.Random(1)
with open(w + "/rlong.txt", "w") as f:    # 380 hashes a line
    for i in range(1000):
        f.write("pkg%d==1.%d.0 " % (i, i) + " ".join(
            "--hash=sha256:%064x" % r.getrandbits(256) for _ in range(380)) + "\n")
with open(w + "/flong.txt", "w") as f:    # a 30 KB URL a line
    for i in range(1000):
        f.write("pkg%d @ https://example.com/%s/pkg%d-1.0-py3-none-any.whl\n" % (i, "d" * 30000, i))
with open(w + "/clong.txt", "w") as f:    # a 30 KB requirement a line
    for i in range(1000):
        f.write("pkg%d 1.0 has requirement dep%d%s==2.0, but you have dep 1.0.\n" % (i, i, "x" * 30000))
EOF
head -n 1 "$W/f1.txt" >"$W/one.txt"
head -n 1 "$W/c1.txt" >"$W/cone.txt"

bench_header "Time and peak memory of the text parsers against their input (tests/bench/memory.sh)" \
	"one run each under /usr/bin/time: wall, CPU user+system, peak RSS; the ratio is (peak - the one-line peak) / input"
for kind in requirements freeze pip-check; do
	one=$W/one.txt
	[ "$kind" = pip-check ] && one=$W/cone.txt
	tv "$W/t" "$KD_BIN" inspect "$kind" "$one"
	base=$kb
	set --
	for mb in $SIZES; do
		f=$W/f$mb.txt
		[ "$kind" = pip-check ] && f=$W/c$mb.txt
		set -- "$@" "$f"
	done
	case $kind in
	requirements) set -- "$@" "$W/rlong.txt" ;;
	freeze) set -- "$@" "$W/flong.txt" ;;
	pip-check) set -- "$@" "$W/clong.txt" ;;
	esac
	for f in "$@"; do
		sz=$(stat -c %s "$f")
		lines=$(wc -l <"$f")
		in="$(calc "$sz/1048576" | sed 's/\(\...\).*/\1/') MiB, $lines lines"
		tv "$W/t" "$KD_BIN" inspect "$kind" "$f"
		if grep -q '^Command' "$W/t"; then   # time's line for a non-zero exit
			row "inspect $kind" "$in" "failed: $(head -c 200 "$W/t.err")" "-" "-" "-" "-" "-"
			continue
		fi
		mine="$(t "$wall") (CPU $(t "$cpu")), $((kb / 1024)) MiB"
		r=$(ratio "$(( (kb - base) * 1024 ))" "$sz")
		alt="-" rw="-" rc="-"
		if [ "$lines" -le 50000 ]; then
			w0=$wall c0=$cpu
			tv "$W/a" env KD_INSPECT_TREE=1 "$KD_BIN" inspect "$kind" "$f"
			alt="whole tree: $(t "$wall") (CPU $(t "$cpu")), $((kb / 1024)) MiB"
			rw=$(ratio "$w0" "$wall")
			rc=$(ratio "$c0" "$cpu")
		fi
		row "inspect $kind (one-line input: $((base / 1024)) MiB)" "$in" "$mine" "$alt" "$rw" "$rc" \
			"<= 4x input" "$(met "$r" '<=' 4 "RSS, ${r}x")"
	done
done
echo
echo "- Peak RSS includes the input read whole (1x) and the program's own (the one-line figure, about 6-9 MiB: the libraries and the ncurses terminal filter); the ratio subtracts the latter."
echo "- Time: the text is parsed once for the skeleton (every key and scalar) and once more for each long array (requirements: the requirements, whose lint findings are kept from that pass; freeze: the packages; pip check: the problems), so CPU per line is about constant: compare the 1, 10 and 30 MB rows."
bench_footer
