/*
 * --output patterns. The strftime conversions allowed are those whose
 * result is the same in every locale or harmless in a file name: no %c,
 * %x or %X (locale-dependent), %D (slashes), %n or %t (whitespace); %c and
 * %t name the connection and the thread instead, %N the sample
 * (--profile-at each).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "outname.h"

bool
outname_is_pattern(const char *name)
{
	return strchr(name, '%') != NULL;
}

int
outname_check(const char *pattern, char *err, size_t errlen)
{
	for (const char *p = pattern; *p != '\0'; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == '\0') {
			snprintf(err, errlen, "a lone %% at the end; write %%%% "
			    "for a percent sign");
			return -1;
		}
		if (*p == 'c' || *p == 't' || *p == 'N' || *p == '%')
			continue;
		if (strchr(OUTNAME_STRFTIME, *p) == NULL) {
			if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
				snprintf(err, errlen, "unknown conversion after %%");
			else
				snprintf(err, errlen, "unknown conversion %%%c",
				    *p);
			snprintf(err + strlen(err), errlen - strlen(err),
			    "; use %%c, %%t, %%%% or one of %%Y %%m %%d %%H "
			    "%%M %%S and the like");
			return -1;
		}
	}
	return 0;
}

int
outname_expand(const char *pattern, uint64_t connection_id,
    uint64_t thread_id, const struct tm *tm, char *out, size_t outlen)
{
	return outname_expand_sample(pattern, connection_id, thread_id, 0, tm,
	    out, outlen);
}

int
outname_expand_sample(const char *pattern, uint64_t connection_id,
    uint64_t thread_id, uint64_t sample, const struct tm *tm, char *out,
    size_t outlen)
{
	size_t len = 0;

	if (outlen == 0)
		return -1;
	for (const char *p = pattern; *p != '\0'; p++) {
		char piece[64];
		size_t n;

		if (*p != '%') {
			piece[0] = *p;
			n = 1;
		} else if (*++p == 'c') {
			n = (size_t)snprintf(piece, sizeof(piece), "%" PRIu64,
			    connection_id);
		} else if (*p == 't') {
			n = (size_t)snprintf(piece, sizeof(piece), "%" PRIu64,
			    thread_id);
		} else if (*p == 'N') {
			n = (size_t)snprintf(piece, sizeof(piece), "%" PRIu64,
			    sample);
		} else if (*p == '%') {
			piece[0] = '%';
			n = 1;
		} else {
			char conv[3] = { '%', *p, '\0' };

			if (*p == '\0' || strchr(OUTNAME_STRFTIME, *p) == NULL)
				return -1; /* outname_check() refuses it */
			/* 0 is an error, or a conversion that is empty (%p). */
			n = strftime(piece, sizeof(piece), conv, tm);
		}
		if (len + n >= outlen)
			return -1;
		memcpy(out + len, piece, n);
		len += n;
	}
	out[len] = '\0';
	return len > 0 ? 0 : -1;
}

int
outname_numbered(const char *name, unsigned n, char *out, size_t outlen)
{
	const char *base = strrchr(name, '/');
	const char *dot;
	int len;

	base = base != NULL ? base + 1 : name;
	dot = strrchr(base, '.');
	/* A leading dot (.hidden) starts the name, not an extension. */
	if (dot == NULL || dot == base)
		dot = name + strlen(name);
	len = snprintf(out, outlen, "%.*s-%u%s", (int)(dot - name), name, n,
	    dot);
	return len < 0 || (size_t)len >= outlen ? -1 : 0;
}
