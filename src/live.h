/*
 * --live: the full-screen view in the terminal, an observer of what the
 * mode runs. The mode runs on the calling thread as usual, the view's
 * observer copying each sample into its model; a thread of the view's own
 * owns the terminal, reads the keys and draws, so the sampler never waits
 * on drawing. The top of --live --list (top.c) hands it lists of threads
 * and opens the view of the one chosen.
 */
#ifndef MYSQLMEMPROF_LIVE_H
#define MYSQLMEMPROF_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "threads.h"

struct live;

/*
 * Whether standard input and output are a terminal the view can take;
 * says why not (a usage error) when they are not.
 */
int live_check_terminal(void);

/*
 * Takes the terminal: stderr held in a file, the screen set up, the UI
 * thread started. env (its options, output and signal flags) is borrowed
 * until live_end(). NULL, having said why, when the terminal cannot be.
 */
struct live *live_start(const struct capture_env *env);

/* The observer a capture hands its samples to, to be drawn; owned by l. */
const struct capture_observer *live_observer(struct live *l);
/* The gap the chain of a --global capture reads for the view (key e). */
struct gap *live_gap(struct live *l);

/*
 * Gives the terminal back and frees l: a capture that ended by itself
 * keeps its screen until q or a signal; then what was said on stderr
 * meanwhile, and the summaries, follow on stderr and standard output.
 */
void live_end(struct live *l);

/* --- The top of --live --list (top.c): --- */

/* The screen becomes the list of threads. */
void live_list_begin(struct live *l, const char *server, uint64_t interval_ms);

/* The threads to show now; takes *tl, which is left empty. */
void live_list_set(struct live *l, struct thread_list *tl);

/* The thread chosen with Enter, whose view should open; 0: none. */
uint64_t live_list_chosen(struct live *l);

/* Whether q was pressed: the run ends (a SIGINT follows). */
bool live_quit(struct live *l);

/*
 * The chosen thread's view replaces the list; a capture of it runs under
 * the flags returned (Esc stops it alone), then live_view_close() holds an
 * ended capture's screen until Esc or q and brings the list back.
 */
struct signal_flags *live_view_open(struct live *l);
void live_view_close(struct live *l);

#endif
