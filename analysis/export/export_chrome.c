/* SPDX-License-Identifier: MIT */
/*
 * The chrome export: Trace Event JSON for Perfetto and other Trace Event viewers, streamed one
 * event per line as the model closes intervals.
 *
 * Tracks: pid = the traced process (psa_proc id + 1, so a vpid reused on another host is another
 * pid); per (process, rank, task kind) a few lanes, as few as keep the tasks from overlapping:
 * a task takes the first lane no live task holds and whose last slice ended by its start, so an
 * exec's tasks of two ranks sit side by side however many execs ran. A task's state slices follow
 * each other on its lane, named by state, exec and task id (the args carry the whole identity),
 * with the seam calls as X slices nested inside (a call starts strictly after its state slice
 * does - clamped if it began earlier; an unmeasured call is a 0-duration slice at its end).
 *
 * Times are microseconds with three decimals (exact ns), relative to the trace start. A viewer
 * computes a slice's end as ts + dur in IEEE doubles, which can round past the next slice's
 * start; each dur is written so that the double sum never passes the exact end.
 *
 * Real threads get tracks too, for the flow arrows: the thread that enqueued a task has a 2 ns
 * "enqueue" slice at the enqueue (flow_out), the worker a 2 ns "take" slice at the drain
 * (flow_in), bound by the task's flow id ("bind_id": the flow is attached to the slices, whatever
 * the order of events with equal timestamps). Each worker's track also has one slice for the
 * worker's whole life.
 *
 * The verdict (psa_export_set_verdict): each root cause is an instant on its process and on its
 * task's lane, and the root task's last slice (still open at the end) is highlighted. The open
 * slices are written at finish for that, after the watchdog has named the roots.
 *
 * tids are unique over the whole file (not only within a process) and start above any pid:
 * Perfetto tracks threads by tid, as on Linux, and would merge equal tids of two pids.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_chrome.h"

#define TID_BASE (1u << 30) /* above any pid (psa_proc id + 1, or a rank group's) */

static struct chrome *to_chrome(struct psa_export *e)
{
	return (struct chrome *)e;
}

unsigned psa__chrome_pid(const struct psa_proc *p)
{
	return p->id + 1;
}

unsigned psa__chrome_rank_pid(unsigned proc_id, uint32_t rank)
{
	uint32_t b = rank / CHROME_BLOCK_RANKS;

	if (b >= CHROME_BLOCKS_MAX)
		b = CHROME_BLOCKS_MAX - 1;
	return b ? CHROME_GROUP_PID_BASE + proc_id * CHROME_BLOCKS_MAX + b : proc_id + 1;
}

static unsigned task_pid(const struct psa_task *t)
{
	return psa__chrome_rank_pid(t->proc->id, t->rank);
}

/* The group of @t's block (named at the end), counting a lane more; NULL: the first block. */
static struct rank_group *group_of(struct chrome *c, const struct psa_task *t)
{
	unsigned pid = task_pid(t);
	struct rank_group *g;

	if (pid == psa__chrome_pid(t->proc))
		return NULL;
	g = psa_hashmap_get(&c->groups, pid);
	if (g)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g || psa_hashmap_put(&c->groups, pid, g)) {
		free(g);
		psa__export_fail(&c->base, -ENOMEM);
		return NULL;
	}
	g->p = t->proc;
	g->block = t->rank / CHROME_BLOCK_RANKS;
	return g;
}

/* Start one event object: {"ph":..,"pid":..,"tid":.. (the caller adds the rest and "}"). */
FILE *psa__chrome_ev_begin(struct chrome *c, const char *ph, unsigned pid, uint64_t tid)
{
	FILE *f = c->base.out;

	fputs(c->any ? ",\n{" : "\n{", f);
	c->any = true;
	fprintf(f, "\"ph\":\"%s\",\"pid\":%u", ph, pid);
	if (tid)
		fprintf(f, ",\"tid\":%" PRIu64, tid);
	return f;
}

void psa__chrome_ev_ts(FILE *f, const char *key, uint64_t rel_ns)
{
	fprintf(f, ",\"%s\":", key);
	psa__json_us(f, rel_ns);
}

/*
 * The span [rb, re] (relative ns) as "ts" and "dur", with dur such that a viewer's double
 * ts + dur never passes re (as a double): the next slice on the track starts there. Some
 * viewers (speedscope) first rebase each track to its first event (@track_origin, relative
 * ns), so the sum must not pass re after that subtraction either.
 */
void psa__chrome_ev_span(FILE *f, uint64_t rb, uint64_t re, uint64_t track_origin)
{
	uint64_t dur = re > rb ? re - rb : 0;
	double end = (double)re / 1e3, ts = (double)rb / 1e3, o = (double)track_origin / 1e3;

	while (dur && (ts + (double)dur / 1e3 > end || (ts - o) + (double)dur / 1e3 > end - o))
		dur--;
	psa__chrome_ev_ts(f, "ts", rb);
	psa__chrome_ev_ts(f, "dur", dur);
}

/* A metadata event as Chrome writes them: "cat":"__metadata" and "ts":0. */
FILE *psa__chrome_meta_begin(struct chrome *c, unsigned pid, uint64_t tid, const char *name)
{
	FILE *f = psa__chrome_ev_begin(c, "M", pid, tid);

	fprintf(f, ",\"cat\":\"__metadata\",\"ts\":0,\"name\":\"%s\"", name);
	return f;
}

static void meta_thread(struct chrome *c, unsigned pid, uint64_t tid, const char *name,
			int64_t sort_index)
{
	FILE *f = psa__chrome_meta_begin(c, pid, tid, "thread_name");

	fputs(",\"args\":{\"name\":", f);
	psa__json_str(f, name);
	fputs("}}", f);
	f = psa__chrome_meta_begin(c, pid, tid, "thread_sort_index");
	fprintf(f, ",\"args\":{\"sort_index\":%" PRId64 "}}", sort_index);
}

/* "rank 1 exec 3 NETWORK #17" */
static void task_label(const struct psa_task *t, char *buf, size_t len)
{
	snprintf(buf, len, "rank %" PRIu32 " exec %" PRIu64 " %s #%" PRIu64, t->rank, t->exec_id,
		 psa_kind_str(t->kind), t->task_id);
}

/* The lane @t takes: the first free one of its (process, rank, kind), else a new one. */
static struct lane *lane_take(struct chrome *c, const struct psa_task *t)
{
	uint64_t key = psa__export_key(t->proc, psa_key((uint64_t)t->rank + 1, t->kind));
	struct lane_set *ls = psa_hashmap_get(&c->lanes, key);
	char name[96];
	unsigned i;

	if (!ls) {
		ls = calloc(1, sizeof(*ls));
		if (!ls || psa_hashmap_put(&c->lanes, key, ls)) {
			free(ls);
			psa__export_fail(&c->base, -ENOMEM);
			return NULL;
		}
	}
	for (i = 0; i < ls->n; i++)
		if (!ls->v[i].busy && ls->v[i].last_end <= t->first_ts)
			break;
	if (i == ls->n) {
		if (ls->n == LANES_MAX) {
			/* more execs in flight than lanes: share the one that ended first */
			i = 0;
			for (unsigned k = 1; k < ls->n; k++)
				if (ls->v[k].last_end < ls->v[i].last_end)
					i = k;
		} else {
			ls->v[ls->n++] = (struct lane){ .tid = c->next_tid++,
							 .origin = psa__export_rel(&c->base, t->first_ts) };
			c->lanes_n++;
			if (i)
				snprintf(name, sizeof(name), "rank %" PRIu32 " %s (lane %u)", t->rank,
					 psa_kind_str(t->kind), i + 1);
			else
				snprintf(name, sizeof(name), "rank %" PRIu32 " %s", t->rank,
					 psa_kind_str(t->kind));
			/* by rank, network before barrier, then lane */
			struct rank_group *g = group_of(c, t);

			if (g)
				g->lanes++;
			meta_thread(c, task_pid(t), ls->v[i].tid, name,
				    (int64_t)((uint64_t)t->rank << 16 | (uint64_t)(t->kind & 0xff) << 8 | i));
		}
	}
	ls->v[i].busy = true;
	return &ls->v[i];
}

/* The track of a real thread, named on first use (NULL: out of memory). */
static struct thread *thread_track(struct chrome *c, const struct psa_proc *p, unsigned pid,
				   uint32_t vtid, const char *procname, const char *role,
				   int64_t sort_index)
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
	th->pid = pid;
	th->origin = UINT64_MAX;
	if (procname && procname[0])
		snprintf(name, sizeof(name), "%.*s (vtid %" PRIu32 ", %s)", PSA_PROCNAME_MAX, procname,
			 vtid, role);
	else
		snprintf(name, sizeof(name), "vtid %" PRIu32 " (%s)", vtid, role);
	meta_thread(c, pid, th->tid, name, sort_index);
	return th;
}

static int chrome_init(struct psa_export *e)
{
	struct chrome *c = to_chrome(e);

	psa_hashmap_init(&c->threads);
	psa_hashmap_init(&c->lanes);
	psa_hashmap_init(&c->groups);
	c->next_tid = TID_BASE;
	fputs("{\"traceEvents\":[", e->out);
	return 0;
}

static void chrome_task_begin(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt)
{
	struct chrome_task *ct = psa__xtask_priv(xt);

	ct->lane = lane_take(to_chrome(e), t);
}

static void chrome_task_end(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt)
{
	struct chrome_task *ct = psa__xtask_priv(xt);

	(void)e;
	(void)t;
	if (ct->lane)
		ct->lane->busy = false;
}

static uint64_t lane_tid(const struct chrome_task *ct)
{
	return ct->lane ? ct->lane->tid : 0;
}

static uint64_t lane_origin(const struct chrome_task *ct)
{
	return ct->lane ? ct->lane->origin : 0;
}

/* Note that @ct's lane holds a slice up to @end (abs ns). */
static void lane_extend(struct chrome_task *ct, uint64_t end)
{
	if (ct->lane && end > ct->lane->last_end)
		ct->lane->last_end = end;
}

/* The args every slice of a task carries. */
void psa__chrome_task_args(FILE *f, const struct psa_task *t)
{
	fprintf(f, "\"task_id\":%" PRIu64 ",\"rank\":%" PRIu32 ",\"gid\":%" PRIu32
		   ",\"exec_id\":%" PRIu64 ",\"kind\":\"%s\",\"job\":%" PRIu32,
		t->task_id, t->rank, t->gid, t->exec_id, psa_kind_str(t->kind), t->job);
}

/* One state slice; @root: the verdict's root cause (highlighted). */
void psa__chrome_state_slice(struct chrome *c, const struct psa_task *t, uint64_t tid,
			     uint64_t origin, uint32_t state, uint64_t begin, uint64_t end, bool open,
			     bool root)
{
	struct psa_export *e = &c->base;
	uint64_t rb = psa__export_rel(e, begin), re = psa__export_rel(e, end);
	FILE *f = psa__chrome_ev_begin(c, "X", task_pid(t), tid);

	fprintf(f, ",\"cat\":\"state\",\"name\":\"%s%s exec %" PRIu64 " #%" PRIu64 "\"",
		root ? "ROOT CAUSE: " : "", psa_state_str(state), t->exec_id, t->task_id);
	psa__chrome_ev_span(f, rb, re, origin);
	if (root)
		fputs(",\"cname\":\"terrible\"", f);
	fputs(",\"args\":{", f);
	psa__chrome_task_args(f, t);
	fprintf(f, ",\"state\":\"%s\",\"open\":%s,\"root_cause\":%s", psa_state_str(state),
		open ? "true" : "false", root ? "true" : "false");
	if (t->worker_vtid)
		fprintf(f, ",\"worker_vtid\":%" PRIu32, t->worker_vtid);
	fputs("}}", f);
	c->slices++;
}

static void chrome_interval(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			    uint32_t state, uint64_t begin, uint64_t end, bool open)
{
	struct chrome *c = to_chrome(e);
	struct chrome_task *ct = psa__xtask_priv(xt);

	lane_extend(ct, end);
	if (open) {
		/* kept until the verdict is known: the root's slice is highlighted */
		if (c->open_n == c->open_cap) {
			size_t cap = c->open_cap ? 2 * c->open_cap : 64;
			struct open_slice *v = realloc(c->open, cap * sizeof(*v));

			if (!v) {
				psa__export_fail(e, -ENOMEM);
				return;
			}
			c->open = v;
			c->open_cap = cap;
		}
		c->open[c->open_n++] = (struct open_slice){ t, lane_tid(ct), lane_origin(ct), state,
							     begin, end };
		return;
	}
	psa__chrome_state_slice(c, t, lane_tid(ct), lane_origin(ct), state, begin, end, false, false);
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
	f = psa__chrome_ev_begin(c, "X", task_pid(t), lane_tid(ct));
	fprintf(f, ",\"cat\":\"seam\",\"name\":\"%s exec %" PRIu64 " #%" PRIu64 "\"",
		psa_seam_str(which), t->exec_id, t->task_id);
	psa__chrome_ev_span(f, psa__export_rel(e, begin), psa__export_rel(e, end), lane_origin(ct));
	fputs(",\"args\":{", f);
	psa__chrome_task_args(f, t);
	fprintf(f, ",\"stream\":%" PRIu32 ",\"bb\":%" PRIu32 ",\"rc\":%d,\"duration_ns\":%" PRIu64
		   ",\"measured\":%s,\"clamped\":%s}}",
		stream, bb, rc, dur, dur ? "true" : "false", clamped ? "true" : "false");
	lane_extend(ct, end);
	c->seams++;
}

/* A mark on a real thread's track at @ts, one end (@flow "flow_out" or "flow_in") of the flow
 * of task @seq. */
static void thread_mark(struct chrome *c, const struct psa_task *t, struct thread *th,
			const char *what, uint64_t ts, const char *flow, uint64_t seq)
{
	uint64_t dur = ts >= th->last_end ? 2 : 0;
	char label[128];
	FILE *f = psa__chrome_ev_begin(c, "X", th->pid, th->tid);

	task_label(t, label, sizeof(label));
	fprintf(f, ",\"cat\":\"queue\",\"name\":\"%s %s\"", what, label);
	if (th->origin == UINT64_MAX)
		th->origin = psa__export_rel(&c->base, ts);
	psa__chrome_ev_span(f, psa__export_rel(&c->base, ts), psa__export_rel(&c->base, ts + dur),
			    th->origin);
	if (flow)
		fprintf(f, ",\"bind_id\":\"0x%" PRIx64 "\",\"%s\":true", seq, flow);
	fputs(",\"args\":{", f);
	psa__chrome_task_args(f, t);
	fputs("}}", f);
	if (ts + dur > th->last_end)
		th->last_end = ts + dur;
}

/* The drain: the worker's take slice, the end of the flow from the enqueue when it was seen. */
static void drain(struct chrome *c, const struct psa_task *t, struct psa_xtask *xt,
		  const struct psa_event *ev)
{
	struct chrome_task *ct = psa__xtask_priv(xt);
	struct thread *w = thread_track(c, t->proc, task_pid(t), ev->vtid, ev->procname, "worker", -1);

	if (!w)
		return;
	thread_mark(c, t, w, "take", ev->ts_ns, ct->produced ? "flow_in" : NULL, xt->seq);
	c->flows += ct->produced;
}

static bool is_instant(enum psa_ev_type type)
{
	return type == PSA_EV_encproxy_trigger_fire || type == PSA_EV_encproxy_watchdog_timeout ||
	       type == PSA_EV_encproxy_task_failed || type == PSA_EV_encnet_error;
}

/* The fields task_args writes (with their own types): not repeated from the event. */
static bool is_identity(int f)
{
	return f == PSA_F_task_id || f == PSA_F_rank || f == PSA_F_gid || f == PSA_F_exec_id ||
	       f == PSA_F_kind || f == PSA_F_job;
}

static void chrome_instant(struct psa_export *e, const struct psa_task *t, struct psa_xtask *xt,
			   const struct psa_event *ev)
{
	struct chrome *c = to_chrome(e);
	struct chrome_task *ct = psa__xtask_priv(xt);
	FILE *f;

	if (ev->type == PSA_EV_encproxy_task_enqueue) {
		struct thread *th = thread_track(c, t->proc, task_pid(t), ev->vtid, ev->procname,
						 "enqueues", -2);

		if (th)
			thread_mark(c, t, th, "enqueue", ev->ts_ns, "flow_out", xt->seq);
		ct->produced = th != NULL;
		return;
	}
	if (ev->type == PSA_EV_encproxy_task_drain) {
		drain(c, t, xt, ev);
		return;
	}
	if (!is_instant(ev->type))
		return;
	f = psa__chrome_ev_begin(c, "i", task_pid(t), lane_tid(ct));
	fputs(",\"s\":\"t\",\"cat\":\"event\",\"name\":", f);
	psa__json_str(f, psa_ev_name(ev->type));
	psa__chrome_ev_ts(f, "ts", psa__export_rel(e, ev->ts_ns));
	fputs(",\"args\":{", f);
	psa__chrome_task_args(f, t);
	/* one type per arg name across the file: run states are names, as in the slices */
	for (int i = 0; i < PSA_F_NR; i++) {
		if (!psa_ev_has(ev, (enum psa_field)i) || is_identity(i))
			continue;
		if (i == PSA_F_old || i == PSA_F_new || i == PSA_F_state)
			fprintf(f, ",\"%s\":\"%s\"", psa_field_name((enum psa_field)i),
				psa_state_str((uint32_t)ev->f[i]));
		else
			fprintf(f, ",\"%s\":%" PRId64, psa_field_name((enum psa_field)i), ev->f[i]);
	}
	fputs("}}", f);
	c->instants++;
}

static void chrome_worker_end(struct psa_export *e, const struct psa_worker *w)
{
	struct chrome *c = to_chrome(e);
	uint64_t end = w->end_ts ? w->end_ts : (w->mode_since > w->last_ts ? w->mode_since : w->last_ts);
	struct thread *th = thread_track(c, w->proc, psa__chrome_pid(w->proc), w->vtid, NULL, "worker",
					 -1);
	/* A worker normally starts before the first task event, the origin: its slice starts at
	 * 0 then (not counted as clamped; begin_abs_ns says when it really began). */
	uint64_t rb = w->begin_ts > e->origin ? w->begin_ts - e->origin : 0, re;
	FILE *f;

	if (!th)
		return;
	if (th->last_end > end)
		end = th->last_end; /* enclose its last take mark */
	re = psa__export_rel(e, end);
	f = psa__chrome_ev_begin(c, "X", th->pid, th->tid);

	fprintf(f, ",\"cat\":\"worker\",\"name\":\"worker gid %" PRIu32 "\"", w->gid);
	/* the worker's slice is the first of its track */
	psa__chrome_ev_span(f, rb, re, th->origin < rb ? th->origin : rb);
	fprintf(f, ",\"args\":{\"vtid\":%" PRIu32 ",\"gid\":%" PRIu32 ",\"active_ns\":%" PRIu64
		   ",\"idle_ns\":%" PRIu64 ",\"sleep_ns\":%" PRIu64 ",\"events\":%" PRIu64
		   ",\"running_at_end\":%s,\"begin_abs_ns\":\"%" PRIu64 "\"}}",
		w->vtid, w->gid, w->active_ns, w->idle_ns, w->sleep_ns, w->steps_seen,
		w->end_ts ? "false" : "true", w->begin_ts);
}


static int chrome_finish(struct psa_export *e, const struct psa_model *m)
{
	struct chrome *c = to_chrome(e);
	struct psa_model_totals tot;
	FILE *f = e->out;

	psa_model_totals(m, &tot);
	psa__chrome_write_end(c, m, &tot);
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{", f);
	fprintf(f, "\"generator\":\"proxyscope export\",\"origin_ns\":\"%" PRIu64
		   "\",\"trace_first_ns\":\"%" PRIu64 "\",\"trace_last_ns\":\"%" PRIu64 "\"",
		e->origin, tot.first_ts, tot.last_ts);
	fprintf(f, ",\"events\":%" PRIu64 ",\"tasks\":%" PRIu64 ",\"tasks_done\":%" PRIu64
		   ",\"state_slices\":%" PRIu64 ",\"seam_slices\":%" PRIu64 ",\"instants\":%" PRIu64
		   ",\"flows\":%" PRIu64 ",\"discarded_events\":%" PRIu64
		   ",\"discarded_packets\":%" PRIu64 ",\"clamped\":%" PRIu64 ",\"lanes\":%" PRIu64
		   ",\"rank_groups\":%zu,\"interrupted\":%s,\"verdict\":\"%s\"}}\n",
		tot.our_events, tot.tasks, tot.tasks_done, c->slices, c->seams, c->instants, c->flows,
		tot.discarded_events, tot.discarded_packets, e->clamped, c->lanes_n, c->groups.n,
		e->interrupted ? "true" : "false",
		e->verdict ? psa_verdict_str(psa_watchdog_verdict(e->verdict)) : "none");
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
	for (size_t i = 0; psa_hashmap_next(&c->lanes, &i, &k, &v);)
		free(v);
	psa_hashmap_fini(&c->lanes);
	for (size_t i = 0; psa_hashmap_next(&c->groups, &i, &k, &v);)
		free(v);
	psa_hashmap_fini(&c->groups);
	free(c->open);
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
	.task_end = chrome_task_end,
	.worker_end = chrome_worker_end,
	.finish = chrome_finish,
	.fini = chrome_fini,
};
