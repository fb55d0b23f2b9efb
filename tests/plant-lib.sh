# tests/plant-lib.sh - the demo of replay-plant.sh and replay-plant-read.sh:
# its entry point, once it has written its outputs, replaces the path
# KD_TEST_PLANT with a symbolic link to KD_TEST_OUTSIDE (only the replays
# of those tests set them); committed, checked, its dossier in $D.  Sourced
# after tests/lib.sh; skips the test without Debian's python3-torch.
PY=/usr/bin/python3
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
	skip "replay plant" "Debian's python3-torch is not installed (apt-get install python3-torch)"
	exit 0
fi
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"
OUTSIDE="$KD_TMP/outside"

expect_exit 0 "kernodeck demo DIR --create-only" "$KD_BIN" demo "$DEMO" --create-only
# the entry point plants the link named by KD_TEST_PLANT once it has
# written its outputs (only the replays below set it)
"$PY" - "$DEMO/embed.py" <<'PYEOF'
import sys
p = sys.argv[1]
t = open(p).read()
t = t.replace('if __name__ == "__main__":\n    main()\n', '''def plant():
    where, to = os.environ.get("KD_TEST_PLANT"), os.environ.get("KD_TEST_OUTSIDE")
    if where and to:
        if os.path.lexists(where):
            os.rename(where, where + ".moved")
        os.symlink(to, where)


if __name__ == "__main__":
    main()
    plant()
''')
open(p, "w").write(t)
PYEOF
old=$(git -C "$DEMO" rev-parse HEAD)
git -C "$DEMO" -c user.name=t -c user.email=t@t.invalid commit -qam "plant a link when asked"
new=$(git -C "$DEMO" rev-parse HEAD)
sed -i "s/$old/$new/" "$DEMO/kernodeck/reference.yaml"
check "the entry point plants a link when asked" grep -q "def plant" "$DEMO/embed.py"
"$KD_BIN" check "$DEMO" >"$KD_TMP/check.out" 2>"$KD_TMP/check.err"
r=$?
check "kernodeck check on the planting demo: exit 0 (it plants nothing there)" test "$r" -eq 0
[ "$r" -eq 0 ] || { grep -E "^[0-9] |^  fail" "$KD_TMP/check.out" | head; tail -5 "$KD_TMP/check.err"; } | sed 's/^/# /'
D="$DEMO/kernodeck/dossier"
