/* SPDX-License-Identifier: MIT */
/*
 * The bare baselines the driver's latencies are compared with: two threads, nothing else.
 *
 * The spin responder busy-polls, so it lives for one chunk of rounds only and is joined before
 * the driver's chunk runs: no baseline thread then competes for a CPU (the machine may have only
 * two). The condvar waiter sleeps between rounds, so it lives for the whole measurement and its
 * rounds interleave one by one with the driver's. Each round mirrors the driver probe it is
 * compared with (bench_latency.c): same delay before the signal, same stamp-then-signal order,
 * same way of waiting afterwards.
 */
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define SPIN_STOP UINT64_MAX

/* Delay before each spin round: random, so the signal lands at any phase of the poll loop. */
#define SPIN_DELAY_MIN_NS 20000u
#define SPIN_DELAY_MAX_NS 120000u

/* One line the caller writes, one the responder writes. */
struct spin_pp {
	alignas(64) uint64_t word;  /* A: round number; caller stores release, responder acquires */
	alignas(64) uint64_t stamp; /* A: responder's time of seeing the word; ordered by ack */
	uint64_t ack;               /* A: round acknowledged; responder stores release */
};

static void *spin_responder(void *arg)
{
	struct spin_pp *pp = arg;
	uint64_t seen = 0;

	for (;;) {
		uint64_t w, now;

		/* Acquire pairs with the caller's release store of the round number. */
		while ((w = __atomic_load_n(&pp->word, __ATOMIC_ACQUIRE)) == seen)
			enc_cpu_relax();
		now = enc_now_ns();
		if (w == SPIN_STOP)
			break;
		__atomic_store_n(&pp->stamp, now, __ATOMIC_RELAXED);
		/* Release: the stamp is visible to whoever acquires the ack. */
		__atomic_store_n(&pp->ack, w, __ATOMIC_RELEASE);
		seen = w;
	}
	return NULL;
}

int bench_spin_pingpong(uint64_t duration_ns, uint64_t *rng, struct bench_samples *out)
{
	struct spin_pp pp;
	pthread_t tid;
	uint64_t end, seq = 0;
	int rc;

	memset(&pp, 0, sizeof(pp));
	rc = -pthread_create(&tid, NULL, spin_responder, &pp);
	if (rc)
		return rc;
	end = enc_now_ns() + duration_ns;
	while (!rc && enc_now_ns() < end) {
		uint64_t t0;

		seq++;
		bench_spin_ns(bench_rand_between(rng, SPIN_DELAY_MIN_NS, SPIN_DELAY_MAX_NS));
		t0 = enc_now_ns();
		__atomic_store_n(&pp.word, seq, __ATOMIC_RELEASE);
		/* Acquire pairs with the responder's release of the ack (covers the stamp). */
		while (__atomic_load_n(&pp.ack, __ATOMIC_ACQUIRE) != seq)
			enc_cpu_relax();
		rc = bench_samples_push(out, pp.stamp > t0 ? pp.stamp - t0 : 0);
	}
	__atomic_store_n(&pp.word, SPIN_STOP, __ATOMIC_RELEASE);
	pthread_join(tid, NULL);
	return rc;
}

struct bench_cond_pp {
	pthread_mutex_t mtx;
	pthread_cond_t cv;
	pthread_t tid;
	uint64_t want;  /* M: the round the caller signalled */
	bool stop;      /* M */
	uint64_t seq;   /* caller only: the last round signalled */
	uint64_t stamp; /* A: waiter's time of waking with the predicate true; ordered by ack */
	uint64_t ack;   /* A: waiter stores (release), caller loads (acquire) */
};

static void *cond_waiter(void *arg)
{
	struct bench_cond_pp *pp = arg;
	uint64_t seen = 0;

	pthread_mutex_lock(&pp->mtx);
	for (;;) {
		uint64_t now;

		while (!pp->stop && pp->want == seen)
			pthread_cond_wait(&pp->cv, &pp->mtx);
		now = enc_now_ns();
		if (pp->stop)
			break;
		seen = pp->want;
		__atomic_store_n(&pp->stamp, now, __ATOMIC_RELAXED);
		/* Release: the stamp is visible to whoever acquires the ack. */
		__atomic_store_n(&pp->ack, seen, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&pp->mtx);
	return NULL;
}

int bench_cond_pp_create(struct bench_cond_pp **out)
{
	struct bench_cond_pp *pp = calloc(1, sizeof(*pp));
	int rc;

	if (!pp)
		return -ENOMEM;
	pthread_mutex_init(&pp->mtx, NULL);
	pthread_cond_init(&pp->cv, NULL);
	rc = -pthread_create(&pp->tid, NULL, cond_waiter, pp);
	if (rc) {
		pthread_cond_destroy(&pp->cv);
		pthread_mutex_destroy(&pp->mtx);
		free(pp);
		return rc;
	}
	*out = pp;
	return 0;
}

int bench_cond_pp_round(struct bench_cond_pp *pp, uint64_t gap_ns, uint32_t poll_us,
			uint64_t *sample)
{
	uint64_t seq = ++pp->seq, t0;

	bench_sleep_ns(gap_ns);
	t0 = enc_now_ns();
	pthread_mutex_lock(&pp->mtx);
	pp->want = seq;
	pthread_mutex_unlock(&pp->mtx);
	/* Signalled after the unlock, as the driver's append does. */
	pthread_cond_signal(&pp->cv);
	/* Acquire pairs with the waiter's release of the ack (covers the stamp). */
	while (__atomic_load_n(&pp->ack, __ATOMIC_ACQUIRE) != seq)
		usleep(poll_us);
	*sample = pp->stamp > t0 ? pp->stamp - t0 : 0;
	return 0;
}

void bench_cond_pp_destroy(struct bench_cond_pp *pp)
{
	if (!pp)
		return;
	pthread_mutex_lock(&pp->mtx);
	pp->stop = true;
	pthread_mutex_unlock(&pp->mtx);
	pthread_cond_signal(&pp->cv);
	pthread_join(pp->tid, NULL);
	pthread_cond_destroy(&pp->cv);
	pthread_mutex_destroy(&pp->mtx);
	free(pp);
}
