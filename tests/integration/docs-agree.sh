# tests/integration/docs-agree.sh - the documentation stands in the
# repository and agrees with itself (issue 17, point 21): --help, the man
# page's synopsis and the README list the same options for every command,
# and the same inspect kinds (issue 24);
# no file of the repository points at the shared folder outside it (the
# rule's own file aside; a planted tree shows the rule fires); the README's
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
# shared_refs ROOT: the lines of ROOT's files that name the shared folder
# (../shared, /work/shared, shared/fixtures/real), as grep prints them.
# ROOT's files are git's tracked files when ROOT is a work tree's top, else
# every file outside .git and build folders (those holding config.status),
# as in a release tarball.  This file names them to look for them: it is
# left out.
shared_refs() {
	_self=tests/integration/docs-agree.sh
	if [ "$(git -C "$1" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$1" && pwd -P)" ]; then
		git -C "$1" grep -n -e '\.\./shared' -e '/work/shared' -e 'shared/fixtures/real' \
			-- . ":(exclude)$_self"
	else
		(cd "$1" && find . -name .git -prune -o -type d -exec test -e '{}/config.status' ';' -prune \
			-o -type f ! -path "./$_self" -exec grep -n -e '\.\./shared' -e '/work/shared' \
			-e 'shared/fixtures/real' {} +)
	fi
}
shared_refs "$KD_SRCDIR" >"$KD_TMP/shared.out" 2>&1
check "no file of the repository names the shared folder outside it" test ! -s "$KD_TMP/shared.out"
sed 's/^/#   /' "$KD_TMP/shared.out"
# The rule on a planted work tree: each spelling is caught in a tracked
# file and named; the rule's own file, an untracked file and a clean file
# are not.
p="$KD_TMP/plant"
mkdir -p "$p/doc" "$p/tests/fixtures/x" "$p/tests/integration"
echo 'See ../shared/DESIGN.md, section 3.' >"$p/doc/guide.md"
echo 'Copies of /work/shared/fixtures/real/pip_check/' >"$p/tests/fixtures/x/SOURCES.md"
echo '{"source": "collect_env/07.txt of shared/fixtures/real"}' >"$p/tests/fixtures/x/s.json"
echo '# looks for ../shared' >"$p/tests/integration/docs-agree.sh"
echo 'A public issue: https://github.com/pytorch/pytorch/issues/1' >"$p/clean.md"
git -C "$p" init -q && git -C "$p" add . && git -C "$p" commit -qm plant
echo 'untracked ../shared' >"$p/notes.txt"
shared_refs "$p" >"$KD_TMP/plant.out" 2>&1
check "the rule fires on a planted tree: ../shared, /work/shared and shared/fixtures/real, each file named" \
	sh -c "grep -q '^doc/guide.md:1:' '$KD_TMP/plant.out' && grep -q '^tests/fixtures/x/SOURCES.md:1:' '$KD_TMP/plant.out' &&
		grep -q '^tests/fixtures/x/s.json:1:' '$KD_TMP/plant.out' && test \$(wc -l <'$KD_TMP/plant.out') -eq 3"
# The same tree as a release tarball holds it (no .git), with a build
# folder inside whose log names the folder: the untracked file now counts,
# the build folder does not.
rm -rf "$p/.git" && mkdir -p "$p/build" && touch "$p/build/config.status" && echo '../shared' >"$p/build/test.log"
shared_refs "$p" >"$KD_TMP/plant2.out" 2>&1
check "without git: every file but build folders' and the rule's own" \
	sh -c "grep -q '^./notes.txt:1:' '$KD_TMP/plant2.out' && ! grep -q 'build/\|docs-agree' '$KD_TMP/plant2.out' &&
		test \$(wc -l <'$KD_TMP/plant2.out') -eq 4"
missing=
for l in $(grep -o '](doc/[^)]*)' "$KD_SRCDIR/README.md" | sed 's/^](//; s/)$//'); do
	[ -f "$KD_SRCDIR/$l" ] || missing="$missing $l"
done
check "the README's links are files of the repository${missing:+ (missing:$missing)}" test -z "$missing"
for topic in "A PyTorch from the system or from a provided environment" "Which columns are compared" \
	"Why the identifier column is not part of the shape" "dtype. for a table" "What .goal. changes"; do
	check "doc/reference-format.md: $topic" grep -q "$topic" "$KD_SRCDIR/doc/reference-format.md"
done
