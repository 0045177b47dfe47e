/*
 * The watchdog analysis. Each stalled task gets a cause from its own evidence (state, status,
 * outstanding ops, trigger words, its worker's last activity); a task waiting on peers gets
 * edges to the peers' stalled tasks; then every stall follows its edges to a stall that is
 * stuck for its own reason - the root cause. Finished tasks with an error status are kept as
 * candidates until watchdog_death.c knows whether a process that died explains them. Printing
 * is in watchdog_print.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_watchdog.h>

#include "watchdog_int.h"

static const char *const cause_names[PSA_CAUSE_NR] = {
	[PSA_CAUSE_DEVICE_NO_TRIGGER] = "device_no_trigger",
	[PSA_CAUSE_TASK_ERROR] = "task_error",
	[PSA_CAUSE_MESSAGE_LOST] = "message_lost",
	[PSA_CAUSE_WORKER_STALLED] = "worker_stalled",
	[PSA_CAUSE_PROCESS_DIED] = "process_died",
	[PSA_CAUSE_WAITING_ON_PEER] = "waiting_on_peer",
	[PSA_CAUSE_BARRIER_WAIT] = "barrier_wait",
	[PSA_CAUSE_GATE_WAIT] = "gate_wait",
	[PSA_CAUSE_SLOW_STATE] = "slow_state",
	[PSA_CAUSE_UNKNOWN] = "unknown",
};

const char *psa_cause_str(enum psa_cause c)
{
	return (unsigned)c < PSA_CAUSE_NR ? cause_names[c] : "?";
}

int psa_watchdog_create(const struct psa_watchdog_opts *opts, struct psa_watchdog **out)
{
	struct psa_watchdog *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	if (opts)
		w->opts = *opts;
	if (!w->opts.worker_stall_ns)
		w->opts.worker_stall_ns = w->opts.threshold_ns > 1000000000ull ? w->opts.threshold_ns
										 : 1000000000ull;
	*out = w;
	return 0;
}

void psa_watchdog_destroy(struct psa_watchdog *w)
{
	if (!w)
		return;
	free(w->stalls);
	free(w->failed);
	free(w->deaths);
	free(w);
}

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

static void stall_from_task(struct psa_stall *s, const struct psa_task *t, uint64_t end)
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

/* The most failed tasks kept as candidates: a death fails the execs in flight on the
 * survivors' ranks, a few tasks per rank. */
#define FAILED_MAX 4096

/* A finished task with an error status: a candidate for the failed tasks a death explains. */
static void keep_failed(struct psa_watchdog *w, const struct psa_task *t)
{
	struct psa__failed_task *f;

	if (w->failed_n == FAILED_MAX)
		return;
	if (w->failed_n == w->failed_cap) {
		size_t cap = w->failed_cap ? 2 * w->failed_cap : 16;
		struct psa__failed_task *v = realloc(w->failed, cap * sizeof(*v));

		if (!v)
			return;
		w->failed = v;
		w->failed_cap = cap;
	}
	f = &w->failed[w->failed_n++];
	memset(f, 0, sizeof(*f));
	f->s.root = -1;
	stall_from_task(&f->s, t, t->done_ts);
	f->s.done = true;
	f->s.state = PSA_STATE_DONE;
	f->s.duration_ns = t->done_ts - t->first_ts;
	f->peer = t->failed_peer;
	f->proc = t->proc->id;
	f->ts = t->done_ts;
}

/* Finished tasks that spent longer than the threshold in one state. */
static void on_task_end(void *arg, const struct psa_task *t)
{
	struct psa_watchdog *w = arg;
	struct psa_stall *s;

	if (psa_task_is_done(t) && t->status)
		keep_failed(w, t);
	if (!w->opts.threshold_ns || !psa_task_is_done(t) || t->longest_state_ns < w->opts.threshold_ns)
		return;
	s = psa__stall_add(w);
	if (!s)
		return;
	stall_from_task(s, t, t->done_ts);
	s->done = true;
	s->state = t->longest_state;
	s->duration_ns = t->longest_state_ns;
	s->cause = PSA_CAUSE_SLOW_STATE;
	s->root_cause = true;
	snprintf(s->detail, sizeof(s->detail), "%s lasted %.3f s (threshold %.3f s), then it finished",
		 psa_state_str(t->longest_state), (double)t->longest_state_ns / 1e9,
		 (double)w->opts.threshold_ns / 1e9);
}

void psa_watchdog_observer(struct psa_watchdog *w, struct psa_observer *obs)
{
	memset(obs, 0, sizeof(*obs));
	obs->task_end = on_task_end;
	obs->arg = w;
}

size_t psa_watchdog_ignored(const struct psa_watchdog *w)
{
	return w->ignored;
}

size_t psa_watchdog_unknown_start(const struct psa_watchdog *w)
{
	return w->unknown_start;
}

bool psa_watchdog_found(const struct psa_watchdog *w)
{
	return w->n > 0;
}

const struct psa_stall *psa_watchdog_stalls(const struct psa_watchdog *w, size_t *n)
{
	*n = w->n;
	return w->stalls;
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

static void add_waiting(struct psa_stall *s, uint32_t rank)
{
	for (uint32_t i = 0; i < s->waiting_on_n; i++)
		if (s->waiting_on[i] == rank)
			return;
	if (s->waiting_on_n < PSA_WAITING_MAX)
		s->waiting_on[s->waiting_on_n++] = rank;
}

int psa_watchdog_analyze(struct psa_watchdog *w, const struct psa_model *m)
{
	struct psa_model_totals tot;
	size_t live_n, first_live = w->n;
	const struct psa_task *const *live = psa_model_live_tasks(m, &live_n);

	psa_model_totals(m, &tot);
	w->trace_end = tot.last_ts;
	if (psa__watchdog_deaths(w, m) || psa__watchdog_add_failed(w, m))
		return -ENOMEM;
	for (size_t i = 0; i < live_n; i++) {
		const struct psa_task *t = live[i];
		bool lost = psa__watchdog_lost_in(m, t->state_since, tot.last_ts);
		uint64_t last_done;
		struct psa_stall *s;

		/* A snapshot's start cut it: how long it has been stuck, and why, is not in it. */
		if (t->unknown_start) {
			w->unknown_start++;
			continue;
		}
		if (lost && psa_model_rank_last_done_exec(m, t->job, t->rank, &last_done) &&
		    last_done > t->exec_id) {
			w->ignored++;
			continue;
		}
		s = psa__stall_add(w);
		if (!s)
			return -ENOMEM;
		stall_from_task(s, t, tot.last_ts);
		s->state = t->state;
		s->duration_ns = tot.last_ts > t->state_since ? tot.last_ts - t->state_since : 0;
		psa__watchdog_classify(w, m, t, s);
		s->uncertain = t->truncated || lost;
		psa__watchdog_death_adopt(w, t, s);
	}
	return psa__watchdog_chain(w, m, first_live);
}

/* Record that @s waits on @rank (used by the classifier). */
void psa__stall_wait_on(struct psa_stall *s, uint32_t rank)
{
	add_waiting(s, rank);
}
