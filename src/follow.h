/*
 * Following the statement a hunt found (look.h finds it): a sample source
 * that ends when the statement ends. It asks the server through the
 * session's table of operations.
 */
#ifndef MYSQLMEMPROF_FOLLOW_H
#define MYSQLMEMPROF_FOLLOW_H

#include <stdint.h>

#include "clock.h"
#include "gate.h"
#include "match.h"
#include "session.h"
#include "source.h"

enum follow_end {
	FOLLOW_RUNNING,  /* the source did not end for the statement */
	FOLLOW_FINISHED, /* it ended: the connection is idle or runs another */
	FOLLOW_CLOSED,   /* the connection closed */
	FOLLOW_RELEASED, /* an idle holder: below hold_bytes for hold_ns */
};

struct follow {
	struct source inner;       /* the thread's memory */
	struct session *session;   /* the one inner reads through */
	struct stmt_match stmt;    /* the statement, as last seen */
	uint64_t poll_ns;          /* look at the statement at most this often */
	const struct clock *clk;
	struct gate look;          /* reset at first: look at the first read */
	enum follow_end end;       /* zero at first */
	/*
	 * An idle holder (stmt.idle) is followed, whatever it runs, until its
	 * total has been below hold_bytes for hold_ns (--bigger-than,
	 * --trigger-hold).
	 */
	int64_t hold_bytes;
	uint64_t hold_ns;
	uint64_t below_since_ns;   /* when the total fell below; zero at first */
	bool below;                /* the last reading was below hold_bytes */
	bool released;             /* below for hold_ns: the next read ends */
};

/*
 * Reads inner while the statement runs, looking at it before a read when
 * poll_ns has passed since the last look; then gives SOURCE_GONE, with
 * f->end saying why. An idle holder's statement is not looked at: the
 * source ends after the reading that found it below hold_bytes for
 * hold_ns, or when the connection closes.
 */
struct source follow_source(struct follow *f);

#endif
