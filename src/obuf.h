/*
 * The buffer a format writes one call's output into (a sample, a list, a
 * summary): output.c then hands its bytes to the stream in one fwrite.
 * Many small stdio calls cost more than the rest of a sample; one buffer,
 * kept in struct output and reused, costs no malloc once it has grown.
 * Its storage is owned by the struct output that holds it and freed by
 * output_release(). It calls nothing above it.
 */
#ifndef MYSQLMEMPROF_OBUF_H
#define MYSQLMEMPROF_OBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * All zero is an empty buffer. An appender that cannot grow it sets
 * failed and drops its bytes, so a writer of many fields checks once, at
 * the end, with obuf_status().
 */
struct obuf {
	char *p;
	size_t len, cap;
	bool failed; /* out of memory since the last obuf_clear() */
};

/* Room for n more bytes; false (and failed set) when out of memory. */
bool obuf_grow(struct obuf *b, size_t n);

/* 0, or -1 with errno ENOMEM when an appender has failed. */
int obuf_status(const struct obuf *b);

/* Empties b and forgets a failure; its storage is kept for the next call. */
void obuf_clear(struct obuf *b);
/* Frees b's storage; b is empty again. */
void obuf_free(struct obuf *b);

static inline void
obuf_write(struct obuf *b, const void *s, size_t n)
{
	if (b->cap - b->len < n && !obuf_grow(b, n))
		return;
	if (n > 0)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void
obuf_putc(struct obuf *b, char c)
{
	if (b->cap == b->len && !obuf_grow(b, 1))
		return;
	b->p[b->len++] = c;
}

static inline void
obuf_puts(struct obuf *b, const char *s)
{
	obuf_write(b, s, strlen(s));
}

/* n copies of c: the padding of a column. */
void obuf_fill(struct obuf *b, char c, size_t n);

/* Integers in decimal, by hand: no printf, no locale. */
void obuf_uint(struct obuf *b, uint64_t v);
void obuf_int(struct obuf *b, int64_t v);

/* For the rare line: printf's format, through vsnprintf. */
void obuf_printf(struct obuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Writes v in decimal at buf, which has room for OUTPUT_INT_MAX bytes, and
 * returns how many it wrote; no NUL, no printf, no locale.
 */
#define OUTPUT_INT_MAX 20 /* UINT64_MAX, or INT64_MIN with its sign */
size_t obuf_int_digits(char *buf, int64_t v);
size_t obuf_uint_digits(char *buf, uint64_t v);

#endif
