#!/bin/sh
# replay-plant-read.sh - reads below the work folder follow no link (issue
# 26, point 5): the demo's entry point, while the sample stage of a replay
# runs, replaces an output file or the ids file with a symbolic link to a
# copy outside the work folder that would pass.  The sample stage rereads
# below the work folder without following a link (beneath_open_read, through
# fsutil's readers), so its observation names the link and the replay stops.
. "$KD_SRCDIR/tests/lib.sh"
. "$KD_SRCDIR/tests/plant-lib.sh"
# plant_read NAME PATH COPY: COPY (in the demo) is the file put outside
plant_read() {
	name=$1 where=$2 copy=$3
	R="$KD_TMP/outside-read-$name"
	rm -rf "$R" && mkdir -p "$R" && cp "$DEMO/$copy" "$R/$(basename "$where")"
	W="$KD_TMP/w-$name"
	env KD_TEST_PLANT="$where" KD_TEST_OUTSIDE="$R/$(basename "$where")" \
		timeout 300 "$KD_BIN" replay "$D" --workdir "$W" --yes </dev/null >"$KD_TMP/$name.out" 2>&1
	r=$?
	check "$name: the replay does not pass (exit $r)" test "$r" -ne 0
	# the sample stage's observation records what its reread met
	check "$name: the reread refused the link, named (sample.yaml)" grep -qF -- \
		"$where in the work folder $W is a symbolic link (to $R/$(basename "$where")): kernodeck follows no link" \
		"$W/kernodeck/sample.yaml"
	check "$name: and the replay stopped on it" grep -qF -- "$where became a symbolic link" "$KD_TMP/$name.out"
	check "$name: the link was planted (the case is real)" test -L "$W/$where"
	if ! grep -qF -- "kernodeck follows no link" "$W/kernodeck/sample.yaml"; then
		tail -n 8 "$KD_TMP/$name.out" | sed 's/^/#   /'
	fi
}
plant_read read-output outputs/embeddings.npy reference/expected.npy
plant_read read-ids outputs/ids.txt sample/ids.txt
