# replay-plan.sh - the plan shows each argument unambiguously: an entry
# point with control bytes, spaces and quotes is shown as $'...' and '...'
# shell words, with no raw ESC or BEL on the terminal.  (That the plan's
# "$ ARGV" lines are the vectors the replay then runs, one for one, is
# checked on the demo's replay in demo-headless.sh, and with a base
# environment in rebuild-base.sh.)  Stage 2's nvcc is the one in
# $CUDA_HOME, in the plan as in the run, when PATH has another.
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

# Stage 2 finds nvcc in $CUDA_HOME before PATH: the plan shows the nvcc
# that then runs, not the first on PATH (CI once had $CUDA_HOME set, the
# plan showed /usr/local/bin/nvcc and /usr/local/cuda/bin/nvcc ran).  The
# project writes a one-line CSV; the reference is captured under the same
# environment, so the replay passes and every stage's programs run.
P="$KD_TMP/cudahome"
mkdir -p "$P/kernodeck" "$P/reference"
printf 'import os\nos.makedirs("out", exist_ok=True)\nopen("out/r.csv", "w").write("k,v\\na,1\\n")\n' >"$P/main.py"
printf 'k,v\na,1\n' >"$P/reference/r.csv"
echo "# nothing to install: the system's Python" >"$P/requirements-rebuild.txt"
git -C "$P" init -q && git -C "$P" add . && git -C "$P" commit -qm init
{
	code_reference "$P"
	printf '  install:\n    system_site_packages: true\n    without_pip: true\nsystem:\n  backend: cpu\n'
	printf 'result:\n  format: csv\n  outputs: out\n  files: [r.csv]\n  count: 1\n'
	printf '  rule: {kind: exact}\n  example: {path: reference/r.csv}\n'
} >"$P/kernodeck/reference.yaml"
mkdir -p "$KD_TMP/cuda/bin" "$KD_TMP/onpath"
for d in "$KD_TMP/cuda/bin" "$KD_TMP/onpath"; do
	printf '#!/bin/sh\necho "Cuda compilation tools, release 12.4, V12.4.131"\n' >"$d/nvcc"
	chmod 755 "$d/nvcc"
done
(
	export CUDA_HOME="$KD_TMP/cuda" PATH="$KD_TMP/onpath:/usr/bin:/bin"
	"$KD_BIN" capture "$P" >/dev/null 2>&1 && "$KD_BIN" dossier "$P" >/dev/null 2>&1 &&
		"$KD_BIN" replay "$P/kernodeck/dossier" --workdir "$KD_TMP/wc" --yes </dev/null >"$KD_TMP/c.out" 2>"$KD_TMP/c.err"
)
r=$?
check "CUDA_HOME and another nvcc on PATH: capture, dossier and replay pass (exit 0, got $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || grep -v '^    ' "$KD_TMP/c.err" | tail -12 | sed 's/^/# /'
check "the plan shows \$CUDA_HOME's nvcc" grep -qxF "    \$ $KD_TMP/cuda/bin/nvcc --version" "$KD_TMP/c.err"
check "stage 2 recorded \$CUDA_HOME's nvcc" grep -qF "$KD_TMP/cuda/bin/nvcc" "$KD_TMP/wc/kernodeck/system.yaml"
plan_vs_logs "$KD_TMP/c.err" "$KD_TMP/wc" 8
