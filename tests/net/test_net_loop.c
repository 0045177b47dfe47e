/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the loop seam backend, driven through its ops table the way the proxy driver
 * drives it: B1 once per block, B2 until done, B3 to release. Every test uses its own job name
 * and closes (or clears) everything it opens, so LeakSanitizer also checks that fabrics are
 * freed. This file: lookup, delivery, chunking, matching, the semaphore, bad input, and main;
 * test_net_loop_sync.c: barrier, the 8-thread ring, cancellation; test_net_loop_faults.c: faults.
 */
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

static void transfer_check(uint64_t bytes)
{
	const size_t guard = 64;
	struct enc_net_comm *a = th_rank_open("delivery", 0, 2), *b = th_rank_open("delivery", 1, 2);
	uint8_t *src = bytes ? malloc(bytes) : NULL, *dst = malloc(bytes + guard);
	uint64_t sema_a = 0, sema_b = 0;
	struct th_block ta, tb;
	struct th_drv d[2];
	size_t i;

	assert_non_null(dst);
	th_fill(src, bytes, (unsigned)bytes);
	memset(dst, 0xEE, bytes + guard);
	th_block_init(&ta, 1, &sema_a);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 42, src, bytes);
	th_block_init(&tb, 1, &sema_b);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 42, bytes ? dst : NULL, bytes);
	d[0] = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	d[1] = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };

	assert_int_equal(th_drv_run(d, 2, 1000), 0);
	assert_int_equal(d[0].rc, 0);
	assert_int_equal(d[1].rc, 0);
	if (bytes)
		assert_memory_equal(dst, src, bytes);
	for (i = 0; i < guard; i++)
		assert_int_equal(dst[bytes + i], 0xEE);
	assert_int_equal(sema_a, 1);
	assert_int_equal(sema_b, 1);

	assert_int_equal(LOOP->stop(a, d[0].req), 0);
	assert_int_equal(LOOP->stop(b, d[1].req), 0);
	LOOP->close(a);
	LOOP->close(b);
	free(src);
	free(dst);
}

/* ---- lookup and names ---- */

static void test_net_loop__is_found_by_name_and_unknown_names_are_not(void **state)
{
	(void)state;
	assert_ptr_equal(enc_net_ops_find("loop"), &enc_net_loop_ops);
	assert_string_equal(enc_net_loop_ops.name, "loop");
	assert_null(enc_net_ops_find("no-such-backend"));
	assert_null(enc_net_ops_find(""));
	assert_null(enc_net_ops_find(NULL));
	assert_string_equal(enc_net_op_kind_str(ENC_NET_OP_SEND), "send");
	assert_string_equal(enc_net_op_kind_str(ENC_NET_OP_RECV), "recv");
	assert_string_equal(enc_net_op_kind_str(ENC_NET_OP_KIND_NR), "?");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_DROP), "drop");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_DELAY), "delay");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_SLOW), "slow");
	assert_string_equal(enc_net_loop_fault_kind_str(ENC_NET_LOOP_FAULT_KIND_NR), "?");
}

/* ---- delivery ---- */

static void test_net_loop__delivers_bytes_exactly(void **state)
{
	static const uint64_t sizes[] = {
		0, 1, 7, ENC_NET_LOOP_CHUNK - 1, ENC_NET_LOOP_CHUNK, ENC_NET_LOOP_CHUNK + 1,
		64 * 1024, 1024 * 1024,
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		transfer_check(sizes[i]);
}

static void test_net_loop__moves_64k_over_several_progress_calls(void **state)
{
	const size_t bytes = 64 * 1024;
	struct enc_net_comm *a = th_rank_open("chunks", 0, 2), *b = th_rank_open("chunks", 1, 2);
	uint8_t *src = malloc(bytes), *dst = malloc(bytes);
	struct th_block ta, tb;
	struct th_drv snd, rcv;

	(void)state;
	th_fill(src, bytes, 3);
	th_block_init(&ta, 1, NULL);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 0, src, bytes);
	th_block_init(&tb, 1, NULL);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 0, dst, bytes);
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	rcv = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };

	/* Nothing has moved yet: the sender's tick is idle and not done. */
	th_drv_step(&snd);
	assert_int_equal(snd.rc, 0);
	assert_int_equal(snd.idle, 1);
	assert_false(snd.done);

	while (!rcv.done && rcv.calls < 100) {
		th_drv_step(&rcv);
		assert_int_equal(rcv.rc, 0);
	}
	assert_true(rcv.done);
	assert_true(rcv.calls >= bytes / ENC_NET_LOOP_CHUNK);
	assert_true(rcv.not_done >= 1);
	assert_int_equal(rcv.idle, 0); /* every call moved a chunk */
	assert_memory_equal(dst, src, bytes);

	th_drv_step(&snd);
	assert_true(snd.done);

	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);
	LOOP->close(a);
	LOOP->close(b);
	free(src);
	free(dst);
}

static void test_net_loop__posts_a_block_on_its_first_progress_call(void **state)
{
	struct enc_net_comm *a = th_rank_open("lazy", 0, 2), *b = th_rank_open("lazy", 1, 2);
	uint32_t msg = 0, got = 0;
	struct th_block ta, tb;
	struct th_drv snd, rcv;
	int i;

	(void)state;
	th_block_init(&ta, 1, NULL);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 0, &msg, sizeof(msg));
	th_block_init(&tb, 1, NULL);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 0, &got, sizeof(got));
	snd = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	rcv = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };

	/* Started but never progressed: the send buffer is not read (the driver starts blocks
	 * before the device has written them). */
	for (i = 0; i < 10; i++)
		th_drv_step(&rcv);
	assert_int_equal(rcv.idle, 10);
	assert_false(rcv.done);

	msg = 0xC0FFEE; /* the "device" fills the buffer, then the block is progressed */
	th_drv_step(&snd);
	assert_int_equal(th_drv_run(&rcv, 1, 10), 0);
	assert_int_equal(got, 0xC0FFEE);

	LOOP->stop(a, snd.req);
	LOOP->stop(b, rcv.req);
	LOOP->close(a);
	LOOP->close(b);
}

/* ---- matching ---- */

static void test_net_loop__matches_by_sender_and_tag(void **state)
{
	struct enc_net_comm *r0 = th_rank_open("tags", 0, 3), *r1 = th_rank_open("tags", 1, 3),
			    *r2 = th_rank_open("tags", 2, 3);
	char a7[8] = "from0t7", a9[8] = "from0t9", c7[8] = "from2t7";
	char x[8] = { 0 }, y[8] = { 0 }, z[8] = { 0 };
	struct th_block t0, t1, t2;
	struct th_drv d[3];

	(void)state;
	th_block_init(&t2, 1, NULL); /* rank 2 also uses tag 7 towards rank 1 */
	th_block_add(&t2, ENC_NET_OP_SEND, 1, 7, c7, sizeof(c7));
	th_block_init(&t0, 1, NULL);
	th_block_add(&t0, ENC_NET_OP_SEND, 1, 7, a7, sizeof(a7));
	th_block_add(&t0, ENC_NET_OP_SEND, 1, 9, a9, sizeof(a9));
	th_block_init(&t1, 1, NULL); /* rank 1 asks in another order than they were sent */
	th_block_add(&t1, ENC_NET_OP_RECV, 0, 9, x, sizeof(x));
	th_block_add(&t1, ENC_NET_OP_RECV, 0, 7, y, sizeof(y));
	th_block_add(&t1, ENC_NET_OP_RECV, 2, 7, z, sizeof(z));
	d[0] = (struct th_drv){ .nc = r2, .req = th_block_start(r2, &t2) };
	d[1] = (struct th_drv){ .nc = r0, .req = th_block_start(r0, &t0) };
	d[2] = (struct th_drv){ .nc = r1, .req = th_block_start(r1, &t1) };

	assert_int_equal(th_drv_run(d, 3, 100), 0);
	assert_string_equal(x, "from0t9");
	assert_string_equal(y, "from0t7");
	assert_string_equal(z, "from2t7");

	LOOP->stop(r2, d[0].req);
	LOOP->stop(r0, d[1].req);
	LOOP->stop(r1, d[2].req);
	LOOP->close(r0);
	LOOP->close(r1);
	LOOP->close(r2);
}

/* Three messages with one (sender, tag) key arrive in order, whichever side posts first. */
static void fifo_check(bool recvs_first)
{
	struct enc_net_comm *a = th_rank_open("fifo", 0, 2), *b = th_rank_open("fifo", 1, 2);
	uint32_t msg[3] = { 111, 222, 333 }, got[3] = { 0 };
	struct th_block ts[3], tr;
	struct th_drv d[4];
	size_t i;

	th_block_init(&tr, 1, NULL);
	for (i = 0; i < 3; i++) {
		th_block_add(&tr, ENC_NET_OP_RECV, 0, 5, &got[i], sizeof(got[i]));
		th_block_init(&ts[i], 1, NULL); /* one send per block: FIFO across blocks */
		th_block_add(&ts[i], ENC_NET_OP_SEND, 1, 5, &msg[i], sizeof(msg[i]));
	}
	if (recvs_first) {
		d[3] = (struct th_drv){ .nc = b, .req = th_block_start(b, &tr) };
		th_drv_step(&d[3]); /* posts the recvs */
	}
	for (i = 0; i < 3; i++)
		d[i] = (struct th_drv){ .nc = a, .req = th_block_start(a, &ts[i]) };
	if (!recvs_first)
		d[3] = (struct th_drv){ .nc = b, .req = th_block_start(b, &tr) };

	assert_int_equal(th_drv_run(d, 4, 100), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(got[i], msg[i]);
	for (i = 0; i < 3; i++)
		LOOP->stop(a, d[i].req);
	LOOP->stop(b, d[3].req);
	LOOP->close(a);
	LOOP->close(b);
}

static void test_net_loop__keeps_fifo_order_for_equal_keys(void **state)
{
	(void)state;
	fifo_check(false);
	fifo_check(true);
}

static void test_net_loop__fails_short_recv_with_emsgsize_on_both_ops(void **state)
{
	struct enc_net_comm *a = th_rank_open("short", 0, 2), *b = th_rank_open("short", 1, 2);
	uint8_t src[100] = { 0 }, dst[50];
	uint64_t sema_a = 0, sema_b = 0;
	struct th_block ta, tb;
	struct th_drv d[2];

	(void)state;
	th_block_init(&ta, 1, &sema_a);
	th_block_add(&ta, ENC_NET_OP_SEND, 1, 1, src, sizeof(src));
	th_block_init(&tb, 1, &sema_b);
	th_block_add(&tb, ENC_NET_OP_RECV, 0, 1, dst, sizeof(dst));
	d[0] = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	d[1] = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };

	assert_int_equal(th_drv_run(d, 2, 10), 0); /* an error finishes the block */
	assert_int_equal(d[0].rc, -EMSGSIZE);
	assert_int_equal(d[1].rc, -EMSGSIZE);
	assert_int_equal(sema_a, 0); /* a failed op is not a completion */
	assert_int_equal(sema_b, 0);

	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);
	LOOP->close(a);
	LOOP->close(b);
}

/* ---- completion semaphore ---- */

static void test_net_loop__increments_completion_sema_once_per_op(void **state)
{
	const size_t bytes = 40 * 1024; /* three chunks each */
	struct enc_net_comm *a = th_rank_open("sema", 0, 2), *b = th_rank_open("sema", 1, 2);
	uint8_t *src = calloc(3, bytes), *dst = calloc(3, bytes);
	uint64_t sema_a = 0, sema_b = 0;
	struct th_block ta, tb;
	struct th_drv d[2];
	size_t i;

	(void)state;
	th_block_init(&ta, 1, &sema_a);
	th_block_init(&tb, 1, &sema_b);
	for (i = 0; i < 3; i++) {
		th_block_add(&ta, ENC_NET_OP_SEND, 1, i, src + i * bytes, bytes);
		th_block_add(&tb, ENC_NET_OP_RECV, 0, i, dst + i * bytes, bytes);
	}
	th_block_add(&tb, ENC_NET_OP_SEND, 1, 99, NULL, 0); /* to self, zero bytes */
	th_block_add(&tb, ENC_NET_OP_RECV, 1, 99, NULL, 0);
	d[0] = (struct th_drv){ .nc = a, .req = th_block_start(a, &ta) };
	d[1] = (struct th_drv){ .nc = b, .req = th_block_start(b, &tb) };

	th_drv_step(&d[0]); /* posts the sends */
	while (!d[1].done) {
		uint64_t before = sema_b;

		th_drv_step(&d[1]);
		assert_true(sema_b <= 5);
		assert_true(d[1].done == (sema_b == 5)); /* done exactly once all are counted */
		assert_true(sema_b >= before);
	}
	assert_int_equal(th_drv_run(d, 2, 10), 0);
	for (i = 0; i < 20; i++) { /* more ticks after done change nothing */
		th_drv_step(&d[0]);
		th_drv_step(&d[1]);
		assert_true(d[0].done && d[1].done);
	}
	assert_int_equal(sema_a, 3);
	assert_int_equal(sema_b, 5);

	LOOP->stop(a, d[0].req);
	LOOP->stop(b, d[1].req);
	LOOP->close(a);
	LOOP->close(b);
	free(src);
	free(dst);
}

/* ---- bad input ---- */

static void test_net_loop__rejects_bad_open_arguments(void **state)
{
	struct enc_net_open_args no_job = { .job = NULL, .rank = 0, .nranks = 1 };
	struct enc_net_comm *nc = NULL, *r0;

	(void)state;
	assert_int_equal(th_rank_try_open("badopen", 2, 2), -EINVAL); /* rank out of range */
	assert_int_equal(th_rank_try_open("badopen", 0, 0), -EINVAL); /* no ranks */
	assert_int_equal(LOOP->open(&no_job, &nc), -EINVAL);
	assert_null(nc);

	r0 = th_rank_open("badopen", 0, 4);
	assert_int_equal(th_rank_try_open("badopen", 0, 4), -EADDRINUSE); /* duplicate rank */
	assert_int_equal(th_rank_try_open("badopen", 1, 3), -EINVAL);     /* nranks mismatch */
	assert_int_equal(th_rank_try_open("badopen", 1, 4), 0);
	LOOP->close(r0);

	/* Once every rank closed the job is gone: it may come back with another size. */
	assert_int_equal(th_rank_try_open("badopen", 2, 3), 0);
}

static void test_net_loop__rejects_bad_blocks_and_faults(void **state)
{
	struct enc_net_comm *nc = th_rank_open("badblock", 0, 2);
	struct enc_net_loop_fault bad = { .kind = ENC_NET_LOOP_FAULT_KIND_NR };
	struct enc_net_req *req = NULL;
	uint8_t buf[4];
	struct th_block tb;

	(void)state;
	th_block_init(&tb, 1, NULL);
	th_block_add(&tb, ENC_NET_OP_SEND, 2, 0, buf, sizeof(buf)); /* peer out of range */
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	tb.ops[0].peer = 1;
	tb.ops[0].kind = ENC_NET_OP_KIND_NR; /* bad kind */
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	tb.ops[0].kind = ENC_NET_OP_SEND;
	tb.src[0] = NULL; /* bytes with no buffer */
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	tb.blk.src_addr = NULL;
	assert_int_equal(LOOP->start(nc, &tb.blk, &req), -EINVAL);
	assert_null(req);
	LOOP->close(nc);

	assert_int_equal(enc_net_loop_inject("badfault", &bad), -EINVAL);
	assert_int_equal(enc_net_loop_inject("badfault", NULL), -EINVAL);
	/* Faults on a job nobody opened are freed by clear_faults (LeakSanitizer checks). */
	bad.kind = ENC_NET_LOOP_FAULT_SLOW;
	assert_int_equal(enc_net_loop_inject("badfault", &bad), 0);
	enc_net_loop_clear_faults("badfault");
	enc_net_loop_clear_faults("never-armed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_loop__is_found_by_name_and_unknown_names_are_not),
		cmocka_unit_test(test_net_loop__delivers_bytes_exactly),
		cmocka_unit_test(test_net_loop__moves_64k_over_several_progress_calls),
		cmocka_unit_test(test_net_loop__posts_a_block_on_its_first_progress_call),
		cmocka_unit_test(test_net_loop__matches_by_sender_and_tag),
		cmocka_unit_test(test_net_loop__keeps_fifo_order_for_equal_keys),
		cmocka_unit_test(test_net_loop__fails_short_recv_with_emsgsize_on_both_ops),
		cmocka_unit_test(test_net_loop__increments_completion_sema_once_per_op),
		cmocka_unit_test(test_net_loop__barrier_completes_once_every_rank_arrived),
		cmocka_unit_test(test_net_loop__exchanges_a_ring_among_8_ranks_on_8_threads),
		cmocka_unit_test(test_net_loop__stop_cancels_a_transfer_in_flight),
		cmocka_unit_test(test_net_loop__stopped_unmatched_ops_never_match),
		cmocka_unit_test(test_net_loop__close_cancels_started_blocks),
		cmocka_unit_test(test_net_loop__drop_fault_loses_the_ranks_sends),
		cmocka_unit_test(test_net_loop__delay_fault_holds_completions_back),
		cmocka_unit_test(test_net_loop__slow_fault_lengthens_every_progress_call),
		cmocka_unit_test(test_net_loop__slow_fault_over_a_range_of_execs),
		cmocka_unit_test(test_net_loop__rejects_bad_open_arguments),
		cmocka_unit_test(test_net_loop__rejects_bad_blocks_and_faults),
	};

	return cmocka_run_group_tests_name("net_loop", tests, NULL, NULL);
}
