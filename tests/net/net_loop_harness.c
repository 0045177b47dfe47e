/* SPDX-License-Identifier: MIT */
/* The loop backend tests' shared helpers (see net_loop_harness.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <proxyscope/net.h>

#include "net_loop_harness.h"

struct enc_net_comm *th_rank_open(const char *job, uint32_t rank, uint32_t nranks)
{
	struct enc_net_open_args args = { .job = job, .rank = rank, .nranks = nranks };
	struct enc_net_comm *nc = NULL;

	assert_int_equal(LOOP->open(&args, &nc), 0);
	assert_non_null(nc);
	return nc;
}

int th_rank_try_open(const char *job, uint32_t rank, uint32_t nranks)
{
	struct enc_net_open_args args = { .job = job, .rank = rank, .nranks = nranks };
	struct enc_net_comm *nc = NULL;
	int rc = LOOP->open(&args, &nc);

	if (rc == 0)
		LOOP->close(nc);
	return rc;
}

void th_block_add(struct th_block *tb, uint32_t kind, uint32_t peer, uint64_t tag, void *buf,
		   uint64_t bytes)
{
	size_t i = tb->blk.ops_n++;

	assert_true(i < TH_MAX_OPS);
	tb->ops[i] = (struct enc_net_op){ .kind = kind, .peer = peer, .bytes = bytes, .tag = tag };
	tb->src[i] = kind == ENC_NET_OP_SEND ? buf : NULL;
	tb->dst[i] = kind == ENC_NET_OP_RECV ? buf : NULL;
}

void th_block_init(struct th_block *tb, uint64_t exec_id, uint64_t *sema)
{
	memset(tb, 0, sizeof(*tb));
	tb->blk.exec_id = exec_id;
	tb->blk.ops = tb->ops;
	tb->blk.src_addr = tb->src;
	tb->blk.dest_addr = tb->dst;
	tb->blk.completion_sema = sema;
}

struct enc_net_req *th_block_start(struct enc_net_comm *nc, struct th_block *tb)
{
	struct enc_net_req *req = NULL;

	assert_int_equal(LOOP->start(nc, &tb->blk, &req), 0);
	assert_non_null(req);
	return req;
}

void th_drv_step(struct th_drv *d)
{
	bool idle = false, done = false;

	d->rc = LOOP->progress(d->nc, d->req, &idle, &done);
	d->calls++;
	d->idle += idle;
	d->not_done += !done;
	d->done = done;
}

/* Step every unfinished block round-robin until all are done; -ETIMEDOUT after @rounds. */
int th_drv_run(struct th_drv *d, size_t n, unsigned rounds)
{
	while (rounds--) {
		bool all = true;
		size_t i;

		for (i = 0; i < n; i++) {
			if (!d[i].done)
				th_drv_step(&d[i]);
			all = all && d[i].done;
		}
		if (all)
			return 0;
	}
	return -ETIMEDOUT;
}

void th_fill(uint8_t *buf, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(i * 131u + seed * 7u + 1u);
}

uint64_t th_elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)((t1.tv_sec - t0->tv_sec) * 1000000000ll + (t1.tv_nsec - t0->tv_nsec)) /
	       1000000u;
}
