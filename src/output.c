/*
 * The calls the program makes through a format's callbacks. Each call
 * flushes: a reader of a pipe sees every sample when it is taken, and a
 * full disk shows up at the first sample, not at exit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

int
output_status(FILE *fp)
{
	if (!ferror(fp))
		return 0;
	/* The failed write set errno; this is for a library that did not. */
	if (errno == 0)
		errno = EIO;
	return -1;
}

/*
 * The format's state is made at its first call, whatever that is: a
 * struct output set up by a designated initializer works as one from
 * outfile.c does. Returns 0, or -1 with errno set.
 */
static int
ready(struct output *o)
{
	if (o->state != NULL || o->fmt->init == NULL)
		return 0;
	if ((o->state = o->fmt->init(&o->settings)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * Each callback runs with the lock of o->fp held, taken once here, so the
 * formats that write to fp may write a sample's many small fields with the
 * _unlocked stdio calls. Those that write to o->buf have their bytes sent
 * here in one write, whole or (out of memory) not at all. Then it flushes.
 */
static int
start(struct output *o)
{
	if (ready(o) != 0)
		return -1;
	flockfile(o->fp);
	return 0;
}

static int
finish(struct output *o, int rc)
{
	if (rc == 0)
		rc = obuf_status(&o->buf);
	if (rc == 0 && o->buf.len > 0 &&
	    fwrite_unlocked(o->buf.p, 1, o->buf.len, o->fp) != o->buf.len)
		rc = -1;
	obuf_clear(&o->buf);
	funlockfile(o->fp);
	if (rc == -1 || fflush(o->fp) == EOF)
		return -1;
	return output_status(o->fp);
}

int
output_begin(struct output *o)
{
	if (o->fp == NULL)
		return 0; /* --profile-at each, between samples */
	if (start(o) != 0)
		return -1;
	return finish(o, o->fmt->begin ? o->fmt->begin(o) : 0);
}

int
output_sample(struct output *o, const struct sample *s)
{
	int rc;

	if (o->next_file != NULL && o->next_file(o->next_file_ctx, s) != 0)
		return -1;
	if (start(o) != 0)
		return -1;
	rc = o->fmt->sample ? o->fmt->sample(o, s) : 0;
	return finish(o, rc);
}

int
output_end(struct output *o, const struct summary *sum)
{
	if (o->fp == NULL)
		return 0; /* --profile-at each, between samples */
	if (start(o) != 0)
		return -1;
	return finish(o, o->fmt->end ? o->fmt->end(o, sum) : 0);
}

int
output_statements(struct output *o, const struct summary *sum)
{
	if (start(o) != 0)
		return -1;
	return finish(o, o->fmt->statements ? o->fmt->statements(o, sum) : 0);
}

int
output_dump(struct output *o, const struct output_dump *d)
{
	if (o->fp == NULL)
		return 0; /* --profile-at each, between samples */
	if (start(o) != 0)
		return -1;
	return finish(o, o->fmt->dump ? o->fmt->dump(o, d) : 0);
}

int
output_capture(struct output *o, const struct output_capture *c)
{
	if (o->fp == NULL)
		return 0; /* --profile-at each, between samples */
	if (start(o) != 0)
		return -1;
	return finish(o, o->fmt->capture ? o->fmt->capture(o, c) : 0);
}

int
output_threads(struct output *o, const struct thread_list *l)
{
	if (o->fp == NULL)
		return 0; /* --profile-at each, between samples */
	if (start(o) != 0)
		return -1;
	return finish(o, o->fmt->threads ? o->fmt->threads(o, l) : 0);
}

void
output_new_file(struct output *o)
{
	if (o->state != NULL && o->fmt->new_file != NULL)
		o->fmt->new_file(o->state);
}

void
output_release(struct output *o)
{
	if (o->state != NULL && o->fmt->free != NULL)
		o->fmt->free(o->state);
	o->state = NULL;
	obuf_free(&o->buf);
	obuf_free(&o->scratch);
}
