/*
 * The table of output formats: adding a format is adding its file and one
 * row here; --format, --help and the messages take the names from it.
 */
#include <stdio.h>
#include <string.h>

#include "output_format.h"
#include "output_table.h"

static const struct format *const formats[] = {
	&format_text,
	&format_csv,
	&format_json,
	&format_folded,
	&format_pprof,
	&format_html,
	&format_svg,
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

const struct format *
output_table_find(const char *name)
{
	for (size_t i = 0; i < N_FORMATS; i++)
		if (strcmp(formats[i]->name, name) == 0)
			return formats[i];
	return NULL;
}

/* Built from the table, so a new format needs no other change. */
const char *
output_table_names(const char *last)
{
	static char names[2][128];
	char *buf = names[strcmp(last, ", ") != 0];
	size_t len = 0;

	for (size_t i = 0; i < N_FORMATS && len < sizeof(names[0]); i++)
		len += (size_t)snprintf(buf + len, sizeof(names[0]) - len,
		    "%s%s", i == 0 ? "" : i + 1 < N_FORMATS ? ", " : last,
		    formats[i]->name);
	return buf;
}
