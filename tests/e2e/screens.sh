# tests/e2e/screens.sh - screen captures compared with the stored
# tests/e2e/*.screen files: the frame with a checks table, the deviation
# dialog, the check detail, the help overlay and the too-small notice, at a
# fixed size.  Volatile parts are masked (reference identity, project path,
# times, the stage's summary and its own action keys).  After a deliberate
# change of layout, KD_UPDATE_SCREENS=1 rewrites the stored captures; look at
# the diff before committing them.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/tmux-lib.sh"
. "$KD_SRCDIR/tests/e2e/tui-lib.inc"
trap 'tm_stop_all; rm -rf "$KD_TMP"' EXIT

tui_require "screens: frame" "screens: dialog" "screens: detail" "screens: help" "screens: notice"

# mask the stage header's summary and the stage's own actions, which
# belong to the stage modules, not to the layout
mask_screen() {
	sed -e '1s/ref [0-9a-f]\{12\}.*/ref XXXXXXXXXXXX  PROJECT/' \
	    -e "s|$KD_TMP[^│]*│|PROJECT │|g" \
	    -e "s|$KD_TMP[^ ]*|PROJECT|g" \
	    -e '2s/│ \([A-Za-z]*\)  .* \(failed\|passed\|pending\|deviation\|stale\|not checked\)\(.*\)$/│ \1  SUMMARY \2\3/' \
	    -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9][ T][0-9][0-9]:[0-9][0-9]\(:[0-9][0-9]\)\{0,1\}Z/TIME/g' \
	    -e '$s/n next .*q quit$/n next  ACTIONS  q quit/' \
	    -e 's/[ ]*$//'
}

P="$KD_TMP/project"
mkdir -p "$P/kernodeck/logs"
i=1
while [ $i -le 60 ]; do
	if [ $i -eq 30 ]; then
		echo "ERROR: Could not find a version that satisfies the requirement torch==9.9"
	else
		echo "line $i: Collecting package-$i"
	fi
	i=$((i + 1))
done >"$P/kernodeck/logs/install.log"
cat >"$P/kernodeck/state.yaml" <<'EOS'
schema: 1
current: system
stages:
  system:
    status: failed
    checked_at: 2026-01-01T00:00:00Z
    rows:
    - id: screens.install
      status: fail
      label: pip install -r requirements-rebuild.txt
      observed: exit 1
      expected: exit 0
      evidence: logs/install.log
      first_error: 'ERROR: Could not find a version that satisfies the requirement torch==9.9'
      hint: pick a torch version published for this platform and Python
    - id: screens.arch
      status: pass
      label: architecture
      observed: x86_64
      expected: x86_64
    - id: screens.driver
      status: warn
      label: a label long enough to be cut by the table on an 80 column terminal
      observed: 535.104.05 (supports CUDA 12.2)
      expected: 525 or later
    - id: screens.unicode
      status: fail
      label: "caf\u00e9 \u6f22\u5b57 and an escape \e[2J"
      observed: "\u00e9t\u00e9"
      expected: "\u2264 1e-5"
EOS

tm_walk 80 24 "$P"
tm_wait "2/7 System" >/dev/null
check "screens: frame with a checks table at 80x24" screen_matches frame-80x24
tm_keys d
tm_wait "1/3 What differs" >/dev/null
check "screens: the deviation dialog" screen_matches deviation-dialog
tm_keys Escape
tm_gone "1/3 What differs" >/dev/null
tm_keys Enter
tm_wait "Check detail" >/dev/null
check "screens: the check detail" screen_matches check-detail
tm_keys Escape
tm_gone "Check detail" >/dev/null
tm_keys '?'
tm_wait "Everywhere" >/dev/null
check "screens: the help overlay" screen_matches help
tm_keys Escape
tm_gone "Everywhere" >/dev/null
tm_resize 60 15
tm_wait "needs a terminal" >/dev/null
check "screens: the notice below 80x24" screen_matches notice-60x15
tm_resize 80 24
tm_wait "2/7 System" >/dev/null
tm_keys q
check "screens: quits with status 0" tm_wait "kd-exited-with-0"
