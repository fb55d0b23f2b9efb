# tests/e2e/resize.sh - resizing never crashes: below 80x24 a notice, back
# to the full layout when enlarged, sizes down to 1x1, and a storm of 200
# resizes, on the stage screen and inside a dialog.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "resize: notice" "resize: recovers" "resize: tiny sizes" "resize: storm"

P="$KD_TMP/project"
mkdir -p "$P"
tm_walk 80 24 "$P"
tm_wait "1/7 Reference" >/dev/null
tm_keys r
tm_wait "FAIL" >/dev/null

tm_resize 60 15
check "resize: 60x15 shows the notice" tm_wait "needs a terminal of at least 80x24"
check "resize: the notice gives the current size" tm_wait "60x15"
check "resize: the notice replaces the layout" tm_gone "1/7 Reference"
tm_resize 80 24
check "resize: back at 80x24 the full layout returns" tm_wait "1/7 Reference"
check "resize: with the key bar" tm_wait "q quit"

# every small size, one after the other
for size in 1x1 2x1 1x2 3x3 10x2 20x5 79x24 80x23 40x40 200x3 3x100; do
	tm_resize "${size%x*}" "${size#*x}"
	sleep 0.1
done
sleep 0.3
check "resize: tiny sizes down to 1x1 do not crash" tm_alive
tm_resize 80 24
check "resize: recovers after tiny sizes" tm_wait "1/7 Reference"

# a storm of 200 resizes, with keys in between
i=0
while [ $i -lt 200 ]; do
	c=$(( (i * 37) % 130 + 1 )); r=$(( (i * 11) % 45 + 1 ))
	tm_resize "$c" "$r"
	[ $((i % 50)) -eq 0 ] && tm send-keys -t kd Tab
	i=$((i + 1))
done
sleep 0.5
check "resize: a storm of 200 resizes does not crash" tm_alive
tm_resize 80 24
check "resize: full layout after the storm" tm_wait "1/7 Reference"

# inside a dialog: the dialog survives and is drawn again
tm_keys d
tm_wait "Deviation for" >/dev/null
tm_resize 50 10
tm_wait "needs a terminal" >/dev/null
tm_resize 100 30
check "resize: a dialog is drawn again after a resize" tm_wait "Deviation for"
tm_keys Escape
tm_resize 80 24
tm_keys q
check "resize: quits normally afterwards" tm_wait "kd-exited-with-0"
