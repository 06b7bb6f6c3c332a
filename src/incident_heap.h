/*
 * An incident's heap profile (issue 34): the last dump the record kept
 * before it (heapkeep.h), named from its own MAPPED_LIBRARIES, and the
 * growth since the one kept before that; on the page, the flame graph
 * (heap_flame.h), the largest stacks and the largest growths in tables.
 */
#ifndef MYSQLMEMPROF_INCIDENT_HEAP_H
#define MYSQLMEMPROF_INCIDENT_HEAP_H

#include <stdbool.h>
#include <stdio.h>

#include "heap_profile.h"
#include "heapdump.h"

/* The stacks each table shows, and the frames a stack's row. */
#define INCIDENT_HEAP_ROWS 10
#define INCIDENT_HEAP_FRAMES 8

struct incident_heap {
	char name[96], base_name[96];   /* under DIR/heap; "": none */
	struct heap_dump d, growth;
	struct heap_profile p, g;
	bool has, has_growth;
	char why[300];                  /* why the dump was not drawn */
};

/*
 * The dump name (and base, "" for none) of the folder heapfd read and
 * named into *h (incident_heap_free(), also after a failure); a dump
 * that cannot be read leaves h->has false and h->why said.
 */
void incident_heap_load(int heapfd, const char *name, const char *base,
    struct incident_heap *h);
void incident_heap_free(struct incident_heap *h);

/* The page's section "Heap profile"; nothing when no dump was kept. */
void incident_heap_section(FILE *fp, const struct incident_heap *h);

#endif
