/*
 * CSV as RFC 4180 has it: CRLF line ends, text fields quoted by libcsv,
 * integers bare so spreadsheets read them as numbers. Names are written
 * byte for byte, as the server gave them.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <csv.h>

#include "output.h"
#include "output_format.h"
#include "units.h"

#define CRLF "\r\n"

/* A text field; NULL, for a value the server did not give, is an empty one. */
static void
put_text(FILE *fp, const char *s)
{
	if (s != NULL)
		csv_fwrite(fp, s, strlen(s));
}

/* The statement's columns; what is not known is empty, not "". */
static void
put_statement(FILE *fp, const struct statement *st)
{
	putc(',', fp);
	if (st->has_id)
		fprintf(fp, "%" PRIu64, st->id);
	putc(',', fp);
	put_text(fp, st->digest[0] != '\0' ? st->digest : NULL);
	putc(',', fp);
	put_text(fp, st->text[0] != '\0' ? st->text : NULL);
}

static int
csv_begin(struct output *o)
{
	fputs("sample,elapsed_ms,timestamp,thread_id,event_name,current_bytes,"
	    "current_count,high_bytes,alloc_bytes,free_bytes,alloc_count,"
	    "free_count,total_bytes,late_us,query_us,gap_ms,"
	    "alloc_delta_bytes,free_delta_bytes,alloc_delta_count,"
	    "free_delta_count,unseen_peak_bytes,statement_id,digest,statement,"
	    "grain,filtered_total_bytes" CRLF, o->fp);
	return output_status(o->fp);
}

/* One row; e is NULL for a sample that kept no event. */
static void
put_row(const struct output *o, const struct sample *s, const char *ts,
    const struct event_stat *e)
{
	FILE *fp = o->fp;

	fprintf(fp, "%" PRIu64 ",%" PRIu64 ",", s->seq, s->elapsed_us / 1000);
	put_text(fp, ts);
	/* A grain other than a thread has no thread id: the grain names it. */
	if (o->grain == NULL)
		fprintf(fp, ",%" PRIu64 ",", s->thread_id);
	else
		fputs(",,", fp);
	if (e != NULL) {
		put_text(fp, e->name);
		fprintf(fp, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRIu64
		    ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		    e->current_bytes, e->current_count, e->high_bytes,
		    e->alloc_bytes, e->free_bytes, e->alloc_count,
		    e->free_count);
	} else
		fputs(",,,,,,,", fp);	/* the 8 event columns, empty */
	fprintf(fp, ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
	    s->total_bytes, s->late_us, s->query_us, s->gap_ms);
	/* The first sample has nothing to compare with: empty, not 0. */
	if (e != NULL && s->has_deltas)
		fprintf(fp, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		    e->delta.alloc_bytes, e->delta.free_bytes,
		    e->delta.alloc_count, e->delta.free_count);
	else
		fputs(",,,,", fp);
	putc(',', fp);
	if (e != NULL && s->has_deltas && e->delta.unseen_peak)
		fprintf(fp, "%" PRId64, e->high_bytes);
	put_statement(fp, &s->statement);
	putc(',', fp);
	put_text(fp, o->grain);
	putc(',', fp);
	if (o->filtered)
		fprintf(fp, "%" PRId64, s->filtered_total_bytes);
	fputs(CRLF, fp);
}

static int
csv_sample(struct output *o, const struct sample *s)
{
	char ts[64];

	units_timestamp(s->wall_ms, ts, sizeof(ts));
	/* A sample without events still gets its row, so none is lost. */
	if (s->n_events == 0)
		put_row(o, s, ts, NULL);
	for (size_t i = 0; i < s->n_events; i++)
		put_row(o, s, ts, &s->events[i]);
	return output_status(o->fp);
}

static void
put_thread(FILE *fp, const struct thread_info *t)
{
	fprintf(fp, "%" PRIu64 ",", t->thread_id);
	if (t->has_connection)
		fprintf(fp, "%" PRIu64, t->connection_id);
	putc(',', fp);
	put_text(fp, t->type);
	putc(',', fp);
	put_text(fp, t->name);
	putc(',', fp);
	put_text(fp, t->user);
	putc(',', fp);
	put_text(fp, t->host);
	putc(',', fp);
	put_text(fp, t->command);
	putc(',', fp);
	if (t->has_time)
		fprintf(fp, "%" PRId64, t->time_s);
	putc(',', fp);
	put_text(fp, t->state);
	fprintf(fp, ",%" PRId64 ",", t->current_bytes);
	put_text(fp, t->statement);
	fputs(CRLF, fp);
}

static int
csv_threads(struct output *o, const struct thread_list *l)
{
	fputs("thread_id,connection_id,type,name,user,host,command,time,state,"
	    "current_bytes,statement" CRLF, o->fp);
	for (size_t i = 0; i < l->n; i++)
		put_thread(o->fp, &l->v[i]);
	return output_status(o->fp);
}

/* CSV has no footer: the summary is for people, who read the text format. */
const struct format format_csv = {
	.name = "csv",
	.begin = csv_begin,
	.sample = csv_sample,
	.threads = csv_threads,
};
