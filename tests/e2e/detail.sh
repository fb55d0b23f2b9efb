# tests/e2e/detail.sh - Enter on a check opens its detail: values, first
# error and hint, the evidence file opened at the first error, searched
# with / and n, and opened in $PAGER with o.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "detail: opens" "detail: first error" "detail: search" "detail: pager"

P="$KD_TMP/project"
mkdir -p "$P/kernodeck/logs"
i=1
while [ $i -le 300 ]; do
	case $i in
	40) echo "line $i: needle one";;
	150) echo "ERROR: No matching distribution found for torch==9.9";;
	260) echo "line $i: needle two";;
	*) echo "line $i: Collecting something";;
	esac
	i=$((i + 1))
done >"$P/kernodeck/logs/e2e.log"
cat >"$P/kernodeck/state.yaml" <<'EOS'
schema: 1
current: system
stages:
  system:
    status: failed
    checked_at: 2026-01-01T00:00:00Z
    rows:
    - id: e2e.install
      status: fail
      label: the requirements install
      observed: exit 1
      expected: exit 0
      evidence: logs/e2e.log
      first_error: 'ERROR: No matching distribution found for torch==9.9'
      hint: pick a torch version that exists for this platform
EOS
cat >"$KD_TMP/pager.sh" <<EOS
#!/bin/sh
printf '%s\n' "\$@" >"$KD_TMP/pager.args"
EOS
chmod +x "$KD_TMP/pager.sh"

tm_start_env 80 24 "TERM=xterm-256color NO_COLOR=1 PAGER='$KD_TMP/pager.sh'" "$KD_BIN" "$P"
check "detail: the saved rows are shown" tm_wait "the requirements"
tm_keys Enter
check "detail: Enter opens the detail" tm_wait "Check detail"
check "detail: shows the hint" tm_wait "pick a torch version"
check "detail: shows the evidence path" tm_wait "logs/e2e.log"
check "detail: the excerpt opens at the first error" tm_wait "line 149: Collecting"
check "detail: with the error line" tm_wait "No matching distribution found for torch==9.9"
tm_keys /
check "detail: / asks what to search" tm_wait "Search the log excerpt"
tm_keys -l needle
tm_keys Enter
check "detail: the search finds the next match" tm_wait "line 260: needle two"
tm_keys n
check "detail: n wraps around to the first match" tm_wait "line 40: needle one"
tm_keys o
sleep 0.5
check "detail: o opens the evidence in \$PAGER" grep -qx "$P/kernodeck/logs/e2e.log" "$KD_TMP/pager.args"
check "detail: the detail is back after the pager" tm_wait "Check detail"
tm_keys Escape
check "detail: Esc goes back to the stage" tm_gone "Check detail"
tm_keys q
check "detail: quits with status 0" tm_wait "kd-exited-with-0"
