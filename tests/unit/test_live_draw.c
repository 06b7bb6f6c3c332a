/*
 * The live view without a terminal: the model keeps the window as the
 * sampler gives it, and the screens drawn into a grid read as they should
 * (scales, bands, marks, the table, the keys' effects, the list).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "live_draw.h"
#include "live_model.h"

#define KIB 1024
#define MIB (1024 * 1024)

/* A sample of up to four events, given as name and bytes pairs. */
struct fake {
	struct sample s;
	struct event_stat ev[4];
};

static void
make(struct fake *f, uint64_t seq, int64_t total, size_t n, ...)
{
	va_list ap;

	memset(f, 0, sizeof(*f));
	f->s.seq = seq;
	f->s.elapsed_us = (seq - 1) * 100000; /* every 100 ms */
	f->s.has_deltas = seq > 1;
	f->s.total_bytes = total;
	f->s.thread_id = 42;
	f->s.events = f->ev;
	f->s.n_events = n;
	f->s.query_us = 500;
	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		snprintf(f->ev[i].name, sizeof(f->ev[i].name), "%s",
		    va_arg(ap, const char *));
		f->ev[i].current_bytes = va_arg(ap, int64_t);
		f->ev[i].high_bytes = f->ev[i].current_bytes;
	}
	va_end(ap);
	snprintf(f->s.statement.text, sizeof(f->s.statement.text),
	    "SELECT 1");
	f->s.statement.thread_id = 42;
	f->s.statement.has_id = true;
	f->s.statement.id = 7;
}

static void
add(struct live_model *m, struct fake *f)
{
	assert_int_equal(live_model_add(m, &f->s, f->s.seq, 0), 0);
}

/* The screen as lines of UTF-8. */
static char screen[64][1024];

static void
read_grid(const struct live_grid *g)
{
	for (int y = 0; y < g->h && y < 64; y++)
		live_grid_row(g, y, screen[y], sizeof(screen[y]));
}

/* The first line holding s, or -1. */
static int
line_with(const struct live_grid *g, const char *s)
{
	for (int y = 0; y < g->h; y++)
		if (strstr(screen[y], s) != NULL)
			return y;
	return -1;
}

static uint32_t
cell(const struct live_grid *g, int y, int x)
{
	return g->c[y * g->w + x].ch;
}

static void
test_scale(void **state)
{
	char buf[32];

	(void)state;
	assert_int_equal(live_scale_top(0), KIB);
	assert_int_equal(live_scale_top(-5), KIB);
	assert_int_equal(live_scale_top(KIB), KIB);
	assert_int_equal(live_scale_top(KIB + 1), 1536);
	assert_int_equal(live_scale_top(1537), 2 * KIB);
	assert_int_equal(live_scale_top(3 * MIB + 700 * KIB), 4 * MIB);
	assert_int_equal(live_scale_top(5 * MIB), 6 * MIB);
	assert_int_equal(live_scale_top(100 * MIB), 128 * MIB);
	assert_int_equal(live_scale_top(INT64_MAX), INT64_MAX);

	live_scale_label(0, buf, sizeof(buf));
	assert_string_equal(buf, "0 B");
	live_scale_label(512, buf, sizeof(buf));
	assert_string_equal(buf, "512 B");
	live_scale_label(1536, buf, sizeof(buf));
	assert_string_equal(buf, "1.5 KiB");
	live_scale_label(4 * MIB, buf, sizeof(buf));
	assert_string_equal(buf, "4 MiB");
	live_scale_label(3 * MIB / 2, buf, sizeof(buf));
	assert_string_equal(buf, "1.5 MiB");
	live_scale_label(768 * KIB, buf, sizeof(buf));
	assert_string_equal(buf, "768 KiB");
	live_scale_label(INT64_MAX, buf, sizeof(buf));
	assert_true(strlen(buf) <= 9);
}

static void
test_model_window_and_names(void **state)
{
	struct live_model m;
	struct fake f;

	(void)state;
	assert_int_equal(live_model_init(&m, 3, 0), 0);
	live_model_begin(&m, "10.11.6-MariaDB", "thread 42", 100, 0);
	for (uint64_t i = 1; i <= 5; i++) {
		make(&f, i, (int64_t)i * KIB, 2, "memory/sql/a", (int64_t)i *
		    KIB / 2, "memory/sql/b", (int64_t)i * KIB / 4);
		add(&m, &f);
	}
	/* The newest three, oldest first. */
	assert_int_equal(m.len, 3);
	assert_int_equal(live_model_column(&m, 0)->seq, 3);
	assert_int_equal(live_model_column(&m, 2)->seq, 5);
	assert_int_equal(live_model_column(&m, 2)->total, 5 * KIB);
	/* Each name once. */
	assert_int_equal(m.n_names, 2);
	assert_string_equal(m.names[live_model_column(&m, 2)->ev[1].id],
	    "memory/sql/b");
	assert_int_equal(m.taken, 5);
	/* A new capture starts empty. */
	live_model_begin(&m, "v", "thread 43", 100, 0);
	assert_int_equal(m.len, 0);
	assert_int_equal(m.taken, 0);
	live_model_free(&m);
}

static void
test_model_marks_and_statement(void **state)
{
	struct live_model m;
	struct fake f;

	(void)state;
	assert_int_equal(live_model_init(&m, 10, 0), 0);
	live_model_begin(&m, "v", "t", 100, 5);
	make(&f, 1, KIB, 1, "memory/sql/a", (int64_t)KIB);
	f.ev[0].delta.unseen_peak = true; /* no deltas in the first sample */
	add(&m, &f);
	assert_false(live_model_column(&m, 0)->peak);
	assert_false(live_model_column(&m, 0)->new_statement);
	assert_true(m.running);
	assert_string_equal(m.statement, "SELECT 1");

	make(&f, 2, KIB, 1, "memory/sql/a", (int64_t)KIB);
	f.ev[0].delta.unseen_peak = true;
	add(&m, &f);
	assert_true(live_model_column(&m, 1)->peak);
	assert_true(live_model_column(&m, 1)->ev[0].peak);
	assert_int_equal(m.statement_base_s, 5);

	/* A spike only the deltas prove is marked too. */
	make(&f, 3, KIB, 1, "memory/sql/a", (int64_t)KIB);
	f.ev[0].delta.spike_bytes = 4 * (int64_t)KIB;
	add(&m, &f);
	assert_true(live_model_column(&m, 2)->ev[0].peak);
	live_model_free(&m);
	assert_int_equal(live_model_init(&m, 10, 0), 0);
	live_model_begin(&m, "v", "t", 100, 5);
	make(&f, 1, KIB, 1, "memory/sql/a", (int64_t)KIB);
	add(&m, &f);
	make(&f, 2, KIB, 1, "memory/sql/a", (int64_t)KIB);
	f.ev[0].delta.unseen_peak = true;
	add(&m, &f);

	/* The digest filled in: the statement ended, idle from here. */
	make(&f, 3, KIB, 1, "memory/sql/a", (int64_t)KIB);
	strcpy(f.s.statement.digest, "abc");
	add(&m, &f);
	assert_false(m.running);
	assert_int_equal(m.statement_since_us, 200000);
	assert_false(live_model_column(&m, 2)->new_statement);

	/* Another statement, with a line end in its text. */
	make(&f, 4, KIB, 1, "memory/sql/a", (int64_t)KIB);
	f.s.statement.id = 8;
	strcpy(f.s.statement.text, "SELECT\n2\x1b[2J");
	add(&m, &f);
	assert_true(live_model_column(&m, 3)->new_statement);
	assert_true(m.running);
	assert_string_equal(m.statement, "SELECT 2?[2J");
	live_model_free(&m);
}

/* A model of 30 samples of three events, the last with a peak. */
static void
steady_model(struct live_model *m)
{
	struct fake f;

	assert_int_equal(live_model_init(m, 50, 0), 0);
	live_model_begin(m, "10.11.6-MariaDB", "thread 42 (connection 7)",
	    100, 0);
	for (uint64_t i = 1; i <= 30; i++) {
		make(&f, i, 3 * MIB + 512 * KIB, 3,
		    "memory/sql/big", (int64_t)2 * MIB,
		    "memory/sql/medium", (int64_t)MIB,
		    "memory/innodb/small", (int64_t)(256 * KIB + i));
		f.ev[2].delta.alloc_bytes = 1000;
		f.ev[1].delta.unseen_peak = i == 30;
		f.ev[1].high_bytes = 5 * MIB;
		add(m, &f);
	}
}

/*
 * With MySQL's connection_memory_limit, the header says it and how close
 * the capture came, before our cost; a new capture forgets both.
 */
static void
test_draw_limit(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5 };
	struct live_grid g;

	(void)state;
	steady_model(&m);
	m.limit_bytes = 8 * MIB;
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	/* The most total seen: 3.5 MiB and the last event's 30 bytes. */
	if (strstr(screen[2], "every 100 ms  samples 30  skipped 0  total "
	    "3.50 MiB  limit 8.00 MiB (most 44%)") == NULL)
		fail_msg("[%s]", screen[2]);
	live_model_begin(&m, "9.7.4", "thread 42 (connection 7)", 100, 0);
	assert_int_equal(m.limit_bytes, 0);
	assert_int_equal(m.most_total, 0);
	live_grid_free(&g);
	live_model_free(&m);
}

static void
test_draw_view(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5 };
	struct live_grid g;
	int y, bottom, top, x;

	(void)state;
	steady_model(&m);
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	/* Header. */
	assert_non_null(strstr(screen[0], "10.11.6-MariaDB"));
	assert_non_null(strstr(screen[0], "thread 42 (connection 7)"));
	assert_non_null(strstr(screen[1], "SELECT 1"));
	assert_non_null(strstr(screen[1], "running for 2 s"));
	assert_non_null(strstr(screen[2], "every 100 ms  samples 30  skipped 0"
	    "  our cost 0.50 ms/sample  total 3.50 MiB"));
	/* The scale: 3.5 MiB fits under 4 MiB; half of it in the middle. */
	top = line_with(&g, "4 MiB\xe2\x94\x82");
	bottom = line_with(&g, "0 B\xe2\x94\x82");
	assert_int_equal(top, 3);
	assert_true(bottom > top + 3);
	assert_true(line_with(&g, "2 MiB\xe2\x94\x82") > top);
	/* The newest sample in the last column, filled to 3.5 of 4 MiB. */
	x = g.w - 1;
	assert_int_equal(cell(&g, bottom, x), 0x2588);
	assert_int_equal(cell(&g, top, x), ' ');
	/* The largest event at the bottom, in the first band's colour. */
	assert_int_equal(g.c[bottom * g.w + x].color, LIVE_C_BAND);
	/* 30 samples: the columns left of them are empty. */
	assert_int_equal(cell(&g, bottom, g.w - 30), 0x2588);
	assert_int_equal(cell(&g, bottom, g.w - 31), ' ');
	/* The peak mark under the newest sample, only there. */
	assert_int_equal(cell(&g, bottom + 1, x), '^');
	assert_int_not_equal(cell(&g, bottom + 1, x - 1), '^');
	/* The time axis: 0.0 under the first sample, 2.9 at the right. */
	assert_non_null(strstr(screen[bottom + 2], "0.0"));
	assert_non_null(strstr(screen[bottom + 2], "2.9"));
	/* The table: three events largest first, then other; the peak mark. */
	y = line_with(&g, "change/s");
	assert_true(y > bottom);
	assert_non_null(strstr(screen[y + 1], "sql/big"));
	assert_non_null(strstr(screen[y + 1], "2.00 MiB"));
	assert_non_null(strstr(screen[y + 1], "57.1%"));
	assert_non_null(strstr(screen[y + 2], "sql/medium"));
	assert_int_equal(screen[y + 2][0], '^');
	assert_non_null(strstr(screen[y + 2], "5.00 MiB")); /* high */
	assert_non_null(strstr(screen[y + 3], "innodb/small"));
	assert_non_null(strstr(screen[y + 3], "10 B/s")); /* 1 B in 100 ms */
	assert_non_null(strstr(screen[y + 3], "1000 B")); /* alloc */
	assert_non_null(strstr(screen[y + 4], "other"));
	assert_non_null(strstr(screen[23], "q quit"));

	/* b: exact bytes. */
	v.exact = true;
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[y + 1], "2097152"));
	assert_null(strstr(screen[y + 1], "MiB"));

	/* s twice: sorted by high-water mark, medium first. */
	v.exact = false;
	v.sort = LIVE_SORT_HIGH;
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[y + 1], "sql/medium"));
	assert_non_null(strstr(screen[23], "sort: high"));

	/* -: one row; the rest is "other". */
	v.sort = LIVE_SORT_CURRENT;
	v.rows = 1;
	live_draw(&m, &v, &g);
	read_grid(&g);
	y = line_with(&g, "change/s");
	assert_non_null(strstr(screen[y + 1], "sql/big"));
	assert_non_null(strstr(screen[y + 2], "other"));
	assert_non_null(strstr(screen[y + 2], "1.50 MiB"));

	/* p and ?: paused in the header, the keys over the chart. */
	v.paused = true;
	v.help = true;
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[0], "[PAUSED]"));
	assert_true(line_with(&g, "any key closes it") > 0);
	live_grid_free(&g);
	live_model_free(&m);
}

/*
 * --global on the server's machine: the process's resident memory in the
 * header, with what is not counted, and a line in the scale above the
 * bands; none of it without.
 */
static void
test_draw_resident(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5 };
	struct live_grid g;
	struct fake f;
	int top, bottom, x, y;

	(void)state;
	assert_int_equal(live_model_init(&m, 50, 0), 0);
	live_model_begin(&m, "10.11.6-MariaDB", "global", 100, 0);
	for (uint64_t i = 1; i <= 10; i++) {
		make(&f, i, 3 * MIB, 1, "memory/sql/big", (int64_t)3 * MIB);
		/* A grain runs no statement. */
		memset(&f.s.statement, 0, sizeof(f.s.statement));
		f.s.process = (struct process_memory){ .known = i > 2,
		    .resident_bytes = 7 * MIB, .anon_bytes = 6 * MIB,
		    .file_bytes = MIB };
		add(&m, &f);
	}
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[1], "resident 7.00 MiB (the line), "
	    "not counted 4.00 MiB"));
	assert_non_null(strstr(screen[2], "total 3.00 MiB"));
	/* The scale holds the resident 7 MiB: 8 MiB at the top. */
	top = line_with(&g, "8 MiB\xe2\x94\x82");
	bottom = line_with(&g, "0 B\xe2\x94\x82");
	assert_int_equal(top, 3);
	x = g.w - 1;
	/* The line at 7/8 of the height, over empty cells; the bands below. */
	y = bottom + 1 - (int)((7.0 * (bottom - top + 1)) / 8 + 0.5);
	assert_int_equal(cell(&g, y, x), 0x2500);
	assert_int_equal(cell(&g, y + 1, x), ' ');
	assert_int_equal(cell(&g, bottom, x), 0x2588);
	/* The first two samples had no process: no line over them. */
	for (int r = top; r <= bottom; r++)
		assert_int_not_equal(cell(&g, r, g.w - 10), 0x2500);
	assert_int_equal(cell(&g, y, g.w - 8), 0x2500);
	/* The newest without: the header says nothing of it. */
	make(&f, 11, 3 * MIB, 1, "memory/sql/big", (int64_t)3 * MIB);
	memset(&f.s.statement, 0, sizeof(f.s.statement));
	add(&m, &f);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_null(strstr(screen[1], "resident"));
	live_grid_free(&g);
	live_model_free(&m);
}

/*
 * The server's memory cgroup: its usage and limit in the header; the
 * limit a double line in the chart when near enough to be in the scale,
 * left out of it when far above; "no limit" when none is set.
 */
static void
test_draw_cgroup(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5 };
	struct live_grid g;
	struct process_memory proc;
	struct fake f;
	int top, bottom, y, found;

	(void)state;
	assert_int_equal(live_model_init(&m, 50, 0), 0);
	live_model_begin(&m, "10.11.6-MariaDB", "global", 100, 0);
	for (uint64_t i = 1; i <= 10; i++) {
		make(&f, i, 3 * MIB, 1, "memory/sql/big", (int64_t)3 * MIB);
		memset(&f.s.statement, 0, sizeof(f.s.statement));
		f.s.process = (struct process_memory){ .known = true,
		    .resident_bytes = 7 * MIB, .anon_bytes = 6 * MIB,
		    .file_bytes = MIB, .has_cgroup = true,
		    .cgroup_usage_bytes = 9 * MIB,
		    .cgroup_limit_bytes = 10 * MIB };
		add(&m, &f);
	}
	assert_int_equal(live_grid_init(&g, 120, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[1], "cgroup 9.00 MiB of 10.00 MiB "
	    "(90%)"));
	/* The scale holds the limit; the double line at its height. */
	top = line_with(&g, "12 MiB\xe2\x94\x82");
	bottom = line_with(&g, "0 B\xe2\x94\x82");
	assert_int_equal(top, 3);
	y = bottom + 1 - (int)((10.0 * (bottom - top + 1)) / 12 + 0.5);
	assert_int_equal(cell(&g, y, g.w - 1), 0x2550);
	/* A limit far above: not in the scale, no line, the header says. */
	proc = f.s.process;
	make(&f, 11, 3 * MIB, 1, "memory/sql/big", (int64_t)3 * MIB);
	memset(&f.s.statement, 0, sizeof(f.s.statement));
	f.s.process = proc;
	f.s.process.cgroup_limit_bytes = (int64_t)1 << 30;
	for (uint64_t i = 11; i <= 70; i++) {
		f.s.seq = i;
		add(&m, &f);
	}
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[1], "cgroup 9.00 MiB of 1.00 GiB "
	    "(1%)"));
	assert_true(line_with(&g, "8 MiB\xe2\x94\x82") == 3);
	found = 0;
	for (int r = 3; r < g.h; r++)
		for (int x = 0; x < g.w; x++)
			found += cell(&g, r, x) == 0x2550;
	assert_int_equal(found, 0);
	/* None set. */
	f.s.seq = 71;
	f.s.process.cgroup_limit_bytes = -1;
	add(&m, &f);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[1], "cgroup 9.00 MiB, no limit"));
	live_grid_free(&g);
	live_model_free(&m);
}

/* Key e: the layers over the screen, or a line saying when they come. */
static void
test_draw_layers(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5, .layers = true };
	struct live_grid g;
	int y;

	(void)state;
	steady_model(&m);
	assert_int_equal(live_grid_init(&g, 100, 30), 0);
	m.layers_every_s = 60;
	live_draw(&m, &v, &g);
	live_draw_layers(&m, &v, &g);
	read_grid(&g);
	y = line_with(&g, "No reading of the layers yet");
	assert_true(y >= 0);
	assert_non_null(strstr(screen[y + 1], "read after the first sample and "
	    "every 60 s (--layers-every)."));
	/* --layers-every=0: none will come, and the box says so. */
	m.layers_every_s = 0;
	live_draw(&m, &v, &g);
	live_draw_layers(&m, &v, &g);
	read_grid(&g);
	assert_int_equal(line_with(&g, "No reading of the layers yet"), -1);
	assert_true(line_with(&g, "The layers are not read: --layers-every=0.")
	    >= 0);
	m.layers_every_s = 30;
	m.has_layers = true;
	m.layers = (struct explain){ .layers = 3, .advices = 1, .arenas = 17 };
	m.layers.layer[0] = (struct explain_layer){ .key = "resident",
	    .depth = 0, .name = "resident", .bytes = 400 << 20 };
	m.layers.layer[1] = (struct explain_layer){ .key = "anonymous",
	    .depth = 1, .name = "anonymous pages", .bytes = 370 << 20 };
	m.layers.layer[2] = (struct explain_layer){ .key = "swap",
	    .depth = 0, .name = "swapped out", .bytes = -1 };
	snprintf(m.layers.allocator, sizeof(m.layers.allocator),
	    "glibc malloc, 17 arenas");
	snprintf(m.layers.advice[0], sizeof(m.layers.advice[0]),
	    "try MALLOC_ARENA_MAX=4");
	live_draw(&m, &v, &g);
	live_draw_layers(&m, &v, &g);
	read_grid(&g);
	assert_true(line_with(&g, "The memory in layers (read every 30 s; "
	    "mysqlmemprof --explain says more)") >= 0);
	y = line_with(&g, "400.00 MiB  resident");
	assert_true(y > 0);
	assert_non_null(strstr(screen[y + 1], "370.00 MiB    anonymous pages"));
	assert_non_null(strstr(screen[y + 2], "-  swapped out"));
	assert_true(line_with(&g, "allocator: glibc malloc, 17 arenas") > y);
	assert_true(line_with(&g, "- try MALLOC_ARENA_MAX=4") > y);
	assert_true(line_with(&g, "any key closes this") > y);
	/* Without it, the capture screen alone. */
	v.layers = false;
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_int_equal(line_with(&g, "400.00 MiB  resident"), -1);
	live_grid_free(&g);
	live_model_free(&m);
}

/* More rows than the screen has room for: as many as fit. */
static void
test_rows_bounded(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 100 };
	struct live_grid g;

	(void)state;
	steady_model(&m);
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_true(line_with(&g, "0 B\xe2\x94\x82") > 3);
	assert_true(live_max_rows(24) >= 5);
	assert_non_null(strstr(screen[23], "q quit"));
	live_grid_free(&g);
	live_model_free(&m);
}

/* More samples than columns: no peak disappears. */
static void
test_downsampled_keeps_peaks(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 3 };
	struct live_grid g;
	struct fake f;
	int top, found = 0;

	(void)state;
	assert_int_equal(live_model_init(&m, 1000, 0), 0);
	live_model_begin(&m, "v", "t", 100, 0);
	for (uint64_t i = 1; i <= 1000; i++) {
		int64_t b = i == 500 ? 4 * MIB : MIB;

		make(&f, i, b, 1, "memory/sql/a", b);
		add(&m, &f);
	}
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	top = line_with(&g, "4 MiB\xe2\x94\x82");
	assert_int_equal(top, 3);
	/* One column, in the middle, reaches the top. */
	for (int x = 10; x < g.w; x++)
		if (cell(&g, top, x) == 0x2588) {
			found++;
			assert_true(x > 30 && x < 60);
		}
	assert_int_equal(found, 1);
	live_grid_free(&g);
	live_model_free(&m);
}

static void
test_small_screen_and_ended(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5, .ascii = true };
	struct live_grid g;

	(void)state;
	steady_model(&m);
	assert_int_equal(live_grid_init(&g, 79, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[0], "needs 80x24"));
	live_grid_free(&g);

	m.state = LIVE_ENDED;
	snprintf(m.end_note, sizeof(m.end_note), "the thread ended");
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[23], " the thread ended"));
	assert_non_null(strstr(screen[23], "  press q to quit"));
	/* A note too long for the line is cut; the keys stay. */
	memset(m.end_note, 'x', sizeof(m.end_note) - 1);
	m.end_note[sizeof(m.end_note) - 1] = '\0';
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[23], "xxx  press q to quit"));
	/* Without UTF-8, ASCII only. */
	for (int i = 0; i < g.w * g.h; i++)
		assert_true(g.c[i].ch < 0x80);
	assert_non_null(strstr(screen[3], "4 MiB|"));
	live_grid_free(&g);
	live_model_free(&m);
}

static void
test_grid_text_scrubbed(void **state)
{
	struct live_grid g;
	char row[256];

	(void)state;
	assert_int_equal(live_grid_init(&g, 20, 2), 0);
	assert_int_equal(live_grid_text(&g, 0, 0, 20, "a\x1b[31mb\xff\n", 0,
	    0), 9);
	live_grid_row(&g, 0, row, sizeof(row));
	assert_string_equal(row, "a?[31mb??");
	/* Cut at maxw and at the edge. */
	assert_int_equal(live_grid_text(&g, 1, 15, 3, "abcdef", 0, 0), 3);
	assert_int_equal(live_grid_text(&g, 1, 18, 10, "abcdef", 0, 0), 2);
	live_grid_row(&g, 1, row, sizeof(row));
	assert_string_equal(row, "               abcab");
	live_grid_free(&g);
}

static void
test_draw_list(void **state)
{
	struct live_model m;
	struct live_view v = { .selected = 1 };
	struct live_grid g;
	struct thread_list l;
	int y;

	(void)state;
	assert_int_equal(live_model_init(&m, 10, 0), 0);
	snprintf(m.server, sizeof(m.server), "10.11.6-MariaDB");
	m.interval_ms = 500;
	l.n = 2;
	l.v = calloc(2, sizeof(*l.v));
	assert_non_null(l.v);
	l.v[0] = (struct thread_info){ .thread_id = 1,
	    .name = strdup("thread/sql/main"), .current_bytes = 64 * MIB };
	l.v[1] = (struct thread_info){ .thread_id = 42, .has_connection = true,
	    .connection_id = 7, .user = strdup("app"),
	    .host = strdup("localhost"), .command = strdup("Query"),
	    .has_time = true, .time_s = 12, .state = strdup("Sending data"),
	    .current_bytes = 3 * MIB, .statement = strdup("SELECT\n1"),
	    .statement_len = 8 };
	live_model_set_threads(&m, &l);
	assert_int_equal(l.n, 0);
	assert_int_equal(live_grid_init(&g, 100, 30), 0);
	live_draw_list(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[0], "2 threads by memory, every 500 ms"));
	assert_non_null(strstr(screen[1], "thread"));
	assert_non_null(strstr(screen[1], "statement"));
	y = line_with(&g, "sql/main");
	assert_int_equal(y, 2);
	assert_non_null(strstr(screen[2], "64.00 MiB"));
	assert_int_equal(screen[2][0], ' ');
	/* The cursor on the second, with what the server said of it. */
	assert_int_equal(screen[3][0], '>');
	assert_non_null(strstr(screen[3], "42"));
	assert_non_null(strstr(screen[3], "app"));
	assert_non_null(strstr(screen[3], "Query"));
	assert_non_null(strstr(screen[3], "3.00 MiB"));
	assert_non_null(strstr(screen[3], "SELECT 1"));
	assert_true(g.c[3 * g.w + 50].attr & LIVE_A_REVERSE);
	assert_non_null(strstr(screen[29], "Enter"));
	live_grid_free(&g);
	live_model_free(&m);
}

/*
 * Statements the server recorded as finished between two samples, none of
 * them the statement either sample saw: marked '!' under the sample that
 * brought them, and counted in the header.
 */
static void
test_unsampled_statements_marked(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5 };
	struct live_grid g;
	struct fake f;
	struct finished_statement done[3] = {
		{ .statement = { .has_id = true, .id = 7 } },  /* seen: sample 1 */
		{ .statement = { .has_id = true, .id = 9 }, .has_peak = true,
		  .peak_bytes = 30 * MIB },
		{ .statement = { .has_id = true, .id = 11 }, .has_peak = true,
		  .peak_bytes = 20 * MIB },
	};
	int bottom;

	(void)state;
	assert_int_equal(live_model_init(&m, 10, 0), 0);
	live_model_begin(&m, "9.7.4", "thread 42", 1000, 0);
	make(&f, 1, MIB, 1, "memory/sql/a", (int64_t)MIB);
	add(&m, &f);
	make(&f, 2, MIB, 1, "memory/sql/a", (int64_t)MIB);
	f.s.statement.id = 13;
	f.s.finished = done;
	f.s.n_finished = 3;
	add(&m, &f);
	make(&f, 3, MIB, 1, "memory/sql/a", (int64_t)MIB);
	f.s.statement.id = 13;
	add(&m, &f);
	assert_int_equal(live_model_column(&m, 0)->unseen, 0);
	assert_int_equal(live_model_column(&m, 1)->unseen, 2);
	assert_int_equal(live_model_column(&m, 1)->unseen_peak, 30 * MIB);
	assert_int_equal(live_model_column(&m, 2)->unseen, 0);
	assert_int_equal(m.unseen, 2);
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[1], "!2 unsampled"));
	bottom = line_with(&g, "0 B\xe2\x94\x82");
	assert_true(bottom > 0);
	assert_int_equal(cell(&g, bottom + 1, g.w - 2), '!');
	assert_int_not_equal(cell(&g, bottom + 1, g.w - 1), '!');
	assert_int_not_equal(cell(&g, bottom + 1, g.w - 3), '!');
	live_grid_free(&g);
	live_model_free(&m);
}

/*
 * A thread's samples that carry the total only (events_kept): their
 * columns filled to the total, not to zero, but dimmed and marked '.';
 * the header says how old the rows are; the table gives no change nor
 * allocation for rows not read, and the change since the reading before
 * once they are read again.
 */
static void
test_total_only(void **state)
{
	struct live_model m;
	struct live_view v = { .rows = 5 };
	struct live_grid g;
	struct fake f;
	int bottom, y, x;

	(void)state;
	assert_int_equal(live_model_init(&m, 10, 0), 0);
	live_model_begin(&m, "11.8.3-MariaDB", "thread 42", 100, 0);
	for (uint64_t i = 1; i <= 5; i++) {
		make(&f, i, 3 * MIB + (int64_t)i, 1, "memory/sql/a",
		    (int64_t)(2 * MIB));
		f.ev[0].delta.alloc_bytes = 4096;
		f.s.events_kept = i > 1;
		f.s.has_connection_bytes = true;
		f.s.connection_bytes = 3 * MIB + (int64_t)i;
		add(&m, &f);
	}
	assert_false(live_model_column(&m, 0)->kept);
	assert_true(live_model_column(&m, 4)->kept);
	assert_int_equal(live_model_column(&m, 4)->rows_us, 0);
	assert_int_equal(live_grid_init(&g, 80, 24), 0);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_non_null(strstr(screen[2], "total 3.00 MiB (rows 0.4 s ago)"));
	bottom = line_with(&g, "0 B\xe2\x94\x82");
	assert_true(bottom > 0);
	x = g.w - 1;
	assert_int_equal(cell(&g, bottom, x), 0x2588);
	assert_true(g.c[bottom * g.w + x].attr & LIVE_A_DIM);
	assert_false(g.c[bottom * g.w + x - 4].attr & LIVE_A_DIM);
	assert_int_equal(cell(&g, bottom + 1, x), '.');
	assert_int_not_equal(cell(&g, bottom + 1, x - 4), '.');
	y = line_with(&g, "change/s");
	assert_non_null(strstr(screen[y + 1], "sql/a"));
	assert_null(strstr(screen[y + 1], "/s"));
	assert_null(strstr(screen[y + 1], "4.00 KiB"));
	/* Read again, 1000 B more over the 0.5 s since the last reading. */
	make(&f, 6, 3 * MIB + 1000, 1, "memory/sql/a",
	    (int64_t)(2 * MIB) + 1000);
	f.ev[0].delta.alloc_bytes = 4096;
	add(&m, &f);
	live_draw(&m, &v, &g);
	read_grid(&g);
	assert_null(strstr(screen[2], "rows"));
	assert_non_null(strstr(screen[y + 1], "1.95 KiB/s"));
	assert_non_null(strstr(screen[y + 1], "4.00 KiB"));
	assert_false(g.c[bottom * g.w + x].attr & LIVE_A_DIM);
	live_grid_free(&g);
	live_model_free(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_model_window_and_names),
		cmocka_unit_test(test_model_marks_and_statement),
		cmocka_unit_test(test_draw_view),
		cmocka_unit_test(test_total_only),
		cmocka_unit_test(test_draw_resident),
		cmocka_unit_test(test_draw_cgroup),
		cmocka_unit_test(test_draw_layers),
		cmocka_unit_test(test_draw_limit),
		cmocka_unit_test(test_unsampled_statements_marked),
		cmocka_unit_test(test_rows_bounded),
		cmocka_unit_test(test_downsampled_keeps_peaks),
		cmocka_unit_test(test_small_screen_and_ended),
		cmocka_unit_test(test_grid_text_scrubbed),
		cmocka_unit_test(test_draw_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
