/* SPDX-License-Identifier: MIT */
/*
 * The ranks of one job in this process: a process-global list of jobs by name, each refcounted
 * by its open ranks.
 *
 * Every rank's open joins its job here and waits; the last of the process's ranks to arrive
 * (args->proc_ranks of them) runs the meeting for all of them (ofi_meet.c) and publishes the
 * verdict, so one exchange per process opens every local rank's endpoint. The endpoints belong
 * to the job, not to a comm: the last rank to leave waits at the bus barrier, then closes them
 * all, with the memory the provider may have owned until then (the graves). Liveness: the bus
 * tells which process died, and the job's rank -> process map which ranks went with it.
 */
#include "net/ofi/ofi_job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <proxyscope/bananaphone.h>

#include "common/log.h"
#include "enc/time.h"

#define OFI_MEET_TIMEOUT_MS 30000
#define OFI_MEET_TIMEOUT_HOSTS_MS 90000

/* G: g_jobs_lock guards the list and the refcounts. */
static pthread_mutex_t g_jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ofi_job *g_jobs; /* G */

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
		rc = enc__ofi_job_meet(job);
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
