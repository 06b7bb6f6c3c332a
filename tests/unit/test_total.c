/*
 * A thread's own count each tick, its rows when the count moves (total.h):
 * an idle thread's rows are read once and then every --rows-every; a count
 * that moved by --rows-moved, or a new statement, reads them again; the
 * ticks between carry the count and what it moved, with the last rows
 * kept; rows are read only when the tick can afford them under
 * --max-load (the sampler's afford_ns), so no tick is skipped for them; a
 * count the account is not shown reads the rows each tick and says why
 * once; a lost connection is passed on.
 */
#include "fake_server.h"
#include "ring.h"
#include "sampler.h"
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

static char last_note[1200];

static void
note(void *ctx, const char *msg)
{
	(void)ctx;
	snprintf(last_note, sizeof(last_note), "%s", msg);
	notes++;
}

static int64_t afford;

static struct total
setup_total(bool bounded)
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
	    .afford_ns = bounded ? &afford : NULL, .notify = note };
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
	struct total t = setup_total(false);
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
	struct total t = setup_total(false);
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
 * Rows of 30 ms and counts of 4 ms: the rows are read only when the tick
 * can afford both (the sampler's afford_ns); the count comes each tick.
 */
static void
test_rows_when_the_tick_can_afford_them(void **state)
{
	struct total t = setup_total(true);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	rows_cost_ns = 30 * MS;
	count_cost_ns = 4 * MS;
	afford = 0;
	/* The first reading is read whatever it costs. */
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	count_now.bytes += 4096;
	afford = 33 * MS;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_true(rd.events_kept);
	assert_true(rd.has_connection_bytes);
	assert_int_equal(rd.total_moved, 4096);
	afford = 34 * MS;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	assert_int_equal(inner_reads, 2);
	assert_int_equal(count_reads, 3);
	total_free(&t);
	sess.ops->close(sess.conn);
}

static size_t counted_samples;

static int
count_sink(void *ctx, const struct sample *s)
{
	(void)ctx;
	assert_true(s->has_connection_bytes);
	counted_samples++;
	/* The count moves each tick: the rows are always due. */
	count_now.bytes += 4096;
	return 0;
}

/*
 * Under the sampler: rows of 200 ms beside counts of 4 ms each 250 ms
 * tick, --max-load 10, a count that always moves. The first reading of
 * the rows pays back by skipping ticks; later ones find the credit saved
 * for them, so every other tick has its count.
 */
static void
test_under_the_sampler_the_count_each_tick(void **state)
{
	struct total t = setup_total(true);
	struct source src = total_source(&t);
	struct sampler_config cfg = { .interval_ns = 250 * MS,
	    .duration_ns = 60 * SEC, .max_load_pct = 10, .thread_id = 42,
	    .afford_ns = &afford };
	struct sampler_stats st;
	struct ring *r = ring_create(10, 10);
	char err[256];

	(void)state;
	rows_cost_ns = 200 * MS;
	count_cost_ns = 4 * MS;
	counted_samples = 0;
	assert_int_equal(sampler_run(&cfg, &src, &fake_clock, r, count_sink,
	    NULL, &srv.stop, &st, err, sizeof(err)), SAMPLER_END_DURATION);
	/* 240 ticks: the first reading's 204 ms skip 8 ticks, no more. */
	assert_true(st.load_skipped <= 9);
	assert_true(st.skipped <= 9);
	assert_int_equal(counted_samples, st.taken);
	assert_true(inner_reads >= 15);
	ring_free(r);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/* Another account's connection on MariaDB without PROCESS: no row. */
static void
test_a_count_not_shown_reads_the_rows_each_tick(void **state)
{
	struct total t = setup_total(false);
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
	assert_non_null(strstr(last_note, "connection 7's own memory count"));
	assert_non_null(strstr(last_note, "GRANT PROCESS"));
	total_free(&t);
	/* The next capture of the run (--repeat) says it no more. */
	t = (struct total){ .inner = { .read = inner_read },
	    .session = &sess, .clk = &fake_clock,
	    .ids = { .thread_id = 42, .connection_id = 7 },
	    .every_ns = 10 * SEC, .moved_bytes = 1024, .notify = note };
	src = total_source(&t);
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_int_equal(notes, 1);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/* A count that failed: that tick reads the rows, said once; then counts. */
static void
test_a_failed_count(void **state)
{
	struct total t = setup_total(false);
	struct source src = total_source(&t);
	struct reading rd;

	(void)state;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	count_status = PFS_ERROR;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tick(src, &rd), SOURCE_OK);
		assert_false(rd.events_kept);
	}
	assert_int_equal(notes, 1);
	assert_string_equal(last_note, "count failed; the tick reads the "
	    "thread's rows instead");
	count_status = PFS_OK;
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_false(rd.events_kept);
	assert_true(rd.has_connection_bytes);
	assert_int_equal(tick(src, &rd), SOURCE_OK);
	assert_true(rd.events_kept);
	assert_int_equal(inner_reads, 4);
	total_free(&t);
	sess.ops->close(sess.conn);
}

/* A thread gone with its count: the rows say so. */
static void
test_gone(void **state)
{
	struct total t = setup_total(false);
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
	struct total t = setup_total(false);
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
	struct total t = setup_total(false);
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
		cmocka_unit_test(test_rows_when_the_tick_can_afford_them),
		cmocka_unit_test(test_under_the_sampler_the_count_each_tick),
		cmocka_unit_test(test_a_count_not_shown_reads_the_rows_each_tick),
		cmocka_unit_test(test_gone),
		cmocka_unit_test(test_a_failed_count),
		cmocka_unit_test(test_no_count_on_this_server),
		cmocka_unit_test(test_lost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
