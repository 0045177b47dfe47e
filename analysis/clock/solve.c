/* SPDX-License-Identifier: MIT */
/*
 * Host clock offsets from the pairs' bounds (psa_clock.h): a system of difference constraints
 * offset(to) - offset(from) <= w, solved by shortest paths. With the reference host's offset 0,
 * the tightest upper bound of a host's offset is the shortest path reference -> host, the
 * tightest lower bound minus the shortest path host -> reference (Bellman-Ford both ways: the
 * graph has a node per host and an edge per ordered host pair that exchanged a message; a
 * negative cycle means no offsets fit the evidence). Hosts are then fixed one at a time in name
 * order - at 0 where that is allowed, else at the middle of what is left - each fixed value
 * added as a constraint before the next host is looked at, so the corrected clocks together
 * violate no observed pair.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_clock.h>

#include "clock/clock_int.h"

#define INF INT64_MAX

static const char *const state_names[PSA_CLOCK_STATE_NR] = {
	[PSA_CLOCK_REFERENCE] = "reference",	   [PSA_CLOCK_AGREES] = "agrees",
	[PSA_CLOCK_CORRECTED] = "corrected",	   [PSA_CLOCK_INCONSISTENT] = "inconsistent",
	[PSA_CLOCK_UNKNOWN] = "unknown",
};

const char *psa_clock_state_str(enum psa_clock_state s)
{
	return (unsigned)s < PSA_CLOCK_STATE_NR ? state_names[s] : "?";
}

struct solver {
	size_t n;                      /* hosts */
	struct psa__clock_edge *e;     /* the pairs' edges, then the fixed hosts' */
	size_t e_n;
	int64_t *up, *down;            /* shortest paths ref -> host, host -> ref */
};

/*
 * Shortest paths from @src in @s's graph (reversed when @rev) into @d. Returns false when a
 * negative cycle is reachable (no offsets fit).
 */
static bool paths(const struct solver *s, uint32_t src, bool rev, int64_t *d)
{
	for (size_t i = 0; i < s->n; i++)
		d[i] = INF;
	d[src] = 0;
	for (size_t round = 0; round <= s->n; round++) {
		bool changed = false;

		for (size_t k = 0; k < s->e_n; k++) {
			uint32_t a = rev ? s->e[k].to : s->e[k].from;
			uint32_t b = rev ? s->e[k].from : s->e[k].to;

			if (d[a] != INF && d[a] + s->e[k].w < d[b]) {
				d[b] = d[a] + s->e[k].w;
				changed = true;
			}
		}
		if (!changed)
			return true;
	}
	return false;
}

static bool solve(struct solver *s, uint32_t ref)
{
	return paths(s, ref, false, s->up) && paths(s, ref, true, s->down);
}

static void fix(struct solver *s, uint32_t ref, uint32_t h, int64_t v)
{
	s->e[s->e_n++] = (struct psa__clock_edge){ .from = ref, .to = h, .w = v };
	s->e[s->e_n++] = (struct psa__clock_edge){ .from = h, .to = ref, .w = -v };
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct psa_clock_host *)a)->host,
		      ((const struct psa_clock_host *)b)->host);
}

/* The host @c->out[i] stands for (out is sorted by name: looked up by name once). */
static uint32_t host_of(const struct psa_clock *c, const struct psa_clock_host *o)
{
	for (size_t i = 0; i < c->host_n; i++)
		if (!strcmp(c->host[i].name, o->host))
			return (uint32_t)i;
	return 0;
}

/*
 * Place host @o (graph node @h) given the hosts fixed so far. The window it is decided on -
 * narrowed by those hosts' fixed offsets - is the one it keeps, so what is printed is what
 * was decided on.
 */
static void place(struct solver *s, uint32_t ref, uint32_t h, struct psa_clock_host *o)
{
	bool has_lo = s->down[h] != INF, has_hi = s->up[h] != INF;
	int64_t lo = has_lo ? -s->down[h] : 0, hi = has_hi ? s->up[h] : 0, v;

	o->has_lo = has_lo;
	o->has_hi = has_hi;
	o->lo_ns = lo;
	o->hi_ns = hi;

	if ((!has_lo || lo <= 0) && (!has_hi || hi >= 0)) {
		o->state = PSA_CLOCK_AGREES;
		v = 0;
	} else {
		o->state = PSA_CLOCK_CORRECTED;
		/* the middle of what is allowed, or the least move into it when one side is open */
		v = has_lo && has_hi ? lo + (hi - lo) / 2 : has_lo ? lo : hi;
		o->bound_ns = has_lo && has_hi ? (v - lo > hi - v ? v - lo : hi - v) : -1;
	}
	o->offset_ns = v;
	fix(s, ref, h, v);
}

int psa_clock_estimate(struct psa_clock *c)
{
	struct solver s = { .n = c->host_n };
	struct psa_clock_host *o;
	uint32_t ref = 0;
	size_t r = 0;
	bool fits;
	int rc = -ENOMEM;

	free(c->out);
	c->out = NULL;
	c->out_n = 0;
	if (!c->host_n)
		return 0;
	o = calloc(c->host_n, sizeof(*o));
	s.e = malloc((c->edge_n + 2 * c->host_n) * sizeof(*s.e));
	s.up = malloc(c->host_n * sizeof(*s.up));
	s.down = malloc(c->host_n * sizeof(*s.down));
	if (!o || !s.e || !s.up || !s.down)
		goto out;
	for (size_t i = 0; i < c->host_n; i++) {
		memcpy(o[i].host, c->host[i].name, sizeof(o[i].host));
		o[i].pairs = c->host[i].pairs;
		o[i].bound_ns = -1;
	}
	qsort(o, c->host_n, sizeof(*o), by_name);
	/* the reference: the first host by name that exchanged a message across hosts */
	while (r < c->host_n && !o[r].pairs)
		r++;
	if (r == c->host_n)
		r = 0;
	if (r) {
		struct psa_clock_host t = o[r];

		memmove(&o[1], &o[0], r * sizeof(*o));
		o[0] = t;
	}
	ref = host_of(c, &o[0]);
	o[0].state = PSA_CLOCK_REFERENCE;
	if (c->edge_n)
		memcpy(s.e, c->edge, c->edge_n * sizeof(*s.e));
	s.e_n = c->edge_n;
	fits = solve(&s, ref);
	for (size_t i = 1; i < c->host_n; i++) {
		uint32_t h = host_of(c, &o[i]);

		o[i].has_lo = s.down[h] != INF;
		o[i].has_hi = s.up[h] != INF;
		o[i].lo_ns = o[i].has_lo ? -s.down[h] : 0;
		o[i].hi_ns = o[i].has_hi ? s.up[h] : 0;
		if (!o[i].has_lo && !o[i].has_hi)
			o[i].state = PSA_CLOCK_UNKNOWN;
		else if (!fits || (o[i].has_lo && o[i].has_hi && o[i].lo_ns > o[i].hi_ns))
			o[i].state = PSA_CLOCK_INCONSISTENT;
	}
	for (size_t i = 1; i < c->host_n && fits; i++) {
		uint32_t h = host_of(c, &o[i]);

		if (o[i].state == PSA_CLOCK_UNKNOWN)
			continue;
		if (i > 1 && !solve(&s, ref))
			break; /* cannot happen: each fixed value lies within what was allowed */
		place(&s, ref, h, &o[i]);
	}
	c->out = o;
	c->out_n = c->host_n;
	o = NULL;
	rc = 0;
out:
	free(o);
	free(s.e);
	free(s.up);
	free(s.down);
	return rc;
}

const struct psa_clock_host *psa_clock_hosts(const struct psa_clock *c, size_t *n)
{
	*n = c->out_n;
	return c->out;
}

bool psa_clock_needs_correction(const struct psa_clock *c)
{
	for (size_t i = 0; i < c->out_n; i++)
		if (c->out[i].state == PSA_CLOCK_CORRECTED && c->out[i].offset_ns)
			return true;
	return false;
}

int psa_clock_fixes(const struct psa_clock *c, struct psa_clock_fix **out, size_t *n)
{
	*n = 0;
	*out = calloc(c->out_n ? c->out_n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < c->out_n; i++)
		if (c->out[i].state == PSA_CLOCK_CORRECTED && c->out[i].offset_ns)
			(*out)[(*n)++] = (struct psa_clock_fix){ c->out[i].host, c->out[i].offset_ns };
	return 0;
}

/* @ns as milliseconds with a sign and µs precision: "+5.012 ms" */
static void ms_str(int64_t ns, bool sign, char *buf, size_t len)
{
	uint64_t a = ns < 0 ? (uint64_t)-(ns + 1) + 1 : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%03" PRIu64 " ms", ns < 0 ? "-" : sign ? "+" : "",
		 a / 1000000, a / 1000 % 1000);
}

static void allowed_str(const struct psa_clock_host *h, char *buf, size_t len)
{
	char lo[32] = "-inf", hi[32] = "+inf";

	if (h->has_lo)
		ms_str(h->lo_ns, true, lo, sizeof(lo));
	if (h->has_hi)
		ms_str(h->hi_ns, true, hi, sizeof(hi));
	snprintf(buf, len, "[%s, %s]", lo, hi);
}

void psa_clock_print(const struct psa_clock *c, bool applied, FILE *out)
{
	const struct psa_clock_host *ref = c->out;

	if (c->out_n < 2)
		return;
	fprintf(out, "clocks: %zu hosts, offsets from %s's clock (from the messages between "
		"hosts)%s\n", c->out_n, ref->host,
		psa_clock_needs_correction(c)
			? applied ? "; events ordered on the corrected clocks"
				  : "; NOT corrected in the order shown"
			: "");
	for (size_t i = 1; i < c->out_n; i++) {
		const struct psa_clock_host *h = &c->out[i];
		char v[32], b[32], allowed[80];

		allowed_str(h, allowed, sizeof(allowed));
		ms_str(h->offset_ns, true, v, sizeof(v));
		ms_str(h->bound_ns, false, b, sizeof(b));
		switch (h->state) {
		case PSA_CLOCK_CORRECTED:
			fprintf(out, "  %-12s %s%s%s: disagrees by more than the evidence allows "
				"(%s, %" PRIu64 " pairs)%s\n", h->host, v, h->bound_ns >= 0 ? " ± " : "",
				h->bound_ns >= 0 ? b : "", allowed, h->pairs,
				applied ? ", corrected" : "");
			break;
		case PSA_CLOCK_AGREES:
			fprintf(out, "  %-12s agrees: the evidence allows %s (%" PRIu64 " pairs)\n",
				h->host, allowed, h->pairs);
			break;
		case PSA_CLOCK_INCONSISTENT:
			fprintf(out, "  %-12s inconsistent: no single offset fits its %" PRIu64
				" pairs (%s): not corrected\n", h->host, h->pairs, allowed);
			break;
		default:
			fprintf(out, "  %-12s unknown: no message links it to %s\n", h->host,
				ref->host);
			break;
		}
	}
}
