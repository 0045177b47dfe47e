/* SPDX-License-Identifier: MIT */
/*
 * The stragglers part of a report (psa_stragglers.h) for `stragglers` and `report`: the observer
 * on the read, and its JSON.
 */
#include <stdio.h>
#include <stdlib.h>

#include <proxyscope/psa_clock.h>
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


static int by_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* A link is slow when its mean latency is over twice the median of the other links'. */
static bool slow_link(const struct psa_clock_link *l, size_t n, size_t i)
{
	double *m = malloc(n * sizeof(*m)), median;
	size_t k = 0;

	if (!m || n < 2) {
		free(m);
		return false;
	}
	for (size_t j = 0; j < n; j++)
		if (j != i)
			m[k++] = l[j].mean_ns;
	qsort(m, k, sizeof(*m), by_double);
	median = k % 2 ? m[k / 2] : (m[k / 2 - 1] + m[k / 2]) / 2;
	free(m);
	return l[i].mean_ns > 2 * median && median > 0;
}

/* The links of @r's hosts (psa_clock_links), NULL with 0 for a single host or out of memory. */
static struct psa_clock_link *links_of(const struct psa_report *r, size_t *n)
{
	struct psa_clock_link *l = NULL;

	*n = 0;
	if (!r->clock || psa_clock_links(r->clock, &l, n))
		return NULL;
	return l;
}

void stragglers_links_print(const struct psa_report *r, FILE *out)
{
	size_t n;
	struct psa_clock_link *l = links_of(r, &n);

	if (n)
		fprintf(out, "links: one-way message latency between hosts, on the estimated clocks\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %s -> %s: %llu messages, mean %.3f ms, min %.3f ms, max %.3f ms%s\n",
			l[i].from, l[i].to, (unsigned long long)l[i].pairs, l[i].mean_ns / 1e6,
			(double)l[i].min_ns / 1e6, (double)l[i].max_ns / 1e6,
			slow_link(l, n, i) ? "  <- slow: over twice the others' median" : "");
	free(l);
}

void stragglers_links_json(struct jw *j, const struct psa_report *r)
{
	size_t n;
	struct psa_clock_link *l = links_of(r, &n);

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
		jw_key(j, "slow");
		jw_bool(j, slow_link(l, n, i));
		jw_end_object(j);
	}
	jw_end_array(j);
	free(l);
}
