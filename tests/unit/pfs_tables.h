/*
 * The performance_schema tables mysqlmemprof reads, as each kind of server
 * defines them: data for tests/unit/test_sql_columns.c. Each table is its
 * columns with their types, as "NAME type, NAME type", copied from the
 * source named beside it; doc/queries.md lists the same sources.
 *
 * A table lists only columns seen in a source; a query that reads a column
 * not listed fails the test until someone reads the source again.
 */
#ifndef MYSQLMEMPROF_TEST_PFS_TABLES_H
#define MYSQLMEMPROF_TEST_PFS_TABLES_H

struct table_def {
	const char *name;    /* in performance_schema, or information_schema.NAME */
	const char *columns; /* "NAME type, ..." */
};

struct flavour_def {
	const char *name;
	const char *version;          /* a version string such a server gives */
	const struct table_def *tables; /* ends with { NULL, NULL } */
};

/* Memory columns: the same in every flavour below. */
#define MEMORY_COUNTERS \
	"COUNT_ALLOC bigint unsigned, COUNT_FREE bigint unsigned, " \
	"SUM_NUMBER_OF_BYTES_ALLOC bigint unsigned, " \
	"SUM_NUMBER_OF_BYTES_FREE bigint unsigned, LOW_COUNT_USED bigint, " \
	"CURRENT_COUNT_USED bigint, HIGH_COUNT_USED bigint, " \
	"LOW_NUMBER_OF_BYTES_USED bigint, CURRENT_NUMBER_OF_BYTES_USED bigint, " \
	"HIGH_NUMBER_OF_BYTES_USED bigint"

/* events_statements_current up to NESTING_EVENT_LEVEL; DIGEST follows. */
#define STATEMENTS_HEAD \
	"THREAD_ID bigint unsigned, EVENT_ID bigint unsigned, " \
	"END_EVENT_ID bigint unsigned, EVENT_NAME varchar(128), " \
	"SOURCE varchar(64), TIMER_START bigint unsigned, " \
	"TIMER_END bigint unsigned, TIMER_WAIT bigint unsigned, " \
	"LOCK_TIME bigint unsigned, SQL_TEXT longtext, "
#define STATEMENTS_TAIL \
	"DIGEST_TEXT longtext, CURRENT_SCHEMA varchar(64), " \
	"OBJECT_TYPE varchar(64), OBJECT_SCHEMA varchar(64), " \
	"OBJECT_NAME varchar(64), OBJECT_INSTANCE_BEGIN bigint unsigned, " \
	"MYSQL_ERRNO int, RETURNED_SQLSTATE varchar(5), " \
	"MESSAGE_TEXT varchar(128), ERRORS bigint unsigned, " \
	"WARNINGS bigint unsigned, ROWS_AFFECTED bigint unsigned, " \
	"ROWS_SENT bigint unsigned, ROWS_EXAMINED bigint unsigned, " \
	"CREATED_TMP_DISK_TABLES bigint unsigned, " \
	"CREATED_TMP_TABLES bigint unsigned, SELECT_FULL_JOIN bigint unsigned, " \
	"SELECT_FULL_RANGE_JOIN bigint unsigned, SELECT_RANGE bigint unsigned, " \
	"SELECT_RANGE_CHECK bigint unsigned, SELECT_SCAN bigint unsigned, " \
	"SORT_MERGE_PASSES bigint unsigned, SORT_RANGE bigint unsigned, " \
	"SORT_ROWS bigint unsigned, SORT_SCAN bigint unsigned, " \
	"NO_INDEX_USED bigint unsigned, NO_GOOD_INDEX_USED bigint unsigned, " \
	"NESTING_EVENT_ID bigint unsigned, NESTING_EVENT_TYPE enum, " \
	"NESTING_EVENT_LEVEL int"

/* The first columns of events_statements_summary_by_thread_by_event_name. */
#define STATEMENT_SUMMARY \
	"THREAD_ID bigint unsigned, EVENT_NAME varchar(128), " \
	"COUNT_STAR bigint unsigned, SUM_TIMER_WAIT bigint unsigned, " \
	"MIN_TIMER_WAIT bigint unsigned, AVG_TIMER_WAIT bigint unsigned, " \
	"MAX_TIMER_WAIT bigint unsigned, SUM_LOCK_TIME bigint unsigned, " \
	"SUM_ERRORS bigint unsigned, SUM_WARNINGS bigint unsigned, " \
	"SUM_ROWS_AFFECTED bigint unsigned, SUM_ROWS_SENT bigint unsigned, " \
	"SUM_ROWS_EXAMINED bigint unsigned"

/*
 * MariaDB 10.11.19 (Debian 12), the server the integration tests run:
 * information_schema.COLUMNS of a running server. MariaDB 10.5 took the
 * performance_schema of MySQL 5.7; its sources agree for the tables read
 * (MariaDB/server storage/perfschema/table_threads.cc with column
 * comments, table_mems_by_thread_by_event_name.cc at 0ea717f5).
 */
static const struct table_def mariadb_10_11[] = {
	{ "threads",
	  "THREAD_ID bigint unsigned, NAME varchar(128), TYPE varchar(10), "
	  "PROCESSLIST_ID bigint unsigned, PROCESSLIST_USER varchar(128), "
	  "PROCESSLIST_HOST varchar(255), PROCESSLIST_DB varchar(64), "
	  "PROCESSLIST_COMMAND varchar(16), PROCESSLIST_TIME bigint, "
	  "PROCESSLIST_STATE varchar(64), PROCESSLIST_INFO longtext, "
	  "PARENT_THREAD_ID bigint unsigned, ROLE varchar(64), "
	  "INSTRUMENTED enum, HISTORY enum, CONNECTION_TYPE varchar(16), "
	  "THREAD_OS_ID bigint unsigned" },
	{ "memory_summary_by_thread_by_event_name",
	  "THREAD_ID bigint unsigned, EVENT_NAME varchar(128), " MEMORY_COUNTERS },
	{ "memory_summary_global_by_event_name",
	  "EVENT_NAME varchar(128), " MEMORY_COUNTERS },
	{ "memory_summary_by_user_by_event_name",
	  "USER char(32), EVENT_NAME varchar(128), " MEMORY_COUNTERS },
	{ "memory_summary_by_host_by_event_name",
	  "HOST char(60), EVENT_NAME varchar(128), " MEMORY_COUNTERS },
	{ "memory_summary_by_account_by_event_name",
	  "USER char(32), HOST char(60), EVENT_NAME varchar(128), "
	  MEMORY_COUNTERS },
	{ "events_statements_current",
	  STATEMENTS_HEAD "DIGEST varchar(32), " STATEMENTS_TAIL },
	{ "events_statements_history",
	  STATEMENTS_HEAD "DIGEST varchar(32), " STATEMENTS_TAIL },
	{ "events_statements_summary_by_thread_by_event_name",
	  STATEMENT_SUMMARY },
	{ "setup_instruments",
	  "NAME varchar(128), ENABLED enum, TIMED enum" },
	{ "setup_consumers", "NAME varchar(64), ENABLED enum" },
	{ "global_status", "VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(4096)" },
	{ "session_connect_attrs",
	  "PROCESSLIST_ID int, ATTR_NAME varchar(32), ATTR_VALUE varchar(1024), "
	  "ORDINAL_POSITION int" },
	/*
	 * Not performance_schema: the session peaks of --bigger-than. SHOW
	 * COLUMNS of a running 10.11.19; MAX_MEMORY_USED since 10.3.3
	 * (mariadb.com/docs/reference/mdb/information-schema/PROCESSLIST/).
	 */
	{ "information_schema.PROCESSLIST",
	  "ID bigint, USER varchar(128), HOST varchar(64), DB varchar(64), "
	  "COMMAND varchar(16), TIME int, STATE varchar(64), INFO longtext, "
	  "TIME_MS decimal, STAGE tinyint, MAX_STAGE tinyint, "
	  "PROGRESS decimal, MEMORY_USED bigint, MAX_MEMORY_USED bigint, "
	  "EXAMINED_ROWS int, QUERY_ID bigint, INFO_BINARY blob, TID bigint" },
	/*
	 * Whether our account has PROCESS, before reading PROCESSLIST for
	 * every connection: SHOW COLUMNS of a running 10.11.19.
	 */
	{ "information_schema.USER_PRIVILEGES",
	  "GRANTEE varchar(385), TABLE_CATALOG varchar(512), "
	  "PRIVILEGE_TYPE varchar(64), IS_GRANTABLE varchar(3)" },
	/*
	 * MySQLTuner's variables for --explain: MariaDB has no
	 * performance_schema.global_variables. information_schema.COLUMNS
	 * of a running 10.11.19.
	 */
	{ "information_schema.GLOBAL_VARIABLES",
	  "VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(4096)" },
	{ NULL, NULL },
};

/*
 * MySQL 8.0 (8.0.17 to 8.0.27), from mysql/mysql-server
 * storage/perfschema: table_threads.cc at e117a2b5 (2019),
 * table_events_statements.cc at 548ee8e1 (2018),
 * table_esms_by_thread_by_event_name.cc at 08f46b3c (2019),
 * table_global_status.cc at 087b0bbd (2020) and table_global_variables.cc
 * (the same two columns), table_mems_*_by_event_name.cc
 * and table_session_connect_attrs.cc in the Plugin_table form of 8.0,
 * table_setup_instruments.cc with PROPERTIES and VOLATILITY (8.0),
 * table_setup_consumers.cc (NAME, ENABLED since 5.6).
 */
#define MYSQL_THREADS_80 \
	"THREAD_ID bigint unsigned, NAME varchar(128), TYPE varchar(10), " \
	"PROCESSLIST_ID bigint unsigned, PROCESSLIST_USER varchar(32), " \
	"PROCESSLIST_HOST varchar(60), PROCESSLIST_DB varchar(64), " \
	"PROCESSLIST_COMMAND varchar(16), PROCESSLIST_TIME bigint, " \
	"PROCESSLIST_STATE varchar(64), PROCESSLIST_INFO longtext, " \
	"PARENT_THREAD_ID bigint unsigned, ROLE varchar(64), " \
	"INSTRUMENTED enum, HISTORY enum, CONNECTION_TYPE varchar(16), " \
	"THREAD_OS_ID bigint unsigned, RESOURCE_GROUP varchar(64)"
#define MYSQL_COMMON_TABLES \
	{ "memory_summary_by_thread_by_event_name", \
	  "THREAD_ID bigint unsigned, EVENT_NAME varchar(128), " \
	  MEMORY_COUNTERS }, \
	{ "memory_summary_global_by_event_name", \
	  "EVENT_NAME varchar(128), " MEMORY_COUNTERS }, \
	{ "memory_summary_by_user_by_event_name", \
	  "USER char(32), EVENT_NAME varchar(128), " MEMORY_COUNTERS }, \
	{ "memory_summary_by_host_by_event_name", \
	  "HOST char(255), EVENT_NAME varchar(128), " MEMORY_COUNTERS }, \
	{ "memory_summary_by_account_by_event_name", \
	  "USER char(32), HOST char(255), EVENT_NAME varchar(128), " \
	  MEMORY_COUNTERS }, \
	{ "events_statements_summary_by_thread_by_event_name", \
	  STATEMENT_SUMMARY }, \
	{ "setup_instruments", \
	  "NAME varchar(128), ENABLED enum, TIMED enum, PROPERTIES set, " \
	  "VOLATILITY int, DOCUMENTATION longtext" }, \
	{ "setup_consumers", "NAME varchar(64), ENABLED enum" }, \
	{ "global_status", \
	  "VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(1024)" }, \
	{ "global_variables", \
	  "VARIABLE_NAME varchar(64), VARIABLE_VALUE varchar(1024)" }, \
	{ "session_connect_attrs", \
	  "PROCESSLIST_ID bigint unsigned, ATTR_NAME varchar(32), " \
	  "ATTR_VALUE varchar(1024), ORDINAL_POSITION int" }

static const struct table_def mysql_8_0[] = {
	{ "threads", MYSQL_THREADS_80 },
	{ "events_statements_current",
	  STATEMENTS_HEAD "DIGEST varchar(64), " STATEMENTS_TAIL },
	{ "events_statements_history",
	  STATEMENTS_HEAD "DIGEST varchar(64), " STATEMENTS_TAIL },
	MYSQL_COMMON_TABLES,
	{ NULL, NULL },
};

/*
 * MySQL 8.0.28 and later, 8.4 included: the newest stored versions of
 * table_threads.cc (PROCESSLIST_HOST varchar(255) ascii, EXECUTION_ENGINE,
 * CONTROLLED_MEMORY, ..., MAX_TOTAL_MEMORY) and table_events_statements.cc
 * (STATEMENT_ID, CPU_TIME, MAX_CONTROLLED_MEMORY, MAX_TOTAL_MEMORY,
 * EXECUTION_ENGINE after NESTING_EVENT_LEVEL). No file could be pinned to
 * the mysql-8.4 tag; the other tables are as in 8.0.
 */
static const struct table_def mysql_8_4[] = {
	{ "threads",
	  "THREAD_ID bigint unsigned, NAME varchar(128), TYPE varchar(10), "
	  "PROCESSLIST_ID bigint unsigned, PROCESSLIST_USER varchar(32), "
	  "PROCESSLIST_HOST varchar(255), PROCESSLIST_DB varchar(64), "
	  "PROCESSLIST_COMMAND varchar(16), PROCESSLIST_TIME bigint, "
	  "PROCESSLIST_STATE varchar(64), PROCESSLIST_INFO longtext, "
	  "PARENT_THREAD_ID bigint unsigned, ROLE varchar(64), "
	  "INSTRUMENTED enum, HISTORY enum, CONNECTION_TYPE varchar(16), "
	  "THREAD_OS_ID bigint unsigned, RESOURCE_GROUP varchar(64), "
	  "EXECUTION_ENGINE enum, CONTROLLED_MEMORY bigint unsigned, "
	  "MAX_CONTROLLED_MEMORY bigint unsigned, TOTAL_MEMORY bigint unsigned, "
	  "MAX_TOTAL_MEMORY bigint unsigned" },
	{ "events_statements_current",
	  STATEMENTS_HEAD "DIGEST varchar(64), " STATEMENTS_TAIL ", "
	  "STATEMENT_ID bigint unsigned, CPU_TIME bigint unsigned, "
	  "MAX_CONTROLLED_MEMORY bigint unsigned, "
	  "MAX_TOTAL_MEMORY bigint unsigned, EXECUTION_ENGINE enum" },
	/* The same table as events_statements_current, one row per statement ended. */
	{ "events_statements_history",
	  STATEMENTS_HEAD "DIGEST varchar(64), " STATEMENTS_TAIL ", "
	  "STATEMENT_ID bigint unsigned, CPU_TIME bigint unsigned, "
	  "MAX_CONTROLLED_MEMORY bigint unsigned, "
	  "MAX_TOTAL_MEMORY bigint unsigned, EXECUTION_ENGINE enum" },
	/*
	 * The largest statement's peak for --explain (MAX_TOTAL_MEMORY since
	 * 8.0.31): information_schema.COLUMNS of a running 9.7.4, up to it.
	 */
	{ "events_statements_summary_by_digest",
	  "SCHEMA_NAME varchar(64), DIGEST varchar(64), DIGEST_TEXT longtext, "
	  "COUNT_STAR bigint unsigned, SUM_TIMER_WAIT bigint unsigned, "
	  "MIN_TIMER_WAIT bigint unsigned, AVG_TIMER_WAIT bigint unsigned, "
	  "MAX_TIMER_WAIT bigint unsigned, SUM_LOCK_TIME bigint unsigned, "
	  "SUM_ERRORS bigint unsigned, SUM_WARNINGS bigint unsigned, "
	  "SUM_ROWS_AFFECTED bigint unsigned, SUM_ROWS_SENT bigint unsigned, "
	  "SUM_ROWS_EXAMINED bigint unsigned, "
	  "SUM_CREATED_TMP_DISK_TABLES bigint unsigned, "
	  "SUM_CREATED_TMP_TABLES bigint unsigned, "
	  "SUM_SELECT_FULL_JOIN bigint unsigned, "
	  "SUM_SELECT_FULL_RANGE_JOIN bigint unsigned, "
	  "SUM_SELECT_RANGE bigint unsigned, "
	  "SUM_SELECT_RANGE_CHECK bigint unsigned, "
	  "SUM_SELECT_SCAN bigint unsigned, "
	  "SUM_SORT_MERGE_PASSES bigint unsigned, "
	  "SUM_SORT_RANGE bigint unsigned, SUM_SORT_ROWS bigint unsigned, "
	  "SUM_SORT_SCAN bigint unsigned, SUM_NO_INDEX_USED bigint unsigned, "
	  "SUM_NO_GOOD_INDEX_USED bigint unsigned, SUM_CPU_TIME bigint unsigned, "
	  "MAX_CONTROLLED_MEMORY bigint unsigned, "
	  "MAX_TOTAL_MEMORY bigint unsigned" },
	MYSQL_COMMON_TABLES,
	{ NULL, NULL },
};

static const struct flavour_def flavours[] = {
	{ "MariaDB 10.11", "10.11.19-MariaDB-0+deb12u1", mariadb_10_11 },
	{ "MySQL 8.0", "8.0.27", mysql_8_0 },
	{ "MySQL 8.4", "8.4.3", mysql_8_4 },
};

#endif
