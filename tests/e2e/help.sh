# tests/e2e/help.sh - the help overlay and the man page list every key of
# the one key table (include/kernodeck/keys.h), and the key bar shows the
# main ones.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

# The keys: "names<TAB>first words of the help" for every entry.
/usr/bin/python3 - "$KD_SRCDIR/include/kernodeck/keys.h" >"$KD_TMP/keys.tsv" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
body = text[text.index("#define KD_KEY_INFO(X)"):]
for m in re.finditer(r'X\((KD_A_\w+),\s*(KD_KC_\w+),\s*"([^"]*)",.*?\\\s*\n\s*"((?:[^"\\]|\\.)*)"\)', body):
    names, help_ = m.group(3), m.group(4).replace('\\"', '"')
    print("%s\t%s" % (names, " ".join(help_.split()[:4])))
PY
nkeys=$(wc -l <"$KD_TMP/keys.tsv")
check "help: the key table was read ($nkeys keys)" [ "$nkeys" -ge 30 ]

# The man page, built from the same table.
man1="$KD_BUILDDIR/kernodeck.1"
if [ -f "$man1" ] && command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww "$man1" 2>"$KD_TMP/groff.err" | col -bx | tr -s " " >"$KD_TMP/man.txt"
	check "man page: groff renders it without warnings" [ ! -s "$KD_TMP/groff.err" ]
	for s in NAME SYNOPSIS COMMANDS KEYS FILES ENVIRONMENT "EXIT STATUS" EXAMPLES; do
		check "man page: has the section $s" grep -q "^$s" "$KD_TMP/man.txt"
	done
	for c in check capture deviate replay dossier diff demo inspect hash; do
		check "man page: documents kernodeck $c" grep -q "kernodeck $c" "$KD_TMP/man.txt"
	done
	for v in NO_COLOR EDITOR PAGER KD_SHARE_DIR KD_SYSROOT KD_PROBE_FAULT; do
		check "man page: documents $v" grep -q "$v" "$KD_TMP/man.txt"
	done
	missing=""
	while IFS="	" read -r names help; do
		tr -s ' \n' ' ' <"$KD_TMP/man.txt" | grep -qF -- "$names" || missing="$missing [$names]"
	done <"$KD_TMP/keys.tsv"
	check "man page: KEYS lists every key of the table${missing:+ (missing:$missing)}" [ -z "$missing" ]
else
	skip "man page: checks" "no $man1 or no groff"
fi

tui_require "help: overlay lists every key" "help: key bar"

P="$KD_TMP/project"
mkdir -p "$P"
tm_walk 80 24 "$P"
tm_wait "1/7 Reference" >/dev/null
for k in "? help" "e edit" "r run" "d deviate" "p prev" "n next" "q quit"; do
	check "help: key bar shows \"$k\"" tm_wait "$k" 1
done

# Page through the overlay and keep every page.
tm_keys '?'
check "help: ? opens the overlay" tm_wait "Help"
: >"$KD_TMP/help.txt"
i=0
while [ $i -lt 12 ]; do
	tm_screen >>"$KD_TMP/help.txt"
	tm_screen | grep -q "more" || break
	tm_keys PgDn
	i=$((i + 1))
done
missing=""
while IFS="	" read -r names help; do
	grep -F -- "  $names  " "$KD_TMP/help.txt" | grep -qF -- "$(echo "$help" | cut -d' ' -f1-2)" ||
		missing="$missing [$names: $help]"
done <"$KD_TMP/keys.tsv"
check "help: overlay lists every key with its help${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "help: overlay lists the stage's own actions" grep -q "Actions of the Reference stage" "$KD_TMP/help.txt"
tm_keys Escape
check "help: Esc closes it" tm_gone "Actions of the"
tm_keys F1
check "help: F1 opens it too" tm_wait "Everywhere"
tm_keys q
check "help: q closes the overlay, not the program" tm_wait "1/7 Reference"
tm_alive || notok "help: still running after q in the overlay"
tm_keys q
check "help: quits with status 0" tm_wait "kd-exited-with-0"
