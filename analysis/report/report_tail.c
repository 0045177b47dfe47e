/* SPDX-License-Identifier: MIT */
/*
 * The tail-first verdict's coverage (report_tail.h), from the events a read delivered: the
 * reader marks the task events before the window (PSA_EV_BEFORE_WINDOW, kept from the model;
 * PSA_EV_BEFORE_INNER before the inner window read in the same pass),
 * so an unmarked task event is one of the window, and a task whose first one is not its
 * enqueue began before it.
 *
 * Design choice: flags in the map's value pointer (never 0), one entry per task, rank and
 * process - memory grows with the tasks of the window, which is what the read holds anyway.
 */
#include <stdint.h>

#include "report_tail.h"

#define SEEN 1u       /* an entry exists */
#define TASK_EV 2u    /* rank, process: a task event of it was seen */
#define STARTED 2u    /* task: its first event was its enqueue */
#define DONE 4u       /* task: it reached DONE */

enum { K_TASK = 1, K_RANK, K_PROC };

void psa__tail_cover_init(struct psa__tail_cover *c, uint64_t before)
{
	psa_hashmap_init(&c->seen);
	c->before = before;
	c->nomem = false;
}

void psa__tail_cover_fini(struct psa__tail_cover *c)
{
	psa_hashmap_fini(&c->seen);
}

static void mark(struct psa__tail_cover *c, uint64_t kind, uint64_t a, uint64_t b, uintptr_t set,
		 uintptr_t first)
{
	struct psa_hkey k = PSA_HKEY(psa_key(psa_key(kind, a), b), kind, a, b);
	uintptr_t v = (uintptr_t)psa_hashmap_find(&c->seen, &k);
	uintptr_t nv = v ? v | set : SEEN | first | set;

	if (nv != v && psa_hashmap_insert(&c->seen, &k, (void *)nv))
		c->nomem = true;
}

void psa__tail_cover_event(void *arg, const struct psa_event *ev)
{
	struct psa__tail_cover *c = arg;
	bool before = ev->present & c->before;
	bool task = psa_ev_tells_task(ev->type);

	if (ev->type == PSA_EV_UNKNOWN)
		return;
	/* an event before the window names its process and rank: their story must reach into
	 * the window (a rank stopped on an error there has no later task event) */
	mark(c, K_PROC, ev->vpid, 0, task && !before ? TASK_EV : 0, 0);
	if (psa_ev_has(ev, PSA_F_rank))
		mark(c, K_RANK, ev->vpid, (uint64_t)ev->f[PSA_F_rank],
		     task && !before ? TASK_EV : 0, 0);
	if (!task || before || !psa_ev_has(ev, PSA_F_task_id))
		return;
	mark(c, K_TASK, ev->vpid, (uint64_t)ev->f[PSA_F_task_id],
	     ev->type == PSA_EV_encproxy_task_state && psa_ev_has(ev, PSA_F_new) &&
		     ev->f[PSA_F_new] == 4 /* DONE */ ? DONE : 0,
	     ev->type == PSA_EV_encproxy_task_enqueue ? STARTED : 0);
}

bool psa__tail_cover_complete(const struct psa__tail_cover *c)
{
	uint64_t hash;
	void *v;

	if (c->nomem)
		return false;
	for (size_t i = 0; psa_hashmap_next(&c->seen, &i, &hash, &v);) {
		uintptr_t f = (uintptr_t)v;
		uint64_t kind = psa_hashmap_key_word(&c->seen, i - 1, 0);

		if (kind == K_TASK ? !(f & (STARTED | DONE)) : !(f & TASK_EV))
			return false;
	}
	return true;
}
