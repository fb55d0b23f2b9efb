#!/bin/sh
# kernodeck act: a stage's walkthrough actions headless, on a real venv
# built from local wheels.  A contract difference (a local label) is marked
# intentional by name and `kernodeck check` then passes the stage, with the
# mark saved; the existing .venv-rebuild is kept, then moved aside, with the
# later stages turned stale; and the refusals: unknown stage or action, a
# missing, extra or wrong ARG, a confirmation not given, a held lock.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
if ! [ -x "$PY" ] || ! "$PY" -c 'import venv, pip' 2>/dev/null; then
	skip "act-headless" "$PY with venv and pip is needed"
	exit 0
fi
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
"$PY" "$MKW" "$P/wheels" alpha 1.0 >/dev/null
"$PY" "$MKW" "$P/wheels" tensorlib 2.3.0+cpu >/dev/null
printf -- '--no-index\n--find-links ./wheels\nalpha==1.0\ntensorlib==2.3.0+cpu\n' \
	>"$P/requirements-rebuild.txt"
cat >"$P/kernodeck/reference.yaml" <<R
schema: 1
python:
  interpreter: $PY
  inventory: reference-freeze.txt
  install:
    system_site_packages: true
    without_pip: true
R
"$KD_BIN" check "$P" --stage rebuild --force >/dev/null 2>&1
check "setup: the rebuild passed" [ -s "$P/kernodeck/installed-after.txt" ]
# the reference was built for CUDA 12.1: one local label differs
sed 's/^tensorlib==2.3.0+cpu$/tensorlib==2.3.0+cu121/' "$P/kernodeck/installed-after.txt" \
	>"$P/reference-freeze.txt"
expect_exit 1 "setup: the contract fails on the difference" \
	"$KD_BIN" check "$P" --stage contract --force --quiet >/dev/null 2>&1

# the listing: names, ARG, and the ARGs the last check offers
"$KD_BIN" act "$P" --stage contract >"$KD_TMP/list.out" 2>&1
rc=$?
check "list: exits 0" [ "$rc" -eq 0 ]
check "list: names every contract action with its ARG" sh -c "
grep -q '^  intentional PACKAGE .*(key i)' '$KD_TMP/list.out' &&
grep -q '^  system-intentional .*(key a)' '$KD_TMP/list.out' &&
grep -q '^  to-fix PACKAGE .*(key t)' '$KD_TMP/list.out' &&
grep -q '^  clear PACKAGE .*(key x)' '$KD_TMP/list.out'"
check "list: offers the difference of the last check" grep -q "last check: tensorlib$" "$KD_TMP/list.out"
"$KD_BIN" act "$P" >"$KD_TMP/all.out" 2>&1
check "list: without --stage, every stage's actions" sh -c "
grep -q '^  move-aside ' '$KD_TMP/all.out' && grep -q '^  keep ' '$KD_TMP/all.out' &&
grep -q '^  record-head ' '$KD_TMP/all.out' && grep -q '^  leave-out N ' '$KD_TMP/all.out'"

# refusals: exit 2, the state left as it was
cp "$P/kernodeck/state.yaml" "$KD_TMP/state.before"
expect_exit 2 "refused: an unknown stage" "$KD_BIN" act "$P" --stage nope intentional x 2>"$KD_TMP/e1"
check "refused: the unknown stage is named" grep -q 'unknown stage "nope"' "$KD_TMP/e1"
expect_exit 2 "refused: an unknown action" "$KD_BIN" act "$P" --stage contract frob 2>"$KD_TMP/e2"
check "refused: the stage's actions are named" grep -q 'no action "frob" (its actions: intentional, system-intentional, to-fix, clear)' "$KD_TMP/e2"
expect_exit 2 "refused: a missing ARG" "$KD_BIN" act "$P" --stage contract intentional 2>"$KD_TMP/e3"
check "refused: says what ARG is needed" grep -q "contract intentional needs PACKAGE" "$KD_TMP/e3"
expect_exit 2 "refused: an ARG to an action that takes none" \
	"$KD_BIN" act "$P" --stage contract system-intentional tensorlib 2>"$KD_TMP/e4"
expect_exit 2 "refused: a package that is not a difference" \
	"$KD_BIN" act "$P" --stage contract intentional alpha 2>"$KD_TMP/e5"
check "refused: says it is not a difference" grep -q "alpha is not an inventory difference" "$KD_TMP/e5"
expect_exit 2 "refused: an action without --stage" "$KD_BIN" act "$P" intentional tensorlib 2>/dev/null
expect_exit 2 "refused: a folder that is not one" "$KD_BIN" act "$KD_TMP/none" --stage contract 2>/dev/null
check "refused: nothing was marked" sh -c "! grep -q 'marks:' '$P/kernodeck/state.yaml'"
check "refused: the stage is still failed" grep -q "status: failed" "$P/kernodeck/state.yaml"

# another process holds the lock: exit 3, nothing marked
hold_lock "$P/kernodeck/lock"
"$KD_BIN" act "$P" --stage contract intentional tensorlib >/dev/null 2>"$KD_TMP/lock.err"
rc=$?
release_lock "$P/kernodeck/lock"
check "lock: a held lock stops act (exit 3)" [ "$rc" -eq 3 ]
check "lock: says who holds it" grep -q "alice on elsewhere" "$KD_TMP/lock.err"
check "lock: nothing was marked" sh -c "! grep -q 'tensorlib: intentional' '$P/kernodeck/state.yaml'"

# mark it intentional by its package name
"$KD_BIN" act "$P" --stage contract intentional tensorlib >"$KD_TMP/i.out" 2>"$KD_TMP/i.err"
rc=$?
check "intentional: exits 0" [ "$rc" -eq 0 ]
check "intentional: prints the mark" grep -q "^tensorlib: intentional$" "$KD_TMP/i.out"
check "intentional: prints the status change" grep -q "^stage contract: failed -> passed$" "$KD_TMP/i.out"
check "intentional: the mark is saved" \
	sh -c "grep -A2 'marks:' '$P/kernodeck/state.yaml' | grep -q 'tensorlib: intentional'"
"$KD_BIN" check "$P" --stage contract --force >/dev/null 2>&1
rc=$?
check "intentional: kernodeck check then passes the stage (exit 0)" [ "$rc" -eq 0 ]
check "intentional: the mark is still saved after the check" \
	sh -c "grep -A2 'marks:' '$P/kernodeck/state.yaml' | grep -q 'tensorlib: intentional'"
# a whole row id is taken as it is; to-fix then clear undo it
"$KD_BIN" act "$P" --stage contract to-fix contract.diff.tensorlib >"$KD_TMP/t.out" 2>&1
check "to-fix: a whole row id works, the stage fails again" \
	grep -q "^stage contract: passed -> failed$" "$KD_TMP/t.out"
"$KD_BIN" act "$P" --stage contract clear tensorlib >"$KD_TMP/x.out" 2>&1
check "clear: the mark is gone" sh -c "grep -q '^tensorlib: mark cleared$' '$KD_TMP/x.out' &&
! grep -q 'tensorlib: to-fix' '$P/kernodeck/state.yaml'"
"$KD_BIN" act "$P" --stage contract intentional tensorlib >/dev/null 2>&1
"$KD_BIN" check "$P" --stage contract --force --quiet >/dev/null 2>&1

# a confirmation not given: no terminal, no --yes
"$KD_BIN" act "$P" --stage dossier replay </dev/null >/dev/null 2>"$KD_TMP/c.err"
rc=$?
check "confirm: declined without a terminal (exit 1)" [ "$rc" -eq 1 ]
check "confirm: says to pass --yes" grep -q "pass --yes" "$KD_TMP/c.err"
check "confirm: nothing ran" sh -c "! ls -d '$P'/kernodeck/replay-* >/dev/null 2>&1"

# keep the existing venv: the rebuild and the stages after it are stale
"$KD_BIN" act "$P" --stage rebuild keep >"$KD_TMP/k.out" 2>&1
rc=$?
check "keep: exits 0" [ "$rc" -eq 0 ]
check "keep: says so" grep -q "keeping the existing .venv-rebuild" "$KD_TMP/k.out"
check "keep: the rebuild and the contract are stale" sh -c "
grep -q '^stage rebuild: passed -> stale$' '$KD_TMP/k.out' &&
grep -q '^stage contract: passed -> stale$' '$KD_TMP/k.out'"
check "keep: the choice is saved" \
	sh -c "grep -A3 'existing_venv:' '$P/kernodeck/state.yaml' | grep -q 'choice: keep'"
# a copy of the project: its venv names another folder and waits for a
# choice; kept, it is installed into, with a warning
C="$KD_TMP/copy"
cp -a "$P" "$C"
"$KD_BIN" check "$C" --stage rebuild --force --format yaml >"$KD_TMP/c1.out" 2>/dev/null
rc=$?
check "copy: the rebuild waits for a choice (exit 1)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'it was copied from another folder' '$KD_TMP/c1.out'"
expect_exit 0 "copy: keep exits 0" "$KD_BIN" act "$C" --stage rebuild keep >/dev/null 2>&1
"$KD_BIN" check "$C" --stage rebuild --force --format yaml >"$KD_TMP/k2.out" 2>"$KD_TMP/k2.err"
rc=$?
check "copy: then the rebuild passes (exit 0)" [ "$rc" -eq 0 ]
check "copy: the kept venv is installed into" grep -q "pip install -r" "$KD_TMP/k2.err"
check "copy: with a warning that it is not fresh" \
	sh -c "grep -A2 'id: rebuild.venv$' '$KD_TMP/k2.out' | grep -q 'status: warn'"
check "copy: it was not moved aside" sh -c "test -d '$C/.venv-rebuild' && ! ls -d '$C'/.venv-rebuild.aside-* >/dev/null 2>&1"

# move it aside: renamed, nothing deleted; a second time there is none
"$KD_BIN" act "$P" --stage rebuild move-aside >"$KD_TMP/m.out" 2>&1
rc=$?
check "move-aside: exits 0" [ "$rc" -eq 0 ]
check "move-aside: renamed with a timestamp, not deleted" \
	sh -c "ls -d '$P'/.venv-rebuild.aside-*Z >/dev/null && ! test -e '$P/.venv-rebuild'"
check "move-aside: the choice is saved" \
	sh -c "grep -A3 'existing_venv:' '$P/kernodeck/state.yaml' | grep -q 'choice: moved-aside'"
"$KD_BIN" act "$P" --stage rebuild move-aside >/dev/null 2>"$KD_TMP/m2.err"
rc=$?
check "move-aside: refused when there is no venv (exit 2)" [ "$rc" -eq 2 ]
check "move-aside: says there is none" grep -q "there is no .venv-rebuild to move aside" "$KD_TMP/m2.err"
expect_exit 2 "keep: refused when there is no venv" "$KD_BIN" act "$P" --stage rebuild keep 2>/dev/null

# the dossier: leave out the file of a credential found, by its number
D="$KD_TMP/dossier"
mkdir -p "$D/kernodeck/config"
echo "print('hi')" >"$D/main.py"
git -C "$D" init -q && git -C "$D" add main.py && git -C "$D" commit -qm init
cat >"$D/kernodeck/reference.yaml" <<YAML
schema: 1
goal: close-values
code:
  commit: $(git -C "$D" rev-parse HEAD)
  entry_point: [python, main.py]
python:
  interpreter: $PY
YAML
cp "$KD_SRCDIR/tests/fixtures/secrets/planted/.netrc" "$D/kernodeck/config/.netrc"
expect_exit 1 "leave-out: setup, the dossier stage fails on the credentials" \
	"$KD_BIN" check "$D" --stage dossier --force --quiet >/dev/null 2>&1
"$KD_BIN" act "$D" --stage dossier >"$KD_TMP/dl.out" 2>&1
check "leave-out: the listing offers the credentials' numbers" grep -q "last check: 1" "$KD_TMP/dl.out"
expect_exit 2 "leave-out: a number the last check did not find" \
	"$KD_BIN" act "$D" --stage dossier leave-out 99 2>"$KD_TMP/d99.err"
check "leave-out: says which numbers there are" grep -q "dossier.secret.99 is not a credential found by the last check (dossier.secret.1 to" "$KD_TMP/d99.err"
expect_exit 2 "leave-out: not a number" "$KD_BIN" act "$D" --stage dossier leave-out 1x 2>/dev/null
"$KD_BIN" act "$D" --stage dossier leave-out 1 >"$KD_TMP/d1.out" 2>&1
rc=$?
"$KD_BIN" act "$D" --stage dossier leave-out 1 >/dev/null 2>&1
check "leave-out: exits 0 and names the file" sh -c "[ $rc -eq 0 ] && grep -q '/config/.netrc: left out of the dossier' '$KD_TMP/d1.out'"
check "leave-out: saved once, however often asked" \
	sh -c "[ \$(grep -c -- '- .*/kernodeck/config/.netrc' '$D/kernodeck/state.yaml') -eq 1 ]"
expect_exit 0 "leave-out: then the dossier stage passes" \
	"$KD_BIN" check "$D" --stage dossier --force --quiet >/dev/null 2>&1

# documented: --help, act --help, the man page's KEYS give each name
"$KD_BIN" --help >"$KD_TMP/help.out" 2>&1
check "help: kernodeck --help lists act" grep -q "kernodeck act DIR \[--stage ID \[ACTION \[ARG\]\]\]" "$KD_TMP/help.out"
expect_exit 0 "help: act --help exits 0" "$KD_BIN" act --help >/dev/null
man1="$KD_BUILDDIR/kernodeck.1"
if [ -f "$man1" ]; then
	check "man page: KEYS gives contract intentional's name for act" \
		grep -qF 'act \-\-stage contract intentional' "$man1"
	check "man page: KEYS gives rebuild move-aside's name for act" \
		grep -qF 'act \-\-stage rebuild move\-aside' "$man1"
else
	skip "man page: KEYS gives each action's name" "no $man1"
fi
