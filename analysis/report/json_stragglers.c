/* SPDX-License-Identifier: MIT */
/*
 * The stragglers' part of the reports' JSON (psa_report_json.h, docs/json-schema.md): the ranks,
 * the execs, and the links between hosts.
 */
#include <stdbool.h>
#include <stdlib.h>

#include <proxyscope/psa_clock.h>
#include <proxyscope/psa_report_json.h>

void psa_report_json_stragglers(struct jw *j, const struct psa_stragglers *s)
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


static struct psa_clock_link *links_of(const struct psa_report *r, size_t *n)
{
	struct psa_clock_link *l = NULL;

	*n = 0;
	if (!r->clock || psa_clock_links(r->clock, &l, n))
		return NULL;
	return l;
}

void psa_report_json_links(struct jw *j, const struct psa_report *r)
{
	size_t n;
	struct psa_clock_link *l = links_of(r, &n);
	struct psa_slow_link *sl;

	jw_key(j, "links");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		jw_key(j, "from");
		jw_string(j, l[i].from);
		jw_key(j, "to");
		jw_string(j, l[i].to);
		jw_key(j, "messages");
		jw_u64(j, l[i].pairs);
		jw_key(j, "mean_ns");
		jw_double(j, l[i].mean_ns);
		jw_key(j, "min_ns");
		jw_i64(j, l[i].min_ns);
		jw_key(j, "max_ns");
		jw_i64(j, l[i].max_ns);
		jw_key(j, "transit_mean_ns");
		jw_double(j, l[i].transit_ns);
		jw_key(j, "transit_median_ns");
		jw_double(j, l[i].transit_median_ns);
		jw_key(j, "slow");
		jw_bool(j, psa_clock_link_slow(l, n, i));
		jw_end_object(j);
	}
	jw_end_array(j);
	free(l);
	/* the pairs of hosts named: a slow link, not the ranks that wait on it */
	jw_key(j, "slow_links");
	jw_begin_array(j);
	if (!psa_report_slow_links(r, &sl, &n)) {
		for (size_t i = 0; i < n; i++) {
			jw_begin_object(j);
			jw_key(j, "hosts");
			jw_begin_array(j);
			jw_string(j, sl[i].a);
			jw_string(j, sl[i].b);
			jw_end_array(j);
			jw_key(j, "transit_median_ns");
			jw_double(j, sl[i].transit_ns);
			jw_key(j, "others_median_ns");
			jw_double(j, sl[i].others_ns);
			jw_key(j, "injected");
			if (sl[i].injected) {
				jw_begin_object(j);
				jw_key(j, "exec_id");
				jw_u64(j, sl[i].exec_id);
				jw_key(j, "kbit");
				jw_u64(j, sl[i].kbit);
				jw_end_object(j);
			} else {
				jw_null(j);
			}
			jw_end_object(j);
		}
		free(sl);
	}
	jw_end_array(j);
}
