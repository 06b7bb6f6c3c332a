/*
 * The record's connections lines (conns_lines.c): only what changed is
 * written, every row when full, nothing when nothing changed; and the
 * lines read back rebuild the writer's book, step after step, with the
 * statements' texts whole; random lines keep it as a plain book would.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "conns_lines.h"
#include "obuf.h"

#define T0 ((int64_t)1795748700 * 1000) /* 2026-11-27T03:05:00.000Z */

static struct conn_row
conn(uint64_t id, int64_t bytes, const char *text)
{
	struct conn_row r = {
		.connection_id = id, .thread_id = id + 40,
		.since_ms = T0 - (int64_t)id * 1000, .bytes = bytes,
		.peak_bytes = bytes * 2, .running = text[0] != '\0',
	};

	snprintf(r.user, sizeof(r.user), "app%" PRIu64, id);
	snprintf(r.host, sizeof(r.host), "10.0.0.%" PRIu64 ":5%04" PRIu64, id,
	    id);
	snprintf(r.db, sizeof(r.db), "shop");
	snprintf(r.command, sizeof(r.command), "%s", text[0] != '\0' ?
	    "Query" : "Sleep");
	snprintf(r.text, sizeof(r.text), "%s", text);
	if (text[0] != '\0')
		snprintf(r.digest, sizeof(r.digest), "%064" PRIx64, id);
	return r;
}

/* The line put wrote last (from `from`), parsed; its newline checked. */
static json_t *
parsed(const struct obuf *b, size_t from)
{
	json_error_t e;
	json_t *root;

	assert_true(b->len > from);
	assert_int_equal(b->p[b->len - 1], '\n');
	/* One line: no newline before its end. */
	assert_null(memchr(b->p + from, '\n', b->len - from - 1));
	root = json_loadb(b->p + from, b->len - from - 1, 0, &e);
	if (root == NULL)
		fail_msg("not JSON: %s: %.*s", e.text, (int)(b->len - from),
		    b->p + from);
	return root;
}

/* The ids of the line's rows, and its gone ones, as "1,2|3". */
static void
ids_of(json_t *root, char *buf, size_t size)
{
	json_t *rows = json_object_get(root, "rows"), *gone =
	    json_object_get(root, "gone"), *x;
	size_t i, at = 0;

	assert_true(json_is_array(rows));
	assert_true(json_is_array(gone));
	buf[0] = '\0';
	json_array_foreach(rows, i, x)
		at += (size_t)snprintf(buf + at, size - at, "%s%" JSON_INTEGER_FORMAT,
		    i > 0 ? "," : "", json_integer_value(json_object_get(x, "id")));
	at += (size_t)snprintf(buf + at, size - at, "|");
	json_array_foreach(gone, i, x)
		at += (size_t)snprintf(buf + at, size - at, "%s%" JSON_INTEGER_FORMAT,
		    i > 0 ? "," : "", json_integer_value(x));
}

/* put's line of now; its ids as ids_of() says them, "" when none. */
static int
put(struct obuf *b, struct conns_book *book, const struct conn_row *now,
    size_t n, bool full, int64_t at_ms, char *ids, size_t size)
{
	size_t from = b->len;
	int rc = conns_line_put(b, book, now, n, full, at_ms);

	ids[0] = '\0';
	if (rc == 1) {
		json_t *root = parsed(b, from);
		bool is_full = json_is_true(json_object_get(root, "full"));

		assert_string_equal(json_string_value(json_object_get(root,
		    "type")), "connections");
		assert_int_equal(is_full, full);
		ids_of(root, ids, size);
		json_decref(root);
	} else {
		assert_int_equal(b->len, from);
	}
	return rc;
}

static void
same_row(const struct conn_row *a, const struct conn_row *b)
{
	assert_int_equal(a->connection_id, b->connection_id);
	assert_int_equal(a->thread_id, b->thread_id);
	assert_string_equal(a->user, b->user);
	assert_string_equal(a->host, b->host);
	assert_string_equal(a->db, b->db);
	assert_string_equal(a->command, b->command);
	assert_int_equal(a->since_ms, b->since_ms);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->peak_bytes, b->peak_bytes);
	assert_int_equal(a->running, b->running);
	assert_string_equal(a->digest, b->digest);
	assert_string_equal(a->text, b->text);
}

static void
same_book(const struct conns_book *a, const struct conns_book *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		same_row(&a->v[i], &b->v[i]);
}

static void
test_changed_rows_and_gone_ids(void **state)
{
	struct conns_book book = { 0 };
	struct obuf b = { 0 };
	struct conn_row now[4];
	char ids[256];

	(void)state;
	now[0] = conn(7, 1000, "");
	now[1] = conn(3, 5000, "SELECT 1");
	now[2] = conn(5, 2000, "");
	/* The first line: all of them, by id. */
	assert_int_equal(put(&b, &book, now, 3, true, T0, ids, sizeof(ids)), 1);
	assert_string_equal(ids, "3,5,7|");
	assert_int_equal(book.n, 3);
	assert_int_equal(book.v[0].connection_id, 3);
	assert_int_equal(book.v[2].connection_id, 7);
	assert_non_null(strstr(b.p, "\"timestamp\":\"2026-11-27T03:05:00.000Z\""));
	/* 3 grows, 5 goes, 9 comes, 7 holds still. */
	now[0] = conn(9, 100, "INSERT INTO t VALUES (1)");
	now[1] = conn(3, 6000, "SELECT 1");
	now[2] = conn(7, 1000, "");
	assert_int_equal(put(&b, &book, now, 3, false, T0 + 1000, ids,
	    sizeof(ids)), 1);
	assert_string_equal(ids, "3,9|5");
	/* Nothing changed: nothing written, and b keeps what it held. */
	assert_int_equal(put(&b, &book, now, 3, false, T0 + 2000, ids,
	    sizeof(ids)), 0);
	/* Every figure counts: the peak, the thread, running, the texts. */
	now[2].peak_bytes = -1;
	assert_int_equal(put(&b, &book, now, 3, false, T0 + 3000, ids,
	    sizeof(ids)), 1);
	assert_string_equal(ids, "7|");
	now[2].thread_id++;
	assert_int_equal(put(&b, &book, now, 3, false, T0 + 3000, ids,
	    sizeof(ids)), 1);
	now[2].bytes++;
	assert_int_equal(put(&b, &book, now, 3, false, T0 + 3000, ids,
	    sizeof(ids)), 1);
	assert_string_equal(ids, "7|");
	now[1].running = false;
	assert_int_equal(put(&b, &book, now, 3, false, T0 + 3000, ids,
	    sizeof(ids)), 1);
	assert_string_equal(ids, "3|");
	static const size_t fields[] = {
		offsetof(struct conn_row, user), offsetof(struct conn_row, host),
		offsetof(struct conn_row, db), offsetof(struct conn_row, command),
		offsetof(struct conn_row, digest), offsetof(struct conn_row, text),
	};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		char *s = (char *)&now[0] + fields[i];

		s[0] = s[0] == 'Z' ? 'Y' : 'Z';
		assert_int_equal(put(&b, &book, now, 3, false, T0 + 4000, ids,
		    sizeof(ids)), 1);
		assert_string_equal(ids, "9|");
	}
	/* Full: every row though none changed. */
	assert_int_equal(put(&b, &book, now, 3, true, T0 + 5000, ids,
	    sizeof(ids)), 1);
	assert_string_equal(ids, "3,7,9|");
	/* All gone. */
	assert_int_equal(put(&b, &book, now, 0, false, T0 + 6000, ids,
	    sizeof(ids)), 1);
	assert_string_equal(ids, "|3,7,9");
	assert_int_equal(book.n, 0);
	/* None, and none before: nothing; full, an empty line all the same. */
	assert_int_equal(put(&b, &book, now, 0, false, T0 + 7000, ids,
	    sizeof(ids)), 0);
	assert_int_equal(put(&b, &book, now, 0, true, T0 + 7000, ids,
	    sizeof(ids)), 1);
	assert_string_equal(ids, "|");
	conns_book_free(&book);
	obuf_free(&b);
}

static void
test_since_slack(void **state)
{
	struct conns_book book = { 0 };
	struct obuf b = { 0 };
	struct conn_row now[1] = { conn(1, 100, "SELECT SLEEP(100)") };
	const int64_t since = now[0].since_ms;
	char ids[64];

	(void)state;
	assert_int_equal(put(&b, &book, now, 1, true, T0, ids, sizeof(ids)), 1);
	/* PROCESSLIST_TIME's second, read on either side of its turn. */
	now[0].since_ms = since + CONNS_SINCE_SLACK_MS - 1;
	assert_int_equal(put(&b, &book, now, 1, false, T0, ids, sizeof(ids)),
	    0);
	now[0].since_ms = since - (CONNS_SINCE_SLACK_MS - 1);
	assert_int_equal(put(&b, &book, now, 1, false, T0, ids, sizeof(ids)),
	    0);
	now[0].since_ms = since + 1000;
	assert_int_equal(put(&b, &book, now, 1, false, T0, ids, sizeof(ids)),
	    0);
	/* Moved by the slack from what was written: a new statement. */
	now[0].since_ms = since + CONNS_SINCE_SLACK_MS;
	assert_int_equal(put(&b, &book, now, 1, false, T0, ids, sizeof(ids)),
	    1);
	assert_string_equal(ids, "1|");
	now[0].since_ms = since;
	assert_int_equal(put(&b, &book, now, 1, false, T0, ids, sizeof(ids)),
	    1);
	/*
	 * A start that creeps by less than the slack each time is still
	 * written once it has moved by the slack from the line's.
	 */
	for (int i = 1; i <= 4; i++) {
		now[0].since_ms = since + i * 500;
		assert_int_equal(put(&b, &book, now, 1, false, T0, ids,
		    sizeof(ids)), i * 500 >= CONNS_SINCE_SLACK_MS);
		if (i * 500 >= CONNS_SINCE_SLACK_MS)
			break;
	}
	conns_book_free(&book);
	obuf_free(&b);
}

/* Applies the lines of b from `from` to book, each as a reader would. */
static void
apply_lines(struct conns_book *book, const struct obuf *b, size_t from)
{
	while (from < b->len) {
		const char *nl = memchr(b->p + from, '\n', b->len - from);

		assert_non_null(nl);
		assert_int_equal(conns_line_apply(book, b->p + from,
		    (size_t)(nl - (b->p + from))), 0);
		from = (size_t)(nl - b->p) + 1;
	}
}

static void
test_round_trip(void **state)
{
	struct conns_book wrote = { 0 }, read = { 0 };
	struct obuf b = { 0 };
	struct conn_row now[64];
	size_t n = 0, from;
	uint32_t seed = 26;

	(void)state;
	for (int step = 0; step < 200; step++) {
		/* Connections come, change, creep, go, in no order. */
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			switch (seed >> 16 & 7) {
			case 0:
				now[i].bytes += (int64_t)(seed >> 20 & 0xffff);
				break;
			case 1:
				now[i].since_ms += (int64_t)(seed >> 20 & 1023);
				break;
			case 2:
				snprintf(now[i].text, sizeof(now[i].text),
				    "UPDATE t SET a = %d", step);
				break;
			case 3:
				now[i] = now[--n];
				i--;
				break;
			default:
				break;
			}
		}
		seed = seed * 1103515245 + 12345;
		if (n < 64 && (seed >> 16 & 3) != 0)
			now[n++] = conn((uint64_t)step * 3 + 1, step * 1000, "");
		from = b.len;
		assert_true(conns_line_put(&b, &wrote, now, n, step % 50 == 0,
		    T0 + step * 1000) >= 0);
		apply_lines(&read, &b, from);
		same_book(&wrote, &read);
	}
	assert_true(b.len > 0);
	/* The whole record read again from its start: the same book. */
	conns_book_free(&read);
	apply_lines(&read, &b, 0);
	same_book(&wrote, &read);
	conns_book_free(&wrote);
	conns_book_free(&read);
	obuf_free(&b);
}

static void
test_texts_survive(void **state)
{
	struct conns_book wrote = { 0 }, read = { 0 };
	struct obuf b = { 0 };
	struct conn_row now[2];

	(void)state;
	now[0] = conn(1, 1, "SELECT \"a\\\"b\", 'c'\n  FROM `t`\t/* </td><script>"
	    " */ WHERE x = '\x01\x1f' AND y = 'caf\xc3\xa9 \xe2\x82\xac'");
	snprintf(now[0].user, sizeof(now[0].user), "o\"brien");
	snprintf(now[0].host, sizeof(now[0].host), "h\\ost\n");
	now[1] = conn(2, 2, "SELECT '\xff\xfe' AS bad, 'ok'");
	assert_int_equal(conns_line_put(&b, &wrote, now, 2, true, T0), 1);
	/* One line, whatever the texts held. */
	assert_null(memchr(b.p, '\n', b.len - 1));
	apply_lines(&read, &b, 0);
	assert_int_equal(read.n, 2);
	same_row(&read.v[0], &wrote.v[0]);
	/* Bytes that are not UTF-8 come back as U+FFFD, the rest whole. */
	assert_string_equal(read.v[1].text,
	    "SELECT '\xef\xbf\xbd\xef\xbf\xbd' AS bad, 'ok'");
	conns_book_free(&wrote);
	conns_book_free(&read);
	obuf_free(&b);
}

static int
apply(struct conns_book *book, const char *line)
{
	return conns_line_apply(book, line, strlen(line));
}

static void
test_other_lines(void **state)
{
	struct conns_book book = { 0 };

	(void)state;
	/* Lines of the record that are not connections lines. */
	assert_int_equal(apply(&book, "{\"type\":\"record\",\"version\":1}"), 1);
	assert_int_equal(apply(&book, "{\"type\":\"incident\",\"kind\":"
	    "\"oom-kill\"}"), 1);
	assert_int_equal(apply(&book, "{\"sample\":1,\"elapsed_ms\":0,"
	    "\"timestamp\":\"2026-11-27T03:05:00.000Z\"}"), 1);
	assert_int_equal(apply(&book, "[1,2]"), 1);
	/* What does not parse. */
	assert_int_equal(apply(&book, ""), -1);
	assert_int_equal(apply(&book, "{"), -1);
	assert_int_equal(apply(&book, "garbage"), -1);
	assert_int_equal(apply(&book, "{\"type\":\"connections\",\"full\":true,"
	    "\"rows\":[{\"id\":1"), -1);
	assert_int_equal(apply(&book, "{\"type\":\"connections\"}"), -1);
	assert_int_equal(apply(&book, "{\"type\":\"connections\",\"rows\":{},"
	    "\"gone\":[]}"), -1);
	assert_int_equal(book.n, 0);
	/* A full line sets the book anew; a gone id not there is no harm. */
	assert_int_equal(apply(&book, "{\"type\":\"connections\",\"full\":false,"
	    "\"rows\":[{\"id\":9,\"bytes\":5},{\"id\":4,\"bytes\":6}],"
	    "\"gone\":[77]}"), 0);
	assert_int_equal(book.n, 2);
	assert_int_equal(book.v[0].connection_id, 4);
	assert_int_equal(book.v[0].peak_bytes, -1);
	assert_int_equal(apply(&book, "{\"type\":\"connections\",\"full\":true,"
	    "\"rows\":[{\"id\":5,\"bytes\":1,\"peak_bytes\":null}],"
	    "\"gone\":[]}"), 0);
	assert_int_equal(book.n, 1);
	assert_int_equal(book.v[0].connection_id, 5);
	assert_int_equal(book.v[0].peak_bytes, -1);
	assert_int_equal(apply(&book, "{\"type\":\"connections\",\"full\":false,"
	    "\"rows\":[],\"gone\":[5]}"), 0);
	assert_int_equal(book.n, 0);
	conns_book_free(&book);
}

/*
 * The book as the lines say, kept the plain way: a slot an id, its
 * bytes, whether there. A line's rows in order (the last of an id wins),
 * then its gone.
 */
#define IDS 40

struct plain {
	bool there[IDS];
	int64_t bytes[IDS];
};

/* A random line of rows and gone ids, into buf; the plain book follows. */
static void
random_line(char *buf, size_t size, struct plain *pl, unsigned *seed)
{
	bool full = rand_r(seed) % 8 == 0;
	int rows = rand_r(seed) % 12, gone = full ? 0 : rand_r(seed) % 5;
	size_t at;

	at = (size_t)snprintf(buf, size, "{\"type\":\"connections\",\"timestamp\":"
	    "\"2026-11-27T03:05:00.000Z\",\"full\":%s,\"rows\":[",
	    full ? "true" : "false");
	if (full)
		memset(pl->there, 0, sizeof(pl->there));
	for (int i = 0; i < rows; i++) {
		int id = rand_r(seed) % IDS, bytes = rand_r(seed) % 1000;

		at += (size_t)snprintf(buf + at, size - at, "%s{\"id\":%d,"
		    "\"bytes\":%d}", i > 0 ? "," : "", id, bytes);
		pl->there[id] = true;
		pl->bytes[id] = bytes;
	}
	at += (size_t)snprintf(buf + at, size - at, "],\"gone\":[");
	for (int i = 0; i < gone; i++) {
		int id = rand_r(seed) % IDS;

		at += (size_t)snprintf(buf + at, size - at, "%s%d", i > 0 ?
		    "," : "", id);
		pl->there[id] = false;
	}
	snprintf(buf + at, size - at, "]}");
}

/*
 * Lines of rows in any order, an id said twice, come and gone at once,
 * full or not: the book is the plain one, by id, and the change says
 * which rows it holds from the line and which it lost.
 */
static void
test_book_as_the_plain_way(void **state)
{
	struct conns_book book = { 0 };
	struct conns_change ch = { 0 };
	struct plain pl = { 0 };
	unsigned seed = 31;
	char line[2048];

	(void)state;
	for (int n = 0; n < 3000; n++) {
		struct plain was = pl;
		size_t k = 0, set = 0, gone = 0;

		random_line(line, sizeof(line), &pl, &seed);
		assert_int_equal(conns_line_follow(&book, line, strlen(line),
		    &ch), 0);
		for (uint64_t id = 0; id < IDS; id++) {
			const struct conn_row *r = conns_book_find(&book, id);

			assert_int_equal(r != NULL, pl.there[id]);
			if (r == NULL) {
				if (was.there[id]) {
					assert_true(gone < ch.n_gone);
					assert_int_equal(ch.gone[gone++], id);
				}
				continue;
			}
			assert_int_equal(book.v[k++].connection_id, id);
			assert_int_equal(r->bytes, pl.bytes[id]);
			if (set < ch.n_set && ch.set[set] == id)
				set++;
			else if (r->bytes != was.bytes[id] || !was.there[id])
				fail_msg("line %d: %" PRIu64 " changed, not said",
				    n, id);
		}
		assert_int_equal(k, book.n);
		assert_int_equal(set, ch.n_set);
		assert_int_equal(gone, ch.n_gone);
	}
	conns_book_free(&book);
	conns_change_free(&ch);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changed_rows_and_gone_ids),
		cmocka_unit_test(test_since_slack),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_texts_survive),
		cmocka_unit_test(test_other_lines),
		cmocka_unit_test(test_book_as_the_plain_way),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
