/* SPDX-License-Identifier: MIT */
/*
 * The analysis model: one dispatch over the catalogue's event types, feeding processes, tasks
 * (model/task.c), workers and groups. Everything is keyed by the traced process (host, vpid),
 * so several traces - processes, hosts - merge in one model. Each process also keeps what a
 * death leaves behind (its last event, whether it tore down, its ranks), and the survivors'
 * side of it is kept as it is seen (bananaphone:peer_dead, encnet:error).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/trace_names.h>

#include "model/model_int.h"

_Static_assert(PSA_STATE_NR == ENC_RUN_STATE_NR && PSA_SEAM_NR == ENC_SEAM_OP_NR,
	       "the model counts what the name catalogue lists");

static const char *const kind_names[ENC_TASK_KIND_NR] = { ENC_TASK_KINDS(ENC_TASK_KIND_NAME) };
static const char *const state_names[PSA_STATE_NR] = { ENC_RUN_STATES(ENC_RUN_STATE_NAME) };
static const char *const seam_names[PSA_SEAM_NR] = { ENC_SEAM_OPS(ENC_SEAM_OP_LABEL) };

const char *psa_kind_str(uint32_t kind)
{
	return kind < ENC_TASK_KIND_NR ? kind_names[kind] : "?";
}

const char *psa_state_str(uint32_t state)
{
	return state < PSA_STATE_NR ? state_names[state] : "?";
}

const char *psa_seam_str(enum psa_seam s)
{
	return (unsigned)s < PSA_SEAM_NR ? seam_names[s] : "?";
}

int psa_model_create(struct psa_model **out)
{
	struct psa_model *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	/* each map's slots as wide as its keys (model_int.h); none of these maps is walked, so
	 * they start small (a trace of 4 ranks is most of the model's memory in empty slots) */
	psa_hashmap_init_sized(&m->procs, 1, 8);
	psa__rk_init(&m->finished);
	psa_hashmap_init_sized(&m->net_live, 3, 8);
	psa__rk_init(&m->net_done);
	psa__rk_init(&m->sends_done);
	psa__rk_init(&m->triggers);
	psa_hashmap_init_sized(&m->workers, 2, 8);
	psa_hashmap_init_sized(&m->groups, 2, 8);
	psa_hashmap_init_sized(&m->net_err_idx, 3, 8);
	psa_hashmap_init_sized(&m->net_err_last, 3, 8);
	psa_hashmap_init_sized(&m->streams, 1, 8);
	*out = m;
	return 0;
}

void psa_model_destroy(struct psa_model *m)
{
	struct psa_task *t;

	if (!m)
		return;
	for (size_t i = 0; (t = psa__live_next(&m->tasks, &i));)
		psa__task_free(t);
	for (size_t i = 0; i < m->proc_list.n; i++) {
		free(m->proc_list.v[i]->ranks);
		free(m->proc_list.v[i]->rank_gid);
		free(m->proc_list.v[i]);
	}
	for (size_t i = 0; i < m->worker_list.n; i++)
		free(m->worker_list.v[i]);
	for (size_t i = 0; i < m->group_list.n; i++)
		free(m->group_list.v[i]);
	free(m->proc_list.v);
	free(m->worker_list.v);
	free(m->group_list.v);
	free(m->discards.v);
	free(m->faults.v);
	free(m->peer_deaths.v);
	free(m->net_errors.v);
	free(m->live.v);
	psa_hashmap_fini(&m->procs);
	psa__live_fini(&m->tasks);
	psa__rk_fini(&m->finished, psa__marks_free);
	psa_hashmap_fini(&m->net_live);
	psa__rk_fini(&m->net_done, psa__marks_free);
	psa__rk_fini(&m->sends_done, psa__marks_free);
	psa__rk_fini(&m->triggers, psa__marks_free);
	psa_hashmap_fini(&m->workers);
	psa_hashmap_fini(&m->groups);
	psa_hashmap_fini(&m->net_err_idx);
	psa_hashmap_fini(&m->net_err_last);
	psa_hashmap_fini(&m->streams);
	psa__fp_table_fini(&m->last_event);
	free(m);
}

int psa_model_add_observer(struct psa_model *m, const struct psa_observer *obs)
{
	if (m->obs_n == PSA_MODEL_OBSERVERS_MAX)
		return -ENOSPC;
	m->obs[m->obs_n++] = *obs;
	return 0;
}

static void sink_event(void *arg, const struct psa_event *ev)
{
	psa_model_feed(arg, ev);
}

static void sink_discard(void *arg, const struct psa_discard *d)
{
	psa_model_discard(arg, d);
}

void psa_model_sink(struct psa_model *m, struct psa_sink *sink)
{
	sink->event = sink_event;
	sink->discard = sink_discard;
	sink->arg = m;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool is_library_thread(const char *procname)
{
	return !strncmp(procname, "proxy-", 6) || !strncmp(procname, "encdev-", 7);
}

static struct psa_proc *proc_get(struct psa_model *m, const struct psa_event *ev)
{
	/* the host's name is part of the key: the entry's own copy (p->host) once inserted */
	struct psa_hkey key = PSA_HKEY(psa_key(str_hash(ev->host), (uint64_t)ev->vpid + 1),
				       ev->vpid);
	struct psa_proc *p;

	key.s = ev->host;
	p = psa_hashmap_find(&m->procs, &key);

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->id = (unsigned)m->proc_list.n;
		p->vpid = ev->vpid;
		p->first_ts = ev->ts_ns;
		memcpy(p->host, ev->host, sizeof(p->host));
		key.s = p->host;
		if (PSA_VEC_PUSH(m->proc_list, p) || psa_hashmap_insert(&m->procs, &key, p)) {
			free(p);
			return NULL;
		}
		m->totals.procs++;
	}
	if (!p->procname[0] && ev->procname[0] && !is_library_thread(ev->procname))
		memcpy(p->procname, ev->procname, sizeof(p->procname));
	if (ev->ts_ns > p->last_ts)
		p->last_ts = ev->ts_ns;
	return p;
}

/* Where @rank is in @p's ascending ranks, or would go. */
static uint32_t rank_at(const struct psa_proc *p, uint32_t rank)
{
	uint32_t lo = 0, hi = p->ranks_n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->ranks[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool psa_proc_has_rank(const struct psa_proc *p, uint32_t rank, uint32_t *gid)
{
	uint32_t i = rank_at(p, rank);

	if (i == p->ranks_n || p->ranks[i] != rank)
		return false;
	if (gid)
		*gid = p->rank_gid[i];
	return true;
}

/* Room for one more rank in @p; false when memory ran out (the rank is then not noted). */
static bool ranks_reserve(struct psa_proc *p)
{
	uint32_t cap = p->ranks_cap ? 2 * p->ranks_cap : 4;
	uint32_t *r, *g;

	if (p->ranks_n < p->ranks_cap)
		return true;
	r = realloc(p->ranks, cap * sizeof(*r));
	if (r)
		p->ranks = r;
	g = r ? realloc(p->rank_gid, cap * sizeof(*g)) : NULL;
	if (!g)
		return false;
	p->rank_gid = g;
	p->ranks_cap = cap;
	return true;
}

/*
 * What a task or device event says about its process: a rank (and gid) it runs, its job. Every
 * event of a rank comes here, so the rank is found by bisection: a process of 4096 ranks would
 * otherwise scan thousands of entries per event.
 */
static void proc_note_rank(struct psa_proc *p, const struct psa_event *ev)
{
	uint32_t rank = (uint32_t)ev->f[PSA_F_rank], i;

	if (psa_ev_has(ev, PSA_F_exec_id) && (uint64_t)ev->f[PSA_F_exec_id] > p->exec_max)
		p->exec_max = (uint64_t)ev->f[PSA_F_exec_id];
	if (!p->job && psa_ev_has(ev, PSA_F_job))
		p->job = (uint32_t)ev->f[PSA_F_job];
	i = rank_at(p, rank);
	if (i < p->ranks_n && p->ranks[i] == rank) {
		if (psa_ev_has(ev, PSA_F_gid))
			p->rank_gid[i] = (uint32_t)ev->f[PSA_F_gid];
		return;
	}
	if (!ranks_reserve(p))
		return;
	memmove(&p->ranks[i + 1], &p->ranks[i], (p->ranks_n - i) * sizeof(p->ranks[0]));
	memmove(&p->rank_gid[i + 1], &p->rank_gid[i], (p->ranks_n - i) * sizeof(p->rank_gid[0]));
	p->ranks[i] = rank;
	p->rank_gid[i] = (uint32_t)psa__f(ev, PSA_F_gid, 0);
	p->ranks_n++;
}

/* Worker time accounting: close the current mode at @ts, enter @mode. */
static void worker_mode(struct psa_worker *w, int mode, uint64_t ts)
{
	psa__worker_account(w, ts);
	w->mode = mode;
	w->mode_since = ts;
}

static struct psa_worker *worker_get(struct psa_model *m, const struct psa_proc *p,
				     const struct psa_event *ev)
{
	struct psa_hkey key = psa__proc_key(p, ev->vtid);
	struct psa_worker *w = psa_hashmap_find(&m->workers, &key);

	if (w)
		return w;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->proc = p;
	w->vtid = ev->vtid;
	w->gid = (uint32_t)psa__f(ev, PSA_F_gid, 0);
	w->begin_ts = w->mode_since = w->last_ts = ev->ts_ns;
	if (PSA_VEC_PUSH(m->worker_list, w) || psa_hashmap_insert(&m->workers, &key, w)) {
		free(w);
		return NULL;
	}
	m->totals.workers++;
	return w;
}

static void worker_event(struct psa_model *m, struct psa_proc *p, const struct psa_event *ev)
{
	struct psa_worker *w = worker_get(m, p, ev);

	if (!w)
		return;
	switch (ev->type) {
	case PSA_EV_encproxy_worker_begin:
		w->begin_ts = w->mode_since = ev->ts_ns;
		w->gid = (uint32_t)psa__f(ev, PSA_F_gid, w->gid);
		break;
	case PSA_EV_encproxy_worker_end:
		worker_mode(w, w->mode, ev->ts_ns);
		w->end_ts = ev->ts_ns;
		p->torn_down = true;
		break;
	case PSA_EV_encproxy_worker_sleep:
		worker_mode(w, 2, ev->ts_ns);
		break;
	case PSA_EV_encproxy_worker_idle_begin:
		w->idle_recorded = true;
		worker_mode(w, 1, ev->ts_ns);
		break;
	case PSA_EV_encproxy_worker_idle_end:
		w->idle_recorded = true;
		worker_mode(w, 0, ev->ts_ns);
		break;
	case PSA_EV_encproxy_worker_wakeup:
		worker_mode(w, 0, ev->ts_ns);
		break;
	default:
		break;
	}
}

static void group_event(struct psa_model *m, struct psa_proc *p, const struct psa_event *ev)
{
	uint32_t gid = (uint32_t)psa__f(ev, PSA_F_gid, 0);
	struct psa_hkey key = psa__proc_key(p, (uint64_t)gid + 1);
	struct psa_group *g = psa_hashmap_find(&m->groups, &key);

	if (!g) {
		g = calloc(1, sizeof(*g));
		if (!g)
			return;
		g->proc = p;
		g->gid = gid;
		if (PSA_VEC_PUSH(m->group_list, g) || psa_hashmap_insert(&m->groups, &key, g)) {
			free(g);
			return;
		}
		m->totals.groups++;
	}
	g->refcnt = (uint32_t)psa__f(ev, PSA_F_refcnt, g->refcnt);
	if (g->refcnt > g->refcnt_max)
		g->refcnt_max = g->refcnt;
	g->creates += ev->type == PSA_EV_encproxy_registry_create;
	g->shares += ev->type == PSA_EV_encproxy_registry_share;
	g->releases += ev->type == PSA_EV_encproxy_registry_release;
	g->destroys += ev->type == PSA_EV_encproxy_registry_destroy;
	if (ev->type == PSA_EV_encproxy_registry_destroy)
		p->torn_down = true;
}

static void peer_dead_event(struct psa_model *m, const struct psa_proc *p,
			    const struct psa_event *ev)
{
	struct psa_peer_dead d = {
		.observer = p,
		.dead_pid = (uint32_t)psa__f(ev, PSA_F_pid, 0),
		.dead_rank = (uint32_t)psa__f(ev, PSA_F_dead_rank, 0),
		.torn = psa__f(ev, PSA_F_torn, 0) != 0,
		.detected = psa__f(ev, PSA_F_detected, 0) != 0,
		.ts = ev->ts_ns,
	};

	PSA_VEC_PUSH(m->peer_deaths, d);
}

/* One entry per (process, rank, peer): the first error in full, then a count. */
static void net_error_event(struct psa_model *m, const struct psa_proc *p,
			    const struct psa_event *ev)
{
	uint32_t rank = (uint32_t)psa__f(ev, PSA_F_rank, 0);
	uint32_t peer = (uint32_t)psa__f(ev, PSA_F_peer, 0);
	struct psa_hkey key = psa__net_err_key(p, rank, (uint64_t)peer + 1);
	struct psa_hkey last_key = psa__net_err_key(p, rank, 0);
	size_t idx = (size_t)(uintptr_t)psa_hashmap_find(&m->net_err_idx, &key);
	struct psa_net_error *e;

	if (!idx) {
		struct psa_net_error n = {
			.proc = p, .rank = rank, .peer = peer,
			.err = (int)psa__f(ev, PSA_F_err, 0),
			.prov_errno = (int)psa__f(ev, PSA_F_prov_errno, 0),
			.first_ts = ev->ts_ns,
		};

		memcpy(n.text, ev->text, sizeof(n.text));
		if (PSA_VEC_PUSH(m->net_errors, n))
			return;
		idx = m->net_errors.n;
		if (psa_hashmap_insert(&m->net_err_idx, &key, (void *)(uintptr_t)idx))
			return;
	}
	e = &m->net_errors.v[idx - 1];
	e->count++;
	e->last_ts = ev->ts_ns;
	psa_hashmap_insert(&m->net_err_last, &last_key, (void *)(uintptr_t)idx);
}

static void device_event(struct psa_model *m, const struct psa_proc *p, const struct psa_event *ev)
{
	uint32_t rank = (uint32_t)psa__f(ev, PSA_F_rank, 0);
	uint64_t exec_id = (uint64_t)psa__f(ev, PSA_F_exec_id, 0);

	if (ev->type == PSA_EV_encdev_trigger_write) {
		uint64_t stream = (uint64_t)psa__f(ev, PSA_F_stream, 0);
		psa__marks_add(psa__rk_cell(&m->triggers, p->id, rank, stream), exec_id);
	} else if (ev->type == PSA_EV_encdev_fault) {
		struct psa_device_fault f = {
			.proc = p, .rank = rank, .exec_id = exec_id,
			.kind = (uint32_t)psa__f(ev, PSA_F_kind, 0),
			.stream = (uint32_t)psa__f(ev, PSA_F_stream, 0),
			.arg = (uint64_t)psa__f(ev, PSA_F_arg, 0), .ts = ev->ts_ns,
		};

		PSA_VEC_PUSH(m->faults, f);
	}
}

static void task_event(struct psa_model *m, const struct psa_proc *p, const struct psa_event *ev)
{
	struct psa_task *t = psa__task_get(m, p, ev);

	if (!t)
		return;
	t->last_ts = ev->ts_ns;
	/* A task first seen through an encnet event (no gid there) learns it from later ones. */
	if (psa_ev_has(ev, PSA_F_gid))
		t->gid = (uint32_t)ev->f[PSA_F_gid];
	switch (ev->type) {
	case PSA_EV_encproxy_task_state:
		psa__task_state(m, t, ev); /* may finish and free t */
		return;
	case PSA_EV_encproxy_seam_start:
		psa__task_seam(m, t, ev, PSA_SEAM_START);
		return;
	case PSA_EV_encproxy_seam_progress:
		psa__task_seam(m, t, ev, PSA_SEAM_PROGRESS);
		return;
	case PSA_EV_encproxy_seam_stop:
		psa__task_seam(m, t, ev, PSA_SEAM_STOP);
		return;
	case PSA_EV_encnet_post:
	case PSA_EV_encnet_complete:
		psa__task_net(m, t, ev);
		return;
	default:
		psa__task_instant(m, t, ev);
		return;
	}
}

void psa_model_set_snapshot(struct psa_model *m)
{
	m->snapshot = true;
}

/* A snapshot's streams: the events come in time order, so a stream's first is its beginning. */
static void stream_note(struct psa_model *m, const struct psa_proc *p, const struct psa_event *ev)
{
	/* (host, cpu): the host's name is the event's process's copy, which outlives the map */
	struct psa_hkey key = PSA_HKEY(psa_key(str_hash(ev->host), (uint64_t)ev->cpu + 1), ev->cpu);

	key.s = p->host;
	if (psa_hashmap_find(&m->streams, &key))
		return;
	if (psa_hashmap_insert(&m->streams, &key, (void *)1) == 0 && ev->ts_ns > m->complete_from)
		m->complete_from = ev->ts_ns;
}

/* The catalogue's log level of each event type. */
static const unsigned char ev_level[PSA_EV_NR] = {
#define EV_LEVEL(provider, event, level) [PSA_EV_##provider##_##event] = level,
	ENC_TP_ALL_EVENTS(EV_LEVEL)
#undef EV_LEVEL
};

void psa_model_feed(struct psa_model *m, const struct psa_event *ev)
{
	struct psa_proc *p;

	if (ev->type == PSA_EV_UNKNOWN || ev->type >= PSA_EV_NR) {
		m->totals.events++;
		return;
	}
	p = proc_get(m, ev);
	if (!p || psa__model_is_repeat(m, p, ev))
		return;
	m->totals.events++;
	m->totals.our_events++;
	m->totals.levels_seen |= 1u << ev_level[ev->type];
	if (ev->type == PSA_EV_encproxy_watchdog_timeout &&
	    (uint32_t)psa__f(ev, PSA_F_timeout_ms, 0) > m->totals.timeout_ms_max)
		m->totals.timeout_ms_max = (uint32_t)psa__f(ev, PSA_F_timeout_ms, 0);
	if (!m->totals.first_ts || ev->ts_ns < m->totals.first_ts)
		m->totals.first_ts = ev->ts_ns;
	if (ev->ts_ns > m->totals.last_ts)
		m->totals.last_ts = ev->ts_ns;
	if (m->snapshot)
		stream_note(m, p, ev);
	if (ev->type == PSA_EV_encproxy_seam_progress || ev->type == PSA_EV_encproxy_trigger_read ||
	    ev->type == PSA_EV_encproxy_status_poll)
		m->totals.debug_events = true;
	p->progress_records += ev->type == PSA_EV_encproxy_task_progress;
	if (psa_ev_has(ev, PSA_F_rank) &&
	    (psa_ev_has(ev, PSA_F_task_id) || ev->type == PSA_EV_encdev_trigger_write ||
	     ev->type == PSA_EV_encdev_fault))
		proc_note_rank(p, ev);
	if (!strncmp(ev->procname, "proxy-", 6)) {
		struct psa_worker *w = worker_get(m, p, ev);

		if (w) {
			w->last_ts = ev->ts_ns;
			w->steps_seen++;
		}
	}
	switch (ev->type) {
	case PSA_EV_encproxy_registry_create:
	case PSA_EV_encproxy_registry_share:
	case PSA_EV_encproxy_registry_release:
	case PSA_EV_encproxy_registry_destroy:
		group_event(m, p, ev);
		break;
	case PSA_EV_encproxy_worker_begin:
	case PSA_EV_encproxy_worker_end:
	case PSA_EV_encproxy_worker_sleep:
	case PSA_EV_encproxy_worker_wakeup:
	case PSA_EV_encproxy_worker_idle_begin:
	case PSA_EV_encproxy_worker_idle_end:
		worker_event(m, p, ev);
		break;
	case PSA_EV_encdev_trigger_write:
	case PSA_EV_encdev_sema_wait_begin:
	case PSA_EV_encdev_sema_wait_end:
	case PSA_EV_encdev_fault:
		device_event(m, p, ev);
		break;
	case PSA_EV_bananaphone_peer_dead:
		peer_dead_event(m, p, ev);
		break;
	case PSA_EV_encnet_error:
		net_error_event(m, p, ev);
		break;
	default:
		if (psa_ev_has(ev, PSA_F_task_id))
			task_event(m, p, ev);
		break;
	}
}

void psa_model_discard(struct psa_model *m, const struct psa_discard *d)
{
	if (d->packets)
		m->totals.discarded_packets += d->count;
	else
		m->totals.discarded_events += d->count;
	m->totals.discards++;
	PSA_VEC_PUSH(m->discards, *d);
}
