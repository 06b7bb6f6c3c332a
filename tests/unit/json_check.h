/*
 * A strict JSON parser (RFC 8259) for the tests and the fuzzers, written
 * apart from the code under test: it rejects what the grammar does not
 * allow, including raw bytes that are not well-formed UTF-8, and decodes
 * the strings given as "event_name" into names[].
 */
#ifndef MYSQLMEMPROF_JSON_CHECK_H
#define MYSQLMEMPROF_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct json {
	const unsigned char *p, *end;
	char names[16][512];
	size_t n_names;
};

static inline bool j_value(struct json *j, int depth);

static inline void
j_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static inline bool
j_lit(struct json *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
		return false;
	j->p += n;
	return true;
}

static inline bool
j_digits(struct json *j)
{
	const unsigned char *start = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > start;
}

static inline bool
j_number(struct json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (j->p >= j->end || *j->p < '1' || *j->p > '9' ||
	    !j_digits(j))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!j_digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!j_digits(j))
			return false;
	}
	return true;
}

static inline size_t
put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static inline bool
j_hex4(struct json *j, uint32_t *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, j->p++) {
		int c = j->p < j->end ? *j->p : -1;

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (uint32_t)(c - 'A' + 10);
		else
			return false;
	}
	return true;
}

/* One raw UTF-8 character: decoded, then checked against its shortest form. */
static inline bool
j_raw_char(struct json *j, uint32_t *cp)
{
	unsigned char c = *j->p;
	size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
	static const uint32_t least[] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (c < 0x80) {
		*cp = c;
		j->p++;
		return c >= 0x20;
	}
	if (n == 0 || c >= 0xf8 || (size_t)(j->end - j->p) < n)
		return false;
	*cp = c & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((j->p[i] & 0xc0) != 0x80)
			return false;
		*cp = *cp << 6 | (j->p[i] & 0x3f);
	}
	j->p += n;
	return *cp >= least[n] && *cp <= 0x10ffff &&
	    !(*cp >= 0xd800 && *cp <= 0xdfff);
}

/* The code point of \uXXXX, or of a surrogate pair of them. */
static inline bool
j_unicode(struct json *j, uint32_t *cp)
{
	uint32_t lo;

	if (!j_hex4(j, cp))
		return false;
	/* Lone surrogates are legal JSON, but never what we mean. */
	if (*cp >= 0xdc00 && *cp <= 0xdfff)
		return false;
	if (*cp >= 0xd800 && *cp <= 0xdbff) {
		if (!j_lit(j, "\\u") || !j_hex4(j, &lo) || lo < 0xdc00 ||
		    lo > 0xdfff)
			return false;
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	return true;
}

static inline bool
j_string(struct json *j, char *out, size_t cap)
{
	size_t len = 0;
	uint32_t cp;

	if (!j_lit(j, "\""))
		return false;
	for (;;) {
		if (j->p >= j->end)
			return false;
		if (*j->p == '"') {
			j->p++;
			break;
		}
		if (*j->p != '\\') {
			if (!j_raw_char(j, &cp))
				return false;
		} else {
			j->p++;
			if (j->p >= j->end)
				return false;
			switch (*j->p++) {
			case '"': cp = '"'; break;
			case '\\': cp = '\\'; break;
			case '/': cp = '/'; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u':
				if (!j_unicode(j, &cp))
					return false;
				break;
			default:
				return false;
			}
		}
		if (out != NULL) {
			if (len + 4 >= cap)
				return false;
			len += put_utf8(cp, out + len);
		}
	}
	if (out != NULL)
		out[len] = '\0';
	return true;
}

static inline bool
j_object(struct json *j, int depth)
{
	char key[64];

	j->p++;
	j_ws(j);
	if (j_lit(j, "}"))
		return true;
	for (;;) {
		j_ws(j);
		if (!j_string(j, key, sizeof(key)))
			return false;
		j_ws(j);
		if (!j_lit(j, ":"))
			return false;
		j_ws(j);
		if (strcmp(key, "event_name") == 0 && j->p < j->end &&
		    *j->p == '"') {
			if (j->n_names >= 16)
				return false;
			if (!j_string(j, j->names[j->n_names++], 512))
				return false;
		} else if (!j_value(j, depth + 1))
			return false;
		j_ws(j);
		if (j_lit(j, "}"))
			return true;
		if (!j_lit(j, ","))
			return false;
	}
}

static inline bool
j_array(struct json *j, int depth)
{
	j->p++;
	j_ws(j);
	if (j_lit(j, "]"))
		return true;
	for (;;) {
		j_ws(j);
		if (!j_value(j, depth + 1))
			return false;
		j_ws(j);
		if (j_lit(j, "]"))
			return true;
		if (!j_lit(j, ","))
			return false;
	}
}

static inline bool
j_value(struct json *j, int depth)
{
	if (depth > 16 || j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return j_object(j, depth);
	case '[':
		return j_array(j, depth);
	case '"':
		return j_string(j, NULL, 0);
	case 't':
		return j_lit(j, "true");
	case 'f':
		return j_lit(j, "false");
	case 'n':
		return j_lit(j, "null");
	default:
		return j_number(j);
	}
}

/* True when [p, p+len) is one JSON object and nothing else. */
static inline bool
json_check_object(struct json *j, const char *p, size_t len)
{
	memset(j, 0, sizeof(*j));
	j->p = (const unsigned char *)p;
	j->end = j->p + len;
	return len > 0 && *j->p == '{' && j_value(j, 0) && j->p == j->end;
}

#endif
