# tests/integration/source-rules.sh - the house rules hold on the real tree
# (one TAP line per rule, from tests/check-source.sh), and the checker
# itself catches what it must and nothing else, on a planted tree.
. "$KD_SRCDIR/tests/lib.sh"

checker="$KD_SRCDIR/tests/check-source.sh"

# 1. The real tree: check-source.sh prints its own TAP lines.
sh "$checker" "$KD_SRCDIR"

# 2. A planted tree.
t="$KD_TMP/tree"
mkdir -p "$t/src/lib" "$t/src/stages" "$t/src/engine" "$t/screens" "$t/include/kernodeck"
cat >"$t/src/bad.c" <<'EOF'
/* bad.c: never call system() or popen( here */
#include <stdio.h>
static void f(char *b) { sprintf(b, "%d", 1); }
static void g(char *b) { snprintf(b, 4, "popen(%s)", "strcpy("); }
// strcat(b, "x") in a comment
static void h(char *b, char *c) { strcat(b, c); }
static int k(void) { char s[8]; return fgets(s, 8, stdin) != NULL; }
/* a comment over
   two lines: gets(buf) */
static char q = '"'; static void r(void) { system ("ls"); }
EOF
cat >"$t/src/ui.c" <<'EOF'
#include "config.h"
#include <ncursesw/curses.h>
#include "kernodeck/screen.h"
EOF
cat >"$t/src/main.c" <<'EOF'
#include "kernodeck/screen.h"
EOF
cat >"$t/screens/table.c" <<'EOF'
#include <curses.h>
static void d(char *a, char *b) { strcpy(a, b); }
EOF
cat >"$t/include/kernodeck/screen.h" <<'EOF'
#include <curses.h>
EOF
cat >"$t/include/kernodeck/keys.h" <<'EOF'
/* values checked against <curses.h> in screen.h:
#include <curses.h> is not needed here */
#define KD_X 1
EOF

cat >"$t/src/stages/stage-one.c" <<'EOF'
#include "kernodeck/stage.h"
int
one_step(int x)
{
	return x;
}
static int
one_gather(void)
{
	return cmd_check(0, 0) + kd_stages[2]->gather(0, 0, 0, 0);
}
EOF
cat >"$t/screens/frame.c" <<'EOF'
int
tui_main(const char *dir)
{
	return dir != 0;
}
EOF
# the floors: lib including an engine header, a header of no floor
printf '#include "kernodeck/ctx.h"\n#include "kernodeck/fsutil.h"\n' >"$t/src/lib/fsutil.c"
printf '#include "kernodeck/nowhere.h"\n' >"$t/src/engine/ctx.c"
# include cycles: two in the core (a <-> b, c <-> d), one in screens/
# (plot <-> textw, two headers of the top floor)
for m in a:b b:a c:d d:c; do
	printf '#include "kernodeck/%s.h"\n' "${m#*:}" >"$t/src/engine/${m%:*}.c"
done
printf '#include "kernodeck/textw.h"\n' >"$t/screens/plot.c"
printf '#include "kernodeck/plot.h"\n' >"$t/screens/textw.c"
# a core library that calls the walkthrough, as cmd-demo.c once did
printf 'int tui_main(const char *);\nint demo(void) { return tui_main("."); }\n' >"$KD_TMP/demo.c"
cc -c -o "$KD_TMP/demo.o" "$KD_TMP/demo.c" && ar rc "$KD_TMP/libkdcore.a" "$KD_TMP/demo.o"

out=$(sh "$checker" "$t" "$KD_TMP/libkdcore.a"); rc=$?
printf '%s\n' "$out" | sed 's/^/#   planted: /'
has() { printf '%s\n' "$out" | grep -qE "$1"; }
check "checker: a broken rule fails the run" [ "$rc" -eq 1 ]
check "checker: sprintf( found at src/bad.c:3" has '^not ok - .*no sprintf\(.*: src/bad\.c:3$'
check "checker: snprintf and fgets are no offence" has '^ok - .*no gets\('
check "checker: strcat( in code found, the one in a // comment not" \
	has '^not ok - .*no strcat\(.*: src/bad\.c:6$'
check "checker: system ( with a space found, after a quote character literal" \
	has '^not ok - .*no system\(.*: src/bad\.c:10$'
check "checker: popen( in a comment or a string is no offence" has '^ok - .*no popen\('
check "checker: strcpy( in screens/ found" has '^not ok - .*no strcpy\(.*: screens/table\.c:2$'
check "checker: curses header in src/ found, screen.h and comments spared" \
	has '^not ok - .*no curses header.*\): src/ui\.c:2$'
check "checker: screen.h included by the core library, not by main.c" \
	has '^not ok - .*does not include kernodeck/screen\.h: src/ui\.c:3$'
check "checker: a stage file's function that is not static found, the static one spared" \
	has '^not ok - .*exports only its ops.*: src/stages/stage-one\.c:3$'
check "checker: a stage calling a command and another stage's gather found" \
	has '^not ok - .*calls no command and no other stage.*: src/stages/stage-one\.c:10$'
check "checker: lib including an engine header found" \
	has '^not ok - .*no header of a higher floor.*src/lib/fsutil\.c:1'
check "checker: a header of no floor found, the same floor's header spared" \
	sh -c "printf '%s\\n' \"\$1\" | grep -q '^#   src/engine/ctx\.c:1: kernodeck/nowhere\.h is of no floor' &&
		! printf '%s\\n' \"\$1\" | grep -q 'fsutil\.c:2'" sh "$out"
check "checker: two include cycles in the core found, each with its modules" \
	sh -c "printf '%s\\n' \"\$1\" | grep -q '^not ok - .*include cycles: at most one outside screens/ (2) and one inside (1)' &&
		printf '%s\\n' \"\$1\" | grep -q '^#   include-cycles:0: core, 2 modules: [ab] [ab]\$' &&
		printf '%s\\n' \"\$1\" | grep -q '^#   include-cycles:0: screens, 2 modules: [a-z]* [a-z]*\$'" sh "$out"
check "checker: the core library needing tui_main (screens/) found by nm" \
	has '^not ok - .*only screens/ defines \(nm\): libkdcore\.a:0$'

printf 'static void t(void) { write(STDERR_FILENO, "x", 1); }\n' >"$t/src/tty.c"
out=$(sh "$checker" "$t")
check "checker: a raw write to the terminal found" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '^not ok - .*no raw write to the terminal.*: src/tty\.c:1\$'" sh "$out"
printf 'static void t(void) { }\n' >"$t/src/tty.c"

# a writer that bypasses the text cleaner: a file opened for writing, an
# open with O_CREAT, a raw atomic write of a README; fopen for reading and
# a raw write in hash.c are no offence
cat >"$t/src/notes.c" <<'EOF'
static void n(void) { FILE *f = fopen("README.md", "w"); fclose(f); }
static int o(const char *p) { return open(p, O_WRONLY | O_CREAT, 0644); }
static int q(void) { return fsutil_write_atomic("README.md", "x", 1, FSUTIL_RAW, 0); }
static void r(void) { FILE *f = fopen("x.txt", "re"); fclose(f); }
EOF
printf 'static int h(void) { return fsutil_write_atomic("c", "x", 1, FSUTIL_RAW, 0); }\n' >"$t/src/lib/hash.c"
out=$(sh "$checker" "$t")
check "checker: a file opened for writing, with O_CREAT, and a raw README write found; reading and hash.c spared" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '^not ok - .*every file written through fsutil.*: src/notes\.c:1 src/notes\.c:2 src/notes\.c:3\$'" sh "$out"
rm -f "$t/src/notes.c"

# 3. The same tree mended passes.
sed -i 's/sprintf(b, "%d", 1)/snprintf(b, 2, "%d", 1)/; s/strcat(b, c)/(void)c/; s/system ("ls")/(void)q/' "$t/src/bad.c"
printf '#include "config.h"\n' >"$t/src/ui.c"
printf 'static void d(void) { }\n' >"$t/screens/table.c"
printf '#include "kernodeck/fsutil.h"\n' >"$t/src/lib/fsutil.c"
printf '#include "kernodeck/ctx.h"\n#include "kernodeck/fsutil.h"\n' >"$t/src/engine/ctx.c"
printf 'static int\none_gather(void)\n{\n\treturn 0;\n}\n' >"$t/src/stages/stage-one.c"
printf '#include "kernodeck/a.h"\n' >"$t/src/engine/c.c"   # one cycle left, a <-> b
printf 'int demo(void) { return 0; }\n' >"$KD_TMP/demo.c"
rm -f "$KD_TMP/libkdcore.a"
cc -c -o "$KD_TMP/demo.o" "$KD_TMP/demo.c" && ar rc "$KD_TMP/libkdcore.a" "$KD_TMP/demo.o"
out=$(sh "$checker" "$t" "$KD_TMP/libkdcore.a"); rc=$?
printf '%s\n' "$out" | sed 's/^/#   mended: /'
check "checker: a clean tree passes" [ "$rc" -eq 0 ]
check "checker: every rule reported ok on the clean tree" \
	[ "$(printf '%s\n' "$out" | grep -c '^ok - ')" -eq 16 ]
