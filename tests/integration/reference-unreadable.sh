#!/bin/sh
# Stage 1 with a data file this user cannot read and one that is missing:
# each fails its own digest check with its own message, and the state is
# kept.  Tests run as root, who reads everything: the check runs as nobody
# (setpriv) on a project that nobody owns.
. "$KD_SRCDIR/tests/lib.sh"
if ! command -v git >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
	skip "reference unreadable" "git and jq are needed"
	exit 0
fi
AS=""
if [ "$(id -u)" = 0 ]; then
	if ! command -v setpriv >/dev/null 2>&1; then
		skip "reference unreadable" "setpriv is needed to drop root"
		exit 0
	fi
	AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# a checkout under a folder only root enters (root's home, 0700): the
	# binary is copied where nobody reaches it (issue 17, point 22)
	chmod 755 "$KD_TMP"
	mkdir -m 700 "$KD_TMP/closed"
	cp "$KD_BIN" "$KD_TMP/closed/kernodeck"
	( KD_BIN=$KD_TMP/closed/kernodeck; nobody_bin >/dev/null && [ "$KD_BIN" != "$KD_TMP/closed/kernodeck" ] &&
		$AS env "$KD_BIN" --version >/dev/null )
	check "a binary under a closed (0700) folder is copied where nobody can run it" test $? -eq 0
	if ! nobody_bin; then
		skip "reference unreadable" "nobody cannot run kernodeck here, even copied to $KD_TMP"
		exit 0
	fi
fi
chmod 755 "$KD_TMP"
H="$KD_TMP/home"
P="$KD_TMP/proj"
mkdir -p "$H" "$P/data" "$P/kernodeck"
git -C "$P" init -q -b main
printf 'alpha\n' >"$P/data/open.txt"
printf 'secret\n' >"$P/data/closed.txt"
git -C "$P" add . && git -C "$P" commit -q -m data
cat >"$P/kernodeck/reference.yaml" <<'EOF'
schema: 1
goal: close-values
data:
  - name: open
    kind: data
    path: data/open.txt
    version: v1
    provenance: the test
    access: public
  - name: closed
    kind: data
    path: data/closed.txt
    sha256: abababababababababababababababababababababababababababababababab
    size: 7
    version: v1
    provenance: the test
    access: a person asks the data owner
  - name: gone
    kind: data
    path: data/gone.txt
    sha256: abababababababababababababababababababababababababababababababab
    size: 7
    version: v1
    provenance: the test
    access: public
EOF
[ -n "$AS" ] && chown -R 65534:65534 "$P" "$H"
chmod 000 "$P/data/closed.txt"
cp "$P/kernodeck/reference.yaml" "$KD_TMP/before.yaml"

# shellcheck disable=SC2086
$AS env HOME="$H" "$KD_BIN" check "$P" --stage reference --format json --quiet \
	>"$KD_TMP/r.json" 2>"$KD_TMP/r.err"
rc=$?
check "unreadable: the stage ran and failed (exit 1)" [ "$rc" -eq 1 ]
f() { jq -r --arg id "$1" --arg f "$2" '.stages[0].rows[] | select(.id == $id) | .[$f]' "$KD_TMP/r.json"; }
check "unreadable: the readable file passes" [ "$(f data.open.sha256 status)" = pass ]
check "unreadable: the unreadable file fails" [ "$(f data.closed.sha256 status)" = fail ]
has() { case "$1" in *"$2"*) return 0;; *) return 1;; esac; }
check "unreadable: ... said to be unreadable" [ "$(f data.closed.sha256 observed)" = "unreadable: data/closed.txt" ]
check "unreadable: ... with the system's reason" has "$(f data.closed.sha256 first_error)" "Permission denied"
check "unreadable: ... and what to do" has "$(f data.closed.sha256 hint)" "read access"
check "unreadable: the missing file fails" [ "$(f data.gone.sha256 status)" = fail ]
check "unreadable: ... said to be missing" [ "$(f data.gone.sha256 observed)" = "missing: data/gone.txt" ]
check "unreadable: the recorded digests are kept" \
	sh -c "grep -c 'sha256: abab' '$P/kernodeck/reference.yaml' | grep -qx 2"
check "unreadable: the state is saved" grep -q "status: failed" "$P/kernodeck/state.yaml"
