# tests/integration/unpushed.sh - a commit that was never pushed (issue 17,
# point 6; issue 32, points 2 to 4): stage 1 says so before any replay does,
# and so does the dossier's README; `replay --repo` clones another copy that
# has it, and its plan says so; a failed replay never blocks the next one in
# the same folder; code.remote marked not applicable is named nowhere.
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
check "the plan names the copy it really clones (--repo), not the recorded remote" \
	grep -q "git clone $P .*--repo: this copy" "$KD_TMP/w2.out"
check "the dossier's README says at the top that the commit cannot be fetched, with what to do" \
	sh -c "head -n 8 '$D/README.md' | grep -q 'cannot be fetched from $R.*git push.*--repo PATH.*REPO=PATH bash procedure.sh'"

# a failed replay never blocks the next (issue 32, point 3): the commit is
# not in the remote, the clone fails; the folder is left as it was (absent)
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w3" --yes >"$KD_TMP/w3a.out" 2>&1
r=$?
check "replay of an unpushed commit from its remote fails (exit $r), saying so" \
	sh -c "[ $r -ne 0 ] && grep -q 'is not in $R (was it pushed?)' '$KD_TMP/w3a.out'"
check "... and leaves no half-made work folder (it was removed, and said)" \
	sh -c "! [ -e '$KD_TMP/w3' ] && grep -q 'w3 was removed' '$KD_TMP/w3a.out'"
timeout 120 "$KD_BIN" replay "$D" --workdir "$KD_TMP/w3" --repo "$P" --yes >"$KD_TMP/w3b.out" 2>&1
check "the same --workdir with --repo then clones (no folder to delete by hand)" \
	grep -q "code: $P at" "$KD_TMP/w3b.out"
timeout 120 "$KD_BIN" replay "$D" --workdir "$KD_TMP/w3" --repo "$P" --yes >"$KD_TMP/w3c.out" 2>&1
check "a replay into a folder an earlier replay made starts again, and says so" \
	sh -c "grep -q 'w3 holds an earlier replay (.*): starting again in a clean folder' '$KD_TMP/w3c.out' && grep -q 'code: $P at' '$KD_TMP/w3c.out'"
mkdir -p "$KD_TMP/mine" && echo keep >"$KD_TMP/mine/notes.txt"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/mine" --repo "$P" --yes >"$KD_TMP/mine.out" 2>&1
check "a folder no replay made is never removed" \
	sh -c "grep -q 'exists and is not empty' '$KD_TMP/mine.out' && test -f '$KD_TMP/mine/notes.txt'"

# code.remote marked not applicable (issue 32, point 2): the origin is named
# nowhere; the dossier, procedure.sh and the plan use the project folder
{ code_reference "$P" | sed "s|^  commit:|  remote: $R\n  commit:|"
  printf 'not_applicable:\n  code.remote: the commit lives in this folder only\n'; } >"$P/kernodeck/reference.yaml"
"$KD_BIN" dossier "$P" >/dev/null 2>&1
check "code.remote not applicable: dossier.yaml records no remote" \
	grep -q '^  remote: null' "$D/dossier.yaml"
check "... procedure.sh's REPO= is the project folder, not the origin" \
	sh -c "{ grep -qF 'REPO=\${REPO:-'\\''$P'\\''}' '$D/procedure.sh' || grep -qF 'REPO=\${REPO:-$P}' '$D/procedure.sh'; } && ! grep -q 'remote.git' '$D/procedure.sh'"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w4" >"$KD_TMP/w4.out" 2>&1 </dev/null
check "... the plan clones the project folder" \
	sh -c "grep -q 'git clone $P ' '$KD_TMP/w4.out' && ! grep -q 'remote.git' '$KD_TMP/w4.out'"
