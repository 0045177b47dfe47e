/* SPDX-License-Identifier: MIT */
/*
 * Shared pieces of bench_driver: timing and sample statistics (bench_util.c), the "bench-probe"
 * seam backend that timestamps its calls (bench_probe.c), the bare two-thread baselines
 * (bench_baseline.c) and the driver latency probes (bench_latency.c).
 *
 * Every latency here is one-way and measured the same way on both sides of a ratio: the sender
 * reads CLOCK_MONOTONIC just before its signalling store (or call), the receiver reads it the
 * moment it observes the signal, and the sample is the difference. Both clocks are the same
 * vDSO clock, so the read overhead is the same on both sides.
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <proxyscope/proxy.h>

#include "enc/cpu.h"  /* enc_cpu_relax */
#include "enc/time.h" /* enc_now_ns */

/* What the command line chose. */
struct bench_opts {
	bool quick;               /* --quick: shorter budgets */
	uint64_t steps_budget_ns; /* wall time of the steps_per_sec rounds */
	uint64_t budget_ns;       /* wall time of each latency measurement (both sides) */
	unsigned chunks;          /* baseline/driver alternations per latency measurement */
};

/* ---- bench_util.c ---------------------------------------------------------------------- */

void bench_sleep_ns(uint64_t ns);
/* Busy-wait @ns (keeps the calling CPU awake, unlike a sleep). */
void bench_spin_ns(uint64_t ns);
/* xorshift64*: a cheap per-thread generator for randomized delays. */
uint64_t bench_rand(uint64_t *state);
/* A delay drawn uniformly from [lo, hi). */
uint64_t bench_rand_between(uint64_t *state, uint64_t lo, uint64_t hi);

/* A growable array of samples (ns, or anything non-negative). */
struct bench_samples {
	uint64_t *v;
	size_t n;
	size_t cap;
};

int bench_samples_push(struct bench_samples *s, uint64_t x);
/* The @q quantile (0..1, nearest rank) of the samples; sorts them. 0 when empty. */
uint64_t bench_samples_quantile(struct bench_samples *s, double q);
void bench_samples_fini(struct bench_samples *s);

/* The median of @n doubles (sorts @v). */
double bench_median_double(double *v, size_t n);

/* Print "error: <msg>" to stderr. */
void bench_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- bench_probe.c: the "bench-probe" seam backend ------------------------------------- */

#define BENCH_PROBE_NET "bench-probe"

/*
 * Register the backend (idempotent). Its B1 (start) records the time of its first call since
 * the last reset, its B2 (progress) the time of its first call and reports the block done at
 * once; the barrier is a single-rank barrier that is always done. Returns 0 or a negative errno.
 */
int bench_probe_register(void);
void bench_probe_reset(void);
/* The recorded times (0 = not called since the reset). Acquire: pairs with the backend's store. */
uint64_t bench_probe_start_ns(void);
uint64_t bench_probe_progress_ns(void);

/* ---- bench_baseline.c: bare two-thread one-way latencies ------------------------------- */

/*
 * Spin ping-pong for @duration_ns: a responder thread busy-polls one atomic word (acquire load +
 * pause). Each round the caller busy-waits a random delay, stamps, stores the word (release) and
 * spins until the responder acknowledges. One sample per round: responder stamp - caller stamp.
 */
int bench_spin_pingpong(uint64_t duration_ns, uint64_t *rng, struct bench_samples *out);

/*
 * Condition-variable ping-pong: a waiter thread sleeps in pthread_cond_wait. Each round the
 * caller sleeps @gap_ns (so the waiter is truly asleep), stamps, sets the predicate under the
 * mutex, unlocks and signals, then polls the acknowledgement with @poll_us sleeps. The waiter
 * stays asleep between rounds, so rounds of other measurements can be interleaved with these.
 */
struct bench_cond_pp;

int bench_cond_pp_create(struct bench_cond_pp **out);
int bench_cond_pp_round(struct bench_cond_pp *pp, uint64_t gap_ns, uint32_t poll_us,
			uint64_t *sample);
void bench_cond_pp_destroy(struct bench_cond_pp *pp);

/* ---- bench_latency.c: the same latencies through the driver ---------------------------- */

struct bench_trigger_probe;
struct bench_append_probe;

/* Trigger -> first B2, on a worker in spin mode (one_thread_per_core). */
int bench_trigger_probe_create(struct bench_trigger_probe **out);
int bench_trigger_probe_run(struct bench_trigger_probe *p, uint64_t duration_ns, uint64_t *rng,
			    struct bench_samples *out);
void bench_trigger_probe_destroy(struct bench_trigger_probe *p);

/* enc_enq_proxy_tasks on a sleeping worker -> its first step (B1 in the network task's INIT). */
int bench_append_probe_create(struct bench_append_probe **out);
/* One round: sleep @gap_ns, stamp, enqueue one exec, consume it; *sample = B1 stamp - stamp. */
int bench_append_probe_round(struct bench_append_probe *p, uint64_t gap_ns, uint64_t *sample);
void bench_append_probe_destroy(struct bench_append_probe *p);

/* The consumer poll period the append probe's comm uses (the cond baseline polls the same). */
#define BENCH_CONSUME_POLL_US 10

#endif /* BENCH_H */
