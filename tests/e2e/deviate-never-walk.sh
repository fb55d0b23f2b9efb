#!/bin/sh
# tests/e2e/deviate-never-walk.sh - a check that can never be deviated (a
# credential found in the dossier, the dossier not written) is refused on
# the walkthrough's deviate key, clearly and before any question (issue 17,
# point 3): never "Deviation recorded" with the stage still failed; the
# state keeps no deviation, and deviate headless says the same.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "never deviated: d on a credential row" "never deviated: d on dossier.written" \
	"never deviated: the state"

# a project whose reference holds a token of a known shape: the dossier's
# scan finds it and refuses to write the dossier
P="$KD_TMP/project"
git_project "$P" >/dev/null 2>&1
code_reference "$P" >"$P/kernodeck/reference.yaml"
TOKEN=ghp_1234567890abcdefghijABCDEFGHIJ123456
printf 'goal: close-values\nresult:\n  criterion: same output (token %s)\n' "$TOKEN" \
	>>"$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage dossier >"$KD_TMP/check.out" 2>&1
check "never deviated: the dossier stage fails on the credential" \
	grep -q 'fail dossier.secret.1 .*github-token' "$KD_TMP/check.out"
S=$P/kernodeck/state.yaml
sed -i 's/^current: .*/current: dossier/' "$S"
cp "$S" "$KD_TMP/state.before"

# 1. d on the credential row: refused at once, with why and what to do
tm_walk 100 30 "$P"
check "never deviated: the dossier stage opens" tm_wait "7/7 Dossier"
# the dossier stage has no fields: its checks table has the focus
check "never deviated: the credential row is selected" tm_wait "dossier.secret.1 │"
tm_keys d
check "never deviated: d on a credential row is refused" tm_wait "cannot take a deviation"
tm_screen >"$KD_TMP/refused"
# the box's text, its lines joined (the stage column left of it dropped)
flat=$(sed -n '/┌─ This check/,/└─/p' "$KD_TMP/refused" | awk -F'│' 'NF > 2 { print $(NF-1) }' |
	tr -s ' \n' '  ')
case "$flat" in *"dossier.secret.1 can never be deviated"*"no deviation lets a credential"*) r=0;; *) r=1;; esac
check "never deviated: ... saying why, with the check named" test $r -eq 0
case "$flat" in *"take the value out"*"leave the file out"*) r=0;; *) r=1;; esac
check "never deviated: ... and what to do instead" test $r -eq 0
check "never deviated: no question asked (no 1/3 What differs)" \
	sh -c "! grep -q 'What differs' '$KD_TMP/refused'"
tm_keys Enter
check "never deviated: the box closes on a key" tm_gone "cannot take a deviation"
tm_screen >"$KD_TMP/after"
check "never deviated: no \"Deviation recorded\"" sh -c "! grep -q 'Deviation recorded' '$KD_TMP/after'"
check "never deviated: the stage is still failed, with no deviation" \
	sh -c "grep -q 'Status: failed' '$KD_TMP/after' && grep -q 'Deviations: 0' '$KD_TMP/after'"

# 2. dossier.written (the last row) is refused the same way
tm_keys j
tm_keys j
tm_keys j
check "never deviated: dossier.written is selected" tm_wait "dossier.written │"
tm_keys d
check "never deviated: d on dossier.written is refused" tm_wait "dossier.written can never be deviated"
tm_keys Enter
tm_gone "cannot take a deviation" >/dev/null
tm_keys q
check "never deviated: quits cleanly" tm_wait "kd-exited-with-0"
tm_stop

# 3. the state holds no deviation; deviate headless refuses the same way
check "never deviated: the state holds no deviation" sh -c "! grep -q 'why:' '$S'"
"$KD_BIN" deviate "$P" --stage dossier --check dossier.secret.1 --why "we know" \
	>"$KD_TMP/dev.out" 2>"$KD_TMP/dev.err"
check "never deviated: deviate headless exits 2" test $? -eq 2
check "never deviated: ... saying the check can never be deviated" \
	grep -q "dossier.secret.1 can never be deviated" "$KD_TMP/dev.err"
check "never deviated: ... and says nothing was recorded (no \"recorded\")" \
	sh -c "! grep -qi 'deviation recorded' '$KD_TMP/dev.out' '$KD_TMP/dev.err'"
check "never deviated: the state still holds no deviation" sh -c "! grep -q 'why:' '$S'"
check "never deviated: the token is in no file kernodeck wrote" \
	sh -c "! grep -rlF '$TOKEN' '$P/kernodeck' | grep -v '/reference.yaml\$' | grep -q ."
