/* SPDX-License-Identifier: MIT */
/*
 * The watchdog's human report: one line per root cause first (with the tasks it blocks), then
 * the evidence for every stalled task. A healthy trace prints a single "no stall" line. A dead
 * process is a root cause without a task: it is labelled by the rank it died with.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "watchdog/watchdog_int.h"

#define BLOCKS_SHOWN 8 /* the tasks a root's "blocks:" line names (all with --verbose) */

/* " on HOST" when @many (the processes come from several hosts: a pid alone is ambiguous). */
static const char *on_host(const struct psa_stall *s, bool many, char *buf, size_t len)
{
	if (!many)
		return "";
	snprintf(buf, len, " on %s", s->host);
	return buf;
}

void psa__stall_label(const struct psa_stall *s, bool many, char *buf, size_t len)
{
	char on[PSA_HOST_MAX + 8];

	if (s->host_wide) {
		snprintf(buf, len, "host %s", s->host);
		return;
	}
	if (s->process) {
		if (s->rank == PSA_RANK_NONE)
			snprintf(buf, len, "the process pid %u%s", s->vpid,
				 on_host(s, many, on, sizeof(on)));
		else
			snprintf(buf, len, "rank %u's process (pid %u%s)", s->rank, s->vpid,
				 on_host(s, many, on, sizeof(on)));
		return;
	}
	snprintf(buf, len, "rank %u exec %" PRIu64 " %s task %" PRIu64, s->rank, s->exec_id,
		 psa_kind_str(s->kind), s->task_id);
}

void psa_stall_label(const struct psa_stall *s, char *buf, size_t len)
{
	psa__stall_label(s, false, buf, len);
}

static const char *unsure_text(enum psa_unsure u)
{
	switch (u) {
	case PSA_UNSURE_LOST:
		return "events were lost in this window";
	case PSA_UNSURE_TRUNCATED:
		return "the trace starts after the task did";
	case PSA_UNSURE_LEVEL:
		return "not recorded at this trace's level";
	case PSA_UNSURE_CHAIN:
		return "it leads to an uncertain root";
	case PSA_UNSURE_DAMAGED:
		return "a stream of the trace is missing or cut short";
	default:
		return "";
	}
}

/* " [uncertain: ...]" for the root cause line. */
static const char *unsure_tag(enum psa_unsure u, char *buf, size_t len)
{
	if (u == PSA_UNSURE_NONE)
		return "";
	snprintf(buf, len, " [uncertain: %s]", unsure_text(u));
	return buf;
}

void psa_stall_root_line(const struct psa_stall *s, char *buf, size_t len)
{
	char tag[96];

	if (s->host_wide)
		snprintf(buf, len, "root cause: host %s %s: %s%s", s->host,
			 s->silent ? "silent" : "unreachable", s->detail,
			 unsure_tag(s->unsure, tag, sizeof(tag)));
	else if (s->rank == PSA_RANK_NONE)
		snprintf(buf, len, "root cause: the process pid %u on %s: %s%s", s->vpid, s->host,
			 s->detail, unsure_tag(s->unsure, tag, sizeof(tag)));
	else if (s->process)
		snprintf(buf, len, "root cause: rank %u (pid %u on %s, gid %u): %s%s", s->rank,
			 s->vpid, s->host, s->gid, s->detail, unsure_tag(s->unsure, tag, sizeof(tag)));
	else
		snprintf(buf, len, "root cause: rank %u exec %" PRIu64 " (pid %u on %s, gid %u): %s%s",
			 s->rank, s->exec_id, s->vpid, s->host, s->gid, s->detail,
			 unsure_tag(s->unsure, tag, sizeof(tag)));
}

/* "shape: hang, outside the seam (device), observed, initiating" (psa_stall_shape) */
static void print_shape(const struct psa_stall *s, const char *indent, FILE *out)
{
	struct psa_shape sh;
	char str[128];

	psa_stall_shape(s, &sh);
	psa_shape_str(&sh, str, sizeof(str));
	fprintf(out, "%sshape: %s\n", indent, str);
}

static void print_root(const struct psa_watchdog *w, size_t r, bool many, FILE *out)
{
	const struct psa_stall *s = &w->stalls[r];
	char label[96 + PSA_HOST_MAX], line[512];
	unsigned blocked = 0;

	psa__stall_label(s, many, label, sizeof(label));
	psa_stall_root_line(s, line, sizeof(line));
	fprintf(out, "%s\n", line);
	if (!s->process)
		fprintf(out, "    %s, %s for %.3f s%s\n", label, psa_state_str(s->state),
			(double)s->duration_ns / 1e9,
			s->watchdog_fired ? ", the driver's watchdog fired" : "");
	print_shape(s, "    ", out);
	for (size_t i = 0; i < w->n; i++) {
		const struct psa_stall *o = &w->stalls[i];

		if (o->root != (int)r)
			continue;
		if (!blocked++)
			fprintf(out, "    blocks:");
		if (blocked > BLOCKS_SHOWN && !w->opts.verbose)
			continue;
		psa__stall_label(o, many, label, sizeof(label));
		fprintf(out, "%s %s", blocked > 1 ? "," : "", label);
	}
	if (blocked > BLOCKS_SHOWN && !w->opts.verbose)
		fprintf(out, ", and %u more", blocked - BLOCKS_SHOWN);
	if (blocked)
		fprintf(out, "\n");
}

/*
 * The root causes: those one fact explains first, each group under its "common cause:" line
 * (psa_watchdog_common), then the others. Without a model, or out of memory, each on its own.
 */
static void print_roots(const struct psa_watchdog *w, const struct psa_model *m, bool many,
			FILE *out)
{
	struct psa_common *c = NULL;
	size_t c_n = 0;

	if (m && psa_watchdog_common(w, m, &c, &c_n))
		c_n = 0;
	for (size_t g = 0; g < c_n; g++) {
		fprintf(out, "common cause: %s\n", c[g].line);
		for (size_t k = 0; k < c[g].roots_n; k++)
			print_root(w, c[g].roots[k], many, out);
	}
	for (size_t i = 0; i < w->n; i++) {
		bool grouped = false;

		for (size_t g = 0; g < c_n && !grouped; g++)
			for (size_t k = 0; k < c[g].roots_n && !grouped; k++)
				grouped = c[g].roots[k] == i;
		if (w->stalls[i].root_cause && !grouped)
			print_root(w, i, many, out);
	}
	psa_common_free(c, c_n);
}

/* One line per pair of roots two analyses point to (psa_watchdog_disagreements), and the
 * findings that began after the job began to end. */
static void print_disagreements(const struct psa_watchdog *w, FILE *out)
{
	struct psa_disagreement *d = NULL;
	size_t n = 0, teardown = 0;

	if (psa_watchdog_disagreements(w, &d, &n))
		n = 0;
	for (size_t i = 0; i < n; i++)
		fprintf(out, "analyses disagree: %s\n", d[i].line);
	free(d);
	for (size_t i = 0; i < w->n; i++)
		teardown += w->stalls[i].teardown;
	if (teardown)
		fprintf(out, "teardown: %zu finding%s began after the job began to end (the cut or "
			     "its process's teardown): role teardown, not initiating\n",
			teardown, teardown == 1 ? "" : "s");
}

void psa__print_evidence(const struct psa_stall *s, const struct psa_watchdog *w, bool many,
			 FILE *out)
{
	char label[96 + PSA_HOST_MAX], on[PSA_HOST_MAX + 8];

	psa__stall_label(s, many, label, sizeof(label));
	if (s->host_wide)
		fprintf(out, "  %s: %s for the last %.3f s of the trace\n", label,
			s->silent ? "silent" : "unreachable", (double)s->duration_ns / 1e9);
	else if (s->process)
		fprintf(out, "  %s, gid %u: silent for the last %.3f s of the trace\n", label, s->gid,
			(double)s->duration_ns / 1e9);
	else if (s->failed && s->done)
		fprintf(out, "  %s (pid %u%s, gid %u): failed after %.3f s (DONE, status %d)\n", label,
			s->vpid, on_host(s, many, on, sizeof(on)), s->gid,
			(double)s->duration_ns / 1e9, s->status);
	else
		fprintf(out, "  %s (pid %u%s, gid %u): %s for %.3f s%s\n", label, s->vpid,
			on_host(s, many, on, sizeof(on)), s->gid,
			psa_state_str(s->state), (double)s->duration_ns / 1e9,
			s->done ? " (then finished)" : "");
	fprintf(out, "      cause: %s%s: %s\n", psa_cause_str(s->cause), s->root_cause ? " (root)" : "",
		s->detail);
	print_shape(s, "      ", out);
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
		psa__stall_label(&w->stalls[s->root], many, label, sizeof(label));
		fprintf(out, "      root cause: %s\n", label);
	} else if (s->waiting_on_n || s->root >= 0) {
		fprintf(out, "      %s", s->failed ? "failed" : "waiting");
		if (s->waiting_on_n)
			fprintf(out, " on rank%s", s->waiting_on_n > 1 ? "s" : "");
		for (uint32_t k = 0; k < s->waiting_on_n; k++)
			fprintf(out, "%s %u", k ? "," : "", s->waiting_on[k]);
		if (s->root >= 0) {
			psa__stall_label(&w->stalls[s->root], many, label, sizeof(label));
			fprintf(out, " -> root cause: %s", label);
		} else if (!s->root_cause) {
			fprintf(out, " -> no root cause found in the trace");
		}
		fprintf(out, "\n");
	}
	if (s->uncertain)
		fprintf(out, "      uncertain: %s\n", unsure_text(s->unsure));
}

/* Whether a host's trace is lost (unreadable, or cut by a daemon's death: PSA_TRACE_LOST). */
static bool host_lost(const struct psa_integrity *in)
{
	for (size_t i = 0; in && i < in->n; i++)
		if (in->v[i].kind == PSA_TRACE_LOST)
			return true;
	return false;
}

/* Damaged streams and copied traces, found on disk. */
static void print_integrity(const struct psa_watchdog *w, FILE *out)
{
	const struct psa_integrity *in = w->integrity;
	char line[1400];

	for (size_t i = 0; in && i < in->n; i++) {
		psa_integrity_issue_str(&in->v[i], line, sizeof(line));
		fprintf(out, "%s %s\n", in->v[i].kind == PSA_TRACE_DUPLICATE ? "duplicate:" :
			in->v[i].kind == PSA_TRACE_LOST ? "lost:" : "damaged:", line);
	}
	if (host_lost(in))
		fprintf(out, "lost: no conclusion below is certain: what a lost host's ranks did can "
			     "make any task look stuck, or explain a stall\n");
	else if (in && in->damaged && !w->unread) /* nothing read: the verdict says so */
		fprintf(out, "damaged: no conclusion below is certain: the events missing from a damaged "
			     "stream (one CPU's) can make any task look stuck\n");
}

/* What the trace can and cannot tell at its level, and the level to record at. */
static void print_level(const struct psa_watchdog *w, FILE *out)
{
	if (w->level == PSA_LEVEL_WARNING_ONLY)
		fprintf(out, "level: this trace holds WARNING and ERR events only (recorded at "
			     "--loglevel warning): it shows the consumers' watchdog timeouts, injected "
			     "faults and failures, not the state changes, seam calls, ops and trigger "
			     "words a root cause rests on; record at --loglevel info (the default) or "
			     "debug to find it\n");
	else if (w->level == PSA_LEVEL_ERR_ONLY)
		fprintf(out, "level: this trace holds ERR events only (recorded at --loglevel err): it "
			     "shows failures, but a stall (a consumer's watchdog timeout is a WARNING "
			     "event) would not show in it; record at --loglevel info (the default)\n");
}

/* The one summary line when nothing is stalled: what the trace shows, said once. */
static void print_no_stall(const struct psa_watchdog *w, FILE *out)
{
	const char *over = w->opts.threshold_ns ? " and no state lasted longer than the threshold" : "";

	if (w->level == PSA_LEVEL_ERR_ONLY) {
		fprintf(out, "watchdog: inconclusive: no failure in the trace, and a stall would not "
			     "show at its level\n");
		return;
	}
	if (w->level == PSA_LEVEL_WARNING_ONLY) {
		fprintf(out, "watchdog: no stall: no consumer's watchdog fired and no task failed%s\n",
			w->unknown ? " in the events recorded" : "");
		return;
	}
	if (w->unread) {
		fprintf(out, "watchdog: inconclusive: not one proxyscope event could be read: the "
			     "trace is damaged (above), and what its damaged stream%s held is lost\n",
			w->integrity->damaged == 1 ? "" : "s");
		return;
	}
	if (host_lost(w->integrity)) {
		fprintf(out, "watchdog: inconclusive: nothing that was recorded shows a stall (no "
			     "consumer's watchdog fired, no task failed), but a host's trace is lost\n");
		return;
	}
	if (w->integrity && w->integrity->damaged) {
		fprintf(out, "watchdog: inconclusive: %zu task%s never reached DONE in the trace, but "
			     "nothing that was recorded shows a stall (no consumer's watchdog fired, no "
			     "task failed) and a stream is damaged\n",
			w->unknown, w->unknown == 1 ? "" : "s");
		return;
	}
	if (w->unknown) {
		fprintf(out, "watchdog: inconclusive: no task is shown stuck, but %zu task%s never "
			     "reached DONE in the trace and events were lost after %s last event: %s "
			     "fate is not in the trace (no consumer's watchdog fired on %s)\n",
			w->unknown, w->unknown == 1 ? "" : "s", w->unknown == 1 ? "its" : "their",
			w->unknown == 1 ? "its" : "their", w->unknown == 1 ? "it" : "them");
		if (w->ignored)
			fprintf(out, "          %zu more most likely finished: their rank finished later "
				     "execs\n", w->ignored);
		return;
	}
	if (w->ignored)
		fprintf(out, "watchdog: no stall: every task reached DONE%s, except %zu whose DONE was "
			     "most likely among the lost events (their rank finished later execs)\n",
			over, w->ignored);
	else
		fprintf(out, "watchdog: no stall: every task reached DONE%s\n", over);
}

/* Where the recording was cut, and the tasks that were in flight then (left out). */
static void print_cut(const struct psa_watchdog *w, const struct psa_model *m, FILE *out)
{
	const char *why = NULL;
	uint64_t cut = m ? psa_model_cut(m, &why) : 0;
	time_t sec = (time_t)(cut / 1000000000u);
	char when[32] = "?";
	struct tm tm;

	if (!cut)
		return;
	if (gmtime_r(&sec, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(out, "watchdog: the recording was cut at %s.%03u UTC (%s)", when,
		(unsigned)(cut % 1000000000u / 1000000u), why);
	if (w->cut_in_flight)
		fprintf(out, ": %zu task%s in flight when the recording stopped, left out",
			w->cut_in_flight, w->cut_in_flight == 1 ? "" : "s");
	fputc('\n', out);
}

void psa_watchdog_print(const struct psa_watchdog *w, const struct psa_model *m, FILE *out)
{
	size_t roots = 0, unexplained = 0, failed = 0, processes = 0, stalled;
	bool many = m && psa_model_hosts_many(m);

	print_integrity(w, out);
	print_level(w, out);
	if (w->unknown_start)
		fprintf(out, "watchdog: %zu unfinished task%s left out: state unknown at trace start (a "
			     "flight-recorder snapshot begins mid-run: their earlier events were "
			     "overwritten)\n",
			w->unknown_start, w->unknown_start == 1 ? "" : "s");
	if (!w->n) {
		print_cut(w, m, out);
		print_no_stall(w, out);
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
	if (w->ignored || w->unknown)
		fprintf(out, "          not counted: %zu unfinished task%s whose DONE was most likely "
			     "lost (their rank finished later execs), %zu whose fate is not in the trace "
			     "(events were lost after their last one, and nothing shows them stuck)\n",
			w->ignored, w->ignored == 1 ? "" : "s", w->unknown);
	print_roots(w, m, many, out);
	print_disagreements(w, out);
	print_cut(w, m, out); /* after the verdict and its roots: the first lines are the verdict */
	if (unexplained)
		fprintf(out, "unexplained: %zu stalled task%s lead to no root cause in the trace\n",
			unexplained, unexplained == 1 ? "" : "s");
	fprintf(out, "\nevidence:\n");
	if (w->opts.verbose || w->n <= PSA_EVIDENCE_FULL) {
		for (size_t i = 0; i < w->n; i++)
			psa__print_evidence(&w->stalls[i], w, many, out);
		return;
	}
	psa__print_evidence_grouped(w, many, out);
}
