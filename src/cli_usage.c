/*
 * --help, made from the rows of the option table: each option's line, and
 * the headings and notes between them.
 */
#include <stdio.h>

#include "cli.h"
#include "cli_table.h"
#include "output_table.h"

/* The column where the text of an option begins. */
#define HELP_COLUMN 29

/* "  -o, --output=FILE          write to FILE ...", continued below it. */
static void
usage_option(FILE *fp, const struct cli_row *r)
{
	int n;

	if (r->short_name != 0)
		n = fprintf(fp, "  -%c, --%s", r->short_name, r->name);
	else
		n = fprintf(fp, "      --%s", r->name);
	if (r->arg != NULL)
		n += fprintf(fp, r->optional_arg ? "[=%s]" : "=%s", r->arg);
	/* Text that cannot start at its column starts two spaces on. */
	fprintf(fp, "%*s", n < HELP_COLUMN ? HELP_COLUMN - n : 2, "");
	if (r->help_formats)
		fputs(output_table_names(" or "), fp);
	for (const char *t = r->help; *t != '\0'; t++) {
		fputc(*t, fp);
		if (*t == '\n')
			fprintf(fp, "%*s", HELP_COLUMN, "");
	}
	fputc('\n', fp);
}

void
cli_usage(FILE *fp)
{
	fputs(cli_usage_head, fp);
	for (size_t i = 0; i < cli_n_rows; i++) {
		const struct cli_row *r = &cli_rows[i];

		if (r->kind == KIND_HEADING) {
			fputc('\n', fp);
			if (r->help != NULL)
				fprintf(fp, "%s\n", r->help);
		} else if (r->kind == KIND_NOTE) {
			fprintf(fp, "%s\n", r->help);
		} else {
			usage_option(fp, r);
		}
	}
	fputs(cli_usage_tail, fp);
}
