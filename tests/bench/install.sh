#!/bin/sh
# tests/bench/install.sh - `pip install` driven by kernodeck (issue 9, row 8)
# against the same pip install run alone.  Target: under 3% overhead.
#
# The project installs N local wheels (tests/helpers/mkwheel.py, pinned,
# --no-index --find-links ./wheels) into a venv made from /usr/bin/python3
# with --system-site-packages --without-pip (pip is Debian's python3-pip).
# Two comparisons, at N = 4, 16 and 64 wheels:
#   stage:   `kernodeck check DIR --stage rebuild` from no venv (lint, venv,
#            pip --version, pip install -r, pip freeze --all, pip inspect,
#            logs, observations, state) against the same five commands run
#            one after the other by sh, output to files, with the same
#            environment (PIP_NO_INPUT=1, PIP_DISABLE_PIP_VERSION_CHECK=1);
#   install: the pip install step as kernodeck's runner timed it (elapsed_s
#            in rebuild.yaml: pip's output streamed through a pipe, split in
#            lines, logged) against hyperfine's time of the same pip install
#            command alone, in a fresh venv each run.
# CPU ratios count pip and every child (hyperfine's user+system); the
# install row has none (kernodeck records wall time only).  A third row
# isolates kernodeck's own CPU time in the stage (selfcpu.py: the process's
# utime+stime, its children left out) against its children's: the overhead
# without the noise of pip's own run-to-run variation.
#
# Usage: sh tests/bench/install.sh   (KD_BIN, KD_BENCH_RUNS, KD_BENCH_QUICK:
# see lib.sh).  Needs Debian's python3-pip and python3-venv.
. "$(dirname "$0")/lib.sh"
bench_init install
RUNS=${KD_BENCH_RUNS:-5}
SIZES="4 16 64"
[ "$QUICK" = 1 ] && { RUNS=2; SIZES="4 16"; }
"$PY" -c 'import venv, pip' 2>/dev/null || {
	echo "install.sh: $PY needs venv and pip (apt-get install python3-venv python3-pip)" >&2
	exit 3
}
MKW="$KD_SRCDIR/tests/helpers/mkwheel.py"
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset VIRTUAL_ENV PYTHONHOME PYTHONPATH PIP_USER 2>/dev/null || true

# project N: $W/pN with N wheels (each of the last half requires the one
# before, so that pip resolves dependencies too) and its requirements.
project() {
	p="$W/p$1"
	mkdir -p "$p/kernodeck" "$p/wheels"
	git -C "$p" init -q -b main
	{
		printf -- '--no-index\n--find-links ./wheels\n'
		i=1
		while [ "$i" -le "$1" ]; do
			if [ "$i" -gt $(($1 / 2)) ]; then
				"$PY" "$MKW" "$p/wheels" "kdbench-w$i" 1.0 --requires "kdbench-w$((i - 1))>=1.0" >/dev/null
			else
				"$PY" "$MKW" "$p/wheels" "kdbench-w$i" 1.0 >/dev/null
			fi
			echo "kdbench-w$i==1.0"
			i=$((i + 1))
		done
	} >"$p/requirements-rebuild.txt"
	cat >"$p/kernodeck/reference.yaml" <<EOF
schema: 1
python:
  interpreter: $PY
  install:
    system_site_packages: true
    without_pip: true
EOF
}

# elapsed FILE: the pip-install step's elapsed_s in a rebuild.yaml
elapsed() {
	awk '/^- step:/ { on = ($3 == "pip-install") } on && /^  elapsed_s:/ { print $2 }' "$1"
}

# med FILE COLUMN: the median of a column of numbers
med() { "$PY" -c 'import statistics,sys; print(statistics.median(float(l.split()[int(sys.argv[2])]) for l in open(sys.argv[1]) if l.strip()))' "$1" "$2"; }

bench_header "pip install driven by kernodeck vs the same pip install alone (tests/bench/install.sh)"
for n in $SIZES; do
	project "$n"
	p="$W/p$n"
	V="$p/.venv-rebuild"
	VP="$V/bin/python"
	"$KD_BIN" check "$p" --stage rebuild >"$W/first$n.txt" 2>&1 || {
		echo "install.sh: the rebuild stage fails on the project of $n wheels:" >&2
		tail -20 "$W/first$n.txt" >&2
		exit 1
	}
	cat >"$W/alone$n.sh" <<EOF
cd "$p" || exit 1
$PY -m venv --system-site-packages --without-pip .venv-rebuild || exit 1
$VP -m pip --version >"$W/a-version.log" 2>&1 || exit 1
$VP -m pip install --timeout 15 --retries 1 -r requirements-rebuild.txt >"$W/a-install.log" 2>&1 || exit 1
$VP -m pip freeze --all >"$W/a-freeze.txt" 2>"$W/a-freeze.log" || exit 1
$VP -m pip inspect >"$W/a-inspect.json" 2>"$W/a-inspect.log" || exit 1
EOF
	# before each kernodeck run: keep the elapsed_s of the run before, and
	# remove the venv (the first value kept is the warm-up's: dropped)
	rm -f "$p/kernodeck/rebuild.yaml"
	: >"$W/el$n.txt"
	cat >"$W/harvest$n.sh" <<EOF
f="$p/kernodeck/rebuild.yaml"
[ -f "\$f" ] && awk '/^- step:/ { on = (\$3 == "pip-install") } on && /^  elapsed_s:/ { print \$2 }' "\$f" >>"$W/el$n.txt"
rm -rf "$V" "\$f"
EOF
	printf 'rm -rf "%s"\n' "$V" >"$W/fresh$n.sh"
	printf 'rm -rf "%s" && %s -m venv --system-site-packages --without-pip "%s"\n' "$V" "$PY" "$V" >"$W/venv$n.sh"
	hyperfine -N --style none --runs "$RUNS" --warmup 1 --export-json "$W/s$n.json" \
		--prepare "sh $W/fresh$n.sh" "sh $W/alone$n.sh" \
		--prepare "sh $W/harvest$n.sh" "$KD_BIN check $p --stage rebuild" >"$W/s$n.out" 2>&1 || {
		cat "$W/s$n.out" >&2
		exit 1
	}
	elapsed "$p/kernodeck/rebuild.yaml" >>"$W/el$n.txt"
	sed -i 1d "$W/el$n.txt"
	a=$(st "$W/s$n.json" 0 median); ac=$(st "$W/s$n.json" 0 cpu)
	k=$(st "$W/s$n.json" 1 median); kc=$(st "$W/s$n.json" 1 cpu)
	r=$(ratio "$k" "$a"); rc=$(ratio "$kc" "$ac")
	row "rebuild stage vs the same 5 commands by sh" "$n wheels" "$(t "$k")" "$(t "$a")" "$r" "$rc" \
		"<= 1.03" "$(met "$r" '<=' 1.03 wall), $(met "$rc" '<=' 1.03 CPU)"

	# kernodeck's own CPU (not its children's): selfcpu.py, fresh venv
	: >"$W/self$n.txt"
	for _ in 1 2 3; do
		rm -rf "$V"
		"$PY" "$BENCH_DIR/selfcpu.py" "$KD_BIN" check "$p" --stage rebuild >>"$W/self$n.txt"
	done
	ks=$(med "$W/self$n.txt" 0); kch=$(med "$W/self$n.txt" 1)
	r=$(ratio "$ks" "$kch")
	row "kernodeck's own CPU in the rebuild stage" "$n wheels (3 runs)" "$(t "$(calc "$ks/1000")")" \
		"its children: $(t "$(calc "$kch/1000")")" "-" "$r" "<= 0.03" "$(met "$r" '<=' 0.03 CPU)"

	# pip install alone, in a fresh venv each run (the prepare step)
	cd "$p"
	hf "$W/i$n.json" "$RUNS" 1 --prepare "sh $W/venv$n.sh" \
		"$VP -m pip install --timeout 15 --retries 1 -r requirements-rebuild.txt"
	cd "$W"
	a=$(st "$W/i$n.json" 0 median)
	k=$("$PY" -c 'import statistics,sys; print(statistics.median(float(l) for l in open(sys.argv[1]) if l.strip()))' "$W/el$n.txt")
	r=$(ratio "$k" "$a")
	row "pip install step: kernodeck's runner vs alone" "$n wheels ($(grep -c . "$W/el$n.txt") runs)" \
		"$(t "$k")" "$(t "$a")" "$r" "-" "<= 1.03" "$(met "$r" '<=' 1.03 wall)"
done
echo
echo "- Overhead = ratio - 1.  CPU of the five commands alone (user+system, pip's children included): $(for n in $SIZES; do printf '%s wheels %s; ' "$n" "$(t "$(st "$W/s$n.json" 0 cpu)")"; done)kernodeck's own work (lint, logs, observations, state) is the difference."
bench_footer
