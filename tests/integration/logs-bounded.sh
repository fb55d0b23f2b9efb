# logs-bounded.sh - kernodeck/logs/ keeps a bounded history (issue 17,
# point 7): after 20 checks, each step keeps at most KD_LOG_HISTORY logs
# besides those the state or an observation names; every named log is
# there, however old; files kernodeck did not name are left alone; and a
# kill in the middle of the pruning loses no named log; old-outputs/ keeps
# as many earlier output folders.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
	skip "logs bounded" "Debian's python3-torch is not installed (apt-get install python3-torch)"
	exit 0
fi
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"
K="$DEMO/kernodeck"
L="$K/logs"
"$KD_BIN" demo "$DEMO" --create-only >/dev/null 2>&1
export KD_LOG_HISTORY=2
quiet() { "$@" >/dev/null 2>&1; }

# the logs the state and the observations name, one per line
named() { cat "$K"/*.yaml | grep -o 'logs/[A-Za-z0-9._+-]*' | sed 's,^logs/,,' | sort -u; }
# NAME of every missing named log
missing_named() { for l in $(named); do [ -f "$L/$l" ] || echo "$l"; done; }
# steps holding more than KD_LOG_HISTORY logs that are not named
over_bound() {
	named >"$KD_TMP/named"
	ls "$L" | grep -E '^[0-9]{8}T[0-9]{6}Z(\.[0-9]+)?-.*\.log$' | grep -vxFf "$KD_TMP/named" |
		sed -E 's/^[0-9]{8}T[0-9]{6}Z(\.[0-9]+)?-//' | sort | uniq -c | awk '$1 > 2 { print $2 "=" $1 }'
}

expect_exit 0 "a first check of the demo" quiet "$KD_BIN" check "$DEMO" --quiet
# pip inspect, started by the rebuild, is the contract's (step_prefetch)
first_inspect=$(sed -n 's/^  log: logs\(.*-pip-inspect.log\)$/\1/p' "$K/contract.yaml" | head -1)
check "the contract names the pip inspect log of the check" test -n "$first_inspect"

# an older history, as 30 earlier checks would have left it, and files
# that are not kernodeck's logs
for i in $(seq 10 39); do
	echo "probe $i" >"$L/20200101T0000${i}Z-probe.log"
	echo "check $i" >"$L/20200101T0000${i}Z.1-pip-check.log"
done
echo "my notes" >"$L/notes.txt"
ln -s /etc/hostname "$L/20200101T000000Z-link.log"
mkdir "$L/20200101T000000Z-folder.log"

i=0
failed=0
while [ "$i" -lt 20 ]; do
	"$KD_BIN" check "$DEMO" --stage contract --quiet >"$KD_TMP/c.out" 2>&1 || failed=$((failed + 1))
	i=$((i + 1))
done
check "20 checks of the contract pass" test "$failed" -eq 0
over=$(over_bound)
check "after them, no step keeps more than 2 logs besides the named ones${over:+ (over: $over)}" test -z "$over"
total=$(ls "$L" | grep -c '\.log$')
check "logs/ holds at most the bound: $total logs for the named ones and 2 per step" \
	test "$total" -le "$(( $(named | wc -l) + 2 * $(ls "$L" | grep -E '^[0-9]{8}T' | sed -E 's/^[0-9T.Z]*-//' | sort -u | wc -l) ))"
check "the contract ran 20 times: 20 pip check logs were written, at most 3 are left" \
	test "$(ls "$L" | grep -c -- '-pip-check.log$')" -le 3
m=$(missing_named)
check "every log the state and the observations name is there${m:+ (missing: $m)}" test -z "$m"
check "the check's pip inspect log is kept, older than 40 newer pip inspect logs" test -f "$L$first_inspect"
check "the contract's checks on the saved pip inspect file still name that log" \
	grep -q "log: logs$first_inspect" "$K/contract.yaml"
check "the history of earlier checks was pruned to 2 per step" \
	test "$(ls "$L" | grep -c -- '^2020.*-probe.log$')" -le 2
check "a file that is not a kernodeck log is left alone" test -f "$L/notes.txt"
check "a link named like a log is left alone" test -L "$L/20200101T000000Z-link.log"
check "a folder named like a log is left alone" test -d "$L/20200101T000000Z-folder.log"

# old-outputs/: the outputs of earlier sample runs, bounded by the same number
i=0
while [ "$i" -lt 4 ]; do
	quiet "$KD_BIN" check "$DEMO" --stage sample --quiet
	i=$((i + 1))
done
n_old=$(ls "$K/old-outputs" | wc -l)
check "after 4 more sample runs old-outputs/ keeps 2 ($n_old)" test "$n_old" -eq 2
to=$(sed -n 's/^  to: //p' "$K/sample.yaml" | head -1)
check "the outputs the last run moved aside are among them" test -d "$to"

# finishes the pruning
for i in $(seq 10 19); do echo "old $i" >"$L/20200101T0000${i}Z-old-step.log"; done
KD_FAULT_KILL=log-prune "$KD_BIN" check "$DEMO" --stage contract --quiet >/dev/null 2>&1
r=$?
check "killed in the middle of the pruning (exit $r)" test "$r" -eq 137
check "some old logs were not yet removed" test "$(ls "$L" | grep -c -- '-old-step.log$')" -gt 2
m=$(missing_named)
check "after the kill, every named log is there${m:+ (missing: $m)}" test -z "$m"
expect_exit 0 "the next check passes" quiet "$KD_BIN" check "$DEMO" --stage contract --quiet
check "and finishes the pruning" test "$(ls "$L" | grep -c -- '-old-step.log$')" -eq 2

# the cap and its override
export KD_LOG_HISTORY=0
expect_exit 0 "KD_LOG_HISTORY=0: a check passes" quiet "$KD_BIN" check "$DEMO" --stage contract --quiet
named >"$KD_TMP/named"
over=$(cd "$L" && find . -maxdepth 1 -type f -name '[0-9]*T*Z*-*.log' | sed 's,^\./,,' | grep -vxFf "$KD_TMP/named")
check "KD_LOG_HISTORY=0 keeps only the named logs${over:+ (also: $(echo $over))}" test -z "$over"
m=$(missing_named)
check "and every named log${m:+ (missing: $m)}" test -z "$m"
