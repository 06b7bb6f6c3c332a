/*
 * Following an idle holder (follow.h): it is followed until its total has
 * been below the size for --trigger-hold, its total being the rows' sum
 * moved by the thread's own count when the rows are kept (total.h).
 */
#include "fake_server.h"
#include "follow.h"

static struct fake_server srv;
static struct event_stat rows[1];
static int64_t moved;

static enum source_status
inner_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	(void)ctx, (void)deadline_ns, (void)err, (void)errlen;
	*out = (struct reading){ .events = rows, .n = 1,
	    .events_kept = moved != 0, .has_connection_bytes = true,
	    .total_moved = moved };
	return SOURCE_OK;
}

static int
reads_until_released(int64_t rows_bytes, int64_t moved_bytes)
{
	struct follow f = { .inner = { .read = inner_read },
	    .stmt = { .idle = true }, .clk = &fake_clock,
	    .hold_bytes = 50 << 20, .hold_ns = 1 * SEC };
	struct source src = follow_source(&f);
	struct reading rd;
	char err[64];

	srv = (struct fake_server){ .now = 1000 };
	fake = &srv;
	rows[0].current_bytes = rows_bytes;
	moved = moved_bytes;
	for (int i = 1; i <= 20; i++) {
		srv.now += 250 * MS;
		if (src.read(src.ctx, 0, &rd, err, sizeof(err)) == SOURCE_GONE)
			return i;
	}
	return 0;
}

static void
test_released_below_the_size(void **state)
{
	(void)state;
	assert_int_equal(reads_until_released(10 << 20, 0), 6);
}

/* The rows kept say 10 MiB, the count 100 MiB more: still held. */
static void
test_held_by_its_count(void **state)
{
	(void)state;
	assert_int_equal(reads_until_released(10 << 20, 100 << 20), 0);
	/* And the other way: the rows say 80 MiB, the count 60 less. */
	assert_int_equal(reads_until_released(80 << 20, -(60 << 20)), 6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_released_below_the_size),
		cmocka_unit_test(test_held_by_its_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
