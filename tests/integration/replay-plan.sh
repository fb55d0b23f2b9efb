# replay-plan.sh - the plan is what runs: kernodeck replay shows every
# program it will run as the exact argument vector (one "$ ARGV" line each,
# shell words), and the runner's logs of the replay ("# kernodeck: run
# ARGV", written from the vector executed) name the same vectors, one for
# one, for the demo's dossier.  An entry point with control bytes, spaces
# and quotes is shown as unambiguous $'...' and '...' words, with no raw
# ESC or BEL on the terminal.
. "$KD_SRCDIR/tests/lib.sh"
need_python "replay plan" "Debian's python3-torch is not installed (apt-get install python3-torch)" torch numpy
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"
"$KD_BIN" demo "$DEMO" --create-only >/dev/null 2>&1
"$KD_BIN" check "$DEMO" >"$KD_TMP/check.out" 2>&1
check "the demo's dossier is written" test -f "$DEMO/kernodeck/dossier/SHA256SUMS"
W="$KD_TMP/work"
"$KD_BIN" replay "$DEMO/kernodeck/dossier" --workdir "$W" --yes >"$KD_TMP/r.out" 2>"$KD_TMP/r.err"
r=$?
check "the replay ran (exit 0)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -20 "$KD_TMP/r.err" | sed 's/^/# /'
sed -n 's/^    \$ //p' "$KD_TMP/r.err" | sort -u >"$KD_TMP/plan"
cat "$W"/kernodeck/logs/* 2>/dev/null | sed -n 's/^# kernodeck: run //p' | sort -u >"$KD_TMP/ran"
n=$(wc -l <"$KD_TMP/plan")
check "the plan names at least 8 commands ($n)" test "$n" -ge 8
check "every command run is in the plan, argument for argument" \
	sh -c "! comm -13 '$KD_TMP/plan' '$KD_TMP/ran' | grep -q ."
check "every command of the plan ran" sh -c "! comm -23 '$KD_TMP/plan' '$KD_TMP/ran' | grep -q ."
comm -3 "$KD_TMP/plan" "$KD_TMP/ran" | sed 's/^/# differs: /'
check "the plan's venv, install, probe and entry point are absolute, exact vectors" sh -c "
	grep -qx '/usr/bin/python3 -m venv --system-site-packages .venv-rebuild' '$KD_TMP/plan' &&
	grep -qx '$W/.venv-rebuild/bin/python -I -m pip install --timeout 15 --retries 1 -r requirements-rebuild.txt' '$KD_TMP/plan' &&
	grep -q '^$W/.venv-rebuild/bin/python .*/probe.py --expect cpu\$' '$KD_TMP/plan' &&
	grep -qx '$W/.venv-rebuild/bin/python embed.py --out outputs' '$KD_TMP/plan'"

# an entry point with an OSC 52 sequence, a BEL, a space and a quote: the
# plan quotes each argument (declined: no terminal, no --yes; nothing runs)
P="$KD_TMP/hostile"
git_project "$P"
{
	printf 'schema: 1\ncode:\n  commit: %s\n' "$(git -C "$P" rev-parse HEAD)"
	printf '  entry_point: [python, main.py, "a b", "it'"'"'s", "\\e]52;c;SGVsbG8=\\a"]\n'
	printf 'python:\n  interpreter: /usr/bin/python3\n'
	printf '  install:\n    system_site_packages: true\n    without_pip: true\nsystem:\n  backend: cpu\n'
} >"$P/kernodeck/reference.yaml"
"$KD_BIN" dossier "$P" >/dev/null 2>&1
"$KD_BIN" replay "$P/kernodeck/dossier" --workdir "$KD_TMP/w2" </dev/null >"$KD_TMP/h.out" 2>"$KD_TMP/h.err"
r=$?
check "a hostile entry point: the replay is declined without --yes (exit 1)" test "$r" -eq 1
check "its plan line quotes every argument, the controls visible" \
	grep -qxF "    \$ $KD_TMP/w2/.venv-rebuild/bin/python main.py 'a b' 'it'\\''s' \$'\\x1b]52;c;SGVsbG8=\\x07'" "$KD_TMP/h.err"
check "no raw ESC or BEL reached the terminal" sh -c "! cat '$KD_TMP/h.out' '$KD_TMP/h.err' | LC_ALL=C grep -q \"\$(printf '[\\033\\007]')\""
check "nothing ran: no work folder" test ! -e "$KD_TMP/w2"
