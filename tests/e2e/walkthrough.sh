# tests/e2e/walkthrough.sh - the walkthrough end to end, in a private tmux
# server at 80x24: a fresh project, moving between stages, an advance
# refused, a deviation recorded through the dialog, advancing, quitting,
# and a restart that finds the same stage, deviation and note.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "walkthrough: fresh start" "walkthrough: advance refused" "walkthrough: unchanged" \
	"walkthrough: deviation dialog" "walkthrough: advance" "walkthrough: resume"

P="$KD_TMP/project"
mkdir -p "$P"

# 1. A fresh project opens at stage 1 and creates its kernodeck folder.
tm_walk 80 24 "$P"
check "walkthrough: fresh start opens stage 1" tm_wait "1/7 Reference"
check "walkthrough: fresh start creates the kernodeck folder" test -d "$P/kernodeck"
tm_keys p
check "walkthrough: p on the first stage says there is none before" \
	tm_wait "This is the first stage"

# 2. n on a stage never checked says why; the key that closes the notice
#    is not lost: r closes it and runs the checks (issue 17, point 8).
tm_keys n
check "walkthrough: n on a pending stage says why" tm_wait "has not been checked yet: run its checks (r)"
tm_keys r
check "walkthrough: r after the refusal closes it" tm_gone "Cannot go to the next"
# Run the checks; the advance is refused while checks fail.
check "walkthrough: ... and runs the checks (r fills the checks table)" tm_wait "FAIL"
check "walkthrough: the stage column marks stage 1 failed" tm_wait "! 1 Reference"
tm_keys n
check "walkthrough: advance refused on a failing stage" tm_wait "Cannot go to the next stage yet"
check "walkthrough: the refusal says how to record a deviation" tm_wait "record a deviation"
tm_keys Escape
check "walkthrough: Esc closes the refusal" tm_gone "Cannot go to the next"
tm_keys q
check "walkthrough: q quits with status 0" tm_wait "kd-exited-with-0"
tm_stop

# 3. All failing checks but the first get a deviation headless; the last
#    one goes through the dialog.
"$KD_BIN" check "$P" --stage reference --format json >"$KD_TMP/check.json" 2>/dev/null
/usr/bin/python3 - "$KD_TMP/check.json" >"$KD_TMP/failing" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["stages"][0]["rows"]
for r in rows:
    if r["status"] in ("fail", "warn"):
        print(r["id"])
PY
first=$(head -n 1 "$KD_TMP/failing")
check "walkthrough: stage 1 has failing checks to deviate" [ -n "$first" ]
tail -n +2 "$KD_TMP/failing" | while read -r id; do
	"$KD_BIN" deviate "$P" --stage reference --check "$id" --why "e2e: recorded headless" \
		>/dev/null 2>&1 || echo "deviate $id failed"
done >"$KD_TMP/deviate.out"
check "walkthrough: headless deviations recorded" [ ! -s "$KD_TMP/deviate.out" ]

tm_walk 80 24 "$P"
tm_wait "1/7 Reference" >/dev/null
tm_keys n
check "walkthrough: advance still refused, naming the last check" tm_wait "$first"
tm_keys Escape
tm_gone "Cannot go to the next" >/dev/null
tm_keys d
check "walkthrough: d opens the deviation dialog on the selected check" \
	tm_wait "Deviation for $first"
check "walkthrough: the dialog asks what differs first" tm_wait "1/3 What differs"
tm_keys Enter
check "walkthrough: then why" tm_wait "2/3 Why"
tm_keys Enter
check "walkthrough: an empty why is refused" tm_wait "A deviation needs a reason"
tm_keys -l "accepted for the e2e test"
tm_keys Enter
check "walkthrough: then whether it is intentional" tm_wait "3/3 Is this difference intentional"
tm_keys y
check "walkthrough: deviation dialog records it" tm_wait "Deviation recorded for $first"
check "walkthrough: the stage is now deviation" tm_wait "Status: deviation"

# 4. Advance, go back, advance again.
tm_keys n
check "walkthrough: advance to stage 2" tm_wait "2/7 System"
check "walkthrough: stage 1 is marked deviation (~)" tm_wait "~ 1 Reference"
tm_keys p
check "walkthrough: p goes back to stage 1" tm_wait "1/7 Reference"
tm_keys n
tm_wait "2/7 System" >/dev/null
tm_keys N
tm_wait "Notes: System" >/dev/null
tm_keys a
tm_keys -l "note from the e2e test"
tm_keys Enter
check "walkthrough: a note is added" tm_wait "Note added"
tm_keys Escape
tm_keys q
check "walkthrough: q quits cleanly" tm_wait "kd-exited-with-0"
tm_stop

# 5. The state on disk, and a restart that resumes there.
check "walkthrough: state.yaml records the current stage" grep -q "^current: system" "$P/kernodeck/state.yaml"
check "walkthrough: state.yaml keeps the dialog's deviation" grep -q "accepted for the e2e test" "$P/kernodeck/state.yaml"
check "walkthrough: state.yaml keeps the note" grep -q "note from the e2e test" "$P/kernodeck/state.yaml"
tm_walk 80 24 "$P"
check "walkthrough: resume at the stage where it stopped" tm_wait "2/7 System"
check "walkthrough: resume keeps stage 1's deviation" tm_wait "~ 1 Reference"
check "walkthrough: resume keeps the note" tm_wait "note from the"
tm_keys p
tm_wait "1/7 Reference" >/dev/null
check "walkthrough: resume keeps the dialog's deviation in the table" tm_wait "dev "
tm_keys q
check "walkthrough: quits with status 0" tm_wait "kd-exited-with-0"
tm_stop

# 6. A session that changes nothing leaves state.yaml as it was (not even
#    rewritten with the same text); one that moves to another stage saves.
cp "$P/kernodeck/state.yaml" "$KD_TMP/state.before"
ino=$(stat -c %i "$P/kernodeck/state.yaml")
tm_walk 80 24 "$P"
tm_wait "1/7 Reference" >/dev/null
tm_keys q
check "walkthrough: unchanged: quits with status 0" tm_wait "kd-exited-with-0"
tm_stop
check "walkthrough: unchanged: state.yaml not rewritten" \
	[ "$(stat -c %i "$P/kernodeck/state.yaml")" = "$ino" ]
check "walkthrough: unchanged: state.yaml the same" cmp -s "$KD_TMP/state.before" "$P/kernodeck/state.yaml"
tm_walk 80 24 "$P"
tm_wait "1/7 Reference" >/dev/null
tm_keys n
tm_wait "2/7 System" >/dev/null
tm_keys q
check "walkthrough: changed: quits with status 0" tm_wait "kd-exited-with-0"
check "walkthrough: changed: state.yaml records the stage moved to" \
	grep -q "^current: system" "$P/kernodeck/state.yaml"
