/*
 * The live view's screens drawn into a grid of cells (a code point, a
 * colour, an attribute), with no terminal: live.c copies the grid to
 * ncurses, and the unit tests read it as text. Layout, scales, the
 * stackplot and the tables are all decided here.
 */
#ifndef MYSQLMEMPROF_LIVE_DRAW_H
#define MYSQLMEMPROF_LIVE_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live_grid.h"
#include "live_model.h"

/* The smallest screen drawn; a smaller one gets a line saying so. */
#define LIVE_MIN_W 80
#define LIVE_MIN_H 24

/* What the keys change. */
enum live_sort {
	LIVE_SORT_CURRENT,
	LIVE_SORT_CHANGE,
	LIVE_SORT_HIGH,
	LIVE_SORT_ALLOC,
	LIVE_N_SORTS,
};

struct live_view {
	size_t rows;          /* events in the table and bands in the chart */
	enum live_sort sort;
	bool exact;           /* b: exact bytes */
	bool paused;          /* p: drawing stops, sampling goes on */
	bool help;            /* ?: the keys */
	bool layers;          /* e: the memory in layers (--global) */
	bool mono;            /* no colours: a glyph per band instead */
	bool ascii;           /* no UTF-8: ASCII glyphs and lines */
	size_t selected;      /* --list: the thread under the cursor */
	bool from_list;       /* opened from --list: Esc goes back */
};

/* The most event rows the table can have at height h. */
size_t live_max_rows(int h);

/*
 * The top of the y scale for a largest value max: the smallest 2^k or
 * 3 * 2^k bytes not below it (1 KiB at least), so that halves and
 * quarters read well in binary units.
 */
int64_t live_scale_top(int64_t max);
/* "0 B", "512 KiB", "1.5 MiB": a scale label, at most 9 characters. */
void live_scale_label(int64_t v, char *buf, size_t len);

/* The capture screen: header, stackplot, table, status line. */
void live_draw(const struct live_model *m, const struct live_view *v,
    struct live_grid *g);
/*
 * e: the memory in layers in a box over the capture screen, drawn after
 * it (live_draw_layers.c).
 */
void live_draw_layers(const struct live_model *m, const struct live_view *v,
    struct live_grid *g);
/* The --list screen (live_draw_list.c): the threads by memory, the selected one marked. */
void live_draw_list(const struct live_model *m, const struct live_view *v,
    struct live_grid *g);

/* What both screens use: the line that says the terminal is too small
 * (true when it is), a cell of bytes as the view shows them, and a
 * background thread's name without "thread/". */
bool live_draw_too_small(struct live_grid *g);
void live_bytes_cell(const struct live_view *v, int64_t b, char *buf,
    size_t len);
const char *live_thread_name(const char *name);

#endif
