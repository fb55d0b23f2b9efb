#!/bin/sh
# Stage 3 on a base environment (python.install.base): a venv made here
# holding local wheels is the base; the rebuilt .venv-rebuild imports the
# base's packages, installs the project's own on top (a newer version of a
# base package wins), and its inventory tells which is which; pip check
# sees the base's packages too.  The second check reuses the venv; a base
# changed after the rebuild (a wheel added), one moved, one missing each
# fail naming the path.  Then a base that reaches Debian's torch through
# its own system site packages: the demo's rebuild, compute and sample
# stages pass on it.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
need_python rebuild-base "$PY with venv and pip is needed" venv pip ensurepip
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_DISABLE_PIP_VERSION_CHECK=1
W="$KD_TMP/wheels"
"$PY" "$MKW" "$W" basepkg 1.0 >/dev/null
"$PY" "$MKW" "$W" shared 1.0 >/dev/null
"$PY" "$MKW" "$W" shared 2.0 >/dev/null
"$PY" "$MKW" "$W" needy 1.0 --requires "absentdep>=1" >/dev/null
"$PY" "$MKW" "$W" extra 1.0 >/dev/null
"$PY" "$MKW" "$KD_TMP/proj-wheels" projpkg 1.0 >/dev/null
cp "$W"/shared-2.0-*.whl "$KD_TMP/proj-wheels/"

B="$KD_TMP/base"
"$PY" -m venv "$B"
"$B/bin/python" -m pip install -q --no-index --find-links "$W" basepkg==1.0 shared==1.0 \
	needy==1.0 --no-deps >"$KD_TMP/base-install.log" 2>&1
check "setup: the base venv holds basepkg, shared 1.0 and needy" \
	"$B/bin/python" -c "import basepkg, shared, needy; assert shared.__version__ == '1.0'"

P="$KD_TMP/proj"
mkdir -p "$P/kernodeck"
cp -a "$KD_TMP/proj-wheels" "$P/wheels"
printf -- '--no-index\n--find-links ./wheels\nprojpkg==1.0\nshared==2.0\n' >"$P/requirements-rebuild.txt"
printf 'schema: 1\npython:\n  interpreter: /usr/bin/python3\n  install:\n    base: %s\n' "$B" \
	>"$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage rebuild --force --format yaml >"$KD_TMP/r1.out" 2>"$KD_TMP/r1.err"
rc=$?
check "base: the rebuild passes (exit 0)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || grep -B2 -A6 'status: fail' "$KD_TMP/r1.out" | head -30 | sed 's/^/# /'
V="$P/.venv-rebuild"
check "base: the base's wheel imports from the rebuilt interpreter" \
	"$V/bin/python" -c "import basepkg; assert basepkg.__file__.startswith('$B/')"
check "base: the project's own requirement is installed in the venv" \
	"$V/bin/python" -c "import projpkg; assert projpkg.__file__.startswith('$V/')"
check "base: the rebuilt shared 2.0 wins over the base's 1.0" \
	"$V/bin/python" -c "import shared; assert shared.__version__ == '2.0', shared.__file__"
check "base: the base itself is not changed (shared 1.0 still there)" \
	"$B/bin/python" -c "import shared; assert shared.__version__ == '1.0'"
SP=$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
check "base: the layer is a .pth naming the base's site-packages" \
	grep -qx "$(realpath "$B")/lib/python3.[0-9]*/site-packages" "$SP/zz-kernodeck-base.pth"
check "base: the venv is made by the base's interpreter, without system site packages" \
	sh -c "grep -q 'include-system-site-packages = false' '$V/pyvenv.cfg' &&
	       grep -q 'command = $B/bin/python3 -m venv' '$V/pyvenv.cfg'"
check "base: the stage's rows say the base is there and the venv layered" sh -c "
	grep -A1 'id: rebuild.base\$' '$KD_TMP/r1.out' | grep -q 'status: pass' &&
	grep -A1 'id: rebuild.base.layer\$' '$KD_TMP/r1.out' | grep -q 'status: pass'"
check "inventory: pip freeze --all of the venv lists both" sh -c "
	grep -qx 'basepkg==1.0' '$P/kernodeck/installed-after.txt' &&
	grep -qx 'projpkg==1.0' '$P/kernodeck/installed-after.txt'"
# origin NAME: which list of inventory.origin holds NAME (rebuild.yaml)
origin() { "$PY" -c "
import json, sys
o = json.load(open(sys.argv[1]))['stages'][0]['observations']['inventory']['origin']
print(' '.join(k for k in ('rebuilt', 'base', 'system') if sys.argv[2] in o[k]))" "$KD_TMP/r1.json" "$1"; }
"$KD_BIN" check "$P" --stage rebuild --force --format json >"$KD_TMP/r1.json" 2>/dev/null
check "inventory: basepkg is marked as the base's" [ "$(origin basepkg==1.0)" = base ]
check "inventory: projpkg is marked as rebuilt" [ "$(origin projpkg==1.0)" = rebuilt ]
check "inventory: shared 2.0 is rebuilt, shared 1.0 the base's" \
	[ "$(origin shared==2.0) $(origin shared==1.0)" = "rebuilt base" ]
check "inventory: the base's own inventory is saved" \
	grep -qx 'basepkg==1.0' "$P/kernodeck/base-inventory.txt"
check "the second check reuses the venv (the base unchanged)" \
	grep -q '"status": "reused"' "$KD_TMP/r1.json"
check "the digest of the base's inventory is stored with the build" \
	sh -c "grep -A4 '    base:' '$P/kernodeck/state.yaml' | grep -q 'digest: [0-9a-f]\{64\}'"

# pip check covers the base's packages too: needy lacks absentdep
"$KD_BIN" check "$P" --stage contract --force --format yaml >"$KD_TMP/c.out" 2>/dev/null
check "pip check: the base's broken requirement is reported" \
	grep -q "needy 1.0 requires absentdep" "$P/kernodeck/pip-check.txt"
check "pip check: the problem is labelled as the base environment's" \
	grep -q "label: '.base environment, outside the venv. missing needy 1.0'" "$KD_TMP/c.out"
check "contract: the base's packages are counted apart from the system's" \
	sh -c "grep -A4 '      rebuilt:' '$KD_TMP/c.out' | tr -d '\n' | grep -q 'system: 0 *base: 2'"

# a base changed after the rebuild: a wheel added
"$B/bin/python" -m pip install -q --no-index --find-links "$W" extra==1.0 >/dev/null 2>&1
"$KD_BIN" check "$P" --stage rebuild --force --format yaml >"$KD_TMP/ch.out" 2>"$KD_TMP/ch.err"
rc=$?
check "changed: check exits 1" [ "$rc" -eq 1 ]
check "changed: the row names the path and what was added" sh -c "
	grep -A1 'id: rebuild.base\$' '$KD_TMP/ch.out' | grep -q 'status: fail' &&
	grep -q '$B changed since .venv-rebuild was built on it' '$KD_TMP/ch.out' &&
	grep -q '1 added, 0 removed' '$KD_TMP/ch.out'"
check "changed: nothing was installed" sh -c "! grep -q 'pip install -r' '$KD_TMP/ch.err'"
check "changed: the venv is left as it was" [ -x "$V/bin/python" ]
"$B/bin/python" -m pip uninstall -q -y extra >/dev/null 2>&1
expect_exit 0 "changed back: the venv is reused again" "$KD_BIN" check "$P" --stage rebuild --force --quiet

# a missing base, then the same venv moved
mv "$B" "$KD_TMP/base-moved"
"$KD_BIN" check "$P" --stage rebuild --force --format yaml >"$KD_TMP/mi.out" 2>/dev/null
rc=$?
check "missing: check exits 1" [ "$rc" -eq 1 ]
check "missing: the row says the base is missing, naming the path" sh -c "
	grep -A1 'id: rebuild.base\$' '$KD_TMP/mi.out' | grep -q 'status: fail' &&
	grep -q 'the base environment $B is missing' '$KD_TMP/mi.out'"
"$KD_BIN" check "$P" --stage reference --format yaml >"$KD_TMP/ref.out" 2>/dev/null
check "missing: stage 1 fails python.install.base too" \
	sh -c "grep -A1 'id: python.install.base\$' '$KD_TMP/ref.out' | grep -q 'status: fail'"
sed -i "s|base: .*|base: $KD_TMP/base-moved|" "$P/kernodeck/reference.yaml"
"$KD_BIN" check "$P" --stage rebuild --force --format yaml >"$KD_TMP/mv.out" 2>/dev/null
rc=$?
check "moved: check exits 1" [ "$rc" -eq 1 ]
check "moved: the row says where it was made" \
	grep -q "$KD_TMP/base-moved was made in $B and moved" "$KD_TMP/mv.out"
printf 'schema: 1\npython:\n  install:\n    base: [a, list]\n' >"$KD_TMP/bad.yaml"
mkdir -p "$KD_TMP/bad/kernodeck" && cp "$KD_TMP/bad.yaml" "$KD_TMP/bad/kernodeck/reference.yaml"
"$KD_BIN" check "$KD_TMP/bad" --stage reference >/dev/null 2>"$KD_TMP/bad.err"
rc=$?
check "a base that is not text: an input error (exit 2) naming the line" \
	sh -c "[ $rc -eq 2 ] && grep -q 'reference.yaml:4:.*base' '$KD_TMP/bad.err'"

# a base that reaches Debian's torch through its system site packages
if ! "$PY" -c "import torch, numpy" 2>/dev/null; then
	skip "base with Debian's torch" "Debian's python3-torch is not installed"
	exit 0
fi
export HOME="$KD_TMP/home"
mkdir -p "$HOME"
T="$KD_TMP/torchbase"
"$PY" -m venv --system-site-packages --without-pip "$T"
D="$KD_TMP/demo"
"$KD_BIN" demo "$D" --create-only >/dev/null 2>&1
sed -i "s|^    system_site_packages: true\$|    system_site_packages: false\n    base: $T|" \
	"$D/kernodeck/reference.yaml"
check "torch base: the reference names the base, no system site packages" \
	sh -c "grep -q 'base: $T' '$D/kernodeck/reference.yaml' && grep -q 'system_site_packages: false' '$D/kernodeck/reference.yaml'"
"$KD_BIN" check "$D" >"$KD_TMP/t.out" 2>"$KD_TMP/t.err"
rc=$?
check "torch base: kernodeck check DIR passes all seven stages (exit 0)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || grep -E '^[0-9] |^  fail' "$KD_TMP/t.out" | head -20 | sed 's/^/# /'
for s in rebuild compute sample; do
	check "torch base: stage $s passed" grep -Eq "^[0-9] $s +passed" "$KD_TMP/t.out"
done
check "torch base: torch is imported from Debian's dist-packages, through the base" \
	"$D/.venv-rebuild/bin/python" -c "import torch; assert torch.__file__.startswith('/usr/lib/python3/dist-packages/')"
check "torch base: the rebuilt venv has no system site packages of its own" \
	grep -q 'include-system-site-packages = false' "$D/.venv-rebuild/pyvenv.cfg"
check "torch base: torch is the base's, the tokenizer rebuilt" sh -c "
	grep -q '^torch==' '$D/kernodeck/base-inventory.txt' &&
	! grep -q 'kd-demo-tokenizer' '$D/kernodeck/base-inventory.txt' &&
	sed -n '/^  origin:/,/^  [a-z]/p' '$D/kernodeck/rebuild.yaml' | sed -n '/rebuilt:/,/system:/p' | grep -q 'kd-demo-tokenizer==1.0.0'"
check "torch base: the dossier records the base and how the venv is layered on it" sh -c "
	grep -q '^base:' '$D/kernodeck/dossier/dossier.yaml' &&
	grep -q 'mechanism: .*zz-kernodeck-base.pth' '$D/kernodeck/dossier/dossier.yaml' &&
	grep -q 'Base environment: the venv was layered on' '$D/kernodeck/dossier/README.md'"
bash "$D/kernodeck/dossier/procedure.sh" "$KD_TMP/byhand" >"$KD_TMP/proc.out" 2>&1
rc=$?
check "torch base: procedure.sh by hand passes (exit 0)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || tail -n 15 "$KD_TMP/proc.out" | sed 's/^/# /'
grep -v '^#' "$D/.venv-rebuild/lib/python3.11/site-packages/zz-kernodeck-base.pth" >"$KD_TMP/pth1"
grep -v '^#' "$KD_TMP/byhand/.venv-rebuild/lib/python3.11/site-packages/zz-kernodeck-base.pth" >"$KD_TMP/pth2"
check "torch base: procedure.sh layers its venv on the base the same way" \
	sh -c "cmp -s '$KD_TMP/pth1' '$KD_TMP/pth2' && grep -qx /usr/lib/python3/dist-packages '$KD_TMP/pth2'"
check "torch base: procedure.sh found the base as the dossier recorded it" \
	sh -c "! grep -q 'the base environment differs' '$KD_TMP/proc.out' && grep -q 'reread: the output agrees' '$KD_TMP/proc.out'"
BASE="$KD_TMP/nowhere" bash "$D/kernodeck/dossier/procedure.sh" "$KD_TMP/byhand2" >"$KD_TMP/proc2.out" 2>&1
rc=$?
check "torch base: procedure.sh with a missing base stops, naming it" \
	sh -c "[ $rc -eq 1 ] && grep -q 'the base environment $KD_TMP/nowhere is missing' '$KD_TMP/proc2.out'"
"$KD_BIN" replay "$D/kernodeck/dossier" --workdir "$KD_TMP/replay" --yes >"$KD_TMP/replay.out" 2>&1
rc=$?
check "torch base: the dossier replays in a new folder (exit 0)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || tail -n 15 "$KD_TMP/replay.out" | sed 's/^/# /'
check "torch base: replay's plan shows the base's interpreter making the venv" \
	grep -qx "    \$ $T/bin/python3 -m venv .venv-rebuild" "$KD_TMP/replay.out"
sed -n 's/^    \$ //p' "$KD_TMP/replay.out" | sort -u >"$KD_TMP/plan"
cat "$KD_TMP"/replay/kernodeck/logs/* | sed -n 's/^# kernodeck: run //p' | sort -u >"$KD_TMP/ran"
check "torch base: every command the replay ran was in its plan (the base queries too)" \
	sh -c "! comm -13 '$KD_TMP/plan' '$KD_TMP/ran' | grep -q . && test \$(wc -l <'$KD_TMP/ran') -ge 9"
comm -13 "$KD_TMP/plan" "$KD_TMP/ran" | cut -c1-200 | sed 's/^/# not in the plan: /'
check "torch base: the replayed venv is layered on the base" \
	grep -qx "$T/lib/python3.11/site-packages" "$KD_TMP/replay/.venv-rebuild/lib/python3.11/site-packages/zz-kernodeck-base.pth"
