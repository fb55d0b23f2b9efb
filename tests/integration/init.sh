#!/bin/sh
# kernodeck init [DIR] (issue 17, point 13): makes a folder a project as
# check --init does, without running the stages; check then accepts the
# folder it refused; what is there already is kept; in a git repository
# kernodeck's folders go into .git/info/exclude, never a tracked file.
. "$KD_SRCDIR/tests/lib.sh"
P=$KD_TMP/plain
mkdir -p "$P"
echo "print(1)" >"$P/main.py"

expect_exit 2 "check refuses the plain folder first" sh -c '"$1" check "$2" --quiet >/dev/null 2>&1' sh "$KD_BIN" "$P"
"$KD_BIN" init "$P" >"$KD_TMP/i1.out" 2>"$KD_TMP/i1.err"
check "init: exit 0" test $? -eq 0
check "init: a reference to fill (schema 1)" sh -c "[ \"\$(cat '$P/kernodeck/reference.yaml')\" = 'schema: 1' ]"
check "init: state.yaml written" grep -q '^schema: 2' "$P/kernodeck/state.yaml"
check "init: says what it made and what to do next" \
	sh -c "grep -q 'is a kernodeck project' '$KD_TMP/i1.out' && grep -q 'next: fill the reference' '$KD_TMP/i1.out'"
check "init: runs no stage (no observations, no logs)" \
	sh -c "! ls '$P/kernodeck' | grep -q 'obs\|logs'"
check "init: the project's own files untouched" sh -c "[ \"\$(ls '$P')\" = \"\$(printf 'kernodeck\nmain.py')\" ]"
"$KD_BIN" check "$P" --stage reference --quiet >/dev/null 2>&1
check "check accepts it now (stage 1 fails on the empty reference: exit 1)" test $? -eq 1

# again: nothing changes
cp "$P/kernodeck/reference.yaml" "$KD_TMP/ref.before"
printf '# ours\nschema: 1\ngoal: close-values   # kept\n' >"$P/kernodeck/reference.yaml"
cp "$P/kernodeck/reference.yaml" "$KD_TMP/ref.ours"
"$KD_BIN" init "$P" >"$KD_TMP/i2.out" 2>&1
check "init again: exit 0, says it is a project already" \
	sh -c "[ $? -eq 0 ] && grep -q 'a kernodeck project already.*nothing changed' '$KD_TMP/i2.out'"
check "init again: the person's reference kept byte for byte" cmp -s "$P/kernodeck/reference.yaml" "$KD_TMP/ref.ours"

# a git repository: the excludes, no tracked file touched
G=$KD_TMP/repo
mkdir -p "$G"
echo "print(1)" >"$G/main.py"
git -C "$G" init -q && git -C "$G" add main.py && git -C "$G" commit -qm init
"$KD_BIN" init "$G" >"$KD_TMP/i3.out" 2>&1
check "init in a git repository: exit 0" test $? -eq 0
check "init: kernodeck/ and .venv-rebuild/ in .git/info/exclude" \
	sh -c "grep -q 'kernodeck' '$G/.git/info/exclude' && grep -q '.venv-rebuild' '$G/.git/info/exclude'"
check "init: says it added them" grep -q '.git/info/exclude: [0-9]* line(s) added' "$KD_TMP/i3.out"
check "init: the work tree stays clean (no .gitignore, nothing untracked)" \
	sh -c "[ -z \"\$(git -C '$G' status --porcelain)\" ]"
check "init: no commit recorded yet (the check fills it)" sh -c "! grep -q commit '$G/kernodeck/reference.yaml'"

# --state-dir: the state folder elsewhere, nothing in the project
Q=$KD_TMP/plain2
S=$KD_TMP/state
mkdir -p "$Q"
"$KD_BIN" init "$Q" --state-dir "$S" >/dev/null 2>&1
check "init --state-dir: the reference there, no kernodeck/ in the folder" \
	sh -c "[ -f '$S/reference.yaml' ] && [ ! -e '$Q/kernodeck' ]"
"$KD_BIN" check "$Q" --state-dir "$S" --stage reference --quiet >/dev/null 2>&1
check "check --state-dir accepts it then (exit 1)" test $? -eq 1

expect_exit 2 "init: a missing folder is an input error" sh -c '"$1" init "$2" >/dev/null 2>&1' sh "$KD_BIN" "$KD_TMP/none"
check "init: ... and creates nothing" test ! -e "$KD_TMP/none"
expect_exit 2 "init: two folders is bad usage" sh -c '"$1" init a b >/dev/null 2>&1' sh "$KD_BIN"
expect_exit 0 "init --help" sh -c '"$1" init --help | grep -q "usage: kernodeck init"' sh "$KD_BIN"
