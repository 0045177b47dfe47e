/* SPDX-License-Identifier: MIT */
/*
 * The watchdog's shared helpers, a leaf of its call graph: growing the stall array, a stall's
 * identity from its task, its waiting edges and uncertainty, and whether the tracer lost
 * events in a window. The classifier, the slow-call and threshold findings and the deaths all
 * use these; none of them calls back up.
 */
#include <stdlib.h>
#include <string.h>

#include "watchdog/watchdog_int.h"

struct psa_stall *psa__stall_add(struct psa_watchdog *w)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 16;
		struct psa_stall *s = realloc(w->stalls, cap * sizeof(*s));

		if (!s)
			return NULL;
		w->stalls = s;
		w->cap = cap;
	}
	memset(&w->stalls[w->n], 0, sizeof(w->stalls[0]));
	w->stalls[w->n].root = -1;
	w->stalls[w->n].last_seam = -1;
	return &w->stalls[w->n++];
}

void psa__stall_from_task(struct psa_stall *s, const struct psa_task *t, uint64_t end)
{
	s->proc = t->proc->id;
	s->vpid = t->proc->vpid;
	memcpy(s->host, t->proc->host, sizeof(s->host));
	s->rank = t->rank;
	s->gid = t->gid;
	s->job = t->job;
	s->kind = t->kind;
	s->exec_id = t->exec_id;
	s->task_id = t->task_id;
	s->status = t->status;
	s->watchdog_fired = t->watchdog;
	s->last_seam = t->last_seam;
	s->last_seam_rc = t->last_seam_rc;
	s->last_seam_ago_ns = t->last_seam >= 0 && end > t->last_seam_ts ? end - t->last_seam_ts : 0;
	memcpy(s->trigger_last, t->trigger_last, sizeof(s->trigger_last));
}

void psa__stall_wait_on(struct psa_stall *s, uint32_t rank)
{
	for (uint32_t i = 0; i < s->waiting_on_n; i++)
		if (s->waiting_on[i] == rank)
			return;
	if (s->waiting_on_n < PSA_WAITING_MAX)
		s->waiting_on[s->waiting_on_n++] = rank;
}

/* The first reason found stays: it is the one the conclusion rests on. */
void psa__stall_unsure(struct psa_stall *s, enum psa_unsure why)
{
	if (why == PSA_UNSURE_NONE || s->unsure != PSA_UNSURE_NONE)
		return;
	s->unsure = why;
	s->uncertain = true;
}

/* Lost events that overlap [from, to] (a discard with an unknown window overlaps all). */
bool psa__watchdog_lost_in(const struct psa_model *m, uint64_t from, uint64_t to)
{
	size_t n;
	const struct psa_discard *d = psa_model_discards(m, &n);

	for (size_t i = 0; i < n; i++)
		if (!d[i].begin_ns || (d[i].begin_ns <= to && d[i].end_ns >= from))
			return true;
	return false;
}

const struct psa_worker *psa__worker_of(const struct psa_model *m, const struct psa_task *t)
{
	size_t n;
	const struct psa_worker *const *w = psa_model_workers(m, &n);

	for (size_t i = 0; i < n; i++)
		if (w[i]->proc == t->proc && (t->worker_vtid ? w[i]->vtid == t->worker_vtid
							     : w[i]->gid == t->gid))
			return w[i];
	return NULL;
}
