# tests/e2e/fleet-matrix.sh - the fleet matrix in the walkthrough: with a
# fleet folder (node files written here as `kernodeck fleet` writes them),
# stage 2 shows "fleet: 3 nodes, 1 differs", F opens the matrix with the
# outlier's check marked, the arrows move to a cell and Enter shows that
# node's evidence; Esc comes back.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "fleet screen: summary" "fleet screen: matrix" "fleet screen: evidence" "fleet screen: back"
P="$KD_TMP/project"
mkdir -p "$P/kernodeck/fleet/42"
printf 'schema: 1\ncurrent: system\n' >"$P/kernodeck/state.yaml"
for n in n1 n2 n3; do
	drv=550.54.15
	[ "$n" = n2 ] && drv=535.104.05
	cat >"$P/kernodeck/fleet/42/$n.yaml" <<EOF2
schema: 1
job: "42"
run: r
node: $n
status: passed
stages:
- id: system
  status: passed
  rows:
  - {id: system.os, status: pass, observed: Ubuntu 22.04.4 LTS, expected: Ubuntu 22.04.4 LTS}
  - {id: system.driver, status: pass, observed: $drv, expected: 550.54.15}
EOF2
done
tm_start_env 100 30 "NO_COLOR=1 TERM=xterm-256color" "$KD_BIN" "$P"
if tm_wait "fleet: 3 nodes, 1 differs" 10 >/dev/null; then
	ok "fleet screen: summary on stage 2"
else
	notok "fleet screen: summary on stage 2"; tm_screen | sed "s/^/# /"
fi
tm_keys F
if tm_wait "job 42: fleet: 3 nodes, 1 differs" 5 >/dev/null && tm_screen | grep -q "system.driver .*pass .*pass .*pass"; then
	ok "fleet screen: matrix, a row per check, a column per node"
else
	notok "fleet screen: matrix"; tm_screen | sed 's/^/# /'
fi
tm_keys Down
check "fleet screen: the selected row's outlier summary" sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'system.driver: 1 outlier where 2 nodes have 550.54.15'"
tm_keys Right Enter
if tm_wait "system.driver on n2" 5 >/dev/null && tm_screen | grep -q "(differs from the other nodes)" &&
	tm_screen | grep -q "Node file: .*fleet/42/n2.yaml"; then
	ok "fleet screen: evidence of n2's cell"
else
	notok "fleet screen: evidence"; tm_screen | sed 's/^/# /'
fi
tm_keys x
tm_keys Escape
sleep 1.2
check "fleet screen: back to stage 2" sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q '2/7 System'"
tm_keys q
