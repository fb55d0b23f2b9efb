# kd-test: serial (run alone: see tests/run-all.sh)
# inspect-prefetch.sh - pip inspect, started by the rebuild stage as soon
# as the venv holds its packages, runs beside pip freeze and then pip check
# and is taken by the contract stage (step_prefetch, issue 13's bench): one
# pip inspect per check, named by the contract, its file saved; a check of
# the rebuild alone still runs it beside pip freeze itself; and a check that
# stops at the rebuild ends it, leaving nothing running.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python "inspect prefetch" "Debian's python3-torch is not installed (apt-get install python3-torch)" \
	torch numpy
export HOME="$KD_TMP/home" && mkdir -p "$HOME"
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX PIP_USER 2>/dev/null || true
DEMO="$KD_TMP/demo"
K="$DEMO/kernodeck"
L="$K/logs"
"$KD_BIN" demo "$DEMO" --create-only >/dev/null 2>&1
quiet() { "$@" >/dev/null 2>&1; }
born() { stat -c '%.9W' "$1" 2>/dev/null; }

expect_exit 0 "a first check of the demo passes" quiet "$KD_BIN" check "$DEMO" --quiet
check "the rebuild no longer records a pip inspect of its own" \
	sh -c "! sed -n 's/^- step: //p' '$K/rebuild.yaml' | grep -qx pip-inspect"
check "the contract records the pip inspect, after pip check" \
	sh -c "sed -n 's/^- step: //p' '$K/contract.yaml' | tr '\n' ' ' | grep -q 'pip-check pip-inspect'"
check "the pip inspect step ended well" \
	sh -c "grep -A8 '^- step: pip-inspect' '$K/contract.yaml' | grep -q 'status: ok'"
n=$(ls "$L" | grep -c -- '-pip-inspect.log$')
check "one pip inspect for the whole check ($n)" test "$n" -eq 1
ilog=$(ls "$L" | grep -- '-pip-inspect.log$' | head -1)
check "the rebuilt inventory names the log of the pip inspect that made it" \
	grep -q "log: logs/$ilog" "$K/contract.yaml"
check "its file is saved, pip inspect's JSON with the demo's wheel in it" "$PY" -c "
import json; d = json.load(open('$K/pip-inspect.json'))
assert any(p['metadata']['name'] == 'kd-demo-tokenizer' for p in d['installed'])"
# birth times: pip inspect started after the install, before pip check
b_inst=$(born "$L"/*-pip-install.log)
b_insp=$(born "$L/$ilog")
b_chk=$(born "$L"/*-pip-check.log)
case "$b_inst$b_insp$b_chk" in
*-*|*'?'*|'') skip "pip inspect started between the install and pip check" "no birth time here" ;;
*)
	check "pip inspect started after the install and before pip check ($b_inst < $b_insp < $b_chk)" \
		"$PY" -c "import sys; a, b, c = map(float, sys.argv[1:]); assert 0 < a < b < c" \
		"$b_inst" "$b_insp" "$b_chk"
	;;
esac

# the contract alone: the saved file, no new pip inspect, the same log named
expect_exit 0 "the contract alone passes" quiet "$KD_BIN" check "$DEMO" --stage contract --quiet
n=$(ls "$L" | grep -c -- '-pip-inspect.log$')
check "the contract alone reads the saved file: no second pip inspect ($n)" test "$n" -eq 1
check "and names the log of the pip inspect that wrote it" grep -q "log: logs/$ilog" "$K/contract.yaml"
check "and says the tree is the saved file" grep -q 'from: pip-inspect.json' "$K/contract.yaml"

# the rebuild alone: no later stage takes it, so pip inspect runs beside
# pip freeze within the stage, as before
before=$(stat -c %Y.%y "$K/pip-inspect.json")
expect_exit 0 "the rebuild alone passes" quiet "$KD_BIN" check "$DEMO" --stage rebuild --quiet
check "the rebuild alone records its own pip inspect" \
	sh -c "sed -n 's/^- step: //p' '$K/rebuild.yaml' | grep -qx pip-inspect"
check "and saves the file again" test "$(stat -c %Y.%y "$K/pip-inspect.json")" != "$before"
expect_exit 0 "the contract after it passes" quiet "$KD_BIN" check "$DEMO" --stage contract --quiet
rlog=$(sed -n 's/^  log: logs\(.*-pip-inspect.log\)$/\1/p' "$K/rebuild.yaml" | head -1)
check "the contract then names the rebuild's pip inspect log ($rlog)" \
	sh -c "test -n '$rlog' && grep -q 'log: logs$rlog' '$K/contract.yaml'"

# a check that stops at the rebuild (pip freeze's file cannot be written:
# a full disk) ends the pip inspect no stage will take
D2="$KD_TMP/demo2"
"$KD_BIN" demo "$D2" --create-only >/dev/null 2>&1
KD_FAULT_WRITE=installed-after.txt "$KD_BIN" check "$D2" --quiet >"$KD_TMP/f.out" 2>"$KD_TMP/f.err"
rc=$?
check "a full disk at pip freeze's file stops the check at the rebuild (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q 'stopped at stage 3 (rebuild)' '$KD_TMP/f.err'"
check "no contract ran" test ! -f "$D2/kernodeck/contract.yaml"
flog=$(ls "$D2/kernodeck/logs" | grep -- '-pip-inspect.log$' | head -1)
check "the pip inspect it had started has a log" test -n "$flog"
check "that log says how it ended (cancelled, or its exit)" \
	grep -Eq '^# kernodeck: (cancelled|exit [0-9]+)' "$D2/kernodeck/logs/$flog"
check "nothing of the venv is left running" sh -c "! pgrep -f '$D2/[.]venv-rebuild' >/dev/null"
check "no pip-inspect.json was saved for it" test ! -f "$D2/kernodeck/pip-inspect.json"
