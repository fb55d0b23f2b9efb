#!/bin/sh
# tests/fuzz/run-fuzz.sh - build the fuzz targets with clang and libFuzzer,
# and run them (`make fuzz` calls it; see doc/hardening.md).
#
# Usage: run-fuzz.sh build | run | all
# Environment (set by mk/fuzz.am):
#   KD_SRCDIR KD_BUILDDIR  source and build folders (config.h is in the latter)
#   FUZZ_CC                clang (14 or later)
#   FUZZ_SAN               sanitizers: address,undefined
#   FUZZ_CPPFLAGS          the build's preprocessor flags
#   FUZZ_PKGDATADIR        the installed data folder (KD_PKGDATADIR)
#   FUZZ_CORE_CFLAGS       the libraries' flags
#   FUZZ_CORE_LIBS         the libraries to link
#   FUZZ_SOURCES           the core's sources (relative to KD_SRCDIR)
#   FUZZ_TARGETS           target names without fuzz- (npy safetensors ...)
#   FUZZ_SECONDS           seconds per target (default 300)
#   FUZZ_JOBS              targets run at a time (default 2)
#   FUZZ_OUT               work folder (default $KD_BUILDDIR/fuzz)
# Each target runs with its seed corpus (tests/fuzz/corpus/fuzz-T), its
# dictionary (tests/fuzz/fuzz-T.dict) and its regressions as seeds; new
# inputs go to FUZZ_OUT/corpus/fuzz-T, crashes to FUZZ_OUT/artifacts/fuzz-T/.
# The last lines are a table: target, executions, cov, ft, corpus, result.

set -u
: "${KD_SRCDIR:?}" "${KD_BUILDDIR:?}"
: "${FUZZ_CC:=clang}" "${FUZZ_SAN:=address,undefined}"
: "${FUZZ_SECONDS:=300}" "${FUZZ_JOBS:=2}" "${FUZZ_OUT:=$KD_BUILDDIR/fuzz}"
: "${FUZZ_CPPFLAGS:=}" "${FUZZ_CORE_CFLAGS:=}" "${FUZZ_CORE_LIBS:=}"
: "${FUZZ_SOURCES:=}" "${FUZZ_TARGETS:=}" "${FUZZ_PKGDATADIR:=/usr/local/share/kernodeck}"
export KD_SRCDIR KD_BUILDDIR FUZZ_CC FUZZ_SAN FUZZ_SECONDS FUZZ_OUT \
	FUZZ_CPPFLAGS FUZZ_CORE_CFLAGS FUZZ_CORE_LIBS FUZZ_PKGDATADIR
FZ="$KD_SRCDIR/tests/fuzz"
CFLAGS_FUZZ="-g -O1 -fno-omit-frame-pointer -std=gnu11 -Wno-unused-command-line-argument"
# -fno-sanitize-recover: an undefined behaviour is a crash, kept as an input
SANFLAGS="-fsanitize=$FUZZ_SAN -fno-sanitize-recover=undefined"

compile_one() { # SRC OBJ
	# shellcheck disable=SC2086
	$FUZZ_CC $CFLAGS_FUZZ $SANFLAGS -fsanitize=fuzzer-no-link $FUZZ_CPPFLAGS \
		-DKD_PKGDATADIR="\"$FUZZ_PKGDATADIR\"" -DKD_SRCDIR="\"$KD_SRCDIR\"" \
		$FUZZ_CORE_CFLAGS -c "$KD_SRCDIR/$1" -o "$2"
}

build() {
	mkdir -p "$FUZZ_OUT/obj" "$FUZZ_OUT/bin" || exit 3
	newest_hdr=$(ls -t "$KD_SRCDIR"/include/kernodeck/*.h "$KD_BUILDDIR/config.h" | head -n 1)
	todo=""
	for s in $FUZZ_SOURCES; do
		o="$FUZZ_OUT/obj/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')"
		if [ ! -f "$o" ] || [ "$KD_SRCDIR/$s" -nt "$o" ] || [ "$newest_hdr" -nt "$o" ]; then
			todo="$todo $s"
		fi
	done
	if [ -n "$todo" ]; then
		echo "fuzz: compiling $(echo $todo | wc -w) sources with $FUZZ_CC"
		# shellcheck disable=SC2086
		printf '%s\n' $todo | xargs -P "$FUZZ_JOBS" -n 1 sh "$0" compile || exit 3
	fi
	rm -f "$FUZZ_OUT/libkdcore-fuzz.a"
	ar cr "$FUZZ_OUT/libkdcore-fuzz.a" "$FUZZ_OUT"/obj/*.o || exit 3
	for t in $FUZZ_TARGETS; do
		echo "fuzz: linking fuzz-$t"
		# shellcheck disable=SC2086
		$FUZZ_CC $CFLAGS_FUZZ $SANFLAGS -fsanitize=fuzzer $FUZZ_CPPFLAGS \
			$FUZZ_CORE_CFLAGS -I"$FZ" "$FZ/fuzz-$t.c" "$FUZZ_OUT/libkdcore-fuzz.a" \
			$FUZZ_CORE_LIBS -lm -o "$FUZZ_OUT/bin/fuzz-$t" || exit 3
	done
}

# Run one target for FUZZ_SECONDS; its log is FUZZ_OUT/logs/fuzz-T.log and
# a one-line summary FUZZ_OUT/logs/fuzz-T.sum.
run_one() {
	t=fuzz-$1
	mkdir -p "$FUZZ_OUT/corpus/$t" "$FUZZ_OUT/artifacts/$t" "$FUZZ_OUT/logs"
	seeds="$FZ/corpus/$t"
	[ -d "$FZ/regressions/$t" ] && seeds="$seeds $FZ/regressions/$t"
	dict=""
	[ -f "$FZ/$t.dict" ] && dict="-dict=$FZ/$t.dict"
	log="$FUZZ_OUT/logs/$t.log"
	echo "fuzz: $t for $FUZZ_SECONDS s"
	# shellcheck disable=SC2086
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1" \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	"$FUZZ_OUT/bin/$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 $dict \
		-artifact_prefix="$FUZZ_OUT/artifacts/$t/" \
		"$FUZZ_OUT/corpus/$t" $seeds >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
	if [ "$rc" -eq 0 ]; then res=ok; else
		res="FOUND($(ls "$FUZZ_OUT/artifacts/$t" | head -n 1))"
	fi
	printf '%-22s %12s %7s %7s %7s  %s\n' "$t" "${execs:-?}" "${cov:-?}" \
		"${ft:-?}" "${corp:-?}" "$res" >"$FUZZ_OUT/logs/$t.sum"
	cat "$FUZZ_OUT/logs/$t.sum"
	[ "$rc" -eq 0 ]
}

run() {
	rm -f "$FUZZ_OUT"/logs/*.sum
	# shellcheck disable=SC2086
	printf '%s\n' $FUZZ_TARGETS | xargs -P "$FUZZ_JOBS" -n 1 sh "$0" one
	rc=$?
	echo
	printf '%-22s %12s %7s %7s %7s  %s\n' target executions cov ft corpus result
	cat "$FUZZ_OUT"/logs/*.sum
	[ "$rc" -eq 0 ] || { echo "fuzz: a target found a problem: see $FUZZ_OUT/artifacts"; exit 1; }
}

case "${1:-all}" in
compile) shift; compile_one "$1" "$FUZZ_OUT/obj/$(echo "$1" | tr / _ | sed 's/\.c$/.o/')" ;;
one) shift; run_one "$1" ;;
build) build ;;
run) run ;;
all) build && run ;;
*) echo "usage: $0 build|run|all" >&2; exit 2 ;;
esac
