#!/bin/sh
# code.remote emptied in reference.yaml (issue 17, point 13): the next
# check fills it again from the repository, as doc/reference-format.md says
# ("the check, when empty"), without the credentials of the URL and with
# the person's comments kept; a remote marked not applicable stays empty.
. "$KD_SRCDIR/tests/lib.sh"
P=$KD_TMP/p
mkdir -p "$P"
git_project "$P" >/dev/null
git -C "$P" remote add origin "https://user:tok7Zq@example.org/lab/p.git"
C=$(git -C "$P" rev-parse HEAD)
R=$P/kernodeck/reference.yaml

# ref REMOTE-LINE [EXTRA]: a reference whose commit is recorded (the
# arguments with \n for line ends)
ref() {
	printf 'schema: 1\n# the code, recorded by hand\ncode:\n  commit: %s\n%b  entry_point: [python, main.py]\n%b' \
		"$C" "$1" "${2:-}" >"$R"
}
run() { "$KD_BIN" check "$P" --stage reference --quiet >"$KD_TMP/out" 2>&1; }

for how in '  remote: ""   # emptied by hand\n' '  remote: null\n' '  remote:\n' ''; do
	ref "$how"
	run
	what=$(printf '%s' "$how" | sed 's/\\n//; s/^ *//')
	what=${what:-the key removed}
	check "$what: filled again from origin, without its credentials" \
		grep -q '^  remote: https://example.org/lab/p.git' "$R"
	check "$what: the commit and the comment above code: kept" \
		sh -c "grep -q '^  commit: $C' '$R' && grep -q '^# the code, recorded by hand' '$R'"
	case $how in
	*emptied*) check "$what: the comment on its line kept" \
		grep -q 'example.org/lab/p.git *# emptied by hand' "$R" ;;
	esac
	check "$what: no credential in reference.yaml" sh -c "! grep -q tok7Zq '$R'"
done

# a remote typed by the person is left as it is
ref '  remote: https://mirror.example.org/p.git\n'
run
check "a remote the person typed is kept" grep -q '^  remote: https://mirror.example.org/p.git$' "$R"

# not applicable: nothing filled
ref '  remote: ""\n' 'not_applicable:\n  code.remote: a local repository only\n'
run
check "code.remote not applicable: left empty" grep -q '^  remote: ""$' "$R"
