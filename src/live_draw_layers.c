/*
 * The live view's key e: the server's memory in layers (--explain's
 * answer, read by a --global capture's chain every --layers-every) in a
 * box over the capture screen: a row a layer, indented under the one it
 * is part of, then the allocator and the advice, each cut to the box.
 */
#include <stdio.h>

#include "live_draw.h"

/* The box: as wide as the screen allows, up to this. */
#define BOX_W 110

static void
box(struct live_grid *g, int y0, int x0, int w, int h)
{
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			live_grid_put(g, y0 + y, x0 + x, ' ', LIVE_C_TITLE,
			    LIVE_A_REVERSE);
}

/* No reading yet: when one comes, on two lines that fit 80 columns. */
static void
not_yet(const struct live_model *m, struct live_grid *g, int x, int w)
{
	char when[128];

	if (m->layers_every_s == 0) {
		live_grid_text(g, 1, x, w, "The layers are not read: "
		    "--layers-every=0.", LIVE_C_TITLE, LIVE_A_REVERSE);
		return;
	}
	live_grid_text(g, 1, x, w, "No reading of the layers yet: they come "
	    "with --global on the server's", LIVE_C_TITLE, LIVE_A_REVERSE);
	snprintf(when, sizeof(when), "machine, read after the first sample "
	    "and every %u s (--layers-every).", m->layers_every_s);
	live_grid_text(g, 2, x, w, when, LIVE_C_TITLE, LIVE_A_REVERSE);
}

void
live_draw_layers(const struct live_model *m, const struct live_view *v,
    struct live_grid *g)
{
	const struct explain *e = &m->layers;
	int w = g->w - 4 < BOX_W ? g->w - 4 : BOX_W;
	int x0 = (g->w - w) / 2, y = 1, last = g->h - 2;
	char line[EXPLAIN_LINE + 64], size[32];

	box(g, 0, x0, w, g->h - 1);
	if (!m->has_layers) {
		not_yet(m, g, x0 + 2, w - 4);
		live_grid_text(g, last, x0 + 2, w - 4, "any key closes this",
		    LIVE_C_TITLE, LIVE_A_REVERSE);
		return;
	}
	snprintf(line, sizeof(line), "The memory in layers (read every %u s; "
	    "mysqlmemprof --explain says more)", m->layers_every_s);
	live_grid_text(g, y++, x0 + 2, w - 4, line, LIVE_C_TITLE,
	    LIVE_A_REVERSE);
	y++;
	/* Each line below y and above the closing one: y < last after it. */
	for (size_t i = 0; i < e->layers && y < last; i++) {
		const struct explain_layer *l = &e->layer[i];

		if (l->bytes < 0)
			snprintf(size, sizeof(size), "-");
		else
			live_bytes_cell(v, l->bytes, size, sizeof(size));
		snprintf(line, sizeof(line), "%*s  %*s%s", v->exact ? 14 : 11,
		    size, 2 * l->depth, "", l->name);
		live_grid_text(g, y++, x0 + 1, w - 2, line, LIVE_C_TITLE,
		    LIVE_A_REVERSE);
	}
	y++; /* a blank line */
	if (e->allocator[0] != '\0' && y < last) {
		snprintf(line, sizeof(line), "allocator: %s", e->allocator);
		live_grid_text(g, y++, x0 + 2, w - 4, line, LIVE_C_TITLE,
		    LIVE_A_REVERSE);
	}
	/* What is missing and why (a remote server), then the advice. */
	for (size_t i = 0; i < e->notes_n && y < last; i++)
		live_grid_text(g, y++, x0 + 2, w - 4, e->notes[i],
		    LIVE_C_TITLE, LIVE_A_REVERSE);
	for (size_t i = 0; i < e->advices && y < last; i++) {
		snprintf(line, sizeof(line), "- %s", e->advice[i]);
		live_grid_text(g, y++, x0 + 2, w - 4, line, LIVE_C_TITLE,
		    LIVE_A_REVERSE);
	}
	live_grid_text(g, last, x0 + 2, w - 4, "any key closes this",
	    LIVE_C_TITLE, LIVE_A_REVERSE);
}
