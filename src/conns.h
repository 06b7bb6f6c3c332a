/* (the lead's placeholder of part H2's header: the row only) */
#ifndef MYSQLMEMPROF_CONNS_H
#define MYSQLMEMPROF_CONNS_H

#include <stdbool.h>
#include <stdint.h>

struct conn_row {
	uint64_t connection_id;
	uint64_t thread_id;
	char user[129], host[256], db[193], command[17];
	int64_t since_ms;
	int64_t bytes;
	int64_t peak_bytes;
	bool running;
	char digest[65];
	char text[1025];
};

#endif
