/*
 * --explain's answer written out: as text (a row a layer, its size first,
 * indented under the layer it is part of, where it comes from after it;
 * then the connections' bounds and the advice) or as one JSON object.
 * Into a buffer; the mode sends it.
 */
#ifndef MYSQLMEMPROF_EXPLAIN_OUT_H
#define MYSQLMEMPROF_EXPLAIN_OUT_H

#include <stdbool.h>

#include "explain_model.h"
#include "obuf.h"

/* exact: bytes as whole numbers (--bytes), else in units. */
void explain_text(struct obuf *b, const struct explain_reading *r,
    const struct explain *e, bool exact);
void explain_json(struct obuf *b, const struct explain_reading *r,
    const struct explain *e);

#endif
