#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "conns_lines.h"
#include "when.h"
#include "output_format.h"

static int
by_id(const void *a, const void *b)
{
	const struct conn_row *x = a, *y = b;

	return x->connection_id < y->connection_id ? -1 :
	    x->connection_id > y->connection_id;
}

static struct conn_row *
find(const struct conns_book *book, uint64_t id)
{
	struct conn_row key = { .connection_id = id };

	return book->n == 0 ? NULL : bsearch(&key, book->v, book->n,
	    sizeof(key), by_id);
}

static bool
same(const struct conn_row *a, const struct conn_row *b)
{
	int64_t moved = a->since_ms - b->since_ms;

	return a->bytes == b->bytes && a->peak_bytes == b->peak_bytes &&
	    a->running == b->running && a->thread_id == b->thread_id &&
	    moved < CONNS_SINCE_SLACK_MS && moved > -CONNS_SINCE_SLACK_MS &&
	    strcmp(a->command, b->command) == 0 &&
	    strcmp(a->digest, b->digest) == 0 &&
	    strcmp(a->text, b->text) == 0 && strcmp(a->db, b->db) == 0 &&
	    strcmp(a->user, b->user) == 0 && strcmp(a->host, b->host) == 0;
}

static void
put_str(struct obuf *b, const char *key, const char *s)
{
	obuf_puts(b, key);
	output_json_put_string(b, s, strlen(s));
}

static void
put_row(struct obuf *b, const struct conn_row *r)
{
	char n[200], t[64];

	snprintf(n, sizeof(n), "{\"id\":%" PRIu64 ",\"thread\":%" PRIu64 ",",
	    r->connection_id, r->thread_id);
	obuf_puts(b, n);
	put_str(b, "\"user\":", r->user);
	put_str(b, ",\"host\":", r->host);
	put_str(b, ",\"db\":", r->db);
	put_str(b, ",\"command\":", r->command);
	when_stamp(t, sizeof(t), r->since_ms);
	put_str(b, ",\"since\":", t);
	if (r->peak_bytes >= 0)
		snprintf(n, sizeof(n), ",\"bytes\":%" PRId64 ",\"peak_bytes\":%"
		    PRId64 ",\"running\":%s", r->bytes, r->peak_bytes,
		    r->running ? "true" : "false");
	else
		snprintf(n, sizeof(n), ",\"bytes\":%" PRId64 ",\"peak_bytes\":"
		    "null,\"running\":%s", r->bytes, r->running ? "true" :
		    "false");
	obuf_puts(b, n);
	put_str(b, ",\"digest\":", r->digest);
	put_str(b, ",\"text\":", r->text);
	obuf_putc(b, '}');
}

int
conns_line_put(struct obuf *b, struct conns_book *book,
    const struct conn_row *now, size_t n, bool full, int64_t at_ms)
{
	struct conn_row *v = malloc((n > 0 ? n : 1) * sizeof(*v));
	size_t start = b->len, rows = 0, gone = 0, i, j;
	char t[64];

	if (v == NULL)
		return -1;
	if (n > 0) /* now may be NULL then */
		memcpy(v, now, n * sizeof(*v));
	qsort(v, n, sizeof(*v), by_id);
	when_stamp(t, sizeof(t), at_ms);
	obuf_puts(b, "{\"type\":\"connections\",\"timestamp\":\"");
	obuf_puts(b, t);
	obuf_puts(b, full ? "\",\"full\":true,\"rows\":[" :
	    "\",\"full\":false,\"rows\":[");
	for (i = 0; i < n; i++) {
		const struct conn_row *was = find(book, v[i].connection_id);

		/*
		 * Not written: the book keeps the row as the lines say it,
		 * so that a start creeping by less than the slack each time
		 * is written once it has moved by the slack in all.
		 */
		if (!full && was != NULL && same(was, &v[i])) {
			v[i] = *was;
			continue;
		}
		if (rows++ > 0)
			obuf_putc(b, ',');
		put_row(b, &v[i]);
	}
	obuf_puts(b, "],\"gone\":[");
	/* Both sorted: a walk of the two finds those no longer there. */
	for (i = 0, j = 0; !full && i < book->n; i++) {
		while (j < n && v[j].connection_id < book->v[i].connection_id)
			j++;
		if (j < n && v[j].connection_id == book->v[i].connection_id)
			continue;
		snprintf(t, sizeof(t), "%s%" PRIu64, gone++ > 0 ? "," : "",
		    book->v[i].connection_id);
		obuf_puts(b, t);
	}
	obuf_puts(b, "]}\n");
	free(book->v);
	book->v = v;
	book->n = book->cap = n;
	if (!full && rows == 0 && gone == 0) {
		b->len = start;
		return 0;
	}
	return obuf_status(b) == 0 ? 1 : -1;
}

static void
get_str(json_t *o, const char *key, char *buf, size_t size)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(buf, size, "%s", s != NULL ? s : "");
}

static int
upsert(struct conns_book *book, const struct conn_row *r)
{
	struct conn_row *was = find(book, r->connection_id);

	if (was != NULL) {
		*was = *r;
		return 0;
	}
	if (book->n == book->cap) {
		size_t cap = book->cap ? book->cap * 2 : 64;
		struct conn_row *v = realloc(book->v, cap * sizeof(*v));

		if (v == NULL)
			return -1;
		book->v = v;
		book->cap = cap;
	}
	book->v[book->n++] = *r;
	qsort(book->v, book->n, sizeof(*r), by_id);
	return 0;
}

static void
drop(struct conns_book *book, uint64_t id)
{
	struct conn_row *was = find(book, id);

	if (was == NULL)
		return;
	memmove(was, was + 1, (size_t)(book->v + book->n - was - 1) *
	    sizeof(*was));
	book->n--;
}

int
conns_line_apply(struct conns_book *book, const char *line, size_t len)
{
	json_t *root = json_loadb(line, len, 0, NULL), *rows, *gone, *x;
	const char *type;
	size_t i;
	int rc = 0;

	if (root == NULL)
		return -1;
	type = json_string_value(json_object_get(root, "type"));
	rows = json_object_get(root, "rows");
	gone = json_object_get(root, "gone");
	if (type == NULL || strcmp(type, "connections") != 0) {
		json_decref(root);
		return 1;
	}
	if (!json_is_array(rows) || !json_is_array(gone)) {
		json_decref(root);
		return -1;
	}
	if (json_is_true(json_object_get(root, "full")))
		book->n = 0;
	json_array_foreach(rows, i, x) {
		struct conn_row r = { .peak_bytes = -1 };
		char since[64];

		r.connection_id = (uint64_t)json_integer_value(
		    json_object_get(x, "id"));
		r.thread_id = (uint64_t)json_integer_value(
		    json_object_get(x, "thread"));
		get_str(x, "user", r.user, sizeof(r.user));
		get_str(x, "host", r.host, sizeof(r.host));
		get_str(x, "db", r.db, sizeof(r.db));
		get_str(x, "command", r.command, sizeof(r.command));
		get_str(x, "digest", r.digest, sizeof(r.digest));
		get_str(x, "text", r.text, sizeof(r.text));
		get_str(x, "since", since, sizeof(since));
		when_parse(since, 0, &r.since_ms);
		r.bytes = json_integer_value(json_object_get(x, "bytes"));
		if (json_is_integer(json_object_get(x, "peak_bytes")))
			r.peak_bytes = json_integer_value(
			    json_object_get(x, "peak_bytes"));
		r.running = json_is_true(json_object_get(x, "running"));
		if (upsert(book, &r) != 0) {
			rc = -1;
			break;
		}
	}
	json_array_foreach(gone, i, x)
		drop(book, (uint64_t)json_integer_value(x));
	json_decref(root);
	return rc;
}

void
conns_book_free(struct conns_book *book)
{
	free(book->v);
	memset(book, 0, sizeof(*book));
}
