# secrets-everywhere.sh - the credentials of tests/fixtures/secrets/corpus.tsv
# planted where a real project holds them: secret-named environment
# variables, pip.conf (PIP_CONFIG_FILE), a .netrc under a test HOME, the
# git remote URL, the rebuild file and a file it includes, the entry
# point's output, the reference's free text, and deviation and note texts.
# Every stage and the dossier run; no planted value may be in any file
# kernodeck wrote (the state folder, the logs, the dossier, the venv's
# kernodeck files), and every look-alike written by the entry point is
# intact in its log.  Issue 27: the corpus's query parameters, presigned
# URLs, command lines, Basic authorizations and known values spelled
# otherwise (percent-encoded, JSON-escaped, split by a line break) are
# printed too; the entry point carries --password=VALUE in its YAML flow
# sequence; .git/config holds a CI checkout's Basic extraheader whose token
# the script prints alone; what kernodeck prints (check, dossier, inspect)
# holds none of them either.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
	skip "secrets everywhere" "Debian's python3-torch is not installed (apt-get install python3-torch)"
	exit 0
fi
C="$KD_SRCDIR/tests/fixtures/secrets"
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
unset XDG_CONFIG_HOME XDG_CONFIG_DIRS NETRC GIT_CONFIG_GLOBAL
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
D="$KD_TMP/demo"
expect_exit 0 "kernodeck demo DIR --create-only" "$KD_BIN" demo "$D" --create-only

# The corpus split: planted values (one per line), the planted lines and
# the look-alike lines as the entry point prints them, the known values as
# NAME=VALUE for the environment.
"$PY" - "$C/corpus.tsv" "$KD_TMP" <<'PYEOF'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if not l.startswith("#")]
un = lambda s: s.replace("\\\\", "\0").replace("\\n", "\n").replace("\\t", "\t").replace("\0", "\\")
out = sys.argv[2]
with open(out + "/values.txt", "w") as f:
    for r in rows:
        if r[0] == "secret":
            f.write(un(r[2]) + "\n")   # a split value: each part
            if len(r) > 5:
                f.write(un(r[5]) + "\n")   # and the value a spelling stands for
with open(out + "/planted.txt", "w") as f:
    for r in rows:
        if r[0] == "secret":
            f.write(un(r[3]) + "\n")
with open(out + "/lookalike.txt", "w") as f:
    for r in rows:
        if r[0] == "clean":
            f.write(un(r[3]) + "\n")
with open(out + "/known.env", "w") as f:
    for r in rows:
        if r[1] == "known-value":
            f.write("%s=%s\n" % (r[4], un(r[5] if len(r) > 5 else r[2])))
PYEOF
check "the corpus gives at least 150 planted values" test "$(wc -l <"$KD_TMP/values.txt")" -ge 150

# the environment: the known values under their names, and shaped ones
while IFS= read -r kv; do export "$kv"; done <"$KD_TMP/known.env"
HFT=$(grep -m1 '^hf_' "$KD_TMP/values.txt")
export HF_TOKEN="$HFT"
export LAB_ROOT_PASSWORD="Vq3-noShape-z81Lw"
echo "$LAB_ROOT_PASSWORD" >>"$KD_TMP/values.txt"
# pip.conf through PIP_CONFIG_FILE (a section pip does not use, so that no
# index is contacted), a .netrc under HOME, a git credential in ~/.gitconfig
PIPPW="pipConf-7Qx2-Lm9"
printf '[kd-test]\nindex-url = https://builder:%s@pypi.invalid/simple\n' "$PIPPW" >"$KD_TMP/pip.conf"
export PIP_CONFIG_FILE="$KD_TMP/pip.conf"
NETRCPW="netrcPw-44Za-q1"
printf 'machine files.invalid\n  login bob\n  password %s\n' "$NETRCPW" >"$HOME/.netrc"
GITPW="gitCred-90Qw-Zz3"
printf '[url "https://ci:%s@git.invalid/"]\n\tinsteadOf = https://git.invalid/\n' "$GITPW" >"$HOME/.gitconfig"
printf '%s\n%s\n%s\n' "$PIPPW" "$NETRCPW" "$GITPW" >>"$KD_TMP/values.txt"

# the project: the remote with a token alone, the rebuild file and an
# include with credentials in comments, the entry point printing every
# planted line (with the environment's values in them) and the look-alikes
REMOTE_TOKEN=$(grep -m1 '^ghp_' "$KD_TMP/values.txt")
git -C "$D" remote add origin "https://$REMOTE_TOKEN@git.invalid/lab/demo.git"
RBPW="rebuildPw-3Kq9-x"
INCTOK=$(grep -m1 '^glpat-' "$KD_TMP/values.txt")
printf '# mirror: https://ci:%s@pypi.invalid/simple\n-r extra-rebuild.txt\n' "$RBPW" >>"$D/requirements-rebuild.txt"
printf '# the token for the mirror: %s\n' "$INCTOK" >"$D/extra-rebuild.txt"
echo "$RBPW" >>"$KD_TMP/values.txt"
# a CI checkout's Basic authorization; the script prints its token alone
BTOK="ghsBasicTok-5Wq8Lz2Rv7Xc"
git -C "$D" config http.https://git.invalid/.extraheader \
	"AUTHORIZATION: basic $(printf 'x-access-token:%s' "$BTOK" | base64 -w0)"
echo "checkout token $BTOK" >>"$KD_TMP/planted.txt"
echo "$BTOK" >>"$KD_TMP/values.txt"
cp "$KD_TMP/planted.txt" "$D/planted.txt"
cp "$KD_TMP/lookalike.txt" "$D/lookalike.txt"
cat >>"$D/embed.py" <<'PYEOF'

# secrets-everywhere.sh: what a careless script prints
import os as _os
for _f in ("planted.txt", "lookalike.txt"):
    print(open(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), _f)).read(), end="")
for _k in sorted(_os.environ):
    if _k.endswith(("_PASSWORD", "_TOKEN", "_SECRET", "_KEY", "_CREDENTIALS")):
        print("env %s=%s" % (_k, _os.environ[_k]))
print("netrc", open(_os.path.expanduser("~/.netrc")).read())
print("pip.conf", open(_os.environ["PIP_CONFIG_FILE"]).read())
print("gitconfig", open(_os.path.expanduser("~/.gitconfig")).read())
PYEOF
# the entry point takes --password=VALUE (the script drops it before its
# own parser, and prints its argument vector)
EPW="entryPw-Zq41-vL8x"
sed -i 's/^import argparse$/import argparse\nimport sys as _sys\nprint("argv:", " ".join(_sys.argv))\n_sys.argv = [a for a in _sys.argv if not a.startswith("--password=")]/' \
	"$D/embed.py"
echo "$EPW" >>"$KD_TMP/values.txt"
git -C "$D" add -A && git -C "$D" -c user.name=t -c user.email=t@t.invalid commit -qm plant
# the reference: the new commit, and credentials in its free text
REFTOK=$(grep -m1 '^sk-proj-' "$KD_TMP/values.txt")
sed -i "s/^  commit: .*/  commit: $(git -C "$D" rev-parse HEAD)/; s|^  criterion: .*|  criterion: same neighbours (the mirror is https://ci:$RBPW@pypi.invalid; key $REFTOK)|" \
	"$D/kernodeck/reference.yaml"
check "the reference holds the planted free text" grep -q "$REFTOK" "$D/kernodeck/reference.yaml"
sed -i "s|^  entry_point: \[python, embed.py, --out, outputs\]|  entry_point: [python, embed.py, --out, outputs, --password=$EPW]|" \
	"$D/kernodeck/reference.yaml"
check "the entry point carries the password" grep -q -- "--password=$EPW]" "$D/kernodeck/reference.yaml"

"$KD_BIN" check "$D" >"$KD_TMP/check1.txt" 2>"$KD_TMP/check1.err"
echo "# first check: exit $?"
# a note (the walkthrough's n) with a credential in its text
NOTETOK=$(grep -m1 '^npm_' "$KD_TMP/values.txt")
sed -i "0,/^    notes: \[\]/s||    notes: [{text: \"the mirror token is $NOTETOK\", author: t, time: \"2026-01-01T00:00:00Z\"}]|" \
	"$D/kernodeck/state.yaml"
check "the state holds the planted note" grep -q "$NOTETOK" "$D/kernodeck/state.yaml"
# deviations on whatever fails here, their texts carrying credentials
DEVTOK=$(grep -m1 '^xoxb-' "$KD_TMP/values.txt")
"$KD_BIN" check "$D" --format json >"$KD_TMP/c.json" 2>/dev/null
"$PY" -c "
import json
t = json.load(open('$KD_TMP/c.json'))
for s in t['stages']:
    for r in s.get('rows', []):
        if r['status'] == 'fail' and not r['id'].startswith('dossier.'): print(s['id'], r['id'])" |
while read -r st id; do
	"$KD_BIN" deviate "$D" --stage "$st" --check "$id" --why "differs here; ask $DEVTOK" \
		--what "password=$LAB_ROOT_PASSWORD" >/dev/null 2>&1
done
"$KD_BIN" deviate "$D" --stage sample --check sample.compare --why "noted; the token is $DEVTOK" \
	--what "Authorization: Bearer $HF_TOKEN" >/dev/null 2>&1
"$KD_BIN" check "$D" >"$KD_TMP/check2.txt" 2>"$KD_TMP/check2.err"
echo "# second check: exit $?"
for s in reference system rebuild contract compute sample; do
	check "stage $s ran (passed or deviation)" grep -Eq "^[0-9] $s +(passed|deviation)" "$KD_TMP/check2.txt"
done
grep "sample.entry-point" "$KD_TMP/check2.txt" | sed 's/^ */# /'
check "the entry point's row says its output had credentials redacted" \
	grep -Eq "sample.entry-point +exit 0, [0-9]+ credentials redacted from its output" "$KD_TMP/check2.txt"
check "so does the end of its log" grep -Eq "^# kernodeck: exit 0, [0-9]+ credentials redacted" \
	"$(ls "$D"/kernodeck/logs/*-sample.log | tail -1)"
check "the note is kept, its credential replaced by the variable's name" \
	grep -q 'the mirror token is ${NPM_TOKEN}' "$D/kernodeck/state.yaml"
"$KD_BIN" dossier "$D" --redact >"$KD_TMP/dossier.out" 2>"$KD_TMP/dossier.err"
r=$?
check "the dossier is written with --redact (exit 0)" test "$r" -eq 0
[ "$r" -eq 0 ] || sed 's/^/# /' "$KD_TMP/dossier.err" | head -20
check "the dossier exists" test -f "$D/kernodeck/dossier/dossier.yaml"
check "the dossier asks for the entry point's password as env:PASSWORD" \
	grep -q "provide: env:PASSWORD$" "$D/kernodeck/dossier/dossier.yaml"
/usr/bin/python3 -c "import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))['code']['entry_point'])" \
	"$D/kernodeck/reference.yaml" >"$KD_TMP/ep.txt" 2>&1
check "--redact left the reference valid YAML, the password a reference" \
	grep -qF -- "'--password=\${PASSWORD}'" "$KD_TMP/ep.txt"
"$KD_BIN" inspect secrets "$D/planted.txt" >"$KD_TMP/inspect.txt" 2>&1
check "inspect secrets finds the planted lines (and prints no value)" \
	test "$(grep -c known-value "$KD_TMP/inspect.txt")" -ge 1
check "the sample log holds the entry point's output" \
	sh -c "grep -lq 'secrets-everywhere\|lookalike\|Merge branch' '$D'/kernodeck/logs/*-sample.log"

# no planted value in any file kernodeck wrote: the state folder (but the
# reference, which the person wrote), the dossier, the venv's files
# kernodeck wrote, and what kernodeck printed
WRITTEN="$KD_TMP/written.txt"
find "$D/kernodeck" -type f ! -path "$D/kernodeck/reference.yaml" >"$WRITTEN"
find "$D" -maxdepth 3 -path "$D/.venv*" -type f -name '*kernodeck*' >>"$WRITTEN"
echo "$KD_TMP/check1.txt $KD_TMP/check1.err $KD_TMP/check2.txt $KD_TMP/check2.err $KD_TMP/dossier.out $KD_TMP/dossier.err $KD_TMP/inspect.txt $KD_TMP/c.json" |
	tr ' ' '\n' >>"$WRITTEN"
check "kernodeck wrote at least 30 files" test "$(wc -l <"$WRITTEN")" -ge 30
leaked=0 n=0
while IFS= read -r v; do
	[ -n "$v" ] || continue
	n=$((n + 1))
	if hit=$(xargs -d '\n' grep -lF -- "$v" <"$WRITTEN" 2>/dev/null | head -3) && [ -n "$hit" ]; then
		echo "# leaked: ${v%"${v#????????}"}... in $(echo $hit)"
		leaked=$((leaked + 1))
	fi
done <"$KD_TMP/values.txt"
check "none of the $n planted values is in a file kernodeck wrote" test "$leaked" -eq 0
check "the rebuild file now names the variable, not the value" \
	sh -c "! grep -qF '$RBPW' '$D/requirements-rebuild.txt' && grep -q 'CREDENTIALS' '$D/requirements-rebuild.txt'"

# every look-alike the entry point printed is intact in the sample log
LOG=$(ls "$D"/kernodeck/logs/*-sample.log | tail -1)
missing=0 total=0
while IFS= read -r l; do
	total=$((total + 1))
	grep -qxF -- "$l" "$LOG" || { missing=$((missing + 1)); echo "# changed: $l"; }
done <"$KD_TMP/lookalike.txt"
check "at most 1 of the $total look-alikes changed in the log ($missing)" test "$missing" -le 1
check "the dossier verifies with sha256sum -c" sh -c "cd '$D/kernodeck/dossier' && sha256sum -c --quiet SHA256SUMS"
