/*
 * The hunt's looks: performance_schema.threads every --poll on absolute
 * deadlines until a statement matches (follow.c then follows it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "look.h"
#include "scrub.h"

/* How many other matches a note names, and how much of their text. */
#define NAMED_MAX 5
#define NAMED_TEXT 40

static void
tell(struct look *w, const char *msg)
{
	if (w->notify != NULL)
		w->notify(w->notify_ctx, msg);
}

/* Appends "connection N (SIZE): TEXT" for m to buf. */
static void
name_match(char *buf, size_t size, const struct stmt_match *m)
{
	size_t len = strlen(buf);
	char bytes[32], text[NAMED_TEXT + 1];
	const char *more = scrub_oneline(m->text, text, sizeof(text)) ?
	    "..." : "";

	units_bytes(m->ended ? m->peak_bytes : m->current_bytes, bytes,
	    sizeof(bytes));
	if (len < size && m->ended)
		snprintf(buf + len, size - len, "connection %" PRIu64 " (peak "
		    "%s, ended): %s%s", m->connection_id, bytes, text, more);
	else if (len < size && m->idle)
		snprintf(buf + len, size - len, "connection %" PRIu64 " (%s): "
		    "idle", m->connection_id, bytes);
	else if (len < size)
		snprintf(buf + len, size - len, "connection %" PRIu64 " (%s): "
		    "%s%s", m->connection_id, bytes, text, more);
}

/* Names the matches other than the chosen one, so none goes unnoticed. */
static void
tell_others(struct look *w, const struct match_list *l, ptrdiff_t chosen)
{
	char msg[1536], bytes[32];
	size_t named = 0, others = 0;
	bool idle = l->v[chosen].idle;

	for (size_t i = 0; i < l->n; i++)
		if ((ptrdiff_t)i != chosen && !match_seen_has(&w->seen,
		    &l->v[i])) {
			others++;
			idle |= l->v[i].idle;
		}
	if (others == 0)
		return;
	units_bytes(l->v[chosen].current_bytes, bytes, sizeof(bytes));
	snprintf(msg, sizeof(msg), "%zu %s match; taking connection "
	    "%" PRIu64 ", the largest (%s); the others, for later: ", others + 1,
	    idle ? "connections" : "statements", l->v[chosen].connection_id,
	    bytes);
	for (size_t i = 0; i < l->n && named < NAMED_MAX; i++) {
		if ((ptrdiff_t)i == chosen || match_seen_has(&w->seen, &l->v[i]))
			continue;
		if (named++ > 0)
			strncat(msg, "; ", sizeof(msg) - strlen(msg) - 1);
		name_match(msg, sizeof(msg), &l->v[i]);
	}
	if (others > named) {
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len, "; and %zu more",
		    others - named);
	}
	tell(w, msg);
}

/* What a look hands the history, for each thread read. */
struct keep_ctx {
	struct history *h;
	const struct match_list *l;
	uint64_t mono_ns;
	int64_t wall_ms;
	struct history_reading r; /* filled for each thread in turn */
};

static int
keep_reading(void *ctx, uint64_t thread_id, const struct statement *st,
    struct event_stat *events, size_t n)
{
	struct keep_ctx *k = ctx;

	for (size_t i = 0; i < k->l->n; i++) {
		if (k->l->v[i].thread_id != thread_id)
			continue;
		k->r.stmt = k->l->v[i];
		k->r.statement = *st;
		k->r.mono_ns = k->mono_ns;
		k->r.wall_ms = k->wall_ms;
		k->r.events = events;
		k->r.n = n;
		return history_add(k->h, &k->r);
	}
	return 0;
}

/*
 * Reads the memory of the HISTORY_THREADS largest candidates of l into the
 * history; the others are forgotten. (A statement captured already may
 * hold a place: l has no counts of ended statements to tell it by.)
 */
static enum pfs_status
keep_history(struct look *w, const struct match_list *l, char *err,
    size_t errlen)
{
	struct session *s = w->session;
	const struct clock *clk = w->clk;
	uint64_t ids[HISTORY_THREADS];
	size_t n = 0;
	struct keep_ctx k;
	enum pfs_status ps;

	/* The largest first: a plain selection, the lists are short. */
	for (size_t pick = 0; pick < HISTORY_THREADS; pick++) {
		ptrdiff_t best = -1;

		for (size_t i = 0; i < l->n; i++) {
			bool taken = false;

			for (size_t j = 0; j < n; j++)
				taken |= ids[j] == l->v[i].thread_id;
			if (taken)
				continue;
			if (best < 0 || l->v[i].current_bytes >
			    l->v[best].current_bytes)
				best = (ptrdiff_t)i;
		}
		if (best < 0)
			break;
		ids[n++] = l->v[best].thread_id;
	}
	history_begin_look(w->history);
	k = (struct keep_ctx){ .h = w->history, .l = l,
	    .mono_ns = clk->now_ns(clk->ctx), .wall_ms = clk->wall_ms(clk->ctx) };
	ps = n == 0 ? PFS_OK : s->ops->threads_memory(s->conn, ids, n,
	    s->statements != STATEMENTS_OFF, keep_reading, &k, err, errlen);
	history_end_look(w->history);
	return ps;
}

/*
 * Fills in m->completed, which a look for the history leaves 0, from one
 * look at its thread: PFS_NOT_FOUND when it no longer runs that statement
 * (for an idle match: when it runs one, or ran one since).
 */
static enum pfs_status
completed(struct look *w, struct stmt_match *m, char *err, size_t errlen)
{
	struct session *s = w->session;
	struct stmt_match now;
	uint64_t count;
	bool running;
	enum pfs_status ps;

	ps = s->ops->thread_statement(s->conn, m->thread_id, &running, &now,
	    err, errlen);
	if (ps != PFS_OK)
		return ps;
	count = now.completed;
	now.completed = m->completed;
	if (running == m->idle || !match_same(m, &now))
		return PFS_NOT_FOUND;
	m->completed = count;
	return PFS_OK;
}

/* The session's peak at the last look: -1 when it was not listed. */
static int64_t
peak_before(const struct look *w, uint64_t thread_id)
{
	size_t lo = 0, hi = w->n_peaks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->peaks[mid].thread_id == thread_id)
			return w->peaks[mid].peak_bytes;
		if (w->peaks[mid].thread_id < thread_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int
by_thread(const void *a, const void *b)
{
	const struct look_peak *x = a, *y = b;

	return x->thread_id < y->thread_id ? -1 : x->thread_id > y->thread_id;
}

/*
 * Whether m, running now under min_bytes, held min_bytes or more since
 * the last look: its session's peak is past it and rose since. A session
 * the last look did not list was under it then, as every session whose
 * peak reached it is listed.
 */
static bool
crossed_between(const struct look *w, const struct stmt_match *m)
{
	int64_t size = w->filter.min_bytes;

	return size > 0 && w->peaks_valid && m->current_bytes < size &&
	    m->peak_bytes >= size && peak_before(w, m->thread_id) <
	    m->peak_bytes;
}

/*
 * Keeps the peaks of l, every row, for the next look, and takes the rows
 * listed only for their peak out of l. Returns -1 when out of memory.
 */
static int
keep_peaks(struct look *w, struct match_list *l)
{
	size_t kept = 0, n = 0;

	if (l->n > w->cap_peaks) {
		struct look_peak *p = realloc(w->peaks, l->n * sizeof(*p));

		if (p == NULL)
			return -1;
		w->peaks = p;
		w->cap_peaks = l->n;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].peak_bytes > 0)
			w->peaks[n++] = (struct look_peak){ l->v[i].thread_id,
			    l->v[i].peak_bytes };
		if (!l->v[i].peak_only)
			l->v[kept++] = l->v[i];
	}
	l->n = kept;
	/* A look of nothing has no array yet: qsort() must not be given NULL. */
	if (n > 1)
		qsort(w->peaks, n, sizeof(*w->peaks), by_thread);
	w->n_peaks = n;
	return 0;
}

/* Says once why a statement past the size between two looks goes unseen. */
static void
note_no_peaks(struct look *w, const struct match_list *l)
{
	bool hidden = false;

	if (w->peaks_noted || w->filter.min_bytes <= 0)
		return;
	for (size_t i = 0; i < l->n; i++)
		hidden |= l->v[i].peak_bytes <= 0;
	if (l->peaks && !hidden)
		return;
	w->peaks_noted = true;
	tell(w, l->peaks ? "the session peaks of other accounts are hidden "
	    "without the PROCESS privilege (information_schema.PROCESSLIST): "
	    "a statement past the size only between two looks goes unseen; "
	    "GRANT PROCESS ON *.* to this account to see them" :
	    "this server keeps no session peak (MySQL before 8.0.31): a "
	    "statement past the size only between two looks goes unseen; a "
	    "shorter --poll sees more");
}

/* Whether a session's peak at this look reached the size. */
static bool
past_size(const struct look *w)
{
	for (size_t i = 0; i < w->n_peaks; i++)
		if (w->peaks[i].peak_bytes >= w->filter.min_bytes)
			return true;
	return false;
}

/* The newest ended statement of a session accounted for; 0: none. */
static uint64_t
end_before(const struct look *w, uint64_t thread_id)
{
	size_t lo = 0, hi = w->n_ends;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (w->ends[mid].thread_id == thread_id)
			return w->ends[mid].event_id;
		if (w->ends[mid].thread_id < thread_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int
by_thread_event(const void *a, const void *b)
{
	const struct stmt_match *x = a, *y = b;

	if (x->thread_id != y->thread_id)
		return x->thread_id < y->thread_id ? -1 : 1;
	return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/*
 * A statement of m's session that runs now was taken for the rise of the
 * session's peak; m, ended since the last look with a peak as high,
 * is what rose it: the running one is taken out of l.
 */
static void
drop_explained(struct match_list *l, const struct stmt_match *m)
{
	size_t kept = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!(l->v[i].thread_id == m->thread_id && !l->v[i].ended &&
		    l->v[i].between_looks && l->v[i].peak_bytes <=
		    m->peak_bytes))
			l->v[kept++] = l->v[i];
	l->n = kept;
}

/* Says once what goes unseen where the server keeps no statement's peak. */
static void
note_no_statement_peaks(struct look *w)
{
	w->ends_off = true;
	tell(w, "a session whose peak is past the size already cannot show "
	    "another crossing (its peak only rises), and this server keeps "
	    "no statement's own peak (MySQL 8.0.31 and later keep it): "
	    "another statement of such a session past the size is found "
	    "only if it holds the size at a look; a shorter --poll sees more");
}

/*
 * Adds to l, ended, the statements that ended past the size since the
 * last look on sessions whose peak was past it, and keeps what it saw.
 * Asked only when a session's peak is past the size (else none can be).
 */
static enum pfs_status
look_ended(struct look *w, struct match_list *l, char *err, size_t errlen)
{
	struct session *s = w->session;
	struct match_list e;
	struct look_end *ends = NULL;
	size_t n = 0;
	enum pfs_status ps;

	if (w->ends_off || s->ops->finished_over == NULL)
		return PFS_OK;
	if (!past_size(w)) {
		/* No session has any such statement: all are accounted for. */
		free(w->ends);
		w->ends = NULL;
		w->n_ends = 0;
		w->ends_known = true;
		w->learn_thread = 0;
		return PFS_OK;
	}
	ps = s->ops->finished_over(s->conn, &s->kind, &w->filter,
	    s->own_thread, &e, err, errlen);
	if (ps != PFS_OK) {
		w->ends_known = false;
		return ps;
	}
	if (!e.peaks) {
		note_no_statement_peaks(w);
		return PFS_OK;
	}
	if (e.n > 1)
		qsort(e.v, e.n, sizeof(*e.v), by_thread_event);
	if (e.n > 0 && (ends = malloc(e.n * sizeof(*ends))) == NULL)
		goto oom;
	for (size_t i = 0; i < e.n; i++) {
		const struct stmt_match *m = &e.v[i];
		bool learn = !w->ends_known || m->thread_id == w->learn_thread;
		uint64_t before = end_before(w, m->thread_id);

		if (n == 0 || ends[n - 1].thread_id != m->thread_id)
			ends[n++] = (struct look_end){ m->thread_id,
			    learn ? 0 : before };
		if (learn) {
			if (m->event_id > ends[n - 1].event_id)
				ends[n - 1].event_id = m->event_id;
			continue;
		}
		if (m->event_id <= before)
			continue;
		drop_explained(l, m);
		e.v[i].between_looks = true;
		if (match_list_add(l, m) != 0)
			goto oom;
	}
	free(w->ends);
	w->ends = ends;
	w->n_ends = n;
	w->ends_known = true;
	w->learn_thread = 0;
	match_list_free(&e);
	return PFS_OK;
oom:
	free(ends);
	match_list_free(&e);
	w->ends_known = false;
	snprintf(err, errlen, "out of memory keeping the ended statements");
	return PFS_ERROR;
}

/* m is taken: look_ended() gives the statements of its session after it. */
static void
taken(struct look *w, const struct stmt_match *m)
{
	if (!m->ended) {
		w->learn_thread = m->thread_id;
		return;
	}
	for (size_t i = 0; i < w->n_ends; i++)
		if (w->ends[i].thread_id == m->thread_id &&
		    w->ends[i].event_id < m->event_id)
			w->ends[i].event_id = m->event_id;
}

/*
 * One look. With a history or a size, the server is asked for every
 * candidate (no time nor size), and the thresholds are applied here; with
 * a size, each session's peak too, where the server keeps it.
 */
static enum pfs_status
look(struct look *w, struct match_list *l, char *err, size_t errlen)
{
	struct session *s = w->session;
	struct match_filter f = w->filter;
	bool keep = w->history != NULL && s->ops->threads_memory != NULL;
	bool compare_here = keep || f.min_bytes > 0;
	enum pfs_status ps;
	size_t kept = 0;

	if (compare_here) {
		f.peak_bytes = f.min_bytes;
		f.min_time_s = f.min_bytes = 0;
		f.no_completed = true;
	}
	ps = s->ops->find_statements(s->conn, &s->kind, &f, s->own_thread,
	    l, err, errlen);
	if (ps != PFS_OK || !compare_here) {
		w->peaks_valid = false;
		return ps;
	}
	note_no_peaks(w, l);
	/* Each candidate is judged against the peaks of the look before. */
	for (size_t i = 0; l->peaks && i < l->n; i++)
		l->v[i].between_looks = !l->v[i].peak_only &&
		    crossed_between(w, &l->v[i]);
	if (l->peaks && keep_peaks(w, l) != 0) {
		match_list_free(l);
		w->peaks_valid = false;
		snprintf(err, errlen, "out of memory keeping the peaks");
		return PFS_ERROR;
	}
	w->peaks_valid = l->peaks;
	if (keep && (ps = keep_history(w, l, err, errlen)) != PFS_OK) {
		match_list_free(l);
		return ps;
	}
	for (size_t i = 0; i < l->n; i++) {
		struct stmt_match *m = &l->v[i];

		if (m->time_s < w->filter.min_time_s ||
		    (m->current_bytes < w->filter.min_bytes &&
		    !m->between_looks))
			continue;
		/* Only a match is worth its count of ended statements. */
		if ((ps = completed(w, m, err, errlen)) == PFS_NOT_FOUND)
			continue;
		if (ps != PFS_OK) {
			match_list_free(l);
			return ps;
		}
		l->v[kept++] = *m;
	}
	l->n = kept;
	if (w->filter.min_bytes > 0 && w->peaks_valid &&
	    (ps = look_ended(w, l, err, errlen)) != PFS_OK) {
		match_list_free(l);
		return ps;
	}
	return PFS_OK;
}

enum look_status
look_find(struct look *w, struct stmt_match *m, char *err, size_t errlen)
{
	const struct clock *clk = w->clk;
	uint64_t t0 = clk->now_ns(clk->ctx);
	uint64_t k = 0;

	/* Peaks from before a capture or a reconnect say nothing of now. */
	w->peaks_valid = false;
	for (;;) {
		uint64_t due = t0 + k * w->poll_ns;
		struct match_list l;
		ptrdiff_t i;

		if (*w->stop)
			return LOOK_STOPPED;
		if (w->timeout_ns != 0 && due > t0 + w->timeout_ns)
			return LOOK_TIMEOUT;
		if (clk->sleep_until(clk->ctx, due) == EINTR)
			continue; /* a signal: look at *stop, then sleep again */
		enum pfs_status ps = look(w, &l, err, errlen);
		if (ps == PFS_LOST) {
			/* Maybe another run of the server: its ids start again. */
			w->ends_known = false;
			return LOOK_LOST;
		}
		if (ps != PFS_OK)
			return LOOK_ERROR;
		if ((i = match_choose(&l, &w->seen)) >= 0) {
			*m = l.v[i];
			taken(w, m);
			tell_others(w, &l, i);
			match_list_free(&l);
			return LOOK_FOUND;
		}
		match_list_free(&l);
		/* A look that took longer than --poll skips the missed ones. */
		uint64_t now = clk->now_ns(clk->ctx);
		k = now > due + w->poll_ns ? (now - t0) / w->poll_ns + 1 : k + 1;
	}
}

void
look_captured(struct look *w, const struct stmt_match *m)
{
	match_seen_add(&w->seen, m);
}

void
look_done(struct look *w)
{
	free(w->peaks);
	w->peaks = NULL;
	w->n_peaks = w->cap_peaks = 0;
	free(w->ends);
	w->ends = NULL;
	w->n_ends = 0;
}
