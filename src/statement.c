/*
 * Statements are compared by EVENT_ID when the server gives one: a
 * statement run twice has two ids, and one statement keeps its id when its
 * digest becomes known at its end.
 */
#include <string.h>

#include "statement.h"

/* Copies v as statement_copy() says, and returns the bytes copied. */
static size_t
copy_cut(char *dst, size_t max, const char *v, size_t n)
{
	if (v == NULL)
		n = 0;
	if (n > max) {
		/*
		 * Back to the start of the character that does not fit: at
		 * most 3 bytes, as bytes that are not UTF-8 are cut anywhere.
		 */
		size_t least = max > 3 ? max - 3 : 0;

		n = max;
		while (n > least && ((unsigned char)v[n] & 0xc0) == 0x80)
			n--;
	}
	if (n > 0)
		memcpy(dst, v, n);
	dst[n] = '\0';
	return n;
}

void
statement_copy(char *dst, size_t max, const char *v, size_t n)
{
	copy_cut(dst, max, v, n);
}

void
statement_set_text(struct statement *s, const char *v, size_t n)
{
	s->text_len = copy_cut(s->text, STATEMENT_TEXT_MAX, v, n);
}

void
statement_set(struct statement *dst, const struct statement *src)
{
	size_t len = statement_text_len(src);

	dst->thread_id = src->thread_id;
	dst->has_id = src->has_id;
	dst->id = src->id;
	memcpy(dst->digest, src->digest, strlen(src->digest) + 1);
	memcpy(dst->text, src->text, len);
	dst->text[len] = '\0';
	dst->text_len = src->text_len;
	dst->ended = src->ended;
}

void
statement_clear(struct statement *s)
{
	s->thread_id = 0;
	s->has_id = false;
	s->id = 0;
	s->digest[0] = '\0';
	s->text[0] = '\0';
	s->text_len = 0;
	s->ended = false;
}

size_t
statement_text_len(const struct statement *s)
{
	return s->text_len > 0 ? s->text_len : strlen(s->text);
}

bool
statement_same(const struct statement *a, const struct statement *b)
{
	if (a->thread_id != b->thread_id)
		return false;
	if (a->has_id || b->has_id)
		return a->has_id && b->has_id && a->id == b->id;
	return strcmp(a->digest, b->digest) == 0 &&
	    statement_text_len(a) == statement_text_len(b) &&
	    memcmp(a->text, b->text, statement_text_len(a)) == 0;
}

bool
statement_known(const struct statement *s)
{
	return s->has_id || s->digest[0] != '\0' || statement_text_len(s) > 0;
}
