/*
 * The watchdog's human report: one line per root cause first (with the tasks it blocks), then
 * the evidence for every stalled task. A healthy trace prints a single "no stall" line. A dead
 * process is a root cause without a task: it is labelled by the rank it died with.
 */
#include <inttypes.h>
#include <string.h>

#include "watchdog_int.h"

static void task_label(const struct psa_stall *s, char *buf, size_t len)
{
	if (s->process) {
		if (s->rank == PSA_RANK_NONE)
			snprintf(buf, len, "the process pid %u", s->vpid);
		else
			snprintf(buf, len, "rank %u's process (pid %u)", s->rank, s->vpid);
		return;
	}
	snprintf(buf, len, "rank %u exec %" PRIu64 " %s task %" PRIu64, s->rank, s->exec_id,
		 psa_kind_str(s->kind), s->task_id);
}

static void print_root(const struct psa_watchdog *w, size_t r, FILE *out)
{
	const struct psa_stall *s = &w->stalls[r];
	char label[96];
	unsigned blocked = 0;

	task_label(s, label, sizeof(label));
	if (s->rank == PSA_RANK_NONE)
		fprintf(out, "root cause: the process pid %u on %s: %s%s\n", s->vpid, s->host, s->detail,
			s->uncertain ? " [uncertain: events were lost in this window]" : "");
	else
		fprintf(out, "root cause: rank %u (pid %u on %s, gid %u): %s%s\n", s->rank, s->vpid,
			s->host, s->gid, s->detail,
			s->uncertain ? " [uncertain: events were lost in this window]" : "");
	if (!s->process)
		fprintf(out, "    %s, %s for %.3f s%s\n", label, psa_state_str(s->state),
			(double)s->duration_ns / 1e9,
			s->watchdog_fired ? ", the driver's watchdog fired" : "");
	for (size_t i = 0; i < w->n; i++) {
		const struct psa_stall *o = &w->stalls[i];

		if (o->root != (int)r)
			continue;
		if (!blocked++)
			fprintf(out, "    blocks:");
		task_label(o, label, sizeof(label));
		fprintf(out, "%s %s", blocked > 1 ? "," : "", label);
	}
	if (blocked)
		fprintf(out, "\n");
}

static void print_evidence(const struct psa_stall *s, const struct psa_watchdog *w, FILE *out)
{
	char label[96];

	task_label(s, label, sizeof(label));
	if (s->process)
		fprintf(out, "  %s, gid %u: silent for the last %.3f s of the trace\n", label, s->gid,
			(double)s->duration_ns / 1e9);
	else if (s->failed && s->done)
		fprintf(out, "  %s (pid %u, gid %u): failed after %.3f s (DONE, status %d)\n", label,
			s->vpid, s->gid, (double)s->duration_ns / 1e9, s->status);
	else
		fprintf(out, "  %s (pid %u, gid %u): %s for %.3f s%s\n", label, s->vpid, s->gid,
			psa_state_str(s->state), (double)s->duration_ns / 1e9,
			s->done ? " (then finished)" : "");
	fprintf(out, "      cause: %s%s: %s\n", psa_cause_str(s->cause), s->root_cause ? " (root)" : "",
		s->detail);
	if (s->last_seam >= 0)
		fprintf(out, "      last seam call: %s, rc %d, %.3f s before %s\n",
			psa_seam_str((enum psa_seam)s->last_seam), s->last_seam_rc,
			(double)s->last_seam_ago_ns / 1e9,
			s->failed && s->done ? "it failed" : "the end");
	for (uint32_t k = 0; k < PSA_STREAMS_MAX; k++)
		if (s->trigger_last[k] != PSA_TRIGGER_UNREAD)
			fprintf(out, "      trigger word stream %u: last read 0x%08" PRIx64 "%s\n", k,
				s->trigger_last[k],
				s->trigger_last[k] == 0xFFFFFFFFu ? " (never written)" : "");
	if (!s->waiting_on_n && !s->failed && s->root >= 0) {
		/* no edge but a root: a task of a process that died */
		task_label(&w->stalls[s->root], label, sizeof(label));
		fprintf(out, "      root cause: %s\n", label);
	} else if (s->waiting_on_n || s->root >= 0) {
		fprintf(out, "      %s", s->failed ? "failed" : "waiting");
		if (s->waiting_on_n)
			fprintf(out, " on rank%s", s->waiting_on_n > 1 ? "s" : "");
		for (uint32_t k = 0; k < s->waiting_on_n; k++)
			fprintf(out, "%s %u", k ? "," : "", s->waiting_on[k]);
		if (s->root >= 0) {
			task_label(&w->stalls[s->root], label, sizeof(label));
			fprintf(out, " -> root cause: %s", label);
		} else if (!s->root_cause) {
			fprintf(out, " -> no root cause found in the trace");
		}
		fprintf(out, "\n");
	}
	if (s->uncertain)
		fprintf(out, "      uncertain: events were lost (or the trace starts) inside this window\n");
}

void psa_watchdog_print(const struct psa_watchdog *w, const struct psa_model *m, FILE *out)
{
	size_t roots = 0, unexplained = 0, failed = 0, processes = 0, stalled;

	(void)m;
	if (w->ignored)
		fprintf(out, "watchdog: %zu unfinished task%s left out: events were lost around them and "
			     "their rank finished later execs, so they most likely finished too\n",
			w->ignored, w->ignored == 1 ? "" : "s");
	if (w->unknown_start)
		fprintf(out, "watchdog: %zu unfinished task%s left out: state unknown at trace start (a "
			     "flight-recorder snapshot begins mid-run: their earlier events were "
			     "overwritten)\n",
			w->unknown_start, w->unknown_start == 1 ? "" : "s");
	if (!w->n) {
		fprintf(out, "watchdog: no stall: every %stask reached DONE%s\n",
			w->unknown_start ? "other " : "", w->opts.threshold_ns ? " and no state lasted longer than the threshold" : "");
		return;
	}
	for (size_t i = 0; i < w->n; i++) {
		roots += w->stalls[i].root_cause;
		unexplained += !w->stalls[i].root_cause && w->stalls[i].root < 0;
		failed += w->stalls[i].failed;
		processes += w->stalls[i].process;
	}
	stalled = w->n - failed - processes;
	fprintf(out, "watchdog: ");
	if (stalled || !failed)
		fprintf(out, "%zu stalled task%s, ", stalled, stalled == 1 ? "" : "s");
	if (failed)
		fprintf(out, "%zu failed task%s, ", failed, failed == 1 ? "" : "s");
	fprintf(out, "%zu root cause%s\n", roots, roots == 1 ? "" : "s");
	for (size_t i = 0; i < w->n; i++)
		if (w->stalls[i].root_cause)
			print_root(w, i, out);
	if (unexplained)
		fprintf(out, "unexplained: %zu stalled task%s lead to no root cause in the trace\n",
			unexplained, unexplained == 1 ? "" : "s");
	fprintf(out, "\nevidence:\n");
	for (size_t i = 0; i < w->n; i++)
		print_evidence(&w->stalls[i], w, out);
}
