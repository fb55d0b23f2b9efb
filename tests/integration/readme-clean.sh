#!/bin/sh
# readme-clean.sh - one text cleaner for everything a person reads (issue
# 26, point 4): node files of a fleet (untrusted: any node may write one)
# whose values hold C1 controls, bidirectional overrides and isolates,
# zero-width and other invisible format characters; the dossier's README
# (read with cat) and `kernodeck diff` show each as \uHHHH, \UHHHHHHHH or
# \xHH and hold none raw.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
P=$KD_TMP/p
git_project "$P" >/dev/null 2>&1
code_reference "$P" >"$P/kernodeck/reference.yaml"

# hidden FILE: code points that must never be written raw (C0 but tab and
# newline, DEL, C1, bidi, zero-width and format characters, tags)
hidden() {
	$PY -c "
import re, sys
t = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
bad = re.findall('[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufffd]|[\U000e0000-\U000e007f]', t)
print(len(bad))" "$1"
}

# two node files of job 12: n2's os value hides characters
mkdir -p "$P/kernodeck/fleet/12"
$PY - "$P/kernodeck/fleet/12" <<'PYEOF'
import sys, yaml
d = sys.argv[1]
def node(name, os_value, status):
    return {"schema": 1, "job": "12", "run": "r1", "node": name, "rank": 0, "host": name,
            "started": "2026-01-01T00:00:00Z", "elapsed_s": 1, "status": status,
            "stages": [{"id": "system", "status": status,
                        "rows": [{"id": "system.os", "status": status, "observed": os_value,
                                  "expected": "Debian"}]}]}
evil = "Debian\u202e21 \u200bzero\u2066iso\u2069 \x85c1 \ufeffbom \U000e0041tag \x1b]0;T\x07"
for name, v, st in (("n1", "Debian GNU/Linux 12", "passed"), ("n2", evil, "failed"),
                    ("n3", "Debian GNU/Linux 12", "passed")):
    yaml.safe_dump(node(name, v, st), open("%s/%s.yaml" % (d, name), "w"), allow_unicode=True)
PYEOF
check "the node file's value holds the characters (the test's input)" $PY -c "
import sys, yaml
v = yaml.safe_load(open(sys.argv[1]))['stages'][0]['rows'][0]['observed']
assert all(c in v for c in '\u202e\u200b\x85\ufeff\U000e0041\x1b'), ascii(v)" "$P/kernodeck/fleet/12/n2.yaml"

"$KD_BIN" diff "$P/kernodeck/fleet/12" >"$KD_TMP/diff.out" 2>&1
check "kernodeck diff FLEET: the outlier's value printed" grep -q 'n2: Debian' "$KD_TMP/diff.out"
check "kernodeck diff FLEET: no raw control or invisible character ($(hidden "$KD_TMP/diff.out"))" \
	test "$(hidden "$KD_TMP/diff.out")" -eq 0
check "kernodeck diff FLEET: each shown as an escape" \
	grep -qF 'Debian\u202e21 \u200bzero\u2066iso\u2069 \u0085c1 \ufeffbom \U000e0041tag' "$KD_TMP/diff.out"

"$KD_BIN" dossier "$P" >"$KD_TMP/dossier.out" 2>&1
R=$P/kernodeck/dossier/README.md
check "the dossier README has the fleet's table" grep -q '^## The fleet' "$R"
check "README.md: no raw control or invisible character ($(hidden "$R"))" test "$(hidden "$R")" -eq 0
check "README.md: each shown as an escape" \
	grep -qF 'Debian\u202e21 \u200bzero\u2066iso\u2069 \u0085c1 \ufeffbom \U000e0041tag' "$R"
check "the dossier verifies (the README's digest is of the cleaned text)" \
	sh -c "cd '$P/kernodeck/dossier' && sha256sum -c --quiet SHA256SUMS"
