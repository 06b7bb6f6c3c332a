/*
 * The grid the live view's screens are drawn into: cells of a code point,
 * a colour and an attribute, written as text, read back as UTF-8.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "live_grid.h"
#include "scrub.h"

int
live_grid_init(struct live_grid *g, int w, int h)
{
	g->w = w > 0 ? w : 1;
	g->h = h > 0 ? h : 1;
	g->c = calloc((size_t)g->w * (size_t)g->h, sizeof(*g->c));
	if (g->c == NULL)
		return -1;
	live_grid_clear(g);
	return 0;
}

void
live_grid_free(struct live_grid *g)
{
	free(g->c);
	g->c = NULL;
}

void
live_grid_clear(struct live_grid *g)
{
	for (int i = 0; i < g->w * g->h; i++)
		g->c[i] = (struct live_cell){ .ch = ' ' };
}

void
live_grid_put(struct live_grid *g, int y, int x, uint32_t ch, int color, int attr)
{
	if (y < 0 || y >= g->h || x < 0 || x >= g->w)
		return;
	g->c[y * g->w + x] = (struct live_cell){ .ch = ch,
	    .color = (uint8_t)color, .attr = (uint8_t)attr };
}

int
live_grid_text(struct live_grid *g, int y, int x, int maxw, const char *s,
    int color, int attr)
{
	size_t n = strlen(s);
	int w = 0;

	while (n > 0 && w < maxw && x + w < g->w) {
		uint32_t cp;
		size_t k = scrub_utf8(s, n, &cp);

		if (k == 0 || !scrub_shown(cp) || wcwidth((wchar_t)cp) != 1) {
			/* wcwidth() is -1 for all but ASCII in the C locale. */
			if (k == 0 || cp >= 0x80 || !scrub_shown(cp))
				cp = '?';
			if (k == 0)
				k = 1;
		}
		live_grid_put(g, y, x + w, cp, color, attr);
		w++;
		s += k;
		n -= k;
	}
	return w;
}

void
live_grid_text_right(struct live_grid *g, int y, int end, const char *s, int color,
    int attr)
{
	int len = (int)strlen(s);

	live_grid_text(g, y, end - len, len, s, color, attr);
}

void
live_grid_row(const struct live_grid *g, int y, char *buf, size_t len)
{
	size_t at = 0, keep = 0;

	if (len == 0)
		return;
	for (int x = 0; x < g->w && y >= 0 && y < g->h; x++) {
		uint32_t cp = g->c[y * g->w + x].ch;
		char u[4];
		size_t k;

		if (cp < 0x80) {
			u[0] = (char)cp;
			k = 1;
		} else if (cp < 0x800) {
			u[0] = (char)(0xc0 | cp >> 6);
			u[1] = (char)(0x80 | (cp & 0x3f));
			k = 2;
		} else if (cp < 0x10000) {
			u[0] = (char)(0xe0 | cp >> 12);
			u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[2] = (char)(0x80 | (cp & 0x3f));
			k = 3;
		} else {
			u[0] = (char)(0xf0 | cp >> 18);
			u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
			u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[3] = (char)(0x80 | (cp & 0x3f));
			k = 4;
		}
		if (at + k >= len)
			break;
		memcpy(buf + at, u, k);
		at += k;
		if (cp != ' ')
			keep = at;
	}
	buf[keep] = '\0';
}

void
live_grid_fill_row(struct live_grid *g, int y, int color, int attr)
{
	for (int x = 0; x < g->w; x++)
		live_grid_put(g, y, x, ' ', color, attr);
}
