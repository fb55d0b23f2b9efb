#!/bin/sh
# Stage 3 cancelled in the middle of pip install: the install builds a
# local package whose in-tree build backend (no requirements, so no
# network) hangs; the sink cancels once the backend runs.  Every process of the install,
# the backend included, is gone; the state and the observations are saved
# and say "cancelled"; the stage can be run again.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python rebuild-cancel "$PY with venv and pip is needed" venv pip
need_driver rebuild-cancel
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck" "$P/slowpkg"
cat >"$P/slowpkg/pyproject.toml" <<'T'
[build-system]
requires = []
build-backend = "slow_backend"
backend-path = ["."]
T
cat >"$P/slowpkg/slow_backend.py" <<'T'
import os, time
def _hang():
    with open(os.environ["KD_SLOW_PIDFILE"], "a") as f:
        f.write("%d\n" % os.getpid())
    time.sleep(120)
def get_requires_for_build_wheel(config_settings=None):
    _hang()
    return []
def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _hang()
T
printf -- '--no-index\n./slowpkg\n' >"$P/requirements-rebuild.txt"
venv_reference "$P"
export KD_SLOW_PIDFILE="$KD_TMP/backend.pids"
start=$(date +%s)
"$DRV" "$P" rebuild run --cancel-step "pip install" --cancel-after 1 \
	--cancel-file "$KD_SLOW_PIDFILE" >"$KD_TMP/out" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
check "cancel: the stage run returns" [ "$rc" -eq 0 ]
check "cancel: it stops soon after the cancel (under 60 s)" [ "$took" -lt 60 ]
check "cancel: the build backend had started" test -s "$KD_SLOW_PIDFILE"
alive=0
for pid in $(cat "$KD_SLOW_PIDFILE" 2>/dev/null); do
	kill -0 "$pid" 2>/dev/null && alive=1
done
check "cancel: no process is left (the backend is gone)" [ "$alive" -eq 0 ]
check "cancel: no pip of this project is left" sh -c "! ps -eo args | grep -v grep | grep -q '$P/.venv-rebuild/bin/python -m pip'"
check "cancel: the stage is saved as cancelled, not passed" grep -q "status: cancelled" "$KD_TMP/out"
check "cancel: the observations say cancelled" sh -c "grep -A1 '^install:' '$P/kernodeck/rebuild.yaml' | grep -q 'status: cancelled'"
check "cancel: the state is saved with the row" sh -c "grep -A3 'id: rebuild.install' '$P/kernodeck/state.yaml' | grep -q 'observed: cancelled'"
check "cancel: the log of the install is kept" sh -c "grep -q 'slowpkg' '$P'/kernodeck/logs/*-pip-install.log"
"$KD_BIN" check "$P" --stage contract --format yaml >"$KD_TMP/c.out" 2>&1
rc=$?
check "cancel: the lock is free again (another kernodeck opens the project)" [ "$rc" -ne 3 ]
