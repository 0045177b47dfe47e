/* SPDX-License-Identifier: MIT */
/*
 * The workload's result beyond one run: the sum of several processes' results, and a result
 * written to and read from a descriptor (a child's pipe, a file a process of a job across hosts
 * leaves behind).
 *
 * Design choice: the per-rank counts are an array of the result's own, sized by the run's ranks
 * rather than a fixed maximum, so nothing here bounds the rank count; on a descriptor the
 * struct goes first (its pointer meaningless there) and the array after it, checked against the
 * struct's rank count when read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload_int.h"

void enc_wl_result_fini(struct enc_wl_result *res)
{
	free(res->execs_completed);
	res->execs_completed = NULL;
}

int enc_wl_result_merge(struct enc_wl_result *dst, const struct enc_wl_result *src)
{
	uint32_t ranks = dst->ranks ? dst->ranks : src->ranks;
	int rc = 0;

	if (!dst->execs_completed && ranks) {
		dst->execs_completed = calloc(ranks, sizeof(*dst->execs_completed));
		if (dst->execs_completed)
			dst->ranks = ranks;
		else
			rc = -ENOMEM;
	}
	for (uint32_t i = 0; dst->execs_completed && src->execs_completed && i < src->ranks &&
			     i < dst->ranks; i++)
		dst->execs_completed[i] += src->execs_completed[i];
	dst->ranks_run += src->ranks_run;
#define STAT_ADD(f) dst->stats.f += src->stats.f;
	ENC_WL_STATS_FIELDS(STAT_ADD)
#undef STAT_ADD
	dst->execs_completed_total += src->execs_completed_total;
	dst->bytes_verified += src->bytes_verified;
	dst->mismatches += src->mismatches;
	dst->failures += src->failures;
	dst->timeouts += src->timeouts;
	if (src->has_failure && !dst->has_failure) {
		dst->has_failure = true;
		dst->first_failure = src->first_failure;
	}
	if (src->wall_ns > dst->wall_ns)
		dst->wall_ns = src->wall_ns;
	return rc;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPROTO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* What follows the struct on a descriptor: the span of ranks whose counts come next. */
struct span {
	uint32_t first;
	uint32_t n;
};

int enc_wl_result_write(int fd, const struct enc_wl_result *res)
{
	struct enc_wl_result flat = *res;
	struct span sp = { .first = res->first_rank, .n = res->ranks_run };
	int rc;

	if (!res->execs_completed || sp.first > res->ranks || sp.n > res->ranks - sp.first)
		sp = (struct span){ 0, 0 }; /* no counts (the run never had its array) */
	flat.execs_completed = NULL;
	rc = write_all(fd, &flat, sizeof(flat));
	if (!rc)
		rc = write_all(fd, &sp, sizeof(sp));
	if (!rc && sp.n)
		rc = write_all(fd, res->execs_completed + sp.first,
			       (size_t)sp.n * sizeof(*res->execs_completed));
	return rc;
}

int enc_wl_result_read(int fd, struct enc_wl_result *res)
{
	struct span sp;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = read_all(fd, res, sizeof(*res));
	res->execs_completed = NULL;
	if (!rc)
		rc = read_all(fd, &sp, sizeof(sp));
	if (!rc && (sp.first > res->ranks || sp.n > res->ranks - sp.first))
		rc = -EPROTO;
	if (rc || !sp.n)
		return rc;
	res->execs_completed = calloc(res->ranks, sizeof(*res->execs_completed));
	if (!res->execs_completed)
		return -ENOMEM;
	rc = read_all(fd, res->execs_completed + sp.first,
		      (size_t)sp.n * sizeof(*res->execs_completed));
	if (rc)
		enc_wl_result_fini(res);
	return rc;
}
