/*
 * The process's table of event names: open addressing over pointers to
 * entries, at most half full, under one lock. Only a reader's miss (a
 * name not where it stood in the last reading) comes here, so the lock is
 * taken a few times a run, not per sample.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "strhash.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct event_name **slots; /* n_slots of them, a power of two */
static size_t n_slots, n_names;

bool
names_plain(const char *s, size_t n)
{
	if (n > 0 && memchr("=+-@", s[0], 4) != NULL)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
			return false;
	}
	return true;
}

/* The slot of the name, or the empty one where it would go. */
static struct event_name **
find(const char *s, size_t n, size_t hash)
{
	size_t mask = n_slots - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct event_name *e = slots[i];

		if (e == NULL || (e->hash == hash && e->len == n &&
		    memcmp(e->name, s, n) == 0))
			return &slots[i];
	}
}

/* Twice the slots, the entries placed again; -1 when out of memory. */
static int
grow(void)
{
	size_t n = n_slots ? 2 * n_slots : 1024;
	struct event_name **old = slots;
	size_t old_n = n_slots;

	if ((slots = calloc(n, sizeof(*slots))) == NULL) {
		slots = old;
		return -1;
	}
	n_slots = n;
	for (size_t i = 0; i < old_n; i++)
		if (old[i] != NULL)
			*find(old[i]->name, old[i]->len, old[i]->hash) = old[i];
	free(old);
	return 0;
}

const struct event_name *
names_intern(const char *s, size_t n)
{
	size_t hash = strhash(s, n);
	struct event_name **slot, *e = NULL;

	pthread_mutex_lock(&lock);
	if (n_slots == 0 && grow() != 0)
		goto out;
	if ((e = *(slot = find(s, n, hash))) != NULL)
		goto out;
	if (n_names == NAMES_MAX)
		goto out;
	if (2 * (n_names + 1) > n_slots) {
		if (grow() != 0)
			goto out;
		slot = find(s, n, hash);
	}
	if ((e = malloc(sizeof(*e) + n + 1)) == NULL)
		goto out;
	e->hash = hash;
	e->len = n;
	e->plain = names_plain(s, n);
	memcpy(e->name, s, n);
	e->name[n] = '\0';
	*slot = e;
	n_names++;
out:
	pthread_mutex_unlock(&lock);
	return e;
}
