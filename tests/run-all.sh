#!/bin/sh
# tests/run-all.sh - run every kind of test and count test cases.
#
# Usage: run-all.sh UNIT_TEST_BINARY...
#   Unit tests are cmocka programs run with CMOCKA_MESSAGE_OUTPUT=TAP.
#   Scripts tests/e2e/*.sh and tests/integration/*.sh print TAP lines:
#     ok - NAME | not ok - NAME | ok - NAME # SKIP why
#   (sourcing tests/lib.sh gives them helpers that do it).
# Environment: KD_BIN, KD_SRCDIR, KD_BUILDDIR, KD_SHARE_DIR (set by make);
#   KD_TESTS=pattern runs only the tests whose path contains it;
#   KD_TEST_JOBS=N runs N scripts at a time (default: the processors).
# Each test's line ends with the seconds it took.
# The last line printed is "N passed, N failed, N skipped".

set -u
: "${KD_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${KD_BUILDDIR:=$PWD}"
: "${KD_BIN:=$KD_BUILDDIR/kernodeck}"
: "${KD_SHARE_DIR:=$KD_SRCDIR/share}"
export KD_BIN KD_SRCDIR KD_BUILDDIR KD_SHARE_DIR
# a sanitizer build: leaks inside system libraries (libgit2 1.5's PCRE2 match
# data) are not ours; everything else LeakSanitizer finds fails the test
: "${LSAN_OPTIONS=suppressions=$KD_SRCDIR/tests/lsan.supp:print_suppressions=0}"
export LSAN_OPTIONS
LOGDIR="$KD_BUILDDIR/tests/logs"
mkdir -p "$LOGDIR"
pass=0 fail=0 skip=0
failed_list=""

count() { # $1 = name, $2 = output file, $3 = exit status, $4 = seconds taken
	# cmocka 1.1.5 prints a skipped test as "not ok N # SKIP": a skip, not a failure
	p=$(grep -c '^ok ' "$2" | tr -d ' ')
	s1=$(grep -c '^ok .*# [Ss][Kk][Ii][Pp]' "$2" | tr -d ' ')
	s2=$(grep -c '^not ok .*# [Ss][Kk][Ii][Pp]' "$2" | tr -d ' ')
	f=$(grep -c '^not ok ' "$2" | tr -d ' ')
	s=$((s1 + s2)); p=$((p - s1)); f=$((f - s2))
	if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then
		# crashed or failed outside a test case: one failure
		f=1
		echo "not ok - $1 exited with status $3 outside any test case" >>"$2"
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	grep '^\(not \)\{0,1\}ok .*# [Ss][Kk][Ii][Pp]' "$2" | sed "s|^|  $1: |"
	if [ "$f" -gt 0 ]; then
		failed_list="$failed_list $1"
		grep '^not ok' "$2" | grep -v '# [Ss][Kk][Ii][Pp]' | sed "s|^|  $1: |"
		echo "  --- last lines of $2:"
		tail -n 25 "$2" | sed 's/^/    /'
	fi
	printf '%-48s %3d passed, %d failed, %d skipped %5ss\n' "$1" "$p" "$f" "$s" "$4"
}

selected() { [ -z "${KD_TESTS:-}" ] || case "$1" in *"$KD_TESTS"*) return 0;; *) return 1;; esac; }

for t in "$@"; do
	selected "$t" || continue
	name=$(basename "$t")
	out="$LOGDIR/$name.log"
	t0=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$KD_BUILDDIR/$t" >"$out" 2>&1
	rc=$?
	count "$name" "$out" $rc $(($(date +%s) - t0))
done

# The scripts: KD_TEST_JOBS of them at a time (default: the number of
# processors; 1 runs them one by one).  A script whose header holds the
# line "# kd-test: serial" (it measures time, loads every processor or
# starts daemons on free ports) runs alone after the others; "# kd-test:
# long" ones start first, so that a long one does not end the run alone.
# Each worker takes the next script from a queue (a counter under a
# mkdir lock); the results are counted in the scripts' order.
Q="$LOGDIR/.queue"
rm -rf "$Q"
mkdir -p "$Q"
: >"$Q/long"; : >"$Q/rest"; : >"$Q/serial"; : >"$Q/all"
for t in "$KD_SRCDIR"/tests/integration/*.sh "$KD_SRCDIR"/tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	selected "$t" || continue
	echo "$t" >>"$Q/all"
	if grep -q '^# kd-test: serial' "$t"; then echo "$t" >>"$Q/serial"
	elif grep -q '^# kd-test: long' "$t"; then echo "$t" >>"$Q/long"
	else echo "$t" >>"$Q/rest"; fi
done
cat "$Q/long" "$Q/rest" >"$Q/parallel"

log_of() { # $1 = script: its name and log file, in $name and $out
	name=$(basename "$(dirname "$1")")/$(basename "$1" .sh)
	out="$LOGDIR/$(echo "$name" | tr / -).log"
}
run_script() { # $1 = script: runs it, its status and seconds in $out.rc
	log_of "$1"
	t0=$(date +%s)
	timeout 600 sh "$1" >"$out" 2>&1 </dev/null
	echo "$? $(($(date +%s) - t0))" >"$out.rc"
}
worker() {
	while :; do
		until mkdir "$Q/lock" 2>/dev/null; do sleep 0.1; done
		n=$(($(cat "$Q/next" 2>/dev/null || echo 0) + 1))
		echo "$n" >"$Q/next"
		rmdir "$Q/lock"
		t=$(sed -n "${n}p" "$Q/parallel")
		[ -n "$t" ] || return 0
		run_script "$t"
	done
}
jobs=${KD_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$jobs" in ''|*[!0-9]*|0) jobs=1 ;; esac
w=0
while [ "$w" -lt "$jobs" ]; do
	worker &
	w=$((w + 1))
done
wait
while read -r t; do run_script "$t"; done <"$Q/serial"
while read -r t; do
	log_of "$t"
	if [ -f "$out.rc" ]; then
		read -r rc secs <"$out.rc"
		rm -f "$out.rc"
	else
		rc=125 secs=0
		echo "not ok - $name was not run" >>"$out"
	fi
	count "$name" "$out" "$rc" "$secs"
done <"$Q/all"
rm -rf "$Q"

[ -n "$failed_list" ] && echo "failed:$failed_list"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
