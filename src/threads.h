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

#endif
