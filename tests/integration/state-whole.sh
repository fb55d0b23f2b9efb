# tests/integration/state-whole.sh - state.yaml is proven whole (issue 17,
# point 16): kernodeck ends it with the YAML end mark "..." and refuses a
# schema-2 file without it.  A real state (two stages checked, a
# deviation) is cut after every line and at random bytes; each cut is
# refused with exit 2, the file named, and the file left byte for byte.
# The observations (system.yaml) cut short are not read (observed again).
. "$KD_SRCDIR/tests/lib.sh"

P=$KD_TMP/p
git_project "$P"
code_reference "$P" >"$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage reference >/dev/null 2>&1
"$KD_BIN" check "$P" --stage system --force >/dev/null 2>&1
"$KD_BIN" deviate "$P" --stage system --check system.variant --why "cut test" >/dev/null 2>&1
S=$P/kernodeck/state.yaml
cp "$S" "$KD_TMP/whole.yaml"
check "state.yaml ends with the end mark" sh -c "tail -n 1 '$S' | grep -qx '\.\.\.'"
check "state.yaml is schema 2" grep -qx 'schema: 2' "$S"
expect_exit 1 "the whole state loads (check fails on its stage, not on the file)" \
	sh -c "'$KD_BIN' check '$P' --stage reference >/dev/null 2>&1"

# try_cut NAME: state.yaml as $KD_TMP/cut.yaml is refused, named, kept
bad=0 tried=0
try_cut() {
	tried=$((tried + 1))
	cp "$KD_TMP/cut.yaml" "$S"
	"$KD_BIN" check "$P" --stage reference >"$KD_TMP/out" 2>&1
	r=$?
	if [ "$r" -ne 2 ] || ! grep -q 'state.yaml' "$KD_TMP/out" || ! cmp -s "$KD_TMP/cut.yaml" "$S"; then
		bad=$((bad + 1))
		[ "$bad" -le 3 ] && { echo "# $1: exit $r"; sed 's/^/#   /' "$KD_TMP/out" | head -n 3; }
	fi
}
n=$(wc -l <"$KD_TMP/whole.yaml")
k=1
while [ "$k" -lt "$n" ]; do
	head -n "$k" "$KD_TMP/whole.yaml" >"$KD_TMP/cut.yaml"
	try_cut "cut after line $k"
	k=$((k + 1))
done
size=$(stat -c %s "$KD_TMP/whole.yaml")
for b in $(/usr/bin/python3 -c "import random; r = random.Random(17); print(' '.join(str(r.randrange(1, $size)) for _ in range(40)))") $((size - 1)); do
	head -c "$b" "$KD_TMP/whole.yaml" >"$KD_TMP/cut.yaml"
	try_cut "cut at byte $b"
done
if [ "$bad" -eq 0 ]; then ok "all $tried cuts of state.yaml refused: exit 2, file named, file unchanged"
else notok "$bad of $tried cuts of state.yaml not refused as they should"; fi

# a state written by an earlier kernodeck (schema 1, no mark) is read and
# saved again as schema 2 with the mark
sed -e 's/^schema: 2$/schema: 1/' -e '/^\.\.\.$/d' "$KD_TMP/whole.yaml" >"$S"
expect_exit 1 "a schema-1 state without the mark is read" \
	sh -c "'$KD_BIN' check '$P' --stage reference >/dev/null 2>&1"
check "and saved again as schema 2 with the mark" \
	sh -c "grep -qx 'schema: 2' '$S' && tail -n 1 '$S' | grep -qx '\.\.\.'"

# observations: a cut system.yaml is not read as if whole
O=$P/kernodeck/system.yaml
check "system.yaml ends with the end mark" sh -c "tail -n 1 '$O' | grep -qx '\.\.\.'"
head -n 3 "$O" >"$KD_TMP/o.yaml" && cp "$KD_TMP/o.yaml" "$O"
"$KD_BIN" check "$P" --stage system --force >/dev/null 2>&1
check "a cut system.yaml is observed again, whole" sh -c "tail -n 1 '$O' | grep -qx '\.\.\.'"
