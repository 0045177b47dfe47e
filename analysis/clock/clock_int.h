/* SPDX-License-Identifier: MIT */
/* The clock estimator's state (clock/offset.c collects, clock/solve.c estimates and prints). */
#ifndef PROXYSCOPE_ANALYSIS_CLOCK_INT_H
#define PROXYSCOPE_ANALYSIS_CLOCK_INT_H

#include <stdint.h>

#include <proxyscope/psa_clock.h>

#include "hashmap.h"

struct pending;

struct psa__clock_host {
	char name[PSA_HOST_MAX];
	uint64_t pairs;
};

/* offset(to) - offset(from) <= w: the tightest of @pairs pairs sent on from, received on to;
 * with the sum and the largest of their recorded differences (receive - send), for the
 * latency of the link (psa_clock_links) */
#define PSA__TRANSIT_BUCKETS 192 /* 1 us, then 4 per octave up to 2^47 us */

struct psa__clock_edge {
	uint32_t from, to;
	int64_t w;
	uint64_t pairs;
	int64_t sum, max;
	/* In flight: from the later of the send and the receive's post to the receive's end -
	 * min(recv - send, the receive's own post-to-end time). The pairs whose send bounds it
	 * (@sum_sent of them, recorded clocks: the offsets move them) and the sum of the others'
	 * receive times (one clock: nothing moves them). */
	uint64_t sent_n;
	int64_t sum_sent, sum_posted;
	/* The times in flight on the recorded clocks, counted in buckets of a quarter octave above
	 * 1 us (links.c: their median, which a few preempted receivers do not move as they move
	 * the mean). */
	uint32_t transit[PSA__TRANSIT_BUCKETS];
};

struct psa_clock {
	struct psa__clock_host *host; /* in the order first seen */
	size_t host_n, host_cap;
	long last_host;               /* the last one looked up (-1: none yet) */
	struct psa__clock_edge *edge;
	size_t edge_n, edge_cap;
	struct psa_hashmap edge_idx;  /* (from, to) -> edge index + 1 */
	struct psa_hashmap pending;   /* a message's key -> struct pending (one side seen) */
	struct pending *free;         /* matched entries, for the next messages */
	struct psa_hashmap threads;   /* (host, vpid, vtid) -> its last event's time */
	struct psa_clock_host *out;   /* psa_clock_estimate's result, host_n entries */
	size_t out_n;
};

/* The bucket of a time in flight of @ns (negative: 0), and the time a bucket stands for. */
unsigned psa__transit_bucket(int64_t ns);
double psa__transit_value(unsigned b);

#endif /* PROXYSCOPE_ANALYSIS_CLOCK_INT_H */
