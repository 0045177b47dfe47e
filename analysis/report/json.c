/* SPDX-License-Identifier: MIT */
/*
 * The reports as JSON (psa_report_json.h, docs/json-schema.md).
 *
 * Design choice: numbers are integers in ns and timestamps are ns since the Unix epoch as the
 * trace gives them (no rebasing, no float), an unknown value is null rather than 0, and enums
 * are the names the human reports print (states, kinds) or snake_case words (causes); so a
 * script can join a stall to a timeline row by (pid, task_id) and both agree with the text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <proxyscope/psa_report_json.h>

static const char *const seam_short[PSA_SEAM_NR] = { "B1", "B2", "B3" };

static const struct psa_proc *proc_by_id(const struct psa_model *m, unsigned id)
{
	size_t n;
	const struct psa_proc *const *p = psa_model_procs(m, &n);

	return id < n ? p[id] : NULL;
}

static void discards(struct jw *j, const struct psa_model *m)
{
	struct psa_model_totals tot;
	size_t n;
	const struct psa_discard *d = psa_model_discards(m, &n);

	psa_model_totals(m, &tot);
	jw_key(j, "lost");
	jw_begin_object(j);
	jw_key_u64(j, "events", tot.discarded_events);
	jw_key_u64(j, "packets", tot.discarded_packets);
	jw_key(j, "reports");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		jw_key_string(j, "what", d[i].packets ? "packets" : "events");
		jw_key_u64(j, "count", d[i].count);
		jw_key_opt_u64(j, "begin_ts", d[i].begin_ns != 0, d[i].begin_ns);
		jw_key_opt_u64(j, "end_ts", d[i].end_ns != 0, d[i].end_ns);
		jw_key_string(j, "host", d[i].host);
		jw_key_string(j, "trace", d[i].trace);
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_end_object(j);
}

/* How much of the trace was read: everything, or a tail-first verdict's final window. */
static void read_amount(struct jw *j, const struct psa_report_input *in)
{
	jw_key(j, "read");
	jw_begin_object(j);
	jw_key_bool(j, "whole", in->rs.window_ns == 0);
	jw_key_u64(j, "bytes", in->rs.bytes_read);
	jw_key_u64(j, "bytes_total", in->rs.bytes_total);
	jw_key_opt_u64(j, "window_ns", in->rs.window_ns != 0, in->rs.window_ns);
	jw_key_u64(j, "reads", in->tail_reads ? in->tail_reads : 1);
	jw_end_object(j);
}

void psa_report_json_input(struct jw *j, const struct psa_report *c, char *const *paths,
		       size_t n)
{
	jw_key(j, "input");
	jw_begin_object(j);
	jw_key_string(j, "format", c->in.text ? "babeltrace2-text" : "ctf");
	jw_key(j, "paths");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		jw_string(j, paths[i]);
	jw_end_array(j);
	jw_key_opt_u64(j, "traces", !c->in.text, c->in.rs.traces);
	jw_key_opt_u64(j, "lines", c->in.text, c->in.rs.lines);
	jw_key_u64(j, "events", c->in.rs.events);
	jw_key_u64(j, "unknown_events", c->in.rs.unknown_events);
	jw_key_u64(j, "other_process_events", c->in.filtered);
	{
		struct psa_model_totals tot;

		psa_model_totals(c->m, &tot);
		jw_key_u64(j, "duplicate_events", tot.duplicates);
	}
	discards(j, c->m);
	if (!c->in.text)
		read_amount(j, &c->in);
	jw_end_object(j);
}

static void procs(struct jw *j, const struct psa_model *m)
{
	size_t n;
	const struct psa_proc *const *p = psa_model_procs(m, &n);

	jw_key(j, "processes");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		jw_key_u64(j, "proc", p[i]->id);
		jw_key_u64(j, "pid", p[i]->vpid);
		jw_key_string(j, "host", p[i]->host);
		jw_key_string(j, "procname", p[i]->procname);
		jw_end_object(j);
	}
	jw_end_array(j);
}

static void workers(struct jw *j, const struct psa_model *m)
{
	size_t n;
	const struct psa_worker *const *w = psa_model_workers(m, &n);
	char name[32];

	jw_key(j, "workers");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		psa_worker_name(w[i], name, sizeof(name));
		jw_begin_object(j);
		jw_key_string(j, "name", name);
		jw_key_u64(j, "proc", w[i]->proc->id);
		jw_key_u64(j, "pid", w[i]->proc->vpid);
		jw_key_string(j, "host", w[i]->proc->host);
		jw_key_u64(j, "tid", w[i]->vtid);
		jw_key_u64(j, "gid", w[i]->gid);
		jw_key_u64(j, "active_ns", w[i]->active_ns);
		jw_key_u64(j, "idle_ns", w[i]->idle_ns);
		jw_key_bool(j, "idle_recorded", w[i]->idle_recorded);
		jw_key_u64(j, "sleep_ns", w[i]->sleep_ns);
		jw_key_u64(j, "begin_ts", w[i]->begin_ts);
		jw_key_opt_u64(j, "end_ts", w[i]->end_ts != 0, w[i]->end_ts);
		jw_key_u64(j, "events", w[i]->steps_seen);
		jw_end_object(j);
	}
	jw_end_array(j);
}

static void groups(struct jw *j, const struct psa_report *c)
{
	size_t n;
	const struct psa_group *const *g = psa_model_groups(c->m, &n);
	uint32_t ranks[PSA_OVERVIEW_RANKS];

	jw_key(j, "groups");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		size_t nr = psa_overview_group_ranks(c->overview, g[i]->proc->id, g[i]->gid, ranks,
						     PSA_OVERVIEW_RANKS);

		jw_begin_object(j);
		jw_key_u64(j, "gid", g[i]->gid);
		jw_key_u64(j, "proc", g[i]->proc->id);
		jw_key_u64(j, "pid", g[i]->proc->vpid);
		jw_key_string(j, "host", g[i]->proc->host);
		jw_key_u64(j, "comms_max", g[i]->refcnt_max);
		jw_key_u64(j, "comms_at_end", g[i]->refcnt);
		jw_key_u64(j, "creates", g[i]->creates);
		jw_key_u64(j, "shares", g[i]->shares);
		jw_key_u64(j, "releases", g[i]->releases);
		jw_key_u64(j, "destroys", g[i]->destroys);
		jw_key(j, "ranks");
		jw_begin_array(j);
		for (size_t k = 0; k < nr && k < PSA_OVERVIEW_RANKS; k++)
			jw_u64(j, ranks[k]);
		jw_end_array(j);
		jw_end_object(j);
	}
	jw_end_array(j);
}

void psa_report_json_overview(struct jw *j, const struct psa_report *c)
{
	struct psa_model_totals tot;

	psa_model_totals(c->m, &tot);
	jw_key(j, "overview");
	jw_begin_object(j);
	jw_key_u64(j, "first_ts", tot.first_ts);
	jw_key_u64(j, "last_ts", tot.last_ts);
	jw_key_u64(j, "span_ns", tot.last_ts > tot.first_ts ? tot.last_ts - tot.first_ts : 0);
	procs(j, c->m);
	jw_key(j, "events");
	jw_begin_object(j);
	jw_key_u64(j, "read", tot.events);
	jw_key_u64(j, "proxyscope", tot.our_events);
	jw_key_bool(j, "debug_level", tot.debug_events);
	jw_key_u64(j, "lost_events", tot.discarded_events);
	jw_key_u64(j, "lost_packets", tot.discarded_packets);
	jw_end_object(j);
	jw_key(j, "tasks");
	jw_begin_object(j);
	jw_key_u64(j, "seen", tot.tasks);
	jw_key_u64(j, "done", tot.tasks_done);
	jw_key_u64(j, "open", tot.tasks - tot.tasks_done);
	jw_end_object(j);
	workers(j, c->m);
	groups(j, c);
	jw_end_object(j);
}

static void hist(struct jw *j, const char *key, const struct psa_hist *h)
{
	bool any = !psa_hist_is_empty(h);

	jw_key(j, key);
	jw_begin_object(j);
	jw_key_u64(j, "count", h->count);
	jw_key_opt_u64(j, "min_ns", any, h->min);
	jw_key_opt_u64(j, "p50_ns", any, psa_hist_quantile(h, 0.50));
	jw_key_opt_u64(j, "p90_ns", any, psa_hist_quantile(h, 0.90));
	jw_key_opt_u64(j, "p99_ns", any, psa_hist_quantile(h, 0.99));
	jw_key_opt_u64(j, "max_ns", any, h->max);
	jw_key_opt_u64(j, "mean_ns", any, psa_hist_mean(h));
	jw_key_u64(j, "sum_ns", h->sum);
	jw_end_object(j);
}

void psa_report_json_stats(struct jw *j, const struct psa_stats *s, bool per_rank)
{
	size_t n = psa_stats_rank_count(s);

	jw_key(j, "stats");
	jw_begin_object(j);
	jw_key(j, "relative_error");
	jw_double(j, PSA_HIST_REL_ERROR);
	jw_key_u64(j, "open_intervals", psa_stats_open_intervals(s));
	jw_key(j, "overall");
	jw_begin_object(j);
	for (int m = 0; m < PSA_METRIC_NR; m++)
		hist(j, psa_metric_str((enum psa_metric)m), psa_stats_overall(s, (enum psa_metric)m));
	jw_end_object(j);
	jw_key(j, "ranks");
	jw_begin_array(j);
	for (size_t i = 0; per_rank && i < n; i++) {
		uint32_t rank = psa_stats_rank_at(s, i);

		jw_begin_object(j);
		jw_key_u64(j, "rank", rank);
		for (int m = 0; m < PSA_METRIC_NR; m++)
			hist(j, psa_metric_str((enum psa_metric)m),
			     psa_stats_rank(s, rank, (enum psa_metric)m));
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_end_object(j);
}

static void filter_json(struct jw *j, const struct psa_timeline_filter *f)
{
	jw_key(j, "filter");
	jw_begin_object(j);
	jw_key_opt_u64(j, "rank", f->has_rank, f->rank);
	jw_key_opt_u64(j, "gid", f->has_gid, f->gid);
	jw_key_opt_u64(j, "exec_id", f->has_exec, f->exec_id);
	jw_key(j, "kind");
	if (f->has_kind)
		jw_string(j, psa_kind_str(f->kind));
	else
		jw_null(j);
	jw_end_object(j);
}

static void row_json(struct jw *j, const struct psa_model *m, const struct psa_timeline_row *r)
{
	const struct psa_proc *p = proc_by_id(m, r->proc);
	uint64_t lat = 0;
	bool has_lat = psa_timeline_row_latency(r, &lat);

	jw_begin_object(j);
	jw_key_u64(j, "proc", r->proc);
	jw_key_u64(j, "pid", p ? p->vpid : 0);
	jw_key_string(j, "host", p ? p->host : "");
	jw_key_u64(j, "rank", r->rank);
	jw_key_u64(j, "gid", r->gid);
	jw_key_u64(j, "exec_id", r->exec_id);
	jw_key_string(j, "kind", psa_kind_str(r->kind));
	jw_key_u64(j, "task_id", r->task_id);
	jw_key_u64(j, "first_ts", r->first_ts);
	jw_key_opt_u64(j, "enqueue_ts", r->enqueue_ts != 0, r->enqueue_ts);
	jw_key_opt_u64(j, "done_ts", r->done_ts != 0, r->done_ts);
	jw_key_opt_u64(j, "latency_ns", has_lat, lat);
	jw_key(j, "state_ns");
	jw_begin_object(j);
	for (int s = 0; s < PSA_TIMELINE_STATES; s++)
		jw_key_u64(j, psa_state_str((uint32_t)s), r->state_ns[s]);
	jw_end_object(j);
	jw_key(j, "seam_calls");
	jw_begin_object(j);
	for (int s = 0; s < PSA_SEAM_NR; s++)
		jw_key_u64(j, seam_short[s], r->seam_n[s]);
	jw_end_object(j);
	jw_key_opt_u64(j, "trigger_wait_ns", r->flags & PSA_ROW_TRIGGERED, r->trigger_wait_ns);
	jw_key_i64(j, "status", r->status);
	jw_key_string(j, "state", psa_state_str(r->state));
	jw_key_bool(j, "done", r->flags & PSA_ROW_DONE);
	jw_key_bool(j, "failed", r->flags & PSA_ROW_FAILED);
	jw_key_bool(j, "watchdog_fired", r->flags & PSA_ROW_WATCHDOG);
	jw_key_bool(j, "truncated", r->flags & PSA_ROW_TRUNCATED);
	jw_end_object(j);
}

void psa_report_json_timeline(struct jw *j, const struct psa_report *c,
			  const struct psa_timeline_filter *f)
{
	size_t n;
	const struct psa_timeline_row *rows = psa_timeline_rows(c->timeline, &n);

	jw_key(j, "timeline");
	jw_begin_object(j);
	filter_json(j, f);
	jw_key_u64(j, "tasks_seen", psa_timeline_tasks_seen(c->timeline));
	jw_key_u64(j, "tasks_shown", n);
	jw_key_bool(j, "complete", psa_timeline_status(c->timeline) == 0);
	jw_key(j, "tasks");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		row_json(j, c->m, &rows[i]);
	jw_end_array(j);
	jw_end_object(j);
}

