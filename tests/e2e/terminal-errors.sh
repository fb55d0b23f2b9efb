# tests/e2e/terminal-errors.sh - no terminal, an unknown TERM, TERM=dumb, no
# TERM: never a crash, always a clear message and an exit status, and
# nothing left behind in the project.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

P="$KD_TMP/project"
mkdir -p "$P"

# Standard input that is not a terminal (no tmux needed).
out=$("$KD_BIN" "$P" </dev/null 2>&1); rc=$?
case "$out" in
*"not built yet"*)
	for n in "no terminal: exit 2" "no terminal: suggests kernodeck check" \
		"unknown TERM" "TERM=dumb" "TERM unset" "stdout not a terminal" \
		"bad usage"; do
		skip "terminal errors: $n" "this kernodeck does not start the walkthrough yet (main.c)"
	done
	exit 0;;
esac
check "terminal errors: no terminal: exit 2" [ "$rc" -eq 2 ]
case "$out" in *"kernodeck check"*) ok "terminal errors: no terminal: suggests kernodeck check";;
*) notok "terminal errors: no terminal: suggests kernodeck check"; echo "# got: $out";; esac
check "terminal errors: no terminal: nothing written" [ ! -e "$P/kernodeck" ]
expect_exit 2 "terminal errors: bad usage" "$KD_BIN" "$P" --no-such-option
expect_exit 2 "terminal errors: two folders are bad usage" "$KD_BIN" "$P" "$P"

if ! command -v tmux >/dev/null 2>&1; then
	for n in "malformed state" "unknown TERM" "TERM=dumb" "TERM unset" "stdout not a terminal"; do
		skip "terminal errors: $n" "tmux is not installed"
	done
	exit 0
fi

# run_in_tty NAME ENV...: run the walkthrough in a terminal with ENV, wait
# for it to end; its output is on the screen.
run_in_tty() {
	tm_stop
	name=$1; shift
	tm_start_env 100 24 "$*" "$KD_BIN" "$P"
	tm_wait "kd-exited-with-" 10 >/dev/null
}

# A malformed state.yaml: the file and line, exit 2, the file left as it is.
B="$KD_TMP/broken"
mkdir -p "$B/kernodeck"
printf 'schema: 1\ncurrent: [\n' >"$B/kernodeck/state.yaml"
cp "$B/kernodeck/state.yaml" "$KD_TMP/state.orig"
tm_start_env 100 24 "TERM=xterm-256color" "$KD_BIN" "$B"
tm_wait "kd-exited-with-" 10 >/dev/null
check "terminal errors: malformed state.yaml: exit 2" tm_wait "kd-exited-with-2"
check "terminal errors: malformed state.yaml: names the file and line" tm_wait "state.yaml:3:"
check "terminal errors: malformed state.yaml: left as it was" cmp -s "$KD_TMP/state.orig" "$B/kernodeck/state.yaml"

run_in_tty unknown TERM=no-such-terminal-type
check "terminal errors: unknown TERM: exit 3" tm_wait "kd-exited-with-3"
check "terminal errors: unknown TERM: names it and what to do" tm_wait 'terminal type "no-such-terminal-type"'
check "terminal errors: unknown TERM: nothing written" [ ! -e "$P/kernodeck" ]

run_in_tty dumb TERM=dumb
check "terminal errors: TERM=dumb: exit 3" tm_wait "kd-exited-with-3"
check "terminal errors: TERM=dumb: says the terminal cannot move the cursor" tm_wait "cannot move the cursor"

run_in_tty unset -u TERM
check "terminal errors: TERM unset: exit 3" tm_wait "kd-exited-with-3"
check "terminal errors: TERM unset: says so" tm_wait "TERM is not set"

tm_stop
tm_start_env 100 24 "TERM=xterm-256color" "$KD_BIN" "$P" ">$KD_TMP/out.txt"
tm_wait "kd-exited-with-" 10 >/dev/null
check "terminal errors: stdout not a terminal: exit 2" tm_wait "kd-exited-with-2"
check "terminal errors: stdout not a terminal: says so" tm_wait "standard output"
