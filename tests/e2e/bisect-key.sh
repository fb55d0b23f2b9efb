# tests/e2e/bisect-key.sh - the sample screen's B key (issue 29, point 5):
# on a project whose sample differs from a dossier's, B asks for the
# dossier (a folder without dossier.yaml is refused in the dialog), runs
# the same bisect as `kernodeck bisect DOSSIER`, and shows its table: the
# env layer makes the difference vanish and names the variable.  The
# project is made to be quick: an entry point run by /usr/bin/python3 (no
# venv) whose output moves in its last bit when OMP_NUM_THREADS is 3, as
# it was on the dossier's machine.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "bisect key: dialog" "bisect key: not a dossier" "bisect key: table" "bisect key: message"
need_python "bisect key: table" "NumPy is needed" numpy
P="$KD_TMP/project"
D="$KD_TMP/dossier"
mkdir -p "$P/kernodeck" "$D/outputs"
cat >"$P/make.py" <<'PYEOF'
import os
import numpy as np
os.makedirs("out", exist_ok=True)
v = np.ones((2, 2), dtype=np.float64)
if os.environ.get("OMP_NUM_THREADS") == "3":
    v[1, 1] += 1e-12
np.save("out/r.npy", v)
PYEOF
cat >"$P/kernodeck/reference.yaml" <<'YEOF'
schema: 1
code:
  entry_point: [/usr/bin/python3, make.py]
result:
  format: npy
  outputs: out
  files: [r.npy]
  rule: {kind: tolerance, atol: 1.0e-9, rtol: 0, justification: a test}
YEOF
# the dossier's machine: OMP_NUM_THREADS=3
(cd "$P" && OMP_NUM_THREADS=3 /usr/bin/python3 make.py && mv out/r.npy "$D/outputs/" && rmdir out)
printf 'schema: 1\nkind: kernodeck-dossier\nenvironment:\n  OMP_NUM_THREADS: "3"\nstages: []\n' \
	>"$D/dossier.yaml"
(cd "$D" && sha256sum dossier.yaml outputs/r.npy >SHA256SUMS)
env -u OMP_NUM_THREADS "$KD_BIN" check "$P" --stage sample --force --quiet >/dev/null 2>&1
sed -i 's/^current: .*/current: sample/' "$P/kernodeck/state.yaml"

tm_start_env 120 40 "NO_COLOR=1 TERM=xterm-256color OMP_NUM_THREADS=" env -u OMP_NUM_THREADS "$KD_BIN" "$P"
tm_wait "6/7 Sample" 10 >/dev/null
tm_keys B
if tm_wait "Why the sample differs: bisect" 5 >/dev/null; then
	ok "bisect key: B opens the dialog"
else
	notok "bisect key: dialog"; tm_screen | sed 's/^/# /'
fi
tm_keys -l "$KD_TMP"
tm_keys Enter
check "bisect key: a folder without dossier.yaml is refused in the dialog" \
	sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'No dossier.yaml in that folder'"
tm_keys C-u
tm_keys -l "$D"
tm_keys Enter
if tm_wait "explained by env: OMP_NUM_THREADS" 60 >/dev/null &&
	tm_screen | grep -q 'env       vanishes'; then
	ok "bisect key: the table, the env layer and the variable named"
else
	notok "bisect key: table"; tm_screen | sed 's/^/# /'
fi
tm_keys Escape
sleep 0.5
check "bisect key: the message line says it was explained" \
	sh -c "tmux -S '$TMUX_SOCK' capture-pane -p -t kd | grep -q 'bisect: explained'"
check "bisect key: the report kept in kernodeck/bisect/bisect.yaml" \
	grep -q OMP_NUM_THREADS "$P/kernodeck/bisect/bisect.yaml"
tm_keys q
