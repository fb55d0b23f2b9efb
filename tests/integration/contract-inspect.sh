#!/bin/sh
# `kernodeck inspect requirements|freeze|pip-check|pip-inspect FILE`: what
# kernodeck understood, as JSON and YAML, on the real outputs of
# tests/fixtures/pip (pasted in public issues, sources in its
# SOURCES.md); a missing, binary or malformed input exits 2 naming it.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
F="$KD_SRCDIR/tests/fixtures/pip"
j() { # j KIND FILE PYTHON-ASSERTIONS (d is the tree)
	"$KD_BIN" inspect "$1" "$2" --format json >"$KD_TMP/j.json" 2>"$KD_TMP/j.err" &&
	"$PY" -c "import json; d = json.load(open('$KD_TMP/j.json')); $3"
}
check "pip-check 02: six missing" j pip-check "$F/pip_check/02.txt" "
p = d['problems']; assert len(p) == 6 and all(x['kind'] == 'missing' for x in p)
assert p[3]['package'] == 'ipython' and p[3]['requirement'] == 'backports.shutil-get-terminal-size'
assert p[0]['line'] == 'pytest 3.3.1 requires funcsigs, which is not installed.'"
check "pip-check 03: unsupported, noise around it" j pip-check "$F/pip_check/03.txt" "
p = d['problems']; assert [(x['package'], x['version'], x['kind']) for x in p] == [
    ('pycp2k', '0.2.2', 'unsupported'), ('transitions', '0.7.2', 'unsupported')], p"
check "pip-check 08: conflict and the exit code shown" j pip-check "$F/pip_check/08.txt" "
p = d['problems']; assert len(p) == 1 and p[0]['requirement'] == 'WebOb>=1.3.1'
assert p[0]['dependency'] == 'WebOb' and p[0]['installed_version'] == '0.8' and d['exit_code'] == 1"
check "freeze 01: 24 entries, kinds, local paths warned" j freeze "$F/pip_freeze/01.txt" "
p = d['packages']; assert len(p) == 24
k = [x['kind'] for x in p]; assert k.count('direct_url') == 13 and k.count('editable_local') == 1 and k.count('pinned') == 10
e = [x for x in p if x['kind'] == 'editable_local'][0]; assert (e['name'], e['version']) == ('ranger', '0.1.dev0')
assert len([w for w in d['warnings'] if w['kind'] == 'local-path']) == 14"
check "freeze 08: arbitrary equality" j freeze "$F/pip_freeze/08.txt" "
p = d['packages']; assert len(p) == 66
a = [x for x in p if x['kind'] == 'arbitrary']; assert a[0]['name'] == 'distro-info' and a[0]['version'] == '0.21ubuntu2'"
check "freeze k01: credentials not repeated" sh -c "
'$KD_BIN' inspect freeze '$F/pip_freeze/k01-noise.txt' --format yaml >'$KD_TMP/k.yaml' &&
grep -q 'kind: credential' '$KD_TMP/k.yaml' && ! grep -q 's3cretpass' '$KD_TMP/k.yaml'"
check "requirements 10: one requirement, 18 hashes" j requirements "$F/requirements/10.txt" "
r = d['requirements']; assert len(r) == 1 and len(r[0]['hashes']) == 18 and d['hash_mode'] is True
assert r[0]['hashes'][0].startswith('sha256:')"
check "requirements 05: find-links and markers" j requirements "$F/requirements/05.txt" "
assert len(d['requirements']) == 13 and len(d['find_links']) == 2
assert d['extra_index_urls'] == ['https://download.pytorch.org/whl/cu121']"
check "requirements 01: the missing -r is a finding" j requirements "$F/requirements/01.txt" "
assert d['includes'] == ['torch_common.txt']
assert any(f['code'] == 'include' and f['line'] == 3 for f in d['findings'])"
check "pip-inspect: packages with kind and location" j pip-inspect "$F/inventory/new-cpu.json" "
p = {x['canonical_name']: x for x in d['packages']}
assert p['torch']['version'] == '2.3.0+cpu' and p['torch']['local_label'] == 'cpu'
assert p['pillow']['location'] == '/usr/lib/python3/dist-packages'"
expect_exit 2 "a missing file exits 2" "$KD_BIN" inspect freeze "$KD_TMP/nope.txt" --format json
printf 'numpy==1.0\n\000\001\002' >"$KD_TMP/bin.txt"
"$KD_BIN" inspect requirements "$KD_TMP/bin.txt" >/dev/null 2>"$KD_TMP/bin.err"
rc=$?
check "a binary file exits 2" [ "$rc" -eq 2 ]
check "... naming the file and the line" grep -q "bin.txt:2" "$KD_TMP/bin.err"
printf '{"installed": [\n' >"$KD_TMP/trunc.json"
expect_exit 2 "a truncated pip inspect exits 2" "$KD_BIN" inspect pip-inspect "$KD_TMP/trunc.json"
