# dossier-backups.sh - a new dossier moves the previous one aside and keeps
# it as the one backup; older backups are removed only when kernodeck wrote
# them and they still verify against their SHA256SUMS.  A folder a person
# made or changed, a link, a file, or another name is never removed.
. "$KD_SRCDIR/tests/lib.sh"

P="$KD_TMP/project"
git_project "$P"
code_reference "$P" >"$P/kernodeck/reference.yaml"
K="$P/kernodeck"
D="$K/dossier"
backups() { (cd "$K" && ls -d dossier.2* 2>/dev/null | sort | tr '\n' ' '); }

"$KD_BIN" dossier "$P" >/dev/null
check "a first dossier, no backup" test -z "$(backups)"
for i in 1 2 3; do
	prev=$(sha256sum "$D/SHA256SUMS" | cut -d' ' -f1)
	"$KD_BIN" dossier "$P" >"$KD_TMP/out$i" 2>&1
done
set -- $(backups)
check "after four dossiers, one backup is kept" test "$#" -eq 1
check "the backup is the dossier the last one replaced, intact" \
	sh -c "cd '$K/$1' && sha256sum -c --quiet SHA256SUMS && test \"\$(sha256sum SHA256SUMS | cut -d' ' -f1)\" = '$prev'"
check "the removal is said" grep -q "an older dossier kernodeck wrote is removed: $K/dossier.2" "$KD_TMP/out3"

# what is left alone: a folder a person made, an old dossier a person
# changed, a link to a dossier, a file, another name
mkdir "$K/dossier.20200101T000000Z" && echo "my notes" >"$K/dossier.20200101T000000Z/notes.txt"
cp -a "$D" "$K/dossier.20200102T000000Z" && echo "edited" >>"$K/dossier.20200102T000000Z/README.md"
cp -a "$D" "$KD_TMP/elsewhere" && ln -s "$KD_TMP/elsewhere" "$K/dossier.20200103T000000Z"
echo "a file" >"$K/dossier.20200104T000000Z"
cp -a "$D" "$K/dossier.keep-me"
# and what goes: older dossiers kernodeck wrote, unchanged
cp -a "$D" "$K/dossier.20200105T000000Z"
cp -a "$D" "$K/dossier.20200105T000000Z.1"
"$KD_BIN" dossier "$P" >"$KD_TMP/out5" 2>&1
check "a folder a person made is left" test -f "$K/dossier.20200101T000000Z/notes.txt"
check "an old dossier a person changed is left" grep -q edited "$K/dossier.20200102T000000Z/README.md"
check "a link is left, and what it points to" sh -c "test -L '$K/dossier.20200103T000000Z' && test -f '$KD_TMP/elsewhere/SHA256SUMS'"
check "a file is left" test -f "$K/dossier.20200104T000000Z"
check "a folder with another name is left" test -f "$K/dossier.keep-me/SHA256SUMS"
check "older unchanged dossiers kernodeck wrote are removed" \
	sh -c "test ! -e '$K/dossier.20200105T000000Z' && test ! -e '$K/dossier.20200105T000000Z.1'"
n=0
for b in "$K"/dossier.2*; do
	[ -d "$b" ] && [ ! -L "$b" ] && [ -f "$b/dossier.yaml" ] && (cd "$b" && sha256sum -c --quiet SHA256SUMS 2>/dev/null) && n=$((n + 1))
done
check "one unchanged backup remains" test "$n" -eq 1
check "the new dossier verifies" sh -c "cd '$D' && sha256sum -c --quiet SHA256SUMS"

# --out elsewhere: the backups beside that folder follow the same rule
O="$KD_TMP/out/handoff"
for i in 1 2 3; do "$KD_BIN" dossier "$P" --out "$O" >/dev/null; done
check "--out: one backup beside the folder" test "$(ls -d "$O".2* | wc -l)" -eq 1
