# tests/e2e/readonly.sh - a second walkthrough on the same project opens
# read-only and says who holds the lock; it refuses changes and saves
# nothing, while the first keeps working.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "readonly: second instance" "readonly: refuses changes"

P="$KD_TMP/project"
mkdir -p "$P"
tm_walk 80 24 "$P"
first_sock=$TMUX_SOCK
tm_wait "1/7 Reference" >/dev/null
tm_keys r
tm_wait "FAIL" >/dev/null
cp "$P/kernodeck/state.yaml" "$KD_TMP/state.before"

tm_walk 100 24 "$P"
check "readonly: the second instance opens" tm_wait "1/7 Reference"
check "readonly: its title says read-only" tm_wait "[read-only]"
check "readonly: it says who holds the lock" tm_wait "holds the lock since"
check "readonly: with the holder's process id" tm_wait "(pid "
tm_keys r
check "readonly: running checks is refused" tm_wait "Read-only:"
tm_keys d
check "readonly: recording a deviation is refused" tm_wait "Read-only:"
tm_keys E
check "readonly: editing reference.yaml is refused" tm_wait "Read-only:"
tm_keys N
tm_wait "Notes: Reference" >/dev/null
tm_keys a
check "readonly: notes cannot be added" tm_gone "New note" 2
tm_keys Escape
tm_keys q
check "readonly: it quits with status 0" tm_wait "kd-exited-with-0"
check "readonly: it wrote nothing" cmp -s "$KD_TMP/state.before" "$P/kernodeck/state.yaml"
tm_stop

TMUX_SOCK=$first_sock
check "readonly: the first instance is still alive" tm_alive
tm_keys N
tm_wait "Notes: Reference" >/dev/null
tm_keys a
tm_keys -l "written by the lock holder"
tm_keys Enter
check "readonly: the lock holder still saves" tm_wait "Note added"
check "readonly: its note is on disk" grep -q "written by the lock holder" "$P/kernodeck/state.yaml"
tm_keys Escape
tm_keys q
check "readonly: quits with status 0" tm_wait "kd-exited-with-0"
