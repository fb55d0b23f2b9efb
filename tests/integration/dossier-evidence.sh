# dossier-evidence.sh - the dossier holds the logs and outputs behind its
# verdicts, not the history (issue 17, point 7): after 2 and after 5 checks
# of the demo it has the same files; every log it names is in it, every log
# in it is named by its state or observations; the outputs it holds are the
# ones the sample read; and it still verifies and replays.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
	skip "dossier evidence" "Debian's python3-torch is not installed (apt-get install python3-torch)"
	exit 0
fi
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
unset KD_LOG_HISTORY
DEMO="$KD_TMP/demo"
D="$DEMO/kernodeck/dossier"
"$KD_BIN" demo "$DEMO" --create-only >/dev/null 2>&1

checks() {
	i=0
	while [ "$i" -lt "$1" ]; do
		"$KD_BIN" check "$DEMO" >"$KD_TMP/check.out" 2>&1 || { tail -5 "$KD_TMP/check.out" | sed 's/^/# /'; return 1; }
		i=$((i + 1))
	done
}
files_of() { (cd "$D" && find . -type f | sed 's/[0-9]\{8\}T[0-9]\{6\}Z\(\.[0-9]*\)\{0,1\}/STAMP/' | sort); }
bytes_of() { du -sb --apparent-size "$D" | cut -f1; }

check "two checks of the demo pass" checks 2
files_of >"$KD_TMP/files2"
n2=$(wc -l <"$KD_TMP/files2")
b2=$(bytes_of)
check "three more checks pass" checks 3
files_of >"$KD_TMP/files5"
n5=$(wc -l <"$KD_TMP/files5")
b5=$(bytes_of)
check "logs/ holds more after 5 checks than the dossier keeps" \
	test "$(ls "$DEMO/kernodeck/logs" | wc -l)" -gt "$(ls "$D/kernodeck/logs" | wc -l)"
check "the dossier has the same files after 5 checks as after 2 ($n2, $n5)" cmp -s "$KD_TMP/files2" "$KD_TMP/files5"
[ "$n2" = "$n5" ] || diff "$KD_TMP/files2" "$KD_TMP/files5" | sed 's/^/# /'
check "its size does not grow with the checks ($b2, $b5 bytes: within 2%)" \
	test "$((b5 * 100))" -le "$((b2 * 102))"
check "no outputs of earlier runs in it" sh -c "! find '$D' -path '*old-outputs*' | grep -q ."
check "it verifies (sha256sum -c)" sh -c "cd '$D' && sha256sum -c --quiet SHA256SUMS"

# every log it names is there
named=$(cat "$D/dossier.yaml" "$D/README.md" "$D"/kernodeck/*.yaml | grep -o 'logs/[A-Za-z0-9._+-]*' | sed 's,^logs/,,' | sort -u)
missing=
for l in $named; do [ -f "$D/kernodeck/logs/$l" ] || missing="$missing $l"; done
check "every log named in dossier.yaml, the README and its state is in it${missing:+ (missing:$missing)}" \
	test -n "$named" -a -z "$missing"
# every log it holds is named by the state or an observation (not only by
# the file list of dossier.yaml)
extra=
for f in "$D"/kernodeck/logs/*; do
	grep -qF "logs/$(basename "$f")" "$D"/kernodeck/*.yaml || extra="$extra $(basename "$f")"
done
check "every log in it is named by its state or observations${extra:+ (unnamed:$extra)}" test -z "$extra"
check "the logs it holds are the current ones: the sample's log is the last check's" \
	sh -c "test -f '$D/kernodeck/logs/$(ls "$DEMO/kernodeck/logs" | grep -- -sample.log | tail -1)'"
check "the outputs the sample read are in it, as they are" \
	sh -c "cmp '$D/outputs/embeddings.npy' '$DEMO/outputs/embeddings.npy' && cmp '$D/outputs/ids.txt' '$DEMO/outputs/ids.txt'"
check "dossier.yaml says which outputs it holds" \
	"$PY" -c "
import yaml, sys
t = yaml.safe_load(open('$D/dossier.yaml'))
o = t['outputs']
sys.exit(0 if sorted(o['files']) == ['embeddings.npy', 'ids.txt'] and o['left_out'] == [] else 1)"

# the dossier still replays
export HOME="$KD_TMP/home-replay"
mkdir -p "$HOME"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/replay" --yes >"$KD_TMP/replay.out" 2>"$KD_TMP/replay.err"
r=$?
check "the dossier replays: exit 0, overall passed" sh -c "test $r -eq 0 && grep -q '^overall: passed' '$KD_TMP/replay.out'"
[ "$r" -eq 0 ] || { cat "$KD_TMP/replay.out"; tail -20 "$KD_TMP/replay.err"; } | sed 's/^/# /'
