#!/bin/sh
# tools/dossier-same.sh - proof that a change of the code changed no
# behaviour: the demo's dossier written by two kernodeck binaries, compared.
#
# Usage: tools/dossier-same.sh OLD_KERNODECK NEW_KERNODECK [WORKDIR]
#
# Each binary creates the demo (kernodeck demo DIR --create-only) and walks
# it headless (kernodeck check DIR); the two kernodeck/dossier/ folders are
# then compared file by file, after what differs between any two runs is
# put aside in both: the demo's folder, its commit id (the demo's commit
# carries the time it was made), the reference identity that follows from
# it, times and durations, the digests of files that hold those, the
# names of logs (they carry their time), the folder of each binary (the
# probe is found beside it), the process ids and the order of the two
# side-by-side steps in cgroup names, the seed PyTorch drew at random, the
# digest of pyvenv.cfg (it names the venv's folder) and the sizes in the
# dossier's list of its copies (each copy is compared itself).  Everything else must be
# byte-identical: the same files, the same rows, the same procedure.
#
# KD_SAME_REUSE=1 compares the dossiers already in WORKDIR again (after a
# change of this script) without making them anew.
#
# Needs Debian's python3-torch (the demo runs on the CPU).  Exit status: 0
# the dossiers agree; 1 they differ (the differences are printed); 2 bad
# usage; 3 a binary could not make its dossier.
set -u
[ $# -ge 2 ] || { echo "usage: $0 OLD_KERNODECK NEW_KERNODECK [WORKDIR]" >&2; exit 2; }
old=$1 new=$2
work=${3:-$(mktemp -d "${TMPDIR:-/tmp}/dossier-same.XXXXXX")}
mkdir -p "$work" || exit 3
export HOME="$work/home" LANG=C.UTF-8 NO_COLOR=1
mkdir -p "$HOME"
unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CONFIG_FILE

# make NAME BINARY: the demo in $work/NAME/demo (the same folder name for
# both: the dossier names it), checked; its dossier there.
make_one() {
	dir="$work/$1/demo"
	rm -rf "$work/$1"
	mkdir -p "$work/$1"
	"$2" demo "$dir" --create-only >"$work/$1.demo.log" 2>&1 ||
		{ echo "$0: $2 demo failed (see $work/$1.demo.log)" >&2; exit 3; }
	"$2" check "$dir" >"$work/$1.check.out" 2>"$work/$1.check.err"
	echo "kernodeck check exit $?" >"$work/$1.rc"
	[ -d "$dir/kernodeck/dossier" ] ||
		{ echo "$0: $2 check wrote no dossier (see $work/$1.check.err)" >&2; exit 3; }
}

# norm NAME FILE: FILE of NAME's dossier with what differs between runs put
# aside.
norm() {
	dir="$work/$1/demo"
	commit=$(git -C "$dir" rev-parse HEAD 2>/dev/null || echo none)
	refid=$(sed -n 's/^reference_identity: *//p' "$dir/kernodeck/dossier/dossier.yaml" | head -1)
	[ -n "$refid" ] || refid=none
	# the binary's own folder (the probe is found beside it)
	case $1 in old) bin=$old ;; *) bin=$new ;; esac
	bindir=$(cd "$(dirname "$bin")" && pwd)
	sed -e "s#$dir#DIR#g" -e "s#$bindir#BINDIR#g" \
	    -e "s#$commit#COMMIT#g" -e "s#$(echo "$commit" | cut -c1-12)#COMMIT12#g" \
	    -e "s#$refid#REFID#g" -e "s#$(echo "$refid" | cut -c1-12)#REFID12#g" \
	    -e 's#[0-9]\{4\}-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9]:[0-9][0-9]\(\.[0-9]*\)\{0,1\}\(Z\|[+-][0-9][0-9]:\{0,1\}[0-9][0-9]\)\{0,1\}#TIME#g' \
	    -e 's#[0-9]\{8\}T[0-9]\{6\}Z\(\.[0-9]*\)\{0,1\}#STAMP#g' \
	    -e 's#\b\(elapsed_s\|seconds\|ms\|duration\|wall_s\|took\)\("\{0,1\}: *\)[0-9.e+-]*#\1\2N#g' \
	    -e 's#\(initial_seed"\{0,1\}: *\)"\{0,1\}[0-9]*"\{0,1\}#\1SEED#g' \
	    -e 's#kernodeck-[0-9]*\.[0-9]*#kernodeck-PID.N#g' \
	    -e 's#\(pyvenv_sha256: \)[0-9a-f]*#\1DIGEST#' \
	    -e 's#[0-9][0-9.]* ms\b#N ms#g' \
	    -e 's#[0-9][0-9]*\.[0-9][0-9]* *s\b#N s#g' \
	    "$2"
}

if [ -z "${KD_SAME_REUSE:-}" ]; then
	make_one old "$old"
	make_one new "$new"
fi
fail=0
if ! cmp -s "$work/old.rc" "$work/new.rc"; then
	echo "differ: $(cat "$work/old.rc") / $(cat "$work/new.rc")"
	fail=1
fi
# each file as "NAME-WITH-STAMPS-ASIDE FILE", sorted: the two lists pair up
# line by line when they hold the same names
for side in old new; do
	(cd "$work/$side/demo/kernodeck/dossier" && find . -type f |
		sed 's#^\(.*\)$#\1 \1#; s#[0-9]\{8\}T[0-9]\{6\}Z\(\.[0-9]*\)\{0,1\}\(.* \)#STAMP\2#' |
		LC_ALL=C sort) >"$work/$side.pairs"
	cut -d' ' -f1 "$work/$side.pairs" >"$work/$side.files"
done
if ! diff -u "$work/old.files" "$work/new.files"; then
	echo "differ: the dossiers hold different files"
	fail=1
fi
same=0 differ=0
echo "0 0" >"$work/counts"
paste -d' ' "$work/old.pairs" "$work/new.pairs" | while read -r g f g2 h; do
	[ "$g" = "$g2" ] || continue
	norm old "$work/old/demo/kernodeck/dossier/$f" >"$work/a"
	norm new "$work/new/demo/kernodeck/dossier/$h" >"$work/b"
	case "$g" in
	./dossier.yaml)
		# the sizes of the copies listed under files: (each copy is
		# compared here itself)
		sed 's#^\(  size: \)[0-9]*$#\1N#' "$work/a" >"$work/a2" && mv "$work/a2" "$work/a"
		sed 's#^\(  size: \)[0-9]*$#\1N#' "$work/b" >"$work/b2" && mv "$work/b2" "$work/b" ;;
	./SHA256SUMS|*/SHA256SUMS)
		# a digest is that of a file compared here: the names suffice
		sed 's#^[0-9a-f]\{64\} #DIGEST #' "$work/a" >"$work/a2" && mv "$work/a2" "$work/a"
		sed 's#^[0-9a-f]\{64\} #DIGEST #' "$work/b" >"$work/b2" && mv "$work/b2" "$work/b" ;;
	esac
	if cmp -s "$work/a" "$work/b"; then
		same=$((same + 1))
	else
		differ=$((differ + 1))
		fail=1
		echo "differ: $g"
		diff -u "$work/a" "$work/b" | sed -n '3,40p'
	fi
	echo "$same $differ" >"$work/counts"
done
read -r same differ <"$work/counts"
[ "$differ" -eq 0 ] || fail=1
echo "dossier-same: $same files the same, $differ different (times, paths, the demo's commit aside); work folder $work"
exit $fail
