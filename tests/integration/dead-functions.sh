#!/bin/sh
# No function is defined and never called (tools/dead-functions.sh: nm
# and objdump over the library, the program and screens/, then the
# sources), and the tool finds one planted.
. "$KD_SRCDIR/tests/lib.sh"
B="${KD_BUILDDIR:-.}"
tool="$KD_SRCDIR/tools/dead-functions.sh"
if ! command -v nm >/dev/null 2>&1 || ! command -v objdump >/dev/null 2>&1; then
	skip "dead functions" "no nm or objdump"
	exit 0
fi
sh "$tool" "$B" "$KD_SRCDIR" >"$KD_TMP/dead.out" 2>&1
r=$?
check "no function is defined and never called (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/#   /' "$KD_TMP/dead.out"
printf 'int kd_planted_never_called(int x) { return x + 1; }\n' >"$KD_TMP/planted.c"
if cc -O2 -c "$KD_TMP/planted.c" -o "$KD_TMP/planted.o" 2>/dev/null; then
	sh "$tool" "$B" "$KD_SRCDIR" "$KD_TMP/planted.o" >"$KD_TMP/planted.out" 2>&1
	r=$?
	check "a planted function never called is found (exit $r)" \
		sh -c "[ $r -eq 1 ] && grep -q 'kd_planted_never_called is defined and never called' '$KD_TMP/planted.out'"
else
	skip "a planted function never called is found" "no C compiler"
fi
sh "$tool" "$KD_TMP" "$KD_SRCDIR" >/dev/null 2>&1
check "a folder with no libkdcore.a is bad usage (exit 2)" test $? -eq 2
