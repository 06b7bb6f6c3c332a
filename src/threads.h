/*
 * A row of --list: one server thread as performance_schema.threads shows
 * it; and how a thread is named to people.
 */
#ifndef MYSQLMEMPROF_THREADS_H
#define MYSQLMEMPROF_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thread_info {
	uint64_t thread_id;
	bool has_connection;  /* background threads have no connection id */
	uint64_t connection_id;
	char *type;      /* FOREGROUND or BACKGROUND */
	char *name;      /* e.g. thread/sql/one_connection */
	char *user;      /* NULL when the server gives none */
	char *host;
	char *command;
	bool has_time;
	int64_t time_s;
	char *state;
	int64_t current_bytes; /* instrumented memory in use */
	char *statement; /* start of the statement text, or NULL */
	size_t statement_len; /* its bytes: a statement may hold NULs */
};

struct thread_list {
	struct thread_info *v; /* largest current_bytes first; owned by the list */
	size_t n;
};

void thread_list_free(struct thread_list *l);

/*
 * "thread N (connection M)", or "thread N (background)" when connection_id
 * is 0: the one way a thread is named to people, in the capture's note and
 * the live view's header alike. Returns buf.
 */
const char *thread_label(char *buf, size_t len, uint64_t thread_id,
    uint64_t connection_id);

/*
 * One of the threads with the most memory, for the exporter's series of
 * the whole server. Fixed sizes, so that the exporter copies them without
 * allocating; longer text is cut. An empty string: the server gave none.
 */
struct thread_total {
	uint64_t thread_id;
	char name[129];   /* thread/sql/one_connection, ... */
	char user[129];
	char host[256];
	char digest[65];  /* the top-level statement's, running or last */
	int64_t current_bytes;
};

/*
 * One client connection, as the server shows it, for the record
 * (conns.h): read by the session's op connections, written and read back
 * by conns_lines.h. Longer text is cut.
 */
struct conn_row {
	uint64_t connection_id;  /* the key */
	uint64_t thread_id;      /* 0 where the path gives none */
	char user[129], host[256], db[193], command[17];
	int64_t since_ms;        /* UTC ms when its command began (now - time) */
	int64_t bytes;           /* its memory now */
	int64_t peak_bytes;      /* its peak; -1 where the server keeps none */
	bool running;            /* a statement runs */
	char digest[65];         /* "" where not read */
	char text[1025];         /* the statement's start; "" none */
};

/* How the connections are read: the server's kind, and its privileges. */
enum conns_way {
	CONNS_UNKNOWN = 0, /* not read yet on this connection: the read decides */
	CONNS_THREADS,     /* threads.TOTAL_MEMORY, MAX_TOTAL_MEMORY: MySQL 8.0.31+ */
	CONNS_PROCESSLIST, /* information_schema.PROCESSLIST: MariaDB with PROCESS */
	CONNS_SUMMED,      /* each thread's memory rows summed: older MySQL, ... */
	CONNS_NO_PROCESS,  /* ... and MariaDB without PROCESS, at CONNS_SLOW_NS */
};

/* A reading of every connection; v grows as needed, its owner frees it. */
struct conn_list {
	struct conn_row *v;
	size_t n, cap;
};

/* Room for n rows in l; -1 when out of memory (l is left as it was). */
int conn_list_reserve(struct conn_list *l, size_t n);

#endif
