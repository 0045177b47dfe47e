/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers of the loop backend tests: open ranks, build a block in the caller's storage,
 * and drive blocks through B2 the way the proxy driver does, recording what it would observe.
 * The helpers fail the current cmocka test on a seam error, so call them from the test thread.
 */
#ifndef TESTS_NET_NET_LOOP_HARNESS_H
#define TESTS_NET_NET_LOOP_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <proxyscope/net.h>

#define LOOP (&enc_net_loop_ops)
#define TH_MAX_OPS 8

/* A block under construction, in the caller's storage (valid until B3, as the seam requires). */
struct th_block {
	struct enc_net_op ops[TH_MAX_OPS];
	void *src[TH_MAX_OPS];
	void *dst[TH_MAX_OPS];
	struct enc_net_block blk;
};

/* One (comm, block) being driven, with what the driver would observe. */
struct th_drv {
	struct enc_net_comm *nc;
	struct enc_net_req *req;
	int rc;
	bool done;
	unsigned calls, idle, not_done;
};

/* Open @rank of @nranks on @job; the test fails if the open does. */
struct enc_net_comm *th_rank_open(const char *job, uint32_t rank, uint32_t nranks);

/* Open and close at once; returns the open's result. */
int th_rank_try_open(const char *job, uint32_t rank, uint32_t nranks);

void th_block_init(struct th_block *tb, uint64_t exec_id, uint64_t *sema);
void th_block_add(struct th_block *tb, uint32_t kind, uint32_t peer, uint64_t tag, void *buf,
		  uint64_t bytes);
struct enc_net_req *th_block_start(struct enc_net_comm *nc, struct th_block *tb);

/* One B2 call on @d, counted. */
void th_drv_step(struct th_drv *d);

/* Step every unfinished block round-robin until all are done; -ETIMEDOUT after @rounds. */
int th_drv_run(struct th_drv *d, size_t n, unsigned rounds);

/* A pattern that differs with @seed and along the buffer. */
void th_fill(uint8_t *buf, size_t n, unsigned seed);

/* Milliseconds since @t0 (CLOCK_MONOTONIC). */
uint64_t th_elapsed_ms(const struct timespec *t0);

/* Tests defined outside test_net_loop.c (which holds main). */
void test_net_loop__barrier_completes_once_every_rank_arrived(void **state);
void test_net_loop__exchanges_a_ring_among_8_ranks_on_8_threads(void **state);
void test_net_loop__stop_cancels_a_transfer_in_flight(void **state);
void test_net_loop__stopped_unmatched_ops_never_match(void **state);
void test_net_loop__close_cancels_started_blocks(void **state);
void test_net_loop__drop_fault_loses_the_ranks_sends(void **state);
void test_net_loop__delay_fault_holds_completions_back(void **state);
void test_net_loop__slow_fault_lengthens_every_progress_call(void **state);
void test_net_loop__slow_fault_over_a_range_of_execs(void **state);

#endif /* TESTS_NET_NET_LOOP_HARNESS_H */
