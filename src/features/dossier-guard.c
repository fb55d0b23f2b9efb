/*
 * dossier-guard.c - the check at the top of procedure.sh: see
 * dossier-guard.h.
 *
 * The script is made of data and one fixed check: KD_ALLOWED (runenv.h's
 * list), KD_ENV (dossier.yaml's environment, name and value, whatever it
 * holds), KD_PATHS (each path field of the reference: field, value, "work"
 * or "data"), KD_HIDDEN (the byte patterns of termout.h's hidden code
 * points, made from its ranges).  Every word is written by quote_word, so
 * a control or hidden character is an escape in the file, never raw; the
 * check refuses it when the script runs, before anything is set.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/contain.h"
#include "kernodeck/dossier-guard.h"
#include "kernodeck/quote.h"
#include "kernodeck/runenv.h"
#include "kernodeck/termout.h"

/* One argument as a shell word (quote_word's), written to f. */
static void
put_word(FILE *f, const char *s)
{
	char *w = quote_word(s, 0);

	fputs(w != NULL ? w : "''", f);
	free(w);
}

/* cp in UTF-8 into out; its length. */
static int
utf8(uint32_t cp, unsigned char out[4])
{
	if (cp < 0x800) {
		out[0] = (unsigned char)(0xc0 | (cp >> 6));
		out[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (unsigned char)(0xe0 | (cp >> 12));
		out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (unsigned char)(0xf0 | (cp >> 18));
	out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* KD_HIDDEN: one glob a block of code points that share all but their
 * last byte, made with printf so that the file holds no raw byte. */
static void
put_hidden(FILE *f)
{
	size_t n;
	const uint32_t (*r)[2] = termout_hidden_ranges(&n);

	fputs("KD_HIDDEN=('*[[:cntrl:]]*'", f);
	for (size_t i = 0; i < n; i++)
		for (uint32_t cp = r[i][0]; cp <= r[i][1]; cp = (cp | 0x3f) + 1) {
			uint32_t end = (cp | 0x3f) < r[i][1] ? (cp | 0x3f) : r[i][1];
			unsigned char a[4], b[4];
			int len = utf8(cp, a);

			utf8(end, b);
			fputs(" \"*$(printf '", f);
			for (int k = 0; k < len - 1; k++)
				fprintf(f, "\\x%02x", a[k]);
			fprintf(f, "[\\x%02x-\\x%02x]')*\"", a[len - 1], b[len - 1]);
		}
	fputs(")\n", f);
}

static int
put_field(void *u, const char *field, const char *path, int data)
{
	FILE *f = u;

	fputs("\t", f);
	put_word(f, field);
	fputs(" ", f);
	put_word(f, path);
	fputs(data ? " data\n" : " work\n", f);
	return 0;
}

/* The fixed part: the checks, then what is set printed, then set. */
static const char guard_check[] =
	"kd_refuse() {\n"
	"\techo \"procedure.sh: $1: refusing to run; nothing was set or run (kernodeck replay "
	"refuses this dossier too)\" >&2\n"
	"\texit 2\n"
	"}\n"
	"kd_hidden() {   # TEXT: does it hold a control or hidden character, or over 256 bytes?\n"
	"\tlocal LC_ALL=C p\n"
	"\t[ \"${#1}\" -le 256 ] || return 0\n"
	"\tfor p in \"${KD_HIDDEN[@]}\"; do\n"
	"\t\t# shellcheck disable=SC2254\n"
	"\t\tcase $1 in $p) return 0 ;; esac\n"
	"\tdone\n"
	"\treturn 1\n"
	"}\n"
	"[ $((${#KD_ENV[@]} % 2)) -eq 0 ] || kd_refuse \"environment: a name without a value\"\n"
	"for ((i = 0; i < ${#KD_ENV[@]}; i += 2)); do\n"
	"\tn=${KD_ENV[i]}\n"
	"\tcase $n in ''|*[!ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_]*)\n"
	"\t\tkd_refuse \"environment: item $((i / 2 + 1)) is not a variable's name\" ;; esac\n"
	"\tcase $KD_ALLOWED in *\" $n \"*) ;; *)\n"
	"\t\tkd_refuse \"environment: $n is not a variable that changes a run (only those cross "
	"a dossier; never one that changes how a program is found or started)\" ;; esac\n"
	"\tif kd_hidden \"${KD_ENV[i + 1]}\"; then\n"
	"\t\tkd_refuse \"environment: the value of $n holds a control or hidden character, or is "
	"too long\"\n"
	"\tfi\n"
	"done\n"
	"[ $((${#KD_PATHS[@]} % 3)) -eq 0 ] || kd_refuse \"the list of paths is malformed\"\n"
	"for ((i = 0; i < ${#KD_PATHS[@]}; i += 3)); do\n"
	"\tf=${KD_PATHS[i]} p=${KD_PATHS[i + 1]}\n"
	"\tif kd_hidden \"$f\" || kd_hidden \"$p\"; then\n"
	"\t\tkd_refuse \"a path field holds a control or hidden character (item $((i / 3 + 1)))\"\n"
	"\tfi\n"
	"\tcase $p in\n"
	"\t/*) [ \"${KD_PATHS[i + 2]}\" = data ] || kd_refuse \"$f is \\\"$p\\\": an absolute path\" ;;\n"
	"\t'~'*) kd_refuse \"$f is \\\"$p\\\": a path in a home folder\" ;;\n"
	"\t*) case /$p/ in */../*) kd_refuse \"$f is \\\"$p\\\": a path with \\\"..\\\", which leaves "
	"the work folder\" ;; esac ;;\n"
	"\tesac\n"
	"done\n"
	"# the interpreter is run only when it is named like one (python..., pypy...,\n"
	"# links followed), as replay does; PY=/path/to/python3 chooses another\n"
	"if [ -z \"${PY:-}\" ] && [ -n \"$KD_PY\" ]; then\n"
	"\tkd_hidden \"$KD_PY\" && kd_refuse \"python.interpreter holds a control or hidden "
	"character\"\n"
	"\tr=$(readlink -f -- \"$KD_PY\" 2>/dev/null) || r=$KD_PY\n"
	"\tcase ${r##*/} in python*|pypy*) ;; *) kd_refuse \"python.interpreter is \\\"$KD_PY\\\": "
	"not named like a Python interpreter (give PY=/path/to/python3)\" ;; esac\n"
	"fi\n"
	"echo \"procedure.sh sets (dossier.yaml's environment; a variable your shell sets is kept):\"\n"
	"[ ${#KD_ENV[@]} -gt 0 ] || echo '  (nothing)'\n"
	"for ((i = 0; i < ${#KD_ENV[@]}; i += 2)); do\n"
	"\tn=${KD_ENV[i]}\n"
	"\tif [ -n \"${!n+set}\" ]; then echo \"  $n: kept as your shell sets it\"; "
	"else echo \"  $n=${KD_ENV[i + 1]}\"; fi\n"
	"done\n"
	"for ((i = 0; i < ${#KD_ENV[@]}; i += 2)); do\n"
	"\tn=${KD_ENV[i]}\n"
	"\t[ -n \"${!n+set}\" ] || export \"$n=${KD_ENV[i + 1]}\"\n"
	"done\n";

char *
dossier_guard_procedure(const json_t *tree, const json_t *ref)
{
	char *out = NULL;
	size_t len = 0, n;
	const char *const *names = runenv_names(&n);
	const char *k;
	json_t *v;
	FILE *f = open_memstream(&out, &len);

	if (f == NULL)
		return NULL;
	fputs("\n# --- checked before anything is set or runs --------------------------------\n"
	      "# The variables this script sets and the paths it uses come from the dossier,\n"
	      "# which someone may have edited: they are checked first, by the rules of\n"
	      "# kernodeck replay (doc/hardening.md), and the script stops (exit 2) with\n"
	      "# nothing set when one is refused.  The variables that may cross a dossier:\n"
	      "KD_ALLOWED=' ", f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s ", names[i]);
	fputs("'\n# dossier.yaml's environment: name, value\nKD_ENV=(\n", f);
	json_object_foreach((json_t *)json_object_get(tree, "environment"), k, v) {
		fputs("\t", f);
		/* a value that is not text is refused by its name */
		put_word(f, json_is_string(v) ? k : "(not text)");
		fputs(" ", f);
		put_word(f, json_is_string(v) ? json_string_value(v) : "");
		fputs("\n", f);
	}
	fputs(")\n# the reference's paths: field, value, work (inside the work folder) or data\n"
	      "# (read only: may be absolute)\nKD_PATHS=(\n", f);
	contain_each_field(ref, put_field, f);
	fputs(")\n# the reference's interpreter (PY unless given)\nKD_PY=", f);
	{
		const json_t *py = json_object_get(json_object_get(ref, "python"), "interpreter");
		put_word(f, json_is_string(py) ? json_string_value(py) : "");
	}
	fputs("\n", f);
	put_hidden(f);
	fputs(guard_check, f);
	fclose(f);
	return out;
}
