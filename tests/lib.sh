# tests/lib.sh - helpers for script tests (sourced).  Prints TAP lines.
#   ok NAME / notok NAME / skip NAME WHY / check NAME CMD... / tmpdir
set -u
: "${KD_BIN:?KD_BIN not set: run through make check or tests/run-all.sh}"
: "${KD_SRCDIR:?}"
export LANG=C.UTF-8 LC_ALL=C.UTF-8
export NO_COLOR=1
export KD_SHARE_DIR="${KD_SHARE_DIR:-$KD_SRCDIR/share}"
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
skip() { n=$1; shift; echo "ok - $n # SKIP $*"; }
# check NAME CMD...: ok when CMD succeeds
check() { n=$1; shift; if "$@"; then ok "$n"; else notok "$n"; fi; }
# expect_exit CODE NAME CMD...: ok when CMD exits with CODE
expect_exit() { c=$1; n=$2; shift 2; "$@"; r=$?; if [ "$r" -eq "$c" ]; then ok "$n"; else notok "$n (exit $r, wanted $c)"; fi; }
KD_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kdtest.XXXXXX")
trap 'rm -rf "$KD_TMP"' EXIT
# A git identity for the repositories tests make.
export GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=Tester GIT_COMMITTER_EMAIL=t@example.org

# Set-up the script tests share.
# need_python NAME WHY MODULE...: unless /usr/bin/python3 imports every
# MODULE, report NAME skipped (WHY) and end the test.
need_python() {
	_n=$1 _why=$2
	shift 2
	for _m in "$@"; do
		if ! [ -x /usr/bin/python3 ] || ! /usr/bin/python3 -c "import $_m" 2>/dev/null; then
			skip "$_n" "$_why"
			exit 0
		fi
	done
}
# ref_python_cpu: the python and system part of a test project's
# reference: /usr/bin/python3 with its system packages (no pip of its own),
# on the CPU.  Printed after the rest: { cat <<YEOF ... YEOF; ref_python_cpu; }
ref_python_cpu() {
	printf '%s\n' 'python:' '  interpreter: /usr/bin/python3' '  install:' \
		'    system_site_packages: true' '    without_pip: true' 'system:' '  backend: cpu'
}
# offline_pip: the shell's PIP_* settings kept from the tests' rebuilds,
# pip offline and silent about its own version.
offline_pip() {
	for _v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$_v"; done
	export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
}
# result_loss_csv ROWS SAMPLE: the result section of a reference whose
# trainer writes out/loss.csv (columns step, loss; ROWS steps, the steps in
# reference/steps.txt, the reference curve in reference/loss.csv), run on
# SAMPLE.
result_loss_csv() {
	printf '%s\n' 'result:' '  format: csv' '  outputs: out' '  files: [loss.csv]' '  count: 1' \
		"  shape: [$1, 1]" '  dtype: number' '  finite: true' '  ids:' '    column: step' \
		'    reference: reference/steps.txt' '    order: same' \
		'  criterion: the same loss at every step' '  rule:' '    kind: tolerance' \
		'    atol: 1.0e-5' '    rtol: 1.0e-4' '    nan_equal: false' \
		'    justification: deterministic CPU training in float32, printed with six decimals' \
		'  sample:' "    path: $2" '  example:' '    path: reference/loss.csv'
}
# need_driver NAME: the stage driver (tests/helpers/stage-driver) is built,
# or the test NAME fails and ends.
DRV="${KD_BUILDDIR:-.}/tests/helpers/stage-driver"
need_driver() {
	if ! [ -x "$DRV" ]; then
		notok "$1: tests/helpers/stage-driver is built"
		exit 0
	fi
}
# git_project DIR: DIR/kernodeck and main.py committed in a git repository.
git_project() {
	mkdir -p "$1/kernodeck"
	echo "print('hello')" >"$1/main.py"
	git -C "$1" init -q && git -C "$1" add main.py && git -C "$1" commit -qm init
}
# code_reference DIR: reference.yaml text for git_project's commit, run as
# `python main.py` by /usr/bin/python3 (the python mapping comes last).
code_reference() {
	printf 'schema: 1\ncode:\n  commit: %s\n  entry_point: [python, main.py]\npython:\n  interpreter: /usr/bin/python3\n' \
		"$(git -C "$1" rev-parse HEAD)"
}
# venv_reference DIR [LINE...]: DIR/kernodeck/reference.yaml for a rebuild
# with /usr/bin/python3, system site packages and no pip; each LINE is
# added under python: ("inventory: x.txt").
venv_reference() {
	_d=$1
	shift
	mkdir -p "$_d/kernodeck"
	{
		printf 'schema: 1\npython:\n  interpreter: /usr/bin/python3\n'
		for _l in "$@"; do printf '  %s\n' "$_l"; done
		printf '  install:\n    system_site_packages: true\n    without_pip: true\n'
	} >"$_d/kernodeck/reference.yaml"
}
# hold_lock LOCKFILE: another process (pid in $holder) takes LOCKFILE as a
# kernodeck of "alice on elsewhere" would, until release_lock.
hold_lock() {
	/usr/bin/python3 - "$1" <<'PYEOF' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, b"user: alice\nhost: elsewhere\npid: %d\nsince: 2026-01-01T00:00:00Z\n" % os.getpid())
open(sys.argv[1] + ".ready", "w").close()
time.sleep(30)
PYEOF
	holder=$!
	_i=0
	while [ ! -f "$1.ready" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
}
# release_lock LOCKFILE: stop hold_lock's process.
release_lock() {
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	rm -f "$1.ready"
}
# nobody_bin: make $KD_BIN (and $KD_SHARE_DIR) something nobody (65534)
# can run, for the tests that drop root with setpriv.  A checkout under a
# folder only root may enter (root's home, mode 0700) keeps nobody out of
# the binary: then it is copied into $KD_TMP (made reachable), with share/.
# Returns 1, saying why, when even the copy cannot be run.
nobody_bin() {
	_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	# shellcheck disable=SC2086
	# through env, as the tests run it: setpriv itself may still reach a
	# path that the program it starts cannot
	if $_as env "$KD_BIN" --version >/dev/null 2>&1 && $_as test -r "$KD_SHARE_DIR/probe.py"; then
		return 0
	fi
	chmod 755 "$KD_TMP"
	mkdir -p "$KD_TMP/nobody-bin"
	cp "$KD_BIN" "$KD_TMP/nobody-bin/kernodeck" && cp -R "$KD_SHARE_DIR" "$KD_TMP/nobody-bin/share" &&
		chmod -R a+rX "$KD_TMP/nobody-bin" || return 1
	KD_BIN=$KD_TMP/nobody-bin/kernodeck
	KD_SHARE_DIR=$KD_TMP/nobody-bin/share
	export KD_BIN KD_SHARE_DIR
	# shellcheck disable=SC2086
	if ! $_as env "$KD_BIN" --version >/dev/null 2>&1; then
		echo "# nobody cannot run a copy of kernodeck in $KD_TMP either (a folder above it is closed?)"
		return 1
	fi
	echo "# kernodeck copied to $KD_TMP/nobody-bin: nobody cannot reach the checkout's binary"
}
# plan_vs_logs ERR WORKDIR MIN: a replay's plan (the "    $ ARGV" lines of
# its stderr ERR) and what ran (the "# kernodeck: run ARGV" lines the runner
# wrote in WORKDIR's logs, and the "run:" vector stage 2 records of each
# query in system.yaml) are the same vectors: at least MIN in the plan,
# none run that the plan did not show, every one run but those the plan
# says run "only when" something happens.  The plan's lines are left in
# $KD_TMP/plan.
plan_vs_logs() {
	sed -n 's/^    \$ //p' "$1" | sort -u >"$KD_TMP/plan"
	awk '/^    # / { cond = ($0 ~ /only when/) } /^    \$ / { if (!cond) print substr($0, 7) }' "$1" |
		sort -u >"$KD_TMP/plan-sure"
	{
		cat "$2"/kernodeck/logs/* 2>/dev/null | sed -n 's/^# kernodeck: run //p'
		/usr/bin/python3 -c "
import sys, yaml
def walk(t):
    if isinstance(t, dict):
        if isinstance(t.get('run'), str) and 'path' in t:
            print(t['run'])
        for v in t.values():
            walk(v)
    elif isinstance(t, list):
        for v in t:
            walk(v)
walk(yaml.safe_load(open(sys.argv[1])))" "$2/kernodeck/system.yaml"
	} | sort -u >"$KD_TMP/ran"
	check "replay: the plan names at least $3 commands ($(wc -l <"$KD_TMP/plan"))" \
		test "$(wc -l <"$KD_TMP/plan")" -ge "$3"
	check "replay: every command run is in the plan, argument for argument" \
		sh -c "! comm -13 '$KD_TMP/plan' '$KD_TMP/ran' | grep -q ."
	check "replay: every command of the plan ran (but those it runs only when needed)" \
		sh -c "! comm -23 '$KD_TMP/plan-sure' '$KD_TMP/ran' | grep -q ."
	comm -3 "$KD_TMP/plan" "$KD_TMP/ran" | sed 's/^/# differs: /'
}
# delta_epsilon VCS DEMO: two packages pip's hash-checking mode refuses,
# built from setup.py alone (the system's setuptools, no index): delta in a
# git repository VCS at one commit (its hash in $DC), epsilon a folder
# DEMO/pkgs/epsilon of the project (added to its index).
delta_epsilon() {
	mkdir -p "$1" "$2/pkgs/epsilon"
	printf 'from setuptools import setup\nsetup(name="delta", version="0.1", py_modules=["delta"])\n' >"$1/setup.py"
	echo 'X = 1' >"$1/delta.py"
	git -C "$1" init -q && git -C "$1" add . && git -C "$1" commit -qm delta
	DC=$(git -C "$1" rev-parse HEAD)
	printf 'from setuptools import setup\nsetup(name="epsilon", version="0.1", py_modules=["epsilon"])\n' \
		>"$2/pkgs/epsilon/setup.py"
	echo 'Y = 2' >"$2/pkgs/epsilon/epsilon.py"
	git -C "$2" add pkgs
}
# commit_and_check DEMO MESSAGE WHAT: commit DEMO's changes, point its
# reference at that commit and check it headless: a check "WHAT checks",
# with the lines that did not pass when it fails.
commit_and_check() {
	git -C "$1" commit -qam "$2"
	sed -i "s/^  commit: .*/  commit: $(git -C "$1" rev-parse HEAD)/" "$1/kernodeck/reference.yaml"
	"$KD_BIN" check "$1" --quiet >"$KD_TMP/check.out" 2>&1
	_r=$?
	check "$3 checks (exit $_r)" test "$_r" -eq 0
	[ "$_r" -eq 0 ] || grep -v ' pass ' "$KD_TMP/check.out" | head -n 20 | sed 's/^/#   /'
}
# alpha_wheels SCALE: alpha 1.0 built twice, as $KD_TMP/ext1 (alpha.scale's
# SCALE 1.0) and $KD_TMP/ext2 (SCALE), one version with two contents
# (tests/helpers/mkwheel.py, by $PY).
alpha_wheels() {
	for _x in 1 2; do
		"$PY" "$KD_SRCDIR/tests/helpers/mkwheel.py" "$KD_TMP/ext$_x" alpha 1.0 >/dev/null
		_s=1.0
		[ "$_x" = 2 ] && _s=$1
		"$PY" -c "
import zipfile, sys; z = zipfile.ZipFile(sys.argv[1], 'a')
z.writestr('alpha/scale.py', 'SCALE = %s\\n' % sys.argv[2]); z.close()" \
			"$KD_TMP/ext$_x/alpha-1.0-py3-none-any.whl" "$_s"
	done
}
# alpha_pair REPLACEMENT MESSAGE: the demo twice, as $P1 ($KD_TMP/p1,
# alpha from $KD_TMP/ext1) and its clone $P2 ($KD_TMP/p2, alpha from
# $KD_TMP/ext2: alpha_wheels first), with embed.py's normalising line
# replaced by REPLACEMENT (the output scaled by alpha.scale.SCALE) and
# committed as MESSAGE; each reference names its project's commit.
alpha_pair() {
	P1="$KD_TMP/p1"
	P2="$KD_TMP/p2"
	"$KD_BIN" demo "$P1" --create-only >/dev/null 2>&1
	printf -- '--no-index\n--find-links wheels\n--find-links %s\nkd-demo-tokenizer==1.0.0\nalpha==1.0\n' \
		"$KD_TMP/ext1" >"$P1/requirements-rebuild.txt"
	printf 'alpha==1.0\n' >>"$P1/reference/freeze.txt"
	"$PY" -c '
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("    y = (y / y.norm(dim=1, keepdim=True)).cpu()", sys.argv[2])
open(p, "w").write(s)' "$P1/embed.py" "$1"
	git -C "$P1" commit -qam "$2"
	sed -i "s/^  commit: .*/  commit: $(git -C "$P1" rev-parse HEAD)/" "$P1/kernodeck/reference.yaml"
	git clone -q "$P1" "$P2"
	sed -i "s|$KD_TMP/ext1|$KD_TMP/ext2|" "$P2/requirements-rebuild.txt"
	git -C "$P2" commit -qam "alpha from ext2"
	mkdir -p "$P2/kernodeck"
	sed "s/^  commit: .*/  commit: $(git -C "$P2" rev-parse HEAD)/" "$P1/kernodeck/reference.yaml" \
		>"$P2/kernodeck/reference.yaml"
}
