#!/bin/sh
# rebuild-lock.sh - where each distribution came from and its digest
# (issue 28): stage 3 runs pip install --report; rebuild.yaml's origins name
# the find-links folder or the index of each wheel with its SHA-256,
# whether it was asked for, and for Debian's torch (system site packages)
# its Debian package; the dossier's pylock.toml is valid PEP 751 (read by
# Python's tomllib, checked field by field) and requirements-lock.txt
# installs exactly the same artefacts with pip's --require-hashes, and
# refuses a wheel rebuilt with other contents under the same version.
# Wheels built here (mkwheel.py), a find-links folder and an HTTP index on
# 127.0.0.1 (httpd.py with KD_HTTPD_INDEX).
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python rebuild-lock "$PY with venv, pip, yaml and tomllib is needed" venv pip yaml tomllib
# pip reads these: this test names its own sources
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_NO_INDEX PIP_REQUIRE_HASHES \
	PIP_CONFIG_FILE
export PIP_CONFIG_FILE=/dev/null

P="$KD_TMP/proj"
git_project "$P"
"$PY" "$MKW" "$P/wheels" alpha 1.0 --requires "beta==2.0" >/dev/null
"$PY" "$MKW" "$P/wheels" beta 2.0 >/dev/null
printf -- '--no-index\n--find-links ./wheels\nalpha==1.0\n' >"$P/requirements-rebuild.txt"
venv_reference "$P"
A_SHA=$(sha256sum "$P/wheels/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
B_SHA=$(sha256sum "$P/wheels/beta-2.0-py3-none-any.whl" | cut -d' ' -f1)

"$KD_BIN" check "$P" --stage rebuild >"$KD_TMP/out" 2>"$KD_TMP/err"
rc=$?
check "find-links: the rebuild passes" [ "$rc" -eq 0 ]
check "find-links: the rebuild.origins row passes" grep -q "pass rebuild.origins .*2 installed by pip" "$KD_TMP/out"
check "pip ran with --report, its report kept, the part pip wrote removed" sh -c "
grep -A14 'step: pip-install' '$P/kernodeck/rebuild.yaml' | grep -q -- '--report' &&
test -s '$P/kernodeck/pip-report.json' && test ! -e '$P/kernodeck/pip-report.part.json'"
origin() { # NAME FIELD: a field of NAME's origin entry in rebuild.yaml
	"$PY" - "$P/kernodeck/rebuild.yaml" "$1" "$2" <<'PYEOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for p in d["origins"]["packages"]:
    if p["canonical_name"] == sys.argv[2]:
        v = p
        for k in sys.argv[3].split("."):
            v = v.get(k) if isinstance(v, dict) else None
        print("" if v is None else str(v).lower() if isinstance(v, bool) else v)
PYEOF
}
check "alpha: from the find-links folder as the rebuild file names it" \
	test "$(origin alpha origin) $(origin alpha source)" = "find-links ./wheels"
check "alpha: its SHA-256 is the wheel's" test "$(origin alpha sha256)" = "$A_SHA"
check "alpha: requested by the rebuild file" test "$(origin alpha requested)" = "true"
check "beta: pulled in as a dependency, with its digest" \
	test "$(origin beta requested) $(origin beta sha256)" = "false $B_SHA"
TORCH_DEB=$(dpkg-query -W -f '${Version}' python3-torch 2>/dev/null)
if [ -n "$TORCH_DEB" ]; then
	check "torch: provided by the system, its Debian package and version" \
		test "$(origin torch origin) $(origin torch provider.kind) $(origin torch provider.package) $(origin torch provider.version)" = \
		"system debian python3-torch $TORCH_DEB"
else
	skip "torch: provided by the system, its Debian package and version" "no python3-torch"
fi
check "pip (the venv has none of its own): provided by the system, no digest" \
	test "$(origin pip origin) $(origin pip sha256)" = "system "

# the dossier carries the lock
"$KD_BIN" dossier "$P" >/dev/null 2>"$KD_TMP/derr"
D="$P/kernodeck/dossier"
check "the dossier holds pylock.toml and requirements-lock.txt, in SHA256SUMS" sh -c "
grep -q ' pylock.toml\$' '$D/SHA256SUMS' && grep -q ' requirements-lock.txt\$' '$D/SHA256SUMS'"
"$PY" - "$D/pylock.toml" "$A_SHA" "$B_SHA" >"$KD_TMP/pylock.out" 2>&1 <<'PYEOF'
# PEP 751's rules, field by field (packaging.python.org/specifications/pylock-toml)
import re, sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
assert d["lock-version"] == "1.0", "lock-version"
assert isinstance(d["created-by"], str) and d["created-by"], "created-by"
assert re.fullmatch(r"==\d+\.\d+\.\*", d["requires-python"]), "requires-python"
names = [p["name"] for p in d["packages"]]
assert len(names) == len(set(names)), "one entry per package"
for p in d["packages"]:
    assert p["name"] == re.sub(r"[-_.]+", "-", p["name"]).lower(), "normalised name"
    kinds = [k for k in ("vcs", "directory", "archive") if k in p]
    files = [k for k in ("sdist", "wheels") if k in p]
    assert (len(kinds) == 1 and not files) or (not kinds and files), "one source kind"
    for w in p.get("wheels", []):
        assert "url" in w or "path" in w, "a wheel's url or path"
        assert w["name"].endswith(".whl") and w["name"].startswith(p["name"].replace("-", "_")), "wheel name"
        assert w["hashes"] and all(re.fullmatch(r"[0-9a-f]{64}", v) for v in w["hashes"].values()), "hashes"
by = {p["name"]: p for p in d["packages"]}
assert set(by) == {"alpha", "beta"}, "what pip installed, only: %s" % sorted(by)
assert by["alpha"]["version"] == "1.0" and by["alpha"]["wheels"][0]["hashes"]["sha256"] == sys.argv[2]
assert by["beta"]["wheels"][0]["hashes"]["sha256"] == sys.argv[3]
assert by["alpha"]["tool"]["kernodeck"]["project-path"] == "wheels/alpha-1.0-py3-none-any.whl"
# a local artefact by its path under the project, never the building machine's file: URL
assert by["alpha"]["wheels"][0]["path"] == "wheels/alpha-1.0-py3-none-any.whl" and "url" not in by["alpha"]["wheels"][0]
assert d["tool"]["kernodeck"]["find-links"] == [{"name": "wheels", "path": "wheels", "recorded": d["tool"]["kernodeck"]["find-links"][0]["recorded"],
    "files": ["alpha-1.0-py3-none-any.whl", "beta-2.0-py3-none-any.whl"]}], d["tool"]["kernodeck"]["find-links"]
assert by["alpha"]["tool"]["kernodeck"]["requested"] is True
assert by["beta"]["tool"]["kernodeck"]["requested"] is False
prov = {p["name"]: p for p in d["tool"]["kernodeck"]["provided"]}
assert "pip" in prov and prov["pip"]["origin"] == "system", "provided packages named"
print("pylock ok")
PYEOF
check "pylock.toml: valid PEP 751, field by field (tomllib)" grep -qx "pylock ok" "$KD_TMP/pylock.out"
grep -v "pylock ok" "$KD_TMP/pylock.out" | sed 's/^/# /'
check "requirements-lock.txt: pip's hash-checking form with the rebuild file's sources" sh -c "
grep -qx -- '--no-index' '$D/requirements-lock.txt' &&
grep -qx -- '--find-links ./wheels' '$D/requirements-lock.txt' &&
grep -qx 'alpha==1.0 --hash=sha256:$A_SHA' '$D/requirements-lock.txt' &&
grep -qx 'beta==2.0 --hash=sha256:$B_SHA' '$D/requirements-lock.txt'"
check "README: the Python and packages table names origin and digest" \
	grep -qF "| alpha | 1.0 | find-links \`./wheels\` | \`sha256:$A_SHA\` |" "$D/README.md"

# pip installs exactly the locked artefacts from it (a fresh venv, the
# project folder, no resolution) ...
"$PY" -m venv --system-site-packages --without-pip "$KD_TMP/v1"
(cd "$P" && "$KD_TMP/v1/bin/python" -m pip install -q --require-hashes --no-deps \
	-r "$D/requirements-lock.txt") >"$KD_TMP/pip1" 2>&1
check "the lock installs with --require-hashes --no-deps" \
	"$KD_TMP/v1/bin/python" -c 'import alpha, beta'
# ... and refuses the same version rebuilt with other contents
"$PY" -c "
import zipfile; z = zipfile.ZipFile('$P/wheels/alpha-1.0-py3-none-any.whl', 'a')
z.writestr('alpha/changed.py', 'x = 1\n'); z.close()"
"$PY" -m venv --system-site-packages --without-pip "$KD_TMP/v2"
(cd "$P" && "$KD_TMP/v2/bin/python" -m pip install --require-hashes --no-deps \
	-r "$D/requirements-lock.txt") >"$KD_TMP/pip2" 2>&1
r=$?
check "a rebuilt alpha 1.0 is refused by its digest" sh -c "[ $r -ne 0 ] && grep -q 'alpha==1.0 from' '$KD_TMP/pip2'"

# an HTTP index on 127.0.0.1: the index URL is the origin
Q="$KD_TMP/q"
git_project "$Q"
mkdir -p "$KD_TMP/idx"
"$PY" "$MKW" "$KD_TMP/idx" gamma 3.0 >/dev/null
G_SHA=$(sha256sum "$KD_TMP/idx/gamma-3.0-py3-none-any.whl" | cut -d' ' -f1)
mkfifo "$KD_TMP/hold"
KD_HTTPD_INDEX="$KD_TMP/idx" "$PY" "$KD_SRCDIR/tests/helpers/httpd.py" <"$KD_TMP/hold" >"$KD_TMP/port" &
hpid=$!
exec 9>"$KD_TMP/hold"
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$KD_TMP/port" ] && break; sleep 0.2; done
PORT=$(sed -n 's/^http=\([0-9]*\).*/\1/p' "$KD_TMP/port")
printf -- '--index-url http://127.0.0.1:%s/simple\ngamma==3.0\n' "$PORT" >"$Q/requirements-rebuild.txt"
venv_reference "$Q"
P="$Q"
"$KD_BIN" check "$Q" --stage rebuild >"$KD_TMP/qout" 2>"$KD_TMP/qerr"
rc=$?
check "index: the rebuild passes" [ "$rc" -eq 0 ]
check "index: gamma's origin is the index, with the wheel's digest" \
	test "$(origin gamma origin) $(origin gamma source) $(origin gamma sha256)" = \
	"index http://127.0.0.1:$PORT/simple $G_SHA"
"$KD_BIN" dossier "$Q" >/dev/null 2>&1
check "index: pylock.toml names the index and the wheel's URL" "$PY" -c "
import tomllib; d = tomllib.load(open('$Q/kernodeck/dossier/pylock.toml', 'rb'))
p = d['packages'][0]
assert p['index'] == 'http://127.0.0.1:$PORT/simple', p
assert p['wheels'][0]['url'] == 'http://127.0.0.1:$PORT/files/gamma-3.0-py3-none-any.whl', p
assert p['wheels'][0]['hashes'] == {'sha256': '$G_SHA'}"
check "index: requirements-lock.txt keeps the index" \
	grep -qx -- "--index-url http://127.0.0.1:$PORT/simple" "$Q/kernodeck/dossier/requirements-lock.txt"
exec 9>&-
wait "$hpid" 2>/dev/null
