/* SPDX-License-Identifier: MIT */
/*
 * A process that died: its events stop with no teardown (no worker end, no registry destroy)
 * while other processes' go on, and something confirms it - the kill fault it recorded just
 * before dying, a survivor's bootstrap bus naming its pid dead, or survivors' transport errors
 * with -ESRCH naming its ranks. Silence alone (a trace cut short, an interrupted run) is not a
 * death. Each death becomes one process_died stall that stands for the process; the tasks it
 * leaves open, the survivors' tasks that failed on its ranks, and every chain that reaches one
 * of its ranks lead to it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "watchdog/watchdog_int.h"

#define S_PER_NS 1e-9
#define RANKS_SHOWN 8

/* The kill fault @p recorded (the last one), or NULL. */
static const struct psa_device_fault *kill_fault(const struct psa_model *m,
						 const struct psa_proc *p)
{
	size_t n;
	const struct psa_device_fault *f = psa_model_device_faults(m, &n);
	const struct psa_device_fault *found = NULL;

	for (size_t i = 0; i < n; i++)
		if (f[i].proc == p && f[i].kind == PSA_FAULT_KILL)
			found = &f[i];
	return found;
}

/* A survivor's bootstrap bus saw @p's pid die. */
static const struct psa_peer_dead *peer_dead_of(const struct psa_model *m,
						const struct psa_proc *p)
{
	size_t n;
	const struct psa_peer_dead *d = psa_model_peer_deaths(m, &n);

	for (size_t i = 0; i < n; i++)
		if (d[i].observer != p && d[i].dead_pid == p->vpid && !strcmp(d[i].observer->host, p->host))
			return &d[i];
	return NULL;
}

bool psa__same_job(uint32_t a, uint32_t b)
{
	return !a || !b || a == b;
}

/* Whether @e is another process's error saying that a rank of @p is dead. */
static bool names_dead(const struct psa_net_error *e, const struct psa_proc *p)
{
	return e->proc != p && e->err == -ESRCH && psa__same_job(e->proc->job, p->job) &&
	       psa_proc_has_rank(p, e->peer, NULL);
}

/* A process's ranks, "rank 3" or "ranks 2, 3" (@and false); the ranks that saw it, "rank 0",
 * "rank 0 and rank 1", "ranks 0, 1 and 4" (@and true). */
static void ranks_text(const uint32_t *r, size_t n, bool and, char *buf, size_t len)
{
	size_t used = 0, shown = n > RANKS_SHOWN ? RANKS_SHOWN : n;

	buf[0] = '\0';
	if (n == 1) {
		snprintf(buf, len, "rank %u", r[0]);
		return;
	}
	if (n == 2 && and) {
		snprintf(buf, len, "rank %u and rank %u", r[0], r[1]);
		return;
	}
	used += (size_t)snprintf(buf, len, "ranks");
	for (size_t i = 0; i < shown && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u",
					 i == 0 ? " " : and && i + 1 == n ? " and " : ", ", r[i]);
	if (shown < n && used < len)
		snprintf(buf + used, len - used, ", ...");
}

/* The survivors' ranks that saw an ESRCH from @p's ranks, ascending, without repeats. */
static size_t witnesses(const struct psa_model *m, const struct psa_proc *p, uint32_t *out,
			size_t max)
{
	size_t n, got = 0;
	const struct psa_net_error *e = psa_model_net_errors(m, &n);

	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (!names_dead(&e[i], p))
			continue;
		for (k = 0; k < got && out[k] < e[i].rank; k++)
			;
		if ((k < got && out[k] == e[i].rank) || got == max)
			continue;
		memmove(&out[k + 1], &out[k], (got - k) * sizeof(*out));
		out[k] = e[i].rank;
		got++;
	}
	return got;
}

void psa__detail_add(struct psa_stall *s, const char *fmt, ...)
{
	size_t used = strlen(s->detail);
	va_list ap;

	if (used + 1 >= sizeof(s->detail))
		return;
	va_start(ap, fmt);
	vsnprintf(s->detail + used, sizeof(s->detail) - used, fmt, ap);
	va_end(ap);
}

static void death_detail(const struct psa_model *m, const struct psa_proc *p,
			 const struct psa_device_fault *kill, const struct psa_peer_dead *pd,
			 uint64_t end, struct psa_stall *s)
{
	uint32_t seen[RANKS_SHOWN + 1];
	size_t seen_n = witnesses(m, p, seen, RANKS_SHOWN + 1);
	char ranks[96];

	if (p->ranks_n)
		ranks_text(p->ranks, p->ranks_n, false, ranks, sizeof(ranks));
	else
		snprintf(ranks, sizeof(ranks), "no rank in the trace");
	s->detail[0] = '\0';
	psa__detail_add(s, "the process of %s (pid %u) died", ranks, p->vpid);
	s->observed = kill || seen_n || pd;
	if (kill)
		psa__detail_add(s, " as rank %u started exec %llu (an injected kill fault)", kill->rank,
			   (unsigned long long)kill->exec_id);
	psa__detail_add(s, ": its events stop %.3f s before the trace ends, with no teardown",
		   (double)(end - p->last_ts) * S_PER_NS);
	if (seen_n) {
		ranks_text(seen, seen_n, true, ranks, sizeof(ranks));
		psa__detail_add(s, "; %s saw it (ops failed with ESRCH)", ranks);
	} else if (pd) {
		psa__detail_add(s, "; pid %u saw it die on the bootstrap bus", pd->observer->vpid);
	}
}

/* The rank a death is named by: the killed rank, else the one survivors' errors name first. */
static uint32_t death_rank(const struct psa_model *m, const struct psa_proc *p,
			   const struct psa_device_fault *kill)
{
	size_t n;
	const struct psa_net_error *e = psa_model_net_errors(m, &n);

	if (kill)
		return kill->rank;
	for (size_t i = 0; i < n; i++)
		if (names_dead(&e[i], p))
			return e[i].peer;
	return p->ranks_n ? p->ranks[0] : PSA_RANK_NONE;
}

static bool others_go_on(const struct psa_model *m, const struct psa_proc *p)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);

	for (size_t i = 0; i < n; i++)
		if (procs[i] != p && procs[i]->last_ts > p->last_ts)
			return true;
	return false;
}

static bool errors_name(const struct psa_model *m, const struct psa_proc *p)
{
	size_t n;
	const struct psa_net_error *e = psa_model_net_errors(m, &n);

	for (size_t i = 0; i < n; i++)
		if (names_dead(&e[i], p))
			return true;
	return false;
}

struct psa__death *psa__death_add(struct psa_watchdog *w)
{
	struct psa__death *d = realloc(w->deaths, (w->deaths_n + 1) * sizeof(*d));

	if (!d)
		return NULL;
	w->deaths = d;
	d = &w->deaths[w->deaths_n];
	memset(d, 0, sizeof(*d));
	return d;
}

static int add_death(struct psa_watchdog *w, const struct psa_model *m, const struct psa_proc *p,
		     const struct psa_device_fault *kill, const struct psa_peer_dead *pd)
{
	struct psa__death *d = psa__death_add(w);
	struct psa_stall *s;

	if (!d || !(s = psa__stall_add(w)))
		return -ENOMEM;
	d->stall = w->n - 1;
	d->proc = p;
	w->deaths_n++;
	s->proc = p->id;
	s->vpid = p->vpid;
	memcpy(s->host, p->host, sizeof(s->host));
	s->rank = death_rank(m, p, kill);
	psa_proc_has_rank(p, s->rank, &s->gid);
	s->job = p->job;
	s->kind = 0;
	s->state = PSA_STATE_NR;
	s->exec_id = kill ? kill->exec_id : p->exec_max;
	s->duration_ns = w->trace_end - p->last_ts;
	s->since_ts = p->last_ts;
	s->cause = PSA_CAUSE_PROCESS_DIED;
	s->root_cause = true;
	s->process = true;
	/* The kill fault is recorded by the process itself: lost events cannot fake it. */
	if (!kill && psa__watchdog_lost_in(m, p->last_ts, w->trace_end))
		psa__stall_unsure(s, PSA_UNSURE_LOST);
	for (uint32_t k = 0; k < PSA_STREAMS_MAX; k++)
		s->trigger_last[k] = PSA_TRIGGER_UNREAD;
	death_detail(m, p, kill, pd, w->trace_end, s);
	return 0;
}

int psa__watchdog_deaths(struct psa_watchdog *w, const struct psa_model *m)
{
	size_t n;
	const struct psa_proc *const *procs = psa_model_procs(m, &n);

	for (size_t i = 0; i < n; i++) {
		const struct psa_proc *p = procs[i];
		const struct psa_device_fault *kill;
		const struct psa_peer_dead *pd;

		if (p->torn_down || !others_go_on(m, p))
			continue;
		kill = kill_fault(m, p);
		pd = peer_dead_of(m, p);
		if (!kill && !pd && !errors_name(m, p))
			continue;
		if (add_death(w, m, p, kill, pd))
			return -ENOMEM;
	}
	return 0;
}

/* The death @p is part of: its own, or its host's cut. */
static int death_of_proc(const struct psa_watchdog *w, const struct psa_proc *p)
{
	for (size_t i = 0; i < w->deaths_n; i++) {
		const struct psa__death *d = &w->deaths[i];

		if (d->proc ? d->proc == p : !strcmp(d->host, p->host))
			return (int)d->stall;
	}
	return -1;
}

bool psa__death_holds_rank(const struct psa__death *d, uint32_t job, uint32_t rank)
{
	if (d->proc)
		return psa__same_job(d->proc->job, job) && psa_proc_has_rank(d->proc, rank, NULL);
	if (!psa__same_job(d->job, job))
		return false;
	for (uint32_t i = 0; i < d->ranks_n; i++)
		if (d->ranks[i] == rank)
			return true;
	return false;
}

int psa__watchdog_death_of_rank(const struct psa_watchdog *w, uint32_t job, uint32_t rank)
{
	for (size_t i = 0; i < w->deaths_n; i++)
		if (psa__death_holds_rank(&w->deaths[i], job, rank))
			return (int)w->deaths[i].stall;
	return -1;
}

/* A host's cut explains a failure on one of its ranks, or (peer unknown) any failure of its
 * job after the cut. */
static bool cut_explains(const struct psa__death *d, const struct psa_stall *s, int64_t peer,
			 uint64_t ts)
{
	if (ts < d->cut_ts)
		return false;
	return peer >= 0 ? psa__death_holds_rank(d, s->job, (uint32_t)peer)
			 : psa__same_job(d->job, s->job);
}

/*
 * The death a failed task of another process is explained by: a host cut off before it failed
 * (@ts) that holds the rank it failed on (any, with the peer unknown); else the process holding
 * that rank, when it failed with ESRCH or after that process went silent; with the peer
 * unknown, the one death of its job when it failed with ESRCH.
 */
static int death_of_failure(const struct psa_watchdog *w, unsigned proc, const struct psa_stall *s,
			    int64_t peer, uint64_t ts)
{
	int found = -1;

	for (size_t i = 0; i < w->deaths_n; i++)
		if (!w->deaths[i].proc && cut_explains(&w->deaths[i], s, peer, ts))
			return (int)w->deaths[i].stall;
	if (peer >= 0) {
		for (size_t i = 0; i < w->deaths_n && found < 0; i++) {
			const struct psa_proc *p = w->deaths[i].proc;

			if (p && psa__same_job(p->job, s->job) && psa_proc_has_rank(p, (uint32_t)peer, NULL) &&
			    (s->status == -ESRCH || ts >= p->last_ts))
				found = (int)w->deaths[i].stall;
		}
	} else if (s->status == -ESRCH) {
		for (size_t i = 0; i < w->deaths_n; i++) {
			if (!w->deaths[i].proc || !psa__same_job(w->deaths[i].proc->job, s->job))
				continue;
			if (found >= 0)
				return -1; /* two deaths: which one is not known */
			found = (int)w->deaths[i].stall;
		}
	}
	if (found >= 0 && w->stalls[found].proc == proc)
		return -1;
	return found;
}

static void failed_detail(const struct psa_model *m, const struct psa__failed_task *f,
			  struct psa_stall *s)
{
	size_t n;
	const struct psa_net_error *e = psa_model_net_errors(m, &n);
	const char *text = "";

	for (size_t i = 0; f->peer >= 0 && i < n; i++)
		if (e[i].proc->id == f->proc && e[i].rank == s->rank &&
		    e[i].peer == (uint32_t)f->peer && e[i].err == s->status)
			text = e[i].text;
	if (f->peer >= 0)
		snprintf(s->detail, sizeof(s->detail),
			 "the task failed with status %d (%s) on rank %lld%s%s%s", s->status,
			 strerror(-s->status), (long long)f->peer, text[0] ? ": \"" : "", text,
			 text[0] ? "\"" : "");
	else
		snprintf(s->detail, sizeof(s->detail), "the task failed with status %d (%s)",
			 s->status, strerror(-s->status));
}

/* The transport's words for a connection that broke (the ofi backend's errno over tcp). Not
 * -EPIPE: the loop backend fails a block with it when its peer's comm closed, at the end. */
static bool connection_broken(int status)
{
	return status == -ENOTCONN || status == -ECONNRESET || status == -ECONNABORTED;
}

/* "; no process died: the connection broke" and the net-break fault its host recorded, if any. */
static void broken_note(const struct psa_model *m, struct psa_stall *s)
{
	size_t n, used = strlen(s->detail);
	const struct psa_device_fault *d = psa_model_device_faults(m, &n);
	const struct psa_device_fault *fault = NULL;

	for (size_t i = 0; i < n && !fault; i++)
		if (d[i].kind == PSA_FAULT_NET_BREAK && d[i].proc && !strcmp(d[i].proc->host, s->host))
			fault = &d[i];
	if (used >= sizeof(s->detail))
		return;
	snprintf(s->detail + used, sizeof(s->detail) - used,
		 "; no process died: the connection broke%s", fault ? " (an injected net-break "
		 "fault, recorded on its host)" : "");
}

static int stall_cmp(const void *a, const void *b)
{
	const struct psa_stall *x = a, *y = b;
	struct psa_task_key kx = { x->proc, x->rank, x->exec_id, x->kind, x->task_id };
	struct psa_task_key ky = { y->proc, y->rank, y->exec_id, y->kind, y->task_id };

	return psa_task_key_cmp(&kx, &ky);
}

/* The failed tasks a death explains, after the deaths, sorted as the open tasks are. Nothing
 * points at them yet (the chains are followed later), so they can move. */
int psa__watchdog_add_failed(struct psa_watchdog *w, const struct psa_model *m)
{
	size_t first = w->n;

	for (size_t i = 0; i < w->failed_n; i++) {
		const struct psa__failed_task *f = &w->failed[i];
		int root = w->deaths_n ? death_of_failure(w, f->proc, &f->s, f->peer, f->ts) : -1;
		struct psa_stall *s = NULL;

		if (f->s.status >= 0 || (root < 0 && !connection_broken(f->s.status)))
			continue;
		/* Over the threshold too: the failure says more than the slow state. */
		for (size_t k = 0; k < w->n && !s; k++)
			if (w->stalls[k].done && w->stalls[k].proc == f->proc &&
			    w->stalls[k].task_id == f->s.task_id)
				s = &w->stalls[k];
		if (!s && !(s = psa__stall_add(w)))
			return -ENOMEM;
		*s = f->s;
		s->cause = PSA_CAUSE_TASK_ERROR;
		s->failed = root >= 0;
		s->root = root;
		/* no death explains it: the transport said the connection broke, a root itself */
		s->root_cause = root < 0;
		s->observed = root < 0;
		s->waiting_on_n = 0;
		if (f->peer >= 0)
			psa__stall_wait_on(s, (uint32_t)f->peer);
		failed_detail(m, f, s);
		if (root < 0)
			broken_note(m, s);
	}
	if (w->n - first > 1)
		qsort(&w->stalls[first], w->n - first, sizeof(w->stalls[0]), stall_cmp);
	return 0;
}

/* After classifying an open task: a task of a dead process, or one that failed on a dead
 * process's rank, leads to that death instead of being a root cause itself. */
void psa__watchdog_death_adopt(struct psa_watchdog *w, const struct psa_task *t,
			       struct psa_stall *s)
{
	int root = death_of_proc(w, t->proc);
	/* a barrier of a dead process waited for nobody any more: its process is the cause */
	bool own = s->root_cause || s->cause == PSA_CAUSE_UNKNOWN ||
		   s->cause == PSA_CAUSE_BARRIER_WAIT;

	if (root >= 0) {
		if (own && w->stalls[root].host_wide) {
			s->cause = PSA_CAUSE_HOST_UNREACHABLE;
			s->streams_pending = 0;
			snprintf(s->detail, sizeof(s->detail),
				 "its host %s was cut off while the task was %s", t->proc->host,
				 psa_state_str(t->state));
		} else if (own) {
			s->cause = PSA_CAUSE_PROCESS_DIED;
			s->streams_pending = 0;
			snprintf(s->detail, sizeof(s->detail),
				 "its process (pid %u) died while the task was %s", t->proc->vpid,
				 psa_state_str(t->state));
		}
		s->root_cause = false;
		s->root = root;
		return;
	}
	/* A message from a rank of a host cut off never arrives: that is the cut, not a loss. */
	if (s->root_cause && s->cause == PSA_CAUSE_MESSAGE_LOST && s->waiting_on_n &&
	    (root = psa__watchdog_death_of_rank(w, s->job, s->waiting_on[0])) >= 0 &&
	    w->stalls[root].host_wide) {
		s->root_cause = false;
		s->root = root;
		psa__detail_add(s, " - rank %u's host %s was cut off", s->waiting_on[0],
				w->stalls[root].host);
		return;
	}
	if (!(t->status || t->failed) || t->status >= 0 ||
	    (root = death_of_failure(w, t->proc->id, s, t->failed_peer, t->last_ts)) < 0)
		return;
	s->root_cause = false;
	s->failed = true;
	s->root = root;
	s->waiting_on_n = 0;
	if (t->failed_peer >= 0)
		psa__stall_wait_on(s, (uint32_t)t->failed_peer);
}
