/* SPDX-License-Identifier: MIT */
/*
 * A complete program driving collectives through the proxyscope driver, using only its
 * installed public headers: a ring of RANKS ranks, each a thread of this process playing both
 * the runtime and its device. Every exec, rank r sends BYTES bytes to rank r+1 and receives as
 * many from rank r-1, in two basic blocks, over the in-process `loop` backend.
 *
 * Per exec, what a collective runtime does with the driver:
 *   1. describe the exec: basic blocks of send/receive ops, one trigger word per stream (set to
 *      "not yet"), a completion semaphore per stream, the barrier-done semaphore;
 *   2. enqueue its network and barrier tasks (enc_enq_proxy_tasks);
 *   3. as the device: write the trigger word, then wait until the completion semaphore counts
 *      every op and the barrier leader counted the barrier;
 *   4. consume both tasks' statuses (enc_consume_proxy_task_status) and check the bytes.
 *
 * Build it against an installed proxyscope (examples/CMakeLists.txt, find_package) and run it
 * with no arguments; under `proxyscope record -- ./proxyscope_ring` its tasks are traced.
 * Exit status 0 when every exec completed and every byte arrived intact.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <proxyscope/log.h>
#include <proxyscope/net.h>
#include <proxyscope/proxy.h>

#define RANKS 4
#define EXECS 20
#define BYTES 4096
#define BLOCKS 2
#define DEVICE_TIMEOUT_NS (10ull * 1000 * 1000 * 1000)

/* The device has not written the trigger word yet (the driver's protocol: any other value
 * means "go", and the driver consumes it by writing 0). */
#define TRIGGER_NOT_YET 0xFFFFFFFFu

struct rank {
	uint32_t rank;
	struct enc_comm *comm;
	unsigned char send[BYTES];
	unsigned char recv[BYTES];
	struct enc_net_op ops[BLOCKS][2];   /* per block: one send, one receive */
	void *src[BLOCKS][2], *dst[BLOCKS][2];
	struct enc_bb bbs[BLOCKS];
	uint32_t trigger;                    /* stream 0's trigger word (device -> driver) */
	uint64_t completion;                 /* +1 per finished op (driver -> device) */
	uint64_t barrier_done;               /* +1 per barrier the leader entered */
	int failed;                          /* 0, or the first error */
};

static char g_job[64];
static pthread_barrier_t g_setup_done;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static unsigned char pattern(uint32_t sender, uint64_t exec, size_t i)
{
	return (unsigned char)(sender * 31 + exec * 7 + i);
}

/* The exec's two basic blocks: each sends half the buffer to the next rank and receives the
 * matching half from the previous one, with a tag unique to (exec, block). */
static void describe_exec(struct rank *r, uint64_t exec)
{
	uint32_t next = (r->rank + 1) % RANKS, prev = (r->rank + RANKS - 1) % RANKS;
	size_t half = BYTES / BLOCKS;

	for (size_t i = 0; i < BYTES; i++)
		r->send[i] = pattern(r->rank, exec, i);
	memset(r->recv, 0, sizeof(r->recv));
	for (int b = 0; b < BLOCKS; b++) {
		uint64_t tag = exec * BLOCKS + (uint64_t)b;

		r->ops[b][0] = (struct enc_net_op){ .kind = ENC_NET_OP_SEND, .peer = next,
						    .bytes = half, .tag = tag, .stream = 0 };
		r->src[b][0] = r->send + (size_t)b * half;
		r->dst[b][0] = NULL;
		r->ops[b][1] = (struct enc_net_op){ .kind = ENC_NET_OP_RECV, .peer = prev,
						    .bytes = half, .tag = tag, .stream = 0 };
		r->src[b][1] = NULL;
		r->dst[b][1] = r->recv + (size_t)b * half;
		r->bbs[b] = (struct enc_bb){ .ops = r->ops[b], .src_addr = r->src[b],
					     .dest_addr = r->dst[b], .ops_n = 2 };
	}
}

/* The device's side: wait until *@sema (bumped by the driver) reaches @want, or time out. */
static int device_wait(const uint64_t *sema, uint64_t want)
{
	uint64_t deadline = now_ns() + DEVICE_TIMEOUT_NS;

	while (__atomic_load_n(sema, __ATOMIC_ACQUIRE) < want) {
		if (now_ns() > deadline)
			return -ETIMEDOUT;
		sched_yield();
	}
	return 0;
}

static int run_exec(struct rank *r, uint64_t exec)
{
	struct enc_context ctx;
	int rc;

	describe_exec(r, exec);
	enc_context_init(&ctx, r->comm, exec);
	ctx.streams_n = 1;
	r->trigger = TRIGGER_NOT_YET;
	ctx.start_proxy_task_host_mem_addrs[0] = &r->trigger;
	ctx.completion_semas[0] = &r->completion;
	ctx.bbs = r->bbs;
	ctx.bbs_n = BLOCKS;
	/* One rank per proxy (the default): every rank leads its own barrier group. */
	if (ctx.barrier_leader) {
		ctx.barrier_done_semas[0] = &r->barrier_done;
		ctx.barrier_done_n = 1;
	}

	rc = enc_enq_proxy_tasks(&ctx);
	if (rc) {
		fprintf(stderr, "rank %u exec %" PRIu64 ": enqueue: %s\n", r->rank, exec, strerror(-rc));
		return rc;
	}

	/* The device: the exec's data is ready, let the network task start... */
	__atomic_store_n(&r->trigger, 1, __ATOMIC_RELEASE);
	/* ... and wait for every op of every block, and for the barrier. */
	rc = device_wait(&r->completion, (exec + 1) * BLOCKS * 2);
	if (!rc && ctx.barrier_leader)
		rc = device_wait(&r->barrier_done, exec + 1);
	if (rc) {
		fprintf(stderr, "rank %u exec %" PRIu64 ": the device timed out\n", r->rank, exec);
		return rc;
	}

	rc = enc_consume_proxy_task_status(&ctx, PROXY_TASK_NETWORK);
	if (!rc)
		rc = enc_consume_proxy_task_status(&ctx, PROXY_TASK_BARRIER);
	if (rc) {
		fprintf(stderr, "rank %u exec %" PRIu64 ": %s\n", r->rank, exec, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < BYTES; i++)
		if (r->recv[i] != pattern((r->rank + RANKS - 1) % RANKS, exec, i)) {
			fprintf(stderr, "rank %u exec %" PRIu64 ": byte %zu differs\n", r->rank, exec, i);
			return -EIO;
		}
	return 0;
}

static void *rank_main(void *arg)
{
	struct rank *r = arg;
	struct enc_comm_args ca = { .job = g_job, .rank = r->rank, .nranks = RANKS, .cfg = NULL };
	int rc = enc_setup_global_comm(&ca, &r->comm);

	if (rc) {
		fprintf(stderr, "rank %u: enc_setup_global_comm: %s\n", r->rank, strerror(-rc));
		r->comm = NULL;
		r->failed = rc;
	}
	/* Every rank's endpoint exists before anyone sends (the loop backend matches in memory). */
	pthread_barrier_wait(&g_setup_done);
	for (uint64_t e = 0; !r->failed && e < EXECS; e++)
		r->failed = run_exec(r, e);
	pthread_barrier_wait(&g_setup_done); /* nobody frees its comm while a peer still sends */
	if (r->comm)
		enc_free_global_comm(r->comm);
	return NULL;
}

int main(void)
{
	static struct rank ranks[RANKS];
	pthread_t th[RANKS];
	int failed = 0;

	enc_log_set_hook(enc_log_stderr, NULL, ENC_LOG_WARN);
	snprintf(g_job, sizeof(g_job), "example-ring-%ld", (long)getpid());
	pthread_barrier_init(&g_setup_done, NULL, RANKS);
	for (uint32_t i = 0; i < RANKS; i++) {
		ranks[i].rank = i;
		if (pthread_create(&th[i], NULL, rank_main, &ranks[i])) {
			fprintf(stderr, "cannot start rank %u\n", i);
			return 1;
		}
	}
	for (uint32_t i = 0; i < RANKS; i++) {
		pthread_join(th[i], NULL);
		failed |= ranks[i].failed != 0;
	}
	pthread_barrier_destroy(&g_setup_done);
	if (failed)
		return 1;
	printf("%d ranks x %d execs of %d bytes in %d basic blocks: ok\n", RANKS, EXECS, BYTES,
	       BLOCKS);
	return 0;
}
