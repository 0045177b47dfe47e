/* SPDX-License-Identifier: MIT */
/*
 * The checks of a run's faults against the run (enc_wl_args_check): the rank, stream, process
 * or host each names exists, and the run can arm it (a loop fabric for the net faults, a way to
 * cut or limit a host's link for the faults across hosts).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

int enc__wl_fault_check(const struct enc_wl_args *a, const struct enc_wl_fault *f,
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
