/*
 * The --list screen of the live view (top): the threads by memory, the
 * one under the cursor marked, drawn into a grid as live_draw.c draws a
 * capture.
 */
#include <inttypes.h>
#include <stdio.h>

#include "live_draw.h"

/* --list: the columns, their widths at 80 columns; the statement gets the rest. */
void
live_draw_list(const struct live_model *m, const struct live_view *v,
    struct live_grid *g)
{
	static const char *const heads[] = { "thread", "conn", "user", "host",
	    "command", "time", "state", "memory" };
	static const int widths[] = { 7, 7, 9, 10, 9, 6, 11, 11 };
	int n_cols = (int)(sizeof(widths) / sizeof(widths[0]));
	const struct thread_list *l = &m->threads;
	int rows = g->h - 3, first = 0, x;
	char line[512];

	live_grid_clear(g);
	if (live_draw_too_small(g))
		return;
	live_grid_fill_row(g, 0, LIVE_C_TITLE, LIVE_A_REVERSE);
	snprintf(line, sizeof(line), " mysqlmemprof  %s  %zu threads by "
	    "memory, every %" PRIu64 " ms%s", m->server, l->n, m->interval_ms,
	    v->paused ? "  [PAUSED]" : "");
	live_grid_text(g, 0, 0, g->w, line, LIVE_C_TITLE, LIVE_A_REVERSE);
	x = 2;
	for (int k = 0; k < n_cols; k++) {
		live_grid_text(g, 1, x, widths[k] - 1, heads[k], LIVE_C_AXIS,
		    LIVE_A_BOLD);
		x += widths[k];
	}
	live_grid_text(g, 1, x, g->w - x, "statement", LIVE_C_AXIS,
	    LIVE_A_BOLD);
	if (v->selected >= (size_t)rows)
		first = (int)(v->selected - (size_t)rows + 1);
	for (int r = 0; r < rows && (size_t)(first + r) < l->n; r++) {
		const struct thread_info *t = &l->v[first + r];
		bool sel = (size_t)(first + r) == v->selected;
		int attr = sel ? LIVE_A_REVERSE : 0, y = 2 + r;
		char cell[8][64], stmt[256];

		if (sel)
			live_grid_fill_row(g, y, 0, attr);
		snprintf(cell[0], 64, "%" PRIu64, t->thread_id);
		if (t->has_connection)
			snprintf(cell[1], 64, "%" PRIu64, t->connection_id);
		else
			snprintf(cell[1], 64, "-");
		snprintf(cell[2], 64, "%s", t->user ? t->user : "-");
		snprintf(cell[3], 64, "%s", t->host ? t->host : "-");
		snprintf(cell[4], 64, "%s", t->command ? t->command :
		    (t->name ? live_thread_name(t->name) : "-"));
		if (t->has_time)
			snprintf(cell[5], 64, "%" PRId64, t->time_s);
		else
			snprintf(cell[5], 64, "-");
		snprintf(cell[6], 64, "%s", t->state ? t->state : "");
		live_bytes_cell(v, t->current_bytes, cell[7], 64);
		/* The cursor shows without colours and in a copy of the screen. */
		if (sel)
			live_grid_put(g, y, 0, '>', 0, attr);
		x = 2;
		for (int k = 0; k < n_cols; k++) {
			if (k == 7)
				live_grid_text_right(g, y, x + widths[k] - 1, cell[k], 0,
				    attr);
			else
				live_grid_text(g, y, x, widths[k] - 1, cell[k],
				    0, attr);
			x += widths[k];
		}
		snprintf(stmt, sizeof(stmt), "%.*s", (int)(t->statement_len <
		    sizeof(stmt) - 1 ? t->statement_len : sizeof(stmt) - 1),
		    t->statement ? t->statement : "");
		for (char *p = stmt; *p != '\0'; p++)
			if (*p == '\n' || *p == '\t' || *p == '\r')
				*p = ' ';
		live_grid_text(g, y, x, g->w - x, stmt, 0, attr);
	}
	snprintf(line, sizeof(line), " q quit  Up/Down move  Enter open the "
	    "thread's live view  p %s  b %s", v->paused ? "resume" : "pause",
	    v->exact ? "KiB/MiB" : "bytes");
	live_grid_text(g, g->h - 1, 0, g->w, line, LIVE_C_AXIS, 0);
}
