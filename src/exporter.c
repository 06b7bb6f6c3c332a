/*
 * The exporter: an HTTP server over the latest sample. The sampling
 * thread (the caller's) runs captures and, as their observer, copies each
 * sample under a mutex; libmicrohttpd's thread renders a scrape from that
 * copy (metrics.h). The server is bounded against slow and hostile
 * clients by libmicrohttpd's own limits, below, and its thread blocks
 * every signal, so SIGTERM wakes the sampling thread's waits.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "exitcode.h"
#include "exporter.h"
#include "metrics.h"
#include "pprof.h"
#include "reconnect.h"

/*
 * What a client may take. A scrape is one small request: 64 connections
 * at once, 32 KiB of memory each (request line and headers; more is
 * refused with 431), and 5 s without progress close one. Beyond the 64,
 * connections are refused at once: a flood may refuse a scrape, but it
 * cannot grow the process or reach the sampling thread.
 */
#define HTTP_CONNECTIONS 64
#define HTTP_MEMORY (32 * 1024)
#define HTTP_TIMEOUT_S 5
/* A sample older than twice --frequency and this is stale: up is 0. */
#define STALE_SLACK_MS 2000

/*
 * libmicrohttpd is loaded when --listen asks for it, not linked: with the
 * TLS libraries it brings (GnuTLS and nine more) it cost every start of
 * the program, --list and each short capture too, some 5 ms of loading
 * and relocations, a third of the time to start (bench/RESULTS.md). Its
 * calls go through these pointers, each of the type the header declares.
 */
#ifndef MHD_SONAME
#define MHD_SONAME "libmicrohttpd.so.12"
#endif
/* The calls of libmicrohttpd this file makes: one list for both below. */
#define MHD_CALLS(X) \
	X(start_daemon) X(stop_daemon) X(create_response_from_buffer) \
	X(add_response_header) X(lookup_connection_value) \
	X(queue_response) X(destroy_response)

#define MHD_FIELD(name) __typeof__(MHD_##name) *name;
static struct {
	MHD_CALLS(MHD_FIELD)
} mhd;
#undef MHD_FIELD

/* Fills mhd; 0, or -1 after saying what is missing. */
static int
load_mhd(void)
{
	void *lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (lib == NULL) {
		diag_say("--listen needs libmicrohttpd: %s; install it "
		    "(Debian: libmicrohttpd12)", dlerror());
		return -1;
	}
#define MHD_LOOKUP(name) \
	if ((*(void **)&mhd.name = dlsym(lib, "MHD_" #name)) == NULL) { \
		diag_say("--listen: %s has no MHD_" #name "; install " \
		    "libmicrohttpd 0.9.71 or later (Debian: libmicrohttpd12)", \
		    MHD_SONAME); \
		return -1; \
	}
	MHD_CALLS(MHD_LOOKUP)
#undef MHD_LOOKUP
	return 0;
}

struct exporter {
	const struct capture_env *env;
	struct clock clk;
	pthread_mutex_t lock; /* guards all below */
	bool capturing;       /* a capture runs: samples may come */
	uint64_t begun_ns;    /* when it began: an older sample is not its */
	char target[700];
	char grain[700];      /* the capture's grain; "" for a thread */
	char server_version[128];
	uint64_t interval_ms;
	int64_t limit_bytes;       /* connection_memory_limit of a thread; 0: none */
	struct sample latest; /* its events are the array below */
	bool have_sample;
	uint64_t latest_ns;   /* when it came, on the monotonic clock */
	/* When the last sample that read its events came (not events_kept). */
	bool have_rows;
	uint64_t rows_ns;
	struct event_stat *events;
	size_t events_cap;
	uint64_t samples, skipped, lost; /* over every capture */
	uint64_t skipped_before, lost_before; /* of the captures ended */
	enum sampler_end end; /* how the last capture ended */
	/* --global: the server's top threads, copied from top's readings. */
	struct thread_total *threads;
	size_t n_threads;
	/* The sampling thread's alone: the capture's chain reads into top. */
	struct top_threads top;
	uint64_t threads_seen; /* top.reads when last copied */
	/*
	 * --global: the gap in layers, copied from gap's readings (once a
	 * minute); the chain reads into gap on the sampling thread.
	 */
	struct explain layers;
	bool have_layers;
	struct gap gap;
	uint64_t gap_seen;     /* gap.reads when last copied */
	char index[1024];     /* the page of "/", read-only once serving */
};

/* --- The observer: on the sampling thread. --- */

static void
observe_begin(void *ctx, const struct capture_target *t)
{
	struct exporter *x = ctx;

	pthread_mutex_lock(&x->lock);
	snprintf(x->grain, sizeof(x->grain), "%s", t->grain != NULL ?
	    t->grain : "");
	if (t->grain != NULL)
		snprintf(x->target, sizeof(x->target), "%s", t->grain);
	else
		snprintf(x->target, sizeof(x->target), "thread:%" PRIu64,
		    t->thread_id);
	snprintf(x->server_version, sizeof(x->server_version), "%s",
	    t->server_version != NULL ? t->server_version : "");
	x->interval_ms = t->interval_ms;
	x->limit_bytes = t->limit_bytes;
	x->capturing = true;
	x->begun_ns = x->clk.now_ns(x->clk.ctx);
	pthread_mutex_unlock(&x->lock);
}

/* A new reading of the top threads (top_threads.h): the copy takes it. */
static void
copy_threads(struct exporter *x)
{
	const struct top_threads *t = &x->top;

	if (t->reads == x->threads_seen)
		return;
	x->threads_seen = t->reads;
	pthread_mutex_lock(&x->lock);
	memcpy(x->threads, t->v, t->n * sizeof(*x->threads));
	x->n_threads = t->n;
	pthread_mutex_unlock(&x->lock);
}

/* A new reading of the gap (gap.h): the copy takes its answer. */
static void
copy_layers(struct exporter *x)
{
	if (x->gap.reads == x->gap_seen)
		return;
	x->gap_seen = x->gap.reads;
	pthread_mutex_lock(&x->lock);
	x->layers = x->gap.e;
	x->have_layers = true;
	pthread_mutex_unlock(&x->lock);
}

static int
observe_sample(void *ctx, const struct sample *s,
    const struct sampler_stats *so_far)
{
	struct exporter *x = ctx;
	uint64_t now = x->clk.now_ns(x->clk.ctx);
	int rc = 0;

	pthread_mutex_lock(&x->lock);
	if (s->n_events > x->events_cap) {
		struct event_stat *e = realloc(x->events, s->n_events *
		    sizeof(*e));
		if (e != NULL) {
			x->events = e;
			x->events_cap = s->n_events;
		}
	}
	if (s->n_events <= x->events_cap) {
		x->latest = *s;
		x->latest.events = x->events;
		/* The ring's, not copied: no page shows them. */
		x->latest.finished = NULL;
		x->latest.n_finished = 0;
		if (s->n_events > 0)
			memcpy(x->events, s->events, s->n_events *
			    sizeof(*x->events));
		x->have_sample = true;
		x->latest_ns = now;
		if (!s->events_kept) {
			x->have_rows = true;
			x->rows_ns = now;
		}
		x->samples++;
		x->skipped = x->skipped_before + so_far->skipped;
		x->lost = x->lost_before + so_far->lost;
	} else {
		rc = -1; /* out of memory: the capture ends, and is retried */
	}
	pthread_mutex_unlock(&x->lock);
	if (rc == 0) {
		copy_threads(x);
		copy_layers(x);
	} else
		diag_say("out of memory for the exporter's copy of a sample; "
		    "the capture starts again");
	return rc;
}

static void
observe_end(void *ctx, const struct summary *sum,
    const struct sampler_stats *stats, const char *why)
{
	struct exporter *x = ctx;

	(void)sum, (void)why;
	pthread_mutex_lock(&x->lock);
	x->skipped_before += stats->skipped;
	x->lost_before += stats->lost;
	x->end = stats->end;
	pthread_mutex_unlock(&x->lock);
}

/* --- The endpoints: on libmicrohttpd's thread; none queries the server. --- */

static struct MHD_Response *
text_response(const char *text, const char *type)
{
	struct MHD_Response *r = mhd.create_response_from_buffer(strlen(text),
	    (void *)text, MHD_RESPMEM_PERSISTENT);

	if (r != NULL)
		mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return r;
}

/* The page of the latest sample, rendered under the lock from the copy. */
static struct MHD_Response *
serve_metrics(struct exporter *x, struct MHD_Connection *c, unsigned *status)
{
	enum metrics_format f = metrics_format_for(mhd.lookup_connection_value(
	    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	uint64_t now, age_ms = 0, rows_ms = 0;
	struct MHD_Response *r;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int rc;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return NULL;
	pthread_mutex_lock(&x->lock);
	/* Read under the lock: a sample that came just before is not newer. */
	now = x->clk.now_ns(x->clk.ctx);
	if (x->have_sample && now > x->latest_ns)
		age_ms = (now - x->latest_ns) / 1000000u;
	if (x->have_rows && now > x->rows_ns)
		rows_ms = (now - x->rows_ns) / 1000000u;
	rc = metrics_render(fp, &(struct metrics_view){
		/* Up once this capture has sampled: the last sample before an
		 * outage may still look fresh when the next capture begins. */
		.up = x->capturing && x->have_sample &&
		    x->latest_ns >= x->begun_ns &&
		    age_ms <= 2 * x->interval_ms + STALE_SLACK_MS,
		.sample = x->have_sample ? &x->latest : NULL,
		.sample_age_ms = age_ms,
		.has_events_age = x->have_rows,
		.events_age_ms = rows_ms,
		.target = x->target,
		.server_version = x->server_version[0] != '\0' ?
		    x->server_version : NULL,
		.samples = x->samples, .skipped = x->skipped, .lost = x->lost,
		.threads = x->threads, .n_threads = x->n_threads,
		.layers = x->have_layers ? &x->layers : NULL,
		.max_series = x->env->opts->max_series,
		.limit_bytes = x->limit_bytes,
	}, f);
	pthread_mutex_unlock(&x->lock);
	if (fclose(fp) != 0 || rc != 0) {
		free(buf);
		return NULL;
	}
	r = mhd.create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(buf);
		return NULL;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    metrics_content_type(f));
	mhd.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	*status = MHD_HTTP_OK;
	return r;
}

/*
 * The latest sample as a gzipped pprof profile (pprof.h), for
 * `go tool pprof http://HOST:PORT/pprof/memory` or a continuous profiler;
 * it covers one --frequency. 503 until the first sample.
 */
static struct MHD_Response *
serve_pprof(struct exporter *x, struct MHD_Connection *c, unsigned *status)
{
	struct MHD_Response *r;
	struct pprof_labels l;
	struct pprof_meta m;
	unsigned char *buf = NULL;
	size_t len = 0;
	int rc;

	(void)c;
	pthread_mutex_lock(&x->lock);
	if (!x->have_sample) {
		pthread_mutex_unlock(&x->lock);
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
		return text_response("no sample yet\n",
		    "text/plain; charset=utf-8");
	}
	pprof_meta_of(&x->latest, x->grain[0] != '\0' ? x->grain : NULL, &l,
	    &m);
	m.duration_ns = (int64_t)x->interval_ms * 1000000;
	rc = pprof_encode(&x->latest, &m, &buf, &len);
	pthread_mutex_unlock(&x->lock);
	if (rc != 0)
		return NULL;
	r = mhd.create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(buf);
		return NULL;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
	    "application/octet-stream");
	mhd.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	*status = MHD_HTTP_OK;
	return r;
}

static struct MHD_Response *serve_index(struct exporter *x,
    struct MHD_Connection *c, unsigned *status);

/* The paths served, one row each. */
static const struct endpoint {
	const char *path;
	const char *what; /* for the index */
	struct MHD_Response *(*serve)(struct exporter *x,
	    struct MHD_Connection *c, unsigned *status);
} endpoints[] = {
	{ "/metrics", "the latest sample, Prometheus text or OpenMetrics",
	    serve_metrics },
	{ "/pprof/memory", "the latest sample as a pprof profile (gzipped)",
	    serve_pprof },
	/*
	 * Where pprof scrapers ask for memory: Go's heap profile path, and
	 * allocs, the memory path of Parca's and Pyroscope's defaults.
	 */
	{ "/debug/pprof/heap", "the same, at Go's heap profile path",
	    serve_pprof },
	{ "/debug/pprof/allocs", "the same, where Parca and Pyroscope ask",
	    serve_pprof },
	{ "/", "this list", serve_index },
};
#define N_ENDPOINTS (sizeof(endpoints) / sizeof(endpoints[0]))

static struct MHD_Response *
serve_index(struct exporter *x, struct MHD_Connection *c, unsigned *status)
{
	(void)c;
	*status = MHD_HTTP_OK;
	return text_response(x->index, "text/plain; charset=utf-8");
}

/* The page of "/", made once before the server starts. */
static void
make_index(struct exporter *x)
{
	size_t n = (size_t)snprintf(x->index, sizeof(x->index),
	    "mysqlmemprof %s exporter\n\n", MYSQLMEMPROF_VERSION);

	for (size_t i = 0; i < N_ENDPOINTS && n < sizeof(x->index); i++)
		n += (size_t)snprintf(x->index + n, sizeof(x->index) - n,
		    "%-20s %s\n", endpoints[i].path, endpoints[i].what);
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **con_cls)
{
	struct exporter *x = cls;
	struct MHD_Response *r = NULL;
	unsigned status = MHD_HTTP_NOT_FOUND;
	enum MHD_Result ret;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		r = text_response("only GET and HEAD\n",
		    "text/plain; charset=utf-8");
		if (r != NULL)
			mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW,
			    "GET, HEAD");
	} else {
		size_t i;

		for (i = 0; i < N_ENDPOINTS; i++)
			if (strcmp(url, endpoints[i].path) == 0)
				break;
		if (i < N_ENDPOINTS)
			r = endpoints[i].serve(x, c, &status);
		else
			r = text_response("not found; see /\n",
			    "text/plain; charset=utf-8");
	}
	if (r == NULL)
		return MHD_NO; /* out of memory: the connection is closed */
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

/* --- Listening, and the captures. --- */

/*
 * The listening socket, made here rather than by libmicrohttpd so that a
 * busy port or a bad address is said in one line. Returns the socket, or
 * -1 with *rc the exit status having said why.
 */
static int
listen_on(const struct options *o, int *rc)
{
	const char *addr = o->listen_addr != NULL ? o->listen_addr :
	    "127.0.0.1";
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
	    .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE |
	    AI_NUMERICSERV };
	struct addrinfo *ai;
	char port[16];
	int fd, one = 1, e;

	snprintf(port, sizeof(port), "%u", o->listen_port);
	if ((e = getaddrinfo(addr, port, &hints, &ai)) != 0) {
		diag_say("--listen %s:%s: %s; give an address of this host, "
		    "e.g. 127.0.0.1 or 0.0.0.0", addr, port, gai_strerror(e));
		*rc = EXIT_USAGE;
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* SO_REUSEADDR: a restart need not wait out TIME_WAIT; a listener
	 * on the port still makes bind() fail. */
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) != 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 ||
	    listen(fd, HTTP_CONNECTIONS) != 0) {
		e = errno;
		diag_say("cannot listen on %s port %s: %s; %s", addr, port,
		    strerror(e), e == EADDRINUSE ? "another program uses it: "
		    "stop it, or give --listen another port" : e == EACCES ?
		    "ports below 1024 need privileges: give --listen a port "
		    "above 1023" : "give --listen an address of this host");
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		*rc = EXIT_RUNTIME;
		return -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/*
 * The HTTP server on its own thread, which blocks every signal so that
 * SIGINT, SIGTERM and SIGALRM reach the sampling thread and end its waits.
 */
static struct MHD_Daemon *
start_http(struct exporter *x, int fd)
{
	sigset_t all, old;
	struct MHD_Daemon *d;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	d = mhd.start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL,
	    answer, x,
	    MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_CONNECTIONS,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_S,
	    MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

/* Says a failure once, not again while it repeats. */
static void
say_once(char *last, size_t size, const char *msg)
{
	if (strcmp(last, msg) == 0)
		return;
	snprintf(last, size, "%s", msg);
	diag_say("%s; serving mysqlmemprof_up 0, trying again every %llu s at "
	    "most", msg, RECONNECT_MAX_NS / 1000000000ull);
}

/*
 * Connects and captures until a stop, again after each capture the
 * server's going cut short, waiting as every reconnect does
 * (reconnect_backoff()). Returns the exit status.
 */
static int
serve(struct exporter *x)
{
	const struct capture_env *env = x->env;
	struct capture_observer w = { .ctx = x, .begin = observe_begin,
	    .sample = observe_sample, .end = observe_end };
	struct capture_env cenv = *env;
	uint64_t retry = reconnect_backoff(0);
	char err[1024], last[1024] = "";
	int rc = EXIT_DONE;

	cenv.observer = &w;
	if (x->top.max > 0)
		cenv.top_threads = &x->top;
	cenv.gap = &x->gap; /* read only by a --global capture */
	while (!env->sig->stop) {
		uint64_t before = x->samples;

		if (session_open(env->session, err, sizeof(err)) != 0) {
			if (env->sig->stop)
				break;
			/* Another server than the first (conn_types.h). */
			if (env->session->opened == CONN_UNTRUSTED) {
				diag_say("%s", err);
				return EXIT_RUNTIME;
			}
			say_once(last, sizeof(last), err);
		} else {
			x->end = SAMPLER_END_SOURCE_ERROR;
			rc = capture_run(&cenv, NULL, 0, NULL);
			pthread_mutex_lock(&x->lock);
			x->capturing = false;
			x->n_threads = 0;
			x->have_layers = false;
			pthread_mutex_unlock(&x->lock);
			session_close(env->session);
			/* Its reconnect found another server, and said so. */
			if (env->session->opened == CONN_UNTRUSTED)
				return EXIT_RUNTIME;
			if (env->sig->stop || rc == EXIT_USAGE ||
			    x->end == SAMPLER_END_COUNT ||
			    x->end == SAMPLER_END_DURATION)
				break;
			/* It ran: the next failure is a new outage. */
			if (x->samples > before) {
				retry = reconnect_backoff(0);
				last[0] = '\0';
			}
			say_once(last, sizeof(last), x->end == SAMPLER_END_GONE ?
			    "the target is gone" : "the capture ended");
		}
		if (clock_pause(&x->clk, retry, &x->env->sig->stop))
			break;
		retry = reconnect_backoff(retry);
	}
	return env->sig->stop ? EXIT_DONE : rc;
}

int
exporter_run(const struct capture_env *env)
{
	const struct options *o = env->opts;
	struct exporter x = { .env = env, .clk = clock_system() };
	struct MHD_Daemon *d;
	int fd, rc;

	if (load_mhd() != 0)
		return EXIT_RUNTIME;
	if ((fd = listen_on(o, &rc)) < 0)
		return rc;
	/* Only --global has threads of its own to show. */
	if (o->target == TARGET_GLOBAL) {
		x.top.max = o->top > 0 ? o->top : 10;
		x.threads = calloc(x.top.max, sizeof(*x.threads));
		x.top.v = calloc(x.top.max, sizeof(*x.top.v));
		if (x.threads == NULL || x.top.v == NULL) {
			diag_say("out of memory");
			rc = EXIT_RUNTIME;
			goto out;
		}
	}
	pthread_mutex_init(&x.lock, NULL);
	make_index(&x);
	if ((d = start_http(&x, fd)) == NULL) {
		diag_say("cannot start the HTTP server on --listen port %u",
		    o->listen_port);
		pthread_mutex_destroy(&x.lock);
		rc = EXIT_RUNTIME;
		goto out;
	}
	diag_note(env->diag, "serving http://%s%s%s:%u/metrics",
	    o->listen_addr != NULL && strchr(o->listen_addr, ':') ? "[" : "",
	    o->listen_addr != NULL ? o->listen_addr : "127.0.0.1",
	    o->listen_addr != NULL && strchr(o->listen_addr, ':') ? "]" : "",
	    o->listen_port);
	rc = serve(&x);
	mhd.stop_daemon(d);
	pthread_mutex_destroy(&x.lock);
out:
	close(fd);
	free(x.events);
	free(x.threads);
	free(x.top.v);
	return rc;
}
