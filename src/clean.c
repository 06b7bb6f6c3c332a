/*
 * Writing text from the server to a terminal, one cell per code point
 * (see clean.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "clean.h"
#include "scrub.h"

static bool
is_space(uint32_t cp)
{
	return cp == ' ' || (cp >= '\t' && cp <= '\r');
}

size_t
clean_put_len(struct obuf *b, const char *s, size_t n, size_t max,
    bool oneline)
{
	size_t cols = 0, k;
	bool space = false;
	uint32_t cp;

	for (size_t i = 0; i < n; i += k) {
		const char *out = s + i;
		size_t len, cells; /* bytes written, and cells they take */

		/* Most names are plain ASCII: a run of it is one copy. */
		k = scrub_ascii_run(s + i, n - i, oneline ? 0x21 : 0x20, 0, 0);
		if (k > 0)
			len = cells = k;
		else if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			k = len = cells = 1;
			out = "?";
		} else if (oneline && is_space(cp)) {
			space = cols > 0;
			continue;
		} else if (scrub_shown(cp))
			len = k, cells = 1;
		else {
			len = cells = 1;
			out = "?";
		}
		if (cols + space + 1 > max)
			break;
		if (space) {
			if (b != NULL)
				obuf_putc(b, ' ');
			cols++;
			space = false;
		}
		if (cells > max - cols) {
			/* Only a run is wider than a cell: what fits, and the end. */
			k = len = cells = max - cols;
			n = i + k;
		}
		if (b != NULL)
			obuf_write(b, out, len);
		cols += cells;
	}
	return cols;
}

size_t
clean_put(struct obuf *b, const char *s, size_t max, bool oneline)
{
	return clean_put_len(b, s, strlen(s), max, oneline);
}

size_t
clean_width(const char *s, bool oneline)
{
	return clean_put(NULL, s, SIZE_MAX, oneline);
}

static void
pad(struct obuf *b, size_t n)
{
	obuf_fill(b, ' ', n);
}

void
clean_left(struct obuf *b, const char *s, size_t width, bool oneline)
{
	size_t used = clean_put(b, s, SIZE_MAX, oneline);

	pad(b, width > used ? width - used : 0);
}

void
clean_right(struct obuf *b, const char *s, size_t width)
{
	size_t used = clean_width(s, true);

	pad(b, width > used ? width - used : 0);
	clean_put(b, s, SIZE_MAX, true);
}

void
clean_cut_len(struct obuf *b, const char *s, size_t n, size_t width)
{
	if (clean_put_len(NULL, s, n, SIZE_MAX, true) <= width) {
		clean_put_len(b, s, n, SIZE_MAX, true);
		return;
	}
	clean_put_len(b, s, n, width - 3, true);
	obuf_write(b, "...", 3);
}

void
clean_cut(struct obuf *b, const char *s, size_t width)
{
	clean_cut_len(b, s, strlen(s), width);
}
