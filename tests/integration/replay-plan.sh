# replay-plan.sh - the plan shows each argument unambiguously: an entry
# point with control bytes, spaces and quotes is shown as $'...' and '...'
# shell words, with no raw ESC or BEL on the terminal.  (That the plan's
# "$ ARGV" lines are the vectors the replay then runs, one for one, is
# checked on the demo's replay in demo-headless.sh, and with a base
# environment in rebuild-base.sh.)
. "$KD_SRCDIR/tests/lib.sh"
export HOME="$KD_TMP/home"
mkdir -p "$HOME"

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
