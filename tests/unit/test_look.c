/*
 * Waiting for a statement and following it, against a fake server and a
 * fake clock: looks on the --poll schedule, the largest of several taken
 * and the others named, a statement captured once, the timeout, a lost
 * connection, and a followed statement that ends or whose connection
 * closes.
 */
#include <stdlib.h>

#include "fake_server.h"
#include "follow.h"
#include "look.h"

static struct fake_server srv;
static struct session sess;
static char told[4][1536];
static size_t n_told;

static void
notify(void *ctx, const char *msg)
{
	(void)ctx;
	if (n_told < 4)
		snprintf(told[n_told], sizeof(told[0]), "%s", msg);
	n_told++;
}

static int
setup(void **state)
{
	(void)state;
	srv = (struct fake_server){ .boot_s = 1700000000, .next_own = 7 };
	fake_session(&srv, &sess);
	n_told = 0;
	return 0;
}

static struct look
observer(uint64_t timeout_s)
{
	return (struct look){
		.session = &sess, .poll_ns = 500 * MS,
		.timeout_ns = timeout_s * SEC, .clk = &fake_clock,
		.stop = &srv.stop, .notify = notify,
	};
}

static struct stmt_match
stmt(uint64_t thread_id, int64_t bytes, const char *text)
{
	struct stmt_match m = {
		.thread_id = thread_id, .connection_id = thread_id + 1000,
		.time_s = 3, .start_s = 1700000100, .current_bytes = bytes,
	};

	snprintf(m.text, sizeof(m.text), "%s", text);
	snprintf(m.digest, sizeof(m.digest), "%zu:%s", strlen(text), text);
	return m;
}

/* Looks at once, then every --poll, until something matches. */
static void
test_looks_every_poll_until_a_match(void **state)
{
	struct look w = observer(0);
	const struct stmt_match one[] = { stmt(50, 1024, "SELECT 1") };
	struct stmt_match m;
	char err[256];

	(void)state;
	srv.now = 3 * SEC;
	srv.n_looks = 4;
	srv.looks[3] = one;
	srv.look_n[3] = 1;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(srv.looks_done, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(srv.looks_at[i], 3 * SEC + i * 500 * MS);
	assert_int_equal(m.thread_id, 50);
	assert_string_equal(m.text, "SELECT 1");
	/* Our own thread, as the session has it, is left out by the query. */
	assert_int_equal(srv.own_seen, sess.own_thread);
	assert_int_equal(n_told, 0);
}

/* Several match: the largest is taken, the others are named for later. */
static void
test_largest_of_several_others_named(void **state)
{
	struct look w = observer(0);
	const struct stmt_match three[] = {
		stmt(50, 1 << 20, "SELECT small"),
		stmt(51, 8 << 20, "SELECT large"),
		stmt(52, 2 << 20, "SELECT middle"),
	};
	struct stmt_match m;
	char err[256];

	(void)state;
	srv.n_looks = 1;
	srv.looks[0] = three;
	srv.look_n[0] = 3;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(m.thread_id, 51);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "3 statements match; taking connection "
	    "1051, the largest (8.00 MiB)"));
	assert_non_null(strstr(told[0], "connection 1050 (1.00 MiB): SELECT "
	    "small"));
	assert_non_null(strstr(told[0], "connection 1052 (2.00 MiB): SELECT "
	    "middle"));
}

/*
 * With a history: every look reads the candidates below the thresholds
 * too, which the program applies, and the statement found has its
 * readings from before, in order, with the count asked of it alone.
 */
static void
test_history_of_the_one_found(void **state)
{
	struct history *h = history_create(10, 4);
	struct look w = observer(0);
	const struct history_reading *got[10];
	struct stmt_match look1[2], look2[2], look3[2], m;
	char err[256];

	(void)state;
	assert_non_null(h);
	look1[0] = stmt(60, 10 << 20, "SELECT grows");
	look1[1] = stmt(61, 1 << 20, "SELECT small");
	look2[0] = look1[0];
	look2[0].current_bytes = 20 << 20;
	look2[1] = look1[1];
	look3[0] = look1[0];
	look3[0].current_bytes = 40 << 20;
	look3[1] = look1[1];
	srv.n_looks = 3;
	srv.looks[0] = look1;
	srv.looks[1] = look2;
	srv.looks[2] = look3;
	srv.look_n[0] = srv.look_n[1] = srv.look_n[2] = 2;
	srv.running = 1;
	srv.now_running = look3[0];
	srv.now_running.completed = 17;
	w.history = h;
	w.filter.min_bytes = 30 << 20;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(m.thread_id, 60);
	assert_int_equal(srv.looks_done, 3);
	assert_int_equal(srv.memory_reads, 3);
	assert_int_equal(srv.memory_threads, 2);
	/* The count of ended statements, for the match alone. */
	assert_int_equal(srv.statement_looks, 1);
	assert_int_equal(m.completed, 17);
	assert_int_equal(history_take(h, &m, got, 10), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(got[i]->mono_ns, i * 500 * MS);
		assert_int_equal(got[i]->events[0].current_bytes,
		    (int64_t)(10 << i) << 20);
		assert_int_equal(got[i]->wall_ms, 1700000000000 +
		    (int64_t)i * 500);
	}
	history_free(h);
}

/*
 * --bigger-than and a server that keeps each session's peak: a statement
 * past the size only between two looks is found from its peak, which rose
 * since the look before; a session whose peak was past the size already
 * is not, nor anything at the first look, which only learns the peaks.
 */
static void
test_spike_between_looks_found_from_the_peak(void **state)
{
	struct look w = observer(0);
	struct stmt_match look1[3], look2[3], m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	w.filter.min_bytes = 30 << 20;
	/* 60 runs small; 61 ran large once, and is idle; 62 is not there yet. */
	look1[0] = stmt(60, 1 << 20, "SELECT spike");
	look1[0].peak_bytes = 2 << 20;
	look1[1] = stmt(61, 1 << 20, "");
	look1[1].peak_bytes = 50 << 20;
	look1[1].peak_only = true;
	/* 60 spiked and fell back; 61 runs again, its peak as it was; 62 new. */
	look2[0] = look1[0];
	look2[0].peak_bytes = 40 << 20;
	look2[1] = stmt(61, 2 << 20, "SELECT again");
	look2[1].peak_bytes = 50 << 20;
	look2[2] = stmt(62, 512 << 10, "SELECT fresh");
	look2[2].peak_bytes = 31 << 20;
	srv.n_looks = 2;
	srv.looks[0] = look1;
	srv.look_n[0] = 2;
	srv.looks[1] = look2;
	srv.look_n[1] = 3;
	srv.running = 1;
	srv.now_running = look2[0];
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(srv.peak_asked, 30 << 20);
	assert_int_equal(srv.looks_done, 2);
	assert_int_equal(m.thread_id, 60);
	assert_true(m.between_looks);
	assert_int_equal(m.peak_bytes, 40 << 20);
	assert_int_equal(m.current_bytes, 1 << 20);
	/* 62, new since the last look, crossed too; 61 did not. */
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "2 statements match; taking "
	    "connection 1060"));
	assert_non_null(strstr(told[0], "connection 1062 ("));
	assert_null(strstr(told[0], "connection 1061"));
	/* Another wait starts again from its first look: peaks only. */
	look_captured(&w, &m);
	srv.looks_done = 1;
	w.timeout_ns = 0;
	srv.stop_on_sleep = srv.sleeps + 2;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_STOPPED);
	look_done(&w);
}

/* The first look only learns the peaks: a session past the size before is not taken. */
static void
test_first_look_only_learns_the_peaks(void **state)
{
	struct look w = observer(2);
	struct stmt_match one[1], m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	w.filter.min_bytes = 30 << 20;
	one[0] = stmt(60, 1 << 20, "SELECT after a big one");
	one[0].peak_bytes = 40 << 20;
	srv.n_looks = 1;
	srv.looks[0] = one;
	srv.look_n[0] = 1;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	assert_int_equal(n_told, 0);
	look_done(&w);
}

/*
 * Looks that find nothing, with peaks asked: the peaks' array is never
 * made, and sorting none must not touch it (UBSan: qsort() of NULL).
 */
static void
test_empty_looks_with_peaks(void **state)
{
	struct look w = observer(1);
	struct stmt_match m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	w.filter.min_bytes = 30 << 20;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	assert_int_equal(srv.looks_done, 3);
	assert_null(w.peaks);
	look_done(&w);
}

/* Where the peaks cannot be had, a note says so once. */
static void
test_no_peaks_noted_once(void **state)
{
	struct look w = observer(1);
	struct stmt_match one[1], m;
	char err[256];

	(void)state;
	w.filter.min_bytes = 30 << 20;
	one[0] = stmt(60, 1 << 20, "SELECT small");
	srv.n_looks = 1;
	srv.looks[0] = one;
	srv.look_n[0] = 1;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "keeps no session peak"));
	/* A server that keeps them, but not for this account: PROCESS. */
	w = observer(1);
	w.filter.min_bytes = 30 << 20;
	srv.peaks = 1;
	n_told = 0;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "PROCESS privilege"));
	look_done(&w);
}

/* A statement that ended: its own peak, its EVENT_ID, how long it ran. */
static struct stmt_match
ended(uint64_t thread_id, uint64_t event_id, int64_t peak, const char *text)
{
	struct stmt_match m = stmt(thread_id, 1 << 20, text);

	m.ended = true;
	m.event_id = event_id;
	m.peak_bytes = peak;
	m.duration_ms = 3020;
	m.time_s = 3;
	m.start_s = 0;
	return m;
}

/*
 * A session whose peak was past the size already (a pooled connection
 * after its first large statement): its peak cannot rise, so a spike of
 * its later statements shows no crossing. One that ended since the last
 * look past the size by its own peak, a newer EVENT_ID than that look
 * saw, is found, ended, once; those of the first look are only learnt.
 */
static void
test_ended_past_size_found_by_its_own_peak(void **state)
{
	struct look w = observer(0);
	struct stmt_match pool[1], e1[1], e2[2], e3[3], m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	w.filter.min_bytes = 30 << 20;
	pool[0] = stmt(61, 1 << 20, "");
	pool[0].peak_bytes = 50 << 20;
	pool[0].peak_only = true;
	e1[0] = ended(61, 10, 50 << 20, "SELECT first");
	e2[0] = e1[0];
	e2[1] = ended(61, 20, 40 << 20, "SELECT again");
	e3[0] = e2[0];
	e3[1] = e2[1];
	e3[2] = ended(61, 30, 35 << 20, "SELECT third");
	srv.n_looks = 3;
	for (size_t i = 0; i < 3; i++) {
		srv.looks[i] = pool;
		srv.look_n[i] = 1;
	}
	srv.ended[0] = e1;
	srv.ended_n[0] = 1;
	srv.ended[1] = e2;
	srv.ended_n[1] = 2;
	srv.ended[2] = e3;
	srv.ended_n[2] = 3;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(srv.looks_done, 2);
	assert_int_equal(srv.ended_asks, 2);
	assert_true(m.ended);
	assert_true(m.between_looks);
	assert_int_equal(m.thread_id, 61);
	assert_int_equal(m.event_id, 20);
	assert_int_equal(m.peak_bytes, 40 << 20);
	assert_int_equal(m.duration_ms, 3020);
	assert_string_equal(m.text, "SELECT again");
	assert_int_equal(n_told, 0);
	/* The next wait: 20 is not found again; 30, newer, is. */
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(srv.looks_done, 3);
	assert_int_equal(m.event_id, 30);
	assert_int_equal(m.peak_bytes, 35 << 20);
	/* And then none: every one is accounted for. */
	w.timeout_ns = 2 * SEC;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	assert_int_equal(n_told, 0);
	look_done(&w);
	assert_null(w.ends);
}

/*
 * The statements that ended are asked only when a session's peak is past
 * the size; a session that was under it at the last look had none, so
 * the first one that ends past it is found even where a crossing is
 * blamed on what the session runs now: the ended one, as high as the
 * peak, is what rose it, and is taken instead.
 */
static void
test_ended_asked_only_past_size_and_preferred_to_a_guess(void **state)
{
	struct look w = observer(0);
	struct stmt_match look1[1], look2[1], e2[1], m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	w.filter.min_bytes = 30 << 20;
	look1[0] = stmt(60, 1 << 20, "SELECT small");
	look1[0].peak_bytes = 2 << 20;
	look2[0] = stmt(60, 1 << 20, "SELECT next");
	look2[0].peak_bytes = 40 << 20;
	e2[0] = ended(60, 5, 40 << 20, "SELECT spike");
	srv.n_looks = 2;
	srv.looks[0] = look1;
	srv.look_n[0] = 1;
	srv.looks[1] = look2;
	srv.look_n[1] = 1;
	srv.ended[1] = e2;
	srv.ended_n[1] = 1;
	srv.running = 1;
	srv.now_running = look2[0];
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(srv.ended_asks, 1);
	assert_true(m.ended);
	assert_int_equal(m.event_id, 5);
	assert_string_equal(m.text, "SELECT spike");
	/* The running one, blamed for the rise, is not named either. */
	assert_int_equal(n_told, 0);
	look_done(&w);
}

/*
 * The look after a capture only learns the ended statements of the
 * connection captured: the statement followed to its end is not found
 * again. Another connection's are found.
 */
static void
test_captured_connection_not_found_again_when_ended(void **state)
{
	struct look w = observer(0);
	struct stmt_match look1[2], e1[1], e2[3], m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	w.filter.min_bytes = 30 << 20;
	look1[0] = stmt(60, 40 << 20, "SELECT big");
	look1[0].peak_bytes = 40 << 20;
	look1[1] = stmt(61, 1 << 20, "");
	look1[1].peak_bytes = 50 << 20;
	look1[1].peak_only = true;
	e1[0] = ended(61, 10, 50 << 20, "SELECT old");
	e2[0] = ended(60, 7, 40 << 20, "SELECT big");
	e2[1] = e1[0];
	e2[2] = ended(61, 12, 31 << 20, "SELECT other");
	srv.n_looks = 2;
	srv.looks[0] = look1;
	srv.look_n[0] = 2;
	srv.looks[1] = &look1[1];
	srv.look_n[1] = 1;
	srv.ended[0] = e1;
	srv.ended_n[0] = 1;
	srv.ended[1] = e2;
	srv.ended_n[1] = 3;
	srv.running = 1;
	srv.now_running = look1[0];
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_false(m.ended);
	assert_int_equal(m.thread_id, 60);
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_true(m.ended);
	assert_int_equal(m.thread_id, 61);
	assert_int_equal(m.event_id, 12);
	w.timeout_ns = 2 * SEC;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	look_done(&w);
}

/* A lost connection: the next look learns again, finds nothing old. */
static void
test_ended_learnt_again_after_a_lost_connection(void **state)
{
	struct look w = observer(0);
	struct stmt_match pool[1], e[1], m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	w.filter.min_bytes = 30 << 20;
	pool[0] = stmt(61, 1 << 20, "");
	pool[0].peak_bytes = 50 << 20;
	pool[0].peak_only = true;
	e[0] = ended(61, 10, 50 << 20, "SELECT first");
	srv.n_looks = 1;
	srv.looks[0] = pool;
	srv.look_n[0] = 1;
	srv.ended[0] = e;
	srv.ended_n[0] = 1;
	srv.lose_at_ended = 1;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_LOST);
	w.timeout_ns = 2 * SEC;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	assert_true(srv.ended_asks > 2);
	look_done(&w);
}

/*
 * A server that keeps sessions' peaks but no statement's (MariaDB): once
 * a session's peak is past the size, a note says once what goes unseen,
 * and the server is not asked again.
 */
static void
test_no_statement_peaks_noted_once(void **state)
{
	struct look w = observer(2);
	struct stmt_match pool[1], m;
	char err[256];

	(void)state;
	srv.peaks = 1;
	srv.no_statement_peaks = 1;
	w.filter.min_bytes = 30 << 20;
	pool[0] = stmt(61, 1 << 20, "");
	pool[0].peak_bytes = 50 << 20;
	pool[0].peak_only = true;
	srv.n_looks = 1;
	srv.looks[0] = pool;
	srv.look_n[0] = 1;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	assert_int_equal(n_told, 1);
	assert_non_null(strstr(told[0], "keeps no statement's own peak"));
	assert_non_null(strstr(told[0], "only if it holds the size at a look"));
	look_done(&w);
}

/* A statement captured is not taken again; the next largest is. */
static void
test_captured_statement_not_taken_again(void **state)
{
	struct look w = observer(0);
	const struct stmt_match two[] = {
		stmt(50, 1 << 20, "SELECT a"),
		stmt(51, 8 << 20, "SELECT b"),
	};
	struct stmt_match m;
	char err[256];

	(void)state;
	srv.n_looks = 1;
	srv.looks[0] = two;
	srv.look_n[0] = 2;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(m.thread_id, 51);
	look_captured(&w, &m);
	n_told = 0;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(m.thread_id, 50);
	/* The one captured is not among "the others". */
	assert_int_equal(n_told, 0);
}

/* Nothing within --wait-timeout: the looks stop at the timeout. */
static void
test_timeout(void **state)
{
	struct look w = observer(2);
	struct stmt_match m;
	char err[256];

	(void)state;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	/* At 0, 0.5, 1, 1.5 and 2 s. */
	assert_int_equal(srv.looks_done, 5);
	assert_int_equal(srv.looks_at[4], 2 * SEC);
}

static void
test_stop_and_lost(void **state)
{
	struct look w = observer(0);
	struct stmt_match m;
	char err[256];

	(void)state;
	srv.lose_at_look = 2;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_LOST);
	assert_string_equal(err, "lost the connection while looking");
	srv.stop_on_sleep = srv.sleeps + 2;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_STOPPED);
}

/*
 * --bigger-than with idle holders asked: a connection that runs nothing and
 * holds the size is taken, idle, before a smaller running statement; the
 * look asks for them with the size.
 */
static void
test_idle_holder_found(void **state)
{
	struct look w = observer(0);
	struct stmt_match one[2], m;
	char err[256];

	(void)state;
	w.filter.min_bytes = w.filter.idle_bytes = 20 << 20;
	one[0] = stmt(70, 30 << 20, "");
	one[0].idle = true;
	one[0].time_s = 12;
	one[0].peak_bytes = 30 << 20;
	one[1] = stmt(71, 5 << 20, "SELECT small");
	one[1].peak_bytes = 5 << 20;
	srv.peaks = 1;
	srv.n_looks = 1;
	srv.looks[0] = one;
	srv.look_n[0] = 2;
	srv.running = 0;
	srv.now_running = one[0];
	srv.now_running.completed = 4;
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_FOUND);
	assert_int_equal(srv.idle_asked, 20 << 20);
	assert_int_equal(srv.looks_done, 1);
	assert_int_equal(m.thread_id, 70);
	assert_true(m.idle);
	assert_int_equal(m.completed, 4);
	assert_int_equal(m.current_bytes, 30 << 20);
	/* The small statement is no match: no note of others. */
	assert_int_equal(n_told, 0);
	look_done(&w);
}

/* An idle holder that runs a statement by the time it is looked at is not. */
static void
test_idle_holder_busy_again_not_taken(void **state)
{
	struct look w = observer(1);
	struct stmt_match one[1], m;
	char err[256];

	(void)state;
	w.filter.min_bytes = w.filter.idle_bytes = 20 << 20;
	one[0] = stmt(70, 30 << 20, "");
	one[0].idle = true;
	srv.n_looks = 1;
	srv.looks[0] = one;
	srv.look_n[0] = 1;
	srv.running = 1;
	srv.now_running = one[0];
	assert_int_equal(look_find(&w, &m, err, sizeof(err)), LOOK_TIMEOUT);
	look_done(&w);
}

/* The followed thread's memory, read while the statement runs. */
static size_t inner_reads;
static int64_t inner_bytes;   /* what each read holds */
static struct event_stat inner_event;

static enum source_status
inner_read(void *ctx, uint64_t deadline_ns, struct reading *out, char *err,
    size_t errlen)
{
	(void)ctx, (void)deadline_ns, (void)err, (void)errlen;
	inner_reads++;
	inner_event = (struct event_stat){ .name = "memory/sql/fake",
	    .current_bytes = inner_bytes };
	*out = (struct reading){ .events = &inner_event, .n = 1 };
	return SOURCE_OK;
}

static struct follow
follower(const struct stmt_match *m)
{
	return (struct follow){
		.inner = { .read = inner_read }, .session = &sess, .stmt = *m,
		.poll_ns = 500 * MS, .clk = &fake_clock,
	};
}

/* Looks at the statement at most every --poll, and ends when it does. */
static void
test_follow_until_the_statement_ends(void **state)
{
	struct stmt_match m = stmt(50, 1024, "SELECT SLEEP(9)");
	struct follow f = follower(&m);
	struct source src = follow_source(&f);
	struct reading r;
	char err[256];

	(void)state;
	inner_reads = 0;
	srv.running = 1;
	srv.now_running = m;
	/* A read every 100 ms for 1 s: looks at 0, 0.5 and 1 s only. */
	for (int i = 0; i <= 10; i++) {
		srv.now_running.time_s = 3 + i / 5;
		assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)),
		    SOURCE_OK);
		srv.now += 100 * MS;
	}
	assert_int_equal(srv.statement_looks, 3);
	/* What the last look saw, at 1 s. */
	assert_int_equal(f.stmt.time_s, 5);
	assert_int_equal(f.end, FOLLOW_RUNNING);
	/* The same text run again is another statement. */
	srv.now_running.completed++;
	srv.now += 500 * MS;
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_GONE);
	assert_int_equal(f.end, FOLLOW_FINISHED);
	assert_int_equal(inner_reads, 11);
}

static void
test_follow_idle_and_closed(void **state)
{
	struct stmt_match m = stmt(50, 1024, "SELECT SLEEP(9)");
	struct follow f = follower(&m);
	struct source src = follow_source(&f);
	struct reading r;
	char err[256];

	(void)state;
	srv.running = 0;
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_GONE);
	assert_int_equal(f.end, FOLLOW_FINISHED);

	f = follower(&m);
	src = follow_source(&f);
	srv.thread_gone = 1;
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_GONE);
	assert_int_equal(f.end, FOLLOW_CLOSED);
}

/*
 * An idle holder is followed by its memory, not its statement: whatever
 * it runs, until it has held less than the size for the hold time (the
 * reading that finds it so is the last), or its connection closes.
 */
static void
test_follow_idle_holder_until_released(void **state)
{
	struct stmt_match m = stmt(70, 30 << 20, "");
	struct follow f = follower(&m);
	struct source src = follow_source(&f);
	struct reading r;
	char err[256];

	(void)state;
	inner_reads = 0;
	f.stmt.idle = true;
	f.hold_bytes = 20 << 20;
	f.hold_ns = 1 * SEC;
	/* Running a statement is no end for it. */
	srv.running = 1;
	srv.now_running = stmt(70, 30 << 20, "SET @x = NULL");
	inner_bytes = 30 << 20;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)),
		    SOURCE_OK);
		srv.now += 500 * MS;
	}
	/* Below at 1.5 s, above again at 2 s: the hold starts over. */
	inner_bytes = 1 << 20;
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_OK);
	srv.now += 500 * MS;
	inner_bytes = 25 << 20;
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)), SOURCE_OK);
	srv.now += 500 * MS;
	/* Below from 2.5 s: at 3 s and 3.5 s still held, at 3.5 s a second. */
	inner_bytes = 1 << 20;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)),
		    SOURCE_OK);
		assert_int_equal(f.end, FOLLOW_RUNNING);
		srv.now += 500 * MS;
	}
	assert_int_equal(src.read(src.ctx, 0, &r, err, sizeof(err)),
	    SOURCE_GONE);
	assert_int_equal(f.end, FOLLOW_RELEASED);
	assert_int_equal(inner_reads, 8);
	/* Its statement is never asked. */
	assert_int_equal(srv.statement_looks, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_looks_every_poll_until_a_match,
		    setup),
		cmocka_unit_test_setup(test_largest_of_several_others_named,
		    setup),
		cmocka_unit_test_setup(test_captured_statement_not_taken_again,
		    setup),
		cmocka_unit_test_setup(test_history_of_the_one_found, setup),
		cmocka_unit_test_setup(
		    test_spike_between_looks_found_from_the_peak, setup),
		cmocka_unit_test_setup(test_first_look_only_learns_the_peaks,
		    setup),
		cmocka_unit_test_setup(test_no_peaks_noted_once, setup),
		cmocka_unit_test_setup(test_empty_looks_with_peaks, setup),
		cmocka_unit_test_setup(test_ended_past_size_found_by_its_own_peak,
		    setup),
		cmocka_unit_test_setup(
		    test_ended_asked_only_past_size_and_preferred_to_a_guess,
		    setup),
		cmocka_unit_test_setup(
		    test_captured_connection_not_found_again_when_ended, setup),
		cmocka_unit_test_setup(
		    test_ended_learnt_again_after_a_lost_connection, setup),
		cmocka_unit_test_setup(test_no_statement_peaks_noted_once,
		    setup),
		cmocka_unit_test_setup(test_timeout, setup),
		cmocka_unit_test_setup(test_stop_and_lost, setup),
		cmocka_unit_test_setup(test_follow_until_the_statement_ends,
		    setup),
		cmocka_unit_test_setup(test_follow_idle_and_closed, setup),
		cmocka_unit_test_setup(test_idle_holder_found, setup),
		cmocka_unit_test_setup(test_idle_holder_busy_again_not_taken,
		    setup),
		cmocka_unit_test_setup(test_follow_idle_holder_until_released,
		    setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
