#!/bin/sh
# tests/bench/full.sh - the demo's first `kernodeck check` (all seven stages,
# from no venv) against the same sequence run by hand (issue 13): venv
# (--system-site-packages, as the demo's reference says), pip --version,
# pip install -r requirements-rebuild.txt, pip check, pip freeze --all, a
# torch matrix product, the entry point.  Each run starts from a fresh copy
# of the demo (made outside the timing); the two are interleaved (A B A B
# ...) so that a change of load hits both alike; medians of KD_BENCH_RUNS
# (default 5).  Target: kernodeck at most 1.05x the sequence.
#
# Usage: sh tests/bench/full.sh   (KD_BIN, KD_BENCH_RUNS: see lib.sh).
# Needs Debian's python3-torch, python3-numpy, python3-venv, python3-pip.
. "$(dirname "$0")/lib.sh"
bench_init full
RUNS=${KD_BENCH_RUNS:-5}
[ "$QUICK" = 1 ] && RUNS=2
"$PY" -c 'import venv, pip, torch, numpy' 2>/dev/null || {
	echo "full.sh: $PY needs venv, pip, torch and numpy (python3-venv python3-pip python3-torch)" >&2
	exit 3
}
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset VIRTUAL_ENV PYTHONHOME PYTHONPATH PIP_USER PIP_INDEX_URL PIP_EXTRA_INDEX_URL \
	PIP_FIND_LINKS PIP_NO_INDEX 2>/dev/null || true
"$KD_BIN" demo "$W/template" --create-only >/dev/null

"$PY" - "$KD_BIN" "$W" "$RUNS" <<'PY'
import os, shutil, statistics, subprocess, sys, time
kd, w, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
tpl = os.path.join(w, "template")
def fresh(name):
    d = os.path.join(w, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(tpl, d, symlinks=True)
    return d
def kernodeck(d):
    r = subprocess.run([kd, "check", d, "--quiet"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit("full.sh: kernodeck check %s exited %d" % (d, r.returncode))
def by_hand(d):
    py = os.path.join(d, ".venv-rebuild/bin/python")
    steps = [
        ["/usr/bin/python3", "-m", "venv", "--system-site-packages", ".venv-rebuild"],
        [py, "-m", "pip", "--version"],
        [py, "-m", "pip", "install", "-r", "requirements-rebuild.txt"],
        [py, "-m", "pip", "check"],
        [py, "-m", "pip", "freeze", "--all"],
        [py, "-c", "import torch; a = torch.ones(64, 64); print(float((a @ a).sum()))"],
        [py, "embed.py", "--out", "outputs"],
    ]
    with open(os.path.join(d, "by-hand.log"), "wb") as log:
        for argv in steps:
            r = subprocess.run(argv, cwd=d, stdout=log, stderr=subprocess.STDOUT)
            # pip check reports Debian's own packages too: read, not fatal
            if r.returncode != 0 and argv[-1] != "check":
                sys.exit("full.sh: %s exited %d" % (" ".join(argv), r.returncode))
a, b = [], []
for i in range(runs):
    for name, fn, acc in (("kd", kernodeck, a), ("hand", by_hand, b)):
        d = fresh("%s-%d" % (name, i))
        t = time.monotonic()
        fn(d)
        acc.append(time.monotonic() - t)
        shutil.rmtree(d, ignore_errors=True)
ma, mb = statistics.median(a), statistics.median(b)
load = os.getloadavg()[0]
print("| what | input | kernodeck | alternative | ratio (wall) | target | met | load |")
print("|---|---|---|---|---|---|---|---|")
print("| demo, first check | 7 stages, from no venv | %.2f s | %.2f s | %.3f | <= 1.05 | %s | %.1f |"
      % (ma, mb, ma / mb, "yes" if ma / mb <= 1.05 else "no", load))
print("- runs (s): kernodeck %s; by hand %s" % (" ".join("%.2f" % x for x in a),
      " ".join("%.2f" % x for x in b)))
PY
