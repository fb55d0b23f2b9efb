#!/bin/sh
# tests/e2e/sample-plot.sh - the sample screen at 120x40 (issue 25, point
# 6): after the resume check ran (r), the log area is split: the log on the
# left, a rule, the plot of the two trajectories on the right; the rule
# stands in every row of the area (nothing drew over it), the plot starts
# right of it, and the log's lines show whole on the left.  The toy trainer
# drops its RNG state, so the plot marks the first diverging step.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT
tui_require "sample plot at 120x40"
. "$KD_SRCDIR/tests/integration/resume-lib.inc"

toy_project
toy_spec ', --drop-rng' 6 stop "{out}/ckpt-{step}.pt" 'metrics: "{out}/metrics.jsonl"'
run_sample headless
sed -i 's/^current: .*/current: sample/' "$P/kernodeck/state.yaml"
grep -q '^current:' "$P/kernodeck/state.yaml" || echo 'current: sample' >>"$P/kernodeck/state.yaml"
tm_walk 120 40 "$P"
check "sample plot: the sample screen opens" tm_wait "6/7 Sample" 20
tm_keys r
check "sample plot: the stage runs again and ends" tm_wait "done in" 240
check "sample plot: the plot is shown, its legend whole, its divergence marked" tm_wait "loss: * uninterrupted  o resumed  ! step 7" 10
tm_screen >"$KD_TMP/screen.txt"
sed 's/^/# /' "$KD_TMP/screen.txt"
check "sample plot: the log and the plot never draw into each other's columns" "$PY" - "$KD_TMP/screen.txt" <<'PYEOF'
import sys
rows = open(sys.argv[1], encoding="utf-8").read().split("\n")
head = [i for i, r in enumerate(rows) if " Log" in r and "\u252c" in r]
assert len(head) == 1, "no log header with the plot's rule"
h = head[0]
col = rows[h].index("\u252c")
area = [r for r in rows[h + 1:] if r.strip()][:-2]   # above the message line and the key bar
assert len(area) >= 5, area
for r in area:
    assert len(r) > col and r[col] == "\u2502", "the rule is overwritten: %r" % r
title = [r for r in area if "uninterrupted  o resumed" in r]
assert title and title[0].index("loss:") > col, title
assert any("toy-trainer: 12 steps" in r[:col] for r in area), "a log line is not whole on the left"
PYEOF
tm_keys q
check "sample plot: q quits with status 0" tm_wait "kd-exited-with-0" 10
