# tests/integration/valgrind-unit.sh - every unit test under valgrind's
# memcheck: no invalid access, no use of an uninitialised value and no
# definite leak.  Slow (minutes), so it runs only when KD_VALGRIND=1:
#   KD_VALGRIND=1 KD_TESTS=valgrind make check
# Each test program is one TAP line; its valgrind log is kept in
# tests/logs/valgrind-NAME.log of the build folder.  A sanitizer build
# cannot run under valgrind (both replace malloc), so it is skipped there.
. "$KD_SRCDIR/tests/lib.sh"

if [ "${KD_VALGRIND:-0}" != 1 ]; then
	skip "valgrind unit tests" "slow: set KD_VALGRIND=1 to run them"
	exit 0
fi
if ! command -v valgrind >/dev/null 2>&1; then
	skip "valgrind unit tests" "valgrind is not installed (Debian package valgrind)"
	exit 0
fi
if [ "${KD_SANITIZERS:-no}" = yes ]; then
	skip "valgrind unit tests" "this build uses the sanitizers"
	exit 0
fi
logs="$KD_BUILDDIR/tests/logs"
mkdir -p "$logs"
found=0
for t in "$KD_BUILDDIR"/tests/unit/test-*; do
	[ -x "$t" ] && [ -f "$t" ] || continue
	case "$t" in *.o|*.log|*.trs) continue ;; esac
	found=1
	name=$(basename "$t")
	log="$logs/valgrind-$name.log"
	# definite leaks and every memory error fail; still-reachable and
	# possible leaks (libgit2's and OpenSSL's caches) are only logged;
	# libgit2 1.5's own leak is suppressed (tests/valgrind.supp)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout 900 valgrind --quiet --error-exitcode=99 \
		--leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite --track-origins=yes \
		--suppressions="$KD_SRCDIR/tests/valgrind.supp" \
		--log-file="$log" "$t" >"$log.out" 2>&1
	rc=$?
	if [ "$rc" -eq 99 ]; then
		notok "valgrind $name: memcheck errors (see $log)"
		grep -m 20 -E 'Invalid|uninitialised|definitely lost|Conditional' "$log" | sed 's/^/#   /'
	elif [ "$rc" -ne 0 ]; then
		notok "valgrind $name: the tests failed under valgrind (exit $rc; see $log.out)"
		grep '^not ok' "$log.out" | head -n 10 | sed 's/^/#   /'
	else
		ok "valgrind $name: no memory error, no definite leak"
	fi
done
[ "$found" = 1 ] || notok "valgrind: no unit test program in $KD_BUILDDIR/tests/unit"
