# dossier-credentials.sh - the dossier says which credentials a rebuild
# needs, where and how to provide them, never their values (issue 15): a
# project whose rebuild file and an include it names ask for ${NAME}s, whose
# extra index has a netrc entry, and whose own .git/config carries a remote
# token and an Authorization header of no known shape.  That token is
# collected by value when the context opens, so found alone in a log and in
# the reference's text; dossier.yaml lists env:NAME and netrc:HOST with
# where each was needed, the README says it, procedure.sh stops naming a
# variable that is not set, and no value is in any file kernodeck wrote.
# Issue 27: the entry point carries --password=VALUE in a YAML flow
# sequence, PIP_INDEX_URL and pip.conf (PIP_CONFIG_FILE) hold accounts, and
# .git/config a CI checkout's http.extraheader Basic authorization whose
# token the project prints alone: the values are in no written or printed
# text, `dossier --redact` leaves reference.yaml valid YAML, and
# dossier.yaml names env:PASSWORD, env:PIP_INDEX_URL, pip:PIP_EXTRA_INDEX_URL
# and the remote's credential by its source.
. "$KD_SRCDIR/tests/lib.sh"
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
unset XDG_CONFIG_HOME XDG_CONFIG_DIRS NETRC GIT_CONFIG_GLOBAL LAB_INDEX_TOKEN MIRROR_TOKEN
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
P="$KD_TMP/p"
git_project "$P"
# no shape: no vendor prefix, found in a URL's userinfo only
RTOK="Zq8vN3kLm2Rt7Wx5pYc"
HTOK="hdr9Kq2LmXv7Tz4Wn"
NETPW="netPw-7Qz2-kL9x"
git -C "$P" remote add origin "https://$RTOK@git.invalid/lab/p.git"
git -C "$P" config http.extraHeader "Authorization: Bearer $HTOK"
printf 'machine files.lab.invalid\n  login bob\n  password %s\n' "$NETPW" >"$HOME/.netrc"
EPW="entryPw-4Kq9-Zx2"
BTOK="ghsBasic7Qw2Lm9Xv4Tz"
ENVPIP="envPip-8Wq3-Lz5"
CONFPIP="confPip-2Rt6-Yx1"
git -C "$P" config http.https://git.invalid/.extraheader \
	"AUTHORIZATION: basic $(printf 'x-access-token:%s' "$BTOK" | base64 -w0)"
printf '[global]\nextra-index-url = https://ci:%s@mirror2.lab.invalid/simple\n' "$CONFPIP" >"$KD_TMP/pip.conf"
export PIP_CONFIG_FILE="$KD_TMP/pip.conf"
export PIP_INDEX_URL="https://bob:$ENVPIP@pypi.lab.invalid/simple"
cat >"$P/requirements-rebuild.txt" <<'REQ'
--index-url https://${LAB_INDEX_TOKEN}@pypi.lab.invalid/simple
--extra-index-url https://files.lab.invalid/simple
-r extra-rebuild.txt
numpy
REQ
printf -- '--extra-index-url https://__token__:${MIRROR_TOKEN}@mirror.invalid/simple\n--requirement=sub/more.txt\n' \
	>"$P/extra-rebuild.txt"
mkdir -p "$P/sub"
printf 'requests==2.0\n-c pins.txt\n' >"$P/sub/more.txt"
printf 'lab-tool @ git+https://oauth2:${SUB_TOKEN}@git.invalid/lab/tool.git\n' >"$P/sub/pins.txt"
code_reference "$P" | sed "s|entry_point: \[python, main.py\]|entry_point: [python, main.py, --password=$EPW]|" \
	>"$P/kernodeck/reference.yaml"
check "the reference's entry point carries the password" grep -q -- "--password=$EPW]" "$P/kernodeck/reference.yaml"
printf 'goal: close-values\nresult:\n  criterion: same output (the remote token is %s)\n' "$RTOK" \
	>>"$P/kernodeck/reference.yaml"
mkdir -p "$P/kernodeck/logs"
printf 'cloning with token %s\nheader %s\ntoken %s alone\n' "$RTOK" "$HTOK" "$BTOK" >"$P/kernodeck/logs/clone.log"
# named by an observation, as a stage names its logs: the dossier holds
# the logs that are named (issue 17, point 7)
printf 'log: logs/clone.log\n...\n' >"$P/kernodeck/compute.yaml"

"$KD_BIN" check "$P" --stage reference >"$KD_TMP/check.out" 2>&1
echo "# reference stage: exit $?"
"$KD_BIN" dossier "$P" >"$KD_TMP/d1.out" 2>"$KD_TMP/d1.err"
r=$?
check "the remote's token alone (no shape) blocks the dossier: known by value (exit 1, $r)" \
	test "$r" -eq 1
check "the finding is a known value from the project's .git/config" \
	grep -q "kernodeck/logs/clone.log:1: known-value" "$KD_TMP/d1.err"
check "so is the header's token" grep -q "kernodeck/logs/clone.log:2: known-value" "$KD_TMP/d1.err"
check "and the token inside the Basic extraheader, printed alone" \
	grep -q "kernodeck/logs/clone.log:3: known-value" "$KD_TMP/d1.err"
expect_exit 0 "the dossier is written with --redact" "$KD_BIN" dossier "$P" --redact
Y="$P/kernodeck/dossier/dossier.yaml"
sed -n '/^credentials:/,/^[a-z]/p' "$Y" | sed 's/^/# /' | head -40
for n in env:LAB_INDEX_TOKEN env:MIRROR_TOKEN env:SUB_TOKEN netrc:files.lab.invalid netrc:git.invalid; do
	check "dossier.yaml lists $n" grep -q "provide: $n\$" "$Y"
done
check "where: the rebuild file's index URL" grep -q "requirements-rebuild.txt line 1 (the index URL)" "$Y"
check "where: the include's extra index URL" grep -q "extra-rebuild.txt line 1 (an extra index URL)" "$Y"
check "where: an include of an include, relative to its file (-c in sub/)" \
	grep -q "sub/pins.txt line 1 (a VCS requirement's URL)" "$Y"
check "where: the git remote" grep -q "the git remote (code.remote" "$Y"
check "how: set the variable in the environment" grep -q "set LAB_INDEX_TOKEN in the environment" "$Y"
check "how: a netrc entry for the host" grep -q "a netrc entry (machine files.lab.invalid" "$Y"
R="$P/kernodeck/dossier/README.md"
check "dossier.yaml lists the entry point's password as env:PASSWORD" grep -q "provide: env:PASSWORD\$" "$Y"
check "where: the entry point's argument" grep -q "reference.yaml code.entry_point (argument 3)" "$Y"
check "dossier.yaml lists PIP_INDEX_URL, which the environment supplied" \
	grep -q "provide: env:PIP_INDEX_URL\$" "$Y"
check "and pip's configuration's extra index, by pip's variable" \
	grep -q "provide: pip:PIP_EXTRA_INDEX_URL\$" "$Y"
check "the git remote's credential is named by its source (the extraheader)" \
	grep -q "http.extraheader Authorization in the project's .git/config" "$Y"
/usr/bin/python3 - "$P/kernodeck/reference.yaml" <<'PYEOF' >"$KD_TMP/ref.txt" 2>&1
import sys, yaml
print(yaml.safe_load(open(sys.argv[1]))["code"]["entry_point"])
PYEOF
r=$?
sed 's/^/# /' "$KD_TMP/ref.txt"
check "--redact left reference.yaml valid YAML (exit $r)" test "$r" -eq 0
check "the argument is now a reference to the variable" grep -qF -- "'--password=\${PASSWORD}'" "$KD_TMP/ref.txt"
check "the README has a Credentials to provide section" grep -q "^## Credentials to provide" "$R"
check "the README names env:MIRROR_TOKEN" grep -q '^- `env:MIRROR_TOKEN`: set MIRROR_TOKEN' "$R"

leaked=0
for v in "$RTOK" "$HTOK" "$NETPW" "$EPW" "$BTOK" "$ENVPIP" "$CONFPIP"; do
	if grep -rlF -- "$v" "$P/kernodeck" "$KD_TMP"/*.out "$KD_TMP"/*.err | grep -v '/reference.yaml$' | sed 's/^/# leaked in /' | grep .; then
		leaked=$((leaked + 1))
	fi
done
check "none of the 7 values is in a file kernodeck wrote or printed" test "$leaked" -eq 0
check "nor in the dossier's reference" sh -c "! grep -qF '$RTOK' '$P/kernodeck/dossier/kernodeck/reference.yaml'"
check "nor, after --redact, in the person's reference" sh -c "! grep -qF '$EPW' '$P/kernodeck/reference.yaml'"

S="$P/kernodeck/dossier/procedure.sh"
check "procedure.sh is valid bash" bash -n "$S"
W="$KD_TMP/work"
LAB_INDEX_TOKEN="labVal-91Xq-z7" bash "$S" "$W" >"$KD_TMP/proc.out" 2>"$KD_TMP/proc.err"
r=$?
sed 's/^/# /' "$KD_TMP/proc.err" | head -5
check "procedure.sh stops when MIRROR_TOKEN is not set (exit 3, $r)" test "$r" -eq 3
check "its message names the variable and where it is needed" \
	grep -q "set MIRROR_TOKEN .*env:MIRROR_TOKEN is needed by extra-rebuild.txt line 1" "$KD_TMP/proc.err"
check "it stops before the clone" test ! -e "$W"
check "it prints no value" sh -c "! grep -qF labVal-91Xq-z7 '$KD_TMP/proc.out' '$KD_TMP/proc.err'"
MIRROR_TOKEN="m" bash "$S" "$W" >/dev/null 2>"$KD_TMP/proc2.err"
check "with MIRROR_TOKEN set, it names LAB_INDEX_TOKEN" grep -q "set LAB_INDEX_TOKEN" "$KD_TMP/proc2.err"
