# tests/tmux-lib.sh - terminal end-to-end helpers (sourced after lib.sh).
# A private tmux server per test (own -S socket), fixed size, LANG=C.UTF-8.
TMUX_SOCK="$KD_TMP/tmux.sock"
unset TMUX
tm() { tmux -S "$TMUX_SOCK" "$@"; }
# tm_start COLS ROWS CMD...: start CMD in a fresh session
tm_start() {
	cols=$1 rows=$2; shift 2
	tm -f /dev/null new-session -d -s kd -x "$cols" -y "$rows" \
		"env LANG=C.UTF-8 TERM=xterm-256color NO_COLOR=1 $*"
	tm set-option -g remain-on-exit on >/dev/null 2>&1
}
tm_keys() { tm send-keys -t kd "$@"; sleep 0.25; }
tm_screen() { tm capture-pane -p -t kd; }
# tm_wait TEXT [SECONDS]: wait until TEXT is on the screen
tm_wait() {
	i=0; lim=$(( ${2:-10} * 10 ))
	while [ $i -lt $lim ]; do
		tm_screen | grep -qF -- "$1" && return 0
		sleep 0.1; i=$((i + 1))
	done
	echo "--- screen while waiting for: $1"; tm_screen
	return 1
}
tm_stop() { tm kill-server >/dev/null 2>&1 || true; }
