/* SPDX-License-Identifier: MIT */
/*
 * What a task's progress records (encproxy:task_progress, INFO) say of it. The driver emits one
 * at most every ENC_PROXY_PROGRESS_MS while the task progresses, after a round of B2 calls, so:
 * records that keep coming, the last showing bytes or ops moving, mean a transfer that is slow,
 * not stuck; records that keep coming with nothing moving mean a task its worker steps that
 * waits (on its peers); records that stop while the task is still progressing mean no round of
 * its worker returned since - stuck, since the last one came.
 *
 * Design choice: a record is fresh for three of its own intervals (a record covers at least the
 * configured interval, more on a loaded machine), and never less than 1 s, the default
 * threshold: a live stream delivers events in bursts, and a worker preempted on a busy machine
 * loses tens of milliseconds, not a second.
 */
#include <stdio.h>

#include "watchdog/watchdog_int.h"

#define S_PER_NS 1e-9
#define FRESH_MIN_NS 1000000000ull

uint64_t psa__progress_window(const struct psa_task *t)
{
	uint64_t w = 3 * psa_task_prog(t)->last.interval_ns;

	return w > FRESH_MIN_NS ? w : FRESH_MIN_NS;
}

static bool progressing(const struct psa_task *t)
{
	return t->kind == PSA_KIND_NETWORK && psa_task_prog(t)->n &&
	       (t->state == PSA_STATE_PROGRESSING || t->state == PSA_STATE_IDLE);
}

/* " (B MB, C ops completed, P posted in its last S s)" of record @r. */
static void moved_text(const struct psa_progress *r, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f MB moved, %llu op%s completed, %llu posted, %llu B2 round%s in "
		 "%.3f s", (double)r->bytes / 1e6, (unsigned long long)r->completed,
		 r->completed == 1 ? "" : "s", (unsigned long long)r->posted,
		 (unsigned long long)r->steps, r->steps == 1 ? "" : "s",
		 (double)r->interval_ns * S_PER_NS);
}

bool psa__watchdog_moving(const struct psa_watchdog *w, const struct psa_task *t,
			  struct psa_stall *s)
{
	const struct psa_task_progress *pr = psa_task_prog(t);
	uint64_t end = w->trace_end, win;
	char moved[160];

	if (!progressing(t))
		return false;
	win = psa__progress_window(t);
	/* The last record, fresh, shows it moving in more than one round: a task that moved, then
	 * waited, is waiting; one round over the whole record is a worker held by a call (its own,
	 * or a neighbour's on the same worker), which slow_progress and the chains judge. */
	if (end > pr->last_ts + win || !psa_progress_moved(&pr->last) || pr->last.steps < 2)
		return false;
	moved_text(&pr->last, moved, sizeof(moved));
	s->cause = PSA_CAUSE_SLOW_TRANSFER;
	s->root_cause = true;
	s->waiting_on_n = 0;
	/* the detail is one bounded sentence: truncating it is fine */
	if (snprintf(s->detail, sizeof(s->detail),
		     "its progress records show it moving (%u records, %.1f MB in all; the last "
		     "%.3f s before the end: %s): slow, not stuck",
		     pr->n, (double)pr->sum.bytes / 1e6, (double)(end - pr->last_ts) * S_PER_NS,
		     moved) < 0)
		s->detail[0] = '\0';
	return true;
}

bool psa__watchdog_records_stopped(const struct psa_watchdog *w, const struct psa_task *t,
				   struct psa_stall *s)
{
	const struct psa_task_progress *pr = psa_task_prog(t);
	uint64_t end = w->trace_end, gap, since_state;

	if (!progressing(t) || end <= pr->last_ts + psa__progress_window(t))
		return false;
	/* B3 after its last record (its comm freed after the consumer gave up): released, no
	 * longer stepped - not a worker that stopped returning */
	if (t->last_seam == PSA_SEAM_STOP && t->last_seam_ts >= pr->last_ts)
		return false;
	gap = end - pr->last_ts;
	since_state = pr->last_ts > t->state_since ? pr->last_ts - t->state_since : 0;
	s->cause = PSA_CAUSE_WORKER_STALLED;
	s->root_cause = true;
	s->waiting_on_n = 0;
	snprintf(s->detail, sizeof(s->detail),
		 "its progress records stopped %.3f s before the end (the last %.3f s into %s, "
		 "after %u): no round of its worker's B2 calls returned since%s",
		 (double)gap * S_PER_NS, (double)since_state * S_PER_NS, psa_state_str(t->state),
		 pr->n, t->proc->last_ts > pr->last_ts + psa__progress_window(t)
				    ? ", while its process went on"
				    : "");
	return true;
}
