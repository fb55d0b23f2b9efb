#!/bin/sh
# termout-raw.sh - no command prints a raw control byte: ESC, BEL, CR, a C1
# control or a byte that is not UTF-8 planted in a requirements line, a
# file name, a YAML string (its "\e" escape), the output of the entry point
# the lines of a replay plan, an act argument and the strings diff compares
# reaches stdout and stderr only in its
# visible form (\x1b, \u009b, ...), while the log keeps the raw bytes; the
# walkthrough, in tmux, does not take the window title from a YAML string.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
ESC=$(printf '\033')
# raw FILE: how many raw control bytes (C0 but tab and newline, DEL, C1 in
# UTF-8 or alone) or bytes that are not UTF-8 FILE holds
raw() {
	$PY - "$1" <<'PYEOF'
import re, sys
b = open(sys.argv[1], "rb").read()
n = len(re.findall(rb"[\x00-\x08\x0b-\x1f\x7f]", b))
t = b.decode("utf-8", "replace")
n += t.count("\ufffd") + len(re.findall("[\x80-\x9f\u202a-\u202e\u2066-\u2069]", t))
print(n)
PYEOF
}
# no_raw NAME FILE: the check, with the visible ESC asserted too
no_raw() {
	c=$(raw "$2")
	check "$1: no raw control byte in the output ($c)" test "$c" -eq 0
	check "$1: the ESC is shown as \\x1b" grep -qF '\x1b' "$2"
}
EVIL=$(printf 'x\033]0;PWNED\007\033]52;c;aGk=\007\033[2K\r\302\233\3612m\342\200\256\377y')

# a requirements file with a bad line that quotes the bytes
printf 'numpy==1.0\nbad %s ===\n' "$EVIL" >"$KD_TMP/req.txt"
"$KD_BIN" inspect requirements "$KD_TMP/req.txt" >"$KD_TMP/req.out" 2>&1
c=$(raw "$KD_TMP/req.out")
check "inspect requirements, a bad line: no raw control byte ($c)" test "$c" -eq 0
printf 'numpy==1.0
-r %s
' "$KD_TMP/inc-$EVIL" >"$KD_TMP/req2.txt"
"$KD_BIN" inspect requirements "$KD_TMP/req2.txt" >"$KD_TMP/req2.out" 2>&1
c=$(raw "$KD_TMP/req2.out")
check "inspect requirements, a missing include's name: no raw control byte ($c)" test "$c" -eq 0
"$KD_BIN" inspect collect-env "$KD_TMP/missing-$EVIL" >"$KD_TMP/ce.out" 2>&1
no_raw "inspect, a missing file's name" "$KD_TMP/ce.out"

# a file name, missing and present
"$KD_BIN" hash "$KD_TMP/missing-$EVIL" >"$KD_TMP/hash1.out" 2>&1
no_raw "hash, a missing file's name" "$KD_TMP/hash1.out"
echo data >"$KD_TMP/f-$EVIL"
"$KD_BIN" hash "$KD_TMP/f-$EVIL" >"$KD_TMP/hash2.out" 2>&1
no_raw "hash, a file's name in its line" "$KD_TMP/hash2.out"

# a project: an entry point that prints the bytes, a reference whose YAML
# strings hold them as escapes
P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
$PY -m venv --system-site-packages --without-pip "$P/.venv-rebuild"
cat >"$P/ep.py" <<'PYEOF'
import sys
sys.stdout.buffer.write(b"step \x1b]0;PWNED\x07 \x1b[2K\r\xc2\x9b31m \xff done\n")
PYEOF
{ cat <<'YEOF'
schema: 1
goal: "close-values \e]0;PWNED\a"
code:
  entry_point: [python, ep.py, "--tag=\e]0;PWNED\a\e[2K"]
result:
  outputs: "outputs\e[2K"
YEOF
ref_python_cpu; } >"$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage sample >"$KD_TMP/check.out" 2>&1
no_raw "check, the entry point's output streamed" "$KD_TMP/check.out"
check "check: the streamed line is there, visibly" grep -qF 'step \x1b]0;PWNED\x07' "$KD_TMP/check.out"
log=$(ls "$P"/kernodeck/logs/*-sample.log | head -n 1)
check "the log keeps the raw bytes" grep -q "$ESC]0;PWNED" "$log"
"$KD_BIN" check "$P" --stage sample --format yaml >"$KD_TMP/check.yaml" 2>&1
check "check --format yaml: no raw control byte ($(raw "$KD_TMP/check.yaml"))" \
	test "$(raw "$KD_TMP/check.yaml")" -eq 0
"$KD_BIN" check "$P" --stage reference >"$KD_TMP/ref.out" 2>&1
check "check of the reference: no raw control byte ($(raw "$KD_TMP/ref.out"))" \
	test "$(raw "$KD_TMP/ref.out")" -eq 0

# a YAML error on a line holding the bytes
printf 'schema: 1\ngoal: [%s\n' "$EVIL" >"$KD_TMP/bad.yaml"
mkdir -p "$KD_TMP/p2/kernodeck" && cp "$KD_TMP/bad.yaml" "$KD_TMP/p2/kernodeck/reference.yaml"
"$KD_BIN" check "$KD_TMP/p2" >"$KD_TMP/bad.out" 2>&1
check "a malformed reference: no raw control byte ($(raw "$KD_TMP/bad.out"))" \
	test "$(raw "$KD_TMP/bad.out")" -eq 0

# a replay plan: a requirements line with the bytes
R="$KD_TMP/rp"
git_project "$R"
printf 'numpy  # %s\n' "$EVIL" >"$R/requirements-rebuild.txt"
git -C "$R" add requirements-rebuild.txt && git -C "$R" commit -qm req
code_reference "$R" >"$R/kernodeck/reference.yaml"
"$KD_BIN" dossier "$R" >/dev/null 2>&1
"$KD_BIN" replay "$R/kernodeck/dossier" --workdir "$KD_TMP/w" </dev/null >"$KD_TMP/plan.out" 2>&1
check "replay plan: declined without a terminal" grep -q "not confirmed" "$KD_TMP/plan.out"
c=$(raw "$KD_TMP/plan.out")
check "replay plan: no raw control byte ($c)" test "$c" -eq 0

# act: an item name from the command line, in the refusal
"$KD_BIN" act "$P" --stage reference download "item$EVIL" >"$KD_TMP/act.out" 2>&1
no_raw "act, an unknown item's name" "$KD_TMP/act.out"

# diff: two dossiers whose data paths and entry points hold the bytes as
# YAML escapes
"$KD_BIN" dossier "$R" >/dev/null 2>&1
rm -rf "$KD_TMP/d2" && cp -a "$R/kernodeck/dossier" "$KD_TMP/d2"
$PY - "$KD_TMP/d2/dossier.yaml" <<'PYEOF'
import sys
p = sys.argv[1]
t = open(p).read()
t = t.replace("- main.py", '- "main\\e]0;PWNED\\a\\e]52;c;aGk=\\a\\e[2K\\r.py"')
open(p, "w").write(t)
PYEOF
"$KD_BIN" diff "$R/kernodeck/dossier" "$KD_TMP/d2" >"$KD_TMP/diff.out" 2>&1
check "diff: the changed entry point is listed, visibly" grep -qF 'main\x1b]0;PWNED\x07' "$KD_TMP/diff.out"
no_raw "diff, an entry point from a dossier" "$KD_TMP/diff.out"

# the walkthrough in tmux: the goal's OSC 0 does not become the title
if command -v tmux >/dev/null 2>&1; then
	. "$KD_SRCDIR/tests/tmux-lib.sh"
	tm_start 100 30 "$KD_BIN" "$P"
	sleep 2
	tm_screen >"$KD_TMP/screen.txt"
	title=$(tm display-message -p -t kd '#{pane_title}')
	tm_keys q
	tm_stop
	check "walkthrough: the window title is not set by a YAML string ($title)" \
		sh -c "! printf '%s' '$title' | grep -q PWNED"
	check "walkthrough: no raw control byte in the capture ($(raw "$KD_TMP/screen.txt"))" \
		test "$(raw "$KD_TMP/screen.txt")" -eq 0
else
	skip "walkthrough in tmux" "tmux is not installed"
fi
