# tests/e2e/hostile-text.sh - the walkthrough shows control characters
# visibly: a project whose file names, YAML strings (entry point, parameter
# file, data item), requirements line and pip's output hold ESC, BEL, OSC 0
# (the window title), OSC 52 (the clipboard) and CSI sequences.  In a tmux
# capture the visible forms (\x1b, \x07) are on the screen, no ESC or BEL
# other than tmux's own attributes (capture-pane -e) is there, the pane
# title is not taken and no tmux buffer is written (set-clipboard on).
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "hostile text: stage 1" "hostile text: stage 3"
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
P="$KD_TMP/project"
mkdir -p "$P/kernodeck"
git -C "$P" init -q
echo "print('hi')" >"$P/main.py"
printf 'dim: 4\n' >"$P/$(printf 'cfg\033]52;c;SGk=\007.yaml')"
printf -- '--no-index\nkd-evil\033]2;pwned-req\007==1.0\n' >"$P/requirements-rebuild.txt"
git -C "$P" add . && git -C "$P" commit -qm project
printf 'x' >"$P/$(printf 'untracked\033[2J\007.txt')"
{ cat <<YEOF
schema: 1
goal: close-values
code:
  commit: $(git -C "$P" rev-parse HEAD)
  entry_point: [python, "main\\e]0;pwned-title\\a.py", "--flag\\e[31m"]
  params:
    - path: "cfg\\e]52;c;SGk=\\a.yaml"
data:
  - name: "words\\e]52;c;SGVsbG8=\\a"
    path: "data\\e[2J.txt"
YEOF
ref_python_cpu; } >"$P/kernodeck/reference.yaml"

# raw_left FILE: ESC and BEL bytes left in a capture-pane -e once tmux's
# own attribute sequences (CSI ... m) are taken out
raw_left() {
	LC_ALL=C sed 's/\x1b\[[0-9;:]*m//g' "$1" | LC_ALL=C tr -cd '\033\007' | wc -c
}
# look NAME: the pane's title and buffers are not the input's, and no raw
# byte of it is on the screen
look() {
	tm capture-pane -p -e -t kd >"$KD_TMP/$1.e"
	tm capture-pane -p -t kd >"$KD_TMP/$1.txt"
	n=$(raw_left "$KD_TMP/$1.e")
	check "hostile text: $1: no raw ESC or BEL of the input in the capture ($n)" test "$n" -eq 0
	title=$(tm display-message -p -t kd '#{pane_title}')
	check "hostile text: $1: the pane title is not the input's ($title)" \
		sh -c "! printf '%s' '$title' | grep -q pwned"
	check "hostile text: $1: no tmux buffer was written (OSC 52)" test -z "$(tm list-buffers)"
}
seen() { grep -qF -- "$2" "$KD_TMP/$1.txt"; }

tm_walk 120 40 "$P"
tm set-option -g set-clipboard on >/dev/null 2>&1
tm_wait "Fields (" 10 >/dev/null
tm_keys r
tm_wait "Checks (" 10 >/dev/null && tm_wait "checked" 10 >/dev/null
look "stage 1"
check "hostile text: stage 1: the entry point's YAML escapes are shown" \
	seen "stage 1" 'main\x1b]0;pwned-title\x07.py'
check "hostile text: stage 1: an untracked file's name is shown" seen "stage 1" 'untracked\x1b['
check "hostile text: stage 1: a data path is shown" seen "stage 1" 'data\x1b[2J.txt'
tm_keys q
tm_wait "kd-exited-with-" 10 >/dev/null

# stage 3: the rebuild file's line in pip's own error, streamed to the log pane
sed -i 's/^current: .*/current: rebuild/' "$P/kernodeck/state.yaml"
tm_walk 120 40 "$P"
tm set-option -g set-clipboard on >/dev/null 2>&1
tm_wait "Rebuild" 10 >/dev/null
tm_keys r
tm_wait "done in" 60 >/dev/null
look "stage 3"
check "hostile text: stage 3: pip's output shows the BEL of the line" seen "stage 3" 'pwned-req\x07'
tm_keys q
