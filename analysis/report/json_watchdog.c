/* SPDX-License-Identifier: MIT */
/*
 * The watchdog's part of the reports' JSON (psa_report_json.h, docs/json-schema.md): the
 * stalls, each with its shape, the root causes, the common causes, the disagreements, the cut,
 * the damaged traces.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/psa_report_json.h>

static const char *const seam_short[PSA_SEAM_NR] = { "B1", "B2", "B3" };

static void u32_array(struct jw *j, const char *key, const uint32_t *v, size_t n)
{
	jw_key(j, key);
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		jw_u64(j, v[i]);
	jw_end_array(j);
}

void psa_report_json_stall_members(struct jw *j, const struct psa_stall *st,
			       const struct psa_stall *all)
{
	uint32_t streams[PSA_STREAMS_MAX];
	struct psa_shape sh;
	size_t ns = 0;

	for (uint32_t s = 0; s < PSA_STREAMS_MAX; s++)
		if (st->streams_pending & (1u << s))
			streams[ns++] = s;
	jw_key_opt_u64(j, "rank", st->rank != PSA_RANK_NONE, st->rank);
	jw_key_u64(j, "gid", st->gid);
	jw_key_u64(j, "exec_id", st->exec_id);
	jw_key_u64(j, "task_id", st->task_id);
	jw_key_string(j, "kind", psa_kind_str(st->kind));
	jw_key_string(j, "state", psa_state_str(st->state));
	jw_key_u64(j, "duration_ns", st->duration_ns);
	jw_key_string(j, "cause", psa_cause_str(st->cause));
	u32_array(j, "streams_pending", streams, ns);
	u32_array(j, "waiting_on", st->waiting_on, st->waiting_on_n);
	jw_key_bool(j, "root_cause", st->root_cause);
	jw_key_bool(j, "uncertain", st->uncertain);
	jw_key_string(j, "uncertain_why", psa_unsure_str(st->unsure));
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
	jw_key_string(j, "detail", st->detail);
	psa_stall_shape(st, &sh);
	jw_key_string(j, "class", psa_class_str(sh.cls));
	jw_key_string(j, "place", psa_place_str(sh.place));
	jw_key_bool(j, "in_seam", psa_place_in_seam(sh.place));
	jw_key_string(j, "evidence", psa_evidence_str(sh.evidence));
	jw_key_string(j, "role", psa_role_str(sh.role));
	jw_key(j, "last_seam");
	if (st->last_seam >= 0 && st->last_seam < PSA_SEAM_NR) {
		jw_begin_object(j);
		jw_key_string(j, "call", seam_short[st->last_seam]);
		jw_key_i64(j, "rc", st->last_seam_rc);
		jw_key_u64(j, "ago_ns", st->last_seam_ago_ns);
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
		jw_key_u64(j, "stream", s);
		jw_key_u64(j, "last_read", st->trigger_last[s]);
		jw_key_bool(j, "sentinel", st->trigger_last[s] == 0xFFFFFFFFu);
		jw_end_object(j);
	}
	jw_end_array(j);
	jw_key_u64(j, "proc", st->proc);
	jw_key_u64(j, "pid", st->vpid);
	jw_key_string(j, "host", st->host);
	jw_key_bool(j, "done", st->done);
	jw_key_bool(j, "watchdog_fired", st->watchdog_fired);
	jw_key_i64(j, "status", st->status);
}

static void stall_json(struct jw *j, const struct psa_stall *st, const struct psa_stall *all)
{
	jw_begin_object(j);
	psa_report_json_stall_members(j, st, all);
	jw_end_object(j);
}

/* Damaged streams and copied traces (psa_integrity.h), in the order found. */
static void integrity_json(struct jw *j, const struct psa_integrity *in)
{
	static const char *const kinds[] = { "stream_missing", "stream_empty", "stream_short",
					     "stream_partial", "duplicate_trace", "trace_lost" };

	jw_key(j, "integrity");
	jw_begin_array(j);
	for (size_t i = 0; in && i < in->n; i++) {
		const struct psa_integrity_issue *v = &in->v[i];

		jw_begin_object(j);
		jw_key_string(j, "kind", kinds[v->kind]);
		jw_key_string(j, "trace", v->trace);
		jw_key_string(j, v->kind == PSA_TRACE_DUPLICATE ? "same_as" :
				 v->kind == PSA_TRACE_LOST ? "reason" : "stream", v->stream);
		jw_key_u64(j, "packets", v->packets);
		jw_key_u64(j, "bytes_expected", v->bytes_expected);
		jw_key_u64(j, "bytes_found", v->bytes_found);
		jw_end_object(j);
	}
	jw_end_array(j);
}

/* What the trace can tell at its level (psa_watchdog_level_view). */
static const char *const level_names[] = { "full", "warning_only", "err_only" };

/* Where the recording was cut (psa_model_cut), or null: {"at_ns", "reason", "tasks_in_flight"}. */
static void cut_json(struct jw *j, const struct psa_report *r)
{
	const char *why = NULL;
	uint64_t at = r->m ? psa_model_cut(r->m, &why) : 0;

	jw_key(j, "cut");
	if (!at) {
		jw_null(j);
		return;
	}
	jw_begin_object(j);
	jw_key_u64(j, "at_ns", at);
	jw_key_string(j, "reason", why ? why : "");
	jw_key_u64(j, "tasks_in_flight", psa_watchdog_cut_in_flight(r->wd));
	jw_end_object(j);
}

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
		jw_key_string(j, "scope", psa_common_scope_str(c[i].scope));
		jw_key_string(j, "cause", psa_cause_str(c[i].cause));
		jw_key_u64(j, "exec_id", c[i].exec_id);
		jw_key_opt_u64(j, "peer", c[i].scope == PSA_COMMON_PEER, c[i].peer);
		jw_key(j, "host");
		if (c[i].scope == PSA_COMMON_PROCESS || c[i].scope == PSA_COMMON_HOST)
			jw_string(j, c[i].host);
		else
			jw_null(j);
		jw_key_opt_u64(j, "pid", c[i].scope == PSA_COMMON_PROCESS, c[i].vpid);
		jw_key(j, "roots");
		jw_begin_array(j);
		for (size_t k = 0; k < c[i].roots_n; k++)
			jw_u64(j, c[i].roots[k]);
		jw_end_array(j);
		jw_key_string(j, "line", c[i].line);
		jw_end_object(j);
	}
	jw_end_array(j);
	psa_common_free(c, n);
}

/* Where two analyses point different ways (psa_watchdog_disagreements); [] when out of
 * memory too. */
static void disagreements_json(struct jw *j, const struct psa_report *r)
{
	struct psa_disagreement *d = NULL;
	size_t n = 0, sn;
	const struct psa_stall *s = psa_watchdog_stalls(r->wd, &sn);

	if (psa_watchdog_disagreements(r->wd, &d, &n))
		n = 0;
	jw_key(j, "disagreements");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++) {
		jw_begin_object(j);
		jw_key_u64(j, "root", d[i].root);
		jw_key_string(j, "root_says", psa_cause_str(s[d[i].root].cause));
		jw_key_u64(j, "death_root", d[i].death_root);
		jw_key_string(j, "death_says", psa_cause_str(s[d[i].death_root].cause));
		jw_key_string(j, "chains_chose", d[i].chose_death ? "death_root" : "root");
		jw_key_u64(j, "stalls", d[i].stalls_n);
		jw_key_u64(j, "first", d[i].first);
		jw_key_string(j, "line", d[i].line);
		jw_end_object(j);
	}
	jw_end_array(j);
	free(d);
}

void psa_report_json_watchdog(struct jw *j, const struct psa_report *c, uint64_t threshold_ns)
{
	size_t n;
	const struct psa_stall *s = psa_watchdog_stalls(c->wd, &n);

	jw_key(j, "watchdog");
	jw_begin_object(j);
	jw_key_bool(j, "stall_found", psa_watchdog_found(c->wd));
	jw_key_string(j, "verdict", psa_verdict_str(psa_watchdog_verdict(c->wd)));
	jw_key_string(j, "level", level_names[psa_watchdog_level_view(c->wd)]);
	jw_key_u64(j, "left_out_finished", psa_watchdog_ignored(c->wd));
	jw_key_u64(j, "left_out_unknown", psa_watchdog_unknown(c->wd));
	jw_key_opt_u64(j, "threshold_ns", threshold_ns != 0, threshold_ns);
	jw_key(j, "unknown_start_tasks");
	jw_u64(j, psa_watchdog_unknown_start(c->wd));
	cut_json(j, c);
	integrity_json(j, psa_watchdog_integrity(c->wd));
	jw_key(j, "root_causes");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		if (s[i].root_cause)
			jw_u64(j, i);
	jw_end_array(j);
	common_json(j, c);
	disagreements_json(j, c);
	jw_key(j, "stalls");
	jw_begin_array(j);
	for (size_t i = 0; i < n; i++)
		stall_json(j, &s[i], s);
	jw_end_array(j);
	jw_end_object(j);
}
