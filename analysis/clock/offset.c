/* SPDX-License-Identifier: MIT */
/*
 * Host clock offsets from causality (psa_clock.h): the causal pairs taken from the network ops,
 * and the tightest bound per ordered pair of hosts.
 *
 * A pair is (the event before a send's post on the sender's thread, the matching receive's
 * completion): the post event fires after the transport call returned, possibly after the
 * receive completed (why: see docs/ARCHITECTURE.md, Decisions measured: a send is bounded by the
 * event before its post on its thread); the event before it on its thread
 * never is later than the message's leaving.
 *
 * A message is named by what both sides' events carry: job, sender rank, receiver rank, exec
 * and tag (the transport matches a receive to a send by sender and tag). Whichever side comes
 * first in the reader's order waits in a map until the other comes; the sides under one name are
 * counted, the name forgotten when they balance, and a name seen twice on one side before that
 * (a trace copied under another host's name, a tag used again) gives no pair. A pair only keeps the
 * minimum of recv_ts - send_ts per (send host, recv host): memory is the messages in flight
 * (plus the skew between the hosts' clocks) and the host pairs, never the events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_clock.h>

#include "clock/clock_int.h"
#include "hashmap.h"
#include "model/model_int.h"

/* encnet's op_kind enum (encnet_tp.h) */
#define OP_SEND 0
#define OP_RECV 1

struct pending {
	struct pending *next_free;         /* on the free list, once matched */
	uint64_t job, src, dst, exec, tag; /* the message's name */
	uint32_t host;                     /* the host of the side seen first */
	uint32_t sends, recvs;             /* the events seen under the name */
	bool ambiguous;
	uint64_t ts;
	uint64_t recv_ns;                  /* the receive's post to its end (UINT64_MAX: none) */
};

int psa_clock_create(struct psa_clock **out)
{
	struct psa_clock *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->last_host = -1;
	psa_hashmap_init(&c->pending);
	psa_hashmap_init(&c->edge_idx);
	psa_hashmap_init(&c->threads);
	*out = c;
	return 0;
}

void psa_clock_destroy(struct psa_clock *c)
{
	uint64_t k;
	void *v;

	if (!c)
		return;
	for (size_t i = 0; psa_hashmap_next(&c->pending, &i, &k, &v);)
		free(v);
	while (c->free) {
		struct pending *p = c->free;

		c->free = p->next_free;
		free(p);
	}
	psa_hashmap_fini(&c->pending);
	for (size_t i = 0; psa_hashmap_next(&c->threads, &i, &k, &v);)
		free(v);
	psa_hashmap_fini(&c->threads);
	psa_hashmap_fini(&c->edge_idx);
	free(c->host);
	free(c->edge);
	free(c->out);
	free(c);
}

/* The index of @name among the hosts, added when new; -1 when out of memory. */
static long host_index(struct psa_clock *c, const char *name)
{
	size_t len = strnlen(name, PSA_HOST_MAX - 1);

	if (c->last_host >= 0 && !strncmp(c->host[c->last_host].name, name, len) &&
	    !c->host[c->last_host].name[len])
		return c->last_host;
	for (size_t i = 0; i < c->host_n; i++) {
		if (!strncmp(c->host[i].name, name, len) && !c->host[i].name[len])
			return c->last_host = (long)i;
	}
	if (c->host_n == c->host_cap) {
		size_t cap = c->host_cap ? 2 * c->host_cap : 4;
		struct psa__clock_host *h = realloc(c->host, cap * sizeof(*h));

		if (!h)
			return -1;
		c->host = h;
		c->host_cap = cap;
	}
	memset(&c->host[c->host_n], 0, sizeof(c->host[0]));
	memcpy(c->host[c->host_n].name, name, len);
	return c->last_host = (long)c->host_n++;
}

/* Tighten the bound of offset(@to) - offset(@from) <= @w; the message was in the receive's
 * hands @recv_ns (links.c: the time in flight). */
static int edge_add(struct psa_clock *c, uint32_t from, uint32_t to, int64_t w, uint64_t recv_ns)
{
	struct psa_hkey key = PSA_HKEY(psa_key((uint64_t)from + 1, (uint64_t)to + 1), from, to);
	uintptr_t idx = (uintptr_t)psa_hashmap_find(&c->edge_idx, &key);
	struct psa__clock_edge *e;

	if (!idx) {
		if (c->edge_n == c->edge_cap) {
			size_t cap = c->edge_cap ? 2 * c->edge_cap : 8;
			struct psa__clock_edge *v = realloc(c->edge, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			c->edge = v;
			c->edge_cap = cap;
		}
		if (psa_hashmap_insert(&c->edge_idx, &key, (void *)(uintptr_t)(c->edge_n + 1)))
			return -ENOMEM;
		e = &c->edge[c->edge_n++];
		*e = (struct psa__clock_edge){ .from = from, .to = to, .w = w, .max = w };
	} else {
		e = &c->edge[idx - 1];
		if (w < e->w)
			e->w = w;
		if (w > e->max)
			e->max = w;
	}
	e->sum += w;
	e->pairs++;
	if (recv_ns == UINT64_MAX || w <= (int64_t)recv_ns) {
		e->sent_n++;
		e->sum_sent += w;
		e->transit[psa__transit_bucket(w)]++;
	} else {
		e->sum_posted += (int64_t)recv_ns;
		e->transit[psa__transit_bucket((int64_t)recv_ns)]++;
	}
	c->host[from].pairs++;
	c->host[to].pairs++;
	return 0;
}

static int pair_add(struct psa_clock *c, uint32_t send_host, uint64_t send_ts, uint32_t recv_host,
		    uint64_t recv_ts, uint64_t recv_ns)
{
	if (send_host == recv_host)
		return 0;
	/* the difference of two times since 1970 fits: both are below 2^63 ns */
	return edge_add(c, send_host, recv_host, (int64_t)recv_ts - (int64_t)send_ts, recv_ns);
}

int psa_clock_add_pair(struct psa_clock *c, const char *send_host, uint64_t send_ts,
		       const char *recv_host, uint64_t recv_ts)
{
	long s = host_index(c, send_host), r = host_index(c, recv_host);

	if (s < 0 || r < 0)
		return -ENOMEM;
	return pair_add(c, (uint32_t)s, send_ts, (uint32_t)r, recv_ts, UINT64_MAX);
}

/*
 * The time of the event before @ev on its thread (0: none seen), and @ev's recorded as the
 * thread's last. A send's post event fires after the transport call returns (the message may
 * be on the wire, even received, before it), and nothing is traced between the call and that
 * event: whatever the thread recorded before it was recorded before the message left.
 */
static int thread_before(struct psa_clock *c, uint32_t host, const struct psa_event *ev,
			 uint64_t *before)
{
	struct psa_hkey key = PSA_HKEY(psa_key(psa_key((uint64_t)host + 1, ev->vpid), ev->vtid),
				       host, ev->vpid, ev->vtid);
	uint64_t *last = psa_hashmap_find(&c->threads, &key);

	*before = 0;
	if (!ev->vtid)
		return 0;
	if (!last) {
		last = malloc(sizeof(*last));
		if (!last)
			return -ENOMEM;
		if (psa_hashmap_insert(&c->threads, &key, last)) {
			free(last);
			return -ENOMEM;
		}
	} else {
		*before = *last;
	}
	*last = ev->ts_ns;
	return 0;
}

int psa_clock_feed(struct psa_clock *c, const struct psa_event *ev)
{
	struct pending *p;
	uint64_t job, src, dst, exec, tag;
	struct psa_hkey key;
	int64_t kind;
	bool is_send;
	long h_ev = host_index(c, ev->host);
	uint64_t ts = ev->ts_ns, before, recv_ns = UINT64_MAX;
	int rc = 0;

	if (h_ev < 0 || thread_before(c, (uint32_t)h_ev, ev, &before))
		return -ENOMEM;
	if (ev->type != PSA_EV_encnet_post && ev->type != PSA_EV_encnet_complete)
		return 0;
	kind = psa__f(ev, PSA_F_kind, -1);
	is_send = ev->type == PSA_EV_encnet_post;
	/* a send's post and a receive's successful completion; the rest bound nothing */
	if (is_send ? kind != OP_SEND
		    : kind != OP_RECV || psa__f(ev, PSA_F_status, -1) != 0)
		return 0;
	if (!psa_ev_has(ev, PSA_F_rank) || !psa_ev_has(ev, PSA_F_peer) ||
	    !psa_ev_has(ev, PSA_F_tag))
		return 0;
	if (is_send)
		ts = before; /* 0: nothing before it on its thread, no bound (the name still counts) */
	else if (psa_ev_has(ev, PSA_F_latency_ns))
		recv_ns = (uint64_t)psa__f(ev, PSA_F_latency_ns, 0);
	job = (uint64_t)psa__f(ev, PSA_F_job, 0);
	src = (uint64_t)psa__f(ev, is_send ? PSA_F_rank : PSA_F_peer, 0);
	dst = (uint64_t)psa__f(ev, is_send ? PSA_F_peer : PSA_F_rank, 0);
	exec = (uint64_t)psa__f(ev, PSA_F_exec_id, 0);
	tag = (uint64_t)psa__f(ev, PSA_F_tag, 0);
	key = PSA_HKEY(psa_key(psa_key(psa_key(job, src), psa_key(dst, exec)), tag), job, src, dst,
		       exec, tag);
	p = psa_hashmap_find(&c->pending, &key);
	if (!p) {
		/* a matched entry is used again: the messages in flight are allocated once */
		p = c->free ? c->free : malloc(sizeof(*p));
		if (!p)
			return -ENOMEM;
		if (p == c->free)
			c->free = p->next_free;
		*p = (struct pending){ .job = job, .src = src, .dst = dst, .exec = exec, .tag = tag,
				       .host = (uint32_t)h_ev, .sends = is_send, .recvs = !is_send,
				       .ambiguous = !ts, .ts = ts, .recv_ns = recv_ns };
		if (psa_hashmap_insert(&c->pending, &key, p)) {
			free(p);
			return -ENOMEM;
		}
		return 0;
	}
	/*
	 * Sends and receives under one name are counted, and the name forgotten once they
	 * balance: a pair only from exactly one of each, and a name seen twice on one side (a
	 * trace copied under another host's name, a tag used again) costs no memory after.
	 */
	p->sends += is_send;
	p->recvs += !is_send;
	if (p->sends > 1 || p->recvs > 1 || !ts)
		p->ambiguous = true;
	if (p->sends != p->recvs)
		return 0;
	psa_hashmap_remove(&c->pending, &key);
	if (!p->ambiguous && is_send)
		rc = pair_add(c, (uint32_t)h_ev, ts, p->host, p->ts, p->recv_ns);
	else if (!p->ambiguous)
		rc = pair_add(c, p->host, p->ts, (uint32_t)h_ev, ts, recv_ns);
	p->next_free = c->free;
	c->free = p;
	return rc;
}
