/* SPDX-License-Identifier: MIT */
/*
 * Why one task is stuck, from its own evidence, in this order: an error status; a closed
 * trigger gate (the device never wrote a word); a worker that went silent; a receive whose
 * matching send completed on the peer (the message was lost); ops outstanding with peers
 * (waiting on them); a barrier waiting for ranks still behind. Then the chains: each waiting
 * stall follows the peers it waits on until it reaches a stall stuck for its own reason.
 */
#include <stdlib.h>
#include <string.h>

#include "watchdog/watchdog_int.h"

#define S_PER_NS 1e-9

static uint32_t pending_streams(const struct psa_model *m, const struct psa_task *t)
{
	uint32_t mask = t->streams_mask ? t->streams_mask : 1u, pending = 0;

	for (uint32_t s = 0; s < PSA_STREAMS_MAX; s++) {
		if (!(mask & (1u << s)))
			continue;
		if (t->trigger_last[s] == 0xFFFFFFFFull ||
		    (t->trigger_last[s] == PSA_TRIGGER_UNREAD &&
		     !psa_model_trigger_written(m, t->proc, t->rank, t->exec_id, s)))
			pending |= 1u << s;
	}
	return pending;
}

static void streams_text(uint32_t mask, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (uint32_t s = 0; s < PSA_STREAMS_MAX && used < len; s++)
		if (mask & (1u << s))
			used += (size_t)snprintf(buf + used, len - used, "%s%u", used ? ", " : "", s);
}

/* An injected device fault matching (rank, exec), for the evidence. */
static const char *device_fault_note(const struct psa_model *m, const struct psa_task *t)
{
	static const char *const kinds[] = { "never-trigger", "late trigger", "slow" };
	size_t n;
	const struct psa_device_fault *f = psa_model_device_faults(m, &n);

	for (size_t i = 0; i < n; i++)
		if (f[i].rank == t->rank && f[i].exec_id == t->exec_id && f[i].kind < 3)
			return kinds[f[i].kind];
	return NULL;
}

/*
 * The device wrote the trigger but the task never saw it: its worker (one thread) was held by
 * another task's slow seam call - a rank sharing the worker. It leads to that rank.
 */
static bool held_by_neighbour(const struct psa_watchdog *w, const struct psa_model *m,
			      const struct psa_task *t, struct psa_stall *s)
{
	size_t n;
	const struct psa_task *const *live = psa_model_live_tasks(m, &n);

	for (size_t i = 0; i < n; i++) {
		const struct psa_task *o = live[i];
		struct psa_stall probe = { .root = -1, .last_seam = -1 };

		if (o == t || o->proc != t->proc || o->gid != t->gid ||
		    (t->worker_vtid && o->worker_vtid && o->worker_vtid != t->worker_vtid) ||
		    !psa__watchdog_slow_progress(w, m, o, &probe, w->trace_end))
			continue;
		s->cause = PSA_CAUSE_WAITING_ON_PEER;
		psa__stall_wait_on(s, o->rank);
		snprintf(s->detail, sizeof(s->detail),
			 "the device wrote every trigger word of exec %llu, but the task's worker "
			 "(gid %u) was held by rank %u's B2 progress call", (unsigned long long)t->exec_id,
			 t->gid, o->rank);
		return true;
	}
	return false;
}

static void classify_gate(const struct psa_watchdog *w, const struct psa_model *m,
			  const struct psa_task *t, struct psa_stall *s, uint64_t end)
{
	const char *fault = device_fault_note(m, t);
	char streams[32];

	s->streams_pending = pending_streams(m, t);
	if (!s->streams_pending && held_by_neighbour(w, m, t, s))
		return;
	if (!s->streams_pending) {
		s->cause = PSA_CAUSE_UNKNOWN;
		snprintf(s->detail, sizeof(s->detail),
			 "stuck in %s although the device wrote every trigger word of exec %llu",
			 psa_state_str(t->state), (unsigned long long)t->exec_id);
		return;
	}
	s->cause = PSA_CAUSE_DEVICE_NO_TRIGGER;
	s->root_cause = true;
	s->observed = fault != NULL;
	streams_text(s->streams_pending, streams, sizeof(streams));
	snprintf(s->detail, sizeof(s->detail),
		 "the device of rank %u never wrote the trigger word of stream %s of exec %llu "
		 "(waited %.3f s)%s%s%s",
		 t->rank, streams[0] ? streams : "?", (unsigned long long)t->exec_id,
		 (double)(end - (t->wait_begin_ts ? t->wait_begin_ts : t->state_since)) * S_PER_NS,
		 fault ? "; the device recorded an injected " : "", fault ? fault : "",
		 fault ? " fault" : "");
}

/*
 * A worker that made no step. Silence alone proves it only in a DEBUG trace (every step of a
 * task fires a per-poll event); at the default level a worker whose tasks are IDLE, waiting
 * for a trigger or steadily progressing is silent too. Without DEBUG events the one proof is
 * a task enqueued while its worker slept and never taken (a lost wake-up).
 */
static bool classify_worker(struct psa_watchdog *w, const struct psa_model *m,
			    const struct psa_task *t, struct psa_stall *s)
{
	const struct psa_worker *wk = psa__worker_of(m, t);
	struct psa_model_totals tot;
	uint64_t end = w->trace_end;
	bool lost_wakeup;

	if (!wk || wk->end_ts || end - wk->last_ts < w->opts.worker_stall_ns)
		return false;
	psa_model_totals(m, &tot);
	lost_wakeup = !t->drain_ts && t->enqueue_ts && wk->mode == 2 && wk->mode_since <= t->enqueue_ts;
	if (!tot.debug_events && !lost_wakeup)
		return false;
	s->cause = PSA_CAUSE_WORKER_STALLED;
	s->root_cause = true;
	snprintf(s->detail, sizeof(s->detail),
		 "its worker proxy-%u (gid %u) made no step for %.3f s%s", wk->vtid, wk->gid,
		 (double)(end - wk->last_ts) * S_PER_NS,
		 t->drain_ts ? "" : " - the task was enqueued but never taken by the worker");
	return true;
}

static void classify_network(const struct psa_watchdog *w, const struct psa_model *m,
			     const struct psa_task *t, struct psa_stall *s)
{
	const struct psa_task_progress *pr = psa_task_prog(t);
	uint32_t outstanding = 0;

	for (uint32_t i = 0; i < t->ops_n; i++) {
		const struct psa_net_op *op = &t->ops[i];

		if (op->done_ts)
			continue;
		outstanding++;
		if (op->kind == 1 /* RECV */ &&
		    psa_model_send_completed(m, t->job, op->peer, t->rank, t->exec_id, op->tag)) {
			s->cause = PSA_CAUSE_MESSAGE_LOST;
			s->root_cause = true;
			s->waiting_on_n = 0;
			psa__stall_wait_on(s, op->peer);
			snprintf(s->detail, sizeof(s->detail),
				 "rank %u's send to rank %u (exec %llu, tag %llu, %llu bytes) completed, "
				 "but rank %u never received it: the message was lost",
				 op->peer, t->rank, (unsigned long long)t->exec_id,
				 (unsigned long long)op->tag, (unsigned long long)op->bytes, t->rank);
			return;
		}
		psa__stall_wait_on(s, op->peer);
	}
	if (outstanding) {
		s->cause = PSA_CAUSE_WAITING_ON_PEER;
		snprintf(s->detail, sizeof(s->detail), "%u op%s outstanding with other ranks",
			 outstanding, outstanding == 1 ? "" : "s");
	} else if (!t->ops_n && pr->n && !pr->sum.posted) {
		s->cause = PSA_CAUSE_UNKNOWN;
		snprintf(s->detail, sizeof(s->detail),
			 "its B2 calls kept returning (%llu rounds in its %u progress records) without "
			 "posting an op: the transport refused its posts",
			 (unsigned long long)pr->sum.steps, pr->n);
	} else {
		s->cause = PSA_CAUSE_UNKNOWN;
		snprintf(s->detail, sizeof(s->detail), "%s",
			 t->ops_n ? "every op completed, yet the task never reached DONE"
				  : "no op-level events for it (record the encnet provider)");
	}
	/* fresh records that show nothing moving: its worker steps it, it waits */
	if (pr->n && w->trace_end <= pr->last_ts + psa__progress_window(t))
		psa__detail_add(s, "; its progress records show its worker stepping it (%llu idle "
				"rounds in a row)", (unsigned long long)pr->last.idle_steps);
}

/*
 * The ranks of @t's job that never started exec @t->exec_id at all (no network task of it,
 * live or finished): a barrier waits for them as much as for a live task, and a trace cut
 * while they were still on an earlier exec holds nothing else that says so.
 */
static void wait_on_absent(const struct psa_model *m, const struct psa_task *t,
			   struct psa_stall *s)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);

	for (size_t i = 0; i < n; i++) {
		if (procs[i]->job != t->job)
			continue;
		for (uint32_t k = 0; k < procs[i]->ranks_n; k++) {
			uint32_t r = procs[i]->ranks[k];
			bool finished = false;

			if (r != t->rank && !psa_model_find_network_task(m, t->job, r, t->exec_id,
									 &finished) &&
			    !finished)
				psa__stall_wait_on(s, r);
		}
	}
}

/* A barrier task of @t's exec on another rank that has sent, i.e. that rank has arrived. */
static bool has_arrived(const struct psa_task *o, const struct psa_task *t)
{
	return o->kind == PSA_KIND_BARRIER && o->exec_id == t->exec_id &&
	       o->state != PSA_STATE_INIT;
}

/*
 * The ranks a barrier waits for: those with a live task of its exec or an earlier one, but for
 * the ones whose barrier of the exec has sent (they arrived and wait too). The list holds
 * PSA_WAITING_MAX ranks: with thousands of ranks arrived, listing them would fill it with
 * ranks that lead back to this barrier and leave out the one still behind.
 */
static void classify_barrier(const struct psa_model *m, const struct psa_task *t,
			     struct psa_stall *s)
{
	size_t n;
	const struct psa_task *const *live = psa_model_live_tasks(m, &n);

	for (size_t i = 0; i < n; i++)
		if (live[i]->job == t->job && live[i]->rank != t->rank &&
		    live[i]->exec_id <= t->exec_id && !has_arrived(live[i], t))
			psa__stall_wait_on(s, live[i]->rank);
	if (!s->waiting_on_n)
		wait_on_absent(m, t, s);
	s->cause = s->waiting_on_n ? PSA_CAUSE_BARRIER_WAIT : PSA_CAUSE_UNKNOWN;
	snprintf(s->detail, sizeof(s->detail), "%s",
		 s->waiting_on_n ? "the barrier waits for ranks that have not arrived"
				 : "the barrier never completed, and no other rank is stuck");
}

/* A barrier task in INIT whose exec's network task waits for the trigger: the same gate. */
static bool gate_wait(const struct psa_model *m, const struct psa_task *t, struct psa_stall *s)
{
	bool found;
	const struct psa_task *net = psa_model_find_network_task(m, t->job, t->rank, t->exec_id, &found);

	if (!net || net->state != PSA_STATE_WAITING_DEVICE_TRIGGER)
		return false;
	s->cause = PSA_CAUSE_GATE_WAIT;
	psa__stall_wait_on(s, t->rank);
	snprintf(s->detail, sizeof(s->detail), "it waits on the same trigger as its exec's network task");
	return true;
}

/*
 * A trace without INFO events (recorded at --loglevel warning or err): the consumer's
 * watchdog event is the task's one record, with the run state the consumer saw. A closed
 * trigger gate then is still a fact; what a task in any other state waited on is not there.
 */
static void classify_level(struct psa_watchdog *w, const struct psa_model *m,
			   const struct psa_task *t, struct psa_stall *s)
{
	double waited = (double)t->watchdog_waited_ns * S_PER_NS;

	if (t->kind == PSA_KIND_NETWORK && t->state == PSA_STATE_WAITING_DEVICE_TRIGGER) {
		s->cause = PSA_CAUSE_DEVICE_NO_TRIGGER;
		s->root_cause = true;
		snprintf(s->detail, sizeof(s->detail),
			 "when its consumer's watchdog fired after %.3f s, the task still waited for "
			 "the device of rank %u to write the trigger of exec %llu (which stream's word "
			 "is not recorded at this trace's level)",
			 waited, t->rank, (unsigned long long)t->exec_id);
		return;
	}
	if (t->kind == PSA_KIND_BARRIER && t->state == PSA_STATE_INIT && gate_wait(m, t, s))
		return;
	(void)w;
	s->cause = PSA_CAUSE_UNKNOWN;
	if (t->watchdog)
		snprintf(s->detail, sizeof(s->detail),
			 "its consumer's watchdog fired after %.3f s with the task %s; what it waited "
			 "on is not recorded at this trace's level",
			 waited, psa_state_str(t->state));
	else
		snprintf(s->detail, sizeof(s->detail),
			 "the task was last seen %s; what it waited on is not recorded at this "
			 "trace's level", psa_state_str(t->state));
}

void psa__watchdog_classify(struct psa_watchdog *w, const struct psa_model *m,
			    const struct psa_task *t, struct psa_stall *s)
{
	if (t->failed || t->status) {
		s->cause = PSA_CAUSE_TASK_ERROR;
		s->root_cause = true;
		snprintf(s->detail, sizeof(s->detail), "the task failed with status %d (%s)%s%s",
			 t->status, strerror(t->status < 0 ? -t->status : t->status),
			 t->last_seam >= 0 ? "; last seam call: " : "",
			 t->last_seam >= 0 ? psa_seam_str((enum psa_seam)t->last_seam) : "");
		return;
	}
	if (w->level != PSA_LEVEL_FULL) {
		classify_level(w, m, t, s);
		return;
	}
	if (t->kind == PSA_KIND_NETWORK && t->state == PSA_STATE_WAITING_DEVICE_TRIGGER) {
		classify_gate(w, m, t, s, w->trace_end);
		return;
	}
	if (t->kind == PSA_KIND_BARRIER && t->state == PSA_STATE_INIT) {
		if (!gate_wait(m, t, s))
			classify_gate(w, m, t, s, w->trace_end);
		return;
	}
	if (psa__watchdog_slow_progress(w, m, t, s, w->trace_end) || classify_worker(w, m, t, s))
		return;
	if (psa__watchdog_moving(w, t, s) || psa__watchdog_records_stopped(w, t, s))
		return;
	if (t->kind == PSA_KIND_NETWORK)
		classify_network(w, m, t, s);
	else
		classify_barrier(m, t, s);
}

/* The stall @s leads to next: the peer's stall for the same exec, else the peer's earliest. */
static int next_stall(const struct psa_watchdog *w, const struct psa_stall *s, uint32_t peer)
{
	int same = -1, earliest = -1;

	for (size_t i = 0; i < w->n; i++) {
		const struct psa_stall *o = &w->stalls[i];

		/* a stuck task may wait on one its consumer gave up on that finished later */
		if (o == s || o->failed || o->rank != peer || o->job != s->job)
			continue;
		if (o->exec_id == s->exec_id && (s->cause != PSA_CAUSE_GATE_WAIT || o->kind == PSA_KIND_NETWORK)) {
			if (same < 0 || o->kind == PSA_KIND_NETWORK)
				same = (int)i;
		}
		if (earliest < 0 || o->exec_id < w->stalls[earliest].exec_id ||
		    (o->exec_id == w->stalls[earliest].exec_id && o->root_cause))
			earliest = (int)i;
	}
	return same >= 0 ? same : earliest;
}

/* Depth-first along the waiting edges until a root cause; -1 when none is reachable. A rank
 * of a process that died leads to that death, whether or not it left a stall of its own. */
static int find_root(const struct psa_watchdog *w, int i, unsigned char *seen)
{
	const struct psa_stall *s = &w->stalls[i];

	if (s->root_cause)
		return i;
	if (s->root >= 0 && w->stalls[s->root].process)
		return s->root;
	if (seen[i])
		return -1;
	seen[i] = 1;
	for (uint32_t k = 0; k < s->waiting_on_n; k++) {
		int dead = psa__watchdog_death_of_rank(w, s->job, s->waiting_on[k]);
		int next = dead >= 0 ? dead : next_stall(w, s, s->waiting_on[k]);
		int root = next >= 0 ? find_root(w, next, seen) : -1;

		if (root >= 0)
			return root;
	}
	return -1;
}

/* A finished task's finding with no peer to follow (a barrier that waited for the others): the
 * one root of its exec. */
static int exec_root(const struct psa_watchdog *w, const struct psa_stall *s)
{
	int found = -1;

	for (size_t i = 0; i < w->n; i++) {
		const struct psa_stall *o = &w->stalls[i];

		if (o != s && !o->failed && o->root_cause && o->job == s->job &&
		    o->exec_id == s->exec_id) {
			if (found >= 0)
				return -1;
			found = (int)i;
		}
	}
	return found;
}

int psa__watchdog_chain(struct psa_watchdog *w, const struct psa_model *m, size_t first)
{
	unsigned char *seen = calloc(w->n ? w->n : 1, 1);

	(void)m;
	if (!seen)
		return -1;
	for (size_t i = first; i < w->n; i++) {
		struct psa_stall *s = &w->stalls[i];

		if (s->root_cause || s->root >= 0) /* a death's tasks are chained already */
			continue;
		memset(seen, 0, w->n);
		s->root = find_root(w, (int)i, seen);
		if (s->root < 0 && s->done && !s->failed)
			s->root = exec_root(w, s);
		/* A chain through an uncertain conclusion is itself uncertain. */
		if (s->root >= 0 && w->stalls[s->root].uncertain)
			psa__stall_unsure(s, PSA_UNSURE_CHAIN);
	}
	free(seen);
	return 0;
}
