/*
 * JSON Lines: one object per sample. Event names are bytes from the server,
 * so strings are escaped to be valid JSON whatever they hold.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "output_format.h"
#include "scrub.h"
#include "units.h"
#include "utc.h"

static const char hex[] = "0123456789abcdef";

/* \uXXXX, for a code point below U+10000. */
static void
put_u(struct obuf *b, uint32_t cp)
{
	char u[6] = { '\\', 'u', hex[cp >> 12 & 0xf], hex[cp >> 8 & 0xf],
	    hex[cp >> 4 & 0xf], hex[cp & 0xf] };

	obuf_write(b, u, sizeof(u));
}

static void
put_ascii(struct obuf *b, unsigned char c)
{
	static const char esc[][3] = {
		['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b",
		['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
	};

	if (c < sizeof(esc) / sizeof(esc[0]) && esc[c][0] != '\0')
		obuf_write(b, esc[c], 2);
	else if (c < 0x20 || c == 0x7f)
		put_u(b, c);
	else
		obuf_putc(b, (char)c);
}

/*
 * How many bytes from s on need no escape: plain ASCII, and the UTF-8
 * sequences scrub_shown() accepts.
 */
static size_t
plain_run(const char *s, size_t n)
{
	size_t i = 0, k;
	uint32_t cp;

	for (;;) {
		/* ASCII that JSON and a terminal both take as it is. */
		i += scrub_ascii_run(s + i, n - i, 0x20, '"', '\\');
		if (i == n || (unsigned char)s[i] < 0x80)
			return i;
		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0 || !scrub_shown(cp))
			return i;
		i += k;
	}
}

/*
 * Each byte that starts no well-formed UTF-8 sequence becomes U+FFFD, so a
 * name cut inside a character by the server still reads back. What
 * scrub.h keeps from terminals (DEL, the C1 controls, the line separators,
 * the bidi controls) needs no escape in JSON, but escaped it cannot reach
 * a terminal when someone reads the output with cat: statements come from
 * any client. What needs nothing is copied a run at a time: most names
 * and statements are one run.
 */
void
output_json_put_string(struct obuf *b, const char *s, size_t n)
{
	size_t run, k;
	uint32_t cp;

	obuf_putc(b, '"');
	for (size_t i = 0; i < n; i += k) {
		run = plain_run(s + i, n - i);
		obuf_write(b, s + i, run);
		if ((i += run) == n)
			break;
		if ((k = scrub_utf8(s + i, n - i, &cp)) == 0) {
			obuf_write(b, "\\ufffd", 6);
			k = 1;
		} else if (k == 1)
			put_ascii(b, (unsigned char)s[i]);
		else
			put_u(b, cp); /* one scrub_shown() refuses */
	}
	obuf_putc(b, '"');
}

static void
put_value(struct obuf *b, enum column_kind kind, bool known,
    const union column_value *v)
{
	if (!known) {
		obuf_write(b, "null", 4);
		return;
	}
	switch (kind) {
	case COLUMN_INT:
		obuf_int(b, v->i);
		break;
	case COLUMN_UINT:
		obuf_uint(b, v->u);
		break;
	case COLUMN_TEXT:
	case COLUMN_NAME:
		output_json_put_string(b, v->s, v->len);
		break;
	}
}

/*
 * A key and its value; the keys are the column names, which need no
 * escape.
 */
static void
put_member(struct obuf *b, const char *name, enum column_kind kind,
    bool known, const union column_value *v)
{
	obuf_putc(b, '"');
	obuf_puts(b, name);
	obuf_write(b, "\":", 2);
	put_value(b, kind, known, v);
}

/*
 * The key of each sample column, "name": with its quotes and colon, made
 * once: a sample of ten events writes some 150 of them. An event's keys
 * come with the separator before them ({ for the first, else a comma).
 */
#define KEY_MAX 48
static struct key {
	char s[KEY_MAX];
	size_t len;
} sample_keys[SAMPLE_COLUMNS], event_keys[SAMPLE_COLUMNS];
/* The event-level columns, in order: each event writes these. */
static size_t event_cols[SAMPLE_COLUMNS], n_event_cols;
/*
 * A sample's members: the sample-level columns in order, with the
 * "events" array where the last event-level column stands
 * (output_format.h).
 */
#define EVENTS SIZE_MAX
static size_t sample_order[SAMPLE_COLUMNS], n_sample_order;
static pthread_once_t sample_keys_once = PTHREAD_ONCE_INIT;
static atomic_bool sample_keys_made;

static void
make_key(struct key *k, const char *sep, const char *name)
{
	int n = snprintf(k->s, sizeof(k->s), "%s\"%s\":", sep, name);

	if (n < 0 || (size_t)n >= sizeof(k->s))
		abort(); /* a column's name longer than KEY_MAX allows */
	k->len = (size_t)n;
}

static void
make_sample_keys(void)
{
	for (size_t j = 0; j < SAMPLE_COLUMNS; j++) {
		make_key(&sample_keys[j], "", sample_columns[j].name);
		if (sample_columns[j].level == COLUMN_EVENT) {
			make_key(&event_keys[n_event_cols],
			    n_event_cols == 0 ? "{" : ",",
			    sample_columns[j].name);
			event_cols[n_event_cols++] = j;
		} else
			sample_order[n_sample_order++] = j;
	}
	for (size_t j = SAMPLE_COLUMNS; j-- > 0;)
		if (sample_columns[j].level == COLUMN_EVENT) {
			size_t k = n_sample_order++;

			for (; k > 0 && sample_order[k - 1] > j; k--)
				sample_order[k] = sample_order[k - 1];
			sample_order[k] = EVENTS;
			break;
		}
	atomic_store_explicit(&sample_keys_made, true, memory_order_release);
}

/* A separator, a key and a number or null: what put_column() makes room for. */
#define FIELD_ROOM (1 + KEY_MAX + OUTPUT_INT_MAX)

/*
 * Writes the value of column c at p, which has room for a number, and
 * returns its end; a text value is left to the caller (NULL).
 */
static char *
put_known(char *p, const struct sample_column *c, bool known,
    const union column_value *v)
{
	if (!known) {
		memcpy(p, "null", 4);
		return p + 4;
	}
	if (c->kind == COLUMN_INT)
		return p + obuf_int_digits(p, v->i);
	if (c->kind == COLUMN_UINT)
		return p + obuf_uint_digits(p, v->u);
	return NULL;
}

/* A text value: a name its entry calls plain needs no look at its bytes. */
static void
write_text(struct obuf *b, const char *s, size_t n, bool plain)
{
	if (plain) {
		obuf_putc(b, '"');
		obuf_write(b, s, n);
		obuf_putc(b, '"');
	} else
		output_json_put_string(b, s, n);
}

/* A text value, after its key, at the end of b. */
static void
put_text(struct obuf *b, const struct sample_column *c,
    const union column_value *v)
{
	write_text(b, v->s, v->len, c->kind == COLUMN_NAME && v->plain);
}

/*
 * Sample column j of row r, after sep, with its key. Some 70 a sample:
 * room is made once for the key and a number, the key is copied as its
 * whole slot (a fixed size: a few moves, no call) and a number written in
 * place, which costs a third of appending each piece.
 */
static void
put_column(struct obuf *b, char sep, size_t j,
    const struct sample_row *r, struct output_text_kept *kept)
{
	const struct sample_column *c = &sample_columns[j];
	union column_value v;
	bool known = sample_column_get(c, r, &v);
	char *p, *end;

	if (b->cap - b->len < FIELD_ROOM && !obuf_grow(b, FIELD_ROOM))
		return;
	p = b->p + b->len;
	*p++ = sep;
	memcpy(p, sample_keys[j].s, KEY_MAX);
	p += sample_keys[j].len;
	if ((end = put_known(p, c, known, &v)) != NULL) {
		b->len = (size_t)(end - b->p);
		return;
	}
	b->len = (size_t)(p - b->p);
	/* Plain, it is copied: keeping it cost more (the timestamp). */
	if (c->kind == COLUMN_NAME && v.plain)
		write_text(b, v.s, v.len, true);
	else
		output_text_put(b, &kept[j], v.s, v.len, false, write_text);
}

/*
 * One event, { to }: some 60 fields a sample. Room is made once for every
 * key and number; a column that is a field of the event (its at) is
 * loaded, not asked of its getter, which cost more than the load.
 */
static void
put_event(struct obuf *b, const struct sample_row *r)
{
	const size_t room = n_event_cols * (KEY_MAX + OUTPUT_INT_MAX) + 1;
	bool deltas = r->s->has_deltas;
	union column_value v;
	char *p, *end;

	if (b->cap - b->len < room && !obuf_grow(b, room))
		return;
	p = b->p + b->len;
	for (size_t k = 0; k < n_event_cols; k++) {
		const struct sample_column *c = &sample_columns[event_cols[k]];

		memcpy(p, event_keys[k].s, KEY_MAX);
		p += event_keys[k].len;
		if (c->at != 0) {
			uint64_t u = sample_column_load(c, r->e);

			if (c->deltas && !deltas) {
				memcpy(p, "null", 4);
				p += 4;
			} else if (c->kind == COLUMN_UINT)
				p += obuf_uint_digits(p, u);
			else
				p += obuf_int_digits(p, (int64_t)u);
			continue;
		}
		if ((end = put_known(p, c, c->get(r, &v), &v)) != NULL) {
			p = end;
			continue;
		}
		/* Text: appended, then room again for what follows. */
		b->len = (size_t)(p - b->p);
		put_text(b, c, &v);
		if (b->cap - b->len < room && !obuf_grow(b, room))
			return;
		p = b->p + b->len;
	}
	*p++ = '}';
	b->len = (size_t)(p - b->p);
}

/*
 * What JSON keeps between samples: the bytes of the event written at each
 * of the first places of the last sample, written again while the event
 * is the same (output_format.h): copying them cost a tenth of writing
 * its fifteen fields. A longer event is written each time.
 */
#define KEPT_EVENTS 16
#define KEPT_BYTES 1024
struct json_state {
	struct kept_event {
		struct output_event_key key;
		size_t len; /* 0: nothing kept */
		char bytes[KEPT_BYTES];
	} kept[KEPT_EVENTS];
	/* Each sample-level text column's last value (output_format.h). */
	struct output_text_kept text[SAMPLE_COLUMNS];
	struct output_run_kept tail; /* the columns after the events */
};

static void *
json_init(const struct output_settings *set)
{
	(void)set;
	return calloc(1, sizeof(struct json_state));
}

static void
json_free(void *state)
{
	struct json_state *st = state;

	for (size_t j = 0; j < SAMPLE_COLUMNS; j++)
		output_text_kept_free(&st->text[j]);
	output_run_kept_free(&st->tail);
	free(st);
}

/*
 * Every event has every key, so each line has one shape: what the getters
 * call null is written as null.
 */
static void
put_events(struct obuf *b, const struct sample_row *sample,
    struct json_state *st)
{
	struct sample_row r = *sample;
	bool deltas = r.s->has_deltas;

	obuf_puts(b, "\"events\":[");
	for (size_t i = 0; i < r.s->n_events; i++) {
		struct kept_event *k = i < KEPT_EVENTS ? &st->kept[i] : NULL;
		size_t from;

		r.e = &r.s->events[i];
		if (i > 0)
			obuf_putc(b, ',');
		if (k != NULL && k->len > 0 &&
		    output_event_same(&k->key, r.e, deltas)) {
			obuf_write(b, k->bytes, k->len);
			continue;
		}
		from = b->len;
		put_event(b, &r);
		if (k == NULL)
			continue;
		k->len = 0;
		if (!b->failed && b->len - from <= KEPT_BYTES) {
			k->len = b->len - from;
			memcpy(k->bytes, b->p + from, k->len);
			output_event_keep(&k->key, r.e, deltas);
		}
	}
	obuf_putc(b, ']');
}

/* A member of a finished statement's line: a count, or null when not known. */
static void
put_count(struct obuf *b, const char *name, bool known, uint64_t u)
{
	union column_value v = { .u = u };

	obuf_putc(b, ',');
	put_member(b, name, COLUMN_UINT, known, &v);
}

/*
 * The statements the thread finished since the sample before, as the
 * server recorded them (finished.h), oldest first: "finished":[...] in
 * every sample, empty in most, so that every line keeps one shape.
 */
static void
put_finished(struct obuf *b, const struct sample *s)
{
	obuf_puts(b, ",\"finished\":[");
	for (size_t i = 0; i < s->n_finished; i++) {
		const struct finished_statement *f = &s->finished[i];
		const struct statement *st = &f->statement;
		union column_value v = { .u = st->id };

		if (i > 0)
			obuf_putc(b, ',');
		obuf_putc(b, '{');
		put_member(b, "statement_id", COLUMN_UINT, true, &v);
		put_count(b, "end_id", true, f->end_id);
		obuf_putc(b, ',');
		v = (union column_value){ .s = st->digest,
		    .len = strlen(st->digest) };
		put_member(b, "digest", COLUMN_TEXT, st->digest[0] != '\0', &v);
		obuf_putc(b, ',');
		v = (union column_value){ .s = st->text,
		    .len = statement_text_len(st) };
		put_member(b, "statement", COLUMN_TEXT, v.len > 0, &v);
		put_count(b, "duration_us", true, f->duration_us);
		put_count(b, "rows_sent", true, f->rows_sent);
		put_count(b, "rows_examined", true, f->rows_examined);
		obuf_putc(b, ',');
		v = (union column_value){ .i = f->peak_bytes };
		put_member(b, "peak_bytes", COLUMN_INT, f->has_peak, &v);
		put_count(b, "lost_before", true, f->lost_before);
		obuf_putc(b, '}');
	}
	obuf_putc(b, ']');
}

/* The columns after the events, from what was kept of them if the same. */
static void
put_tail(struct obuf *b, const struct sample_row *r, struct json_state *st,
    const size_t *cols, size_t n)
{
	size_t from = b->len;

	if (output_run_same(&st->tail, r, cols, n)) {
		obuf_write(b, st->tail.written.p, st->tail.written.len);
		return;
	}
	for (size_t k = 0; k < n; k++)
		put_column(b, ',', cols[k], r, st->text);
	if (!b->failed)
		output_run_keep(&st->tail, r, cols, n, b->p + from,
		    b->len - from);
}

static int
json_sample(struct output *o, const struct sample *s)
{
	char ts[64];
	struct sample_row r = { .o = o, .s = s, .timestamp = ts };
	char sep = '{';

	/* Made once: pthread_once() itself cost more than a field. */
	if (!atomic_load_explicit(&sample_keys_made, memory_order_acquire))
		pthread_once(&sample_keys_once, make_sample_keys);
	utc_format(ts, sizeof(ts), s->wall_ms, UTC_STAMP);
	for (size_t k = 0; k < n_sample_order; k++) {
		if (sample_order[k] == EVENTS) {
			obuf_putc(&o->buf, sep);
			put_events(&o->buf, &r, o->state);
			put_tail(&o->buf, &r, o->state, sample_order + k + 1,
			    n_sample_order - k - 1);
			break;
		}
		put_column(&o->buf, sep, sample_order[k], &r,
		    ((struct json_state *)o->state)->text);
		sep = ',';
	}
	put_finished(&o->buf, s);
	obuf_write(&o->buf, "}\n", 2);
	return obuf_status(&o->buf);
}

static int
json_threads(struct output *o, const struct thread_list *l)
{
	union column_value v;

	for (size_t i = 0; i < l->n; i++) {
		for (size_t j = 0; j < THREAD_COLUMNS; j++) {
			const struct thread_column *c = &thread_columns[j];

			obuf_putc(&o->buf, j == 0 ? '{' : ',');
			put_member(&o->buf, c->name, c->kind,
			    c->get(&l->v[i], &v), &v);
		}
		obuf_write(&o->buf, "}\n", 2);
	}
	return obuf_status(&o->buf);
}

/*
 * --statements: one line per statement, the most growth first, each
 * marked "type":"statement" so that it is never read as a sample.
 */
static int
json_statements(struct output *o, const struct summary *sum)
{
	union column_value v;
	char first[64], last[64];

	for (size_t i = 0; i < sum->n_run_statements; i++) {
		const struct run_statement *st = &sum->run_statements[i];
		struct statement_row r = { .st = st, .rank = i + 1,
		    .thread_id = sum->thread_id, .first_timestamp = first,
		    .last_timestamp = last };

		utc_format(first, sizeof(first), st->first_wall_ms, UTC_STAMP);
		utc_format(last, sizeof(last), st->last_wall_ms, UTC_STAMP);
		obuf_puts(&o->buf, "{\"type\":\"statement\"");
		for (size_t j = 0; j < STATEMENT_COLUMNS; j++) {
			const struct statement_column *c = &statement_columns[j];

			obuf_putc(&o->buf, ',');
			put_member(&o->buf, c->name, c->kind, c->get(&r, &v), &v);
		}
		obuf_write(&o->buf, "}\n", 2);
	}
	return obuf_status(&o->buf);
}

/* An integer member, or null when it is not known (0). */
static void
put_known_int(struct obuf *b, const char *name, int64_t v)
{
	put_member(b, name, COLUMN_INT, v != 0,
	    &(union column_value){ .i = v });
}

/*
 * A capture of a hunt begins: one line marked "type":"capture", which
 * --read passes over, saying what the samples after it are of: a running
 * statement, one that had ended (how long it ran, in duration_ms; null
 * for the others) or a connection idle, holding memory, and whether it
 * crossed --bigger-than only between two looks.
 */
static int
json_capture(struct output *o, const struct output_capture *c)
{
	struct obuf *b = &o->buf;
	char ts[64];

	utc_format(ts, sizeof(ts), c->started_s * 1000, UTC_STAMP);
	obuf_puts(b, "{\"type\":\"capture\",\"capture\":");
	obuf_uint(b, c->number);
	obuf_puts(b, ",\"timestamp\":");
	output_json_put_string(b, ts, strlen(ts));
	obuf_puts(b, ",\"connection_id\":");
	obuf_uint(b, c->connection_id);
	obuf_puts(b, ",\"thread_id\":");
	obuf_uint(b, c->thread_id);
	obuf_puts(b, c->idle ? ",\"state\":\"idle\",\"seconds\":" :
	    c->ended ? ",\"state\":\"ended\",\"seconds\":" :
	    ",\"state\":\"running\",\"seconds\":");
	obuf_int(b, c->running_s);
	obuf_putc(b, ',');
	put_member(b, "duration_ms", COLUMN_INT, c->ended,
	    &(union column_value){ .i = c->duration_ms });
	obuf_puts(b, ",\"statement\":");
	if (c->idle)
		obuf_puts(b, "null");
	else
		output_json_put_string(b, c->text, strlen(c->text));
	obuf_puts(b, ",\"bytes\":");
	obuf_int(b, c->bytes);
	obuf_putc(b, ',');
	put_known_int(b, "bigger_than_bytes", c->size_bytes);
	obuf_puts(b, c->between_looks ? ",\"between_looks\":true," :
	    ",\"between_looks\":false,");
	put_known_int(b, "peak_bytes", c->peak_bytes);
	obuf_write(b, "}\n", 2);
	return obuf_status(b);
}

/*
 * No header and no footer: every line stands alone, even after a crash.
 * A line of "type" is not a sample: a capture's (json_capture()), or a
 * statement's in the file of --statements.
 */
const struct format format_json = {
	.name = "json",
	.init = json_init,
	.free = json_free,
	.capture = json_capture,
	.sample = json_sample,
	.threads = json_threads,
	.statements = json_statements,
};
