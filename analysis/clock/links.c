/* SPDX-License-Identifier: MIT */
/*
 * The links between hosts (psa_clock.h): the one-way latency of the messages from one host to
 * another, from the causal pairs the estimator kept, on the estimated clocks; a slow link.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_clock.h>

#include "clock/clock_int.h"

/* The estimated offset of host @name (0: the reference, or not corrected). */
static int64_t offset_of(const struct psa_clock *c, const char *name)
{
	for (size_t i = 0; i < c->out_n; i++)
		if (!strcmp(c->out[i].host, name))
			return c->out[i].state == PSA_CLOCK_CORRECTED ? c->out[i].offset_ns : 0;
	return 0;
}

static int link_by_name(const void *x, const void *y)
{
	const struct psa_clock_link *a = x, *b = y;
	int d = strcmp(a->from, b->from);

	return d ? d : strcmp(a->to, b->to);
}

int psa_clock_links(const struct psa_clock *c, struct psa_clock_link **out, size_t *n)
{
	*n = 0;
	*out = calloc(c->edge_n ? c->edge_n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < c->edge_n; i++) {
		const struct psa__clock_edge *e = &c->edge[i];
		struct psa_clock_link *l = &(*out)[(*n)++];
		int64_t shift;

		snprintf(l->from, sizeof(l->from), "%s", c->host[e->from].name);
		snprintf(l->to, sizeof(l->to), "%s", c->host[e->to].name);
		/* receive - send on the recorded clocks holds offset(to) - offset(from) */
		shift = offset_of(c, l->to) - offset_of(c, l->from);
		l->pairs = e->pairs;
		l->mean_ns = (double)e->sum / (double)e->pairs - (double)shift;
		l->min_ns = e->w - shift;
		l->max_ns = e->max - shift;
		/* which bound a pair's time in flight took was chosen on the recorded clocks: on
		 * hosts whose offsets the pairs bound to microseconds, as close as it gets */
		l->transit_ns = ((double)e->sum_sent - (double)e->sent_n * (double)shift +
				 (double)e->sum_posted) / (double)e->pairs;
	}
	qsort(*out, *n, sizeof(**out), link_by_name);
	return 0;
}

size_t psa_clock_link_back(const struct psa_clock_link *l, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (!strcmp(l[j].from, l[i].to) && !strcmp(l[j].to, l[i].from))
			return j;
	return n;
}

static int by_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

double psa_clock_link_others_ns(const struct psa_clock_link *l, size_t n, size_t i)
{
	double *m = malloc((n ? n : 1) * sizeof(*m)), median;
	size_t k = 0;

	if (!m || n < 2) {
		free(m);
		return 0;
	}
	for (size_t j = 0; j < n; j++)
		if (j != i)
			m[k++] = l[j].transit_ns;
	qsort(m, k, sizeof(*m), by_double);
	median = k % 2 ? m[k / 2] : (m[k / 2 - 1] + m[k / 2]) / 2;
	free(m);
	return median;
}

bool psa_clock_link_slow(const struct psa_clock_link *l, size_t n, size_t i)
{
	double median = psa_clock_link_others_ns(l, n, i);

	/* the floor: on one machine the links take microseconds, and a preempted receiver's
	 * poll moves a mean of microseconds by more than twice */
	return n >= 2 && median > 0 && l[i].transit_ns > 2 * median &&
	       l[i].transit_ns - median >= PSA_LINK_SLOW_MIN_NS;
}

void psa_clock_links_print(const struct psa_clock *c, FILE *out)
{
	struct psa_clock_link *l = NULL;
	size_t n = 0;

	if (psa_clock_links(c, &l, &n) || !n) {
		free(l);
		return;
	}
	fprintf(out, "links: one-way message latency between hosts, on the estimated clocks (in "
		"flight: from the later of the send and the receive's post)\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %s -> %s: %llu messages, in flight %.3f ms, send to receive mean "
			"%.3f ms, min %.3f ms, max %.3f ms%s\n", l[i].from, l[i].to,
			(unsigned long long)l[i].pairs, l[i].transit_ns / 1e6, l[i].mean_ns / 1e6,
			(double)l[i].min_ns / 1e6, (double)l[i].max_ns / 1e6,
			psa_clock_link_slow(l, n, i) ? "  <- slow: over twice the others' median" : "");
	for (size_t i = 0; i < n; i++) {
		size_t back = psa_clock_link_back(l, n, i);

		/* a pair of hosts once: from its first slow direction by name */
		if (!psa_clock_link_slow(l, n, i) ||
		    (back < n && back < i && psa_clock_link_slow(l, n, back)))
			continue;
		fprintf(out, "slow link: %s <-> %s: its messages in flight %.3f ms on average, the "
			"other links' median %.3f ms; the ranks on %s and %s wait on the link, not "
			"on a rank\n", l[i].from, l[i].to, l[i].transit_ns / 1e6,
			psa_clock_link_others_ns(l, n, i) / 1e6, l[i].from, l[i].to);
	}
	free(l);
}
