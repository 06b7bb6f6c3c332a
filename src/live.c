/*
 * The live view: an observer of what the mode runs, never a mode. Two
 * threads:
 *
 * - the calling thread runs the mode, as without --live: a capture, the
 *   wait for statements, or the top of top.c. The observer below copies
 *   each sample into the model under the mutex and returns; it never
 *   draws. The top hands over its lists of threads the same way.
 * - the UI thread owns the terminal from initscr() to endwin(): it reads
 *   the keys, draws the model into a grid (under the mutex, which is
 *   quick) and copies the grid to the screen (outside it).
 *
 * Signals go to the sampling thread only (the UI thread blocks them), so
 * its waits end at once as they do without --live. The keys that end the
 * run send SIGINT to the process: q is Ctrl-C, and the run ends the way a
 * count would, its output whole. Whatever the program says on stderr
 * while the screen is up goes to a temporary file, shown in the status
 * line, and is copied to stderr once the terminal is restored.
 */
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>

#include "diag.h"
#include "exitcode.h"
#include "live.h"
#include "live_draw.h"
#include "live_model.h"
#include "output_table.h"
#include "threads.h"

/* How often the UI thread looks at the keys, the flags and the model. */
#define UI_TICK_MS 50
#define DEFAULT_ROWS 5

struct live {
	const struct capture_env *env; /* the mode's, borrowed */
	struct signal_flags *sig;     /* the program's */
	struct capture_observer observer; /* the one below, on this view */
	/*
	 * The gap in layers, read by a --global capture's chain every
	 * --layers-every; the observer copies each new answer into the model.
	 */
	struct gap gap;
	uint64_t gap_seen;
	pthread_mutex_t mu;           /* guards all below but the UI's own */
	struct live_model model;
	struct live_view view;
	bool list_mode;               /* the --list screen is up */
	bool dirty;                   /* the model changed since drawn */
	bool quit;                    /* q */
	bool back;                    /* Esc: from a thread's view to the list */
	uint64_t open_thread;         /* Enter on the list; 0: none */
	char open_who[300];           /* its user@host, for the header */
	int64_t open_running_s;       /* how long its statement had run */
	bool ui_stop;                 /* the UI thread should end */
	/* A view opened from the list ends alone on Esc: its own flags. */
	struct signal_flags view_flags;
	bool in_view;                 /* a capture runs under view_flags */
	bool following;               /* the capture follows a statement found */

	/* The summaries written, as text, for after the screen. */
	FILE *summary;
	char *summary_buf;
	size_t summary_len;

	/* stderr while the screen is up. */
	int saved_stderr;
	FILE *errlog;
	off_t err_seen;
	char last_note[256];          /* its last line, for the status line */

	/* UI thread only. */
	pthread_t ui_thread_id;
	struct live_grid grid;
	bool has_colors;
	char grain[600];      /* the capture's, as begin named it; "" a thread */
};

/* The observer: on the sampling thread, copies and returns. */
static void
observe_begin(void *ctx, const struct capture_target *t)
{
	struct live *l = ctx;
	char target[512];
	size_t n;

	if (t->grain != NULL)
		snprintf(target, sizeof(target), "%s", t->grain);
	else
		thread_label(target, sizeof(target), t->thread_id,
		    t->connection_id);
	n = strlen(target);
	pthread_mutex_lock(&l->mu);
	snprintf(l->grain, sizeof(l->grain), "%s", t->grain != NULL ?
	    t->grain : "");
	l->following = t->found != NULL;
	if (t->found != NULL)
		snprintf(target + n, sizeof(target) - n,
		    "  user %.100s  db %.100s%s", t->found->user[0] ?
		    t->found->user : "-", t->found->db[0] ? t->found->db : "-",
		    t->found->idle ? "  found idle, holding" : "");
	else if (l->in_view && l->open_who[0] != '\0')
		snprintf(target + n, sizeof(target) - n, "  %s",
		    l->open_who);
	live_model_begin(&l->model, t->server_version, target, t->interval_ms,
	    t->found != NULL ? t->found->time_s :
	    l->in_view ? l->open_running_s : 0);
	l->model.limit_bytes = t->limit_bytes;
	l->dirty = true;
	pthread_mutex_unlock(&l->mu);
}

static int
observe_sample(void *ctx, const struct sample *s,
    const struct sampler_stats *so_far)
{
	struct live *l = ctx;
	int rc;

	pthread_mutex_lock(&l->mu);
	rc = live_model_add(&l->model, s, so_far->taken, so_far->skipped);
	/* A new reading of the gap (the chain's, this thread's): copied. */
	if (l->gap.reads != l->gap_seen) {
		l->gap_seen = l->gap.reads;
		l->model.layers = l->gap.e;
		l->model.has_layers = true;
	}
	l->dirty = true;
	pthread_mutex_unlock(&l->mu);
	if (rc != 0)
		diag_say("out of memory for the live view's window; give a "
		    "smaller --window");
	return rc;
}

static const char *
end_words(enum sampler_end e, bool following)
{
	if (e == SAMPLER_END_GONE && following)
		return "the statement ended";
	switch (e) {
	case SAMPLER_END_COUNT: return "--count reached";
	case SAMPLER_END_DURATION: return "--duration reached";
	case SAMPLER_END_GONE: return "the thread ended";
	case SAMPLER_END_SOURCE_ERROR: return "sampling failed";
	case SAMPLER_END_SINK_ERROR: return "writing failed";
	default: return "";
	}
}

static void
observe_end(void *ctx, const struct summary *sum,
    const struct sampler_stats *stats, const char *why)
{
	struct live *l = ctx;
	struct output o = {
		.fp = l->summary, .fmt = output_table_find("text"),
		.settings.exact_bytes = l->env->opts->exact_bytes,
		.grain = l->grain[0] != '\0' ? l->grain : NULL,
	};

	/* Written now: the summary points into the ring, freed after. */
	if (o.fp != NULL && o.fmt != NULL)
		(void)output_end(&o, sum);
	output_release(&o);
	pthread_mutex_lock(&l->mu);
	l->model.state = LIVE_ENDED;
	if (why != NULL && why[0] != '\0')
		snprintf(l->model.end_note, sizeof(l->model.end_note),
		    "%.200s, after %" PRIu64 " samples", why, stats->taken);
	else
		snprintf(l->model.end_note, sizeof(l->model.end_note), "%s after %"
		    PRIu64 " samples", end_words(stats->end, l->following),
		    stats->taken);
	l->dirty = true;
	pthread_mutex_unlock(&l->mu);
}

/* stderr to a file while the screen is up; 0 or -1. */
static int
hold_stderr(struct live *l)
{
	fflush(stderr);
	if ((l->errlog = tmpfile()) == NULL)
		return -1;
	if ((l->saved_stderr = dup(STDERR_FILENO)) < 0 ||
	    dup2(fileno(l->errlog), STDERR_FILENO) < 0) {
		if (l->saved_stderr >= 0)
			close(l->saved_stderr);
		fclose(l->errlog);
		l->errlog = NULL;
		return -1;
	}
	return 0;
}

/* Puts stderr back and says on it what was said meanwhile. */
static void
release_stderr(struct live *l)
{
	char buf[4096];
	ssize_t n;
	off_t at = 0;

	if (l->errlog == NULL)
		return;
	fflush(stderr);
	dup2(l->saved_stderr, STDERR_FILENO);
	close(l->saved_stderr);
	while ((n = pread(fileno(l->errlog), buf, sizeof(buf), at)) > 0) {
		if (write(STDERR_FILENO, buf, (size_t)n) != n)
			break;
		at += n;
	}
	fclose(l->errlog);
	l->errlog = NULL;
}

/* UI thread: the last line said on stderr, into last_note. */
static void
read_notes(struct live *l)
{
	char buf[1024];
	ssize_t n;

	while ((n = pread(fileno(l->errlog), buf, sizeof(buf) - 1,
	    l->err_seen)) > 0) {
		char *end, *start;

		l->err_seen += n;
		buf[n] = '\0';
		end = buf + n;
		while (end > buf && end[-1] == '\n')
			*--end = '\0';
		start = strrchr(buf, '\n');
		start = start != NULL ? start + 1 : buf;
		pthread_mutex_lock(&l->mu);
		snprintf(l->last_note, sizeof(l->last_note), "%.250s", start);
		if (strncmp(start, "mysqlmemprof: ", 14) == 0)
			memmove(l->last_note, l->last_note + 14,
			    strlen(l->last_note + 14) + 1);
		l->dirty = true;
		pthread_mutex_unlock(&l->mu);
	}
}

static void
setup_colors(struct live *l)
{
	static const short bands[LIVE_BANDS] = { COLOR_BLUE, COLOR_GREEN,
	    COLOR_YELLOW, COLOR_MAGENTA, COLOR_CYAN, COLOR_RED, COLOR_WHITE,
	    COLOR_BLUE };

	l->has_colors = has_colors();
	l->view.mono = !l->has_colors;
	if (!l->has_colors)
		return;
	start_color();
	use_default_colors();
	for (int i = 0; i < LIVE_BANDS; i++)
		init_pair((short)(LIVE_C_BAND + i), bands[i], -1);
	init_pair(LIVE_C_OTHER, COLOR_BLACK, -1);
	init_pair(LIVE_C_AXIS, -1, -1);
	init_pair(LIVE_C_PEAK, COLOR_RED, -1);
	init_pair(LIVE_C_STATEMENT, COLOR_YELLOW, -1);
	init_pair(LIVE_C_TITLE, COLOR_CYAN, -1);
}

/* UI thread: the grid to the screen. */
static void
blit(struct live *l)
{
	const struct live_grid *g = &l->grid;

	for (int y = 0; y < g->h && y < LINES; y++) {
		for (int x = 0; x < g->w && x < COLS; x++) {
			const struct live_cell *c = &g->c[y * g->w + x];
			wchar_t wc[2] = { (wchar_t)c->ch, 0 };
			attr_t a = 0;
			cchar_t cc;

			if (c->attr & LIVE_A_BOLD)
				a |= A_BOLD;
			if (c->attr & LIVE_A_REVERSE)
				a |= A_REVERSE;
			if (c->attr & LIVE_A_DIM)
				a |= A_DIM;
			setcchar(&cc, wc, a, l->has_colors ? (short)c->color :
			    0, NULL);
			mvadd_wch(y, x, &cc);
		}
	}
	refresh();
}

/* UI thread, mutex held: the screen of the moment into the grid. */
static void
draw(struct live *l)
{
	struct live_view v = l->view;

	if (l->list_mode) {
		live_draw_list(&l->model, &v, &l->grid);
		if (l->last_note[0] != '\0')
			live_grid_text(&l->grid, l->grid.h - 2, 0, l->grid.w,
			    l->last_note, LIVE_C_PEAK, LIVE_A_BOLD);
		return;
	}
	live_draw(&l->model, &v, &l->grid);
	/* Over the capture screen; the help, when up, is over both. */
	if (v.layers && !v.help)
		live_draw_layers(&l->model, &v, &l->grid);
}

/* UI thread: the run ends as on Ctrl-C. */
static void
end_run(struct live *l)
{
	pthread_mutex_lock(&l->mu);
	l->quit = true;
	pthread_mutex_unlock(&l->mu);
	kill(getpid(), SIGINT);
}

static void
list_key(struct live *l, wint_t ch)
{
	size_t n = l->model.threads.n;

	switch (ch) {
	case KEY_UP: case 'k':
		if (l->view.selected > 0)
			l->view.selected--;
		break;
	case KEY_DOWN: case 'j':
		if (l->view.selected + 1 < n)
			l->view.selected++;
		break;
	case KEY_ENTER: case '\n': case '\r':
		if (l->view.selected < n) {
			const struct thread_info *t =
			    &l->model.threads.v[l->view.selected];

			l->open_thread = t->thread_id;
			snprintf(l->open_who, sizeof(l->open_who),
			    "user %.100s@%.100s", t->user ? t->user : "-",
			    t->host ? t->host : "-");
			/* The list's time is of the statement when one runs. */
			l->open_running_s = t->has_time && t->statement ?
			    t->time_s : 0;
		}
		break;
	}
}

/* UI thread, mutex held: one key. Returns true when the run must end. */
static bool
key(struct live *l, wint_t ch)
{
	struct live_view *v = &l->view;

	if (v->help || v->layers) {
		v->help = v->layers = false; /* any key closes them */
		return ch == 'q';
	}
	switch (ch) {
	case 'q': case 'Q':
		return true;
	case 'p': case ' ':
		v->paused = !v->paused;
		break;
	case '+': case '=':
		if (v->rows < live_max_rows(l->grid.h))
			v->rows++;
		break;
	case '-': case '_':
		if (v->rows > 1)
			v->rows--;
		break;
	case 's':
		v->sort = (enum live_sort)((v->sort + 1) % LIVE_N_SORTS);
		break;
	case 'b':
		v->exact = !v->exact;
		break;
	case '?': case 'h':
		v->help = true;
		break;
	case 'e':
		/* The list has no capture to draw the layers over. */
		v->layers = !l->list_mode;
		break;
	case 27: /* Esc */
		if (!l->list_mode && v->from_list) {
			l->back = true;
			l->view_flags.stop = 1;
		}
		break;
	default:
		if (l->list_mode)
			list_key(l, ch);
		break;
	}
	return false;
}

/* UI thread: the keys waiting; returns true when the run must end. */
static bool
read_keys(struct live *l, bool *redraw)
{
	wint_t ch;
	int r;
	bool end = false;

	while ((r = get_wch(&ch)) != ERR) {
		if (r == KEY_CODE_YES && ch == KEY_RESIZE) {
			live_grid_free(&l->grid);
			if (live_grid_init(&l->grid, COLS, LINES) != 0)
				return true;
			clear();
			*redraw = true;
			continue;
		}
		/* A character beyond the key codes is no key of ours. */
		if (r == OK && ch >= KEY_MIN)
			ch = 0;
		pthread_mutex_lock(&l->mu);
		end |= key(l, ch);
		pthread_mutex_unlock(&l->mu);
		*redraw = true;
	}
	return end;
}

static void *
ui_main(void *arg)
{
	struct live *l = arg;
	bool ending = false;

	for (;;) {
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		bool redraw = false, stop;

		(void)poll(&p, 1, UI_TICK_MS);
		/* The terminal hung up: nobody is left to press q. */
		if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
			l->sig->hangup = 1;
		if (read_keys(l, &redraw) && !ending) {
			ending = true;
			end_run(l);
		}
		if (l->sig->hangup && !ending) {
			ending = true;
			end_run(l);
		}
		read_notes(l);
		pthread_mutex_lock(&l->mu);
		/* A stop of the program ends a view opened from the list too. */
		if (l->sig->stop)
			l->view_flags.stop = 1;
		stop = l->ui_stop;
		if (redraw || (l->dirty && !l->view.paused)) {
			draw(l);
			l->dirty = false;
			redraw = true;
		}
		pthread_mutex_unlock(&l->mu);
		if (redraw)
			blit(l);
		if (stop)
			break;
	}
	return NULL;
}

/*
 * The terminal set up and the UI thread started, with every signal the
 * program answers blocked in it, and SIGWINCH blocked in the sampling
 * thread, so that a resize reaches ncurses and does not cut a wait short.
 */
static int
start_ui(struct live *l)
{
	sigset_t ui_mask, main_mask;
	int rc;

	/* Only LC_CTYPE: numbers stay in the C locale's form. */
	setlocale(LC_CTYPE, "");
	l->view.ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
	if (initscr() == NULL)
		return -1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	setup_colors(l);
	if (live_grid_init(&l->grid, COLS, LINES) != 0) {
		endwin();
		return -1;
	}
	sigemptyset(&ui_mask);
	sigaddset(&ui_mask, SIGINT);
	sigaddset(&ui_mask, SIGTERM);
	sigaddset(&ui_mask, SIGHUP);
	sigaddset(&ui_mask, SIGUSR1);
	sigaddset(&ui_mask, SIGALRM);
	sigaddset(&ui_mask, SIGPIPE);
	sigemptyset(&main_mask);
	sigaddset(&main_mask, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &ui_mask, NULL);
	pthread_sigmask(SIG_UNBLOCK, &main_mask, NULL);
	rc = pthread_create(&l->ui_thread_id, NULL, ui_main, l);
	pthread_sigmask(SIG_UNBLOCK, &ui_mask, NULL);
	pthread_sigmask(SIG_BLOCK, &main_mask, NULL);
	if (rc != 0) {
		live_grid_free(&l->grid);
		endwin();
		return -1;
	}
	return 0;
}

static void
stop_ui(struct live *l)
{
	sigset_t winch;

	pthread_mutex_lock(&l->mu);
	l->ui_stop = true;
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->ui_thread_id, NULL);
	live_grid_free(&l->grid);
	endwin();
	sigemptyset(&winch);
	sigaddset(&winch, SIGWINCH);
	pthread_sigmask(SIG_UNBLOCK, &winch, NULL);
}

/* Sleeps ms, or less when a signal comes. */
static void
nap(uint64_t ms)
{
	struct timespec t = { .tv_sec = (time_t)(ms / 1000),
	    .tv_nsec = (long)(ms % 1000) * 1000000L };

	(void)clock_nanosleep(CLOCK_MONOTONIC, 0, &t, NULL);
}

/*
 * The capture ended by itself (the thread ended, a count, an error): the
 * screen says so until q (or Esc, back to the list) or a signal.
 */
static void
hold_the_end(struct live *l, volatile sig_atomic_t *stop)
{
	for (;;) {
		bool done;

		pthread_mutex_lock(&l->mu);
		done = l->quit || l->back || l->model.state != LIVE_ENDED;
		pthread_mutex_unlock(&l->mu);
		if (done || *stop || l->sig->stop)
			return;
		nap(UI_TICK_MS);
	}
}

/* A thread chosen in the list: its view, until Esc, q or its end. */
struct signal_flags *
live_view_open(struct live *l)
{
	pthread_mutex_lock(&l->mu);
	l->view_flags = (struct signal_flags){ .stop = l->sig->stop };
	l->model.state = LIVE_WAITING;
	l->model.len = 0;
	l->list_mode = false;
	l->view.from_list = true;
	l->in_view = true;
	l->back = false;
	l->last_note[0] = '\0';
	l->dirty = true;
	pthread_mutex_unlock(&l->mu);
	return &l->view_flags;
}

void
live_view_close(struct live *l)
{
	if (l->model.state == LIVE_ENDED && !l->view_flags.stop)
		hold_the_end(l, &l->view_flags.stop);
	pthread_mutex_lock(&l->mu);
	l->list_mode = true;
	l->in_view = false;
	l->open_thread = 0;
	l->dirty = true;
	pthread_mutex_unlock(&l->mu);
}

/* The cursor stays on its thread when the order changes. */
static void
keep_selection(const struct live_model *m, struct live_view *v,
    const struct thread_list *next)
{
	uint64_t id;

	if (v->selected >= m->threads.n)
		return;
	id = m->threads.v[v->selected].thread_id;
	for (size_t i = 0; i < next->n; i++)
		if (next->v[i].thread_id == id)
			v->selected = i;
}

void
live_list_begin(struct live *l, const char *server, uint64_t interval_ms)
{
	pthread_mutex_lock(&l->mu);
	l->list_mode = true;
	snprintf(l->model.server, sizeof(l->model.server), "%s", server);
	l->model.interval_ms = interval_ms;
	pthread_mutex_unlock(&l->mu);
}

void
live_list_set(struct live *l, struct thread_list *tl)
{
	pthread_mutex_lock(&l->mu);
	keep_selection(&l->model, &l->view, tl);
	live_model_set_threads(&l->model, tl);
	if (l->view.selected >= l->model.threads.n)
		l->view.selected = l->model.threads.n ?
		    l->model.threads.n - 1 : 0;
	l->dirty = true;
	pthread_mutex_unlock(&l->mu);
}

uint64_t
live_list_chosen(struct live *l)
{
	uint64_t id;

	pthread_mutex_lock(&l->mu);
	id = l->open_thread;
	pthread_mutex_unlock(&l->mu);
	return id;
}

bool
live_quit(struct live *l)
{
	bool q;

	pthread_mutex_lock(&l->mu);
	q = l->quit;
	pthread_mutex_unlock(&l->mu);
	return q;
}

int
live_check_terminal(void)
{
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return 0;
	diag_say("--live needs a terminal on standard input and output; run "
	    "it in a terminal, or leave --live out and use --output FILE");
	return -1;
}

const struct capture_observer *
live_observer(struct live *l)
{
	return &l->observer;
}

struct gap *
live_gap(struct live *l)
{
	return &l->gap;
}

/* What live_start() made, whichever of it was made. */
static void
live_free(struct live *l)
{
	if (l->summary != NULL)
		fclose(l->summary);
	free(l->summary_buf);
	live_model_free(&l->model);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

struct live *
live_start(const struct capture_env *env)
{
	struct live *l = calloc(1, sizeof(*l));

	if (l == NULL || pthread_mutex_init(&l->mu, NULL) != 0) {
		free(l);
		diag_say("out of memory");
		return NULL;
	}
	l->env = env;
	l->sig = env->sig;
	l->saved_stderr = -1;
	l->view.rows = DEFAULT_ROWS;
	l->observer = (struct capture_observer){ .ctx = l,
	    .begin = observe_begin, .sample = observe_sample, .end = observe_end };
	if (live_model_init(&l->model, env->opts->window, 0) != 0) {
		live_free(l);
		diag_say("out of memory");
		return NULL;
	}
	l->model.layers_every_s = env->opts->layers_every_s;
	l->summary = open_memstream(&l->summary_buf, &l->summary_len);
	if (hold_stderr(l) != 0 || start_ui(l) != 0) {
		release_stderr(l);
		diag_say("cannot set up the terminal for --live: %s",
		    strerror(errno));
		live_free(l);
		return NULL;
	}
	return l;
}

void
live_end(struct live *l)
{
	/* A capture that ended by itself keeps its screen; a list does not. */
	if (!l->list_mode && l->model.state == LIVE_ENDED && !l->sig->stop)
		hold_the_end(l, &l->sig->stop);
	stop_ui(l);
	release_stderr(l);
	if (l->summary != NULL) {
		fclose(l->summary);
		l->summary = NULL;
		if (l->summary_len > 0) {
			fwrite(l->summary_buf, 1, l->summary_len, stdout);
			fflush(stdout);
		}
	}
	live_free(l);
}
