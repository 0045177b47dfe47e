/* SPDX-License-Identifier: MIT */
/*
 * The ring-exchange workload's run: validate the args, build the driver config, create one
 * simulated device per rank and arm the faults, run one thread per rank, and collect the result.
 *
 * Teardown order is the design: rank threads never free their own comm, because a rank that
 * timed out leaves tasks in its gid's queue pointing at its exec slot, and so may any other
 * rank of the gid. The run joins every rank thread, then frees every comm (the last one of a
 * gid joins its worker, after which no task can run), then destroys the devices (which the
 * worker's seam calls increment), and only then frees the slots the tasks pointed into.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/bananaphone.h>
#include <proxyscope/net_loop.h>

#include "enc/time.h"
#include "sim.h"
#include "workload_int.h"

void enc_wl_args_default(struct enc_wl_args *args)
{
	memset(args, 0, sizeof(*args));
	args->ranks = 4;
	args->ranks_per_proxy = 2;
	args->ops = 100;
	args->bytes = 64 * 1024;
	args->streams = 1;
	args->blocks = 1;
	args->timeout_ms = 2000;
	args->device_wait = true;
	args->procs = 1;
}

bool enc_wl_result_is_ok(const struct enc_wl_args *args, const struct enc_wl_result *res)
{
	return !res->has_failure && res->mismatches == 0 && res->ranks_run > 0 &&
	       res->execs_completed_total == (uint64_t)res->ranks_run * args->ops;
}

void enc_wl_proc_ranks(const struct enc_wl_args *a, uint32_t proc, uint32_t *first,
		       uint32_t *count)
{
	uint32_t p = a->procs ? a->procs : 1;

	*first = (uint32_t)((uint64_t)proc * a->ranks / p);
	*count = (uint32_t)((uint64_t)(proc + 1) * a->ranks / p) - *first;
}

static const char *const pattern_names[ENC_WL_PATTERN_NR] = {
	[ENC_WL_RING] = "ring",
	[ENC_WL_ALLTOALL] = "alltoall",
};

const char *enc_wl_pattern_str(enum enc_wl_pattern pattern)
{
	return (unsigned)pattern < ENC_WL_PATTERN_NR ? pattern_names[pattern] : "?";
}

int enc_wl_pattern_parse(const char *name, enum enc_wl_pattern *out)
{
	for (unsigned i = 0; name && i < ENC_WL_PATTERN_NR; i++)
		if (!strcmp(name, pattern_names[i])) {
			*out = (enum enc_wl_pattern)i;
			return 0;
		}
	return -EINVAL;
}

static const char *backend_of(const struct enc_wl_args *a)
{
	return a->backend ? a->backend : "loop";
}

static int invalid(struct enc_wl_result *res, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int invalid(struct enc_wl_result *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->err, sizeof(res->err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int procs_check(const struct enc_wl_args *a, struct enc_wl_result *res)
{
	uint32_t first, count;

	if (a->pattern >= ENC_WL_PATTERN_NR)
		return invalid(res, "pattern=%" PRIu32 " is not a pattern", a->pattern);
	if (!enc_net_ops_find(backend_of(a)))
		return invalid(res, "backend '%s' does not exist (loop, ofi)", backend_of(a));
	/* on one host the bus bounds the processes; across hosts only the ranks do */
	if (a->procs < 1 || a->procs > a->ranks)
		return invalid(res, "procs=%" PRIu32 " out of range (1..ranks=%" PRIu32 ")",
			       a->procs, a->ranks);
	if (!a->local_procs && a->procs > BP_MAX_LOCAL)
		return invalid(res, "procs=%" PRIu32 " out of range (1..%d on one host)", a->procs,
			       BP_MAX_LOCAL);
	if (a->local_procs > BP_MAX_LOCAL || a->local_procs > a->procs ||
	    (a->local_procs && a->local_proc >= a->local_procs))
		return invalid(res, "local_proc=%" PRIu32 " of local_procs=%" PRIu32 " out of range "
			       "(1..%d processes of %" PRIu32 " on this host)", a->local_proc,
			       a->local_procs, BP_MAX_LOCAL, a->procs);
	if (a->proc >= a->procs)
		return invalid(res, "proc=%" PRIu32 " out of range (procs=%" PRIu32 ")", a->proc,
			       a->procs);
	if (a->procs == 1)
		return 0;
	if (!strcmp(backend_of(a), "loop"))
		return invalid(res, "the loop backend runs in one process: procs=%" PRIu32
			       " needs the ofi backend", a->procs);
	if (!a->job)
		return invalid(res, "procs=%" PRIu32 ": the processes must share a job name",
			       a->procs);
	for (uint32_t p = 0; p < a->procs; p++) {
		enc_wl_proc_ranks(a, p, &first, &count);
		if (first % a->ranks_per_proxy)
			return invalid(res, "ranks-per-proxy=%" PRIu32 ": a proxy's ranks would span "
				       "two processes (process %" PRIu32 " starts at rank %" PRIu32
				       ")", a->ranks_per_proxy, p, first);
	}
	return 0;
}

static int args_check(const struct enc_wl_args *a, struct enc_wl_result *res)
{
	if (a->ranks < 1)
		return invalid(res, "ranks=0 must be at least 1");
	if (a->ranks_per_proxy < 1)
		return invalid(res, "ranks-per-proxy=%" PRIu32 " must be at least 1",
			       a->ranks_per_proxy);
	if (a->streams < 1 || a->streams > ENC_MAX_STREAMS)
		return invalid(res, "streams=%" PRIu32 " out of range (1..%d)", a->streams,
			       ENC_MAX_STREAMS);
	if (a->blocks < 1 || a->blocks > ENC_WL_MAX_BLOCKS)
		return invalid(res, "blocks=%" PRIu32 " out of range (1..%d)", a->blocks,
			       ENC_WL_MAX_BLOCKS);
	/* every op carries at least one byte */
	if (a->bytes < (uint64_t)a->streams * a->blocks)
		return invalid(res, "bytes=%" PRIu64 " out of range (at least streams * blocks = %"
			       PRIu64 ")", a->bytes, (uint64_t)a->streams * a->blocks);
	if (a->bytes > SIZE_MAX / 2)
		return invalid(res, "bytes=%" PRIu64 " out of range", a->bytes);
	if (a->timeout_ms < 1)
		return invalid(res, "timeout-ms=0 must be at least 1");
	if (a->job && (!a->job[0] || strlen(a->job) >= ENC_WL_JOB_MAX))
		return invalid(res, "job name '%s' must have 1..%d characters", a->job,
			       ENC_WL_JOB_MAX - 1);
	if (a->hosts && a->host >= a->hosts)
		return invalid(res, "host=%" PRIu32 " out of range (hosts=%" PRIu32 ")", a->host,
			       a->hosts);
	if (a->faults_n > ENC_WL_MAX_FAULTS)
		return invalid(res, "%zu faults (at most %d)", a->faults_n, ENC_WL_MAX_FAULTS);
	for (size_t i = 0; i < a->faults_n; i++) {
		int rc = enc__wl_fault_check(a, &a->faults[i], res);

		if (rc)
			return rc;
	}
	return procs_check(a, res);
}

int enc_wl_args_check(const struct enc_wl_args *args, char *err, size_t errlen)
{
	struct enc_wl_result *res = calloc(1, sizeof(*res));
	int rc;

	if (!res)
		return -ENOMEM;
	rc = args_check(args, res);
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", res->err);
	free(res);
	return rc;
}

static void job_name(const struct enc_wl_args *a, char *buf, size_t len)
{
	static unsigned counter; /* relaxed: only uniqueness within the process matters */

	if (a->job)
		snprintf(buf, len, "%s", a->job);
	else
		snprintf(buf, len, "wl-%ld-%u", (long)getpid(),
			 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
}

/* The progress records' interval is a tracing knob, taken from the environment as ENC_TRACE is;
 * the run's other settings are its arguments'. */
static const char *progress_env(const char *name)
{
	return strcmp(name, "ENC_PROXY_PROGRESS_MS") ? NULL : getenv(name);
}

/*
 * The consumers: the driver's defaults while this process's ranks are few. When they crowd the
 * CPUs, a consumer waits longer between two status reads (sim_poll_max_us) and does not yield
 * first: it is woken when its task is done, so the bound only sets how often a waiting one
 * wakes for nothing, and a thousand of them waking every 10 us, or yielding to each other, keep
 * 2 CPUs busy switching.
 */
static int config_build(const struct enc_wl_args *a, uint32_t ranks_here,
			struct enc_config *cfg, char *err, size_t errlen)
{
	enc_config_default(cfg);
	if (sim_crowded(ranks_here)) {
		uint64_t us = sim_poll_max_us(cfg->consume_poll_us, ranks_here);

		cfg->consume_poll_us = us < UINT32_MAX ? (uint32_t)us : UINT32_MAX;
		cfg->consume_yield_us = 0;
	}
	cfg->ranks_per_network_proxy = a->ranks_per_proxy;
	cfg->one_thread_per_core = a->one_thread_per_core;
	cfg->proxy_timeout_ms = a->timeout_ms;
	cfg->device_wait = a->device_wait;
	cfg->early_completion = a->early_completion;
	snprintf(cfg->net_backend, sizeof(cfg->net_backend), "%s", backend_of(a));
	if (a->provider)
		snprintf(cfg->net_provider, sizeof(cfg->net_provider), "%s", a->provider);
	return enc_config_from_lookup(cfg, progress_env, err, errlen);
}

static void stats_sub(struct enc_proxy_stats *d, const struct enc_proxy_stats *after,
		      const struct enc_proxy_stats *before)
{
#define STAT_SUB(f) d->f = after->f - before->f;
	ENC_WL_STATS_FIELDS(STAT_SUB)
#undef STAT_SUB
}

/* Create every rank's device and slot, and arm the device faults. */
static int ranks_prepare(struct enc__wl_run *run)
{
	const struct enc_wl_args *a = run->args;
	int rc;

	for (uint32_t i = run->first; i < run->first + run->count; i++) {
		struct enc__wl_rank *r = &run->ranks[i];

		r->run = run;
		r->rank = i;
		rc = enc_dev_create(i, &r->dev);
		if (rc) {
			r->dev = NULL;
			snprintf(run->res->err, sizeof(run->res->err),
				 "cannot create the device of rank %" PRIu32 ": error %d", i, rc);
			return rc;
		}
		rc = enc__wl_slot_alloc(&r->slot, a);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < a->faults_n; i++) {
		const struct enc_wl_fault *f = &a->faults[i];
		uint32_t first = f->dev.rank, count = 1;

		if (f->target != ENC_WL_FAULT_DEV)
			continue;
		if (f->dev.whole_proc)
			enc_wl_proc_ranks(a, f->dev.proc, &first, &count);
		for (uint32_t r = first; r < first + count; r++) {
			if (!enc__wl_rank_is_mine(run, r))
				continue;
			rc = enc_dev_inject(run->ranks[r].dev, &f->dev.f);
			if (rc) {
				snprintf(run->res->err, sizeof(run->res->err),
					 "cannot arm a fault on the device of rank %" PRIu32
					 ": error %d", r, rc);
				return rc;
			}
		}
	}
	return 0;
}

/* Destroy what ranks_prepare made; tolerates a partly prepared, zeroed array. */
static void ranks_release(struct enc__wl_run *run)
{
	for (uint32_t i = run->first; i < run->first + run->count; i++)
		if (run->ranks[i].dev)
			enc_dev_destroy(run->ranks[i].dev);
	for (uint32_t i = run->first; i < run->first + run->count; i++)
		enc__wl_slot_free(&run->ranks[i].slot);
}

static int net_faults_arm(struct enc__wl_run *run)
{
	const struct enc_wl_args *a = run->args;

	for (size_t i = 0; i < a->faults_n; i++) {
		int rc;

		if (a->faults[i].target != ENC_WL_FAULT_NET)
			continue;
		rc = enc_net_loop_inject(run->job, &a->faults[i].net);
		if (rc) {
			snprintf(run->res->err, sizeof(run->res->err),
				 "cannot arm a net fault on job '%s': error %d", run->job, rc);
			return rc;
		}
	}
	return 0;
}

/*
 * Start every rank thread, join them all (timed into res->wall_ns), then free every comm.
 * Returns 0 or the error of a thread creation.
 */
static int ranks_run(struct enc__wl_run *run)
{
	uint32_t n = run->count, started = 0;
	pthread_attr_t attr;
	pthread_t *threads;
	uint64_t t0;
	int rc = 0;

	threads = calloc(n, sizeof(*threads));
	if (!threads)
		return -ENOMEM;
	rc = -pthread_attr_init(&attr);
	if (!rc)
		rc = -pthread_attr_setstacksize(&attr, SIM_THREAD_STACK);
	if (rc) {
		free(threads);
		return rc;
	}
	t0 = enc_now_ns();
	for (; started < n; started++) {
		rc = -pthread_create(&threads[started], &attr, enc__wl_rank_main,
				     &run->ranks[run->first + started]);
		if (rc) {
			snprintf(run->res->err, sizeof(run->res->err),
				 "cannot start the thread of rank %" PRIu32 ": error %d",
				 run->first + started, rc);
			enc__wl_gate_abort(run);
			break;
		}
	}
	for (uint32_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	run->res->wall_ns = enc_now_ns() - t0;
	pthread_attr_destroy(&attr);
	free(threads);

	/* only now: tasks that timed out stay in the queues until their gid's last comm goes */
	for (uint32_t i = run->first; i < run->first + n; i++) {
		if (run->ranks[i].comm)
			enc_free_global_comm(run->ranks[i].comm);
		run->ranks[i].comm = NULL;
	}
	return rc;
}

static void result_collect(struct enc__wl_run *run)
{
	struct enc_wl_result *res = run->res;

	res->ranks_run = run->count;
	res->first_rank = run->first;
	for (uint32_t i = run->first; i < run->first + run->count; i++) {
		const struct enc__wl_rank *r = &run->ranks[i];

		res->execs_completed[i] = r->execs_completed;
		res->execs_completed_total += r->execs_completed;
		res->bytes_verified += r->bytes_verified;
		res->mismatches += r->mismatches;
	}
}

int enc_wl_run(const struct enc_wl_args *args, struct enc_wl_result *res)
{
	struct enc_proxy_stats before, after;
	struct enc__wl_run run;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = args_check(args, res);
	if (rc)
		return rc;
	res->ranks = args->ranks;
	job_name(args, res->job, sizeof(res->job));

	memset(&run, 0, sizeof(run));
	run.args = args;
	run.job = res->job;
	run.res = res;
	enc_wl_proc_ranks(args, args->proc, &run.first, &run.count);
	rc = config_build(args, run.count, &run.cfg, res->err, sizeof(res->err));
	if (rc)
		return rc;
	pthread_mutex_init(&run.gate_mtx, NULL);
	pthread_cond_init(&run.gate_cv, NULL);
	pthread_mutex_init(&run.fail_mtx, NULL);
	pthread_mutex_init(&run.cut_mtx, NULL);
	run.ranks = calloc(args->ranks, sizeof(*run.ranks));
	res->execs_completed = calloc(args->ranks, sizeof(*res->execs_completed));
	if (!run.ranks || !res->execs_completed) {
		rc = -ENOMEM;
		goto out_free_ranks;
	}

	rc = ranks_prepare(&run);
	if (rc)
		goto out_release_ranks;
	rc = net_faults_arm(&run);
	if (rc)
		goto out_clear_faults;

	enc_proxy_stats_get(&before);
	rc = ranks_run(&run);
	enc_proxy_stats_get(&after); /* every comm is freed: the workers are joined, counts exact */
	stats_sub(&res->stats, &after, &before);
	result_collect(&run);

out_clear_faults:
	enc_net_loop_clear_faults(run.job);
out_release_ranks:
	ranks_release(&run);
out_free_ranks:
	free(run.ranks);
	if (rc)
		enc_wl_result_fini(res);
	pthread_mutex_destroy(&run.cut_mtx);
	pthread_mutex_destroy(&run.fail_mtx);
	pthread_cond_destroy(&run.gate_cv);
	pthread_mutex_destroy(&run.gate_mtx);
	if (rc == -ENOMEM && !res->err[0])
		snprintf(res->err, sizeof(res->err), "out of memory");
	return rc;
}
