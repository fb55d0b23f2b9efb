#!/bin/sh
# The usage of every command comes from its one declaration (cmd.h): its
# --help, its usage error, the synopsis `kernodeck --help` lists and the
# man page's SYNOPSIS say the same thing.
. "$KD_SRCDIR/tests/lib.sh"
MAN="${KD_BUILDDIR:-.}/kernodeck.1"
if ! [ -f "$MAN" ]; then
	notok "usage: kernodeck.1 is built ($MAN)"
	exit 0
fi
"$KD_BIN" --help >"$KD_TMP/main.txt" 2>&1
# the commands kernodeck --help lists, in order
sed -n '/^commands:/,/^$/p' "$KD_TMP/main.txt" | sed -n 's/^  kernodeck \([a-z][a-z-]*\) .*/\1/p' \
	>"$KD_TMP/cmds"
check "usage: kernodeck --help lists the commands" [ "$(wc -l <"$KD_TMP/cmds")" -ge 10 ]

# one line per synopsis: "NAME ARGS..." (the walkthrough's NAME is "-")
syn_of_man() {
	/usr/bin/python3 - "$MAN" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
s = t[t.index(".SH SYNOPSIS\n") + 13:t.index(".SH DESCRIPTION")]
for block in s.split(".br\n"):
    lines = [l for l in block.split("\n") if l and not l.startswith((".nh", ".hy"))]
    if not lines or not lines[0].startswith(".B kernodeck"):
        continue
    name = lines[0][len(".B kernodeck"):].strip() or "-"
    rest = " ".join(lines[1:])
    rest = re.sub(r"\\f[BIR]", "", rest).replace("\\-", "-").replace("\\ ", " ")
    if name == "-" and rest.startswith(".BR"):
        continue
    print(name, " ".join(rest.split()))
PY
}
syn_of_help() { # the usage lines of stdin (the first, and those indented under it), joined
	awk 'NR == 1 && /^usage: / { print; next } NR > 1 && /^        / { print; next } NR > 1 { exit }' |
		tr '\n' ' ' | sed 's/^usage: kernodeck //; s/  */ /g; s/ $//'
}
syn_of_man >"$KD_TMP/man.syn"
missing="" differ=""
while read -r c; do
	"$KD_BIN" "$c" --help >"$KD_TMP/h.$c" 2>&1
	r=$?
	[ "$r" -eq 0 ] || differ="$differ $c(--help exit $r)"
	h=$(syn_of_help <"$KD_TMP/h.$c")
	m=$(sed -n "s/^$c //p" "$KD_TMP/man.syn")
	[ -n "$m" ] || missing="$missing $c"
	[ "$h" = "$c $m" ] || differ="$differ $c"
	# a usage error shows the same usage, on stderr, with exit 2
	"$KD_BIN" "$c" --no-such-option >"$KD_TMP/e.out.$c" 2>"$KD_TMP/e.$c"
	r=$?
	u=$(grep -v "^kernodeck $c: " "$KD_TMP/e.$c" | syn_of_help)
	[ "$r" -eq 2 ] && [ "$u" = "$h" ] && grep -q "^kernodeck $c: unknown option --no-such-option" \
		"$KD_TMP/e.$c" || differ="$differ $c(usage error)"
done <"$KD_TMP/cmds"
check "usage: the man page has a synopsis for every command${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
check "usage: --help, the usage error and the man page agree${differ:+ (differ:$differ)}" \
	[ -z "$differ" ]
h=$("$KD_BIN" . --help | syn_of_help)
m=$(sed -n 's/^- //p' "$KD_TMP/man.syn")
check "usage: the walkthrough's --help and the man page agree" [ "$h" = "$m" ]
main_first=$(sed -n 1p "$KD_TMP/main.txt" | sed 's/^usage: kernodeck //')
check "usage: kernodeck --help opens with the walkthrough's synopsis" [ "$main_first" = "$m" ]
# the main list holds the same synopsis as each --help (wrapped lines joined)
bad=""
while read -r c; do
	l=$(sed -n '/^commands:/,/^$/p' "$KD_TMP/main.txt" | awk -v c="$c" '
		$1 == "kernodeck" && $2 == c { on = 1; printf "%s", $0; next }
		on && /^   *\[/ { printf " %s", $0; next }
		on { exit }' | sed 's/^ *kernodeck //; s/  */ /g')
	[ "$l" = "$(syn_of_help <"$KD_TMP/h.$c")" ] || bad="$bad $c"
done <"$KD_TMP/cmds"
check "usage: kernodeck --help lists each command as its --help shows it${bad:+ (differ:$bad)}" [ -z "$bad" ]
# the drift this replaced: check's --strict, diff's yaml
check "usage: check shows --strict and --quiet" sh -c "grep -q -- '--strict' '$KD_TMP/h.check' && grep -q -- '--quiet' '$KD_TMP/h.check'"
check "usage: diff and inspect take text|yaml|json" sh -c "grep -q 'text|yaml|json' '$KD_TMP/h.diff' && grep -q 'text|yaml|json' '$KD_TMP/h.inspect'"
