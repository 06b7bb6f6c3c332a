/*
 * Statements with parameters: conn_query_params() sends its parameters
 * apart from the SQL, as a prepared statement, and fetches each column as
 * a string, however long.
 *
 * Oracle's library has no non-blocking calls for prepared statements: one
 * executed on a frozen server would wait until --read-timeout, deaf to
 * SIGTERM. So with its non-blocking build (TEXT_STATEMENTS) a statement
 * goes over the text protocol instead, through conn_io's non-blocking
 * calls, its parameters escaped into the SQL text; the rows come to the
 * callers as conn.h says all the same. Nothing is kept prepared there:
 * the server parses the query of every sample again.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn_impl.h"

#ifdef NONBLOCKING_ORACLE
#define TEXT_STATEMENTS 1
#endif

/* The most parameters and result columns conn_query_params() takes. */
#define MAX_PARAMS 16
#define MAX_COLUMNS 32

/* Whether a column holds an integer: typed rows give it as one. */
static bool
field_is_int(const MYSQL_FIELD *f)
{
	return f->type == MYSQL_TYPE_TINY || f->type == MYSQL_TYPE_SHORT ||
	    f->type == MYSQL_TYPE_INT24 || f->type == MYSQL_TYPE_LONG ||
	    f->type == MYSQL_TYPE_LONGLONG;
}

/* A failed statement (st) or query (st NULL): its status, err set. */
static enum conn_status
stmt_failed(struct conn *c, MYSQL_STMT *st, unsigned *server_errno,
    char *err, size_t errlen)
{
	/* Closed after the connection, so that it sends nothing. */
	if (c->abandoned) {
		enum conn_status cs = conn_drop(c, err, errlen);

		if (st != NULL)
			mysql_stmt_close(st);
		return cs;
	}
	unsigned e = st != NULL ? mysql_stmt_errno(st) : mysql_errno(c->mysql);

	if (server_errno != NULL)
		*server_errno = e;
	snprintf(err, errlen, "%s", st != NULL ? mysql_stmt_error(st) :
	    mysql_error(c->mysql));
	if (st != NULL)
		mysql_stmt_close(st);
	return e == 0 ? CONN_FAILED : conn_classify(e);
}

/*
 * What every statement checks first, whichever protocol carries it: false
 * with *status when the call ends there.
 */
static bool
query_begins(struct conn *c, unsigned n, unsigned *server_errno, char *err,
    size_t errlen, enum conn_status *status)
{
	if (server_errno != NULL)
		*server_errno = 0;
	if (errlen > 0)
		err[0] = '\0';
	if (n > MAX_PARAMS) {
		snprintf(err, errlen, "too many parameters");
		*status = CONN_FAILED;
		return false;
	}
	if (c->mysql == NULL) {
		*status = conn_drop(c, err, errlen);
		return false;
	}
	return true;
}

#ifdef TEXT_STATEMENTS
/* Writes q at out as SQL, quoted and escaped if a string; returns its end. */
static char *
text_param(MYSQL *m, char *out, const struct conn_param *q)
{
	if (q->s == NULL)
		return out + sprintf(out, "%" PRId64, q->i);
	*out++ = '\'';
	out += mysql_real_escape_string_quote(m, out, q->s, strlen(q->s),
	    '\'');
	*out++ = '\'';
	return out;
}

/*
 * Copies sql to out (NULL: only counts), each `?` outside quotes and
 * backquotes replaced by its parameter: a string quoted, escaped for the
 * session's character set and sql_mode, an integer in decimal. Returns
 * the number of `?`; out needs text_size() bytes.
 */
static size_t
text_fill(MYSQL *m, const char *sql, const struct conn_param *params,
    char *out)
{
	char quote = 0;
	size_t used = 0;

	for (const char *p = sql; *p != '\0'; p++) {
		if (quote == 0 && *p == '?') {
			if (out != NULL)
				out = text_param(m, out, &params[used]);
			used++;
			continue;
		}
		if (quote == 0 && (*p == '\'' || *p == '"' || *p == '`'))
			quote = *p;
		else if (quote != 0 && quote != '`' && *p == '\\' &&
		    p[1] != '\0') {
			if (out != NULL)
				*out++ = *p;
			p++;
		} else if (*p == quote)
			quote = 0;
		if (out != NULL)
			*out++ = *p;
	}
	if (out != NULL)
		*out = '\0';
	return used;
}

/* The bytes text_fill() may write for sql with its n params. */
static size_t
text_size(const char *sql, const struct conn_param *params, unsigned n)
{
	size_t size = strlen(sql) + 1;

	/* An escaped byte takes two at most; INT64_MIN takes 20. */
	for (unsigned i = 0; i < n; i++)
		size += params[i].s != NULL ? 2 * strlen(params[i].s) + 2 : 21;
	return size;
}

/* The row as typed values in val, whose is_int and is_unsigned are set. */
static void
text_typed(struct conn_value *val, unsigned ncols, MYSQL_ROW row,
    const unsigned long *len)
{
	for (unsigned i = 0; i < ncols; i++) {
		struct conn_value *v = &val[i];

		v->s = NULL;
		v->len = 0;
		if ((v->null = row[i] == NULL))
			continue;
		if (!v->is_int) {
			v->s = row[i];
			v->len = len[i];
		} else if (v->is_unsigned)
			v->u = strtoull(row[i], NULL, 10);
		else
			v->i = strtoll(row[i], NULL, 10);
	}
}

/*
 * Runs sql with params over the text protocol; each row goes to fn as
 * strings, or to vfn as typed values, every column of every row: keep
 * and shared have no meaning here.
 */
static enum conn_status
query_params(struct conn *c, const char *sql, uint64_t *keep,
    const struct conn_param *params, unsigned n, conn_row_fn fn,
    conn_value_fn vfn, unsigned shared, void *ctx, unsigned *server_errno,
    char *err, size_t errlen)
{
	struct conn_value val[MAX_COLUMNS];
	enum conn_status status = CONN_OK;
	MYSQL_RES *res;
	MYSQL_ROW row;
	size_t used;
	char *text;
	int rc;

	(void)keep;
	(void)shared;
	if (!query_begins(c, n, server_errno, err, errlen, &status))
		return status;
	if ((used = text_fill(c->mysql, sql, params, NULL)) != n) {
		snprintf(err, errlen, "the statement takes %zu parameters, "
		    "not %u", used, n);
		return CONN_FAILED;
	}
	if ((text = malloc(text_size(sql, params, n))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return CONN_FAILED;
	}
	text_fill(c->mysql, sql, params, text);
	rc = conn_io_query(c, text);
	free(text);
	if (rc != 0)
		return stmt_failed(c, NULL, server_errno, err, errlen);
	if ((res = conn_io_store(c)) == NULL) {
		if (!c->abandoned && mysql_field_count(c->mysql) == 0)
			return CONN_OK; /* a statement without a result */
		return stmt_failed(c, NULL, server_errno, err, errlen);
	}
	unsigned ncols = mysql_num_fields(res);
	const MYSQL_FIELD *f = mysql_fetch_fields(res);

	if (ncols > MAX_COLUMNS) {
		snprintf(err, errlen, "too many columns");
		mysql_free_result(res);
		return CONN_FAILED;
	}
	for (unsigned i = 0; i < ncols; i++) {
		val[i].is_int = field_is_int(&f[i]);
		val[i].is_unsigned = (f[i].flags & UNSIGNED_FLAG) != 0;
	}
	while ((row = mysql_fetch_row(res)) != NULL) {
		const unsigned long *len = mysql_fetch_lengths(res);
		int stop = 0;

		if (vfn != NULL) {
			text_typed(val, ncols, row, len);
			stop = vfn(ctx, ncols, val);
		} else if (fn != NULL)
			stop = fn(ctx, ncols, row, len);
		if (stop != 0) {
			if (err[0] == '\0')
				snprintf(err, errlen, "unexpected result");
			status = CONN_FAILED;
			break;
		}
	}
	mysql_free_result(res);
	return status;
}

#else
/* MYSQL_BIND's flags: my_bool in Connector/C and MySQL 5.7, bool in 8.0. */
#if defined(MARIADB_PACKAGE_VERSION) || MYSQL_VERSION_ID < 80000
typedef my_bool bind_flag;
#else
typedef bool bind_flag;
#endif

/*
 * The columns of a prepared statement's result, fetched as strings; or,
 * for typed rows (conn_query_kept()), an integer column as an integer:
 * Connector/C's conversion to a string, parsed back by the caller, cost
 * some 2,000 instructions a memory row, more than the rest of a sample's
 * reading.
 */
struct columns {
	unsigned n;
	bool typed; /* is_int and is_unsigned are read from the metadata */
	bool is_int[MAX_COLUMNS];
	bool is_unsigned[MAX_COLUMNS];
	/*
	 * The row as typed values: an integer column is fetched into its
	 * value's i, and a typed binding fetches null and the length straight
	 * into the value too, so that a fetched row is ready as it is: copying
	 * null and the length of each column cost 3,000 instructions a sample.
	 */
	struct conn_value val[MAX_COLUMNS];
	bool bound_typed;         /* null and len are val's (typed rows) */
	/*
	 * The binding of bound_n columns is in the library: both libraries
	 * keep a statement's result binding across executes (Connector/C's
	 * stmt->bind, Oracle's update_stmt_fields()), and an execute whose
	 * columns changed fails (CR_NEW_STMT_METADATA), which detaches the
	 * statement. Binding again every sample cost 1,100 instructions.
	 */
	unsigned bound_n;
	/*
	 * Columns from shared on hold the same value in every row (a joined
	 * row's): with Connector/C they are bound as dummies, which its fetch
	 * steps over, and read from the first row alone (columns_first()).
	 * Converting a statement's digest and text in each of a sample's
	 * rows cost some 16,000 instructions. each_row: the columns the
	 * library converts in every row (shared, or n where it cannot skip
	 * one); bound_shared: shared as bound.
	 */
	unsigned shared, each_row, bound_shared;
	MYSQL_BIND bind[MAX_COLUMNS];
	char *buf[MAX_COLUMNS];
	size_t cap[MAX_COLUMNS]; /* bytes of buf, one kept for the NUL */
	unsigned long len[MAX_COLUMNS];
	bind_flag null[MAX_COLUMNS];
	bind_flag error[MAX_COLUMNS];
};

/* bool and the library's flag are one byte alike: fetched into val[].null. */
_Static_assert(sizeof(bind_flag) == sizeof(bool), "a bind flag is a bool");

/* Column i of the fetched row: null, and its bytes. */
static bool
col_null(const struct columns *cols, unsigned i)
{
	return cols->bound_typed ? cols->val[i].null : cols->null[i] != 0;
}

static unsigned long
col_len(const struct columns *cols, unsigned i)
{
	return cols->bound_typed ? cols->val[i].len : cols->len[i];
}

static void
columns_free(struct columns *cols)
{
	for (unsigned i = 0; i < cols->n; i++)
		free(cols->buf[i]);
}

/* Which columns are integers, from the result's metadata. */
static int
columns_type(MYSQL_STMT *st, struct columns *cols)
{
	MYSQL_RES *meta = mysql_stmt_result_metadata(st);

	if (meta == NULL)
		return -1;
	for (unsigned i = 0; i < cols->n; i++) {
		const MYSQL_FIELD *f = mysql_fetch_field_direct(meta, i);

		cols->is_int[i] = field_is_int(f);
		cols->is_unsigned[i] = (f->flags & UNSIGNED_FLAG) != 0;
	}
	mysql_free_result(meta);
	cols->typed = true;
	return 0;
}

/* Binds the columns; typed: integers as integers (see struct columns). */
static int
columns_bind(MYSQL_STMT *st, struct columns *cols, bool typed)
{
	if (typed && !cols->typed && columns_type(st, cols) != 0)
		return -1;
	cols->bound_typed = typed;
	cols->each_row = cols->n;
	for (unsigned i = 0; i < cols->n; i++) {
		MYSQL_BIND *b = &cols->bind[i];

		if (cols->buf[i] == NULL) {
			cols->cap[i] = 256;
			if ((cols->buf[i] = malloc(cols->cap[i])) == NULL)
				return -1;
		}
		memset(b, 0, sizeof(*b));
		/*
		 * Not val[i].i: a refetch binds again in the middle of a row,
		 * whose integers are already in it.
		 */
		cols->val[i].is_int = cols->is_int[i];
		cols->val[i].is_unsigned = cols->is_unsigned[i];
		cols->val[i].s = NULL;
		if (cols->is_int[i]) {
			/* long long and int64_t: both 64 bits, as MySQL assumes */
			b->buffer_type = MYSQL_TYPE_LONGLONG;
			b->buffer = &cols->val[i].i;
			b->is_unsigned = cols->is_unsigned[i];
		} else {
			b->buffer_type = MYSQL_TYPE_STRING;
			b->buffer = cols->buf[i];
			b->buffer_length = cols->cap[i] - 1;
			cols->val[i].s = cols->buf[i];
		}
		b->length = typed ? &cols->val[i].len : &cols->len[i];
		b->is_null = typed ? (bind_flag *)&cols->val[i].null :
		    &cols->null[i];
		b->error = &cols->error[i];
#ifdef MADB_BIND_DUMMY
		if (typed && i >= cols->shared) {
			b->flags = MADB_BIND_DUMMY;
			if (i < cols->each_row)
				cols->each_row = i;
		}
#endif
	}
	cols->bound_n = 0;
	if (mysql_stmt_bind_result(st, cols->bind) != 0)
		return -1;
	cols->bound_n = cols->n;
	cols->bound_shared = cols->shared;
	return 0;
}

/*
 * Column i of the first row, which the fetch stepped over (struct
 * columns' shared): into its value, its buffer grown to fit.
 */
static int
columns_first_one(MYSQL_STMT *st, struct columns *cols, unsigned i)
{
	MYSQL_BIND b = cols->bind[i];
	struct conn_value *v = &cols->val[i];
	char *p;

	if (mysql_stmt_fetch_column(st, &b, i, 0) != 0)
		return -1;
	if (v->null || cols->is_int[i] || v->len < cols->cap[i])
		return 0;
	if ((p = realloc(cols->buf[i], v->len + 1)) == NULL)
		return -1;
	cols->buf[i] = p;
	cols->cap[i] = v->len + 1;
	v->s = p;
	/* The next result's first row goes there too; the library never does. */
	cols->bind[i].buffer = p;
	cols->bind[i].buffer_length = cols->cap[i] - 1;
	b = cols->bind[i];
	return mysql_stmt_fetch_column(st, &b, i, 0);
}

/* The columns the fetch of the first row stepped over. */
static int
columns_first(MYSQL_STMT *st, struct columns *cols)
{
	for (unsigned i = cols->each_row; i < cols->n; i++)
		if (columns_first_one(st, cols, i) != 0)
			return -1;
	return 0;
}

/* Fetches in full the columns a row did not fit, growing their buffers. */
static int
columns_refetch(MYSQL_STMT *st, struct columns *cols)
{
	int grown = 0;

	for (unsigned i = 0; i < cols->each_row; i++) {
		MYSQL_BIND b;
		char *p;

		unsigned long len = col_len(cols, i);

		if (col_null(cols, i) || cols->is_int[i] || len < cols->cap[i])
			continue;
		if ((p = realloc(cols->buf[i], len + 1)) == NULL)
			return -1;
		cols->buf[i] = p;
		cols->cap[i] = len + 1;
		b = cols->bind[i];
		b.buffer = p;
		b.buffer_length = len;
		if (mysql_stmt_fetch_column(st, &b, i, 0) != 0)
			return -1;
		grown = 1;
	}
	/* The next rows go into the grown buffers. */
	return grown ? columns_bind(st, cols, cols->bound_typed) : 0;
}

/*
 * A statement kept prepared on its connection, with its column buffers, so
 * that a query sent every sample is parsed by the server once, not every
 * time: on MariaDB 10.11 that was some 15% of a sample's server time.
 */
struct conn_kept {
	char *sql;
	uint64_t id;               /* kept_find()'s */
	MYSQL_STMT *st;
	struct columns cols;
	/*
	 * Integer parameters stay bound to pint: the library reads the
	 * bound buffers at each execute, so a call with as many integer
	 * parameters only puts their values there, where binding them again
	 * cost some 200 instructions a sample. 0: none bound so.
	 */
	unsigned int_params;
	long long pint[MAX_PARAMS];
};

/* Kept statements are numbered across connections, never twice. */
static _Atomic uint64_t kept_ids;

/*
 * The statement kept for sql: by *id, the number the caller holds for its
 * text (0: none yet), else by its text, *id then set to the one found.
 * Comparing the text of the sample's query, some 700 bytes, read two
 * copies of it every sample; a number never given twice cannot match a
 * statement kept since for another text, where the text's address could
 * (a buffer rewritten, or freed and reused).
 */
static struct conn_kept *
kept_find(struct conn *c, const char *sql, uint64_t *id)
{
	if (*id != 0)
		for (unsigned i = 0; i < CONN_KEPT; i++)
			if (c->kept[i] != NULL && c->kept[i]->id == *id)
				return c->kept[i];
	for (unsigned i = 0; i < CONN_KEPT; i++)
		if (c->kept[i] != NULL && strcmp(c->kept[i]->sql, sql) == 0) {
			*id = c->kept[i]->id;
			return c->kept[i];
		}
	return NULL;
}

/* Frees what the slot holds but its statement, which the caller closes. */
static void
kept_detach(struct conn *c, struct conn_kept *k)
{
	for (unsigned i = 0; i < CONN_KEPT; i++)
		if (c->kept[i] == k)
			c->kept[i] = NULL;
	columns_free(&k->cols);
	free(k->sql);
	free(k);
}

static void
forget_kept(struct conn *c)
{
	for (unsigned i = 0; i < CONN_KEPT; i++)
		if (c->kept[i] != NULL) {
			MYSQL_STMT *st = c->kept[i]->st;

			kept_detach(c, c->kept[i]);
			mysql_stmt_close(st);
		}
}

/*
 * Keeps st for sql, in a free slot or in place of the oldest; NULL when
 * out of memory, and st is then run once and closed as any other.
 */
static struct conn_kept *
kept_add(struct conn *c, const char *sql, MYSQL_STMT *st)
{
	struct conn_kept *k = calloc(1, sizeof(*k));
	unsigned slot = c->kept_next;

	if (k == NULL || (k->sql = strdup(sql)) == NULL) {
		free(k);
		return NULL;
	}
	k->st = st;
	k->id = atomic_fetch_add(&kept_ids, 1) + 1;
	for (unsigned i = 0; i < CONN_KEPT; i++)
		if (c->kept[i] == NULL) {
			slot = i;
			break;
		}
	if (c->kept[slot] != NULL) {
		MYSQL_STMT *old = c->kept[slot]->st;

		kept_detach(c, c->kept[slot]);
		mysql_stmt_close(old);
	}
	c->kept[slot] = k;
	c->kept_next = (slot + 1) % CONN_KEPT;
	c->forget_kept = forget_kept;
	return k;
}

/* Prepares sql for n parameters; NULL with *status set on failure. */
static MYSQL_STMT *
prepare(struct conn *c, const char *sql, unsigned n, unsigned *server_errno,
    char *err, size_t errlen, enum conn_status *status)
{
	MYSQL_STMT *st;

	if ((st = mysql_stmt_init(c->mysql)) == NULL) {
		*status = stmt_failed(c, NULL, server_errno, err, errlen);
		return NULL;
	}
	if (conn_io_prepare(c, st, sql) != 0) {
		*status = stmt_failed(c, st, server_errno, err, errlen);
		return NULL;
	}
	if (mysql_stmt_param_count(st) != n) {
		snprintf(err, errlen, "the statement takes %lu parameters, not "
		    "%u", (unsigned long)mysql_stmt_param_count(st), n);
		mysql_stmt_close(st);
		*status = CONN_FAILED;
		return NULL;
	}
	return st;
}

/* The row fetched into cols, as strings in values. */
static void
text_values(struct columns *cols, char **values)
{
	for (unsigned i = 0; i < cols->n; i++) {
		values[i] = cols->null[i] ? NULL : cols->buf[i];
		if (!cols->null[i])
			cols->buf[i][cols->len[i]] = '\0';
	}
}

/* Whether the n params are all integers (none a string). */
static bool
all_ints(const struct conn_param *params, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (params[i].s != NULL)
			return false;
	return n > 0;
}

/*
 * The n params of kept statement k (NULL: none kept), when they are
 * integers bound to its pint as many as the last time: their values put
 * there, the binding kept. False: they need binding.
 */
static bool
kept_params(struct conn_kept *k, const struct conn_param *params, unsigned n)
{
	if (k == NULL || n == 0 || k->int_params != n || !all_ints(params, n))
		return false;
	for (unsigned i = 0; i < n; i++)
		k->pint[i] = params[i].i;
	return true;
}

/*
 * Binds the n params of st: strings where they are, integers copied to
 * pint, which must stay until the statement is executed (a kept one's
 * own, or the caller's). Returns 0, or -1 (the statement's error).
 */
static int
bind_params(MYSQL_STMT *st, const struct conn_param *params, unsigned n,
    MYSQL_BIND *pb, unsigned long *plen, long long *pint)
{
	if (n == 0)
		return 0;
	memset(pb, 0, n * sizeof(*pb));
	for (unsigned i = 0; i < n; i++) {
		if (params[i].s != NULL) {
			plen[i] = strlen(params[i].s);
			pb[i].buffer_type = MYSQL_TYPE_STRING;
			pb[i].buffer = (void *)params[i].s;
			pb[i].buffer_length = plen[i];
			pb[i].length = &plen[i];
		} else {
			pint[i] = params[i].i;
			pb[i].buffer_type = MYSQL_TYPE_LONGLONG;
			pb[i].buffer = &pint[i];
		}
	}
	return mysql_stmt_bind_param(st, pb) != 0 ? -1 : 0;
}

/*
 * Hands each row of st, stored, to vfn as typed values or to fn as
 * strings. Returns 0, 1 when a callback refused a row, or -1 when a fetch
 * failed.
 */
static int
fetch_rows(MYSQL_STMT *st, struct columns *cols, conn_row_fn fn,
    conn_value_fn vfn, void *ctx)
{
	char *values[MAX_COLUMNS];
	bool first = true;
	int rc;

	while ((rc = mysql_stmt_fetch(st)) != MYSQL_NO_DATA) {
		int stop = 0;

		if (rc == 1 || (rc == MYSQL_DATA_TRUNCATED &&
		    columns_refetch(st, cols) != 0))
			return -1;
		if (first && cols->each_row < cols->n &&
		    columns_first(st, cols) != 0)
			return -1;
		first = false;
		/*
		 * A typed row is in cols->val as fetched (columns_bind()): its
		 * strings go by their length, without the NUL that writing
		 * after each cost 1,100 instructions a sample.
		 */
		if (vfn != NULL) {
			stop = vfn(ctx, cols->n, cols->val);
		} else if (fn != NULL) {
			text_values(cols, values);
			stop = fn(ctx, cols->n, values, cols->len);
		}
		if (stop != 0)
			return 1;
	}
	return 0;
}

/*
 * Runs sql with params, kept prepared (keep: the number of its kept
 * statement, kept_find()'s) or, keep NULL, prepared for this call alone;
 * each row goes to fn as strings, or to vfn as typed values, whose
 * columns from shared on are the same in each row (conn_query_shared()).
 */
static enum conn_status
query_params(struct conn *c, const char *sql, uint64_t *keep,
    const struct conn_param *params, unsigned n, conn_row_fn fn,
    conn_value_fn vfn, unsigned shared, void *ctx, unsigned *server_errno,
    char *err, size_t errlen)
{
	MYSQL_BIND pb[MAX_PARAMS];
	unsigned long plen[MAX_PARAMS];
	long long pint[MAX_PARAMS];
	/*
	 * Zeroed only when used: a kept statement has its own, and zeroing
	 * this one cost 700 instructions on every sample.
	 */
	struct columns once, *cols = &once;
	struct conn_kept *k = NULL;
	enum conn_status status = CONN_OK;
	MYSQL_STMT *st;
	int rc;

	if (!query_begins(c, n, server_errno, err, errlen, &status))
		return status;
	if (keep != NULL && (k = kept_find(c, sql, keep)) != NULL)
		st = k->st;
	else if ((st = prepare(c, sql, n, server_errno, err, errlen,
	    &status)) == NULL)
		return status;
	else if (keep != NULL && (k = kept_add(c, sql, st)) != NULL)
		*keep = k->id;
	if (k != NULL)
		cols = &k->cols;
	else
		memset(&once, 0, sizeof(once));
	if (!kept_params(k, params, n) && bind_params(st, params, n, pb, plen,
	    k != NULL ? k->pint : pint) != 0)
		goto failed;
	if (k != NULL)
		k->int_params = all_ints(params, n) ? n : 0;
	if (conn_io_execute(c, st) != 0)
		goto failed;
	if ((cols->n = mysql_stmt_field_count(st)) == 0)
		goto done;
	if (cols->n > MAX_COLUMNS) {
		cols->n = 0;
		snprintf(err, errlen, "too many columns");
		status = CONN_FAILED;
		goto done;
	}
	cols->shared = vfn != NULL ? shared : cols->n;
	/* Stored, so that a long column can be fetched again in full. */
	if (((cols->bound_n != cols->n || cols->bound_typed != (vfn != NULL) ||
	    cols->bound_shared != cols->shared) &&
	    columns_bind(st, cols, vfn != NULL) != 0) ||
	    conn_io_stmt_store(c, st) != 0)
		goto fail;
	if ((rc = fetch_rows(st, cols, fn, vfn, ctx)) < 0)
		goto fail;
	if (rc > 0) {
		if (err[0] == '\0')
			snprintf(err, errlen, "unexpected result");
		status = CONN_FAILED;
	}
done:
	/* A kept statement keeps its buffers for the next time. */
	if (k != NULL && status == CONN_OK) {
		mysql_stmt_free_result(st);
		return CONN_OK;
	}
	if (k != NULL)
		kept_detach(c, k);
	else
		columns_free(cols);
	mysql_stmt_close(st);
	return status;
fail:
	if (!c->abandoned && mysql_stmt_errno(st) == 0) {
		snprintf(err, errlen, "out of memory");
		status = CONN_FAILED;
		goto done;
	}
failed:
	/* Prepared again next time: nothing is known of its state now. */
	if (k != NULL)
		kept_detach(c, k);
	else
		columns_free(cols);
	return stmt_failed(c, st, server_errno, err, errlen);
}
#endif

enum conn_status
conn_query_params(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_row_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen)
{
	return query_params(c, sql, NULL, params, n, fn, NULL, MAX_COLUMNS,
	    ctx, server_errno, err, errlen);
}

enum conn_status
conn_query_kept(struct conn *c, const char *sql,
    const struct conn_param *params, unsigned n, conn_value_fn fn, void *ctx,
    unsigned *server_errno, char *err, size_t errlen)
{
	uint64_t id = 0; /* found by its text */

	return query_params(c, sql, &id, params, n, NULL, fn, MAX_COLUMNS,
	    ctx, server_errno, err, errlen);
}

enum conn_status
conn_query_shared(struct conn *c, const char *sql, uint64_t *kept_id,
    const struct conn_param *params, unsigned n, unsigned shared,
    conn_value_fn fn, void *ctx, unsigned *server_errno, char *err,
    size_t errlen)
{
	return query_params(c, sql, kept_id, params, n, NULL, fn, shared, ctx,
	    server_errno, err, errlen);
}
