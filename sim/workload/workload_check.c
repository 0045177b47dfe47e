/* SPDX-License-Identifier: MIT */
/*
 * The checks of a run's arguments (enc_wl_args_check): the sizes, the processes and hosts, and
 * the faults against the run - the rank, stream, process or host each names exists, and the run
 * can arm it (a loop fabric for the net faults, a way to cut or limit a host's link for the
 * faults across hosts).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxyscope/bananaphone.h>
#include <proxyscope/net.h>

#include "workload_int.h"

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

/* A partition cuts a host's link: a job across hosts, with a way to cut it. */
static int partition_check(const struct enc_wl_args *a, const struct enc_wl_fault *f,
			   const char *spec, struct enc_wl_result *res)
{
	if (a->hosts < 2)
		return invalid(res, "fault '%s' cuts a host's link: it needs a job across at least "
			       "2 hosts", spec);
	if (f->partition.host >= a->hosts)
		return invalid(res, "fault '%s': host %" PRIu32 " out of range (hosts=%" PRIu32 ")",
			       spec, f->partition.host, a->hosts);
	if (!a->link_cut)
		return invalid(res, "fault '%s': nothing can cut this host's link", spec);
	return 0;
}

/* A slow link limits a host's traffic with one peer or all: a job across hosts, a way to do it. */
static int link_check(const struct enc_wl_args *a, const struct enc_wl_fault *f,
		      const char *spec, struct enc_wl_result *res)
{
	const struct enc_wl_link_fault *l = &f->link;

	if (a->hosts < 2)
		return invalid(res, "fault '%s' slows a link between hosts: it needs a job across "
			       "at least 2 hosts", spec);
	if (a->hosts > ENC_WL_MAX_HOSTS_SLOWED)
		return invalid(res, "fault '%s': at most %d hosts", spec, ENC_WL_MAX_HOSTS_SLOWED);
	if (l->host >= a->hosts || (l->peer != ENC_WL_ALL_HOSTS && l->peer >= a->hosts))
		return invalid(res, "fault '%s': host %" PRIu32 " out of range (hosts=%" PRIu32 ")",
			       spec, l->host >= a->hosts ? l->host : l->peer, a->hosts);
	if (l->peer == l->host)
		return invalid(res, "fault '%s': a host's link to itself", spec);
	if (!a->link_slow)
		return invalid(res, "fault '%s': nothing can limit this host's link", spec);
	return 0;
}

static int fault_check(const struct enc_wl_args *a, const struct enc_wl_fault *f,
		       struct enc_wl_result *res)
{
	char spec[96];
	uint32_t rank;

	enc_wl_fault_format(f, spec, sizeof(spec));
	if (f->target == ENC_WL_FAULT_DEV && f->dev.whole_proc && f->dev.proc >= a->procs)
		return invalid(res, "fault '%s': process %" PRIu32 " out of range (procs=%" PRIu32
			       ")", spec, f->dev.proc, a->procs);
	if (f->target == ENC_WL_FAULT_DEV)
		rank = f->dev.whole_proc ? 0 : f->dev.rank;
	else if (f->target == ENC_WL_FAULT_NET)
		rank = f->net.rank;
	else if (f->target == ENC_WL_FAULT_KILL)
		rank = f->kill.rank;
	else if (f->target == ENC_WL_FAULT_PARTITION)
		return partition_check(a, f, spec, res);
	else if (f->target == ENC_WL_FAULT_LINK)
		return link_check(a, f, spec, res);
	else
		return invalid(res, "fault '%s': unknown target %" PRIu32, spec, f->target);
	if (rank >= a->ranks)
		return invalid(res, "fault '%s': rank %" PRIu32 " out of range (ranks=%" PRIu32 ")",
			       spec, rank, a->ranks);
	if (f->target == ENC_WL_FAULT_DEV && f->dev.f.stream != ENC_DEV_ALL_STREAMS &&
	    f->dev.f.stream >= a->streams)
		return invalid(res, "fault '%s': stream %" PRIu32 " out of range (streams=%" PRIu32
			       ")", spec, f->dev.f.stream, a->streams);
	if (f->target == ENC_WL_FAULT_NET && strcmp(backend_of(a), "loop"))
		return invalid(res, "fault '%s' is armed on the loop backend's fabric; this run "
			       "uses '%s'", spec, backend_of(a));
	if (f->target == ENC_WL_FAULT_KILL && a->procs < 2)
		return invalid(res, "fault '%s' kills a process: it needs ranks spread over at "
			       "least 2 processes (procs=%" PRIu32 ")", spec, a->procs);
	return 0;
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

int enc__wl_args_check(const struct enc_wl_args *a, struct enc_wl_result *res)
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
		int rc = fault_check(a, &a->faults[i], res);

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
	rc = enc__wl_args_check(args, res);
	if (rc && err && errlen)
		snprintf(err, errlen, "%s", res->err);
	free(res);
	return rc;
}
