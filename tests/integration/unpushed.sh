# tests/integration/unpushed.sh - a commit that was never pushed (issue 17,
# point 6): stage 1 says so before any replay does; `replay --repo` clones
# another copy that has it; a failed replay's folder says what to do.
. "$KD_SRCDIR/tests/lib.sh"
R=$KD_TMP/remote.git
P=$KD_TMP/p
git init -q --bare "$R"
git_project "$P" >/dev/null 2>&1
git -C "$P" remote add origin "$R"
git -C "$P" push -q origin HEAD:main 2>/dev/null
git -C "$P" fetch -q origin 2>/dev/null
ref2() {
	printf 'schema: 1\ncode:\n  commit: %s\n  remote: %s\n  entry_point: [python, main.py]\npython:\n  interpreter: /usr/bin/python3\n' \
		"$(git -C "$P" rev-parse HEAD)" "$R" >"$P/kernodeck/reference.yaml"
}
ref2
"$KD_BIN" check "$P" --stage reference --format json >"$KD_TMP/a.json" 2>/dev/null
check "a pushed commit: no code.pushed warning" sh -c "! grep -q '\"code.pushed\"' '$KD_TMP/a.json'"
echo "print(2)" >"$P/main.py"
git -C "$P" commit -qam "not pushed"
ref2
"$KD_BIN" check "$P" --stage reference --format json >"$KD_TMP/b.json" 2>/dev/null
check "an unpushed commit: stage 1 warns (code.pushed), with what to do" /usr/bin/python3 -c "
import json, sys
rows = json.load(open(sys.argv[1]))['stages'][0]['rows']
r = [x for x in rows if x['id'] == 'code.pushed']
assert r and r[0]['status'] == 'warn' and '--repo' in r[0]['hint'], r" "$KD_TMP/b.json"

# replay: the recorded remote lacks the commit; --repo names the project
"$KD_BIN" dossier "$P" >/dev/null 2>&1
D=$P/kernodeck/dossier
mkdir -p "$KD_TMP/w1/kernodeck"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w1" --yes >"$KD_TMP/w1.out" 2>&1
check "a folder an earlier replay left: refused, saying how to replay again" \
	grep -q "holds an earlier replay.*rm -rf .*or give another --workdir" "$KD_TMP/w1.out"
timeout 120 "$KD_BIN" replay "$D" --workdir "$KD_TMP/w2" --repo "$P" --yes >"$KD_TMP/w2.out" 2>&1
check "replay --repo clones the copy given, at the recorded commit" \
	sh -c "grep -q 'code: $P at $(git -C "$P" rev-parse HEAD)' '$KD_TMP/w2.out' && test \"\$(git -C '$KD_TMP/w2' rev-parse HEAD)\" = '$(git -C "$P" rev-parse HEAD)'"
