/* SPDX-License-Identifier: MIT */
/*
 * The links between hosts (psa_clock.h): the one-way latency of the messages from one host to
 * another, from the causal pairs the estimator kept, on the estimated clocks; a slow link.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_clock.h>

#include "clock/clock_int.h"

unsigned psa__transit_bucket(int64_t ns)
{
	uint64_t us = ns > 0 ? (uint64_t)ns / 1000 : 0;
	unsigned octave, quarter;

	if (!us)
		return 0;
	octave = 63u - (unsigned)__builtin_clzll(us);
	/* the two bits below the leading one: the quarter of the octave */
	quarter = octave >= 2 ? (unsigned)(us >> (octave - 2)) & 3u
			      : (unsigned)(us << (2 - octave)) & 3u;
	if (1 + octave * 4 + quarter >= PSA__TRANSIT_BUCKETS)
		return PSA__TRANSIT_BUCKETS - 1;
	return 1 + octave * 4 + quarter;
}

double psa__transit_value(unsigned b)
{
	if (!b)
		return 500.0; /* below 1 us */
	/* the middle of the bucket: 2^octave * (1 + (quarter + 0.5) / 4) us */
	return ldexp(1.0 + ((double)((b - 1) % 4) + 0.5) / 4.0, (int)((b - 1) / 4)) * 1000.0;
}

/* The median of @e's times in flight (0: no pair). */
static double transit_median(const struct psa__clock_edge *e)
{
	uint64_t n = 0, seen = 0;

	for (unsigned b = 0; b < PSA__TRANSIT_BUCKETS; b++)
		n += e->transit[b];
	for (unsigned b = 0; b < PSA__TRANSIT_BUCKETS; b++) {
		seen += e->transit[b];
		if (n && 2 * seen >= n)
			return psa__transit_value(b);
	}
	return 0;
}

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
		l->transit_median_ns = transit_median(e);
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
			m[k++] = l[j].transit_median_ns;
	qsort(m, k, sizeof(*m), by_double);
	median = k % 2 ? m[k / 2] : (m[k / 2 - 1] + m[k / 2]) / 2;
	free(m);
	return median;
}

/* The round trip of link @i: its median time in flight and its way back's; 0 without one. */
static double round_trip_ns(const struct psa_clock_link *l, size_t n, size_t i)
{
	size_t back = psa_clock_link_back(l, n, i);

	return back < n ? l[i].transit_median_ns + l[back].transit_median_ns : 0;
}

bool psa_clock_link_slow(const struct psa_clock_link *l, size_t n, size_t i)
{
	size_t back = psa_clock_link_back(l, n, i), k = 0;
	double *rt = malloc((n ? n : 1) * sizeof(*rt)), mine = round_trip_ns(l, n, i), median;

	/* Each other pair's round trip once (from its first way in the links' order). */
	for (size_t j = 0; rt && mine > 0 && j < n; j++) {
		size_t jb = psa_clock_link_back(l, n, j);

		if (j != i && j != back && jb < n && j < jb)
			rt[k++] = round_trip_ns(l, n, j);
	}
	if (!k) { /* one pair (two hosts): nothing to compare with */
		free(rt);
		return false;
	}
	qsort(rt, k, sizeof(*rt), by_double);
	median = k % 2 ? rt[k / 2] : (rt[k / 2 - 1] + rt[k / 2]) / 2;
	free(rt);
	/* the floor: on one machine the links take microseconds, and a preempted receiver's poll
	 * moves a mean of microseconds by more than twice */
	return median > 0 && mine > 2 * median && mine - median >= 2.0 * PSA_LINK_SLOW_MIN_NS;
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
		fprintf(out, "  %s -> %s: %llu messages, in flight median %.3f ms mean %.3f ms, send to "
			"receive mean %.3f ms, min %.3f ms, max %.3f ms%s\n", l[i].from, l[i].to,
			(unsigned long long)l[i].pairs, l[i].transit_median_ns / 1e6,
			l[i].transit_ns / 1e6, l[i].mean_ns / 1e6,
			(double)l[i].min_ns / 1e6, (double)l[i].max_ns / 1e6,
			psa_clock_link_slow(l, n, i) ? "  <- slow: its round trip over twice the other pairs'" : "");
	free(l);
}
