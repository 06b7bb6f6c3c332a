/*
 * JSON Lines: one object per sample. Event names are bytes from the server,
 * so strings are escaped to be valid JSON whatever they hold.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "output_format.h"
#include "units.h"

static void
put_ascii(FILE *fp, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", fp);
		break;
	case '\\':
		fputs("\\\\", fp);
		break;
	case '\b':
		fputs("\\b", fp);
		break;
	case '\f':
		fputs("\\f", fp);
		break;
	case '\n':
		fputs("\\n", fp);
		break;
	case '\r':
		fputs("\\r", fp);
		break;
	case '\t':
		fputs("\\t", fp);
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(fp, "\\u%04x", c);
		else
			putc(c, fp);
	}
}

/*
 * Each byte that starts no well-formed UTF-8 sequence becomes U+FFFD, so a
 * name cut inside a character by the server still reads back. DEL, the C1
 * controls, the line separators and the bidi controls need no escape in
 * JSON, but escaped they cannot reach a terminal when someone reads the
 * output with cat: statements come from any client.
 */
static void
put_string(FILE *fp, const char *s)
{
	size_t n, k;
	uint32_t cp;

	if (s == NULL) {
		fputs("null", fp);
		return;
	}
	n = strlen(s);
	putc('"', fp);
	for (size_t i = 0; i < n; i += k) {
		if ((k = output_utf8(s + i, n - i, &cp)) == 0) {
			fputs("\\ufffd", fp);
			k = 1;
		} else if (k == 1)
			put_ascii(fp, (unsigned char)s[i]);
		else if (cp < 0xa0 || (cp >= 0x2028 && cp <= 0x202e) ||
		    (cp >= 0x2066 && cp <= 0x2069))
			fprintf(fp, "\\u%04x", (unsigned)cp);
		else
			fwrite(s + i, 1, k, fp);
	}
	putc('"', fp);
}

/*
 * Every event has every key, so each line has one shape: a delta is null
 * in the first sample, which has nothing to compare with, and
 * unseen_peak_bytes is null when there was no unseen peak.
 */
static void
put_event(FILE *fp, const struct event_stat *e, bool has_deltas)
{
	fputs("{\"event_name\":", fp);
	put_string(fp, e->name);
	fprintf(fp, ",\"current_bytes\":%" PRId64 ",\"current_count\":%" PRId64
	    ",\"high_bytes\":%" PRId64 ",\"alloc_bytes\":%" PRIu64
	    ",\"free_bytes\":%" PRIu64 ",\"alloc_count\":%" PRIu64
	    ",\"free_count\":%" PRIu64,
	    e->current_bytes, e->current_count, e->high_bytes, e->alloc_bytes,
	    e->free_bytes, e->alloc_count, e->free_count);
	if (has_deltas)
		fprintf(fp, ",\"alloc_delta_bytes\":%" PRIu64
		    ",\"free_delta_bytes\":%" PRIu64
		    ",\"alloc_delta_count\":%" PRIu64
		    ",\"free_delta_count\":%" PRIu64,
		    e->delta.alloc_bytes, e->delta.free_bytes,
		    e->delta.alloc_count, e->delta.free_count);
	else
		fputs(",\"alloc_delta_bytes\":null,\"free_delta_bytes\":null"
		    ",\"alloc_delta_count\":null,\"free_delta_count\":null",
		    fp);
	if (has_deltas && e->delta.unseen_peak)
		fprintf(fp, ",\"unseen_peak_bytes\":%" PRId64 "}",
		    e->high_bytes);
	else
		fputs(",\"unseen_peak_bytes\":null}", fp);
}

static int
json_sample(struct output *o, const struct sample *s)
{
	char ts[64];

	units_timestamp(s->wall_ms, ts, sizeof(ts));
	fprintf(o->fp, "{\"sample\":%" PRIu64 ",\"elapsed_ms\":%" PRIu64
	    ",\"timestamp\":", s->seq, s->elapsed_us / 1000);
	put_string(o->fp, ts);
	/* A grain other than a thread has no thread id: "grain" names it. */
	if (o->grain == NULL)
		fprintf(o->fp, ",\"thread_id\":%" PRIu64, s->thread_id);
	else
		fputs(",\"thread_id\":null", o->fp);
	fprintf(o->fp, ",\"total_bytes\":%" PRId64
	    ",\"late_us\":%" PRIu64 ",\"query_us\":%" PRIu64
	    ",\"gap_ms\":%" PRIu64 ",\"events\":[",
	    s->total_bytes, s->late_us, s->query_us, s->gap_ms);
	for (size_t i = 0; i < s->n_events; i++) {
		if (i > 0)
			putc(',', o->fp);
		put_event(o->fp, &s->events[i], s->has_deltas);
	}
	fputs("],\"statement_id\":", o->fp);
	if (s->statement.has_id)
		fprintf(o->fp, "%" PRIu64, s->statement.id);
	else
		fputs("null", o->fp);
	fputs(",\"digest\":", o->fp);
	put_string(o->fp, s->statement.digest[0] != '\0' ?
	    s->statement.digest : NULL);
	fputs(",\"statement\":", o->fp);
	put_string(o->fp, s->statement.text[0] != '\0' ?
	    s->statement.text : NULL);
	fputs(",\"grain\":", o->fp);
	put_string(o->fp, o->grain);
	if (o->filtered)
		fprintf(o->fp, ",\"filtered_total_bytes\":%" PRId64 "}\n",
		    s->filtered_total_bytes);
	else
		fputs(",\"filtered_total_bytes\":null}\n", o->fp);
	return output_status(o->fp);
}

static void
put_thread(FILE *fp, const struct thread_info *t)
{
	fprintf(fp, "{\"thread_id\":%" PRIu64 ",\"connection_id\":",
	    t->thread_id);
	if (t->has_connection)
		fprintf(fp, "%" PRIu64, t->connection_id);
	else
		fputs("null", fp);
	fputs(",\"type\":", fp);
	put_string(fp, t->type);
	fputs(",\"name\":", fp);
	put_string(fp, t->name);
	fputs(",\"user\":", fp);
	put_string(fp, t->user);
	fputs(",\"host\":", fp);
	put_string(fp, t->host);
	fputs(",\"command\":", fp);
	put_string(fp, t->command);
	fputs(",\"time\":", fp);
	if (t->has_time)
		fprintf(fp, "%" PRId64, t->time_s);
	else
		fputs("null", fp);
	fputs(",\"state\":", fp);
	put_string(fp, t->state);
	fprintf(fp, ",\"current_bytes\":%" PRId64 ",\"statement\":",
	    t->current_bytes);
	put_string(fp, t->statement);
	fputs("}\n", fp);
}

static int
json_threads(struct output *o, const struct thread_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		put_thread(o->fp, &l->v[i]);
	return output_status(o->fp);
}

/* No header and no footer: every line stands alone, even after a crash. */
const struct format format_json = {
	.name = "json",
	.sample = json_sample,
	.threads = json_threads,
};
