# kd-test: long (started first: see tests/run-all.sh)
# replay-plant.sh - a project whose entry point, while the sample stage of
# a replay runs, replaces a folder kernodeck writes (the outputs,
# kernodeck/logs, kernodeck/ itself) with a symbolic link to a folder
# outside the work folder.  The links are not in the repository, so the
# checks after the clone pass; what stops kernodeck is that it opens and
# creates below the work folder without following a link (src/lib/beneath.c)
# and checks the tree again after each stage.  Each replay must exit 2
# naming the link, and the folder outside must stay empty (reads:
# replay-plant-read.sh).  Both ways of
# opening are tried: openat2, and the component walk
# (KD_FAULT_NO_OPENAT2).
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/plant-lib.sh"

# plant NAME PATH MESSAGE [ENV=VALUE]: replay with the entry point
# planting PATH; exit 2, MESSAGE in the output, nothing outside
plant() {
	name=$1 where=$2 msg=$3
	shift 3
	rm -rf "$OUTSIDE" && mkdir -p "$OUTSIDE"
	W="$KD_TMP/w-$name"
	env "$@" KD_TEST_PLANT="$where" KD_TEST_OUTSIDE="$OUTSIDE" \
		timeout 300 "$KD_BIN" replay "$D" --workdir "$W" --yes </dev/null >"$KD_TMP/$name.out" 2>&1
	r=$?
	check "$name: exit 2" test "$r" -eq 2
	check "$name: the refusal names the link" grep -qF -- "$msg" "$KD_TMP/$name.out"
	check "$name: nothing written outside the work folder" test -z "$(ls -A "$OUTSIDE")"
	check "$name: the link was planted (the case is real)" test -L "$W/$where"
	grep "^kernodeck replay:" "$KD_TMP/$name.out" | tail -n 1 | sed "s|^|# $name: |"
	if [ "$r" -ne 2 ] || ! grep -qF -- "$msg" "$KD_TMP/$name.out"; then
		tail -n 6 "$KD_TMP/$name.out" | sed 's/^/#   /'
	fi
}

plant outputs outputs \
	"outputs in the work folder $KD_TMP/w-outputs is a symbolic link (to $OUTSIDE)" KD_X=1
plant state kernodeck \
	"kernodeck in the work folder $KD_TMP/w-state is a symbolic link (to $OUTSIDE)" KD_X=1
plant logs kernodeck/logs \
	"kernodeck/logs became a symbolic link (to $OUTSIDE) while stage sample ran" KD_X=1
plant state-walk kernodeck \
	"kernodeck in the work folder $KD_TMP/w-state-walk is a symbolic link (to $OUTSIDE)" \
	KD_FAULT_NO_OPENAT2=1

