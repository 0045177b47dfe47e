/* SPDX-License-Identifier: MIT */
/*
 * The model after the last event: closing what is still open (reported as open intervals),
 * and the queries the reports and the watchdog ask.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"

static int live_cmp(const void *a, const void *b)
{
	const struct psa_task *x = *(const struct psa_task *const *)a;
	const struct psa_task *y = *(const struct psa_task *const *)b;
	struct psa_task_key kx = { x->proc->id, x->rank, x->exec_id, x->kind, x->task_id };
	struct psa_task_key ky = { y->proc->id, y->rank, y->exec_id, y->kind, y->task_id };

	return psa_task_key_cmp(&kx, &ky);
}

void psa_model_finish(struct psa_model *m)
{
	uint64_t end = m->totals.last_ts;
	struct psa_task *t;

	if (m->finished_called)
		return;
	m->finished_called = true;
	m->live.n = 0; /* what psa_model_live_refresh may have listed */
	for (size_t i = 0; (t = psa__live_next(&m->tasks, &i));) {
		for (unsigned o = 0; o < m->obs_n; o++)
			if (m->obs[o].interval)
				m->obs[o].interval(m->obs[o].arg, t, t->state, t->state_since, end, true);
		if (t->status || t->failed)
			psa__task_failed_peer(m, t);
		/* Its start, or a transition out of this state, could be among a snapshot's
		 * overwritten events. */
		if (m->snapshot && (t->truncated || t->state_since < m->complete_from))
			t->unknown_start = true;
		/* Cut in flight: open at the cut, in this state only since shortly before it, and
		 * nothing says it was stuck (its driver's watchdog, an error). */
		if (m->cut_ns && t->state < PSA_STATE_NR && t->state != PSA_STATE_DONE &&
		    !t->watchdog && !t->failed && !t->status &&
		    t->state_since + PSA_CUT_WINDOW_NS > m->cut_ns)
			t->cut_in_flight = true;
		if (t->state < PSA_STATE_NR && end > t->state_since &&
		    end - t->state_since >= t->longest_state_ns) {
			t->longest_state_ns = end - t->state_since;
			t->longest_state = t->state;
		}
		for (unsigned o = 0; o < m->obs_n; o++)
			if (m->obs[o].task_end)
				m->obs[o].task_end(m->obs[o].arg, t);
		PSA_VEC_PUSH(m->live, t);
	}
	if (m->live.n)
		qsort(m->live.v, m->live.n, sizeof(*m->live.v), live_cmp);
	for (size_t i = 0; i < m->worker_list.n; i++) {
		struct psa_worker *w = m->worker_list.v[i];
		uint64_t until = w->end_ts ? w->end_ts : end;

		psa__worker_account(w, until);
		for (unsigned o = 0; o < m->obs_n; o++)
			if (m->obs[o].worker_end)
				m->obs[o].worker_end(m->obs[o].arg, w);
	}
}

int psa_model_live_refresh(struct psa_model *m)
{
	struct psa_task *t;

	if (m->finished_called)
		return 0;
	m->live.n = 0;
	for (size_t i = 0; (t = psa__live_next(&m->tasks, &i));) {
		if (t->status || t->failed)
			psa__task_failed_peer(m, t);
		if (PSA_VEC_PUSH(m->live, t))
			return -1;
	}
	if (m->live.n)
		qsort(m->live.v, m->live.n, sizeof(*m->live.v), live_cmp);
	return 0;
}

void psa_model_totals(const struct psa_model *m, struct psa_model_totals *out)
{
	*out = m->totals;
}

const struct psa_task *const *psa_model_live_tasks(const struct psa_model *m, size_t *n)
{
	*n = m->live.n;
	return m->live.v;
}

const struct psa_worker *const *psa_model_workers(const struct psa_model *m, size_t *n)
{
	*n = m->worker_list.n;
	return (const struct psa_worker *const *)m->worker_list.v;
}

const struct psa_group *const *psa_model_groups(const struct psa_model *m, size_t *n)
{
	*n = m->group_list.n;
	return (const struct psa_group *const *)m->group_list.v;
}

const struct psa_discard *psa_model_discards(const struct psa_model *m, size_t *n)
{
	*n = m->discards.n;
	return m->discards.v;
}

const struct psa_device_fault *psa_model_device_faults(const struct psa_model *m, size_t *n)
{
	*n = m->faults.n;
	return m->faults.v;
}

const struct psa_peer_dead *psa_model_peer_deaths(const struct psa_model *m, size_t *n)
{
	*n = m->peer_deaths.n;
	return m->peer_deaths.v;
}

const struct psa_net_error *psa_model_net_errors(const struct psa_model *m, size_t *n)
{
	*n = m->net_errors.n;
	return m->net_errors.v;
}

const struct psa_proc *const *psa_model_procs(const struct psa_model *m, size_t *n)
{
	*n = m->proc_list.n;
	return (const struct psa_proc *const *)m->proc_list.v;
}

bool psa_model_hosts_many(const struct psa_model *m)
{
	for (size_t i = 1; i < m->proc_list.n; i++)
		if (strcmp(m->proc_list.v[i]->host, m->proc_list.v[0]->host))
			return true;
	return false;
}

const struct psa_task *psa_model_find_network_task(const struct psa_model *m, uint32_t job,
						   uint32_t rank, uint64_t exec_id,
						   bool *found_finished)
{
	struct psa_hkey key = psa__exec_key(job, rank, exec_id);

	*found_finished = psa__marks_has(psa__rk_get(&m->net_done, job, rank, 0), exec_id);
	return psa_hashmap_find(&m->net_live, &key);
}

bool psa_model_send_completed(const struct psa_model *m, uint32_t job, uint32_t rank,
			      uint32_t peer, uint64_t exec_id, uint64_t tag)
{
	return psa__pairs_has(psa__rk_get(&m->sends_done, job, rank, peer), exec_id, tag);
}

bool psa_model_rank_last_done_exec(const struct psa_model *m, uint32_t job, uint32_t rank,
				   uint64_t *exec_id)
{
	/* below UINT64_MAX: exec + 1 was the marker, and that exec's could not be kept */
	return psa__marks_max_below(psa__rk_get(&m->net_done, job, rank, 0), UINT64_MAX, exec_id);
}

bool psa_model_trigger_written(const struct psa_model *m, const struct psa_proc *proc,
			       uint32_t rank, uint64_t exec_id, uint32_t stream)
{
	return psa__marks_has(psa__rk_get(&m->triggers, proc->id, rank, stream), exec_id);
}
