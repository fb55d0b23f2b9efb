# tests/e2e/paste-import.sh - the system screen imports a colleague's paste:
# P asks for the file (a missing one is refused in the dialog), then shows
# the same comparison as `kernodeck diff PASTE`: the paste against this
# machine as the project's stage 2 last saw it (here the system.yaml of a
# machine with an RTX 3090, taken from a fixture dossier).
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "paste import: dialog" "paste import: missing file" "paste import: comparison" "paste import: message"
P="$KD_TMP/project"
mkdir -p "$P/kernodeck"
printf 'schema: 1\ncurrent: system\n' >"$P/kernodeck/state.yaml"
/usr/bin/python3 - "$KD_SRCDIR/tests/fixtures/dossiers/new-machine/dossier.yaml" "$P/kernodeck/system.yaml" <<'PYEOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
st = d["stages"]
s = st["system"] if isinstance(st, dict) else [x for x in st if x.get("id") == "system"][0]
yaml.safe_dump(s["observations"], open(sys.argv[2], "w"))
PYEOF
cp "$KD_SRCDIR/tests/fixtures/nvidia_smi/rtx4070-550.txt" "$KD_TMP/smi.txt"
tm_start_env 120 40 "NO_COLOR=1 TERM=xterm-256color" "$KD_BIN" "$P"
tm_wait "2/7 System" 10 >/dev/null
tm_keys P
if tm_wait "Import a paste" 5 >/dev/null; then
	ok "paste import: P opens the dialog"
else
	notok "paste import: dialog"; tm_screen | sed 's/^/# /'
fi
tm_keys -l "$KD_TMP/nothing.txt"
tm_keys Enter
check "paste import: a missing file is refused in the dialog" \
	sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'No such file'"
tm_keys C-u
tm_keys -l "$KD_TMP/smi.txt"
tm_keys Enter
if tm_wait "The paste against this machine" 10 >/dev/null &&
	tm_screen | grep -q 'gpus: \["NVIDIA GeForce RTX 4070"\] -> \["NVIDIA GeForce RTX 3090"\]' &&
	tm_screen | grep -q 'backend: only b holds it\|backend: neither holds it'; then
	ok "paste import: the comparison with this machine, what was not compared"
else
	notok "paste import: comparison"; tm_screen | sed 's/^/# /'
fi
tm_keys Escape
sleep 0.5
check "paste import: the message line counts the differences" \
	sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q '1 difference(s) with '"
tm_keys q
