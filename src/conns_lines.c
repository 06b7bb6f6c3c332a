#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "conns_lines.h"
#include "utc.h"
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
	utc_format(t, sizeof(t), r->since_ms, UTC_STAMP);
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
	utc_format(t, sizeof(t), at_ms, UTC_STAMP);
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

/* Rows of a line by id, and of one id in the line's order: the last wins. */
static int
by_id_then_place(const void *a, const void *b)
{
	const struct conn_row *x = *(const struct conn_row *const *)a;
	const struct conn_row *y = *(const struct conn_row *const *)b;

	if (x->connection_id != y->connection_id)
		return x->connection_id < y->connection_id ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool
listed(const uint64_t *v, size_t n, uint64_t id)
{
	return n > 0 && bsearch(&id, v, n, sizeof(id), by_value) != NULL;
}

/*
 * The line's rows into the book: a row of a connection it holds replaces
 * it there; the new ones, sorted, are merged in from the end, so that a
 * line of every connection costs a sort, not a sort a row.
 */
static int
merge_rows(struct conns_book *book, const struct conn_row *rows, size_t n)
{
	const struct conn_row **fresh = malloc((n > 0 ? n : 1) *
	    sizeof(*fresh));
	size_t k = 0, i, j, at;

	if (fresh == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		struct conn_row *was = find(book, rows[i].connection_id);

		if (was != NULL)
			*was = rows[i];
		else
			fresh[k++] = &rows[i];
	}
	qsort(fresh, k, sizeof(*fresh), by_id_then_place);
	/* A connection said twice in the line: its last row. */
	for (i = 0, j = 0; i < k; i++)
		if (i + 1 == k || fresh[i + 1]->connection_id !=
		    fresh[i]->connection_id)
			fresh[j++] = fresh[i];
	k = j;
	if (book->n + k > book->cap) {
		size_t cap = book->cap ? book->cap : 64;
		struct conn_row *v;

		while (cap < book->n + k)
			cap *= 2;
		if ((v = realloc(book->v, cap * sizeof(*v))) == NULL) {
			free(fresh);
			return -1;
		}
		book->v = v;
		book->cap = cap;
	}
	for (i = book->n, j = k, at = book->n + k; j > 0; )
		if (i > 0 && book->v[i - 1].connection_id >
		    fresh[j - 1]->connection_id)
			book->v[--at] = book->v[--i];
		else
			book->v[--at] = *fresh[--j];
	book->n += k;
	free(fresh);
	return 0;
}

/* The connections gone (ids sorted) out of the book, in one walk. */
static void
drop_gone(struct conns_book *book, const uint64_t *gone, size_t n)
{
	size_t i, kept = 0;

	if (n == 0)
		return;
	for (i = 0; i < book->n; i++) {
		if (listed(gone, n, book->v[i].connection_id))
			continue;
		if (kept != i)
			book->v[kept] = book->v[i];
		kept++;
	}
	book->n = kept;
}

static void
get_row(json_t *x, struct conn_row *r)
{
	char since[64];

	memset(r, 0, sizeof(*r));
	r->peak_bytes = -1;
	r->connection_id = (uint64_t)json_integer_value(
	    json_object_get(x, "id"));
	r->thread_id = (uint64_t)json_integer_value(
	    json_object_get(x, "thread"));
	get_str(x, "user", r->user, sizeof(r->user));
	get_str(x, "host", r->host, sizeof(r->host));
	get_str(x, "db", r->db, sizeof(r->db));
	get_str(x, "command", r->command, sizeof(r->command));
	get_str(x, "digest", r->digest, sizeof(r->digest));
	get_str(x, "text", r->text, sizeof(r->text));
	get_str(x, "since", since, sizeof(since));
	(void)utc_scan(since, UTC_STAMP, &r->since_ms, NULL);
	r->bytes = json_integer_value(json_object_get(x, "bytes"));
	if (json_is_integer(json_object_get(x, "peak_bytes")))
		r->peak_bytes = json_integer_value(json_object_get(x,
		    "peak_bytes"));
	r->running = json_is_true(json_object_get(x, "running"));
}

static int
push(uint64_t **v, size_t *n, size_t *cap, uint64_t id)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		uint64_t *w = realloc(*v, c * sizeof(*w));

		if (w == NULL)
			return -1;
		*v = w;
		*cap = c;
	}
	(*v)[(*n)++] = id;
	return 0;
}

/*
 * Before the line: the connections it may take away (every one, for a
 * full line), those of the book among them.
 */
static int
change_before(struct conns_change *ch, const struct conns_book *book,
    const uint64_t *gone, size_t m, bool full)
{
	size_t i;

	ch->n_set = ch->n_gone = 0;
	for (i = 0; full && i < book->n; i++)
		if (push(&ch->gone, &ch->n_gone, &ch->cap_gone,
		    book->v[i].connection_id) != 0)
			return -1;
	for (i = 0; !full && i < m; i++)
		if ((i == 0 || gone[i] != gone[i - 1]) && find(book, gone[i]) &&
		    push(&ch->gone, &ch->n_gone, &ch->cap_gone, gone[i]) != 0)
			return -1;
	return 0;
}

/* After: the rows the book holds now, and those it held and does not. */
static int
change_after(struct conns_change *ch, const struct conns_book *book,
    const struct conn_row *rows, size_t n)
{
	size_t i, j;

	for (i = 0, j = 0; i < ch->n_gone; i++)
		if (find(book, ch->gone[i]) == NULL)
			ch->gone[j++] = ch->gone[i];
	ch->n_gone = j;
	for (i = 0; i < n; i++)
		if (push(&ch->set, &ch->n_set, &ch->cap_set,
		    rows[i].connection_id) != 0)
			return -1;
	if (ch->n_set > 1) /* set is NULL before the first row */
		qsort(ch->set, ch->n_set, sizeof(*ch->set), by_value);
	for (i = 0, j = 0; i < ch->n_set; i++)
		if ((i == 0 || ch->set[i] != ch->set[i - 1]) &&
		    find(book, ch->set[i]) != NULL)
			ch->set[j++] = ch->set[i];
	ch->n_set = j;
	return 0;
}

/* The rows, then the gone, of a parsed line into the book. */
static int
apply(struct conns_book *book, json_t *rows, json_t *gone, bool full,
    struct conns_change *ch)
{
	size_t n = json_array_size(rows), m = json_array_size(gone), i;
	struct conn_row *v = malloc((n > 0 ? n : 1) * sizeof(*v));
	uint64_t *ids = malloc((m > 0 ? m : 1) * sizeof(*ids));
	json_t *x;
	int rc = -1;

	if (v == NULL || ids == NULL)
		goto out;
	json_array_foreach(rows, i, x)
		get_row(x, &v[i]);
	json_array_foreach(gone, i, x)
		ids[i] = (uint64_t)json_integer_value(x);
	qsort(ids, m, sizeof(*ids), by_value);
	if (ch != NULL && change_before(ch, book, ids, m, full) != 0)
		goto out;
	if (full)
		book->n = 0;
	if (merge_rows(book, v, n) != 0)
		goto out;
	drop_gone(book, ids, m);
	rc = ch != NULL ? change_after(ch, book, v, n) : 0;
out:
	free(v);
	free(ids);
	return rc;
}

int
conns_line_follow(struct conns_book *book, const char *line, size_t len,
    struct conns_change *ch)
{
	json_t *root, *rows, *gone;
	const char *type;
	int rc;

	if ((root = json_loadb(line, len, 0, NULL)) == NULL)
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
	rc = apply(book, rows, gone, json_is_true(json_object_get(root,
	    "full")), ch);
	json_decref(root);
	return rc;
}

int
conns_line_apply(struct conns_book *book, const char *line, size_t len)
{
	return conns_line_follow(book, line, len, NULL);
}

void
conns_change_free(struct conns_change *ch)
{
	free(ch->set);
	free(ch->gone);
	memset(ch, 0, sizeof(*ch));
}

const struct conn_row *
conns_book_find(const struct conns_book *book, uint64_t id)
{
	return find(book, id);
}

void
conns_book_free(struct conns_book *book)
{
	free(book->v);
	memset(book, 0, sizeof(*book));
}
