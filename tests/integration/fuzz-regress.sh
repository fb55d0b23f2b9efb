# tests/integration/fuzz-regress.sh - replay every fuzz target's seed corpus
# and kept crashing inputs (tests/fuzz/) through the regression programs
# that make check builds (tests/fuzz/regress-T: the target linked with
# tests/fuzz/regress-main.c instead of libFuzzer).  One TAP line per input;
# a target that crashes on one fails here.
. "$KD_SRCDIR/tests/lib.sh"
# a sanitizer build: leaks inside system libraries are not ours (tests/lsan.supp)
: "${LSAN_OPTIONS=suppressions=$KD_SRCDIR/tests/lsan.supp}"
export LSAN_OPTIONS

FZ="$KD_SRCDIR/tests/fuzz"
for src in "$FZ"/fuzz-*.c; do
	t=$(basename "$src" .c)
	prog="$KD_BUILDDIR/tests/fuzz/regress-${t#fuzz-}"
	if [ ! -x "$prog" ]; then
		notok "$t regression program built ($prog missing)"
		continue
	fi
	set -- "$FZ/corpus/$t"
	[ -d "$FZ/regressions/$t" ] && set -- "$@" "$FZ/regressions/$t"
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:allocator_may_return_null=1" \
		"$prog" "$@" >"$KD_TMP/$t.out" 2>&1
	rc=$?
	grep -E '^(not )?ok ' "$KD_TMP/$t.out"
	n=$(grep -c '^ok ' "$KD_TMP/$t.out")
	if [ "$rc" -eq 0 ] && [ "$n" -gt 0 ]; then
		ok "$t replayed $n inputs"
	else
		notok "$t replay (exit $rc after $n inputs)"
		tail -n 30 "$KD_TMP/$t.out" | sed 's/^/# /'
	fi
done
