/* SPDX-License-Identifier: MIT */
/*
 * A report command's JSON document on stdout (report_json.h): its start - schema_version, the
 * command, what was read, the clocks - and its end; the parts are the analysis' own
 * (psa_report_json.h).
 */
#include <stdio.h>

#include "report_json.h"

void report_json_begin(struct jw *j, const char *command, const struct psa_report *c,
		       const struct report_args *a)
{
	jw_init(j, stdout);
	cli_json_begin_document(j);
	jw_key_string(j, "command", command);
	psa_report_json_input(j, c, a->paths, a->n);
	psa_report_json_clocks(j, c);
}

void psa_report_json_clocks(struct jw *j, const struct psa_report *c)
{
	const struct psa_clock_host *h;
	size_t n = 0;

	h = c->clock ? psa_clock_hosts(c->clock, &n) : NULL;
	if (n < 2)
		return;
	jw_key(j, "clocks");
	jw_begin_object(j);
	jw_key_string(j, "reference", h[0].host);
	jw_key(j, "corrected");
	jw_bool(j, c->clock_applied);
	jw_key(j, "hosts");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		jw_key_string(j, "host", h[i].host);
		jw_key_string(j, "state", psa_clock_state_str(h[i].state));
		jw_key(j, "offset_ns");
		jw_i64(j, h[i].offset_ns);
		jw_key(j, "bound_ns");
		if (h[i].bound_ns >= 0)
			jw_i64(j, h[i].bound_ns);
		else
			jw_null(j);
		jw_key(j, "allowed_min_ns");
		if (h[i].has_lo && i)
			jw_i64(j, h[i].lo_ns);
		else
			jw_null(j);
		jw_key(j, "allowed_max_ns");
		if (h[i].has_hi && i)
			jw_i64(j, h[i].hi_ns);
		else
			jw_null(j);
		jw_key(j, "pairs");
		jw_u64(j, h[i].pairs);
		jw_key(j, "applied");
		jw_bool(j, c->clock_applied && h[i].state == PSA_CLOCK_CORRECTED);
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_end_object(j);
}

void report_json_end(struct jw *j)
{
	jw_end_object(j);
	jw_finish(j);
}

