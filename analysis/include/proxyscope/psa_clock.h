/* SPDX-License-Identifier: MIT */
/*
 * Host clocks estimated from causality. Every host's events carry its own clock; a message
 * cannot be received before it was sent, so each network op between ranks on two hosts - its
 * send on one host (the event before its encnet:post SEND on the sender's thread: the post
 * event fires after the transport call), its receive completed on the other (encnet:complete
 * RECV) - bounds the difference of the two clocks:
 *
 *	offset(recv host) - offset(send host) <= recv_ts - send_ts
 *
 * Sends both ways between two hosts bound the difference from both sides; bounds along chains
 * of hosts (A-B, B-C) bound A-C. Offsets are relative to a reference host (the first host name
 * in sort order); each host gets the interval its evidence allows and an estimate in it. A host
 * whose recorded clock (offset 0) lies outside that interval disagrees by more than the
 * evidence allows: it is corrected by its estimate (the middle of what the evidence allows,
 * once the hosts before it are fixed, so the corrected clocks violate no observed pair). Hosts
 * whose clocks agree get no correction, so a trace whose clocks agree is read once.
 *
 * At the default level the network ops are the only causality across hosts: the bus, its
 * barriers and the host barrier task never leave their host.
 */
#ifndef PROXYSCOPE_PSA_CLOCK_H
#define PROXYSCOPE_PSA_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <proxyscope/psa_event.h>

#ifdef __cplusplus
extern "C" {
#endif

enum psa_clock_state {
	PSA_CLOCK_REFERENCE,    /* the host the others are measured against */
	PSA_CLOCK_AGREES,       /* its clock lies within what the evidence allows: no correction */
	PSA_CLOCK_CORRECTED,    /* it disagrees by more than the evidence allows: corrected */
	PSA_CLOCK_INCONSISTENT, /* its evidence contradicts itself (no single offset fits) */
	PSA_CLOCK_UNKNOWN,      /* no message links it to the reference host */
	PSA_CLOCK_STATE_NR
};

/* "reference", "agrees", "corrected", "inconsistent", "unknown" */
const char *psa_clock_state_str(enum psa_clock_state s);

struct psa_clock_host {
	char host[PSA_HOST_MAX];
	enum psa_clock_state state;
	bool has_lo, has_hi;  /* a bound from each side (else that side is open) */
	int64_t lo_ns, hi_ns; /* what the evidence allows for offset_ns, given the offsets of the
				 hosts placed before it (by name): the window it was decided on */
	int64_t offset_ns;    /* the estimate: this host's clock minus the reference's (0 unless
				 corrected) */
	int64_t bound_ns;     /* |offset_ns - true offset| <= bound_ns (CORRECTED, both sides
				 bounded); -1 when unbounded */
	uint64_t pairs;       /* causal pairs this host takes part in */
};

struct psa_clock;

int psa_clock_create(struct psa_clock **out);
void psa_clock_destroy(struct psa_clock *c);

/* Observe one event: every event, in the reader's order (each thread's in its own order, which
 * gives the event before a send's post). 0 or -ENOMEM. */
int psa_clock_feed(struct psa_clock *c, const struct psa_event *ev);
/* One causal pair: an event at @send_ts on @send_host precedes one at @recv_ts on @recv_host. */
int psa_clock_add_pair(struct psa_clock *c, const char *send_host, uint64_t send_ts,
		       const char *recv_host, uint64_t recv_ts);

/* After the last event: the per-host estimates (recomputed on every call). 0 or -ENOMEM. */
int psa_clock_estimate(struct psa_clock *c);
/* The hosts seen, by name; the reference first. Valid until the next feed or estimate. */
const struct psa_clock_host *psa_clock_hosts(const struct psa_clock *c, size_t *n);
/* Whether an estimate corrects some host (a re-read with psa_read_ctf_clocked is needed). */
bool psa_clock_needs_correction(const struct psa_clock *c);

/*
 * The "clocks:" section (nothing for a trace of one host): each host with its estimate and
 * what the evidence allows; @applied says whether the corrections were applied to the order.
 */
void psa_clock_print(const struct psa_clock *c, bool applied, FILE *out);

/* A clock correction the CTF reader applies to every trace of a host (its events' times
 * minus offset_ns). */
struct psa_clock_fix {
	const char *host;
	int64_t offset_ns;
};

/*
 * The corrections of the hosts psa_clock_estimate corrects, for psa_read_ctf_clocked: a
 * malloc'ed array (free() it; its host names are @c's, valid until the next feed or estimate)
 * in *@out, *@n entries. 0 or -ENOMEM.
 */
int psa_clock_fixes(const struct psa_clock *c, struct psa_clock_fix **out, size_t *n);

/*
 * The one-way latency of the messages from one host to another, on the estimated clocks (a
 * corrected host's offset taken out; a host that agrees is taken as it is, so its latencies are
 * known within its window): a slow link shows as a row and a column.
 */
struct psa_clock_link {
	char from[PSA_HOST_MAX], to[PSA_HOST_MAX];
	uint64_t pairs;
	double mean_ns;   /* send to receive: the receiver's own lateness too */
	int64_t min_ns, max_ns;
	/* In flight: from the later of the send and the receive's post to the receive's end. A
	 * receiver that posted late waits for no link, so only this tells a slow link from the
	 * ranks that wait on it (in a collective every link then looks slow from send to receive). */
	double transit_ns;
	double transit_median_ns; /* its median, within an eighth of an octave */
};
/* After psa_clock_estimate: every (from, to) with a message, by name. 0 or -ENOMEM; free(*@out). */
int psa_clock_links(const struct psa_clock *c, struct psa_clock_link **out, size_t *n);

#define PSA_LINK_SLOW_MIN_NS 1000000 /* a slow link is at least this much slower than the rest */
/* Link @i of @l[0..n) is slow: its pair's round trip (its median time in flight plus its way
 * back's) over twice the median of the other pairs' round trips, and 2 x PSA_LINK_SLOW_MIN_NS
 * above it. A round trip, because one way's time rests on the clocks' estimated offset (an error
 * in it moves one way up and the other down as much) and the sum does not: beside
 * stress-ng --cpu 4, three single ways of a healthy 3-host run came out over twice the others'
 * median (1.9-2.8 ms against 0.6-0.8 ms), each with its way back among the fast. Both ways of a
 * slow pair are slow; two hosts (one pair) have nothing to compare with. */
bool psa_clock_link_slow(const struct psa_clock_link *l, size_t n, size_t i);
/* The index in @l[0..n) of link @i's way back (to -> from), or @n. */
size_t psa_clock_link_back(const struct psa_clock_link *l, size_t n, size_t i);
/* The median of the median times in flight of the links of @l[0..n) but @i. */
double psa_clock_link_others_ns(const struct psa_clock_link *l, size_t n, size_t i);
/* "links:" and a line per link, a slow one marked (nothing without messages between hosts). */
void psa_clock_links_print(const struct psa_clock *c, FILE *out);

/*
 * psa_read_ctf with the traces of host @fix[i].host read on a clock corrected by
 * -@fix[i].offset_ns (babeltrace2 moves each trace's clock classes, so the traces are merged in
 * corrected time order). A trace's host is the `hostname` of its metadata's environment.
 */
int psa_read_ctf_clocked(const char *const *paths, size_t paths_n, const struct psa_clock_fix *fix,
			 size_t fix_n, const struct psa_sink *sink, struct psa_read_stats *stats,
			 void (*progress)(uint64_t events, void *arg), void *progress_arg,
			 char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PROXYSCOPE_PSA_CLOCK_H */
