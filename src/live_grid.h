/*
 * The grid of cells the live view draws into, with no terminal: live.c
 * copies it to ncurses, the unit tests read it as text.
 */
#ifndef MYSQLMEMPROF_LIVE_GRID_H
#define MYSQLMEMPROF_LIVE_GRID_H

#include <stddef.h>
#include <stdint.h>

/* Colours: 0 is the terminal's; the bands, then the rest. */
#define LIVE_BANDS 8
enum live_color {
	LIVE_C_DEFAULT = 0,
	LIVE_C_BAND = 1,                   /* 1 .. LIVE_BANDS, cycled */
	LIVE_C_OTHER = LIVE_C_BAND + LIVE_BANDS,
	LIVE_C_AXIS,
	LIVE_C_PEAK,
	LIVE_C_STATEMENT,
	LIVE_C_TITLE,
	LIVE_N_COLORS,
};
#define LIVE_A_BOLD 1
#define LIVE_A_REVERSE 2
#define LIVE_A_DIM 4     /* what is not read now: an earlier reading's */

struct live_cell {
	uint32_t ch;
	uint8_t color;
	uint8_t attr;
};

struct live_grid {
	int w, h;
	struct live_cell *c; /* w * h, row by row; owned */
};

int live_grid_init(struct live_grid *g, int w, int h);
void live_grid_free(struct live_grid *g);
/* Blanks every cell. */
void live_grid_clear(struct live_grid *g);
/*
 * Writes UTF-8 text at (y, x), at most maxw cells; a character that is not
 * one cell wide on a terminal, or that scrub.h refuses, becomes '?'.
 * Returns the cells written.
 */
int live_grid_text(struct live_grid *g, int y, int x, int maxw,
    const char *s, int color, int attr);
void live_grid_put(struct live_grid *g, int y, int x, uint32_t ch,
    int color, int attr);
/* Text right-aligned so that it ends before column end. */
void live_grid_text_right(struct live_grid *g, int y, int end,
    const char *s, int color, int attr);
/* Row y blanked in a colour and an attribute (a bar). */
void live_grid_fill_row(struct live_grid *g, int y, int color, int attr);
/* Row y as UTF-8 (for tests and the README), trailing blanks cut. */
void live_grid_row(const struct live_grid *g, int y, char *buf, size_t len);

#endif
