#!/bin/sh
# kd-test: long (started first: see tests/run-all.sh)
# Kill a process with SIGKILL at 200+ random moments while it saves state
# in a loop: every time, the file loads and is a whole state (the previous
# or the new one), and the counter never goes back.
. "$KD_SRCDIR/tests/lib.sh"
SAVER="$KD_BUILDDIR/tests/helpers/crash-saver"
F="$KD_TMP/state.yaml"
prev=0 bad=0 runs=0
i=0
# a first state, so that every kill below lands on an existing file
"$SAVER" save "$F" 2>/dev/null &
pid=$!
j=0; while [ ! -f "$F" ] && [ $j -lt 100 ]; do sleep 0.05; j=$((j + 1)); done
kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
while [ $runs -lt 210 ] && [ $i -lt 400 ]; do
	"$SAVER" save "$F" 2>/dev/null &
	pid=$!
	# a random moment between 5 and 60 ms
	ms=$(( ($(od -An -N2 -tu2 /dev/urandom) % 56) + 5 ))
	sleep "0.0$(printf '%02d' "$ms")" 2>/dev/null || sleep 0.05
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -f "$F" ]; then
		runs=$((runs + 1))
		n=$("$SAVER" verify "$F" 2>&1) || { bad=$((bad + 1)); echo "torn state after kill $i"; }
		[ "${n:-0}" -ge 0 ] 2>/dev/null || bad=$((bad + 1))
	fi
	i=$((i + 1))
done
leftover=$(ls "$KD_TMP" | grep -c '\.tmp\.' || true)
echo "# $runs kills checked, $bad bad, $leftover temporary files left by killed savers"
check "crash consistency: 200+ SIGKILLs during saves, every state whole" [ "$runs" -ge 200 ] && [ "$bad" -eq 0 ]
# the temp files of killed savers never replace the state, and the next
# successful save sweeps those whose writer is gone
check "crash consistency: temporary files never read as the state" "$SAVER" verify "$F"
"$SAVER" save "$F" 2>/dev/null &
pid=$!; sleep 0.3; kill -KILL $pid; wait $pid 2>/dev/null
left=$(ls "$KD_TMP" | grep -c '\.tmp\.' || true)
check "crash consistency: stale temporary files swept (at most the last killed one left)" [ "$left" -le 1 ]
