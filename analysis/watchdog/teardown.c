/* SPDX-License-Identifier: MIT */
/*
 * The stalls that began after the job began to end: after the recording's cut (an interrupt,
 * a kill, the command's end: psa_model_cut) or after their process began its teardown (its
 * gid's worker ended; for a process's own stall, the first of its workers). Their role is
 * teardown, never initiating: a task that fails or waits while its peers are being freed says
 * how the job ended, not why it stopped.
 *
 * Design choice: one pass after the chains, on each stall's own start (psa_stall.since_ts),
 * so the chains, the common causes and the verdict's exit status stay what they were; only
 * the role a reader sorts by changes. A stall whose start is unknown (since_ts 0: a finished
 * task over the threshold) is never teardown.
 */
#include "watchdog/watchdog_int.h"

/* When @s's process began its teardown: its gid's worker ended, or for the stall of a whole
 * process the first of its workers (0: never). Another gid's worker ending is a comm freed
 * early, not the end of this one's job. */
static uint64_t teardown_ts(const struct psa_model *m, const struct psa_stall *s)
{
	size_t n;
	const struct psa_worker *const *wk = psa_model_workers(m, &n);
	uint64_t first = 0;

	for (size_t i = 0; i < n; i++)
		if (wk[i]->proc && wk[i]->proc->id == s->proc && wk[i]->end_ts &&
		    (s->process || wk[i]->gid == s->gid) &&
		    (!first || wk[i]->end_ts < first))
			first = wk[i]->end_ts;
	return first;
}

void psa__watchdog_teardown(struct psa_watchdog *w, const struct psa_model *m)
{
	uint64_t cut = psa_model_cut(m, NULL);

	for (size_t i = 0; i < w->n; i++) {
		struct psa_stall *s = &w->stalls[i];
		/* a host cut off stands for no one process: only the cut ends it */
		uint64_t own = s->host_wide ? 0 : teardown_ts(m, s);
		uint64_t end = cut && (!own || cut < own) ? cut : own;

		s->teardown = s->since_ts && end && s->since_ts >= end;
	}
}
