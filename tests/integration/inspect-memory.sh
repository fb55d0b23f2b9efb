#!/bin/sh
# `kernodeck inspect requirements|freeze|pip-check` prints as it parses
# (src/lib/treeout.c, issue 17 point 19): the same bytes as the whole tree
# printed at once (KD_INSPECT_TREE=1, the former path), and a peak RSS of
# the program's own plus a small multiple of the input, whatever the number
# of lines (a tree of one object per line took about a hundred times the
# input: 4.1 GB for a 30 MB requirements file).
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
GEN="$PY $KD_SRCDIR/tests/bench/gen-inputs.py"
T=$KD_TMP
if ! [ -x "$PY" ]; then
	skip "inspect-memory" "needs /usr/bin/python3"
	exit 0
fi

# A requirements file with everything the lint looks at across the whole
# input: more than TREEOUT_KEEP requirements and findings, a constraints
# file named on the last lines (so pins seen late still count), hashes,
# includes, index options, lines pip refuses, torch without its variant.
mkdir -p "$T/rq/sub"
printf 'requests==2.0\npkg7==1.0\n' >"$T/rq/cons.txt"
printf 'scipy\n-r ../more.txt\n' >"$T/rq/sub/inc.txt"
printf 'scipy==1.0\n-c cons.txt\n-r missing.txt\n' >"$T/rq/more.txt"
"$PY" - "$T/rq/main.txt" <<'EOF'
import random, sys
r = random.Random(3)
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        k = r.random()
        if k < 0.3: f.write("pkg%d\n" % i)
        elif k < 0.5: f.write("pkg%d==1.%d ; python_version > '3'\n" % (i, i))
        elif k < 0.55: f.write("--extra-index-url https://u:p@e%d.example/simple\n" % i)
        elif k < 0.6: f.write("-f /abs/links%d\n" % i)
        elif k < 0.65: f.write("bad line ((( %d\n" % i)
        elif k < 0.7: f.write("pkg%d>=1 --hash=sha256:%064x\n" % (i, i))
        elif k < 0.72: f.write("-r sub/inc.txt\n")
        elif k < 0.73: f.write("-e /home/me/p%d\n" % i)
        else: f.write("requests\n")
    f.write("torch\n-c cons.txt\n-i https://example.org/simple\n")
EOF
$GEN freeze 3000 "$T/freeze.txt"
$GEN pip-check 3000 "$T/check.txt"

both() { # both KIND FILE FORMAT: the streamed and the whole-tree runs, statuses in rs, rt
	"$KD_BIN" inspect "$1" "$2" --format "$3" >"$T/s.out" 2>"$T/s.err"; rs=$?
	KD_INSPECT_TREE=1 "$KD_BIN" inspect "$1" "$2" --format "$3" >"$T/t.out" 2>"$T/t.err"; rt=$?
	[ "$rs" -eq "$rt" ] && cmp -s "$T/s.out" "$T/t.out" && cmp -s "$T/s.err" "$T/t.err"
}
same() { # same KIND FILE FORMAT: both succeed, with the same bytes
	both "$@" && [ "$rs" -eq 0 ] && [ -s "$T/s.out" ]
}
for fmt in yaml json; do
	check "requirements ($fmt): streamed output is the tree's, byte for byte" \
		same requirements "$T/rq/main.txt" $fmt
	check "freeze ($fmt): streamed output is the tree's" same freeze "$T/freeze.txt" $fmt
	check "pip-check ($fmt): streamed output is the tree's" same pip-check "$T/check.txt" $fmt
	check "requirements file read as freeze ($fmt): the same" same freeze "$T/rq/main.txt" $fmt
done
"$KD_BIN" inspect requirements "$T/rq/main.txt" >"$T/rq.yaml"
check "the lint saw the constraints file named last (pinned_by_constraint)" \
	grep -q 'pinned_by_constraint: ==2.0' "$T/rq.yaml"
check "hash mode from a later line: findings for requirements before it" \
	grep -q 'has no --hash but hash-checking mode is on' "$T/rq.yaml"
# errors are the same too: nothing printed, exit 2, file and line named
printf 'numpy==1.0\nx\0y\n' >"$T/nul.txt"
for kind in requirements freeze pip-check; do
	both $kind "$T/nul.txt" yaml
	check "$kind, a NUL byte: exit 2, nothing printed, the same message either way" \
		test "$rs" -eq 2 -a "$rt" -eq 2 -a ! -s "$T/s.out" -a "$(cat "$T/s.err")" = "$(cat "$T/t.err")"
done

# More lines than KD_CAP_INPUT_LINES (50,000): the tree path refuses them,
# inspect reads them all.
$GEN freeze 60000 "$T/f60k.txt"
"$KD_BIN" inspect freeze "$T/f60k.txt" --format json >"$T/f60k.json" 2>"$T/f60k.err"
check "60,000 packages: inspect freeze reads every one" "$PY" -c "
import json; d = json.load(open('$T/f60k.json')); assert len(d['packages']) == 60000, len(d['packages'])"
expect_exit 2 "60,000 packages: the whole tree is still refused past KD_CAP_INPUT_LINES" \
	sh -c 'KD_INSPECT_TREE=1 "$1" inspect freeze "$2" >/dev/null 2>&1' sh "$KD_BIN" "$T/f60k.txt"

# Peak RSS: the program's own (one line in) plus at most four times the
# input.  A sanitizer build's shadow memory makes RSS no measure: skipped.
if ! [ -x /usr/bin/time ]; then
	skip "peak RSS bound" "needs /usr/bin/time (Debian package time)"
	exit 0
fi
if ldd "$KD_BIN" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	skip "peak RSS bound" "a sanitizer build (its shadow memory is in every RSS)"
	exit 0
fi
rss() { /usr/bin/time -f %M -o "$T/rss" "$KD_BIN" inspect "$@" >/dev/null 2>&1; tail -n 1 "$T/rss"; }
head -n 1 "$T/f60k.txt" >"$T/one.txt"
$GEN pip-check 60000 "$T/c60k.txt"
for kind in requirements freeze pip-check; do
	in=$T/f60k.txt
	[ "$kind" = pip-check ] && in=$T/c60k.txt
	base=$(rss "$kind" "$T/one.txt")
	peak=$(rss "$kind" "$in")
	size=$(( $(stat -c %s "$in") / 1024 ))
	if [ -n "$base" ] && [ -n "$peak" ] && [ "$((peak - base))" -le "$((4 * size))" ]; then
		ok "$kind, 60,000 lines ($size KiB): peak RSS $peak KiB, one line $base KiB: within 4x the input"
	else
		notok "$kind, 60,000 lines ($size KiB): peak RSS ${peak:-?} KiB, one line ${base:-?} KiB: over 4x the input"
	fi
done
