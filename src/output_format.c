/*
 * The helpers the formats share, and the state of the picture formats
 * (html, svg): the chart of the run. Integers without printf are in
 * output_buf.c; UTF-8 is read by scrub.c, below diag and the formats alike.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "output_format.h"

/* The picture formats' state: the chart of the run so far, if begun. */
struct chart_state {
	struct chart *chart; /* owned; made at the first sample */
};

void
output_text_put(struct obuf *b, struct output_text_kept *k, const char *s,
    size_t n, bool plain, output_text_writer *put)
{
	size_t from = b->len;

	if (k->kept && k->plain == plain && k->value.len == n &&
	    (n == 0 || memcmp(k->value.p, s, n) == 0)) {
		obuf_write(b, k->written.p, k->written.len);
		return;
	}
	put(b, s, n, plain);
	k->kept = false;
	if (b->failed)
		return;
	obuf_clear(&k->value);
	obuf_write(&k->value, s, n);
	obuf_clear(&k->written);
	obuf_write(&k->written, b->p + from, b->len - from);
	k->plain = plain;
	k->kept = !k->value.failed && !k->written.failed;
}

void
output_text_kept_free(struct output_text_kept *k)
{
	obuf_free(&k->value);
	obuf_free(&k->written);
	k->kept = false;
}

/* Whether known and v, read of column j, are what k kept of it. */
static bool
run_value_same(const struct output_run_kept *k, size_t j, bool known,
    const union column_value *v)
{
	const struct output_run_value *y = &k->kept[j];
	enum column_kind kind = sample_columns[j].kind;

	if (known != y->known)
		return false;
	if (!known)
		return true;
	if (kind == COLUMN_INT || kind == COLUMN_UINT)
		return v->u == y->v.u;
	return v->len == y->v.len &&
	    (kind != COLUMN_NAME || v->plain == y->v.plain) &&
	    (v->len == 0 || memcmp(k->text.p + y->off, v->s, v->len) == 0);
}

/*
 * The first that differs ends the look: output_run_keep() reads them all
 * again, which only a sample that changed pays.
 */
bool
output_run_same(struct output_run_kept *k, const struct sample_row *r,
    const size_t *cols, size_t n)
{
	if (!k->kept_any)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct sample_column *c = &sample_columns[cols[i]];
		union column_value v;

		if (!run_value_same(k, cols[i], sample_column_get(c, r, &v),
		    &v))
			return false;
	}
	return true;
}

void
output_run_keep(struct output_run_kept *k, const struct sample_row *r,
    const size_t *cols, size_t n, const char *p, size_t len)
{
	obuf_clear(&k->text);
	for (size_t i = 0; i < n; i++) {
		size_t j = cols[i];
		struct output_run_value *x = &k->kept[j];
		enum column_kind kind = sample_columns[j].kind;

		x->known = sample_column_get(&sample_columns[j], r, &x->v);
		if (!x->known || kind == COLUMN_INT || kind == COLUMN_UINT)
			continue;
		x->off = k->text.len;
		obuf_write(&k->text, x->v.s, x->v.len);
		x->v.s = NULL; /* the sample's, gone by the next */
	}
	obuf_clear(&k->written);
	obuf_write(&k->written, p, len);
	k->kept_any = !k->text.failed && !k->written.failed;
}

void
output_run_kept_free(struct output_run_kept *k)
{
	obuf_free(&k->text);
	obuf_free(&k->written);
	k->kept_any = false;
}

void *
output_chart_init(const struct output_settings *set)
{
	(void)set;
	return calloc(1, sizeof(struct chart_state));
}

void
output_chart_free(void *state)
{
	struct chart_state *c = state;

	chart_free(c->chart);
	free(c);
}

int
output_chart_sample(struct output *o, const struct sample *s)
{
	struct chart_state *c = o->state;

	if (c->chart == NULL && (c->chart = chart_create()) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	chart_add(c->chart, s);
	return 0;
}

struct chart *
output_chart_take(struct output *o)
{
	struct chart_state *c = o->state;
	struct chart *taken = c->chart;

	c->chart = NULL;
	return taken != NULL ? taken : chart_create();
}

const char *
output_chart_what(const struct output *o, uint64_t thread_id, char *buf,
    size_t len)
{
	if (o->grain != NULL)
		snprintf(buf, len, "%s", o->grain);
	else
		snprintf(buf, len, "thread %" PRIu64, thread_id);
	return buf;
}

const char *
output_chart_total(const struct output *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s total", o->grain != NULL ? o->grain : "thread");
	return buf;
}
