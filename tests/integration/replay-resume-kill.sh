#!/bin/sh
# kd-test: serial (timings: a run killed once its checkpoint is complete)
# replay-resume-kill.sh - the training demo with its resume check in kill
# mode (issue 26, points 3 and 5), replayed:
# - the step reader (the checkpoint reader's `step`, run each time the
#   interrupted run's checkpoint changes) is shown in the plan and logged
#   like every program the runner starts ("# kernodeck: run ARGV" in
#   logs/STAMP-resume-peek.log), so plan_vs_logs compares it too;
# - an entry point that, once resumed, replaces its final checkpoint and
#   its metrics file with symbolic links to those files moved outside the
#   work folder (read through, they would pass): the reads refuse each
#   link, naming it, and nothing outside is read;
# - the checkpoint reader itself follows no link at the checkpoint's path
#   (the link may be planted after kernodeck looked).
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
need_python replay-resume-kill "Debian's python3-torch (and yaml) is not there for /usr/bin/python3" \
	torch numpy yaml
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
DEMO="$KD_TMP/demo"
OUT="$KD_TMP/outside"
mkdir -p "$OUT"

expect_exit 0 "kernodeck demo DIR --training --create-only" "$KD_BIN" demo "$DEMO" --training --create-only
# each step takes KD_TEST_STEP_SLEEP seconds (so that the kill comes while
# the run goes on); a resumed run moves the files KD_TEST_PLANT names (in
# its --out) to KD_TEST_OUTSIDE and leaves a link to each in its place
"$PY" - "$DEMO/train.py" <<'PYEOF'
import sys
p = sys.argv[1]
t = open(p).read()
a = "                step += 1\n"
assert a in t
t = t.replace(a, a + "                __import__('time').sleep(float(os.environ.get('KD_TEST_STEP_SLEEP', '0')))\n")
a = "\n\nif __name__ == \"__main__\":\n"
assert a in t
t = t.replace(a, '''


def plant(args):
    import shutil
    names, to = os.environ.get("KD_TEST_PLANT"), os.environ.get("KD_TEST_OUTSIDE")
    if args.resume and names and to:
        for n in names.split(","):
            shutil.move(os.path.join(args.out, n), os.path.join(to, n))
            os.symlink(os.path.join(to, n), os.path.join(args.out, n))
''' + a)
open(p, "w").write(t)
PYEOF
"$PY" - "$DEMO/train.py" <<'PYEOF'
import sys
p = sys.argv[1]
t = open(p).read()
# main() parses its own arguments: plant with them, from inside
a = "    print(\"train.py: %d steps"
assert a in t
t = t.replace(a, "    plant(args)\n" + a, 1)
open(p, "w").write(t)
PYEOF
sed -i 's/^  interrupt: stop$/  interrupt: kill/' "$DEMO/kernodeck/reference.yaml"
old=$(git -C "$DEMO" rev-parse HEAD)
git -C "$DEMO" -c user.name=t -c user.email=t@t.invalid commit -qam "slow steps, plant links when asked"
new=$(git -C "$DEMO" rev-parse HEAD)
sed -i "s/$old/$new/" "$DEMO/kernodeck/reference.yaml"
check "the demo's resume check is in kill mode, its trainer plants links when asked" \
	sh -c "grep -q '^  interrupt: kill' '$DEMO/kernodeck/reference.yaml' && grep -q 'def plant' '$DEMO/train.py'"
export KD_TEST_STEP_SLEEP=0.2
"$KD_BIN" check "$DEMO" >"$KD_TMP/check.out" 2>"$KD_TMP/check.err"
r=$?
check "kernodeck check on the kill-mode training demo: exit 0" test "$r" -eq 0
[ "$r" -eq 0 ] || { grep -E "^[0-9] |^  fail" "$KD_TMP/check.out" | head; tail -5 "$KD_TMP/check.err"; } | sed 's/^/# /'
check "the interrupted run was killed at its checkpoint" grep -q "killed by kernodeck (SIGKILL) once the checkpoint recorded step" "$KD_TMP/check.out"
D="$DEMO/kernodeck/dossier"

# the plan is what runs, the step reader too
W="$KD_TMP/replay"
"$KD_BIN" replay "$D" --workdir "$W" --yes >"$KD_TMP/replay.out" 2>"$KD_TMP/replay.err"
r=$?
check "kernodeck replay of the kill-mode dossier: exit 0" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -20 "$KD_TMP/replay.err" | sed 's/^/# /'
plan_vs_logs "$KD_TMP/replay.err" "$W" 14
check "the plan shows the step reader on the interrupted run's checkpoint" \
	grep -q "^$W/.venv-rebuild/bin/python .*/ckpt-inventory.py step $W/kernodeck/resume/interrupted/ckpt-20.pt\$" "$KD_TMP/plan"
check "it ran, logged as '# kernodeck: run ARGV' (logs/*-resume-peek.log), the same vector" \
	sh -c "grep -q 'ckpt-inventory.py step ' '$KD_TMP/ran' && grep -q '^# kernodeck: run .*ckpt-inventory.py step ' '$W'/kernodeck/logs/*-resume-peek.log"

# links planted where the resume check reads: refused, named
W="$KD_TMP/replay-plant"
R="$KD_TMP/replay-plant.out"
env KD_TEST_PLANT=ckpt-40.pt,metrics.jsonl KD_TEST_OUTSIDE="$OUT" \
	timeout 600 "$KD_BIN" replay "$D" --workdir "$W" --yes </dev/null >"$R" 2>&1
r=$?
check "a resumed run that plants links: the replay does not pass (exit $r)" test "$r" -ne 0
check "the links were planted, the files moved outside (the case is real)" sh -c "
	test -L '$W/kernodeck/resume/interrupted/ckpt-40.pt' && test -L '$W/kernodeck/resume/interrupted/metrics.jsonl' &&
	test -f '$OUT/ckpt-40.pt' && test -f '$OUT/metrics.jsonl'"
for f in ckpt-40.pt metrics.jsonl; do
	check "the read of $f refused the link, named (sample.yaml)" grep -qF -- \
		"kernodeck/resume/interrupted/$f in the work folder $W is a symbolic link (to $OUT/$f): kernodeck follows no link" \
		"$W/kernodeck/sample.yaml"
done
check "and the replay stopped on the links" \
	grep -Eq "kernodeck/resume/interrupted/(ckpt-40\.pt|metrics\.jsonl) became a symbolic link" "$R"


# the checkpoint reader, given a link (planted after kernodeck looked),
# does not read through it
ln -s "$OUT/ckpt-40.pt" "$KD_TMP/link.pt"
for cmd in step inventory; do
	"$PY" "$KD_SRCDIR/share/ckpt-inventory.py" $cmd "$KD_TMP/link.pt" >"$KD_TMP/reader-$cmd.out" 2>&1
	check "ckpt-inventory.py $cmd on a link: refused, named, not read through" sh -c "grep -q 'follows no link' '$KD_TMP/reader-$cmd.out' && ! grep -q '\"step\": 40' '$KD_TMP/reader-$cmd.out'"
done
"$PY" "$KD_SRCDIR/share/ckpt-inventory.py" compare "$W/kernodeck/resume/uninterrupted/ckpt-40.pt" "$KD_TMP/link.pt" >"$KD_TMP/reader-compare.out" 2>&1
check "ckpt-inventory.py compare with a link: refused, named" grep -q "link.pt: OSError: .*follows no link" "$KD_TMP/reader-compare.out"
