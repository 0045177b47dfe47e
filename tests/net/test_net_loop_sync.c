/* SPDX-License-Identifier: MIT */
/*
 * Loop backend tests of what crosses ranks over time: the barrier, a ring among 8 ranks on 8
 * threads (like the real driver: one progressing thread per rank), and cancellation by B3 and
 * by close.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <proxyscope/net.h>
#include <proxyscope/net_loop.h>

#include "net_loop_harness.h"

/* ---- barrier ---- */

void test_net_loop__barrier_completes_once_every_rank_arrived(void **state)
{
	struct enc_net_comm *r[3];
	bool done = true;
	uint64_t seq;
	int i;

	(void)state;
	for (i = 0; i < 3; i++)
		r[i] = th_rank_open("barrier", (uint32_t)i, 3);
	/* Polling a barrier this rank has not entered is a driver bug. */
	assert_int_equal(LOOP->barrier(r[0], 0, ENC_NET_BARRIER_RECV, &done), -EINVAL);

	for (seq = 0; seq < 3; seq++) {
		for (i = 0; i < 3; i++) {
			int j;

			assert_int_equal(LOOP->barrier(r[i], seq, ENC_NET_BARRIER_SEND, NULL), 0);
			for (j = 0; j <= i; j++) {
				assert_int_equal(LOOP->barrier(r[j], seq, ENC_NET_BARRIER_RECV,
							       &done), 0);
				assert_true(done == (i == 2));
			}
		}
	}
	/* Announcements may come out of order; a barrier completes once all earlier ones can. */
	for (i = 0; i < 3; i++) {
		assert_int_equal(LOOP->barrier(r[i], 4, ENC_NET_BARRIER_SEND, NULL), 0);
		assert_int_equal(LOOP->barrier(r[i], 4, ENC_NET_BARRIER_RECV, &done), 0);
		assert_false(done);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(LOOP->barrier(r[i], 3, ENC_NET_BARRIER_SEND, NULL), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(LOOP->barrier(r[i], 4, ENC_NET_BARRIER_RECV, &done), 0);
		assert_true(done);
		assert_int_equal(LOOP->barrier(r[i], 3, ENC_NET_BARRIER_RECV, &done), 0);
		assert_true(done);
	}
	/* Too far ahead means barriers were skipped. */
	assert_int_equal(LOOP->barrier(r[0], 5 + 64, ENC_NET_BARRIER_SEND, NULL), -EINVAL);

	/* A rank that leaves without arriving makes the others' wait fail, not hang. */
	assert_int_equal(LOOP->barrier(r[0], 5, ENC_NET_BARRIER_SEND, NULL), 0);
	LOOP->close(r[2]);
	assert_int_equal(LOOP->barrier(r[0], 5, ENC_NET_BARRIER_RECV, &done), -EPIPE);
	LOOP->close(r[0]);
	LOOP->close(r[1]);
}

/* ---- 8 ranks, 8 threads ---- */

#define RING_N 8
#define RING_ROUNDS 6
#define RING_BYTES (3 * ENC_NET_LOOP_CHUNK + 5)

struct ring_rank {
	pthread_t thread;
	uint32_t rank;
	int err; /* first failure, reported to the main thread (cmocka asserts are not thread-safe) */
	unsigned idle_ticks;
};

static void ring_fail(struct ring_rank *me, int err)
{
	if (!me->err)
		me->err = err;
}

static void ring_round(struct enc_net_comm *nc, struct ring_rank *me, uint64_t round,
		       uint8_t *src, uint8_t *dst, uint8_t *want)
{
	uint32_t right = (me->rank + 1) % RING_N, left = (me->rank + RING_N - 1) % RING_N;
	uint64_t sema = 0;
	struct th_block tb;
	struct enc_net_req *req = NULL;
	bool idle, done = false;

	th_fill(src, RING_BYTES, me->rank * 100 + (unsigned)round);
	th_fill(want, RING_BYTES, left * 100 + (unsigned)round);
	memset(dst, 0, RING_BYTES);
	th_block_init(&tb, round, &sema);
	th_block_add(&tb, ENC_NET_OP_RECV, left, round, dst, RING_BYTES);
	th_block_add(&tb, ENC_NET_OP_SEND, right, round, src, RING_BYTES);
	if (LOOP->start(nc, &tb.blk, &req)) {
		ring_fail(me, 1);
		return;
	}
	while (!done) {
		if (LOOP->progress(nc, req, &idle, &done))
			ring_fail(me, 2);
		if (idle) {
			me->idle_ticks++;
			sched_yield();
		}
	}
	LOOP->stop(nc, req);
	if (memcmp(dst, want, RING_BYTES) || __atomic_load_n(&sema, __ATOMIC_ACQUIRE) != 2)
		ring_fail(me, 3);

	done = false;
	if (LOOP->barrier(nc, round, ENC_NET_BARRIER_SEND, NULL))
		ring_fail(me, 4);
	while (!done && !me->err) {
		int rc = LOOP->barrier(nc, round, ENC_NET_BARRIER_RECV, &done);

		if (rc)
			ring_fail(me, rc);
	}
}

static void *ring_main(void *arg)
{
	struct ring_rank *me = arg;
	struct enc_net_open_args args = { .job = "ring", .rank = me->rank, .nranks = RING_N };
	uint8_t *src = malloc(RING_BYTES), *dst = malloc(RING_BYTES), *want = malloc(RING_BYTES);
	struct enc_net_comm *nc = NULL;
	uint64_t round;

	if (!src || !dst || !want || LOOP->open(&args, &nc)) {
		ring_fail(me, 6);
		goto out_free;
	}
	for (round = 0; round < RING_ROUNDS && !me->err; round++)
		ring_round(nc, me, round, src, dst, want);
	LOOP->close(nc);
out_free:
	free(src);
	free(dst);
	free(want);
	return NULL;
}

void test_net_loop__exchanges_a_ring_among_8_ranks_on_8_threads(void **state)
{
	struct ring_rank ranks[RING_N];
	unsigned idle = 0;
	int i;

	(void)state;
	for (i = 0; i < RING_N; i++) {
		ranks[i] = (struct ring_rank){ .rank = (uint32_t)i };
		assert_int_equal(pthread_create(&ranks[i].thread, NULL, ring_main, &ranks[i]), 0);
	}
	for (i = 0; i < RING_N; i++) {
		assert_int_equal(pthread_join(ranks[i].thread, NULL), 0);
		assert_int_equal(ranks[i].err, 0);
		idle += ranks[i].idle_ticks;
	}
	assert_true(idle > 0); /* senders wait for their receivers' copies */
}

/* ---- cancellation ---- */

void test_net_loop__stop_cancels_a_transfer_in_flight(void **state)
{
	const size_t bytes = 1024 * 1024;
	struct enc_net_comm *a = th_rank_open("cancel", 0, 2), *b = th_rank_open("cancel", 1, 2);
	uint8_t *src = calloc(1, bytes), *dst = calloc(1, bytes);
	struct th_block ta, tb;
	struct th_drv snd, rcv;

	(void)state;
	/* The sender stops mid-transfer and frees its buffer: the receiver must not read it. */
	th_block_init(&ta, 1, NULL);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	th_block_init(&tb, 1, NULL);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	rcv = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };
	th_drv_step(&snd);
	th_drv_step(&rcv);
	assert_false(rcv.done);
	assert_int_equal(LOOP->stop(a, snd.req), 0);
	free(src);
	th_drv_step(&rcv);
	assert_int_equal(rcv.rc, -ECANCELED);
	assert_true(rcv.done);
	LOOP->stop(b, rcv.req);

	/* The receiver stops mid-transfer and frees its buffer: the sender's op fails. */
	src = calloc(1, bytes);
	ta.src[0] = src;
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	rcv = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };
	th_drv_step(&snd);
	th_drv_step(&rcv);
	assert_int_equal(LOOP->stop(b, rcv.req), 0);
	free(dst);
	th_drv_step(&snd);
	assert_int_equal(snd.rc, -ECANCELED);
	LOOP->stop(a, snd.req);

	LOOP->close(a);
	LOOP->close(b);
	free(src);
}

void test_net_loop__stopped_unmatched_ops_never_match(void **state)
{
	struct enc_net_comm *a = th_rank_open("unmatched", 0, 2), *b = th_rank_open("unmatched", 1, 2);
	int32_t stale = -1, fresh = -1, msg = 77, lost = 66, never = -1;
	struct th_block t_stale, t_fresh, t_send, t_lost, t_never;
	struct th_drv d[2], w;

	(void)state;
	/* A recv stopped before any send arrived does not swallow the next one. */
	th_block_init(&t_stale, 1, NULL);
	th_block_add(&t_stale, ENC_NET_OP_RECV, 0, 3, &stale, sizeof(stale));
	w = (struct th_drv){ .nc = b, .req = th_block_start(b, &t_stale) };
	th_drv_step(&w); /* posted, unmatched */
	LOOP->stop(b, w.req);
	th_block_init(&t_fresh, 1, NULL);
	th_block_add(&t_fresh, ENC_NET_OP_RECV, 0, 3, &fresh, sizeof(fresh));
	th_block_init(&t_send, 1, NULL);
	th_block_add(&t_send, ENC_NET_OP_SEND, 1, 3, &msg, sizeof(msg));
	d[0] = (struct th_drv){ .nc = a, .req = th_block_start(a, &t_send) };
	d[1] = (struct th_drv){ .nc = b, .req = th_block_start(b, &t_fresh) };
	assert_int_equal(th_drv_run(d, 2, 10), 0);
	assert_int_equal(fresh, 77);
	assert_int_equal(stale, -1);
	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);

	/* A send stopped before any recv was posted is never delivered. */
	th_block_init(&t_lost, 1, NULL);
	th_block_add(&t_lost, ENC_NET_OP_SEND, 1, 4, &lost, sizeof(lost));
	w = (struct th_drv){ .nc = a, .req = th_block_start(a, &t_lost) };
	th_drv_step(&w); /* posted, unmatched */
	LOOP->stop(a, w.req);
	th_block_init(&t_never, 1, NULL);
	th_block_add(&t_never, ENC_NET_OP_RECV, 0, 4, &never, sizeof(never));
	w = (struct th_drv){ .nc = b, .req = th_block_start(b, &t_never) };
	assert_int_equal(th_drv_run(&w, 1, 50), -ETIMEDOUT);
	assert_int_equal(w.idle, 50);
	assert_int_equal(never, -1);
	LOOP->stop(b, w.req);

	LOOP->close(a);
	LOOP->close(b);
}

void test_net_loop__close_cancels_started_blocks(void **state)
{
	const size_t bytes = 256 * 1024;
	struct enc_net_comm *a = th_rank_open("close", 0, 2), *b = th_rank_open("close", 1, 2);
	uint8_t *src = calloc(1, bytes), *dst = calloc(1, bytes);
	int32_t late = 5;
	struct th_block ta, tb, tl;
	struct th_drv rcv, snd;

	(void)state;
	th_block_init(&ta, 1, NULL);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	th_block_init(&tb, 1, NULL);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) }; /* never stopped */
	rcv = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };
	th_drv_step(&snd);
	th_drv_step(&rcv);
	LOOP->close(a);
	free(src);
	th_drv_step(&rcv);
	assert_int_equal(rcv.rc, -ECANCELED);

	/* Sends to a closed rank fail with -EPIPE instead of waiting forever. */
	a = th_rank_open("close", 0, 2);
	LOOP->close(b); /* with rcv.req still started */
	th_block_init(&tl, 2, NULL);
	th_block_add(&tl, ENC_NET_OP_SEND, 1, 0, &late, sizeof(late));
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &tl) };
	th_drv_step(&snd);
	assert_int_equal(snd.rc, -EPIPE);
	LOOP->stop(a, snd.req);
	LOOP->close(a);
	free(dst);
}
