# tests/integration/quickstart-demo.sh - after ./quickstart.sh demo, the
# README's `kernodeck ...` commands work as written (issue 32, points 13 and
# 16): the README's PATH line and `make install` each put a kernodeck on
# PATH that finds its files; `./quickstart.sh demo` run a second time
# reopens the walkthrough on the demo it made; `kernodeck demo DIR` on a
# folder that holds one says how to reopen it.
. "$KD_SRCDIR/tests/lib.sh"
B=${KD_BUILDDIR:-$PWD}
D=$KD_TMP/kernodeck-demo

# the README's line for this shell: the build folder on PATH, no KD_SHARE_DIR
(unset KD_SHARE_DIR; PATH="$B:$PATH"; cd "$KD_TMP" &&
	kernodeck demo "$D" --create-only && kernodeck check "$D" --stage reference --quiet) \
	>"$KD_TMP/path.out" 2>&1
r=$?
check "export PATH=\"\$PWD/build:\$PATH\": kernodeck demo and check work as written (exit $r)" test "$r" -eq 0
[ "$r" -eq 0 ] || tail -n 5 "$KD_TMP/path.out" | sed 's/^/#   /'
check "the README says where the binary is and how to put it on PATH" \
	sh -c "grep -q 'The program it builds is \`build/kernodeck\`' '$KD_SRCDIR/README.md' && grep -q 'sudo make -C build install' '$KD_SRCDIR/README.md' && grep -qF 'export PATH=\"\$PWD/build:\$PATH\"' '$KD_SRCDIR/README.md'"

# make install (into a DESTDIR): the program, its share files, the man page
make -C "$B" install DESTDIR="$KD_TMP/inst" >"$KD_TMP/install.out" 2>&1
r=$?
check "make install (exit $r)" test "$r" -eq 0
bin=$(find "$KD_TMP/inst" -path '*/bin/kernodeck' -type f | head -n 1)
probe=$(find "$KD_TMP/inst" -path '*/kernodeck/probe.py' | head -n 1)
check "make install puts kernodeck, its share files and its man page in place" \
	sh -c "test -x '$bin' && test -f '$probe' && test -d '$(dirname "$probe")/demo/project' && test -d '$(dirname "$probe")/demo/training' && find '$KD_TMP/inst' -name kernodeck.1 | grep -q man1"
(PATH="$(dirname "$bin"):$PATH" KD_SHARE_DIR="$(dirname "$probe")"; export PATH KD_SHARE_DIR
	kernodeck demo "$KD_TMP/d2" --create-only && kernodeck check "$KD_TMP/d2" --stage reference --quiet) \
	>"$KD_TMP/inst.out" 2>&1
r=$?
check "the installed kernodeck, on PATH, makes and checks a demo from its installed files (exit $r)" test "$r" -eq 0

# kernodeck demo DIR on a folder that holds the demo: how to reopen it
"$KD_BIN" demo "$D" --create-only >"$KD_TMP/again.out" 2>&1
r=$?
check "kernodeck demo on a folder holding a demo: exit 2, saying how to reopen it" \
	sh -c "[ $r -eq 2 ] && grep -q 'holds a kernodeck project already.*reopen it with \`kernodeck $D\`' '$KD_TMP/again.out'"

# ./quickstart.sh demo run again: the walkthrough on the demo it made (the
# packages and the build are there: dpkg-query, autoreconf and make stand-ins
# keep the test from installing or building anything)
mkdir -p "$KD_TMP/fake"
printf '#!/bin/sh\nprintf "install ok installed"\n' >"$KD_TMP/fake/dpkg-query"
printf '#!/bin/sh\nexit 0\n' >"$KD_TMP/fake/make"
cp "$KD_TMP/fake/make" "$KD_TMP/fake/autoreconf"
chmod +x "$KD_TMP/fake/"*
(unset KD_CONFIGURE_FLAGS; PATH="$KD_TMP/fake:$PATH" KD_BUILD_DIR="$B" \
	sh "$KD_SRCDIR/quickstart.sh" demo "$D" </dev/null) >"$KD_TMP/qs.out" 2>&1
check "./quickstart.sh demo again reopens the walkthrough on the existing demo" \
	sh -c "grep -q 'holds the demo made earlier: reopening it' '$KD_TMP/qs.out' && grep -q 'the walkthrough needs a terminal' '$KD_TMP/qs.out' && ! grep -q 'not empty' '$KD_TMP/qs.out'"
[ -n "$(grep 'reopening' "$KD_TMP/qs.out")" ] || sed 's/^/#   /' "$KD_TMP/qs.out" | tail -n 5
