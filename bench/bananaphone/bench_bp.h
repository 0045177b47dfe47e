/* SPDX-License-Identifier: MIT */
/*
 * Shared by bench_bananaphone (the driver: bananaphone and glibc's process-shared
 * pthread_barrier_t, then Open MPI through mpirun) and bench_bananaphone_mpi (the Open MPI
 * baseline), so both sides reduce their samples the same way.
 *
 * The statistic: every rank times each of its calls (CLOCK_MONOTONIC around the call); for
 * iteration i the sample is the slowest rank's time; p50 and p99 are taken over those samples.
 * A collective is only done when its slowest rank is done, and an average over ranks would
 * hide exactly that rank.
 */
#ifndef BENCH_BP_H
#define BENCH_BP_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_BP_RECORD 64   /* bytes per rank in the all-gather */
#define BENCH_BP_WARMUP 200  /* untimed calls before the timed ones */

struct bench_bp_stats {
	double p50_us;
	double p99_us;
	double max_us;
};

uint64_t bench_bp_now_ns(void);
/* Reduce @lat (@nranks rows of @iters samples, row-major) to max-over-ranks percentiles. */
struct bench_bp_stats bench_bp_reduce(const uint64_t *lat, unsigned nranks, unsigned iters);
/* The percentiles of @v (@n samples, sorted in place). */
struct bench_bp_stats bench_bp_percentiles(uint64_t *v, size_t n);
/* Fill @rec with rank @r's record of iteration @i; 0 when @rec holds it (checks). */
void bench_bp_record(unsigned char *rec, unsigned r, unsigned i);
int bench_bp_record_check(const unsigned char *rec, unsigned r, unsigned i);

#endif /* BENCH_BP_H */
