/*
 * LIKE matching by backtracking on the last '%' only: linear in practice
 * and never exponential, whatever the pattern.
 */
#include <ctype.h>
#include <string.h>

#include "filter.h"

/* The length of the UTF-8 character at s: '_' matches one whole character. */
static size_t
char_len(const char *s)
{
	unsigned char c = (unsigned char)*s;
	size_t n = c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;

	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return i; /* a cut or bad sequence: take what is there */
	return n;
}

static bool
same_char(const char *p, size_t plen, const char *s, size_t slen)
{
	if (plen != slen)
		return false;
	if (plen == 1)
		return tolower((unsigned char)*p) == tolower((unsigned char)*s);
	for (size_t i = 0; i < plen; i++)
		if (p[i] != s[i])
			return false;
	return true;
}

bool
filter_like(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	for (;;) {
		if (*p == '%') {
			while (*p == '%')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*s == '\0') {
			if (*p == '\0')
				return true;
		} else if (*p == '_') {
			p++;
			s += char_len(s);
			continue;
		} else if (*p != '\0') {
			const char *lit = p;

			if (*lit == '\\' && lit[1] != '\0')
				lit++;
			size_t pl = char_len(lit), sl = char_len(s);
			if (same_char(lit, pl, s, sl)) {
				p = lit + pl;
				s += sl;
				continue;
			}
		}
		/* A mismatch: let the last '%' take one more character. */
		if (star_p == NULL || *star_s == '\0')
			return false;
		star_s += char_len(star_s);
		p = star_p;
		s = star_s;
	}
}

bool
filter_active(const struct event_filter *f)
{
	return f != NULL && (f->n_include > 0 || f->n_exclude > 0);
}

/*
 * A pattern matches the full name or the name as text shows it, without
 * "memory/": 'innodb/%' works as well as 'memory/innodb/%'.
 */
static bool
name_matches(const char *pattern, const char *name)
{
	return filter_like(pattern, name) ||
	    (strncmp(name, "memory/", 7) == 0 && filter_like(pattern, name + 7));
}

bool
filter_keeps(const struct event_filter *f, const char *name)
{
	bool kept;

	if (!filter_active(f))
		return true;
	kept = f->n_include == 0;
	for (size_t i = 0; i < f->n_include && !kept; i++)
		kept = name_matches(f->include[i], name);
	for (size_t i = 0; i < f->n_exclude && kept; i++)
		kept = !name_matches(f->exclude[i], name);
	return kept;
}
