/*
 * Writing text from the server to a terminal, one cell per code point
 * (see output_clean.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output_clean.h"
#include "scrub.h"

static bool
is_space(uint32_t cp)
{
	return cp == ' ' || (cp >= '\t' && cp <= '\r');
}

size_t
clean_put_len(FILE *fp, const char *s, size_t n, size_t max, bool oneline)
{
	size_t cols = 0, k;
	bool space = false;
	uint32_t cp;

	for (size_t i = 0; i < n; i += k) {
		const char *out = s + i;

		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			k = 1;
			out = "?";
		} else if (oneline && is_space(cp)) {
			space = cols > 0;
			continue;
		} else if (!scrub_shown(cp))
			out = "?";
		if (cols + space + 1 > max)
			break;
		if (space) {
			if (fp != NULL)
				putc(' ', fp);
			cols++;
			space = false;
		}
		if (fp != NULL)
			fwrite(out, 1, out == s + i ? k : 1, fp);
		cols++;
	}
	return cols;
}

size_t
clean_put(FILE *fp, const char *s, size_t max, bool oneline)
{
	return clean_put_len(fp, s, strlen(s), max, oneline);
}

size_t
clean_width(const char *s, bool oneline)
{
	return clean_put(NULL, s, SIZE_MAX, oneline);
}

static void
pad(FILE *fp, size_t n)
{
	while (n-- > 0)
		putc(' ', fp);
}

void
clean_left(FILE *fp, const char *s, size_t width, bool oneline)
{
	size_t used = clean_put(fp, s, SIZE_MAX, oneline);

	pad(fp, width > used ? width - used : 0);
}

void
clean_right(FILE *fp, const char *s, size_t width)
{
	size_t used = clean_width(s, true);

	pad(fp, width > used ? width - used : 0);
	clean_put(fp, s, SIZE_MAX, true);
}

void
clean_cut_len(FILE *fp, const char *s, size_t n, size_t width)
{
	if (clean_put_len(NULL, s, n, SIZE_MAX, true) <= width) {
		clean_put_len(fp, s, n, SIZE_MAX, true);
		return;
	}
	clean_put_len(fp, s, n, width - 3, true);
	fputs("...", fp);
}

void
clean_cut(FILE *fp, const char *s, size_t width)
{
	clean_cut_len(fp, s, strlen(s), width);
}
