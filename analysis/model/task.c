/* SPDX-License-Identifier: MIT */
/*
 * The model's task lifecycle: a task is created by its first event (normally task_enqueue; any
 * other first event marks it truncated, as in a flight-recorder snapshot), every task_state
 * closes one interval and opens the next, and reaching DONE hands the task to the observers
 * and frees it - only its id stays, among the ranges of its process's finished ids
 * (model/marks.c), so late events (recycle, the consumer's) are recognized and ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_int.h"

struct psa_task *psa__task_get(struct psa_model *m, const struct psa_proc *p,
			       const struct psa_event *ev)
{
	uint64_t task_id = (uint64_t)psa__f(ev, PSA_F_task_id, 0);
	struct psa_task *t;

	if (!task_id || psa__marks_has(psa__rk_get(&m->finished, p->id, 0, 0), task_id))
		return NULL;
	t = psa__live_find(&m->tasks, p, task_id);
	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->proc = p;
	t->task_id = task_id;
	t->exec_id = (uint64_t)psa__f(ev, PSA_F_exec_id, 0);
	t->rank = (uint32_t)psa__f(ev, PSA_F_rank, 0);
	t->gid = (uint32_t)psa__f(ev, PSA_F_gid, 0);
	t->job = (uint32_t)psa__f(ev, PSA_F_job, 0);
	/* In encnet events `kind` is the op's kind; only network tasks post ops. */
	t->kind = ev->type == PSA_EV_encnet_post || ev->type == PSA_EV_encnet_complete
			  ? PSA_KIND_NETWORK
			  : (uint32_t)psa__f(ev, PSA_F_kind, 0);
	t->first_ts = ev->ts_ns;
	t->state_since = ev->ts_ns;
	t->state = ev->type == PSA_EV_encproxy_task_state ? (uint32_t)psa__f(ev, PSA_F_old, 0)
							  : PSA_STATE_INIT;
	t->truncated = ev->type != PSA_EV_encproxy_task_enqueue;
	t->last_seam = -1;
	t->failed_peer = -1;
	for (int s = 0; s < PSA_STREAMS_MAX; s++)
		t->trigger_last[s] = PSA_TRIGGER_UNREAD;
	if (psa__live_insert(&m->tasks, t)) {
		free(t);
		return NULL;
	}
	if (t->kind == PSA_KIND_NETWORK) {
		struct psa_hkey nk = psa__exec_key(t->job, t->rank, t->exec_id);

		psa_hashmap_insert(&m->net_live, &nk, t);
	}
	m->totals.tasks++;
	return t;
}

void psa__task_free(struct psa_task *t)
{
	free(t->ops);
	free(t->prog);
	free(t);
}

static void close_interval(struct psa_model *m, struct psa_task *t, uint64_t end, bool open)
{
	uint64_t d = end > t->state_since ? end - t->state_since : 0;

	if (t->state < PSA_STATE_NR) {
		t->state_ns[t->state] += d;
		if (d >= t->longest_state_ns) {
			t->longest_state_ns = d;
			t->longest_state = t->state;
		}
	}
	for (unsigned i = 0; i < m->obs_n; i++)
		if (m->obs[i].interval)
			m->obs[i].interval(m->obs[i].arg, t, t->state, t->state_since, end, open);
}

/* DONE: final summary to the observers, then only its marks remain. */
static void finalize(struct psa_model *m, struct psa_task *t)
{
	for (unsigned i = 0; i < m->obs_n; i++)
		if (m->obs[i].task_end)
			m->obs[i].task_end(m->obs[i].arg, t);
	psa__live_remove(&m->tasks, t);
	psa__marks_add(psa__rk_cell(&m->finished, t->proc->id, 0, 0), t->task_id);
	if (t->kind == PSA_KIND_NETWORK) {
		struct psa_hkey nk = psa__exec_key(t->job, t->rank, t->exec_id);

		if (psa_hashmap_find(&m->net_live, &nk) == t) {
			psa_hashmap_remove(&m->net_live, &nk);
			/* never walked: its size follows the network tasks alive now */
			psa_hashmap_shrink(&m->net_live);
		}
		psa__marks_add(psa__rk_cell(&m->net_done, t->job, t->rank, 0), t->exec_id);
	}
	m->totals.tasks_done++;
	psa__task_free(t);
}

void psa__task_state(struct psa_model *m, struct psa_task *t, const struct psa_event *ev)
{
	uint32_t to = (uint32_t)psa__f(ev, PSA_F_new, t->state);

	/* task_drain is DEBUG: without it, the task's first state change - fired by its worker in
	 * the pass that took it - stands in for the drain (drain_ts, worker_vtid, observers). */
	if (!t->drain_ts) {
		struct psa_event drain = *ev;

		drain.type = PSA_EV_encproxy_task_drain;
		psa__task_instant(m, t, &drain);
	}
	close_interval(m, t, ev->ts_ns, false);
	t->state = to;
	t->state_since = ev->ts_ns;
	t->status = (int)psa__f(ev, PSA_F_status, t->status);
	t->transitions++;
	if (to == PSA_STATE_WAITING_DEVICE_TRIGGER)
		t->wait_begin_ts = ev->ts_ns;
	if (to == PSA_STATE_PROGRESSING && !t->progress_ts)
		t->progress_ts = ev->ts_ns;
	if (to == PSA_STATE_DONE) {
		t->done_ts = ev->ts_ns;
		if (t->status)
			psa__task_failed_peer(m, t);
		finalize(m, t);
	}
}

/*
 * The peer a failed task's error came from: an op of it that completed with an error, else
 * the transport error its rank saw last with the same errno since the task began (the
 * backend records the error just before it fails the task: a barrier's receive has no op).
 */
void psa__task_failed_peer(const struct psa_model *m, struct psa_task *t)
{
	const struct psa_net_error *e;

	for (uint32_t i = 0; i < t->ops_n; i++) {
		if (t->ops[i].done_ts && t->ops[i].status) {
			t->failed_peer = t->ops[i].peer;
			return;
		}
	}
	e = psa__net_error_last(m, t->proc, t->rank);
	if (e && e->err == t->status && e->last_ts >= t->first_ts)
		t->failed_peer = e->peer;
}

void psa__task_seam(struct psa_model *m, struct psa_task *t, const struct psa_event *ev,
		    enum psa_seam which)
{
	struct psa_seam_stat *s = &t->seam[which];
	uint64_t dur = (uint64_t)psa__f(ev, PSA_F_duration_ns, 0);
	int rc = (int)psa__f(ev, PSA_F_rc, 0);

	s->count++;
	s->total_ns += dur;
	if (dur > s->max_ns)
		s->max_ns = dur;
	t->last_seam = (int)which;
	t->last_seam_rc = rc;
	t->last_seam_ts = ev->ts_ns;
	t->last_seam_idle = psa__f(ev, PSA_F_idle, 0) != 0;
	if (which == PSA_SEAM_START && psa__f(ev, PSA_F_stream, 0) < PSA_STREAMS_MAX)
		t->streams_mask |= 1u << psa__f(ev, PSA_F_stream, 0);
	for (unsigned i = 0; i < m->obs_n; i++)
		if (m->obs[i].seam)
			m->obs[i].seam(m->obs[i].arg, t, which, (uint32_t)psa__f(ev, PSA_F_stream, 0),
				       (uint32_t)psa__f(ev, PSA_F_bb, 0), rc, ev->ts_ns, dur);
}

static struct psa_net_op *find_op(struct psa_task *t, uint32_t stream, uint32_t bb, uint32_t op)
{
	for (uint32_t i = 0; i < t->ops_n; i++)
		if (t->ops[i].stream == stream && t->ops[i].bb == bb && t->ops[i].op == op)
			return &t->ops[i];
	return NULL;
}

void psa__task_net(struct psa_model *m, struct psa_task *t, const struct psa_event *ev)
{
	uint32_t stream = (uint32_t)psa__f(ev, PSA_F_stream, 0);
	uint32_t bb = (uint32_t)psa__f(ev, PSA_F_bb, 0);
	uint32_t idx = (uint32_t)psa__f(ev, PSA_F_op, 0);
	struct psa_net_op *op = find_op(t, stream, bb, idx);

	if (!op) {
		struct psa_net_op *ops = realloc(t->ops, (t->ops_n + 1) * sizeof(*ops));

		if (!ops)
			return;
		t->ops = ops;
		op = &t->ops[t->ops_n++];
		*op = (struct psa_net_op){
			.stream = stream, .bb = bb, .op = idx,
			.kind = (uint32_t)psa__f(ev, PSA_F_kind, 0),
			.peer = (uint32_t)psa__f(ev, PSA_F_peer, 0),
			.bytes = (uint64_t)psa__f(ev, PSA_F_bytes, 0),
			.tag = (uint64_t)psa__f(ev, PSA_F_tag, 0),
			.post_ts = ev->ts_ns,
		};
		/* an op first seen by its completion failed to be posted (or its post was lost):
		 * not the end of a first B2 call that posted */
		if (!t->first_post_ts && ev->type == PSA_EV_encnet_post)
			t->first_post_ts = ev->ts_ns;
	}
	if (ev->type == PSA_EV_encnet_complete) {
		op->done_ts = ev->ts_ns;
		op->status = (int)psa__f(ev, PSA_F_status, 0);
		if (op->kind == 0 /* SEND */ && op->status == 0) {
			psa__pairs_add(psa__rk_cell(&m->sends_done, t->job, t->rank, op->peer),
				       t->exec_id, op->tag);
		}
	}
}

/* A progress record: the last one, the sums, and what they say of its B2 calls. */
static void task_progress(struct psa_task *t, const struct psa_event *ev)
{
	struct psa_progress r = {
		.steps = (uint64_t)psa__f(ev, PSA_F_steps, 0),
		.idle_steps = (uint64_t)psa__f(ev, PSA_F_idle_steps, 0),
		.posted = (uint64_t)psa__f(ev, PSA_F_posted, 0),
		.completed = (uint64_t)psa__f(ev, PSA_F_completed, 0),
		.bytes = (uint64_t)psa__f(ev, PSA_F_bytes, 0),
		.interval_ns = (uint64_t)psa__f(ev, PSA_F_interval_ns, 0),
	};

	struct psa_task_progress *p = t->prog;

	if (!p && !(p = t->prog = calloc(1, sizeof(*p))))
		return; /* out of memory: the record is not counted */
	p->n++;
	p->last_ts = ev->ts_ns;
	p->last = r;
	p->sum.steps += r.steps;
	p->sum.posted += r.posted;
	p->sum.completed += r.completed;
	p->sum.bytes += r.bytes;
	p->sum.interval_ns += r.interval_ns;
	if (r.idle_steps > p->sum.idle_steps)
		p->sum.idle_steps = r.idle_steps;
	if (psa_progress_moved(&r))
		p->moved_ts = ev->ts_ns;
	/* a post in the same round as the record comes before it: that round posted */
	if (!t->first_post_ts && r.steps > 1)
		p->before_post++;
	if (r.steps <= 1 && r.interval_ns > p->single_max_ns)
		p->single_max_ns = r.interval_ns;
}

/*
 * Whether @ev, about a task not DONE in the model, shows it DONE: its task_state DONE was lost
 * (the setter fires it before the store any of these sees, so it cannot come later). A poll
 * that saw DONE, a consume_end without an error (the consumer returns only on DONE, an error
 * or its timeout) and the worker's recycle (only DONE tasks are recycled). Taken only without
 * an error known: a failed task stays as the trace shows it. (why: see docs/ARCHITECTURE.md,
 * Decisions measured: a DONE the trace lost is taken from the consumer's poll, its consume_end
 * or the recycle.)
 */
static bool shows_done(const struct psa_task *t, const struct psa_event *ev)
{
	if (t->failed || t->status)
		return false;
	switch (ev->type) {
	case PSA_EV_encproxy_status_poll:
		return (psa__f(ev, PSA_F_done, 0) || psa__f(ev, PSA_F_state, -1) == PSA_STATE_DONE) &&
		       !psa__f(ev, PSA_F_status, 0);
	case PSA_EV_encproxy_consume_end:
		return !psa__f(ev, PSA_F_status, -1);
	case PSA_EV_encproxy_task_recycle:
		return true;
	default:
		return false;
	}
}

/* The lost DONE, closed at the event that showed it: without it the task stays open to the
 * end of the trace and, with no loss after its last event, is named a stall. */
static void done_unseen(struct psa_model *m, struct psa_task *t, const struct psa_event *ev)
{
	close_interval(m, t, ev->ts_ns, false);
	t->state = PSA_STATE_DONE;
	t->state_since = ev->ts_ns;
	t->done_ts = ev->ts_ns;
	t->done_unseen = true;
	finalize(m, t);
}

/* May finish and free @t (a DONE shown by a later event: shows_done). */
void psa__task_instant(struct psa_model *m, struct psa_task *t, const struct psa_event *ev)
{
	switch (ev->type) {
	case PSA_EV_encproxy_task_enqueue:
		t->enqueue_ts = ev->ts_ns;
		break;
	case PSA_EV_encproxy_task_drain:
		t->drain_ts = ev->ts_ns;
		t->worker_vtid = ev->vtid;
		break;
	case PSA_EV_encproxy_trigger_read: {
		int64_t s = psa__f(ev, PSA_F_stream, -1);

		if (s >= 0 && s < PSA_STREAMS_MAX)
			t->trigger_last[s] = (uint64_t)psa__f(ev, PSA_F_value, 0);
		break;
	}
	case PSA_EV_encproxy_trigger_fire:
		t->triggered = true;
		t->trigger_wait_ns = (uint64_t)psa__f(ev, PSA_F_wait_ns, 0);
		break;
	case PSA_EV_encproxy_watchdog_timeout:
		t->watchdog = true;
		t->watchdog_ts = ev->ts_ns;
		t->watchdog_state = (uint32_t)psa__f(ev, PSA_F_state, t->state);
		t->watchdog_waited_ns = (uint64_t)psa__f(ev, PSA_F_waited_ns, 0);
		/* First seen here (a trace without the state changes): the consumer's view is
		 * the only state the trace has. */
		if (!t->transitions)
			t->state = t->watchdog_state;
		break;
	case PSA_EV_encproxy_consume_end:
		/* DEBUG: the consumer gave up (its watchdog event may have been lost) */
		if (psa__f(ev, PSA_F_status, 0) == -ETIMEDOUT && !t->watchdog) {
			t->watchdog = true;
			t->watchdog_ts = ev->ts_ns;
			t->watchdog_waited_ns = (uint64_t)psa__f(ev, PSA_F_wait_ns, 0);
			t->watchdog_state = t->poll_last_ts ? t->poll_state : t->state;
		}
		break;
	case PSA_EV_encproxy_status_poll:
		if (!t->poll_first_ts)
			t->poll_first_ts = ev->ts_ns;
		t->poll_last_ts = ev->ts_ns;
		t->poll_state = (uint32_t)psa__f(ev, PSA_F_state, t->state);
		break;
	case PSA_EV_encproxy_task_failed:
		t->failed = true;
		t->status = (int)psa__f(ev, PSA_F_status, t->status);
		break;
	case PSA_EV_encproxy_task_progress:
		m->totals.progress_records++;
		task_progress(t, ev);
		break;
	default:
		break;
	}
	for (unsigned i = 0; i < m->obs_n; i++)
		if (m->obs[i].instant)
			m->obs[i].instant(m->obs[i].arg, t, ev);
	if (shows_done(t, ev))
		done_unseen(m, t, ev);
}
