/* SPDX-License-Identifier: MIT */
/* Sample reduction and record patterns shared by both benchmark programs (bench_bp.h). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_bp.h"

uint64_t bench_bp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct bench_bp_stats bench_bp_percentiles(uint64_t *v, size_t n)
{
	struct bench_bp_stats s = { 0 };

	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_u64);
	/* Nearest rank: the smallest sample with at least q of the samples at or below it. */
	s.p50_us = (double)v[(n + 1) / 2 - 1] / 1e3;
	s.p99_us = (double)v[(n * 99 + 99) / 100 - 1] / 1e3;
	s.max_us = (double)v[n - 1] / 1e3;
	return s;
}

struct bench_bp_stats bench_bp_reduce(const uint64_t *lat, unsigned nranks, unsigned iters)
{
	uint64_t *slowest = calloc(iters ? iters : 1, sizeof(*slowest));
	struct bench_bp_stats s = { 0 };

	if (!slowest)
		return s;
	for (unsigned i = 0; i < iters; i++)
		for (unsigned r = 0; r < nranks; r++)
			if (lat[(size_t)r * iters + i] > slowest[i])
				slowest[i] = lat[(size_t)r * iters + i];
	s = bench_bp_percentiles(slowest, iters);
	free(slowest);
	return s;
}

void bench_bp_record(unsigned char *rec, unsigned r, unsigned i)
{
	for (unsigned b = 0; b < BENCH_BP_RECORD; b++)
		rec[b] = (unsigned char)(r * 31 + i * 7 + b);
}

int bench_bp_record_check(const unsigned char *rec, unsigned r, unsigned i)
{
	unsigned char want[BENCH_BP_RECORD];

	bench_bp_record(want, r, i);
	return memcmp(rec, want, sizeof(want)) != 0;
}
