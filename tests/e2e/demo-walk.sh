# kd-test: long (started first: see tests/run-all.sh)
# tests/e2e/demo-walk.sh - `kernodeck demo DIR` in a private tmux server at
# 100x30: the demo is created and the walkthrough opens on it; each of the
# seven screens is run (r) and left (n) once it passed, up to a written and
# verified dossier (the replay itself is tested headless, in
# tests/integration/demo-headless.sh).
# Where this machine differs from the demo's reference (extra system
# packages, say), the failing checks are recorded as deviations headless
# and the walk resumes where it stopped.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "demo walk: seven screens"
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
	skip "demo walk: seven screens" "Debian's python3-torch is not installed"
	exit 0
fi
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"

tm_start_env 100 30 "TERM=xterm-256color NO_COLOR=1" "$KD_BIN" demo "$DEMO"
check "demo walk: kernodeck demo creates the project and opens stage 1" tm_wait "1/7 Reference" 30
check "demo walk: the walkthrough shows the demo's folder" tm_wait "$DEMO"

demo_walk_stages "demo walk" 100 30 "$DEMO"

check "demo walk: the dossier screen shows the dossier written" tm_wait "dossier written"
check "demo walk: and its SHA256SUMS verified" tm_wait "SHA256SUMS verifies"
check "demo walk: the dossier is on disk and verifies" \
	sh -c "cd '$DEMO/kernodeck/dossier' && sha256sum -c --quiet SHA256SUMS"
check "demo walk: every stage is marked passed or deviation in the column" \
	sh -c "test \$(tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -cE '^[ >][+~] [1-7] ') -eq 7"

tm_keys q
check "demo walk: q quits with status 0" tm_wait "kd-exited-with-0" 10
