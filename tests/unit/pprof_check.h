/*
 * What the tests of the pprof encoders share: a profile gunzipped and
 * unpacked with zlib and protobuf-c's own code, and its strings, functions
 * and stacks read back as a reader of the format reads them.
 */
#ifndef MYSQLMEMPROF_PPROF_CHECK_H
#define MYSQLMEMPROF_PPROF_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;

/* Gunzips and unpacks buf; the caller frees it with ..._free_unpacked. */
static inline Profile *
decode(const unsigned char *buf, size_t len)
{
	size_t cap = 1 << 20;
	unsigned char *out = malloc(cap);
	z_stream z = { 0 };
	Profile *p;

	assert_non_null(out);
	/* 16 + 15: gzip only, so a raw or zlib stream fails here. */
	assert_int_equal(inflateInit2(&z, 16 + 15), Z_OK);
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	p = perftools__profiles__profile__unpack(NULL, z.total_out, out);
	inflateEnd(&z);
	free(out);
	assert_non_null(p);
	return p;
}

static inline const char *
str(const Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static inline const char *
function_name(const Profile *p, uint64_t location_id)
{
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];

		if (l->id != location_id)
			continue;
		assert_int_equal(l->n_line, 1);
		for (size_t j = 0; j < p->n_function; j++)
			if (p->function[j]->id == l->line[0]->function_id)
				return str(p, p->function[j]->name);
	}
	fail_msg("no location %llu", (unsigned long long)location_id);
	return NULL;
}

/* The stack of sample i, leaf first, joined with '|'. */
static inline void
stack_of(const Profile *p, size_t i, char *buf, size_t size)
{
	const Perftools__Profiles__Sample *s = p->sample[i];

	buf[0] = '\0';
	for (size_t j = 0; j < s->n_location_id; j++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
		    j ? "|" : "", function_name(p, s->location_id[j]));
}

#endif
