/*
 * The buffer a format writes one call's output into (a sample, a list, a
 * summary): output.c then hands its bytes to the stream in one fwrite.
 * Many small stdio calls cost more than the rest of a sample; one buffer,
 * kept in struct output and reused, costs no malloc once it has grown.
 * Its storage is owned by the struct output that holds it and freed by
 * output_release(). It calls nothing above it.
 */
#ifndef MYSQLMEMPROF_OUTPUT_BUF_H
#define MYSQLMEMPROF_OUTPUT_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * All zero is an empty buffer. An appender that cannot grow it sets
 * failed and drops its bytes, so a writer of many fields checks once, at
 * the end, with ob_status().
 */
struct output_buf {
	char *p;
	size_t len, cap;
	bool failed; /* out of memory since the last ob_clear() */
};

/* Room for n more bytes; false (and failed set) when out of memory. */
bool ob_grow(struct output_buf *b, size_t n);

/* 0, or -1 with errno ENOMEM when an appender has failed. */
int ob_status(const struct output_buf *b);

/* Empties b and forgets a failure; its storage is kept for the next call. */
void ob_clear(struct output_buf *b);
/* Frees b's storage; b is empty again. */
void ob_free(struct output_buf *b);

static inline void
ob_write(struct output_buf *b, const void *s, size_t n)
{
	if (b->cap - b->len < n && !ob_grow(b, n))
		return;
	if (n > 0)
		memcpy(b->p + b->len, s, n);
	b->len += n;
}

static inline void
ob_putc(struct output_buf *b, char c)
{
	if (b->cap == b->len && !ob_grow(b, 1))
		return;
	b->p[b->len++] = c;
}

static inline void
ob_puts(struct output_buf *b, const char *s)
{
	ob_write(b, s, strlen(s));
}

/* n copies of c: the padding of a column. */
void ob_fill(struct output_buf *b, char c, size_t n);

/* Integers in decimal, by hand: no printf, no locale. */
void ob_uint(struct output_buf *b, uint64_t v);
void ob_int(struct output_buf *b, int64_t v);

/* For the rare line: printf's format, through vsnprintf. */
void ob_printf(struct output_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Writes v in decimal at buf, which has room for OUTPUT_INT_MAX bytes, and
 * returns how many it wrote; no NUL, no printf, no locale.
 */
#define OUTPUT_INT_MAX 20 /* UINT64_MAX, or INT64_MIN with its sign */
size_t output_int(char *buf, int64_t v);
size_t output_uint(char *buf, uint64_t v);

#endif
