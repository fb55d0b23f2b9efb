#!/bin/sh
# tools/dead-functions.sh - no function is defined and never called.
#
# Usage: dead-functions.sh BUILDDIR [SRCDIR [OBJECT...]]
#
# The functions are the global ones (nm: T) of the program: the members
# of BUILDDIR/libkdcore.a, src/main's and the screens/ objects of the
# kernodeck program, and any OBJECT given.  A function is called when a
# relocation of any object built (the program's, tools/', the tests')
# names it, or, for a call the compiler inlined in its own file, when its
# name appears in a C file of SRCDIR (src, screens, tools, tests) on a
# line other than its definition.  Each function neither is printed as
# "FILE:LINE: NAME is defined and never called".
# Exit status: 0 when there is none, 1 when there is one, 2 on bad usage
# (BUILDDIR holds no libkdcore.a).
set -u
build=${1:?usage: dead-functions.sh BUILDDIR [SRCDIR [OBJECT...]]}
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
[ $# -ge 2 ] && shift 2 || shift $#
[ -f "$build/libkdcore.a" ] || { echo "dead-functions.sh: no $build/libkdcore.a" >&2; exit 2; }
build=$(cd "$build" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kddead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

prog="$build/libkdcore.a"
for o in "$build"/src/kernodeck-*.o "$build"/screens/kernodeck-*.o "$@"; do
	[ -f "$o" ] && prog="$prog $o"
done
users=$(find "$build/tools" "$build/tests" -name '*.o' 2>/dev/null)
# shellcheck disable=SC2086
nm -g --defined-only $prog 2>/dev/null | awk '$2 == "T" && $3 != "main" { print $3 }' |
	LC_ALL=C sort -u >"$tmp/defined"
# shellcheck disable=SC2086
objdump -r $prog $users 2>/dev/null |
	awk 'NF == 3 && $1 ~ /^[0-9a-f]+$/ { v = $3; sub(/[-+]0x[0-9a-f]+$/, "", v); print v }' |
	LC_ALL=C sort -u >"$tmp/relocated"
LC_ALL=C comm -23 "$tmp/defined" "$tmp/relocated" >"$tmp/candidates"

cd "$src" || exit 2
find src screens tools tests -name '*.c' 2>/dev/null |
	LC_ALL=C sort >"$tmp/files"
dead=0
while read -r f; do
	# every line naming f: its definition starts a line with "f("
	# shellcheck disable=SC2046
	uses=$(grep -nwF -- "$f" $(cat "$tmp/files") /dev/null 2>/dev/null | grep -v ":[0-9]*:$f(")
	if [ -z "$uses" ]; then
		def=$(grep -nF -- "$f(" $(cat "$tmp/files") /dev/null 2>/dev/null | grep ":[0-9]*:$f(" | head -n 1 |
			cut -d: -f1,2)
		echo "${def:-?:0}: $f is defined and never called"
		dead=1
	fi
done <"$tmp/candidates"
exit $dead
