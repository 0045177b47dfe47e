/*
 * The ranks of one job in this process, and how they meet the job's other processes.
 *
 * Every rank's open joins its job's meeting here and waits; the last of the process's ranks to
 * arrive (args->proc_ranks of them) runs the exchange for all of them, over the host's
 * bananaphone bus, in two all-gathers of one record per process:
 *   1. hello: pid, libfabric version, rank count, the provider asked for (ENC_NET_PROVIDER, or
 *      "" for the default) and the ranks this process holds. Every process checks the same
 *      records, so all reach the same verdict: mismatched versions, rank counts or providers,
 *      a rank held twice or by nobody on this host - each an error naming the processes.
 *   2. names: after opening an endpoint per local rank on the agreed provider, the provider's
 *      full name (all must resolve to the same stack: "tcp" is "tcp;ofi_rxm" on 1.17, and the
 *      two stacks do not talk to each other), a status and reason if the open failed here, and
 *      each local rank's fi_getname bytes.
 * Then every endpoint inserts all ranks' names in rank order. Alone on the host (no bus) the
 * process must hold every rank, and the names are simply collected.
 *
 * Under a PMIx launcher (a->xhost) the job spans hosts: the ranks that are not on this host are
 * opened elsewhere, and once this host has met, the hosts exchange their names (ofi_hosts.c).
 * The default provider is "shm" when every rank is on this host and "tcp" (tcp;ofi_rxm) across
 * hosts.
 */
#include "net/ofi/ofi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>

#include "common/log.h"
#include "enc/time.h"

#define OFI_JOB_MAX 64
#define OFI_MEET_TIMEOUT_MS 30000
#define OFI_MEET_TIMEOUT_HOSTS_MS 90000
#define OFI_MAGIC_HELLO 0x6f666931u /* "ofi1" */
#define OFI_MAGIC_NAMES 0x6f66696eu /* "ofin" */
#define OFI_REASON_MAX 160

enum { JOB_MEETING = 1, JOB_READY = 0 }; /* ofi_job.state; < 0: the meeting failed */

struct ofi_job {
	struct ofi_job *next;      /* G */
	char name[OFI_JOB_MAX];    /* I */
	unsigned refs;             /* G */
	uint32_t nranks;           /* I */
	uint32_t expected;         /* I: ranks of this process */
	char provider[OFI_PROV_MAX]; /* I: asked for ("" = default) */
	struct bp_bus *bus;        /* I: NULL when alone on the host */
	const struct enc_xhost *xhost; /* I: the bootstrap across hosts, NULL: this host only */
	pthread_mutex_t mtx;
	pthread_cond_t cv;
	uint32_t arrived;          /* M */
	int state;                 /* M: JOB_MEETING, JOB_READY or -errno */
	uint32_t *local;           /* M, then I: the process's ranks in arrival order */
	struct ofi_ep *eps;        /* I once READY: one per local rank, same order */
	int32_t *owner;            /* I once READY: nranks: bus rank of the holder (-1: none) */
	int32_t *owner_pid;        /* I once READY: nranks */
	uint8_t (*names)[FI_NAME_MAX]; /* I once READY: nranks endpoint names */
	pthread_mutex_t live_mtx;  /* L: serializes the bus calls of the liveness check */
	uint64_t live_next_ns;     /* L */
	int dead;                  /* A: 1 + bus rank of a dead process, 0 while none */
	void **graves;             /* M: memory the provider may own until the endpoints close */
	size_t graves_n;           /* M */
};

/* G: g_jobs_lock guards the list and the refcounts. */
static pthread_mutex_t g_jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ofi_job *g_jobs; /* G */

struct hello {
	uint32_t magic;
	uint32_t fi_version;
	int32_t pid;
	uint32_t nranks;
	uint32_t held;
	char provider[OFI_PROV_MAX];
	uint32_t ranks[]; /* held entries */
};

struct name_entry {
	uint32_t rank;
	uint32_t len;
	uint8_t name[FI_NAME_MAX];
};

struct names {
	uint32_t magic;
	int32_t status; /* 0, or the -errno of opening this process's endpoints */
	uint32_t count;
	uint32_t pad;
	char prov[OFI_PROV_MAX];
	char reason[OFI_REASON_MAX];
	struct name_entry e[]; /* count entries */
};

static void job_free(struct ofi_job *job)
{
	if (job->eps)
		for (uint32_t i = 0; i < job->expected; i++)
			enc__ofi_ep_close(&job->eps[i]);
	free(job->eps);
	for (size_t i = 0; i < job->graves_n; i++)
		free(job->graves[i]);
	free(job->graves);
	free(job->local);
	free(job->owner);
	free(job->owner_pid);
	free(job->names);
	pthread_mutex_destroy(&job->live_mtx);
	pthread_cond_destroy(&job->cv);
	pthread_mutex_destroy(&job->mtx);
	free(job);
}

static struct ofi_job *job_new(const struct enc_net_open_args *a, uint32_t expected)
{
	struct ofi_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	snprintf(job->name, sizeof(job->name), "%s", a->job);
	snprintf(job->provider, sizeof(job->provider), "%s", a->options ? a->options : "");
	job->nranks = a->nranks;
	job->expected = expected;
	job->bus = a->bus;
	job->xhost = a->xhost;
	job->state = JOB_MEETING;
	pthread_mutex_init(&job->mtx, NULL);
	pthread_cond_init(&job->cv, NULL);
	pthread_mutex_init(&job->live_mtx, NULL);
	job->local = calloc(expected, sizeof(*job->local));
	job->eps = calloc(expected, sizeof(*job->eps));
	job->owner = malloc(a->nranks * sizeof(*job->owner));
	job->owner_pid = calloc(a->nranks, sizeof(*job->owner_pid));
	job->names = calloc(a->nranks, sizeof(*job->names));
	if (!job->local || !job->eps || !job->owner || !job->owner_pid || !job->names) {
		job_free(job);
		return NULL;
	}
	for (uint32_t q = 0; q < a->nranks; q++)
		job->owner[q] = -1;
	return job;
}

/* Take a reference on @a->job's meeting in this process (created by the first rank). */
static int job_get(const struct enc_net_open_args *a, uint32_t expected, struct ofi_job **out)
{
	struct ofi_job *job;
	int rc = 0;

	pthread_mutex_lock(&g_jobs_lock);
	for (job = g_jobs; job && strcmp(job->name, a->job); job = job->next)
		;
	if (!job) {
		job = job_new(a, expected);
		if (!job) {
			rc = -ENOMEM;
			goto out;
		}
		job->next = g_jobs;
		g_jobs = job;
	} else if (job->nranks != a->nranks || job->expected != expected ||
		   strcmp(job->provider, a->options ? a->options : "")) {
		enc_err("ofi: job %s: rank %u opens with %u ranks, %u in this process, provider "
			"'%s'; the process's earlier ranks said %u, %u, '%s'", a->job, a->rank,
			a->nranks, expected, a->options ? a->options : "", job->nranks,
			job->expected, job->provider);
		rc = -EINVAL;
		goto out;
	}
	job->refs++;
	*out = job;
out:
	pthread_mutex_unlock(&g_jobs_lock);
	return rc;
}

static bool job_check(struct ofi_job *job, bool now_or_never);

/* Drop a reference; the last one closes the endpoints (after the bus barrier) and frees. */
void enc__ofi_job_leave(struct ofi_job *job)
{
	struct ofi_job **pj;
	bool last;

	pthread_mutex_lock(&g_jobs_lock);
	last = --job->refs == 0;
	if (last)
		for (pj = &g_jobs; *pj; pj = &(*pj)->next)
			if (*pj == job) {
				*pj = job->next;
				break;
			}
	pthread_mutex_unlock(&g_jobs_lock);
	if (!last)
		return;
	/*
	 * A peer may still need this process's endpoints to finish what it receives from us:
	 * close only once every process is here (or dead). The barrier is the one call on the bus
	 * now: every rank of the process has closed, so no liveness check runs.
	 */
	if (job->bus && job->state == JOB_READY) {
		int rc = bp_barrier(job->bus);

		if (rc)
			enc_dbg("ofi: job %s: closing without the other processes: %s", job->name,
				bp_strerror(rc));
		/* a killed process cannot remove its own shm regions: the survivors do */
		job_check(job, true);
		for (uint32_t q = 0; q < job->nranks; q++)
			if (enc__ofi_job_rank_dead(job, q, NULL))
				enc__ofi_shm_unlink(job->names[q]);
	}
	job_free(job);
}

/* Check the hello records of every process; fills owner[]. */
static int hello_check(struct ofi_job *job, const uint8_t *all, uint32_t procs, size_t rsz)
{
	const struct hello *me = (const void *)(all + (size_t)bp_bus_local_rank(job->bus) * rsz);

	for (uint32_t p = 0; p < procs; p++) {
		const struct hello *h = (const void *)(all + (size_t)p * rsz);

		if (h->magic != OFI_MAGIC_HELLO) {
			enc_err("ofi: job %s: process %u sent no ofi hello (another backend?)",
				job->name, p);
			return -EPROTO;
		}
		if (FI_MAJOR(h->fi_version) != FI_MAJOR(me->fi_version) ||
		    FI_MINOR(h->fi_version) != FI_MINOR(me->fi_version)) {
			enc_err("ofi: job %s: process %d runs libfabric %u.%u, this one %u.%u",
				job->name, h->pid, FI_MAJOR(h->fi_version), FI_MINOR(h->fi_version),
				FI_MAJOR(me->fi_version), FI_MINOR(me->fi_version));
			return -EPROTO;
		}
		if (h->nranks != me->nranks) {
			enc_err("ofi: job %s: process %d has %u ranks, this one %u", job->name, h->pid,
				h->nranks, me->nranks);
			return -EPROTO;
		}
		if (strncmp(h->provider, me->provider, OFI_PROV_MAX)) {
			enc_err("ofi: job %s: provider mismatch: process %d asks for '%s', this "
				"process (%d) for '%s' (ENC_NET_PROVIDER must be the same everywhere)",
				job->name, h->pid, h->provider[0] ? h->provider : "(default)",
				me->pid, me->provider[0] ? me->provider : "(default)");
			return -EPROTO;
		}
		for (uint32_t i = 0; i < h->held; i++) {
			uint32_t q = h->ranks[i];

			if (q >= job->nranks)
				return -EPROTO;
			if (job->owner[q] >= 0) {
				enc_err("ofi: job %s: rank %u is opened by two processes (%d and %d)",
					job->name, q, job->owner_pid[q], h->pid);
				return -EADDRINUSE;
			}
			job->owner[q] = (int32_t)p;
			job->owner_pid[q] = h->pid;
		}
	}
	for (uint32_t q = 0; !job->xhost && q < job->nranks; q++)
		if (job->owner[q] < 0) {
			enc_err("ofi: job %s: no process on this host opens rank %u: every rank must "
				"meet on this host's bus (no cross-host bootstrap)", job->name, q);
			return -ENXIO;
		}
	return 0;
}

static int round_hello(struct ofi_job *job, uint8_t *all)
{
	size_t rsz = bp_bus_record_size(job->bus);
	struct hello *h;
	int rc;

	if (sizeof(*h) + job->expected * sizeof(uint32_t) > rsz) {
		enc_err("ofi: job %s: %u ranks in one process do not fit the bus record", job->name,
			job->expected);
		return -EMSGSIZE;
	}
	h = calloc(1, rsz);
	if (!h)
		return -ENOMEM;
	*h = (struct hello){ .magic = OFI_MAGIC_HELLO, .fi_version = fi_version(),
			     .pid = (int32_t)getpid(), .nranks = job->nranks,
			     .held = job->expected };
	snprintf(h->provider, sizeof(h->provider), "%s", job->provider);
	memcpy(h->ranks, job->local, job->expected * sizeof(uint32_t));
	rc = bp_allgather(job->bus, h, all);
	free(h);
	if (rc) {
		enc_err("ofi: job %s: exchanging hellos on the bus: %s", job->name, bp_strerror(rc));
		return rc;
	}
	return hello_check(job, all, bp_bus_local_nranks(job->bus), rsz);
}

/* Open an endpoint for every local rank; on failure *@reason says why. */
static int eps_open(struct ofi_job *job, char *reason, size_t len)
{
	const char *prov = job->provider[0] ? job->provider :
			   job->xhost ? OFI_DEFAULT_PROVIDER_HOSTS : OFI_DEFAULT_PROVIDER;

	for (uint32_t i = 0; i < job->expected; i++) {
		struct ofi_ep_args a = { .provider = prov, .loopback = !job->xhost,
					 .rank = job->local[i], .nranks = job->nranks };
		int rc = enc__ofi_ep_open(&job->eps[i], &a, reason, len);

		if (rc)
			return rc;
		if (strcmp(enc__ofi_ep_prov(&job->eps[i]), enc__ofi_ep_prov(&job->eps[0]))) {
			snprintf(reason, len, "provider '%s' resolved to '%s' and to '%s'", prov,
				 enc__ofi_ep_prov(&job->eps[0]), enc__ofi_ep_prov(&job->eps[i]));
			return -EPROTO;
		}
	}
	return 0;
}

/* Round 2 (or, alone, just the collection): fill @names[q] for every rank. */
static int round_names(struct ofi_job *job, int open_rc, const char *reason,
		       const uint8_t **names, uint8_t *all)
{
	uint32_t procs = job->bus ? bp_bus_local_nranks(job->bus) : 1;
	size_t rsz = job->bus ? bp_bus_record_size(job->bus) :
		     sizeof(struct names) + job->expected * sizeof(struct name_entry);
	struct names *mine;
	int rc = 0;

	if (sizeof(*mine) + job->expected * sizeof(struct name_entry) > rsz)
		return -EMSGSIZE;
	mine = job->bus ? calloc(1, rsz) : (struct names *)(void *)all;
	if (!mine)
		return -ENOMEM;
	mine->magic = OFI_MAGIC_NAMES;
	mine->status = open_rc;
	mine->count = open_rc ? 0 : job->expected;
	snprintf(mine->reason, sizeof(mine->reason), "%s", reason);
	if (!open_rc)
		snprintf(mine->prov, sizeof(mine->prov), "%s", enc__ofi_ep_prov(&job->eps[0]));
	for (uint32_t i = 0; i < mine->count; i++) {
		mine->e[i].rank = job->local[i];
		mine->e[i].len = (uint32_t)job->eps[i].name_len;
		memcpy(mine->e[i].name, job->eps[i].name, job->eps[i].name_len);
	}
	if (job->bus) {
		rc = bp_allgather(job->bus, mine, all);
		free(mine);
		if (rc) {
			enc_err("ofi: job %s: exchanging endpoint names on the bus: %s", job->name,
				bp_strerror(rc));
			return rc;
		}
	}
	if (open_rc) {
		enc_err("ofi: job %s: %s", job->name, reason);
		return open_rc;
	}
	for (uint32_t p = 0; p < procs; p++) {
		const struct names *n = (const void *)(all + (size_t)p * rsz);
		int pid = job->bus ? bp_bus_member_pid(job->bus, p) : (int)getpid();

		if (n->status) {
			enc_err("ofi: job %s: process %d could not open its endpoints: %s", job->name,
				pid, n->reason);
			return n->status;
		}
		if (strncmp(n->prov, enc__ofi_ep_prov(&job->eps[0]), OFI_PROV_MAX)) {
			enc_err("ofi: job %s: provider mismatch: process %d uses '%s', this one '%s'",
				job->name, pid, n->prov, enc__ofi_ep_prov(&job->eps[0]));
			return -EPROTO;
		}
		for (uint32_t i = 0; i < n->count; i++)
			if (n->e[i].rank < job->nranks)
				names[n->e[i].rank] = n->e[i].name;
	}
	for (uint32_t q = 0; !job->xhost && q < job->nranks; q++)
		if (!names[q])
			return -ENXIO;
	return 0;
}

/* Across hosts: every process takes part, whatever happened on this host. */
static int round_hosts(struct ofi_job *job, int status, const char *reason, int open_rc,
		       const uint8_t **names, uint8_t (*xnames)[FI_NAME_MAX])
{
	struct ofi_hosts_in in = {
		.job = job->name, .xhost = job->xhost, .bus = job->bus, .nranks = job->nranks,
		.status = status, .reason = reason[0] ? reason : "its meeting on the bus failed",
		.prov = open_rc ? "" : enc__ofi_ep_prov(&job->eps[0]), .names = names,
	};
	int rc = enc__ofi_hosts_meet(&in, xnames);

	for (uint32_t q = 0; !rc && q < job->nranks; q++)
		names[q] = xnames[q];
	return status ? status : rc;
}

/* The exchange, run by the last local rank to arrive. */
static int meet(struct ofi_job *job)
{
	char reason[OFI_REASON_MAX] = "";
	size_t rsz, procs = 1;
	uint8_t (*xnames)[FI_NAME_MAX] = NULL;
	const uint8_t **names;
	uint8_t *all;
	int rc, open_rc;

	if (!job->bus && !job->xhost && job->expected != job->nranks) {
		enc_err("ofi: job %s: this process opens %u of %u ranks but has no bus to meet the "
			"others (give every process its local_rank and local_nranks)", job->name,
			job->expected, job->nranks);
		return -ENXIO;
	}
	if (job->bus) {
		rsz = bp_bus_record_size(job->bus);
		procs = bp_bus_local_nranks(job->bus);
	} else {
		rsz = sizeof(struct names) + job->expected * sizeof(struct name_entry);
		for (uint32_t i = 0; i < job->expected; i++)
			job->owner[job->local[i]] = 0;
	}
	all = calloc(procs, rsz);
	names = calloc(job->nranks, sizeof(*names));
	if (job->xhost)
		xnames = calloc(job->nranks, sizeof(*xnames));
	if (!all || !names || (job->xhost && !xnames)) {
		rc = -ENOMEM;
		goto out;
	}
	open_rc = -ECANCELED; /* no endpoint opened yet */
	if (job->bus) {
		rc = round_hello(job, all);
		if (rc)
			goto out_hosts;
		memset(all, 0, procs * rsz);
	}
	open_rc = eps_open(job, reason, sizeof(reason));
	rc = round_names(job, open_rc, reason, names, all);
out_hosts:
	if (job->xhost)
		rc = round_hosts(job, rc, reason, open_rc, names, xnames);
	for (uint32_t i = 0; !rc && i < job->expected; i++)
		rc = enc__ofi_ep_insert(&job->eps[i], names, reason, sizeof(reason));
	for (uint32_t q = 0; !rc && q < job->nranks; q++)
		memcpy(job->names[q], names[q], FI_NAME_MAX);
	if (rc && reason[0] && !open_rc)
		enc_err("ofi: job %s: %s", job->name, reason);
	if (!rc)
		enc_info("ofi: job %s: %u ranks on '%s', %u here", job->name, job->nranks,
			 enc__ofi_ep_prov(&job->eps[0]), job->expected);
out:
	free(xnames);
	free(names);
	free(all);
	return rc;
}

int enc__ofi_job_join(const struct enc_net_open_args *a, struct ofi_job **out,
		      struct ofi_ep **ep)
{
	uint32_t expected = a->proc_ranks ? a->proc_ranks : a->bus ? 1 : a->nranks;
	/* Across hosts the meeting waits for the slowest host's launch too (the PMIx fence gives
	 * up after a minute): the process's other ranks wait that long for the verdict. */
	unsigned meet_ms = a->xhost ? OFI_MEET_TIMEOUT_HOSTS_MS : OFI_MEET_TIMEOUT_MS;
	uint64_t deadline = enc_now_ns() + (uint64_t)meet_ms * 1000000u;
	struct ofi_job *job;
	uint32_t idx;
	int rc;

	if (expected > a->nranks)
		return -EINVAL;
	rc = job_get(a, expected, &job);
	if (rc)
		return rc;
	pthread_mutex_lock(&job->mtx);
	for (idx = 0; idx < job->arrived && job->local[idx] != a->rank; idx++)
		;
	if (job->state != JOB_MEETING || idx < job->arrived || job->arrived == expected) {
		enc_err("ofi: job %s: rank %u: %s", a->job, a->rank,
			idx < job->arrived ? "already open in this process" :
			"this process's ranks have met already");
		rc = -EADDRINUSE;
		goto out_unlock;
	}
	job->local[job->arrived++] = a->rank;
	if (job->arrived == expected) {
		pthread_mutex_unlock(&job->mtx); /* the others only wait for the verdict */
		rc = meet(job);
		pthread_mutex_lock(&job->mtx);
		job->state = rc;
		pthread_cond_broadcast(&job->cv);
	}
	while (job->state == JOB_MEETING) {
		struct timespec ts;
		uint64_t t = deadline;

		clock_gettime(CLOCK_REALTIME, &ts);
		if (enc_now_ns() >= deadline) {
			enc_err("ofi: job %s: rank %u: only %u of this process's %u ranks opened "
				"within %u ms", a->job, a->rank, job->arrived, expected, meet_ms);
			rc = -ETIMEDOUT;
			goto out_unlock;
		}
		t = deadline - enc_now_ns();
		ts.tv_sec += (time_t)(t / 1000000000u);
		ts.tv_nsec += (long)(t % 1000000000u);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&job->cv, &job->mtx, &ts);
	}
	rc = job->state;
	if (!rc)
		*ep = &job->eps[idx];
out_unlock:
	pthread_mutex_unlock(&job->mtx);
	if (rc) {
		enc__ofi_job_leave(job);
		return rc;
	}
	*out = job;
	return 0;
}

void enc__ofi_job_bury(struct ofi_job *job, void *mem)
{
	void **g;

	if (!mem)
		return;
	pthread_mutex_lock(&job->mtx);
	g = realloc(job->graves, (job->graves_n + 1) * sizeof(*g));
	if (g) {
		job->graves = g;
		job->graves[job->graves_n++] = mem;
	}
	pthread_mutex_unlock(&job->mtx);
	if (!g)
		enc_warn("ofi: job %s: out of memory: leaking %p the provider may still own",
			 job->name, mem);
}

static bool job_check(struct ofi_job *job, bool now_or_never)
{
	uint64_t now;
	int rc;

	if (!job->bus)
		return false;
	if (__atomic_load_n(&job->dead, __ATOMIC_RELAXED))
		return true;
	if (now_or_never)
		pthread_mutex_lock(&job->live_mtx);
	else if (pthread_mutex_trylock(&job->live_mtx))
		return false; /* another rank of the process is looking right now */
	now = enc_now_ns();
	if (now_or_never || now >= job->live_next_ns) {
		job->live_next_ns = now + (uint64_t)OFI_LIVE_MS * 1000000u;
		rc = bp_check(job->bus);
		if (rc == -ESRCH) {
			int p = bp_bus_failed_rank(job->bus);

			enc_err("ofi: job %s: process %d (local rank %d) died", job->name,
				bp_bus_member_pid(job->bus, (uint32_t)p), p);
			__atomic_store_n(&job->dead, p + 1, __ATOMIC_RELAXED);
		}
	}
	pthread_mutex_unlock(&job->live_mtx);
	return __atomic_load_n(&job->dead, __ATOMIC_RELAXED) != 0;
}

bool enc__ofi_job_check(struct ofi_job *job)
{
	return job_check(job, false);
}

bool enc__ofi_job_peer_gone(struct ofi_job *job, uint32_t rank, int *pid)
{
	if (!job->bus)
		return false;
	if (!__atomic_load_n(&job->dead, __ATOMIC_RELAXED)) {
		if (bp_bus_failed_rank(job->bus) < 0)
			return false; /* the common case: one atomic load */
		job_check(job, true);
	}
	return enc__ofi_job_rank_dead(job, rank, pid);
}

bool enc__ofi_job_rank_dead(const struct ofi_job *job, uint32_t rank, int *pid)
{
	int dead = __atomic_load_n(&job->dead, __ATOMIC_RELAXED);

	if (!dead || rank >= job->nranks || job->owner[rank] != dead - 1)
		return false;
	if (pid)
		*pid = job->owner_pid[rank];
	return true;
}

bool enc__ofi_job_lost(const struct ofi_job *job, uint32_t *rank, int *pid)
{
	int dead = __atomic_load_n(&job->dead, __ATOMIC_RELAXED);

	if (!dead)
		return false;
	for (uint32_t q = 0; q < job->nranks; q++)
		if (job->owner[q] == dead - 1) {
			*rank = q;
			*pid = job->owner_pid[q];
			return true;
		}
	*rank = UINT32_MAX; /* a process that held no rank of this job */
	*pid = bp_bus_member_pid(job->bus, (uint32_t)(dead - 1));
	return true;
}
