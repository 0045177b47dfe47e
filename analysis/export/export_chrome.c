/*
 * The chrome export: Trace Event JSON for Perfetto and chrome://tracing, streamed one event per
 * line as the model closes intervals.
 *
 * Tracks: pid = the traced process (psa_proc id + 1, so a vpid reused on another host is another
 * pid); one thread track per task, so its state slices follow each other and never overlap,
 * with the seam calls as X slices nested inside (a call starts strictly after its state slice
 * does - clamped if it began earlier; an unmeasured call is a 0-duration slice at its end).
 *
 * Real threads get tracks too, for the flow arrows: the thread that enqueued a task has a 2 ns
 * "enqueue" slice at the enqueue, the worker a 2 ns "take" slice at the drain, and a flow (s,
 * then f with "bp":"e") joins them, each end 1 ns inside its slice: strictly inside, so it binds
 * to that slice whatever order a viewer gives events with equal timestamps (a mark that would
 * overlap the previous one on its thread is 0-duration, its flow end at its start). A flow is
 * written once both ends are known, so every s has its f. Each worker's track also has one
 * slice for the worker's whole life.
 *
 * tids are unique over the whole file (not only within a process) and start above any pid:
 * Perfetto tracks threads by tid, as on Linux, and would merge equal tids of two pids.
 * Timestamps are microseconds with three decimals (exact ns), relative to the trace start.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"

#define TID_BASE 65536u /* above any pid (psa_proc id + 1) */

/* A real thread's track. */
struct thread {
	uint64_t tid;
	uint64_t last_end; /* the end of its last mark (abs ns) */
};

struct chrome_task {
	uint64_t tid;            /* the task's track */
	struct thread *producer; /* the thread that enqueued it (NULL: not seen) */
	uint64_t enqueue_at;     /* where the flow starts on the producer's track */
};

struct chrome {
	struct psa_export base;
	struct psa_hashmap threads; /* (proc, vtid) -> struct thread * */
	uint64_t next_tid;
	bool any;                   /* an event was written (the next needs a comma) */
	uint64_t slices, seams, instants, flows;
};

static struct chrome *to_chrome(struct psa_export *e)
{
	return (struct chrome *)e;
}

static unsigned pid_of(const struct psa_proc *p)
{
	return p->id + 1;
}

/* Start one event object: {"ph":..,"pid":..,"tid":.. (the caller adds the rest and "}"). */
static FILE *ev_begin(struct chrome *c, const char *ph, unsigned pid, uint64_t tid)
{
	FILE *f = c->base.out;

	fputs(c->any ? ",\n{" : "\n{", f);
	c->any = true;
	fprintf(f, "\"ph\":\"%s\",\"pid\":%u", ph, pid);
	if (tid)
		fprintf(f, ",\"tid\":%" PRIu64, tid);
	return f;
}

static void ev_ts(FILE *f, const char *key, uint64_t rel_ns)
{
	fprintf(f, ",\"%s\":", key);
	psa__json_us(f, rel_ns);
}

static void meta_thread(struct chrome *c, unsigned pid, uint64_t tid, const char *name,
			int64_t sort_index)
{
	FILE *f = ev_begin(c, "M", pid, tid);

	fputs(",\"name\":\"thread_name\",\"args\":{\"name\":", f);
	psa__json_str(f, name);
	fputs("}}", f);
	f = ev_begin(c, "M", pid, tid);
	fprintf(f, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%" PRId64 "}}",
		sort_index);
}

/* "rank 1 exec 3 NETWORK #17" */
static void task_label(const struct psa_task *t, char *buf, size_t len)
{
	snprintf(buf, len, "rank %" PRIu32 " exec %" PRIu64 " %s #%" PRIu64, t->rank, t->exec_id,
		 psa_kind_str(t->kind), t->task_id);
}

/* The track of a real thread, named on first use (NULL: out of memory). */
static struct thread *thread_track(struct chrome *c, const struct psa_proc *p, uint32_t vtid,
				   const char *procname, const char *role, int64_t sort_index)
{
	uint64_t key = psa__export_key(p, (uint64_t)vtid + 1);
	struct thread *th = psa_hashmap_get(&c->threads, key);
	char name[PSA_PROCNAME_MAX + 64];

	if (th)
		return th;
	th = calloc(1, sizeof(*th));
	if (!th || psa_hashmap_put(&c->threads, key, th)) {
		free(th);
		psa__export_fail(&c->base, -ENOMEM);
		return NULL;
	}
	th->tid = c->next_tid++;
	if (procname && procname[0])
		snprintf(name, sizeof(name), "%.*s (vtid %" PRIu32 ", %s)", PSA_PROCNAME_MAX, procname,
			 vtid, role);
	else
		snprintf(name, sizeof(name), "vtid %" PRIu32 " (%s)", vtid, role);
	meta_thread(c, pid_of(p), th->tid, name, sort_index);
	return th;
}

static int chrome_init(struct psa_export *e)
{
	struct chrome *c = to_chrome(e);

	psa_hashmap_init(&c->threads);
	c->next_tid = TID_BASE;
	fputs("{\"traceEvents\":[", e->out);
	return 0;
}

static void chrome_task_begin(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt)
{
	struct chrome *c = to_chrome(e);
	struct chrome_task *ct = psa__xtask_priv(xt);
	uint64_t exec = t->exec_id < INT32_MAX ? t->exec_id : INT32_MAX;
	char name[128];

	ct->tid = c->next_tid++;
	task_label(t, name, sizeof(name));
	/* by rank, then exec, network before barrier */
	meta_thread(c, pid_of(t->proc), ct->tid, name,
		    (int64_t)((uint64_t)t->rank << 32 | exec << 1 | (t->kind == PSA_KIND_BARRIER)));
}

/* The args every slice of a task carries. */
static void task_args(FILE *f, const struct psa_task *t)
{
	fprintf(f, "\"task_id\":%" PRIu64 ",\"rank\":%" PRIu32 ",\"gid\":%" PRIu32
		   ",\"exec_id\":%" PRIu64 ",\"kind\":\"%s\",\"job\":%" PRIu32,
		t->task_id, t->rank, t->gid, t->exec_id, psa_kind_str(t->kind), t->job);
}

static void chrome_interval(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			    uint32_t state, uint64_t begin, uint64_t end, bool open)
{
	struct chrome *c = to_chrome(e);
	struct chrome_task *ct = psa__xtask_priv(xt);
	uint64_t rb = psa__export_rel(e, begin), re = psa__export_rel(e, end);
	FILE *f = ev_begin(c, "X", pid_of(t->proc), ct->tid);

	fputs(",\"cat\":\"state\",\"name\":", f);
	psa__json_str(f, psa_state_str(state));
	ev_ts(f, "ts", rb);
	ev_ts(f, "dur", re > rb ? re - rb : 0);
	fputs(",\"args\":{", f);
	task_args(f, t);
	fprintf(f, ",\"open\":%s", open ? "true" : "false");
	if (t->worker_vtid)
		fprintf(f, ",\"worker_vtid\":%" PRIu32, t->worker_vtid);
	fputs("}}", f);
	c->slices++;
}

static void chrome_seam(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			enum psa_seam which, uint32_t stream, uint32_t bb, int rc, uint64_t end,
			uint64_t dur)
{
	struct chrome *c = to_chrome(e);
	struct chrome_task *ct = psa__xtask_priv(xt);
	uint64_t begin = dur < end ? end - dur : 0;
	bool clamped = false;
	FILE *f;

	/*
	 * Nest inside the state slice the call ended in (it started at t->state_since), and start
	 * strictly after it: viewers nest two slices that start at the same time in file order,
	 * and the state slice is written after its calls (when it closes).
	 */
	if (end < t->state_since) {
		end = t->state_since;
		clamped = true;
	}
	if (begin <= t->state_since && end > t->state_since) {
		clamped = clamped || begin < t->state_since;
		begin = t->state_since + 1;
	}
	if (begin > end)
		begin = end;
	f = ev_begin(c, "X", pid_of(t->proc), ct->tid);
	fputs(",\"cat\":\"seam\",\"name\":", f);
	psa__json_str(f, psa_seam_str(which));
	ev_ts(f, "ts", psa__export_rel(e, begin));
	ev_ts(f, "dur", end - begin);
	fprintf(f, ",\"args\":{\"task_id\":%" PRIu64 ",\"stream\":%" PRIu32 ",\"bb\":%" PRIu32
		   ",\"rc\":%d,\"duration_ns\":%" PRIu64 ",\"measured\":%s,\"clamped\":%s}}",
		t->task_id, stream, bb, rc, dur, dur ? "true" : "false", clamped ? "true" : "false");
	c->seams++;
}

/* A mark on a real thread's track at @ts; returns the time a flow end binds to it at. */
static uint64_t thread_mark(struct chrome *c, const struct psa_task *t, struct thread *th,
			    const char *what, uint64_t ts)
{
	uint64_t dur = ts >= th->last_end ? 2 : 0;
	char label[128];
	FILE *f = ev_begin(c, "X", pid_of(t->proc), th->tid);

	task_label(t, label, sizeof(label));
	fprintf(f, ",\"cat\":\"queue\",\"name\":\"%s %s\"", what, label);
	ev_ts(f, "ts", psa__export_rel(&c->base, ts));
	ev_ts(f, "dur", dur);
	fputs(",\"args\":{", f);
	task_args(f, t);
	fputs("}}", f);
	if (ts + dur > th->last_end)
		th->last_end = ts + dur;
	return ts + dur / 2;
}

static void flow_end(struct chrome *c, const struct psa_task *t, const char *ph, uint64_t tid,
		     uint64_t id, uint64_t ts)
{
	FILE *f = ev_begin(c, ph, pid_of(t->proc), tid);

	fprintf(f, ",\"cat\":\"queue\",\"name\":\"enqueue\",\"id\":%" PRIu64, id);
	ev_ts(f, "ts", psa__export_rel(&c->base, ts));
	fputs(ph[0] == 'f' ? ",\"bp\":\"e\"}" : "}", f);
}

/* The drain: the worker's take slice, and the flow from the enqueue when it was seen. */
static void drain(struct chrome *c, const struct psa_task *t, struct chrome_task *ct,
		  const struct psa_event *ev)
{
	struct thread *w = thread_track(c, t->proc, ev->vtid, ev->procname, "worker", -1);
	uint64_t at;

	if (!w)
		return;
	at = thread_mark(c, t, w, "take", ev->ts_ns);
	if (!ct->producer)
		return;
	c->flows++;
	flow_end(c, t, "s", ct->producer->tid, c->flows, ct->enqueue_at);
	flow_end(c, t, "f", w->tid, c->flows, at);
}

static bool is_instant(enum psa_ev_type type)
{
	return type == PSA_EV_encproxy_trigger_fire || type == PSA_EV_encproxy_watchdog_timeout ||
	       type == PSA_EV_encproxy_task_failed || type == PSA_EV_encnet_error;
}

static void chrome_instant(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			   const struct psa_event *ev)
{
	struct chrome *c = to_chrome(e);
	struct chrome_task *ct = psa__xtask_priv(xt);
	const char *sep = "";
	FILE *f;

	if (ev->type == PSA_EV_encproxy_task_enqueue) {
		ct->producer = thread_track(c, t->proc, ev->vtid, ev->procname, "enqueues", -2);
		if (ct->producer)
			ct->enqueue_at = thread_mark(c, t, ct->producer, "enqueue", ev->ts_ns);
		return;
	}
	if (ev->type == PSA_EV_encproxy_task_drain) {
		drain(c, t, ct, ev);
		return;
	}
	if (!is_instant(ev->type))
		return;
	f = ev_begin(c, "i", pid_of(t->proc), ct->tid);
	fputs(",\"s\":\"t\",\"cat\":\"event\",\"name\":", f);
	psa__json_str(f, psa_ev_name(ev->type));
	ev_ts(f, "ts", psa__export_rel(e, ev->ts_ns));
	fputs(",\"args\":{", f);
	for (int i = 0; i < PSA_F_NR; i++) {
		if (!psa_ev_has(ev, (enum psa_field)i))
			continue;
		fprintf(f, "%s\"%s\":%" PRId64, sep, psa_field_name((enum psa_field)i), ev->f[i]);
		sep = ",";
	}
	fputs("}}", f);
	c->instants++;
}

static void chrome_worker_end(struct psa_export *e, const struct psa_worker *w)
{
	struct chrome *c = to_chrome(e);
	uint64_t end = w->end_ts ? w->end_ts : (w->mode_since > w->last_ts ? w->mode_since : w->last_ts);
	struct thread *th = thread_track(c, w->proc, w->vtid, NULL, "worker", -1);
	/* A worker normally starts before the first task event, the origin: its slice starts at
	 * 0 then (not counted as clamped; begin_abs_ns says when it really began). */
	uint64_t rb = w->begin_ts > e->origin ? w->begin_ts - e->origin : 0, re;
	FILE *f;

	if (!th)
		return;
	if (th->last_end > end)
		end = th->last_end; /* enclose its last take mark */
	re = psa__export_rel(e, end);
	f = ev_begin(c, "X", pid_of(w->proc), th->tid);

	fprintf(f, ",\"cat\":\"worker\",\"name\":\"worker gid %" PRIu32 "\"", w->gid);
	ev_ts(f, "ts", rb);
	ev_ts(f, "dur", re > rb ? re - rb : 0);
	fprintf(f, ",\"args\":{\"vtid\":%" PRIu32 ",\"gid\":%" PRIu32 ",\"active_ns\":%" PRIu64
		   ",\"idle_ns\":%" PRIu64 ",\"sleep_ns\":%" PRIu64 ",\"events\":%" PRIu64
		   ",\"running_at_end\":%s,\"begin_abs_ns\":\"%" PRIu64 "\"}}",
		w->vtid, w->gid, w->active_ns, w->idle_ns, w->sleep_ns, w->steps_seen,
		w->end_ts ? "false" : "true", w->begin_ts);
}

static void write_procs(struct chrome *c, const struct psa_model *m)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);

	for (size_t i = 0; i < n; i++) {
		const struct psa_proc *p = procs[i];
		char name[PSA_PROCNAME_MAX + PSA_HOST_MAX + 48];
		FILE *f;

		snprintf(name, sizeof(name), "%.*s (vpid %" PRIu32 " on %.*s)", PSA_PROCNAME_MAX,
			 p->procname[0] ? p->procname : "process", p->vpid, PSA_HOST_MAX,
			 p->host[0] ? p->host : "?");
		f = ev_begin(c, "M", pid_of(p), 0);
		fputs(",\"name\":\"process_name\",\"args\":{\"name\":", f);
		psa__json_str(f, name);
		fputs("}}", f);
		f = ev_begin(c, "M", pid_of(p), 0);
		fprintf(f, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%u}}", p->id);
	}
}

/* Lost events as global instants where the tracer said when. */
static void write_discards(struct chrome *c, const struct psa_model *m)
{
	size_t n;
	const struct psa_discard *d = psa_model_discards(m, &n);
	FILE *f = c->base.out;

	for (size_t i = 0; i < n; i++) {
		if (!d[i].begin_ns && !d[i].end_ns)
			continue;
		fputs(c->any ? ",\n{" : "\n{", f);
		c->any = true;
		fprintf(f, "\"ph\":\"i\",\"s\":\"g\",\"cat\":\"lost\",\"name\":\"tracer discarded %" PRIu64
			   " %s\"",
			d[i].count, d[i].packets ? "packets" : "events");
		ev_ts(f, "ts", psa__export_rel(&c->base, d[i].begin_ns ? d[i].begin_ns : d[i].end_ns));
		fputs(",\"args\":{\"host\":", f);
		psa__json_strn(f, d[i].host, sizeof(d[i].host));
		fputs(",\"trace\":", f);
		psa__json_strn(f, d[i].trace, sizeof(d[i].trace));
		fprintf(f, ",\"count\":%" PRIu64 "}}", d[i].count);
	}
}

static int chrome_finish(struct psa_export *e, const struct psa_model *m)
{
	struct chrome *c = to_chrome(e);
	struct psa_model_totals tot;
	FILE *f = e->out;

	psa_model_totals(m, &tot);
	write_procs(c, m);
	write_discards(c, m);
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{", f);
	fprintf(f, "\"generator\":\"proxyscope export\",\"origin_ns\":\"%" PRIu64
		   "\",\"trace_first_ns\":\"%" PRIu64 "\",\"trace_last_ns\":\"%" PRIu64 "\"",
		e->origin, tot.first_ts, tot.last_ts);
	fprintf(f, ",\"events\":%" PRIu64 ",\"tasks\":%" PRIu64 ",\"tasks_done\":%" PRIu64
		   ",\"state_slices\":%" PRIu64 ",\"seam_slices\":%" PRIu64 ",\"instants\":%" PRIu64
		   ",\"flows\":%" PRIu64 ",\"discarded_events\":%" PRIu64
		   ",\"discarded_packets\":%" PRIu64 ",\"clamped\":%" PRIu64 "}}\n",
		tot.our_events, tot.tasks, tot.tasks_done, c->slices, c->seams, c->instants, c->flows,
		tot.discarded_events, tot.discarded_packets, e->clamped);
	return 0;
}

static void chrome_fini(struct psa_export *e)
{
	struct chrome *c = to_chrome(e);
	uint64_t k;
	void *v;

	for (size_t i = 0; psa_hashmap_next(&c->threads, &i, &k, &v);)
		free(v);
	psa_hashmap_fini(&c->threads);
}

const struct psa_export_ops psa__export_chrome_ops = {
	.name = "chrome",
	.size = sizeof(struct chrome),
	.task_size = sizeof(struct chrome_task),
	.init = chrome_init,
	.task_begin = chrome_task_begin,
	.interval = chrome_interval,
	.seam = chrome_seam,
	.instant = chrome_instant,
	.worker_end = chrome_worker_end,
	.finish = chrome_finish,
	.fini = chrome_fini,
};
