/* SPDX-License-Identifier: MIT */
/*
 * The "bench-probe" seam backend: as cheap as a backend can be, plus two timestamps.
 *
 * B1 (start) reads the clock first thing and keeps the earliest call since the last reset;
 * B2 (progress) does the same for its first call, then reports the block done (bumping the
 * completion semaphore once per op, as the seam contract asks). The probes in bench_latency.c
 * run one exec at a time on one comm, so "first call since reset" is the call they measure.
 * The barrier is a one-rank barrier: always done.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>

#include <proxyscope/net.h>

#include "bench.h"

struct enc_net_comm {
	uint32_t rank;
};

struct enc_net_req {
	size_t ops_n;
	uint64_t *sema;
};

/*
 * A: written by the worker (release, first call only), read by the main thread (acquire).
 * Each on its own cache line, so polling one never disturbs the store to the other.
 */
static alignas(64) uint64_t g_start_ns;
static alignas(64) uint64_t g_progress_ns;

/* Store @now in @slot unless it already holds a time (the first call wins). */
static void stamp_first(uint64_t *slot, uint64_t now)
{
	uint64_t zero = 0;

	/* Release pairs with the acquire in bench_probe_*_ns(). */
	__atomic_compare_exchange_n(slot, &zero, now, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static int probe_open(const struct enc_net_open_args *args, struct enc_net_comm **out)
{
	struct enc_net_comm *nc = calloc(1, sizeof(*nc));

	if (!nc)
		return -ENOMEM;
	nc->rank = args->rank;
	*out = nc;
	return 0;
}

static void probe_close(struct enc_net_comm *nc)
{
	free(nc);
}

static int probe_start(struct enc_net_comm *nc, const struct enc_net_block *blk,
		       struct enc_net_req **out)
{
	uint64_t now = enc_now_ns();
	struct enc_net_req *r;

	stamp_first(&g_start_ns, now);
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->ops_n = blk->ops_n;
	r->sema = blk->completion_sema;
	*out = r;
	return 0;
}

static int probe_progress(struct enc_net_comm *nc, struct enc_net_req *req, bool *idle, bool *done)
{
	stamp_first(&g_progress_ns, enc_now_ns());
	if (req->sema && req->ops_n)
		/* Release pairs with the device's acquire load of its semaphore. */
		__atomic_fetch_add(req->sema, req->ops_n, __ATOMIC_RELEASE);
	req->ops_n = 0;
	*idle = false;
	*done = true;
	return 0;
}

static int probe_stop(struct enc_net_comm *nc, struct enc_net_req *req)
{
	free(req);
	return 0;
}

static int probe_barrier(struct enc_net_comm *nc, uint64_t seq, enum enc_net_barrier_phase phase,
			 bool *done)
{
	if (done)
		*done = true;
	return 0;
}

static const struct enc_net_ops bench_probe_ops = {
	.name = BENCH_PROBE_NET,
	.open = probe_open,
	.close = probe_close,
	.start = probe_start,
	.progress = probe_progress,
	.stop = probe_stop,
	.barrier = probe_barrier,
};

int bench_probe_register(void)
{
	if (enc_net_ops_find(BENCH_PROBE_NET))
		return 0;
	return enc_net_register(&bench_probe_ops);
}

void bench_probe_reset(void)
{
	/* Relaxed: the reset happens before the enqueue whose mutexes publish it to the worker. */
	__atomic_store_n(&g_start_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&g_progress_ns, 0, __ATOMIC_RELAXED);
}

uint64_t bench_probe_start_ns(void)
{
	return __atomic_load_n(&g_start_ns, __ATOMIC_ACQUIRE);
}

uint64_t bench_probe_progress_ns(void)
{
	return __atomic_load_n(&g_progress_ns, __ATOMIC_ACQUIRE);
}
