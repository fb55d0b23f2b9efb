# tests/integration/system-inspect.sh - `kernodeck inspect collect-env`:
# JSON and YAML on every collect_env fixture, refusals with exit 2.
. "$KD_SRCDIR/tests/lib.sh"

FX="$KD_SRCDIR/tests/fixtures/collect_env"
PY=/usr/bin/python3
[ -x "$PY" ] || { skip system-inspect "no $PY to read the JSON"; exit 0; }

n=0
for f in "$FX"/real-*.txt "$FX"/mig-a100.txt "$FX"/vllm-aligned-3090.txt "$FX"/rocm63-gfx1010.txt; do
	"$KD_BIN" inspect collect-env "$f" --format json >"$KD_TMP/out.json" 2>"$KD_TMP/err.txt"
	r=$?
	keys=$("$PY" -c '
import json, sys
t = json.load(open(sys.argv[1]))
need = ["torch_version", "cuda_build", "rocm_build", "cuda_available", "gpus", "gpu_count",
        "driver_version", "os", "python_version", "cudnn_version", "raw"]
missing = [k for k in need if k not in t]
assert t["gpu_count"] == len(t["gpus"]), "gpu_count"
assert t["cuda_available"] in (True, False, None)
print("missing:" + ",".join(missing) if missing else "ok")
' "$KD_TMP/out.json" 2>&1)
	if [ "$r" = 0 ] && [ "$keys" = ok ]; then n=$((n + 1)); else notok "inspect collect-env $(basename "$f"): exit $r, $keys"; fi
done
[ "$n" -eq 13 ] && ok "inspect collect-env --format json: every key on 13 reports" || notok "only $n of 13 reports"

"$KD_BIN" inspect collect-env "$FX/real-16.txt" --format yaml >"$KD_TMP/out.yaml" 2>/dev/null
grep -q '^rocm_build: null$' "$KD_TMP/out.yaml" && ok "yaml: a torchvision+rocm pip line does not make a ROCm build" || notok "yaml rocm_build"
grep -q '^driver_version: "\{0,1\}511.79"\{0,1\}$' "$KD_TMP/out.yaml" && ok "yaml: the WSL host driver" || notok "yaml driver_version"
"$KD_BIN" inspect collect-env "$FX/real-09.txt" --format json | "$PY" -c '
import json, sys; t = json.load(sys.stdin)
sys.exit(0 if t["cuda_build"] is None and t["raw"]["CUDA used to build PyTorch"] == "Could not collect" else 1)' \
	&& ok "Could not collect: null, and kept as printed in raw" || notok "Could not collect handling"
expect_exit 2 "a crashed collect_env (a traceback): exit 2" "$KD_BIN" inspect collect-env "$FX/traceback-rocm.txt" --format json
expect_exit 2 "a missing file: exit 2" "$KD_BIN" inspect collect-env "$KD_TMP/none.txt"
head -c 3000 /dev/urandom >"$KD_TMP/bin.txt"
expect_exit 2 "a binary file: exit 2" "$KD_BIN" inspect collect-env "$KD_TMP/bin.txt"
