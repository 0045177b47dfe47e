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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	snprintf(cfg->net_backend, sizeof(cfg->net_backend), "%s",
		 a->backend ? a->backend : "loop");
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
	rc = enc__wl_args_check(args, res);
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
