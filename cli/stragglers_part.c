/* SPDX-License-Identifier: MIT */
/*
 * The stragglers part of a report (psa_stragglers.h) for `stragglers` and `report`: the observer
 * on the read, and its JSON.
 */
#include <proxyscope/psa_stragglers.h>

#include "cli_util.h"
#include "report_input.h"
#include "stragglers_part.h"

int stragglers_observe(struct psa_report *r, void *arg)
{
	struct psa_stragglers **s = arg;
	struct psa_observer obs;

	psa_stragglers_destroy(*s);
	*s = NULL;
	if (psa_stragglers_create(s)) {
		cli_error("out of memory");
		return CLI_EXIT_FAILURE;
	}
	psa_stragglers_observer(*s, &obs);
	return report_add_observer(r, &obs);
}

void stragglers_json(struct jw *j, const struct psa_stragglers *s)
{
	size_t nr, ne;
	const struct psa_straggler_rank *r = psa_stragglers_ranks(s, &nr);
	const struct psa_straggler_exec *e = psa_stragglers_execs(s, &ne);
	jw_key(j, "stragglers");
	jw_begin_object(j);
	jw_key(j, "exec_median_ns");
	jw_u64(j, psa_stragglers_exec_median_ns(s));
	jw_key(j, "ranks");
	jw_begin_array(j);
	for (size_t i = 0; i < nr; i++) {
		jw_begin_object(j);
		jw_key(j, "rank");
		jw_u64(j, r[i].rank);
		jw_key(j, "execs");
		jw_u64(j, r[i].execs);
		jw_key(j, "last");
		jw_u64(j, r[i].last);
		jw_key(j, "lost_ns");
		jw_u64(j, r[i].lost_ns);
		jw_key(j, "late_mean_ns");
		jw_double(j, r[i].late_mean_ns);
		jw_key(j, "changes");
		jw_begin_array(j);
		for (size_t k = 0; k < r[i].changes_n; k++) {
			jw_begin_object(j);
			jw_key(j, "exec_id");
			jw_u64(j, r[i].changes[k].exec_id);
			jw_key(j, "before_ns");
			jw_double(j, r[i].changes[k].before_ns);
			jw_key(j, "after_ns");
			jw_double(j, r[i].changes[k].after_ns);
			jw_end_object(j);
		}
		jw_end_array(j);
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_key(j, "execs");
	jw_begin_array(j);
	for (size_t i = 0; i < ne; i++) {
		jw_begin_object(j);
		jw_key(j, "exec_id");
		jw_u64(j, e[i].exec_id);
		jw_key(j, "ranks");
		jw_u64(j, e[i].ranks);
		jw_key(j, "last_rank");
		jw_u64(j, e[i].last_rank);
		jw_key(j, "lost_ns");
		jw_u64(j, e[i].lost_ns);
		jw_key(j, "waited_ns");
		jw_u64(j, e[i].waited_ns);
		jw_key(j, "span_ns");
		jw_u64(j, e[i].span_ns);
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_end_object(j);
}

