# tests/e2e/nocolor.sh - colours by meaning, and NO_COLOR gives monochrome:
# with NO_COLOR set (and not empty) the screen carries no colour at all,
# only attributes; without it, failures and the title are coloured.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "nocolor: monochrome" "nocolor: colour by default"

P="$KD_TMP/project"
mkdir -p "$P"
esc=$(printf '\033')

# has_colour: the screen, with its attributes, sets a foreground or
# background colour (SGR 30-37, 40-47, 90-97, 100-107, 38;x / 48;x).
has_colour() {
	tm capture-pane -p -e -t kd >"$KD_TMP/attrs"
	grep -q "$esc\[\([0-9;]*;\)\{0,1\}\(3[0-8]\|4[0-8]\|9[0-7]\|10[0-7]\)[;m]" "$KD_TMP/attrs"
}
has_attr() {
	tm capture-pane -p -e -t kd >"$KD_TMP/attrs"
	grep -q "$esc\[\([0-9;]*;\)\{0,1\}$1[;m]" "$KD_TMP/attrs"
}

run_with() {
	tm_start_env 80 24 "$1 TERM=xterm-256color" "$KD_BIN" "$P"
	tm_wait "1/7 Reference" >/dev/null
	tm_keys r
	tm_wait "FAIL" >/dev/null
}

run_with "NO_COLOR=1"
if has_colour; then notok "nocolor: NO_COLOR=1 uses no colour"; sed -n 1,3p "$KD_TMP/attrs" | cat -v; else ok "nocolor: NO_COLOR=1 uses no colour"; fi
check "nocolor: NO_COLOR=1 still shows the title in reverse video" has_attr 7
check "nocolor: NO_COLOR=1 still shows failures in bold" has_attr 1
tm_keys q
tm_stop

# tests/lib.sh exports NO_COLOR=1 for every test: take it away here
run_with "-u NO_COLOR"
check "nocolor: colours by default on a colour terminal" has_colour
tm_keys q
tm_stop

run_with "NO_COLOR="
check "nocolor: an empty NO_COLOR does not turn colours off" has_colour
tm_keys q
tm_stop

tm_start_env 80 24 "-u NO_COLOR TERM=vt100" "$KD_BIN" "$P"
check "nocolor: a terminal without colours works (vt100)" tm_wait "1/7 Reference"
if has_colour; then notok "nocolor: vt100 gets no colour"; else ok "nocolor: vt100 gets no colour"; fi
tm_keys q
check "nocolor: vt100 quits cleanly" tm_wait "kd-exited-with-0"
