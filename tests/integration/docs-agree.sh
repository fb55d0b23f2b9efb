# tests/integration/docs-agree.sh - the documentation stands in the
# repository and agrees with itself (issue 17, point 21): --help, the man
# page's synopsis and the README list the same options for every command,
# and the same inspect kinds (issue 24);
# no document points outside the repository (../shared); the README's
# links resolve to files of the repository.
. "$KD_SRCDIR/tests/lib.sh"
# the man page as built: its SYNOPSIS is generated from the commands'
# declarations (tools/mankeys), the template holds @SYNOPSIS@
/usr/bin/python3 "$KD_SRCDIR/tests/helpers/docs-agree.py" "$KD_BIN" \
	"${KD_BUILDDIR:-.}/kernodeck.1" "$KD_SRCDIR/README.md" >"$KD_TMP/agree.out" 2>&1
r=$?
check "--help, man page and README list the same options for every command" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/#   /' "$KD_TMP/agree.out"
/usr/bin/python3 "$KD_SRCDIR/tests/helpers/docs-agree.py" --kinds "$KD_BIN" \
	"${KD_BUILDDIR:-.}/kernodeck.1" "$KD_SRCDIR/README.md" >"$KD_TMP/kinds.out" 2>&1
r=$?
check "inspect --help, man page and README list the same inspect kinds (one table)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/#   /' "$KD_TMP/kinds.out"
check "no code or document points at DESIGN.md or STYLE.md (not in the repository)" sh -c "! grep -rnE '(^|[^/a-z])(DESIGN|STYLE)\\.md' '$KD_SRCDIR/src' '$KD_SRCDIR/include' '$KD_SRCDIR/screens' '$KD_SRCDIR/tools' '$KD_SRCDIR/tests/unit' '$KD_SRCDIR/tests/check-source.sh' '$KD_SRCDIR/README.md' '$KD_SRCDIR/doc'"
check "no document points at ../shared" sh -c "! grep -rn '\.\./shared' '$KD_SRCDIR/README.md' '$KD_SRCDIR/doc' '$KD_SRCDIR/share/kernodeck.1.in'"
missing=
for l in $(grep -o '](doc/[^)]*)' "$KD_SRCDIR/README.md" | sed 's/^](//; s/)$//'); do
	[ -f "$KD_SRCDIR/$l" ] || missing="$missing $l"
done
check "the README's links are files of the repository${missing:+ (missing:$missing)}" test -z "$missing"
for topic in "A PyTorch from the system or from a provided environment" "Which columns are compared" \
	"Why the identifier column is not part of the shape" "dtype. for a table" "What .goal. changes"; do
	check "doc/reference-format.md: $topic" grep -q "$topic" "$KD_SRCDIR/doc/reference-format.md"
done
