# tests/hostile/gen.sh - input generators for tests/hostile/cases.tsv
# (sourced by tests/integration/hostile.sh).
#
# hostile_gen KEYWORD CASEDIR   makes the input of one case.  It sets
#   IN   the path that {IN} stands for (file, folder, link; may not exist)
#   P    the project folder that {P} stands for (CASEDIR/p; its kernodeck
#        folder is P/kernodeck)
#   AS   "nobody" when the command must run without root's privileges
#   ENVS NAME=VALUE words added to the command's environment
#   UMOUNT a mount point the runner unmounts after the command
#   NOTE how the case was made, when it matters (printed with the result)
# Keywords (ARG is everything after the first colon):
#   empty              a file of 0 bytes
#   text:ESC           printf %b ESC ("\n", "\0377" octal; sh has no \x)
#   copy:REL           a copy of $KD_SRCDIR/REL
#   head:N:REL         the first N bytes of $KD_SRCDIR/REL (a truncated file)
#   binary             the first 64 KiB of the kernodeck program (an ELF)
#   sparse:N           a file of N bytes, all zero (a hole: instant)
#   repeat:N:LINE      LINE and a newline, repeated up to N bytes (huge text)
#   longline:N:PRE     PRE then N letters "a" and a newline (one long line)
#   nest:N:OPEN:CLOSE[:PRE]  PRE, OPEN N times, CLOSE N times, a newline
#   yamlnest:N         a YAML block mapping nested N levels deep
#   dir                an empty folder
#   fifo               a named pipe (a reader that opens it blocks forever)
#   missing            nothing at IN
#   link:TARGET        a symbolic link to TARGET ("{CASE}" = CASEDIR)
#   loop               a link to itself
#   linkfifo           a link to a named pipe beside it
#   withfifo:GEN       a named pipe CASEDIR/fifo beside IN, then GEN
#   unreadable:GEN     GEN, then mode 000 and AS=nobody (a kernodeck folder
#                      made by GEN is given to nobody: only IN is in the way)
#   state:GEN          GEN made as P/kernodeck/state.yaml (IN is that file)
#   ref:GEN            GEN made as P/kernodeck/reference.yaml
#   ro:GEN             state:GEN in a kernodeck folder left read-only
#                      (mode 555) and AS=nobody
#   sums:ESC           a folder (a dossier) whose SHA256SUMS is printf %b ESC
#   sumslink           a dossier whose dossier.yaml is a link to /etc/passwd,
#                      listed with the right digest in its SHA256SUMS
#   project            P with a state from one run of `check --stage
#                      reference` (failing rows to deviate from); IN is
#                      its state.yaml
#   fulldisk           project, with its kernodeck folder moved onto a tmpfs
#                      that is then filled up (UMOUNT names it for the
#                      runner); where tmpfs cannot be mounted, the write
#                      fails by injection instead (ENVS gets
#                      KD_FAULT_WRITE=state.yaml)

hostile_gen() {
	_kw=$1 _case=$2
	case "$_kw" in
	*:*) _arg=${_kw#*:}; _kw=${_kw%%:*} ;;
	*) _arg= ;;
	esac
	case "$_kw" in
	empty) : >"$IN" ;;
	text) printf '%b' "$_arg" >"$IN" ;;
	copy) cp "$KD_SRCDIR/$_arg" "$IN" ;;
	head) head -c "${_arg%%:*}" "$KD_SRCDIR/${_arg#*:}" >"$IN" ;;
	binary) head -c 65536 "$KD_BIN" >"$IN" ;;
	sparse) : >"$IN"; truncate -s "$_arg" "$IN" ;;
	repeat) yes "${_arg#*:}" | head -c "${_arg%%:*}" >"$IN" ;;
	longline)
		_n=${_arg%%:*}
		{ printf '%b' "${_arg#*:}"; head -c "$_n" /dev/zero | tr '\0' a; echo; } >"$IN" ;;
	nest)
		_n=${_arg%%:*} _r=${_arg#*:}
		_o=${_r%%:*} _r=${_r#*:}
		_c=${_r%%:*} _pre=
		case "$_r" in *:*) _pre=${_r#*:} ;; esac
		{ printf '%s' "$_pre"
		  head -c "$_n" /dev/zero | tr '\0' "$_o"
		  head -c "$_n" /dev/zero | tr '\0' "$_c"; echo; } >"$IN" ;;
	yamlnest)
		awk -v n="$_arg" 'BEGIN { s = ""; for (i = 0; i < n; i++) { printf "%sk%d:\n", s, i; s = s " " } printf "%sv: 1\n", s }' >"$IN" ;;
	dir) mkdir -p "$IN" ;;
	fifo) mkfifo "$IN" ;;
	missing) rm -rf "$IN" ;;
	link) ln -s "$(printf '%s' "$_arg" | sed "s|{CASE}|$_case|g")" "$IN" ;;
	loop) ln -s "$IN" "$IN" ;;
	linkfifo) mkfifo "$_case/fifo"; ln -s "$_case/fifo" "$IN" ;;
	withfifo) mkfifo "$_case/fifo"; hostile_gen "$_arg" "$_case" ;;
	unreadable)
		hostile_gen "$_arg" "$_case"; chmod 000 "$IN"; AS=nobody
		# a kernodeck folder nobody can write in, so only IN is in the way
		if [ -d "$P/kernodeck" ] && [ "$(id -u)" = 0 ]; then
			chmod 755 "$P"; chown 65534:65534 "$P/kernodeck"
		fi ;;
	state|ref)
		mkdir -p "$P/kernodeck"
		if [ "$_kw" = state ]; then IN=$P/kernodeck/state.yaml; else IN=$P/kernodeck/reference.yaml; fi
		hostile_gen "$_arg" "$_case" ;;
	ro)
		hostile_gen "state:$_arg" "$_case"
		chmod -R a+rX "$P"; chmod 555 "$P/kernodeck"; chmod 444 "$IN"; AS=nobody ;;
	sums) mkdir -p "$IN"; printf '%b' "$_arg" >"$IN/SHA256SUMS" ;;
	sumslink)
		mkdir -p "$IN"; ln -s /etc/passwd "$IN/dossier.yaml"
		(cd "$IN" && sha256sum dossier.yaml >SHA256SUMS) ;;
	project)
		mkdir -p "$P"
		# a plain folder: a project once asked (check refuses it otherwise)
		"$KD_BIN" check "$P" --init --stage reference >/dev/null 2>&1 </dev/null
		IN=$P/kernodeck/state.yaml ;;
	fulldisk)
		hostile_gen project "$_case"
		mv "$P/kernodeck" "$_case/saved"
		mkdir "$P/kernodeck"
		if mount -t tmpfs -o size=1m,mode=0755 kdhostile "$P/kernodeck" 2>/dev/null; then
			UMOUNT=$P/kernodeck
			cp -a "$_case/saved/." "$P/kernodeck/"
			# fill what is left: the next write cannot find a block
			dd if=/dev/zero of="$P/kernodeck/filler" bs=4k 2>/dev/null
			sync
			NOTE="a 1 MiB tmpfs, full"
		else
			rmdir "$P/kernodeck"; mv "$_case/saved" "$P/kernodeck"
			ENVS="KD_FAULT_WRITE=state.yaml"
			NOTE="no tmpfs here: KD_FAULT_WRITE injection"
		fi ;;
	*) echo "hostile: unknown generator \"$_kw\"" >&2; return 1 ;;
	esac
}
