# kd-test: long (started first: see tests/run-all.sh)
# tests/e2e/demo-training-walk.sh - `kernodeck demo DIR --training` in a
# private tmux server at 160x40: the training demo is created and the
# walkthrough opens on it; each of the seven screens is run (r) and left (n)
# once it passed, up to a written dossier; the sample screen shows the resume
# rows and the plot of the two trajectories.  Then a variant whose
# checkpoint holds no torch RNG state (built here, checked headless): its
# sample screen marks the first diverging step on the plot.
# Where this machine differs from the demo's reference (extra system
# packages, say), the failing checks are recorded as deviations headless
# and the walk resumes where it stopped.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "training demo walk: seven screens"
if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
	skip "training demo walk: seven screens" "Debian's python3-torch is not installed"
	exit 0
fi
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"

tm_start_env 160 40 "TERM=xterm-256color NO_COLOR=1" "$KD_BIN" demo "$DEMO" --training
check "training demo walk: kernodeck demo creates the project and opens stage 1" tm_wait "1/7 Reference" 30
check "training demo walk: the walkthrough shows the demo's folder" tm_wait "$DEMO"

demo_walk_hook() {
	[ "$1" -eq 6 ] || return 0
	check "training demo walk: the sample screen shows the resume rows" \
		sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'pass   uninterrupted run' && tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'pass   resumed trajectory follows'"
	check "training demo walk: and the plot of the two trajectories" \
		sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'loss by step: \* uninterrupted  o resumed  + both'"
}
demo_walk_stages "training demo walk" 160 40 "$DEMO"

check "training demo walk: the dossier screen shows the dossier written" tm_wait "dossier written"
check "training demo walk: and its SHA256SUMS verified" tm_wait "SHA256SUMS verifies"
check "training demo walk: the dossier is on disk and verifies" \
	sh -c "cd '$DEMO/kernodeck/dossier' && sha256sum -c --quiet SHA256SUMS"
check "training demo walk: every stage is marked passed or deviation in the column" \
	sh -c "test \$(tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -cE '^[ >][+~] [1-7] ') -eq 7"

tm_keys q
check "training demo walk: q quits with status 0" tm_wait "kd-exited-with-0" 10

# a variant: the checkpoint holds no torch RNG state; the plot marks step 21
V="$KD_TMP/variant"
cp -r "$KD_SRCDIR/share/demo/training" "$V"
grep -v '"torch_rng": torch.get_rng_state(),' "$V/train.py" >"$V/t.py" && mv "$V/t.py" "$V/train.py"
/usr/bin/python3 -m venv --system-site-packages --without-pip "$V/.venv-rebuild"
mkdir -p "$V/kernodeck"
sed -e '/^  commit:/d' -e 's/^  sha256: .*/  sha256: null/' -e 's/^      sha256: .*/      sha256: null/' \
	"$KD_SRCDIR/share/demo/training.yaml" >"$V/kernodeck/reference.yaml"
"$KD_BIN" check "$V" --stage sample --quiet >/dev/null 2>&1
sed -i 's/^current: .*/current: sample/' "$V/kernodeck/state.yaml"
tm_walk 160 40 "$V"
check "variant: the sample screen opens" tm_wait "6/7 Sample" 20
check "variant: the plot marks the first diverging step" tm_wait "loss by step: * uninterrupted  o resumed  ! step 21 diverges" 5
check "variant: a column of ! at that step" sh -c "test \$(tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -c '!') -ge 5"
tm_keys q
check "variant: q quits with status 0" tm_wait "kd-exited-with-0" 10
