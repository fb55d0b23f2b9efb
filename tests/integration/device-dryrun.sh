#!/bin/sh
# device-dryrun.sh - tests/device/run.sh --dry-run: kernodeck is packed with
# the libraries ldd names (and the dlopened libcurl, the probe, the demo),
# the pack runs from a temporary folder with LD_LIBRARY_PATH naming it
# (--version, demo, check --stage system), and the GPU steps are skipped,
# saying so.  A pack made apart (--pack-only) is then used as it would be
# on the GPU machine (--use-pack).
. "$KD_SRCDIR/tests/lib.sh"
RUN="$KD_SRCDIR/tests/device/run.sh"
if ! command -v ldd >/dev/null 2>&1 || ! command -v bash >/dev/null 2>&1; then
	skip "device dry run" "ldd or bash missing"
	exit 0
fi
OUT="$KD_TMP/out"
KD_BIN="$KD_BIN" OUT="$OUT" TMPDIR="$KD_TMP" bash "$RUN" --dry-run >"$KD_TMP/run.txt" 2>&1
rc=$?
check "dry run: exit 0" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/# /' "$KD_TMP/run.txt"
check "dry run: the GPU steps are skipped, saying so" \
	grep -q '^skip the GPU steps .*: --dry-run$' "$KD_TMP/run.txt"
check "dry run: says it passed as a dry run" grep -q '^device run: PASS (dry run' "$KD_TMP/run.txt"
check "pack: every library but the C library's resolves into the pack" \
	grep -q '^ok   pack-ldd' "$KD_TMP/run.txt"
check "pack: libyaml is taken from the pack under LD_LIBRARY_PATH" \
	grep -q 'libyaml-0.so.2 => .*/kernodeck/lib/libyaml-0.so.2' "$OUT/pack-ldd.txt"
check "pack: --version with LD_LIBRARY_PATH naming the pack" grep -q '^ok   pack-version-full' "$KD_TMP/run.txt"
check "pack: --version prints the version" grep -q "^kernodeck " "$OUT/steps/pack-version-full.log"
check "pack: demo created from the pack's own share folder" grep -q '^ok   demo-create' "$KD_TMP/run.txt"
check "pack: check --stage system ran (exit 0 or 1)" grep -q '^ok   check-system-full' "$KD_TMP/run.txt"
check "pack: the system observations are collected" grep -q '^os:' "$OUT/system.yaml"
check "summary.txt holds the same lines" grep -q '^device run: PASS' "$OUT/summary.txt"
check "nothing of the pack or its work folder is left" sh -c "! ls -d '$KD_TMP'/kdpack.* '$KD_TMP'/kddevice.* 2>/dev/null | grep -q ."

# pack apart, then run that pack as the GPU machine would
KD_BIN="$KD_BIN" bash "$RUN" --pack-only "$KD_TMP/pack" >"$KD_TMP/pack.txt" 2>&1
check "--pack-only: packed" sh -c "[ -x '$KD_TMP/pack/bin/kernodeck' ] && [ -e '$KD_TMP/pack/lib/libcurl.so.4' ] && [ -f '$KD_TMP/pack/share/probe.py' ]"
OUT="$KD_TMP/out2" TMPDIR="$KD_TMP" bash "$RUN" --use-pack "$KD_TMP/pack" --dry-run >"$KD_TMP/use.txt" 2>&1
rc=$?
check "--use-pack: the pack runs (exit 0)" [ "$rc" -eq 0 ]
check "--use-pack: check --stage system from the pack" grep -q '^ok   check-system ' "$KD_TMP/use.txt"
check "--use-pack: the pack is kept" [ -x "$KD_TMP/pack/kd" ]
