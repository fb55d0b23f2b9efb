#!/bin/sh
# Stage 3 and an existing .venv-rebuild: a project moved with its venv
# (the venv names its old folder) waits for a choice and nothing is deleted;
# moving it aside (action m) lets a fresh one be built; a copied venv kept
# on purpose (action u) is installed into, with a warning; a venv made with
# another interpreter is detected.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python rebuild-venv "$PY with venv and pip is needed" venv pip
need_driver rebuild-venv
A="$KD_TMP/a"
mkdir -p "$A/kernodeck"
git -C "$A" init -q -b main
"$PY" "$MKW" "$A/wheels" alpha 1.0 >/dev/null
printf -- '--no-index\n--find-links ./wheels\nalpha==1.0\n' >"$A/requirements-rebuild.txt"
venv_reference "$A"
"$KD_BIN" check "$A" --stage rebuild >/dev/null 2>&1
check "setup: a first rebuild passes" [ -x "$A/.venv-rebuild/bin/python" ]

# the whole project moved: its venv names the old place
B="$KD_TMP/b"
mv "$A" "$B"
"$KD_BIN" check "$B" --stage rebuild --format yaml >"$KD_TMP/m.out" 2>"$KD_TMP/m.err"
rc=$?
check "moved: check exits 1" [ "$rc" -eq 1 ]
check "moved: the venv is found moved" grep -q "it was moved from another folder" "$KD_TMP/m.out"
check "moved: the choice is offered" grep -q "move it aside (m" "$KD_TMP/m.out"
check "moved: where it came from is observed" grep -q "recorded_path: $A/.venv-rebuild" "$B/kernodeck/rebuild.yaml"
check "moved: nothing was deleted or rebuilt" sh -c "
test -d '$B/.venv-rebuild' && ! ls -d '$B'/.venv-rebuild.aside-* >/dev/null 2>&1 &&
grep -q 'VIRTUAL_ENV=.*$A/.venv-rebuild' '$B/.venv-rebuild/bin/activate'"
"$DRV" "$B" rebuild action m >"$KD_TMP/act.out" 2>&1
rc=$?
check "move aside: the action succeeds" [ "$rc" -eq 0 ]
check "move aside: renamed with a timestamp" sh -c "ls -d '$B'/.venv-rebuild.aside-*Z >/dev/null"
check "move aside: the choice is recorded" sh -c "grep -A3 'existing_venv:' '$B/kernodeck/state.yaml' | grep -q 'choice: moved-aside'"
"$KD_BIN" check "$B" --stage rebuild >"$KD_TMP/m2.out" 2>/dev/null
rc=$?
check "move aside: then a fresh venv is built and passes" [ "$rc" -eq 0 ]
check "move aside: the fresh venv names its own folder" \
	grep -q "VIRTUAL_ENV=.*$B/.venv-rebuild" "$B/.venv-rebuild/bin/activate"

# a copy of a project whose venv still exists in the original: keep it
C="$KD_TMP/c"
cp -a "$B" "$C"
"$KD_BIN" check "$C" --stage rebuild --format yaml >"$KD_TMP/c.out" 2>/dev/null
check "copied: the venv is found copied" grep -q "it was copied from another folder" "$KD_TMP/c.out"
"$DRV" "$C" rebuild action u >/dev/null 2>&1
check "keep: the choice is recorded" sh -c "grep -A3 'existing_venv:' '$C/kernodeck/state.yaml' | grep -q 'choice: keep'"
"$KD_BIN" check "$C" --stage rebuild --format yaml >"$KD_TMP/k.out" 2>"$KD_TMP/k.err"
check "keep: the kept venv is installed into (pip install ran)" grep -q "pip install -r" "$KD_TMP/k.err"
check "keep: a warning says it is not a fresh rebuild" \
	sh -c "grep -A2 'id: rebuild.venv$' '$KD_TMP/k.out' | grep -q 'status: warn'"
check "keep: the copy's venv was not moved aside" sh -c "! ls -d '$C'/.venv-rebuild.aside-* 2>/dev/null | grep -qv '$C/.venv-rebuild.aside-.*Z\$' && test -d '$C/.venv-rebuild'"

"$DRV" "$B" rebuild action m >/dev/null 2>&1
"$DRV" "$B" rebuild action m >"$KD_TMP/act2.out" 2>&1
rc=$?
check "move aside: refused when there is no venv" [ "$rc" -eq 2 ]

# a venv made with another interpreter
OTHER=""
for d in $(echo "$PATH" | tr ':' ' '); do
	for cand in "$d/python3" "$d/python3.12" "$d/python3.11" "$d/python3.10"; do
		[ -x "$cand" ] || continue
		real=$("$cand" -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null) || continue
		if [ -n "$real" ] && [ "$real" != "$(readlink -f $PY)" ] && "$cand" -c 'import venv' 2>/dev/null; then
			OTHER=$cand
			break 2
		fi
	done
done
if [ -z "$OTHER" ]; then
	skip "other interpreter" "no second Python on PATH"
else
	D="$KD_TMP/d"
	mkdir -p "$D/kernodeck"
	cp "$B/kernodeck/reference.yaml" "$D/kernodeck/"
	cp -a "$B/wheels" "$B/requirements-rebuild.txt" "$D/"
	"$OTHER" -m venv --without-pip "$D/.venv-rebuild"
	"$KD_BIN" check "$D" --stage rebuild --format yaml >"$KD_TMP/o.out" 2>/dev/null
	rc=$?
	check "other interpreter: check exits 1" [ "$rc" -eq 1 ]
	check "other interpreter: detected" grep -q "it was made with another interpreter" "$KD_TMP/o.out"
fi
