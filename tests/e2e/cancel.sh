# tests/e2e/cancel.sh - a stage that runs a program streams its output into
# the live log pane with the elapsed time, and Esc cancels it: the whole
# process group ends, the walkthrough says so and goes on.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "cancel: live log" "cancel: Esc cancels"

P="$KD_TMP/project"
mkdir -p "$P/kernodeck"
marker="kd-e2e-tick-$$"
cat >"$P/kernodeck/reference.yaml" <<EOS
code:
  entry_point: [/bin/sh, -c, 'i=0; while [ \$i -lt 600 ]; do echo $marker \$i; i=\$((i+1)); sleep 0.1; done']
result:
  outputs: outputs
EOS
printf 'schema: 1\ncurrent: sample\n' >"$P/kernodeck/state.yaml"

tm_walk 80 24 "$P"
check "cancel: opens on the sample stage" tm_wait "6/7 Sample"
tm_keys r
check "cancel: the output streams into the log pane" tm_wait "$marker 5"
check "cancel: the log pane shows the elapsed time while running" tm_wait "Log: Sample checks │ 00:0"
check "cancel: the key bar offers only cancelling" tm_wait "Esc cancel the run"
check "cancel: the program runs" pgrep -f "$marker" >/dev/null
tm_keys Escape
check "cancel: Esc cancels the run" tm_wait "Cancelled." 10
sleep 0.5
if pgrep -f "$marker" >/dev/null; then notok "cancel: the program is gone"; else ok "cancel: the program is gone"; fi
check "cancel: the log pane shows the elapsed time" tm_wait "done in 00:"
check "cancel: the run's log file was kept" sh -c "grep -l '$marker' '$P'/kernodeck/logs/*.log >/dev/null"
check "cancel: the stage is saved as cancelled" \
	sh -c "grep -A1 '^  sample:' '$P/kernodeck/state.yaml' | grep -q 'status: cancelled'"
check "cancel: the entry point's row says it was not judged, not the script's last line" \
	sh -c "grep -A8 'id: sample.entry-point' '$P/kernodeck/state.yaml' | grep -q 'not judged: the stage was cancelled' &&
	       ! grep -A8 'id: sample.entry-point' '$P/kernodeck/state.yaml' | grep -q 'first_error: $marker'"
check "cancel: the stage column marks it cancelled (x)" tm_wait "x 6 Sample"
tm_keys q
check "cancel: quits cleanly" tm_wait "kd-exited-with-0"
