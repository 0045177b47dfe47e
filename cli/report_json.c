/* SPDX-License-Identifier: MIT */
/*
 * The reports as JSON (see report_json.h and docs/json-schema.md).
 *
 * Design choice: numbers are integers in ns and timestamps are ns since the Unix epoch as the
 * trace gives them (no rebasing, no float), an unknown value is null rather than 0, and enums
 * are the names the human reports print (states, kinds) or snake_case words (causes); so a
 * script can join a stall to a timeline row by (pid, task_id) and both agree with the text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_json.h"

static const char *const seam_short[PSA_SEAM_NR] = { "B1", "B2", "B3" };

static void u64_member(struct jw *j, const char *key, uint64_t v)
{
	jw_key(j, key);
	jw_u64(j, v);
}

static void i64_member(struct jw *j, const char *key, int64_t v)
{
	jw_key(j, key);
	jw_i64(j, v);
}

static void str_member(struct jw *j, const char *key, const char *v)
{
	jw_key(j, key);
	jw_string(j, v);
}

static void bool_member(struct jw *j, const char *key, bool v)
{
	jw_key(j, key);
	jw_bool(j, v);
}

/* A value that may be unknown: null when !known. */
static void opt_u64_member(struct jw *j, const char *key, bool known, uint64_t v)
{
	jw_key(j, key);
	if (known)
		jw_u64(j, v);
	else
		jw_null(j);
}

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
	u64_member(j, "events", tot.discarded_events);
	u64_member(j, "packets", tot.discarded_packets);
	jw_key(j, "reports");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		str_member(j, "what", d[i].packets ? "packets" : "events");
		u64_member(j, "count", d[i].count);
		opt_u64_member(j, "begin_ts", d[i].begin_ns != 0, d[i].begin_ns);
		opt_u64_member(j, "end_ts", d[i].end_ns != 0, d[i].end_ns);
		str_member(j, "host", d[i].host);
		str_member(j, "trace", d[i].trace);
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_end_object(j);
}

void report_json_begin(struct jw *j, const char *command, const struct psa_report *c,
		       const struct report_args *a)
{
	jw_init(j, stdout);
	cli_json_begin_document(j);
	str_member(j, "command", command);
	report_json_input(j, c, a->paths, a->n);
	report_json_clocks(j, c);
}

void report_json_clocks(struct jw *j, const struct psa_report *c)
{
	const struct psa_clock_host *h;
	size_t n = 0;

	h = c->clock ? psa_clock_hosts(c->clock, &n) : NULL;
	if (n < 2)
		return;
	jw_key(j, "clocks");
	jw_begin_object(j);
	str_member(j, "reference", h[0].host);
	jw_key(j, "corrected");
	jw_bool(j, c->clock_applied);
	jw_key(j, "hosts");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		str_member(j, "host", h[i].host);
		str_member(j, "state", psa_clock_state_str(h[i].state));
		jw_key(j, "offset_ns");
		jw_i64(j, h[i].offset_ns);
		jw_key(j, "bound_ns");
		if (h[i].bound_ns >= 0)
			jw_i64(j, h[i].bound_ns);
		else
			jw_null(j);
		jw_key(j, "allowed_min_ns");
		if (h[i].has_lo && i)
			jw_i64(j, h[i].lo_ns);
		else
			jw_null(j);
		jw_key(j, "allowed_max_ns");
		if (h[i].has_hi && i)
			jw_i64(j, h[i].hi_ns);
		else
			jw_null(j);
		jw_key(j, "pairs");
		jw_u64(j, h[i].pairs);
		jw_key(j, "applied");
		jw_bool(j, c->clock_applied && h[i].state == PSA_CLOCK_CORRECTED);
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_end_object(j);
}

void report_json_end(struct jw *j)
{
	jw_end_object(j);
	jw_finish(j);
}

void report_json_input(struct jw *j, const struct psa_report *c, char *const *paths,
		       size_t n)
{
	jw_key(j, "input");
	jw_begin_object(j);
	str_member(j, "format", c->in.text ? "babeltrace2-text" : "ctf");
	jw_key(j, "paths");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		jw_string(j, paths[i]);
	jw_end_array(j);
	opt_u64_member(j, "traces", !c->in.text, c->in.rs.traces);
	opt_u64_member(j, "lines", c->in.text, c->in.rs.lines);
	u64_member(j, "events", c->in.rs.events);
	u64_member(j, "unknown_events", c->in.rs.unknown_events);
	u64_member(j, "other_process_events", c->in.filtered);
	{
		struct psa_model_totals tot;

		psa_model_totals(c->m, &tot);
		u64_member(j, "duplicate_events", tot.duplicates);
	}
	discards(j, c->m);
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
		u64_member(j, "proc", p[i]->id);
		u64_member(j, "pid", p[i]->vpid);
		str_member(j, "host", p[i]->host);
		str_member(j, "procname", p[i]->procname);
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
		str_member(j, "name", name);
		u64_member(j, "proc", w[i]->proc->id);
		u64_member(j, "pid", w[i]->proc->vpid);
		str_member(j, "host", w[i]->proc->host);
		u64_member(j, "tid", w[i]->vtid);
		u64_member(j, "gid", w[i]->gid);
		u64_member(j, "active_ns", w[i]->active_ns);
		u64_member(j, "idle_ns", w[i]->idle_ns);
		bool_member(j, "idle_recorded", w[i]->idle_recorded);
		u64_member(j, "sleep_ns", w[i]->sleep_ns);
		u64_member(j, "begin_ts", w[i]->begin_ts);
		opt_u64_member(j, "end_ts", w[i]->end_ts != 0, w[i]->end_ts);
		u64_member(j, "events", w[i]->steps_seen);
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
		u64_member(j, "gid", g[i]->gid);
		u64_member(j, "proc", g[i]->proc->id);
		u64_member(j, "pid", g[i]->proc->vpid);
		str_member(j, "host", g[i]->proc->host);
		u64_member(j, "comms_max", g[i]->refcnt_max);
		u64_member(j, "comms_at_end", g[i]->refcnt);
		u64_member(j, "creates", g[i]->creates);
		u64_member(j, "shares", g[i]->shares);
		u64_member(j, "releases", g[i]->releases);
		u64_member(j, "destroys", g[i]->destroys);
		jw_key(j, "ranks");
		jw_begin_array(j);
		for (size_t k = 0; k < nr && k < PSA_OVERVIEW_RANKS; k++)
			jw_u64(j, ranks[k]);
		jw_end_array(j);
		jw_end_object(j);
	}
	jw_end_array(j);
}

void report_json_overview(struct jw *j, const struct psa_report *c)
{
	struct psa_model_totals tot;

	psa_model_totals(c->m, &tot);
	jw_key(j, "overview");
	jw_begin_object(j);
	u64_member(j, "first_ts", tot.first_ts);
	u64_member(j, "last_ts", tot.last_ts);
	u64_member(j, "span_ns", tot.last_ts > tot.first_ts ? tot.last_ts - tot.first_ts : 0);
	procs(j, c->m);
	jw_key(j, "events");
	jw_begin_object(j);
	u64_member(j, "read", tot.events);
	u64_member(j, "proxyscope", tot.our_events);
	bool_member(j, "debug_level", tot.debug_events);
	u64_member(j, "lost_events", tot.discarded_events);
	u64_member(j, "lost_packets", tot.discarded_packets);
	jw_end_object(j);
	jw_key(j, "tasks");
	jw_begin_object(j);
	u64_member(j, "seen", tot.tasks);
	u64_member(j, "done", tot.tasks_done);
	u64_member(j, "open", tot.tasks - tot.tasks_done);
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
	u64_member(j, "count", h->count);
	opt_u64_member(j, "min_ns", any, h->min);
	opt_u64_member(j, "p50_ns", any, psa_hist_quantile(h, 0.50));
	opt_u64_member(j, "p90_ns", any, psa_hist_quantile(h, 0.90));
	opt_u64_member(j, "p99_ns", any, psa_hist_quantile(h, 0.99));
	opt_u64_member(j, "max_ns", any, h->max);
	opt_u64_member(j, "mean_ns", any, psa_hist_mean(h));
	u64_member(j, "sum_ns", h->sum);
	jw_end_object(j);
}

void report_json_stats(struct jw *j, const struct psa_stats *s, bool per_rank)
{
	size_t n = psa_stats_rank_count(s);

	jw_key(j, "stats");
	jw_begin_object(j);
	jw_key(j, "relative_error");
	jw_double(j, PSA_HIST_REL_ERROR);
	u64_member(j, "open_intervals", psa_stats_open_intervals(s));
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
		u64_member(j, "rank", rank);
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
	opt_u64_member(j, "rank", f->has_rank, f->rank);
	opt_u64_member(j, "gid", f->has_gid, f->gid);
	opt_u64_member(j, "exec_id", f->has_exec, f->exec_id);
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
	u64_member(j, "proc", r->proc);
	u64_member(j, "pid", p ? p->vpid : 0);
	str_member(j, "host", p ? p->host : "");
	u64_member(j, "rank", r->rank);
	u64_member(j, "gid", r->gid);
	u64_member(j, "exec_id", r->exec_id);
	str_member(j, "kind", psa_kind_str(r->kind));
	u64_member(j, "task_id", r->task_id);
	u64_member(j, "first_ts", r->first_ts);
	opt_u64_member(j, "enqueue_ts", r->enqueue_ts != 0, r->enqueue_ts);
	opt_u64_member(j, "done_ts", r->done_ts != 0, r->done_ts);
	opt_u64_member(j, "latency_ns", has_lat, lat);
	jw_key(j, "state_ns");
	jw_begin_object(j);
	for (int s = 0; s < PSA_TIMELINE_STATES; s++)
		u64_member(j, psa_state_str((uint32_t)s), r->state_ns[s]);
	jw_end_object(j);
	jw_key(j, "seam_calls");
	jw_begin_object(j);
	for (int s = 0; s < PSA_SEAM_NR; s++)
		u64_member(j, seam_short[s], r->seam_n[s]);
	jw_end_object(j);
	opt_u64_member(j, "trigger_wait_ns", r->flags & PSA_ROW_TRIGGERED, r->trigger_wait_ns);
	i64_member(j, "status", r->status);
	str_member(j, "state", psa_state_str(r->state));
	bool_member(j, "done", r->flags & PSA_ROW_DONE);
	bool_member(j, "failed", r->flags & PSA_ROW_FAILED);
	bool_member(j, "watchdog_fired", r->flags & PSA_ROW_WATCHDOG);
	bool_member(j, "truncated", r->flags & PSA_ROW_TRUNCATED);
	jw_end_object(j);
}

void report_json_timeline(struct jw *j, const struct psa_report *c,
			  const struct psa_timeline_filter *f)
{
	size_t n;
	const struct psa_timeline_row *rows = psa_timeline_rows(c->timeline, &n);

	jw_key(j, "timeline");
	jw_begin_object(j);
	filter_json(j, f);
	u64_member(j, "tasks_seen", psa_timeline_tasks_seen(c->timeline));
	u64_member(j, "tasks_shown", n);
	bool_member(j, "complete", psa_timeline_status(c->timeline) == 0);
	jw_key(j, "tasks");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		row_json(j, c->m, &rows[i]);
	jw_end_array(j);
	jw_end_object(j);
}

static void u32_array(struct jw *j, const char *key, const uint32_t *v, size_t n)
{
	jw_key(j, key);
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		jw_u64(j, v[i]);
	jw_end_array(j);
}

void report_json_stall_members(struct jw *j, const struct psa_stall *st,
			       const struct psa_stall *all)
{
	uint32_t streams[PSA_STREAMS_MAX];
	struct psa_shape sh;
	size_t ns = 0;

	for (uint32_t s = 0; s < PSA_STREAMS_MAX; s++)
		if (st->streams_pending & (1u << s))
			streams[ns++] = s;
	opt_u64_member(j, "rank", st->rank != PSA_RANK_NONE, st->rank);
	u64_member(j, "gid", st->gid);
	u64_member(j, "exec_id", st->exec_id);
	u64_member(j, "task_id", st->task_id);
	str_member(j, "kind", psa_kind_str(st->kind));
	str_member(j, "state", psa_state_str(st->state));
	u64_member(j, "duration_ns", st->duration_ns);
	str_member(j, "cause", psa_cause_str(st->cause));
	u32_array(j, "streams_pending", streams, ns);
	u32_array(j, "waiting_on", st->waiting_on, st->waiting_on_n);
	bool_member(j, "root_cause", st->root_cause);
	bool_member(j, "uncertain", st->uncertain);
	str_member(j, "uncertain_why", psa_unsure_str(st->unsure));
	jw_key(j, "root");
	if (st->root >= 0)
		jw_u64(j, (uint64_t)st->root);
	else
		jw_null(j);
	jw_key(j, "root_task_id");
	if (st->root >= 0 && all)
		jw_u64(j, all[st->root].task_id);
	else if (st->root_cause)
		jw_u64(j, st->task_id);
	else
		jw_null(j);
	str_member(j, "detail", st->detail);
	psa_stall_shape(st, &sh);
	str_member(j, "class", psa_class_str(sh.cls));
	str_member(j, "place", psa_place_str(sh.place));
	bool_member(j, "in_seam", psa_place_in_seam(sh.place));
	str_member(j, "evidence", psa_evidence_str(sh.evidence));
	str_member(j, "role", psa_role_str(sh.role));
	jw_key(j, "last_seam");
	if (st->last_seam >= 0 && st->last_seam < PSA_SEAM_NR) {
		jw_begin_object(j);
		str_member(j, "call", seam_short[st->last_seam]);
		i64_member(j, "rc", st->last_seam_rc);
		u64_member(j, "ago_ns", st->last_seam_ago_ns);
		jw_end_object(j);
	} else {
		jw_null(j);
	}
	jw_key(j, "trigger_words");
	jw_begin_array(j);
	for (uint32_t s = 0; s < PSA_STREAMS_MAX; s++) {
		if (st->trigger_last[s] == PSA_TRIGGER_UNREAD)
			continue;
		jw_begin_object(j);
		u64_member(j, "stream", s);
		u64_member(j, "last_read", st->trigger_last[s]);
		bool_member(j, "sentinel", st->trigger_last[s] == 0xFFFFFFFFu);
		jw_end_object(j);
	}
	jw_end_array(j);
	u64_member(j, "proc", st->proc);
	u64_member(j, "pid", st->vpid);
	str_member(j, "host", st->host);
	bool_member(j, "done", st->done);
	bool_member(j, "watchdog_fired", st->watchdog_fired);
	i64_member(j, "status", st->status);
}

static void stall_json(struct jw *j, const struct psa_stall *st, const struct psa_stall *all)
{
	jw_begin_object(j);
	report_json_stall_members(j, st, all);
	jw_end_object(j);
}

/* Damaged streams and copied traces (psa_integrity.h), in the order found. */
static void integrity_json(struct jw *j, const struct psa_integrity *in)
{
	static const char *const kinds[] = { "stream_missing", "stream_empty", "stream_short",
					     "duplicate_trace" };

	jw_key(j, "integrity");
	jw_begin_array(j);
	for (size_t i = 0; in && i < in->n; i++) {
		const struct psa_integrity_issue *v = &in->v[i];

		jw_begin_object(j);
		str_member(j, "kind", kinds[v->kind]);
		str_member(j, "trace", v->trace);
		str_member(j, v->kind == PSA_TRACE_DUPLICATE ? "same_as" : "stream", v->stream);
		u64_member(j, "packets", v->packets);
		u64_member(j, "bytes_expected", v->bytes_expected);
		u64_member(j, "bytes_found", v->bytes_found);
		jw_end_object(j);
	}
	jw_end_array(j);
}

/* What the trace can tell at its level (psa_watchdog_level_view). */
static const char *const level_names[] = { "full", "warning_only", "err_only" };

/* The root causes one fact explains (psa_watchdog_common); [] when out of memory too. */
static void common_json(struct jw *j, const struct psa_report *r)
{
	struct psa_common *c = NULL;
	size_t n = 0;

	if (r->m && psa_watchdog_common(r->wd, r->m, &c, &n))
		n = 0;
	jw_key(j, "common_causes");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		str_member(j, "scope", psa_common_scope_str(c[i].scope));
		str_member(j, "cause", psa_cause_str(c[i].cause));
		u64_member(j, "exec_id", c[i].exec_id);
		opt_u64_member(j, "peer", c[i].scope == PSA_COMMON_PEER, c[i].peer);
		jw_key(j, "host");
		if (c[i].scope == PSA_COMMON_PROCESS || c[i].scope == PSA_COMMON_HOST)
			jw_string(j, c[i].host);
		else
			jw_null(j);
		opt_u64_member(j, "pid", c[i].scope == PSA_COMMON_PROCESS, c[i].vpid);
		jw_key(j, "roots");
		jw_begin_array(j);
		for (size_t k = 0; k < c[i].roots_n; k++)
			jw_u64(j, c[i].roots[k]);
		jw_end_array(j);
		str_member(j, "line", c[i].line);
		jw_end_object(j);
	}
	jw_end_array(j);
	psa_common_free(c, n);
}

void report_json_watchdog(struct jw *j, const struct psa_report *c, uint64_t threshold_ns)
{
	size_t n;
	const struct psa_stall *s = psa_watchdog_stalls(c->wd, &n);

	jw_key(j, "watchdog");
	jw_begin_object(j);
	bool_member(j, "stall_found", psa_watchdog_found(c->wd));
	str_member(j, "verdict", psa_verdict_str(psa_watchdog_verdict(c->wd)));
	str_member(j, "level", level_names[psa_watchdog_level_view(c->wd)]);
	u64_member(j, "left_out_finished", psa_watchdog_ignored(c->wd));
	u64_member(j, "left_out_unknown", psa_watchdog_unknown(c->wd));
	opt_u64_member(j, "threshold_ns", threshold_ns != 0, threshold_ns);
	jw_key(j, "unknown_start_tasks");
	jw_u64(j, psa_watchdog_unknown_start(c->wd));
	integrity_json(j, psa_watchdog_integrity(c->wd));
	jw_key(j, "root_causes");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		if (s[i].root_cause)
			jw_u64(j, i);
	jw_end_array(j);
	common_json(j, c);
	jw_key(j, "stalls");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		stall_json(j, &s[i], s);
	jw_end_array(j);
	jw_end_object(j);
}
