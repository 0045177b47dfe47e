/* SPDX-License-Identifier: MIT */
/*
 * What a run and a recording left, printed (print_run.h): the tally of a recording, the
 * processes of a --procs run that did not exit normally (text and JSON), and the hosts of a
 * --hosts run. The facts come from ctl/ (trace_tally.h, run_procs.h, run_hosts.h), which
 * never prints. Past PRINT_RUN_FULL groups or processes, the trace's overview is a summary
 * with the outliers (the stuck and the busiest workers, the groups unlike the rest), so a
 * run of thousands of ranks fits a screen; --verbose prints the whole overview instead.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli_util.h"
#include "print_run.h"

void print_tally_empty(const char *cmd, const struct psa_integrity *in)
{
	char line[1400];

	/* a damaged stream explains it: the events were recorded, and lost to the damage */
	for (size_t i = 0; in && i < in->n; i++) {
		if (in->v[i].kind == PSA_TRACE_DUPLICATE)
			continue;
		psa_integrity_issue_str(&in->v[i], line, sizeof(line));
		fprintf(stderr, "warning: not one proxyscope event could be read: damaged: %s%s\n",
			line, in->damaged > 1 ? "; and more" : "");
		return;
	}
	fprintf(stderr, "warning: no proxyscope events were recorded: %s did not load libproxyscope, "
		"or its probe library was not found\n", cmd);
}

bool print_tally(const struct trace_tally *t, const char *cmd, const char *buffers,
		 const struct psa_integrity *in, FILE *out)
{
	if (!t->ours) {
		print_tally_empty(cmd, in);
		return false;
	}
	fprintf(out, "events:      %" PRIu64 " recorded%s, %" PRIu64 " lost (%.2f %%)", t->ours,
		t->snapshot ? " (the flight recorder's window: older ones overwritten)" : "",
		t->lost_events, 100.0 * trace_tally_loss(t));
	if (t->lost_packets)
		fprintf(out, ", %" PRIu64 " packet%s %s", t->lost_packets,
			t->lost_packets == 1 ? "" : "s",
			t->snapshot ? "overwritten (flight recorder)" : "lost");
	if (buffers)
		fprintf(out, "; buffers %s", buffers);
	fputc('\n', out);
	if (t->lost_events)
		fprintf(out, "             the tracer's buffers filled up: a larger --buffer-size "
			"keeps more\n");
	return true;
}

void print_procs(const struct run_procs *rp, const struct enc_wl_args *args, bool all,
		 FILE *out)
{
	uint32_t shown = 0, more = 0;

	for (uint32_t i = 0; i < rp->n; i++) {
		int st = rp->status[i];
		uint32_t first, count;

		if (WIFEXITED(st) && WEXITSTATUS(st) <= 1)
			continue;
		if (!all && shown == PRINT_RUN_FEW) {
			more++;
			continue;
		}
		shown++;
		enc_wl_proc_ranks(args, i, &first, &count);
		fprintf(out, "process %" PRIu32 " (pid %d, ranks %" PRIu32 "..%" PRIu32 ") ", i,
			(int)rp->pid[i], first, first + count - 1);
		if (rp->killed[i])
			fprintf(out, "was still running long after another process died (stuck, "
				"e.g. inside the provider): killed by proxyscope\n");
		else if (WIFSIGNALED(st))
			fprintf(out, "died: killed by signal %d (%s)\n", WTERMSIG(st),
				strsignal(WTERMSIG(st)));
		else
			fprintf(out, "exited with status %d\n", WEXITSTATUS(st));
	}
	if (more)
		fprintf(out, "and %" PRIu32 " more process%s that did not exit normally (--verbose: "
			"every one)\n", more, more == 1 ? "" : "es");
}

void print_procs_json(struct jw *j, const struct run_procs *rp,
		      const struct enc_wl_args *args)
{
	jw_key(j, "processes");
	jw_begin_array(j);
	for (uint32_t i = 0; i < rp->n; i++) {
		int st = rp->status[i];
		uint32_t first, count;

		enc_wl_proc_ranks(args, i, &first, &count);
		jw_begin_object(j);
		jw_key(j, "index");
		jw_u64(j, i);
		jw_key(j, "pid");
		jw_u64(j, (uint64_t)rp->pid[i]);
		jw_key(j, "first_rank");
		jw_u64(j, first);
		jw_key(j, "last_rank");
		jw_u64(j, first + count - 1);
		jw_key(j, "exit_status");
		if (WIFEXITED(st))
			jw_u64(j, (uint64_t)WEXITSTATUS(st));
		else
			jw_null(j);
		jw_key(j, "signal");
		if (WIFSIGNALED(st))
			jw_u64(j, (uint64_t)WTERMSIG(st));
		else
			jw_null(j);
		jw_key(j, "reported");
		jw_bool(j, rp->reported[i]);
		jw_key(j, "killed_by_proxyscope");
		jw_bool(j, rp->killed[i]);
		jw_end_object(j);
	}
	jw_end_array(j);
}


void print_hosts(const struct run_hosts *rh, bool all, FILE *out)
{
	uint32_t per = rh->procs / rh->hosts, shown = 0, more = 0;

	fprintf(out, "hosts:       %" PRIu32 " (", rh->hosts);
	for (uint32_t i = 0; i < rh->hosts; i++)
		fprintf(out, "%shost%" PRIu32 ": processes %" PRIu32 "-%" PRIu32, i ? ", " : "", i,
			i * per, (i + 1) * per - 1);
	fputs("), started by mpirun\n", out);
	for (uint32_t p = 0; p < rh->procs; p++) {
		if (rh->proc && rh->proc[p].seen)
			continue;
		if (!all && shown == PRINT_RUN_FEW) {
			more++;
			continue;
		}
		shown++;
		fprintf(out, "process %" PRIu32 " (host%" PRIu32 "): left no result\n", p, p / per);
	}
	if (more)
		fprintf(out, "and %" PRIu32 " more process%s left no result (--verbose: every one)\n",
			more, more == 1 ? "" : "es");
	for (unsigned i = 0; i < rh->lost; i++) /* a daemon of the recording died mid-run */
		fprintf(out, "trace lost:  %s\n", rh->lost_line[i]);
	if (rh->launcher_stopped)
		fprintf(out, "mpirun ran on after the job's processes were gone, or with some of "
			"them stuck: stopped\n");
	else if (rh->launcher_status)
		fprintf(out, "mpirun exited with status %d\n", rh->launcher_status);
}

/* "12.3 ms", "4.56 s": a measured time, rounded (cli_format_duration is exact, too long here). */
static void fmt_time(uint64_t ns, char *buf, size_t len)
{
	if (ns >= UINT64_C(1000000000))
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	else
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
}

bool print_run_is_large(const struct enc_wl_args *a)
{
	uint32_t per = a->ranks_per_proxy ? a->ranks_per_proxy : 1;
	uint64_t groups = ((uint64_t)a->ranks + per - 1) / per;

	return groups > PRINT_RUN_FULL || (a->procs ? a->procs : 1) > PRINT_RUN_FULL;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One worker as `report`'s overview prints it (psa_overview_print), so --verbose and the
 * summary's outliers read alike; @why says why a summary shows it. */
static void worker_line(const struct psa_model *m, const struct psa_worker *w, const char *why,
			FILE *out)
{
	uint64_t total = w->active_ns + w->idle_ns + w->sleep_ns;
	char name[32], a[16], s[16];

	psa_worker_name(w, name, sizeof(name));
	fmt_time(w->active_ns, a, sizeof(a));
	fmt_time(w->sleep_ns, s, sizeof(s));
	fprintf(out, "  %-14s pid %-7" PRIu32 "%s%s gid %-3" PRIu32 " active %9s (%3.0f%%)  "
		"sleeping %9s (%3.0f%%)  [%s]\n", name, w->proc->vpid,
		psa_model_hosts_many(m) ? " on " : "", psa_model_hosts_many(m) ? w->proc->host : "",
		w->gid, a, share(w->active_ns, total), s, share(w->sleep_ns, total), why);
}

/* Whether @w serves the gid of a root cause's task (a death's root stands for a process). */
static bool serves_root(const struct psa_watchdog *wd, const struct psa_worker *w)
{
	size_t n;
	const struct psa_stall *s = wd ? psa_watchdog_stalls(wd, &n) : NULL;

	for (size_t i = 0; s && i < n; i++)
		if (s[i].root_cause && !s[i].process && s[i].proc == w->proc->id &&
		    s[i].gid == w->gid)
			return true;
	return false;
}

/* The index of the most active worker not yet in @shown[]. */
static size_t most_active(const struct psa_worker *const *w, size_t n, const bool *shown)
{
	size_t best = n;

	for (size_t k = 0; k < n; k++)
		if (!shown[k] && (best == n || w[k]->active_ns > w[best]->active_ns))
			best = k;
	return best;
}

/* Show up to PRINT_RUN_FEW of the workers not shown yet that @pick says: how many it showed. */
static size_t show_workers(const struct psa_model *m, const struct psa_watchdog *wd,
			   const struct psa_worker *const *w, size_t n, bool *shown, int pick,
			   FILE *out)
{
	static const char *const why[] = { "root cause's worker", "running at the end" };
	size_t listed = 0;

	for (size_t k = 0; k < n && listed < PRINT_RUN_FEW; k++) {
		bool hit = pick == 0 ? serves_root(wd, w[k]) : !w[k]->end_ts;

		if (shown[k] || !hit)
			continue;
		worker_line(m, w[k], why[pick], out);
		shown[k] = true;
		listed++;
	}
	return listed;
}

/*
 * The workers as a summary: those serving a root cause, the stuck ones (running at the end)
 * and the busiest, a few of each, then how many others there are and their active time.
 */
static void summary_workers(const struct psa_model *m, const struct psa_watchdog *wd, FILE *out)
{
	size_t n, stuck = 0, listed;
	const struct psa_worker *const *w = psa_model_workers(m, &n);
	uint64_t lo = UINT64_MAX, hi = 0;
	char a[16], b[16];
	bool *shown = n ? calloc(n, sizeof(*shown)) : NULL;

	for (size_t k = 0; k < n; k++)
		stuck += !w[k]->end_ts;
	fprintf(out, "workers:    %zu, %zu running at the end (below: the root causes', the stuck, "
		"the busiest)\n", n, stuck);
	if (n && !shown) /* out of memory: the counts alone */
		return;
	listed = show_workers(m, wd, w, n, shown, 0, out);
	listed += show_workers(m, wd, w, n, shown, 1, out);
	for (int i = 0; i < PRINT_RUN_FEW; i++) {
		size_t k = most_active(w, n, shown);

		if (k == n)
			break;
		worker_line(m, w[k], w[k]->end_ts ? "busiest" : "busiest, running at the end",
			    out);
		shown[k] = true;
		listed++;
	}
	stuck = 0;
	for (size_t k = 0; k < n; k++)
		if (!shown[k]) {
			lo = w[k]->active_ns < lo ? w[k]->active_ns : lo;
			hi = w[k]->active_ns > hi ? w[k]->active_ns : hi;
			stuck += !w[k]->end_ts;
		}
	if (listed < n) {
		fmt_time(lo, a, sizeof(a));
		fmt_time(hi, b, sizeof(b));
		fprintf(out, "  and %zu others (%zu of them running at the end), active %s to %s "
			"(--verbose: every one)\n", n - listed, stuck, a, b);
	}
	free(shown);
}

static bool group_alike(const struct psa_group *x, const struct psa_group *y)
{
	return x->refcnt_max == y->refcnt_max && x->creates == y->creates &&
	       x->shares == y->shares && x->releases == y->releases && x->destroys == y->destroys;
}

static void group_line(const struct psa_group *g, FILE *out)
{
	fprintf(out, "  gid %-4" PRIu32 " pid %-7" PRIu32 " %" PRIu32 " comm%s at most (create %"
		PRIu32 ", share %" PRIu32 ", release %" PRIu32 ", destroy %" PRIu32 ")\n", g->gid,
		g->proc->vpid, g->refcnt_max, g->refcnt_max == 1 ? "" : "s", g->creates,
		g->shares, g->releases, g->destroys);
}

/* The groups as a summary: what most of them show, and the few that differ. */
static void summary_groups(const struct psa_model *m, FILE *out)
{
	size_t n, common = 0, best = 0, odd = 0;
	const struct psa_group *const *g = psa_model_groups(m, &n);

	for (size_t k = 0; k < n; k++) { /* the most common shape (n is a few hundred at most) */
		size_t alike = 0;

		for (size_t i = 0; i < n; i++)
			alike += group_alike(g[k], g[i]);
		if (alike > common) {
			common = alike;
			best = k;
		}
	}
	fprintf(out, "groups:     %zu", n);
	if (!n) {
		fputc('\n', out);
		return;
	}
	fprintf(out, ", %zu alike: %" PRIu32 " comm%s at most (create %" PRIu32 ", share %" PRIu32
		", release %" PRIu32 ", destroy %" PRIu32 ")\n", common, g[best]->refcnt_max,
		g[best]->refcnt_max == 1 ? "" : "s", g[best]->creates, g[best]->shares,
		g[best]->releases, g[best]->destroys);
	for (size_t k = 0; k < n; k++)
		if (!group_alike(g[k], g[best]) && odd++ < PRINT_RUN_FEW)
			group_line(g[k], out);
	if (odd > PRINT_RUN_FEW)
		fprintf(out, "  and %zu others unlike the rest (--verbose: every group)\n",
			odd - PRINT_RUN_FEW);
}

bool print_model_is_large(const struct psa_model *m)
{
	size_t ng, np;

	psa_model_groups(m, &ng);
	psa_model_procs(m, &np);
	return ng > PRINT_RUN_FULL || np > PRINT_RUN_FULL;
}

void print_workers_groups_summary(const struct psa_model *m, const struct psa_watchdog *wd,
				  FILE *out)
{
	summary_workers(m, wd, out);
	summary_groups(m, out);
}

void print_overview_summary(const struct psa_model *m, const struct psa_watchdog *wd, FILE *out)
{
	struct psa_model_totals tot;
	size_t np;
	const struct psa_proc *const *p = psa_model_procs(m, &np);
	char span[16];

	psa_model_totals(m, &tot);
	fmt_time(tot.last_ts > tot.first_ts ? tot.last_ts - tot.first_ts : 0, span, sizeof(span));
	fprintf(out, "span:       %s of trace\n", span);
	fprintf(out, "processes:  %zu\n", np);
	for (size_t i = 0; i < np && i < PRINT_RUN_FEW; i++)
		fprintf(out, "  pid %-7" PRIu32 " %-16s on %s\n", p[i]->vpid,
			p[i]->procname[0] ? p[i]->procname : "?", p[i]->host[0] ? p[i]->host : "?");
	if (np > PRINT_RUN_FEW)
		fprintf(out, "  and %zu more (--verbose: every one)\n", np - PRINT_RUN_FEW);
	fprintf(out, "tasks:      %" PRIu64 " seen, %" PRIu64 " done, %" PRIu64 " open at the end\n",
		tot.tasks, tot.tasks_done, tot.tasks - tot.tasks_done);
	print_workers_groups_summary(m, wd, out);
}
