/*
 * SVG: the picture of the whole run alone (picture.h), written at the end,
 * when the run is known; samples only feed the chart (chart.h).
 */
#include <stdio.h>

#include "output.h"
#include "output_format.h"
#include "picture.h"

static int
svg_sample(struct output *o, const struct sample *s)
{
	return output_chart_sample(o, s);
}

static int
svg_end(struct output *o, const struct summary *sum)
{
	struct chart *c = output_chart_take(o);
	char what[700], total[720];

	/* No sample: the picture says so, and is still a whole document. */
	if (c == NULL)
		return -1;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", o->fp);
	picture_svg(o->fp, c, output_chart_what(o, sum->thread_id, what,
	    sizeof(what)), output_chart_total(o, total, sizeof(total)));
	chart_free(c);
	return output_status(o->fp);
}

const struct format format_svg = {
	.name = "svg",
	.init = output_chart_init,
	.free = output_chart_free,
	.sample = svg_sample,
	.end = svg_end,
	.one_run = true,
};
