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

/*
 * The ranks of other hosts that the cut left waiting: an op with one of its ranks still
 * outstanding at the end, or an op that failed on one after the cut.
 */
static size_t witnesses(const struct psa_model *m, const struct psa__death *d, uint32_t *out,
			size_t max)
{
	size_t n, live_n, got = 0, all = 0;
	const struct psa_net_error *e = psa_model_net_errors(m, &n);
	const struct psa_task *const *live = psa_model_live_tasks(m, &live_n);

	for (size_t i = 0; i < live_n; i++) {
		const struct psa_task *t = live[i];

		if (!strcmp(t->proc->host, d->host) || !psa__same_job(t->job, d->job))
			continue;
		for (uint32_t k = 0; k < t->ops_n; k++)
			if (!t->ops[k].done_ts && psa__death_holds_rank(d, t->job, t->ops[k].peer) &&
			    add_unique(out, &got, max, t->rank))
				all++;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(e[i].proc->host, d->host) && e[i].last_ts >= d->cut_ts &&
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

static void cut_detail(const struct psa_model *m, const struct psa__death *d,
		       const struct psa_device_fault *f, uint64_t end, struct psa_stall *s)
{
	uint32_t seen[WITNESSES_SHOWN];
	size_t all = witnesses(m, d, seen, WITNESSES_SHOWN);
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
	cut_detail(m, d, f, w->trace_end, s);
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
