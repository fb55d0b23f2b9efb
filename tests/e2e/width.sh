# tests/e2e/width.sh - the checks table and the detail view use the
# terminal (issue 17, points 9 and 10): at 120 columns a check's name is
# not cut; "Checks (N)" counts the rows shown; at 80x24 the detail wraps
# the first error, the hint and the deviation instead of cutting them; the
# rebuild lint's evidence is the project's rebuild file, and o opens it; a
# passing check has no "First error"; a stage made stale by a change of
# the reference shows "stale", never its old failure.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "width: 120 columns" "width: detail 80x24" "width: evidence" "width: stale" "withdraw: W"

P="$KD_TMP/project"
git_project "$P" >/dev/null 2>&1
code_reference "$P" >"$P/kernodeck/reference.yaml"
printf -- '--index-url https://bob:hunter2@example.org/simple\nsix==1.16.0\n' >"$P/requirements-rebuild.txt"
"$KD_BIN" check "$P" --stage reference >/dev/null 2>&1
"$KD_BIN" check "$P" --stage system --force >/dev/null 2>&1
"$KD_BIN" check "$P" --stage rebuild --force >/dev/null 2>&1
WHY="the index of this e2e test is not reachable and its password is a fake one, kept only to show that the detail view wraps a long deviation"
"$KD_BIN" deviate "$P" --stage rebuild --check rebuild.lint.credential --why "$WHY" >/dev/null 2>&1
"$KD_BIN" deviate "$P" --stage rebuild --check rebuild.install --why "not run in this test" >/dev/null 2>&1
S=$P/kernodeck/state.yaml
sed -i 's/^current: .*/current: rebuild/' "$S"
cat >"$KD_TMP/pager.sh" <<EOS
#!/bin/sh
printf '%s\n' "\$@" >"$KD_TMP/pager.args"
EOS
chmod +x "$KD_TMP/pager.sh"

# 1. 120 columns: whole names; the count is the rows shown
tm_start_env 120 60 "TERM=xterm-256color NO_COLOR=1 PAGER='$KD_TMP/pager.sh'" "$KD_BIN" "$P"
check "width: the rebuild stage opens" tm_wait "3/7 Rebuild"
check "width: at 120 columns a check's name is whole" tm_wait "no credential in the rebuild file"
tm_screen >"$KD_TMP/s120"
n=$(sed -n 's/.*── Checks (\([0-9]*\)).*/\1/p' "$KD_TMP/s120")
shown=$(sed -n '/── Checks (/,/── Log/p' "$KD_TMP/s120" | grep -cE '│ [>· ] (pass|FAIL|warn|dev|info|stale) ')
check "width: Checks ($n) counts the $shown rows shown" test "$n" = "$shown" -a "$n" -gt 0
tm_stop

# 2. 80x24: the detail of the lint row wraps everything; its evidence is
#    the project's rebuild file and o opens that file
tm_start_env 80 24 "TERM=xterm-256color NO_COLOR=1 PAGER='$KD_TMP/pager.sh'" "$KD_BIN" "$P"
tm_wait "3/7 Rebuild" >/dev/null
tm_keys j
tm_keys Enter
check "width: the detail opens" tm_wait "Check detail"
tm_screen >"$KD_TMP/d80"
flat=$(sed -n '/Check detail/,/Log excerpt/p' "$KD_TMP/d80" | sed 's/^ *│ *//; s/ *│ *$//; s/^ \{0,12\}//' | tr '\n' ' ' | tr -s ' ')
case "$flat" in *"never keep the value in the file"*"never keep the value in the file"*) r=0;; *) r=1;; esac
check "width: at 80x24 the first error and the hint are whole" test $r -eq 0
case "$flat" in *"Deviation"*"wraps a long deviation"*) r=0;; *) r=1;; esac
check "width: ... and the deviation line is there, whole" test $r -eq 0
check "width: the evidence is the project's rebuild file" grep -q "$P/requirements-rebuild.txt" "$KD_TMP/d80"
tm_keys o
sleep 0.5
check "width: o opens the project's rebuild file" grep -qx "$P/requirements-rebuild.txt" "$KD_TMP/pager.args"
tm_keys Escape
tm_gone "Check detail" >/dev/null
# a passing check (the requirements file is present) has no First error
tm_keys k
tm_keys Enter
tm_wait "Check detail" >/dev/null
tm_screen | grep -q "First error" && notok "width: a passing check shows First error" || ok "width: a passing check shows no First error"
tm_stop

# 3. the reference changes: rebuild (advanced with deviations) is stale,
#    its old failure is not shown
printf 'strict: false\n' >>"$P/kernodeck/reference.yaml"
tm_start_env 120 40 "TERM=xterm-256color NO_COLOR=1" "$KD_BIN" "$P"
tm_wait "3/7 Rebuild" >/dev/null
check "width: a stale stage says so above its checks" tm_wait "stale: results of before the change"
tm_screen >"$KD_TMP/stale"
check "width: its rows show stale, no old FAIL or pass" sh -c "grep -q ' stale  *no credential' '$KD_TMP/stale' && ! sed -n '/── Checks/,/── Log/p' '$KD_TMP/stale' | grep -qE ' (FAIL|pass|dev) '"
tm_keys q
tm_stop

# 4. W in a check's detail takes its deviation back, after a yes (point 3)
tm_start_env 80 24 "TERM=xterm-256color NO_COLOR=1" "$KD_BIN" "$P"
tm_wait "3/7 Rebuild" >/dev/null
tm_keys j
tm_keys Enter
tm_wait "Check detail" >/dev/null
tm_keys W
check "withdraw: W asks first" tm_wait "Take back the deviation recorded for rebuild.lint.credential"
tm_keys y
check "withdraw: ... and says it is done" tm_wait "withdrawn"
tm_keys Escape
tm_keys q
tm_wait "kd-exited-with-0" >/dev/null
check "withdraw: the state no longer holds it" sh -c "! grep -q 'wraps a long deviation' '$S'"
tm_stop
