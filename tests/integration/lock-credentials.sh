#!/bin/sh
# lock-credentials.sh - a credentialed index keeps its variable form in the
# dossier's lock (issue 28): an HTTP index on 127.0.0.1 that refuses a
# request without its Basic credentials (httpd.py, KD_HTTPD_INDEX_AUTH);
# the rebuild file names it as http://${IDX_USER}:${IDX_TOKEN}@.../simple,
# then the shell's PIP_INDEX_URL holds it with the credential written out.
# Both rebuilds pass; requirements-lock.txt and pylock.toml carry the
# variable form (pip expands ${NAME} in a requirements file), the dossier
# names what must be provided, the lock installs with the variables set,
# and the secret's value is in no file kernodeck wrote (state, logs,
# report, dossier).
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python lock-credentials "$PY with venv, pip and tomllib is needed" venv pip tomllib
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
export HOME="$KD_TMP/home"
mkdir -p "$HOME" "$KD_TMP/idx"
SECRET="kd-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
export IDX_USER=kdtest IDX_TOKEN="$SECRET"

"$PY" "$MKW" "$KD_TMP/idx" gamma 3.0 >/dev/null
mkfifo "$KD_TMP/hold"
KD_HTTPD_INDEX="$KD_TMP/idx" KD_HTTPD_INDEX_AUTH="kdtest:$SECRET" \
	"$PY" "$KD_SRCDIR/tests/helpers/httpd.py" <"$KD_TMP/hold" >"$KD_TMP/port" &
hpid=$!
exec 9>"$KD_TMP/hold"
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$KD_TMP/port" ] && break; sleep 0.2; done
PORT=$(sed -n 's/^http=\([0-9]*\).*/\1/p' "$KD_TMP/port")
HOSTP="127.0.0.1:$PORT"
check "the index refuses a request without its credentials" "$PY" -c "
import urllib.request, urllib.error
try:
    urllib.request.urlopen('http://$HOSTP/simple/gamma/')
except urllib.error.HTTPError as e:
    assert e.code == 401
else:
    raise SystemExit('answered')"

# the rebuild file's URL holds ${IDX_USER}:${IDX_TOKEN}
P="$KD_TMP/p"
git_project "$P"
printf -- '--index-url http://${IDX_USER}:${IDX_TOKEN}@%s/simple\ngamma==3.0\n' "$HOSTP" \
	>"$P/requirements-rebuild.txt"
venv_reference "$P"
"$KD_BIN" check "$P" --stage rebuild >"$KD_TMP/pout" 2>&1
r=$?
check "variables in the rebuild file's index URL: the rebuild passes (exit $r)" [ "$r" -eq 0 ]
[ "$r" -eq 0 ] || grep -v ' pass ' "$KD_TMP/pout" | head -n 10 | sed 's/^/#   /'
"$KD_BIN" dossier "$P" >/dev/null 2>"$KD_TMP/pderr"
D="$P/kernodeck/dossier"
check "requirements-lock.txt keeps the index URL's \${IDX_USER}:\${IDX_TOKEN}" \
	grep -qxF -- "--index-url http://\${IDX_USER}:\${IDX_TOKEN}@$HOSTP/simple" "$D/requirements-lock.txt"
check "pylock.toml's index keeps them too" "$PY" -c "
import tomllib; d = tomllib.load(open('$D/pylock.toml', 'rb'))
p = d['packages'][0]
assert p['name'] == 'gamma' and p['index'] == 'http://\${IDX_USER}:\${IDX_TOKEN}@$HOSTP/simple', p"
check "the dossier names IDX_USER and IDX_TOKEN as what must be provided" sh -c "
grep -q '^- .env:IDX_TOKEN.: set IDX_TOKEN in the environment' '$D/README.md' &&
grep -q '^- .env:IDX_USER.: set IDX_USER in the environment' '$D/README.md' &&
grep -qF 'if [ -z \"\${IDX_TOKEN:-}\" ]' '$D/procedure.sh'"
check "the secret's value is in no file kernodeck wrote (state, logs, report, dossier)" \
	sh -c "! grep -rqF -- '$SECRET' '$P/kernodeck'"
"$PY" -m venv --system-site-packages --without-pip "$KD_TMP/v1"
(cd "$P" && "$KD_TMP/v1/bin/python" -m pip install -q --require-hashes --no-deps \
	-r "$D/requirements-lock.txt") >"$KD_TMP/pip1" 2>&1
check "the lock installs with the variables set (pip expands them)" \
	"$KD_TMP/v1/bin/python" -c 'import gamma'

# the shell's PIP_INDEX_URL with the credential written out
Q="$KD_TMP/q"
git_project "$Q"
printf 'gamma==3.0\n' >"$Q/requirements-rebuild.txt"
venv_reference "$Q"
export PIP_INDEX_URL="http://kdtest:$SECRET@$HOSTP/simple"
"$KD_BIN" check "$Q" --stage rebuild >"$KD_TMP/qout" 2>&1
r=$?
check "PIP_INDEX_URL with a credential: the rebuild passes (exit $r)" [ "$r" -eq 0 ]
[ "$r" -eq 0 ] || grep -v ' pass ' "$KD_TMP/qout" | head -n 10 | sed 's/^/#   /'
"$KD_BIN" dossier "$Q" >/dev/null 2>"$KD_TMP/qderr"
E="$Q/kernodeck/dossier"
check "requirements-lock.txt names the index as \${PIP_INDEX_URL}" \
	grep -qxF -- '--index-url ${PIP_INDEX_URL}' "$E/requirements-lock.txt"
check "pylock.toml's index is \${PIP_INDEX_URL}" "$PY" -c "
import tomllib; d = tomllib.load(open('$E/pylock.toml', 'rb'))
assert d['packages'][0]['index'] == '\${PIP_INDEX_URL}', d['packages'][0]"
check "the dossier names PIP_INDEX_URL as what must be provided" \
	grep -q '^- .env:PIP_INDEX_URL.: set PIP_INDEX_URL in the environment' "$E/README.md"
check "the secret's value is in no file kernodeck wrote" sh -c "! grep -rqF -- '$SECRET' '$Q/kernodeck'"
"$PY" -m venv --system-site-packages --without-pip "$KD_TMP/v2"
(cd "$Q" && "$KD_TMP/v2/bin/python" -m pip install -q --require-hashes --no-deps \
	-r "$E/requirements-lock.txt") >"$KD_TMP/pip2" 2>&1
check "that lock installs with PIP_INDEX_URL set" "$KD_TMP/v2/bin/python" -c 'import gamma'
unset PIP_INDEX_URL
exec 9>&-
wait "$hpid" 2>/dev/null
