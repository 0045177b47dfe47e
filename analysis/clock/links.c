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
	}
	qsort(*out, *n, sizeof(**out), link_by_name);
	return 0;
}

static int by_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

bool psa_clock_link_slow(const struct psa_clock_link *l, size_t n, size_t i)
{
	double *m = malloc((n ? n : 1) * sizeof(*m)), median;
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

void psa_clock_links_print(const struct psa_clock *c, FILE *out)
{
	struct psa_clock_link *l = NULL;
	size_t n = 0;

	if (psa_clock_links(c, &l, &n) || !n) {
		free(l);
		return;
	}
	fprintf(out, "links: one-way message latency between hosts, on the estimated clocks\n");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "  %s -> %s: %llu messages, mean %.3f ms, min %.3f ms, max %.3f ms%s\n",
			l[i].from, l[i].to, (unsigned long long)l[i].pairs, l[i].mean_ns / 1e6,
			(double)l[i].min_ns / 1e6, (double)l[i].max_ns / 1e6,
			psa_clock_link_slow(l, n, i) ? "  <- slow: over twice the others' median" : "");
	free(l);
}
