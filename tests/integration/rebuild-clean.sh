#!/bin/sh
# Stage 3 on a real venv: a clean install from local wheels (mkwheel.py,
# --no-index --find-links), the files it leaves, reuse when nothing changed,
# and the out-of-date venv renamed aside (never deleted, kept out of git)
# when the rebuild file changes.  The venv is made with --system-site-packages
# --without-pip (the reference says so): pip comes from Debian's python3-pip.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python rebuild-clean "$PY with venv and pip is needed" venv pip

P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
git -C "$P" init -q -b main
"$PY" "$MKW" "$P/wheels" alpha 1.0 --requires "beta>=2" >/dev/null
"$PY" "$MKW" "$P/wheels" beta 2.1 >/dev/null
"$PY" "$MKW" "$P/wheels" beta 2.2 >/dev/null
cat >"$P/requirements-rebuild.txt" <<'R'
--no-index
--find-links ./wheels
alpha==1.0
beta==2.1
R
venv_reference "$P"

"$KD_BIN" check "$P" --stage rebuild --format json >"$KD_TMP/out.json" 2>"$KD_TMP/err"
rc=$?
check "clean install: check exits 0" [ "$rc" -eq 0 ]
check "clean install: the stage passed" grep -q '"status": "passed"' "$KD_TMP/out.json"
check "clean install: the venv runs the chosen interpreter" \
	sh -c "readlink -f '$P/.venv-rebuild/bin/python' | grep -qx \"\$(readlink -f $PY)\""
check "clean install: system site packages as the reference says" \
	grep -q "include-system-site-packages = true" "$P/.venv-rebuild/pyvenv.cfg"
check "clean install: the packages are in the venv" \
	"$P/.venv-rebuild/bin/python" -c 'import alpha, beta; assert beta.__version__ == "2.1"'
check "clean install: installed-after.txt is pip freeze --all" \
	sh -c "grep -qx 'alpha==1.0' '$P/kernodeck/installed-after.txt' && grep -q '^pip==' '$P/kernodeck/installed-after.txt'"
check "clean install: pip inspect saved as JSON" "$PY" -c "
import json; d = json.load(open('$P/kernodeck/pip-inspect.json'))
assert any(p['metadata']['name'] == 'alpha' for p in d['installed'])"
check "clean install: each command has its own log" sh -c "
ls '$P/kernodeck/logs' | grep -q -- -venv.log && ls '$P/kernodeck/logs' | grep -q -- -pip-install.log &&
grep -q 'Successfully installed' '$P'/kernodeck/logs/*-pip-install.log"
check "clean install: explicit interpreter, never activation" \
	grep -q -- "- $P/.venv-rebuild/bin/python" "$P/kernodeck/rebuild.yaml"
check "clean install: the install is streamed to the sink" grep -q "Successfully installed" "$KD_TMP/err"
check "clean install: pip's own --timeout and --retries are passed" \
	sh -c "grep -A12 'step: pip-install' '$P/kernodeck/rebuild.yaml' | grep -q -- '--retries'"
check "clean install: what was built is recorded in the state" \
	grep -q "requirements_sha256:" "$P/kernodeck/state.yaml"

# nothing changed: the venv is reused, no install runs
"$KD_BIN" check "$P" --stage rebuild >"$KD_TMP/out2" 2>"$KD_TMP/err2"
rc=$?
check "reuse: check exits 0" [ "$rc" -eq 0 ]
check "reuse: the venv is reused" grep -q "reused" "$KD_TMP/out2"
check "reuse: pip install did not run again" sh -c "! grep -q 'pip install' '$KD_TMP/err2'"

# the rebuild file changed: the old venv is moved aside, a fresh one built
sed -i 's/beta==2.1/beta==2.2/' "$P/requirements-rebuild.txt"
"$KD_BIN" check "$P" --stage rebuild >"$KD_TMP/out3" 2>"$KD_TMP/err3"
rc=$?
check "changed file: check exits 0" [ "$rc" -eq 0 ]
aside=$(ls -d "$P"/.venv-rebuild.aside-* 2>/dev/null | head -n 1)
check "changed file: the old venv was renamed aside with a UTC timestamp" \
	sh -c "echo '$aside' | grep -q 'aside-[0-9]\{8\}T[0-9]\{6\}Z'"
check "changed file: nothing was deleted (the old venv still has beta 2.1)" \
	sh -c "ls '$aside'/lib/python3*/site-packages | grep -q 'beta-2.1.dist-info'"
check "changed file: the fresh venv has beta 2.2" \
	"$P/.venv-rebuild/bin/python" -c 'import beta; assert beta.__version__ == "2.2"'
check "changed file: the move is recorded in the state" grep -q "choice: moved-aside" "$P/kernodeck/state.yaml"
check "changed file: the old venv is kept out of git's untracked files" \
	sh -c "git -C '$P' status --porcelain | grep -qv aside && ! git -C '$P' status --porcelain | grep -q aside"
