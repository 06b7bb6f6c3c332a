#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "incident_line.h"
#include "output_format.h"
#include "utc.h"

static const char *const kind_names[] = {
	[INCIDENT_GONE] = "server-gone",
	[INCIDENT_RESTARTED] = "restarted",
	[INCIDENT_OOM_KILL] = "oom-kill",
	[INCIDENT_LIMIT_SHARE] = "limit-share",
};

const char *
incident_kind_name(enum incident_kind k)
{
	return kind_names[k];
}

static void
put_int(struct obuf *b, const char *key, bool known, int64_t v)
{
	char n[64];

	if (known)
		snprintf(n, sizeof(n), ",\"%s\":%" PRId64, key, v);
	else
		snprintf(n, sizeof(n), ",\"%s\":null", key);
	obuf_puts(b, n);
}

void
incident_put_line(struct obuf *b, const struct incident *in)
{
	const struct process_memory *p = &in->process;
	char t[64];

	utc_format(t, sizeof(t), in->at_ms, UTC_STAMP);
	obuf_puts(b, "{\"type\":\"incident\",\"timestamp\":\"");
	obuf_puts(b, t);
	obuf_puts(b, "\",\"kind\":\"");
	obuf_puts(b, kind_names[in->kind]);
	obuf_puts(b, "\",\"what\":");
	output_json_put_string(b, in->what, strlen(in->what));
	put_int(b, "process_resident_bytes", p->known, p->resident_bytes);
	put_int(b, "cgroup_usage_bytes", p->has_cgroup, p->cgroup_usage_bytes);
	put_int(b, "cgroup_limit_bytes", p->has_cgroup &&
	    p->cgroup_limit_bytes >= 0, p->cgroup_limit_bytes);
	put_int(b, "cgroup_oom_kills", p->has_cgroup && p->cgroup_oom_kills >= 0,
	    (int64_t)p->cgroup_oom_kills);
	put_int(b, "cgroup_high_bytes", p->has_cgroup &&
	    p->cgroup_high_bytes >= 0, p->cgroup_high_bytes);
	put_int(b, "cgroup_high_events", p->has_cgroup &&
	    p->cgroup_high_events >= 0, p->cgroup_high_events);
	put_int(b, "cgroup_pressure_some_bp", p->has_cgroup &&
	    p->cgroup_pressure_some >= 0, p->cgroup_pressure_some);
	put_int(b, "cgroup_pressure_full_bp", p->has_cgroup &&
	    p->cgroup_pressure_full >= 0, p->cgroup_pressure_full);
	if (in->heap_dump[0] != '\0') {
		char path[128];

		snprintf(path, sizeof(path), "heap/%s", in->heap_dump);
		obuf_puts(b, ",\"heap_dump\":");
		output_json_put_string(b, path, strlen(path));
		put_int(b, "heap_bytes", in->heap_bytes >= 0, in->heap_bytes);
	}
	obuf_puts(b, ",\"kernel\":");
	if (in->kmsg[0] != '\0')
		output_json_put_string(b, in->kmsg, strlen(in->kmsg));
	else
		obuf_puts(b, "null");
	obuf_puts(b, "}\n");
}

int64_t
incident_line_ms(const char *line, size_t n)
{
	static const char key[] = "\"timestamp\":\"";
	const char *p = memmem(line, n, key, sizeof(key) - 1), *end;
	char t[40];
	int64_t ms;

	if (p == NULL)
		return -1;
	p += sizeof(key) - 1;
	end = memchr(p, '"', (size_t)(line + n - p));
	if (end == NULL || end - p >= (ptrdiff_t)sizeof(t))
		return -1;
	memcpy(t, p, (size_t)(end - p));
	t[end - p] = '\0';
	return utc_scan(t, UTC_STAMP, &ms, NULL) == 0 ? ms : -1;
}

