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
