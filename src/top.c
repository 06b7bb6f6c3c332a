/*
 * The top of --live --list: the mode, on the calling thread; the live view
 * (live.c) draws what it hands over. The looks keep an absolute schedule
 * on clock.h: a look every --frequency, missed ones skipped, and between
 * them short waits, so that Enter opens a thread's view at once.
 */
#include "clock.h"
#include "exitcode.h"
#include "live.h"
#include "pfs.h"
#include "top.h"

/* How often the wait between looks asks whether Enter or q came. */
#define TOP_TICK_NS (50 * 1000000ull)

struct top {
	struct live *live;
	const struct signal_flags *sig;
};

/* Whether the wait for the next look should end early. */
static bool
top_woken(void *ctx)
{
	struct top *t = ctx;

	return t->sig->stop || live_quit(t->live) ||
	    live_list_chosen(t->live) != 0;
}

/* The view of a thread chosen in the list, until Esc, q or its end. */
static int
open_view(struct live *l, const struct capture_env *env, uint64_t thread_id)
{
	struct options o = *env->opts;
	struct capture_env view = *env;
	int rc;

	o.target = TARGET_THREAD;
	o.target_id = thread_id;
	view.opts = &o;
	view.sig = live_view_open(l);
	view.observer = live_observer(l);
	rc = capture_run(&view, NULL, 0, NULL);
	live_view_close(l);
	return rc;
}

/* The looks, from the first to a stop, q or a failed look. */
static int
look_and_wait(struct top *t, const struct capture_env *env,
    const struct clock *clk)
{
	uint64_t period_ns = env->opts->frequency_ms * 1000000u;
	uint64_t next = clk->now_ns(clk->ctx);
	struct session *s = env->session;
	char err[1024];
	int rc = EXIT_DONE;

	while (!t->sig->stop && !live_quit(t->live)) {
		struct thread_list l;
		enum pfs_status st;
		uint64_t open;

		st = s->ops->list_threads(s->conn, &s->kind, &l, err, sizeof(err));
		if (st != PFS_OK) {
			if (t->sig->stop)
				break;
			diag_say("%s", err);
			rc = EXIT_RUNTIME;
			break;
		}
		live_list_set(t->live, &l);
		next = clock_next_deadline(next, period_ns,
		    clk->now_ns(clk->ctx));
		(void)clock_wait(clk, next, TOP_TICK_NS, top_woken, t);
		if ((open = live_list_chosen(t->live)) == 0)
			continue;
		rc = open_view(t->live, env, open);
		if (rc == EXIT_USAGE)
			rc = EXIT_DONE; /* said on the screen; pick another */
		if (rc != EXIT_DONE && !t->sig->stop && !live_quit(t->live))
			rc = EXIT_DONE;
		/* Back in the list: looked at now, the schedule from here. */
		next = clk->now_ns(clk->ctx);
	}
	return rc;
}

int
top_run(const struct capture_env *env)
{
	struct clock clk = clock_system();
	struct top t = { .sig = env->sig };
	int rc;

	if ((t.live = live_start(env)) == NULL)
		return EXIT_RUNTIME;
	live_list_begin(t.live, env->session->ops->server_version(env->session->conn),
	    env->opts->frequency_ms);
	rc = look_and_wait(&t, env, &clk);
	live_end(t.live);
	return rc;
}
