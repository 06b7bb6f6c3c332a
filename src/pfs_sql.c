/*
 * Every statement mysqlmemprof sends to performance_schema, and the kind
 * of server it is meant for. The same text serves MariaDB 10.5 and later
 * and MySQL 8.0 and 8.4: the columns read here have the same names in
 * each (doc/queries.md says where that was checked); what differs is only
 * columns this program does not read, and the width of DIGEST, which
 * STATEMENT_DIGEST_MAX holds either way.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfs_rows.h"
#include "pfs_sql.h"

/* Reads one decimal number of at most 5 digits; NULL when there is none. */
static const char *
version_part(const char *s, unsigned *out)
{
	unsigned v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9' && n < 5) {
		v = v * 10 + (unsigned)(*s++ - '0');
		n++;
	}
	if (n == 0)
		return NULL;
	*out = v;
	return s;
}

struct server_kind
pfs_server_kind_parse(const char *version)
{
	struct server_kind k = { .flavour = SERVER_UNKNOWN };
	const char *s = version;
	bool mariadb;

	if (s == NULL)
		return k;
	mariadb = strstr(s, "MariaDB") != NULL;
	/*
	 * MariaDB before 11.0 puts "5.5.5-" before its version in the
	 * handshake, for replicas older than 10.0; Connector/C takes it off,
	 * Oracle's library does not.
	 */
	if (mariadb && strncmp(s, "5.5.5-", 6) == 0)
		s += 6;
	if ((s = version_part(s, &k.major)) == NULL || *s++ != '.' ||
	    (s = version_part(s, &k.minor)) == NULL)
		return (struct server_kind){ .flavour = SERVER_UNKNOWN };
	if (*s == '.' && version_part(s + 1, &k.patch) == NULL)
		k.patch = 0;
	k.flavour = mariadb ? SERVER_MARIADB : SERVER_MYSQL;
	return k;
}

int
pfs_server_kind_check(const struct server_kind *k, char *err, size_t errlen)
{
	bool old;

	if (k->flavour == SERVER_MARIADB)
		old = k->major < 10 || (k->major == 10 && k->minor < 5);
	else if (k->flavour == SERVER_MYSQL)
		old = k->major < 5 || (k->major == 5 && k->minor < 7);
	else
		return 0;
	if (!old)
		return 0;
	snprintf(err, errlen, "%s %u.%u has no memory instrumentation in "
	    "performance_schema (no memory_summary_* tables); mysqlmemprof "
	    "needs MariaDB 10.5 or later, or MySQL 8.0 or later",
	    k->flavour == SERVER_MARIADB ? "MariaDB" : "MySQL", k->major,
	    k->minor);
	return -1;
}

/*
 * All a new connection learns, in one round trip:
 * 0 @@performance_schema;
 * 1, 2 the memory instruments, and those enabled: MySQL always counts its
 *   own memory/performance_schema/ events, so they do not show that memory
 *   instrumentation is on;
 * 3 our own thread;
 * 4, 5 which run of the server this is. performance_schema.global_status,
 *   not information_schema: MySQL 8.0 removed information_schema.GLOBAL_STATUS.
 *   Both servers compare the name without case ('Uptime' is how they store
 *   it). UPTIME counts whole seconds, so a server restarted within a second
 *   or two has nearly the same boot time; the process id of its main thread
 *   tells the two runs apart.
 * With performance_schema off the tables are empty: the subqueries give NULL.
 */
const char pfs_sql_preflight[] =
    "SELECT @@performance_schema, i.total, i.enabled, "
    "(SELECT THREAD_ID FROM performance_schema.threads "
    "WHERE PROCESSLIST_ID = CONNECTION_ID()), "
    "(SELECT UNIX_TIMESTAMP() - VARIABLE_VALUE "
    "FROM performance_schema.global_status "
    "WHERE VARIABLE_NAME = 'UPTIME'), "
    "(SELECT THREAD_OS_ID FROM performance_schema.threads "
    "WHERE NAME = 'thread/sql/main') "
    "FROM (SELECT COUNT(*) AS total, COALESCE(SUM(ENABLED = 'YES' "
    "AND NAME NOT LIKE 'memory/performance\\_schema/%'), 0) AS enabled "
    "FROM performance_schema.setup_instruments "
    "WHERE NAME LIKE 'memory/%') AS i";

/*
 * How many memory instruments there are and how many are off. MySQL's
 * memory/performance_schema/ ones are always on, so they count as on.
 */
const char pfs_sql_memory_disabled[] =
    "SELECT COUNT(*), COALESCE(SUM(ENABLED <> 'YES'), 0) "
    "FROM performance_schema.setup_instruments "
    "WHERE NAME LIKE 'memory/%'";

/*
 * Whether the server is still there, for --record between its slower reads
 * (beat.h): no table, no row, the least a round trip can be.
 */
const char pfs_sql_ping[] = "DO 0";

/* The whole server's instrumented memory, to compare a thread's with. */
const char pfs_sql_global_total[] =
    "SELECT COALESCE(SUM(CURRENT_NUMBER_OF_BYTES_USED), 0) "
    "FROM performance_schema.memory_summary_global_by_event_name";

/*
 * What the server itself counts of its sessions' memory, beside the
 * process's pages. MariaDB's global Memory_used. MySQL 8.0.28+'s
 * Global_connection_memory, counted only while
 * global_connection_memory_tracking is on, and kept at its last value
 * when switched off: the second column says whether it is counted now.
 * Older MySQL counts neither (NULL: nothing is asked).
 */
static const char sql_server_memory_mariadb[] =
    "SELECT VARIABLE_VALUE, 1 FROM performance_schema.global_status "
    "WHERE VARIABLE_NAME = 'MEMORY_USED'";
static const char sql_server_memory_mysql[] =
    "SELECT VARIABLE_VALUE, @@global.global_connection_memory_tracking "
    "FROM performance_schema.global_status "
    "WHERE VARIABLE_NAME = 'GLOBAL_CONNECTION_MEMORY'";

const char *
pfs_sql_server_memory(const struct server_kind *k)
{
	if (k->flavour == SERVER_MARIADB)
		return sql_server_memory_mariadb;
	if (k->major > 8 || (k->major == 8 && (k->minor > 0 ||
	    k->patch >= 28)))
		return sql_server_memory_mysql;
	return NULL;
}

/*
 * The server's own count of one thread's memory (total.h), one row by its
 * key. MySQL 8.0.31+ keeps the sum of the thread's rows in
 * threads.TOTAL_MEMORY, indexed by THREAD_ID. MariaDB's PROCESSLIST
 * builds a row per connection from the server's own accounting
 * (MEMORY_USED) without reading performance_schema's rows, so by
 * connection id it costs a fraction of a sample's scan of every thread's
 * rows (bench/RESULTS.md). The second column tells a statement that ran
 * between two ticks: MariaDB's QUERY_ID; on MySQL the latest EVENT_ID of
 * events_statements_current, by its key too (NULL with the consumer off).
 * The id is a parameter, *param, so the query is prepared once and each
 * tick only executes it: on MySQL, sent as text, it cost the server
 * twice the bare TOTAL_MEMORY query (bench/scale_cost.py). Returns -1
 * where the server keeps no such count.
 */
int
pfs_sql_own_count(char *buf, size_t size, const struct server_kind *k,
    uint64_t thread_id, uint64_t connection_id, uint64_t *param)
{
	int n;

	if (k->flavour == SERVER_MARIADB && connection_id != 0) {
		*param = connection_id;
		n = snprintf(buf, size, "SELECT MEMORY_USED, QUERY_ID "
		    "FROM information_schema.PROCESSLIST WHERE ID = ?");
	} else if (pfs_sql_find_memory(k) == FIND_THREADS) {
		*param = thread_id;
		n = snprintf(buf, size, "SELECT t.TOTAL_MEMORY, (SELECT "
		    "MAX(s.EVENT_ID) FROM "
		    "performance_schema.events_statements_current s WHERE "
		    "s.THREAD_ID = t.THREAD_ID) FROM performance_schema.threads "
		    "t WHERE t.THREAD_ID = ?");
	} else
		return -1;
	return n > 0 && (size_t)n < size ? 0 : -1;
}

const char pfs_sql_enable_instruments[] =
    "UPDATE performance_schema.setup_instruments SET ENABLED = 'YES' "
    "WHERE NAME LIKE 'memory/%'";

/* A consumer records only when those above it are enabled too. */
const char pfs_sql_consumers_off[] =
    "SELECT NAME "
    "FROM performance_schema.setup_consumers WHERE NAME IN "
    "('global_instrumentation', 'thread_instrumentation', "
    "'events_statements_current') AND ENABLED <> 'YES' ORDER BY NAME";

/*
 * MySQL 8.0.28's limits on connections' memory, by name and value (on
 * MariaDB the names are unknown: it is not asked).
 */
const char pfs_sql_memory_limits[] =
    "SELECT VARIABLE_NAME, VARIABLE_VALUE "
    "FROM performance_schema.global_variables WHERE VARIABLE_NAME IN "
    "('connection_memory_limit', 'global_connection_memory_limit', "
    "'global_connection_memory_tracking')";

#define LIST_HEAD \
    "SELECT t.THREAD_ID, t.PROCESSLIST_ID, t.TYPE, t.NAME, " \
    "t.PROCESSLIST_USER, t.PROCESSLIST_HOST, t.PROCESSLIST_COMMAND, " \
    "t.PROCESSLIST_TIME, t.PROCESSLIST_STATE, "

/* One GROUP BY of every thread's memory rows, joined. */
const char pfs_sql_list_threads_summed[] =
    LIST_HEAD "COALESCE(m.bytes, 0), LEFT(t.PROCESSLIST_INFO, 200) "
    "FROM performance_schema.threads t LEFT JOIN "
    "(SELECT THREAD_ID, SUM(" PFS_BYTES_USED ") AS bytes "
    "FROM " PFS_THREAD_MEMORY " "
    "GROUP BY THREAD_ID) m ON m.THREAD_ID = t.THREAD_ID "
    "ORDER BY COALESCE(m.bytes, 0) DESC, t.THREAD_ID";

/*
 * MySQL 8.0.31+ keeps that sum in threads.TOTAL_MEMORY (equal to it to the
 * byte on 9.7): one table, none of the memory rows read.
 */
const char pfs_sql_list_threads_kept[] =
    LIST_HEAD "t.TOTAL_MEMORY, LEFT(t.PROCESSLIST_INFO, 200) "
    "FROM performance_schema.threads t "
    "ORDER BY t.TOTAL_MEMORY DESC, t.THREAD_ID";

const char *
pfs_sql_list_threads(const struct server_kind *k)
{
	return pfs_sql_find_memory(k) == FIND_THREADS ?
	    pfs_sql_list_threads_kept : pfs_sql_list_threads_summed;
}

/* snprintf()'s count as a status: -1 when the text did not fit. */
static int
fits(int n, size_t size)
{
	return n >= 0 && (size_t)n < size ? 0 : -1;
}

int
pfs_sql_find_thread(char *buf, size_t size, bool by_connection, uint64_t id)
{
	return fits(snprintf(buf, size, "SELECT THREAD_ID, PROCESSLIST_ID, "
	    "INSTRUMENTED = 'YES' FROM performance_schema.threads WHERE %s = %"
	    PRIu64, by_connection ? "PROCESSLIST_ID" : "THREAD_ID", id), size);
}

/*
 * What a statement looks like in performance_schema.threads: the columns
 * of stmt_row() in pfs_look.c, in order. The digest tells two texts apart
 * without sending them whole; the start is the server's clock less the
 * time run; the statements the thread ended so far, other than those
 * inside stored programs, tell apart two runs of one text. A format for
 * snprintf().
 */
#define STMT_HEAD \
	"t.THREAD_ID, t.PROCESSLIST_ID, t.PROCESSLIST_TIME, " \
	"UNIX_TIMESTAMP() - t.PROCESSLIST_TIME, " \
	"CONCAT(LENGTH(t.PROCESSLIST_INFO), ':', CRC32(t.PROCESSLIST_INFO)), " \
	"t.PROCESSLIST_USER, t.PROCESSLIST_DB, LEFT(t.PROCESSLIST_INFO, 100), "
/*
 * The count of ended statements is a scan of every thread's statement
 * summary rows on MariaDB, the dearest part of a look (bench/RESULTS.md):
 * a look for the history asks it only of the matches, one at a time.
 */
#define STMT_COMPLETED \
	"(SELECT COALESCE(SUM(s.COUNT_STAR), 0) FROM " \
	"performance_schema.events_statements_summary_by_thread_by_event_name s " \
	"WHERE s.THREAD_ID = t.THREAD_ID AND " \
	"s.EVENT_NAME NOT LIKE 'statement/sp/%%')"
#define STMT_COLUMNS STMT_HEAD STMT_COMPLETED
/* A statement runs: as the server's own sessions show it. */
#define STMT_RUNNING \
	"t.PROCESSLIST_COMMAND IN ('Query', 'Execute') AND " \
	"t.PROCESSLIST_INFO IS NOT NULL"

enum find_memory
pfs_sql_find_memory(const struct server_kind *k)
{
	if (k->flavour != SERVER_MYSQL)
		return FIND_SUMMED;
	/* threads.TOTAL_MEMORY and MAX_TOTAL_MEMORY came with 8.0.31. */
	if (k->major > 8 || (k->major == 8 && (k->minor > 0 || k->patch >= 31)))
		return FIND_THREADS;
	return FIND_INDEXED;
}

bool
pfs_sql_keeps_peaks(const struct server_kind *k)
{
	return k->flavour == SERVER_MARIADB ||
	    pfs_sql_find_memory(k) == FIND_THREADS;
}

bool
pfs_sql_sample_scans_threads(const struct server_kind *k)
{
	return k->flavour == SERVER_MARIADB;
}

bool
pfs_sql_has_memory_limits(const struct server_kind *k)
{
	return k->flavour == SERVER_MYSQL && (k->major > 8 || (k->major == 8 &&
	    (k->minor > 0 || k->patch >= 28)));
}

bool
pfs_sql_keeps_statement_peaks(const struct server_kind *k)
{
	/* events_statements_history.MAX_TOTAL_MEMORY came with 8.0.31. */
	return pfs_sql_find_memory(k) == FIND_THREADS;
}

/*
 * Only constant text goes into the SQL; the user's pattern and names are
 * parameters. Other mysqlmemprof sessions are left out: their own queries
 * could match the pattern.
 *
 * The thread's memory, how it is read, depends on the server (see
 * bench/RESULTS.md, "What a look costs", and doc/queries.md). MariaDB's
 * memory tables have no index: each correlated sum is a scan of every
 * thread's rows, so one GROUP BY over all of them, joined, costs one scan
 * whatever runs. MySQL 8 keys memory_summary_by_thread_by_event_name by
 * THREAD_ID, so a sum for each running statement reads only that
 * thread's rows, and HAVING keeps the threshold after it. MySQL 8.0.31
 * and later keep the sum itself in threads.TOTAL_MEMORY: one table.
 *
 * With peaks, the session's peak comes with each row (MySQL:
 * threads.MAX_TOTAL_MEMORY; MariaDB: information_schema.PROCESSLIST,
 * whose other accounts' rows need PROCESS, hence the LEFT JOIN), and the
 * rows are the candidates, flagged, and every other session whose peak
 * reaches the size, so that a session missing from a look is known to
 * have been under it then. HAVING, which can name the flag, picks them:
 * the flag's parameters come first, as the SELECT list does.
 *
 * With idle, each row says too whether it is a session that runs no
 * statement (passing the user, database and time), and such a session
 * holding the size is listed: it holds it as a statement would. Without
 * peaks that reads every foreground session's memory, where the plain
 * query reads only the running ones'.
 */
/*
 * The names a look's text gives its placeholders (?own_thread), each the
 * value of enum sql_arg at its place.
 */
static const char *const arg_names[SQL_ARG_KINDS] = {
	[SQL_OWN_THREAD] = "own_thread", [SQL_SECONDS] = "seconds",
	[SQL_PATTERN] = "pattern", [SQL_USER] = "user", [SQL_DB] = "db",
	[SQL_BYTES] = "bytes", [SQL_PEAK] = "peak",
	[SQL_IDLE_BYTES] = "idle_bytes",
};

/*
 * buf's named placeholders made plain ?, in place, their names into
 * args in the text's order: the parameters follow the text, whatever
 * parts it was made of. -1 when a ? has no known name (a bug here).
 */
static int
unname_args(char *buf, struct sql_args *args)
{
	char *in = buf, *out = buf;

	args->n = 0;
	while (*in != '\0') {
		size_t len;
		unsigned k;

		if ((*out++ = *in++) != '?')
			continue;
		len = strspn(in, "abcdefghijklmnopqrstuvwxyz_");
		for (k = 0; k < SQL_ARG_KINDS; k++)
			if (strlen(arg_names[k]) == len &&
			    strncmp(in, arg_names[k], len) == 0)
				break;
		if (k == SQL_ARG_KINDS || args->n == SQL_ARGS_MAX)
			return -1;
		args->v[args->n++] = (enum sql_arg)k;
		in += len;
	}
	*out = '\0';
	return 0;
}

static int
find_statements(char *buf, size_t size, const struct find_sql *q)
{
	const char *completed = q->completed ? STMT_COMPLETED : "0";
	const char *bytes, *from, *over;
	char filters[256], idle[256] = "";

	if (fits(snprintf(filters, sizeof(filters), "%s%s%s",
	    q->pattern ? " AND t.PROCESSLIST_INFO LIKE ?pattern" : "",
	    q->user ? " AND t.PROCESSLIST_USER = ?user" : "",
	    q->db ? " AND t.PROCESSLIST_DB = ?db" : ""), sizeof(filters)) != 0)
		return -1;
	/* An idle session has no text: the pattern is never asked of it. */
	if (q->idle && (q->pattern || q->bytes || fits(snprintf(idle,
	    sizeof(idle), ", (NOT (" STMT_RUNNING ") AND "
	    "t.PROCESSLIST_TIME >= ?seconds%s%s) AS idle",
	    q->user ? " AND t.PROCESSLIST_USER = ?user" : "",
	    q->db ? " AND t.PROCESSLIST_DB = ?db" : ""), sizeof(idle)) != 0))
		return -1;
	switch (q->memory) {
	case FIND_INDEXED:
		bytes = "(SELECT COALESCE(SUM(m." PFS_BYTES_USED "), 0) "
		    "FROM " PFS_THREAD_MEMORY " m "
		    "WHERE m.THREAD_ID = t.THREAD_ID)";
		from = "performance_schema.threads t";
		over = " HAVING bytes >= ?bytes";
		break;
	case FIND_THREADS:
		bytes = "t.TOTAL_MEMORY";
		from = "performance_schema.threads t";
		over = " AND t.TOTAL_MEMORY >= ?bytes";
		break;
	default:
		bytes = "m.bytes";
		from = "performance_schema.threads t JOIN "
		    "(SELECT THREAD_ID, SUM(" PFS_BYTES_USED ") AS bytes "
		    "FROM " PFS_THREAD_MEMORY " GROUP BY THREAD_ID) m "
		    "ON m.THREAD_ID = t.THREAD_ID";
		over = " AND m.bytes >= ?bytes";
		break;
	}
	if (q->peaks) {
		if (q->bytes || q->memory == FIND_INDEXED)
			return -1;
		return fits(snprintf(buf, size, "SELECT " STMT_HEAD "%s, "
		    "%s AS bytes, %s AS peak, (" STMT_RUNNING " AND "
		    "t.PROCESSLIST_TIME >= ?seconds%s) AS cand%s FROM %s%s "
		    "WHERE t.TYPE = 'FOREGROUND' AND t.INSTRUMENTED = 'YES' AND "
		    "t.THREAD_ID <> ?own_thread HAVING cand OR peak >= ?peak%s",
		    completed,
		    bytes, q->memory == FIND_THREADS ? "t.MAX_TOTAL_MEMORY" :
		    "p.MAX_MEMORY_USED", filters, idle, from,
		    q->memory == FIND_THREADS ? "" : " LEFT JOIN "
		    "information_schema.PROCESSLIST p ON p.ID = t.PROCESSLIST_ID",
		    q->idle ? " OR idle AND bytes >= ?idle_bytes" : ""), size);
	}
	/* Idle holders too: every session is read, and HAVING picks. */
	if (q->idle)
		return fits(snprintf(buf, size, "SELECT " STMT_HEAD "%s, "
		    "%s AS bytes, (" STMT_RUNNING " AND "
		    "t.PROCESSLIST_TIME >= ?seconds%s) AS cand%s FROM %s "
		    "WHERE t.TYPE = 'FOREGROUND' AND t.INSTRUMENTED = 'YES' AND "
		    "t.THREAD_ID <> ?own_thread HAVING cand OR idle AND "
		    "bytes >= ?idle_bytes",
		    completed, bytes, filters, idle, from), size);
	return fits(snprintf(buf, size, "SELECT " STMT_HEAD "%s, %s AS bytes "
	    "FROM %s WHERE t.TYPE = 'FOREGROUND' AND t.INSTRUMENTED = 'YES' AND "
	    STMT_RUNNING " AND t.THREAD_ID <> ?own_thread AND "
	    "t.PROCESSLIST_TIME >= ?seconds%s%s",
	    completed, bytes, from, filters, q->bytes ? over : ""), size);
}

int
pfs_sql_find_statements(char *buf, size_t size, const struct find_sql *q,
    struct sql_args *args)
{
	if (find_statements(buf, size, q) != 0)
		return -1;
	return unname_args(buf, args);
}

int
pfs_sql_thread_statement(char *buf, size_t size, uint64_t thread_id)
{
	return fits(snprintf(buf, size, "SELECT " STMT_COLUMNS ", "
	    STMT_RUNNING " FROM performance_schema.threads t "
	    "WHERE t.THREAD_ID = %" PRIu64, thread_id), size);
}

/*
 * A spike past the size in a session whose peak passed it already leaves
 * that peak as it was: the statement's own peak, which MySQL 8.0.31+
 * keeps in events_statements_history once it ends, shows it. The history
 * is keyed by (THREAD_ID, EVENT_ID): joined from threads, only the
 * sessions whose peak passed the size are read, a few rows each. The
 * caller keeps the EVENT_IDs it has seen, and sorts (the server's sort
 * cost more than the rows: doc/queries.md).
 */
int
pfs_sql_finished_over(char *buf, size_t size, bool seconds, bool pattern,
    bool user, bool db, struct sql_args *args)
{
	if (fits(snprintf(buf, size, "SELECT t.THREAD_ID, t.PROCESSLIST_ID, "
	    "h.EVENT_ID, h.TIMER_WAIT, h.MAX_TOTAL_MEMORY, t.TOTAL_MEMORY, "
	    "CONCAT(LENGTH(h.SQL_TEXT), ':', CRC32(h.SQL_TEXT)), "
	    "t.PROCESSLIST_USER, h.CURRENT_SCHEMA, LEFT(h.SQL_TEXT, 100) "
	    "FROM performance_schema.threads t "
	    "JOIN performance_schema.events_statements_history h "
	    "ON h.THREAD_ID = t.THREAD_ID "
	    "WHERE t.TYPE = 'FOREGROUND' AND t.INSTRUMENTED = 'YES' AND "
	    "t.THREAD_ID <> ?own_thread AND t.MAX_TOTAL_MEMORY >= ?bytes AND "
	    "h.NESTING_EVENT_LEVEL = 0 AND h.END_EVENT_ID IS NOT NULL AND "
	    "h.MAX_TOTAL_MEMORY >= ?bytes%s%s%s%s",
	    seconds ? " AND h.TIMER_WAIT >= ?seconds * 1000000000000" : "",
	    pattern ? " AND h.SQL_TEXT LIKE ?pattern" : "",
	    user ? " AND t.PROCESSLIST_USER = ?user" : "",
	    db ? " AND h.CURRENT_SCHEMA = ?db" : ""), size) != 0)
		return -1;
	return unname_args(buf, args);
}

/*
 * The memory columns of every reader, thread or grain, from the
 * memory_summary_* table whose alias (with its dot, or "") is p: the COL_
 * columns of pfs_read.c in order. MEMORY_USED leaves out the never-used
 * events: they are most rows, all zero.
 */
#define MEMORY_COLUMNS(p) \
	p "EVENT_NAME, " p PFS_BYTES_USED ", " p "CURRENT_COUNT_USED, " \
	p "HIGH_NUMBER_OF_BYTES_USED, " p "SUM_NUMBER_OF_BYTES_ALLOC, " \
	p "SUM_NUMBER_OF_BYTES_FREE, " p "COUNT_ALLOC, " p "COUNT_FREE"
#define MEMORY_USED(p) "(" p "COUNT_ALLOC > 0 OR " p "COUNT_FREE > 0)"

/*
 * One round trip per sample: the thread's memory rows, each with the
 * thread's top-level statement, running or, between statements, the last
 * one (events_statements_current keeps it, and fills its DIGEST in when it
 * ends; its END_EVENT_ID, once set, says it ended). Without that consumer the table keeps stale rows, so only
 * threads.PROCESSLIST_INFO, the running statement's text, is read. A
 * thread without memory in use still gives one row, its memory columns
 * NULL; a thread that ended gives none.
 *
 * Joined, not a UNION ALL of the memory rows and a row of the thread: on
 * MariaDB 10.11 the UNION cost the server some 30 us a sample, more than
 * the statement's tables, and brought the sample's cost to 1.04x that of
 * the bare memory query, against 0.99x joined (bench/RESULTS.md).
 *
 * The statement's table is joined before the memory rows: MySQL joins in
 * the order written, and the other way looked the thread's statement up
 * again for each memory row, 34 lookups a sample (1.22x the bare memory
 * query's cost to the server, paced; 0.95x this way on MySQL 9.7,
 * MMP_BENCH_ONLY=client bench/overhead.py); MariaDB scans each table once
 * either way. Read right after threads, the statement's row can be
 * missed while the next statement takes its place, PROCESSLIST_INFO
 * already the next one's: the text with no id is then not taken
 * (pfs_statement_row()). The thread id is a parameter, so the statement
 * is prepared once and each sample only executes it (conn_query_kept()).
 */
int
pfs_sql_thread_memory(char *buf, size_t size, bool statements,
    int text_chars)
{
	if (statements)
		return fits(snprintf(buf, size, "SELECT " MEMORY_COLUMNS("m.")
		    ", s.DIGEST, s.EVENT_ID, "
		    "LEFT(COALESCE(s.SQL_TEXT, t.PROCESSLIST_INFO), %d), "
		    "s.END_EVENT_ID "
		    "FROM performance_schema.threads t "
		    "LEFT JOIN performance_schema.events_statements_current s "
		    "ON s.THREAD_ID = t.THREAD_ID "
		    "AND s.NESTING_EVENT_LEVEL = 0 "
		    "LEFT JOIN " PFS_THREAD_MEMORY " m "
		    "ON m.THREAD_ID = t.THREAD_ID AND " MEMORY_USED("m.") " "
		    "WHERE t.THREAD_ID = ?", text_chars), size);
	return fits(snprintf(buf, size, "SELECT " MEMORY_COLUMNS("m.")
	    ", NULL, NULL, LEFT(t.PROCESSLIST_INFO, %d), NULL "
	    "FROM performance_schema.threads t "
	    "LEFT JOIN " PFS_THREAD_MEMORY " m "
	    "ON m.THREAD_ID = t.THREAD_ID AND " MEMORY_USED("m.") " "
	    "WHERE t.THREAD_ID = ?", text_chars), size);
}

static const char *const grain_tables[] = {
	[GRAIN_GLOBAL] = "memory_summary_global_by_event_name",
	[GRAIN_USER] = "memory_summary_by_user_by_event_name",
	[GRAIN_HOST] = "memory_summary_by_host_by_event_name",
	[GRAIN_ACCOUNT] = "memory_summary_by_account_by_event_name",
};

const char *
pfs_sql_grain_table(enum pfs_grain grain)
{
	return grain_tables[grain];
}

/* The WHERE conditions of a grain, which start with AND. */
static const char *
grain_cond(enum pfs_grain grain)
{
	switch (grain) {
	case GRAIN_USER: return " AND USER = ?";
	case GRAIN_HOST: return " AND HOST = ?";
	case GRAIN_ACCOUNT: return " AND USER = ? AND HOST = ?";
	default: return "";
	}
}

int
pfs_sql_grain_memory(char *buf, size_t size, enum pfs_grain grain)
{
	return fits(snprintf(buf, size, "SELECT " MEMORY_COLUMNS("")
	    " FROM performance_schema.%s WHERE " MEMORY_USED("") "%s",
	    grain_tables[grain], grain_cond(grain)), size);
}

int
pfs_sql_grain_rows(char *buf, size_t size, enum pfs_grain grain)
{
	/* "1 = 1" so that the condition, which starts with AND, follows. */
	return fits(snprintf(buf, size, "SELECT COUNT(*) FROM "
	    "performance_schema.%s WHERE 1 = 1%s", grain_tables[grain],
	    grain_cond(grain)), size);
}

int
pfs_sql_setup(char *buf, size_t size, uint64_t thread_id)
{
	/* The counts of the preflight and of the consumers' check, at once. */
	return fits(snprintf(buf, size, "SELECT "
	    "(SELECT COALESCE(SUM(ENABLED = 'YES' AND NAME NOT LIKE "
	    "'memory/performance\\_schema/%%'), 0) "
	    "FROM performance_schema.setup_instruments "
	    "WHERE NAME LIKE 'memory/%%'), "
	    "(SELECT COUNT(*) FROM performance_schema.setup_consumers "
	    "WHERE NAME IN ('global_instrumentation', 'thread_instrumentation', "
	    "'events_statements_current') AND ENABLED = 'YES'), "
	    "(SELECT INSTRUMENTED = 'YES' FROM performance_schema.threads "
	    "WHERE THREAD_ID = %" PRIu64 ")", thread_id), size);
}

/*
 * The exporter's threads of the whole server: the totals are summed and
 * cut to the limit before the join, so the server joins only those; the
 * digest is of the top-level statement, running or last.
 */
int
pfs_sql_top_threads(char *buf, size_t size, size_t limit)
{
	return fits(snprintf(buf, size, "SELECT t.THREAD_ID, t.NAME, "
	    "t.PROCESSLIST_USER, t.PROCESSLIST_HOST, s.DIGEST, m.bytes "
	    "FROM (SELECT THREAD_ID, SUM(" PFS_BYTES_USED ") AS bytes "
	    "FROM " PFS_THREAD_MEMORY " GROUP BY THREAD_ID "
	    "ORDER BY bytes DESC LIMIT %zu) m "
	    "JOIN performance_schema.threads t ON t.THREAD_ID = m.THREAD_ID "
	    "LEFT JOIN performance_schema.events_statements_current s "
	    "ON s.THREAD_ID = m.THREAD_ID AND s.NESTING_EVENT_LEVEL = 0 "
	    "ORDER BY m.bytes DESC, t.THREAD_ID", limit), size);
}

/*
 * The history of --wait-for and its kin: the memory rows of a few
 * threads and their top-level statements, as pfs_sql_thread_memory()
 * reads one thread's, with THREAD_ID after the kind. One round trip a
 * look; on MariaDB, one scan of every thread's rows, as the look itself.
 */
int
pfs_sql_threads_memory(char *buf, size_t size, const uint64_t *ids,
    size_t n, bool statements, int text_chars)
{
	char list[HISTORY_SQL_IDS * 21 + 1] = "";
	size_t len = 0;

	if (n == 0 || n > HISTORY_SQL_IDS)
		return -1;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%"
		    PRIu64, i > 0 ? "," : "", ids[i]);
	if (statements)
		return fits(snprintf(buf, size, "SELECT 'm', THREAD_ID, "
		    "EVENT_NAME, " PFS_BYTES_USED ", CURRENT_COUNT_USED, "
		    "HIGH_NUMBER_OF_BYTES_USED, SUM_NUMBER_OF_BYTES_ALLOC, "
		    "SUM_NUMBER_OF_BYTES_FREE, COUNT_ALLOC, COUNT_FREE, NULL "
		    "FROM " PFS_THREAD_MEMORY " WHERE THREAD_ID IN (%s) AND "
		    MEMORY_USED("") " UNION ALL "
		    "SELECT 't', t.THREAD_ID, s.DIGEST, NULL, NULL, NULL, NULL, "
		    "NULL, s.EVENT_ID, NULL, "
		    "LEFT(COALESCE(s.SQL_TEXT, t.PROCESSLIST_INFO), %d) "
		    "FROM performance_schema.threads t "
		    "LEFT JOIN performance_schema.events_statements_current s "
		    "ON s.THREAD_ID = t.THREAD_ID AND s.NESTING_EVENT_LEVEL = 0 "
		    "WHERE t.THREAD_ID IN (%s)", list, text_chars, list), size);
	return fits(snprintf(buf, size, "SELECT 'm', THREAD_ID, "
	    "EVENT_NAME, " PFS_BYTES_USED ", CURRENT_COUNT_USED, "
	    "HIGH_NUMBER_OF_BYTES_USED, SUM_NUMBER_OF_BYTES_ALLOC, "
	    "SUM_NUMBER_OF_BYTES_FREE, COUNT_ALLOC, COUNT_FREE, NULL "
	    "FROM " PFS_THREAD_MEMORY " WHERE THREAD_ID IN (%s) AND "
	    MEMORY_USED("") " UNION ALL "
	    "SELECT 't', THREAD_ID, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
	    "NULL, LEFT(PROCESSLIST_INFO, %d) "
	    "FROM performance_schema.threads WHERE THREAD_ID IN (%s)", list,
	    text_chars, list), size);
}

/*
 * The top-level statements one thread finished from an EVENT_ID on, with
 * the server's exact peak of each (MySQL 8.0.31+: MAX_TOTAL_MEMORY, the
 * session's largest total while it ran), oldest first. The table's key
 * is (THREAD_ID, EVENT_ID): a read of a few rows of one thread. The
 * consumer's row leads the join, so an answer always has a row that says
 * whether events_statements_history records at all; and the oldest
 * EVENT_ID the thread's history still holds, of any level, says whether
 * rows were pushed out before they were read (finished.c's gaps).
 */
int
pfs_sql_thread_history(char *buf, size_t size, int text_chars, int limit)
{
	return fits(snprintf(buf, size, "SELECT h.EVENT_ID, h.END_EVENT_ID, "
	    "h.DIGEST, LEFT(h.SQL_TEXT, %d), h.TIMER_WAIT, h.ROWS_SENT, "
	    "h.ROWS_EXAMINED, h.MAX_TOTAL_MEMORY, c.ENABLED = 'YES', "
	    "(SELECT MIN(o.EVENT_ID) FROM "
	    "performance_schema.events_statements_history o "
	    "WHERE o.THREAD_ID = ?) "
	    "FROM performance_schema.setup_consumers c "
	    "LEFT JOIN performance_schema.events_statements_history h "
	    "ON h.THREAD_ID = ? AND h.EVENT_ID >= ? AND "
	    "h.NESTING_EVENT_LEVEL = 0 AND h.END_EVENT_ID IS NOT NULL "
	    "WHERE c.NAME = 'events_statements_history' "
	    "ORDER BY h.EVENT_ID LIMIT %d", text_chars, limit), size);
}

/*
 * Every client connection but ours, for the record of the whole server
 * (conns.h): the columns of conn_row() in pfs_list.c, in order. The
 * event scheduler and MySQL's other 'Daemon' threads are foreground
 * threads with a connection id, but no client's.
 *
 * The time a command has run: MariaDB's TIME_MS; on MySQL, a running
 * top-level statement's TIMER_WAIT (the time so far, in picoseconds),
 * else PROCESSLIST_TIME's whole seconds.
 */
#define CONNS_TEXT_CHARS "1024"
#define CONNS_PFS_HEAD \
	"SELECT t.PROCESSLIST_ID, t.THREAD_ID, t.PROCESSLIST_USER, " \
	"t.PROCESSLIST_HOST, t.PROCESSLIST_DB, t.PROCESSLIST_COMMAND, " \
	"COALESCE(IF(s.END_EVENT_ID IS NULL, FLOOR(s.TIMER_WAIT / 1000000000), " \
	"NULL), t.PROCESSLIST_TIME * 1000), "
#define CONNS_PFS_TAIL \
	", " STMT_RUNNING ", s.DIGEST, " \
	"LEFT(t.PROCESSLIST_INFO, " CONNS_TEXT_CHARS ") " \
	"FROM performance_schema.threads t "
/*
 * The top-level statements, read once and joined: joined as a table, the
 * server looked up each thread's by scanning every thread's (MySQL 9.7.4
 * at 1,000 idle connections: 38-65 ms a read against 20 ms; MariaDB, whose
 * tables have no index: 290 ms against 73). DISTINCT changes no row (a
 * thread has one top-level statement) but keeps the server from merging
 * the derived table into the join.
 */
#define CONNS_PFS_JOIN_STATEMENT \
	"LEFT JOIN (SELECT DISTINCT THREAD_ID, END_EVENT_ID, TIMER_WAIT, " \
	"DIGEST FROM performance_schema.events_statements_current " \
	"WHERE NESTING_EVENT_LEVEL = 0) s ON s.THREAD_ID = t.THREAD_ID "
#define CONNS_PFS_WHERE \
	"WHERE t.TYPE = 'FOREGROUND' AND t.PROCESSLIST_ID IS NOT NULL AND " \
	"t.PROCESSLIST_ID <> CONNECTION_ID() AND " \
	"t.PROCESSLIST_COMMAND <> 'Daemon'"

/* MySQL 8.0.31+: the total and the peak kept in threads, one table. */
const char pfs_sql_connections_threads[] =
    CONNS_PFS_HEAD "t.TOTAL_MEMORY, t.MAX_TOTAL_MEMORY" CONNS_PFS_TAIL
    CONNS_PFS_JOIN_STATEMENT CONNS_PFS_WHERE;

/*
 * Each thread's memory rows summed, in one GROUP BY joined (as --list's),
 * and no peak: MySQL before 8.0.31.
 */
#define CONNS_PFS_SUMMED \
	"LEFT JOIN (SELECT THREAD_ID, SUM(" PFS_BYTES_USED ") AS bytes " \
	"FROM " PFS_THREAD_MEMORY " GROUP BY THREAD_ID) m " \
	"ON m.THREAD_ID = t.THREAD_ID "
const char pfs_sql_connections_summed[] =
    CONNS_PFS_HEAD "COALESCE(m.bytes, 0), NULL" CONNS_PFS_TAIL CONNS_PFS_SUMMED
    CONNS_PFS_JOIN_STATEMENT CONNS_PFS_WHERE;

/*
 * The same on MariaDB without PROCESS: the GROUP BY walks every thread's
 * rows (some 60-100 ms at 1,000 idle connections on 10.11, doc/queries.md),
 * so it is read at a slower beat, and no statement is joined: MariaDB
 * fills a statement's DIGEST in only once it ends. The time is in whole
 * seconds.
 */
const char pfs_sql_connections_no_process[] =
    "SELECT t.PROCESSLIST_ID, t.THREAD_ID, t.PROCESSLIST_USER, "
    "t.PROCESSLIST_HOST, t.PROCESSLIST_DB, t.PROCESSLIST_COMMAND, "
    "t.PROCESSLIST_TIME * 1000, COALESCE(m.bytes, 0), NULL, " STMT_RUNNING
    ", NULL, LEFT(t.PROCESSLIST_INFO, " CONNS_TEXT_CHARS ") "
    "FROM performance_schema.threads t " CONNS_PFS_SUMMED CONNS_PFS_WHERE;

/*
 * MariaDB's own accounting of each connection, MEMORY_USED and
 * MAX_MEMORY_USED (some 2 ms at 1,000 idle connections): no thread id
 * nor digest. Other accounts' rows show only with PROCESS.
 */
const char pfs_sql_connections_processlist[] =
    "SELECT p.ID, 0, p.USER, p.HOST, p.DB, p.COMMAND, FLOOR(p.TIME_MS), "
    "p.MEMORY_USED, p.MAX_MEMORY_USED, "
    "p.COMMAND IN ('Query', 'Execute') AND p.INFO IS NOT NULL, NULL, "
    "LEFT(p.INFO, " CONNS_TEXT_CHARS ") "
    "FROM information_schema.PROCESSLIST p "
    "WHERE p.ID <> CONNECTION_ID() AND p.COMMAND <> 'Daemon'";

/*
 * Whether our account holds PROCESS: USER_PRIVILEGES shows our own grants
 * ('user'@'host'), and every account's to whoever may read mysql.user,
 * hence the name. The host of CURRENT_USER() has no '@'; the user is what
 * comes before it. A role's grants do not show there (MariaDB 10.11): an
 * account that has PROCESS through a role is read the dear way.
 */
const char pfs_sql_process_privilege[] =
    "SELECT COUNT(*) FROM information_schema.USER_PRIVILEGES "
    "WHERE PRIVILEGE_TYPE = 'PROCESS' AND GRANTEE = "
    "CONCAT('''', LEFT(CURRENT_USER(), CHAR_LENGTH(CURRENT_USER()) - "
    "CHAR_LENGTH(SUBSTRING_INDEX(CURRENT_USER(), '@', -1)) - 1), "
    "'''@''', SUBSTRING_INDEX(CURRENT_USER(), '@', -1), '''')";

enum conns_way
pfs_sql_conns_way(const struct server_kind *k)
{
	if (k->flavour == SERVER_MARIADB)
		return CONNS_PROCESSLIST;
	return pfs_sql_find_memory(k) == FIND_THREADS ? CONNS_THREADS :
	    CONNS_SUMMED;
}

const char *
pfs_sql_connections(enum conns_way way)
{
	switch (way) {
	case CONNS_THREADS: return pfs_sql_connections_threads;
	case CONNS_PROCESSLIST: return pfs_sql_connections_processlist;
	case CONNS_NO_PROCESS: return pfs_sql_connections_no_process;
	default: return pfs_sql_connections_summed;
	}
}

/*
 * The layers of --explain (layers.h). performance_schema's memory now by
 * family: each event's family is one CASE, so every byte falls in exactly
 * one column and the five sum to the sixth. The sums are taken over a
 * derived table the optimizer merges, with no GROUP BY and nothing else in
 * the statement: a grouping, a GROUP_CONCAT(DISTINCT) or a derived table
 * that is materialized makes an internal temporary table, whose memory the
 * reading would count in itself (1 MiB of memory/temptable/ on MySQL 9.7.4,
 * hence the instruments apart, below). MySQL makes its internal temporary
 * tables in the TempTable engine; MariaDB in HEAP, the MEMORY engine, whose
 * instruments are memory/memory/ on both (HP_SHARE, HP_INFO, HP_PTRS,
 * HP_KEYDEF on 10.11.19 and 9.7.4).
 */
const char pfs_sql_counted_layers[] =
    "SELECT COALESCE(SUM(IF(m.f = 1, m.b, 0)), 0), "
    "COALESCE(SUM(IF(m.f = 2, m.b, 0)), 0), "
    "COALESCE(SUM(IF(m.f = 3, m.b, 0)), 0), "
    "COALESCE(SUM(IF(m.f = 4, m.b, 0)), 0), "
    "COALESCE(SUM(IF(m.f = 0, m.b, 0)), 0), COALESCE(SUM(m.b), 0) "
    "FROM (SELECT CASE "
    "WHEN EVENT_NAME = 'memory/innodb/buf_buf_pool' THEN 1 "
    "WHEN EVENT_NAME LIKE 'memory/innodb/%' THEN 2 "
    "WHEN EVENT_NAME LIKE 'memory/performance\\_schema/%' THEN 3 "
    "WHEN EVENT_NAME LIKE 'memory/temptable/%' OR "
    "EVENT_NAME LIKE 'memory/memory/%' THEN 4 ELSE 0 END AS f, "
    PFS_BYTES_USED " AS b "
    "FROM performance_schema.memory_summary_global_by_event_name) m";

/*
 * The memory instruments, those off, and the families of those off (the
 * second part of memory/FAMILY/NAME), distinct, in name order, ", "
 * between them. memory/performance_schema/ ones stay on whatever is asked
 * (both servers), so they are never off.
 */
const char pfs_sql_memory_instruments[] =
    "SELECT COUNT(*), COALESCE(SUM(s.d), 0), "
    "COALESCE(GROUP_CONCAT(DISTINCT IF(s.d, s.family, NULL) "
    "ORDER BY IF(s.d, s.family, NULL) SEPARATOR ', '), '') "
    "FROM (SELECT ENABLED <> 'YES' AS d, "
    "SUBSTRING_INDEX(SUBSTRING_INDEX(NAME, '/', 2), '/', -1) AS family "
    "FROM performance_schema.setup_instruments "
    "WHERE NAME LIKE 'memory/%') s";

/*
 * The global variables of MySQLTuner's estimate (layers.c's
 * estimate_vars[]), by name and value: MariaDB keeps them in
 * information_schema.GLOBAL_VARIABLES (it has no
 * performance_schema.global_variables: error 1146 on 10.11.19), MySQL in
 * performance_schema.global_variables (8.0 removed the
 * information_schema table). A variable the server lacks is no row. Both
 * compare the name without case; MariaDB gives it in capitals.
 */
int
pfs_sql_estimate(char *buf, size_t size, const struct server_kind *k)
{
	size_t len;
	int n;

	n = snprintf(buf, size, "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM %s "
	    "WHERE VARIABLE_NAME IN (", k->flavour == SERVER_MARIADB ?
	    "information_schema.GLOBAL_VARIABLES" :
	    "performance_schema.global_variables");
	if (fits(n, size) != 0)
		return -1;
	len = (size_t)n;
	for (size_t i = 0; estimate_vars[i].name != NULL; i++) {
		n = snprintf(buf + len, size - len, "%s'%s'", i > 0 ? ", " : "",
		    estimate_vars[i].name);
		if (fits(n, size - len) != 0)
			return -1;
		len += (size_t)n;
	}
	return fits(snprintf(buf + len, size - len, ")"), size - len);
}

/*
 * The connections' memory summed (layers.h's struct measured_connections),
 * every client connection but ours as pfs_sql_connections() reads them:
 * the count, the sum and the largest now, the sum and the largest peak
 * (NULL: none), the largest statement's peak and its digest's text (NULL:
 * none). Each way of enum conns_way. Only MySQL 8.0.31+ (CONNS_THREADS)
 * keeps statements' peaks, in events_statements_summary_by_digest since
 * the start (or a TRUNCATE): the largest of any statement, ours too.
 */
#define MEASURED_DIGEST \
	"(SELECT MAX(d.MAX_TOTAL_MEMORY) FROM " \
	"performance_schema.events_statements_summary_by_digest d), " \
	"(SELECT LEFT(d.DIGEST_TEXT, 255) FROM " \
	"performance_schema.events_statements_summary_by_digest d " \
	"ORDER BY d.MAX_TOTAL_MEMORY DESC LIMIT 1) "
static const char sql_measured_threads[] =
    "SELECT COUNT(*), COALESCE(SUM(t.TOTAL_MEMORY), 0), "
    "COALESCE(MAX(t.TOTAL_MEMORY), 0), COALESCE(SUM(t.MAX_TOTAL_MEMORY), 0), "
    "COALESCE(MAX(t.MAX_TOTAL_MEMORY), 0), " MEASURED_DIGEST
    "FROM performance_schema.threads t " CONNS_PFS_WHERE;
static const char sql_measured_summed[] =
    "SELECT COUNT(*), COALESCE(SUM(m.bytes), 0), COALESCE(MAX(m.bytes), 0), "
    "NULL, NULL, NULL, NULL FROM performance_schema.threads t "
    CONNS_PFS_SUMMED CONNS_PFS_WHERE;
static const char sql_measured_processlist[] =
    "SELECT COUNT(*), COALESCE(SUM(p.MEMORY_USED), 0), "
    "COALESCE(MAX(p.MEMORY_USED), 0), COALESCE(SUM(p.MAX_MEMORY_USED), 0), "
    "COALESCE(MAX(p.MAX_MEMORY_USED), 0), NULL, NULL "
    "FROM information_schema.PROCESSLIST p "
    "WHERE p.ID <> CONNECTION_ID() AND p.COMMAND <> 'Daemon'";

const char *
pfs_sql_measured_connections(enum conns_way way)
{
	switch (way) {
	case CONNS_THREADS: return sql_measured_threads;
	case CONNS_PROCESSLIST: return sql_measured_processlist;
	default: return sql_measured_summed;
	}
}
