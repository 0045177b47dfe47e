/* SPDX-License-Identifier: MIT */
/*
 * A host cut off from the others (the partition fault): a process on it recorded that its
 * host's link was about to go down (encdev:fault PARTITION) as one of its ranks started an
 * exec. The evidence comes from the trace alone - the fault is recorded on the host that lost
 * its link, and the host's name is the one its own trace carries - and the verdict is a death
 * of the whole host: one host_unreachable stall that stands for it, to which its processes'
 * open tasks, every chain that reaches one of its ranks, the messages from its ranks that never
 * arrived and the other hosts' tasks that failed on its ranks after the cut all lead. A rank of
 * another host is then never the root of what the cut caused.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "watchdog/watchdog_int.h"

#define S_PER_NS 1e-9
#define WITNESSES_SHOWN 8

/* The ranks the processes of @host ran, into @d. */
static void host_ranks(const struct psa_model *m, const char *host, struct psa__death *d)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);

	for (size_t i = 0; i < n; i++) {
		const struct psa_proc *p = procs[i];

		if (strcmp(p->host, host))
			continue;
		for (uint32_t k = 0; k < p->ranks_n && d->ranks_n < PSA__HOST_RANKS_MAX; k++)
			if (!psa__death_holds_rank(d, d->job, p->ranks[k]))
				d->ranks[d->ranks_n++] = p->ranks[k];
	}
}

static bool add_unique(uint32_t *v, size_t *n, size_t max, uint32_t x)
{
	for (size_t i = 0; i < *n; i++)
		if (v[i] == x)
			return false;
	if (*n < max)
		v[(*n)++] = x;
	return true;
}

/* Whether @host's stream is silent now (live: its horizon is before the present). */
static bool host_behind(const struct psa_watchdog *w, const char *host)
{
	for (size_t i = 0; i < w->silent_n; i++) {
		const struct psa_silent_host *h = &w->silent[i];

		if (!strcmp(h->host, host) && h->since_ts < w->trace_end &&
		    h->heard_ts < w->trace_end)
			return true;
	}
	return false;
}

/*
 * The ranks of other hosts that the cut left waiting: an op with one of its ranks still
 * outstanding at the end, or an op that failed on one after the cut. Live (@heard_only, a
 * silent host judged), only a host heard up to the present witnesses: a host cut off waits on
 * every other, and a host whose stream only lags (its consumer daemon starved for seconds on a
 * loaded machine) may have gone quiet just before it - the cut host's last waits then point at
 * the late one (seen: host0, only late, named the root of host1's partition).
 */
static size_t witnesses(const struct psa_watchdog *w, const struct psa_model *m,
			const struct psa__death *d, bool heard_only, uint32_t *out, size_t max)
{
	size_t n, live_n, got = 0, all = 0;
	const struct psa_net_error *e = psa_model_net_errors(m, &n);
	const struct psa_task *const *live = psa_model_live_tasks(m, &live_n);

	for (size_t i = 0; i < live_n; i++) {
		const struct psa_task *t = live[i];

		if (!strcmp(t->proc->host, d->host) || !psa__same_job(t->job, d->job) ||
		    psa__watchdog_horizon(w, t) <= d->cut_ts ||
		    (heard_only && host_behind(w, t->proc->host)))
			continue;
		for (uint32_t k = 0; k < t->ops_n; k++)
			if (!t->ops[k].done_ts && psa__death_holds_rank(d, t->job, t->ops[k].peer) &&
			    add_unique(out, &got, max, t->rank))
				all++;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].proc->host, d->host) && e[i].last_ts >= d->cut_ts &&
		    !(heard_only && host_behind(w, e[i].proc->host)) &&
		    psa__death_holds_rank(d, e[i].proc->job, e[i].peer) &&
		    add_unique(out, &got, max, e[i].rank))
			all++;
	return all;
}

static void ranks_list(struct psa_stall *s, const uint32_t *r, size_t n, size_t all)
{
	for (size_t i = 0; i < n; i++)
		psa__detail_add(s, "%s%u", i ? ", " : "", r[i]);
	if (all > n)
		psa__detail_add(s, ", ...");
}

static void cut_detail(const struct psa_watchdog *w, const struct psa_model *m,
		       const struct psa__death *d, const struct psa_device_fault *f, uint64_t end,
		       struct psa_stall *s)
{
	uint32_t seen[WITNESSES_SHOWN];
	size_t all = witnesses(w, m, d, false, seen, WITNESSES_SHOWN);
	size_t shown = all < WITNESSES_SHOWN ? all : WITNESSES_SHOWN;

	s->detail[0] = '\0';
	psa__detail_add(s, "its link went down as rank %u started exec %llu (an injected "
			"partition fault, recorded on %s), %.3f s before the trace ends", f->rank,
			(unsigned long long)f->exec_id, d->host,
			(double)(end - d->cut_ts) * S_PER_NS);
	if (shown) {
		psa__detail_add(s, "; rank%s ", all > 1 ? "s" : "");
		ranks_list(s, seen, shown, all);
		psa__detail_add(s, " of the other hosts waited on its ranks");
	}
}

/* Whether @host's cut is one of @deaths already. */
static bool host_seen(const struct psa__death *deaths, size_t n, const char *host)
{
	for (size_t i = 0; i < n; i++)
		if (!deaths[i].proc && !strcmp(deaths[i].host, host))
			return true;
	return false;
}

static int add_cut(struct psa_watchdog *w, const struct psa_model *m,
		   const struct psa_device_fault *f)
{
	struct psa__death *d = psa__death_add(w);
	struct psa_stall *s;

	if (!d || !(s = psa__stall_add(w)))
		return -ENOMEM;
	d->stall = w->n - 1;
	snprintf(d->host, sizeof(d->host), "%s", f->proc->host);
	d->job = f->proc->job;
	d->cut_ts = f->ts;
	host_ranks(m, d->host, d);
	w->deaths_n++;

	s->proc = f->proc->id;
	s->vpid = f->proc->vpid;
	memcpy(s->host, f->proc->host, sizeof(s->host));
	s->rank = f->rank;
	psa_proc_has_rank(f->proc, f->rank, &s->gid);
	s->job = f->proc->job;
	s->kind = 0;
	s->state = PSA_STATE_NR;
	s->exec_id = f->exec_id;
	s->duration_ns = w->trace_end > f->ts ? w->trace_end - f->ts : 0;
	s->since_ts = f->ts;
	s->cause = PSA_CAUSE_HOST_UNREACHABLE;
	s->root_cause = true;
	s->process = true;
	s->host_wide = true;
	for (uint32_t k = 0; k < PSA_STREAMS_MAX; k++)
		s->trigger_last[k] = PSA_TRIGGER_UNREAD;
	cut_detail(w, m, d, f, w->trace_end, s);
	return 0;
}

int psa__watchdog_hosts_cut(struct psa_watchdog *w, const struct psa_model *m)
{
	size_t n;
	const struct psa_device_fault *f = psa_model_device_faults(m, &n);

	/* In time order: a host's first partition fault is its cut. */
	for (size_t i = 0; i < n; i++)
		if (f[i].kind == PSA_FAULT_PARTITION && f[i].ts <= w->trace_end &&
		    !host_seen(w->deaths, w->deaths_n, f[i].proc->host) && add_cut(w, m, &f[i]))
			return -ENOMEM;
	return 0;
}

/* A process of @host in @m, or NULL: the one whose ranks start lowest. */
static const struct psa_proc *proc_on(const struct psa_model *m, const char *host)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);
	const struct psa_proc *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(procs[i]->host, host) && procs[i]->ranks_n &&
		    (!best || procs[i]->ranks[0] < best->ranks[0]))
			best = procs[i];
	return best;
}

/* Whether a process the stream showed holds @rank of @job. */
static bool rank_shown(const struct psa_model *m, uint32_t job, uint32_t rank)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);

	for (size_t i = 0; i < n; i++)
		if (psa__same_job(procs[i]->job, job) && psa_proc_has_rank(procs[i], rank, NULL))
			return true;
	return false;
}

/*
 * A silent host none of whose processes the stream showed (seen: at load 12-16 a host's
 * consumer daemon flushed nothing before its link went down): its ranks are those the tasks of
 * hosts heard after it wait on and no process shown holds, when it is the only silent host
 * without a process shown (else whose they are is not known). Into @d (job and ranks).
 */
static void unshown_ranks(const struct psa_watchdog *w, const struct psa_model *m,
			  const struct psa_silent_host *h, struct psa__death *d)
{
	size_t live_n, unshown = 0;
	const struct psa_task *const *live = psa_model_live_tasks(m, &live_n);

	for (size_t i = 0; i < w->silent_n; i++)
		unshown += !proc_on(m, w->silent[i].host) &&
			   !host_seen(w->deaths, w->deaths_n, w->silent[i].host);
	if (unshown != 1)
		return;
	for (size_t i = 0; i < live_n; i++) {
		const struct psa_task *t = live[i];

		if (psa__watchdog_horizon(w, t) <= h->since_ts)
			continue;
		for (uint32_t k = 0; k < t->ops_n && d->ranks_n < PSA__HOST_RANKS_MAX; k++) {
			uint32_t peer = t->ops[k].peer;

			if (t->ops[k].done_ts || rank_shown(m, t->job, peer) ||
			    (d->ranks_n && !psa__same_job(d->job, t->job)) ||
			    psa__death_holds_rank(d, t->job, peer))
				continue;
			d->job = t->job;
			d->ranks[d->ranks_n++] = peer;
		}
	}
}

static void silent_detail(const struct psa__death *d, const uint32_t *seen, size_t shown,
			  size_t all, uint64_t end, struct psa_stall *s)
{
	s->detail[0] = '\0';
	psa__detail_add(s, "its stream has been silent for %.3f s while the other hosts' went on "
			"(no event and no beacon of its session since), and rank%s ",
			(double)(end - d->cut_ts) * S_PER_NS, all > 1 ? "s" : "");
	ranks_list(s, seen, shown, all);
	psa__detail_add(s, " of the other hosts wait%s on its ranks", all > 1 ? "" : "s");
}

/*
 * A silent host (live: its stream stopped while the others went on) that tasks of other hosts
 * wait on is judged as a cut at its last vouched time: the same death of the whole host as a
 * recorded partition, so its tasks and every chain reaching its ranks lead to it and no rank
 * of another host is the root of that wait. Nobody waiting on it: nothing to say (a quiet host
 * is not a stall).
 */
static int add_silent(struct psa_watchdog *w, const struct psa_model *m,
		      const struct psa_silent_host *h)
{
	const struct psa_proc *p = proc_on(m, h->host);
	uint32_t seen[WITNESSES_SHOWN];
	struct psa__death *d;
	struct psa_stall *s;
	size_t all, shown;

	if (h->since_ts >= w->trace_end)
		return 0;
	if (!(d = psa__death_add(w)))
		return -ENOMEM;
	snprintf(d->host, sizeof(d->host), "%s", h->host);
	d->cut_ts = h->since_ts;
	if (p) {
		d->job = p->job;
		host_ranks(m, d->host, d);
	} else {
		unshown_ranks(w, m, h, d);
	}
	all = d->ranks_n ? witnesses(w, m, d, true, seen, WITNESSES_SHOWN) : 0;
	if (!all)
		return 0; /* the entry is not counted: the next psa__death_add reuses it */
	if (!(s = psa__stall_add(w)))
		return -ENOMEM;
	d->stall = w->n - 1;
	w->deaths_n++;
	/* no process shown: none to name (proc UINT_MAX, pid 0) */
	s->proc = p ? p->id : UINT_MAX;
	s->vpid = p ? p->vpid : 0;
	memcpy(s->host, d->host, sizeof(s->host));
	s->rank = d->ranks[0];
	if (p)
		psa_proc_has_rank(p, s->rank, &s->gid);
	s->job = d->job;
	s->state = PSA_STATE_NR;
	s->duration_ns = w->trace_end - h->since_ts;
	s->since_ts = h->since_ts;
	s->cause = PSA_CAUSE_HOST_UNREACHABLE;
	s->root_cause = true;
	s->process = true;
	s->host_wide = true;
	s->silent = true;
	for (uint32_t k = 0; k < PSA_STREAMS_MAX; k++)
		s->trigger_last[k] = PSA_TRIGGER_UNREAD;
	shown = all < WITNESSES_SHOWN ? all : WITNESSES_SHOWN;
	silent_detail(d, seen, shown, all, w->trace_end, s);
	return 0;
}

int psa__watchdog_hosts_silent(struct psa_watchdog *w, const struct psa_model *m)
{
	for (size_t i = 0; i < w->silent_n; i++)
		if (!host_seen(w->deaths, w->deaths_n, w->silent[i].host) &&
		    add_silent(w, m, &w->silent[i]))
			return -ENOMEM;
	return 0;
}
