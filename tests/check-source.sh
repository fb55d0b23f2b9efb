#!/bin/sh
# tests/check-source.sh - the house rules of the code (doc/design.md), checked.
#
# Usage: check-source.sh [TOPDIR [LIBKDCORE]]   (default: the tree holding
# this script; $KD_BUILDDIR/libkdcore.a)
#
# One TAP line per rule; a broken rule names each offending FILE:LINE.
#   - no system(, popen(, sprintf(/vsprintf(, strcpy(, strcat(, gets( in
#     src/, screens/ and include/ (snprintf, strncpy, fgets are fine);
#   - no curses header (<curses.h>, <ncurses.h>, <ncursesw/...>, <term.h>,
#     <panel.h>) under src/ and include/, except include/kernodeck/screen.h,
#     the one header that names curses types;
#   - nothing in the core library (src/ but main.c) includes
#     kernodeck/screen.h, which would bring curses in;
#   - one way out to the terminal (termout.h): no write(), dprintf() or
#     vdprintf() to file descriptor 1 or 2 (STDOUT_FILENO, STDERR_FILENO)
#     and no assignment to stdout or stderr under src/ and screens/ but in
#     src/lib/termout.c and the crash handler of screens/tui.c (a fixed text).
#   - one text cleaner for what a person reads: no file is opened for
#     writing under src/ and screens/ (fopen "w"/"a", open/openat/creat
#     with O_CREAT or O_WRONLY) but in src/lib/fsutil.c, beneath.c, run.c
#     (logs), cgroup.c, place.c (data and weights, copied byte for byte)
#     and src/engine/lock.c, so that every file goes
#     through fsutil_write_atomic, which cleans a .md or .txt with
#     termout_clean; and FSUTIL_RAW (no cleaning) only in fsutil.c, hash.c,
#     repo.c, ctx.c and dossier.c (which cleans its README itself);
#   - a stage file (src/stages/stage-*.c) exports only its ops (no function
#     that is not static) and calls no command (cmd_*, kd_cmd_*) and no
#     other stage (another stage's gather/check/describe);
#   - the floors: the code under src/ sits in one folder per floor, bottom
#     to top lib, formats, engine, facts, features, stages, cmd; src/main.c
#     and screens/ are the top.  A file includes headers of its own floor or
#     below only.  A header include/kernodeck/NAME.h is of the floor of
#     src/FLOOR/NAME.c, or of the floor the table header_floor below gives
#     it (headers with no .c of their own); a header of no floor is an
#     offence, so a new header is placed when it is added;
#   - include cycles: NAME.c and NAME.h are one module, an include an arrow;
#     each set of modules that reach one another is a cycle; at most one
#     outside screens/ (and main.c) and one inside;
#   - the core library (libkdcore.a, found in $KD_BUILDDIR or given as the
#     second argument) has no undefined symbol that only screens/ defines
#     (nm): the core never calls into the walkthrough; skipped when the
#     library is not built.
# Comments, string and character literals are blanked before matching, so
# "never call system()" in a comment is no offence.
# Exit status: 0 when every rule holds, 1 otherwise.

set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
lib=${2:-${KD_BUILDDIR:+$KD_BUILDDIR/libkdcore.a}}
case "$lib" in ""|/*) ;; *) lib="$PWD/$lib" ;; esac
cd "$top" || { echo "not ok - source rules: cannot enter $top"; exit 1; }
fail=0

# The C files of some folders, one path a line.
sources() {
	for d in "$@"; do
		[ -d "$d" ] && find "$d" -type f \( -name '*.c' -o -name '*.h' \)
	done | LC_ALL=C sort
}

# FILE:LINE:TEXT for every line, comments and literals blanked (but the
# file name of an #include).
clean() {
	[ $# -gt 0 ] || return 0
	LC_ALL=C awk '
	FNR == 1 { inc = 0 }
	{
		s = $0; out = ""; i = 1; n = length(s)
		keepq = !inc && s ~ /^[ \t]*#[ \t]*include/
		while (i <= n) {
			c = substr(s, i, 1); c2 = substr(s, i, 2)
			if (inc) {
				if (c2 == "*/") { inc = 0; i += 2 } else i++
				continue
			}
			if (c2 == "/*") { inc = 1; out = out " "; i += 2; continue }
			if (c2 == "//") break
			if ((c == "\"" || c == "\047") && !keepq) {
				q = c; out = out q; i++
				while (i <= n && substr(s, i, 1) != q)
					i += substr(s, i, 1) == "\\" ? 2 : 1
				out = out q; i++
				continue
			}
			out = out c; i++
		}
		print FILENAME ":" FNR ":" out
	}' "$@"
}

# report RULE OFFENCES: one TAP line for the rule, each offence below it.
report() {
	if [ -z "$2" ]; then
		echo "ok - source rule: $1"
	else
		fail=1
		where=$(printf '%s\n' "$2" | cut -d: -f1,2 | tr '\n' ' ')
		echo "not ok - source rule: $1: ${where% }"
		printf '%s\n' "$2" | sed 's/^/#   /'
	fi
}

code=$(clean $(sources src screens include))
for f in system popen sprintf vsprintf strcpy strcat gets; do
	hits=$(printf '%s\n' "$code" | grep -E "^[^:]*:[0-9]+:(.*[^A-Za-z0-9_])?$f[[:space:]]*\(" || true)
	report "no $f( in src/ screens/ include/" "$hits"
done

inc='^[^:]*:[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]'
headers=$(clean $(sources src include | grep -v '^include/kernodeck/screen\.h$') |
	grep -E "$inc(n?curses\.h|ncursesw?/|term\.h|panel\.h)" || true)
report "no curses header under src/ include/ (but include/kernodeck/screen.h)" "$headers"

screen=$(clean $(sources src | grep -v '^src/main\.c$') | grep -E "${inc}kernodeck/screen\.h" || true)
report "the core library (src/ but main.c) does not include kernodeck/screen.h" "$screen"

raw=$(printf '%s\n' "$code" | grep -E '^(src|screens)/' |
	grep -v -E '^(src/lib/termout\.c|screens/tui\.c):' |
	grep -E '(^|[^A-Za-z0-9_])(write|dprintf|vdprintf)[[:space:]]*\([[:space:]]*(1|2|STDOUT_FILENO|STDERR_FILENO)[[:space:]]*,|(^|[^A-Za-z0-9_.>])(stdout|stderr)[[:space:]]*=[^=]' || true)
report "no raw write to the terminal but through src/lib/termout.c" "$raw"

# One text cleaner for what a person reads: every file is written through
# fsutil_write_atomic, which cleans a .md or .txt file with termout_clean
# (termout_person_file).  No file opened for writing elsewhere (fopen with
# a "w" or "a" mode, open/openat/creat with O_CREAT or O_WRONLY), and
# FSUTIL_RAW (written as it is) only in the files whose raw writes are no
# person's text or were cleaned before (the dossier's README).
opened=$(for f in $(sources src screens); do
	grep -nE '(^|[^A-Za-z0-9_])(fopen|freopen|fdopen)[[:space:]]*\([^;]*"[wa]' "$f" | sed "s#^#$f:#"
done)
opened=$(printf '%s\n%s\n' "$opened" "$(printf '%s\n' "$code" | grep -E '^(src|screens)/' |
	grep -E '(^|[^A-Za-z0-9_])(open|openat|creat)[[:space:]]*\(.*(O_CREAT|O_WRONLY)|(^|[^A-Za-z0-9_])creat[[:space:]]*\(' || true)" |
	grep -v -E '^(src/lib/fsutil\.c|src/lib/beneath\.c|src/lib/run\.c|src/engine/lock\.c|src/lib/cgroup\.c|src/lib/place\.c):' |
	grep . || true)
rawtext=$(printf '%s\n' "$code" | grep -E '^(src|screens)/[^:]*:[0-9]+:.*FSUTIL_RAW' |
	grep -v -E '^(src/lib/fsutil\.c|src/lib/hash\.c|src/facts/repo\.c|src/engine/ctx\.c|src/features/dossier\.c):' || true)
report "every file written through fsutil (a .md or .txt cleaned by termout)" "$opened${rawtext:+
$rawtext}"

# NAME for every function defined at the start of a line (the house style:
# the type on the line above) that is not static, as FILE:LINE:NAME.
exported() {
	[ $# -gt 0 ] || return 0
	LC_ALL=C awk '
	FNR == 1 { prev = "" }
	/^[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/ && prev !~ /(^|[ \t])static([ \t]|$)/ &&
	    prev !~ /^[ \t]*$/ && prev !~ /[;{}]$|^#|\*\/$/ {
		n = $0; sub(/[ \t]*\(.*/, "", n); print FILENAME ":" FNR ":" n
	}
	{ prev = $0 }' "$@"
}

stages=$(sources src | grep '^src/stages/stage-.*\.c$' || true)
hits=$(exported $stages)
report "a stage file exports only its ops (src/stages/stage-*.c)" "$hits"
hits=$(clean $stages | grep -E '^[^:]*:[0-9]+:(.*[^A-Za-z0-9_])?(cmd_[a-z_]+[[:space:]]*\(|kd_cmd_[a-z_]+)|(->|\.)(gather|check|describe)[[:space:]]*\(' || true)
report "a stage file calls no command and no other stage" "$hits"

# The floors, bottom to top; the headers that have no .c of their own.
floors="lib formats engine facts features stages cmd"
header_floor="caps:lib err:lib format:lib inspect:formats stage:engine obs:engine
obs-reference:engine obs-system:engine obs-rebuild:engine obs-contract:engine
obs-compute:engine obs-sample:engine obs-dossier:engine rebuild:facts
screen:top keys:top frame:top plot:top shellwords:top termcheck:top textw:top"
# Known offences being mended (issue 24), one FILE:HEADER a line; empty
# when none.
layer_exceptions=""
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdfloor.XXXXXX")
{
	for f in $floors; do
		[ -d "src/$f" ] && find "src/$f" -maxdepth 1 -name '*.c' |
			sed "s#^src/$f/\(.*\)\.c\$#\1 $f#"
	done
	printf '%s\n' $header_floor | tr ':' ' '
} >"$tmp/map"
printf '%s\n' $layer_exceptions >"$tmp/exc"
hits=$(clean $(sources src screens include) | grep -E "${inc}kernodeck/" |
	LC_ALL=C awk -v floors="$floors" -v map="$tmp/map" -v exc="$tmp/exc" '
	BEGIN {
		n = split(floors, fl, " ")
		for (i = 1; i <= n; i++) rank[fl[i]] = i
		rank["top"] = n + 1
		while ((getline l < map) > 0) { split(l, a, " "); if (!(a[1] in hf)) hf[a[1]] = a[2] }
		while ((getline l < exc) > 0) if (l != "") skip[l] = 1
	}
	function floor_of(path,   m, b) {
		if (path ~ /^screens\//) return "top"
		if (match(path, /^src\/[a-z]+\//)) return substr(path, 5, RLENGTH - 5)
		if (path ~ /^src\//) return "top"
		b = path; sub(/^.*\//, "", b); sub(/\.h$/, "", b)
		return (b in hf) ? hf[b] : ""
	}
	{
		split($0, p, ":"); file = p[1]; line = p[2]
		h = $0; sub(/^.*kernodeck\//, "", h); sub(/\.h.*$/, "", h)
		from = floor_of(file)
		if (from == "" || !(from in rank)) { print file ":" line ": " file " is of no floor"; next }
		if (!(h in hf)) { print file ":" line ": kernodeck/" h ".h is of no floor"; next }
		to = hf[h]
		if (rank[to] > rank[from] && !((file ":" h ".h") in skip))
			print file ":" line ": " from " includes " to "'"'"'s " h ".h"
	}' | LC_ALL=C sort -u || true)
rm -rf "$tmp"
report "a floor includes no header of a higher floor" "$hits"

# Include cycles between modules (NAME.c and include/kernodeck/NAME.h are
# one module; an #include "kernodeck/X.h" in either is an arrow to X): each
# strongly connected set of two modules or more is one cycle.  At most one
# may lie outside screens/ and main.c, and one inside (the walkthrough's
# frame and its widgets).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdcyc.XXXXXX")
clean $(sources src screens include) | grep -E "${inc}kernodeck/" |
	LC_ALL=C awk '{
		split($0, p, ":"); f = p[1]; sub(/^.*\//, "", f); sub(/\.[ch]$/, "", f)
		h = $0; sub(/^.*kernodeck\//, "", h); sub(/\.h.*$/, "", h)
		if (f != h) print f, h
	}' | LC_ALL=C sort -u >"$tmp/edges"
{ sources screens | grep '\.c$'; echo src/main.c; printf '%s\n' $header_floor | grep ':top$'; } |
	sed 's#^.*/##; s#\.c$##; s#:top$##' | LC_ALL=C sort -u >"$tmp/top"
cycles=$(LC_ALL=C awk -v top="$tmp/top" '
	function visit(v,   n, ws, i, w, comp, cnt, ui) {
		num[v] = low[v] = ++count; stack[++sp] = v; on[v] = 1
		n = split(adj[v], ws, " ")
		for (i = 1; i <= n; i++) {
			w = ws[i]
			if (!(w in num)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
			else if (on[w] && num[w] < low[v]) low[v] = num[w]
		}
		if (low[v] != num[v])
			return
		comp = ""; cnt = 0; ui = 1
		do {
			w = stack[sp--]; on[w] = 0; comp = comp " " w; cnt++
			if (!(w in istop)) ui = 0
		} while (w != v)
		if (cnt > 1) print (ui ? "screens" : "core") ":" cnt ":" comp
	}
	BEGIN { while ((getline l < top) > 0) istop[l] = 1 }
	{ adj[$1] = adj[$1] " " $2; node[$1]; node[$2] }
	END { for (v in node) if (!(v in num)) visit(v) }' "$tmp/edges" | LC_ALL=C sort)
rm -rf "$tmp"
ncore=$(printf '%s\n' "$cycles" | grep -c '^core:')
nui=$(printf '%s\n' "$cycles" | grep -c '^screens:')
hits=""
if [ "$ncore" -gt 1 ] || [ "$nui" -gt 1 ]; then
	hits=$(printf '%s\n' "$cycles" | sed 's/^\([a-z]*\):\([0-9]*\):/include-cycles:0: \1, \2 modules:/')
fi
report "include cycles: at most one outside screens/ ($ncore) and one inside ($nui)" "$hits"

if [ -n "$lib" ] && [ -f "$lib" ] && command -v nm >/dev/null 2>&1; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kdsrc.XXXXXX")
	exported $(sources screens | grep '\.c$') | cut -d: -f3 | LC_ALL=C sort -u >"$tmp/ui"
	nm -g --defined-only "$lib" 2>/dev/null | awk 'NF >= 3 { print $3 }' |
		LC_ALL=C sort -u >"$tmp/def"
	# undefined in the library, defined by no member of it, defined in screens/
	hits=$(nm -u "$lib" 2>/dev/null | awk 'NF >= 1 && $0 !~ /:$/ { print $NF }' |
		LC_ALL=C sort -u | LC_ALL=C comm -23 - "$tmp/def" | LC_ALL=C comm -12 - "$tmp/ui" |
		sed 's/^/libkdcore.a:0:needs /')
	rm -rf "$tmp"
	report "the core library needs no symbol that only screens/ defines (nm)" "$hits"
else
	echo "ok - source rule: the core library needs no symbol that only screens/ defines (nm) # SKIP no libkdcore.a built"
fi

exit $fail
