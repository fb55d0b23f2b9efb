# tests/integration/hostile.sh - run the table of hostile inputs
# (tests/hostile/cases.tsv): each row makes an input with a generator
# (tests/hostile/gen.sh), runs one kernodeck command on it and checks
#   - the exit status is the one in the table (never a signal, never a
#     sanitizer report, never more than 30 s: a FIFO must not hang it);
#   - the output (stdout and stderr) holds the expected message;
#   - an input kernodeck refused (exit 2 or 3) is left byte for byte as it
#     was: nothing already saved is lost.
# Rows that need an unprivileged user run under setpriv as nobody when the
# tests run as root (they do here), as the user itself otherwise.
# Columns (tab-separated): name, command, generator, exit, message, known.
# A row whose last column is filled describes a known bug (owner file, what
# goes wrong): while it still fails, it is reported as a skip with that text;
# once it passes, the line says so (remove the mark).  In the
# command, {IN} is the generated input and {P} the project folder; leading
# NAME=VALUE words are put in the environment.  KD_HOSTILE=NAME runs one row;
# KD_HOSTILE_SHOW=1 prints every command's output.
. "$KD_SRCDIR/tests/lib.sh"
# a sanitizer build: leaks inside system libraries are not ours (tests/lsan.supp)
: "${LSAN_OPTIONS=suppressions=$KD_SRCDIR/tests/lsan.supp}"
export LSAN_OPTIONS
. "$KD_SRCDIR/tests/hostile/gen.sh"

TABLE="$KD_SRCDIR/tests/hostile/cases.tsv"
# cases run as nobody must be able to reach their folder, and kernodeck
chmod 711 "$KD_TMP"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	nobody_bin || echo "# the rows run as nobody will fail: nobody cannot run kernodeck"
	chmod 711 "$KD_TMP"
fi

# What a file is now: its SHA-256; for one over 1 MiB (the huge inputs),
# its size, inode and times to the nanosecond (any write changes them).
digest() {
	if [ ! -f "$1" ] || [ -L "$1" ]; then echo none
	elif [ "$(stat -c %s "$1")" -gt 1048576 ]; then stat -c '%s %i %y %z' "$1"
	else { sha256sum <"$1"; } 2>/dev/null | cut -c1-64; fi
}

run_case() { # name command generator exit message known
	name=$1 cmd=$2 gen=$3 want=$4 msg=$5 known=$6
	case_dir="$KD_TMP/$name"
	mkdir -p "$case_dir"; chmod 755 "$case_dir"
	IN=$case_dir/in P=$case_dir/p AS= UMOUNT= ENVS= NOTE=
	if ! hostile_gen "$gen" "$case_dir"; then
		notok "$name: generator \"$gen\" failed"; return
	fi
	before=$(digest "$IN")
	# the command line: placeholders, then leading NAME=VALUE words
	line=$(printf '%s' "$cmd" | sed -e "s|{IN}|$IN|g" -e "s|{P}|$P|g")
	set -f
	# shellcheck disable=SC2086
	set -- $line
	set +f
	envs=$ENVS
	while [ $# -gt 0 ]; do
		case "$1" in
		[A-Z]*=*) envs="$envs $1"; shift ;;
		*) break ;;
		esac
	done
	# as root, drop privileges (root reads mode 000 files); a user that is
	# not root is already kept out, and cannot drop anything
	if [ "$AS" = nobody ] && [ "$(id -u)" = 0 ]; then
		# shellcheck disable=SC2086
		env $envs HOME=/nonexistent timeout 30 setpriv --reuid=65534 --regid=65534 \
			--clear-groups "$KD_BIN" "$@" >"$case_dir/out" 2>&1 </dev/null
	else
		# shellcheck disable=SC2086
		env $envs timeout 30 "$KD_BIN" "$@" >"$case_dir/out" 2>&1 </dev/null
	fi
	got=$?
	after=$(digest "$IN")
	[ -n "$UMOUNT" ] && umount "$UMOUNT"
	# read-only and mode 000 leftovers must not stop the cleanup
	chmod -R u+rwX "$case_dir" 2>/dev/null
	why=
	[ "$msg" = - ] && msg=
	[ "$got" -eq "$want" ] || why="exit $got, wanted $want"
	[ "$got" -eq 124 ] && why="timed out after 30 s"
	if [ -n "$msg" ] && ! grep -qF -- "$msg" "$case_dir/out"; then
		why="${why:+$why; }no \"$msg\" in the output"
	fi
	if grep -q 'Sanitizer\|runtime error:' "$case_dir/out"; then
		why="${why:+$why; }a sanitizer report"
	fi
	if [ "$want" -ge 2 ] && [ "$before" != "$after" ]; then
		why="${why:+$why; }the refused input changed"
	fi
	[ -n "${KD_HOSTILE_SHOW:-}" ] && sed "s/^/# $name: /" "$case_dir/out"
	if [ -z "$why" ] && [ -n "$known" ]; then
		ok "hostile $name (exit $got; marked as a known bug but it passes: remove the mark)"
	elif [ -z "$why" ]; then
		ok "hostile $name (exit $got${NOTE:+; $NOTE})"
	elif [ -n "$known" ]; then
		skip "hostile $name" "known bug: $known ($why)"
	else
		notok "hostile $name: $why"
		sed 's/^/#   /' "$case_dir/out" | head -n 15
	fi
}

nrows=0
tab=$(printf '\t')
while IFS="$tab" read -r name cmd gen want msg known; do
	case "$name" in ''|'#'*) continue ;; esac
	[ -n "${KD_HOSTILE:-}" ] && [ "$name" != "$KD_HOSTILE" ] && continue
	nrows=$((nrows + 1))
	run_case "$name" "$cmd" "$gen" "$want" "$msg" "$known"
done <"$TABLE"
if [ -z "${KD_HOSTILE:-}" ]; then
	if [ "$nrows" -ge 40 ]; then ok "hostile table has $nrows rows (at least 40)"
	else notok "hostile table has $nrows rows (at least 40)"; fi
fi
