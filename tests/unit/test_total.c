/*
 * A thread's own count each tick, its rows when the count moves (total.h):
 * an idle thread's rows are read once and then every --rows-every; a count
 * that moved by --rows-moved, or a new statement, reads them again; the
 * ticks between carry the count and what it moved, with the last rows
 * kept; rows are spaced so that they and the counts stay within
 * --max-load; a count the account is not shown reads the rows each tick
 * and says why once; a lost connection is passed on.
 */
#include "fake_server.h"
#include "total.h"

static struct fake_server srv;
static struct session_ops ops;
static struct session sess;
static size_t inner_reads, count_reads, notes;
static enum source_status inner_status;
static struct event_stat inner_ev[2];
static uint64_t rows_cost_ns, count_cost_ns;
/* What own_count() answers. */
static enum pfs_status count_status;
static struct pfs_own_count count_now;

static enum source_status
inner_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	(void)ctx, (void)deadline_ns, (void)err, (void)errlen;
	inner_reads++;
	srv.now += rows_cost_ns;
	inner_ev[0].current_bytes = (int64_t)inner_reads * 100;
	*out = (struct reading){ .events = inner_ev, .n = 2 };
	return inner_status;
}

static enum pfs_status
own_count(struct conn *c, const struct server_kind *k,
    const struct pfs_thread_ids *t, struct pfs_own_count *out, char *err,
    size_t errlen)
{
	(void)c, (void)k;
	assert_int_equal(t->thread_id, 42);
	assert_int_equal(t->connection_id, 7);
	count_reads++;
	srv.now += count_cost_ns;
	*out = count_now;
	if (count_status != PFS_OK)
		snprintf(err, errlen, "count failed");
	return count_status;
}

static void
note(void *ctx, const char *msg)
{
	(void)ctx;
	assert_non_null(strstr(msg, "PROCESS"));
	notes++;
}

static struct total
setup_total(unsigned max_load_pct)
{
	srv = (struct fake_server){ .now = 1000 };
	fake_session(&srv, &sess);
	ops = *sess.ops;
	ops.own_count = own_count;
	sess.ops = &ops;
	inner_reads = count_reads = notes = 0;
	inner_status = SOURCE_OK;
	rows_cost_ns = count_cost_ns = 0;
	count_status = PFS_OK;
	count_now = (struct pfs_own_count){ .known = true, .bytes = 5000 };
	strcpy(inner_ev[0].name, "memory/a");
	strcpy(inner_ev[1].name, "memory/b");
	return (struct total){ .inner = { .read = inner_read },
	    .session = &sess, .clk = &fake_clock,
	    .ids = { .thread_id = 42, .connection_id = 7 },
	    .every_ns = 10 * SEC, .moved_bytes = 1024,
	    .interval_ns = 250 * MS, .max_load_pct = max_load_pct,
	    .notify = note };
}

static enum source_status
tick(struct source src, struct reading *rd)
{
	char err[256];

	srv.now += 250 * MS;
	return src.read(src.ctx, 0, rd, err, sizeof(err));
}

static void
test_idle_thread_read_once_a_period(void **state)
{
	struct total t = setup_total(0);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_int_equal(inner_reads, 1);
	assert_false(rd.events_kept);
	assert_true(rd.has_connection_bytes);
	assert_int_equal(rd.connection_bytes, 5000);
	assert_int_equal(rd.total_moved, 0);
	/* 39 ticks of 250 ms: the count each, the rows kept. */
	for (int i = 0; i < 39; i++) {
		assert_int_equal(tick(src, &rd), SOURCE_OK);
		assert_true(rd.events_kept);
		assert_int_equal(rd.n, 2);
		assert_int_equal(rd.events[0].current_bytes, 100);
		assert_int_equal(rd.connection_bytes, 5000);
		assert_int_equal(rd.total_moved, 0);
	}
	assert_int_equal(inner_reads, 1);
	assert_int_equal(count_reads, 40);
	/* 10 s since the rows: read again. */
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_int_equal(inner_reads, 2);
	assert_false(rd.events_kept);
	assert_int_equal(rd.events[0].current_bytes, 200);
	/* The statements consumer went off: the kept statement is stale. */
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_true(rd.events_kept);
	total_reread(&t);
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	assert_int_equal(inner_reads, 3);
	total_free(&t);
	sess.ops->close(sess.conn);
}

static void
test_a_count_that_moves_reads_the_rows(void **state)
{
	struct total t = setup_total(0);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	/* Less than --rows-moved: kept, the total moved by the count's move. */
	count_now.bytes = 5000 + 1023;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_true(rd.events_kept);
	assert_int_equal(rd.total_moved, 1023);
	count_now.bytes = 5000 - 1023;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_true(rd.events_kept);
	assert_int_equal(rd.total_moved, -1023);
	assert_int_equal(inner_reads, 1);
	/* By --rows-moved, either way: the rows. */
	count_now.bytes = 5000 + 1024;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	assert_int_equal(inner_reads, 2);
	count_now.bytes = 5000;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	assert_int_equal(inner_reads, 3);
	/* A new statement, the count the same: the rows. */
	count_now.has_key = true;
	count_now.key = 9;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_true(rd.events_kept);
	count_now.key = 10;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	assert_int_equal(inner_reads, 5);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/*
 * Rows of 30 ms and counts of 4 ms each 250 ms tick, under 10%: the rows
 * may take 9% less the counts' 1.6%, so they are at least 405 ms apart
 * however fast the count moves, and each tick still has its count.
 */
static void
test_rows_within_max_load(void **state)
{
	struct total t = setup_total(10);
	struct source src = total_source(&t);
	struct reading rd;
	uint64_t last = 0, rows_ns = 0, count_ns = 0, start = srv.now;

	(void)state;
	rows_cost_ns = 30 * MS;
	count_cost_ns = 4 * MS;
	for (int i = 0; i < 80; i++) {
		size_t before = inner_reads;

		count_now.bytes += 4096;
		assert_int_equal(tick(src, &rd), SOURCE_OK);
		assert_true(rd.has_connection_bytes);
		count_ns += count_cost_ns;
		if (inner_reads == before)
			continue;
		rows_ns += rows_cost_ns;
		if (last != 0)
			assert_true(srv.now - last >= 405 * MS);
		last = srv.now;
	}
	assert_int_equal(count_reads, 80);
	/* Read as often as the bound lets: every other tick. */
	assert_true(inner_reads >= 35);
	assert_true((rows_ns + count_ns) * 100 <= (srv.now - start) * 10);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/* Another account's connection on MariaDB without PROCESS: no row. */
static void
test_a_count_not_shown_reads_the_rows_each_tick(void **state)
{
	struct total t = setup_total(0);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	count_now.known = false;
	for (int i = 0; i < 5; i++) {
		assert_int_equal(tick(src, &rd), SOURCE_OK);
		assert_false(rd.events_kept);
		assert_false(rd.has_connection_bytes);
	}
	assert_int_equal(inner_reads, 5);
	assert_int_equal(count_reads, 1);
	assert_int_equal(notes, 1);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/* A thread gone with its count: the rows say so. */
static void
test_gone(void **state)
{
	struct total t = setup_total(0);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	count_now.known = false;
	inner_status = SOURCE_GONE;
	assert_int_equal(tick(src, &rd), SOURCE_GONE);
	assert_int_equal(notes, 0);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/* No count on this server: rows each tick, nothing said. */
static void
test_no_count_on_this_server(void **state)
{
	struct total t = setup_total(0);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	count_status = PFS_NOT_FOUND;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tick(src, &rd), SOURCE_OK);
		assert_false(rd.events_kept);
	}
	assert_int_equal(count_reads, 1);
	assert_int_equal(inner_reads, 3);
	assert_int_equal(notes, 0);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/* Lost in the count: passed on, and the next tick counts again. */
static void
test_lost(void **state)
{
	struct total t = setup_total(0);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	count_status = PFS_LOST;
	assert_int_equal(tick(src, &rd), SOURCE_LOST);
	count_status = PFS_OK;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_true(rd.events_kept);
	assert_int_equal(count_reads, 3);
	assert_int_equal(inner_reads, 1);
	total_free(&t);
	sess.ops->close(sess.conn);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_thread_read_once_a_period),
		cmocka_unit_test(test_a_count_that_moves_reads_the_rows),
		cmocka_unit_test(test_rows_within_max_load),
		cmocka_unit_test(test_a_count_not_shown_reads_the_rows_each_tick),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_no_count_on_this_server),
		cmocka_unit_test(test_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
