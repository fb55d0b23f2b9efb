#!/bin/sh
# `kernodeck capture` on a real venv made with /usr/bin/python3 -m venv:
# the interpreter, its version, pip freeze --all and pip inspect saved under
# the kernodeck folder and named in reference.yaml, the system row, and the
# exit statuses.  (The venv is made --without-pip, with Debian's pip linked
# in: ensurepip takes a quarter of a minute on a small machine.)
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! [ -d /usr/lib/python3/dist-packages/pip ]; then
	skip "capture" "$PY with Debian's pip is needed"
	exit 0
fi
if ! "$KD_BIN" capture --help >/dev/null 2>&1; then
	notok "capture: the command is wired in src/main.c"
	exit 0
fi

V="$KD_TMP/venv"
"$PY" -m venv --without-pip "$V"
SP=$(echo "$V"/lib/python3*/site-packages)
ln -s /usr/lib/python3/dist-packages/pip "$SP/pip"
ln -s /usr/lib/python3/dist-packages/pip-*.dist-info "$SP/"
mkdir "$SP/demo_pkg-2.5.dist-info"
printf 'Metadata-Version: 2.1\nName: demo-pkg\nVersion: 2.5\n' >"$SP/demo_pkg-2.5.dist-info/METADATA"
: >"$SP/demo_pkg-2.5.dist-info/RECORD"

P="$KD_TMP/proj"
mkdir -p "$P"
git -C "$P" init -q -b main
echo "print(1)" >"$P/run.py"
git -C "$P" add run.py && git -C "$P" commit -q -m one

"$KD_BIN" capture "$P" --python "$V/bin/python" >"$KD_TMP/out" 2>"$KD_TMP/err"
rc=$?
check "capture: exits 0" [ "$rc" -eq 0 ]
R="$P/kernodeck/reference.yaml"
check "capture: reference.yaml written" [ -f "$R" ]
check "capture: the venv's interpreter is recorded as given" grep -q "interpreter: $V/bin/python\$" "$R"
ver=$("$V/bin/python" -c 'import platform; print(platform.python_version())')
check "capture: its version is recorded" grep -q "version: \"\{0,1\}$ver" "$R"
check "capture: the freeze is named in the reference" grep -q "inventory: kernodeck/reference/pip-freeze.txt" "$R"
check "capture: pip freeze --all lists the venv's packages" grep -qx "demo-pkg==2.5" "$P/kernodeck/reference/pip-freeze.txt"
check "capture: ... pip itself included (--all)" grep -q "^pip==" "$P/kernodeck/reference/pip-freeze.txt"
check "capture: pip inspect is saved and named" grep -q "inspect: kernodeck/reference/pip-inspect.json" "$R"
check "capture: pip inspect is JSON listing the package" "$PY" -c "
import json; d = json.load(open('$P/kernodeck/reference/pip-inspect.json'))
assert any(p['metadata']['name'] == 'demo-pkg' for p in d['installed'])"
check "capture: the system row is recorded" sh -c "grep -q '^  os: ' '$R' && grep -q '^  arch: ' '$R' && grep -q '^  backend: ' '$R'"
check "capture: each program run has a log" sh -c "ls '$P/kernodeck/logs/' | grep -q capture-freeze"
check "capture: prints what it recorded" grep -q "demo-pkg\|packages:" "$KD_TMP/out"
check "capture: kernodeck's folder stays out of git status" sh -c "[ -z \"\$(git -C '$P' status --porcelain)\" ]"
check "capture: through .git/info/exclude, not .gitignore" sh -c "grep -qx '/kernodeck/' '$P/.git/info/exclude' && ! [ -e '$P/.gitignore' ]"

# the inventory now passes the reference's python.inventory check
"$KD_BIN" check "$P" --stage reference --format json --quiet >"$KD_TMP/r.json" 2>/dev/null
check "capture: the captured inventory passes its check" sh -c \
	"jq -e '.stages[0].rows[] | select(.id == \"python.inventory\") | .status == \"pass\"' '$KD_TMP/r.json' >/dev/null"

expect_exit 2 "capture: a missing interpreter is an input error" \
	"$KD_BIN" capture "$P" --python "$KD_TMP/nope/python"
expect_exit 3 "capture: an interpreter that cannot answer is an environment error" \
	"$KD_BIN" capture "$P" --python /bin/false
expect_exit 2 "capture: a missing project folder is an input error" \
	"$KD_BIN" capture "$KD_TMP/none"
expect_exit 2 "capture: bad usage" "$KD_BIN" capture --bogus

# The CUDA and ROCm recorded are those the interpreter's PyTorch was built
# with (torch.version.cuda and torch.version.hip, kept apart), not the
# driver's highest.  A marked stand-in module: this machine has no CUDA build.
mkdir -p "$SP/torch"
cat >"$SP/torch/__init__.py" <<'PY'
# stand-in for a CUDA build of PyTorch (kernodeck test of capture)
__version__ = "2.3.0+cu121"
class version:
    cuda = "12.1"
    hip = None
PY
"$KD_BIN" capture "$P" --python "$V/bin/python" >"$KD_TMP/out2" 2>"$KD_TMP/err2"
check "capture (torch): exits 0" [ "$?" -eq 0 ]
check "capture (torch): system.cuda is torch.version.cuda" grep -Eq '^  cuda: "?12\.1"?$' "$R"
check "capture (torch): no ROCm recorded (torch.version.hip is None)" sh -c "! grep -Eq '^  rocm: [0-9\"]' '$R'"
check "capture (torch): the backend follows the build" grep -q '^  backend: cuda$' "$R"

# the system row comes from the system stage's readers, under KD_SYSROOT: a
# fixture machine (Ubuntu 22.04, NVIDIA's proprietary driver, nvidia-smi)
# is what the reference records, not this machine
P3="$KD_TMP/proj3"
mkdir -p "$P3"
git -C "$P3" init -q -b main
echo "print(1)" >"$P3/run.py"
git -C "$P3" add run.py && git -C "$P3" commit -q -m one
KD_SYSROOT="$KD_SRCDIR/tests/fixtures/sysroot/nvidia-prop" \
	PATH="$KD_SRCDIR/tests/fixtures/bin-nvidia-ok:/usr/bin:/bin" \
	"$KD_BIN" capture "$P3" --python "$V/bin/python" >"$KD_TMP/out3" 2>"$KD_TMP/err3"
check "capture (KD_SYSROOT): exits 0" [ "$?" -eq 0 ]
R3="$P3/kernodeck/reference.yaml"
check "capture (KD_SYSROOT): the fixture's os-release is recorded" \
	grep -q '^  os: "\{0,1\}Ubuntu 22.04' "$R3"
check "capture (KD_SYSROOT): the fixture's NVIDIA GPU is recorded" \
	grep -q '^  gpu_vendor: nvidia$' "$R3"
