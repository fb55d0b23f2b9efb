#!/bin/sh
# replay-lock.sh - replay installs the dossier's lock (issue 28 point 3):
# the demo, with two wheels from a find-links folder outside the project
# (alpha, and beta pulled in by it), checked and written as a dossier; the
# lock names them by file name and digest, the folder as one to provide
# (never the building machine's file: URL); the replay finds them in the
# recorded folder, shows and runs pip install --require-hashes --no-deps
# on requirements-lock.txt and passes; the folder moved, the replay stops
# before running anything naming the files and --find-links; alpha 1.0
# rebuilt with other contents in the folder given by --find-links makes
# the locked replay fail naming alpha and both digests; --unlocked
# resolves the rebuild file again (and installs the new alpha); `kernodeck
# diff` of the two dossiers shows the other artefact.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python replay-lock "python3-torch is needed" torch
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
export HOME="$KD_TMP/home"
mkdir -p "$HOME"

DEMO="$KD_TMP/demo"
EXT="$KD_TMP/ext"
"$KD_BIN" demo "$DEMO" --create-only >/dev/null 2>&1
"$PY" "$MKW" "$EXT" alpha 1.0 --requires "beta==2.0" >/dev/null
"$PY" "$MKW" "$EXT" beta 2.0 >/dev/null
A_SHA=$(sha256sum "$EXT/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
# delta from a local git repository at a commit, epsilon a folder of the
# project: pip's hash-checking mode refuses both
VCS="$KD_TMP/vcsrepo"
delta_epsilon "$VCS" "$DEMO"
printf -- '--no-index\n--find-links wheels\n--find-links %s\nkd-demo-tokenizer==1.0.0\nalpha==1.0\ngit+file://%s@%s#egg=delta\n./pkgs/epsilon\n' \
	"$EXT" "$VCS" "$DC" >"$DEMO/requirements-rebuild.txt"
printf 'alpha==1.0\nbeta==2.0\ndelta==0.1\nepsilon==0.1\n' >>"$DEMO/reference/freeze.txt"
commit_and_check "$DEMO" "alpha from a folder of wheels, delta from git, epsilon a folder" "the demo with alpha"
D="$DEMO/kernodeck/dossier"
check "the dossier's lock pins alpha by its digest" \
	grep -qx "alpha==1.0 --hash=sha256:$A_SHA" "$D/requirements-lock.txt"
check "the lock holds no file: URL of the building machine; the folder is one to provide" sh -c "
! grep -q 'file://$EXT' '$D/requirements-lock.txt' '$D/pylock.toml' &&
! grep -q -- '^--find-links $EXT' '$D/requirements-lock.txt' &&
grep -q '^# find-links $EXT: a folder outside the project, to be provided' '$D/requirements-lock.txt' &&
grep -q '^--find-links wheels\$' '$D/requirements-lock.txt'"
check "requirements-lock-direct.txt: delta at its commit, epsilon the project's folder" sh -c "
grep -qx 'git+file://$VCS@$DC#egg=delta' '$D/requirements-lock-direct.txt' &&
grep -qx './pkgs/epsilon' '$D/requirements-lock-direct.txt' &&
grep -q '^# not hash-checkable by pip, installed after this lock by requirements-lock-direct.txt: delta==0.1' '$D/requirements-lock.txt' &&
grep -q ' requirements-lock-direct.txt\$' '$D/SHA256SUMS'"
check "pylock.toml: alpha by its path under find-links/ext, the folder to provide named" "$PY" -c "
import tomllib; d = tomllib.load(open('$D/pylock.toml', 'rb'))
by = {p['name']: p for p in d['packages']}
w = by['alpha']['wheels'][0]
assert w == {'name': 'alpha-1.0-py3-none-any.whl', 'path': 'find-links/ext/alpha-1.0-py3-none-any.whl',
             'hashes': {'sha256': '$A_SHA'}}, w
fl = {f['name']: f for f in d['tool']['kernodeck']['find-links']}
assert fl['ext']['recorded'] == '$EXT' and 'path' not in fl['ext'], fl
assert sorted(fl['ext']['files']) == ['alpha-1.0-py3-none-any.whl', 'beta-2.0-py3-none-any.whl'], fl
assert 'provide' in fl['ext'] and '--find-links' in fl['ext']['provide'], fl
assert fl['wheels']['path'] == 'wheels', fl"
check "README: the folder outside the project named as one to provide, with its files" \
	grep -qF "To provide where the lock is installed (\`kernodeck replay --find-links DIR\`, \`FIND_LINKS=DIR bash procedure.sh\`): the find-links folder \`$EXT\` of the building machine, outside the project, which held \`alpha-1.0-py3-none-any.whl\`, \`beta-2.0-py3-none-any.whl\`." "$D/README.md"
check "procedure.sh: the recorded folder when it is there, else FIND_LINKS=DIR asked for" sh -c "
grep -qF 'if [ -d $EXT ]; then FL+=(--find-links $EXT)' '$D/procedure.sh' &&
grep -qF 'set FIND_LINKS=DIR' '$D/procedure.sh' &&
grep -qF -- '--require-hashes --no-deps \"\${FL[@]}\" -r' '$D/procedure.sh'"

"$KD_BIN" replay "$D" --workdir "$KD_TMP/w1" --yes >"$KD_TMP/r1.out" 2>"$KD_TMP/r1.err"
r=$?
check "the locked replay passes (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 20 "$KD_TMP/r1.out" | sed 's/^/#   /'
check "its plan shows the locked install, the recorded folder found, the lock's lines" sh -c "
grep -q -- '--find-links $EXT --require-hashes --no-deps -r kernodeck/requirements-lock.txt\$' '$KD_TMP/r1.err' &&
grep -q 'here $EXT (the recorded folder, found here)' '$KD_TMP/r1.err' &&
grep -q '^        alpha==1.0 --hash=sha256:$A_SHA\$' '$KD_TMP/r1.err'"
check "the plan and procedure.sh install delta and epsilon after the lock, no dependencies" sh -c "
grep -q -- '--report kernodeck/pip-report-direct.part.json --no-deps -r kernodeck/requirements-lock-direct.txt\$' '$KD_TMP/r1.err' &&
grep -q '^        git+file://$VCS@$DC#egg=delta\$' '$KD_TMP/r1.err' &&
grep -qF -- '--no-deps -r \"\$DOSSIER/requirements-lock-direct.txt\"' '$D/procedure.sh'"
check "delta and epsilon installed, delta's commit checked by its direct_url.json" sh -c "
grep -q 'commits_checked: 1' '$KD_TMP/w1/kernodeck/rebuild.yaml' &&
'$KD_TMP/w1/.venv-rebuild/bin/python' -c 'import delta, epsilon'"
check "it installed exactly the locked alpha" sh -c "
grep -q 'lock: kernodeck/requirements-lock.txt' '$KD_TMP/w1/kernodeck/rebuild.yaml' &&
grep -q 'sha256: $A_SHA' '$KD_TMP/w1/kernodeck/rebuild.yaml'"

# the folder moved: named as missing, nothing run
mv "$EXT" "$KD_TMP/moved"
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w0" --yes >"$KD_TMP/r0.out" 2>"$KD_TMP/r0.err"
r=$?
check "the folder moved: the replay stops before running anything (exit $r)" sh -c "
[ $r -eq 2 ] && [ ! -e '$KD_TMP/w0/.git' ]"
check "it names the missing files, the recorded folder and --find-links" sh -c "
grep -q 'MISSING: the lock.s alpha-1.0-py3-none-any.whl, beta-2.0-py3-none-any.whl, from the find-links folder $EXT' '$KD_TMP/r0.err' &&
grep -q 'give the folder that holds them with --find-links DIR' '$KD_TMP/r0.err'"

# the same version with other contents in the folder given by --find-links
"$PY" -c "
import zipfile; z = zipfile.ZipFile('$KD_TMP/moved/alpha-1.0-py3-none-any.whl', 'a')
z.writestr('alpha/changed.py', 'x = 1\n'); z.close()"
A2_SHA=$(sha256sum "$KD_TMP/moved/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
"$KD_BIN" replay "$D" --workdir "$KD_TMP/w2" --find-links "$KD_TMP/moved" --yes >"$KD_TMP/r2.out" 2>"$KD_TMP/r2.err"
r=$?
check "a changed alpha 1.0: the locked replay fails (exit $r)" test "$r" -eq 1
check "the failure names alpha and both digests" sh -c "
grep -q 'requirement: alpha==1.0' '$KD_TMP/w2/kernodeck/rebuild.yaml' &&
grep -q 'alpha==1.0: SHA-256 $A2_SHA, the lock has $A_SHA' '$KD_TMP/w2/kernodeck/rebuild.yaml' &&
grep -q 'alpha==1.0' '$KD_TMP/r2.out'"
grep -i 'alpha' "$KD_TMP/r2.out" | head -n 3 | sed 's/^/# /'
check "--find-links DIR: the plan gives pip that folder" \
	grep -q "here $KD_TMP/moved (--find-links)" "$KD_TMP/r2.err"

"$KD_BIN" replay "$D" --workdir "$KD_TMP/w3" --yes --unlocked --find-links "$KD_TMP/moved" \
	>"$KD_TMP/r3.out" 2>"$KD_TMP/r3.err"
r=$?
check "--unlocked resolves the rebuild file again (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 20 "$KD_TMP/r3.out" | sed 's/^/#   /'
check "--unlocked: the plan installs requirements-rebuild.txt" \
	grep -q -- "--report kernodeck/pip-report.part.json --find-links $KD_TMP/moved -r requirements-rebuild.txt\$" "$KD_TMP/r3.err"
check "--unlocked: the new alpha was installed" grep -q "sha256: $A2_SHA" "$KD_TMP/w3/kernodeck/rebuild.yaml"

# diff: the same version from another artefact
"$KD_BIN" dossier "$KD_TMP/w3" >/dev/null 2>&1
"$KD_BIN" diff "$D" "$KD_TMP/w3/kernodeck/dossier" >"$KD_TMP/diff.out" 2>&1
r=$?
check "diff: the dossiers differ (exit $r)" test "$r" -eq 1
check "diff: alpha's other artefact is named with both digests" \
	grep -q "digest *alpha: 1.0 sha256:$A_SHA -> 1.0 sha256:$A2_SHA" "$KD_TMP/diff.out"
grep -i alpha "$KD_TMP/diff.out" | head -n 3 | sed 's/^/# /'
