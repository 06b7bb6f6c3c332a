#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "incident.h"
#include "incident_queue.h"
#include "utc.h"

struct incident_queue {
	const char *dir;
	int segfd;             /* DIR/segments, the recorder's descriptor */
	int incfd;             /* DIR/incidents, the same */
	int64_t window_ms;
	volatile sig_atomic_t *stop; /* set: those waiting are not written;
	                                NULL: none */
	pthread_t thread;
	pthread_mutex_t lock;  /* guards all below */
	pthread_cond_t more;
	/* A ring of the incidents waiting, the first at head. */
	struct incident waiting[INCIDENT_QUEUE_WAITING];
	size_t head, n;
	bool finishing;        /* no more come: the thread ends once none wait */
};

/* Written as record.c wrote it on the sampling thread before. */
static void
write_one(const struct incident_queue *q, const struct incident *in)
{
	char path[4200], err[512];

	if (incident_write_at(q->dir, q->segfd, q->incfd, in, q->window_ms,
	    &(struct incident_notes){ diag_warn_cb, NULL }, path, sizeof(path),
	    err, sizeof(err)) != 0) {
		diag_say("--record: the incident of %s could not be written: "
		    "%s", incident_kind_name(in->kind), err);
		return;
	}
	diag_say("incident: %s; written to %s", in->what, path);
}

/*
 * After a stop, those waiting are dropped (q->lock held), with one note
 * naming them: at seconds an incident, writing eight would outlast the
 * time a service manager gives a stop.
 */
static void
drop_waiting(struct incident_queue *q)
{
	char msg[1024], at[64];
	size_t len;

	len = (size_t)snprintf(msg, sizeof(msg), "--record: stopping; %zu "
	    "incident%s not written (%s in the record):", q->n,
	    q->n == 1 ? "" : "s", q->n == 1 ? "its line is" : "their lines "
	    "are");
	for (; q->n > 0; q->n--, q->head = (q->head + 1) %
	    INCIDENT_QUEUE_WAITING) {
		const struct incident *in = &q->waiting[q->head];

		utc_format(at, sizeof(at), in->at_ms, UTC_STAMP);
		if (len < sizeof(msg))
			len += (size_t)snprintf(msg + len, sizeof(msg) - len,
			    " %s at %s%s", incident_kind_name(in->kind), at,
			    q->n > 1 ? "," : "");
	}
	pthread_mutex_unlock(&q->lock);
	diag_say("%s", msg);
	pthread_mutex_lock(&q->lock);
}

static void *
writer_main(void *arg)
{
	struct incident_queue *q = arg;
	/* Large (the evidence's paths and lines): not on the stack twice. */
	struct incident *in = malloc(sizeof(*in));

	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->n == 0 && !q->finishing)
			pthread_cond_wait(&q->more, &q->lock);
		/*
		 * After a stop none waiting is begun, nor any come while the
		 * note was said.
		 */
		if (q->n > 0 && q->stop != NULL && *q->stop) {
			drop_waiting(q);
			continue;
		}
		if (q->n == 0)
			break;
		if (in != NULL)
			*in = q->waiting[q->head];
		q->head = (q->head + 1) % INCIDENT_QUEUE_WAITING;
		q->n--;
		pthread_mutex_unlock(&q->lock);
		if (in != NULL)
			write_one(q, in);
		else
			diag_say("--record: out of memory; an incident was "
			    "not written");
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	free(in);
	return NULL;
}

struct incident_queue *
incident_queue_start(const char *dir, int segfd, int incfd,
    int64_t window_ms, volatile sig_atomic_t *stop)
{
	struct incident_queue *q = calloc(1, sizeof(*q));
	sigset_t all, old;
	int rc;

	if (q == NULL)
		return NULL; /* errno is ENOMEM */
	q->dir = dir;
	q->segfd = segfd;
	q->incfd = incfd;
	q->window_ms = window_ms;
	q->stop = stop;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	/* The signals stay the sampling thread's, whose waits they end. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&q->thread, NULL, writer_main, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_cond_destroy(&q->more);
		pthread_mutex_destroy(&q->lock);
		free(q);
		errno = rc;
		return NULL;
	}
	return q;
}

int
incident_queue_post(struct incident_queue *q, const struct incident *in)
{
	int rc = -1;

	pthread_mutex_lock(&q->lock);
	if (q->n < INCIDENT_QUEUE_WAITING) {
		q->waiting[(q->head + q->n) % INCIDENT_QUEUE_WAITING] = *in;
		q->n++;
		pthread_cond_signal(&q->more);
		rc = 0;
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

void
incident_queue_finish(struct incident_queue *q)
{
	if (q == NULL)
		return;
	pthread_mutex_lock(&q->lock);
	q->finishing = true;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->thread, NULL);
	pthread_cond_destroy(&q->more);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
