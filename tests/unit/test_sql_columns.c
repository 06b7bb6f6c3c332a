/*
 * The SQL of pfs_sql.c against each kind of server, without a server:
 * every column a query names must be in a table it reads, as that server
 * defines the table (tests/unit/pfs_tables.h, with its sources); what the
 * server's version string says it is; and the widths the program keeps.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <setjmp.h>
#include <cmocka.h>

#include "pfs_sql.h"
#include "pfs_tables.h"
#include "statement.h"

#define N_FLAVOURS (sizeof(flavours) / sizeof(flavours[0]))

/* Every statement the program can send, made by the code that sends it. */
struct query {
	char name[64];
	char sql[4096];
	unsigned flavours; /* bit f: meant for flavours[f] alone; 0: for all */
};

static struct query queries[640];
static size_t n_queries;

static void
add_for(const char *name, const char *sql, unsigned flavours_mask)
{
	assert_true(n_queries < sizeof(queries) / sizeof(queries[0]));
	snprintf(queries[n_queries].name, sizeof(queries[0].name), "%s", name);
	assert_true(strlen(sql) < sizeof(queries[0].sql));
	strcpy(queries[n_queries].sql, sql);
	queries[n_queries].flavours = flavours_mask;
	n_queries++;
}

static void
add(const char *name, const char *sql)
{
	add_for(name, sql, 0);
}

/*
 * What the text says just before each placeholder of a look, by what
 * it stands for: the parameters bound in the text's order (pfs_look.c's
 * bind_args()) are each the value its place in the text asks for.
 */
static void
check_args(const char *sql, const struct sql_args *args)
{
	static const char *const before[SQL_ARG_KINDS][3] = {
		[SQL_OWN_THREAD] = { "t.THREAD_ID <> " },
		[SQL_SECONDS] = { "t.PROCESSLIST_TIME >= ", "h.TIMER_WAIT >= " },
		[SQL_PATTERN] = { "t.PROCESSLIST_INFO LIKE ", "h.SQL_TEXT LIKE " },
		[SQL_USER] = { "t.PROCESSLIST_USER = " },
		[SQL_DB] = { "t.PROCESSLIST_DB = ", "h.CURRENT_SCHEMA = " },
		[SQL_BYTES] = { "HAVING bytes >= ", "m.bytes >= ",
		    "TOTAL_MEMORY >= " },
		[SQL_PEAK] = { "peak >= " },
		[SQL_IDLE_BYTES] = { "idle AND bytes >= " },
	};
	const char *q = sql;
	unsigned i = 0;

	for (; (q = strchr(q, '?')) != NULL; q++, i++) {
		const char *const *b;
		bool found = false;

		if (i >= args->n)
			fail_msg("more placeholders than parameters in %s", sql);
		b = before[args->v[i]];
		for (size_t k = 0; k < 3 && b[k] != NULL; k++)
			found |= (size_t)(q - sql) >= strlen(b[k]) &&
			    strncmp(q - strlen(b[k]), b[k], strlen(b[k])) == 0;
		if (!found)
			fail_msg("parameter %u (kind %d) is not what its place "
			    "in the text asks for: ...%.40s", i, args->v[i],
			    q - 40 > sql ? q - 40 : sql);
	}
	assert_int_equal(i, args->n);
}

/*
 * Every combination of the filters of a look, as pfs_look.c asks it of
 * each flavour: the way its version says, with peaks where it keeps them.
 */
static void
add_looks(void)
{
	char sql[2048], name[64];
	struct sql_args args;

	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);
		enum find_memory memory = pfs_sql_find_memory(&k);

		for (unsigned i = 0; i < 128; i++) {
			/* Peaks where kept; idle holders without a pattern. */
			bool refused = ((i & 16) && ((i & 8) ||
			    !pfs_sql_keeps_peaks(&k))) ||
			    ((i & 64) && (i & 9));

			assert_int_equal(pfs_sql_find_statements(sql, sizeof(sql),
			    &(struct find_sql){ .pattern = i & 1, .user = i & 2,
			    .db = i & 4, .bytes = i & 8, .memory = memory,
			    .completed = !(i & 32), .peaks = i & 16,
			    .idle = i & 64 }, &args), refused ? -1 : 0);
			if (refused)
				continue;
			check_args(sql, &args);
			snprintf(name, sizeof(name), "find_statements %u", i);
			add_for(name, sql, 1u << f);
		}
	}
}

static void
make_queries(void)
{
	static const char *const grains[] = { "global", "user", "host",
	    "account" };
	char sql[4096], name[64];
	unsigned i;

	n_queries = 0;
	add("preflight", pfs_sql_preflight);
	add("memory_disabled", pfs_sql_memory_disabled);
	add("global_total", pfs_sql_global_total);
	add("enable_instruments", pfs_sql_enable_instruments);
	add("consumers_off", pfs_sql_consumers_off);
	/* connection_memory_limit and its kin: MySQL 8.0.28+ alone. */
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);

		if (pfs_sql_has_memory_limits(&k))
			add_for("memory_limits", pfs_sql_memory_limits, 1u << f);
	}
	add("list_threads summed", pfs_sql_list_threads_summed);
	/* The server's own count: MariaDB's, MySQL 8.0.28+'s. */
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);
		const char *text = pfs_sql_server_memory(&k);

		if (text != NULL)
			add_for("server_memory", text, 1u << f);
	}
	/* threads.TOTAL_MEMORY: MySQL 8.0.31+ alone has it. */
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);

		if (pfs_sql_list_threads(&k) == pfs_sql_list_threads_kept)
			add_for("list_threads kept", pfs_sql_list_threads_kept,
			    1u << f);
	}
	/* Every connection: the way of each kind, and the dear one too. */
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);
		enum conns_way way = pfs_sql_conns_way(&k);

		add_for("connections", pfs_sql_connections(way), 1u << f);
		if (way == CONNS_PROCESSLIST) {
			add_for("process_privilege", pfs_sql_process_privilege,
			    1u << f);
			add_for("connections without PROCESS",
			    pfs_sql_connections(CONNS_NO_PROCESS), 1u << f);
		}
	}
	/* The layers of --explain: each kind's variables and connections' way. */
	add("counted_layers", pfs_sql_counted_layers);
	add("memory_instruments", pfs_sql_memory_instruments);
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);
		enum conns_way way = pfs_sql_conns_way(&k);

		/* pfs_check.c's buffer: 1024. */
		assert_int_equal(pfs_sql_estimate(sql, 1024, &k), 0);
		add_for("estimate", sql, 1u << f);
		add_for("measured_connections",
		    pfs_sql_measured_connections(way), 1u << f);
		if (way == CONNS_PROCESSLIST)
			add_for("measured_connections without PROCESS",
			    pfs_sql_measured_connections(CONNS_NO_PROCESS),
			    1u << f);
	}
	/*
	 * The sizes of the callers' buffers: pfs_check.c 200, pfs_look.c
	 * 2048 and 1024, pfs_read.c 2048 and 300.
	 */
	assert_int_equal(pfs_sql_find_thread(sql, 200, true, 42), 0);
	add("find_thread by connection", sql);
	assert_int_equal(pfs_sql_find_thread(sql, 200, false, 42), 0);
	add("find_thread by thread", sql);
	add_looks();
	{
		static const uint64_t ids[HISTORY_SQL_IDS] = { 1, 2, 3, 4, 5,
		    6, 7, UINT64_MAX };

		/* pfs_look.c's buffer: 4096. */
		assert_int_equal(pfs_sql_threads_memory(sql, 4096, ids,
		    HISTORY_SQL_IDS, true, STATEMENT_TEXT_CHARS), 0);
		add("threads_memory with statements", sql);
		assert_int_equal(pfs_sql_threads_memory(sql, 4096, ids,
		    HISTORY_SQL_IDS, false, STATEMENT_TEXT_CHARS), 0);
		add("threads_memory without statements", sql);
	}
	assert_int_equal(pfs_sql_thread_statement(sql, 1024, 42), 0);
	add("thread_statement", sql);
	/* pfs_read.c's buffer: 1024; only where statements' peaks are kept. */
	assert_int_equal(pfs_sql_thread_history(sql, 1024, STATEMENT_TEXT_CHARS,
	    PFS_HISTORY_ROWS), 0);
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);

		if (pfs_sql_keeps_statement_peaks(&k))
			add_for("thread_history", sql, 1u << f);
	}
	/* pfs_look.c's buffer: 1536; every filter, only where those peaks are. */
	for (unsigned w = 0; w < 16; w++) {
		struct sql_args args;

		assert_int_equal(pfs_sql_finished_over(sql, 1536, w & 1, w & 2,
		    w & 4, w & 8, &args), 0);
		check_args(sql, &args);
	}
	assert_int_equal(pfs_sql_finished_over(sql, 1536, true, true, true,
	    true, &(struct sql_args){ .n = 0 }), 0);
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		struct server_kind k = pfs_server_kind_parse(flavours[f].version);

		if (pfs_sql_keeps_statement_peaks(&k))
			add_for("finished_over", sql, 1u << f);
	}
	assert_int_equal(pfs_sql_setup(sql, 800, 42), 0);
	add("setup", sql);
	/* pfs_list.c's buffer is 1024. */
	assert_int_equal(pfs_sql_top_threads(sql, 1024, 10000), 0);
	add("top_threads", sql);
	assert_int_equal(pfs_sql_thread_memory(sql, 2048, true,
	    STATEMENT_TEXT_CHARS), 0);
	add("thread_memory with statements", sql);
	assert_int_equal(pfs_sql_thread_memory(sql, 2048, false,
	    STATEMENT_TEXT_CHARS), 0);
	add("thread_memory without statements", sql);
	for (i = GRAIN_GLOBAL; i <= GRAIN_ACCOUNT; i++) {
		assert_int_equal(pfs_sql_grain_memory(sql, 2048, i), 0);
		snprintf(name, sizeof(name), "grain_memory %s", grains[i]);
		add(name, sql);
		/* pfs_check_grain() asks nothing for the whole server. */
		if (i == GRAIN_GLOBAL)
			continue;
		assert_int_equal(pfs_sql_grain_rows(sql, 300, i), 0);
		snprintf(name, sizeof(name), "grain_rows %s", grains[i]);
		add(name, sql);
	}
}

/* --- A small reader of the SQL: enough for the statements above. --- */

enum tok_kind { TOK_END, TOK_WORD, TOK_OTHER };

struct tok {
	enum tok_kind kind;
	char text[64];
	char next;   /* the first character after it, blanks skipped */
};

/*
 * Splits sql into words and single characters; strings and @@x are left
 * out. The statement must fit in max - 1 of them.
 */
static size_t
tokenize(const char *s, struct tok *t, size_t max)
{
	size_t n = 0;

	while (*s != '\0') {
		assert_true(n + 1 < max);
		if (*s == ' ' || *s == '\n' || *s == '\t') {
			s++;
		} else if (*s == '\'') {
			for (s++; *s != '\0' && *s != '\''; s++)
				if (*s == '\\' && s[1] != '\0')
					s++;
			if (*s == '\'')
				s++;
		} else if (*s == '@') {
			while (*s == '@' || *s == '_' || (*s >= 'a' && *s <= 'z') ||
			    (*s >= 'A' && *s <= 'Z'))
				s++;
		} else if (*s == '_' || (*s >= 'a' && *s <= 'z') ||
		    (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')) {
			size_t len = 0;

			t[n].kind = TOK_WORD;
			while ((*s == '_' || (*s >= 'a' && *s <= 'z') ||
			    (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')) &&
			    len + 1 < sizeof(t[n].text))
				t[n].text[len++] = *s++;
			t[n].text[len] = '\0';
			n++;
		} else {
			t[n].kind = TOK_OTHER;
			t[n].text[0] = *s++;
			t[n].text[1] = '\0';
			n++;
		}
	}
	t[n].kind = TOK_END;
	t[n].text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		t[i].next = t[i + 1].text[0];
	return n;
}

static bool
is_keyword(const char *w)
{
	static const char *const kw[] = { "SELECT", "FROM", "WHERE", "AND",
	    "OR", "NOT", "IN", "LIKE", "IS", "NULL", "AS", "ON", "LEFT", "JOIN",
	    "GROUP", "BY", "HAVING", "ORDER", "DESC", "ASC", "UNION", "ALL", "EXISTS",
	    "DISTINCT", "CASE", "WHEN", "THEN", "ELSE", "END", "SEPARATOR",
	    "UPDATE", "SET", "LIMIT", NULL };

	for (size_t i = 0; kw[i] != NULL; i++)
		if (strcmp(w, kw[i]) == 0)
			return true;
	return false;
}

/* A column name as this program writes them: capitals, digits, '_'. */
static bool
is_column_word(const char *w)
{
	bool letter = false;

	for (; *w != '\0'; w++) {
		if (*w >= 'A' && *w <= 'Z')
			letter = true;
		else if (!(*w == '_' || (*w >= '0' && *w <= '9')))
			return false;
	}
	return letter;
}

static const struct table_def *
find_table(const struct table_def *defs, const char *name)
{
	for (; defs->name != NULL; defs++)
		if (strcmp(defs->name, name) == 0)
			return defs;
	return NULL;
}

/* Whether "NAME type, NAME type" has a column called name. */
static bool
has_column(const struct table_def *t, const char *name)
{
	size_t len = strlen(name);
	const char *p = t->columns;

	while (*p != '\0') {
		while (*p == ' ' || *p == ',')
			p++;
		if (strncmp(p, name, len) == 0 && (p[len] == ' ' ||
		    p[len] == ',' || p[len] == '\0'))
			return true;
		while (*p != '\0' && *p != ',')
			p++;
	}
	return false;
}

struct ref {
	const char *alias; /* or the table's own name */
	const struct table_def *table;
};

/*
 * Checks that each column sql names is in a table it reads from defs.
 * Returns the number of columns checked, or -1 with why in err.
 */
static int
check_sql(const char *sql, const struct table_def *defs, char *err,
    size_t errlen)
{
	static struct tok t[1024];
	struct ref refs[16];
	size_t n, nrefs = 0, i;
	int checked = 0;

	n = tokenize(sql, t, sizeof(t) / sizeof(t[0]));
	/*
	 * The tables: performance_schema.NAME (or information_schema.NAME),
	 * then an alias if one follows.
	 */
	for (i = 0; i + 2 < n; i++) {
		bool is = strcmp(t[i].text, "information_schema") == 0;
		char name[160];

		if ((!is && strcmp(t[i].text, "performance_schema") != 0) ||
		    t[i + 1].text[0] != '.')
			continue;
		snprintf(name, sizeof(name), "%s%s", is ?
		    "information_schema." : "", t[i + 2].text);
		const struct table_def *d = find_table(defs, name);
		if (d == NULL) {
			snprintf(err, errlen, "no table %s", name);
			return -1;
		}
		assert_true(nrefs + 2 <= sizeof(refs) / sizeof(refs[0]));
		refs[nrefs++] = (struct ref){ d->name, d };
		if (t[i + 3].kind == TOK_WORD && !is_keyword(t[i + 3].text))
			refs[nrefs++] = (struct ref){ t[i + 3].text, d };
	}
	for (i = 0; i < n; i++) {
		const char *w = t[i].text;
		const char *alias = NULL;
		bool found = false;

		if (t[i].kind != TOK_WORD || !is_column_word(w) ||
		    is_keyword(w) || t[i].next == '(')
			continue;
		if (i >= 2 && t[i - 1].text[0] == '.') {
			alias = t[i - 2].text;
			if (strcmp(alias, "performance_schema") == 0 ||
			    strcmp(alias, "information_schema") == 0)
				continue;
		}
		for (size_t r = 0; r < nrefs; r++) {
			if (alias != NULL && strcmp(refs[r].alias, alias) != 0)
				continue;
			if (has_column(refs[r].table, w))
				found = true;
		}
		/* An alias of a derived table: any table read may give it. */
		if (!found && alias != NULL) {
			bool known = false;
			for (size_t r = 0; r < nrefs; r++)
				known |= strcmp(refs[r].alias, alias) == 0;
			for (size_t r = 0; !known && r < nrefs; r++)
				found |= has_column(refs[r].table, w);
		}
		if (!found) {
			snprintf(err, errlen, "no column %s%s%s in the tables read",
			    alias != NULL ? alias : "", alias != NULL ? "." : "",
			    w);
			return -1;
		}
		checked++;
	}
	return checked;
}

/* --- The tests. --- */

static void
test_columns_exist(void **state)
{
	char err[256];
	int total = 0, bad = 0;

	(void)state;
	make_queries();
	/* Every flavour and query is tried, so one run names all that fail. */
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		for (size_t q = 0; q < n_queries; q++) {
			if (queries[q].flavours != 0 &&
			    !(queries[q].flavours & (1u << f)))
				continue;
			int c = check_sql(queries[q].sql, flavours[f].tables, err,
			    sizeof(err));
			/* Only SELECT @@performance_schema names no column. */
			bool none = c == 0 &&
			    strcmp(queries[q].name, "pfs_enabled") != 0;

			if (none)
				snprintf(err, sizeof(err), "no column found");
			if (c < 0 || none) {
				print_error("%s, query %s: %s\n", flavours[f].name,
				    queries[q].name, err);
				bad++;
			}
			total += c > 0 ? c : 0;
		}
	}
	assert_int_equal(bad, 0);
	/* The reader reads: a checker that saw nothing would pass anything. */
	assert_true(total > 300);
}

/* The checker refuses what a server lacks, so the test above can fail. */
static void
test_checker_can_fail(void **state)
{
	char err[256];

	(void)state;
	/* EXECUTION_ENGINE: in MySQL 8.0.28+ threads only. */
	static const char engine[] = "SELECT t.EXECUTION_ENGINE FROM "
	    "performance_schema.threads t WHERE t.THREAD_ID = 1";
	assert_int_equal(check_sql(engine, mariadb_10_11, err, sizeof(err)),
	    -1);
	assert_string_equal(err, "no column t.EXECUTION_ENGINE in the tables "
	    "read");
	assert_int_equal(check_sql(engine, mysql_8_0, err, sizeof(err)), -1);
	assert_int_equal(check_sql(engine, mysql_8_4, err, sizeof(err)), 2);
	/* A column of another table read in the same statement is no excuse. */
	assert_int_equal(check_sql("SELECT t.EVENT_NAME FROM "
	    "performance_schema.threads t, performance_schema."
	    "memory_summary_global_by_event_name m", mysql_8_4, err,
	    sizeof(err)), -1);
	/* Unqualified: must be in some table read. */
	assert_int_equal(check_sql("SELECT CPU_TIME FROM performance_schema."
	    "events_statements_current", mariadb_10_11, err, sizeof(err)), -1);
	assert_int_equal(check_sql("SELECT CPU_TIME FROM performance_schema."
	    "events_statements_current", mysql_8_4, err, sizeof(err)), 1);
	/* A table the server does not have. */
	assert_int_equal(check_sql("SELECT ID FROM performance_schema."
	    "processlist", mariadb_10_11, err, sizeof(err)), -1);
	assert_string_equal(err, "no table processlist");
	/* Words in strings and functions are not columns. */
	assert_int_equal(check_sql("SELECT COUNT(*) FROM performance_schema."
	    "setup_consumers WHERE NAME = 'NO_SUCH_COLUMN'", mariadb_10_11, err,
	    sizeof(err)), 1);
}

/* The digest each server gives fits the program's buffer. */
static void
test_widths(void **state)
{
	(void)state;
	for (size_t f = 0; f < N_FLAVOURS; f++) {
		const struct table_def *t = find_table(flavours[f].tables,
		    "events_statements_current");
		const char *p;
		unsigned width = 0;

		assert_non_null(t);
		p = strstr(t->columns, "DIGEST varchar(");
		assert_non_null(p);
		width = (unsigned)strtoul(p + strlen("DIGEST varchar("), NULL,
		    10);
		assert_true(width == 32 || width == 64);
		if (width > STATEMENT_DIGEST_MAX)
			fail_msg("%s: DIGEST varchar(%u) does not fit "
			    "STATEMENT_DIGEST_MAX %d", flavours[f].name, width,
			    STATEMENT_DIGEST_MAX);
	}
}

static void
kind_is(const char *version, enum server_flavour flavour, unsigned major,
    unsigned minor, unsigned patch)
{
	struct server_kind k = pfs_server_kind_parse(version);

	assert_int_equal(k.flavour, flavour);
	assert_int_equal(k.major, major);
	assert_int_equal(k.minor, minor);
	assert_int_equal(k.patch, patch);
}

static void
test_server_kind(void **state)
{
	(void)state;
	kind_is("10.11.6-MariaDB-0+deb12u1", SERVER_MARIADB, 10, 11, 6);
	kind_is("11.4.2-MariaDB", SERVER_MARIADB, 11, 4, 2);
	/* MariaDB's replication prefix, as Oracle's library shows it. */
	kind_is("5.5.5-10.4.32-MariaDB-log", SERVER_MARIADB, 10, 4, 32);
	kind_is("8.0.36", SERVER_MYSQL, 8, 0, 36);
	kind_is("8.0.36-0ubuntu0.22.04.1", SERVER_MYSQL, 8, 0, 36);
	kind_is("8.4.0-commercial", SERVER_MYSQL, 8, 4, 0);
	kind_is("8.0.35-27", SERVER_MYSQL, 8, 0, 35); /* Percona Server */
	kind_is("5.7.44-log", SERVER_MYSQL, 5, 7, 44);
	kind_is("8.4", SERVER_MYSQL, 8, 4, 0);
	/* Not a version: nothing is assumed. */
	kind_is("", SERVER_UNKNOWN, 0, 0, 0);
	kind_is("MariaDB", SERVER_UNKNOWN, 0, 0, 0);
	kind_is("8", SERVER_UNKNOWN, 0, 0, 0);
	kind_is("x8.0.1", SERVER_UNKNOWN, 0, 0, 0);
	kind_is(NULL, SERVER_UNKNOWN, 0, 0, 0);
	/* Every flavour of the table data is one the parser knows. */
	for (size_t f = 0; f < N_FLAVOURS; f++)
		assert_int_not_equal(pfs_server_kind_parse(
		    flavours[f].version).flavour, SERVER_UNKNOWN);
}

static void
check_ok(const char *version)
{
	struct server_kind k = pfs_server_kind_parse(version);
	char err[256] = "";

	if (pfs_server_kind_check(&k, err, sizeof(err)) != 0)
		fail_msg("%s refused: %s", version, err);
}

static void
test_server_check(void **state)
{
	struct server_kind k;
	char err[256];

	(void)state;
	for (size_t f = 0; f < N_FLAVOURS; f++)
		check_ok(flavours[f].version);
	check_ok("10.5.0-MariaDB");
	check_ok("11.4.2-MariaDB");
	check_ok("5.7.44");
	check_ok("9.1.0");
	check_ok("something else");

	k = pfs_server_kind_parse("10.4.32-MariaDB");
	assert_int_equal(pfs_server_kind_check(&k, err, sizeof(err)), -1);
	assert_string_equal(err, "MariaDB 10.4 has no memory instrumentation "
	    "in performance_schema (no memory_summary_* tables); mysqlmemprof "
	    "needs MariaDB 10.5 or later, or MySQL 8.0 or later");
	k = pfs_server_kind_parse("5.5.5-10.3.39-MariaDB");
	assert_int_equal(pfs_server_kind_check(&k, err, sizeof(err)), -1);
	k = pfs_server_kind_parse("5.6.51");
	assert_int_equal(pfs_server_kind_check(&k, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "MySQL 5.6 has no memory"));
}

/* Which way a look reads memory, and where it has peaks, by version. */
static void
test_find_memory(void **state)
{
	static const struct {
		const char *version;
		enum find_memory memory;
		bool peaks;
		bool limits; /* connection_memory_limit */
		bool statement_peaks;
		enum conns_way conns;
	} cases[] = {
		{ "10.11.19-MariaDB-0+deb12u1", FIND_SUMMED, true, false, false,
		  CONNS_PROCESSLIST },
		{ "5.5.5-10.5.27-MariaDB", FIND_SUMMED, true, false, false,
		  CONNS_PROCESSLIST },
		{ "8.0.27", FIND_INDEXED, false, false, false, CONNS_SUMMED },
		{ "8.0.28", FIND_INDEXED, false, true, false, CONNS_SUMMED },
		{ "8.0.30", FIND_INDEXED, false, true, false, CONNS_SUMMED },
		{ "8.0.31", FIND_THREADS, true, true, true, CONNS_THREADS },
		{ "8.4.3", FIND_THREADS, true, true, true, CONNS_THREADS },
		{ "9.7.4-2", FIND_THREADS, true, true, true, CONNS_THREADS },
		{ "5.7.44-log", FIND_INDEXED, false, false, false, CONNS_SUMMED },
		{ "unknown", FIND_SUMMED, false, false, false, CONNS_SUMMED },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct server_kind k = pfs_server_kind_parse(cases[i].version);

		assert_int_equal(pfs_sql_find_memory(&k), cases[i].memory);
		assert_int_equal(pfs_sql_keeps_peaks(&k), cases[i].peaks);
		assert_int_equal(pfs_sql_has_memory_limits(&k),
		    cases[i].limits);
		assert_int_equal(pfs_sql_keeps_statement_peaks(&k),
		    cases[i].statement_peaks);
		assert_int_equal(pfs_sql_conns_way(&k), cases[i].conns);
	}
}

/*
 * A sample's statement joins the thread's statement before its memory
 * rows: MySQL joins in the order written, and the memory rows first had
 * it look the statement up once a row (pfs_sql_thread_memory()).
 */
static void
test_statement_joined_first(void **state)
{
	char sql[2048];
	const char *s, *m;

	(void)state;
	assert_int_equal(pfs_sql_thread_memory(sql, sizeof(sql), true, 200), 0);
	s = strstr(sql, "JOIN performance_schema.events_statements_current");
	m = strstr(sql,
	    "JOIN performance_schema.memory_summary_by_thread_by_event_name");
	assert_non_null(s);
	assert_non_null(m);
	assert_true(s < m);
}

/*
 * The own count's query takes the id as its parameter, so that it stays
 * prepared (pfs_own_count()): MariaDB's by connection, MySQL's by thread;
 * none where the server keeps no count.
 */
static void
test_own_count_param(void **state)
{
	struct server_kind mariadb = pfs_server_kind_parse("10.11.6-MariaDB");
	struct server_kind mysql = pfs_server_kind_parse("9.1.0");
	struct server_kind old = pfs_server_kind_parse("8.0.20");
	uint64_t param = 0;
	char sql[200];

	(void)state;
	assert_int_equal(pfs_sql_own_count(sql, sizeof(sql), &mariadb, 42, 7,
	    &param), 0);
	assert_true(param == 7);
	assert_non_null(strstr(sql, "WHERE ID = ?"));
	assert_null(strchr(strchr(sql, '?') + 1, '?'));
	assert_int_equal(pfs_sql_own_count(sql, sizeof(sql), &mysql, 42, 7,
	    &param), 0);
	assert_true(param == 42);
	assert_non_null(strstr(sql, "t.THREAD_ID = ?"));
	assert_null(strchr(strchr(sql, '?') + 1, '?'));
	assert_int_equal(pfs_sql_own_count(sql, sizeof(sql), &old, 42, 7,
	    &param), -1);
}

/* A statement made from parts says when it does not fit. */
static void
test_too_small(void **state)
{
	char small[64];

	(void)state;
	assert_int_equal(pfs_sql_thread_memory(small, sizeof(small), true,
	    200), -1);
	assert_int_equal(pfs_sql_find_statements(small, sizeof(small),
	    &(struct find_sql){ .pattern = true, .user = true, .db = true,
	    .completed = true }, &(struct sql_args){ .n = 0 }), -1);
	assert_int_equal(pfs_sql_grain_memory(small, sizeof(small),
	    GRAIN_ACCOUNT), -1);
	assert_string_equal(pfs_sql_grain_table(GRAIN_HOST),
	    "memory_summary_by_host_by_event_name");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns_exist),
		cmocka_unit_test(test_checker_can_fail),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_server_kind),
		cmocka_unit_test(test_server_check),
		cmocka_unit_test(test_find_memory),
		cmocka_unit_test(test_statement_joined_first),
		cmocka_unit_test(test_own_count_param),
		cmocka_unit_test(test_too_small),
	};
	return cmocka_run_group_tests_name("sql_columns", tests, NULL, NULL);
}
