#!/bin/sh
# tests/run-all.sh - run every kind of test and count test cases.
#
# Usage: run-all.sh UNIT_TEST_BINARY...
#   Unit tests are cmocka programs run with CMOCKA_MESSAGE_OUTPUT=TAP.
#   Scripts tests/e2e/*.sh and tests/integration/*.sh print TAP lines:
#     ok - NAME | not ok - NAME | ok - NAME # SKIP why
#   (sourcing tests/lib.sh gives them helpers that do it).
# Environment: KD_BIN, KD_SRCDIR, KD_BUILDDIR, KD_SHARE_DIR (set by make);
#   KD_TESTS=pattern runs only the tests whose path contains it.
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

for t in "$KD_SRCDIR"/tests/integration/*.sh "$KD_SRCDIR"/tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	selected "$t" || continue
	name=$(basename "$(dirname "$t")")/$(basename "$t" .sh)
	out="$LOGDIR/$(echo "$name" | tr / -).log"
	t0=$(date +%s)
	timeout 600 sh "$t" >"$out" 2>&1
	rc=$?
	count "$name" "$out" $rc $(($(date +%s) - t0))
done

[ -n "$failed_list" ] && echo "failed:$failed_list"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
