/*
 * argv.c - argument vectors built and released (see include/kernodeck/argv.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kernodeck/argv.h"

/* See argv.h. */
char **
argv_new(const char *first, ...)
{
	const char *items[32];
	size_t n = 0;
	char **v;
	va_list ap;

	va_start(ap, first);
	for (const char *s = first; s != NULL && n < 31; s = va_arg(ap, const char *))
		items[n++] = s;
	va_end(ap);
	if ((v = calloc(n + 1, sizeof *v)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((v[i] = strdup(items[i])) == NULL) {
			argv_free(v);
			return NULL;
		}
	return v;
}

/* See argv.h. */
size_t
argv_count(char *const *argv)
{
	size_t n = 0;

	while (argv != NULL && argv[n] != NULL)
		n++;
	return n;
}

/* See argv.h. */
void
argv_free(char **argv)
{
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}
