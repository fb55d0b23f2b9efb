# tests/e2e/editor.sh - E opens reference.yaml in $EDITOR, split into
# arguments without a shell; a file that no longer loads is reported with
# its line, kept as written, and protected from being overwritten; a fixed
# file is loaded again and changes the reference identity.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "editor: arguments" "editor: broken file" "editor: fixed file"

P="$KD_TMP/project"
mkdir -p "$P"
cat >"$KD_TMP/ed.sh" <<EOS
#!/bin/sh
# a fake editor: records its arguments, writes what ed.mode says
: >"$KD_TMP/ed.args"
for a in "\$@"; do printf '%s\n' "\$a" >>"$KD_TMP/ed.args"; done
for last in "\$@"; do :; done
case \$(cat "$KD_TMP/ed.mode") in
broken) printf 'goal: close-values\ncode:\n  entry_point: [python, x.py\n' >"\$last";;
fix) printf 'goal: same-categories\n' >"\$last";;
esac
EOS
chmod +x "$KD_TMP/ed.sh"

echo broken >"$KD_TMP/ed.mode"
tm_start_env 80 24 "TERM=xterm-256color NO_COLOR=1 EDITOR='$KD_TMP/ed.sh \"two words\" --flag'" \
	"$KD_BIN" "$P"
tm_wait "1/7 Reference" >/dev/null
ref0=$(tm_screen | sed -n '1s/.*ref \([0-9a-f]\{12\}\).*/\1/p')
tm_keys E
check "editor: a file that does not load is reported" tm_wait "reference.yaml does not load"
check "editor: the report names the line" sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'reference.yaml:[0-9]'"
printf 'two words\n--flag\n%s\n' "$P/kernodeck/reference.yaml" >"$KD_TMP/args.want"
check "editor: \$EDITOR split into words without a shell, file last" cmp -s "$KD_TMP/args.want" "$KD_TMP/ed.args"
tm_keys n
check "editor: the error stays in the message line" tm_wait "reference.yaml:"
check "editor: the broken file is kept as written" grep -q "x.py$" "$P/kernodeck/reference.yaml"
tm_keys e
check "editor: field edits are refused while the file is broken" tm_wait "Fix reference.yaml with E first"
check "editor: and the file is not overwritten" grep -q "x.py$" "$P/kernodeck/reference.yaml"
tm_keys r
check "editor: running checks is refused while the file is broken" tm_wait "Fix reference.yaml with E before"

echo fix >"$KD_TMP/ed.mode"
tm_keys E
check "editor: a fixed file is loaded again" tm_wait "reference.yaml changed"
ref1=$(tm_screen | sed -n '1s/.*ref \([0-9a-f]\{12\}\).*/\1/p')
check "editor: the reference identity changed ($ref0 -> $ref1)" [ -n "$ref1" ] && [ "$ref0" != "$ref1" ]
check "editor: the form shows the new value" tm_wait "same-categories"
tm_keys q
check "editor: quits cleanly" tm_wait "kd-exited-with-0"

tm_start_env 80 24 "TERM=xterm-256color NO_COLOR=1 EDITOR=/nonexistent/editor" "$KD_BIN" "$P"
tm_wait "1/7 Reference" >/dev/null
tm_keys E
check "editor: an editor that cannot start is reported" tm_wait "could not be started"
check "editor: and the walkthrough goes on" tm_alive
tm_keys q
check "editor: quits with status 0" tm_wait "kd-exited-with-0"

# another editor changes reference.yaml while the walkthrough is open: it is
# read again before any key acts (as after E): the identity in the header
# changes and the checked stages turn stale
tui_require "outside: the change is noticed"
Q="$KD_TMP/outside"
mkdir -p "$Q"
"$KD_BIN" check "$Q" --init --stage reference --quiet --format json >"$KD_TMP/o.json" 2>/dev/null
for id in $(/usr/bin/python3 -c "
import json; r=json.load(open('$KD_TMP/o.json'))
print(' '.join(x['id'] for x in r['stages'][0]['rows'] if x['status']=='fail'))"); do
	"$KD_BIN" deviate "$Q" --stage reference --check "$id" --why "test: kept empty" >/dev/null
done
tm_walk 80 24 "$Q"
tm_wait "1/7 Reference" >/dev/null
ref0=$(tm_screen | sed -n '1s/.*ref \([0-9a-f]\{12\}\).*/\1/p')
check "outside: the stage was checked (deviation) before the change" tm_wait "deviation, checked"
printf 'schema: 1\ngoal: same-categories\n' >"$Q/kernodeck/reference.yaml.new"
mv "$Q/kernodeck/reference.yaml.new" "$Q/kernodeck/reference.yaml"
check "outside: the change is noticed without a key" tm_wait "reference.yaml changed outside the walkthrough" 5
ref1=$(tm_screen | sed -n '1s/.*ref \([0-9a-f]\{12\}\).*/\1/p')
check "outside: the identity in the header changed ($ref0 -> $ref1)" [ -n "$ref1" ] && [ "$ref0" != "$ref1" ]
check "outside: the checked stage is stale" tm_wait "stale: run again (r)"
check "outside: the form shows the new value" tm_wait "same-categories"
check "outside: state.yaml records the stale stage" sh -c "grep -A1 '^  reference:' '$Q/kernodeck/state.yaml' | grep -q 'status: stale'"
tm_keys q
check "outside: quits with status 0" tm_wait "kd-exited-with-0"
