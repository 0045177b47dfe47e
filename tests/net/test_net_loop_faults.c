/* SPDX-License-Identifier: MIT */
/* Loop backend tests of the injected faults (net_loop.h): drop, delay and slow. */
#include <errno.h>
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

/* ---- faults ---- */

void test_net_loop__drop_fault_loses_the_ranks_sends(void **state)
{
	const size_t bytes = 64 * 1024;
	const struct enc_net_loop_fault drop = { .kind = ENC_NET_LOOP_FAULT_DROP, .rank = 0,
						 .exec_id = 5 };
	uint8_t *src = malloc(bytes), *dst = calloc(1, bytes);
	uint64_t sema_a = 0, sema_b = 0;
	struct enc_net_comm *a, *b;
	struct th_block ta, tb;
	struct th_drv snd, rcv, d[2];

	(void)state;
	th_fill(src, bytes, 9);
	assert_int_equal(enc_net_loop_inject("drop", &drop), 0); /* before the ranks open */
	a = th_rank_open("drop", 0, 2);
	b = th_rank_open("drop", 1, 2);
	th_block_init(&ta, 5, &sema_a);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	th_block_init(&tb, 5, &sema_b);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	rcv = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };

	assert_int_equal(th_drv_run(&snd, 1, 5), 0); /* the sender sees success */
	assert_int_equal(sema_a, 1);
	assert_int_equal(th_drv_run(&rcv, 1, 200), -ETIMEDOUT); /* the receiver waits forever */
	assert_int_equal(rcv.idle, 200);
	assert_int_equal(sema_b, 0);
	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);

	/* Another exec of the same rank is delivered. */
	ta.blk.exec_id = tb.blk.exec_id = 6;
	d[0] = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	d[1] = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };
	assert_int_equal(th_drv_run(d, 2, 100), 0);
	assert_memory_equal(dst, src, bytes);
	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);

	LOOP->close(a);
	LOOP->close(b);
	enc_net_loop_clear_faults("drop"); /* frees the fabric: LeakSanitizer checks */
	free(src);
	free(dst);
}

void test_net_loop__delay_fault_holds_completions_back(void **state)
{
	const struct enc_net_loop_fault delay = { .kind = ENC_NET_LOOP_FAULT_DELAY, .rank = 1,
						  .exec_id = ENC_NET_LOOP_ANY_EXEC, .arg = 60 };
	struct enc_net_comm *a = th_rank_open("delay", 0, 2), *b = th_rank_open("delay", 1, 2);
	uint8_t src[1024], dst[1024];
	uint64_t sema_b = 0, snd_ms = 0, rcv_ms = 0;
	struct timespec t0;
	struct th_block ta, tb;
	struct th_drv snd, rcv;

	(void)state;
	th_fill(src, sizeof(src), 4);
	assert_int_equal(enc_net_loop_inject("delay", &delay), 0); /* after the ranks opened */
	th_block_init(&ta, 1, NULL);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 0, src, sizeof(src));
	th_block_init(&tb, 1, &sema_b);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, sizeof(dst));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	rcv = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };

	th_drv_step(&snd); /* posts the send */
	th_drv_step(&rcv); /* the bytes land now... */
	assert_memory_equal(dst, src, sizeof(src));
	assert_false(rcv.done); /* ...but the completion is held back */
	assert_int_equal(sema_b, 0);
	while (!snd.done || !rcv.done) {
		if (!snd.done) {
			th_drv_step(&snd);
			snd_ms = th_elapsed_ms(&t0);
		}
		if (!rcv.done) {
			th_drv_step(&rcv);
			rcv_ms = th_elapsed_ms(&t0);
		}
		assert_true(th_elapsed_ms(&t0) < 5000);
	}
	assert_true(rcv_ms >= 60);
	assert_true(snd_ms < rcv_ms); /* rank 0 is not delayed */
	assert_true(rcv.idle > 0);
	assert_int_equal(sema_b, 1);

	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);
	LOOP->close(a);
	LOOP->close(b);
	enc_net_loop_clear_faults("delay");
}

void test_net_loop__slow_fault_lengthens_every_progress_call(void **state)
{
	const struct enc_net_loop_fault slow = { .kind = ENC_NET_LOOP_FAULT_SLOW, .rank = 0,
						 .exec_id = ENC_NET_LOOP_ANY_EXEC, .arg = 3000 };
	struct enc_net_comm *a = th_rank_open("slow", 0, 2), *b = th_rank_open("slow", 1, 2);
	struct th_block t_before, t_after, t_other;
	struct th_drv before, after, other;
	struct timespec t0;
	int i;

	(void)state;
	th_block_init(&t_before, 1, NULL); /* started before arming: not affected */
	before = (struct th_drv){ .nc = a, .req = th_block_start(a, &t_before) };
	assert_int_equal(enc_net_loop_inject("slow", &slow), 0);
	th_block_init(&t_after, 2, NULL);
	after = (struct th_drv){ .nc = a, .req = th_block_start(a, &t_after) };
	th_block_init(&t_other, 2, NULL); /* another rank: not affected */
	other = (struct th_drv){ .nc = b, .req = th_block_start(b, &t_other) };

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 10; i++)
		th_drv_step(&after);
	assert_true(th_elapsed_ms(&t0) >= 30);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 10; i++) {
		th_drv_step(&before);
		th_drv_step(&other);
	}
	assert_true(th_elapsed_ms(&t0) < 30);
	assert_true(before.done && after.done && other.done); /* empty blocks are done at once */

	LOOP->stop(a, before.req);
	LOOP->stop(a, after.req);
	LOOP->stop(b, other.req);
	LOOP->close(a);
	LOOP->close(b);
	enc_net_loop_clear_faults("slow");
}

/* A step of a block of @exec on @nc, in ms. */
static double step_ms(struct enc_net_comm *nc, uint64_t exec)
{
	struct th_block tb;
	struct th_drv d;
	struct timespec t0;
	double ms;

	th_block_init(&tb, exec, NULL);
	d = (struct th_drv){ .nc = nc, .req = th_block_start(nc, &tb) };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	th_drv_step(&d);
	ms = th_elapsed_ms(&t0);
	LOOP->stop(nc, d.req);
	return ms;
}

void test_net_loop__slow_fault_over_a_range_of_execs(void **state)
{
	/* 500 ms a call: far above what a preempted call loses on a busy machine, so the execs
	 * outside the range are told from those inside by the bound alone */
	const struct enc_net_loop_fault slow = { .kind = ENC_NET_LOOP_FAULT_SLOW, .rank = 0,
						 .exec_id = 2, .exec_to = 3, .arg = 500000 };
	const struct enc_net_loop_fault open_ended = { .kind = ENC_NET_LOOP_FAULT_SLOW, .rank = 1,
						       .exec_id = 7,
						       .exec_to = ENC_NET_LOOP_ANY_EXEC,
						       .arg = 500000 };
	struct enc_net_comm *a = th_rank_open("slowr", 0, 2), *b = th_rank_open("slowr", 1, 2);

	(void)state;
	assert_int_equal(enc_net_loop_inject("slowr", &slow), 0);
	assert_int_equal(enc_net_loop_inject("slowr", &open_ended), 0);
	assert_true(step_ms(a, 1) < 500);
	assert_true(step_ms(a, 2) >= 500);
	assert_true(step_ms(a, 3) >= 500);
	assert_true(step_ms(a, 4) < 500);
	assert_true(step_ms(b, 6) < 500);
	assert_true(step_ms(b, 1000) >= 500); /* from exec 7 to the end */
	LOOP->close(a);
	LOOP->close(b);
	enc_net_loop_clear_faults("slowr");
}
