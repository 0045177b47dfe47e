/* SPDX-License-Identifier: MIT */
/*
 * Where two analyses of one verdict point different ways (psa_watchdog_disagreements): a
 * stall's chain leads to one root while it also waits on a rank of a process that died, or of
 * a host cut off, which is another root (or its chain leads to the death while another rank it
 * waits on has a root of its own). Both are said, with the one the chains chose, in one line
 * per pair of roots.
 *
 * Design choice: a read of the finished verdict, like common.c, grouped by (root, death
 * root, the chains' choice), so a thousand stalls waiting both ways make one line with their
 * count; the chains are left as they are: which analysis is right is the reader's call.
 * Without a death nothing can disagree, and nothing is scanned.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watchdog/watchdog_int.h"

static bool is_death(const struct psa_watchdog *w, int i)
{
	return i >= 0 && w->stalls[i].process;
}

/* A stall of a process that died, or of a host cut off, is stuck because of that: what else
 * it waits on is no second analysis. */
static bool of_a_death(const struct psa_watchdog *w, const struct psa_stall *s)
{
	if (s->process)
		return true;
	for (size_t i = 0; i < w->deaths_n; i++) {
		const struct psa__death *d = &w->deaths[i];

		if (d->proc ? d->proc->id == s->proc : !strcmp(d->host, s->host))
			return true;
	}
	return false;
}

/* The stalls of tasks (not of whole processes), by (exec, rank, index): the waited ranks'
 * own stalls are found by a binary search, so a verdict of thousands of stalls stays
 * n log n. */
struct by_rank {
	const struct psa_watchdog *w;
	size_t *idx;
	size_t n;
};

static int cmp_at(const struct psa_stall *a, size_t ia, uint64_t exec, uint32_t rank, size_t ib)
{
	if (a->exec_id != exec)
		return a->exec_id < exec ? -1 : 1;
	if (a->rank != rank)
		return a->rank < rank ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static int by_key(const void *x, const void *y, void *arg)
{
	const struct psa_stall *all = arg;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return cmp_at(&all[a], a, all[b].exec_id, all[b].rank, b);
}

static int by_rank_init(struct by_rank *br, const struct psa_watchdog *w)
{
	br->w = w;
	br->n = 0;
	br->idx = malloc((w->n ? w->n : 1) * sizeof(*br->idx));
	if (!br->idx)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++)
		if (!w->stalls[i].process)
			br->idx[br->n++] = i;
	qsort_r(br->idx, br->n, sizeof(*br->idx), by_key, w->stalls);
	return 0;
}

/* The root rank @rank's own stall in @s's exec leads to (itself when a root; -1: none): the
 * first of them in stall order. */
static int root_of_rank(const struct by_rank *br, const struct psa_stall *s, uint32_t rank)
{
	const struct psa_stall *all = br->w->stalls;
	size_t lo = 0, hi = br->n;

	while (lo < hi) { /* the first (exec, rank) at or after @s's exec and @rank */
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_at(&all[br->idx[mid]], br->idx[mid], s->exec_id, rank, 0) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < br->n; lo++) {
		const struct psa_stall *t = &all[br->idx[lo]];

		if (t->exec_id != s->exec_id || t->rank != rank)
			break;
		if (!psa__same_job(t->job, s->job))
			continue;
		if (t->root_cause)
			return (int)br->idx[lo];
		if (t->root >= 0)
			return t->root;
	}
	return -1;
}

/* The root of another kind than @s's chain's that a rank @s waits on leads to: a death when
 * the chain leads elsewhere, a root of its own when the chain leads to a death (-1: none). */
static int other_root(const struct by_rank *br, const struct psa_stall *s)
{
	const struct psa_watchdog *w = br->w;
	bool chain_death = is_death(w, s->root);

	for (uint32_t k = 0; k < s->waiting_on_n; k++) {
		int r = psa__watchdog_death_of_rank(w, s->job, s->waiting_on[k]);

		if (r < 0)
			r = root_of_rank(br, s, s->waiting_on[k]);
		if (r >= 0 && r != s->root && is_death(w, r) != chain_death)
			return r;
	}
	return -1;
}

static void line_of(const struct psa_watchdog *w, struct psa_disagreement *d)
{
	const struct psa_stall *c = &w->stalls[d->root], *x = &w->stalls[d->death_root];
	char first[160], croot[160], what[160];

	psa__stall_label(&w->stalls[d->first], true, first, sizeof(first));
	psa__stall_label(c, true, croot, sizeof(croot));
	if (x->host_wide)
		snprintf(what, sizeof(what), "ranks of host %s, which was cut off", x->host);
	else
		snprintf(what, sizeof(what), "rank %u of pid %u on %s, which died", x->rank, x->vpid,
			 x->host);
	snprintf(d->line, sizeof(d->line),
		 "%zu stall%s (first: %.110s) wait%s on %.110s (%s) and on %.110s (%s); the chains "
		 "chose the %s",
		 d->stalls_n, d->stalls_n == 1 ? "" : "s", first, d->stalls_n == 1 ? "s" : "",
		 croot, psa_cause_str(c->cause), what, psa_cause_str(x->cause),
		 d->chose_death ? "death" : "first");
}

int psa_watchdog_disagreements(const struct psa_watchdog *w, struct psa_disagreement **out,
			       size_t *n)
{
	struct psa_disagreement *v = NULL;
	size_t got = 0, cap = 0;
	struct by_rank br = { 0 };

	if (w->deaths_n && by_rank_init(&br, w))
		return -ENOMEM;
	for (size_t i = 0; w->deaths_n && i < w->n; i++) {
		const struct psa_stall *s = &w->stalls[i];
		int o = s->root >= 0 && !of_a_death(w, s) ? other_root(&br, s) : -1;
		bool chose_death = is_death(w, s->root);
		size_t c, d, k;

		if (o < 0)
			continue;
		c = chose_death ? (size_t)o : (size_t)s->root;
		d = chose_death ? (size_t)s->root : (size_t)o;
		for (k = 0; k < got; k++)
			if (v[k].root == c && v[k].death_root == d && v[k].chose_death == chose_death)
				break;
		if (k < got) {
			v[k].stalls_n++;
			continue;
		}
		if (got == cap) {
			struct psa_disagreement *g = realloc(v, (cap ? 2 * cap : 4) * sizeof(*v));

			if (!g) {
				free(v);
				free(br.idx);
				return -ENOMEM;
			}
			v = g;
			cap = cap ? 2 * cap : 4;
		}
		v[got++] = (struct psa_disagreement){
			.root = c, .death_root = d, .chose_death = chose_death, .stalls_n = 1,
			.first = i,
		};
	}
	free(br.idx);
	for (size_t k = 0; k < got; k++)
		line_of(w, &v[k]);
	*out = v;
	*n = got;
	return 0;
}
