# dossier-swap.sh - the new dossier is exchanged with the older one in one
# step (renameat2 RENAME_EXCHANGE): a SIGKILL between the exchange and the
# rename aside (fault injection, KD_FAULT_KILL=dir-swap) leaves a whole
# dossier in place, with or without the exchange; the temporary folders of
# killed writers are swept by the next dossier.  The lock: a held lock
# stops `kernodeck dossier` with exit 3 and never names "process 0".
. "$KD_SRCDIR/tests/lib.sh"

P="$KD_TMP/project"
git_project "$P"
code_reference "$P" >"$P/kernodeck/reference.yaml"
K="$P/kernodeck"
D="$K/dossier"
verifies() { (cd "$D" && sha256sum -c --quiet SHA256SUMS) >/dev/null 2>&1; }

"$KD_BIN" dossier "$P" >/dev/null
check "a first dossier" verifies
for mode in exchange fallback; do
	envs=KD_FAULT_KILL=dir-swap
	[ "$mode" = fallback ] && envs="$envs KD_FAULT_NO_EXCHANGE=1"
	echo "# $mode" >>"$K/reference.yaml"
	before=$(sha256sum "$D/SHA256SUMS")
	env $envs "$KD_BIN" dossier "$P" >"$KD_TMP/$mode.out" 2>&1
	r=$?
	check "$mode: killed between the renames (SIGKILL, exit $r)" test "$r" -eq 137
	if [ "$mode" = exchange ]; then
		check "$mode: the dossier is there and whole" verifies
		check "$mode: it is the new one" test "$(sha256sum "$D/SHA256SUMS")" != "$before"
		check "$mode: the older one was left in a dossier.tmp.PID folder" \
			sh -c "ls -d '$K'/dossier.tmp.* >/dev/null 2>&1"
	else
		# without the exchange the older one is aside and the new one in
		# its temporary folder: the one moment without a dossier
		check "$mode: the new one is in its temporary folder" \
			sh -c "ls -d '$K'/dossier.tmp.* >/dev/null 2>&1"
	fi
	"$KD_BIN" dossier "$P" >"$KD_TMP/$mode.again" 2>&1
	check "$mode: the next dossier is written" verifies
	check "$mode: the dead writer's temporary folder is swept" \
		sh -c "! ls -d '$K'/dossier.tmp.* >/dev/null 2>&1"
done

# the exchange needs a file system that has it (tmpfs, ext4): a whole
# dossier is in place at every moment a reader looks
"$KD_BIN" dossier "$P" >/dev/null 2>&1 &
w=$!
seen_missing=0
while kill -0 "$w" 2>/dev/null; do
	[ -f "$D/SHA256SUMS" ] || seen_missing=1
done
wait "$w"
check "while a dossier is written, SHA256SUMS is always there" test "$seen_missing" -eq 0

# a held lock: exit 3, the holder named with its process
hold_lock "$K/lock"
"$KD_BIN" dossier "$P" >/dev/null 2>"$KD_TMP/lock.err"
r=$?
release_lock "$K/lock"
check "dossier on a locked folder: exit 3 (got $r)" test "$r" -eq 3
check "the refusal names the holder's process" grep -q "alice on elsewhere, process $holder" "$KD_TMP/lock.err"

# a holder that has taken the lock but not yet said who it is: the refusal
# waits for the description, and never says "process 0"
/usr/bin/python3 - "$K/lock" <<'PYEOF' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
open(sys.argv[1] + ".ready", "w").close()
time.sleep(0.2)
os.write(fd, b"user: bob\nhost: here\npid: %d\nsince: 2026-01-01T00:00:00Z\n" % os.getpid())
time.sleep(5)
PYEOF
slow=$!
i=0; while [ ! -f "$K/lock.ready" ] && [ $i -lt 50 ]; do sleep 0.05; i=$((i + 1)); done
"$KD_BIN" dossier "$P" >/dev/null 2>"$KD_TMP/lock2.err"
r=$?
kill "$slow" 2>/dev/null; wait "$slow" 2>/dev/null; rm -f "$K/lock.ready"
check "a lock being taken: exit 3" test "$r" -eq 3
check "a lock being taken: the holder read once complete" grep -q "bob on here, process $slow" "$KD_TMP/lock2.err"
check "never \"process 0\"" sh -c "! grep -q 'process 0' '$KD_TMP/lock.err' '$KD_TMP/lock2.err'"
