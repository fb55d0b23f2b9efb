#!/bin/sh
# kd-test: serial (run alone: see tests/run-all.sh)
# Bounded checkpoint reading and the memory limit of every run (issue 25,
# point 4).  Hostile checkpoints in torch.save's zip format
# (tests/helpers/hostile-ckpt.py: a stride-0 view over a huge shape, a
# shape its storage cannot hold, a deflated gigabyte, a member whose
# directory entry declares 3 GB) are each refused by the checkpoint reader,
# naming why, its peak memory under 200 MB (/usr/bin/time -v); an honest
# one from the same writer is read.  An entry point that allocates more
# than KD_MEMORY_LIMIT is ended and its row says the limit was reached and
# by which means: a cgroup where one is writable here, and RLIMIT_AS under
# KD_NO_CGROUP=1; the run's log states the limit.  The default limit is
# never set as RLIMIT_AS (CUDA reserves far more address space than it
# uses): with no cgroup and no KD_MEMORY_LIMIT the entry point runs.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/integration/resume-lib.inc"
INV="$KD_SRCDIR/share/ckpt-inventory.py"
H="$KD_TMP/hostile"
$PY "$KD_SRCDIR/tests/helpers/hostile-ckpt.py" "$H"

peak_kb() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
for c in stride0:"stride-0 or overlapping view over a larger shape" hugeshape:"a shape larger than its storage" \
	 bomb:"declared 1073741824 bytes, compressed" oversized:"declared 3000000000 bytes"; do
	f=${c%%:*}
	why=${c#*:}
	/usr/bin/time -v "$PY" "$INV" inventory "$H/$f.pt" >"$KD_TMP/$f.out" 2>"$KD_TMP/$f.time"
	check "$f.pt: refused as too large, naming why" sh -c "grep -q '\"too_large\": true' '$KD_TMP/$f.out' && grep -qF -- '$why' '$KD_TMP/$f.out'"
	kb=$(peak_kb "$KD_TMP/$f.time")
	check "$f.pt: refused within 200 MB (peak ${kb:-?} kB)" test "${kb:-999999}" -lt 204800
	/usr/bin/time -v "$PY" "$INV" compare "$H/fine.pt" "$H/$f.pt" >"$KD_TMP/$f.cmp" 2>"$KD_TMP/$f.ctime"
	kb=$(peak_kb "$KD_TMP/$f.ctime")
	check "$f.pt: compare refuses it too, within 200 MB (peak ${kb:-?} kB)" sh -c "grep -q '\"too_large\": true' '$KD_TMP/$f.cmp' && test '${kb:-999999}' -lt 204800"
done
"$PY" "$INV" inventory "$H/fine.pt" >"$KD_TMP/fine.out" 2>&1
check "an honest checkpoint of the same writer is read" grep -q '"ok": true' "$KD_TMP/fine.out"
check "the stride-0 view of a real torch.save (expand) is refused too" "$PY" - "$INV" "$KD_TMP" <<'PYEOF'
import subprocess, sys, torch
p = sys.argv[2] + "/expand.pt"
torch.save({"w": torch.zeros(1).expand(50000, 50000)}, p)
out = subprocess.run([sys.executable, sys.argv[1], "inventory", p], capture_output=True, text=True).stdout
assert '"too_large": true' in out, out
PYEOF

# an entry point past the memory limit
toy_project
cat >"$P/kernodeck/reference.yaml" <<'YEOF'
schema: 1
code:
  entry_point: [python, -c, "import os; x = bytearray(1 << 30); x[::4096] = b'x' * len(x[::4096]); print('allocated')"]
result:
  format: npy
  outputs: outputs
  files: [out.npy]
  count: 1
  shape: [2, 2]
  dtype: float32
  rule: {kind: exact}
YEOF
KD_MEMORY_LIMIT=300M run_sample memcg
check "past KD_MEMORY_LIMIT (a cgroup here, or RLIMIT_AS): exit 1" [ $? -eq 1 ]
check "the entry point row says the memory limit was reached, and how" has memcg "^sample.entry-point fail | .*the memory limit (300 MiB, \(cgroup v[12] memory[.a-z_]*\|RLIMIT_AS\)) was reached"
check "the hint names KD_MEMORY_LIMIT" grep -q "KD_MEMORY_LIMIT sets it" "$KD_TMP/memcg.json"
check "the run's log states its limit" sh -c "grep -h '^# kernodeck: its memory limit: 300 MiB' '$P'/kernodeck/logs/*-sample.log"
KD_NO_CGROUP=1 KD_MEMORY_LIMIT=300M run_sample memrl
check "no cgroup (KD_NO_CGROUP=1): RLIMIT_AS, the MemoryError reported as the limit" has memrl "^sample.entry-point fail | exit 1.*the memory limit (300 MiB, RLIMIT_AS) was reached"
KD_MEMORY_LIMIT=none run_sample memnone
check "KD_MEMORY_LIMIT=none lifts it: the entry point runs" has memnone "^sample.entry-point pass"
KD_NO_CGROUP=1 run_sample memdefault
check "no cgroup and no KD_MEMORY_LIMIT: the default is not set as RLIMIT_AS (the entry point runs)" has memdefault "^sample.entry-point pass"
check "no cgroup and no KD_MEMORY_LIMIT: the log says there is no limit" sh -c "grep -h '^# kernodeck: no memory limit: no cgroup is writable here' '$P'/kernodeck/logs/*-sample.log"
