#!/bin/sh
# The commands that work on a project open it one way (cmd_open_project,
# the .project of their entry): a state file that cannot be read is exit
# 2, a lock another kernodeck holds exit 3, each said as "kernodeck NAME:"
# with the file or the holder, and nothing written; act's listing reads
# without the lock.
. "$KD_SRCDIR/tests/lib.sh"
P="$KD_TMP/p"
"$KD_BIN" demo "$P" --create-only >/dev/null 2>&1
check "a project to open" test -f "$P/kernodeck/reference.yaml"
cp "$P/kernodeck/state.yaml" "$KD_TMP/state.good" 2>/dev/null || : >"$KD_TMP/state.good"
cp "$KD_SRCDIR/tests/fixtures/bad-state/07-not-mapping.yaml" "$P/kernodeck/state.yaml"
cp "$P/kernodeck/state.yaml" "$KD_TMP/state.bad"
# run NAME ARGS...: the command on the project, its exit in r, stderr in NAME.err
run() { n=$1; shift; "$KD_BIN" "$n" "$@" >/dev/null 2>"$KD_TMP/$n.err"; r=$?; }
for c in init check deviate act capture dossier; do
	case $c in
	deviate) run deviate "$P" --stage system --check system.gpu --why because ;;
	act) run act "$P" --stage system ;;
	*) run $c "$P" ;;
	esac
	check "$c: a state file that cannot be read is exit 2 (exit $r)" test "$r" -eq 2
	check "$c: said as \"kernodeck $c:\", naming state.yaml" \
		grep -q "^kernodeck $c: .*state.yaml" "$KD_TMP/$c.err"
	check "$c: the state file is as it was" cmp -s "$P/kernodeck/state.yaml" "$KD_TMP/state.bad"
done
cp "$KD_TMP/state.good" "$P/kernodeck/state.yaml"
[ -s "$P/kernodeck/state.yaml" ] || rm -f "$P/kernodeck/state.yaml"
hold_lock "$P/kernodeck/lock"
for c in check deviate dossier; do
	case $c in
	deviate) run deviate "$P" --stage system --check system.gpu --why because ;;
	*) run $c "$P" ;;
	esac
	check "$c: a held lock is exit 3 (exit $r)" test "$r" -eq 3
	check "$c: says who holds it" grep -q "^kernodeck $c: .*alice on elsewhere" "$KD_TMP/$c.err"
done
run act "$P" --stage system
check "act's listing reads without the lock (exit $r)" test "$r" -eq 0
release_lock "$P/kernodeck/lock"
