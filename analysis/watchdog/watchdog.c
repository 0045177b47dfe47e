/* SPDX-License-Identifier: MIT */
/*
 * The watchdog analysis. Each stalled task gets a cause from its own evidence (state, status,
 * outstanding ops, trigger words, its seam calls, its worker's last activity); a task waiting
 * on peers gets edges to the peers' stalled tasks; then every stall follows its edges to a
 * stall that is stuck for its own reason - the root cause. Finished tasks with an error status
 * are kept as candidates until watchdog/death.c knows whether a process that died explains
 * them. Printing is in watchdog/print.c.
 *
 * What the trace cannot show is never a stall: a live task whose last event is followed by
 * lost events, with nothing showing it stuck (no consumer watchdog, no failure), most likely
 * finished among the lost events - it is counted as of unknown fate, not blamed. A task the
 * consumer's watchdog fired on is a stall whatever was lost; only the conclusions that rest
 * on the lost window are uncertain. The verdict is computed on the events seen so far, so a
 * live reader may call the analysis on a model that has not seen the end yet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_watchdog.h>

#include "watchdog/watchdog_int.h"

static const char *const cause_names[PSA_CAUSE_NR] = {
	[PSA_CAUSE_DEVICE_NO_TRIGGER] = "device_no_trigger",
	[PSA_CAUSE_TASK_ERROR] = "task_error",
	[PSA_CAUSE_MESSAGE_LOST] = "message_lost",
	[PSA_CAUSE_WORKER_STALLED] = "worker_stalled",
	[PSA_CAUSE_SLOW_PROGRESS] = "slow_progress",
	[PSA_CAUSE_PROCESS_DIED] = "process_died",
	[PSA_CAUSE_HOST_UNREACHABLE] = "host_unreachable",
	[PSA_CAUSE_WAITING_ON_PEER] = "waiting_on_peer",
	[PSA_CAUSE_BARRIER_WAIT] = "barrier_wait",
	[PSA_CAUSE_GATE_WAIT] = "gate_wait",
	[PSA_CAUSE_SLOW_STATE] = "slow_state",
	[PSA_CAUSE_SLOW_TRANSFER] = "slow_transfer",
	[PSA_CAUSE_UNKNOWN] = "unknown",
};

static const char *const unsure_names[PSA_UNSURE_NR] = {
	[PSA_UNSURE_NONE] = "none",
	[PSA_UNSURE_LOST] = "lost_events",
	[PSA_UNSURE_TRUNCATED] = "trace_starts_later",
	[PSA_UNSURE_LEVEL] = "not_recorded_at_level",
	[PSA_UNSURE_CHAIN] = "uncertain_root",
	[PSA_UNSURE_DAMAGED] = "damaged_trace",
};

static const char *const verdict_names[] = { "ok", "stall", "inconclusive" };

const char *psa_cause_str(enum psa_cause c)
{
	return (unsigned)c < PSA_CAUSE_NR ? cause_names[c] : "?";
}

const char *psa_unsure_str(enum psa_unsure u)
{
	return (unsigned)u < PSA_UNSURE_NR ? unsure_names[u] : "?";
}

const char *psa_verdict_str(enum psa_verdict v)
{
	return (unsigned)v <= PSA_VERDICT_INCONCLUSIVE ? verdict_names[v] : "?";
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
	psa__stall_from_task(&f->s, t, t->done_ts);
	f->s.done = true;
	f->s.state = PSA_STATE_DONE;
	f->s.duration_ns = t->done_ts - t->first_ts;
	f->s.since_ts = t->done_ts; /* it failed */
	f->peer = t->failed_peer;
	f->proc = t->proc->id;
	f->ts = t->done_ts;
}

/* Finished tasks that spent longer than the threshold in one state, and finished tasks the
 * consumer's watchdog gave up on (it returned a timeout, the task finished later). */
static void on_task_end(void *arg, const struct psa_task *t)
{
	struct psa_watchdog *w = arg;
	struct psa_stall *s;

	if (psa_task_is_done(t) && t->status)
		keep_failed(w, t);
	if (!psa_task_is_done(t) ||
	    !(t->watchdog || (w->opts.threshold_ns && t->longest_state_ns >= w->opts.threshold_ns)))
		return;
	s = psa__stall_add(w);
	if (!s)
		return;
	psa__stall_from_task(s, t, t->done_ts);
	s->done = true;
	s->state = t->longest_state;
	s->duration_ns = t->longest_state_ns;
	/* The model is still reading: what the finding needs of other tasks (the peer it
	 * waited on) is looked at when the chains are followed. */
	psa__watchdog_threshold(w, t, s);
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

size_t psa_watchdog_cut_in_flight(const struct psa_watchdog *w)
{
	return w->cut_in_flight;
}

size_t psa_watchdog_unknown_start(const struct psa_watchdog *w)
{
	return w->unknown_start;
}

size_t psa_watchdog_unknown(const struct psa_watchdog *w)
{
	return w->unknown;
}

bool psa_watchdog_found(const struct psa_watchdog *w)
{
	return w->n > 0;
}

enum psa_level_view psa_watchdog_level_view(const struct psa_watchdog *w)
{
	return w->level;
}

void psa_watchdog_set_integrity(struct psa_watchdog *w, const struct psa_integrity *in)
{
	w->integrity = in;
}

const struct psa_integrity *psa_watchdog_integrity(const struct psa_watchdog *w)
{
	return w->integrity;
}

static bool damaged(const struct psa_watchdog *w)
{
	return w->integrity && w->integrity->damaged;
}

enum psa_verdict psa_watchdog_verdict(const struct psa_watchdog *w)
{
	if (w->n)
		return PSA_VERDICT_STALL;
	if (w->unknown || w->level == PSA_LEVEL_ERR_ONLY || damaged(w))
		return PSA_VERDICT_INCONCLUSIVE;
	return PSA_VERDICT_OK;
}

const struct psa_stall *psa_watchdog_stalls(const struct psa_watchdog *w, size_t *n)
{
	*n = w->n;
	return w->stalls;
}

static enum psa_level_view level_view(const struct psa_model_totals *tot)
{
	if (psa_totals_have_info(tot))
		return PSA_LEVEL_FULL;
	/* WARNING events (a watchdog, a fault, a peer's death) show the session enabled them. */
	return (tot->levels_seen >> ENC_TP_LEVEL_WARNING) ? PSA_LEVEL_WARNING_ONLY : PSA_LEVEL_ERR_ONLY;
}

/* The consumer's status polls (DEBUG) show the task unfinished for as long as the consumer's
 * timeout, which another consumer's watchdog event in the trace gives: what this task's own
 * watchdog event, lost, would have said. Without any watchdog event the polls prove nothing:
 * on a loaded machine a healthy exec is polled for hundreds of milliseconds. */
static bool polled_stuck(const struct psa_watchdog *w, const struct psa_task *t)
{
	/* A process that tore down with no watchdog on its side consumed its tasks: the polls
	 * stopped at a DONE that was lost, however long they ran on a loaded machine. */
	return t->poll_last_ts - t->poll_first_ts >= w->poll_stuck_ns &&
	       t->poll_state != PSA_STATE_DONE && !t->proc->torn_down;
}

/*
 * What a conclusion rests on, and whether the tracer lost events there. A status is a fact; a
 * closed gate the consumer's watchdog saw is one too; everything else rests on the absence of
 * events after the task's state began.
 */
static void unsure_of(const struct psa_watchdog *w, const struct psa_model *m,
		      const struct psa_task *t, struct psa_stall *s)
{
	uint64_t from = t->state_since;

	switch (s->cause) {
	case PSA_CAUSE_TASK_ERROR:
	case PSA_CAUSE_SLOW_PROGRESS: /* its own evidence window, set by watchdog/slow.c */
		return;
	case PSA_CAUSE_DEVICE_NO_TRIGGER:
		if ((t->watchdog && t->watchdog_state == PSA_STATE_WAITING_DEVICE_TRIGGER) ||
		    (polled_stuck(w, t) && t->poll_state == PSA_STATE_WAITING_DEVICE_TRIGGER))
			return; /* the consumer saw the gate still closed */
		from = t->wait_begin_ts ? t->wait_begin_ts : t->state_since;
		break;
	case PSA_CAUSE_UNKNOWN:
		if (w->level != PSA_LEVEL_FULL)
			psa__stall_unsure(s, PSA_UNSURE_LEVEL);
		break;
	default:
		break;
	}
	if (psa__watchdog_lost_in(m, from, w->trace_end))
		psa__stall_unsure(s, PSA_UNSURE_LOST);
}

/*
 * The task as the analysis sees it: the consumer's watchdog saw its run state after the last
 * state change the trace holds when state changes were lost (or never recorded) - that view
 * is the later one.
 */
static void task_view(const struct psa_watchdog *w, const struct psa_task *t,
		      struct psa_task *view)
{
	*view = *t;
	if (!t->watchdog && polled_stuck(w, t) && t->poll_state < PSA_STATE_NR &&
	    t->poll_last_ts >= t->state_since && t->poll_state != t->state) {
		/* its consumer's last poll is the later view (DEBUG: the polls are the record) */
		view->state = t->poll_state;
		view->state_since = t->poll_first_ts > t->state_since ? t->poll_first_ts : t->state_since;
		if (view->state == PSA_STATE_WAITING_DEVICE_TRIGGER && !view->wait_begin_ts)
			view->wait_begin_ts = view->state_since;
		return;
	}
	if (t->watchdog && t->watchdog_state < PSA_STATE_NR && t->watchdog_ts >= t->state_since &&
	    (t->watchdog_state != t->state || !t->transitions)) {
		view->state = t->watchdog_state;
		view->state_since = t->watchdog_ts > t->watchdog_waited_ns && !t->transitions
					    ? t->watchdog_ts - t->watchdog_waited_ns
					    : t->state_since;
		if (view->state == PSA_STATE_WAITING_DEVICE_TRIGGER && !view->wait_begin_ts)
			view->wait_begin_ts = view->state_since;
	}
}

/* Something the trace holds shows the task stuck, not only the absence of its DONE. */
static bool is_shown(const struct psa_watchdog *w, const struct psa_task *t)
{
	return t->watchdog || t->failed || t->status || polled_stuck(w, t);
}

/*
 * @any_shown: some task of the trace near this one's exec is shown stuck. Then a task whose
 * fate rests on lost events stays in the report (it may be waiting on the one shown stuck) but
 * is never a root cause by itself; with nothing shown, it is not a stall at all.
 */
static int add_live(struct psa_watchdog *w, const struct psa_model *m, const struct psa_task *t,
		    bool any_shown)
{
	uint64_t end = w->trace_end, last_done;
	bool shown = is_shown(w, t);
	bool fate_lost = !shown && (damaged(w) || psa__watchdog_lost_in(m, t->last_ts, end));
	struct psa_task view;
	struct psa_stall *s;

	/* A snapshot's start cut it: how long it has been stuck, and why, is not in it. */
	if (t->unknown_start) {
		w->unknown_start++;
		return 0;
	}
	/* The recording's cut ended its story, not a stall: never a stall or a root. */
	if (t->cut_in_flight) {
		w->cut_in_flight++;
		return 0;
	}
	if (psa__watchdog_lost_in(m, t->state_since, end) &&
	    psa_model_rank_last_done_exec(m, t->job, t->rank, &last_done) && last_done > t->exec_id) {
		w->ignored++;
		return 0;
	}
	if (fate_lost && !any_shown) {
		w->unknown++;
		return 0;
	}
	if (!(s = psa__stall_add(w)))
		return -ENOMEM;
	task_view(w, t, &view);
	if (damaged(w))
		psa__stall_unsure(s, PSA_UNSURE_DAMAGED);
	if (view.state != t->state && t->transitions)
		psa__stall_unsure(s, PSA_UNSURE_LOST); /* the trace missed its state changes */
	psa__stall_from_task(s, &view, end);
	s->state = view.state;
	s->duration_ns = end > view.state_since ? end - view.state_since : 0;
	s->since_ts = view.state_since;
	psa__watchdog_classify(w, m, &view, s);
	unsure_of(w, m, &view, s);
	/* a start that lost events explain is not a snapshot's: unsure_of judged what rests on it */
	if (t->truncated && w->level == PSA_LEVEL_FULL && !psa__watchdog_lost_in(m, 0, t->first_ts))
		psa__stall_unsure(s, PSA_UNSURE_TRUNCATED);
	if (fate_lost) {
		size_t used = strlen(s->detail);

		psa__stall_unsure(s, PSA_UNSURE_LOST);
		if (s->root_cause && used + 1 < sizeof(s->detail))
			snprintf(s->detail + used, sizeof(s->detail) - used,
				 " - not a root cause: events were lost after its last one");
		s->root_cause = false;
	}
	psa__watchdog_death_adopt(w, t, s);
	/* live: its host's stream is silent and no host's silence explains it (its root would be
	 * that host): a root that rests on another rank's events compares its horizon with what
	 * the hosts heard later show (seen: a receive at a late host's horizon against the send
	 * its sender's later stream showed completed, "the message was lost") - not a root. A
	 * root its own stream shows (its device's trigger never written, its own error) is as
	 * true at its horizon as at anyone's present. */
	if (s->root_cause && s->cause == PSA_CAUSE_MESSAGE_LOST && w->trace_end < w->now) {
		s->root_cause = false;
		psa__detail_add(s, " - not a root cause: its host %s has been silent for %.3f s, "
				"what came after is not in the stream yet", t->proc->host,
				(double)(w->now - w->trace_end) / 1e9);
	}
	return 0;
}

/*
 * Where a task of a silent host is judged: the latest time its own stream vouched for, not
 * when it went silent. A host that is only late goes on sending behind the others (the merge
 * delivers it as it comes), and its own stall is seen as its stream shows it: judged at the
 * time it went silent, a stall on a host that stayed late (more than the threshold behind the
 * other hosts, as on a loaded machine) was named only when its driver's watchdog fired 10 s
 * later and the host caught up. A host truly cut off has vouched for nothing since: the same.
 */
uint64_t psa__watchdog_horizon(const struct psa_watchdog *w, const struct psa_task *t)
{
	for (size_t i = 0; i < w->silent_n; i++) {
		const struct psa_silent_host *h = &w->silent[i];
		uint64_t heard = h->heard_ts > h->since_ts ? h->heard_ts : h->since_ts;

		if (!strcmp(h->host, t->proc->host) && h->since_ts < w->trace_end)
			return heard < w->trace_end ? heard : w->trace_end;
	}
	return w->trace_end;
}

/* The verdict at trace time @end: the last event's for a trace, "now" for a live stream. */
static int analyze_at(struct psa_watchdog *w, const struct psa_model *m, uint64_t end)
{
	struct psa_model_totals tot;
	size_t live_n;
	const struct psa_task *const *live = psa_model_live_tasks(m, &live_n);

	psa_model_totals(m, &tot);
	w->trace_end = w->now = end;
	/* Nothing read of a damaged trace shows no level: the damage, not the level the trace
	 * was recorded at, is why nothing is concluded (the verdict is inconclusive by it). */
	w->unread = !tot.our_events && damaged(w);
	w->level = w->unread ? PSA_LEVEL_FULL : level_view(&tot);
	w->lossy = tot.discarded_events || tot.discarded_packets || tot.discards;
	w->poll_stuck_ns = tot.timeout_ms_max ? (uint64_t)tot.timeout_ms_max * 1000000u : UINT64_MAX;
	for (size_t i = 0; i < w->n; i++) /* the findings of finished tasks, so far */
		psa__watchdog_threshold_recheck(w, m, &w->stalls[i]);
	psa__watchdog_threshold_held(w);
	if (psa__watchdog_deaths(w, m) || psa__watchdog_hosts_cut(w, m) ||
	    psa__watchdog_hosts_silent(w, m) || psa__watchdog_add_failed(w, m))
		return -ENOMEM;
	/* The earliest exec shown stuck: a task whose fate was lost matters only near it (an older
	 * one its rank went past long ago most likely finished among the lost events). */
	bool any_shown = w->deaths_n > 0;
	uint64_t shown_exec = any_shown ? 0 : UINT64_MAX;

	for (size_t i = 0; i < live_n; i++)
		if (is_shown(w, live[i]) && live[i]->exec_id < shown_exec)
			shown_exec = live[i]->exec_id;
	for (size_t i = 0; i < live_n; i++) {
		/* a task of a silent host is judged when its host's stream went silent: what
		 * it did since is not in the stream yet, whatever the others' present */
		uint64_t now = w->trace_end;
		int rc;

		w->trace_end = psa__watchdog_horizon(w, live[i]);
		rc = add_live(w, m, live[i],
			      shown_exec != UINT64_MAX && live[i]->exec_id + 1 >= shown_exec);
		w->trace_end = now;
		if (rc)
			return -ENOMEM;
	}
	for (size_t i = 0; damaged(w) && i < w->n; i++)
		psa__stall_unsure(&w->stalls[i], PSA_UNSURE_DAMAGED);
	psa__watchdog_transfer_held(w, m);
	psa__watchdog_slow_fault_note(w, m);
	int rc = psa__watchdog_chain(w, m, 0);

	if (rc)
		return rc;
	psa__watchdog_teardown(w, m);
	return 0;
}

int psa_watchdog_analyze(struct psa_watchdog *w, const struct psa_model *m)
{
	struct psa_model_totals tot;

	psa_model_totals(m, &tot);
	return analyze_at(w, m, tot.last_ts);
}

int psa_watchdog_analyze_live(const struct psa_watchdog *w, struct psa_model *m, uint64_t now,
			      struct psa_watchdog **out)
{
	struct psa_watchdog_opts o = w->opts;
	struct psa_watchdog *v;
	int rc;

	o.threshold_ns = 0; /* the finished tasks over it are @w's (its observer's) */
	if (psa_model_live_refresh(m) || psa_watchdog_create(&o, &v))
		return -ENOMEM;
	if (w->failed_n) {
		v->failed = malloc(w->failed_n * sizeof(*v->failed));
		if (!v->failed) {
			psa_watchdog_destroy(v);
			return -ENOMEM;
		}
		memcpy(v->failed, w->failed, w->failed_n * sizeof(*v->failed));
		v->failed_n = v->failed_cap = w->failed_n;
	}
	memcpy(v->silent, w->silent, w->silent_n * sizeof(v->silent[0]));
	v->silent_n = w->silent_n;
	rc = analyze_at(v, m, now);
	if (rc) {
		psa_watchdog_destroy(v);
		return rc;
	}
	*out = v;
	return 0;
}

void psa_watchdog_set_silent(struct psa_watchdog *w, const struct psa_silent_host *h, size_t n)
{
	w->silent_n = n < PSA_SILENT_HOSTS_MAX ? n : PSA_SILENT_HOSTS_MAX;
	memcpy(w->silent, h, w->silent_n * sizeof(w->silent[0]));
}

bool psa_watchdog_root_line(const struct psa_watchdog *w, size_t i, const struct psa_stall **out,
			    char *buf, size_t len)
{
	for (size_t k = 0; k < w->n; k++) {
		const struct psa_stall *s = &w->stalls[k];

		if (!s->root_cause || i--)
			continue;
		*out = s;
		if (s->process)
			snprintf(buf, len, "%s", s->detail);
		else
			snprintf(buf, len, "rank %u exec %llu %s task %llu: %s%s", s->rank,
				 (unsigned long long)s->exec_id, psa_kind_str(s->kind),
				 (unsigned long long)s->task_id, s->detail,
				 s->uncertain ? " [uncertain]" : "");
		return true;
	}
	return false;
}
